"""Collect submissions into the course's ``submitted/`` folder, as nbgrader expects.

Notebooks, folders, nbgrader ``submitted/`` trees and zips (``collect`` lists what each may be) become
``submitted/<student>/<assignment>/<notebook>.ipynb``. An existing submission is never overwritten
silently: the same files again are fine (it is graded again); different files are refused unless
``replace`` is set, and then the old ones are kept in ``submitted_replaced/``.
"""

import filecmp
import hashlib
import shutil
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.utils import parse_utc

from autograder.course.directory import slug
from autograder.grading import lms_names

# Larger notebooks are not submissions of this course (a zip bomb, a data dump).
MAX_NOTEBOOK_BYTES = 100 * 2**20
# nbgrader's own files beside a submission's notebooks (its submit and collect
# keep them); feedback goes back through the exchange only with them.
NBGRADER_FILES = ("timestamp.txt", "submission_secret.txt")
# The longest file name a file system holds, in bytes; a zip's member names may be longer.
NAME_MAX = 255
# A zip's flag that its member names are UTF-8 (else zipfile reads them as cp437).
UTF8_NAMES = 0x800


@dataclass
class Found:
    """One student's submission as an input holds it, before it is collected."""

    student: str
    notebooks: dict  # {notebook name: file}
    extra: list  # other files
    where: str
    handin: lms_names.LmsHandin | None = None
    error: str = ""


@dataclass
class Collected:
    """One student's submission in the course, or why it could not be collected."""

    student: str
    source: str
    error: str = ""
    extra_files: list = field(default_factory=list)
    lms: str = ""  # "Canvas" or "Moodle" when the hand-in came in an LMS download (lms_names)
    late: bool = False  # Canvas marked it LATE


def student_id(text):
    """Return ``text`` as an id nbgrader and file systems accept. A hub's user names (``hub.settings.USERNAME``)
    are kept as they are."""
    return slug(text) or "student"


def _one_of_a_tree(path, assignment, names):
    """Whether ``path`` is one student's folder of a ``submitted/`` tree: named as the assignment,
    holding its notebooks (a folder of ``<student>.ipynb`` files named so holds none of them)."""
    return path.name == assignment and any((path / f"{name}.ipynb").is_file() for name in names)


def _find_submissions(path, assignment, names, root):
    """Yield a ``Found`` for each submission in ``path``."""
    if path.is_file() and path.suffix == ".ipynb":
        if len(names) != 1:
            raise ValueError(f"{assignment} has {len(names)} notebooks: give a submitted/ folder")
        student = student_id(path.parent.name if path.stem == names[0] else path.stem)
        yield Found(student, {names[0]: path}, [], str(path))
    elif path.is_dir() and (
        _one_of_a_tree(path, assignment, names) or any(p.is_dir() for p in path.glob(f"*/{assignment}"))
    ):
        # a submitted/ tree, or one student's folder of it (submitted/<student>/<assignment>: a regrade)
        one = _one_of_a_tree(path, assignment, names)
        for folder in [path] if one else sorted(p for p in path.glob(f"*/{assignment}") if p.is_dir()):
            files = [p for p in sorted(folder.rglob("*")) if p.is_file()]
            notebooks = {p.stem: p for p in files if p.parent == folder and p.stem in names and p.suffix == ".ipynb"}
            yield Found(
                student_id(folder.parent.name),
                notebooks,
                [p for p in files if p not in notebooks.values()],
                str(folder),
            )
    elif path.is_dir() and (handins := lms_names.discover(path, root)):
        yield from _lms_submissions(handins, names)
    elif path.is_dir() and any(path.glob("*.ipynb")):
        for notebook in sorted(path.glob("*.ipynb")):
            if notebook.is_dir():  # named as a notebook is: that student's row says so
                yield Found(student_id(notebook.stem), {}, [], str(notebook), error=f"{notebook.name} is a folder")
            else:
                yield from _find_submissions(notebook, assignment, names, root)
    elif path.is_dir():
        raise ValueError(f"{path} holds neither <student>/{assignment}/ folders nor notebooks")
    elif path.is_file():
        raise ValueError(f"{path} is not a notebook (.ipynb), a folder or a zip")
    else:
        raise FileNotFoundError(f"no such submission: {path}")


