"""Metadata repair: a submission's graded cells get back the release's grading metadata (ids,
points), and a copied graded cell becomes an ordinary one. No kernel."""

import json

from autograder.grading.repair import repair_notebook
from tests.support.small_course import RELEASE, SOURCE


def _nbgrader(nb, grade_id):
    return next(cell for cell in nb["cells"] if cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)


def test_repair_restores_edited_grading_metadata():
    release = json.loads(RELEASE.read_text())
    nb = json.loads(SOURCE.read_text())
    tests = _nbgrader(nb, "brier_score_tests")
    tests["metadata"]["nbgrader"]["grade_id"] = "mine"
    _nbgrader(nb, "gaussian_nll_tests")["metadata"]["nbgrader"]["points"] = 99
    copied = json.loads(json.dumps(tests))
    copied["id"] = "a-copy"
    nb["cells"].append(copied)
    text, repaired = repair_notebook(json.dumps(nb), release)
    assert repaired == 3
    fixed = json.loads(text)
    assert _nbgrader(fixed, "brier_score_tests")["metadata"]["nbgrader"]["points"] == 2
    assert _nbgrader(fixed, "gaussian_nll_tests")["metadata"]["nbgrader"]["points"] == 2
    assert "nbgrader" not in fixed["cells"][-1]["metadata"], "a copied graded cell becomes an ordinary one"


def test_repair_leaves_good_and_broken_notebooks_alone():
    release = json.loads(RELEASE.read_text())
    assert repair_notebook(RELEASE.read_text(), release)[1] == 0
    assert repair_notebook("{not json", release) == ("{not json", 0)
