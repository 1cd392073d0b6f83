"""The course's service: JupyterLab with formgrader, the course folder and a terminal, for the instructor and
the graders (nbgrader's set-up for several graders), run as the course account, which owns the course folder.

JupyterHub starts it as root (the service ``course-server`` in jupyterhub_config.py), and again if it exits;
the hub routes /services/<course>/ to it and signs the staff in (the service <course>). This process puts itself
in the staff's cgroup (they grade here: ``grade``'s slots follow it) with a /tmp of its own, drops to the
course account and becomes ``jupyterhub-singleuser`` at the service's address. Whoever the hub lets in (the
group formgrade-<course>) works there as the course account, never as the instructor: a grader reaches the
course, not the instructor's home, terminal or admin rights.

    python -m autograder.hub.course_service HUB_DIR
"""
import json
import os
import pwd
import sys
from pathlib import Path

from autograder.hub.settings import course_environment, hub_environment, service_token, stored_settings
from autograder.hub.spawner import join_cgroups, make_cgroups, private_tmp, tmp_folder


def service_environment(settings, account, given):
    """The server's environment: the course's, the course folder's tools, and what jupyterhub-singleuser
    needs to serve the hub's service <course> (its token, address and OAuth client, as JupyterHub gives a
    service it starts itself); of the hub's own variables (``given``), only its API's address."""
    course, prefix = settings.course_id, f"/services/{settings.course_id}/"
    scopes = json.dumps(["access:services", f"access:services!service={course}"])
    hub = {name: given[name] for name in ("JUPYTERHUB_API_URL", "JUPYTERHUB_BASE_URL", "JUPYTERHUB_HOST")
           if name in given}
    return {"HOME": account.pw_dir, "USER": account.pw_name, "LOGNAME": account.pw_name, "SHELL": "/bin/bash",
            "LANG": given.get("LANG", "C.UTF-8"), **hub_environment(settings),
            **course_environment(settings, account.pw_dir), **hub,
            "JUPYTERHUB_SERVICE_NAME": course, "JUPYTERHUB_API_TOKEN": service_token(settings, course),
            "JUPYTERHUB_CLIENT_ID": f"service-{course}", "JUPYTERHUB_USER": account.pw_name,
            "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{settings.course_port}",
            "JUPYTERHUB_SERVICE_PREFIX": prefix, "JUPYTERHUB_OAUTH_CALLBACK_URL": f"{prefix}oauth_callback",
            "JUPYTERHUB_OAUTH_SCOPES": scopes, "JUPYTERHUB_OAUTH_ACCESS_SCOPES": scopes,
            "JUPYTERHUB_OAUTH_CLIENT_ALLOWED_SCOPES": "[]", "JUPYTERHUB_DEFAULT_URL": "/lab"}


def main(hub_dir):
    settings = stored_settings(hub_dir)
    account = pwd.getpwnam(settings.course_account)
    if settings.limits:  # as the users' servers: fail closed (an error here stops the service, and the hub logs it)
        join_cgroups(make_cgroups(account.pw_name, int(settings.staff_memory_gib * 2**30), settings.staff_cpus,
                                  4 * settings.max_tasks))  # a kernel, an examiner and a worker per slot
        private_tmp(tmp_folder(settings.tmp_root, account.pw_name))
    environment = service_environment(settings, account, os.environ)
    os.initgroups(account.pw_name, account.pw_gid)
    os.setgid(account.pw_gid)
    os.setuid(account.pw_uid)
    os.chdir(Path(account.pw_dir) / settings.course_id)
    program = f"{settings.venv}/bin/jupyterhub-singleuser"
    os.execve(program, [program], environment)


if __name__ == "__main__":
    main(sys.argv[1])
