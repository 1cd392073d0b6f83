"""The hub's state backed up and put back (``hub backup DEST``, ``hub restore SOURCE``).

A backup holds what cannot be made again: the hub's database, settings and secrets, the exchange
(submissions not yet collected live only there) and the course account's course folder (the gradebook,
``submitted/``, ``autograded/``, ``feedback/``). The hub's database and the gradebook are copied with
SQLite's own backup, which is consistent while the hub writes; every file keeps its owner and mode.

Root copies what students wrote (the exchange is everyone's) and may swap while it is copied: every entry
is opened relative to its folder without following a link, links are copied as links, FIFOs, sockets and
devices are left out and named, and a database is known by its place, never by its name. No student fills
the backup's disk (``Bounds``, ``MAX_FILE_BYTES``, no sparse file) or its terminal (lines ``printable``).
"""

import json
import os
import pwd
import shutil
import sqlite3
import stat
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.exchange import owner_name
from autograder.course.statuses import printable
from autograder.hub.accounts import ensure_user
from autograder.hub.private import private_file
from autograder.hub.settings import HubError, people, stored_settings
from autograder.hub.systemd_unit import UNIT_NAME, running

# The hub's own files a backup keeps (its environment, proxy and data are made again by `hub`).
HUB_FILES = ("settings.json", "jupyterhub.sqlite", "jupyterhub_cookie_secret", "instructor-password", "dummy-password")
# The hub's accounts' uids and gids when it was backed up (hub/accounts.json): restore gives their files
# to the accounts of the same names, whose numbers on a new machine may differ.
ACCOUNTS = "accounts.json"
# Databases by their place in the backup, never by name: a student may name a file gradebook.db.
DATABASES = ("hub/jupyterhub.sqlite", "course/gradebook.db")
# Root copies what students wrote (the exchange is everyone's): no entry is ever opened through a link.
READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
WRITE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# Deeper folders are left out: each level holds two descriptors and two frames, and a student's
# thousand nested folders must not end the backup.
MAX_DEPTH = 100
# Larger files are left out: nbgrader's collect takes none (its max_file_size, 100,000 kB).
MAX_FILE_BYTES = 100 * 10**6
# What a backup keeps of each student's files (an owner but root and the course account), past which
# the rest of theirs is left out in one line: a hundred submissions of every assignment fit.
MAX_OWNER_ENTRIES = 10_000
MAX_OWNER_BYTES = 5 * 10**9


class Skipped(Exception):
    """An entry left out of the copy; the message says why."""


class Unsaid(Exception):
    """An entry left out of the copy that a line said before (``Bounds``)."""


@dataclass
class Bounds:
    """How much of each student's files a backup has copied, at most ``MAX_OWNER_ENTRIES`` entries and
    ``MAX_OWNER_BYTES`` bytes. ``course`` are the uids whose files are the course's own (root's, the
    course account's), never bounded."""

    course: frozenset = frozenset()
    copied: dict = field(default_factory=dict)  # {uid: (entries, bytes)}
    left: dict = field(default_factory=dict)  # {uid: entries left out past the bounds}

    def count(self, status):
        """Count an entry of ``status``; raise ``Skipped`` at the first past its owner's bounds, then
        ``Unsaid``."""
        if status.st_uid in self.course:
            return
        entries, size = self.copied.get(status.st_uid, (0, 0))
        entries, size = entries + 1, size + (status.st_size if stat.S_ISREG(status.st_mode) else 0)
        if entries <= MAX_OWNER_ENTRIES and size <= MAX_OWNER_BYTES:
            self.copied[status.st_uid] = (entries, size)
            return
        self.left[status.st_uid] = self.left.get(status.st_uid, 0) + 1
        if self.left[status.st_uid] > 1:
            raise Unsaid
        raise Skipped(
            f"over the {MAX_OWNER_ENTRIES} entries or {_size(MAX_OWNER_BYTES)} a backup keeps of one student's "
            f"({owner_name(status.st_uid)}), as is the rest of theirs"
        )

    def lines(self):
        return [
            f"skipped {left - 1} more entries of {owner_name(uid)}'s (a folder counts as one)"
            for uid, left in sorted(self.left.items())
            if left > 1
        ]


