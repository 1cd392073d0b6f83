"""The examiner: the process of the grader's own that runs every test cell and decides its verdict,
never the student's kernel. ``protocol`` is what it and the worker's relay say to each other,
``examine`` runs one cell, ``verdict`` holds its words, ``pool`` its processes (one per grading
slot), ``relay`` the worker's side, and ``__main__`` the process. The question path, end to end,
is drawn in ARCHITECTURE.md.
"""
