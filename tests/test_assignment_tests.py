"""The graded tests themselves: they pass the reference under any seed, catch
every mutant, and never write to stderr.

Each solution notebook runs once, in grading mode, in one kernel; then test
cells are re-run against seeds and swapped-in wrong functions.
"""
import contextlib

import nbformat
import pytest

from autograder.grading import REPO, assignments
from notebook_kernel import MUTANTS_DIR, executed_notebook, graded_cells, load_variants

SEEDS = (0, 1, 2, 3, 4)
VARIANTS = {path.stem: load_variants(path.stem) for path in sorted(MUTANTS_DIR.glob("*.py"))}
NOTEBOOKS = {assignment: next((REPO / "source" / assignment).glob("*.ipynb")) for assignment in VARIANTS}


def _cases(kind):
    return [pytest.param(assignment, function, name, old, new, id=f"{assignment}-{function}-{name}")
            for assignment, variants in VARIANTS.items()
            for function, changes in variants[kind].items()
            for name, old, new in changes]


@pytest.fixture(scope="module")
def kernels():
    """One kernel per assignment, started lazily, that has run the solution notebook."""
    with contextlib.ExitStack() as stack:
        open_kernels = {}

        def get(assignment):
            if assignment not in open_kernels:
                open_kernels[assignment] = stack.enter_context(executed_notebook(
                    NOTEBOOKS[assignment], {"NBGRADER_EXECUTION": "autograde"}))
            return open_kernels[assignment]

        yield get


def _test_cells(nb):
    cells = graded_cells(nb)
    return {grade_id: cell for grade_id, cell in cells.items()
            if cell.metadata.nbgrader.get("grade") and cell.cell_type == "code"}


def test_every_assignment_has_mutants():
    assert assignments(REPO) == sorted(VARIANTS), "every source assignment needs tests/mutants/<assignment>.py"


@pytest.mark.parametrize("assignment", sorted(VARIANTS))
def test_each_graded_function_has_three_mutants(assignment):
    mutants = VARIANTS[assignment]["mutants"]
    solutions = [grade_id for grade_id, cell in graded_cells(nbformat.read(NOTEBOOKS[assignment], 4)).items()
                 if cell.metadata.nbgrader.get("solution") and cell.cell_type == "code"]
    for function in solutions:
        assert len(mutants.get(function, [])) >= 3, f"{function} needs at least three mutants"


@pytest.mark.parametrize("assignment", sorted(VARIANTS))
def test_graded_test_cells_are_silent(kernels, assignment):
    """nbgrader scores a test cell zero when it writes to stderr or errors."""
    _, nb = kernels(assignment)
    for grade_id, cell in _test_cells(nb).items():
        for output in cell.outputs:
            assert output.output_type != "error", f"{grade_id} failed on the reference solution"
            assert not (output.output_type == "stream" and output.name == "stderr"), \
                f"{grade_id} wrote to stderr: {output.text[:300]}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("assignment", sorted(VARIANTS))
def test_reference_passes_under_seed(kernels, assignment, seed):
    kernel, nb = kernels(assignment)
    for grade_id, cell in _test_cells(nb).items():
        kernel.run(f"import numpy, tensorflow; tensorflow.keras.utils.set_random_seed({seed})")
        ok, error = kernel.succeeds(cell.source)
        assert ok, f"{grade_id} fails the reference solution under seed {seed}: {error}"


def _run_variant(kernel, nb, function, name, old, new):
    """Swap in a variant of ``function``; return whether its test cell passes."""
    cells = graded_cells(nb)
    reference = cells[function].source
    assert reference.count(old) == 1, f"variant {name!r} no longer matches the reference {function}"
    try:
        kernel.run(reference.replace(old, new))
        passed, error = kernel.succeeds(cells[f"{function}_tests"].source)
    finally:
        kernel.run(reference)
    return passed, error


@pytest.mark.parametrize("assignment, function, name, old, new", _cases("mutants"))
def test_mutant_is_caught(kernels, assignment, function, name, old, new):
    kernel, nb = kernels(assignment)
    passed, _ = _run_variant(kernel, nb, function, name, old, new)
    assert not passed, f"the tests of {function} pass the wrong answer {name!r}"


@pytest.mark.parametrize("assignment, function, name, old, new", _cases("alternatives"))
def test_correct_alternative_passes(kernels, assignment, function, name, old, new):
    kernel, nb = kernels(assignment)
    passed, error = _run_variant(kernel, nb, function, name, old, new)
    assert passed, f"the tests of {function} fail the correct answer {name!r}: {error}"
