"""`python -m autograder hub` without a hub: the roster, the refusals, and the config JupyterHub loads."""

import copy
import json
import logging.config
import logging.handlers
import os
import shutil
import socket
import subprocess
import sys
import tomllib
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from traitlets.config.loader import PyFileConfigLoader

from autograder.course.directory import REPO
from autograder.hub import environment, machine
from autograder.hub import settings as hub
from autograder.hub.private import private_file
from autograder.hub.roster import read_roster
from autograder.worker import bwrap


def roster(tmp_path, text):
    path = tmp_path / "roster.csv"
    path.write_text(text)
    return path


def test_the_roster_is_nbgraders_format(tmp_path):
    students = read_roster(roster(tmp_path, "id,first_name,last_name,email\nada,Ada,Lovelace,a@x.org\nalan,,,\n"))
    assert students == [
        {"id": "ada", "first_name": "Ada", "last_name": "Lovelace", "email": "a@x.org"},
        {"id": "alan", "first_name": "", "last_name": "", "email": ""},
    ]


@pytest.mark.parametrize(
    "text, says",
    [
        ("name\nada\n", "needs an 'id' column"),
        ("id\nada\nAda Lovelace\n", "line 3: 'Ada Lovelace' is not a Unix user name"),
        ("id\nada\nada\n", "line 3: 'ada' is in the roster twice"),
        ("id\n1ada\n", "line 2: '1ada' is not a Unix user name"),
        ("id\nada_\n", "line 2: 'ada_' is not a Unix user name"),
        ("id\n_ada\n", "line 2: '_ada' is not a Unix user name"),
    ],
)
def test_a_bad_roster_is_refused_naming_its_line(tmp_path, text, says):
    with pytest.raises(hub.HubError, match=says):
        read_roster(roster(tmp_path, text))


def test_dummy_logins_are_refused_off_the_loopback(tmp_path):
    settings = hub.HubSettings(hub_dir=str(tmp_path), ip="0.0.0.0", dummy=True)
    with pytest.raises(hub.HubError, match="refused unless the hub listens on 127.0.0.1"):
        machine.check_machine(settings)


def test_plain_http_is_refused_off_the_loopback(tmp_path):
    settings = hub.HubSettings(hub_dir=str(tmp_path), ip="0.0.0.0")
    with pytest.raises(hub.HubError, match="plain HTTP on 0.0.0.0 sends every password .* or --insecure-http"):
        machine.check_machine(settings)


def test_a_folder_another_user_made_is_refused(tmp_path):
    """Root writes the hub's folder and homes: not below a folder another user owns or may write."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, 65534, 65534) if os.geteuid() == 0 else None
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    for folder in (theirs / "hub", open_to_all / "hub", tmp_path / "link"):
        if folder.name == "link":
            folder.symlink_to(open_to_all)
        with pytest.raises(hub.HubError, match="is not root's alone"):
            machine.check_root_owned(folder)
    if os.geteuid() == 0:
        tmp_path.chmod(0o755)
        machine.check_root_owned(sticky / "hub")  # as /tmp/<a folder root makes> is
        machine.check_root_owned("/srv/bdl-hub")


def test_a_sandbox_bubblewrap_cannot_make_is_named(tmp_path, bubblewrap):
    """The one-line cause when bwrap fails: AppArmor's switch (Ubuntu 24.04) when it is on (a missing
    bwrap is named before the switch is read, so the test needs one)."""
    switch = tmp_path / "apparmor_restrict_unprivileged_userns"
    switch.write_text("1\n")
    assert bwrap.unusable(run_as=["false"], switch=switch) == bwrap.APPARMOR
    switch.write_text("0\n")
    assert bwrap.unusable(run_as=["false"], switch=switch).startswith("bubblewrap cannot make a sandbox here")
    if bwrap.bwrap():
        assert bwrap.unusable(switch=switch) is None
        if os.geteuid() == 0:  # as a user who is not root, as the instructor grades on the hub
            assert bwrap.unusable(run_as=["runuser", "-u", "nobody", "--"], switch=switch) is None


def test_the_url_printed_is_one_a_browser_opens():
    from autograder.hub.setup import browser_host

    assert browser_host("127.0.0.1") == "127.0.0.1" and browser_host("::1") == "[::1]"
    assert browser_host("0.0.0.0") == browser_host("::") == socket.getfqdn() != "0.0.0.0"


def test_a_hub_folder_in_tmp_is_refused_with_limits(tmp_path):
    """Each server's /tmp is its own: homes or the hub's folder in the machine's /tmp would vanish."""
    settings = hub.HubSettings(hub_dir="/tmp/a-hub", ip="127.0.0.1")
    with pytest.raises(hub.HubError, match="is in /tmp, which each server sees as a /tmp of its own"):
        machine.check_machine(settings)


