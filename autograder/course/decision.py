"""What a student reads of a failed test cell, as the examiner decided it: data beside its error output.

The examiner (``autograder.worker.examiner.verdict``) writes a ``Decision`` as a display_data output of
its own MIME type after the cell's error output (an nbformat error output holds no other field).
nbgrader keeps a test cell's outputs from its autograde run to its feedback, and the feedback
(``autograder.outputs.feedback``) reads the decision back, strictly, instead of the traceback's text:
one place decides, the other only keeps secrets out and shows it.
"""

from dataclasses import asdict, dataclass
from typing import Any

MIME = "application/vnd.bdl.decision+json"


@dataclass(frozen=True)
class Decision:
    """``name``: the error's type as a student reads it; ``lines``: the examiner's words, the first
    after the name; ``yours``: the line that quotes the student's own code ("" if none); ``notes``: the
    requirement the failing check cites and the likely mistake, as the feedback shows them; ``line``:
    the test cell's line it failed at, or None when it did not fail in the cell's code (a timeout)."""

    name: str
    lines: list[str]
    yours: str
    notes: list[str]
    line: int | None

    def output(self) -> dict:
        """The display_data output that carries it."""
        return {"output_type": "display_data", "metadata": {}, "data": {MIME: asdict(self)}}


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(type(item) is str for item in value)


def decision(outputs: list) -> Decision | None:
    """The decision among a cell's ``outputs``, or None when none is of the form above."""
    for output in outputs:
        data = output.get("data") if output.get("output_type") == "display_data" else None
        if not isinstance(data, dict) or MIME not in data:
            continue
        found = data[MIME]
        if not (isinstance(found, dict) and set(found) == {"name", "lines", "yours", "notes", "line"}):
            return None
        line = found["line"]
        if (
            type(found["name"]) is str
            and _strings(found["lines"])
            and found["lines"]
            and type(found["yours"]) is str
            and _strings(found["notes"])
            and (line is None or type(line) is int)
        ):
            return Decision(found["name"], list(found["lines"]), found["yours"], list(found["notes"]), line)
        return None
    return None
