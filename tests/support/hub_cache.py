"""What the two hub tests share: their requirements, the hub's folder with its environment and proxy
kept between runs (installing them takes minutes), so neither installs them anew, and how they reach a hub.

The hub's environment (every pin: two minutes of pip) and its proxy (npm) are kept in a cache folder
(``CACHE``), one per digest of what they are installed from, and the hub's folder ``CACHE``/hub links to
them. The two tests use the same folder, one after the other (tests/conftest.py runs them on one worker).
"""

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from autograder.hub.environment import CONSTRAINTS, PROXY_PACKAGE, hub_requirements, shared_python
from tests.support.system_packages import require

# Outside the temporary folder, which may be emptied at any boot and where any user may have made a
# folder of that name first, and readable by every account (their servers run from the environment).
# BDL_TEST_CACHE moves it.
CACHE = Path(os.environ.get("BDL_TEST_CACHE", "/var/cache/bdl-course-tests"))
HUB_DIR = CACHE / "hub"
KEPT = ("venv", "proxy")  # links into CACHE
CACHED = 2  # installs kept per kind (the newest): a branch with other pins does not evict main's


def requirements():
    """Skip (or fail under CI=true) naming what this machine lacks."""
    if os.geteuid() != 0:
        message = "needs root: the hub makes a Unix account per user"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    for program, package in (("node", "nodejs"), ("npm", "npm"), ("bwrap", "bubblewrap")):
        require(shutil.which(program), package)
    node = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "nodejs"], capture_output=True, text=True).stdout
    if os.environ.get("CI") == "true" and "nodesource" in node:  # .ci/run installs the distribution's
        pytest.fail(f"CI runs the hub on the distribution's own Node.js, not NodeSource's {node}")


def _key(*parts):
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def cache_keys():
    """{name in HUB_DIR: its cache key}: the environment's, from the pins, the constraints and the Python
    it is made with (``bdl``, copied in by ``hub`` whenever it changes, is no part of it); the proxy's, from
    its package files."""
    pins = hub_requirements()
    python = shared_python()
    version = subprocess.run([python, "--version"], capture_output=True, text=True, check=True).stdout
    return {
        "venv": _key(
            *pins, CONSTRAINTS.read_text(), python, version, str(HUB_DIR)
        ),  # its scripts name HUB_DIR/venv/bin/python
        "proxy": _key(*((PROXY_PACKAGE / name).read_text() for name in ("package.json", "package-lock.json"))),
    }


def link_cached_installs():
    """Point HUB_DIR/venv and HUB_DIR/proxy at the cache folder of their key; ``hub`` installs into
    it when it is new, and otherwise finds it installed. A venv's scripts name its python by the
    path it was made at, HUB_DIR/venv/bin/python: through the link, a cached one still works."""
    CACHE.mkdir(parents=True, exist_ok=True)
    CACHE.chmod(0o755)
    for name, key in cache_keys().items():
        target, link = CACHE / f"hub-{name}-{key}", HUB_DIR / name
        others = sorted(CACHE.glob(f"hub-{name}-*"), key=lambda path: path.stat().st_mtime)
        if link.is_symlink():
            link.unlink()
        elif link.exists():  # made here before the cache: its scripts name this path, so it moves as is
            if target.exists():
                shutil.rmtree(link)
            else:
                link.rename(target)
        if not target.exists() and others and name == "proxy":
            # New pins: a copy of the newest install, which `hub` brings up to them (npm changes only what
            # changed), is faster than a new one. Not a venv: its scripts name the path it was made at.
            shutil.copytree(others[-1], target, symlinks=True)
        target.mkdir(mode=0o755, exist_ok=True)
        target.touch()  # the newest is kept
        link.symlink_to(target)
        for old in sorted(CACHE.glob(f"hub-{name}-*"), key=lambda path: path.stat().st_mtime)[:-CACHED]:
            shutil.rmtree(old)


def clear_hub_dir():
    """The hub's folder but its environment and proxy (the exchange, the database, the secrets): what a
    crashed run left, or this run."""
    for path in HUB_DIR.iterdir():
        if path.name not in KEPT:
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def answers(url, timeout, going_on=lambda: True):
    """Whether ``url`` answers 200 within ``timeout`` seconds, asked every second while ``going_on()``."""
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and going_on():
        try:
            if requests.get(url, timeout=5).ok:
                return True
        except requests.RequestException:
            pass
        time.sleep(1)
    return False


def form(session, url, **fields):
    """POST a hub form as a browser does (with its _xsrf); return the answer, redirects not followed."""
    session.get(url, timeout=30)
    xsrf = next(cookie.value for cookie in session.cookies if cookie.name == "_xsrf")
    return session.post(url, data={**fields, "_xsrf": xsrf}, allow_redirects=False, timeout=30)