def test_a_server_whose_limits_cannot_be_set_does_not_start(tmp_path, monkeypatch):
    """Fail closed: a cgroup that cannot be made refuses the server, naming --no-limits, which starts it."""
    from types import SimpleNamespace

    from autograder.hub import spawner

    (tmp_path / "memory").write_text("where the memory hierarchy should be")
    monkeypatch.setattr(spawner, "CGROUP", tmp_path)
    server = spawner.CourseSpawner(
        user=SimpleNamespace(name="nobody", url="/", server=None), mem_limit="1G", max_tasks=64
    )
    with pytest.raises(PermissionError, match="no server for nobody: its limits cannot be set .* --no-limits"):
        server.make_preexec_fn("nobody")
    server.limits = False
    assert callable(server.make_preexec_fn("nobody"))


@pytest.mark.parametrize("limits", [True, False])
def test_where_systemd_is_pid_1_each_server_is_a_unit_with_its_limits(tmp_path, monkeypatch, limits):
    """(tests/system/test_hub_systemd.py starts them for real.) --no-limits: a plain process, as elsewhere."""
    from autograder.hub import spawner

    monkeypatch.setattr(spawner, "systemd_runs_this_machine", lambda: True)
    c = load_hub_config(tmp_path, limits=limits, max_tasks=77)
    if not limits:
        assert c.JupyterHub.spawner_class == "autograder.hub.spawner.CourseSpawner" and c.CourseSpawner.limits is False
        return
    assert c.JupyterHub.spawner_class == "autograder.hub.spawner.CourseSystemdSpawner"
    server = spawner.CourseSystemdSpawner(config=c, user=SimpleNamespace(name="ada", id=1, url="/", server=None))
    assert (server.hub_dir, server.max_tasks, server.isolate_tmp, server.disable_user_sudo) == (
        str(tmp_path / "hub"),
        77,
        True,
        True,
    )


@pytest.mark.parametrize("spawner_class", ["CourseSpawner", "CourseSystemdSpawner"])
def test_no_server_for_a_name_outside_the_roster_and_staff(tmp_path, spawner_class):
    import asyncio

    from autograder.hub import spawner

    c = load_hub_config(tmp_path, instructor="grace", students=[{"id": "ada"}])
    server = getattr(spawner, spawner_class)(config=c, user=SimpleNamespace(name="mallory", id=9, url="/", server=None))
    with pytest.raises(PermissionError, match="'mallory' is neither in the roster nor staff"):
        asyncio.run(server.start())


def test_staff_in_the_roster_is_refused(tmp_path):
    settings = hub.HubSettings(hub_dir=str(tmp_path), instructor="ada", students=[{"id": "ada"}])
    with pytest.raises(hub.HubError, match="'ada' is staff and also in the roster"):
        machine.check_machine(settings)


def test_the_command_says_why_in_one_line(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "hub",
            "--dir",
            str(tmp_path / "hub"),
            "--dummy",
            "--ip",
            "0.0.0.0",
            "--setup-only",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "autograder: error: --dummy lets anyone in with one password: it is refused unless the hub listens "
        "on 127.0.0.1 (not 0.0.0.0)"
    ]
    assert not (tmp_path / "hub").exists()  # refused before anything was made


def load_hub_config(tmp_path, **settings):
    """JupyterHub's config as JupyterHub loads it, from a hub folder holding settings.json."""
    folder = tmp_path / "hub"
    folder.mkdir()
    shutil.copy(REPO / "autograder" / "hub" / "jupyterhub_config.py", folder / "jupyterhub_config.py")
    (folder / "settings.json").write_text(json.dumps(asdict(hub.HubSettings(hub_dir=str(folder), **settings))))
    (folder / "dummy-password").write_text("a password\n")
    return PyFileConfigLoader("jupyterhub_config.py", path=str(folder)).load_config()


