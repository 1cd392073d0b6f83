"""``grade``: the host (``host``), and the task a pool thread or a Dask worker runs (``task``).

It starts the worker process (``autograder.worker``) within its limits (``limits``), and never
imports ``autograder.hub``.
"""
