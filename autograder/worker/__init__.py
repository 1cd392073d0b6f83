"""The grading worker process (``python -m autograder.worker``), its job contract, its sandbox and
seal, and the guard that runs inside the student's kernel.

Never imports ``grading``, ``outputs`` or ``hub``: it is started by them. This file imports nothing,
because the guard's kernel imports ``autograder.worker.guard`` through it.
"""
