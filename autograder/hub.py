"""``python -m autograder hub``: the course on a JupyterHub on one machine, for a whole class.

Run as root. Each step is skipped when it is done already, so running it again
restarts the hub with new students added:

- HUB_DIR/venv: the course's pinned environment (pyproject.toml), installed from a
  copy of the packages, never the repository, so no user needs to read this
  repository (it holds every answer). Every user's server and kernel run from it.
- HUB_DIR/proxy: configurable-http-proxy, pinned by deploy/proxy/package-lock.json.
- HUB_DIR/data: the data step's arrays, readable by every user.
- HUB_DIR/exchange: nbgrader's exchange, outside every home; its course folder
  belongs to the instructor, so no student can plant an assignment there.
- a Unix account per user (the instructor and the roster's students), home
  mode 0700; the instructor's course folder ~/<course>, a copy of this course.
- the gradebook's students and the hub's groups (nbgrader-<course> for students,
  formgrade-<course> for instructors) from the roster.

Then it runs JupyterHub with HUB_DIR/jupyterhub_config.py (autograder/hub_config.py)
until it is stopped.
"""
import csv
import hashlib
import ipaddress
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

from autograder.course import REPO

DEFAULT_DIR = "/srv/bdl-hub"
PROXY_PACKAGE = REPO / "deploy" / "proxy"
NODE_MAJOR = 20  # what configurable-http-proxy 5 (deploy/proxy/package.json) runs on
# a course folder's parts that are the instructor's work or can be made again: not copied
NOT_COURSE = (".git", ".venv", "data", "build", "test-artifacts", "exchange", "gradebook.db", "submitted",
              "submitted_replaced", "autograded", "feedback", "grading_status", "reports", "guides",
              "grades.csv", "__pycache__", "*.egg-info", ".pytest_cache", ".ipynb_checkpoints")
USERNAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
ROSTER_FIELDS = ("first_name", "last_name", "email")


@dataclass
class HubSettings:
    """What hub_config.py reads (HUB_DIR/settings.json): the hub's addresses, users and limits."""
    hub_dir: str
    course_id: str = "bdl"
    ip: str = "0.0.0.0"
    port: int = 8000
    hub_port: int = 8081  # the hub's own API, for the proxy and the users' servers (127.0.0.1)
    proxy_api_port: int = 8001
    instructor: str = "instructor"
    graders: list = field(default_factory=list)  # teaching assistants: formgrader in the instructor's server
    students: list = field(default_factory=list)
    dummy: bool = False  # every user logs in with one shared password (tests, demos on 127.0.0.1)
    memory_gib: float = 4.0
    cpus: float = 2.0
    idle_timeout: int = 3600
    ssl_cert: str = ""
    ssl_key: str = ""

    @property
    def exchange(self):
        return str(Path(self.hub_dir) / "exchange")

    @property
    def venv(self):
        return str(Path(self.hub_dir) / "venv")


class HubError(ValueError):
    """A problem with the command's input or the machine, said in one line."""


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
                           "(lower-case letters, digits, _ and -, at most 32, not starting with a digit)")
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
    if bool(settings.ssl_cert) != bool(settings.ssl_key):
        raise HubError("--ssl-cert and --ssl-key go together")
    if os.geteuid() != 0:
        raise HubError("run as root: each user's server runs in that user's own Unix account")
    for program, package in (("npm", "npm (with nodejs)"), ("node", "nodejs"), ("useradd", "passwd"),
                             ("runuser", "util-linux")):
        if not shutil.which(program):
            raise HubError(f"needs {program!r}: install the Debian package {package}")
    node = _run(["node", "--version"], "asking Node.js its version").strip()
    if int(node.lstrip("v").split(".")[0]) < NODE_MAJOR:
        raise HubError(f"the proxy (configurable-http-proxy 5) needs Node.js {NODE_MAJOR} or later; "
                       f"this machine has {node}")


