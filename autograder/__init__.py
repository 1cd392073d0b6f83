"""The instructor's tooling around nbgrader: ``python -m autograder`` (see ARCHITECTURE.md).

Students never import it; what their notebooks' tests import is ``bdl.checks``.
"""
