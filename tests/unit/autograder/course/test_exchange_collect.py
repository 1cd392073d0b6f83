"""Collect takes only what each student wrote (``autograder.course.exchange.OwnedCollect``, the
course's collect in ``nbgrader_config.py``): a folder its student owns, copied without following
links. The three recipes of a student who owns their inbound folder after ``submit``: a link to
the source notebook, a link into a classmate's collected work, a folder planted under a
classmate's name with a later timestamp."""

import os

import pytest

from autograder.course.directory import load_config, make_api
from autograder.course.exchange import OwnedCollect
from tests.support.small_course import ASSIGNMENT, NOTEBOOK, SOURCE, write_course

STRANGER = 54321  # a uid no account of this machine has: "another student"


def _submission(inbound, student, stamp, notebook=b"{}", owner=None):
    folder = inbound / f"{student}+{ASSIGNMENT}+2026-11-{stamp} 10:00:00.000000 UTC+{stamp}abc"
    folder.mkdir(parents=True)
    (folder / f"{NOTEBOOK}.ipynb").write_bytes(notebook)
    if owner is not None:
        os.chown(folder, owner, -1)
    return folder


def test_the_course_collects_with_owned_collect():
    assert load_config(".").ExchangeFactory.collect is OwnedCollect


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another uid needs root")
def test_collect_takes_only_what_each_student_wrote(tmp_path):
    root, exchange = tmp_path / "course", tmp_path / "exchange"
    write_course(root)
    inbound = exchange / "bdl" / "inbound"
    inbound.mkdir(parents=True)
    _submission(inbound, "alice", "20", b'{"alice": 1}')
    _submission(inbound, "alice", "25", b'{"planted": 1}', owner=STRANGER)  # later, in alice's name
    (_submission(inbound, "bob", "20") / f"{NOTEBOOK}.ipynb").unlink()
    os.symlink(SOURCE, inbound / next(p for p in os.listdir(inbound) if p.startswith("bob")) / f"{NOTEBOOK}.ipynb")
    carol = _submission(inbound, "carol", "20")
    os.mkfifo(carol / "answers.fifo")
    _submission(inbound, "dave", "20", b'{"dave": 1}')
    os.symlink(tmp_path / "elsewhere", _submission(inbound, "dave", "21", b'{"dave": 2}') / "notes")

    api = make_api(root, {"Exchange": {"root": str(exchange)}})
    result = api.collect(ASSIGNMENT)
    submitted = root / "submitted"
    assert (submitted / "alice" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_bytes() == b'{"alice": 1}'
    for student in ("bob", "carol", "dave"):
        assert not (submitted / student).exists() or not any((submitted / student).rglob("*.ipynb")), student
    log = result["log"]
    assert "belongs to uid 54321" not in log  # the planted folder is never alice's latest
    assert f"{NOTEBOOK}.ipynb, a link or a special file" in log and "answers.fifo, a link or a special file" in log
    assert "notes, a link or a special file" in log


def test_a_folder_swapped_for_a_link_mid_copy_is_not_walked_through(tmp_path, monkeypatch):
    """Collect copies a student's folder by descriptors: when a subfolder is swapped for a link to
    another's files after it was opened, the copy still reads the folder it opened, never the link's."""
    from autograder.course import exchange

    student = tmp_path / "student"
    (student / "work" / "data").mkdir(parents=True)
    (student / "work" / "data" / "answers.txt").write_text("mine\n")
    other = tmp_path / "other"
    (other / "data").mkdir(parents=True)
    (other / "data" / "answers.txt").write_text("someone else's\n")
    listings, real_scandir = [], os.scandir

    def scandir(folder):
        listings.append(folder)
        if len(listings) == 2:  # "work" is open and being read: swap it for a link to the other's folder
            os.rename(student / "work", student / "moved")
            os.symlink(other, student / "work")
        return real_scandir(folder)

    monkeypatch.setattr(exchange.os, "scandir", scandir)
    exchange.copy_tree(str(student), str(tmp_path / "copy"))
    assert (tmp_path / "copy" / "work" / "data" / "answers.txt").read_text() == "mine\n"


def test_a_submission_is_timed_by_the_exchange_not_by_its_student(tmp_path):
    """A folder's name and its timestamp.txt are the student's to write: an earlier time would pass a
    deadline. Collect times each folder by its status change, which its owner cannot move earlier:
    of alice's two folders it takes the one made last, whatever their names say, and writes that time;
    a folder whose name is no time is refused alone."""
    import datetime

    from nbgrader.utils import parse_utc

    root, exchange = tmp_path / "course", tmp_path / "exchange"
    write_course(root)
    inbound = exchange / "bdl" / "inbound"
    inbound.mkdir(parents=True)
    before = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    _submission(inbound, "alice", "25", b'{"first": 1}')  # named later, made first
    last = _submission(inbound, "alice", "20", b'{"last": 1}')
    (last / "timestamp.txt").write_text("2000-01-01 00:00:00.000000 UTC")
    (inbound / f"bob+{ASSIGNMENT}+not a time+abc").mkdir()
    _submission(inbound, "carol", "20", b'{"carol": 1}')

    result = make_api(root, {"Exchange": {"root": str(exchange)}}).collect(ASSIGNMENT)
    alice = root / "submitted" / "alice" / ASSIGNMENT
    assert (alice / f"{NOTEBOOK}.ipynb").read_bytes() == b'{"last": 1}'
    stamp = parse_utc((alice / "timestamp.txt").read_text())
    assert before - datetime.timedelta(seconds=1) <= stamp <= datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    assert (root / "submitted" / "carol" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").exists(), "one bad name stops no one"
    assert "has a name that is not <student>+<assignment>+<time>+<random>" in result["log"]


def test_a_hand_in_changed_after_the_deadline_is_collected_as_late(tmp_path):
    """What a student changes in their folder after the deadline makes it late, however they change
    it: alice rewrites her notebook in place and touches it back to its first time, bob adds a file
    to a folder of his submission. Both rewrites leave the folder's own status-change time as it
    was. carol's folder, made before the deadline and left alone, stays on time."""
    import datetime
    import time

    from nbgrader.utils import parse_utc

    root, exchange = tmp_path / "course", tmp_path / "exchange"
    write_course(root)
    inbound = exchange / "bdl" / "inbound"
    inbound.mkdir(parents=True)
    alice = _submission(inbound, "alice", "20", b'{"on time": 1}')
    bob = _submission(inbound, "bob", "20", b'{"bob": 1}')
    (bob / "extra").mkdir()
    _submission(inbound, "carol", "20", b'{"carol": 1}')
    time.sleep(0.05)  # file times step by the kernel's tick, at most 10 ms
    deadline = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    time.sleep(0.05)
    notebook = alice / f"{NOTEBOOK}.ipynb"
    first = notebook.stat()
    with open(notebook, "r+b") as handle:  # the same file, its bytes replaced
        handle.write(b'{"late!": 1}')
        handle.truncate()
    os.utime(notebook, ns=(first.st_atime_ns, first.st_mtime_ns))
    (bob / "extra" / "answers.py").write_text("late")

    make_api(root, {"Exchange": {"root": str(exchange)}}).collect(ASSIGNMENT)
    submitted = root / "submitted"
    stamps = {
        student: parse_utc((submitted / student / ASSIGNMENT / "timestamp.txt").read_text())
        for student in ("alice", "bob", "carol")
    }
    assert (submitted / "alice" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_bytes() == b'{"late!": 1}'
    assert stamps["alice"] > deadline and stamps["bob"] > deadline, (stamps, deadline)
    assert stamps["carol"] < deadline, (stamps, deadline)


def test_a_refusal_line_carries_no_terminal_escape(tmp_path):
    """The names in a refusal line are the student's: a folder whose name's time part clears the
    screen, a FIFO named to retitle the terminal. The line names them with their escapes written out."""
    root, exchange = tmp_path / "course", tmp_path / "exchange"
    write_course(root)
    inbound = exchange / "bdl" / "inbound"
    inbound.mkdir(parents=True)
    (inbound / f"bob+{ASSIGNMENT}+\x1b[2J\x1b[H+abc").mkdir()
    os.mkfifo(_submission(inbound, "carol", "20") / "\x1b]2;owned\x07.fifo")

    log = make_api(root, {"Exchange": {"root": str(exchange)}}).collect(ASSIGNMENT)["log"]
    assert "\x1b" not in log and "\x07" not in log
    assert "\\x1b[2J" in log and "\\x1b]2;owned\\x07.fifo, a link or a special file" in log
