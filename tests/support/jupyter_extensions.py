"""Which of nbgrader's Jupyter extensions a Jupyter server would load, asked of a Python environment
with the functions the server itself uses (jupyter server extension list reads no JUPYTER_CONFIG_PATH, and
jupyter labextension list shows no plugin disabled in a .d folder)."""

import json
import subprocess

from autograder.course.jupyter_extensions import INSTRUCTOR_LAB, INSTRUCTOR_SERVER, STUDENT_LAB, STUDENT_SERVER
from tests.support.lab_ui import NBGRADER_MENU

# Run by the environment's python: prints {"server": enabled server extensions, "lab": enabled nbgrader plugins}
LISTING = """\
import json
from jupyter_core.paths import jupyter_config_path, jupyter_path
from jupyter_server.extension.config import ExtensionConfigManager
from jupyterlab_server.config import get_page_config
server = ExtensionConfigManager(read_config_path=jupyter_config_path()).get_jpserver_extensions()
disabled = get_page_config(jupyter_path("labextensions"))["disabledExtensions"]
plugins = [f"@jupyter/nbgrader:{name}" for name in %r]
print(json.dumps({"server": sorted(k for k, v in server.items() if v and k.startswith("nbgrader")),
                  "lab": sorted(p for p in plugins if p not in disabled)}))
""" % (STUDENT_LAB + INSTRUCTOR_LAB,)

STUDENTS = {
    "server": sorted(f"nbgrader.server_extensions.{name}" for name in STUDENT_SERVER),
    "lab": sorted(f"@jupyter/nbgrader:{name}" for name in STUDENT_LAB),
}
# What a served JupyterLab shows of them (lab_ui.nbgrader_in_lab): the plugins its page leaves out, its Nbgrader menu
STUDENTS_PAGE = {
    "disabled": sorted(f"@jupyter/nbgrader:{name}" for name in INSTRUCTOR_LAB),
    "menu": [NBGRADER_MENU["assignment-list"]],
}
INSTRUCTORS_PAGE = {"disabled": [], "menu": sorted(NBGRADER_MENU.values())}
INSTRUCTORS = {
    "server": sorted(f"nbgrader.server_extensions.{name}" for name in STUDENT_SERVER + INSTRUCTOR_SERVER),
    "lab": sorted(f"@jupyter/nbgrader:{name}" for name in STUDENT_LAB + INSTRUCTOR_LAB),
}


def enabled(python, env=None, cwd=None):
    """{"server": [...], "lab": [...]}: nbgrader's extensions enabled for a server of ``python``."""
    listing = subprocess.run(
        [str(python), "-c", LISTING], capture_output=True, text=True, env=env, cwd=cwd, timeout=120, check=False
    )
    assert listing.returncode == 0, listing.stderr[-2000:]
    return json.loads(listing.stdout.strip().splitlines()[-1])
