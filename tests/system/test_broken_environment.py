"""A grading kernel that cannot import ``bdl`` grades no one: ``grade`` stops at the first hand-in, in one line
naming the module, the cell and the error, with exit status 2; it grades no other hand-in, and gives each a status
that says it was not graded, where it used to score the class 0 as ``graded``, with exit status 0."""

import os
import subprocess
import sys

import nbformat
import pytest

from autograder.course.statuses import load_statuses
from tests.support.tiny_course import ASSIGNMENT, NOTEBOOK, blank, reference, write_course

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("bubblewrap")]

# On PYTHONPATH, which reaches the sandboxed kernel (in a folder the sandbox shows, as it shows every
# site-packages): every Python imports it at start, and in a kernel it hides bdl, as an environment without
# the course's package would (an editable install of a clone the sandbox does not show).
LACKS_BDL = """\
import sys
class _Lacking:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "bdl":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
if "ipykernel_launcher" in sys.orig_argv:
    sys.meta_path.insert(0, _Lacking())
"""


def test_a_kernel_without_bdl_stops_grading_in_one_line(tmp_path):
    root, handins, hiding = tmp_path / "course", tmp_path / "handins", tmp_path / "hiding" / "site-packages"
    write_course(root)
    handins.mkdir()
    for student, notebook in (("ada", reference()), ("bob", blank()), ("cy", reference())):
        nbformat.write(notebook, handins / f"{student}.ipynb")
    hiding.mkdir(parents=True)
    (hiding / "sitecustomize.py").write_text(LACKS_BDL)
    env = {key: value for key, value in os.environ.items() if key != "BDL_FAST"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hiding), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, str(handins), "--root", str(root)]
    command += ["--csv", str(tmp_path / "grades.csv"), "--workers", "1"]
    grade = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)

    assert grade.returncode == 2, grade.stdout[-2000:] + grade.stderr[-2000:]
    line = grade.stderr.strip().splitlines()[-1]
    assert line.startswith("autograder: error: grading stopped: the grading environment is broken"), line
    for words in (f"{NOTEBOOK}.ipynb, given cell 1 (`import bdl", "ModuleNotFoundError: No module named 'bdl'"):
        assert words in line, line
    assert "3 of 3 hand-ins not graded" in line, line
    assert not (tmp_path / "grades.csv").exists()
    statuses = load_statuses(root, ASSIGNMENT)
    assert sorted(statuses) == [f"{student}/{NOTEBOOK}" for student in ("ada", "bob", "cy")]
    assert all(
        status.startswith("error: not graded, the grading environment is broken") for status in statuses.values()
    )
    assert not list((root / "autograded").rglob("*.ipynb"))
    # one worker: the first hand-in showed it, and the others were never graded
    assert len(list((root / "grading_status" / ASSIGNMENT).glob("*.log"))) == 1
