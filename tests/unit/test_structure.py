"""The layout: packages import each other in one direction, and newcomers get told what to pass."""

import ast
import shutil
import subprocess
import sys

import pytest

from autograder.course.directory import REPO


def _imports(package):
    """Return {module: set of modules of ``package`` it imports}."""
    graph = {}
    for path in sorted((REPO / package).rglob("*.py")):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        graph[module] = {name for name in names if name.split(".")[0] == package} - {module}
    for module, names in graph.items():  # "from autograder import cells" names a module
        graph[module] = {name for name in names if name in graph}
    return graph


def _cycle(graph):
    """Return one import circle as a list of modules, or None."""
    state = {}

    def visit(module, path):
        state[module] = "open"
        for name in sorted(graph[module]):
            if state.get(name) == "open":
                return path[path.index(name) :] + [name]
            if name not in state:
                found = visit(name, path + [name])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


@pytest.mark.parametrize("package", ["autograder", "bdl"])
def test_no_import_circle(package):
    graph = _imports(package)
    assert graph, f"no modules found in {package}"
    assert _cycle(graph) is None, f"import circle: {' -> '.join(_cycle(graph))}"


# The floors: which part of autograder may import which, by where its code runs.
NEVER = {
    "autograder.course": (
        "autograder.grading",
        "autograder.worker",
        "autograder.outputs",
        "autograder.hub",
        "autograder.checktests",
        "autograder.selfgrade",
        "autograder.studentkit",
        "autograder.__main__",
    ),
    "autograder.worker": ("autograder.grading", "autograder.outputs", "autograder.hub"),
    "autograder.hub": ("autograder.grading",),
    "autograder.grading": ("autograder.hub",),
}


def _crossings(graph):
    """Every import that goes where ``NEVER`` forbids, and every import of autograder by the guard."""
    found = []
    for module, names in sorted(graph.items()):
        for part, forbidden in NEVER.items():
            if module == part or module.startswith(part + "."):
                found += [f"{module} imports {name}" for name in sorted(names) if name.startswith(forbidden)]
    # the guard runs inside the student's kernel: it takes nothing from the instructor's package
    found += [f"autograder.worker.guard imports {name}" for name in sorted(graph.get("autograder.worker.guard", ()))]
    return found


def test_each_part_imports_only_what_its_floor_allows():
    graph = _imports("autograder")
    assert {"autograder.course.directory", "autograder.worker.guard", "autograder.hub.setup"} <= set(graph)
    assert _crossings(graph) == []
    # importing the guard runs these first: they import nothing at all
    for init in (REPO / "autograder" / "__init__.py", REPO / "autograder" / "worker" / "__init__.py"):
        assert not [
            node for node in ast.walk(ast.parse(init.read_text())) if isinstance(node, (ast.Import, ast.ImportFrom))
        ], f"{init} imports something"


def test_the_floor_check_finds_a_crossing():
    graph = {
        "autograder.course.cells": {"autograder.grading.host"},
        "autograder.worker.guard": {"autograder.course.cells"},
        "autograder.hub.setup": {"autograder.grading.task"},
        "autograder.grading.host": {"autograder.worker.job"},
    }
    assert _crossings(graph) == [
        "autograder.course.cells imports autograder.grading.host",
        "autograder.hub.setup imports autograder.grading.task",
        "autograder.worker.guard imports autograder.course.cells",
    ]


def test_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_students_package_never_imports_the_instructors():
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
