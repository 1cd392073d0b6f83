"""A feedback page typesets its math offline: MathJax from the student's own Jupyter server.

The page is rendered with the course's feedback template (nbgrader's, with
``autograder/outputs/templates/feedback/mathjax.html.j2``), served by a real Jupyter
server on 127.0.0.1 under a JupyterHub-like base URL, and opened in Debian's
Chromium (Playwright): the formulas are typeset, and no script comes from the
internet. Opened from disk, the page says in one line that it cannot typeset.
A graded submission's page, opened in JupyterLab as its student does, shows a
failed test's likely mistake (and is the docs' screenshot of one).
"""

import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from nbconvert import HTMLExporter

from autograder.checktests import load_variants
from autograder.course.cells import graded_cells
from autograder.course.directory import REPO, generate_release, load_config
from autograder.course.gradebook import gradebook_url
from autograder.grading.host import grade
from autograder.outputs.feedback import write_feedback
from autograder.worker import bwrap
from bdl.diagnoses import PREFIX, all_tables
from tests.support.lab_ui import chromium, doc_shot, free_port

pytestmark = [pytest.mark.slow, pytest.mark.browser]

BASE_URL = "/user/alice/"
NBGRADER_CSS = (
    Path(__import__("nbgrader").__file__).parent
    / "server_extensions"
    / "formgrader"
    / "static"
    / "node_modules"
    / "bootstrap"
    / "dist"
    / "css"
)


def feedback_page(folder):
    """A feedback page with a formula, rendered as ``autograder feedback`` renders one."""
    config = load_config(REPO)
    config.HTMLExporter.template_name = "feedback"
    config.HTMLExporter.extra_template_paths = [str(NBGRADER_CSS)]
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(
                "The Gaussian NLL is $\\tfrac12\\log(2\\pi) + \\log\\sigma$, and\n\n$$\\mathrm{KL}(q \\,\\|\\, p) \\ge 0.$$"
            )
        ]
    )
    body, _ = HTMLExporter(config=config).from_notebook_node(
        nb, resources={"nbgrader": {"notebook": "likelihoods", "score": 1, "max_score": 2, "late_penalty": 0}}
    )
    path = folder / "01_likelihoods" / "feedback" / "2026-11-25 10:00:00.000000 UTC" / "likelihoods.html"
    path.parent.mkdir(parents=True)
    path.write_text(body)
    return path


def test_the_page_loads_no_script_from_the_internet(tmp_path):
    page = feedback_page(tmp_path).read_text()
    sources = re.findall(r"<script[^>]*\bsrc=[\"']([^\"']+)", page)
    assert not [src for src in sources if re.match(r"(https?:)?//", src)], sources
    for cdn in ("cdnjs", "mathjax.org", "jsdelivr", "unpkg"):
        assert cdn not in page
    assert "/static/jupyter_server_mathjax/MathJax.js" in page


@pytest.fixture
def server(tmp_path):
    """The student's JupyterLab under a hub user's base URL, serving ``tmp_path/home``."""
    home = tmp_path / "home"
    home.mkdir()
    settings = tmp_path / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)  # no "get notified about Jupyter news?" over the page
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    port, token = free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.base_url={BASE_URL}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={home}",
    ] + (["--allow-root"] if os.geteuid() == 0 else [])
    log = tmp_path / "server.log"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "HOME": str(tmp_path)}
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}{BASE_URL}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}api/status?token={token}", timeout=5)
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(0.25)
        yield home, url, token
    finally:
        process.terminate()
        process.wait(20)


def test_the_students_server_typesets_it_under_a_hub_base_url(server, tmp_path):
    executable = chromium()
    from playwright.sync_api import sync_playwright

    home, url, token = server
    page_path = feedback_page(home)
    relative = page_path.relative_to(home).as_posix()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            context = browser.new_context()
            requested = []
            context.on("request", lambda request: requested.append(request.url))
            page = context.new_page()
            page.goto(f"{url}files/{urllib.request.quote(relative)}?token={token}")
            page.locator(".MathJax, .MathJax_Display, .MathJax_Preview + .MathJax").first.wait_for(timeout=60_000)
            assert page.locator("#mathjax-unavailable").count() == 0
            assert any(f"{BASE_URL}static/jupyter_server_mathjax/MathJax.js" in address for address in requested)
            assert all(address.startswith(("http://127.0.0.1", "data:", "blob:", "about:")) for address in requested), [
                address for address in requested if not address.startswith("http://127.0.0.1")
            ]
            artifacts = REPO / "test-artifacts"
            artifacts.mkdir(exist_ok=True)
            page.screenshot(path=str(artifacts / "feedback_math_typeset.png"))

            offline = context.new_page()
            offline.goto(page_path.as_uri())
            offline.locator("#mathjax-unavailable").wait_for(timeout=30_000)
            assert "open the page from JupyterLab" in offline.locator("#mathjax-unavailable").inner_text()
        finally:
            browser.close()
    shutil.rmtree(home / "01_likelihoods")


def _line(frame):
    """The line the page shows above itself when its formulas cannot be typeset ("none": no line)."""
    return frame.evaluate("getComputedStyle(document.body, '::before').content")


