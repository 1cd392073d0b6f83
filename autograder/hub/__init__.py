"""``hub`` and ``bench-hub``: the course on a JupyterHub on one machine, run as root.

Never imports ``autograder.grading``: the staff grade from the course folder, in the course's service.
"""
