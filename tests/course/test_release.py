"""release/ is what nbgrader generates from source/ (``make release``), file for file."""

import json
import shutil

from autograder.course import directory as course
from autograder.course.directory import REPO


def test_release_is_what_nbgrader_generates(tmp_path):
    scratch = tmp_path / "course"
    shutil.copytree(REPO / "source", scratch / "source")
    course.generate_release(scratch)
    for generated in sorted((scratch / "release").glob("*/*.ipynb")):
        committed = REPO / "release" / generated.relative_to(scratch / "release")
        assert committed.exists(), f"{committed} is missing: run `make release`"
        assert json.loads(committed.read_text()) == json.loads(generated.read_text()), (
            f"{committed} is out of date with source/: run `make release`"
        )
    committed = sorted(p.relative_to(REPO / "release") for p in (REPO / "release").glob("*/*.ipynb"))
    assert committed == sorted(p.relative_to(scratch / "release") for p in (scratch / "release").glob("*/*.ipynb"))
