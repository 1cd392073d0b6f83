"""The rules about graded cells: which cells nbgrader grades, how, and for how many points.

nbgrader keeps its marks in a cell's ``metadata.nbgrader`` (schema 3): an answer (``is_answer``), a
test (``is_test``), or a cell a person grades (``is_manual``). The rules live here once, so that
every command reads a cell as the others do.

No release holds any of the source markers, so a notebook that holds one is the instructor's, or made
from it: ``source_markers`` finds them, and ``grade`` refuses such a submission.

Every function takes a cell as nbformat gives it or as plain JSON (a dict).
"""

import copy
import re

# nbgrader's default delimiters; it matches them as substrings of a line.
BEGIN_SOLUTION, END_SOLUTION = "BEGIN SOLUTION", "END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
# nbgrader's too: a task's mark scheme, which generate_assignment clears (this course writes rubrics instead).
BEGIN_MARK_SCHEME, END_MARK_SCHEME = "BEGIN MARK SCHEME", "END MARK SCHEME"
# The course's own: the rubric of a manual cell, for instructors only (autograder/outputs/guide.py).
BEGIN_RUBRIC, END_RUBRIC = "BEGIN RUBRIC", "END RUBRIC"
# What only a source notebook holds (``source_markers``). nbgrader's generate_assignment (ClearSolutions,
# ClearHiddenTests, ClearMarkScheme) acts on every line, of any cell type, that holds one of its
# delimiters anywhere, case-sensitive: ``### BEGIN SOLUTION``, ``# BEGIN SOLUTION`` and
# ``x = 1  # END SOLUTION`` alike, not ``# begin solution``; so no release holds one. The rubric's
# markers are matched the same way (``rubric_lines``), and nbgrader clears the answers that hold them.
SOURCE_MARKERS = (
    BEGIN_SOLUTION,
    END_SOLUTION,
    BEGIN_HIDDEN,
    END_HIDDEN,
    BEGIN_MARK_SCHEME,
    END_MARK_SCHEME,
    BEGIN_RUBRIC,
    END_RUBRIC,
)
TESTS_SUFFIX = "_tests"
# The metadata that makes a cell graded; nbgrader recomputes checksums itself.
GRADING_KEYS = ("grade", "solution", "locked", "task", "points", "grade_id", "schema_version")


def nbgrader_metadata(cell):
    """Return the cell's ``metadata.nbgrader`` dict, or None for an ordinary cell."""
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    marks = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return marks if isinstance(marks, dict) else None


def grade_id(cell):
    """Return the cell's ``grade_id``, or None."""
    return (nbgrader_metadata(cell) or {}).get("grade_id")


def grading_metadata(marks):
    """Return the part of a ``metadata.nbgrader`` dict that decides how the cell is graded."""
    return {key: marks[key] for key in GRADING_KEYS if key in marks}


def is_answer(cell):
    """An answer (``solution: true``): a code cell the student completes between ``### BEGIN SOLUTION`` /
    ``### END SOLUTION``, or a markdown cell (a derivation, a discussion) that a person grades when it
    also has ``grade: true`` and ``points``."""
    return bool((nbgrader_metadata(cell) or {}).get("solution"))


def is_test(cell):
    """A test cell: graded code that is not the student's answer, a locked code cell with ``grade: true``,
    ``solution: false`` and ``points``. Its ``grade_id`` is its answer's plus ``_tests`` (``tests_id``),
    and it may hold hidden tests between ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``."""
    marks = nbgrader_metadata(cell) or {}
    return cell.get("cell_type") == "code" and bool(marks.get("grade")) and not marks.get("solution")


def is_manual(cell):
    """A cell a person grades: a markdown answer with points, or a task (``task: true``). In ``source/``
    it ends with its rubric between ``### BEGIN RUBRIC`` / ``### END RUBRIC`` (what earns each point,
    the common wrong answers), which nbgrader never releases: it replaces a markdown answer whole."""
    marks = nbgrader_metadata(cell) or {}
    return bool(marks.get("task")) or (
        cell.get("cell_type") == "markdown" and bool(marks.get("grade")) and bool(marks.get("solution"))
    )


def is_graded(cell):
    """An answer or a test: a cell a submission must keep to be graded in full."""
    marks = nbgrader_metadata(cell) or {}
    return bool(marks.get("grade") or marks.get("solution"))


def has_points(cell):
    """Whether the cell's ``points`` is a number above zero."""
    try:
        return float((nbgrader_metadata(cell) or {}).get("points")) > 0
    except (TypeError, ValueError):
        return False


def tests_id(answer_id):
    """The ``grade_id`` of the test cell of the answer ``answer_id``."""
    return answer_id + TESTS_SUFFIX


def answer_id(test_id):
    """The ``grade_id`` of the answer that the test cell ``test_id`` tests."""
    return test_id[: -len(TESTS_SUFFIX)] if test_id.endswith(TESTS_SUFFIX) else test_id


