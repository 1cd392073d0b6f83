"""The hub's settings (HUB_DIR/settings.json, read back by ``jupyterhub_config.py`` inside JupyterHub),
the roster, the environment every user's server gets, and the one-line error of every hub step."""
import csv
import ipaddress
import json
import os
import re
import secrets
import shutil
import stat
import subprocess
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from autograder.course.directory import COURSE_ID, REPO

DEFAULT_DIR = "/srv/bdl-hub"
# the hub's folder in each cgroup hierarchy: one subfolder per user (hub.spawner)
CGROUP_GROUP = "bdl-hub"
# The oldest Node.js the proxy (configurable-http-proxy 4.6, deploy/proxy/package.json) is run on here:
# Debian 12's and Ubuntu 24.04's own.
NODE_MAJOR = 18
# A Unix user name the hub makes: also a student id that `grade` keeps as it is (``grading.collect.student_id``
# would strip a leading or trailing _, and "ada_" would be graded as "ada"); tests/unit/test_hub_setup.py
# holds the two rules together.
USERNAME = re.compile(r"[a-z]([a-z0-9_-]{0,30}[a-z0-9-])?")
# Accounts below this uid are the system's (postgres, www-data, a cloud image's sudoer): no server runs as one.
FIRST_USER_UID = 1000
ROSTER_FIELDS = ("first_name", "last_name", "email")


@dataclass
class HubSettings:
    """What jupyterhub_config.py reads (HUB_DIR/settings.json): the hub's addresses, users and limits."""
    hub_dir: str
    course_id: str = COURSE_ID
    ip: str = "0.0.0.0"
    port: int = 8000
    hub_port: int = 8081  # the hub's own API, for the proxy and the users' servers (127.0.0.1)
    proxy_api_port: int = 8001
    course_port: int = 8002  # the course's service, formgrader's JupyterLab (127.0.0.1)
    instructor: str = "instructor"
    graders: list = field(default_factory=list)  # teaching assistants: with the instructor, the course's service
    students: list = field(default_factory=list)
    dummy: bool = False  # every user logs in with one shared password (tests, demos on 127.0.0.1)
    memory_gib: float = 4.0
    cpus: float = 2.0
    staff_memory_gib: float = 8.0  # the course's service: the staff grade there, a slot per 2 GiB
    staff_cpus: float = 4.0
    idle_timeout: int = 3600
    ssl_cert: str = ""
    ssl_key: str = ""
    insecure_http: bool = False  # plain HTTP off 127.0.0.1: passwords cross the network in clear
    limits: bool = True  # False (--no-limits): servers start without their cgroup limits and private /tmp
    max_tasks: int = 1024  # processes and threads per user's server (TensorFlow starts dozens per kernel)
    home_root: str = "/home"  # where new accounts' homes go

    @property
    def exchange(self):
        return str(Path(self.hub_dir) / "exchange")

    @property
    def course_account(self):
        """The Unix account that owns the course folder and runs the course's service (nbgrader's grader
        account for several graders): no one logs in as it."""
        return f"grader-{self.course_id}"

    @property
    def venv(self):
        return str(Path(self.hub_dir) / "venv")

    @property
    def tmp_root(self):
        """Each user's private /tmp is a folder in here."""
        return str(Path(self.hub_dir) / "tmp")


class HubError(ValueError):
    """A problem with the command's input or the machine, said in one line."""


def default(name):
    """The default of the setting ``name``: the command line shows the dataclass's, never its own."""
    return next(item.default for item in fields(HubSettings) if item.name == name)


def stored_settings(hub_dir):
    """The settings kept in HUB_DIR/settings.json, or the defaults where there are none yet."""
    path = Path(hub_dir) / "settings.json"
    stored = json.loads(path.read_text()) if path.exists() else {}
    known = {item.name for item in fields(HubSettings)} - {"hub_dir"}
    return HubSettings(hub_dir=str(hub_dir), **{name: value for name, value in stored.items() if name in known})


