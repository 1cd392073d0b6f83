"""The hub where systemd is PID 1, as on a department's Debian or Ubuntu server: the installed unit runs it,
each user's server is a systemd unit with its limits, the course's service a scope with the staff's, and
the hub comes back after it is killed, with its settings and the running servers.

This machine's PID 1 is not systemd, so the module boots one of its own (tests/support/systemd_machine.py):
systemd as PID 1 of namespaces of its own, sharing this machine's files, users and network. Inside it,
`hub --setup-only` sets the hub up, `hub install-service --unit-dir /run/systemd/system` writes its unit and
systemd starts it. It uses test_hub.py's folder and cached installs (tests/support/hub_cache.py), after it on
the same worker. Needs root, systemd, nodejs, npm and bubblewrap: under CI=true their absence fails it.
"""

import os
import pwd
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest
import requests

from autograder.course.directory import REPO
from autograder.hub.accounts import remove_accounts
from autograder.hub.process import START_SECONDS
from autograder.hub.settings import HubSettings, stored_settings
from autograder.hub.systemd_unit import UNIT_NAME
from tests.support.hub_cache import CACHE, HUB_DIR, answers, clear_hub_dir, form, link_cached_installs, requirements
from tests.support.lab_ui import free_port
from tests.support.system_packages import require
from tests.support.systemd_machine import SystemdMachine, available

pytestmark = [pytest.mark.slow, pytest.mark.root]

UNIT_DIR = "/run/systemd/system"  # the machine's own, gone with it
# The unit's private /tmp hides a checkout in the temp folder (CI's may be one, and `install-service` refuses
# it): inside the machine, such a checkout also shows at CHECKOUT, and the hub is installed from there.
CHECKOUT = CACHE / "checkout" if REPO.is_relative_to("/tmp") else REPO
PYTHON = (
    CHECKOUT / Path(sys.executable).relative_to(REPO)
    if Path(sys.executable).is_relative_to(REPO)
    else Path(sys.executable)
)


def server_unit(user):
    return f"jupyter-{user}-singleuser.service"


def owners(folder):
    """The uids of the processes in the cgroup ``folder`` (as this machine numbers them)."""
    pids = [int(pid) for pid in (folder / "cgroup.procs").read_text().split()]
    return {psutil.Process(pid).uids().real for pid in pids}


def memory_limit(folder):
    for name in ("memory.max", "memory.limit_in_bytes"):
        if (folder / name).exists():
            return int((folder / name).read_text())
    raise AssertionError(f"no memory limit in {folder}")


class SystemdHub:
    """The hub set up, installed as a service and started inside ``machine``, with an instructor and a student."""

    def __init__(self, machine, base):
        tag = secrets.token_hex(3)
        self.machine, self.base = machine, base
        self.instructor, self.student = f"bdlsi{tag}", f"bdlss{tag}"
        self.course_account = HubSettings(hub_dir=str(HUB_DIR)).course_account
        remove_accounts([self.course_account])  # a crashed run's, whose home is gone
        (base / "home").mkdir()
        base.chmod(0o755)
        self.repository_mode = REPO.stat().st_mode & 0o777

    def start(self):
        roster = self.base / "roster.csv"
        roster.write_text(f"id\n{self.student}\n")
        REPO.chmod(self.repository_mode & ~0o007)  # `hub` refuses a repository others can read
        HUB_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
        clear_hub_dir()
        link_cached_installs()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            name: value
            for name, value in os.environ.items()
            if name not in ("BDL_EXCHANGE", "NBGRADER_EXECUTION", "BDL_FAST")
        }
        hub = [PYTHON, "-m", "autograder", "hub"]
        self.step(
            "setting up",
            *hub,
            "--dir",
            HUB_DIR,
            "--setup-only",
            "--students",
            roster,
            "--instructor",
            self.instructor,
            "--graders",
            "",
            "--home-root",
            self.base / "home",
            "--ip",
            "127.0.0.1",
            "--port",
            self.port,
            "--hub-port",
            free_port(),
            "--proxy-api-port",
            free_port(),
            "--course-port",
            free_port(),
            env=env,
        )
        self.settings = stored_settings(HUB_DIR)
        self.step("installing the unit", *hub, "install-service", "--dir", HUB_DIR, "--unit-dir", UNIT_DIR, env=env)
        self.step("reloading systemd", "systemctl", "daemon-reload")
        self.step("starting the unit", "systemctl", "start", UNIT_NAME)
        self.wait_until_up()
        self.instructor_session = self.log_in(self.instructor, (HUB_DIR / "instructor-password").read_text().strip())

    def log_in(self, user, password):
        """A session logged in at the hub's login page (NativeAuthenticator's)."""
        session = requests.Session()
        answer = form(session, f"{self.url}/hub/login", username=user, password=password)
        assert answer.status_code == 302, f"{user} could not log in: {answer.status_code}"
        return session

    def step(self, what, *command, env=None):
        result = self.machine.run(*command, check=False, env=env, cwd=CHECKOUT, timeout=START_SECONDS)
        assert result.returncode == 0, f"{what}: {result.stderr[-3000:]}\n{self.journal()}"
        return result.stdout

    def journal(self, unit=UNIT_NAME):
        return self.machine.run("journalctl", "--no-pager", "-n", "60", "-u", unit, check=False).stdout

    def restarts(self):
        return int(self.machine.show(UNIT_NAME, "NRestarts")["NRestarts"])

    def wait_until_up(self, what="the hub", restarts=0):
        """Until the hub answers; it fails at once once it has exited (systemd restarts it) ``restarts`` times."""
        if not answers(f"{self.url}/hub/api/", START_SECONDS, going_on=lambda: self.restarts() <= restarts):
            pytest.fail(f"{what} did not answer ({self.restarts()} restarts):\n{self.journal()}")

    def server(self, user):
        """``user``'s default server as the hub's API reports it ({} when none)."""
        answer = self.instructor_session.get(f"{self.url}/hub/api/users/{user}", timeout=30)
        answer.raise_for_status()
        return answer.json()["servers"].get("", {})

    def start_server(self, user):
        """``user``'s server, started by the instructor (an admin may) at the hub's spawn page."""
        answer = self.instructor_session.get(f"{self.url}/hub/spawn/{user}", timeout=60)
        assert answer.ok, answer.text[-2000:]
        deadline = time.monotonic() + START_SECONDS
        while not self.server(user).get("ready"):
            if time.monotonic() > deadline:
                pytest.fail(f"{user}'s server is not ready:\n{self.journal(server_unit(user))}")
            time.sleep(1)

    def stop(self):
        self.machine.run("systemctl", "stop", UNIT_NAME, check=False, timeout=120)  # it stops the servers
        REPO.chmod(self.repository_mode)
        remove_accounts([self.instructor, self.student, self.course_account])
        shutil.rmtree(self.base, ignore_errors=True)
        clear_hub_dir()