def _lms_submissions(handins, names):
    """Yield what ``_find_submissions`` does for each hand-in of a Canvas or Moodle download."""
    for handin in handins:
        notebooks, extra = {}, []
        if not handin.error:
            try:
                notebooks, extra = lms_names.notebooks(handin, names)
            except ValueError as error:
                handin.error = str(error)
        yield Found(handin.student, notebooks, extra, str(handin.where), handin, handin.error)


def _member_name(member):
    """A member's name as its zip meant it: a zip made without the UTF-8 flag by another tool may hold
    UTF-8 names all the same, which zipfile reads as cp437 ("Díaz" as "D├¡az")."""
    if member.flag_bits & UTF8_NAMES:
        return member.filename
    try:
        return member.filename.encode("cp437").decode("utf-8")
    except UnicodeError:
        return member.filename


def _fitting(part):
    """``part`` cut to what a file system holds, with a digest of it and its suffix (``.ipynb``) after the cut."""
    data = part.encode()
    if len(data) <= NAME_MAX:
        return part
    suffix = Path(part).suffix if len(Path(part).suffix) < 16 else ""
    return data[: NAME_MAX - 40].decode(errors="ignore") + "~" + hashlib.sha256(data).hexdigest()[:12] + suffix


def _unzip(path, target):
    """Extract a zip's notebooks (and nbgrader trees) safely into ``target``; return (the folder to read,
    {each file written under a shorter name than its member's: why})."""
    cut = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.infolist():
            name = _member_name(member)
            parts = Path(name).parts
            if member.is_dir() or ".." in parts or Path(name).is_absolute() or parts[0] == "__MACOSX":
                continue
            if member.file_size > MAX_NOTEBOOK_BYTES:
                raise ValueError(f"{path}: {name} is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
            fitted = [_fitting(part) for part in parts]
            destination = target.joinpath(*fitted)
            for depth, part in enumerate(parts):  # written all the same, so that whose it is can be told
                if fitted[depth] != part:
                    cut[target.joinpath(*fitted[: depth + 1])] = f"a name of more than {NAME_MAX} bytes: {name[:60]}..."
            destination.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, open(destination, "wb") as sink:
                shutil.copyfileobj(source, sink)
    # An export often wraps everything in one folder (not Moodle's: a folder of one student's own).
    entries = list(target.iterdir())
    wrapped = len(entries) == 1 and entries[0].is_dir() and not lms_names.MOODLE_ENTRY.match(entries[0].name)
    return (entries[0] if wrapped else target), cut


def _checked(found, cut):
    """``found``, with an error where one of its files was cut from a longer name, where its
    ``timestamp.txt`` is no time nbgrader reads, or where another submission comes to its id."""
    for item in found:
        files = [Path(item.where), *item.notebooks.values(), *item.extra]
        item.error = next((cut[p] for p in files if p in cut), item.error)
        stamp = Path(item.where) / "timestamp.txt"  # nbgrader's, beside the notebooks (an LMS's hand-in has none)
        if not (item.handin or item.error) and stamp.is_file():
            item.error = _timestamp_error(stamp, item.student)
    by_student = {}
    for item in found:
        if not item.error:
            by_student.setdefault(item.student, []).append(item)
    for student, same in by_student.items():
        if len({(item.where, item.handin and item.handin.lms_id) for item in same}) == 1:  # one given twice
            for item in same[1:]:
                item.error = f"a second submission for {student} in this run ({item.where})"
        elif len(same) > 1:  # two hand-ins: never merged, never one taken for the other
            named = ", ".join(item.handin.entries[0] if item.handin else item.where for item in same)
            for item in same:
                item.error = f"{len(same)} hand-ins come to the id {student}: {named}; refused, all of them"
    return found


def _timestamp_error(path, student):
    """Why nbgrader would not read ``path`` as ``student``'s time of submission, in one line; "" when it would."""
    text = path.read_bytes()[:200].decode(errors="replace").strip()
    try:
        if text:
            parse_utc(text)
        return ""
    except (ValueError, OverflowError):
        return f"{student}'s {path.name} is not a time nbgrader reads ({text[:40]!r}): correct or remove {path}"


def _same(folder, notebooks, extra, origin, ours=()):
    """Whether ``folder`` holds these files already (besides ``ours``: the files collect writes itself)."""
    existing = sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file() and p.name not in ours)
    incoming = sorted([Path(f"{name}.ipynb") for name in notebooks] + [p.relative_to(origin) for p in extra])
    return existing == incoming and all(
        filecmp.cmp(folder / f"{name}.ipynb", file, shallow=False) for name, file in notebooks.items()
    )