def people(settings):
    """The course's people: the staff and the roster."""
    return {settings.instructor, *settings.graders, *(student["id"] for student in settings.students)}


def course_names(hub_dir):
    """Who may log in and have a server, as HUB_DIR/settings.json says now: the roster and the staff."""
    return people(stored_settings(hub_dir))


def updated(settings, given):
    """``settings`` with the options ``given`` ({field: value}, None for an option not given) written
    over it: what a command line changes, every other setting kept as stored."""
    return replace(settings, **{name: value for name, value in given.items() if value is not None})


def read_roster(path):
    """Return the roster's students: dicts with ``id`` and any of first_name, last_name, email
    (nbgrader's roster format: a CSV with an ``id`` column)."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    if rows and "id" not in rows[0]:
        raise HubError(f"{path}: the roster needs an 'id' column (nbgrader's format: id,first_name,last_name,email)")
    students, seen = [], set()
    for number, row in enumerate(rows, start=2):
        name = (row.get("id") or "").strip()
        if not USERNAME.fullmatch(name):
            raise HubError(f"{path}, line {number}: {name!r} is not a Unix user name "
                           "(lower-case letters, digits, _ and -, at most 32, starting with a letter, not ending with _)")
        if name in seen:
            raise HubError(f"{path}, line {number}: {name!r} is in the roster twice")
        seen.add(name)
        students.append({"id": name, **{key: (row.get(key) or "").strip() for key in ROSTER_FIELDS}})
    return students


def check_machine(settings):
    """Raise HubError saying why the options are refused, or naming what this machine lacks for the hub."""
    if settings.dummy and not ipaddress.ip_address(settings.ip).is_loopback:
        raise HubError(f"--dummy lets anyone in with one password: it is refused unless the hub listens on "
                       f"127.0.0.1 (not {settings.ip})")
    for name in [settings.instructor, *settings.graders]:
        if not USERNAME.fullmatch(name):
            raise HubError(f"{name!r} is not a Unix user name")
        if name in {student["id"] for student in settings.students}:
            raise HubError(f"{name!r} is staff and also in the roster")
    if not USERNAME.fullmatch(settings.course_account):
        raise HubError(f"the course account {settings.course_account!r} (grader-COURSE) is not a Unix user name: "
                       "choose a shorter --course-id of lower-case letters and digits")
    if settings.course_account in people(settings):
        raise HubError(f"{settings.course_account!r} is the course's account: no one logs in as it")
    if bool(settings.ssl_cert) != bool(settings.ssl_key):
        raise HubError("--ssl-cert and --ssl-key go together")
    if not settings.ssl_cert and not ipaddress.ip_address(settings.ip).is_loopback and not settings.insecure_http:
        raise HubError(f"plain HTTP on {settings.ip} sends every password and notebook in clear: give --ssl-cert "
                       "and --ssl-key, or --ip 127.0.0.1 behind a proxy that terminates TLS, or --insecure-http")
    for folder in (settings.hub_dir, settings.home_root):
        check_root_owned(folder)
        if settings.limits and Path(os.path.realpath(folder)).is_relative_to("/tmp"):
            raise HubError(f"{folder} is in /tmp, which each server sees as a /tmp of its own: "
                           "choose another folder (or --no-limits)")
    if os.geteuid() != 0:
        raise HubError("run as root: each user's server runs in that user's own Unix account")
    check_private(REPO)
    for program, package in (("npm", "npm (with nodejs)"), ("node", "nodejs"), ("useradd", "passwd"),
                             ("runuser", "util-linux")):
        if not shutil.which(program):
            raise HubError(f"needs {program!r}: install the Debian package {package}")
    node = run_command(["node", "--version"], "asking Node.js its version").strip()
    if int(node.lstrip("v").split(".")[0]) < NODE_MAJOR:
        raise HubError(f"the proxy (configurable-http-proxy 4.6) is run on Node.js {NODE_MAJOR} or later; "
                       f"this machine has {node}")


def check_root_owned(path):
    """Refuse a folder root is to write in that another user could have made or could change: every
    existing folder on its path, as given and as resolved, must be root's (a link too), and one that
    others may write must be sticky (as /tmp is), so that no one swaps a part of it for a link of theirs."""
    given = Path(os.path.abspath(path))
    for folder in (given, *given.parents, *(lambda real: (real, *real.parents))(Path(os.path.realpath(given)))):
        if not os.path.lexists(folder):
            continue
        status = os.lstat(folder)
        open_to_others = status.st_mode & 0o022 and not status.st_mode & stat.S_ISVTX
        if status.st_uid != 0 or (open_to_others and not stat.S_ISLNK(status.st_mode)):
            raise HubError(f"{folder} is not root's alone (owner uid {status.st_uid}, mode "
                           f"{stat.S_IMODE(status.st_mode):o}): root will not write below it; choose another folder")


def readable_by_others(path):
    """Whether a user other than the owner (a student) can read the folder ``path``: it lets others in,
    and so does every folder above it."""
    path = Path(path).resolve()
    if not os.stat(path).st_mode & 0o005:
        return False
    return all(os.stat(folder).st_mode & 0o001 for folder in path.parents)


def check_private(repository):
    """Refuse to run a hub from a repository its students could read: it holds every answer."""
    if readable_by_others(repository):
        raise HubError(f"the course repository {repository} is readable by other users, and it holds every "
                       f"answer and hidden test: run chmod o-rwx '{repository}' first")


def private_file(path, text):
    """Write ``text`` to ``path``, readable by its owner only from the moment it exists."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    os.fchmod(handle, 0o600)
    with os.fdopen(handle, "w") as file:
        file.write(text)


