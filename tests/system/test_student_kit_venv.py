"""The student kit on a student's machine: a fresh venv, ``pip install`` of the kit, and a release
notebook run in the kit's own kernel (blank: its first test fails; answered: every test passes)."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest

from autograder import studentkit
from autograder.course import cells
from autograder.course.directory import REPO


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    folder, zip_path = studentkit.build_kit(tmp_path_factory.mktemp("kit") / "student-kit")
    return folder


NOTEBOOK = "release/01_likelihoods/likelihoods.ipynb"
SOURCE = REPO / "source" / "01_likelihoods" / "likelihoods.ipynb"
# Runs inside the kit's virtual environment: executes a notebook with nbclient in that
# environment's kernel; prints where it stopped (a cell's grade_id and error) as JSON.
DRIVER = textwrap.dedent("""\
    import json, sys
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    path = sys.argv[1]
    nb = nbformat.read(path, 4)
    nb.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.prefix)"))
    client = NotebookClient(nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": "."}})
    result = {"failed": None}
    try:
        client.execute()
    except CellExecutionError as error:
        cell = next(c for c in nb.cells if any(o.get("output_type") == "error" for o in c.get("outputs", [])))
        result = {"failed": cell.metadata.get("nbgrader", {}).get("grade_id"), "ename": error.ename}
    result["prefix"] = "".join(o.get("text", "") for o in nb.cells[-1].get("outputs", [])).strip()
    result["stderr"] = [o["text"] for c in nb.cells for o in c.get("outputs", []) if o.get("name") == "stderr"]
    print(json.dumps(result))
""")


def _with_reference_answers(release_path, target):
    """Write the release notebook with the source's code answers pasted into its answer cells."""
    answers = {
        cells.grade_id(cell): cell.source
        for cell in nbformat.read(SOURCE, 4).cells
        if cell.cell_type == "code" and cells.is_answer(cell)
    }
    nb = nbformat.read(release_path, 4)
    for cell in nb.cells:
        if cell.cell_type == "code" and cells.is_answer(cell):
            cell.source = answers[cells.grade_id(cell)]
    nbformat.write(nb, target)


@pytest.mark.slow
def test_the_kit_installs_in_a_fresh_venv_and_runs_a_release_notebook(kit, tmp_path):
    venv = tmp_path / "venv"
    python = venv / "bin" / "python"
    # Nothing of the course repository may reach the kit's environment.
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "BDL_FAST", "NBGRADER_EXECUTION")
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=300)
    # pip builds in the folder it installs from (build/, *.egg-info): a copy keeps the module's kit
    # as built for the other tests. --no-compile: byte-compiling TensorFlow's files is most of
    # pip's time and tests nothing of the kit.
    unpacked = shutil.copytree(kit, tmp_path / kit.name)
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-compile", str(unpacked)],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
        cwd=tmp_path,
    )
    seconds = time.perf_counter() - start
    print(f"\nfresh venv and pip install of the student kit: {seconds:.0f} s")
    assert install.returncode == 0, install.stderr[-3000:]

    # installed, not editable: bdl comes from the venv; the instructor's packages are not there
    where = subprocess.run(
        [str(python), "-c", "import bdl, bdl.checks, bdl.data, bdl.figures.calibration; print(bdl.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert where.returncode == 0 and where.stdout.startswith(str(venv)), where.stdout + where.stderr[-2000:]
    for module in ("autograder", "pytest", "nbval"):
        missing = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, env=env, cwd=tmp_path)
        assert missing.returncode != 0, f"{module} is installed in the student's environment"

    work = tmp_path / "work"
    work.mkdir()
    (work / "driver.py").write_text(DRIVER)
    shutil.copy(kit / NOTEBOOK, work / "blank.ipynb")
    _with_reference_answers(kit / NOTEBOOK, work / "answered.ipynb")
    env["NBGRADER_EXECUTION"] = "validate"  # grading size: seconds, not minutes
    runs = {}
    for name in ("blank", "answered"):
        start = time.perf_counter()
        run = subprocess.run(
            [str(python), "driver.py", f"{name}.ipynb"], capture_output=True, text=True, env=env, cwd=work, timeout=1800
        )
        assert run.returncode == 0, run.stderr[-3000:]
        runs[name] = json.loads(run.stdout.strip().splitlines()[-1])
        print(f"{name} {NOTEBOOK} in the kit's kernel: {time.perf_counter() - start:.0f} s")
    first_test = next(cells.grade_id(cell) for cell in nbformat.read(kit / NOTEBOOK, 4).cells if cells.is_test(cell))
    assert runs["blank"]["failed"] == first_test and runs["blank"]["ename"] == "NotImplementedError", runs["blank"]
    answered = runs["answered"]
    assert answered["failed"] is None, answered
    assert Path(answered["prefix"]).resolve() == venv.resolve(), f"the kernel was not the kit's: {answered['prefix']}"
    assert not answered["stderr"], f"nbgrader scores a cell that writes to stderr zero: {answered['stderr']}"
