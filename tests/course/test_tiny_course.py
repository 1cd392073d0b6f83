"""The tiny assignment the grading machinery's tests grade (``tests/support/tiny_course.py``): 01's
graded functions and points, a release that nbgrader makes, and tests that never load TensorFlow."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course import cells
from autograder.course.directory import REPO, generate_release, make_api, validate
from autograder.studentkit import CONTENT
from tests.support import small_course, tiny_course

TINY_MUTANTS = Path(__file__).parents[1] / "support" / "tiny_mutants"

# Runs every test cell of a notebook as grading does, in one process: the examiner's ``examine``, its
# questions put to the notebook's namespace through ``bdl.wire.respond`` (an IPython shell's, as in the
# kernel), every answer encoded and decoded. Prints each cell's verdict and whether TensorFlow loaded.
EXAMINED = r"""
import json, sys
import nbformat
from IPython.core.interactiveshell import InteractiveShell
from autograder.course import cells
from autograder.studentkit import CONTENT
from autograder.worker.examiner.examine import examine
from bdl.wire import decode, encode, respond

shell = InteractiveShell.instance()
verdicts = {}
for cell in nbformat.read(sys.argv[1], 4).cells:
    if cell.cell_type != "code":
        continue
    if not cells.is_test(cell):
        shell.run_cell(cell.source)
        continue

    def ask(question, args, kwargs):
        request = json.dumps({"question": question, "args": encode(list(args)), "kwargs": encode(dict(kwargs))})
        answer = json.loads(repr(respond(request, shell.user_ns)))
        if "error" in answer:
            raise RuntimeError(answer["error"][0])
        return decode(answer["value"])

    verdicts[cells.grade_id(cell)] = examine(cell.source, ask, 1) == []
print(json.dumps({"passed": verdicts, "tensorflow": "tensorflow" in sys.modules}))
"""


def _examined(path):
    result = subprocess.run(
        [sys.executable, "-c", EXAMINED, str(path)], capture_output=True, text=True, timeout=300, cwd=REPO
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_reference_passes_and_the_blank_fails_without_tensorflow(tmp_path):
    nbformat.write(tiny_course.reference(), tmp_path / "reference.ipynb")
    reference = _examined(tmp_path / "reference.ipynb")
    assert reference["passed"] and all(reference["passed"].values()), reference
    assert not reference["tensorflow"], "the tiny assignment's kernel or examiner imported TensorFlow"
    blank = _examined(tiny_course.release_path())
    assert set(blank["passed"]) == set(reference["passed"]) and not any(blank["passed"].values()), blank
    assert not blank["tensorflow"], "a failing answer's examination imported TensorFlow"


def test_it_has_01s_graded_functions_and_points():
    """The attacks and bad submissions are written for 01: they find its functions, and expect its points."""

    def points(nb):
        return {
            cells.grade_id(cell): cells.nbgrader_metadata(cell)["points"] for cell in nb.cells if cells.is_test(cell)
        }

    assert points(tiny_course.source_notebook()) == points(small_course.source_notebook())
    assert set(cells.graded_functions(tiny_course.source_notebook())) == set(
        cells.graded_functions(small_course.source_notebook())
    )
    assert tiny_course.FULL == small_course.FULL
    assert tiny_course.manual_points(tiny_course.source_notebook()) == 2


def test_its_release_is_what_nbgrader_generates(tmp_path):
    """`grade` generates release/ anew: the class test's check that the course is left intact needs
    the same bytes."""
    source, release = tiny_course.write_course(tmp_path)
    written = release.read_bytes()
    api = make_api(tmp_path, {"CourseDirectory": {"db_url": f"sqlite:///{tmp_path / 'gradebook.db'}"}})
    assert api.generate_assignment(tiny_course.ASSIGNMENT, force=True, create=True)["success"]
    assert release.read_bytes() == written
    assert cells.source_markers(nbformat.read(source, 4)) and not cells.source_markers(nbformat.read(release, 4))


def test_it_lives_with_the_tests_only():
    assert not (REPO / "source" / tiny_course.ASSIGNMENT).exists()
    assert not (REPO / "release" / tiny_course.ASSIGNMENT).exists()


@pytest.mark.slow
def test_the_checklist_end_to_end(tmp_path, bubblewrap):
    """authoring's "Adding an assignment" for the tiny assignment, in a course of its own: its source
    notebook (1) and variants (4; no questions or likely mistakes of its own, 2 and 3), then (6) its
    release, validate, check-tests, a class graded (the reference every automatic point, the blank
    none), the feedback, and a student kit that carries its release and none of its answers."""
    root = tmp_path / "a course"
    source = root / "source" / tiny_course.ASSIGNMENT / f"{tiny_course.NOTEBOOK}.ipynb"
    source.parent.mkdir(parents=True)
    for name in ("pyproject.toml", "bdl", *CONTENT):  # what the kit is made of besides the releases
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).symlink_to(REPO / name)
    nbformat.write(tiny_course.source_notebook(), source)
    generate_release(root)
    assert validate(root) == []
    checked = _autograder("check-tests", tiny_course.ASSIGNMENT, "--root", root, "--mutants", TINY_MUTANTS)
    assert checked.returncode == 0 and "PROBLEM" not in checked.stdout, checked.stdout[-3000:]
    incoming = tmp_path / "class"
    incoming.mkdir()
    nbformat.write(tiny_course.reference(), incoming / "ada.ipynb")
    nbformat.write(tiny_course.blank(), incoming / "bob.ipynb")
    graded = _autograder("grade", tiny_course.ASSIGNMENT, incoming, "--root", root, "--csv", root / "grades.csv")
    assert graded.returncode == 0, graded.stderr[-3000:]
    with open(root / "grades.csv") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert (float(rows["ada"]["score"]), float(rows["bob"]["score"])) == (tiny_course.FULL, 0), rows
    fed = _autograder("feedback", tiny_course.ASSIGNMENT, "--root", root)
    assert fed.returncode == 0, fed.stdout[-2000:] + fed.stderr[-2000:]
    page = (root / "feedback" / "bob" / tiny_course.ASSIGNMENT / f"{tiny_course.NOTEBOOK}.html").read_text()
    assert "brier_score" in page and "BEGIN HIDDEN TESTS" not in page and "_reference_fgsm" not in page
    kit = tmp_path / "kit"
    made = _autograder("student-kit", kit, "--root", root)
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    released = kit / "release" / tiny_course.ASSIGNMENT / f"{tiny_course.NOTEBOOK}.ipynb"
    assert released.read_bytes() == (root / "release" / tiny_course.ASSIGNMENT / released.name).read_bytes()
    assert not list(kit.rglob("source")), "the kit holds no source notebook"


def _autograder(*args):
    return subprocess.run(
        [sys.executable, "-m", "autograder", *map(str, args)], capture_output=True, text=True, timeout=900, cwd=REPO
    )
