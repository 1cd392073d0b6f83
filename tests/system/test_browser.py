"""The class flow in JupyterLab, in a real browser, as the README's instructor section tells it.

Python Playwright drives Debian's Chromium (headless) against a JupyterLab
this module starts on 127.0.0.1 (random port and token) in a temporary copy
of the course, with the course's own nbgrader_config.py and so its default
exchange, `exchange/` in the course directory. HOME and the Jupyter folders
are temporary too. The steps run in order, one test each, and each saves
screenshots to test-artifacts/browser/ and prints its times (also written to
test-artifacts/browser/times.txt).

The student's kernel runs in fast mode (BDL_FAST=1) so that running every
cell takes seconds, not a minute; Validate and grading run in grading mode
as always (nbgrader sets NBGRADER_EXECUTION).
"""

import json
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
from nbgrader.api import Gradebook
from nbgrader.utils import get_username

from autograder.course.cells import answered, graded_cells
from autograder.course.directory import REPO
from tests.support.lab_ui import Flow, assignment_list, close_dialog, free_port, run_all, stop_server, validate

# it grades; and it takes docs/images' Assignment List, Validate and formgrader (`make screenshots`)
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.screenshots, pytest.mark.usefixtures("bubblewrap")]

ASSIGNMENT, NOTEBOOK = "01_likelihoods", "likelihoods"
SOURCE = REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
DERIVATION = "derivation_gaussian"  # the manually graded cell the instructor scores
ARTIFACTS = REPO / "test-artifacts" / "browser"
FLOW = Flow(ARTIFACTS, "browser flow")
needs, timed, shot, DONE = FLOW.needs, FLOW.timed, FLOW.shot, FLOW.done
BIN = Path(sys.executable).parent
TIMEOUT_MS = 180_000  # the longest wait for one thing in the browser (Validate on a busy machine)

STUDENT = get_username()  # nbgrader's exchange records who runs the lab


class Lab:
    """A JupyterLab server in its own process group, and the course it serves."""

    def __init__(self, base):
        self.course, home = base / "course", base / "home"
        self.course.mkdir()
        for name in ("source", "release"):
            shutil.copytree(REPO / name, self.course / name)
        shutil.copy(REPO / "nbgrader_config.py", self.course)
        settings = home / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True)  # no "get notified about Jupyter news?" over the screenshots
        (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
        self.env = {
            name: value
            for name, value in os.environ.items()
            if name not in ("BDL_EXCHANGE", "NBGRADER_EXECUTION", "BDL_FAST")
        }
        self.env.update(
            HOME=str(home),
            JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
            JUPYTER_DATA_DIR=str(home / ".local" / "share" / "jupyter"),
            JUPYTER_RUNTIME_DIR=str(home / ".local" / "share" / "jupyter" / "runtime"),
            IPYTHONDIR=str(home / ".ipython"),
            JUPYTERLAB_SETTINGS_DIR=str(home / ".jupyter" / "lab" / "user-settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(home / ".jupyter" / "lab" / "workspaces"),
            PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]),
            # this checkout's bdl and autograder, whatever the venv's editable install points at
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
            BDL_DATA_DIR=os.environ.get("BDL_DATA_DIR") or str(REPO / "data"),
        )
        self.token, port = secrets.token_hex(16), free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.log = base / "jupyterlab.log"
        command = [
            str(BIN / "jupyter"),
            "lab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.course}",
        ]
        if os.geteuid() == 0:
            command.append("--allow-root")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                command,
                cwd=self.course,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env={**self.env, "BDL_FAST": "1"},
            )

    def api(self, path, method="GET"):
        request = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def wait_until_up(self, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"JupyterLab exited ({self.process.returncode}):\n{self.log.read_text()[-3000:]}")
            try:
                self.api("/api/status")
                return
            except OSError:
                time.sleep(0.25)
        pytest.fail(f"JupyterLab did not answer in {timeout} s:\n{self.log.read_text()[-3000:]}")

    def shutdown_kernels(self):
        """Stop the notebooks' kernels: the next step's Validate or grading gets the cores."""
        for kernel in self.api("/api/kernels"):
            self.api(f"/api/kernels/{kernel['id']}", method="DELETE")

    def stop(self):
        stop_server(self.process)

    def run(self, *command, timeout=900):
        """Run an instructor's command in the course directory; return its output."""
        result = subprocess.run(
            command,
            cwd=self.course,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 0, f"{command}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        return result.stdout + result.stderr


@pytest.fixture(scope="module")
def browser():
    with FLOW.chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory):
    with FLOW.started("JupyterLab start", lambda: Lab(tmp_path_factory.mktemp("browser"))) as server:
        yield server


@pytest.fixture(scope="module")
def context(browser, lab):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    # Log in once: the server answers with a login cookie, which the context's pages share.
    assert context.request.get(f"{lab.url}/api/status?token={lab.token}").ok
    yield context
    context.close()


