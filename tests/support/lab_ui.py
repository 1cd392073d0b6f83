"""What the browser tests do in JupyterLab (Playwright's sync API): menus, Run All, Validate, the
Assignment List; Debian's Chromium and a free port on the loopback to run them with; and the
screenshots in docs/images/, which the tests take as they pass the steps they show (`make screenshots`)."""

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from tests.support.system_packages import require

CHROMIUM_PACKAGE = "chromium"  # Debian's; Playwright's own browser download needs the internet
REFRESHES, REFRESH_WAIT_MS = 6, 20_000  # the Assignment List, refreshed until it shows a change
# `make screenshots` sets this to a folder: each test marked `screenshots` saves there the docs' image
# of the step it shows, named as in DOC_IMAGES (the Makefile's SCREENSHOTS lists the same names).
SCREENSHOTS_ENV = "BDL_SCREENSHOTS"
DOC_IMAGES = {
    "assignment-list": "the student's Assignment List in JupyterLab, the assignment fetched",
    "validate": "Validate's answer on the student's completed notebook",
    "formgrader": "formgrader: the instructor scores and comments a derivation",
    "feedback-likely-mistake": "a student's feedback page: a failed test and its likely mistake",
    "hub-signup-approval": "the hub's /hub/authorize page: a student who signed up awaits the instructor",
}
DOC_VIEWPORT = {"width": 1280, "height": 800}  # the docs' images: small, and alike


def doc_shot(page, name):
    """Save ``page`` as the docs' image ``name`` (one of DOC_IMAGES) in $BDL_SCREENSHOTS, at DOC_VIEWPORT;
    return its path, or None when the variable is not set."""
    if name not in DOC_IMAGES:
        raise ValueError(f"no docs image {name!r}: one of {', '.join(DOC_IMAGES)}")
    folder = os.environ.get(SCREENSHOTS_ENV)
    if not folder:
        return None
    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    page.set_viewport_size(DOC_VIEWPORT)
    try:
        page.wait_for_timeout(1000)  # JupyterLab lays itself out again
        page.screenshot(path=str(path))
    finally:
        if size:
            page.set_viewport_size(size)
    return path


