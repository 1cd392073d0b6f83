"""The hub as a service without a hub: settings kept between starts, the systemd unit, backup and restore."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from autograder.__main__ import parser
from autograder.hub import backup, systemd_unit
from autograder.hub.private import private_file
from autograder.hub.settings import HubError, HubSettings
from autograder.hub.setup import settings_from


def hub_args(*argv):
    return parser().parse_args(["hub", *argv])


def test_a_start_keeps_the_settings_an_earlier_one_was_given(tmp_path):
    """The service starts `hub --dir DIR` and nothing more: TLS, port, graders, roster come from settings.json;
    an option given later changes that setting and no other."""
    roster = tmp_path / "roster.csv"
    roster.write_text("id\nada\nalan\n")
    folder = tmp_path / "hub"
    folder.mkdir()
    first = settings_from(
        hub_args(
            "--dir",
            str(folder),
            "--students",
            str(roster),
            "--graders",
            "ken",
            "--port",
            "8443",
            "--ssl-cert",
            "c.pem",
            "--ssl-key",
            "k.pem",
            "--no-limits",
        )
    )
    private_file(folder / "settings.json", json.dumps(first.__dict__))  # as set_up writes it
    again = settings_from(hub_args("--dir", str(folder)))
    assert again == first and again.port == 8443 and again.ssl_cert == "c.pem" and again.limits is False
    assert [student["id"] for student in again.students] == ["ada", "alan"] and again.graders == ["ken"]
    changed = settings_from(hub_args("--dir", str(folder), "--port", "9443", "--graders", ""))
    assert changed.port == 9443 and changed.graders == [] and changed.ssl_cert == "c.pem"
    assert changed.students == first.students
    assert settings_from(hub_args("--dir", str(folder), "--dummy")).dummy is True  # this start only
    assert again.dummy is False
    fresh = settings_from(hub_args("--dir", str(tmp_path / "new")))
    assert fresh == HubSettings(hub_dir=str(tmp_path / "new"))  # a first start: the defaults


def test_the_unit_restarts_the_hub_as_kept_and_systemd_reads_it(tmp_path):
    text = systemd_unit.unit("/srv/bdl-hub")
    assert "Restart=always" in text and "PrivateTmp=yes" in text
    assert f'ExecStart="{sys.executable}" "-m" "autograder" "hub" "--dir" "/srv/bdl-hub" "--upgrade-db"' in text
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed: the unit is checked where it is")
    path = tmp_path / systemd_unit.UNIT_NAME
    # a course and a Python in folders whose names have a space and a % in them
    odd = tmp_path / "a 100% odd folder"
    odd.mkdir()
    (odd / "python").symlink_to(sys.executable)
    for unit in (text, systemd_unit.unit(odd / "hub", python=odd / "python", repository=odd)):
        path.write_text(unit)
        checked = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True)
        assert checked.returncode == 0 and not checked.stderr.strip(), checked.stderr
    path.write_text(text.replace("Restart=always", "Restart=whenever"))  # the check can fail
    assert (
        "restart specifier"
        in subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True).stderr
    )


def test_install_service_needs_a_hub_set_up(tmp_path, monkeypatch):
    # a department's checkout and environment (this one may be in /tmp, which the service does not see)
    monkeypatch.setattr(systemd_unit, "REPO", Path("/srv/course"))
    monkeypatch.setattr(sys, "executable", "/srv/course/.venv/bin/python")
    with pytest.raises(HubError, match="holds no hub yet"):
        systemd_unit.install_service(hub_args("install-service", "--dir", str(tmp_path), "--unit-dir", str(tmp_path)))
    (tmp_path / "settings.json").write_text("{}")
    systemd_unit.install_service(hub_args("install-service", "--dir", str(tmp_path), "--unit-dir", str(tmp_path / "u")))
    assert (tmp_path / "u" / systemd_unit.UNIT_NAME).read_text() == systemd_unit.unit(tmp_path)


@pytest.mark.parametrize("where", ["repository", "python"])
def test_install_service_refuses_a_checkout_in_tmp(tmp_path, monkeypatch, where):
    """The unit's /tmp is its own: a checkout or environment in the machine's is not there for it."""
    (tmp_path / "settings.json").write_text("{}")
    monkeypatch.setattr(systemd_unit, "REPO", Path("/tmp/course" if where == "repository" else "/srv/course"))
    monkeypatch.setattr(sys, "executable", "/tmp/venv/bin/python" if where == "python" else "/srv/venv/bin/python")
    with pytest.raises(HubError, match="is in /tmp, which the service does not see"):
        systemd_unit.install_service(
            hub_args("install-service", "--dir", str(tmp_path), "--unit-dir", str(tmp_path / "u"))
        )
    assert not (tmp_path / "u").exists()


def database(path, rows=()):
    with sqlite3.connect(path) as connection:
        connection.execute("create table if not exists t (x integer)")
        connection.executemany("insert into t values (?)", [(row,) for row in rows])
    connection.close()


def count(path):
    with sqlite3.connect(path) as connection:
        return connection.execute("select count(*) from t").fetchone()[0]


def a_hub(root):
    """A hub's state as `hub` leaves it: its folder, the exchange, the instructor's course folder."""
    settings = HubSettings(hub_dir=str(root / "hub"))
    Path(settings.hub_dir).mkdir()
    private_file(Path(settings.hub_dir) / "settings.json", json.dumps(settings.__dict__))
    private_file(Path(settings.hub_dir) / "instructor-password", "secret\n")
    database(Path(settings.hub_dir) / "jupyterhub.sqlite", range(10))
    (Path(settings.hub_dir) / "venv").mkdir()  # made again by `hub`: not backed up
    inbound = Path(settings.exchange) / "bdl" / "inbound" / "ada+01+2026"
    inbound.mkdir(parents=True)
    (inbound / "answers.ipynb").write_text("ada's work")
    os.chmod(settings.exchange, 0o1777)
    course = root / "home" / "bdl"
    (course / "submitted" / "ada").mkdir(parents=True)
    (course / "submitted" / "ada" / "answers.ipynb").write_text("collected")
    (course / "latest").symlink_to("submitted")
    database(course / "gradebook.db", range(3))
    if os.geteuid() == 0:
        os.chown(inbound / "answers.ipynb", 65534, 65534)
    return settings, course


def test_backup_then_restore_brings_the_hubs_state_back(tmp_path):
    settings, course = a_hub(tmp_path)
    writing, stop = threading.Event(), threading.Event()

    def write():  # the hub goes on writing while the backup runs
        while not stop.is_set():
            database(Path(settings.hub_dir) / "jupyterhub.sqlite", [1])
            writing.set()

    writer = threading.Thread(target=write)
    writer.start()
    writing.wait()
    saved = tmp_path / "backup"
    try:
        assert backup.backup(settings, saved, course) == []
    finally:
        stop.set()
        writer.join()
    assert saved.stat().st_mode & 0o777 == 0o700
    assert count(saved / "hub" / "jupyterhub.sqlite") >= 10  # a consistent copy, opened by SQLite
    assert not (saved / "hub" / "venv").exists()
    with pytest.raises(HubError, match="is not empty"):
        backup.backup(settings, saved, course)

    shutil.rmtree(settings.exchange)  # the machine lost its state
    shutil.rmtree(course)
    Path(settings.hub_dir, "jupyterhub.sqlite").unlink()
    (Path(settings.hub_dir) / "jupyterhub.pid").write_text(str(os.getpid()))
    with pytest.raises(HubError, match="is running: stop it first"):
        backup.restore(settings, saved, course)
    (Path(settings.hub_dir) / "jupyterhub.pid").unlink()
    backup.restore(settings, saved, course)

    restored = Path(settings.exchange) / "bdl" / "inbound" / "ada+01+2026" / "answers.ipynb"
    assert restored.read_text() == "ada's work" and (course / "submitted" / "ada" / "answers.ipynb").exists()
    assert Path(settings.exchange).stat().st_mode & 0o7777 == 0o1777
    assert (course / "latest").is_symlink() and count(course / "gradebook.db") == 3
    assert count(Path(settings.hub_dir) / "jupyterhub.sqlite") >= 10
    assert Path(settings.hub_dir, "instructor-password").stat().st_mode & 0o777 == 0o600
    if os.geteuid() == 0:
        assert restored.stat().st_uid == 65534
    with pytest.raises(HubError, match="is not a backup of the hub"):
        backup.restore(settings, tmp_path / "home", course)


STUDENT = 54321  # a uid no account has


def hostile_exchange(root):
    """A hub whose exchange a student filled to make root read what is not theirs: beside ada's work, a
    secret of root's (outside the exchange) the student cannot read."""
    settings, course = a_hub(root)
    secret = root / "secret"
    secret.write_text("root's secret")
    secret.chmod(0o600)
    inbound = Path(settings.exchange) / "bdl" / "inbound" / "ada+01+2026"
    return settings, course, inbound, secret


