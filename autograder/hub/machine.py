"""The checks before a hub is set up: the options given, and whether this machine can run the hub
safely (run as root, from a repository no student can read, in folders only root can change)."""

import ipaddress
import os
import shutil
import stat
from pathlib import Path

from autograder.course.directory import REPO
from autograder.hub.command import run_command
from autograder.hub.settings import USERNAME, HubError, people

# The oldest Node.js the proxy (configurable-http-proxy 4.6, deploy/proxy/package.json) is run on here:
# Debian 12's and Ubuntu 24.04's own.
NODE_MAJOR = 18


def check_machine(settings):
    """Raise HubError saying why the options are refused, or naming what this machine lacks for the hub."""
    if settings.dummy and not ipaddress.ip_address(settings.ip).is_loopback:
        raise HubError(
            f"--dummy lets anyone in with one password: it is refused unless the hub listens on "
            f"127.0.0.1 (not {settings.ip})"
        )
    for name in [settings.instructor, *settings.graders]:
        if not USERNAME.fullmatch(name):
            raise HubError(f"{name!r} is not a Unix user name")
        if name in {student["id"] for student in settings.students}:
            raise HubError(f"{name!r} is staff and also in the roster")
    if not USERNAME.fullmatch(settings.course_account):
        raise HubError(
            f"the course account {settings.course_account!r} (grader-COURSE) is not a Unix user name: "
            "choose a shorter --course-id of lower-case letters and digits"
        )
    if settings.course_account in people(settings):
        raise HubError(f"{settings.course_account!r} is the course's account: no one logs in as it")
    if bool(settings.ssl_cert) != bool(settings.ssl_key):
        raise HubError("--ssl-cert and --ssl-key go together")
    if not settings.ssl_cert and not ipaddress.ip_address(settings.ip).is_loopback and not settings.insecure_http:
        raise HubError(
            f"plain HTTP on {settings.ip} sends every password and notebook in clear: give --ssl-cert "
            "and --ssl-key, or --ip 127.0.0.1 behind a proxy that terminates TLS, or --insecure-http"
        )
    for folder in (settings.hub_dir, settings.home_root):
        check_root_owned(folder)
        if settings.limits and Path(os.path.realpath(folder)).is_relative_to("/tmp"):
            raise HubError(
                f"{folder} is in /tmp, which each server sees as a /tmp of its own: "
                "choose another folder (or --no-limits)"
            )
    if os.geteuid() != 0:
        raise HubError("run as root: each user's server runs in that user's own Unix account")
    check_private(REPO)
    for program, package in (
        ("npm", "npm (with nodejs)"),
        ("node", "nodejs"),
        ("useradd", "passwd"),
        ("runuser", "util-linux"),
    ):
        if not shutil.which(program):
            raise HubError(f"needs {program!r}: install the Debian package {package}")
    node = run_command(["node", "--version"], "asking Node.js its version").strip()
    if int(node.lstrip("v").split(".")[0]) < NODE_MAJOR:
        raise HubError(
            f"the proxy (configurable-http-proxy 4.6) is run on Node.js {NODE_MAJOR} or later; this machine has {node}"
        )


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
            raise HubError(
                f"{folder} is not root's alone (owner uid {status.st_uid}, mode "
                f"{stat.S_IMODE(status.st_mode):o}): root will not write below it; choose another folder"
            )


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
        raise HubError(
            f"the course repository {repository} is readable by other users, and it holds every "
            f"answer and hidden test: run chmod o-rwx '{repository}' first"
        )
