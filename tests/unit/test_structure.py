"""The layout: packages import each other in one direction, and newcomers get told what to pass.

The import rules are import-linter contracts ([tool.importlinter] in pyproject.toml), run here by
lint-imports; this file checks, by hand, the few rules the contracts cannot state.
"""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from autograder.course.directory import REPO

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint_imports(root, *contract):
    """lint-imports on the packages and pyproject.toml at ``root``; ``contract``: only those ids."""
    assert LINT_IMPORTS.exists(), f"no {LINT_IMPORTS}: run `make` to install pyproject.toml's test group"
    ids = [arg for name in contract for arg in ("--contract", name)]
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", *ids], cwd=root, capture_output=True, text=True, timeout=300
    )


def test_the_imports_keep_the_contracts():
    result = _lint_imports(REPO)
    assert result.returncode == 0, (
        f"an import breaks a contract (`make lint` shows it):\n{result.stdout}{result.stderr}"
    )


# One import each contract forbids, planted in a copy of the packages: a contract that matched no module
# (a renamed package, a wildcard gone stale) would pass everything.
PLANTED = {
    "students-package": ("bdl/words.py", "import autograder.course.cells"),
    "floors": ("autograder/course/cells.py", "import autograder.grading.host"),
    "hub-and-grading": ("autograder/hub/setup.py", "import autograder.grading.limits"),
    "guard": ("autograder/worker/guard.py", "import autograder.worker.job"),
    "outputs-and-worker": ("autograder/outputs/items.py", "import autograder.worker.examiner.verdict"),
    "no-circles": ("autograder/course/cells.py", "import autograder.course.rubric"),
}


@pytest.mark.parametrize("contract", sorted(PLANTED))
def test_each_contract_finds_a_planted_import(tmp_path, contract):
    for package in ("autograder", "bdl"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    assert _lint_imports(tmp_path, contract).returncode == 0
    path, line = PLANTED[contract]
    with open(tmp_path / path, "a") as module:
        module.write(f"\n{line}\n")
    result = _lint_imports(tmp_path, contract)
    assert result.returncode == 1 and "BROKEN" in result.stdout, result.stdout + result.stderr


def _circles_through_an_init(graph):
    """Every package whose __init__.py leads, import by import, to a module inside it that leads back: the
    circles the no-circles contract cannot see, as a package's own __init__.py is none of its children."""
    return [
        f"{package} -> {module} -> {package}"
        for package in sorted(graph.modules)
        for module in sorted(graph.find_descendants(package))
        if graph.chain_exists(importer=package, imported=module)
        and graph.chain_exists(importer=module, imported=package)
    ]


def test_no_import_circle_through_a_package():
    graph = grimp.build_graph("autograder", "bdl", cache_dir=None)
    assert {"autograder.checktests.variants", "bdl.modes"} <= graph.modules
    assert _circles_through_an_init(graph) == []


def test_the_circle_finder_finds_a_circle_through_a_package():
    graph = grimp.ImportGraph()
    for importer, imported in (("p", "p.a"), ("p.a", "q"), ("q", "p"), ("p", "p.b")):
        graph.add_import(importer=importer, imported=imported)
    assert _circles_through_an_init(graph) == ["p -> p.a -> p"]


def test_the_guards_way_in_imports_nothing():
    # importing the guard runs these first, in the student's kernel: they import nothing at all, not even
    # the standard library (the contracts only see imports of the two packages)
    for init in (REPO / "autograder" / "__init__.py", REPO / "autograder" / "worker" / "__init__.py"):
        assert not [
            node for node in ast.walk(ast.parse(init.read_text())) if isinstance(node, (ast.Import, ast.ImportFrom))
        ], f"{init} imports something"


def test_students_package_never_names_the_instructors():
    # beyond the students-package contract, which reads import statements: no import by a name in a string
    # (importlib, `python -m autograder`), which it cannot see
    for path in (REPO / "bdl").rglob("*.py"):
        assert "autograder" not in path.read_text(), f"{path} mentions the instructor's package"


def test_make_grade_says_what_to_pass():
    for target, words in (
        ("grade", ["ASSIGNMENT=", "SUBMISSIONS=", "01_likelihoods"]),
        ("bench", ["ASSIGNMENT=", "01_likelihoods"]),
    ):
        result = subprocess.run(
            ["make", "--no-print-directory", target, "ASSIGNMENT=", "SUBMISSIONS="],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode != 0, f"make {target} without arguments must fail"
        for word in words:
            assert word in result.stderr, result.stderr


def test_grade_without_submissions_fails_with_a_reason(tmp_path):
    (tmp_path / "empty").mkdir()
    shutil.copytree(REPO / "source", tmp_path / "course" / "source")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            "01_likelihoods",
            str(tmp_path / "empty"),
            "--root",
            str(tmp_path / "course"),
            "--no-sandbox",
        ],  # about the input, on machines without bubblewrap too
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "no submission of 01_likelihoods found" in result.stderr


def test_the_old_timeout_flag_still_names_the_submission_timeout():
    from autograder.__main__ import parser

    old = parser().parse_args(["grade", "01_likelihoods", "x.ipynb", "--timeout", "60"])
    new = parser().parse_args(["grade", "01_likelihoods", "x.ipynb", "--submission-timeout", "60"])
    assert old.submission_timeout == new.submission_timeout == 60
