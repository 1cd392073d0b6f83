"""Metadata lint for nbgrader source notebooks (``source/*/*.ipynb``).

Catches what would make ``nbgrader generate_assignment`` fail or grade wrongly:
unpaired solution / hidden-test markers, duplicate ids, unlocked or pointless
test cells, stale outputs, a missing ``parameters`` cell.

    python -m autograder.lint [source_dir]     # exits 1 if anything is wrong
"""
import re
import sys
from pathlib import Path

import nbformat

# nbgrader's default delimiters; it matches them as substrings of a line.
BEGIN_SOLUTION, END_SOLUTION = "BEGIN SOLUTION", "END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
CHECK_OUTPUT = "# NBVAL_CHECK_OUTPUT"
GRADE_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def _markers(source, begin, end):
    """Count begin/end pairs in ``source``; return (pairs, error or None)."""
    pairs, open_ = 0, False
    for line in source.splitlines():
        if begin in line:
            if open_:
                return pairs, f"nested '{begin}'"
            open_ = True
        elif end in line:
            if not open_:
                return pairs, f"'{end}' without '{begin}'"
            open_ = False
            pairs += 1
    if open_:
        return pairs, f"'{begin}' without '{end}'"
    return pairs, None


def _has(source, begin, end):
    return any(begin in line or end in line for line in source.splitlines())


def lint_notebook(path):
    """Return a list of problems in one source notebook (empty if clean)."""
    path = Path(path)
    name = f"{path.parent.name}/{path.name}"
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # unreadable JSON is itself the problem to report
        return [f"{name}: cannot read notebook: {exc}"]

    problems = []
    seen_ids = {}
    solution_ids = set()
    test_cells = []  # (label, grade_id) of cells whose id ends in _tests
    parameter_cells = []

    for index, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {}).get("nbgrader")
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        label = f"cell {index}" + (f" ({grade_id})" if grade_id else "")

        def problem(message):
            problems.append(f"{name}: {label}: {message}")

        source = cell.get("source", "")
        is_code = cell.cell_type == "code"
        solution = bool(meta and meta.get("solution"))
        grade = bool(meta and meta.get("grade"))

        if meta is not None:
            if meta.get("schema_version") != 3:
                problem(f"nbgrader schema_version is {meta.get('schema_version')!r}, expected 3")
            if not grade_id:
                problem("nbgrader cell has no grade_id")
            elif not GRADE_ID.match(grade_id):
                problem(f"grade_id {grade_id!r} does not match {GRADE_ID.pattern}")
            if grade_id:
                if grade_id in seen_ids:
                    problem(f"grade_id {grade_id!r} already used by cell {seen_ids[grade_id]}")
                seen_ids.setdefault(grade_id, index)
            if (grade or meta.get("task")) and not _positive(meta.get("points")):
                problem(f"graded cell needs points > 0, has {meta.get('points')!r}")

        # Solution markers: paired, only in solution cells, required in code ones.
        pairs, error = _markers(source, BEGIN_SOLUTION, END_SOLUTION)
        if error:
            problem(f"solution markers: {error}")
        if _has(source, BEGIN_SOLUTION, END_SOLUTION) and not solution:
            problem("solution markers in a cell not marked solution: true")
        if solution and is_code and pairs == 0 and not error:
            problem("solution code cell has no '### BEGIN SOLUTION' / '### END SOLUTION' pair")
        if solution and grade_id:
            solution_ids.add(grade_id)

        # Hidden tests: paired, only in grade cells that are not solutions.
        _, error = _markers(source, BEGIN_HIDDEN, END_HIDDEN)
        if error:
            problem(f"hidden test markers: {error}")
        if _has(source, BEGIN_HIDDEN, END_HIDDEN) and (not grade or solution):
            problem("hidden tests outside a grade cell (grade: true, solution: false)")

        # Autograder test cells.
        if is_code and grade and not solution:
            if not meta.get("locked"):
                problem("test cell is not locked: true")
            if not (grade_id or "").endswith("_tests"):
                problem("test cell's grade_id should end with '_tests'")
        if grade_id and grade_id.endswith("_tests"):
            test_cells.append((label, grade_id))

        if is_code:
            if CHECK_OUTPUT not in source:
                if cell.get("outputs"):
                    problem("code cell has outputs (strip them, or mark it # NBVAL_CHECK_OUTPUT)")
                if cell.get("execution_count") is not None:
                    problem("code cell has an execution_count (strip outputs)")
            if "parameters" in cell.get("metadata", {}).get("tags", []):
                parameter_cells.append(index)
                if grade or solution:
                    problem("the 'parameters' cell must not be a graded or solution cell")

    for label, grade_id in test_cells:
        target = grade_id[: -len("_tests")]
        if target not in solution_ids:
            problems.append(f"{name}: {label}: no solution cell with grade_id {target!r} for these tests")

    if len(parameter_cells) != 1:
        where = f" (cells {parameter_cells})" if parameter_cells else ""
        problems.append(
            f"{name}: expected exactly one code cell tagged 'parameters', found {len(parameter_cells)}{where}"
        )
    return problems


def _positive(points):
    try:
        return float(points) > 0
    except (TypeError, ValueError):
        return False


def notebooks(source_dir):
    """Source notebooks ``source_dir/*/*.ipynb``, sorted, without checkpoints."""
    return sorted(
        p for p in Path(source_dir).glob("*/*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )


def lint_course(source_dir="source"):
    """Return the problems of every source notebook under ``source_dir``."""
    problems = []
    for path in notebooks(source_dir):
        problems.extend(lint_notebook(path))
    return problems


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    source_dir = argv[0] if argv else "source"
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
