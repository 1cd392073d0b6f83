"""Put back the nbgrader metadata a student edited, before nbgrader grades.

nbgrader refuses a notebook whose nbgrader metadata no longer validates (an
edited ``grade_id``, a copied test cell) and grades nothing in it. The
release says what each cell's metadata must be; cells are matched by their
nbformat cell id, which JupyterLab keeps. Then nbgrader's own checks restore
the locked cells' sources, so edited tests run as written by the instructor.
"""

import json

from autograder.course.cells import GRADING_KEYS, grading_metadata, nbgrader_metadata


def repair_notebook(text, release_notebook):
    """Return (text, number of cells repaired) for a submission's raw JSON ``text``.

    ``release_notebook`` is the release notebook (nbformat's or a plain dict). Text that is not a
    notebook is returned unchanged for nbgrader to report.
    """
    try:
        nb = json.loads(text)
        cells = nb["cells"]
        expected = {
            cell["id"]: nbgrader_metadata(cell)
            for cell in release_notebook["cells"]
            if "id" in cell and nbgrader_metadata(cell) is not None
        }
    except (ValueError, KeyError, TypeError, RecursionError):
        return text, 0
    repaired, seen = 0, set()
    for cell in cells:
        if not isinstance(cell, dict) or not isinstance(cell.get("metadata"), dict):
            continue
        marks = cell["metadata"].get("nbgrader")
        cell_id = cell.get("id")
        if cell_id in expected and cell_id not in seen:
            seen.add(cell_id)
            wanted = grading_metadata(expected[cell_id])
            if not isinstance(marks, dict) or grading_metadata(marks) != wanted:
                kept = {
                    key: value
                    for key, value in (marks if isinstance(marks, dict) else {}).items()
                    if key not in GRADING_KEYS
                }
                cell["metadata"]["nbgrader"] = {**kept, **wanted}
                repaired += 1
        elif marks is not None:  # not a graded cell of this release: an ordinary cell
            del cell["metadata"]["nbgrader"]
            repaired += 1
    return json.dumps(nb), repaired
