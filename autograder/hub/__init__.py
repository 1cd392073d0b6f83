"""``hub`` and ``bench-hub``: the course on a JupyterHub on one machine, run as root.

Never imports ``autograder.grading``: the instructor grades from their own course folder.
"""