def _digest(*paths):
    """A digest of files and folders (their files' names and bytes), to tell when to reinstall."""
    digest = hashlib.sha256()
    for path in paths:
        files = sorted(p for p in Path(path).rglob("*") if p.is_file() and "__pycache__" not in p.parts) \
            if Path(path).is_dir() else [Path(path)]
        for file in files:
            digest.update(str(file.relative_to(Path(path).parent)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def _run(command, what, **kwargs):
    """Run ``command``; raise HubError with the end of its output when it fails."""
    result = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kwargs)
    if result.returncode:
        raise HubError(f"{what} failed ({' '.join(map(str, command[:3]))} ...): "
                       f"{(result.stderr or result.stdout).strip()[-2000:]}")
    return result.stdout


def _everyone_can_run(path):
    """Whether every user can run the program at ``path``: it and each folder above it open to others."""
    path = Path(os.path.realpath(path))
    return all(os.stat(part).st_mode & 0o001 for part in (path, *path.parents))


def shared_python():
    """A Python 3.11 every user can run (this one, unless it lives in root's home as pyenv's does)."""
    for candidate in (os.path.realpath(getattr(sys, "_base_executable", sys.executable)), "/usr/bin/python3.11"):
        if os.path.exists(candidate) and _everyone_can_run(candidate):
            return candidate
    raise HubError(f"no Python 3.11 that every user can run ({sys.executable} is in a folder closed to them): "
                   "install the Debian packages python3.11 and python3.11-venv")


def install_environment(settings, log=print):
    """The course's environment in HUB_DIR/venv: every pinned package, and ``bdl``, the one course package
    students import. Not ``autograder``: it is the instructor's, who gets it from the course folder."""
    venv = Path(settings.venv)
    marker = venv / ".installed"
    wanted = _digest(REPO / "pyproject.toml", REPO / "bdl")
    if marker.exists() and marker.read_text() == wanted:
        return
    log(f"installing the course's environment in {venv} (minutes the first time)")
    if not (venv / "bin" / "python").exists():
        _run([shared_python(), "-m", "venv", str(venv)], "creating the hub's environment")
    python = str(venv / "bin" / "python")
    pins = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as requirements:
        requirements.write("\n".join(pins) + "\n")
        requirements.flush()
        _run([python, "-m", "pip", "install", "--quiet", "-r", requirements.name],
             "installing the course's pinned packages in the hub's environment")
    site_packages = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                              "finding the hub's site-packages").strip())
    shutil.rmtree(site_packages / "bdl", ignore_errors=True)
    shutil.copytree(REPO / "bdl", site_packages / "bdl", ignore=shutil.ignore_patterns("__pycache__"))
    _make_readable(site_packages / "bdl")
    marker.write_text(wanted)


def _write_user_config(settings):
    """nbgrader's config for every user of the hub's environment: the course, the shared exchange, and
    the hub's groups as who takes which course (JupyterHubAuthPlugin)."""
    folder = Path(settings.venv) / "etc" / "jupyter"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text(
        "# Written by python -m autograder hub: every user of the course's hub.\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {settings.course_id!r}\n"
        f"c.Exchange.root = {settings.exchange!r}\n"
        "c.Authenticator.plugin_class = 'nbgrader.auth.JupyterHubAuthPlugin'\n")
    # JupyterLab's defaults for every user: no "get notified about Jupyter news?" (which asks the internet)
    settings_dir = Path(settings.venv) / "share" / "jupyter" / "lab" / "settings"
    settings_dir.mkdir(parents=True, exist_ok=True)
    (settings_dir / "overrides.json").write_text(json.dumps(
        {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}))


def install_proxy(settings, log=print):
    """configurable-http-proxy from the npm registry, at the version package-lock.json pins."""
    proxy = Path(settings.hub_dir) / "proxy"
    marker = proxy / ".installed"
    wanted = _digest(PROXY_PACKAGE / "package.json", PROXY_PACKAGE / "package-lock.json")
    if marker.exists() and marker.read_text() == wanted:
        return
    log(f"installing configurable-http-proxy in {proxy}")
    proxy.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(PROXY_PACKAGE / name, proxy / name)
    _run(["npm", "ci", "--omit=dev", "--no-audit", "--no-fund"], "installing configurable-http-proxy",
         cwd=proxy)
    marker.write_text(wanted)


