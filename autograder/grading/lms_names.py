"""Hand-ins as Canvas and Moodle download them: whose each file is, and the ids the grade CSVs need.

A download's names (``CANVAS_FILE``, ``MOODLE_ENTRY``) give each student's name and the LMS's id. The
nbgrader id is the name as a file system takes it (``leealice``, ``Alice_Lee``), with the LMS's id
after it when two students of one download share a name. The course's ``lms_students.csv`` keeps each
Canvas user id's nbgrader id, so a student keeps one id all term; it is the student-id mapping that
``report --students`` reads.
"""

import hashlib
import os
import re
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course import spreadsheet
from autograder.course.directory import slug

MAPPING_FILE = "lms_students.csv"
MAPPING_COLUMNS = ("nbgrader_id", "name", "canvas_id")  # a subset of report's (autograder.outputs.lms)

# Canvas's "Download Submissions" zip is flat; canvas-lms's ContentZipper (lib/content_zipper.rb) names
# each file <name>[_LATE]_<user id>_<attachment id>_<the file's name>: the sortable name, lower case,
# letters, digits and "_" only ("Lee, Alice": leealice); LATE when Canvas counts it late; an anonymous
# assignment has anon_<anonymous id> for name and user id; a text entry is <name>_<user id>_text.html.
CANVAS_FILE = re.compile(
    r"\A(?:(?P<name>\w+?)_)??(?P<late>LATE_)?(?:anon_(?P<anon>[A-Za-z0-9]+)|(?P<user>\d+))"
    r"(?:_(?P<attachment>\d+))?_(?P<original>.+)\Z"
)
# Moodle's "Download all submissions" (mod/assign's downloader): a folder per student and plugin,
# <Full Name>_<participant id>_assignsubmission_<plugin> ("_" at the end before 4.1; the name's own "_"
# made spaces; "Participant" under blind marking), or files <that>_<the file's name> when "download as
# folders" is off. The participant id is the assignment's own, new in each: the student's id is the name.
MOODLE_ENTRY = re.compile(r"\A(?P<name>[^_/]+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)(?:_(?P<original>.*))?\Z")
# What Canvas and the student's own machine add to a name uploaded again: "likelihoods-1", "likelihoods (1)".
AGAIN = re.compile(r"(?:-\d+| \(\d+\))\Z")
# Entries of a download that are nobody's hand-in.
SKIPPED = ("__MACOSX", ".DS_Store")


@dataclass
class LmsHandin:
    """One student's files in an LMS download."""

    lms: str  # "Canvas" or "Moodle"
    lms_id: str  # Canvas's user id (or anon_<id>), Moodle's participant id
    name: str  # as the download names the student
    files: dict = field(default_factory=dict)  # {the file's own name: path}
    where: Path | None = None  # the folder the files' names are relative to
    late: bool = False  # Canvas's LATE
    student: str = ""  # the nbgrader id, once named
    error: str = ""  # why it cannot be collected


def _slug(text):
    """``text`` in letters, digits, ``_``, ``.`` and ``-`` (accents dropped), or "" when none is left."""
    return slug(unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode())


def _entries(folder):
    return sorted(p for p in folder.iterdir() if p.name not in SKIPPED and not p.name.startswith("._"))


def _canvas(folder):
    """The hand-ins of a Canvas download, or None when ``folder`` is not one (every entry must be a
    file named as Canvas names them)."""
    entries = _entries(folder)
    matches = [CANVAS_FILE.match(p.name) if p.is_file() else None for p in entries]
    if not entries or not all(matches):
        return None
    handins = {}
    for path, match in zip(entries, matches):
        lms_id = f"anon_{match['anon']}" if match["anon"] else match["user"]
        handin = handins.setdefault(lms_id, LmsHandin("Canvas", lms_id, match["name"] or lms_id, where=folder))
        handin.late |= bool(match["late"])
        handin.files[match["original"]] = path
    return list(handins.values())


def _moodle(folder):
    """The hand-ins of a Moodle download, or None when no entry of ``folder`` is named as Moodle names them.
    Only the file plugin's entries hold files; the others (online text, comments) are not read."""
    handins = {}
    for path in _entries(folder):
        match = MOODLE_ENTRY.match(path.name)
        if not match:
            continue
        handin = handins.setdefault(match["id"], LmsHandin("Moodle", match["id"], match["name"].strip(), where=folder))
        if match["plugin"] != "file":
            continue
        if path.is_dir():
            handin.where = path
            for file in sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink()):
                handin.files[str(file.relative_to(path))] = file
        elif path.is_file() and match["original"]:
            handin.files[match["original"]] = path
    return list(handins.values()) or None


