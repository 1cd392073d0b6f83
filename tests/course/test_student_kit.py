"""The student kit (``python -m autograder student-kit OUT``): what students get, and nothing they must not see."""

import ast
import re
import shutil
import tomllib
import zipfile
from importlib import metadata

import nbformat
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder import studentkit
from autograder.course import cells, jupyter_extensions
from autograder.course.directory import REPO, assignments
from autograder.course.leaks import secrets_from, solution_lines, telling
from tests.support.scan import course_secrets, scan_folder

RELEASES = sorted(path.relative_to(REPO).as_posix() for path in (REPO / "release").glob("*/*.ipynb"))
COMPANIONS = sorted(path.relative_to(REPO).as_posix() for path in (REPO / "notebooks").glob("*.ipynb"))
BDL = sorted(path.relative_to(REPO).as_posix() for path in (REPO / "bdl").rglob("*.py"))
REQUIRED = [
    "README.md",
    "pyproject.toml",
    "environment.yml",
    "constraints.txt",
    "data/README.md",
    *BDL,
    *RELEASES,
    *COMPANIONS,
]
REQUIRED += [f"{studentkit.JUPYTER_CONFIG}/{name}" for name in jupyter_extensions.config_files()]
# The instructor's side of the course: never in a student's hands.
ABSENT = [
    "source/",
    "tests/",
    "autograder/",
    "nbgrader_config.py",
    "gradebook.db",
    "Makefile",
    ".ci/",
    "submitted/",
    "autograded/",
    "feedback/",
    "grades.csv",
]
# Findings of the leak scan that a person has read and judged not to be leaks, each with why.
# A textual scan cannot tell two functions of one name apart, nor a keyword argument every
# TFP layer takes from an answer; an entry that no longer occurs fails test_reviewed_findings_still_occur.
# Keyed by file, kind and line, not by cell number, so that editing a notebook elsewhere keeps them.
REVIEWED = {
    "notebooks/02_variational_inference.ipynb: solution: bias_prior_fn=tfpl.default_multivariate_normal_fn,": "the lecture companion configures a TFP VI layer with TFP's default prior, as it teaches",
    "notebooks/02_variational_inference.ipynb: solution: kernel_divergence_fn=divergence_fn,": "the companion's VI layer takes the divergence it compares (KL / N against others) as an argument",
    "notebooks/02_variational_inference.ipynb: definition: nll": "the companion's Gaussian NLL with a known noise level, not 04_bayesian_cnn's graded nll "
    "of a distribution-valued output (for an instructor to judge: it shows the idea)",
    # found in the kits through 01 to 04, where release 05 (which gives this line) is not yet out
    "bdl/diagnoses/bayes_by_backprop.py: solution: return model": "the last line of any function that returns a Keras model (here a probe's helper)",
    "bdl/diagnoses/bayesian_cnn.py: solution: return model": "the last line of any function that returns a Keras model (here a probe's helper)",
}


def _reviewed(finding):
    """Whether a finding is one of REVIEWED (which leave out the cell number)."""
    return re.sub(r" \(cell \d+\)", "", finding, count=1) in REVIEWED


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    folder, zip_path = studentkit.build_kit(tmp_path_factory.mktemp("kit") / "student-kit")
    return folder


@pytest.fixture(scope="module")
def secrets():
    return course_secrets(REPO)


@pytest.fixture(scope="module")
def kits_through(tmp_path_factory):
    """{assignment: the kit through it}: what students hold while that assignment is open."""
    folder = tmp_path_factory.mktemp("kits")
    return {
        assignment: studentkit.build_kit(folder / assignment, through=assignment.split("_")[0])[0]
        for assignment in assignments(REPO)
    }


def _scan_through(kits_through, assignment):
    """The findings in the kit through ``assignment``, of its secrets and those of later ones."""
    return scan_folder(kits_through[assignment], secrets_from(REPO, assignment))


def test_kit_holds_what_students_need_and_nothing_else(kit):
    files = studentkit.kit_files(kit)
    assert not [name for name in REQUIRED if name not in files], files
    assert not [name for name in files for prefix in ABSENT if name == prefix or name.startswith(prefix)]
    assert not [name for name in files if name.endswith(".pyc") or "__pycache__" in name]
    # bdl whole, and nothing of the repository beyond the kit's own files
    assert [name for name in files if name.startswith("bdl/")] == BDL
    allowed = set(REQUIRED) | {".gitignore"}
    assert set(files) <= allowed, sorted(set(files) - allowed)
    for name in RELEASES + COMPANIONS + BDL + ["data/README.md", "constraints.txt"]:
        assert (kit / name).read_bytes() == (REPO / name).read_bytes(), f"{name} differs from the course's"


