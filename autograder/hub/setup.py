"""``python -m autograder hub``: the course on a JupyterHub on one machine, for a whole class.

Run as root. It installs what the hub needs under HUB_DIR (the course's environment, the proxy, the
data, nbgrader's exchange), makes a Unix account per user and the course account whose course folder
the staff grade in, then runs JupyterHub until it is stopped. Each step is skipped when it is done
already, so running it again restarts the hub with new students added (``set_up`` lists the steps).
"""

import argparse
import ipaddress
import json
import os
import secrets
import shutil
import socket
from dataclasses import asdict
from pathlib import Path

from autograder.course.directory import REPO
from autograder.hub import backup, roster, systemd_unit
from autograder.hub.accounts import chown_tree, ensure_user
from autograder.hub.command import run_command
from autograder.hub.environment import install_data, install_environment, install_proxy, write_user_config
from autograder.hub.machine import check_machine
from autograder.hub.private import dummy_password, private_file, service_token
from autograder.hub.process import run
from autograder.hub.settings import DEFAULT_DIR, HubError, default, stored_settings, updated
from autograder.worker import bwrap

# a course folder's parts that are the instructor's work or can be made again: not copied
NOT_COURSE = (
    ".git",
    ".venv",
    "data",
    "build",
    "test-artifacts",
    "exchange",
    "gradebook.db",
    "submitted",
    "submitted_replaced",
    "autograded",
    "feedback",
    "grading_status",
    "reports",
    "guides",
    "grades.csv",
    "__pycache__",
    "*.egg-info",
    ".pytest_cache",
    ".ipynb_checkpoints",
)


def prepare_exchange(settings, owner):
    """HUB_DIR/exchange (everyone may write, as nbgrader needs; sticky, so no one removes another's
    folder) and its course folder, the course account's (nbgrader makes outbound/, inbound/, feedback/)."""
    root = Path(settings.exchange)
    root.mkdir(parents=True, exist_ok=True)
    os.chown(root, 0, 0)
    os.chmod(root, 0o1777)
    course = root / settings.course_id
    course.mkdir(exist_ok=True)
    os.chown(course, owner.pw_uid, owner.pw_gid)
    os.chmod(course, 0o755)


def prepare_course(settings, owner, log=print):
    """The course account's course folder ~/<course>: a copy of this course unless it is there already
    (the staff's work from then on), and ~/.jupyter/nbgrader_config.py pointing nbgrader at it."""
    home = Path(owner.pw_dir)
    course, jupyter = home / settings.course_id, home / ".jupyter"
    config = jupyter / "nbgrader_config.py"
    for path in (course, jupyter, config):
        if path.is_symlink():  # root writes and chowns here: it must not be sent elsewhere (/etc)
            raise HubError(f"{path} is a symbolic link: root will not follow it; remove it and run hub again")
    if not course.exists():
        shutil.copytree(REPO, course, ignore=shutil.ignore_patterns(*NOT_COURSE), symlinks=True)
        log(f"copied the course to {course}")
    jupyter.mkdir(exist_ok=True)
    config.write_text(
        "# Written by autograder hub: formgrader and nbgrader use the course folder.\n"
        "c = get_config()  # noqa: F821\n"
        f"load_subconfig({str(course / 'nbgrader_config.py')!r})  # noqa: F821\n"
    )
    chown_tree(course, owner)
    chown_tree(jupyter, owner)
    return course


# nbgrader's log in the course folder (every nbgrader command and formgrader append to it): set aside at a
# start once past this size, with this many kept (.1 the newest); the hub's own log rotates as it writes.
NBGRADER_LOG, LOG_BYTES, LOGS_KEPT = ".nbgrader.log", 10 * 2**20, 5


