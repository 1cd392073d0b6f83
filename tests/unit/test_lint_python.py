"""The Python of the repository passes ruff, with the rules and exclusions of pyproject.toml's
[tool.ruff] (pyflakes, syntax errors, imports, statements, whitespace), and is as `ruff format`
writes it, and the process contracts pass mypy; so `make test` and `make test-fast` lint it, and
`make lint` runs the same checks alone.

Fast: ruff reads the whole tree in well under a second; no kernel.
"""

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
