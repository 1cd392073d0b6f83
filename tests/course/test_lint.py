"""The source-notebook metadata lint: the real course, then one case per rule."""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograder.course.lint import lint_course, lint_notebook, main, notebooks

ROOT = Path(__file__).resolve().parents[2]


def test_real_source_notebooks_are_clean():
    assert notebooks(ROOT / "source"), f"no source notebooks in {ROOT / 'source'}"
    assert lint_course(ROOT / "source") == []


# --- synthetic notebooks ------------------------------------------------------


def nbg(grade_id, solution=False, grade=False, locked=False, points=None):
    meta = {"schema_version": 3, "grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


SOLUTION = "def nll(x):\n    ### BEGIN SOLUTION\n    return -x\n    ### END SOLUTION\n"
TESTS = "assert nll(1) == -1\n### BEGIN HIDDEN TESTS\nassert nll(2) == -2\n### END HIDDEN TESTS\n"
RUBRIC = "### BEGIN RUBRIC\n- 1 point: says it is convex.\n\nCommon wrong answers:\n- concave.\n### END RUBRIC"
DERIVATION = f"### BEGIN SOLUTION\nIt is convex.\n{RUBRIC}\n### END SOLUTION"


def good_cells():
    """Cells 0..5: parameters, nll, nll_tests, derivation, checked output, prose."""
    params = new_code_cell("num_epochs = 1", metadata={"tags": ["parameters"]})
    checked = new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(2)", execution_count=3)
    checked.outputs = [new_output("stream", name="stdout", text="2\n")]
    return [
        params,
        new_code_cell(SOLUTION, metadata=nbg("nll", solution=True)),
        new_code_cell(TESTS, metadata=nbg("nll_tests", grade=True, locked=True, points=2)),
        new_markdown_cell(DERIVATION, metadata=nbg("derivation", solution=True, grade=True, points=1)),
        checked,
        new_markdown_cell("## Summary"),
    ]


def write(tmp_path, cells):
    path = tmp_path / "01_topic" / "assignment.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=cells), path)
    return path


def lint_cells(tmp_path, mutate=None):
    cells = good_cells()
    if mutate:
        mutate(cells)
    return lint_notebook(write(tmp_path, cells))


def meta(cell):
    return cell.metadata.nbgrader


def set_(index, **changes):
    return lambda cells: meta(cells[index]).update(changes)


def source(index, text):
    return lambda cells: cells[index].__setitem__("source", text)


def drop_grade_id(cells):
    del meta(cells[1])["grade_id"]


def add_output(cells):
    cells[1].outputs = [new_output("stream", name="stdout", text="hi\n")]


def add_execution_count(cells):
    cells[1].execution_count = 7


def untag_parameters(cells):
    cells[0].metadata["tags"] = []


def second_parameters(cells):
    cells[5] = new_code_cell("num_samples = 2", metadata={"tags": ["parameters"]})


def graded_parameters(cells):
    cells[0].source = "### BEGIN SOLUTION\nnum_epochs = 1\n### END SOLUTION"
    cells[0].metadata.update(nbg("params", solution=True))


BROKEN = {
    # rule: (mutation, text every matching problem must contain)
    "schema_version": (set_(1, schema_version=2), "(nll)"),
    "missing_grade_id": (drop_grade_id, "cell 1"),
    "duplicate_grade_id": (set_(3, grade_id="nll"), "cell 3 (nll)"),
    "bad_grade_id": (set_(3, grade_id="Derivation-1"), "(Derivation-1)"),
    "unclosed_solution": (source(1, "def nll(x):\n    ### BEGIN SOLUTION\n    return -x\n"), "(nll)"),
    "end_before_begin": (source(1, "### END SOLUTION\n### BEGIN SOLUTION\n"), "(nll)"),
    "nested_solution": (
        source(1, "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n### END SOLUTION\n"),
        "(nll)",
    ),
    "solution_outside_solution_cell": (source(0, "### BEGIN SOLUTION\nx = 1\n### END SOLUTION"), "cell 0"),
    "solution_in_test_cell": (source(2, "### BEGIN SOLUTION\nx = 1\n### END SOLUTION"), "(nll_tests)"),
    "solution_cell_without_markers": (source(1, "def nll(x):\n    return -x\n"), "(nll)"),
    "unclosed_hidden_tests": (source(2, "### BEGIN HIDDEN TESTS\nassert True\n"), "(nll_tests)"),
    "hidden_tests_in_solution_cell": (source(1, SOLUTION + TESTS), "(nll)"),
    "hidden_tests_in_plain_cell": (source(0, "### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS"), "cell 0"),
    "hidden_tests_in_manual_answer": (source(3, "### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS"), "(derivation)"),
    "test_cell_unlocked": (set_(2, locked=False), "(nll_tests)"),
    "test_cell_zero_points": (set_(2, points=0), "(nll_tests)"),
    "test_cell_no_points": (lambda cells: meta(cells[2]).pop("points"), "(nll_tests)"),
    "manual_answer_no_points": (set_(3, points=0), "(derivation)"),
    "test_cell_name": (set_(2, grade_id="check_nll"), "(check_nll)"),
    "tests_without_solution": (set_(2, grade_id="mse_tests"), "(mse_tests)"),
    "outputs_kept": (add_output, "(nll)"),
    "execution_count_kept": (add_execution_count, "(nll)"),
    "no_parameters_cell": (untag_parameters, "parameters"),
    "two_parameters_cells": (second_parameters, "parameters"),
    "graded_parameters_cell": (graded_parameters, "cell 0 (params)"),
    # rubrics: every manual answer has one that adds up, and nbgrader clears it from the release
    "manual_answer_without_rubric": (
        source(3, "### BEGIN SOLUTION\nIt is convex.\n### END SOLUTION"),
        "(derivation): manual cell has no rubric",
    ),
    "rubric_points_do_not_add_up": (set_(3, points=2), "add up to 1 points, the cell has 2"),
    "rubric_without_wrong_answers": (
        source(3, DERIVATION.replace("\nCommon wrong answers:\n- concave.", "")),
        "no common wrong answer",
    ),
    "rubric_line_not_understood": (source(3, DERIVATION.replace("- 1 point:", "1 pt:")), "not understood"),
    "rubric_without_answer": (source(3, RUBRIC), "no model answer"),
    "unclosed_rubric": (source(3, DERIVATION.replace("### END RUBRIC\n", "")), "(derivation): rubric markers"),
    "rubric_outside_solution_block": (
        source(3, "### BEGIN SOLUTION\nIt is convex.\n### END SOLUTION\n" + RUBRIC),
        "would reach the release",
    ),
    "rubric_in_code_answer": (source(1, SOLUTION + "# " + RUBRIC.replace("\n", "\n# ")), "(nll): rubric in a cell"),
    "rubric_in_plain_cell": (source(5, "## Summary\n" + RUBRIC), "cell 5: rubric in a cell"),
}


def test_good_notebook_is_clean(tmp_path):
    assert lint_cells(tmp_path) == []


@pytest.mark.parametrize("rule", sorted(BROKEN))
def test_broken_notebook_is_caught(tmp_path, rule):
    mutate, where = BROKEN[rule]
    problems = lint_cells(tmp_path, mutate)
    assert problems, f"{rule}: no problem reported"
    assert all(p.startswith("01_topic/assignment.ipynb: ") for p in problems), problems
    assert any(where in p for p in problems), f"{rule}: no problem mentions {where!r}: {problems}"


def test_unreadable_notebook(tmp_path):
    path = tmp_path / "01_topic" / "broken.ipynb"
    path.parent.mkdir()
    path.write_text("{not json")
    [problem] = lint_notebook(path)
    assert "01_topic/broken.ipynb" in problem


def test_course_skips_checkpoints_and_cli_exit_code(tmp_path, capsys):
    write(tmp_path, good_cells())
    checkpoint = tmp_path / ".ipynb_checkpoints" / "assignment-checkpoint.ipynb"
    checkpoint.parent.mkdir()
    checkpoint.write_text("{not json")
    assert lint_course(tmp_path) == []
    assert main([str(tmp_path)]) == 0

    cells = good_cells()
    meta(cells[2])["locked"] = False
    write(tmp_path, cells)
    assert main([str(tmp_path)]) == 1
    assert "nll_tests" in capsys.readouterr().out
    assert main([str(tmp_path / "missing")]) == 2
    with pytest.raises(SystemExit) as usage:
        main(["--help"])
    assert usage.value.code == 0 and "source_dir" in capsys.readouterr().out


def test_module_runs_as_script(tmp_path):
    write(tmp_path, good_cells())
    done = subprocess.run(
        [sys.executable, "-m", "autograder.course.lint", str(tmp_path)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
