"""01 without its experiments: the real course's case of each class of the grading tests.

The grading machinery's tests grade the tiny assignment (``tiny_course``); one attack and one bad
submission of each class, and those on TensorFlow's own objects, are graded on 01 as well. Their
cases need 01's graded cells and tests, its imports and its parameters, never its experiments
(the scoring-rule simulation, the trained networks, their plots and tables, the closed-form
check): ``trimmed`` drops those code cells. ``write_course`` writes the trimmed 01 as the
source and release of a temporary course root, where ``grade`` generates release/ anew from
source/ (to the same bytes). Submissions are trimmed the same way, so that a grading kernel
runs 01's graded cells and tests and nothing else of it. The reference answers are handed in as a
student would (``cells.answered``): ``grade`` refuses a notebook that holds the source's markers.
"""

import nbformat

from autograder.course import cells
from autograder.course.directory import REPO

ASSIGNMENT = "01_likelihoods"
NOTEBOOK = "likelihoods"
# The course's own notebooks, whole: what the fixture is cut from, and what the sandbox hides.
SOURCE = REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
RELEASE = REPO / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"


def trimmed(nb):
    """``nb`` without its ungraded code cells, but for the first (the imports, less Matplotlib's) and
    the one tagged ``parameters``; markdown cells stay (the graded ones are hand-graded answers)."""
    first = next((cell for cell in nb.cells if cell.cell_type == "code"), None)
    nb.cells = [
        cell
        for cell in nb.cells
        if cell.cell_type != "code"
        or cell is first
        or cells.is_graded(cell)
        or "parameters" in cell.metadata.get("tags", [])
    ]
    if first is not None:
        # Only the experiments plot: Matplotlib would cost each grading kernel about a second.
        first.source = "\n".join(line for line in first.source.splitlines() if "matplotlib" not in line)
    return nb


def source_notebook():
    """01's source notebook, trimmed: the instructor's, markers and all."""
    return trimmed(nbformat.read(SOURCE, 4))


def reference():
    """01's reference solution, trimmed, as a student who answered everything right hands it in:
    without the source's markers and hidden tests (``cells.answered``)."""
    return cells.answered(source_notebook())


def blank():
    """01's release (the blank submission), trimmed."""
    return trimmed(nbformat.read(RELEASE, 4))


def automatic_points(nb):
    """The points of ``nb``'s test cells (what grading can give)."""
    return sum(
        cells.nbgrader_metadata(cell)["points"] for cell in nb.cells if cells.is_test(cell) and cells.has_points(cell)
    )


def manual_points(nb):
    """The points of ``nb``'s hand-graded cells."""
    return sum(
        cells.nbgrader_metadata(cell)["points"] for cell in nb.cells if cells.is_manual(cell) and cells.has_points(cell)
    )


FULL = automatic_points(reference())  # a submission with every answer right
MAX_SCORE = FULL + manual_points(reference())


def spelled(code):
    """An attack's or a bad submission's code as this course runs it: as written, for 01."""
    return code


def source_path():
    return SOURCE


def release_path():
    return RELEASE


def write_course(root):
    """Write the trimmed 01 as ``root``'s source and release; return (source, release) paths."""
    paths = []
    for folder, nb in (("source", source_notebook()), ("release", blank())):
        path = root / folder / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        paths.append(path)
    return tuple(paths)
