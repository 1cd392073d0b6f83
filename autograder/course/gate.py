"""The one gate to an autograded score: nbgrader's own autograde refuses to run.

nbgrader's ``autograde`` (the command, and formgrader's Autograde button, which calls it as the
account formgrader runs as) runs a submission's code and its hidden tests in one kernel with the
grader's rights: no sandbox, no examiner, no review. So a student's first cell could neutralise
every test, read ``source/`` or rewrite the gradebook. ``nbgrader_config.py`` makes ``Refusing`` its
exporter. nbgrader makes the exporter before it touches anything, so the refusal comes before the
earlier autograded copy is removed (``--force``, and the button always forces), before the gradebook
is written and before any cell runs; its one line names the door that is safe,
``python -m autograder grade``, whose worker puts nbgrader's own exporter back.
"""

from nbconvert.exporters import NotebookExporter
from nbgrader.converters.base import NbGraderException

MESSAGE = (
    "nbgrader's own autograde is switched off for this course: it would run the submission and its "
    "hidden tests in one kernel, unsandboxed, as you. Grade with `python -m autograder grade "
    "ASSIGNMENT` (on a hub, in the course service's terminal); it goes through the sandbox and the examiner"
)


class Refused(NbGraderException):
    """A door to a grade that the course keeps shut (nbgrader's apps exit with status 1 on it)."""


class Refusing(NotebookExporter):
    """``Autograde.exporter_class`` in the course's config: made once per run, before anything else."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log.error(MESSAGE)  # the command's one line: nbgrader's app exits quietly on its own exceptions
        raise Refused(MESSAGE)
