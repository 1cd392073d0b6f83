"""The student kit: what students get, as a folder and a zip (``python -m autograder student-kit OUT``).

Students get the course one assignment at a time: ``--through NN`` makes the kit of the releases 01
to NN, handed out when NN is released (after NN-1's deadline), and no later release or lecture
companion that computes what a later assignment grades (``COMPANIONS``).

The kit holds the release notebooks, the helper package ``bdl``, the data recipe (``data/README.md``),
the lecture companions, a student README, install files pinned with ``pyproject.toml``'s dependencies
and ``constraints.txt`` (every other package's tested version), and Jupyter config that turns nbgrader's
instructor extensions off (``course.jupyter_extensions``). Nothing of ``source/``, ``tests/``,
``autograder``, the gradebook or the course's ``nbgrader_config.py`` (it imports autograder).
"""

import json
import shutil
import tempfile
import tomllib
import zipfile
from pathlib import Path

from autograder.course import jupyter_extensions
from autograder.course.cli import root_option
from autograder.course.directory import REPO, assignment_named

KIT_NAME = "bdl-course-kit"  # the kit's project name: how a folder is recognised as an earlier kit
# Copied as they are, relative to the course directory (folders: every file but caches).
CONTENT = ("data/README.md", "constraints.txt")
# The kit's Jupyter config, installed into the environment's etc/jupyter (its pyproject's data-files)
JUPYTER_CONFIG = "jupyter-config"
# The first kit each lecture companion ships in: the one released after the deadline of the
# last assignment whose graded answer it computes (a kit through NN holds no answer of NN or later).
COMPANIONS = {
    "01_bayes_the_hackers_way.ipynb": "01",  # Bayes' rule on a grid: nothing an assignment grades
    # the reparameterised negative ELBO of a line (03's loss terms) and a TFP VI layer's NLL and
    # divergence (04's nll and layers)
    "02_variational_inference.ipynb": "05",
    # predictive entropy and mutual information: 02's and 04's uncertainty decompositions
    "03_known_and_unknown_classes.ipynb": "05",
    # HMC and TFP's mean-field VI on a line: its log posterior is a line's Gaussian log-likelihood (01
    # grades that NLL in its first task), not 06's log_joint of a network's batch of weight vectors
    "04_markov_chain_monte_carlo.ipynb": "01",
}
NOT_COPIED = ("__pycache__", ".ipynb_checkpoints", ".pytest_cache")
# Zip entries get this fixed time so that the same kit gives the same bytes.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def student_requirements(pyproject):
    """The students' pins: the course's ``[project].dependencies`` as they are (strings, in order).
    What only instructors use is in its optional groups (instructor, hub, test), which students never get;
    tests/course/test_student_kit.py checks that nothing in the kit imports one of those."""
    return list(pyproject["project"]["dependencies"])


def student_packages(root=REPO):
    """The course's packages that ship to students: ``bdl`` and its subpackages, as the course's
    pyproject.toml finds them (every folder of ``root/bdl`` with an ``__init__.py``)."""
    root = Path(root)
    return [".".join(path.parent.relative_to(root).parts) for path in sorted((root / "bdl").rglob("__init__.py"))]


def _toml_list(items):
    return "[\n" + "".join(f"    {json.dumps(item)},\n" for item in items) + "]"


def pyproject_text(pyproject, packages):
    """The kit's ``pyproject.toml``: it installs only ``bdl`` (``packages``, the first its top), with the
    students' pins, and the Jupyter config into the environment's etc/jupyter. Built by hatchling: its
    editable installs (the README's) install that config too, where setuptools' leave data-files out."""
    project = pyproject["project"]
    return f"""\
# Installs the course's helper package bdl with the tested, pinned packages.
# Made from the course's pyproject.toml by `python -m autograder student-kit`.
[build-system]
requires = ["hatchling>=1.26"]
build-backend = "hatchling.build"

[project]
name = "{KIT_NAME}"
version = "{project["version"]}"
description = "Student kit: {project["description"]}"
readme = "README.md"
requires-python = "{project["requires-python"]}"
dependencies = {_toml_list(student_requirements(pyproject))}

[tool.hatch.build.targets.wheel]
packages = {json.dumps(packages[:1])}

# nbgrader's instructor extensions off, the student's on: into the environment's etc/jupyter
[tool.hatch.build.targets.wheel.shared-data]
{_shared_data()}
"""


def _shared_data():
    names = jupyter_extensions.config_files()
    return "\n".join(f'"{JUPYTER_CONFIG}/{name}" = "etc/jupyter/{name}"' for name in names)


