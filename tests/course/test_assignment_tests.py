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
    assert assignments(REPO) == sorted(p.stem for p in MUTANTS_DIR.glob("*.py")), (
        "every source assignment needs tests/course/mutants/<assignment>.py"
    )


@pytest.mark.slow
@pytest.mark.parametrize("assignment", assignments(REPO))
def test_check_tests_passes(assignment):
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "check-tests", assignment], capture_output=True, text=True, timeout=1800
    )
    print(result.stdout)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "PROBLEM" not in result.stdout


def _write_course(root, sources, variants):
    """A course of one notebook, 99_tiny, of the code cells ``sources`` [(grade_id or None, code)]
    (a ``name`` is an answer, a ``name_tests`` its test cell), with the variant file ``variants``."""
    cells = []
    for grade_id, source in sources:
        cell = nbformat.v4.new_code_cell(source)
        if grade_id:
            test = grade_id.endswith("_tests")
            cell.metadata.nbgrader = {
                "grade_id": grade_id,
                "locked": test,
                "schema_version": 3,
                "solution": not test,
                "grade": test,
                **({"points": 1} if test else {}),
            }
        cells.append(cell)
    folder = root / "source" / "99_tiny"
    folder.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(cells=cells), folder / "tiny.ipynb")
    (root / "mutants").mkdir()
    (root / "mutants" / "99_tiny.py").write_text(variants)
    return root


def _tiny_course(root):
    """A course of one notebook whose tests are weak on purpose: they pass a
    wrong answer, and fail the reference under some seeds (of the kernel, where ``draw`` runs: the
    test cell itself runs in the examiner)."""
    return _write_course(
        root,
        [
            (
                None,
                "import numpy as np\nnp.random.seed(0)  # the notebook itself runs cleanly\n\n\n"
                "def draw():\n    return np.random.rand()",
            ),
            ("double", "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
            ("double_tests", "assert double(0) == 0\nassert draw() < 0.7, 'an unlucky seed'"),
        ],
        "MUTANTS = {'double': [('triples', '2 * x', '3 * x'), ('squares', '2 * x', 'x * x'),\n"
        "                      ('not there', 'return 4', 'return 5')]}\n"
        "ALTERNATIVES = {'double': [('adds', '2 * x', 'x + x'), ('wrong', '2 * x', 'x + 1')]}\n",
    )


@pytest.mark.slow
def test_check_tests_reports_weak_tests(tmp_path):
    """Surviving mutants, stale variants, failing alternatives and unlucky seeds all fail."""
    root = _tiny_course(tmp_path)
    (row,) = check_tests("99_tiny", seeds=5, root=root, mutants_dir=root / "mutants")
    assert row.num_mutants == 3 and row.killed == 0
    assert 0 < row.seeds < 5
    problems = "\n".join(row.problems)
    for expected in (
        "mutant 'triples' survives",
        "mutant 'squares' survives",
        "'not there' no longer matches",
        "alternative 'wrong' fails",
        "the reference fails under seed",
        "only 2 alternatives (at least 3 needed)",
    ):
        assert expected in problems
    assert "'adds'" not in problems
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "check-tests",
            "99_tiny",
            "--root",
            str(root),
            "--mutants",
            str(root / "mutants"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "PROBLEM 99_tiny/double" not in result.stdout
    assert "PROBLEM tiny/double: mutant 'triples' survives" in result.stdout


@pytest.mark.slow
def test_check_tests_finds_a_test_that_uses_another_answer(tmp_path):
    """quadruple's tests use the student's double whenever there is one: a wrong double would cost
    quadruple's points too. Removing double does not show it (the test falls back on its own
    number); a wrong double in its place does."""
    root = _write_course(
        tmp_path,
        [
            ("double", "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
            ("double_tests", "assert double(3) == 6"),
            ("quadruple", "def quadruple(x):\n    ### BEGIN SOLUTION\n    return 4 * x\n    ### END SOLUTION"),
            (
                "quadruple_tests",
                "try:\n    _two = double(1)\nexcept Exception:\n    _two = 2\nassert quadruple(_two) == 8",
            ),
        ],
        "MUTANTS = {'double': [('triples', '2 * x', '3 * x')], 'quadruple': [('fives', '4 * x', '5 * x')]}\n"
        "ALTERNATIVES = {}\n",
    )
    rows = {row.function: row for row in check_tests("99_tiny", seeds=1, root=root, mutants_dir=root / "mutants")}
    assert "the tests of quadruple fail when double is wrong (mutant 'triples')" in rows["double"].problems
    assert not [problem for problem in rows["double"].problems if "is missing" in problem]
    assert (rows["double"].independent, rows["double"].num_others) == (0, 1)
    assert not [problem for problem in rows["quadruple"].problems if "fail when" in problem]


@pytest.mark.slow
def test_check_tests_finds_a_callable_of_bdl_that_passes_a_functions_tests(tmp_path):
    """Students get bdl: check-tests tries each of its callables, and each stand-in the tests make (with
    the tests' own arguments), in every graded function's place, and names any that passes. Here
    bdl.toy.cubic is an answer to cube, and the Returns(6) quadruple's tests hand it in double's place
    is one to double's tests."""
    root = _write_course(
        tmp_path,
        [
            ("cube", "def cube(x):\n    ### BEGIN SOLUTION\n    return x ** 3\n    ### END SOLUTION"),
            ("cube_tests", "assert cube(2) == 8 and cube(-3) == -27"),
            ("double", "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
            ("double_tests", "assert double(3) == 6"),
            ("quadruple", "def quadruple(x):\n    ### BEGIN SOLUTION\n    return 2 * double(x)\n    ### END SOLUTION"),
            (
                "quadruple_tests",
                "from bdl.questions import Returns, replaced\n\n"
                "assert replaced(quadruple, (3,), {'double': Returns(6)}) == 12",
            ),
        ],
        "MUTANTS = {}\nALTERNATIVES = {}\n",
    )
    rows = {row.function: row for row in check_tests("99_tiny", seeds=1, root=root, mutants_dir=root / "mutants")}
    assert "bdl's bdl.toy.cubic passes the tests of cube: students get it" in rows["cube"].problems
    assert "bdl's bdl.questions.Returns(6) passes the tests of double: students get it" in rows["double"].problems
    assert not [
        problem
        for row in rows.values()
        for problem in row.problems
        if "bdl's" in problem and "cubic passes" not in problem and "Returns(6) passes" not in problem
    ]
