"""The hub as a service: its systemd unit (``hub install-service``).

The unit is modelled on The Littlest JupyterHub's: it restarts the hub whenever it stops, gives it a
/tmp of its own, and upgrades JupyterHub's database at each start. It runs ``hub`` with no option but
the folder, so the hub comes back as HUB_DIR/settings.json keeps it (TLS, port, graders, roster).
"""

import subprocess
import sys
from pathlib import Path

import psutil

from autograder.course.directory import REPO
from autograder.hub.settings import HubError

UNIT_NAME = "bdl-hub.service"
UNIT_DIR = "/etc/systemd/system"


def _word(text):
    """``text`` as one word of a systemd command line: quoted, with systemd's specifiers escaped."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return f'"{text}"'


def unit(hub_dir, python=sys.executable, repository=REPO):
    """The text of the hub's systemd unit."""
    command = " ".join(map(_word, (python, "-m", "autograder", "hub", "--dir", hub_dir, "--upgrade-db")))
    return f"""# Written by `autograder hub install-service`: the course's JupyterHub, as {hub_dir}/settings.json
# keeps it. Change a setting with `autograder hub --dir {hub_dir} --setup-only --OPTION VALUE`,
# then `systemctl restart {UNIT_NAME}`.
[Unit]
Description=The course's JupyterHub ({hub_dir})
After=network-online.target
Wants=network-online.target

[Service]
User=root
WorkingDirectory={str(repository).replace("%", "%%")}
ExecStart={command}
Restart=always
RestartSec=5
PrivateTmp=yes
KillMode=mixed
TimeoutStopSec=60

[Install]
WantedBy=multi-user.target
"""


def install_service(args):
    """Write the unit; enable and start it where systemd runs this machine, else say what to do."""
    hub_dir = Path(args.dir).resolve()
    if not (hub_dir / "settings.json").exists():
        raise HubError(
            f"{hub_dir} holds no hub yet: run `autograder hub --dir {hub_dir} --setup-only` "
            "with its options first (the service starts it as they are kept)"
        )
    for needed in (REPO, Path(sys.executable).absolute()):
        if needed.is_relative_to("/tmp"):
            raise HubError(
                f"{needed} is in /tmp, which the service does not see (it has a /tmp of its own): "
                "install from a checkout and environment outside /tmp"
            )
    path = Path(args.unit_dir) / UNIT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(unit(hub_dir))
    print(f"wrote {path}")
    if Path("/run/systemd/system").is_dir() and args.unit_dir == UNIT_DIR:
        for command in (["systemctl", "daemon-reload"], ["systemctl", "enable", "--now", UNIT_NAME]):
            subprocess.run(command, check=True)
        print(f"enabled and started {UNIT_NAME}: `systemctl status {UNIT_NAME}`, its log `journalctl -u {UNIT_NAME}`")
    else:
        print(
            f"systemd does not run this machine (or the unit went elsewhere): start it with "
            f"`systemctl enable --now {UNIT_NAME}` where it does"
        )
    return 0


def running(hub_dir):
    """Whether the hub of ``hub_dir`` runs (its pid file names a live process)."""
    try:
        return psutil.pid_exists(int((Path(hub_dir) / "jupyterhub.pid").read_text()))
    except (OSError, ValueError):
        return False


def add_arguments(parser):
    parser.add_argument(
        "--unit-dir", default=UNIT_DIR, help="where install-service writes its unit (default %(default)s)"
    )