def test_the_config_gives_nbgrader_its_groups_and_roles(tmp_path):
    students = [{"id": "ada"}, {"id": "alan"}]
    c = load_hub_config(tmp_path, instructor="grace", graders=["ken"], students=students)
    assert c.JupyterHub.authenticator_class == "native" and c.NativeAuthenticator.open_signup is False
    assert c.Authenticator.admin_users == {"grace"}
    assert c.CourseSpawner.limits is True and c.CourseOnly.max_tasks == 1024
    # the hub's log in a file of its own, rotated: the config JupyterHub's logging is made from
    from traitlets.utils.nested_update import nested_update  # how traitlets merges it into its own

    logging.config.dictConfig(
        nested_update(
            {
                "version": 1,
                "handlers": {"console": {"class": "logging.NullHandler"}},
                "disable_existing_loggers": False,
            },
            dict(c.JupyterHub.logging_config),
        )
    )
    log_file = next(
        handler
        for handler in logging.getLogger("JupyterHub").handlers
        if isinstance(handler, logging.handlers.RotatingFileHandler)
    )
    assert log_file.baseFilename == str(tmp_path / "hub" / "logs" / "jupyterhub.log")
    assert log_file.maxBytes == 10 * 2**20 and log_file.backupCount == 5
    logging.getLogger("JupyterHub").handlers.clear()
    copy.deepcopy(c)  # as traitlets does with every value of a config
    assert (tmp_path / "hub" / "logs").stat().st_mode & 0o777 == 0o700
    assert c.CourseSpawner.tmp_root == str(tmp_path / "hub" / "tmp")
    assert c.JupyterHub.load_groups == {
        "nbgrader-bdl": {"users": ["ada", "alan"]},
        "formgrade-bdl": {"users": ["grace", "ken", "grader-bdl"]},
    }
    roles = {role["name"]: role for role in c.JupyterHub.load_roles}
    # a server's token does what nbgrader does with it, never all its owner may (the instructor is an admin)
    assert "inherit" not in roles["server"]["scopes"]
    assert not [
        scope
        for scope in roles["server"]["scopes"]
        if scope.startswith(("admin", "servers", "tokens")) or scope in ("users", "groups", "access:servers")
    ]
    assert "read:users:groups!user" in roles["server"]["scopes"]
    assert not [scope for scope in roles["server"]["scopes"] if scope.startswith("groups")]
    # only the roster and the staff get in or get a server, whoever the instructor approves
    assert c.CourseOnly.hub_dir == str(tmp_path / "hub")  # the roster read at each login and start
    assert hub.course_names(tmp_path / "hub") == {"grace", "ken", "ada", "alan"}
    assert c.Authenticator.post_auth_hook.__name__ == "_only_the_course"
    # a server never gets the hub's PYTHONPATH, which names this repository
    assert "PYTHONPATH" not in c.Spawner.env_keep and "PYTHONPATH" not in c.Spawner.environment
    # the staff open the course's service, and no one's server but their own (a grader not the instructor's)
    assert roles["formgrade-bdl"]["scopes"] == [
        "access:services!service=bdl",
        "list:services",
        "read:services!service=bdl",
    ]
    assert roles["formgrade-bdl"]["groups"] == ["formgrade-bdl"]
    assert roles["bdl-service"] == {
        "name": "bdl-service",
        "services": ["bdl"],
        "scopes": ["list:users", "read:users", "list:groups", "read:groups", "groups!group=nbgrader-bdl"],
    }
    services = {service["name"]: service for service in c.JupyterHub.services}
    assert services["bdl"]["url"].startswith("http://127.0.0.1:") and "command" not in services["bdl"]
    assert services["bdl"]["api_token"] == (tmp_path / "hub" / "bdl-token").read_text().strip()
    # root starts it (and drops to the course account), without the hub waiting for it
    assert "user" not in services["course-server"] and "url" not in services["course-server"]
    assert services["course-server"]["command"][-2:] == ["autograder.hub.course_service", str(tmp_path / "hub")]
    assert c.JupyterHub.spawner_class == "autograder.hub.spawner.CourseSpawner"
    assert c.Spawner.environment["BDL_EXCHANGE"] == str(tmp_path / "hub" / "exchange")
    assert c.Spawner.mem_limit == "4.0G" and c.Spawner.cpu_limit == 2.0
    assert c.JupyterHub.services[0]["name"] == "idle-culler"
    # the roster service's token, root's alone; its role manages users and the students' group, no more
    assert c.JupyterHub.services[1] == {
        "name": "roster",
        "api_token": (tmp_path / "hub" / "roster-token").read_text().strip(),
    }
    assert (tmp_path / "hub" / "roster-token").stat().st_mode & 0o777 == 0o600
    assert set(roles["roster"]["scopes"]) == {"admin:users", "list:groups", "read:groups", "groups!group=nbgrader-bdl"}


