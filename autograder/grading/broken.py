"""Whether a grading run's failures are the grading environment's, not the students': then ``grade``
stops in one line naming the cause, and grades no one at zero for it.

The evidence is a given cell (a code cell of the release that is neither an answer nor a test) that
failed, its source as released. It is the environment's when nothing of the student's ran before it
(the hand-in's first code cells are the release's own, each run without error): one hand-in is enough,
as a kernel that cannot import ``bdl`` fails there. Otherwise a student may have broken it (``np =
None`` in an answer), so it is the environment's only when the same given cell is the first to fail in
every graded hand-in of the run, two at least, and names no graded function (or a class that all got
one function wrong would stop the run).
"""

import re
from dataclasses import dataclass
from pathlib import Path

import bdl
from autograder.course import cells
from autograder.course.leaks import graded_names
from autograder.course.statuses import printable
from autograder.grading.handin import Unreadable, read_handin

COURSE_PACKAGES = ("bdl", "autograder")  # a grading kernel imports both (its guard is autograder's)
IMPORTED = re.compile(r"(?:No module named|from) '([\w.]+)'")


@dataclass(frozen=True)
class GivenFailure:
    """A given cell that failed in one hand-in."""

    notebook: str
    index: int  # its index among the release notebook's cells
    error: str  # its error's last line
    first: bool  # nothing of the student's ran before it
    calls_answers: bool  # it names a graded function or class

    def cause(self, release):
        """The cell and its error in one line, with what to mend when it is an import of the course."""
        source = release[self.notebook].cells[self.index].source
        line = next((line.strip() for line in source.splitlines() if line.strip()), "")
        cause = f"{self.notebook}.ipynb, given cell {self.index} (`{line[:60]}`): {self.error}"
        module = IMPORTED.search(self.error)
        if self.error.startswith(("ImportError", "ModuleNotFoundError")) and module:
            top = module.group(1).split(".")[0]
            if top in COURSE_PACKAGES:
                cause += (
                    f"; the grading kernel cannot import the course's package {top}: install this clone"
                    f" (pip install -e {Path(bdl.__file__).parents[1]}) into the Python that grades"
                )
        return cause


def first_given_failure(name, release, autograded, answers):
    """The first given cell that failed in the autograded notebook ``name`` (its bytes), as a
    ``GivenFailure``, or None. ``release``: the release notebook; ``answers``: the graded names."""
    try:
        notebook = read_handin(autograded)
    except Unreadable:
        return None
    code = [(index, cell) for index, cell in enumerate(release.cells) if cell.cell_type == "code"]
    given = {cell.source: index for index, cell in code if not cells.is_graded(cell)}
    first = True
    for position, cell in enumerate(cell for cell in notebook.cells if cell.get("cell_type") == "code"):
        source = _text(cell.get("source"))
        outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
        error = next((o for o in outputs if isinstance(o, dict) and o.get("output_type") == "error"), None)
        released = position < len(code) and code[position][1].source == source
        if error is not None and source in given:
            text = f"{_text(error.get('ename'))}: {_text(error.get('evalue'))}".strip()
            text = printable((text.splitlines() or [""])[-1])
            words = set(re.findall(r"\w+", source))
            return GivenFailure(name, given[source], text[:300], first and released, bool(words & answers))
        first = first and released and source in given and cell.get("execution_count") is not None
    return None


def _text(value):
    """A notebook's string as text (nbformat keeps a list of lines as it is), or "" if it is neither."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(value)
    return value if isinstance(value, str) else ""


def hand_in_failure(autograded, release, answers):
    """The first ``GivenFailure`` of a graded hand-in's notebooks (``autograded``: its files by path), or
    None. ``release``: the release notebooks by name."""
    for name, notebook in release.items():
        data = autograded.get(f"{name}.ipynb")
        failure = first_given_failure(name, notebook, data, answers) if data else None
        if failure:
            return failure
    return None


def answer_names(source_notebooks):
    """The graded names the source notebooks' answers define."""
    return {
        name
        for notebook in source_notebooks
        for cell in notebook.cells
        if cell.cell_type == "code" and cells.is_answer(cell)
        for name in graded_names(cell.source)
    }


def environment_fault(failures, release):
    """(the cause in one line, the students it cost), or None: ``failures`` is {student: the
    ``GivenFailure`` of a graded hand-in, or None}, every graded hand-in of the run."""
    first = sorted((student, failure) for student, failure in failures.items() if failure and failure.first)
    if first:
        students = [student for student, _ in first]
        return f"{first[0][1].cause(release)}, before any of the student's code ran", students
    found = {(failure.notebook, failure.index) if failure else None for failure in failures.values()}
    if len(failures) < 2 or len(found) != 1 or None in found:
        return None
    failure = next(iter(failures.values()))
    if failure.calls_answers:
        return None
    return f"{failure.cause(release)}, in each of the {len(failures)} hand-ins graded", sorted(failures)