def collect(root, assignment, names, paths, replace=False, late_time=None):
    """Copy every submission in ``paths`` into ``root/submitted``; return a list of Collected.

    Each of ``paths`` may be:

    * a notebook file: the student id is its file name (``alice.ipynb``), or its folder's name when
      the file keeps the assignment's notebook name;
    * an nbgrader ``submitted/`` tree: ``<student>/<assignment>/*.ipynb`` (any other files beside the
      notebooks are kept as the student handed them in), or one ``<student>/<assignment>`` folder of it;
    * a folder of ``<student>.ipynb`` files;
    * a Canvas or Moodle download (``lms_names``): its time is the LMS's alone, a student's own
      ``timestamp.txt`` in it is none; a hand-in Canvas marked LATE gets ``late_time``;
    * a zip of either, as a learning-management system exports it.

    An input that cannot be read gets a Collected with its error, and so does each submission that
    cannot be collected, or that another one's id comes to; raises ValueError when the inputs hold no
    submission at all.
    """
    submitted = Path(root) / "submitted"
    collected, found, cut = [], [], {}
    with tempfile.TemporaryDirectory(prefix="bdl-unzip-") as unzip_dir:
        for number, path in enumerate(map(Path, paths)):
            try:
                if path.is_file() and path.suffix == ".zip":
                    path, more = _unzip(path, Path(unzip_dir) / str(number))
                    cut.update(more)
                found += list(_find_submissions(path, assignment, names, root))
            except (OSError, ValueError, zipfile.BadZipFile) as error:
                collected.append(Collected(str(path), str(path), error=str(error)))
        items = [(item, _collected(submitted, assignment, item, replace, late_time)) for item in _checked(found, cut)]
        collected += [done for _, done in items]
        lms_names.record(root, [item.handin for item, done in items if item.handin and not done.error])
    if not found:
        reasons = "; ".join(item.error for item in collected)
        raise ValueError(
            f"no submission of {assignment} found in {', '.join(map(str, paths))}"
            + (f" ({reasons})" if reasons else "")
        )
    return collected


def _collected(submitted, assignment, found, replace, late_time):
    """``_collect_one``, or the error that stopped it (a file name, the course's disk) as that submission's."""
    try:
        return _collect_one(submitted, assignment, found, replace, late_time)
    except OSError as error:
        lms = found.handin.lms if found.handin else ""
        return Collected(found.student, found.where, error=f"could not be collected: {error}", lms=lms)


def _collect_one(submitted, assignment, found, replace, late_time):
    notebooks, extra, where, handin = found.notebooks, found.extra, found.where, found.handin
    origin = Path(where) if Path(where).is_dir() else Path(where).parent
    # An LMS's hand-in holds only the student's files: none of them is nbgrader's.
    ours = NBGRADER_FILES if handin else ()
    ignored = [p.name for p in extra if handin or p.name not in NBGRADER_FILES]
    item = Collected(found.student, where, error=found.error, extra_files=ignored)
    if handin:
        item.lms, item.late = handin.lms, handin.late
        extra = [p for p in extra if p.relative_to(origin).as_posix() not in ours]
    if item.error:
        return item
    too_big = [p.name for p in notebooks.values() if p.stat().st_size > MAX_NOTEBOOK_BYTES]
    if too_big:
        item.error = f"notebook larger than {MAX_NOTEBOOK_BYTES // 2**20} MB: {too_big}"
        return item
    folder = submitted / found.student / assignment
    if folder.resolve() == origin.resolve():
        return item  # grading the course's own submitted/ folder in place
    if folder.exists():
        if _same(folder, notebooks, extra, origin, ours):
            return item
        if not replace:
            item.error = (
                f"{found.student} already has a different submission in {folder}; "
                "pass --replace to grade the new one (the old is kept)"
            )
            return item
        backup = submitted.parent / "submitted_replaced" / time.strftime("%Y%m%d-%H%M%S") / found.student
        backup.mkdir(parents=True, exist_ok=True)
        shutil.move(str(folder), str(backup / assignment))
    folder.mkdir(parents=True)
    for name, file in notebooks.items():
        shutil.copyfile(file, folder / f"{name}.ipynb")
    for file in extra:
        target = folder / file.relative_to(origin)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, target)
    if handin and handin.late and late_time:  # as the exchange writes its times
        (folder / "timestamp.txt").write_text(late_time.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    return item
