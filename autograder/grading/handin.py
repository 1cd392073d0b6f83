"""A hand-in's notebook as the host reads it: once, bounded, whatever its bytes.

Before any of it runs, the host reads each submitted notebook for what it must say of it: the source
notebook's markers (``host._inspect``), the graded cells it lacks and the review's flags
(``autograder.grading.review``). The bytes are the student's. ``read_handin`` decodes them with
replacement, as the worker hands them to nbgrader; refuses in one line what would cost the host more
than any notebook of the course does (more JSON values than ``MAX_JSON_VALUES``, nesting deeper than
Python's parser goes); and turns an older nbformat into version 4, so that nothing in it is skipped.
"""

import json

import nbformat

# A bound on the JSON values in a notebook, counted before it is parsed as the bytes "{", "[" and ","
# (inside strings too): a notebook of the course with its outputs counts thousands. A hand-in of
# millions of tiny values costs the host gigabytes to parse (60 MB of nested empty objects: 3.5 GB).
MAX_JSON_VALUES = 2_000_000


class Unreadable(ValueError):
    """Why the host does not read a hand-in's notebook, in one line."""


def read_handin(data):
    """The notebook of the bytes ``data`` (nbformat 4); ``Unreadable`` if the host does not read it."""
    values = data.count(b"{") + data.count(b"[") + data.count(b",")
    if values > MAX_JSON_VALUES:
        raise Unreadable(f"{values:,} JSON values or more, past the {MAX_JSON_VALUES:,} the host reads")
    try:
        raw = json.loads(data.decode(errors="replace"))
    except RecursionError:
        raise Unreadable("JSON nested too deep to read") from None
    except ValueError as error:
        raise Unreadable(f"not JSON: {error}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("nbformat"), int):
        raise Unreadable("not a notebook: no nbformat version")
    try:
        notebook = nbformat.from_dict(raw)
        return notebook if raw["nbformat"] >= 4 else nbformat.convert(notebook, 4)
    except Exception as error:  # nbformat's own errors, a RecursionError in from_dict, a broken v3
        raise Unreadable(f"not a notebook nbformat reads: {type(error).__name__}") from None