def install_data(settings, data_dir=None):
    """The data step's arrays in HUB_DIR/data, readable by every user."""
    source = Path(data_dir or os.environ.get("BDL_DATA_DIR") or REPO / "data")
    if not (source / "provenance.json").exists():
        raise HubError(f"no prepared data in {source}: run `make data` (python -m bdl.data prepare) first")
    target = Path(settings.hub_dir) / "data"
    if (target / "provenance.json").exists() and \
            (target / "provenance.json").read_bytes() == (source / "provenance.json").read_bytes():
        return
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("README.md", "mnist.npz"))
    _make_readable(target)


def _make_readable(path):
    for folder, dirs, files in os.walk(path):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(Path(folder) / name, 0o644)


def ensure_user(name, home_root, log=print):
    """Create the Unix account ``name`` (home HOME_ROOT/name, mode 0700) unless it exists; return its
    pwd entry."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    home = Path(home_root) / name
    _run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/bash", "--user-group", name],
         f"creating the account {name!r}")
    os.chmod(home, 0o700)  # Debian's useradd leaves homes readable by everyone
    log(f"created the account {name} ({home})")
    return pwd.getpwnam(name)


def remove_accounts(names):
    """Delete the accounts ``names`` (those that exist), their homes and their cgroups; their processes
    first, as userdel refuses a user who still runs one."""
    for name in names:
        try:
            uid = pwd.getpwnam(name).pw_uid
        except KeyError:
            continue
        left = [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]
        for process in left:
            process.kill()
        psutil.wait_procs(left, timeout=30)
        subprocess.run(["userdel", "--remove", name], capture_output=True)
        for hierarchy in ("memory", "cpu", ""):
            try:
                Path("/sys/fs/cgroup", hierarchy, "bdl-hub", name).rmdir()  # empty now
            except OSError:
                pass


def prepare_exchange(settings, instructor):
    """HUB_DIR/exchange (everyone may write, as nbgrader needs; sticky, so no one removes another's
    folder) and its course folder, the instructor's (nbgrader makes outbound/, inbound/, feedback/)."""
    root = Path(settings.exchange)
    root.mkdir(parents=True, exist_ok=True)
    os.chown(root, 0, 0)
    os.chmod(root, 0o1777)
    course = root / settings.course_id
    course.mkdir(exist_ok=True)
    os.chown(course, instructor.pw_uid, instructor.pw_gid)
    os.chmod(course, 0o755)


def prepare_course(settings, instructor, log=print):
    """The instructor's course folder ~/<course>: a copy of this course unless it is there already
    (it is the instructor's from then on), and ~/.jupyter/nbgrader_config.py pointing nbgrader at it."""
    home = Path(instructor.pw_dir)
    course = home / settings.course_id
    if not course.exists():
        shutil.copytree(REPO, course, ignore=shutil.ignore_patterns(*NOT_COURSE), symlinks=True)
        log(f"copied the course to {course}")
    jupyter = home / ".jupyter"
    jupyter.mkdir(exist_ok=True)
    (jupyter / "nbgrader_config.py").write_text(
        "# Written by python -m autograder hub: formgrader and nbgrader use the course folder.\n"
        "c = get_config()  # noqa: F821\n"
        f"load_subconfig({str(course / 'nbgrader_config.py')!r})  # noqa: F821\n")
    _chown_tree(course, instructor)
    _chown_tree(jupyter, instructor)
    return course


def _chown_tree(path, user):
    os.chown(path, user.pw_uid, user.pw_gid)
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(Path(folder) / name, user.pw_uid, user.pw_gid, follow_symlinks=False)


def as_user(user, command, settings, what, cwd=None):
    """Run ``command`` as ``user`` with the hub's environment first on PATH, as their server would."""
    env = {"HOME": user.pw_dir, "USER": user.pw_name, **hub_environment(settings),
           **(instructor_environment(settings, user.pw_dir) if user.pw_name == settings.instructor else {})}
    return _run(["runuser", "-u", user.pw_name, "--", "env", *(f"{k}={v}" for k, v in env.items()), *command],
                what, cwd=cwd or user.pw_dir)