@pytest.fixture(scope="module")
def hub():
    requirements()
    require(available() is None, "systemd")
    CACHE.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="bdl-hub-systemd-", dir=CACHE))
    binds = {}
    if CHECKOUT != REPO:
        CHECKOUT.mkdir(exist_ok=True)
        binds[REPO] = CHECKOUT
    with SystemdMachine(binds=binds) as machine:
        server = SystemdHub(machine, base)
        try:
            server.start()
            server.start_server(server.student)
            yield server
        finally:
            server.stop()


def test_each_server_is_a_systemd_unit_with_its_limits(hub):
    unit = server_unit(hub.student)
    shown = hub.machine.show(
        unit,
        "ActiveState",
        "MemoryMax",
        "CPUQuotaPerSecUSec",
        "TasksMax",
        "PrivateTmp",
        "NoNewPrivileges",
        "TemporaryFileSystem",
    )
    settings = hub.settings
    assert shown == {
        "ActiveState": "active",
        "MemoryMax": str(int(settings.memory_gib * 2**30)),
        "CPUQuotaPerSecUSec": f"{settings.cpus:g}s",
        "TasksMax": str(settings.max_tasks),
        "PrivateTmp": "yes",
        "NoNewPrivileges": "yes",
        "TemporaryFileSystem": "/dev/shm:mode=1777",
    }
    # the kernel holds them, and every process of the unit is the student's
    assert memory_limit(hub.machine.cgroup(unit, "memory")) == int(settings.memory_gib * 2**30)
    assert owners(hub.machine.cgroup(unit, "pids")) == {pwd.getpwnam(hub.student).pw_uid}


def test_the_course_service_is_a_scope_with_the_staffs_limits(hub):
    scope = f"bdl-course-{hub.settings.course_id}.scope"
    deadline = time.monotonic() + START_SECONDS  # the hub starts it without waiting for it
    while hub.machine.show(scope, "ActiveState")["ActiveState"] != "active":
        assert time.monotonic() < deadline, hub.journal()
        time.sleep(1)
    shown = hub.machine.show(scope, "MemoryMax", "TasksMax")
    assert shown == {
        "MemoryMax": str(int(hub.settings.staff_memory_gib * 2**30)),
        "TasksMax": str(4 * hub.settings.max_tasks),
    }
    assert owners(hub.machine.cgroup(scope, "pids")) == {pwd.getpwnam(hub.course_account).pw_uid}


def test_the_hub_is_the_installed_unit_and_comes_back_when_killed(hub):
    """Killed, the hub comes back (Restart=always) as settings.json keeps it, on its port, and finds the
    student's server still running: a server is a unit of its own, not the hub's child."""
    shown = hub.machine.show(UNIT_NAME, "FragmentPath", "Restart", "PrivateTmp", "MainPID", "NRestarts")
    assert (shown["FragmentPath"], shown["Restart"], shown["PrivateTmp"]) == (
        f"{UNIT_DIR}/{UNIT_NAME}",
        "always",
        "yes",
    )
    server = hub.machine.show(server_unit(hub.student), "MainPID")["MainPID"]
    hub.machine.run("kill", "-9", shown["MainPID"])
    deadline = time.monotonic() + START_SECONDS
    while hub.restarts() == int(shown["NRestarts"]):
        assert time.monotonic() < deadline, hub.journal()
        time.sleep(1)
    hub.wait_until_up("the restarted hub", restarts=int(shown["NRestarts"]) + 1)
    assert hub.server(hub.student).get("ready"), hub.server(hub.student)
    assert hub.machine.show(server_unit(hub.student), "MainPID")["MainPID"] == server  # the same server
