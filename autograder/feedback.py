"""Feedback for students: nbgrader's HTML, with the hidden tests taken out.

nbgrader renders feedback from the autograded notebook, where every test cell
is restored in full from the gradebook: hidden tests, their markers and any
reference code they hold. ``HideHiddenTests`` is a preprocessor in nbgrader's
feedback pipeline (set in ``nbgrader_config.py``, so ``nbgrader
generate_feedback`` by hand is safe too). In each test cell with hidden tests
it keeps the visible tests and says whether the hidden part passed; when a
test failed, it keeps only the failing assertion's message, never the
traceback (which quotes the code). The instructor's autograded notebooks keep
everything.
"""
import re
from pathlib import Path

from nbformat.v4 import new_output
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder import cells
from autograder.cells import hidden_lines
from autograder.course import make_api

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The test cell's own frame is the first of a traceback: "Cell In[12], line 7".
FAILING_LINE = re.compile(r"Cell In\[\d+\], line (\d+)")


def _verdict(error, hidden):
    """What a student may know of the hidden tests, given the cell's error output (or None)."""
    if error is None:
        return "passed"
    match = FAILING_LINE.search(ANSI.sub("", "\n".join(error.get("traceback", []))))
    if match is None:
        return "failed or did not run"
    if int(match.group(1)) in hidden:
        return "failed"
    return "not run (a visible test above failed)" if int(match.group(1)) < min(hidden) else "passed"


class HideHiddenTests(NbGraderPreprocessor):
    """Take hidden tests, their outputs and tracebacks out of the feedback of test cells."""

    def preprocess_cell(self, cell, resources, index):
        hidden = hidden_lines(cell.source) if cells.is_test(cell) else set()
        if not hidden:
            return cell, resources
        error = next((output for output in cell.get("outputs", []) if output.output_type == "error"), None)
        visible = [line for number, line in enumerate(cell.source.split("\n"), start=1)
                   if number not in hidden]
        cell.source = "\n".join(visible).rstrip() + f"\n# hidden tests: {_verdict(error, hidden)}"
        # What the cell printed may come from the hidden tests: only the error's message is kept.
        cell.outputs = [] if error is None else [new_output(
            "error", ename=error.ename, evalue=error.evalue, traceback=[f"{error.ename}: {error.evalue}"])]
        return cell, resources


def write_feedback(root, assignment, db_url):
    """Generate the HTML feedback of every graded student; return (written, problems)."""
    api = make_api(root, {"CourseDirectory": {"db_url": db_url}})
    written, problems = [], []
    with Gradebook(db_url) as gradebook:
        students = sorted(s.student_id for s in gradebook.assignment_submissions(assignment))
    for student in students:
        if not (Path(root) / "autograded" / student / assignment).exists():
            problems.append(f"{student}: no autograded notebook (grade it first)")
            continue
        result = api.generate_feedback(assignment, student, force=True)
        if result["success"]:
            written += sorted(str(p) for p in (Path(root) / "feedback" / student / assignment).glob("*.html"))
        else:
            problems.append(f"{student}: {(result['error'] or result['log']).strip().splitlines()[-1]}")
    return written, problems
