"""nbgrader's collect, taking only what each student wrote (``nbgrader_config.py`` makes it the course's).

After ``submit`` a student owns their submission folder in the exchange's ``inbound/``, and nbgrader's
own collect copies it following symbolic links, and only warns when a folder named for one student
belongs to another. So a student could hand in any file the grader can read (the source notebook, a
classmate's collected work) by replacing their notebook with a link, or plant a folder under a
classmate's name. ``OwnedCollect`` takes a folder only from the student it names, copies it without
following any link (``copy_tree``), and times it by the exchange (``exchange_time``), not the student.
"""

import datetime
import fnmatch
import os
import shutil
import stat
import sys

from nbgrader.exchange.default.collect import ExchangeCollect

from autograder.course.statuses import printable

if sys.platform != "win32":
    import pwd
else:  # pragma: no cover
    pwd = None


class RefusedSubmission(Exception):
    """A submission folder collect does not take, and why."""


def owner_name(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def exchange_time(path):
    """When anything in the folder ``path`` last changed, as nbgrader keeps times (UTC, no time zone).

    A submission's time. nbgrader takes it from the folder's name and keeps the ``timestamp.txt``
    inside, both the student's to write (an earlier time than the real one, once a deadline counts);
    so is every file's modification time (``touch -d``). The status-change time (``st_ctime``) of a
    folder or file its owner can move later, by changing it, but never earlier. A notebook rewritten
    in place changes its own, not its folder's: so the time is the latest of the folder's and of
    every entry's below it, found without following a link. Collect picks each student's latest
    folder by it and writes it into the collected ``timestamp.txt``."""
    latest, folders = os.lstat(path).st_ctime, [path]
    while folders:  # a list, not os.walk: it would skip a folder it cannot read, and recurse
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                latest = max(latest, entry.stat(follow_symlinks=False).st_ctime)
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
    return datetime.datetime.fromtimestamp(latest, datetime.UTC).replace(tzinfo=None)


class OwnedCollect(ExchangeCollect):
    """``ExchangeCollect`` for folders their students own, copied without following links, at the
    exchange's time.

    A folder counts only when it belongs to the student it names (or to the account collecting, where
    students and instructor share one account). A link, a FIFO or any other file that is not a regular
    file or folder refuses the whole submission, with an error naming it. A folder whose name is not
    nbgrader's ``<student>+<assignment>+<time>+<random>`` is refused alone, where nbgrader stops the
    whole collect."""

    def _path_to_record(self, path):
        name = os.path.basename(path)
        try:
            record = super()._path_to_record(path)
            record["invalid"] = ""
        except Exception:  # nbgrader's fail(), or a time it cannot parse: this folder alone is refused
            record = {
                "username": name.split("+")[0],
                "filename": name,
                "invalid": "has a name that is not <student>+<assignment>+<time>+<random>",
            }
        try:
            record["timestamp"] = exchange_time(path)
        except OSError as error:
            record["timestamp"], record["invalid"] = datetime.datetime.min, f"cannot be read ({error.strerror})"
        return record

    def _belongs(self, record):
        """Why ``record``'s folder is not its student's, or ""."""
        if record.get("invalid"):
            return record["invalid"]
        path = os.path.join(self.inbound_path, record["filename"])
        try:
            status = os.lstat(path)
        except OSError as error:
            return f"cannot be read ({error.strerror})"
        if not stat.S_ISDIR(status.st_mode):
            return "is not a folder"
        if pwd is not None and status.st_uid not in (os.getuid(), _uid(record["username"])):
            return f"is named for {record['username']} but belongs to {owner_name(status.st_uid)}"
        return ""

    def _sort_by_timestamp(self, records):
        # nbgrader collects each student's latest record: their own folders come first, so a folder
        # someone else planted under their name never hides theirs
        return sorted(records, key=lambda record: (not self._belongs(record), record["timestamp"]), reverse=True)

    def copy_files(self):
        # refused before nbgrader removes an earlier copy it would update
        kept = []
        for record in self.src_records:
            path = os.path.join(self.inbound_path, record["filename"])
            reason = self._belongs(record) or _not_plain(path)
            if reason:
                self.log.error("not collected: %s", printable(f"{record['filename']} {reason}"))
            else:
                kept.append(record)
        self.src_records = kept
        super().copy_files()

    def do_copy(self, src, dest, log=None):
        record = next(
            record for record in self.src_records if os.path.join(self.inbound_path, record["filename"]) == src
        )
        try:
            copy_tree(src, dest, self.coursedir.ignore, self.coursedir.max_file_size * 1000)
        except RefusedSubmission as refused:  # changed since it was checked
            self.log.error("not collected: %s", printable(str(refused)))
            shutil.rmtree(dest, ignore_errors=True)
            return
        with open(os.path.join(dest, "timestamp.txt"), "w") as handle:  # the exchange's, not the student's
            handle.write(record["timestamp"].strftime("%Y-%m-%d %H:%M:%S.%f UTC"))


def _not_plain(path):
    """Why the folder ``path`` holds something other than folders and regular files, or ""."""
    for folder, folders, files in os.walk(path):  # never follows a link
        for name in folders + files:
            mode = os.lstat(os.path.join(folder, name)).st_mode
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                return f"holds {os.path.relpath(os.path.join(folder, name), path)}, a link or a special file"
    return ""


def _uid(name):
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        return None


# Every entry of a student's folder is opened so: read only, never through a link, never inherited.
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def copy_tree(src, dest, ignore=(), max_file_bytes=None):
    """Copy the folder ``src`` to ``dest`` without following a link anywhere in it: every entry, a
    subfolder too, is opened relative to its folder's descriptor with ``O_NOFOLLOW`` (so a folder
    swapped for a link after it was opened is never walked through); a link or any other entry that
    is not a regular file or a folder raises ``RefusedSubmission``. Entries matching ``ignore``
    (nbgrader's ``CourseDirectory.ignore``) are left out, as are files over ``max_file_bytes``."""
    try:
        folder = os.open(src, _FLAGS | os.O_DIRECTORY)
    except OSError as error:
        raise RefusedSubmission(f"{src} is not a folder ({error.strerror})") from None
    try:
        _copy_folder(folder, src, dest, ignore, max_file_bytes)
    finally:
        os.close(folder)


def _copy_folder(folder, src, dest, ignore, max_file_bytes):
    """``copy_tree`` of the open folder ``folder`` (``src`` names it in messages)."""
    os.makedirs(dest, exist_ok=True)
    for entry in os.scandir(folder):
        if any(fnmatch.fnmatch(entry.name, pattern) for pattern in ignore):
            continue
        where = os.path.join(src, entry.name)
        status = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(status.st_mode):
            try:
                subfolder = os.open(entry.name, _FLAGS | os.O_DIRECTORY, dir_fd=folder)
            except OSError as error:  # a link put in its place since the folder was read
                raise RefusedSubmission(f"{where} cannot be opened as a folder ({error.strerror})") from None
            try:
                _copy_folder(subfolder, where, os.path.join(dest, entry.name), ignore, max_file_bytes)
            finally:
                os.close(subfolder)
        elif not stat.S_ISREG(status.st_mode):
            raise RefusedSubmission(f"{where} is a link or a special file, not a file the student wrote")
        elif max_file_bytes is None or status.st_size <= max_file_bytes:
            _copy_file(folder, entry.name, os.path.join(dest, entry.name))


def _copy_file(folder, name, dest):
    try:
        source = os.open(name, _FLAGS | os.O_NONBLOCK, dir_fd=folder)
    except OSError as error:  # a link put in its place since the folder was read
        raise RefusedSubmission(f"{name} cannot be opened as a file ({error.strerror})") from None
    with os.fdopen(source, "rb") as reader:
        if not stat.S_ISREG(os.fstat(reader.fileno()).st_mode):
            raise RefusedSubmission(f"{name} is not a regular file")
        with open(dest, "wb") as writer:
            while chunk := reader.read(2**20):
                writer.write(chunk)
