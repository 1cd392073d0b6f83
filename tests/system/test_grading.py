"""nbgrader end to end: validation, and the autograde round trip (tests/course/test_release.py: release sync)."""

import csv
import shutil
import subprocess
import sys

import nbformat
import pytest

from autograder.checktests import load_variants
from autograder.course import directory as course
from autograder.course.cells import answered, graded_cells, graded_functions
from autograder.course.directory import REPO

ASSIGNMENT = "04_bayesian_cnn"
NOTEBOOK = "bayesian_cnn"
SOURCE = REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
RELEASE = REPO / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"


def _points(grade_id, source=SOURCE):
    return graded_cells(nbformat.read(source, 4))[grade_id].metadata.nbgrader["points"]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    shutil.copytree(REPO / "source", root / "source")
    return root


@pytest.mark.slow
def test_validate_source_passes_release_fails():
    # One assignment: selfgrade below grades every reference (full marks) and blank (zero).
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "validate", "01_likelihoods"], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "source notebooks pass their tests; releases fail them" in result.stdout


def test_validate_reports_an_unknown_assignment():
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "validate", "99_nothing"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2 and "unknown assignment '99_nothing'" in result.stderr


def _one_wrong_function(path, function, old, new, source=SOURCE):
    """Write the reference solution ``source`` with ``old`` replaced by ``new`` in one function, as a
    student hands it in (``answered``: a variant's text may hold the solution markers)."""
    nb = nbformat.read(source, 4)
    cell = graded_cells(nb)[function]
    assert cell.source.count(old) == 1
    cell.source = cell.source.replace(old, new)
    nbformat.write(answered(nb), path)


# The functions of the original course's Bayesian CNN notebook other than nll, whose reference is
# the original's own one-liner; mc_entropy_decomposition is this course's.
ORIGINAL_FUNCTIONS = {
    "get_deterministic_model",
    "get_probabilistic_model",
    "get_prior",
    "get_posterior",
    "get_convolutional_reparameterization_layer",
    "get_dense_variational_layer",
}


def _original_idiom(path):
    """Write the release with every answer as the original course's students wrote it: each
    function's "original course's idiom" alternative of tests/course/mutants, the reference elsewhere."""
    release = nbformat.read(RELEASE, 4)
    stubs = graded_cells(release)
    alternatives = load_variants(ASSIGNMENT)["alternatives"]
    rewritten = set()
    for function, (answer, _) in graded_functions(nbformat.read(SOURCE, 4)).items():
        code = answer.source
        for name, old, new in alternatives.get(function, []):
            if name.startswith("the original course's idiom"):
                assert code.count(old) == 1
                code = code.replace(old, new)
                rewritten.add(function)
        stubs[function].source = "\n".join(
            line for line in code.splitlines() if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line
        )
    assert rewritten == ORIGINAL_FUNCTIONS
    nbformat.write(release, path)