def environment_text(pyproject):
    """The kit's ``environment.yml``: the students' pins and the tested set's constraints, for conda (which
    runs pip in this folder, from a requirements file it writes here)."""
    python = pyproject["project"]["requires-python"].split(",")[0].lstrip(">=~")
    pins = "".join(f"      - {json.dumps(dep)}\n" for dep in student_requirements(pyproject))
    return f"""\
# Conda environment for the course, with the same pinned packages as pyproject.toml.
# From this folder:
#   conda env create -f environment.yml
#   conda activate bdl-course
#   python -m bdl.data prepare
name: bdl-course
channels:
  - conda-forge
dependencies:
  - python={python}
  - pip
  - pip:
      # every other package at the version the course was tested with
      - "-c constraints.txt"
{pins}      # the course's helper package bdl, editable so that its data stays in ./data
      - "-e ."
"""


GITIGNORE = """\
.venv/
__pycache__/
*.egg-info/
.ipynb_checkpoints/
# the data step's outputs: built on each machine
data/*
!data/README.md
"""


def readme_text(assignments, companions, later=False):
    rows = "".join(f"| `{name}` | `release/{name}/{notebook}` |\n" for name, notebook in assignments)
    companion_rows = "".join(f"- `notebooks/{name}`\n" for name in companions)
    if companion_rows:
        companion_rows = f"Ungraded notebooks that go with the lectures:\n\n{companion_rows}\n"
    return f"""\
# Uncertainty in deep learning: the student kit

Graded JupyterLab notebooks on uncertainty in deep learning, in Python with
TensorFlow and TensorFlow Probability. You complete the cells marked
`# YOUR CODE HERE` (code) and `YOUR ANSWER HERE` (derivations, discussion);
[nbgrader](https://nbgrader.readthedocs.io) grades them with more tests than
you see.

| assignment | notebook |
|---|---|
{rows}
{"Later assignments come in later kits, each when it is released." + chr(10) + chr(10) if later else ""}\
{companion_rows}## Set-up: two commands

You need Python 3.11, 3.12 or 3.13 (the course is tested on 3.11) and about
3 GB of disk, on Linux, Windows or an Apple-silicon Mac (TensorFlow 2.20 has
no wheels for Intel Macs). In this folder:

```bash
# 1. install the tested packages and the course's helper package, and prepare the data
python3 -m venv .venv && .venv/bin/python -m pip install -c constraints.txt -e . && .venv/bin/python -m bdl.data prepare
# 2. open JupyterLab
.venv/bin/jupyter lab
```

On Windows the same two commands are
`py -3 -m venv .venv && .venv\\Scripts\\python -m pip install -c constraints.txt -e . && .venv\\Scripts\\python -m bdl.data prepare`
and `.venv\\Scripts\\jupyter lab`. With conda:
`conda env create -f environment.yml && conda activate bdl-course && python -m bdl.data prepare`,
then `jupyter lab`.

The data step downloads MNIST through Keras and builds its corrupted twin
(MNIST-C "spatter"). Offline, give it a Keras-layout `mnist.npz`:
`python -m bdl.data prepare --mnist PATH/mnist.npz`. `data/README.md` says
where the data comes from and how the corrupted set is built.

## Working on an assignment

1. Open your assignment's notebook in JupyterLab. Always import `bdl` before
   TensorFlow (the first cell does): it selects the Keras 2 that TensorFlow
   Probability's layers need and keeps TensorFlow's log noise out of your
   notebook.
2. Fill in the cells that say `# YOUR CODE HERE`, run the visible tests below
   each one, and press **Validate** before you submit. Hidden tests check more
   when the assignment is graded. Markdown cells that say `YOUR ANSWER HERE`
   (derivations, discussion) are graded by your instructor.
3. The whole notebook runs in a few minutes on a laptop CPU. For a quick pass,
   start JupyterLab with `BDL_FAST=1 .venv/bin/jupyter lab`: every experiment
   shrinks, enough to check that your code runs but too little training for
   the models to be any good.
4. Hand in the notebook as your course says: through JupyterLab's
   **Assignments** tab (nbgrader's exchange), or by uploading the `.ipynb`
   file to your learning management system. Keep the cells you were given:
   the grader finds your answers by them.
"""


def _is_kit(path):
    """Whether ``path`` is a folder this command made before (so it may be replaced)."""
    try:
        return tomllib.loads((path / "pyproject.toml").read_text())["project"]["name"] == KIT_NAME
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _is_kit_zip(path):
    try:
        with zipfile.ZipFile(path) as archive:
            names = [name for name in archive.namelist() if name.count("/") == 1 and name.endswith("/pyproject.toml")]
            return bool(names) and f'name = "{KIT_NAME}"' in archive.read(names[0]).decode()
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError):
        return False


def _copy(source, target):
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(*NOT_COPIED, "*.pyc"))
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def kit_files(folder):
    """The files of a kit folder, as sorted POSIX paths relative to it (without its ``.git``)."""
    folder = Path(folder)
    return sorted(
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and path.relative_to(folder).parts[0] != ".git"
    )


def _write_zip(folder, zip_path):
    """Zip ``folder`` under its own name, entries sorted and timestamps fixed."""
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in kit_files(folder):
            info = zipfile.ZipInfo(f"{folder.name}/{name}", ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (folder / name).read_bytes())


