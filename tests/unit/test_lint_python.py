"""The Python of the repository passes ruff, with the rules and exclusions of pyproject.toml's
[tool.ruff] (pyflakes, syntax errors, imports, statements, whitespace), and is as `ruff format`
writes it, and the process contracts pass mypy; so `make test` and `make test-fast` lint it, and
`make lint` runs the same checks alone. The module docstrings of bdl/ and autograder/ are short.

Fast: ruff reads the whole tree in well under a second; no kernel.
"""

import ast
import subprocess
import sys

from autograder.course.directory import REPO


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "No module named ruff" not in result.stderr, (
        "ruff is not installed in this environment: run `make` to reinstall it from pyproject.toml's test group"
    )
    assert result.returncode == 0, (
        f"ruff check found problems (exit {result.returncode}); `make lint` shows them, and "
        f"`.venv/bin/python -m ruff check --fix .` mends the safe ones:\n{result.stdout}{result.stderr}"
    )


def test_the_code_is_formatted():
    """`ruff format` leaves every file as it is: one layout for the whole tree (notebooks and the frozen
    blind catalogue aside, as for the linter)."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, (
        f"these files are not formatted; `make format` formats them:\n{result.stdout}{result.stderr}"
    )


def test_the_process_contracts_type_check():
    """mypy passes on the modules pyproject.toml's [tool.mypy] lists (the job, the examiner's line
    protocol, the task), whose every function is annotated."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "No module named mypy" not in result.stderr, "mypy is not installed here: run `make` to reinstall"
    assert result.returncode == 0, f"mypy found problems (`make lint` shows them):\n{result.stdout}{result.stderr}"


# A module's docstring says what the module is for and why, in a few lines a reader takes in at a glance;
# what one function does belongs in that function's docstring, and the design in ARCHITECTURE.md.
MAX_MODULE_DOCSTRING_LINES = 12


def _long_module_docstrings(root):
    """Every module of bdl/ and autograder/ under ``root`` whose docstring (the string's own lines, its
    quotes included) runs past ``MAX_MODULE_DOCSTRING_LINES``."""
    found = []
    for path in sorted([*(root / "bdl").rglob("*.py"), *(root / "autograder").rglob("*.py")]):
        name = path.relative_to(root).as_posix()
        body = ast.parse(path.read_text()).body
        if not body or not isinstance(body[0], ast.Expr):
            continue
        first = body[0].value
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            lines = first.end_lineno - first.lineno + 1
            if lines > MAX_MODULE_DOCSTRING_LINES:
                found.append(f"{name}: {lines} lines")
    return found


def test_module_docstrings_are_short():
    found = _long_module_docstrings(REPO)
    assert found == [], (
        f"module docstrings longer than {MAX_MODULE_DOCSTRING_LINES} lines: say what the module is for and why, "
        "and move what one function does to that function's docstring:\n" + "\n".join(found)
    )


def test_the_docstring_check_finds_a_long_one(tmp_path):
    for name, lines in (
        ("bdl/long.py", 13),
        ("bdl/short.py", 12),
        ("autograder/__init__.py", 1),
        ("autograder/worker/long.py", 40),
        ("autograder/none.py", 0),
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        docstring = '"""' + "\n".join(["what"] * lines) + '"""\n' if lines else ""
        (tmp_path / name).write_text(docstring + "x = 1\n")
    assert _long_module_docstrings(tmp_path) == ["autograder/worker/long.py: 40 lines", "bdl/long.py: 13 lines"]