def chromium():
    """Debian's Chromium; the tests fail without it in CI and skip elsewhere."""
    return require(shutil.which("chromium"), CHROMIUM_PACKAGE)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop_group(process, term_wait):
    """SIGTERM to ``process``'s group, then SIGKILL if it has not gone within ``term_wait`` seconds."""
    for sig, wait in ((signal.SIGTERM, term_wait), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
            process.wait(wait)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


@contextmanager
def served_lab(jupyter, env, root, log):
    """A JupyterLab of the program ``jupyter`` serving ``root`` on a free loopback port with a random
    token, its HOME and Jupyter folders beside ``log``, a notebook opened starting no kernel: yields
    ``path -> URL`` (the token on it, which logs a page in); stopped at the end."""
    home = Path(log).parent / "lab-home"
    token, port = secrets.token_hex(16), free_port()
    folders = {"JUPYTER_CONFIG_DIR": ".jupyter", "JUPYTER_DATA_DIR": "data", "JUPYTER_RUNTIME_DIR": "runtime"}
    env = {**env, "HOME": str(home), **{name: str(home / folder) for name, folder in folders.items()}}
    command = [str(jupyter), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0"]
    command += [f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}"]
    command += ["--LabApp.notebook_starts_kernel=False"]  # what it shows needs none, and a kernel costs seconds
    command += ["--allow-root"] if os.geteuid() == 0 else []
    url = f"http://127.0.0.1:{port}"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None and time.monotonic() < deadline, Path(log).read_text()[-3000:]
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5).close()
                break
            except OSError:
                time.sleep(0.25)
        yield lambda path="lab": f"{url}/{path}?token={token}"
    finally:
        stop_server(process)


# nbgrader's items in JupyterLab's Nbgrader menu, each from a plugin of its own (jupyter_extensions)
NBGRADER_MENU = {
    "assignment-list": "Assignment List",
    "course-list": "Course List",
    "formgrader": "Formgrader",
    "create-assignment": "Create assignment",  # nbgrader spells it so
}


def nbgrader_in_lab(page):
    """What the JupyterLab open in ``page`` gives of nbgrader: {"disabled": the nbgrader plugins of the
    page's own disabledExtensions, "menu": the items the Nbgrader menu shows}."""
    page.locator(".jp-LabShell").wait_for()
    config = page.evaluate("JSON.parse(document.getElementById('jupyter-config-data').textContent)")
    page.locator("#jp-menu-panel").get_by_text("Nbgrader", exact=True).click()
    items = page.locator("#jp-mainmenu-nbgrader").get_by_role("menuitem")
    items.first.wait_for()
    shown = [text.strip() for text in items.all_inner_texts()]
    page.keyboard.press("Escape")
    return {
        "disabled": sorted(name for name in config["disabledExtensions"] if name.startswith("@jupyter/nbgrader:")),
        "menu": sorted(label for label in NBGRADER_MENU.values() if any(text.startswith(label) for text in shown)),
    }


def stop_server(process, term_wait=20):
    """SIGTERM to a Jupyter server's group (it shuts its kernels down), then kill whatever is left of its
    family: kernels run in sessions of their own."""
    try:
        family = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        family = []
    stop_group(process, term_wait)
    for child in family:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass


def menu(page, *path):
    for label in path:
        page.get_by_role("menuitem", name=re.compile(f"^{re.escape(label)}")).first.click()


def current_notebook(page):
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")


def run_all(page, shot):
    """Run every cell, as Run > Run All Cells does; wait until the kernel is done."""
    notebook = current_notebook(page)
    # Clicking into the notebook makes it the current widget, which the status bar and the
    # Run menu follow (an earlier notebook, still open behind it, may have been current).
    notebook.locator(".jp-Cell").first.click()
    # The status bar names the kernel once it is connected (the toolbar says idle before that).
    page.locator("#jp-main-statusbar").get_by_text(re.compile(r"\(ipykernel\) \| Idle")).wait_for()
    # Cells waiting or running show [*], cells run show [n]; a failed cell stops the rest,
    # which go back to [ ].
    prompts = (
        "[...document.querySelectorAll("
        "'.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')]"
        ".map(p => p.textContent.trim())"
    )
    # CI once saw Run All start no cell on a busy machine: choose it again, once, if no
    # cell has started a minute later.
    for attempt in (1, 2):
        page.keyboard.press("Escape")  # closes a menu left open
        notebook.locator(".jp-Cell").first.click()
        menu(page, "Run", "Run All Cells")
        try:
            page.wait_for_function(f"() => {prompts}.some(p => p !== '[ ]:')", timeout=60_000)
            break
        except Exception:
            shot(page, f"run_all_not_started_{attempt}")
    else:
        raise AssertionError("Run All Cells started no cell, twice")
    try:
        page.wait_for_function(f"() => !{prompts}.includes('[*]:')")
    except Exception:
        shot(page, "run_all_timed_out")
        raise AssertionError(f"Run All did not finish; the prompts: {page.evaluate(prompts)}") from None
    return notebook


def validate(page):
    """Press the notebook's Validate button; return the text of nbgrader's answer."""
    current_notebook(page).locator("jp-button[title='Validate Assignment']").click()
    dialog = page.locator(".jp-Dialog")
    dialog.get_by_text(re.compile(r"The following cell failed|Success!|There was an error")).first.wait_for()
    return dialog


def close_dialog(page):
    page.locator(".jp-Dialog").get_by_role("button", name="Ok").click()


def assignment_list(page, base_url, shows=None):
    """Open the Assignment List and refresh it. With ``shows`` (panel -> locator), refresh
    until that appears: on a busy machine a refresh clicked while the list loads is lost."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    if not page.url.startswith(f"{base_url}/lab"):
        page.goto(f"{base_url}/lab")
    menu(page, "Nbgrader", "Assignment List")
    panel = page.locator("#nbgrader-assignment-list")
    for _ in range(REFRESHES):
        panel.locator("#refresh_assignments_list").click()
        if shows is None:
            return panel
        try:
            shows(panel).wait_for(timeout=REFRESH_WAIT_MS)
            return panel
        except PlaywrightTimeout:
            continue
    shows(panel).wait_for()  # the full timeout, then Playwright's own message
    return panel


class Flow:
    """The steps of one browser flow: which passed (a step needs the ones before it), their times
    (printed, and written to ARTIFACTS/times.txt) and the screenshots, numbered in order."""

    def __init__(self, artifacts, name):
        self.artifacts, self.name, self.done, self.times = artifacts, name, set(), {}

    def needs(self, step):
        if step not in self.done:
            pytest.skip(f"needs the step {step!r}, which did not pass")

    @contextmanager
    def timed(self, step):
        start = time.perf_counter()
        yield
        self.times[step] = seconds = time.perf_counter() - start
        print(f"{self.name}: {step}: {seconds:.1f} s")
        self.artifacts.mkdir(parents=True, exist_ok=True)
        (self.artifacts / "times.txt").write_text(
            "".join(f"{name}: {value:.1f} s\n" for name, value in self.times.items())
        )

    @contextmanager
    def started(self, step, make):
        """The server ``make()`` returns, up (within ``step``'s time); stopped at the end, or at once if it
        never came up."""
        with self.timed(step):
            server = make()
            try:
                server.wait_until_up()
            except BaseException:
                server.stop()
                raise
        try:
            yield server
        finally:
            server.stop()

    def shot(self, page, name, doc=None):
        """Save a numbered screenshot in the artifacts; with ``doc``, also the docs' image of that name
        (``doc_shot``)."""
        page.screenshot(path=str(self.artifacts / f"{len(list(self.artifacts.glob('*.png'))) + 1:02d}_{name}.png"))
        if doc:
            doc_shot(page, doc)

    @contextmanager
    def chromium(self):
        """Debian's Chromium under Playwright, with an empty artifacts folder."""
        executable = chromium()
        from playwright.sync_api import sync_playwright

        shutil.rmtree(self.artifacts, ignore_errors=True)
        self.artifacts.mkdir(parents=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable)
            yield browser
            browser.close()