def hub_environment(settings):
    """What every user's server, terminal and kernel gets: the course's environment and the exchange."""
    return {"PATH": f"{settings.venv}/bin:/usr/local/bin:/usr/bin:/bin",
            "BDL_EXCHANGE": settings.exchange, "BDL_DATA_DIR": str(Path(settings.hub_dir) / "data"),
            "TF_USE_LEGACY_KERAS": "1"}


def instructor_environment(settings, home):
    """What the instructor's server adds: the course folder's ``autograder`` (formgrader's config imports
    it; ``python -m autograder`` and its grading workers run it)."""
    return {"PYTHONPATH": str(Path(home) / settings.course_id)}


ROSTER_SCRIPT = """
import json, sys
from nbgrader.api import Gradebook
with Gradebook(sys.argv[1]) as gradebook:
    for student in json.loads(sys.argv[2]):
        gradebook.update_or_create_student(student.pop("id"), **{k: v for k, v in student.items() if v})
"""


def sync_gradebook(settings, instructor, course):
    """The roster's students in the course's gradebook, written as the instructor."""
    as_user(instructor, [f"{settings.venv}/bin/python", "-c", ROSTER_SCRIPT, f"sqlite:///{course}/gradebook.db",
                         json.dumps(settings.students)], settings, "adding the roster to the gradebook",
            cwd=course)


INSTRUCTOR_SCRIPT = """
import sys, bcrypt
from sqlalchemy import create_engine
from sqlalchemy.orm import Session
from nativeauthenticator.orm import UserInfo
engine = create_engine(sys.argv[1])
UserInfo.__table__.create(engine, checkfirst=True)
with Session(engine) as session:
    if session.query(UserInfo).filter_by(username=sys.argv[2]).first() is None:
        session.add(UserInfo(username=sys.argv[2], is_authorized=True,
                             password=bcrypt.hashpw(sys.argv[3].encode(), bcrypt.gensalt())))
        session.commit()
        print("created")
"""


def instructor_login(settings):
    """NativeAuthenticator's account of the instructor, made before the hub starts so that no one can
    sign up under the instructor's name first; return its password (HUB_DIR/instructor-password)."""
    path = Path(settings.hub_dir) / "instructor-password"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(12) + "\n")
        path.chmod(0o600)
    password = path.read_text().strip()
    created = _run([f"{settings.venv}/bin/python", "-c", INSTRUCTOR_SCRIPT,
                    f"sqlite:///{settings.hub_dir}/jupyterhub.sqlite", settings.instructor, password],
                   "creating the instructor's login")
    return password, bool(created.strip())


def dummy_password(settings):
    path = Path(settings.hub_dir) / "dummy-password"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(12) + "\n")
        path.chmod(0o600)
    return path.read_text().strip()


def set_up(settings, home_root="/home", data_dir=None, log=print):
    """Everything but starting the hub; return the config file's path."""
    check_machine(settings)
    hub = Path(settings.hub_dir)
    hub.mkdir(parents=True, exist_ok=True)
    os.chmod(hub, 0o755)  # users read the environment and the data; the secrets in it are 0600
    database = hub / "jupyterhub.sqlite"
    database.touch()  # SQLite keeps the mode of the file it is given: tokens and passwords stay root's
    database.chmod(0o600)
    install_environment(settings, log)
    _write_user_config(settings)
    install_proxy(settings, log)
    install_data(settings, data_dir)
    instructor = ensure_user(settings.instructor, home_root, log)
    for name in [*settings.graders, *(student["id"] for student in settings.students)]:
        ensure_user(name, home_root, log)
    prepare_exchange(settings, instructor)
    course = prepare_course(settings, instructor, log)
    sync_gradebook(settings, instructor, course)
    (hub / "settings.json").write_text(json.dumps(asdict(settings), indent=1))
    config = hub / "jupyterhub_config.py"
    shutil.copy(Path(__file__).with_name("hub_config.py"), config)
    return config


def hub_process_environment(settings):
    """The environment JupyterHub runs in: the hub's venv first, none of this repository's settings."""
    env = {**os.environ, "PATH": f"{settings.venv}/bin:{os.environ.get('PATH', '/usr/bin:/bin')}",
           "PYTHONPATH": str(REPO)}  # the hub's config and spawner are autograder's, which only root reads here
    for name in ("BDL_EXCHANGE", "NBGRADER_EXECUTION", "BDL_FAST", "VIRTUAL_ENV"):
        env.pop(name, None)
    return env