def as_student(path):
    if os.geteuid() == 0:
        os.chown(path, STUDENT, STUDENT, follow_symlinks=False)


@contextmanager
def within(seconds):
    """A hang fails the test instead of the suite: a FIFO opened for reading blocks until a writer comes."""

    def late(signum, frame):  # not an OSError, which the copy would take for a file changed under it
        pytest.fail(f"still copying after {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def no_file_holds(folder, text):
    for place, _, files in os.walk(folder):
        for name in files:
            path = Path(place) / name
            assert path.is_symlink() or text.encode() not in path.read_bytes(), path


def test_a_students_links_are_backed_up_and_restored_as_links_never_what_they_name(tmp_path):
    settings, course, inbound, secret = hostile_exchange(tmp_path)
    vault = tmp_path / "vault"  # a folder of root's the student cannot enter
    vault.mkdir(mode=0o700)
    (vault / "key").write_text("root's secret")
    (inbound / "shadow").symlink_to(secret)
    (inbound / "vault").symlink_to(vault)
    for link in (inbound / "shadow", inbound / "vault"):
        as_student(link)
    saved = tmp_path / "backup"
    assert backup.backup(settings, saved, course) == []
    copy = saved / "exchange" / "bdl" / "inbound" / "ada+01+2026"
    no_file_holds(saved, "root's secret")
    shutil.rmtree(settings.exchange)
    assert backup.restore(settings, saved, course) == []
    for place in (copy, inbound):
        assert os.readlink(place / "shadow") == str(secret) and os.readlink(place / "vault") == str(vault)
        if os.geteuid() == 0:  # every link keeps its owner, a link to a folder too
            assert {(place / name).lstat().st_uid for name in ("shadow", "vault")} == {STUDENT}
    no_file_holds(settings.exchange, "root's secret")
    assert (inbound / "answers.ipynb").read_text() == "ada's work"


def test_a_fifo_in_the_exchange_is_named_and_does_not_stop_the_backup(tmp_path):
    settings, course, inbound, _ = hostile_exchange(tmp_path)
    os.mkfifo(inbound / "fifo")
    as_student(inbound / "fifo")
    with within(30):
        skipped = backup.backup(settings, tmp_path / "backup", course)
    assert skipped == ["skipped exchange/bdl/inbound/ada+01+2026/fifo: a FIFO"]
    copy = tmp_path / "backup" / "exchange" / "bdl" / "inbound" / "ada+01+2026"
    assert (copy / "answers.ipynb").read_text() == "ada's work" and not (copy / "fifo").exists()
    assert count(tmp_path / "backup" / "course" / "gradebook.db") == 3  # the rest is all there


def test_files_named_like_the_databases_in_the_exchange_are_copied_as_bytes(tmp_path):
    """Only the hub's jupyterhub.sqlite and the course folder's gradebook.db are databases: root does not
    open a student's file with SQLite because of its name."""
    settings, course, inbound, _ = hostile_exchange(tmp_path)
    junk = b"SQLite format 3\x00" + bytes(range(256)) * 8  # a header, then nothing SQLite can read
    for name in ("gradebook.db", "jupyterhub.sqlite"):
        (inbound / name).write_bytes(junk)
        (inbound / name).chmod(0o640)
        as_student(inbound / name)
    saved = tmp_path / "backup"
    assert backup.backup(settings, saved, course) == []
    for name in ("gradebook.db", "jupyterhub.sqlite"):
        copy = saved / "exchange" / "bdl" / "inbound" / "ada+01+2026" / name
        assert copy.read_bytes() == junk and copy.stat().st_mode & 0o777 == 0o640
        if os.geteuid() == 0:
            assert copy.stat().st_uid == STUDENT
    assert count(saved / "course" / "gradebook.db") == 3 and count(saved / "hub" / "jupyterhub.sqlite") == 10


@pytest.mark.parametrize("swap", ["link", "fifo", "removed"])
def test_a_file_swapped_after_it_was_looked_at_is_skipped_never_followed(tmp_path, monkeypatch, swap):
    """The student replaces their file the moment after root looked at it (a race): with a link to root's
    secret, a FIFO, or nothing. Root neither copies the secret nor gives the student a copy of it, nor waits,
    nor stops the backup."""
    settings, course, inbound, secret = hostile_exchange(tmp_path)
    (inbound / "notes.txt").write_text("ada's notes")
    as_student(inbound / "notes.txt")
    looked, swapped = os.stat, []

    def look_then_swap(path, *args, **kwargs):
        status = looked(path, *args, **kwargs)
        if os.path.basename(path) == "notes.txt" and not swapped:
            swapped.append(path)
            (inbound / "notes.txt").unlink()
            if swap == "link":
                (inbound / "notes.txt").symlink_to(secret)
                as_student(inbound / "notes.txt")
            elif swap == "fifo":
                os.mkfifo(inbound / "notes.txt")
        return status

    monkeypatch.setattr(os, "stat", look_then_swap)
    saved = tmp_path / "backup"
    with within(30):
        skipped = backup.backup(settings, saved, course)
    monkeypatch.undo()
    assert swapped and [line.split(":")[0] for line in skipped] == [
        "skipped exchange/bdl/inbound/ada+01+2026/notes.txt"
    ]
    no_file_holds(saved, "root's secret")
    copy = saved / "exchange" / "bdl" / "inbound" / "ada+01+2026"
    assert not (copy / "notes.txt").exists() and not (copy / "notes.txt").is_symlink()
    assert (copy / "answers.ipynb").read_text() == "ada's work"


def test_folders_nested_past_any_submission_are_named_not_the_end_of_the_backup(tmp_path):
    settings, course, inbound, _ = hostile_exchange(tmp_path)
    nested = [inbound / "/".join(["d"] * depth) for depth in range(1, 1001)]
    for folder in nested:  # not os.makedirs, nor rmtree below: each calls itself once a level
        folder.mkdir()
    try:
        skipped = backup.backup(settings, tmp_path / "backup", course)
    finally:
        for folder in reversed(nested):
            folder.rmdir()
    deep = "/".join(["exchange", "bdl", "inbound", "ada+01+2026"] + ["d"] * (backup.MAX_DEPTH - 3))
    assert skipped == [f"skipped {deep}: a folder more than {backup.MAX_DEPTH} deep"]
    assert count(tmp_path / "backup" / "course" / "gradebook.db") == 3


def test_restore_does_not_write_through_a_link_put_where_the_course_folder_was(tmp_path):
    settings, course = a_hub(tmp_path)
    saved = tmp_path / "backup"
    assert backup.backup(settings, saved, course) == []
    shutil.rmtree(course)
    elsewhere = tmp_path / "elsewhere"  # e.g. root's own folder, named by the course account's link
    elsewhere.mkdir()
    course.symlink_to(elsewhere)
    assert backup.restore(settings, saved, course) == ["skipped course: something else is already in its place"]
    assert list(elsewhere.iterdir()) == [] and course.is_symlink()
    assert (Path(settings.exchange) / "bdl" / "inbound" / "ada+01+2026" / "answers.ipynb").exists()


def test_the_course_service_runs_as_the_course_account_with_the_hubs_variables_only(tmp_path):
    """The staff's service: the course's environment and tools, JupyterHub's token and addresses, and none
    of the hub's own settings (its PYTHONPATH names the repository)."""
    import pwd as passwords

    from autograder.hub.course_service import service_environment

    settings = HubSettings(hub_dir=str(tmp_path), course_id="bdl")
    account = passwords.struct_passwd(("grader-bdl", "x", 1001, 1001, "", "/home/grader-bdl", "/bin/sh"))
    given = {
        "PYTHONPATH": "/root/bdl",
        "JUPYTERHUB_API_TOKEN": "the launcher's",
        "SECRET": "x",
        "JUPYTERHUB_API_URL": "http://127.0.0.1:8081/hub/api",
        "LANG": "C.UTF-8",
    }
    env = service_environment(settings, account, given)
    assert env["PYTHONPATH"] == "/home/grader-bdl/bdl" and env["HOME"] == "/home/grader-bdl"
    assert env["JUPYTERHUB_API_TOKEN"] == (tmp_path / "bdl-token").read_text().strip()  # the service bdl's
    assert (tmp_path / "bdl-token").stat().st_mode & 0o777 == 0o600
    assert env["JUPYTERHUB_SERVICE_URL"] == "http://127.0.0.1:8002" and env["JUPYTERHUB_CLIENT_ID"] == "service-bdl"
    assert env["JUPYTERHUB_SERVICE_PREFIX"] == "/services/bdl/"
    assert env["JUPYTERHUB_API_URL"] == "http://127.0.0.1:8081/hub/api"
    assert "SECRET" not in env and env["JUPYTERHUB_DEFAULT_URL"] == "/lab"
    assert env["JUPYTER_CONFIG_PATH"] == str(tmp_path / "course-jupyter")


def cgroup_tree(root, version, cpu=None, memory=None):
    """A cgroup file system as the kernel shows it, with this process in /course/grace."""
    if version == 2:
        (root / "course" / "grace").mkdir(parents=True)
        (root / "cgroup.controllers").write_text("cpu memory pids\n")
        (root / "course" / "grace" / "cpu.max").write_text(f"{cpu or 'max'} 100000\n")
        (root / "course" / "grace" / "memory.max").write_text(f"{memory or 'max'}\n")
        membership = "0::/course/grace\n"
    else:
        for controller in ("cpu", "memory"):
            (root / controller / "course" / "grace").mkdir(parents=True)
        (root / "cpu" / "course" / "grace" / "cpu.cfs_quota_us").write_text(f"{cpu or -1}\n")
        (root / "cpu" / "course" / "grace" / "cpu.cfs_period_us").write_text("100000\n")
        (root / "memory" / "course" / "grace" / "memory.limit_in_bytes").write_text(f"{memory or 2**63 - 4096}\n")
        membership = "4:memory:/course/grace\n2:cpu,cpuacct:/course/grace\n0::/\n"
    (root / "self-cgroup").write_text(membership)
    return root, root / "self-cgroup"


@pytest.mark.parametrize("version", [1, 2])
def test_grade_sizes_its_workers_to_its_cgroup(tmp_path, version):
    """grade's default: a worker per core it may use, no more than its cgroup's memory holds (2 GiB each)."""
    from autograder.grading.limits import grading_slots

    cores = len(os.sched_getaffinity(0))
    assert grading_slots(*cgroup_tree(tmp_path / "free", version)) == cores
    assert grading_slots(*cgroup_tree(tmp_path / "one core", version, cpu=100000, memory=8 * 2**30)) == 1
    assert grading_slots(*cgroup_tree(tmp_path / "small", version, cpu=800000, memory=2 * 2**30)) == 1
    assert grading_slots(*cgroup_tree(tmp_path / "tiny", version, memory=2**29)) == 1  # never none


def on_disk(folder):
    return sum(path.lstat().st_blocks * 512 for path in Path(folder).rglob("*"))


def test_what_a_student_leaves_in_the_exchange_copies_no_larger_than_it_is(tmp_path):
    """A sparse file of 2.1 GB holding 12 KiB, a sparse file under nbgrader's limit, and a FIFO whose
    name would retitle the instructor's terminal: each left out in a line, printable, and the backup
    takes no more disk than the exchange."""
    settings, course, inbound, _ = hostile_exchange(tmp_path)
    for name, size in (("huge.ipynb", 2_100_000_000), ("holes.ipynb", 50 * 10**6)):
        with open(inbound / name, "wb") as handle:
            handle.write(b"x" * 12 * 1024)
            handle.truncate(size)
        as_student(inbound / name)
    os.mkfifo(inbound / "\x1b]2;owned\x07")
    saved = tmp_path / "backup"
    with within(30):
        skipped = backup.backup(settings, saved, course)
    where = "skipped exchange/bdl/inbound/ada+01+2026"
    assert len(skipped) == 3 and skipped[0] == f"{where}/\\x1b]2;owned\\x07: a FIFO", skipped
    assert skipped[1].startswith(f"{where}/holes.ipynb: a sparse file (50.0 MB, "), skipped
    assert skipped[2] == f"{where}/huge.ipynb: a file of 2.1 GB, larger than the 100.0 MB nbgrader collects"
    assert on_disk(saved) < 10**6  # the databases and ada's work
    assert (saved / "exchange" / "bdl" / "inbound" / "ada+01+2026" / "answers.ipynb").read_text() == "ada's work"


@pytest.mark.skipif(os.geteuid() != 0, reason="files of a student's uid need root")
def test_past_a_students_bounds_the_rest_of_theirs_is_left_out_in_two_lines(tmp_path, monkeypatch):
    """A tree of many entries: the backup copies a student's first ``MAX_OWNER_ENTRIES``, then names the
    first it left out and counts the rest; the course's own files and other students' are all kept."""
    monkeypatch.setattr(backup, "MAX_OWNER_ENTRIES", 5)
    settings, course, inbound, _ = hostile_exchange(tmp_path)
    (inbound / "many").mkdir()
    as_student(inbound / "many")
    for number in range(20):
        (inbound / "many" / f"{number:02}").write_text("x")
        as_student(inbound / "many" / f"{number:02}")
    skipped = backup.backup(settings, tmp_path / "backup", course)
    assert skipped == [
        "skipped exchange/bdl/inbound/ada+01+2026/many/04: over the 5 entries or 5.0 GB a backup keeps of one "
        f"student's (uid {STUDENT}), as is the rest of theirs",
        f"skipped 15 more entries of uid {STUDENT}'s (a folder counts as one)",
    ]
    copy = tmp_path / "backup" / "exchange" / "bdl" / "inbound" / "ada+01+2026"
    assert sorted(path.name for path in (copy / "many").iterdir()) == ["00", "01", "02", "03"]
    assert (copy / "answers.ipynb").read_text() == "ada's work"  # nobody's (65534): within their own bounds
    assert count(tmp_path / "backup" / "course" / "gradebook.db") == 3
