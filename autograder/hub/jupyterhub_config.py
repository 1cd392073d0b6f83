"""JupyterHub's config for the course (``python -m autograder hub`` copies it to HUB_DIR/jupyterhub_config.py
and writes HUB_DIR/settings.json beside it): nbgrader's multi-user set-up on one machine."""

import json
import os

from autograder.course.directory import REPO
from autograder.hub.private import dummy_password, service_token
from autograder.hub.settings import HubSettings, course_names, hub_environment
from autograder.hub.spawner import refusal, systemd_runs_this_machine

c = get_config()  # noqa: F821 (given by JupyterHub when it loads this file)
HERE = os.path.dirname(os.path.abspath(__file__))
settings = HubSettings(**json.load(open(os.path.join(HERE, "settings.json"))))
course, instructor = settings.course_id, settings.instructor
students = [student["id"] for student in settings.students]

# Addresses: the public one, and the hub's and the proxy's own on the loopback.
c.JupyterHub.bind_url = f"{'https' if settings.ssl_cert else 'http'}://{settings.ip}:{settings.port}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{settings.hub_port}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings.proxy_api_port}"
c.ConfigurableHTTPProxy.command = [os.path.join(HERE, "proxy", "node_modules", ".bin", "configurable-http-proxy")]
if settings.ssl_cert:
    c.JupyterHub.ssl_cert, c.JupyterHub.ssl_key = settings.ssl_cert, settings.ssl_key

