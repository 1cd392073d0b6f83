"""Metadata lint for nbgrader source notebooks (``source/*/*.ipynb``).

Catches what would make ``nbgrader generate_assignment`` fail or grade wrongly: unpaired solution /
hidden-test markers, duplicate ids, unlocked or pointless test cells, stale outputs, a missing
``parameters`` cell; and what would leave a teaching assistant without a rubric or hand one to
students: a manual cell without a rubric that adds up to its points, a rubric where nbgrader does not
clear it, a rubric in ``release/``. The rules about graded cells themselves live in
``autograder.course.cells``, about rubrics in ``autograder.course.rubric``.

    python -m autograder.course.lint [source_dir]     # exits 1 if anything is wrong
                                                      # (checks ../release too when it exists)
"""

import argparse
import re
import sys
from pathlib import Path

import nbformat

from autograder.course import cells, rubric
from autograder.course.cells import BEGIN_HIDDEN, BEGIN_RUBRIC, BEGIN_SOLUTION, END_HIDDEN, END_RUBRIC, END_SOLUTION

CHECK_OUTPUT = "# NBVAL_CHECK_OUTPUT"
GRADE_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def _metadata_problems(cell, seen_ids, index):
    """Schema version, grade_id form and uniqueness, points of graded cells."""
    problems, marks = [], cells.nbgrader_metadata(cell)
    grade_id = marks.get("grade_id")
    if marks.get("schema_version") != 3:
        problems.append(f"nbgrader schema_version is {marks.get('schema_version')!r}, expected 3")
    if not grade_id:
        problems.append("nbgrader cell has no grade_id")
    elif not GRADE_ID.match(grade_id):
        problems.append(f"grade_id {grade_id!r} does not match {GRADE_ID.pattern}")
    if grade_id:
        if grade_id in seen_ids:
            problems.append(f"grade_id {grade_id!r} already used by cell {seen_ids[grade_id]}")
        seen_ids.setdefault(grade_id, index)
    if (marks.get("grade") or marks.get("task")) and not cells.has_points(cell):
        problems.append(f"graded cell needs points > 0, has {marks.get('points')!r}")
    return problems


def _marker_problems(cell):
    """Solution markers paired and only in answers; hidden tests paired and only in test cells."""
    problems = []
    source, answer = cell.get("source", ""), cells.is_answer(cell)
    pairs, error = cells.marker_pairs(source, BEGIN_SOLUTION, END_SOLUTION)
    if error:
        problems.append(f"solution markers: {error}")
    if cells.has_markers(source, BEGIN_SOLUTION, END_SOLUTION) and not answer:
        problems.append("solution markers in a cell not marked solution: true")
    if answer and cell.cell_type == "code" and pairs == 0 and not error:
        problems.append("solution code cell has no '### BEGIN SOLUTION' / '### END SOLUTION' pair")
    _, error = cells.marker_pairs(source, BEGIN_HIDDEN, END_HIDDEN)
    if error:
        problems.append(f"hidden test markers: {error}")
    if cells.has_markers(source, BEGIN_HIDDEN, END_HIDDEN) and not cells.is_test(cell):
        problems.append("hidden tests outside a grade cell (grade: true, solution: false)")
    return problems + _rubric_problems(cell)


def cleared_lines(cell):
    """The 1-based lines of a source cell that nbgrader leaves out of the release: the solution
    block, or the whole of a markdown answer that has none."""
    source = cell.get("source", "")
    if cells.has_markers(source, BEGIN_SOLUTION, END_SOLUTION):
        return cells.block_lines(source, BEGIN_SOLUTION, END_SOLUTION)
    if cells.is_answer(cell) and cell.get("cell_type") == "markdown":
        return set(range(1, len(source.split("\n")) + 1))
    return set()


def _rubric_problems(cell):
    """A manual cell has a rubric that adds up to its points; a rubric is nowhere nbgrader releases."""
    source = cell.get("source", "")
    _, error = cells.marker_pairs(source, BEGIN_RUBRIC, END_RUBRIC)
    if error:
        return [f"rubric markers: {error}"]
    has_rubric = cells.has_markers(source, BEGIN_RUBRIC, END_RUBRIC)
    if has_rubric and not cells.is_manual(cell):
        return ["rubric in a cell that is not a manually graded answer"]
    if has_rubric and not cells.rubric_lines(source) <= cleared_lines(cell):
        return [
            "rubric outside what nbgrader clears (a markdown answer's solution block, or the whole "
            "answer when it has none): it would reach the release"
        ]
    if cells.is_manual(cell) and cells.has_points(cell):
        return rubric.problems(cell)
    return []


def _test_cell_problems(cell):
    """A test cell is locked and named after its answer."""
    if not cells.is_test(cell):
        return []
    problems = []
    if not cells.nbgrader_metadata(cell).get("locked"):
        problems.append("test cell is not locked: true")
    if not (cells.grade_id(cell) or "").endswith(cells.TESTS_SUFFIX):
        problems.append(f"test cell's grade_id should end with '{cells.TESTS_SUFFIX}'")
    return problems


