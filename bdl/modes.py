"""Run modes: how big a notebook's experiments are.

* ``full`` (default): what students run, matching the original experiments;
* ``fast`` (``BDL_FAST=1``): a quick check that every cell still runs;
* ``grading``: nbgrader sets ``NBGRADER_EXECUTION`` while it validates or
  autogrades, so grading one submission takes seconds, not minutes.
"""

import os


def run_mode():
    """Return ``"grading"``, ``"fast"`` or ``"full"`` from the environment."""
    if os.environ.get("NBGRADER_EXECUTION"):
        return "grading"
    if os.environ.get("BDL_FAST", "").strip() not in ("", "0"):
        return "fast"
    return "full"


def choose(full, fast, grading):
    """Return the value given for the current run mode."""
    return {"full": full, "fast": fast, "grading": grading}[run_mode()]