def run_command(command, what, input=None, **kwargs):
    """Run ``command`` (with ``input`` on its stdin: a secret never goes on a command line, which every
    user sees in ``ps``); raise HubError with the end of its output when it fails."""
    stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
    result = subprocess.run(command, capture_output=True, text=True, **stdin, **kwargs)
    if result.returncode:
        raise HubError(f"{what} failed ({' '.join(map(str, command[:3]))} ...): "
                       f"{(result.stderr or result.stdout).strip()[-2000:]}")
    return result.stdout


def hub_environment(settings):
    """What every user's server, terminal and kernel gets: the course's environment and the exchange."""
    return {"PATH": f"{settings.venv}/bin:/usr/local/bin:/usr/bin:/bin",
            "BDL_EXCHANGE": settings.exchange, "BDL_DATA_DIR": str(Path(settings.hub_dir) / "data"),
            "TF_USE_LEGACY_KERAS": "1"}


def course_environment(settings, home):
    """What the course's service adds: the course folder's ``autograder`` (formgrader's config imports
    it; ``python -m autograder`` and its grading workers run it), and the Jupyter config that lets
    JupyterLab show formgrader in its own tab (``environment.write_user_config``)."""
    return {"PYTHONPATH": str(Path(home) / settings.course_id), "JUPYTER_CONFIG_PATH": course_config(settings)}


def course_config(settings):
    """The folder of the Jupyter config only the course's service reads."""
    return str(Path(settings.hub_dir) / "course-jupyter")


def service_token(settings, name):
    """The API token of the hub's service ``name`` (HUB_DIR/<name>-token: made once, root's alone)."""
    path = Path(settings.hub_dir) / f"{name}-token"
    if not path.exists():
        private_file(path, secrets.token_hex(32) + "\n")
    return path.read_text().strip()


def dummy_password(settings):
    path = Path(settings.hub_dir) / "dummy-password"
    if not path.exists():
        private_file(path, secrets.token_urlsafe(12) + "\n")
    return path.read_text().strip()


