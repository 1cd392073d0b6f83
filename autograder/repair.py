"""Put back the nbgrader metadata a student edited, before nbgrader grades.

nbgrader refuses a notebook whose nbgrader metadata no longer validates (an
edited ``grade_id``, a copied test cell) and grades nothing in it. The
release says what each cell's metadata must be; cells are matched by their
nbformat cell id, which JupyterLab keeps. Then nbgrader's own checks restore
the locked cells' sources, so edited tests run as written by the instructor.
"""
import json

# What makes a cell graded; nbgrader recomputes checksums itself.
GRADING_KEYS = ("grade", "solution", "locked", "task", "points", "grade_id", "schema_version")


def _grading(metadata):
    return {key: metadata[key] for key in GRADING_KEYS if key in metadata}


def repair_notebook(text, release):
    """Return (text, number of cells repaired) for a submission's raw JSON ``text``.

    ``release`` is the release notebook as a dict. Text that is not a notebook
    is returned unchanged for nbgrader to report.
    """
    try:
        nb = json.loads(text)
        cells = nb["cells"]
        expected = {cell["id"]: cell["metadata"]["nbgrader"] for cell in release["cells"]
                    if "id" in cell and "nbgrader" in cell.get("metadata", {})}
    except (ValueError, KeyError, TypeError):
        return text, 0
    repaired, seen = 0, set()
    for cell in cells:
        if not isinstance(cell, dict) or not isinstance(cell.get("metadata"), dict):
            continue
        metadata = cell["metadata"].get("nbgrader")
        cell_id = cell.get("id")
        if cell_id in expected and cell_id not in seen:
            seen.add(cell_id)
            if not isinstance(metadata, dict) or _grading(metadata) != _grading(expected[cell_id]):
                cell["metadata"]["nbgrader"] = {**(metadata if isinstance(metadata, dict) else {}),
                                                **_grading(expected[cell_id])}
                for key in set(GRADING_KEYS) - set(expected[cell_id]):
                    cell["metadata"]["nbgrader"].pop(key, None)
                repaired += 1
        elif metadata is not None:  # not a graded cell of this release: an ordinary cell
            del cell["metadata"]["nbgrader"]
            repaired += 1
    return json.dumps(nb), repaired
