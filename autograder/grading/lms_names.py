"""Hand-ins as Canvas and Moodle download them: whose each file is, and the ids the grade CSVs need.

A download's names (``CANVAS_FILE``, ``MOODLE_ENTRY``) give each student's name and the LMS's id. The
nbgrader id is the name as a file system takes it (``leealice``, ``Alice_Lee``), with the LMS's id
after it when two students of one download share a name (a digest of the name when only their accents
differ). The course's ``lms_students.csv`` keeps each Canvas user id's and Moodle name's nbgrader id,
so a student keeps one id all term; it is the student-id mapping that ``report --students`` reads.

Names are the students' own: a name that reads as another user's id, or two hand-ins that come to one
id, are refused, each naming the other; never merged, never swapped.
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
# After a Canvas name and user id, what makes the name read with "_<that id>" in it another user's file:
# <user id>_<attachment id>_<file> or <user id>_text.html ("evil_12345_23456_1_a.ipynb": 12345's or 23456's).
AMBIGUOUS = re.compile(r"\A(?:\d+_\d+_.|\d+_text\.html\Z)")
# What Canvas and the student's own machine add to a name uploaded again: "likelihoods-1", "likelihoods (1)".
AGAIN = re.compile(r"(?:-\d+| \(\d+\))\Z")
# Entries of a download that are nobody's hand-in.
SKIPPED = ("__MACOSX", ".DS_Store")
# Moodle's name for every student under blind marking: no one's identity.
BLIND = "Participant"
# The longest id nbgrader's gradebook keeps (``nbgrader.api.Student.id``: String(128)).
MAX_ID = 128


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
    entries: list = field(default_factory=list)  # the download's entries named as this hand-in's
    ambiguous: list = field(default_factory=list)  # entries that, a longer name read, are another user's


def _stray(path, why):
    """An entry of a download that is no one's hand-in: its own error row, under its name in brackets
    (no student's id has them)."""
    return LmsHandin("", "", path.name, where=path, student=f"({path.name})", error=f"{path.name}: {why}")


def _slug(text):
    """``text`` in letters, digits, ``_``, ``.`` and ``-`` (accents dropped), or "" when none is left."""
    return slug(unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode())


def _entries(folder):
    return sorted(p for p in folder.iterdir() if p.name not in SKIPPED and not p.name.startswith("._"))


def _canvas(entries, folder):
    """The hand-ins of a Canvas download's ``entries``; each entry not named as Canvas names a file is an
    error row of its own, and a user id that two names (or a name ending in it) claim is refused."""
    handins, strays = {}, []
    for path in entries:
        match = CANVAS_FILE.match(path.name)
        if not match:
            strays.append(_stray(path, "not named as Canvas names a hand-in's file"))
            continue
        lms_id = f"anon_{match['anon']}" if match["anon"] else match["user"]
        handin = handins.setdefault(lms_id, LmsHandin("Canvas", lms_id, match["name"] or lms_id, where=folder))
        handin.entries.append(path.name)
        if (match["name"] or lms_id) != handin.name:
            handin.error = (
                f"Canvas user {lms_id} has two names in this download ({handin.entries[0]}, {path.name}): "
                "refused, both; a name holding '_' and digits reads as another user's id"
            )
        if match["user"] and AMBIGUOUS.match(path.name[match.end("user") + 1 :]):
            handin.ambiguous.append(path.name)
        if path.is_dir():
            handin.error = handin.error or f"{path.name} is a folder where Canvas puts a file"
        handin.late |= bool(match["late"])
        handin.files[match["original"]] = path
    return list(handins.values()) + strays


def _moodle(entries, folder):
    """The hand-ins of a Moodle download's ``entries``; each entry not named as Moodle names them is an
    error row of its own. Only the file plugin's entries hold files; the others (online text) are not read."""
    handins, strays = {}, []
    for path in entries:
        match = MOODLE_ENTRY.match(path.name)
        if not match:
            strays.append(_stray(path, "not named as Moodle names a hand-in"))
            continue
        handin = handins.setdefault(match["id"], LmsHandin("Moodle", match["id"], match["name"].strip(), where=folder))
        handin.entries.append(path.name)
        if match["plugin"] != "file":
            continue
        if path.is_dir():
            handin.where = path
            for file in sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink()):
                handin.files[str(file.relative_to(path))] = file
        elif path.is_file() and match["original"]:
            handin.files[match["original"]] = path
    return list(handins.values()) + strays