def scheduled(root, through=None):
    """(release notebooks, companion notebooks) that the kit through ``through`` (an assignment's
    number or name, as ``assignment_named`` reads it; None: the whole course) holds, as paths under ``root``."""
    releases = sorted((Path(root) / "release").glob("*/*.ipynb"))
    companions = sorted((Path(root) / "notebooks").glob("*.ipynb"))
    if through is None:
        return releases, companions
    released = {path.parent.name for path in releases}
    # the course's assignments are source/'s folders: one whose release is missing is named as such
    sources = {path.parent.name for path in (Path(root) / "source").glob("*/*.ipynb")}
    last = assignment_named(through, released | sources)
    if last not in released:
        raise ValueError(f"release/{last} holds no notebook: run `make release` (python -m autograder release) first")
    unscheduled = [path.name for path in companions if path.name not in COMPANIONS]
    if unscheduled:
        raise ValueError(f"lecture companions without a place in studentkit.COMPANIONS: {', '.join(unscheduled)}")
    return (
        [path for path in releases if path.parent.name <= last],
        [path for path in companions if COMPANIONS[path.name] <= last.split("_")[0]],
    )


def build_kit(out, root=REPO, through=None):
    """Write the student kit to the folder ``out`` and the zip ``out``.zip; return their paths.

    ``through`` (an assignment's number or name) limits it to the releases up to that
    assignment and the companions scheduled for them (``scheduled``); without it the kit holds
    the whole course, for after the last deadline. An earlier kit in
    ``out`` is replaced, but its ``.git`` is kept, so a kit published as a git repository
    is rebuilt in place and committed. Raises ValueError if ``out`` (or ``out``.zip)
    exists and is not an earlier kit, if the course has no ``release/``, or if
    ``through`` names no assignment.
    """
    root, out = Path(root).resolve(), Path(out).resolve()
    zip_path = out.with_name(out.name + ".zip")
    release = root / "release"
    if not sorted(release.glob("*/*.ipynb")):
        raise ValueError(f"{release} holds no release notebooks: run `python -m autograder release` first")
    releases, companions = scheduled(root, through)
    if out.exists() and not (_is_kit(out) or (out.is_dir() and not any(out.iterdir()))):
        raise ValueError(f"{out} exists and is not a student kit: choose another folder or remove it")
    if zip_path.exists() and not _is_kit_zip(zip_path):
        raise ValueError(f"{zip_path} exists and is not a student kit's zip: choose another name or remove it")
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())

    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent)) / out.name
    try:
        packages = student_packages(root)
        for package in packages:
            folder = package.replace(".", "/")
            for path in sorted((root / folder).glob("*.py")):
                _copy(path, staging / folder / path.name)
        for name in CONTENT:
            _copy(root / name, staging / name)
        for path in releases + companions:
            _copy(path, staging / path.relative_to(root))
        assignments = [(path.parent.name, path.name) for path in releases]
        later = len(releases) < len(sorted(release.glob("*/*.ipynb")))
        (staging / "README.md").write_text(readme_text(assignments, [path.name for path in companions], later))
        (staging / "pyproject.toml").write_text(pyproject_text(pyproject, packages))
        (staging / "environment.yml").write_text(environment_text(pyproject))
        (staging / ".gitignore").write_text(GITIGNORE)
        for name, text in jupyter_extensions.config_files().items():
            (staging / JUPYTER_CONFIG / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / JUPYTER_CONFIG / name).write_text(text)
        zip_staging = staging.parent / zip_path.name
        _write_zip(staging, zip_staging)
        if out.exists():
            if (out / ".git").exists():  # a kit published as its own git repository stays one
                (out / ".git").rename(staging / ".git")
            shutil.rmtree(out)
        staging.rename(out)
        zip_staging.replace(zip_path)
    finally:
        shutil.rmtree(staging.parent, ignore_errors=True)
    return out, zip_path


def _student_kit(args):
    folder, zip_path = build_kit(args.out, args.root, args.through)
    files = kit_files(folder)
    print(f"student kit: {folder} ({len(files)} files) and {zip_path} ({zip_path.stat().st_size / 2**20:.1f} MiB)")
    # a kit without --through hands out every answer a later release gives: say so where it is made
    held = sorted({name.split("/")[1] for name in files if name.startswith("release/")})
    print(
        f"assignments: {', '.join(held)}"
        + ("" if args.through else " (the whole course; --through NN makes the kit to hand out when NN is released)")
    )
    return 0


def add_parser(commands):
    kit = commands.add_parser(
        "student-kit",
        help="write what students get (release notebooks, bdl, "
        "data recipe, pinned install files, companions) to OUT and OUT.zip",
    )
    kit.add_argument("out", metavar="OUT", help="the kit's folder; replaced if it is an earlier kit")
    root_option(kit)
    kit.add_argument(
        "--through",
        metavar="NN",
        help="only the assignments up to NN (say 02) and the "
        "lecture companions scheduled for them: what students get when NN is released",
    )
    kit.set_defaults(run=_student_kit)
