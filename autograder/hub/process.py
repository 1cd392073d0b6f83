"""Starting and stopping JupyterHub: ``run`` replaces the command's process with it; ``HubProcess``
starts a command that runs a hub in a process group of its own, waits for its API and stops it (the
hub benchmark and the hub's test use it)."""

import http.client
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import psutil

from autograder.course.directory import REPO

# How long a hub may take to answer, and to stop before it is killed.
START_SECONDS = 900
STOP_SECONDS = 60


def hub_process_environment(settings):
    """The environment JupyterHub runs in: the hub's venv first, none of this repository's settings."""
    env = {
        **os.environ,
        "PATH": f"{settings.venv}/bin:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "PYTHONPATH": str(REPO),
    }  # the hub's config and spawner are autograder's, which only root reads here
    for name in ("BDL_EXCHANGE", "NBGRADER_EXECUTION", "BDL_FAST", "VIRTUAL_ENV"):
        env.pop(name, None)
    return env


def run(settings, config, upgrade_db=False):
    """Replace this process with JupyterHub (stopping it stops every user's server); ``upgrade_db``: upgrade
    its database to this JupyterHub first, if needed."""
    os.chdir(settings.hub_dir)
    os.execve(
        f"{settings.venv}/bin/jupyterhub",
        ["jupyterhub", "-f", str(config), *(["--upgrade-db"] if upgrade_db else [])],
        hub_process_environment(settings),
    )


class HubProcess:
    """A command that runs a hub (``jupyterhub -f ...``, or ``python -m autograder hub``), started in a
    process group of its own with its output in ``log``; ``url`` is the hub's public address."""

    def __init__(self, command, log, url, env=None, cwd=None, hub_dir=None):
        self.command, self.log, self.url = list(map(str, command)), Path(log), url
        self.env, self.cwd, self.hub_dir = env, cwd, hub_dir
        self.process = None

    def start(self, *extra):
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.command + list(extra),
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def wait_until_up(self, timeout=START_SECONDS):
        """Return once the hub's API answers; RuntimeError with the log's end if it exits or never does."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the hub exited ({self.process.returncode}):\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api/", timeout=5):
                    return self
            except (OSError, http.client.HTTPException):  # not up yet, or another program had the port
                time.sleep(0.5)  # polling interval; the deadline decides
        raise RuntimeError(f"the hub did not answer in {timeout} s:\n{self.log_tail()}")

    def log_tail(self, size=3000):
        return self.log.read_text(errors="replace")[-size:] if self.log.exists() else ""

    def stop(self):
        """SIGTERM to the hub's group (the hub stops the servers and the proxy it started, each in a
        session of its own); after STOP_SECONDS SIGKILL, and the proxy by its pid file."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            proxy = Path(self.hub_dir or self.cwd or ".", "jupyterhub-proxy.pid")
            if proxy.exists():
                try:
                    psutil.Process(int(proxy.read_text())).kill()
                except (ValueError, psutil.NoSuchProcess):
                    pass
        except ProcessLookupError:
            pass


def jupyterhub(settings, config, log):
    """JupyterHub itself on ``settings``' folder, as ``run`` starts it, not yet started."""
    return HubProcess(
        [f"{settings.venv}/bin/jupyterhub", "-f", config],
        log,
        f"http://127.0.0.1:{settings.port}",
        env=hub_process_environment(settings),
        cwd=settings.hub_dir,
        hub_dir=settings.hub_dir,
    )