def known_ids(root):
    """{Canvas user id: nbgrader id} of the course's ``lms_students.csv`` (empty when there is none)."""
    return {row["canvas_id"]: row["nbgrader_id"] for row in _read(root) if row.get("canvas_id")}


def _read(root):
    path = Path(root) / MAPPING_FILE
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = spreadsheet.DictReader(handle)
        if "nbgrader_id" not in (reader.fieldnames or []):
            raise ValueError(f"{path}: no column 'nbgrader_id'; move the file away to have it written anew")
        return [row for row in reader if row.get("nbgrader_id")]


def _name(handins, known):
    """Give each hand-in its nbgrader id: the one ``known`` keeps for its Canvas user id, else its name's
    slug, with the LMS's id after it where two students (or a known id) share the slug."""
    taken = set(known.values())
    counts = {}
    for handin in handins:
        if not (handin.lms == "Canvas" and handin.lms_id in known):
            counts[_slug(handin.name)] = counts.get(_slug(handin.name), 0) + 1
    for handin in handins:
        slug = _slug(handin.name)
        if handin.lms == "Canvas" and handin.lms_id in known:
            handin.student = known[handin.lms_id]
        elif not slug and handin.lms == "Moodle":  # nothing of the name is left: a stable digest of it
            handin.student = "moodle_" + hashlib.sha256(handin.name.encode()).hexdigest()[:10]
        elif slug and counts[slug] == 1 and slug not in taken:
            handin.student = slug
        else:
            handin.student = f"{slug or handin.lms.lower()}_{_slug(handin.lms_id)}"


def discover(folder, root):
    """The LMS hand-ins in ``folder`` with their nbgrader ids, or None when it is no Canvas or Moodle download."""
    handins = _canvas(folder) or _moodle(folder)
    if handins:
        _name(handins, known_ids(root))
    return handins


def notebooks(handin, names):
    """({notebook name: path}, [other files]) of a hand-in; ValueError when it holds no notebook of
    ``names`` or two for one. A renamed upload (``likelihoods-1.ipynb``) counts as its notebook, and the
    one notebook of a hand-in as the assignment's one notebook, whatever its name."""
    found, extra = {}, []
    for original, path in handin.files.items():
        stem = Path(original).name.removesuffix(".ipynb")
        name = AGAIN.sub("", stem) if original.endswith(".ipynb") else None
        if name in names:
            if name in found:
                raise ValueError(
                    f"{handin.lms} hand-in of {handin.name} holds two {name}.ipynb: {found[name].name}, {path.name}"
                )
            found[name] = path
        else:
            extra.append(path)
    ipynbs = [path for path in extra if path.name.endswith(".ipynb")]
    if not found and len(names) == 1 and len(ipynbs) == 1:
        found[names[0]] = ipynbs[0]
        extra.remove(ipynbs[0])
    if not found:
        raise ValueError(
            f"{handin.lms} hand-in of {handin.name} holds no notebook named "
            f"{', '.join(n + '.ipynb' for n in names)} (its files: {', '.join(sorted(handin.files)) or 'none'})"
        )
    return found, extra


def record(root, handins):
    """Add the hand-ins' students to the course's ``lms_students.csv`` (the student-id mapping), keeping
    every row and column already there; return its path, or None when there was nothing to add."""
    if not handins:
        return None
    path = Path(root) / MAPPING_FILE
    rows = {row["nbgrader_id"]: row for row in _read(root)}
    for handin in handins:
        row = rows.setdefault(handin.student, {"nbgrader_id": handin.student})
        row["name"] = row.get("name") or handin.name
        if handin.lms == "Canvas" and not handin.lms_id.startswith("anon_"):
            row["canvas_id"] = handin.lms_id
    columns = list(MAPPING_COLUMNS) + sorted({key for row in rows.values() for key in row} - set(MAPPING_COLUMNS))
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written whole, then moved into place: an interrupted run leaves the old file, never half of one.
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{MAPPING_FILE}.")
    with os.fdopen(handle, "w", newline="", encoding="utf-8") as sink:
        writer = spreadsheet.DictWriter(sink, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows(sorted(rows.values(), key=lambda row: row["nbgrader_id"]))
    os.replace(temporary, path)
    return path