def _read(root):
    path = Path(root) / MAPPING_FILE
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = spreadsheet.DictReader(handle)
        if "nbgrader_id" not in (reader.fieldnames or []):
            raise ValueError(f"{path}: no column 'nbgrader_id'; move the file away to have it written anew")
        return [row for row in reader if row.get("nbgrader_id")]


def _name(handins, rows):
    """Give each hand-in its nbgrader id: the one ``rows`` (the mapping) keeps for its Canvas user id or
    its exact Moodle name, else its name's slug; where the slug is taken (by the mapping or another
    hand-in), the slug with the Canvas user id, the Moodle name's digest (a look-alike of another
    name), or the participant id (one name twice) after it. Blind Moodle names are never matched."""
    by_canvas = {row["canvas_id"]: row for row in rows if row.get("canvas_id")}
    by_name = {}
    for row in rows:
        if not row.get("canvas_id") and row.get("name"):
            by_name.setdefault(row["name"], []).append(row["nbgrader_id"])
    taken = {row["nbgrader_id"] for row in rows}
    students = [handin for handin in handins if handin.lms]
    for handin in students:
        row = by_canvas.get(handin.lms_id) if handin.lms == "Canvas" else None
        known = by_name.get(handin.name, []) if handin.lms == "Moodle" and handin.name != BLIND else []
        if row:
            handin.student = row["nbgrader_id"]
            if row.get("name") and _letters(row["name"]) != _letters(handin.name):
                handin.error = handin.error or (
                    f"Canvas user {handin.lms_id} is {row['name']} ({handin.student}) in {MAPPING_FILE}, but "
                    f"{handin.entries[0]} names {handin.name}: refused; if it is one student, correct the name there"
                )
        elif len(known) == 1:
            handin.student = known[0]
        if handin.ambiguous and (row or len(handin.entries) > len(handin.ambiguous)):
            others = [entry for entry in handin.entries if entry not in handin.ambiguous]
            others += [f"{row['nbgrader_id']} of {MAPPING_FILE}"] if row else []
            handin.error = handin.error or (
                f"Canvas file {handin.ambiguous[0]} reads as user {handin.lms_id}'s, or as another's whose name "
                f"ends in _{handin.lms_id}: refused, with {', '.join(others)}; rename it in the download if it is theirs"
            )
    slugs = {}
    for handin in students:
        if not handin.student:
            slugs.setdefault(_slug(handin.name), []).append(handin)
    for flat, alike in slugs.items():
        for handin in alike:
            if not flat and handin.lms == "Moodle":  # nothing of the name is left: a stable digest of it
                handin.student = "moodle_" + _digest(handin.name)
            elif flat and len(alike) == 1 and flat not in taken and handin.name != BLIND:
                handin.student = flat
            elif handin.lms == "Moodle" and handin.name != BLIND and [o.name for o in alike].count(handin.name) == 1:
                handin.student = f"{flat}_{_digest(handin.name)}"  # look-alike names: stable, unlike the participant id
            else:
                handin.student = f"{flat or handin.lms.lower()}_{_slug(handin.lms_id)}"
    for handin in students:
        if len(handin.student) > MAX_ID:
            handin.error = handin.error or (
                f"{handin.lms} hand-in of {handin.name[:40]}...: its id would be {len(handin.student)} characters, "
                f"past the {MAX_ID} nbgrader keeps: refused"
            )
            handin.student = handin.student[:40] + "..."


def _digest(name):
    return hashlib.sha256(name.encode()).hexdigest()[:10]


def _letters(name):
    """A name as Canvas's download writes it (``Lee, Alice``: ``leealice``), without its "_"."""
    return re.sub(r"[\W_]+", "", name.lower())


def discover(folder, root):
    """The LMS hand-ins in ``folder`` with their nbgrader ids (and one hand-in with its error for each entry
    that is none), or None when it is no Canvas or Moodle download."""
    entries = _entries(folder)
    moodle = sum(bool(MOODLE_ENTRY.match(path.name)) for path in entries)
    canvas = sum(bool(CANVAS_FILE.match(path.name)) for path in entries)
    if canvas * 2 > len(entries) and canvas > moodle:  # one stray entry makes no download another kind
        handins = _canvas(entries, folder)
    elif moodle:
        handins = _moodle(entries, folder)
    else:
        return None
    _name(handins, _read(root))
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