# State in the hub's folder: the users, their logins, the cookie secret.
c.JupyterHub.db_url = f"sqlite:///{os.path.join(HERE, 'jupyterhub.sqlite')}"
c.JupyterHub.cookie_secret_file = os.path.join(HERE, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(HERE, "jupyterhub.pid")
# The hub's log in HUB_DIR/logs/jupyterhub.log too (root's: it names users and addresses), rotated at
# 10 MiB with 5 kept; the service's journal has it as well. (traitlets' logging_config: a handler object
# in the config could not be copied.)
os.makedirs(os.path.join(HERE, "logs"), mode=0o700, exist_ok=True)
c.JupyterHub.logging_config = {
    "handlers": {
        "file": {
            "class": "logging.handlers.RotatingFileHandler",
            "formatter": "file",
            "filename": os.path.join(HERE, "logs", "jupyterhub.log"),
            "maxBytes": 10 * 2**20,
            "backupCount": 5,
        }
    },
    "formatters": {"file": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "loggers": {"JupyterHub": {"handlers": ["console", "file"]}},
}

# Who logs in. NativeAuthenticator: students sign up with their roster id and the instructor (an admin)
# approves them at /hub/authorize; the instructor's login is made by `hub` before the first start.
# --dummy (127.0.0.1 only): one shared password, for tests and demos.
# Only the roster and the staff get in, whoever the instructor approves: a sign-up as a system account
# (postgres, www-data) is never let in (the login hook below), and the spawner refuses one too
# (autograder/hub/spawner.py). Both read the roster from settings.json at each login and start, so
# `hub roster CSV` changes it while the hub runs.
c.Authenticator.admin_users = {instructor}
c.CourseOnly.hub_dir = HERE
# Everyone the authenticator lets in, the login hook then checks against the roster and the staff.
c.Authenticator.allow_all = True


def _only_the_course(authenticator, handler, authentication):
    """Refuse the login itself (NativeAuthenticator lets in whoever was approved) of a name outside the
    roster and the staff, or of a system account."""
    why = refusal(authentication["name"], course_names(HERE))
    if why:
        authenticator.log.warning("login refused: %s", why)
        return None
    return authentication


c.Authenticator.post_auth_hook = _only_the_course
if settings.dummy:
    c.JupyterHub.authenticator_class = "dummy"
    c.DummyAuthenticator.password = dummy_password(settings)
else:
    c.JupyterHub.authenticator_class = "native"
    c.NativeAuthenticator.open_signup = False
    c.NativeAuthenticator.check_common_password = True
    c.NativeAuthenticator.minimum_password_length = 10
    c.NativeAuthenticator.allowed_failed_logins = 5
    c.NativeAuthenticator.seconds_before_next_try = 60
    # Not allowed_users: NativeAuthenticator approves a sign-up in it at once. Whom the instructor
    # approves gets in, if the login hook lets them.

# nbgrader's groups: JupyterHubAuthPlugin reads a user's courses from them (the Assignment List's
# course), and formgrader adds and removes students through them. The course account is a hub user too, as
# formgrader, in its service, reads its courses from its groups; no one logs in as it (the login hook
# and the spawner let in the roster and the staff only).
c.JupyterHub.load_groups = {
    f"nbgrader-{course}": {"users": students},
    f"formgrade-{course}": {"users": [instructor, *settings.graders, settings.course_account]},
}
# The course's service's token: formgrader reads the roster and manages the course's students group
COURSE_SCOPES = ["list:users", "read:users", "list:groups", "read:groups", f"groups!group=nbgrader-{course}"]
c.JupyterHub.load_roles = [
    # A server's token: what nbgrader does with it and no more (never "inherit": the instructor is an
    # admin). JupyterHub intersects these with the owner's own scopes, so a student's server reads only
    # its student.
    {
        "name": "server",
        "scopes": [
            "users:activity!user",
            "access:servers!server",
            "read:users:name!user",
            "read:users:groups!user",
            "list:services",
            f"read:services!service={course}",
        ],
    },
    # the instructor and the graders open the course's service (nbgrader's course list finds it), and no
    # one's server but their own
    {
        "name": f"formgrade-{course}",
        "groups": [f"formgrade-{course}"],
        "scopes": [f"access:services!service={course}", "list:services", f"read:services!service={course}"],
    },
    {"name": f"{course}-service", "services": [course], "scopes": COURSE_SCOPES},
    # `hub roster CSV`: adds and removes the course's students while the hub runs
    {
        "name": "roster",
        "services": ["roster"],
        "scopes": ["admin:users", "list:groups", "read:groups", f"groups!group=nbgrader-{course}"],
    },
    {
        "name": "idle-culler",
        "services": ["idle-culler"],
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    },
]

# Each user's server in that user's own Unix account, from the course's environment, with the memory, CPU
# and task limits and a /tmp of its own (autograder/hub/spawner.py): a systemd unit where systemd runs the
# machine, else a process in a cgroup the hub makes. --no-limits: a plain process.
if settings.limits and systemd_runs_this_machine():
    c.JupyterHub.spawner_class = "autograder.hub.spawner.CourseSystemdSpawner"
    c.SystemdSpawner.default_shell = "/bin/bash"
else:
    c.JupyterHub.spawner_class = "autograder.hub.spawner.CourseSpawner"
    c.CourseSpawner.limits = settings.limits  # fail closed: a server whose limits cannot be set does not start
    c.CourseSpawner.tmp_root = settings.tmp_root  # each server's own /tmp
c.Spawner.cmd = [os.path.join(settings.venv, "bin", "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.mem_limit = f"{settings.memory_gib}G"
c.Spawner.cpu_limit = settings.cpus
c.CourseOnly.max_tasks = settings.max_tasks
c.Spawner.start_timeout = 180  # a class logging in at once on a small machine
c.Spawner.http_timeout = 180
c.Spawner.environment = hub_environment(settings)
# Not JupyterHub's default: its PYTHONPATH names this repository (the hub imports autograder from it).
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL", "JUPYTERHUB_SINGLEUSER_APP"]


# Idle servers stop after the timeout (their files stay); the hub itself is never culled.
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [
            os.path.join(settings.venv, "bin", "python"),
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={settings.idle_timeout}",
        ],
    },
    {"name": "roster", "api_token": service_token(settings, "roster")},
    {
        # The course: formgrader's JupyterLab in the course account, in the staff's cgroup, at /services/<course>/
        # (nbgrader's course list needs this name). The hub routes to it and signs the staff in; it is not the
        # hub's to start, as the hub gives up, and exits, when a service it starts does not answer within 10 s
        # (a JupyterLab on a busy machine may not).
        "name": course,
        "url": f"http://127.0.0.1:{settings.course_port}",
        "api_token": service_token(settings, course),
        "oauth_no_confirm": True,
    },
    {
        # ... it starts it instead, without waiting (and again if it exits): as root, then as the course account
        # (autograder/hub/course_service.py).
        "name": "course-server",
        "command": [os.path.join(settings.venv, "bin", "python"), "-m", "autograder.hub.course_service", HERE],
        "environment": {"PYTHONPATH": str(REPO)},  # root's, to start it; the course's server never gets it
    },
]
