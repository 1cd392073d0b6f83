"""One gate to a grade: nbgrader's own autograde, typed in the course folder or clicked in
formgrader (which calls the same code), refuses before any cell of the submission runs and before it
touches the earlier autograded copy or the gradebook, and names `python -m autograder grade`."""

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from autograder.course.directory import REPO, make_api
from autograder.course.gate import MESSAGE
from tests.support.small_course import ASSIGNMENT, NOTEBOOK, blank, write_course


def _course_with_a_hostile_submission(root, mark):
    write_course(root)
    shutil.copyfile(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    assert make_api(root).generate_assignment(ASSIGNMENT, force=True, create=True)["success"]
    nb = blank()
    nb.cells.insert(0, nbformat.v4.new_code_cell(f"open({str(mark)!r}, 'w').write('ran')"))
    target = root / "submitted" / "mallory" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(nb, target)


def test_nbgrader_autograde_refuses_and_names_the_safe_door(tmp_path):
    root, mark = tmp_path / "course", tmp_path / "ran"
    _course_with_a_hostile_submission(root, mark)
    # what `autograder grade` made before: --force (and formgrader's button, which always forces) would remove it
    earlier = root / "autograded" / "mallory" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    earlier.parent.mkdir(parents=True)
    earlier.write_text("graded by autograder grade")
    gradebook = (root / "gradebook.db").read_bytes()
    result = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), "autograde", ASSIGNMENT, "--student", "mallory", "--force"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0
    said = (result.stdout + result.stderr).strip().splitlines()
    assert len(said) == 1 and "python -m autograder grade" in said[0], said  # one line, no traceback
    # formgrader's button: the same converter through nbgrader's API, with the course's config
    api = make_api(root)
    answer = api.autograde(ASSIGNMENT, "mallory", force=True, create=True)
    assert not answer["success"] and MESSAGE.split(":")[0] in (answer.get("error") or "") + (answer.get("log") or "")
    assert not mark.exists(), "a cell of the submission ran"
    assert earlier.read_text() == "graded by autograder grade"
    assert (root / "gradebook.db").read_bytes() == gradebook