def _code_problems(cell):
    """Outputs stripped unless nbval checks them; the parameters cell is not graded."""
    problems = []
    if CHECK_OUTPUT not in cell.source:
        if cell.get("outputs"):
            problems.append("code cell has outputs (strip them, or mark it # NBVAL_CHECK_OUTPUT)")
        if cell.get("execution_count") is not None:
            problems.append("code cell has an execution_count (strip outputs)")
    if _is_parameters(cell) and cells.is_graded(cell):
        problems.append("the 'parameters' cell must not be a graded or solution cell")
    return problems


def _is_parameters(cell):
    return cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", [])


def _notebook_problems(nb):
    """Every test cell has its answer; exactly one parameters cell."""
    problems = []
    answers = {cells.grade_id(cell) for cell in nb.cells if cells.is_answer(cell)}
    for index, cell in enumerate(nb.cells):
        grade_id = cells.grade_id(cell) or ""
        if grade_id.endswith(cells.TESTS_SUFFIX) and cells.answer_id(grade_id) not in answers:
            problems.append(
                f"cell {index} ({grade_id}): no solution cell with grade_id "
                f"{cells.answer_id(grade_id)!r} for these tests"
            )
    parameters = [index for index, cell in enumerate(nb.cells) if _is_parameters(cell)]
    if len(parameters) != 1:
        where = f" (cells {parameters})" if parameters else ""
        problems.append(f"expected exactly one code cell tagged 'parameters', found {len(parameters)}{where}")
    return problems


def lint_notebook(path):
    """Return a list of problems in one source notebook (empty if clean)."""
    path = Path(path)
    name = f"{path.parent.name}/{path.name}"
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # unreadable JSON is itself the problem to report
        return [f"{name}: cannot read notebook: {exc}"]
    problems, seen_ids = [], {}
    for index, cell in enumerate(nb.cells):
        label = f"cell {index}" + (f" ({cells.grade_id(cell)})" if cells.grade_id(cell) else "")
        found = (
            (_metadata_problems(cell, seen_ids, index) if cells.nbgrader_metadata(cell) is not None else [])
            + _marker_problems(cell)
            + _test_cell_problems(cell)
            + (_code_problems(cell) if cell.cell_type == "code" else [])
        )
        problems += [f"{name}: {label}: {problem}" for problem in found]
    return problems + [f"{name}: {problem}" for problem in _notebook_problems(nb)]


def notebooks(source_dir):
    """Source notebooks ``source_dir/*/*.ipynb``, sorted, without checkpoints."""
    return sorted(p for p in Path(source_dir).glob("*/*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def rubric_leaks(source_path, release_path):
    """Return the rubric markers and rubric lines of a source notebook found in its release
    (a line counts when it appears in the source only inside a rubric)."""
    name = f"{Path(release_path).parent.parent.name}/{Path(release_path).parent.name}/{Path(release_path).name}"
    try:
        source, release = nbformat.read(source_path, as_version=4), nbformat.read(release_path, as_version=4)
    except Exception as exc:  # unreadable JSON is itself the problem to report
        return [f"{name}: cannot read notebook: {exc}"]
    secret, given = set(), set()
    for cell in source.cells:
        inside = cells.rubric_lines(cell.source)
        for number, line in enumerate(cell.source.split("\n"), start=1):
            (secret if number in inside else given).add(line.strip())
    secret -= given | {""}
    problems = []
    for index, cell in enumerate(release.cells):
        for line in cell.source.split("\n"):
            if BEGIN_RUBRIC in line or END_RUBRIC in line or line.strip() in secret:
                problems.append(f"{name}: cell {index}: a rubric reached the release: '{line.strip()[:60]}'")
    return problems


def lint_release(source_dir, release_dir):
    """Return the rubrics (markers or lines) of ``source_dir``'s notebooks found in ``release_dir``."""
    problems = []
    for path in notebooks(source_dir):
        released = Path(release_dir) / path.parent.name / path.name
        if released.exists():
            problems.extend(rubric_leaks(path, released))
    return problems


def lint_course(source_dir="source", release_dir=None):
    """Return the problems of every source notebook under ``source_dir``, and the rubrics found in
    ``release_dir`` (default: the ``release`` folder beside ``source_dir``, when there is one)."""
    problems = []
    for path in notebooks(source_dir):
        problems.extend(lint_notebook(path))
    release_dir = Path(source_dir).parent / "release" if release_dir is None else Path(release_dir)
    return problems + (lint_release(source_dir, release_dir) if release_dir.is_dir() else [])


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m autograder.course.lint",
        description="Lint nbgrader source notebooks (and ../release beside them); exit 1 if anything is wrong.",
    )
    parser.add_argument("source_dir", nargs="?", default="source", help="the source folder (default %(default)s)")
    source_dir = parser.parse_args(argv).source_dir
    if not Path(source_dir).is_dir():
        print(f"no such directory: {source_dir}", file=sys.stderr)
        return 2
    found = notebooks(source_dir)
    problems = lint_course(source_dir)
    for line in problems:
        print(line)
    print(f"{len(found)} notebook(s), {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
