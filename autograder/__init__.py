"""Instructor tooling around nbgrader: ``python -m autograder`` and test helpers."""
