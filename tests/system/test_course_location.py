"""Grading works wherever the course and its venv live: a copy of the course in the system temp
folder, under a path with spaces, reached through a symbolic link, with its venv inside it."""

import csv
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.course.directory import REPO
from tests.support.small_course import FULL, blank, reference

ASSIGNMENT = "01_likelihoods"
NOTEBOOK = f"{ASSIGNMENT}/likelihoods.ipynb"


def _copy_course(target):
    """The course's tracked files, as a fresh clone has them, copied from this work tree."""
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for name in files.splitlines():
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, target / name)


def _venv_inside(course):
    """A venv in the course folder that uses this one's packages and imports the course's own
    ``bdl`` and ``autograder`` (what ``pip install -e .`` there would give, in a second)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(course / ".venv")], check=True)
    site = Path(
        subprocess.run(
            [
                str(course / ".venv" / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "course.pth").write_text(f"{course}\n{sysconfig.get_paths()['purelib']}\n")
    bin_dir = Path(sys.executable).parent
    for program in ("alembic", "jupyter"):  # nbgrader runs them from the venv's bin/
        if (bin_dir / program).exists():
            (course / ".venv" / "bin" / program).symlink_to(bin_dir / program)


@pytest.mark.slow
@pytest.mark.usefixtures("bubblewrap")
def test_grading_a_course_in_the_temp_folder_through_a_link(tmp_path):
    folder = Path(tempfile.mkdtemp(prefix="bdl course ", dir=tempfile.gettempdir()))
    try:
        course = folder / "the course"
        _copy_course(course)
        _venv_inside(course)
        link = folder / "link to the course"
        link.symlink_to(course)
        inputs = tmp_path / "in"
        inputs.mkdir()
        # 01 without its experiments (what is graded is the course's own 01, copied)
        nbformat.write(reference(), inputs / "reference.ipynb")
        nbformat.write(blank(), inputs / "blank.ipynb")
        result = subprocess.run(
            [
                str(link / ".venv" / "bin" / "python"),
                "-m",
                "autograder",
                "grade",
                ASSIGNMENT,
                str(inputs),
                "--root",
                str(link),
                "--csv",
                str(tmp_path / "grades.csv"),
                "--workers",
                "2",
            ],
            cwd=link,
            capture_output=True,
            text=True,
            timeout=900,
            env={key: value for key, value in os.environ.items() if key != "PYTHONPATH"},
        )
        assert result.returncode == 0, result.stderr[-3000:]
        with open(tmp_path / "grades.csv") as handle:
            rows = {row["student"]: row for row in csv.DictReader(handle)}
        assert (rows["reference"]["status"], float(rows["reference"]["score"])) == ("graded", FULL), rows
        assert (rows["blank"]["status"], float(rows["blank"]["score"])) == ("graded", 0.0), rows
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.usefixtures("bubblewrap")
def test_a_kernel_that_cannot_start_is_reported_with_its_cause(tmp_path):
    """bwrap's own message reaches the status, and the whole log is kept for the instructor; a bwrap
    that cannot make any sandbox stops `grade` before it grades, with bubblewrap's own line."""
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fails = "echo 'bwrap: execvp /nowhere/python: No such file or directory' >&2\nexit 1\n"
    root = tmp_path / "course"
    root.mkdir()
    for folder in ("source", "release"):  # grade writes release/ anew
        shutil.copytree(REPO / folder, root / folder)
    shutil.copyfile(REPO / "release" / NOTEBOOK, tmp_path / "dana.ipynb")
    command = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        ASSIGNMENT,
        str(tmp_path / "dana.ipynb"),
        "--root",
        str(root),
        "--csv",
        str(tmp_path / "grades.csv"),
    ]
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}
    fake.write_text("#!/bin/sh\n" + fails)
    fake.chmod(0o755)
    refused = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert refused.returncode == 2 and refused.stderr.strip().splitlines() == [
        "autograder: error: bubblewrap cannot make a sandbox here (bwrap: execvp /nowhere/python: No such file "
        "or directory): grading runs student code inside it"
    ], refused.stderr
    assert not (tmp_path / "grades.csv").exists()
    # Only the kernel's sandbox fails: the examiner's and the check's are bwrap's own.
    fake.write_text(
        f'#!/bin/sh\ncase "$*" in *ipykernel_launcher*)\n{fails};;\nesac\nexec {shutil.which("bwrap")} "$@"\n'
    )
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    with open(tmp_path / "grades.csv") as handle:
        status = next(csv.DictReader(handle))["status"]
    assert status.startswith(
        "error: the grading kernel did not start: bwrap: execvp /nowhere/python: No such file or directory"
    ), status
    assert "grading_status/01_likelihoods/dana.log" in status
    log = (root / "grading_status" / ASSIGNMENT / "dana.log").read_text()
    assert "bwrap: execvp /nowhere/python" in log and "=== grading run 1" in log