@dataclass(frozen=True)
class Owners:
    """{uid in the backup: uid here} and the same for gids; every other owner (root, a removed account)
    is kept as it is."""

    uids: dict = field(default_factory=dict)
    gids: dict = field(default_factory=dict)

    def of(self, status):
        return self.uids.get(status.st_uid, status.st_uid), self.gids.get(status.st_gid, status.st_gid)


KEEP = Owners()


@contextmanager
def _folder(path):
    """A folder the administrator named (its path may pass through links), open for the copy."""
    descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _copy(origin, name, copy, new_name, where, skipped, databases=(), owners=KEEP, bounds=None):
    """Copy the entry ``name`` of the open folder ``origin`` to ``new_name`` in the open folder ``copy``:
    links as links, folders and files with their owner and mode, the files at ``databases`` (places in
    the backup like ``where``) by SQLite's backup, within ``bounds``. What cannot be copied safely is
    named in ``skipped``, printable."""
    try:
        status = os.stat(name, dir_fd=origin, follow_symlinks=False)
        mode = status.st_mode
        if bounds is not None and not stat.S_ISREG(mode):  # a file is counted once it is known to fit
            bounds.count(status)
        if stat.S_ISDIR(mode):
            _copy_folder(origin, name, copy, new_name, where, skipped, databases, owners, bounds)
        elif stat.S_ISREG(mode):
            _copy_file(origin, name, copy, new_name, where in databases, owners, bounds)
        elif stat.S_ISLNK(mode):
            _copy_link(origin, name, copy, new_name, owners)
        else:
            raise Skipped(_kind(mode))
    except Unsaid:
        pass
    except Skipped as why:
        skipped.append(printable(f"skipped {where}: {why}"))
    except FileNotFoundError:  # its owner removed it during the backup
        skipped.append(printable(f"skipped {where}: removed while it was copied"))
    except FileExistsError:  # restore: something was put in the emptied place
        skipped.append(printable(f"skipped {where}: something else is already in its place"))


def _kind(mode):
    return (
        "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device file"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a file"
    )


def _open(origin, name, flags):
    try:
        return os.open(name, READ | flags, dir_fd=origin)
    except FileNotFoundError:
        raise
    except OSError as error:  # a link or a socket put in its place since it was looked at
        raise Skipped(f"changed while it was copied, not opened ({error.strerror})") from None


def _copy_folder(origin, name, copy, new_name, where, skipped, databases, owners, bounds):
    if where.count("/") >= MAX_DEPTH:
        raise Skipped(f"a folder more than {MAX_DEPTH} deep")
    source = _open(origin, name, os.O_DIRECTORY)
    try:
        status = os.fstat(source)
        os.mkdir(new_name, 0o700, dir_fd=copy)  # no one else's until it is full
        target = os.open(new_name, READ | os.O_DIRECTORY, dir_fd=copy)
        try:
            for entry in sorted(os.listdir(source)):
                _copy(source, entry, target, entry, f"{where}/{entry}", skipped, databases, owners, bounds)
            _keep_owner(target, status, owners)
        finally:
            os.close(target)
    finally:
        os.close(source)


