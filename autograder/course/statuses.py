"""The status file: how each submission's grading went, kept for ``report``.

``grading_status/<assignment>.json`` maps ``<student>/<notebook>`` to the
status ``grade`` gave it (``graded`` with its notes, or ``error: <why>``);
the gradebook has scores but nowhere to keep these.
"""

import json
from pathlib import Path


def printable(text, keep=""):
    """``text`` safe to print, write to a CSV or a log: every character that is not printable (a
    terminal's escape, a carriage return, a bidirectional override, a byte of a file name that was not
    UTF-8) written as its Python escape (``\\x1b``, ``\\udcff``), but those in ``keep``. Statuses and
    logs carry what a student wrote: a cell's first line, a file's name, a kernel's output."""
    return "".join(
        character
        if character.isprintable() or character in keep
        else character.encode("unicode_escape", "backslashreplace").decode("ascii")
        for character in text
    )


def _path(root, assignment):
    return Path(root) / "grading_status" / f"{assignment}.json"


def save_statuses(root, assignment, rows):
    """Merge the rows' statuses into the assignment's status file."""
    path = _path(root, assignment)
    path.parent.mkdir(exist_ok=True)
    statuses = load_statuses(root, assignment)
    statuses.update({f"{row['student']}/{row['notebook']}": row["status"] for row in rows})
    path.write_text(json.dumps(statuses, indent=1, sort_keys=True))


def load_statuses(root, assignment):
    """Return {"<student>/<notebook>": status} of every submission graded so far."""
    path = _path(root, assignment)
    return json.loads(path.read_text()) if path.exists() else {}