def test_zip_holds_the_same_files(kit):
    with zipfile.ZipFile(kit.with_name(kit.name + ".zip")) as archive:
        names = archive.namelist()
        assert all(name.startswith(f"{kit.name}/") for name in names), names[:3]
        assert sorted(name[len(kit.name) + 1 :] for name in names) == studentkit.kit_files(kit)
        for name in names:
            assert archive.read(name) == (kit / name[len(kit.name) + 1 :]).read_bytes(), name


def test_no_hidden_test_model_answer_or_graded_definition_in_the_kit(kit, secrets):
    findings = [finding for finding in scan_folder(kit, secrets) if not _reviewed(finding)]
    assert not findings, "the student kit gives away:\n" + "\n".join(findings)


def test_reviewed_findings_still_occur(kit, secrets, kits_through):
    found = scan_folder(kit, secrets) + [
        finding for assignment in kits_through for finding in _scan_through(kits_through, assignment)
    ]
    stale = set(REVIEWED) - {re.sub(r" \(cell \d+\)", "", finding, count=1) for finding in found}
    assert not stale, f"no longer found, remove from REVIEWED: {sorted(stale)}"


def test_the_scan_finds_planted_leaks(kit, secrets, tmp_path):
    copy = tmp_path / "kit"
    shutil.copytree(kit, copy)
    solution, hidden = sorted(secrets.solution)[0], sorted(secrets.hidden)[0]
    with open(copy / "bdl" / "metrics.py", "a") as handle:
        handle.write(f"\n\ndef _helper(x):\n    {solution}\n")
    with open(copy / "README.md", "a") as handle:
        handle.write(f"\n    {hidden}\n")
    with open(copy / "bdl" / "toy.py", "a") as handle:
        handle.write("\n\ndef brier_score(probs, labels):\n    return 0.0\n")
    with open(copy / "bdl" / "modes.py", "a") as handle:
        handle.write("\ngaussian_nll = lambda y, mean, scale: 0.0\n")
    with open(copy / "data" / "README.md", "a") as handle:
        handle.write("\n### BEGIN SOLUTION\n")
    # a release notebook: a graded function in a cell that is not its answer cell
    path = copy / RELEASES[0]
    nb = nbformat.read(path, 4)
    nb.cells.append(nbformat.v4.new_code_cell("def laplace_nll(y, loc, scale):\n    return 0.0"))
    nbformat.write(nb, path)
    # an earlier assignment's answer may be given in a later release, a later one's never
    later = copy / RELEASES[1]
    nb = nbformat.read(later, 4)
    nb.cells.append(nbformat.v4.new_code_cell("def get_prior(kernel_size, bias_size, dtype=None):\n    pass"))
    nbformat.write(nb, later)
    found = scan_folder(copy, secrets)
    expected = [
        f"bdl/metrics.py: solution: {solution}",
        f"README.md: hidden: {hidden}",
        "bdl/toy.py: definition: brier_score",
        "bdl/modes.py: definition: gaussian_nll",
        "data/README.md: marker: BEGIN SOLUTION",
        f"{RELEASES[0]} (cell {len(nbformat.read(path, 4).cells) - 1}): definition: laplace_nll",
        f"{RELEASES[1]} (cell {len(nb.cells) - 1}): definition: get_prior",
    ]
    assert not [item for item in expected if item not in found], found
    # what was there before is all that was there before
    assert set(found) - set(expected) == set(scan_folder(kit, secrets))


@pytest.mark.parametrize("assignment", assignments(REPO))
def test_a_kit_through_an_assignment_holds_no_answer_of_it_or_a_later_one(assignment, kits_through):
    """What students hold when ``assignment`` is released: its release and the earlier ones (their
    deadlines have passed), the companions scheduled so far, and no secret line of it or a later one."""
    folder = kits_through[assignment]
    files = studentkit.kit_files(folder)
    assert [name for name in files if name.startswith("release/")] == [
        name for name in RELEASES if name.split("/")[1] <= assignment
    ]
    assert [name for name in files if name.startswith("notebooks/")] == [
        name for name in COMPANIONS if studentkit.COMPANIONS[name.split("/")[1]] <= assignment
    ]
    findings = [finding for finding in _scan_through(kits_through, assignment) if not _reviewed(finding)]
    assert not findings, f"the kit through {assignment} gives away:\n" + "\n".join(findings)
    readme = (folder / "README.md").read_text()
    assert ("Later assignments come in later kits" in readme) == (assignment != assignments(REPO)[-1])