def test_jupyterlabs_viewer_says_why_until_trusted_then_typesets(server):
    """ "(view feedback)", then the file: JupyterLab's HTML viewer runs none of the page's scripts
    until the student presses Trust HTML, so a line says why the formulas are LaTeX; trusted,
    they are typeset (the viewer shows the page from a blob: URL under a <base> in files/)."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    home, url, token = server
    relative = feedback_page(home).relative_to(home).as_posix()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            context = browser.new_context()
            context.set_default_timeout(120_000)
            assert context.request.get(f"{url}api/status?token={token}").ok  # the login cookie
            page = context.new_page()
            page.goto(f"{url}lab/tree/{urllib.request.quote(relative)}")
            viewer = page.frame_locator(".jp-HTMLViewer iframe")
            viewer.get_by_text("The Gaussian NLL").wait_for()
            frame = next(frame for frame in page.frames if frame.url.startswith("blob:"))
            assert "Trust HTML" in _line(frame)
            page.get_by_role("button", name="Trust HTML").click()
            viewer.locator(".MathJax").first.wait_for()
            frame = next(frame for frame in page.frames if frame.url.startswith("blob:"))
            assert _line(frame) == "none"
        finally:
            browser.close()


ASSIGNMENT, NOTEBOOK = "01_likelihoods", "likelihoods"
FUNCTION, MUTANT = "gaussian_nll", "missing log(2 pi)"  # a wrong answer with a likely mistake to name
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def _short_01(source):
    """01 up to FUNCTION's tests, without the derivations (hand-graded), so that grading it takes seconds."""
    cells = source.cells[
        : next(
            i
            for i, cell in enumerate(source.cells)
            if cell.metadata.get("nbgrader", {}).get("grade_id") == f"{FUNCTION}_tests"
        )
        + 1
    ]
    start = next(i for i, cell in enumerate(cells) if cell.source.startswith("## 2."))
    end = next(i for i, cell in enumerate(cells) if cell.source.startswith("## 3."))
    source.cells = cells[:start] + cells[end:]
    assert not [
        cell for cell in source.cells if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("grade")
    ], "no hand-graded cell left"
    return source


def known_mistake_feedback(work):
    """The feedback page of a student whose FUNCTION makes MUTANT's mistake (every other answer the
    reference's), made as for a class: nbgrader's release of 01 cut short (``_short_01``), ``grade``
    (sandboxed where bubblewrap is) and ``feedback``. Return (its path, the grading rows)."""
    course = work / "course"
    source = _short_01(nbformat.read(REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", 4))
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    nbformat.write(source, course / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
    generate_release(course, only=[ASSIGNMENT])
    answers = graded_cells(source)
    [(old, new)] = [(old, new) for name, old, new in load_variants(ASSIGNMENT)["mutants"][FUNCTION] if name == MUTANT]
    submission = nbformat.read(course / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", 4)
    for cell in submission.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            code = "\n".join(
                line for line in answers[grade_id].source.split("\n") if line.strip() not in SOLUTION_MARKERS
            )
            assert grade_id != FUNCTION or code.count(old) == 1
            cell.source = code.replace(old, new) if grade_id == FUNCTION else code
    path = work / "incoming" / "alice" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(submission, path)
    rows = grade(ASSIGNMENT, [work / "incoming"], root=course, generate=False, workers=1, sandbox=bool(bwrap.bwrap()))
    written, problems = write_feedback(course, ASSIGNMENT, gradebook_url(None, course))
    assert not problems and len(written) == 1, problems
    return Path(written[0]), rows


@pytest.mark.screenshots
def test_a_failed_tests_likely_mistake_shows_on_the_students_feedback_page(server, tmp_path):
    """Graded, fed back and fetched: in JupyterLab's viewer the failed test shows its own line and,
    under it, the likely mistake; the passed one its points; no hidden test."""
    home, url, token = server
    page_path, rows = known_mistake_feedback(tmp_path / "work")
    points = {
        cell_id: cell.metadata.nbgrader["points"]
        for cell_id, cell in graded_cells(
            _short_01(nbformat.read(REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", 4))
        ).items()
        if cell_id.endswith("_tests")
    }
    [row] = rows
    assert row["status"].startswith("graded"), row
    assert row["score"] == sum(points.values()) - points[f"{FUNCTION}_tests"] and row["score"] > 0, row
    # where the student's fetch_feedback puts it
    fetched = home / ASSIGNMENT / "feedback" / "2026-11-25 10:00:00.000000 UTC" / f"{NOTEBOOK}.html"
    fetched.parent.mkdir(parents=True)
    shutil.copyfile(page_path, fetched)
    sentence = next(m.sentence for m in all_tables()[FUNCTION].mistakes if m.name == "missing_constant")
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.set_default_timeout(120_000)
            assert context.request.get(f"{url}api/status?token={token}").ok  # the login cookie
            page = context.new_page()
            page.goto(f"{url}lab/tree/{urllib.request.quote(fetched.relative_to(home).as_posix())}")
            viewer = page.frame_locator(".jp-HTMLViewer iframe")
            note = viewer.get_by_text(PREFIX + sentence)
            note.wait_for()
            page.get_by_role("button", name="Trust HTML").click()
            viewer.locator(".MathJax").first.wait_for()
            text = viewer.locator("body").inner_text()
            assert f"Grade cell: {FUNCTION}_tests" in text
            failed = viewer.locator(".nbgrader_cell", has_text=f"{FUNCTION}_tests")
            assert f"Score: 0.0 / {points[FUNCTION + '_tests']:.1f}" in failed.inner_text()
            assert "does not match the expected values" in text and "BEGIN HIDDEN TESTS" not in text
            # the page as wide as JupyterLab lets it be, the failed test in the middle
            page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").click()
            viewer.locator(".output_area", has_text=PREFIX).evaluate("area => area.scrollIntoView({block: 'center'})")
            page.wait_for_timeout(500)
            artifacts = REPO / "test-artifacts"
            artifacts.mkdir(exist_ok=True)
            page.screenshot(path=str(artifacts / "feedback_likely_mistake.png"))
            doc_shot(page, "feedback-likely-mistake")
        finally:
            browser.close()