def run(settings, config):
    """Replace this process with JupyterHub (stopping it stops every user's server)."""
    os.chdir(settings.hub_dir)
    os.execve(f"{settings.venv}/bin/jupyterhub", ["jupyterhub", "-f", str(config)],
              hub_process_environment(settings))


def main(args):
    students = read_roster(args.students) if args.students else []
    settings = HubSettings(hub_dir=str(Path(args.dir).resolve()), course_id=args.course_id, ip=args.ip,
                           port=args.port, hub_port=args.hub_port, proxy_api_port=args.proxy_api_port,
                           instructor=args.instructor, graders=args.graders.split(",") if args.graders else [],
                           students=students, dummy=args.dummy,
                           memory_gib=args.memory, cpus=args.cpus, idle_timeout=args.idle_timeout,
                           ssl_cert=args.ssl_cert or "", ssl_key=args.ssl_key or "")
    config = set_up(settings, args.home_root)
    scheme = "https" if settings.ssl_cert else "http"
    print(f"course {settings.course_id}: {len(students)} students, instructor {settings.instructor}; "
          f"exchange {settings.exchange}")
    if settings.dummy:
        print(f"log in as any of them with the password {dummy_password(settings)} (--dummy)")
    else:
        password, created = instructor_login(settings)
        print(f"the instructor logs in as {settings.instructor}"
              + (f" with the password {password} (also in {settings.hub_dir}/instructor-password; change it at "
                 "/hub/change-password)" if created else " with the password set before")
              + "; students sign up at /hub/signup with their roster id, and the instructor approves them "
                "at /hub/authorize")
    print(f"JupyterHub at {scheme}://{settings.ip}:{settings.port}/", flush=True)
    if args.setup_only:
        return 0
    run(settings, config)


def add_parser(commands):
    hub = commands.add_parser("hub", help="set up and run the course on a JupyterHub on this machine "
                              "(as root): accounts, shared exchange, formgrader, the course's environment")
    hub.add_argument("--dir", default=DEFAULT_DIR, help="the hub's folder: environment, proxy, data, exchange, "
                     "database, secrets (default %(default)s)")
    hub.add_argument("--students", metavar="CSV", help="the roster: a CSV with an id column (Unix user names) "
                     "and optionally first_name, last_name, email; accounts are made for new ids")
    hub.add_argument("--instructor", default="instructor", help="the instructor's user name (default %(default)s)")
    hub.add_argument("--graders", metavar="NAME,...", help="teaching assistants' user names: they open formgrader "
                     "in the instructor's server (the group formgrade-COURSE)")
    hub.add_argument("--course-id", default="bdl", help="nbgrader's course id (default %(default)s)")
    hub.add_argument("--home-root", default="/home", help="where new accounts' homes go (default %(default)s)")
    hub.add_argument("--ip", default="0.0.0.0", help="the address to listen on (default %(default)s)")
    hub.add_argument("--port", type=int, default=8000, help="the public port (default %(default)d)")
    hub.add_argument("--hub-port", type=int, default=8081, help="the hub's internal API port on 127.0.0.1")
    hub.add_argument("--proxy-api-port", type=int, default=8001, help="the proxy's API port on 127.0.0.1")
    hub.add_argument("--dummy", action="store_true", help="one shared password for every user, for a test or "
                     "a demo: refused unless --ip is 127.0.0.1")
    hub.add_argument("--memory", type=float, default=4.0, help="GiB each user's server may use (default %(default)g)")
    hub.add_argument("--cpus", type=float, default=2.0, help="cores each user's server may use (default %(default)g)")
    hub.add_argument("--idle-timeout", type=int, default=3600,
                     help="seconds before an idle server is stopped (default %(default)d)")
    hub.add_argument("--ssl-cert", help="the TLS certificate (PEM) for https")
    hub.add_argument("--ssl-key", help="the TLS key (PEM) for https")
    hub.add_argument("--setup-only", action="store_true", help="set up, print how to log in, and do not start")
