"""The blind catalogue (tests/course/mutants/blind/), and hints that never contradict the answer.

check-tests measures the hints on the blind catalogue and fails when a hint contradicts an answer:
a correct alternative or a correct blind answer given any hint, a blind wrong answer given a hint
its judgement does not accept. Here: that it does, on a course of one weak test; that the
catalogue is as it was frozen; that every answer of it is judged, by the tables' own names."""

import hashlib
import shutil
import subprocess
import sys

import nbformat
import pytest

from autograder.checktests import MUTANTS_DIR, check_tests
from autograder.checktests.blind import MIN_PRECISION, MIN_RECALL, judge, load_blind, load_module, target_problems
from autograder.checktests.checks import Row
from autograder.course.directory import REPO, assignments

BLIND = MUTANTS_DIR / "blind"


def _judged():
    return load_module(BLIND / "judged.py")


def test_judge_counts_gaps_and_wrong_hints():
    row = judge(
        "f",
        [
            ("a", False, "x", "m"),
            ("b", False, "y", "m"),
            ("c", False, None, "off by 0.5"),
            ("d", True, None, ""),
            ("e", False, "z", "m"),
        ],
        {"a": {"x"}, "b": set(), "c": {"x"}},
    )
    assert (row["answers"], row["failing"], row["hinted"], row["right"]) == (5, 4, 3, 1)
    assert row["problems"] == [
        "blind answer 'b' gets the hint 'y', judged right: []",
        "blind answer 'd' passes its tests (a grading gap)",
        "blind answer 'e' gets the hint 'z', judged right: not judged",
    ]
    assert row["lines"][2] == "f 'c': fails, hint -; says: off by 0.5", "the student's message beside the hint"
    rows = [Row("f", blind=row)]
    assert target_problems(rows) == [f"blind precision 1/3 (at least {MIN_PRECISION:.0%} needed)"]
    assert target_problems([Row("f", blind={**row, "hinted": 1, "right": 1})]) == [
        f"blind recall 1/4 (at least {MIN_RECALL:.0%} needed)"
    ]


@pytest.mark.skipif(not (BLIND / "judged.py").exists(), reason="the blind catalogue is not judged yet")
def test_the_catalogue_is_as_frozen_and_every_answer_is_judged():
    """Nobody edits a frozen answer (its digest is kept with the judgement), and every answer of it has
    a judgement that uses its function's own mistake names."""
    from bdl.diagnoses import all_tables

    judged = _judged()
    files = sorted(path.name for path in BLIND.glob("0*.py"))
    assert files == sorted(judged.FROZEN_SHA256), "a blind file was added or removed after the freeze"
    for name in files:
        assert hashlib.sha256((BLIND / name).read_bytes()).hexdigest() == judged.FROZEN_SHA256[name], (
            f"{name} changed after the freeze ({judged.FROZEN})"
        )
    for assignment in assignments(REPO):
        catalogue = load_blind(assignment, MUTANTS_DIR)
        if catalogue is None:
            continue
        for function, answers in catalogue["answers"].items():
            known = {mistake.name for mistake in all_tables()[function].mistakes}
            right = catalogue["right"].get(function, {})
            for name, _mistake, _source in answers:
                assert name in right, f"{assignment}/{function}: {name!r} is not judged"
                assert right[name] <= known, f"{assignment}/{function}: {name!r} judged with unknown names"


NLL = (
    "def gaussian_nll(y, mean, scale):\n    ### BEGIN SOLUTION\n"
    "    return tf.reduce_mean(0.5 * np.log(2 * np.pi) + tf.math.log(scale) + (y - mean) ** 2 / (2 * scale ** 2))\n"
    "    ### END SOLUTION\n"
)


def _answer(body):
    return f"def gaussian_nll(y, mean, scale):\n    return {body}\n"


