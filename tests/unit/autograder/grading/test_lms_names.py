"""Canvas and Moodle download names read into students, ids and files (no kernel)."""

import zipfile

import pytest

from autograder.grading import lms_names


def _download(folder, names):
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    return folder


def _by_student(handins):
    return {handin.student: handin for handin in handins}


def test_canvas_names_give_students_late_marks_and_files(tmp_path):
    folder = _download(
        tmp_path / "canvas",
        [
            "leealice_12345_1_likelihoods.ipynb",
            "leealice_12345_2_helper_1_2_x.py",  # a file's own name may look like Canvas's
            "wangwei_LATE_21_3_likelihoods.ipynb",
            "wangwei_22_4_likelihoods (1).ipynb",
            "LATE_anon_Ab3dE_5_work.ipynb",
            "ozkan_31_text.html",
        ],
    )
    students = _by_student(lms_names.discover(folder, tmp_path / "course"))
    assert set(students) == {"leealice", "wangwei_21", "wangwei_22", "anon_Ab3dE", "ozkan"}
    assert sorted(students["leealice"].files) == ["helper_1_2_x.py", "likelihoods.ipynb"]
    assert sorted(s for s, handin in students.items() if handin.late) == ["anon_Ab3dE", "wangwei_21"]
    for student in ("wangwei_22", "anon_Ab3dE"):  # a renamed upload, the one notebook under another name
        found, _ = lms_names.notebooks(students[student], ["likelihoods"])
        assert list(found) == ["likelihoods"]
    with pytest.raises(ValueError, match="holds no notebook named likelihoods.ipynb"):
        lms_names.notebooks(students["ozkan"], ["likelihoods"])


def test_a_folder_of_student_notebooks_is_no_lms_download(tmp_path):
    folder = _download(tmp_path / "plain", ["alice.ipynb", "leealice_12345_1_likelihoods.ipynb"])
    assert lms_names.discover(folder, tmp_path / "course") is None


def test_moodle_folders_and_flat_files_give_students_by_name(tmp_path):
    folder = _download(
        tmp_path / "moodle",
        [
            "Zoë Ng_7_assignsubmission_file_/likelihoods.ipynb",
            "Zoë Ng_7_assignsubmission_onlinetext_/onlinetext.html",
            "Ann Li_8_assignsubmission_file/sub/likelihoods.ipynb",  # Moodle 4.1 and later: no "_" at the end
            "Participant_9_assignsubmission_file_likelihoods.ipynb",  # blind marking, not as folders
            "Participant_10_assignsubmission_file_likelihoods-2.ipynb",
        ],
    )
    students = _by_student(lms_names.discover(folder, tmp_path / "course"))
    assert set(students) == {"Zoe_Ng", "Ann_Li", "Participant_9", "Participant_10"}
    assert list(students["Zoe_Ng"].files) == ["likelihoods.ipynb"]  # the online text is not read
    assert list(students["Ann_Li"].files) == ["sub/likelihoods.ipynb"]
    with pytest.raises(ValueError, match="holds two likelihoods.ipynb"):
        lms_names.notebooks(
            lms_names.LmsHandin(
                "Moodle", "1", "X", {"a/likelihoods.ipynb": folder / "a", "likelihoods-1.ipynb": folder / "b"}
            ),
            ["likelihoods"],
        )


def test_the_mapping_keeps_the_instructors_columns_and_each_canvas_users_id(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    (root / lms_names.MAPPING_FILE).write_text("nbgrader_id,canvas_id,email\nalice,12345,alice@example.org\n")
    folder = _download(tmp_path / "canvas", ["leealice_12345_1_a.ipynb", "smithbob_678_2_a.ipynb"])
    _download(tmp_path / "moodle", ["=HYPERLINK(x) Ng_7_assignsubmission_file_/a.ipynb"])
    handins = lms_names.discover(folder, root) + lms_names.discover(tmp_path / "moodle", root)
    assert sorted(handin.student for handin in handins) == ["HYPERLINK_x_Ng", "alice", "smithbob"]
    lms_names.record(root, handins)
    assert (root / lms_names.MAPPING_FILE).read_text().splitlines() == [
        "nbgrader_id,name,canvas_id,email",
        "HYPERLINK_x_Ng,'=HYPERLINK(x) Ng,,",
        "alice,leealice,12345,alice@example.org",
        "smithbob,smithbob,678,",
    ]


def test_a_moodle_zip_of_one_student_is_not_taken_for_a_wrapping_folder(tmp_path):
    from autograder.grading.collect import collect

    with zipfile.ZipFile(tmp_path / "moodle.zip", "w") as archive:
        archive.writestr("Ann Li_8_assignsubmission_file_/likelihoods.ipynb", "{}")
    (item,) = collect(tmp_path / "course", "01_likelihoods", ["likelihoods"], [tmp_path / "moodle.zip"])
    assert (item.student, item.lms, item.error) == ("Ann_Li", "Moodle", "")
