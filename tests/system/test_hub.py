"""The whole class on the course's JupyterHub, in a real browser: an instructor and two students.

The module starts `python -m autograder hub --dummy` on 127.0.0.1 (random ports) with three Unix
accounts of its own (random names; the hub's LocalProcessSpawner runs each user's server in that
account), and Python Playwright drives Debian's Chromium through it as each of them:

- the instructor logs in, opens the course's service (formgrader, as the course account), sees the
  roster and releases 01; a grader opens it too, and neither a grader nor a student gets further;
- each student logs in to a server of their own, fetches 01, fills in one answer (a different one
  each), runs Validate and submits;
- one student's notebook cell tries to read the other's files, the instructor's source/ and the
  exchange's submissions, and the OS refuses each;
- the staff collect and grade with `python -m autograder grade` (sandbox on) in the course service's
  cgroup, write the feedback and release it;
- each student fetches and opens their own feedback, with their own score, and no one else's.

It needs root (accounts), Debian's chromium, bubblewrap, nodejs and npm; under CI=true their
absence fails it, elsewhere it skips with a line naming what is missing. The hub's environment
(every pin: two minutes of pip) and its proxy (npm) are kept between runs in a cache folder
(``CACHE``), one per digest of what they are installed from, and the hub's folder ``CACHE``/hub
links to them; everything else, accounts included, is removed at the end. Screenshots and step times:
test-artifacts/hub/.
"""

import ast
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import psutil
import pytest

from autograder.course.cells import answered, graded_cells
from autograder.course.directory import REPO
from autograder.hub.accounts import as_user, remove_accounts
from autograder.hub.process import START_SECONDS, HubProcess
from autograder.hub.settings import HubSettings, course_config, hub_environment
from tests.support.hub_cache import CACHE, HUB_DIR, answers, clear_hub_dir, form, link_cached_installs, requirements
from tests.support.jupyter_extensions import INSTRUCTORS, INSTRUCTORS_PAGE, STUDENTS, STUDENTS_PAGE, enabled
from tests.support.lab_ui import Flow, assignment_list, close_dialog, free_port, nbgrader_in_lab, run_all, validate

pytestmark = [
    pytest.mark.slow,
    pytest.mark.root,
    pytest.mark.browser,
    pytest.mark.usefixtures("bubblewrap"),
]  # it grades

ASSIGNMENT, NOTEBOOK = "01_likelihoods", "likelihoods"
SOURCE = REPO / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
ANSWERS = {"a": "gaussian_nll", "b": "laplace_nll"}  # each student fills in one answer, a different one
SNIPPETS = {"a": "tf.square(y - mean)", "b": "tf.abs(y - loc)"}  # a part of each answer and of no other
ARTIFACTS = REPO / "test-artifacts" / "hub"
FLOW = Flow(ARTIFACTS, "hub flow")
needs, timed, shot, DONE = FLOW.needs, FLOW.timed, FLOW.shot, FLOW.done
TIMEOUT_MS = 180_000  # the longest wait for one thing in the browser (Validate on a busy machine)


