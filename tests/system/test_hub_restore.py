"""`autograder hub backup` then `autograder hub restore` onto a fresh machine, through the command line: the
hub's accounts are gone (as on a new machine), restore makes them again and gives each file to the account
of its name, whatever uid it has now. Needs root (it makes accounts, as `hub` does); takes seconds. Without
root, restore names the step that needs it.
"""

import json
import os
import pwd
import secrets
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course.directory import REPO
from autograder.hub.accounts import ensure_user, remove_accounts
from autograder.hub.private import private_file
from autograder.hub.settings import HubSettings


def hub(*argv):
    return subprocess.run(
        [sys.executable, "-m", "autograder", "hub", *map(str, argv)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


def owner(path):
    return pwd.getpwuid(os.stat(path, follow_symlinks=False).st_uid).pw_name


@pytest.fixture
def old_machine(tmp_path):
    """A hub with its own accounts (random names), made student first and course account last, so that
    made again in restore's order (course account first) each gets another's uid."""
    if os.geteuid() != 0:
        pytest.skip("needs root: restore makes the hub's accounts")
    tag = secrets.token_hex(3)
    tmp_path.chmod(0o755)  # the homes' parent: every account reaches its own home
    settings = HubSettings(
        hub_dir=str(tmp_path / "hub"),
        course_id=f"r{tag}",
        instructor=f"bdlri{tag}",
        students=[{"id": f"bdlrs{tag}"}],
        home_root=str(tmp_path / "home"),
    )
    names = [f"bdlrs{tag}", settings.instructor, settings.course_account]
    Path(settings.home_root).mkdir()
    try:
        accounts = {name: ensure_user(name, settings.home_root, log=lambda line: None) for name in names}
        Path(settings.hub_dir).mkdir()
        private_file(Path(settings.hub_dir) / "settings.json", json.dumps(settings.__dict__))
        inbound = Path(settings.exchange) / settings.course_id / "inbound" / f"bdlrs{tag}+01+2026"
        inbound.mkdir(parents=True)
        (inbound / "answers.ipynb").write_text("the student's work")
        os.chown(inbound / "answers.ipynb", accounts[names[0]].pw_uid, accounts[names[0]].pw_gid)
        course = Path(accounts[settings.course_account].pw_dir) / settings.course_id
        course.mkdir()
        with sqlite3.connect(course / "gradebook.db") as gradebook:
            gradebook.execute("create table grades (x integer)")
            gradebook.execute("insert into grades values (7)")
        gradebook.close()
        for path in (course, course / "gradebook.db"):
            os.chown(path, accounts[settings.course_account].pw_uid, accounts[settings.course_account].pw_gid)
        yield settings, names, inbound.relative_to(settings.exchange) / "answers.ipynb"
    finally:
        remove_accounts(names)


@pytest.mark.root
def test_a_backup_restored_on_a_fresh_machine_has_its_accounts_and_owners(tmp_path, old_machine):
    settings, names, handed_in = old_machine
    student, _, course_account = names
    saved = tmp_path / "backup"
    backed_up = hub("backup", saved, "--dir", settings.hub_dir)
    assert backed_up.returncode == 0, backed_up.stderr

    remove_accounts(names)  # a fresh machine: no hub, none of its accounts
    uids_taken = [ensure_user(f"bdlrx{secrets.token_hex(3)}", settings.home_root, log=lambda line: None)]
    try:  # the old uids now belong to no one or to someone else
        new_dir = tmp_path / "new-hub"
        restored = hub("restore", saved, "--dir", new_dir)
        assert restored.returncode == 0, restored.stderr
        assert all(pwd.getpwnam(name) for name in names)  # made again
        course = Path(pwd.getpwnam(course_account).pw_dir) / settings.course_id
        assert owner(course / "gradebook.db") == course_account and owner(course) == course_account
        assert owner(new_dir / "exchange" / handed_in) == student
        assert (new_dir / "exchange" / handed_in).read_text() == "the student's work"
        with sqlite3.connect(course / "gradebook.db") as gradebook:
            assert gradebook.execute("select x from grades").fetchall() == [(7,)]
        gradebook.close()
        assert (new_dir / "settings.json").stat().st_mode & 0o777 == 0o600
    finally:
        remove_accounts([account.pw_name for account in uids_taken])


def test_without_root_restore_names_the_step_that_needs_it(tmp_path):
    """Where the tests do not run as root (the test above runs where they do)."""
    if os.geteuid() == 0:
        pytest.skip("as root, restore makes the accounts (the test above)")
    saved = tmp_path / "backup"
    (saved / "hub").mkdir(parents=True)
    settings = HubSettings(hub_dir="/srv/old", course_id=f"r{secrets.token_hex(3)}")
    (saved / "hub" / "settings.json").write_text(json.dumps(settings.__dict__))
    restored = hub("restore", saved, "--dir", tmp_path / "new")
    assert restored.returncode == 2 and restored.stderr.splitlines() == [
        f"autograder: error: the account {settings.course_account!r} is not on this machine: "
        "run `autograder hub restore` as root, which makes it"
    ]
    assert not (tmp_path / "new").exists()  # refused before anything was written
