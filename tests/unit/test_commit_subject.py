"""The commit-msg hook of .pre-commit-config.yaml refuses a subject over 72 characters, in a real git commit."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from autograder.course.directory import REPO

sys.path.insert(0, str(REPO / ".ci"))
from commit_subject import LIMIT, subject_problem  # noqa: E402


def _hook():
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())
    assert "commit-msg" in config["default_install_hook_types"], "`pre-commit install` would not install it"
    (hook,) = [hook for repo in config["repos"] for hook in repo["hooks"] if hook["id"] == "commit-subject"]
    assert hook["stages"] == ["commit-msg"]
    return hook


def test_a_subject_of_72_characters_passes_and_one_of_73_does_not():
    assert subject_problem("a" * LIMIT + "\n\nbody " + "b" * 200) is None
    assert subject_problem("a" * (LIMIT + 1)) == f"the subject is 73 characters, over 72: {'a' * LIMIT}..."
    # git strips its own comment lines and leading blank lines before the subject
    assert subject_problem("# Please enter the commit message\n\nshort subject\n") is None
    assert subject_problem("# only comments\n\n") == "the commit message has no subject line"


def test_git_refuses_a_long_subject_through_the_configured_hook(tmp_path):
    # the hook's entry as pre-commit runs it, the entry's words then the message file (which git names relative
    # to the repository committed to); the entry's own paths are this repository's
    python, *words = shlex.split(_hook()["entry"])
    assert python == ".venv/bin/python"
    entry = [sys.executable, *(str(REPO / word) if (REPO / word).is_file() else word for word in words)]
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    script = hooks / "commit-msg"
    script.write_text(f'#!/bin/sh\nexec {shlex.join(entry)} "$1"\n')
    script.chmod(0o755)
    work = tmp_path / "repo"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    git = ["git", "-C", str(work), "-c", f"core.hooksPath={hooks}"]
    subprocess.run(["git", "init", "-q", str(work)], check=True, env=env)
    Path(work, "f").write_text("x")
    subprocess.run([*git, "add", "f"], check=True, env=env)
    refused = subprocess.run([*git, "commit", "-q", "-m", "x" * 73], capture_output=True, text=True, env=env)
    assert refused.returncode != 0
    assert "commit-msg: the subject is 73 characters, over 72" in refused.stderr
    taken = subprocess.run([*git, "commit", "-q", "-m", "x" * 72], capture_output=True, text=True, env=env)
    assert taken.returncode == 0, taken.stderr
