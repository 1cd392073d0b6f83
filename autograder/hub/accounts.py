"""Unix accounts for the hub's users: made (home 0700), removed, and commands run as one of them with
the environment their server would have."""

import os
import pwd
import subprocess
from pathlib import Path

import psutil

from autograder.hub.command import run_command
from autograder.hub.settings import CGROUP_GROUP, FIRST_USER_UID, HubError, course_environment, hub_environment


def ensure_user(name, home_root, log=print):
    """Create the Unix account ``name`` (home HOME_ROOT/name, mode 0700) unless it exists; return its
    pwd entry."""
    try:
        account = pwd.getpwnam(name)
    except KeyError:
        account = None
    if account is not None:
        if account.pw_uid < FIRST_USER_UID:
            raise HubError(
                f"{name!r} is a system account (uid {account.pw_uid}): no hub user may run as it; "
                "give that person another id in the roster"
            )
        return account
    home = Path(home_root) / name
    run_command(
        ["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/bash", "--user-group", name],
        f"creating the account {name!r}",
    )
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
        for hierarchy in ("memory", "cpu", "pids", ""):
            try:
                Path("/sys/fs/cgroup", hierarchy, CGROUP_GROUP, name).rmdir()  # empty now
            except OSError:
                pass


def chown_tree(path, user):
    os.chown(path, user.pw_uid, user.pw_gid, follow_symlinks=False)
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(Path(folder) / name, user.pw_uid, user.pw_gid, follow_symlinks=False)


def as_user(user, command, settings, what, cwd=None, input=None, **kwargs):
    """Run ``command`` as ``user`` with the hub's environment first on PATH, as their server would
    (``input`` on its stdin; ``kwargs`` to subprocess.run)."""
    env = {
        "HOME": user.pw_dir,
        "USER": user.pw_name,
        **hub_environment(settings),
        **(course_environment(settings, user.pw_dir) if user.pw_name == settings.course_account else {}),
    }
    return run_command(
        ["runuser", "-u", user.pw_name, "--", "env", *(f"{k}={v}" for k, v in env.items()), *command],
        what,
        cwd=cwd or user.pw_dir,
        input=input,
        **kwargs,
    )
