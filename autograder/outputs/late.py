"""The feedback page's line about a late hand-in: ``LateNote``, in nbgrader's feedback pipeline.

nbgrader's page shows the penalty ("Late submission penalty (Score: -1.5)") and the score less it,
but not how late the hand-in was, nor with which due date. ``LateNote`` puts that first, in a
Markdown cell of the grader's own words: nothing of it comes from the student's notebook.
"""

from nbformat.v4 import new_markdown_cell
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.course.gradebook import how_late


def late_note(submission, penalty):
    """The sentence a student reads, or None for a hand-in on time."""
    seconds = submission.total_seconds_late
    if not seconds:
        return None
    extension = (
        f" (your extension of {how_late(submission.extension.total_seconds())} included)"
        if submission.extension
        else ""
    )
    cost = f"it cost {penalty:g} points of this notebook" if penalty else "it cost no points"
    return (
        f"**Late:** handed in {submission.timestamp:%Y-%m-%d %H:%M} UTC, {how_late(seconds)} after the due date "
        f"{submission.duedate:%Y-%m-%d %H:%M} UTC{extension}; {cost}."
    )


class LateNote(NbGraderPreprocessor):
    """Put the late note first in a late hand-in's feedback (after ``GetGrades``, which reads the
    penalty)."""

    def preprocess(self, nb, resources):
        grading = resources.get("nbgrader", {})
        try:
            with Gradebook(grading["db_url"]) as gradebook:
                submission = gradebook.find_submission(grading["assignment"], grading["student"])
                note = late_note(submission, float(grading.get("late_penalty") or 0))
        except (KeyError, MissingEntry):
            return nb, resources
        if note:
            nb.cells.insert(0, new_markdown_cell(note))
        return nb, resources