@pytest.fixture(scope="module")
def student(context):
    """The student's JupyterLab tab."""
    return context.new_page()


@pytest.fixture(scope="module")
def instructor(context, lab):
    """The instructor's tab, for formgrader (the same login as the student's: one server)."""
    return context.new_page()


def complete(path):
    """Fill in the student's notebook with the reference answers: code and derivations, without the
    source's markers and the rubric under a model answer, which no student has (``answered``)."""
    answers = graded_cells(answered(nbformat.read(SOURCE, 4)))
    nb = nbformat.read(path, 4)
    for cell in nb.cells:
        grading = cell.metadata.get("nbgrader", {})
        if grading.get("solution"):
            cell.source = answers[grading["grade_id"]].source
    nbformat.write(nb, path)


def test_the_blank_release_fails_validate(lab, student):
    # A copy: `grade` regenerates release/, and a file browser left in a folder that is
    # gone for a moment shows a "Directory not found" dialog over the later steps.
    blank = lab.course / "blank" / f"{NOTEBOOK}.ipynb"
    blank.parent.mkdir()
    shutil.copyfile(lab.course / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", blank)
    student.goto(f"{lab.url}/lab/tree/blank/{NOTEBOOK}.ipynb")
    with timed("student: run all cells, blank notebook"):
        notebook = run_all(student, shot)
    assert notebook.locator(".jp-OutputArea-output", has_text="NotImplementedError").count() > 0
    shot(student, "blank_run_all")
    with timed("student: Validate, blank notebook"):
        dialog = validate(student)
    shot(student, "blank_validate")
    assert "The following cell failed" in dialog.inner_text()
    assert "NotImplementedError" in dialog.inner_text()
    close_dialog(student)
    lab.shutdown_kernels()
    DONE.add("validate blank")


def test_the_student_fetches_the_released_assignment(lab, student):
    with timed("instructor: nbgrader release_assignment"):
        lab.run(str(BIN / "nbgrader"), "release_assignment", ASSIGNMENT)
    panel = assignment_list(
        student,
        lab.url,
        shows=lambda panel: panel.locator("#released_assignments_list .list_item", has_text=ASSIGNMENT).get_by_role(
            "button", name="Fetch"
        ),
    )
    assert "Error fetching courses" not in panel.inner_text()
    released = panel.locator("#released_assignments_list .list_item", has_text=ASSIGNMENT)
    shot(student, "assignment_list_released")
    with timed("student: fetch"):
        released.get_by_role("button", name="Fetch").click()
        panel.locator("#fetched_assignments_list > .list_item", has_text=ASSIGNMENT).get_by_role(
            "button", name="Submit"
        ).wait_for()
    shot(student, "assignment_list_fetched", doc="assignment-list")
    assert (lab.course / ASSIGNMENT / f"{NOTEBOOK}.ipynb").exists()
    DONE.add("fetch")


def test_the_completed_notebook_passes_validate(lab, student):
    needs("fetch")
    complete(lab.course / ASSIGNMENT / f"{NOTEBOOK}.ipynb")  # the student's work
    panel = assignment_list(student, lab.url)
    fetched = panel.locator("#fetched_assignments_list > .list_item", has_text=ASSIGNMENT)
    fetched.get_by_role("button", name=ASSIGNMENT).click()
    fetched.get_by_role("link", name=NOTEBOOK, exact=True).click()
    with timed("student: run all cells, completed notebook (fast mode)"):
        notebook = run_all(student, shot)
    assert (
        notebook.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']", has_text="Error"
        ).count()
        == 0
    )
    with timed("student: Validate, completed notebook"):
        dialog = validate(student)
    shot(student, "completed_validate", doc="validate")
    assert "Success! Your notebook passes all the tests." in dialog.inner_text()
    close_dialog(student)
    lab.shutdown_kernels()
    DONE.add("validate completed")


def test_the_student_submits(lab, student):
    needs("validate completed")
    panel = assignment_list(student, lab.url)
    with timed("student: submit"):
        panel.locator("#fetched_assignments_list > .list_item", has_text=ASSIGNMENT).get_by_role(
            "button", name="Submit"
        ).click()
        panel.locator("#submitted_assignments_list > .list_item", has_text=ASSIGNMENT).wait_for()
    shot(student, "assignment_list_submitted")
    assert list((lab.course / "exchange" / "bdl" / "inbound").glob(f"{STUDENT}+{ASSIGNMENT}+*"))
    DONE.add("submit")


def saved(response, kind):
    """Whether ``response`` answers formgrader's PUT of a grade or a comment."""
    return response.request.method == "PUT" and f"/api/{kind}/" in response.url


