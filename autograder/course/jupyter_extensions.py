"""nbgrader's Jupyter extensions as students get them, as nbgrader's install docs advise: the student's
(the assignment list, where they fetch and submit, and Validate) on, the instructor's (formgrader, the
course list, the Create Assignment toolbar) off. The student kit installs these files into its environment
(its pyproject's data-files); the hub writes them into its shared environment, and the course's service,
whose own config folder Jupyter reads before the environment's, turns the instructor's back on there."""

import json
from pathlib import Path

# nbgrader's server extensions are nbgrader.server_extensions.NAME; its JupyterLab plugins @jupyter/nbgrader:NAME
STUDENT_SERVER = ("assignment_list", "validate_assignment")
INSTRUCTOR_SERVER = ("formgrader", "course_list")
STUDENT_LAB = ("assignment-list", "validate-assignment")
INSTRUCTOR_LAB = ("formgrader", "course-list", "create-assignment")
# Paths in a Jupyter config folder (its etc/jupyter). A .d folder's files are read in name order and
# merged, the later winning: "students.json" comes after nbgrader's own "nbgrader.json". JupyterLab's
# page reads the plugins it leaves out from the labconfig section's "disabledExtensions" alone.
SERVER_FILE = "jupyter_server_config.d/students.json"
LAB_FILE = "labconfig/page_config.d/students.json"


def config_files(instructor=False):
    """{path in a Jupyter config folder: JSON text}: nbgrader's student extensions on, the instructor's
    off (on where ``instructor``)."""
    server = {f"nbgrader.server_extensions.{name}": True for name in STUDENT_SERVER}
    server.update({f"nbgrader.server_extensions.{name}": instructor for name in INSTRUCTOR_SERVER})
    disabled = {f"@jupyter/nbgrader:{name}": False for name in STUDENT_LAB}
    disabled.update({f"@jupyter/nbgrader:{name}": not instructor for name in INSTRUCTOR_LAB})
    return {
        SERVER_FILE: json.dumps({"ServerApp": {"jpserver_extensions": server}}, indent=2) + "\n",
        LAB_FILE: json.dumps({"disabledExtensions": disabled}, indent=2) + "\n",
    }


def write_config(folder, instructor=False):
    """Write config_files into the Jupyter config folder ``folder``, readable by every user."""
    for name, text in config_files(instructor).items():
        path = Path(folder) / name
        path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o644)
