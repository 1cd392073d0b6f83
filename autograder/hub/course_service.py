"""The course's service: JupyterLab with formgrader, the course folder and a terminal, for the instructor and
the graders (nbgrader's set-up for several graders), run as the course account, which owns the course folder.

Whoever the hub lets in (the group formgrade-<course>) works there as the course account, never as the
instructor: a grader reaches the course, not the instructor's home, terminal or admin rights. JupyterHub
starts it as root (the service ``course-server`` in jupyterhub_config.py), and again if it exits; the hub
routes /services/<course>/ to it and signs the staff in (the service <course>). ``main`` takes the staff's
limits, drops to the course account and becomes ``jupyterhub-singleuser`` at the service's address.

    python -m autograder.hub.course_service HUB_DIR
"""

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.hub.private import service_token
from autograder.hub.settings import course_environment, hub_environment, stored_settings
from autograder.hub.spawner import join_cgroups, make_cgroups, private_tmp, systemd_runs_this_machine, tmp_folder


def service_environment(settings, account, given):
    """The server's environment: the course's, the course folder's tools, and what jupyterhub-singleuser
    needs to serve the hub's service <course> (its token, address and OAuth client, as JupyterHub gives a
    service it starts itself); of the hub's own variables (``given``), only its API's address."""
    course, prefix = settings.course_id, f"/services/{settings.course_id}/"
    scopes = json.dumps(["access:services", f"access:services!service={course}"])
    hub = {
        name: given[name] for name in ("JUPYTERHUB_API_URL", "JUPYTERHUB_BASE_URL", "JUPYTERHUB_HOST") if name in given
    }
    return {
        "HOME": account.pw_dir,
        "USER": account.pw_name,
        "LOGNAME": account.pw_name,
        "SHELL": "/bin/bash",
        "LANG": given.get("LANG", "C.UTF-8"),
        **hub_environment(settings),
        **course_environment(settings, account.pw_dir),
        **hub,
        "JUPYTERHUB_SERVICE_NAME": course,
        "JUPYTERHUB_API_TOKEN": service_token(settings, course),
        "JUPYTERHUB_CLIENT_ID": f"service-{course}",
        "JUPYTERHUB_USER": account.pw_name,
        "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{settings.course_port}",
        "JUPYTERHUB_SERVICE_PREFIX": prefix,
        "JUPYTERHUB_OAUTH_CALLBACK_URL": f"{prefix}oauth_callback",
        "JUPYTERHUB_OAUTH_SCOPES": scopes,
        "JUPYTERHUB_OAUTH_ACCESS_SCOPES": scopes,
        "JUPYTERHUB_OAUTH_CLIENT_ALLOWED_SCOPES": "[]",
        "JUPYTERHUB_DEFAULT_URL": "/lab",
    }


def scope_unit(settings):
    return f"bdl-course-{settings.course_id}.scope"


def staff_limits(settings):
    """The course's service's memory (bytes), cores and tasks: a kernel, an examiner and a worker per slot."""
    return int(settings.staff_memory_gib * 2**30), settings.staff_cpus, 4 * settings.max_tasks


def in_scope(settings, account, program):
    """``program`` run by ``systemd-run --scope`` in the staff's limits, as ``account`` (systemd-run drops
    root once the scope holds it)."""
    memory, cpus, tasks = staff_limits(settings)
    return [
        shutil.which("systemd-run"),
        "--scope",
        "--quiet",
        "--collect",
        f"--unit={scope_unit(settings)}",
        f"--property=MemoryMax={memory}",
        f"--property=CPUQuota={int(cpus * 100)}%",
        f"--property=TasksMax={tasks}",
        f"--uid={account.pw_uid}",
        f"--gid={account.pw_gid}",
        "--",
        program,
    ]


def main(hub_dir):
    """Take a /tmp of its own and the staff's limits (they grade here: ``grade``'s slots follow them), drop to
    the course account and become ``jupyterhub-singleuser``. Where systemd runs the machine, the limits are a
    systemd scope's (``systemd-run --scope``: the unit bdl-course-<course>.scope); elsewhere a cgroup this
    process makes."""
    settings = stored_settings(hub_dir)
    account = pwd.getpwnam(settings.course_account)
    program = f"{settings.venv}/bin/jupyterhub-singleuser"
    command = [program]
    if settings.limits:  # as the users' servers: fail closed (an error here stops the service, and the hub logs it)
        if systemd_runs_this_machine():
            # a scope left by a hub that was killed holds the last server: it goes, so this one gets the port
            subprocess.run(["systemctl", "stop", scope_unit(settings)], stderr=subprocess.DEVNULL)
            command = in_scope(settings, account, program)
        else:
            join_cgroups(make_cgroups(account.pw_name, *staff_limits(settings)))
        private_tmp(tmp_folder(settings.tmp_root, account.pw_name))
    environment = service_environment(settings, account, os.environ)
    os.chdir(Path(account.pw_dir) / settings.course_id)
    os.initgroups(account.pw_name, account.pw_gid)  # the account's groups, not root's (systemd-run keeps them)
    if command[0] == program:
        os.setgid(account.pw_gid)
        os.setuid(account.pw_uid)
    os.execve(command[0], command, environment)


if __name__ == "__main__":
    main(sys.argv[1])