def graded_cells(nb):
    """Return {grade_id: cell} of the notebook's nbgrader cells that have a grade_id."""
    return {grade_id(cell): cell for cell in nb["cells"] if grade_id(cell)}


def graded_ids(nb):
    """Return the grade_ids of the notebook's answers and tests, in order."""
    return [grade_id(cell) for cell in nb["cells"] if is_graded(cell)]


def graded_functions(nb):
    """Return {function: (answer cell, test cell)} for each code answer that has a test cell."""
    cells = graded_cells(nb)
    return {
        name: (cell, cells[tests_id(name)])
        for name, cell in cells.items()
        if cell.get("cell_type") == "code" and is_answer(cell) and tests_id(name) in cells
    }


def names_mistakes(tests, function):
    """Whether the test cell ``tests`` runs its asserts inside ``diagnosed(function)``
    (``bdl.diagnoses``): only then can a failure of it name a likely mistake."""
    return re.search(rf"\bdiagnosed\(\s*['\"]{re.escape(function)}['\"]", tests.source) is not None


def marker_pairs(source, begin, end):
    """Count the ``begin``/``end`` pairs in ``source``; return (pairs, error or None)."""
    pairs, inside = 0, False
    for line in source.splitlines():
        if begin in line:
            if inside:
                return pairs, f"nested '{begin}'"
            inside = True
        elif end in line:
            if not inside:
                return pairs, f"'{end}' without '{begin}'"
            inside = False
            pairs += 1
    if inside:
        return pairs, f"'{begin}' without '{end}'"
    return pairs, None


def has_markers(source, begin, end):
    """Whether any line of ``source`` holds ``begin`` or ``end``."""
    return any(begin in line or end in line for line in source.splitlines())


def block_lines(source, begin, end):
    """Return the 1-based line numbers of ``source`` inside ``begin``/``end`` blocks, markers included."""
    numbers, inside = set(), False
    for number, line in enumerate(source.split("\n"), start=1):
        if begin in line:
            inside = True
        if inside:
            numbers.add(number)
        if end in line:
            inside = False
    return numbers


def hidden_lines(source):
    """Return the 1-based line numbers of ``source`` inside hidden-test blocks, markers included."""
    return block_lines(source, BEGIN_HIDDEN, END_HIDDEN)


def rubric_lines(source):
    """Return the 1-based line numbers of ``source`` inside rubric blocks, markers included."""
    return block_lines(source, BEGIN_RUBRIC, END_RUBRIC)


def cell_text(cell):
    """A cell's source as one string (plain JSON may keep it as a list of lines), or None."""
    source = cell.get("source") if isinstance(cell, dict) else None
    if isinstance(source, list):
        source = "".join(part for part in source if isinstance(part, str))
    return source if isinstance(source, str) else None


def source_markers(nb):
    """Which source markers (``SOURCE_MARKERS``) the notebook ``nb`` holds, and where: {marker: [(cell
    index, 1-based line number)]}, in the order of ``SOURCE_MARKERS``; empty for a notebook nbgrader
    released. Every cell counts, whatever its type, and every line that holds a marker anywhere, as
    nbgrader's generate_assignment counts them: a student's comment ``# BEGIN SOLUTION`` is a marker too,
    since nbgrader would strip it as one. ``nb`` is nbformat's or plain JSON; what is no cell is skipped."""
    found = {}
    notebook_cells = nb.get("cells") if isinstance(nb, dict) else None
    for index, cell in enumerate(notebook_cells if isinstance(notebook_cells, list) else []):
        for number, line in enumerate((cell_text(cell) or "").split("\n"), start=1):
            for marker in SOURCE_MARKERS:
                if marker in line:
                    found.setdefault(marker, []).append((index, number))
    return {marker: found[marker] for marker in SOURCE_MARKERS if marker in found}


def answered(nb):
    """A copy of the source notebook ``nb`` as a student who answered every question as it does hands it
    in: each solution without its marker lines, the hidden tests, mark schemes and rubrics taken out,
    markers and all. It holds no source marker (``grade`` refuses a notebook that does), and grades as
    the source does: nbgrader runs the test cells as the gradebook has them, hidden tests included."""
    nb = copy.deepcopy(nb)
    for cell in nb["cells"]:
        source = cell_text(cell)
        if source is None:
            continue
        removed = set()
        for begin, end in (
            (BEGIN_HIDDEN, END_HIDDEN),
            (BEGIN_MARK_SCHEME, END_MARK_SCHEME),
            (BEGIN_RUBRIC, END_RUBRIC),
        ):
            removed |= block_lines(source, begin, end)
        lines = source.split("\n")
        kept = [
            line
            for number, line in enumerate(lines, start=1)
            if number not in removed and not any(marker in line for marker in SOURCE_MARKERS)
        ]
        if len(kept) < len(lines):
            cell["source"] = "\n".join(kept).rstrip()
    return nb
