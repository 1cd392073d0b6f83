"""The status file: how each submission's grading went, kept for ``report``.

``grading_status/<assignment>.json`` maps ``<student>/<notebook>`` to the
status ``grade`` gave it (``graded`` with its notes, or ``error: <why>``);
the gradebook has scores but nowhere to keep these.
"""
import json
from pathlib import Path


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
