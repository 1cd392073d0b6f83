"""The student kit on a student's machine: a fresh venv, the README's ``pip install`` of the kit (one
TensorFlow, every package at the tested version, nbgrader's student extensions only), and a release
notebook run in the kit's own kernel (blank: its first test fails; answered: every test passes); and the
kit's own JupyterLab in Chromium, as a student sees it: the Assignment List and Validate, none of the
instructor's formgrader, course list or Create assignment."""

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
from tests.support.jupyter_extensions import STUDENTS, STUDENTS_PAGE, enabled
from tests.support.lab_ui import chromium, nbgrader_in_lab, served_lab


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


def _students_lab(jupyter, env, work):
    """What the kit's JupyterLab, served from ``work``, shows of nbgrader in Chromium; with Validate on
    blank.ipynb's toolbar."""
    from playwright.sync_api import sync_playwright

    executable = chromium()
    with served_lab(jupyter, env, work, work.parent / "jupyterlab.log") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            page = browser.new_page()
            page.set_default_timeout(120_000)
            page.goto(url())
            shown = nbgrader_in_lab(page)
            page.goto(url("lab/tree/blank.ipynb"))
            page.locator(".jp-NotebookPanel jp-button[title='Validate Assignment']").wait_for()
            return shown
        finally:
            browser.close()


@pytest.mark.slow
@pytest.mark.browser
def test_the_kit_installs_in_a_fresh_venv_and_runs_a_release_notebook(kit, tmp_path):
    venv = tmp_path / "venv"
    python = venv / "bin" / "python"
    # Nothing of the course repository may reach the kit's environment.
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "BDL_FAST", "NBGRADER_EXECUTION", "JUPYTER_CONFIG_PATH")
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=300)
    # The README's command, in a copy: an editable install leaves the data step's outputs in the kit's
    # folder, which the other tests keep as built. --no-compile: byte-compiling is half a minute of CPU
    # (docs/deploy/sizing.md) and tests nothing of the kit. --report: what pip installed, wheel by wheel.
    unpacked = shutil.copytree(kit, tmp_path / kit.name)
    report = tmp_path / "pip-report.json"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-compile", "--report", str(report)]
        + ["-c", "constraints.txt", "-e", "."],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
        cwd=unpacked,
    )
    seconds = time.perf_counter() - start
    print(f"\nfresh venv and pip install of the student kit: {seconds:.0f} s")
    assert install.returncode == 0, install.stderr[-3000:]

    # one TensorFlow (tf-keras requires `tensorflow`: a `tensorflow-cpu` beside it is a second copy)
    wheels = [item["download_info"]["url"] for item in json.loads(report.read_text())["install"]]
    assert len([url for url in wheels if Path(url).name.startswith(("tensorflow-", "tensorflow_cpu-"))]) == 1, wheels
    # every package at the version of the instructor's tested set (constraints.txt, the course's .venv)
    freeze = subprocess.run(
        [str(python), "-m", "pip", "freeze", "--all", "--exclude-editable"], capture_output=True, text=True, env=env
    ).stdout.splitlines()
    tested = set((REPO / "constraints.txt").read_text().splitlines())
    untested = [line for line in freeze if line not in tested and line.split("==")[0] not in ("pip", "setuptools")]
    assert not untested, f"the kit installed versions the course did not test: {untested}"
    # nbgrader's student extensions (the assignment list, Validate), none of the instructor's
    assert enabled(python, env, cwd=tmp_path) == STUDENTS

    # bdl comes from the kit's folder (editable); the instructor's packages are not there
    where = subprocess.run(
        [str(python), "-c", "import bdl, bdl.checks, bdl.data, bdl.figures.calibration; print(bdl.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert where.returncode == 0 and where.stdout.startswith(str(unpacked)), where.stdout + where.stderr[-2000:]
    for module in ("autograder", "pytest", "nbval"):
        missing = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, env=env, cwd=tmp_path)
        assert missing.returncode != 0, f"{module} is installed in the student's environment"

    work = tmp_path / "work"
    work.mkdir()
    (work / "driver.py").write_text(DRIVER)
    shutil.copy(kit / NOTEBOOK, work / "blank.ipynb")
    _with_reference_answers(kit / NOTEBOOK, work / "answered.ipynb")
    start = time.perf_counter()
    assert _students_lab(venv / "bin" / "jupyter", env, work) == STUDENTS_PAGE
    print(f"the kit's JupyterLab in Chromium: {time.perf_counter() - start:.0f} s")
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
