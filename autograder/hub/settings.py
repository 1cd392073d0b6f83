"""The hub's settings (HUB_DIR/settings.json, read back by ``jupyterhub_config.py`` inside JupyterHub) and
what follows from them alone: the course's people, the environment every user's server gets; and the
one-line error of every hub step. JupyterHub's process imports this module: it reads files, runs nothing."""

import json
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from autograder.course.directory import COURSE_ID

DEFAULT_DIR = "/srv/bdl-hub"
# the hub's folder in each cgroup hierarchy: one subfolder per user (hub.spawner)
CGROUP_GROUP = "bdl-hub"
# A Unix user name the hub makes: also a student id that `grade` keeps as it is (``grading.collect.student_id``
# would strip a leading or trailing _, and "ada_" would be graded as "ada");
# tests/unit/autograder/hub/test_hub_setup.py holds the two rules together.
USERNAME = re.compile(r"[a-z]([a-z0-9_-]{0,30}[a-z0-9-])?")
# Accounts below this uid are the system's (postgres, www-data, a cloud image's sudoer): no server runs as one.
FIRST_USER_UID = 1000


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


def hub_environment(settings):
    """What every user's server, terminal and kernel gets: the course's environment and the exchange."""
    return {
        "PATH": f"{settings.venv}/bin:/usr/local/bin:/usr/bin:/bin",
        "BDL_EXCHANGE": settings.exchange,
        "BDL_DATA_DIR": str(Path(settings.hub_dir) / "data"),
        "TF_USE_LEGACY_KERAS": "1",
    }


def course_environment(settings, home):
    """What the course's service adds: the course folder's ``autograder`` (formgrader's config imports
    it; ``python -m autograder`` and its grading workers run it), and the Jupyter config that lets
    JupyterLab show formgrader in its own tab (``environment.write_user_config``)."""
    return {"PYTHONPATH": str(Path(home) / settings.course_id), "JUPYTER_CONFIG_PATH": course_config(settings)}


def course_config(settings):
    """The folder of the Jupyter config only the course's service reads."""
    return str(Path(settings.hub_dir) / "course-jupyter")
