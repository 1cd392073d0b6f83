"""The one gate to an autograded score: nbgrader's own autograde refuses to run.

nbgrader's ``autograde`` (the command, and formgrader's Autograde button, which calls it as the
account formgrader runs as) runs a submission's code and its hidden tests in one kernel with the
grader's rights: no sandbox, no examiner, no review. So a student's first cell could neutralise
every test, read ``source/`` or rewrite the gradebook. ``nbgrader_config.py`` puts ``Refuse``
first in that pipeline, so no cell of a submission runs and the error names the door that is safe,
``python -m autograder grade``, whose worker replaces the whole pipeline with its examined one.
"""
from nbconvert.preprocessors import Preprocessor

MESSAGE = ("nbgrader's own autograde is switched off for this course: it would run the submission and its "
           "hidden tests in one kernel, unsandboxed, as you. Grade with `python -m autograder grade "
           "ASSIGNMENT` (on a hub, in the course service's terminal); it goes through the sandbox and the examiner")


class Refused(RuntimeError):
    """A door to a grade that the course keeps shut."""


class Refuse(Preprocessor):
    """First in ``Autograde.autograde_preprocessors``: stops nbgrader's own autograde before any cell runs."""

    def __call__(self, nb, resources):  # whatever ``enabled`` says: nbconvert's default is off
        return self.preprocess(nb, resources)

    def preprocess(self, nb, resources):
        raise Refused(MESSAGE)
