"""The hub's state backed up and put back (``hub backup DEST``, ``hub restore SOURCE``).

A backup holds what cannot be made again: the hub's database, settings and secrets, the exchange
(submissions not yet collected live only there) and the course account's course folder (the gradebook,
``submitted/``, ``autograded/``, ``feedback/``). SQLite databases are copied with SQLite's own backup,
which is consistent while the hub writes; every file keeps its owner and mode.
"""
import os
import pwd
import shutil
import sqlite3
from pathlib import Path

from autograder.hub.settings import HubError, stored_settings
from autograder.hub.systemd_unit import UNIT_NAME, running

# The hub's own files a backup keeps (its environment, proxy and data are made again by `hub`).
HUB_FILES = ("settings.json", "jupyterhub.sqlite", "jupyterhub_cookie_secret", "instructor-password",
             "dummy-password")
DATABASES = ("jupyterhub.sqlite", "gradebook.db")


def _copy_database(source, target):
    """SQLite's own online backup: a consistent copy while another process writes."""
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as reader, sqlite3.connect(target) as writer:
        reader.backup(writer)
    reader.close()
    writer.close()


def _copy_tree(source, target):
    """Copy ``source`` to ``target`` as it is: links as links, every entry's mode and owner, databases
    by SQLite's backup."""
    source, target = Path(source), Path(target)
    for folder, folders, files in os.walk(source):
        here = target / Path(folder).relative_to(source)
        here.mkdir(exist_ok=True)
        for name in folders + files:
            origin, copy = Path(folder) / name, here / name
            if origin.is_symlink():
                copy.symlink_to(os.readlink(origin))
            elif name in files:
                if name in DATABASES:
                    _copy_database(origin, copy)
                else:
                    shutil.copy2(origin, copy)
        _keep_owner(Path(folder), here)
        for name in files:
            _keep_owner(Path(folder) / name, here / name)


def _keep_owner(origin, copy):
    status = origin.lstat()
    if os.geteuid() == 0:
        os.chown(copy, status.st_uid, status.st_gid, follow_symlinks=False)
    if not copy.is_symlink():
        os.chmod(copy, status.st_mode & 0o7777)


def course_folder(settings):
    """The course folder, ~grader-COURSE/COURSE."""
    try:
        return Path(pwd.getpwnam(settings.course_account).pw_dir) / settings.course_id
    except KeyError:
        raise HubError(f"the course account {settings.course_account!r} has no account here") from None


def backup(settings, destination, course):
    """Copy the hub's state into the new folder ``destination`` (root's alone): hub/, exchange/, course/."""
    destination = Path(destination)
    if destination.exists() and any(destination.iterdir()):
        raise HubError(f"{destination} is not empty: a backup goes to a new folder")
    destination.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(destination, 0o700)  # secrets and every student's work
    (destination / "hub").mkdir(mode=0o700)
    for name in HUB_FILES:
        origin = Path(settings.hub_dir) / name
        if origin.is_file():
            (_copy_database if name in DATABASES else shutil.copy2)(origin, destination / "hub" / name)
            _keep_owner(origin, destination / "hub" / name)
    for name, folder in (("exchange", settings.exchange), ("course", course)):
        if Path(folder).is_dir():
            _copy_tree(folder, destination / name)
    return destination


def restore(settings, source, course):
    """Put the backup ``source`` back in place of the hub's state; the hub must be stopped."""
    source = Path(source)
    if not (source / "hub" / "settings.json").is_file():
        raise HubError(f"{source} is not a backup of the hub (no hub/settings.json)")
    if running(settings.hub_dir):
        raise HubError(f"the hub of {settings.hub_dir} is running: stop it first (systemctl stop {UNIT_NAME})")
    Path(settings.hub_dir).mkdir(parents=True, exist_ok=True)
    for name in HUB_FILES:
        origin = source / "hub" / name
        if origin.is_file():
            target = Path(settings.hub_dir) / name
            target.unlink(missing_ok=True)
            shutil.copy2(origin, target)
            _keep_owner(origin, target)
    for name, folder in (("exchange", settings.exchange), ("course", course)):
        if (source / name).is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            _copy_tree(source / name, folder)


def backup_command(args):
    settings = stored_settings(Path(args.dir).resolve())
    if not args.path:
        raise HubError("backup needs DEST: python -m autograder hub backup DEST")
    destination = backup(settings, args.path, course_folder(settings))
    print(f"backed up the hub of {settings.hub_dir} to {destination}")
    return 0


def restore_command(args):
    if not args.path:
        raise HubError("restore needs SOURCE: python -m autograder hub restore SOURCE")
    settings = stored_settings(Path(args.path, "hub"))  # the backup's own settings: its instructor, course
    settings.hub_dir = str(Path(args.dir).resolve())
    restore(settings, args.path, course_folder(settings))
    print(f"restored {args.path} into {settings.hub_dir}; start the hub again")
    return 0
