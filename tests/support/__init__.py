"""The tests' helpers: courses to grade (tiny, small), the red team and the bad submissions, a
PostgreSQL server, a systemd machine, Chromium's JupyterLab pages, and the scans of what a student
may read. Imported as ``tests.support.<module>``."""
