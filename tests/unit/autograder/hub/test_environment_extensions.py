"""The hub's shared environment gives students nbgrader's student extensions only, and the course's
service (where the staff grade) all of them: asked as a Jupyter server of each would load them."""

import os
import shutil
import sys
from pathlib import Path

from autograder.hub import environment
from autograder.hub import settings as hub
from tests.support.jupyter_extensions import INSTRUCTORS, STUDENTS, enabled


def test_students_get_the_student_extensions_and_the_course_service_every_one(tmp_path):
    settings = hub.HubSettings(hub_dir=str(tmp_path))
    environment.write_user_config(settings)
    # the hub's environment's own config folder holds nbgrader's nbgrader.json (pip installs it there) beside
    # the students' file, which must win over it; this Python's, read after both, enables every extension too
    own = Path(settings.venv) / "etc" / "jupyter"
    nbgrader_json = Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.d" / "nbgrader.json"
    shutil.copy(nbgrader_json, own / "jupyter_server_config.d" / "nbgrader.json")
    student = {**os.environ, "JUPYTER_CONFIG_PATH": str(own)}
    assert enabled(sys.executable, student, cwd=tmp_path) == STUDENTS
    # the course's service: hub.course_environment's JUPYTER_CONFIG_PATH before the environment's folder
    service = {**student, "JUPYTER_CONFIG_PATH": os.pathsep.join([hub.course_config(settings), str(own)])}
    assert enabled(sys.executable, service, cwd=tmp_path) == INSTRUCTORS