def _weak_course(root):
    """One Gaussian NLL whose test looks only at the mean, with scale one: it misses some wrong answers."""
    cells = [
        nbformat.v4.new_code_cell("import bdl\nimport numpy as np\nimport tensorflow as tf"),
        nbformat.v4.new_code_cell(NLL),
        nbformat.v4.new_code_cell(
            "from bdl.diagnoses import diagnosed\n\nwith diagnosed('gaussian_nll'):\n"
            "    assert abs(float(gaussian_nll(tf.zeros((2, 1)), tf.zeros((2, 1)), tf.ones((2, 1))))"
            " - 0.9189385) < 1e-4, 'the NLL at the mean'"
        ),
    ]
    for cell, grade_id, extra in (
        (cells[1], "gaussian_nll", {"solution": True, "grade": False}),
        (cells[2], "gaussian_nll_tests", {"grade": True, "points": 1}),
    ):
        cell.metadata.nbgrader = {
            "grade_id": grade_id,
            "locked": grade_id.endswith("_tests"),
            "schema_version": 3,
            "solution": False,
            **extra,
        }
    folder = root / "source" / "99_weak"
    folder.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(cells=cells), folder / "weak.ipynb")
    mutants = root / "mutants"
    (mutants / "blind").mkdir(parents=True)
    (mutants / "99_weak.py").write_text(
        "MUTANTS = {}\n"
        "ALTERNATIVES = {'gaussian_nll': [('the scale as a variance: wrong, but the test passes it',\n"
        "    'tf.math.log(scale) + (y - mean) ** 2 / (2 * scale ** 2)',\n"
        "    '0.5 * tf.math.log(scale) + (y - mean) ** 2 / (2 * scale)')]}\n"
    )
    answers = {
        "no constant": _answer("tf.reduce_mean(tf.math.log(scale) + (y - mean) ** 2 / (2 * scale ** 2))"),
        "a sum": _answer(
            "tf.reduce_sum(0.5 * np.log(2 * np.pi) + tf.math.log(scale) + (y - mean) ** 2 / (2 * scale ** 2))"
        ),
        "absolute error": _answer("tf.reduce_mean(tf.abs(y - mean))"),
        "no half": _answer(
            "tf.reduce_mean(0.5 * np.log(2 * np.pi) + tf.math.log(scale) + (y - mean) ** 2 / scale ** 2)"
        ),
        "does not run": "def gaussian_nll(y, mean, scale):\n    return undefined_name\nundefined_name\n",
    }
    (mutants / "blind" / "99_weak.py").write_text(
        f"ANSWERS = {{'gaussian_nll': {[(name, 'a sentence', source) for name, source in answers.items()]!r}}}\n"
        f"CORRECT = {{'gaussian_nll': {[('right', NLL), ('a sum, taken for right', answers['a sum'])]!r}}}\n"
    )
    (mutants / "blind" / "judged.py").write_text(
        "RIGHT = {'99_weak': {'gaussian_nll': {'no constant': {'missing_constant'}, 'a sum': set(),\n"
        "                                      'absolute error': set(), 'no half': {'squared_error_factor'},\n"
        "                                      'does not run': set()}}}\n"
    )
    return root


@pytest.mark.slow
def test_check_tests_measures_the_blind_catalogue_and_finds_contradicting_hints(tmp_path):
    root = _weak_course(tmp_path)
    (row,) = check_tests("99_weak", seeds=1, root=root, mutants_dir=root / "mutants")
    blind = row.blind
    # no constant (hinted right), a sum (hinted wrong, as judged), absolute error (no hint), does not run
    assert (blind["answers"], blind["failing"], blind["hinted"], blind["right"]) == (5, 4, 2, 1), blind
    problems = "\n".join(row.problems)
    for expected in (
        "correct alternative 'the scale as a variance: wrong, but the test passes it' gets the hint "
        "'scale_as_variance'",
        "blind answer 'no half' passes its tests (a grading gap)",
        "blind answer 'a sum' gets the hint 'sum_not_mean', judged right: []",
        "correct blind answer 'a sum, taken for right' fails",
        "correct blind answer 'a sum, taken for right' gets the hint 'sum_not_mean'",
    ):
        assert expected in problems, problems
    assert "'no constant'" not in problems and "'right'" not in problems
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "check-tests",
            "99_weak",
            "--blind-only",
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
    assert "2/4 (50%) of the failing answers hinted (recall), 1/2 (50%) of the hints right" in result.stdout
    assert "PROBLEM 99_weak: blind precision 1/2" in result.stdout
    assert "gets the hint 'scale_as_variance'" not in result.stdout  # --blind-only leaves the alternatives
    assert (
        "gaussian_nll 'no constant': fails, hint missing_constant (right); says: AssertionError: the NLL at the mean"
        in result.stdout
    ), "each answer's line gives what the student reads"
    # A later round, in a folder of its own (check-tests --blind FOLDER), is loaded with its own judgement.
    shutil.copytree(root / "mutants" / "blind", root / "round two")
    (root / "mutants" / "blind" / "judged.py").write_text("RIGHT = {}\n")
    later = load_blind("99_weak", root / "mutants", root / "round two")
    assert later["right"]["gaussian_nll"]["no half"] == {"squared_error_factor"}
    assert later["answers"] == load_blind("99_weak", root / "mutants")["answers"]
