"""Canvas and Moodle download names read into students, ids and files (no kernel)."""

import datetime
import zipfile

import pytest
from nbgrader.api import Gradebook

from autograder.grading import lms_names
from autograder.grading.collect import collect
from autograder.outputs import lms
from tests.support.lms_formats import parse_moodle


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
    with zipfile.ZipFile(tmp_path / "moodle.zip", "w") as archive:
        archive.writestr("Ann Li_8_assignsubmission_file_/likelihoods.ipynb", "{}")
    (item,) = collect(tmp_path / "course", "01_likelihoods", ["likelihoods"], [tmp_path / "moodle.zip"])
    assert (item.student, item.lms, item.error) == ("Ann_Li", "Moodle", "")


def _zip(path, members, utf8_flag=True):
    """A zip of {member name: text}; without ``utf8_flag``, its UTF-8 names lack the flag (bit 11), as
    zips some other tools make do."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    if not utf8_flag:
        data = bytearray(path.read_bytes())
        for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local and central headers' flags
            start = data.find(signature)
            while start >= 0:
                flags = int.from_bytes(data[start + at : start + at + 2], "little") & ~0x800
                data[start + at : start + at + 2] = flags.to_bytes(2, "little")
                start = data.find(signature, start + 4)
        path.write_bytes(bytes(data))
        with zipfile.ZipFile(path) as archive:
            assert not any(member.flag_bits & 0x800 for member in archive.infolist())
    return path


def _collect(tmp_path, *zips, root=None, late_time=None):
    items = collect(root or tmp_path / "course", "01_likelihoods", ["likelihoods"], list(zips), late_time=late_time)
    return {item.student: item.error for item in items}


def test_a_canvas_name_of_underscores_and_digits_takes_no_other_users_id(tmp_path):
    course = tmp_path / "course"
    # A name of "_" and digits: evil_12345 (user 23456) reads as user 12345's, leealice's.
    canvas = {"leealice_12345_67890_likelihoods.ipynb": "{}", "evil_12345_23456_67891_likelihoods.ipynb": "{}"}
    (error,) = _collect(tmp_path, _zip(tmp_path / "canvas.zip", canvas)).values()  # one user id: one row
    assert "refused" in error and "evil_12345_23456" in error and "leealice_12345_67890" in error
    # Alone, it reads as user 12345 still: the mapping knows 12345 for leealice, under another name.
    course.mkdir(exist_ok=True)
    (course / lms_names.MAPPING_FILE).write_text("nbgrader_id,name,canvas_id\nleealice,leealice,12345\n")
    errors = _collect(tmp_path, _zip(tmp_path / "evil.zip", {"evil_12345_23456_67891_likelihoods.ipynb": "{}"}))
    assert "refused" in errors["leealice"] and "evil_12345_23456_67891" in errors["leealice"]
    errors = _collect(tmp_path, _zip(tmp_path / "sly.zip", {"leealice_12345_23456_67891_likelihoods.ipynb": "{}"}))
    assert "refused" in errors["leealice"] and "leealice of lms_students.csv" in errors["leealice"]


def test_moodle_names_that_come_to_one_id_are_refused_and_look_alikes_kept_apart(tmp_path):
    # "Ann 5" comes to the id of the "Ann" of participant id 5 (two Anns); both refused, naming both.
    moodle = {f"{name}_assignsubmission_file_/likelihoods.ipynb": "{}" for name in ("Ann 5_881", "Ann_5", "Ann_6")}
    moodle |= {"Bo Yu_7_assignsubmission_file_/a.ipynb": "{}"}
    root = tmp_path / "moodle_course"
    root.mkdir()
    errors = _collect(tmp_path, _zip(tmp_path / "moodle.zip", moodle), root=root)
    assert errors["Bo_Yu"] == errors["Ann_6"] == ""
    assert "Ann 5_881_assignsubmission_file_, Ann_5_assignsubmission_file_; refused" in errors["Ann_5"]
    # A look-alike of a known name (accents) is another student: a stable id of its own, never hers.
    (root / lms_names.MAPPING_FILE).write_text("nbgrader_id,name\nZoe_Ng,Zoe Ng\n")
    moodle = {"Zoë Ng_3_assignsubmission_file_/a.ipynb": "{}", "Zoe Ng_4_assignsubmission_file_/a.ipynb": "{}"}
    errors = _collect(tmp_path, _zip(tmp_path / "look-alike.zip", moodle), root=root)
    (other,) = set(errors) - {"Zoe_Ng"}
    assert other.startswith("Zoe_Ng_") and not any(errors.values())
    moodle = {"Zoë Ng_9_assignsubmission_file_/a.ipynb": "{}"}  # the next assignment, alone
    assert list(_collect(tmp_path, _zip(tmp_path / "next.zip", moodle), root=root)) == [other]


def test_one_hand_in_the_file_system_cannot_hold_is_that_students_row(tmp_path):
    canvas = {
        "leealice_12345_67890_likelihoods.ipynb": "{}",
        "smithbob_23456_78901_likelihoods.ipynb/x": "{}",  # a folder named as the notebook
        "wangwei_34567_78902_" + "a" * 260 + ".ipynb": "{}",  # a member name past 255 bytes
    }
    moodle = {
        "Carol Díaz_881_assignsubmission_file_/likelihoods.ipynb": "{}",
        "㎯" * 70 + "_882_assignsubmission_file_/likelihoods.ipynb": "{}",  # 237 bytes, 350 once flattened
        "Dan Ek_883_assignsubmission_file_/" + "b" * 300 + ".ipynb": "{}",
    }
    plain = {"alice.ipynb": "{}", "bob.ipynb/likelihoods.ipynb": "{}"}
    errors = _collect(
        tmp_path,
        _zip(tmp_path / "canvas.zip", canvas),
        _zip(tmp_path / "moodle.zip", moodle),
        _zip(tmp_path / "p.zip", plain),
    )
    assert errors["leealice"] == errors["Carol_Diaz"] == errors["alice"] == ""
    assert "is a folder" in errors["smithbob"] and "is a folder" in errors["bob"]
    assert "more than 255 bytes: wangwei_34567_78902_aaa" in errors["wangwei"]
    assert "more than 255 bytes: Dan Ek_883" in errors["Dan_Ek"]
    (long,) = [error for student, error in errors.items() if student.startswith("rads2")]
    assert "350 characters, past the 128 nbgrader keeps" in long


def test_one_stray_file_leaves_a_canvas_download_one(tmp_path):
    # One stray file leaves a Canvas download one: its students keep their ids, the file is its own row.
    canvas = {"leealice_12345_67890_likelihoods.ipynb": "{}", "smithbob_LATE_23456_1_likelihoods.ipynb": "{}"}
    errors = _collect(tmp_path, _zip(tmp_path / "canvas.zip", canvas | {"README.txt": "hi"}))
    assert errors == {
        "leealice": "",
        "smithbob": "",
        "(README.txt)": "README.txt: not named as Canvas names a hand-in's file",
    }


def test_a_zip_without_the_utf8_flag_keeps_its_utf8_names(tmp_path):
    course = tmp_path / "course"
    moodle = {"Carol Díaz_881_assignsubmission_file_/likelihoods.ipynb": "{}"}
    assert _collect(tmp_path, _zip(tmp_path / "flagless.zip", moodle, utf8_flag=False)) == {"Carol_Diaz": ""}
    assert "Carol Díaz" in (course / lms_names.MAPPING_FILE).read_text()


def test_an_lms_hand_ins_time_is_the_lms_s_never_the_students(tmp_path):
    # Canvas's LATE gets the time given (a second past the due date); a student's own timestamp.txt
    # is not nbgrader's.
    canvas = {"leealice_12345_67890_likelihoods.ipynb": "{}", "smithbob_LATE_23456_1_likelihoods.ipynb": "{}"}
    due = datetime.datetime(2026, 3, 1, 23, 59, 1)
    moodle = {
        "Dan Ek_882_assignsubmission_file_/likelihoods.ipynb": "{}",
        "Dan Ek_882_assignsubmission_file_/timestamp.txt": "2020-01-01",
    }
    errors = _collect(
        tmp_path,
        _zip(tmp_path / "late.zip", canvas),
        _zip(tmp_path / "own.zip", moodle),
        root=tmp_path / "c2",
        late_time=due,
    )
    assert not any(errors.values())
    submitted = tmp_path / "c2" / "submitted"
    assert (submitted / "smithbob" / "01_likelihoods" / "timestamp.txt").read_text() == "2026-03-01 23:59:01.000000 UTC"
    assert not (submitted / "leealice" / "01_likelihoods" / "timestamp.txt").exists()
    assert not (submitted / "Dan_Ek" / "01_likelihoods" / "timestamp.txt").exists()


def test_a_malformed_timestamp_is_one_line_naming_the_student_and_the_file(tmp_path):
    tree = tmp_path / "tree" / "eve" / "01_likelihoods"
    tree.mkdir(parents=True)
    (tree / "likelihoods.ipynb").write_text("{}")
    (tree / "timestamp.txt").write_text("yesterday, honest")
    (item,) = collect(tmp_path / "c3", "01_likelihoods", ["likelihoods"], [tmp_path / "tree"])
    assert item.student == "eve" and "eve's timestamp.txt is not a time nbgrader reads" in item.error
    assert str(tree / "timestamp.txt") in item.error and "\n" not in item.error


def test_the_moodle_file_names_each_student_of_a_moodle_download(tmp_path):
    course = tmp_path / "course"
    moodle = {
        f"{name}_assignsubmission_file_/likelihoods.ipynb": "{}" for name in ("Carol Díaz_881", "Ana María López_882")
    }
    _collect(tmp_path, _zip(tmp_path / "moodle.zip", moodle))
    url = f"sqlite:///{tmp_path / 'gb.db'}"
    with Gradebook(url) as gradebook:
        gradebook.update_or_create_assignment("01_likelihoods")
        totals = lms.totals(gradebook, "01_likelihoods", lms.read_mapping(course / lms_names.MAPPING_FILE))
    lms.write_moodle(totals, tmp_path / "moodle.csv")
    rows = {
        student: row
        for student, row in parse_moodle(tmp_path / "moodle.csv", "ID number", ["First name", "Last name"]).items()
    }
    assert {student: (row["First name"], row["Last name"]) for student, row in rows.items()} == {
        "Carol_Diaz": ("Carol", "Díaz"),
        "Ana_Maria_Lopez": ("Ana María", "López"),
    }