class Hub:
    """`python -m autograder hub --dummy` in its own process group, its accounts and its folders."""

    def __init__(self, base):
        tag = secrets.token_hex(3)  # new names each run: a crashed run's accounts never get in the way
        self.instructor, self.grader = f"bdlhi{tag}", f"bdlhg{tag}"
        self.students = {key: f"bdlh{key}{tag}" for key in ANSWERS}
        self.late = f"bdlhl{tag}"  # a student the roster gains, then loses, while the hub runs
        self.course_account = HubSettings(hub_dir=str(HUB_DIR)).course_account
        remove_accounts([self.course_account])  # a crashed run's, whose home is gone
        self.base, self.homes = base, base / "home"
        self.homes.mkdir()
        base.chmod(0o755)  # the homes' parent: every account must reach its own home
        roster = base / "roster.csv"
        roster.write_text(
            "id,first_name,last_name,email\n"
            + "".join(f"{name},Student,{key.upper()},\n" for key, name in self.students.items())
        )
        # `hub` refuses a repository other users can read (it holds every answer): closed for the run.
        self.repository_mode = REPO.stat().st_mode & 0o777
        REPO.chmod(self.repository_mode & ~0o007)
        HUB_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
        clear_hub_dir()  # what a crashed run left
        link_cached_installs()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.settings = HubSettings(
            hub_dir=str(HUB_DIR),
            ip="127.0.0.1",
            port=self.port,
            hub_port=free_port(),
            proxy_api_port=free_port(),
            course_port=free_port(),
            instructor=self.instructor,
        )
        self.log = base / "hub.log"
        self.command = [
            sys.executable,
            "-m",
            "autograder",
            "hub",
            "--dir",
            str(HUB_DIR),
            "--students",
            str(roster),
            "--instructor",
            self.instructor,
            "--graders",
            self.grader,
            "--home-root",
            str(self.homes),
            "--ip",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--hub-port",
            str(self.settings.hub_port),
            "--proxy-api-port",
            str(self.settings.proxy_api_port),
            "--course-port",
            str(self.settings.course_port),
        ]
        self.start(dummy=True)

    def start(self, dummy):
        env = {
            name: value
            for name, value in os.environ.items()
            if name not in ("BDL_EXCHANGE", "NBGRADER_EXECUTION", "BDL_FAST")
        }
        self.server = HubProcess(self.command, self.log, self.url, env=env, cwd=REPO, hub_dir=HUB_DIR)
        self.server.start(*(["--dummy"] if dummy else []))

    @property
    def users(self):
        return [self.instructor, self.grader, self.course_account, *self.students.values(), self.late]

    def change_roster(self, names):
        """`python -m autograder hub roster CSV` with ``names``, the hub running."""
        roster = self.base / "new-roster.csv"
        roster.write_text("id\n" + "".join(f"{name}\n" for name in names))
        result = subprocess.run(
            [sys.executable, "-m", "autograder", "hub", "roster", str(roster), "--dir", str(HUB_DIR)],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=600,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def wait_until_up(self):
        try:
            self.server.wait_until_up()
        except RuntimeError as error:
            pytest.fail(str(error))
        self.wait_for_the_course()

    def wait_for_the_course(self, timeout=START_SECONDS):
        """Wait for the course's service, which the hub starts without waiting for it (until then its
        pages answer 503)."""
        if not answers(f"http://127.0.0.1:{self.settings.course_port}/services/bdl/api", timeout):
            pytest.fail(f"the course's service did not answer within {timeout} s:\n{self.server.log_tail()}")

    @property
    def password(self):
        return (HUB_DIR / "dummy-password").read_text().strip()

    def home(self, user):
        return Path(pwd.getpwnam(user).pw_dir)

    @property
    def course(self):
        return self.home(self.course_account) / "bdl"

    @property
    def service(self):
        """The course's service: JupyterLab and formgrader in the course account, for the staff."""
        return f"{self.url}/services/bdl"

    def as_staff(self, *command):
        """Run a command in the course folder as a terminal of the course's service would: as the course
        account, in the service's cgroup (its memory, cores and tasks), so `grade` sizes itself to them."""
        service = next(
            p
            for p in psutil.process_iter(["uids", "cmdline"])
            if p.info["uids"]
            and p.info["uids"].real == pwd.getpwnam(self.course_account).pw_uid
            and any("jupyterhub-singleuser" in part for part in p.info["cmdline"] or [])
        )
        groups = [
            Path("/sys/fs/cgroup", *([] if hierarchy == "" else [hierarchy]), path.lstrip("/"))
            for _, hierarchies, path in (
                line.split(":", 2) for line in Path(f"/proc/{service.pid}/cgroup").read_text().splitlines()
            )
            for hierarchy in hierarchies.split(",")
            if hierarchy
            in (
                ("",)
                if Path("/sys/fs/cgroup/cgroup.controllers").exists()  # v2, or v1's
                else ("memory", "cpu", "pids")
            )
        ]
        assert groups and all("bdl-hub" in str(group) for group in groups), groups

        def join():
            for group in groups:
                (group / "cgroup.procs").write_text(str(os.getpid()))

        return as_user(
            pwd.getpwnam(self.course_account),
            list(command),
            self.settings,
            " ".join(command[:3]),
            cwd=self.course,
            preexec_fn=join,
        )

    def stop(self):
        """Stop the hub (it stops the users' servers), then remove the accounts and what they left."""
        self.server.stop()
        REPO.chmod(self.repository_mode)
        remove_accounts(self.users)
        shutil.rmtree(self.base, ignore_errors=True)
        clear_hub_dir()


@pytest.fixture(scope="module")
def browser():
    requirements()
    with FLOW.chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def hub(browser):
    CACHE.mkdir(parents=True, exist_ok=True)  # not the temp folder: each server has a /tmp of its own
    base = lambda: Path(tempfile.mkdtemp(prefix="bdl-hub-class-", dir=CACHE))
    with FLOW.started("hub set-up and start", lambda: Hub(base())) as server:
        yield server


def log_in(browser, hub, user):
    """A browser context logged in as ``user``, with a JupyterLab tab on that user's own server."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto(f"{hub.url}/hub/login")
    page.locator("input[name=username]").fill(user)
    page.locator("input[name=password]").fill(hub.password)
    page.locator("input[type=submit], button[type=submit]").first.click()
    page.wait_for_url(re.compile(rf"/user/{user}/lab"))  # the hub spawned the server and sent us there
    page.locator(".jp-LabShell").wait_for()
    return context, page


@pytest.fixture(scope="module")
def instructor(browser, hub):
    context, page = log_in(browser, hub, hub.instructor)
    yield page
    context.close()


@pytest.fixture(scope="module")
def students(browser, hub):
    pages = {}
    for key, user in hub.students.items():
        with timed(f"student {key}: log in and start a server"):
            pages[key] = log_in(browser, hub, user)
    yield {key: page for key, (context, page) in pages.items()}
    for context, _page in pages.values():
        context.close()


def user_url(hub, user):
    return f"{hub.url}/user/{user}"


def test_the_instructor_sees_the_roster_and_releases_01(hub, instructor):
    with timed("instructor: the course's service, Nbgrader > Formgrader in JupyterLab"):
        base = hub.service
        instructor.goto(f"{base}/lab")
        assert nbgrader_in_lab(instructor) == INSTRUCTORS_PAGE
        instructor.get_by_text("Nbgrader", exact=True).click()
        instructor.get_by_role("menuitem", name="Formgrader", exact=True).click()
        # formgrader in JupyterLab's own tab: its frame shows (JupyterHub's default CSP would leave it blank)
        instructor.frame_locator("iframe[src*='formgrader']").get_by_text("Manage Assignments").first.wait_for()
        shot(instructor, "formgrader_in_jupyterlab")
    with timed("instructor: log in, roster, release in formgrader"):
        instructor.goto(f"{base}/formgrader/manage_students")
        for user in hub.students.values():
            instructor.locator("tbody tr", has_text=user).wait_for()
        shot(instructor, "formgrader_roster")
        instructor.goto(f"{base}/formgrader/manage_assignments")
        row = instructor.locator("tbody tr", has_text=ASSIGNMENT)
        row.locator(".release a").click()
        instructor.locator(".modal", has_text=f"Successfully released '{ASSIGNMENT}'").wait_for()
        shot(instructor, "formgrader_released")
    released = Path(hub.settings.exchange) / "bdl" / "outbound" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    assert released.stat().st_uid == pwd.getpwnam(hub.course_account).pw_uid
    DONE.add("release")


def test_a_grader_opens_formgrader_and_a_student_cannot(browser, hub, instructor, students):
    """The group formgrade-<course> opens the course's service (formgrader); a grader reaches neither the
    instructor's server nor its terminal; nbgrader-<course> reaches none of them."""
    formgrader = f"{hub.service}/formgrader/manage_students"
    terminal = f"{user_url(hub, hub.instructor)}/terminals/1"
    context, page = log_in(browser, hub, hub.grader)
    try:
        with timed("grader: log in, formgrader in the course's service"):
            page.goto(formgrader)
            page.locator("tbody tr", has_text=hub.students["a"]).wait_for()
        shot(page, "grader_formgrader")
        for url in (terminal, f"{user_url(hub, hub.instructor)}/lab"):
            refused = page.goto(url)
            assert refused.status == 403, (url, refused.status)
    finally:
        context.close()
    import requests

    # the course account is a hub user (formgrader reads its courses) that no one logs in as
    as_course = form(requests.Session(), f"{hub.url}/hub/login", username=hub.course_account, password=hub.password)
    assert as_course.status_code != 302, as_course.headers
    refused = students["b"].goto(formgrader)
    assert refused.status == 403, refused.status
    assert students["b"].locator("tbody tr", has_text=hub.students["a"]).count() == 0
    students["b"].goto(f"{user_url(hub, hub.students['b'])}/lab")
    assert nbgrader_in_lab(students["b"]) == STUDENTS_PAGE  # the student's own Lab: no formgrader, no course list


def answer(key):
    """Student ``key``'s one answer: the reference's."""
    return graded_cells(answered(nbformat.read(SOURCE, 4)))[ANSWERS[key]].source


def fill_in(hub, page, key):
    """Write the student's one answer into their fetched notebook through their own server's contents
    API (as their JupyterLab saves it), so the file is the student's."""
    user = hub.students[key]
    path = f"{ASSIGNMENT}/{NOTEBOOK}.ipynb"
    url = f"{user_url(hub, user)}/api/contents/{path}"
    xsrf = next(cookie["value"] for cookie in page.context.cookies() if cookie["name"] == "_xsrf")
    model = page.request.get(url).json()
    for cell in model["content"]["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == ANSWERS[key]:
            cell["source"] = answer(key)
    saved = page.request.put(
        url,
        data=json.dumps({"type": "notebook", "format": "json", "content": model["content"]}),
        headers={"X-XSRFToken": xsrf, "Content-Type": "application/json"},
    )
    assert saved.ok, saved.text()


@pytest.mark.parametrize("key", list(ANSWERS))
def test_a_student_fetches_fills_in_validates_and_submits(hub, students, key):
    needs("release")
    page, user = students[key], hub.students[key]
    base = user_url(hub, user)
    with timed(f"student {key}: fetch"):
        panel = assignment_list(
            page,
            base,
            shows=lambda panel: panel.locator("#released_assignments_list .list_item", has_text=ASSIGNMENT).get_by_role(
                "button", name="Fetch"
            ),
        )
        panel.locator("#released_assignments_list .list_item", has_text=ASSIGNMENT).get_by_role(
            "button", name="Fetch"
        ).click()
        fetched = panel.locator("#fetched_assignments_list > .list_item", has_text=ASSIGNMENT)
        fetched.get_by_role("button", name="Submit").wait_for()
    shot(page, f"student_{key}_fetched")
    fetched_file = hub.home(user) / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    assert fetched_file.stat().st_uid == pwd.getpwnam(user).pw_uid
    fill_in(hub, page, key)
    fetched.get_by_role("button", name=ASSIGNMENT).click()
    fetched.get_by_role("link", name=NOTEBOOK, exact=True).click()
    with timed(f"student {key}: Validate"):
        dialog = validate(page)
    shot(page, f"student_{key}_validate")
    text = dialog.inner_text()  # one answer of seven: the other answers' tests fail
    assert "The following cell failed" in text and "NotImplementedError" in text
    close_dialog(page)
    with timed(f"student {key}: submit"):
        panel = assignment_list(page, base)
        panel.locator("#fetched_assignments_list > .list_item", has_text=ASSIGNMENT).get_by_role(
            "button", name="Submit"
        ).click()
        panel.locator("#submitted_assignments_list > .list_item", has_text=ASSIGNMENT).wait_for()
    shot(page, f"student_{key}_submitted")
    inbound = Path(hub.settings.exchange) / "bdl" / "inbound"
    assert [p for p in inbound.iterdir() if p.name.startswith(f"{user}+{ASSIGNMENT}+")]
    DONE.add(f"submit {key}")


PROBE = """import os
print("PYTHONPATH=" + repr(os.environ.get("PYTHONPATH")))
for what, path in {targets!r}.items():
    try:
        found = os.listdir(path) if os.path.isdir(path) else open(path).read(100)
        print(f"READ {{what}}: {{found!r}}")
    except OSError as error:
        print(f"REFUSED {{what}}: {{error}}")
open("/tmp/{marker}", "w").write("mine")
open("/dev/shm/{marker}", "w").write("mine")
print("TMP=" + repr(sorted(os.listdir("/tmp"))))
v2 = os.path.exists("/sys/fs/cgroup/cgroup.controllers")  # else v1 (or hybrid: v1 holds the limits)
for line in open("/proc/self/cgroup"):
    _, controllers, path = line.strip().split(":", 2)
    for controller, file in (("pids", "pids.max"), ("memory", "memory.limit_in_bytes")):
        if not v2 and controller in controllers.split(","):
            print(f"LIMIT {{file}}=" + open(f"/sys/fs/cgroup/{{controller}}{{path}}/{{file}}").read().strip())
    if v2 and not controllers:
        for file in ("pids.max", "memory.max"):
            print(f"LIMIT {{file}}=" + open(f"/sys/fs/cgroup{{path}}/{{file}}").read().strip())
print("PROBED")
"""


def test_a_student_cannot_read_the_other_student_or_the_source(hub, students):
    """Each refused by the OS; and the server runs in its limits (memory, tasks) with a /tmp and a /dev/shm
    of its own."""
    needs("submit a")
    needs("submit b")
    a, b = hub.students["a"], hub.students["b"]
    targets = {
        "the other student's notebook": str(hub.home(b) / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
        "the other student's home": str(hub.home(b)),
        "the instructor's source/": str(hub.course / "source"),
        "the instructor's solution": str(hub.course / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
        "the exchange's submissions": str(Path(hub.settings.exchange) / "bdl" / "inbound"),
        "the course repository's source/": str(REPO / "source"),
    }
    marker = f"probe-{secrets.token_hex(4)}"
    machines = Path("/tmp") / f"machine-{secrets.token_hex(4)}"  # in the machine's /tmp, not the server's
    machines.write_text("the machine's")
    page = students["a"]
    probe = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PROBE.format(targets=targets, marker=marker))])
    probe.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    xsrf = next(cookie["value"] for cookie in page.context.cookies() if cookie["name"] == "_xsrf")
    saved = page.request.put(
        f"{user_url(hub, a)}/api/contents/probe.ipynb",
        data=json.dumps({"type": "notebook", "format": "json", "content": probe}),
        headers={"X-XSRFToken": xsrf, "Content-Type": "application/json"},
    )
    assert saved.ok, saved.text()
    with timed("student a: a cell reads another's files"):
        page.goto(f"{user_url(hub, a)}/lab/tree/probe.ipynb")
        notebook = run_all(page, shot)
        output = notebook.locator(".jp-OutputArea-output").first
        output.get_by_text("PROBED").wait_for()
    shot(page, "student_a_refused")
    text = output.inner_text()
    assert "READ" not in text, text
    assert "PYTHONPATH=None" in text, text  # the hub's names the repository: no server gets it
    for what in targets:
        # a clone in the system temp folder is not even there: the server's /tmp is its own
        hidden = what == "the course repository's source/" and REPO.is_relative_to("/tmp")
        refusals = ("[Errno 13] Permission denied", "[Errno 2] No such file") if hidden else ("[Errno 13]",)
        assert any(f"REFUSED {what}: {refusal}" in text for refusal in refusals), text
    assert f"LIMIT pids.max={hub.settings.max_tasks}" in text, text
    assert re.search(rf"LIMIT memory\.(limit_in_bytes|max)={int(hub.settings.memory_gib * 2**30)}\b", text), text
    # /tmp: the student's own folder in the hub's, not the machine's, and no one else's
    own = Path(hub.settings.tmp_root) / a
    assert (own / marker).read_text() == "mine" and not (Path("/tmp") / marker).exists()
    assert own.stat().st_uid == pwd.getpwnam(a).pw_uid and own.stat().st_mode & 0o777 == 0o700
    listed = set(ast.literal_eval(re.search(r"TMP=(\[.*?\])", text).group(1)))
    machines.unlink()
    assert marker in listed and machines.name not in listed, listed
    assert not (Path("/dev/shm") / marker).exists()  # its shared memory folder is its own too
    DONE.add("probe")


def test_the_instructor_collects_grades_and_releases_feedback(hub):
    needs("submit a")
    needs("submit b")
    python = f"{hub.settings.venv}/bin/python"
    with timed("staff: nbgrader collect"):
        hub.as_staff("nbgrader", "collect", ASSIGNMENT)
    with timed("staff: python -m autograder grade (sandbox on), in the course service's cgroup"):
        out = hub.as_staff(python, "-m", "autograder", "grade", ASSIGNMENT, "submitted", "--root", str(hub.course))
    points = {
        cell_id: cell.metadata.nbgrader["points"]
        for cell_id, cell in graded_cells(nbformat.read(SOURCE, 4)).items()
        if cell.metadata.nbgrader.get("grade") and not cell.metadata.nbgrader.get("solution")
    }
    for key, user in hub.students.items():
        row = next(line for line in out.splitlines() if line.startswith(f"{ASSIGNMENT} ") and user in line)
        assert re.search(r"\sgraded\b", row) and "no sandbox" not in row, out
        # the filled-in answer's tests, and nothing else automatic (columns: assignment notebook student score)
        assert row.split()[3] == f"{points[ANSWERS[key] + '_tests']:g}", row
    with timed("staff: autograder feedback, nbgrader release_feedback"):
        hub.as_staff(python, "-m", "autograder", "feedback", ASSIGNMENT, "--root", str(hub.course))
        hub.as_staff("nbgrader", "release_feedback", ASSIGNMENT)
    DONE.add("feedback")


@pytest.mark.parametrize("key", list(ANSWERS))
def test_each_student_fetches_their_own_feedback(hub, students, key):
    needs("feedback")
    page, user = students[key], hub.students[key]
    base = user_url(hub, user)

    def submitted_item(panel):
        return panel.locator("#submitted_assignments_list > .list_item", has_text=ASSIGNMENT)

    with timed(f"student {key}: fetch feedback and open it"):
        panel = assignment_list(
            page, base, shows=lambda panel: submitted_item(panel).get_by_role("button", name="Fetch Feedback")
        )
        submitted_item(panel).get_by_role("button", name="Fetch Feedback").click()
        submitted_item(panel).get_by_text("(view feedback)").click()
        page.locator(".jp-DirListing-item", has_text=f"{NOTEBOOK}.html").dblclick()
        frame = page.frame_locator(".jp-HTMLViewer:not(.lm-mod-hidden) iframe")
        frame.get_by_text("# hidden tests: passed").first.wait_for()
    shot(page, f"student_{key}_feedback")
    text = frame.locator("body").inner_text()
    assert "BEGIN HIDDEN TESTS" not in text
    # the student's own: their answer is in it, the other's is not
    other = next(k for k in ANSWERS if k != key)
    assert SNIPPETS[key] in text and SNIPPETS[other] not in text
    pages = [
        page
        for page in (hub.home(user) / ASSIGNMENT / "feedback").rglob("*.html")
        if ".ipynb_checkpoints" not in page.parts
    ]  # JupyterLab's copy of what it opened
    assert len(pages) == 1 and pages[0].stat().st_uid == pwd.getpwnam(user).pw_uid, pages


# A student's hostile hand-in: its first answer cell reports what the kernel sees (its environment, the
# instructor's files) and neutralises every later cell (an input transformer); a hand-graded answer
# tries to call the course service's API from the grader's browser when formgrader shows it.
HOSTILE = """import os
print("ENV " + repr(sorted(os.environ.items())))
for what, path in {targets!r}.items():
    try:
        open(path, "rb").read(100)
        print("READ " + what)
    except OSError as error:
        print("REFUSED " + what + ": " + str(error))
try:
    open({mark!r}, "w").write("ran")
except OSError:
    pass
get_ipython().input_transformers_post.append(lambda lines: ["pass\\n"])
"""
XSS = (
    'XSS-PROBE-TEXT <img src="missing.png" onerror="fetch(\'/services/bdl/api/terminals?XSSCALL-img\', '
    "{method: 'POST'})\"> <script>fetch('/services/bdl/api/terminals?XSSCALL-script', {method: 'POST'})</script>"
)
# And markup that would take the grader's clicks and login: each test's id in the answer's ".nbgrader_cell"
# under a "full credit" link (formgrader binds a test's score to the first element with its id), and
# images of the hub's own pages, which the grader's browser would request with the grader's login.
HIJACK = (
    '<div class="nbgrader_cell">{spans}<a class="full-credit" href="#">HIJACK-LINK</a></div>'
    '<img src="/hub/logout"><img src="/hub/api/users">'
)
HUB_PAGES = re.compile(r"/hub/(logout|api/users)")


# Run as a student: make a submission folder in the exchange's inbound/, whose notebook is a link to
# ``link`` or the text on stdin, as after nbgrader's submit (which writes timestamp.txt beside it).
PLANT = """import os, sys
folder, notebook, link = sys.argv[1:4]
os.mkdir(folder)
open(os.path.join(folder, "timestamp.txt"), "w").write(os.path.basename(folder).split("+")[2])
if link:
    os.symlink(link, os.path.join(folder, notebook))
else:
    open(os.path.join(folder, notebook), "w").write(sys.stdin.read())
"""


def plant(hub, key, named_for, link="", text=None):
    """As student ``key``, a new submission folder in inbound/ named for ``named_for``, later than any before."""
    import datetime

    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    folder = (
        Path(hub.settings.exchange) / "bdl" / "inbound" / f"{named_for}+{ASSIGNMENT}+{stamp}+{secrets.token_hex(4)}"
    )
    as_user(
        pwd.getpwnam(hub.students[key]),
        [f"{hub.settings.venv}/bin/python", "-c", PLANT, str(folder), f"{NOTEBOOK}.ipynb", str(link)],
        hub.settings,
        f"student {key}: a folder in inbound/",
        input=text or "",
    )
    return folder


def snapshot(hub):
    """Every file of the course's submitted/ and autograded/, and the gradebook, as bytes."""
    files = {
        path: path.read_bytes()
        for folder in ("submitted", "autograded")
        for path in (hub.course / folder).rglob("*")
        if path.is_file()
    }
    return {**files, "gradebook": (hub.course / "gradebook.db").read_bytes()}


def collect(hub):
    return hub.as_staff("sh", "-c", f"nbgrader collect --update {ASSIGNMENT} 2>&1")


def test_collect_takes_only_what_each_student_wrote(hub):
    """The three recipes, each by a real student account after the class was graded: a's later folder
    whose notebook links to the source notebook, a folder a plants under b's name, b's later folder whose
    notebook links to a's collected work. `nbgrader collect --update` takes none of them and names each
    link it refused; every collected submission, autograded notebook and the gradebook are unchanged."""
    needs("feedback")
    before = snapshot(hub)
    a, b = hub.students["a"], hub.students["b"]
    planted = [
        plant(hub, "a", a, link=hub.course / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
        plant(hub, "a", b, text=nbformat.writes(nbformat.read(SOURCE, 4))),
        plant(hub, "b", b, link=hub.course / "submitted" / a / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
    ]
    try:
        with timed("staff: nbgrader collect --update, three hostile folders"):
            said = collect(hub)
        for refused in (planted[0], planted[2]):
            assert f"not collected: {refused.name}" in said, said
        assert snapshot(hub) == before, said
    finally:
        for folder in planted:
            shutil.rmtree(folder)
    DONE.add("collect probe")


def test_every_door_grades_a_hostile_submission_as_grade_does(browser, hub):
    """Student a hands in a hostile notebook the plain way. A TA clicks Autograde on it in formgrader:
    refused in the line that names `autograder grade`, before anything changed (the gradebook and the
    earlier autograded copy are as they were, no cell ran). `autograder grade`, typed in the service's
    terminal (whose environment holds its API token), grades it: zero, and the kernel saw neither the
    token, a database password, the hub's address nor the instructor's files. The TA then opens it in
    formgrader: its hand-graded answer's script and onerror handler call nothing, its images of the hub's
    pages load nothing, and a click on its "full credit" link, which carries every test's id, changes no
    score, while the answer's own score box saves."""
    needs("collect probe")
    a = hub.students["a"]
    nb = nbformat.read(hub.course / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb", 4)
    mark = hub.course / f"hostile-{secrets.token_hex(4)}"
    targets = {
        "the source notebook": str(hub.course / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"),
        "the gradebook": str(hub.course / "gradebook.db"),
    }
    answers = [cell for cell in nb.cells if cell.metadata.get("nbgrader", {}).get("solution")]
    next(cell for cell in answers if cell.cell_type == "code").source = HOSTILE.format(targets=targets, mark=str(mark))
    tests = [
        cell.metadata["nbgrader"]["grade_id"]
        for cell in nb.cells
        if cell.metadata.get("nbgrader", {}).get("grade") and not cell.metadata["nbgrader"].get("solution")
    ]
    written = next(cell for cell in answers if cell.cell_type == "markdown")
    written.source = XSS + HIJACK.format(spans="".join(f'<span id="{test}"></span>' for test in tests))
    plant(hub, "a", a, text=nbformat.writes(nb))
    collect(hub)
    submitted = hub.course / "submitted" / a / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    assert "input_transformers_post" in submitted.read_text()
    before = snapshot(hub)

    context, page = log_in(browser, hub, hub.grader)
    try:
        with timed("grader: Autograde in formgrader's Manage Submissions"):
            page.goto(f"{hub.service}/formgrader/manage_submissions/{ASSIGNMENT}")
            row = page.locator("tbody tr", has_text=a)
            with page.expect_response(lambda response: response.url.endswith(f"/{a}/autograde")) as clicked:
                row.locator("td.autograde a").click()
            answer = clicked.value.json()
            page.locator(".modal", has_text="There was an error autograding").wait_for()
        shot(page, "grader_autograde_refused")
        assert not answer["success"] and "python -m autograder grade" in answer.get("log", ""), answer
        assert snapshot(hub) == before and not mark.exists()

        token, password = _server_token(hub.course_account), secrets.token_hex(8)
        secrets_in_terminal = [
            f"JUPYTERHUB_API_TOKEN={token}",
            f"JUPYTERHUB_API_URL=http://127.0.0.1:{hub.settings.hub_port}/hub/api",
            f"PGPASSWORD={password}",
            f"DATABASE_URL=postgresql://grader:{password}@127.0.0.1/bdl",
        ]
        with timed("staff: autograder grade of the hostile submission, with the service's environment"):
            out = hub.as_staff(
                "env",
                *secrets_in_terminal,
                f"{hub.settings.venv}/bin/python",
                "-m",
                "autograder",
                "grade",
                ASSIGNMENT,
                "submitted",
                "--root",
                str(hub.course),
            )
        row = next(line for line in out.splitlines() if line.startswith(f"{ASSIGNMENT} ") and a in line)
        assert row.split()[3] == "0" and re.search(r"\sgraded\b", row), out
        graded = (hub.course / "autograded" / a / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text()
        printed = "".join(
            output.get("text", "")
            for cell in nbformat.reads(graded, 4).cells
            if cell.cell_type == "code"
            for output in cell.outputs
        )
        assert "ENV " in printed and "REFUSED the source notebook" in printed, printed[:3000]  # it ran
        assert "READ " not in printed and not mark.exists(), printed[:3000]
        for secret in (token, password, "JUPYTERHUB_API_URL", f":{hub.settings.hub_port}/"):
            assert secret not in graded, secret

        terminals = f"{hub.service}/api/terminals"  # what the TA's browser may open there: a script would act as them
        opened = page.request.get(terminals).json()
        assert isinstance(opened, list), opened
        calls = []
        page.on("request", lambda request: calls.append(request.url) if "XSSCALL" in request.url else None)
        submission = next(
            item["id"]
            for item in page.request.get(
                f"{hub.service}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{NOTEBOOK}"
            ).json()
            if item["student"] == a
        )
        with timed("grader: the hostile submission in formgrader"):
            page.goto(f"{hub.service}/formgrader/submissions/{submission}/")
            page.wait_for_load_state("networkidle")
            assert any("XSS-PROBE-TEXT" in frame.content() for frame in page.frames)
            page.wait_for_timeout(2000)
        shot(page, "grader_hostile_submission")
        assert calls == [] and page.request.get(terminals).json() == opened, calls

        # The grader clicks the student's link, then scores the written answer in its own box: the tests
        # keep their automatic scores, the answer gets the grader's, and no page of the hub was requested.
        requested = []
        page.on("request", lambda request: requested.append(request.url) if HUB_PAGES.search(request.url) else None)
        scores = _scores(hub, a)
        with timed("grader: a click on the student's link, a score in the answer's box"):
            page.get_by_text("HIJACK-LINK").click()
            page.wait_for_timeout(2000)
            box = page.locator(f"input.score#{written.metadata['nbgrader']['grade_id']}")
            box.fill("1")
            with page.expect_response(
                lambda response: response.request.method == "PUT" and "/api/grade/" in response.url
            ) as saved:
                box.press("Tab")
        assert saved.value.ok
        scores[written.metadata["nbgrader"]["grade_id"]] = (scores[written.metadata["nbgrader"]["grade_id"]][0], 1.0)
        assert _scores(hub, a) == scores
        assert requested == [], requested
    finally:
        context.close()


def _scores(hub, student):
    """{grade id: (automatic score, manual score)} of ``student``'s notebook, read from a copy of the
    gradebook (root opening the course's own would leave it a journal the course account cannot write)."""
    from nbgrader.api import Gradebook

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "gradebook.db"
        shutil.copyfile(hub.course / "gradebook.db", copy)
        with Gradebook(f"sqlite:///{copy}") as gradebook:
            notebook = gradebook.find_submission_notebook(NOTEBOOK, ASSIGNMENT, student)
            return {grade.name: (grade.auto_score, grade.manual_score) for grade in notebook.grades}


def approval_page(browser, hub, student):
    """The instructor's /hub/authorize page in the browser, logged in through the hub's own form, where
    ``student`` waits to be authorized."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(f"{hub.url}/hub/login?next=/hub/authorize")  # straight there: no server is spawned
        page.locator("input[name=username]").fill(hub.instructor)
        page.locator("input[name=password]").fill((HUB_DIR / "instructor-password").read_text().strip())
        page.locator("input[type=submit], button[type=submit]").first.click()
        page.wait_for_url(re.compile(r"/hub/authorize$"))
        # not yet authorized: "No", and the button that authorizes them
        row = page.locator("tbody tr", has_text=student)
        row.get_by_role("button", name="Authorize", exact=True).wait_for()
        assert "No" in row.locator("td").all_inner_texts(), row.inner_text()
        shot(page, "hub_authorize", doc="hub-signup-approval")
    finally:
        context.close()


def _kernels(user):
    """The pids of ``user``'s running kernels."""
    uid = pwd.getpwnam(user).pw_uid
    return {
        process.pid
        for process in psutil.process_iter(["uids", "cmdline"])
        if process.info["uids"]
        and process.info["uids"].real == uid
        and "ipykernel_launcher" in " ".join(process.info["cmdline"] or [])
    }


def test_the_roster_changes_while_the_hub_runs(hub, students):
    """`hub roster CSV`, no restart: a student added logs in at once and is in the course's group; removed,
    they are refused and leave it; another student's kernel runs on throughout."""
    import requests

    needs("probe")  # a's probe kernel is running
    kernels = _kernels(hub.students["a"])
    assert kernels
    api = f"{hub.url}/hub/api"
    admin = {"Authorization": f"token {(HUB_DIR / 'roster-token').read_text().strip()}"}
    with timed("roster: a student added, the hub running"):
        said = hub.change_roster([*hub.students.values(), hub.late])
    assert f"added {hub.late}" in said, said
    login = dict(username=hub.late, password=hub.password)
    assert form(requests.Session(), f"{hub.url}/hub/login", **login).status_code == 302
    assert hub.late in requests.get(f"{api}/groups/nbgrader-bdl", headers=admin, timeout=30).json()["users"]
    with timed("roster: the student removed"):
        said = hub.change_roster(hub.students.values())
    assert f"removed {hub.late}" in said, said
    assert form(requests.Session(), f"{hub.url}/hub/login", **login).status_code != 302
    assert hub.late not in requests.get(f"{api}/groups/nbgrader-bdl", headers=admin, timeout=30).json()["users"]
    assert requests.get(f"{api}/users/{hub.late}", headers=admin, timeout=30).status_code == 404
    assert _kernels(hub.students["a"]) == kernels  # the same kernels, never restarted
    assert (
        hub.late
        in subprocess.run(
            ["sqlite3", str(hub.course / "gradebook.db"), "select id from student"], capture_output=True, text=True
        ).stdout
    )  # their grades would stay


def _server_token(user):
    """The API token in ``user``'s running server (what its terminals and kernels hold), read as root."""
    uid = pwd.getpwnam(user).pw_uid
    for process in psutil.process_iter(["uids", "cmdline"]):
        if (
            process.info["uids"]
            and process.info["uids"].real == uid
            and any("jupyterhub-singleuser" in part for part in process.info["cmdline"] or [])
        ):
            environ = process.environ()
            if "JUPYTERHUB_API_TOKEN" in environ:
                return environ["JUPYTERHUB_API_TOKEN"]
    raise AssertionError(f"no running server of {user}")


def test_no_server_token_is_an_admins(hub, instructor, students):
    """Whoever is in the course's service (the instructor, a TA) holds its token: it reads the roster and
    manages the students' group, as formgrader needs; the instructor's own server's token reads its owner
    only. Neither can start or stop a student's server, make a user nor make a token."""
    import requests

    api, student = f"{hub.url}/hub/api", hub.students["a"]
    for owner, reads_the_roster in ((hub.course_account, True), (hub.instructor, False)):
        headers = {"Authorization": f"token {_server_token(owner)}"}
        me = requests.get(f"{api}/user", headers=headers, timeout=30).json()
        assert not [scope for scope in me["scopes"] if scope.startswith("admin")], (owner, me["scopes"])
        assert requests.get(f"{api}/users/{student}", headers=headers, timeout=30).ok == reads_the_roster, owner
        for method, path in (
            ("post", f"/users/{student}/server"),
            ("delete", f"/users/{student}/server"),
            ("post", "/users/intruder"),
            ("post", f"/users/{student}/tokens"),
        ):
            answer = getattr(requests, method)(f"{api}{path}", headers=headers, timeout=30)
            assert answer.status_code in (403, 404), (owner, method, path, answer.status_code, answer.text[:300])


def test_the_course_service_has_the_staffs_limits(hub, instructor, students):
    """The staff grade in the course's service: its cgroup holds 8 GiB (the staff's); a student's server,
    and the instructor's own, 4."""

    def memory(user):
        for path in (
            Path("/sys/fs/cgroup/bdl-hub", user, "memory.max"),
            Path("/sys/fs/cgroup/memory/bdl-hub", user, "memory.limit_in_bytes"),
        ):
            if path.exists():
                return int(path.read_text())
        raise AssertionError(f"no cgroup of {user}'s server")

    assert memory(hub.course_account) == int(hub.settings.staff_memory_gib * 2**30)
    assert memory(hub.students["a"]) == memory(hub.instructor) == int(hub.settings.memory_gib * 2**30)


def test_students_servers_have_nbgraders_student_extensions_and_the_course_service_all(hub):
    """As the hub's environment loads them: a student's server, formgrader and the course list off; the
    course's service, with its own config folder first (settings.course_environment), every one."""
    python = f"{hub.settings.venv}/bin/python"
    student = {**hub_environment(hub.settings), "HOME": str(HUB_DIR)}
    assert enabled(python, student, cwd=HUB_DIR) == STUDENTS
    service = {**student, "JUPYTER_CONFIG_PATH": course_config(hub.settings)}
    assert enabled(python, service, cwd=HUB_DIR) == INSTRUCTORS


def test_the_hubs_secrets_and_roster_are_roots_alone(hub):
    for name in ("settings.json", "jupyterhub.sqlite", "dummy-password"):
        assert (HUB_DIR / name).stat().st_mode & 0o777 == 0o600, name
    assert (HUB_DIR / "logs").stat().st_mode & 0o777 == 0o700
    assert f"{hub.students['a']}" in (HUB_DIR / "logs" / "jupyterhub.log").read_text()  # the hub's log, in its file


@pytest.mark.screenshots  # docs/images/hub-signup-approval.png
def test_sign_up_waits_for_the_instructors_approval(hub, browser):
    """`make hub` without --dummy, on the same hub: NativeAuthenticator. A student signs up and cannot log
    in until the instructor, whose login `hub` made before the start, approves them (their /hub/authorize
    page, in the browser, lists the student); no one can sign up under the instructor's name."""
    import requests

    hub.server.stop()
    with timed("hub restarted with NativeAuthenticator"):
        hub.start(dummy=False)
        hub.wait_until_up()
    student, password = hub.students["b"], secrets.token_urlsafe(12)
    signup = f"{hub.url}/hub/signup"
    answer = form(
        requests.Session(), signup, username=student, signup_password=password, signup_password_confirmation=password
    )
    assert answer.status_code == 200 and "information has been sent to the admin" in answer.text, answer.text[-500:]
    taken = form(
        requests.Session(),
        signup,
        username=hub.instructor,
        signup_password=password,
        signup_password_confirmation=password,
    )
    assert "username is already in use" in taken.text, taken.text[-500:]

    login = f"{hub.url}/hub/login"
    before = form(requests.Session(), login, username=student, password=password)
    assert before.status_code != 302, before.headers  # not let in: no redirect to a server
    instructor = requests.Session()
    answer = form(
        instructor, login, username=hub.instructor, password=(HUB_DIR / "instructor-password").read_text().strip()
    )
    assert answer.status_code == 302, hub.log.read_text()[-3000:]
    assert student in instructor.get(f"{hub.url}/hub/authorize", timeout=30).text
    approval_page(browser, hub, student)
    assert instructor.get(f"{hub.url}/hub/authorize/{student}", timeout=30).ok
    after = form(requests.Session(), login, username=student, password=password)
    assert after.status_code == 302, hub.log.read_text()[-3000:]
    # A system account's name, signed up and approved by mistake, still never gets in.
    form(requests.Session(), signup, username="daemon", signup_password=password, signup_password_confirmation=password)
    instructor.get(f"{hub.url}/hub/authorize/daemon", timeout=30)
    refused = form(requests.Session(), login, username="daemon", password=password)
    assert refused.status_code != 302 or "/hub/login" in refused.headers.get("location", ""), (
        refused.headers.get("location"),
        hub.log.read_text()[-2500:],
    )