def _copy_file(origin, name, copy, new_name, database=False, owners=KEEP, bounds=None):
    """Copy one file; within ``bounds`` (restore has none), none larger than ``MAX_FILE_BYTES`` nor
    sparse, but a database."""
    source = _open(origin, name, os.O_NONBLOCK)  # a FIFO put in its place cannot block the backup
    try:
        status = os.fstat(source)  # the owner and mode of the very file read, not of what is there now
        if not stat.S_ISREG(status.st_mode):
            raise Skipped(_kind(status.st_mode))
        if bounds is not None and not database:
            _check_file(source, status)
            bounds.count(status)
        target = os.open(new_name, WRITE, 0o600, dir_fd=copy)
        try:
            if database:
                _copy_database(f"/proc/self/fd/{origin}/{name}", f"/proc/self/fd/{copy}/{new_name}")
            else:
                with open(source, "rb", closefd=False) as reader, open(target, "wb", closefd=False) as writer:
                    left = status.st_size  # no more than it held when looked at: a file that grows meanwhile
                    while left > 0 and (chunk := reader.read(min(left, 2**20))):
                        writer.write(chunk)
                        left -= len(chunk)
            _keep_owner(target, status, owners)
            os.utime(target, ns=(status.st_atime_ns, status.st_mtime_ns))
        finally:
            os.close(target)
    finally:
        os.close(source)


def _check_file(source, status):
    if status.st_size > MAX_FILE_BYTES:
        raise Skipped(f"a file of {_size(status.st_size)}, larger than the {_size(MAX_FILE_BYTES)} nbgrader collects")
    if os.lseek(source, 0, os.SEEK_HOLE) < status.st_size:  # a hole before its end: it reads as more than it holds
        raise Skipped(f"a sparse file ({_size(status.st_size)}, {_size(status.st_blocks * 512)} on disk)")
    os.lseek(source, 0, os.SEEK_SET)


def _size(count):
    """``count`` bytes in decimal units (``2.1 GB``)."""
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} bytes"


def _copy_database(source, target):
    """SQLite's own online backup: a consistent copy while another process writes. SQLite opens the file
    by its name; it is only asked to in the hub's folder and the course folder, which students cannot write."""
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as reader, sqlite3.connect(target) as writer:
        reader.backup(writer)
    reader.close()
    writer.close()


def _copy_link(origin, name, copy, new_name, owners=KEEP):
    link = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=origin)
    try:
        status = os.fstat(link)  # the owner of the very link read
        if not stat.S_ISLNK(status.st_mode):
            raise Skipped("changed while it was copied")
        os.symlink(os.readlink("", dir_fd=link), new_name, dir_fd=copy)
    finally:
        os.close(link)
    if os.geteuid() == 0:
        os.chown(new_name, *owners.of(status), dir_fd=copy, follow_symlinks=False)


def _keep_owner(descriptor, status, owners=KEEP):
    if os.geteuid() == 0:
        os.fchown(descriptor, *owners.of(status))
    os.fchmod(descriptor, status.st_mode & 0o7777)  # after the owner: a chown clears setuid bits


def course_folder(settings):
    """The course folder, ~grader-COURSE/COURSE."""
    try:
        return Path(pwd.getpwnam(settings.course_account).pw_dir) / settings.course_id
    except KeyError:
        raise HubError(f"the course account {settings.course_account!r} has no account here") from None


def backup(settings, destination, course):
    """Copy the hub's state into the new folder ``destination`` (root's alone): hub/, exchange/, course/.
    Returns what it left out, one line each (a FIFO, a socket, a sparse file, a file removed while it was
    copied)."""
    destination = Path(destination)
    if destination.exists() and any(destination.iterdir()):
        raise HubError(f"{destination} is not empty: a backup goes to a new folder")
    destination.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(destination, 0o700)  # secrets and every student's work
    (destination / "hub").mkdir(mode=0o700)
    skipped = []
    with _folder(settings.hub_dir) as hub, _folder(destination / "hub") as copy:
        present = os.listdir(hub)
        for name in HUB_FILES:
            if name in present:
                _copy(hub, name, copy, name, f"hub/{name}", skipped, DATABASES)
    accounts = _account_ids(settings)
    private_file(destination / "hub" / ACCOUNTS, json.dumps(accounts))
    bounds = Bounds(frozenset([0, *accounts.get(settings.course_account, [])[:1]]))
    with _folder(destination) as saved:
        for name, folder in (("exchange", settings.exchange), ("course", course)):
            _copy_top(Path(folder), saved, name, skipped, DATABASES, bounds)
    return skipped + bounds.lines()


