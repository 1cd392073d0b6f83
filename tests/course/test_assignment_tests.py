"""The graded tests themselves, through ``python -m autograder check-tests``: they
pass the reference under five seeds, catch every mutant, accept every correct
alternative and never write to stderr; and check-tests itself fails when they
do not, or when a function has fewer than three mutants or alternatives."""
import subprocess
import sys

import nbformat
import pytest

from autograder.checktests import MUTANTS_DIR, check_tests
from autograder.course.directory import REPO, assignments


def test_every_assignment_has_mutants():
    assert assignments(REPO) == sorted(p.stem for p in MUTANTS_DIR.glob("*.py")), \
        "every source assignment needs tests/course/mutants/<assignment>.py"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", assignments(REPO))
def test_check_tests_passes(assignment):
    result = subprocess.run([sys.executable, "-m", "autograder", "check-tests", assignment],
                            capture_output=True, text=True, timeout=1800)
    print(result.stdout)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "PROBLEM" not in result.stdout


def _tiny_course(root):
    """A course of one notebook whose tests are weak on purpose: they pass a
    wrong answer, and fail the reference under some seeds (of the kernel, where ``draw`` runs: the
    test cell itself runs in the examiner)."""
    cells = [
        nbformat.v4.new_code_cell("import numpy as np\nnp.random.seed(0)  # the notebook itself runs cleanly\n\n\n"
                                  "def draw():\n    return np.random.rand()"),
        nbformat.v4.new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                                  "    ### END SOLUTION"),
        nbformat.v4.new_code_cell("assert double(0) == 0\n"
                                  "assert draw() < 0.7, 'an unlucky seed'"),
    ]
    for cell, grade_id, extra in ((cells[1], "double", {"solution": True, "grade": False}),
                                  (cells[2], "double_tests", {"grade": True, "points": 1})):
        cell.metadata.nbgrader = {"grade_id": grade_id, "locked": grade_id.endswith("_tests"),
                                  "schema_version": 3, "solution": False, **extra}
    folder = root / "source" / "99_tiny"
    folder.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(cells=cells), folder / "tiny.ipynb")
    mutants = root / "mutants"
    mutants.mkdir()
    (mutants / "99_tiny.py").write_text(
        "MUTANTS = {'double': [('triples', '2 * x', '3 * x'), ('squares', '2 * x', 'x * x'),\n"
        "                      ('not there', 'return 4', 'return 5')]}\n"
        "ALTERNATIVES = {'double': [('adds', '2 * x', 'x + x'), ('wrong', '2 * x', 'x + 1')]}\n")
    return root


@pytest.mark.slow
def test_check_tests_reports_weak_tests(tmp_path):
    """Surviving mutants, stale variants, failing alternatives and unlucky seeds all fail."""
    root = _tiny_course(tmp_path)
    (row,) = check_tests("99_tiny", seeds=5, root=root, mutants_dir=root / "mutants")
    assert row["num_mutants"] == 3 and row["killed"] == 0
    assert 0 < row["seeds"] < 5
    problems = "\n".join(row["problems"])
    for expected in ("mutant 'triples' survives", "mutant 'squares' survives",
                     "'not there' no longer matches", "alternative 'wrong' fails",
                     "the reference fails under seed", "only 2 alternatives (at least 3 needed)"):
        assert expected in problems
    assert "'adds'" not in problems
    result = subprocess.run([sys.executable, "-m", "autograder", "check-tests", "99_tiny",
                             "--root", str(root), "--mutants", str(root / "mutants")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "PROBLEM 99_tiny/double" not in result.stdout
    assert "PROBLEM tiny/double: mutant 'triples' survives" in result.stdout
