"""The ground floor: the course directory and its records (cells, rubrics, the gradebook, statuses).

Imports nothing of ``autograder`` above it; every other subpackage may import it.
"""