def _account_ids(settings):
    """{name: [uid, gid]} of the hub's accounts on this machine."""
    ids = {}
    for name in [settings.course_account, *people(settings)]:
        with suppress(KeyError):
            account = pwd.getpwnam(name)
            ids[name] = [account.pw_uid, account.pw_gid]
    return ids


def _copy_top(folder, saved, name, skipped, databases, bounds):
    if folder.is_symlink():  # copied as a link, the backup would silently hold none of it
        skipped.append(f"skipped {name}: {folder} is a link; name the folder it points to")
    elif folder.is_dir():
        with _folder(folder.parent) as parent:
            _copy(parent, folder.name, saved, name, name, skipped, databases, bounds=bounds)


def check_backup(source):
    if not (Path(source) / "hub" / "settings.json").is_file():
        raise HubError(f"{source} is not a backup of the hub (no hub/settings.json)")


def check_stopped(settings):
    if running(settings.hub_dir):
        raise HubError(f"the hub of {settings.hub_dir} is running: stop it first (systemctl stop {UNIT_NAME})")


def make_accounts(settings, source):
    """The hub's accounts the backup ``source`` names, made where missing; return {backed-up uid or gid:
    this machine's} (``Owners``) for the files of each."""
    saved = Path(source) / "hub" / ACCOUNTS
    ids = json.loads(saved.read_text()) if saved.is_file() else {}  # none in a backup made before it kept them
    uids, gids = {}, {}
    for name in [settings.course_account, *sorted(people(settings))]:
        try:
            account = pwd.getpwnam(name)
        except KeyError:
            if os.geteuid() != 0:
                raise HubError(
                    f"the account {name!r} is not on this machine: run `autograder hub restore` as root, which makes it"
                ) from None
            account = ensure_user(name, settings.home_root)
        if name in ids:
            uids[ids[name][0]], gids[ids[name][1]] = account.pw_uid, account.pw_gid
    return Owners(uids, gids)


def restore(settings, source, course, owners=None):
    """Put the backup ``source`` back in place of the hub's state; the hub must be stopped. Returns what
    it left out, one line each. ``owners`` maps the backup's uids and gids to this machine's."""
    source = Path(source)
    check_backup(source)
    check_stopped(settings)
    Path(settings.hub_dir).mkdir(parents=True, exist_ok=True)
    skipped = []
    with _folder(source / "hub") as saved, _folder(settings.hub_dir) as hub:
        present = os.listdir(saved)
        for name in HUB_FILES:
            if name in present:
                with suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=hub)
                _copy(saved, name, hub, name, f"hub/{name}", skipped, owners=owners or KEEP)
    for name, folder in (("exchange", settings.exchange), ("course", course)):
        if (source / name).is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            Path(folder).parent.mkdir(parents=True, exist_ok=True)
            with _folder(source) as saved, _folder(Path(folder).parent) as parent:
                _copy(saved, name, parent, Path(folder).name, name, skipped, owners=owners or KEEP)
    return skipped


def backup_command(args):
    settings = stored_settings(Path(args.dir).resolve())
    if not (Path(settings.hub_dir) / "settings.json").exists():
        raise HubError(f"{settings.hub_dir} holds no hub yet: nothing to back up")
    for line in backup(settings, args.path, course_folder(settings)):
        print(line)
    print(f"backed up the hub of {settings.hub_dir} to {args.path}")
    return 0


def restore_command(args):
    """On this machine or a fresh one: the backup checked, the hub's accounts made where they are missing
    (root's step), and every file's owner the account of the same name, whatever its uid is here."""
    check_backup(args.path)
    settings = stored_settings(Path(args.path, "hub"))  # the backup's own settings: its instructor, course
    settings.hub_dir = str(Path(args.dir).resolve())
    check_stopped(settings)
    owners = make_accounts(settings, args.path)
    for line in restore(settings, args.path, course_folder(settings), owners):
        print(line)
    print(f"restored {args.path} into {settings.hub_dir}; start the hub again")
    return 0