def test_the_dummy_config_lets_in_only_the_course(tmp_path):
    c = load_hub_config(tmp_path, ip="127.0.0.1", dummy=True, instructor="grace", students=[{"id": "ada"}])
    assert c.JupyterHub.authenticator_class == "dummy"
    assert c.DummyAuthenticator.password == "a password"
    assert c.Authenticator.allow_all and c.Authenticator.post_auth_hook.__name__ == "_only_the_course"
    assert c.JupyterHub.bind_url == "http://127.0.0.1:8000"


def test_a_python_in_roots_home_is_not_shared(tmp_path):
    closed = tmp_path / "closed"
    (closed / "bin").mkdir(parents=True)
    program = closed / "bin" / "python3.11"
    program.write_text("")
    program.chmod(0o755)
    closed.chmod(0o700)
    try:
        assert not environment._everyone_can_run(program)
    finally:
        closed.chmod(0o755)
    assert environment._everyone_can_run(program) == all(p.stat().st_mode & 1 for p in [program, *program.parents])
    assert Path(environment.shared_python()).exists()


def _names(requirements):
    return {canonicalize_name(Requirement(dep).name) for dep in requirements}


def test_the_hubs_environment_takes_the_students_the_instructors_and_the_hubs_pins_not_the_tests():
    """Every student's server and kernel runs from the hub's environment: no test runner lands there."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    names = _names(environment.hub_requirements())
    assert {"jupyterhub", "jupyterhub-nativeauthenticator", "jupyterhub-idle-culler"} <= names
    assert {"psutil", "distributed", "nbgrader", "tensorflow-probability"} <= names  # the instructor grades there
    assert not names & {"pytest", "pytest-xdist", "nbval", "playwright"}
    assert (
        environment.hub_requirements()[: len(pyproject["project"]["dependencies"])]
        == pyproject["project"]["dependencies"]
    )
    # what an environment installed when the hub took every pin holds, and loses
    assert _names(environment.left_out()) == _names(pyproject["project"]["optional-dependencies"]["test"])


def test_a_change_of_groups_installs_the_hubs_environment_again(monkeypatch):
    key = environment.environment_key(environment.hub_requirements())
    assert environment.environment_key(environment.hub_requirements()) == key  # the same pins: kept
    monkeypatch.setattr(environment, "HUB_GROUPS", ("instructor", "hub", "test"))
    assert environment.environment_key(environment.hub_requirements()) != key


def test_a_repository_other_users_can_read_is_refused_in_one_line():
    import tempfile

    base = Path(tempfile.mkdtemp(dir="/tmp"))  # every folder above it lets others through, as /opt does
    try:
        course = base / "opt" / "bdl-course"
        course.mkdir(parents=True)
        for folder in (base, base / "opt", course):
            folder.chmod(0o755)  # a default clone
        with pytest.raises(hub.HubError) as refused:
            machine.check_private(course)
        assert "\n" not in str(refused.value) and f"chmod o-rwx '{course}'" in str(refused.value)
        course.chmod(0o750)
        machine.check_private(course)
        course.chmod(0o755)
        (base / "opt").chmod(0o750)  # a closed folder above it does as well
        machine.check_private(course)
    finally:
        shutil.rmtree(base)


def test_a_private_file_is_never_readable_by_others_and_no_link_is_followed(tmp_path):
    path = tmp_path / "secret"
    private_file(path, "s3cret\n")
    assert path.stat().st_mode & 0o777 == 0o600 and path.read_text() == "s3cret\n"
    (tmp_path / "elsewhere").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        private_file(tmp_path / "link", "s3cret")
    assert (tmp_path / "elsewhere").read_text() == ""


def test_no_password_or_roster_goes_on_a_command_line(tmp_path, monkeypatch):
    from autograder.hub import roster, setup

    calls = []
    monkeypatch.setattr(
        setup, "run_command", lambda command, what, input=None, **kwargs: calls.append((command, input)) or "created"
    )
    monkeypatch.setattr(
        roster, "as_user", lambda user, command, settings, what, cwd=None, input=None: calls.append((command, input))
    )
    settings = hub.HubSettings(hub_dir=str(tmp_path), students=[{"id": "ada", "email": "ada@example.org"}])
    password, _ = setup.instructor_login(settings)
    roster.sync_gradebook(settings, None, tmp_path)
    assert (tmp_path / "instructor-password").stat().st_mode & 0o777 == 0o600
    (login, given), (roster, rows) = calls
    assert given == password and not [part for part in login if password in str(part)]
    assert "ada@example.org" in rows and not [part for part in roster if "ada@example.org" in str(part)]


def test_root_follows_no_link_in_the_course_accounts_home(tmp_path):
    import pwd as passwords

    from autograder.hub import setup

    home = tmp_path / "home"
    home.mkdir()
    (home / "bdl").symlink_to("/etc")
    instructor = passwords.struct_passwd(("grace", "x", 1000, 1000, "", str(home), "/bin/bash"))
    with pytest.raises(hub.HubError, match="symbolic link"):
        setup.prepare_course(hub.HubSettings(hub_dir=str(tmp_path)), instructor)


def test_no_server_runs_outside_the_roster_or_as_a_system_account():
    import pwd as passwords

    from autograder.hub.spawner import refusal

    assert "neither in the roster nor staff" in refusal("ada", ["grace"])
    assert "system account (uid 1)" in refusal("daemon", ["daemon"])
    users = [entry.pw_name for entry in passwords.getpwall() if 1000 <= entry.pw_uid < 60000]
    if users:
        assert refusal(users[0], [users[0]]) is None


def test_an_existing_system_account_is_never_adopted(tmp_path):
    from autograder.hub.accounts import ensure_user

    with pytest.raises(hub.HubError, match="system account"):
        ensure_user("daemon", tmp_path)


def test_nbgraders_log_is_set_aside_past_its_size(tmp_path):
    from autograder.hub.setup import rotate

    log = tmp_path / ".nbgrader.log"
    log.write_text("small")
    assert not rotate(log, max_bytes=10, kept=3) and log.read_text() == "small"
    for text in ("first run's log", "second run's log", "third run's log", "fourth run's log"):
        log.write_text(text)
        assert rotate(log, max_bytes=10, kept=3) and not log.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == [".nbgrader.log.1", ".nbgrader.log.2", ".nbgrader.log.3"]
    assert (tmp_path / ".nbgrader.log.1").read_text() == "fourth run's log"
    assert (tmp_path / ".nbgrader.log.3").read_text() == "second run's log"  # the oldest, first, dropped


def test_a_new_database_with_the_instructors_login_is_one_jupyterhub_starts_on(tmp_path):
    """The instructor's login is made before JupyterHub's first start (and the service's --upgrade-db): the
    database must then hold JupyterHub's tables at its version, not NativeAuthenticator's alone, which
    JupyterHub takes for a database of version 0.6 and refuses."""
    from jupyterhub import dbutil, orm
    from nativeauthenticator.orm import UserInfo  # on JupyterHub's tables' list, as in the hub, which loads it first
    from sqlalchemy import create_engine

    url = f"sqlite:///{tmp_path / 'jupyterhub.sqlite'}"
    for _ in range(2):  # a second start finds the account made
        made = subprocess.run(
            [sys.executable, "-m", "autograder.hub.make_instructor", url, "prof"],
            input="a-long-password",
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    assert made == ""
    orm.check_db_revision(create_engine(url))  # raises on a version other than this JupyterHub's
    dbutil.upgrade_if_needed(url)  # nothing to upgrade
    session = orm.new_session_factory(url)()
    assert UserInfo.find(session, "prof").is_valid_password("a-long-password")


def test_every_user_name_the_hub_makes_is_a_student_id_grade_keeps():
    """The hub's rule for user names lies inside `grade`'s for student ids: a name the hub accepts is the
    id its submission is graded under, never another student's."""
    import random
    import re

    from autograder.grading.collect import student_id

    rng = random.Random(0)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_-.A "
    names = ["a", "ada", "a-1", "grader-bdl", "x" * 32] + [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 34))) for _ in range(20000)
    ]
    accepted = [name for name in names if hub.USERNAME.fullmatch(name)]
    assert len(accepted) > 100
    assert all(student_id(name) == name for name in accepted)
    assert all(re.fullmatch(r"[a-z][a-z0-9_-]{0,31}", name) for name in accepted)  # still a Unix user name
