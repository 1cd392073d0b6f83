"""Collect submissions into the course's ``submitted/`` folder, as nbgrader expects.

Notebooks, folders, nbgrader ``submitted/`` trees and zips (``collect`` lists what each may be) become
``submitted/<student>/<assignment>/<notebook>.ipynb``. An existing submission is never overwritten
silently: the same files again are fine (it is graded again); different files are refused unless
``replace`` is set, and then the old ones are kept in ``submitted_replaced/``.
"""

import filecmp
import shutil
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.directory import slug
from autograder.grading import lms_names

# Larger notebooks are not submissions of this course (a zip bomb, a data dump).
MAX_NOTEBOOK_BYTES = 100 * 2**20
# nbgrader's own files beside a submission's notebooks (its submit and collect
# keep them); feedback goes back through the exchange only with them.
NBGRADER_FILES = ("timestamp.txt", "submission_secret.txt")


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
    """Yield (student, {notebook name: file}, extra files, where, LmsHandin or None) found in ``path``."""
    if path.is_file() and path.suffix == ".ipynb":
        if len(names) != 1:
            raise ValueError(f"{assignment} has {len(names)} notebooks: give a submitted/ folder")
        student = student_id(path.parent.name if path.stem == names[0] else path.stem)
        yield (student, {names[0]: path}, [], str(path), None)
    elif path.is_dir() and (
        _one_of_a_tree(path, assignment, names) or any(p.is_dir() for p in path.glob(f"*/{assignment}"))
    ):
        # a submitted/ tree, or one student's folder of it (submitted/<student>/<assignment>: a regrade)
        one = _one_of_a_tree(path, assignment, names)
        for folder in [path] if one else sorted(p for p in path.glob(f"*/{assignment}") if p.is_dir()):
            files = [p for p in sorted(folder.rglob("*")) if p.is_file()]
            notebooks = {p.stem: p for p in files if p.parent == folder and p.stem in names and p.suffix == ".ipynb"}
            yield (
                student_id(folder.parent.name),
                notebooks,
                [p for p in files if p not in notebooks.values()],
                str(folder),
                None,
            )
    elif path.is_dir() and (handins := lms_names.discover(path, root)):
        yield from _lms_submissions(handins, names)
    elif path.is_dir() and any(path.glob("*.ipynb")):
        for notebook in sorted(path.glob("*.ipynb")):
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
        try:
            notebooks, extra = lms_names.notebooks(handin, names)
        except ValueError as error:
            handin.error = str(error)
            notebooks, extra = {}, []
        yield (handin.student, notebooks, extra, str(handin.where), handin)


def _unzip(path, target):
    """Extract a zip's notebooks (and nbgrader trees) safely into ``target``."""
    with zipfile.ZipFile(path) as archive:
        for member in archive.infolist():
            parts = Path(member.filename).parts
            if member.is_dir() or ".." in parts or Path(member.filename).is_absolute() or parts[0] == "__MACOSX":
                continue
            if member.file_size > MAX_NOTEBOOK_BYTES:
                raise ValueError(f"{path}: {member.filename} is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
            destination = target.joinpath(*parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, open(destination, "wb") as sink:
                shutil.copyfileobj(source, sink)
    # An export often wraps everything in one folder (not Moodle's: a folder of one student's own).
    entries = list(target.iterdir())
    wrapped = len(entries) == 1 and entries[0].is_dir() and not lms_names.MOODLE_ENTRY.match(entries[0].name)
    return entries[0] if wrapped else target


def _same(folder, notebooks, extra, origin):
    existing = sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file())
    incoming = sorted([Path(f"{name}.ipynb") for name in notebooks] + [p.relative_to(origin) for p in extra])
    return existing == incoming and all(
        filecmp.cmp(folder / f"{name}.ipynb", file, shallow=False) for name, file in notebooks.items()
    )


def collect(root, assignment, names, paths, replace=False):
    """Copy every submission in ``paths`` into ``root/submitted``; return a list of Collected.

    Each of ``paths`` may be:

    * a notebook file: the student id is its file name (``alice.ipynb``), or its folder's name when
      the file keeps the assignment's notebook name;
    * an nbgrader ``submitted/`` tree: ``<student>/<assignment>/*.ipynb`` (any other files beside the
      notebooks are kept as the student handed them in), or one ``<student>/<assignment>`` folder of it;
    * a folder of ``<student>.ipynb`` files;
    * a zip of either, as a learning-management system exports it.

    An input that cannot be read gets a Collected with its error; raises
    ValueError when the inputs hold no submission at all.
    """
    submitted = Path(root) / "submitted"
    collected, seen, found_any = [], set(), False
    with tempfile.TemporaryDirectory(prefix="bdl-unzip-") as unzip_dir:
        for number, path in enumerate(map(Path, paths)):
            try:
                if path.is_file() and path.suffix == ".zip":
                    path = _unzip(path, Path(unzip_dir) / str(number))
                found = list(_find_submissions(path, assignment, names, root))
                found_any |= bool(found)
            except (OSError, ValueError, zipfile.BadZipFile) as error:
                collected.append(Collected(str(path), str(path), error=str(error)))
                continue
            for student, notebooks, extra, where, handin in found:
                item = _collect_one(submitted, assignment, student, notebooks, extra, where, replace, seen, handin)
                collected.append(item)
            lms_names.record(root, [handin for *_, handin in found if handin])
    if not found_any:
        reasons = "; ".join(item.error for item in collected)
        raise ValueError(
            f"no submission of {assignment} found in {', '.join(map(str, paths))}"
            + (f" ({reasons})" if reasons else "")
        )
    return collected


def _collect_one(submitted, assignment, student, notebooks, extra, where, replace, seen, handin=None):
    item = Collected(student, where, extra_files=[p.name for p in extra if p.name not in NBGRADER_FILES])
    if handin:
        item.lms, item.late, item.error = handin.lms, handin.late, handin.error
        if item.error:
            return item
    if student in seen:
        item.error = f"a second submission for {student} in this run ({where})"
        return item
    seen.add(student)
    too_big = [p.name for p in notebooks.values() if p.stat().st_size > MAX_NOTEBOOK_BYTES]
    if too_big:
        item.error = f"notebook larger than {MAX_NOTEBOOK_BYTES // 2**20} MB: {too_big}"
        return item
    folder = submitted / student / assignment
    origin = Path(where) if Path(where).is_dir() else Path(where).parent
    if folder.resolve() == origin.resolve():
        return item  # grading the course's own submitted/ folder in place
    if folder.exists():
        if _same(folder, notebooks, extra, origin):
            return item
        if not replace:
            item.error = (
                f"{student} already has a different submission in {folder}; "
                "pass --replace to grade the new one (the old is kept)"
            )
            return item
        backup = submitted.parent / "submitted_replaced" / time.strftime("%Y%m%d-%H%M%S") / student
        backup.mkdir(parents=True, exist_ok=True)
        shutil.move(str(folder), str(backup / assignment))
    folder.mkdir(parents=True)
    for name, file in notebooks.items():
        shutil.copyfile(file, folder / f"{name}.ipynb")
    for file in extra:
        target = folder / file.relative_to(origin)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, target)
    return item
