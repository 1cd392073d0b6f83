"""The course directory and nbgrader: its config and API, the assignments, release and validate."""

import functools
import os
import re
import sys
from pathlib import Path

import nbgrader.api
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from nbgrader.dbutil import ALEMBIC_DIR
from nbgrader.validator import Validator
from traitlets.config.loader import PyFileConfigLoader

REPO = Path(__file__).resolve().parents[2]
# nbgrader's course id: the course's config, the hub's groups and exchange folder use this one
COURSE_ID = "bdl"
# Every kernel the course starts logs errors only: its start-up notices are not the student's output.
KERNEL_LOG_LEVEL = "--IPKernelApp.log_level=ERROR"


@functools.lru_cache(maxsize=1)
def alembic_head():
    """The newest of nbgrader's gradebook migrations, which nbgrader stamps a new gradebook with. nbgrader
    runs the ``alembic`` program to read it, for every new gradebook: 2 s of CPU where this takes 0.3 s,
    once per process."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory(ALEMBIC_DIR).get_current_head()


nbgrader.api.get_alembic_version = alembic_head


def load_config(root):
    """Return the course's nbgrader config with the course directory set to ``root``."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPO)).load_config()
    config.CourseDirectory.root = str(root)
    return config


def make_api(root, overrides=None):
    """Return nbgrader's API for the course at ``root``; ``overrides``: {section: {name: value}}."""
    # nbgrader runs alembic as a program to set up the gradebook: it must be
    # found on PATH even when the venv is not activated.
    bin_dir = os.path.dirname(sys.executable)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    config = load_config(root)
    for section, values in (overrides or {}).items():
        for name, value in values.items():
            setattr(config[section], name, value)
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def assignments(root=REPO):
    """Return the assignment ids: folders of ``source/`` holding notebooks."""
    return sorted(p.name for p in (Path(root) / "source").iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


def assignment_named(given, names):
    """The one of ``names`` (assignment folders such as ``01_likelihoods``) that ``given`` means: the
    name itself, its number (``01`` or ``1``), its topic (``likelihoods``) or its folder
    (``release/01_likelihoods/``, as a shell completes it), in any case. ValueError naming them all
    if none or several match."""
    names = sorted(names)
    spelled = str(given).strip().replace("\\", "/").rstrip("/").split("/")[-1].lower()

    def means(name):
        number, _, topic = name.lower().partition("_")
        if spelled.isdigit() and number.isdigit():
            return int(spelled) == int(number)
        return spelled in (name.lower(), topic)

    found = [name for name in names if means(name)]
    if len(found) != 1:
        which = f"no assignment {given!r}" if not found else f"{given!r} names {len(found)} assignments"
        raise ValueError(f"{which}: give one of {', '.join(names)} (or its number)")
    return found[0]


def check_assignment(assignment, root=REPO):
    """Return the assignment id ``assignment`` names (the id itself, or as ``assignment_named`` reads it:
    ``01``, ``likelihoods``); ValueError naming the known assignments if it names none."""
    known = assignments(root)
    if assignment in known:
        return assignment
    try:
        return assignment_named(assignment, known)
    except ValueError as error:
        if not str(error).startswith("no assignment"):
            raise  # it names several: that message says which
        raise ValueError(f"unknown assignment {assignment!r}; known: {', '.join(known)} (or its number)") from None


def slug(text):
    """``text`` in letters, digits, ``_``, ``.`` and ``-``, as nbgrader and file systems take an id, or ""
    when none is left."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.")


def name_assignments(args):
    """A command's ASSIGNMENT (or ASSIGNMENTS) made the ids they name in ``--root``'s source/ (this course's
    without one), so that every command takes ``01`` as ``student-kit --through`` does. ``--root`` is a
    course, which holds source/ (``cli.course_root``)."""
    root = getattr(args, "root", None) or REPO
    if isinstance(getattr(args, "assignment", None), str):
        args.assignment = check_assignment(args.assignment, root)
    if getattr(args, "assignments", None):
        args.assignments = [check_assignment(name, root) for name in args.assignments]


def notebook_names(root, assignment):
    """Return the assignment's notebook names (without ``.ipynb``)."""
    return sorted(p.stem for p in (Path(root) / "source" / assignment).glob("*.ipynb"))


def check_result(result, what):
    """Raise RuntimeError with nbgrader's error or log if an API call failed."""
    if not result["success"]:
        raise RuntimeError(f"{what} failed:\n{result['error'] or result['log']}")


def generate_release(root=REPO, only=None):
    """Generate ``release/`` from ``source/`` for every assignment (or those in ``only``)."""
    api = make_api(root)
    for assignment in only or assignments(root):
        check_result(
            api.generate_assignment(assignment, force=True, create=True), f"nbgrader generate_assignment {assignment}"
        )


def validate(root=REPO, only=()):
    """Return problems: source notebooks must pass their tests, release notebooks fail them.

    ``only`` names the assignments to check; by default every assignment is checked.
    """
    config = load_config(root)
    problems = []
    for assignment in only or assignments(root):
        for name in notebook_names(root, assignment):
            for kind, invert in (("source", False), ("release", True)):
                path = Path(root) / kind / assignment / f"{name}.ipynb"
                if not path.exists():
                    problems.append(f"{path}: missing (run `python -m autograder release`)")
                    continue
                validator = Validator(config=config, invert=invert, ignore_checksums=not invert)
                results = validator.validate(str(path))
                if results:
                    expected = "fail its tests" if invert else "pass its tests"
                    problems.append(f"{kind}/{assignment}/{name}.ipynb should {expected}: {sorted(results)}")
    return problems
