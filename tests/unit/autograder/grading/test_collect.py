"""Collection: every input form (a folder tree, a folder of notebooks, an LMS archive) read into
submitted/, and a different submission never written over silently. No kernel."""

import shutil
import zipfile

from autograder.grading.collect import collect
from tests.support.small_course import RELEASE, SOURCE


def test_collect_reads_every_input_form_and_never_overwrites_silently(tmp_path):
    root, incoming = tmp_path / "course", tmp_path / "in"
    (incoming / "tree" / "dan" / "01_likelihoods").mkdir(parents=True)
    shutil.copyfile(SOURCE, incoming / "tree" / "dan" / "01_likelihoods" / "likelihoods.ipynb")
    (incoming / "folder").mkdir()
    shutil.copyfile(SOURCE, incoming / "folder" / "eve.ipynb")
    with zipfile.ZipFile(incoming / "lms.zip", "w") as archive:
        archive.write(RELEASE, "course export/fay.ipynb")
        archive.writestr("../../outside.ipynb", "{}")
    (incoming / "notes.txt").write_text("not a submission")
    names = ["likelihoods"]
    items = collect(
        root,
        "01_likelihoods",
        names,
        [
            incoming / "tree",
            incoming / "folder",
            incoming / "lms.zip",
            incoming / "notes.txt",
            incoming / "missing.ipynb",
        ],
    )
    by_student = {item.student: item for item in items}
    assert {"dan", "eve", "fay"} <= set(by_student)
    assert not any(by_student[s].error for s in ("dan", "eve", "fay"))
    assert sorted(p.parent.parent.name for p in (root / "submitted").glob("*/01_likelihoods/likelihoods.ipynb")) == [
        "dan",
        "eve",
        "fay",
    ]
    errors = [item.error for item in items if item.error]
    assert any("is not a notebook" in error for error in errors)
    assert any("no such submission" in error for error in errors)
    assert not (tmp_path / "outside.ipynb").exists()
    # The same file again is fine; a different one is refused, then replaced on request.
    assert not collect(root, "01_likelihoods", names, [incoming / "folder"])[0].error
    shutil.copyfile(RELEASE, incoming / "folder" / "eve.ipynb")
    assert (
        "already has a different submission" in collect(root, "01_likelihoods", names, [incoming / "folder"])[0].error
    )
    assert (root / "submitted" / "eve" / "01_likelihoods" / "likelihoods.ipynb").read_bytes() == SOURCE.read_bytes()
    assert not collect(root, "01_likelihoods", names, [incoming / "folder"], replace=True)[0].error
    assert (root / "submitted" / "eve" / "01_likelihoods" / "likelihoods.ipynb").read_bytes() == RELEASE.read_bytes()
    assert list((root / "submitted_replaced").glob("*/eve/01_likelihoods/likelihoods.ipynb"))
    # Two submissions for one student in one run: the second is refused.
    (incoming / "twice").mkdir()
    shutil.copyfile(SOURCE, incoming / "twice" / "gus.ipynb")
    items = collect(
        root, "01_likelihoods", names, [incoming / "twice", incoming / "lms.zip", incoming / "twice" / "gus.ipynb"]
    )
    assert "a second submission for gus" in items[-1].error


def test_one_students_folder_of_the_course_is_collected_in_place(tmp_path):
    """A regrade of one student: submitted/<student>/<assignment> is theirs, graded where it is; a
    folder of <student>.ipynb files named as the assignment is still a folder of students."""
    root, names = tmp_path / "course", ["likelihoods"]
    mine = root / "submitted" / "dan" / "01_likelihoods"
    mine.mkdir(parents=True)
    shutil.copyfile(SOURCE, mine / "likelihoods.ipynb")
    (mine / "timestamp.txt").write_text("2026-03-01 22:00:00.000000 UTC")
    (item,) = collect(root, "01_likelihoods", names, [mine])
    assert (item.student, item.error, item.extra_files) == ("dan", "", [])
    assert sorted(p.name for p in mine.iterdir()) == ["likelihoods.ipynb", "timestamp.txt"]
    export = tmp_path / "export" / "01_likelihoods"
    export.mkdir(parents=True)
    shutil.copyfile(RELEASE, export / "eve.ipynb")
    assert [item.student for item in collect(root, "01_likelihoods", names, [export])] == ["eve"]