def test_a_kit_through_an_assignment_is_scanned_for_its_answers_not_the_earlier_ones(kits_through, tmp_path):
    """An answer of 02 in the kit through 02 is a leak; in the kit through 03, 02 is past its deadline."""
    second, third = assignments(REPO)[1:3]
    # The first such line in sorted order (a frozenset's order changes with the hash seed), and one that is
    # only a model answer's: a line a hidden test shares is reported as hidden.
    secrets, later = secrets_from(REPO, second), secrets_from(REPO, third).solution
    kinds = secrets.lines()
    line = min(line for line in secrets.solution if line not in later and kinds[line] == "solution")
    for assignment, leaked in ((second, True), (third, False)):
        folder = shutil.copytree(kits_through[assignment], tmp_path / assignment)
        with open(folder / "bdl" / "metrics.py", "a") as handle:
            handle.write(f"\n\ndef _helper(probs):\n    {line}\n")
        found = scan_folder(folder, secrets_from(REPO, assignment))
        assert (f"bdl/metrics.py: solution: {line}" in found) == leaked, found


def test_a_later_release_in_an_earlier_kit_is_found(kits_through, tmp_path):
    """Release 02 hands out 01's ``fgsm`` word for word: given to a student who holds release 02, a
    leak in the kit through 01. Put there, as the kit before schedules put it, the scan finds each
    line of it that release 01 does not give, although the course-wide secrets count every line
    of a release as given."""
    first, second = assignments(REPO)[:2]
    folder = shutil.copytree(kits_through[first], tmp_path / "kit")
    shutil.copytree(REPO / "release" / second, folder / "release" / second)
    [model] = [
        cell
        for path in (REPO / "source" / first).glob("*.ipynb")
        for cell in nbformat.read(path, 4).cells
        if cells.grade_id(cell) == "fgsm"
    ]
    lines = model.source.split("\n")
    model_answer = {lines[number - 1].strip() for number in solution_lines(model)}
    [given] = [
        cell.source for cell in nbformat.read(REPO / RELEASES[1], 4).cells if cell.source.startswith("def fgsm(")
    ]
    own = {line.strip() for cell in nbformat.read(REPO / RELEASES[0], 4).cells for line in cell.source.split("\n")}
    answer = {line.strip() for line in given.split("\n") if telling(line.strip())} & model_answer - own
    assert answer, f"release {second} no longer hands out {first}'s fgsm: plant another answer it gives"
    assert not answer & course_secrets(REPO).solution
    found = {
        finding.split(": ", 2)[2]
        for finding in scan_folder(folder, secrets_from(REPO, first))
        if finding.startswith(f"release/{second}/")
    }
    assert answer <= found, f"not found: {sorted(answer - found)}"


def test_every_companion_has_a_place_in_the_schedule(tmp_path):
    assert sorted(studentkit.COMPANIONS) == sorted(name.split("/")[1] for name in COMPANIONS)
    with pytest.raises(ValueError, match="no assignment '07'"):
        studentkit.build_kit(tmp_path / "kit", through="07")


def test_trivial_and_given_lines_are_not_secrets(secrets):
    # short or generic lines say nothing (see tests/support/scan.py); given code is in the release anyway
    assert not [line for line in secrets.solution | secrets.hidden if len(line) < 12 or line in (")", "return x")]
    release = {
        line.strip()
        for name in RELEASES
        for cell in nbformat.read(REPO / name, 4).cells
        for line in cell.source.split("\n")
    }
    assert not (secrets.solution | secrets.hidden) & release
    assert {"brier_score", "gaussian_nll", "fgsm"} <= secrets.names