@pytest.fixture(scope="module")
def graded(scratch, tmp_path_factory, bubblewrap):
    incoming = tmp_path_factory.mktemp("incoming")
    # The reference comes as an nbgrader submitted/ tree, the others as files.
    folder = incoming / "submitted" / "reference" / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(answered(nbformat.read(SOURCE, 4)), folder / f"{NOTEBOOK}.ipynb")
    shutil.copyfile(RELEASE, incoming / "blank.ipynb")
    # Runs, but trains on the wrong loss.
    _one_wrong_function(
        incoming / "wrong_nll.ipynb", "nll", "return -y_pred.log_prob(y_true)", "return y_pred.log_prob(y_true)"
    )
    # Crashes: the Bayesian model and everything after it cannot be built.
    _one_wrong_function(
        incoming / "crashing_prior.ipynb",
        "get_prior",
        "n = kernel_size + bias_size",
        "n = kernel_size + bias_size + undefined_name",
    )
    _original_idiom(incoming / "original_idiom.ipynb")
    (incoming / "broken.ipynb").write_text('{"cells": [ this is not json')
    paths = [
        incoming / name
        for name in (
            "submitted",
            "blank.ipynb",
            "wrong_nll.ipynb",
            "crashing_prior.ipynb",
            "original_idiom.ipynb",
            "broken.ipynb",
            "missing.ipynb",
        )
    ]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            ASSIGNMENT,
            *map(str, paths),
            "--root",
            str(scratch),
            "--csv",
            str(scratch / "grades.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    with open(scratch / "grades.csv") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    return rows, result.stdout


@pytest.mark.slow
def test_reference_solution_gets_full_marks(graded):
    rows, _ = graded
    # handed in as submitted/reference/<assignment>/: submitted/ folders are graded
    # every automatic point; the answers graded by hand (04's two discussions) await an instructor
    reference = rows["reference"]
    assert float(reference["score"]) + float(reference["manual"]) == float(reference["max_score"]) > 0
    assert float(reference["score"]) > 0


@pytest.mark.slow
def test_the_original_courses_code_gets_full_marks_in_the_release(graded):
    row = graded[0]["original_idiom"]
    # every automatic point; its answer cells graded by hand are left as released (no answer, no points)
    assert (
        row["status"] == "graded" and float(row["score"]) == float(row["max_score"]) - _manual_points(ASSIGNMENT) > 0
    ), row


@pytest.mark.slow
def test_blank_release_gets_zero(graded):
    rows, _ = graded
    assert float(rows["blank"]["score"]) == 0
    assert rows["blank"]["status"] == "graded"


@pytest.mark.slow
@pytest.mark.parametrize("submission, function", [("wrong_nll", "nll"), ("crashing_prior", "get_prior")])
def test_one_wrong_function_loses_exactly_its_points(graded, submission, function):
    rows, _ = graded
    row = rows[submission]
    assert row["status"] == "graded"
    assert float(row["score"]) + float(row["manual"]) == float(row["max_score"]) - _points(f"{function}_tests")


@pytest.mark.slow
def test_broken_submissions_score_zero_and_are_reported(graded):
    rows, stdout = graded
    assert float(rows["broken"]["score"]) == 0
    assert rows["broken"]["status"].startswith("error")
    missing = next(row for name, row in rows.items() if name.endswith("missing.ipynb"))
    assert missing["status"].startswith("error") and float(missing["score"]) == 0
    assert "reference" in stdout and "broken" in stdout, "the table lists every submission"


@pytest.mark.slow
def test_grades_land_in_the_gradebook(graded, scratch):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{scratch / 'gradebook.db'}") as gradebook:
        students = {student.id for student in gradebook.students}
        assert {"reference", "blank", "wrong_nll"} <= students
        submission = gradebook.find_submission(ASSIGNMENT, "reference")
        # every automatic point; the answers graded by hand await an instructor
        manual = sum(
            grade.max_score
            for notebook in submission.notebooks
            for grade in notebook.grades
            if grade.needs_manual_grade
        )
        assert submission.score > 0 and submission.score + manual == submission.max_score


def _manual_points(assignment):
    """The points of the assignment's answer cells (graded markdown)."""
    nb = nbformat.read(_source(assignment), 4)
    return sum(
        cell.metadata.nbgrader["points"]
        for cell in graded_cells(nb).values()
        if cell.cell_type == "markdown" and cell.metadata.nbgrader.get("grade")
    )


def _source(assignment):
    return next((REPO / "source" / assignment).glob("*.ipynb"))


# 04 (the graded fixture above) and 01 (test_class_grading's wrong brier_score) have a wrong
# function graded for real already: a grading run each is minutes of CI.
@pytest.mark.slow
@pytest.mark.parametrize(
    "assignment", [name for name in course.assignments() if name not in (ASSIGNMENT, "01_likelihoods")]
)
def test_a_wrong_function_loses_exactly_its_points(assignment, tmp_path, bubblewrap):
    """The assignment's first mutant, graded for real, costs that function's points only."""
    function, (name, old, new) = next(
        (function, changes[0]) for function, changes in load_variants(assignment)["mutants"].items()
    )
    shutil.copytree(REPO / "source", tmp_path / "source")
    _one_wrong_function(tmp_path / "mutant.ipynb", function, old, new, source=_source(assignment))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            assignment,
            str(tmp_path / "mutant.ipynb"),
            "--root",
            str(tmp_path),
            "--csv",
            str(tmp_path / "grades.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    with open(tmp_path / "grades.csv") as handle:
        (row,) = csv.DictReader(handle)
    points = _points(f"{function}_tests", _source(assignment))
    assert row["status"] == "graded"
    assert float(row["score"]) + float(row["manual"]) == float(row["max_score"]) - points, (
        f"the mutant {name!r} of {function} should lose exactly {points} points"
    )


def test_cli_reports_an_unknown_assignment():
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", "99_nothing", "x.ipynb"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "unknown assignment '99_nothing'" in result.stderr


@pytest.mark.slow
def test_validate_passes_a_correct_answer_that_warns(tmp_path):
    """The student's Validate button is nbgrader's validator, which fails a test cell on any stderr,
    as grading does: bdl shows warnings on stdout in a notebook, so a correct answer that warns
    passes Validate as it gets its points in grading."""
    assignment, function = "05_calibration", "reliability_bins"
    ((old, new),) = [
        (old, new) for name, old, new in load_variants(assignment)["alternatives"][function] if "warns" in name
    ]
    _one_wrong_function(tmp_path / "warns.ipynb", function, old, new, source=_source(assignment))
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", "validate", "warns.ipynb"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
    )
    assert "Success! Your notebook passes all the tests." in result.stdout, (
        result.stdout[-3000:] + result.stderr[-2000:]
    )