def test_the_instructor_grades_by_hand_in_formgrader(lab, instructor):
    needs("submit")
    with timed("instructor: nbgrader collect"):
        lab.run(str(BIN / "nbgrader"), "collect", ASSIGNMENT)
    with timed("instructor: python -m autograder grade"):
        out = lab.run(
            sys.executable,
            "-m",
            "autograder",
            "grade",
            ASSIGNMENT,
            str(lab.course / "submitted"),
            "--root",
            str(lab.course),
        )
    row = next(line for line in out.splitlines() if line.startswith(f"{ASSIGNMENT} ") and STUDENT in line)
    assert re.search(r"\sgraded\b", row), out

    outside = []  # what formgrader asks anyone but this server for (MathJax from a CDN, say)
    instructor.on(
        "request",
        lambda request: None if request.url.startswith((lab.url, "data:", "about:")) else outside.append(request.url),
    )
    with timed("instructor: formgrader"):
        instructor.goto(f"{lab.url}/formgrader/manage_submissions/{ASSIGNMENT}")
        instructor.locator("tbody tr", has_text=STUDENT).filter(has_text="needs manual grading").wait_for()
        shot(instructor, "formgrader_submissions")
        instructor.goto(f"{lab.url}/formgrader/gradebook/{ASSIGNMENT}/{NOTEBOOK}")
        instructor.get_by_role("link", name="Submission #1").click()
        score = instructor.locator(f"input.score#{DERIVATION}")
        cell = instructor.locator(".nbgrader_cell", has=score)
        # MathJax 2's output: span.MathJax once typeset (MathJax_Processing while it works)
        cell.locator("span.MathJax:not(.MathJax_Processing)").first.wait_for()
        answer = cell.locator(".rendered_html").inner_text()
        # Formgrader saves a field when it loses focus, with a PUT to its API; the tick it
        # shows then fades after a second, which a busy machine can miss: wait on the PUT.
        score.fill("0.5")
        with instructor.expect_response(lambda response: saved(response, "grade")) as grade_saved:
            score.press("Tab")
        comment = cell.locator(f"textarea#{DERIVATION}-comment")
        comment.fill("Right; say why the constant does not matter for training.")
        with instructor.expect_response(lambda response: saved(response, "comment")) as comment_saved:
            comment.press("Tab")
        assert grade_saved.value.ok and comment_saved.value.ok
    cell.scroll_into_view_if_needed()
    instructor.mouse.wheel(0, -60)  # the heading out from under formgrader's bar
    shot(instructor, "formgrader_manual_grade", doc="formgrader")
    assert "$" not in answer, f"the derivation is not typeset: {answer[:300]}"
    assert not outside, f"formgrader loaded from outside this server: {outside}"

    with Gradebook(f"sqlite:///{lab.course / 'gradebook.db'}") as gradebook:
        grade = gradebook.find_grade(DERIVATION, NOTEBOOK, ASSIGNMENT, STUDENT)
        comment = gradebook.find_comment(DERIVATION, NOTEBOOK, ASSIGNMENT, STUDENT)
        assert grade.manual_score == 0.5
        assert comment.manual_comment == "Right; say why the constant does not matter for training."
    DONE.add("formgrader")


def test_the_student_fetches_the_feedback(lab, student):
    needs("formgrader")
    with timed("instructor: autograder feedback + nbgrader release_feedback"):
        lab.run(sys.executable, "-m", "autograder", "feedback", ASSIGNMENT, "--root", str(lab.course))
        lab.run(str(BIN / "nbgrader"), "release_feedback", ASSIGNMENT)

    def submitted_item(panel):
        return panel.locator("#submitted_assignments_list > .list_item", has_text=ASSIGNMENT)

    panel = assignment_list(
        student, lab.url, shows=lambda panel: submitted_item(panel).get_by_role("button", name="Fetch Feedback")
    )
    submitted = submitted_item(panel)
    with timed("student: fetch feedback and open it"):
        submitted.get_by_role("button", name="Fetch Feedback").click()
        submitted.get_by_text("(view feedback)").click()  # the file browser goes to the folder
        student.locator(".jp-DirListing-item", has_text=f"{NOTEBOOK}.html").dblclick()
        page = student.frame_locator(".jp-HTMLViewer:not(.lm-mod-hidden) iframe")
        page.get_by_text("# hidden tests: passed").first.wait_for()
    shot(student, "feedback")
    text = page.locator("body").inner_text()
    # Trusted, the page typesets its math with the MathJax this server serves (no internet).
    student.get_by_text("Trust HTML", exact=True).click()
    page.locator(".MathJax").first.wait_for()
    shot(student, "feedback_typeset")
    assert "Right; say why the constant does not matter for training." in text
    assert re.search(r"Score: 0\.5 / 1\.0", text)
    assert "BEGIN HIDDEN TESTS" not in text