def rotate(path, max_bytes=LOG_BYTES, kept=LOGS_KEPT):
    """Set the log ``path`` aside as path.1 (path.1 as path.2, ..., the oldest dropped) once it is past
    ``max_bytes``; its owner and mode go with it, and the next write makes a new one."""
    path = Path(path)
    if not path.is_file() or path.is_symlink() or path.stat().st_size <= max_bytes:
        return False
    for number in range(kept - 1, 0, -1):
        older = path.with_name(f"{path.name}.{number}")
        if older.is_file() and not older.is_symlink():
            older.replace(path.with_name(f"{path.name}.{number + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))
    return True


def instructor_login(settings):
    """NativeAuthenticator's account of the instructor, made before the hub starts so that no one can
    sign up under the instructor's name first; return its password (HUB_DIR/instructor-password)."""
    path = Path(settings.hub_dir) / "instructor-password"
    if not path.exists():
        private_file(path, secrets.token_urlsafe(12) + "\n")
    password = path.read_text().strip()
    created = run_command(
        [
            f"{settings.venv}/bin/python",
            "-m",
            "autograder.hub.make_instructor",
            f"sqlite:///{settings.hub_dir}/jupyterhub.sqlite",
            settings.instructor,
        ],
        "creating the instructor's login",
        input=password,
    )
    return password, bool(created.strip())


def set_up(settings, data_dir=None, log=print):
    """Everything but starting the hub; return the config file's path. Each step is skipped when done:

    - HUB_DIR/venv: the course's pinned environment (pyproject.toml), installed from a copy of the
      packages, never the repository, so no user needs to read this repository (it holds every answer).
      Every user's server and kernel run from it.
    - HUB_DIR/proxy: configurable-http-proxy, pinned by deploy/proxy/package-lock.json.
    - HUB_DIR/data: the data step's arrays, readable by every user.
    - HUB_DIR/exchange: nbgrader's exchange, outside every home; its course folder belongs to the
      course account, so no student can plant an assignment there.
    - a Unix account per user (the instructor, the graders and the roster's students), home mode 0700,
      and the course account grader-<course>, which no one logs in as: its course folder ~/<course>, a
      copy of this course, is what the course's service (formgrader, for the instructor and the
      graders) works on.
    - the gradebook's students and the hub's groups (nbgrader-<course> for students, formgrade-<course>
      for the instructor and graders) from the roster.

    Then ``main`` runs JupyterHub with HUB_DIR/jupyterhub_config.py (autograder/hub/jupyterhub_config.py)
    until it is stopped.
    """
    from autograder.hub.spawner import NO_LIMITS, limits_unavailable  # JupyterHub's: not for every command

    check_machine(settings)
    reason = limits_unavailable() if settings.limits else None
    if reason:
        raise HubError(f"{reason}: each user's server needs its limits; {NO_LIMITS}")
    hub = Path(settings.hub_dir)
    hub.mkdir(parents=True, exist_ok=True)
    os.chmod(hub, 0o755)  # users read the environment and the data; the secrets in it are 0600
    database = hub / "jupyterhub.sqlite"
    database.touch()  # SQLite keeps the mode of the file it is given: tokens and passwords stay root's
    database.chmod(0o600)
    install_environment(settings, log)
    write_user_config(settings)
    install_proxy(settings, log)
    install_data(settings, data_dir)
    owner = ensure_user(settings.course_account, settings.home_root, log)
    reason = bwrap.unusable(run_as=["runuser", "-u", owner.pw_name, "--"])
    if reason:  # the staff grade in the course's service, as the course account, in the sandbox
        raise HubError(f"as {owner.pw_name}: {reason}")
    for name in [settings.instructor, *settings.graders, *(student["id"] for student in settings.students)]:
        ensure_user(name, settings.home_root, log)
    prepare_exchange(settings, owner)
    course = prepare_course(settings, owner, log)
    if rotate(course / NBGRADER_LOG):
        log(f"set nbgrader's log aside as {course / NBGRADER_LOG}.1")
    roster.sync_gradebook(settings, owner, course)
    for name in ("roster", settings.course_id):  # the services' tokens, before JupyterHub reads them
        service_token(settings, name)
    # the roster, with names and emails: root's alone (jupyterhub_config.py reads it as root)
    private_file(hub / "settings.json", json.dumps(asdict(settings), indent=1))
    config = hub / "jupyterhub_config.py"
    shutil.copy(Path(__file__).with_name("jupyterhub_config.py"), config)
    return config


def browser_host(ip):
    """The host a browser opens for a hub listening on ``ip``: the machine's name for every address."""
    if ipaddress.ip_address(ip).is_unspecified:  # 0.0.0.0 or ::, which no browser opens
        return socket.getfqdn()
    return f"[{ip}]" if ":" in ip else ip


# The options that are settings, kept in HUB_DIR/settings.json: a start with none of them runs the hub as
# it was set up (the service does), and one given changes that setting for good.
KEPT_OPTIONS = (
    "course_id",
    "ip",
    "port",
    "hub_port",
    "proxy_api_port",
    "course_port",
    "instructor",
    "memory_gib",
    "cpus",
    "staff_memory_gib",
    "staff_cpus",
    "idle_timeout",
    "ssl_cert",
    "ssl_key",
    "insecure_http",
    "limits",
    "max_tasks",
    "home_root",
)


def settings_from(args):
    """The hub's settings: those kept in DIR/settings.json with this command line's options written over
    them (the roster from --students, the graders from --graders); --dummy holds for this start only."""
    given = {name: getattr(args, name) for name in KEPT_OPTIONS}
    given["students"] = roster.read_roster(args.students) if args.students else None
    given["graders"] = [name for name in args.graders.split(",") if name] if args.graders is not None else None
    given["dummy"] = args.dummy
    return updated(stored_settings(Path(args.dir).resolve()), given)


def main(args):
    settings = settings_from(args)
    config = set_up(settings)
    scheme = "https" if settings.ssl_cert else "http"
    print(
        f"course {settings.course_id}: {len(settings.students)} students, instructor {settings.instructor}; "
        f"exchange {settings.exchange}; settings kept in {settings.hub_dir}/settings.json"
    )
    if settings.dummy:
        print(f"log in as any of them with the password {dummy_password(settings)} (--dummy)")
    else:
        password, created = instructor_login(settings)
        print(
            f"the instructor logs in as {settings.instructor}"
            + (
                f" with the password {password} (also in {settings.hub_dir}/instructor-password; change it at "
                "/hub/change-password)"
                if created
                else " with the password set before"
            )
            + "; students sign up at /hub/signup with their roster id, and the instructor approves them "
            "at /hub/authorize"
        )
    url = f"{scheme}://{browser_host(settings.ip)}:{settings.port}"
    print(
        f"the instructor and the graders open the course (formgrader, its folder, a terminal) at "
        f"{url}/services/{settings.course_id}/"
    )
    print(f"JupyterHub at {url}/", flush=True)
    if args.setup_only:
        return 0
    run(settings, config, upgrade_db=args.upgrade_db)


def add_parser(commands):
    hub = commands.add_parser(
        "hub",
        help="set up and run the course on a JupyterHub on this machine "
        "(as root): accounts, shared exchange, formgrader, the course's environment; "
        "or install it as a service, back it up, restore it",
        description="Set up and run the hub (no ACTION), or one of the ACTIONs (autograder hub ACTION --help).",
    )
    hub.add_argument(
        "--dir",
        default=DEFAULT_DIR,
        help="the hub's folder: environment, proxy, data, exchange, "
        "database, secrets, and settings.json, which keeps the options below (default %(default)s)",
    )
    kept = hub.add_argument_group(
        "settings",
        "kept in DIR/settings.json: given once, they hold for every later "
        "start until given again (the defaults are a first start's)",
    )
    kept.add_argument(
        "--students",
        metavar="CSV",
        help="the roster: a CSV with an id column (Unix user names) "
        "and optionally first_name, last_name, email; accounts are made for new ids",
    )
    kept.add_argument("--instructor", help=f"the instructor's user name (default {default('instructor')})")
    kept.add_argument(
        "--graders",
        metavar="NAME,...",
        help="teaching assistants' user names: with the "
        "instructor, they open the course's service (the group formgrade-COURSE); '' for none",
    )
    kept.add_argument("--course-id", help=f"nbgrader's course id (default {default('course_id')})")
    kept.add_argument("--home-root", help=f"where new accounts' homes go (default {default('home_root')})")
    kept.add_argument("--ip", help=f"the address to listen on (default {default('ip')})")
    kept.add_argument("--port", type=int, help=f"the public port (default {default('port')})")
    kept.add_argument(
        "--hub-port", type=int, help=f"the hub's internal API port on 127.0.0.1 (default {default('hub_port')})"
    )
    kept.add_argument(
        "--proxy-api-port", type=int, help=f"the proxy's API port on 127.0.0.1 (default {default('proxy_api_port')})"
    )
    kept.add_argument(
        "--course-port", type=int, help=f"the course's service's port on 127.0.0.1 (default {default('course_port')})"
    )
    kept.add_argument(
        "--memory",
        dest="memory_gib",
        type=float,
        help=f"GiB each user's server may use (default {default('memory_gib'):g})",
    )
    kept.add_argument("--cpus", type=float, help=f"cores each user's server may use (default {default('cpus'):g})")
    kept.add_argument(
        "--staff-memory",
        dest="staff_memory_gib",
        type=float,
        help=f"GiB the course's service may use: the staff grade there (default {default('staff_memory_gib'):g})",
    )
    kept.add_argument(
        "--staff-cpus", type=float, help=f"cores the course's service may use (default {default('staff_cpus'):g})"
    )
    kept.add_argument(
        "--max-tasks",
        type=int,
        help=f"processes and threads each user's server may run at once (default {default('max_tasks')})",
    )
    kept.add_argument(
        "--limits",
        action=argparse.BooleanOptionalAction,
        help="--no-limits starts servers without "
        "their memory, CPU and task limits and private /tmp where the machine cannot set them "
        "(refused otherwise; default: limits)",
    )
    kept.add_argument(
        "--idle-timeout", type=int, help=f"seconds before an idle server is stopped (default {default('idle_timeout')})"
    )
    kept.add_argument("--ssl-cert", help="the TLS certificate (PEM) for https")
    kept.add_argument("--ssl-key", help="the TLS key (PEM) for https")
    kept.add_argument(
        "--insecure-http",
        action=argparse.BooleanOptionalAction,
        help="serve plain HTTP on an "
        "address other than 127.0.0.1 (passwords in clear; refused without it unless --ssl-cert "
        "and --ssl-key are given)",
    )
    hub.add_argument(
        "--dummy",
        action="store_true",
        help="one shared password for every user, for a test or "
        "a demo, this start only: refused unless --ip is 127.0.0.1",
    )
    hub.add_argument(
        "--upgrade-db",
        action="store_true",
        help="upgrade JupyterHub's database to this JupyterHub first, if needed (the service does at every start)",
    )
    hub.add_argument("--setup-only", action="store_true", help="set up, print how to log in, and do not start")
    hub.set_defaults(run=main)
    add_actions(hub)


# What `hub ACTION` does instead of starting the hub: (name, what it does, its positional and that one's help).
ACTIONS = (
    ("install-service", systemd_unit.install_service, "write, enable and start the hub's systemd unit", None, None),
    ("backup", backup.backup_command, "copy the hub's state to a new folder", "DEST", "the new folder"),
    ("restore", backup.restore_command, "put a backup back, the hub stopped", "SOURCE", "a folder hub backup wrote"),
    ("roster", roster.roster_command, "make CSV the roster, on the running hub too", "CSV", "the roster (--students')"),
)


def add_actions(hub):
    """Each action a subcommand with its own help and options; the start's options are refused with one."""
    start_options = {
        action.dest: (action.option_strings[0], action.default) for action in hub._actions if action.option_strings
    }
    start_options.pop("help")
    start_options.pop("dir")  # the one option they share: `hub --dir D backup X` and `hub backup X --dir D`
    actions = hub.add_subparsers(dest="action", metavar="ACTION", title="actions (none: start the hub)")
    for name, function, summary, metavar, path_help in ACTIONS:
        action = actions.add_parser(name, help=summary, description=f"autograder hub {name}: {summary}.")
        if metavar:
            action.add_argument("path", metavar=metavar, help=path_help)
        action.add_argument(
            "--dir", default=argparse.SUPPRESS, help=f"the hub's folder (default {DEFAULT_DIR})"
        )  # SUPPRESS: a --dir given before the action holds
        if name == "install-service":
            systemd_unit.add_arguments(action)
        action.set_defaults(run=_refusing_start_options(function, start_options, name))


def _refusing_start_options(function, start_options, name):
    def run(args):
        given = [option for dest, (option, default) in start_options.items() if getattr(args, dest) != default]
        if given:
            raise HubError(f"{given[0]} is an option of the hub's start, not of `autograder hub {name}`")
        return function(args)

    return run
