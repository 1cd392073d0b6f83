"""docs/images/ comes from the browser tests, not from hand: `make screenshots` runs the tests marked
`screenshots` with BDL_SCREENSHOTS set, and each saves the image of the step it shows (lab_ui.doc_shot).
These tests take no browser: a stand-in page records what would be saved."""

import re
import struct
import subprocess
from pathlib import Path

import pytest

from autograder.course.directory import REPO
from tests.support import lab_ui

IMAGES = REPO / "docs" / "images"
MAX_BYTES = 300 * 1024


class Page:
    """What doc_shot and Flow.shot use of a Playwright page."""

    def __init__(self):
        self.viewport_size = {"width": 1400, "height": 900}
        self.shots = []

    def set_viewport_size(self, size):
        self.viewport_size = dict(size)

    def wait_for_timeout(self, ms):
        pass

    def screenshot(self, path):
        self.shots.append((Path(path), dict(self.viewport_size)))
        Path(path).write_bytes(b"png")


def test_nothing_is_saved_without_the_variable(monkeypatch):
    monkeypatch.delenv(lab_ui.SCREENSHOTS_ENV, raising=False)
    page = Page()
    assert lab_ui.doc_shot(page, "validate") is None and page.shots == []


def test_the_named_image_is_saved_at_the_docs_size_and_the_page_keeps_its_own(monkeypatch, tmp_path):
    monkeypatch.setenv(lab_ui.SCREENSHOTS_ENV, str(tmp_path / "shots"))
    page = Page()
    assert lab_ui.doc_shot(page, "formgrader") == tmp_path / "shots" / "formgrader.png"
    assert page.shots == [(tmp_path / "shots" / "formgrader.png", lab_ui.DOC_VIEWPORT)]
    assert page.viewport_size == {"width": 1400, "height": 900}
    with pytest.raises(ValueError, match="no docs image 'formgrader.png'"):
        lab_ui.doc_shot(page, "formgrader.png")


def test_a_flow_step_saves_its_artifact_and_its_docs_image(monkeypatch, tmp_path):
    monkeypatch.setenv(lab_ui.SCREENSHOTS_ENV, str(tmp_path / "shots"))
    flow, page = lab_ui.Flow(tmp_path / "artifacts", "flow"), Page()
    (tmp_path / "artifacts").mkdir()
    flow.shot(page, "first")
    flow.shot(page, "validated", doc="validate")
    assert [path.relative_to(tmp_path).as_posix() for path, _ in page.shots] == [
        "artifacts/01_first.png",
        "artifacts/02_validated.png",
        "shots/validate.png",
    ]


def _makefile_list(name):
    return re.search(rf"^{name} := (.+)$", (REPO / "Makefile").read_text(), re.MULTILINE).group(1).split()


def _taken_by():
    """{docs image: [test modules that take it]}, from the tests' source."""
    taken = {}
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        if path.resolve() == Path(__file__).resolve():
            continue
        for name in re.findall(r"""(?:doc=|doc_shot\(\w+, )["']([\w-]+)["']""", path.read_text()):
            taken.setdefault(name, []).append(path)
    return taken


def test_each_image_of_the_make_target_is_taken_by_one_test_marked_screenshots():
    assert _makefile_list("SCREENSHOTS") == list(lab_ui.DOC_IMAGES)
    taken = _taken_by()
    assert sorted(taken) == sorted(lab_ui.DOC_IMAGES)
    for name, paths in taken.items():
        assert len(paths) == 1, f"{name} is taken by {paths}"
        assert "pytest.mark.screenshots" in paths[0].read_text(), f"{paths[0]} takes {name} unmarked"


def test_make_screenshots_runs_the_marked_tests_with_the_variable_set():
    dry = subprocess.run(["make", "-n", "screenshots"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    [pytest_line] = [line for line in dry.stdout.splitlines() if "-m pytest" in line]
    assert "-m screenshots" in pytest_line and f"{lab_ui.SCREENSHOTS_ENV}=" in pytest_line


def _png_size(path):
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


@pytest.mark.parametrize("name", list(lab_ui.DOC_IMAGES))
def test_the_committed_images_are_small_pngs_of_the_docs_size(name):
    path = IMAGES / f"{name}.png"
    assert path.exists(), f"{path} is missing: run `make screenshots`"
    assert _png_size(path) == (lab_ui.DOC_VIEWPORT["width"], lab_ui.DOC_VIEWPORT["height"])
    assert path.stat().st_size < MAX_BYTES, f"{path} is {path.stat().st_size} bytes"
