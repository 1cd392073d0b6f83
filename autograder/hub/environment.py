"""What the hub installs, each step skipped when done: the course's environment (the pins of the students,
the instructor and the hub, and ``bdl``, from a Python every user can run), configurable-http-proxy from
npm, and the data."""

import hashlib
import json
import os
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

from autograder.course import jupyter_extensions
from autograder.course.directory import REPO
from autograder.hub.command import run_command
from autograder.hub.settings import HubError, course_config

PROXY_PACKAGE = REPO / "deploy" / "proxy"
# every package's version in the tested set (make constraints): the hub's environment installs these
CONSTRAINTS = REPO / "constraints.txt"
# pyproject's optional groups the hub's environment takes beside its dependencies (every student's server
# and kernel, and the course's service, where the staff grade, and JupyterHub itself); not ``test``: pytest, nbval
# and Playwright are the course repository's, never a student's.
HUB_GROUPS = ("instructor", "hub")


def _digest(*paths):
    """A digest of files and folders (their files' names and bytes), to tell when to reinstall."""
    digest = hashlib.sha256()
    for path in paths:
        files = (
            sorted(p for p in Path(path).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
            if Path(path).is_dir()
            else [Path(path)]
        )
        for file in files:
            digest.update(str(file.relative_to(Path(path).parent)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def _everyone_can_run(path):
    """Whether every user can run the program at ``path``: it and each folder above it open to others."""
    path = Path(os.path.realpath(path))
    return all(os.stat(part).st_mode & 0o001 for part in (path, *path.parents))


def shared_python():
    """A Python 3.11 every user can run (this one, unless it lives in root's home as pyenv's does)."""
    for candidate in (os.path.realpath(getattr(sys, "_base_executable", sys.executable)), "/usr/bin/python3.11"):
        if os.path.exists(candidate) and _everyone_can_run(candidate):
            return candidate
    raise HubError(
        f"no Python 3.11 that every user can run ({sys.executable} is in a folder closed to them): "
        "install the Debian packages python3.11 and python3.11-venv"
    )


def hub_requirements(pyproject=None):
    """The hub's environment's pins (strings, in order): pyproject's dependencies and HUB_GROUPS'."""
    project = (pyproject or tomllib.loads((REPO / "pyproject.toml").read_text()))["project"]
    return project["dependencies"] + [dep for group in HUB_GROUPS for dep in project["optional-dependencies"][group]]


def left_out(pyproject=None):
    """The names of the pins of pyproject's other optional groups (``test``'s), which the hub's environment
    must not hold."""
    project = (pyproject or tomllib.loads((REPO / "pyproject.toml").read_text()))["project"]
    return sorted(
        {
            Requirement(dep).name
            for group, deps in project["optional-dependencies"].items()
            if group not in HUB_GROUPS
            for dep in deps
        }
    )


def environment_key(pins):
    """What the hub's environment's marker holds: a digest of its requirements (pins and groups), of the
    constraints and of ``bdl``. Another key, and install_environment installs again."""
    text = "\n".join(pins).encode() + b"\0" + CONSTRAINTS.read_bytes()
    return hashlib.sha256(text + b"\0" + _digest(REPO / "bdl").encode()).hexdigest()


def install_environment(settings, log=print):
    """The course's environment in HUB_DIR/venv: the pins of hub_requirements, and ``bdl``, the one course
    package students import. Not ``autograder``: it is the staff's, who get it from the course folder.
    Reinstalled when the requirements (pins or groups) or ``bdl`` change."""
    venv = Path(settings.venv)
    marker = venv / ".installed"
    pins = hub_requirements()
    wanted = environment_key(pins)
    if marker.exists() and marker.read_text() == wanted:
        return
    log(f"installing the course's environment in {venv} (minutes the first time)")
    if not (venv / "bin" / "python").exists():
        # at its real path: venv refuses a link (the hub's test keeps its environment in a cache folder)
        run_command([shared_python(), "-m", "venv", os.path.realpath(venv)], "creating the hub's environment")
    python = str(venv / "bin" / "python")
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as requirements:
        requirements.write("\n".join(pins) + "\n")
        requirements.flush()
        run_command(
            [python, "-m", "pip", "install", "--quiet", "-c", str(CONSTRAINTS), "-r", requirements.name],
            "installing the course's pinned packages in the hub's environment",
        )
    # an environment installed when the hub took every pin holds the tests' packages: they go (pip skips
    # those not installed)
    if left_out():
        run_command(
            [python, "-m", "pip", "uninstall", "--quiet", "--yes", *left_out()],
            "removing the tests' packages from the hub's environment",
        )
    site_packages = Path(
        run_command(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], "finding the hub's site-packages"
        ).strip()
    )
    shutil.rmtree(site_packages / "bdl", ignore_errors=True)
    shutil.copytree(REPO / "bdl", site_packages / "bdl", ignore=shutil.ignore_patterns("__pycache__"))
    _make_readable(site_packages / "bdl")
    marker.write_text(wanted)


def write_user_config(settings):
    """nbgrader's config for every user of the hub's environment: the course, the shared exchange, and
    the hub's groups as who takes which course (JupyterHubAuthPlugin)."""
    folder = Path(settings.venv) / "etc" / "jupyter"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text(
        "# Written by autograder hub: every user of the course's hub.\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {settings.course_id!r}\n"
        f"c.Exchange.root = {settings.exchange!r}\n"
        "c.Authenticator.plugin_class = 'nbgrader.auth.JupyterHubAuthPlugin'\n"
    )
    # nbgrader's instructor extensions off for everyone (the environment's own config folder), back on in
    # the course's service, whose folder Jupyter reads first
    jupyter_extensions.write_config(folder)
    # The course's service only: JupyterLab's Nbgrader > Formgrader shows formgrader in a frame of the same
    # server, which JupyterHub's default (frame-ancestors 'none', since 4.1) leaves blank. 'self' lets a page
    # of this hub frame it; students' servers keep 'none'.
    course = Path(course_config(settings))
    course.mkdir(mode=0o755, exist_ok=True)
    jupyter_extensions.write_config(course, instructor=True)
    (course / "jupyter_server_config.json").write_text(
        json.dumps(
            {"ServerApp": {"tornado_settings": {"headers": {"Content-Security-Policy": "frame-ancestors 'self'"}}}}
        )
    )
    # JupyterLab's defaults for every user: no "get notified about Jupyter news?" (which asks the internet)
    settings_dir = Path(settings.venv) / "share" / "jupyter" / "lab" / "settings"
    settings_dir.mkdir(parents=True, exist_ok=True)
    (settings_dir / "overrides.json").write_text(
        json.dumps({"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}})
    )


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
    run_command(["npm", "ci", "--omit=dev", "--no-audit", "--no-fund"], "installing configurable-http-proxy", cwd=proxy)
    marker.write_text(wanted)


def install_data(settings, data_dir=None):
    """The data step's arrays in HUB_DIR/data, readable by every user."""
    source = Path(data_dir or os.environ.get("BDL_DATA_DIR") or REPO / "data")
    if not (source / "provenance.json").exists():
        raise HubError(f"no prepared data in {source}: run `make data` (python -m bdl.data prepare) first")
    target = Path(settings.hub_dir) / "data"
    if (target / "provenance.json").exists() and (target / "provenance.json").read_bytes() == (
        source / "provenance.json"
    ).read_bytes():
        return
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("README.md", "mnist.npz"))
    _make_readable(target)


def _make_readable(path):
    for folder, _dirs, files in os.walk(path):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(Path(folder) / name, 0o644)
