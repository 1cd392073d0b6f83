"""The grader's scratch folders, which a grader killed mid-submission does not leave behind for good.

A grading folder holds a student's hand-in, its autograded copy and its logs. ``TemporaryDirectory``
removes it when grading ends, but not when the process is killed (a Dask worker that dies or is
killed, the out-of-memory killer). So each folder is locked (``flock``) while its grader lives, and
every new one first removes the folders of its kind that no process holds any more: the kernel frees
a dead process's locks.
"""

import contextlib
import fcntl
import os
import shutil
import tempfile
import time

# A folder younger than this is never removed: its grader may not have locked it yet.
SETTLING_SECONDS = 60


@contextlib.contextmanager
def scratch_folder(prefix):
    """A new folder in the temp folder, named ``prefix``..., locked while in use and removed after;
    the dead graders' folders of ``prefix`` are removed first."""
    remove_abandoned(prefix)
    folder = tempfile.TemporaryDirectory(prefix=prefix)
    # Python's descriptors are not inherited: no kernel or worker the grader starts holds this one.
    handle = os.open(folder.name, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield folder.name
    finally:
        # Removed while still locked, so that no other grader removes it at the same time; as
        # TemporaryDirectory does, it makes writable what a kernel made read-only on its way out.
        folder.cleanup()
        os.close(handle)


def remove_abandoned(prefix, folder=None):
    """Remove the folders ``prefix``... of the temp folder (or ``folder``) that are this user's, older
    than ``SETTLING_SECONDS`` and locked by no process; return how many."""
    folder = folder or tempfile.gettempdir()
    removed = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.startswith(prefix) or not entry.is_dir(follow_symlinks=False):
                continue
            try:
                handle = os.open(entry.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            except OSError:  # gone, or not ours to open
                continue
            try:
                status = os.fstat(handle)
                if status.st_uid != os.getuid() or time.time() - status.st_mtime < SETTLING_SECONDS:
                    continue
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # its grader is alive
                    continue
                shutil.rmtree(entry.path, ignore_errors=True)
                removed += 1
            finally:
                os.close(handle)
    return removed