def _imported_modules(kit):
    """Top-level modules imported by the kit's Python files and notebook code cells."""
    sources = [path.read_text() for path in kit.rglob("*.py")]
    for path in kit.rglob("*.ipynb"):
        sources += [cell.source for cell in nbformat.read(path, 4).cells if cell.cell_type == "code"]
    modules = set()
    for source in sources:
        # IPython's magics and shell lines are not Python
        code = "\n".join(line for line in source.split("\n") if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                modules |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules.add(node.module.split(".")[0])
    return modules


def test_student_pins_are_the_course_dependencies_and_no_optional_group(kit):
    course = tomllib.loads((REPO / "pyproject.toml").read_text())
    student = tomllib.loads((kit / "pyproject.toml").read_text())
    assert student["project"]["dependencies"] == course["project"]["dependencies"]
    assert "optional-dependencies" not in student["project"]
    # the instructor's, the hub's and the tests' packages: pinned in the course's optional groups only
    dropped = {
        canonicalize_name(Requirement(dep).name)
        for group in course["project"]["optional-dependencies"].values()
        for dep in group
    }
    assert {"pytest", "playwright", "psutil", "jupyterhub"} <= dropped
    assert not dropped & {canonicalize_name(Requirement(dep).name) for dep in course["project"]["dependencies"]}
    assert student["project"]["requires-python"] == course["project"]["requires-python"]
    assert student["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["bdl"]
    environment = yaml.safe_load((kit / "environment.yml").read_text())
    [pip] = [dep["pip"] for dep in environment["dependencies"] if isinstance(dep, dict)]
    assert pip == ["-c constraints.txt"] + student["project"]["dependencies"] + ["-e ."]
    # Nothing students run imports a package of an optional group, and every kept one is imported or
    # is what the notebooks run in (JupyterLab, nbgrader's Validate, Keras 2 for TFP, the
    # Jupyter server's MathJax for the feedback pages, the version of TensorFlow's ml_dtypes that
    # imports quickly).
    modules = _imported_modules(kit)
    owners = metadata.packages_distributions()
    distributions = {canonicalize_name(dist) for module in modules for dist in owners.get(module, [])}
    assert not distributions & dropped, f"the kit imports instructor-only packages: {distributions & dropped}"
    runtime = {"tf-keras", "nbgrader", "jupyterlab", "notebook", "tensorflow", "jupyter-server-mathjax", "ml-dtypes"}
    kept = {canonicalize_name(Requirement(dep).name) for dep in student["project"]["dependencies"]}
    assert kept - runtime <= distributions, f"pinned but never imported: {kept - runtime - distributions}"


def test_readme_gives_students_two_commands(kit):
    readme = (kit / "README.md").read_text()
    block = readme.split("```bash\n")[1].split("```")[0]
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert len(commands) == 2, commands
    assert "pip install" in commands[0] and "bdl.data prepare" in commands[0]
    assert "jupyter lab" in commands[1]
    assert "--mnist" in readme and "source/" not in readme and "autograder" not in readme


def test_rebuilding_replaces_an_earlier_kit_with_the_same_bytes(kit, tmp_path):
    out = tmp_path / "student-kit"
    first = studentkit.build_kit(out)[1].read_bytes()
    (out / "stale.txt").write_text("left from an older kit")
    (out / ".git").mkdir()  # published as its own repository: rebuilt in place, still one
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    folder, zip_path = studentkit.build_kit(out)
    assert not (folder / "stale.txt").exists()
    assert (folder / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert zip_path.read_bytes() == first


def test_refuses_a_folder_that_is_not_a_kit_and_a_course_without_release(tmp_path, capsys):
    from autograder.__main__ import main

    taken = tmp_path / "notes"
    taken.mkdir()
    (taken / "thesis.tex").write_text("mine")
    assert main(["student-kit", str(taken)]) == 2
    error = capsys.readouterr().err.strip()
    assert "exists and is not a student kit" in error and len(error.splitlines()) == 1, error
    assert (taken / "thesis.tex").read_text() == "mine"
    course = tmp_path / "course"
    shutil.copytree(REPO / "bdl", course / "bdl")
    shutil.copy(REPO / "pyproject.toml", course)
    shutil.copytree(REPO / "source" / "01_likelihoods", course / "source" / "01_likelihoods")  # a course, unreleased
    assert main(["student-kit", str(tmp_path / "kit"), "--root", str(course)]) == 2
    error = capsys.readouterr().err.strip()
    assert "no release notebooks" in error and len(error.splitlines()) == 1, error
    assert not (tmp_path / "kit").exists()
