"""A feedback page typesets its math offline: MathJax from the student's own Jupyter server.

The page is rendered with the course's feedback template (nbgrader's, with
``autograder/templates/feedback/mathjax.html.j2``), served by a real Jupyter
server on 127.0.0.1 under a JupyterHub-like base URL, and opened in Debian's
Chromium (Playwright): the formulas are typeset, and no script comes from the
internet. Opened from disk, the page says in one line that it cannot typeset.
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

from autograder.course import REPO, load_config
from lab_ui import chromium, free_port

pytestmark = [pytest.mark.slow, pytest.mark.browser]

BASE_URL = "/user/alice/"
NBGRADER_CSS = Path(__import__("nbgrader").__file__).parent / "server_extensions" / "formgrader" / "static" / \
    "node_modules" / "bootstrap" / "dist" / "css"


def feedback_page(folder):
    """A feedback page with a formula, rendered as ``autograder feedback`` renders one."""
    config = load_config(REPO)
    config.HTMLExporter.template_name = "feedback"
    config.HTMLExporter.extra_template_paths = [str(NBGRADER_CSS)]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "The Gaussian NLL is $\\tfrac12\\log(2\\pi) + \\log\\sigma$, and\n\n$$\\mathrm{KL}(q \\,\\|\\, p) \\ge 0.$$")])
    body, _ = HTMLExporter(config=config).from_notebook_node(
        nb, resources={"nbgrader": {"notebook": "likelihoods", "score": 1, "max_score": 2, "late_penalty": 0}})
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
    port, token = free_port(), secrets.token_hex(16)
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               "--ServerApp.port_retries=0", f"--ServerApp.base_url={BASE_URL}", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={home}"] + (["--allow-root"] if os.geteuid() == 0 else [])
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
            assert all(address.startswith(("http://127.0.0.1", "data:", "blob:", "about:")) for address in requested), \
                [address for address in requested if not address.startswith("http://127.0.0.1")]
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
    """"(view feedback)", then the file: JupyterLab's HTML viewer runs none of the page's scripts
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
