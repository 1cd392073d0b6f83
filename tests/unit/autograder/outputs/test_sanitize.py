"""Pages rendered from a student's notebook (formgrader's submission view, the feedback) run no
script of the student's: the course's config cleans markdown and outputs (``autograder/outputs/sanitize.py``)."""
from pathlib import Path

import nbformat
import pytest
from nbconvert.exporters import HTMLExporter

from autograder.course.directory import REPO, load_config

ATTACK = ("An answer with $a < b$ and **bold**.\n\n"
          "<img src=x onerror=\"fetch('/services/bdl/api/terminals',{method:'POST'})\">"
          "<script>fetch('/services/bdl/api/terminals')</script>"
          "<a href=\"javascript:fetch('/x')\">link</a> <svg onload=alert(1)></svg>\n\n"
          "| x | y |\n|---|---|\n| 1 | 2 |\n")


def _notebook():
    graded = nbformat.v4.new_markdown_cell(ATTACK, metadata={"nbgrader": {
        "grade": True, "solution": True, "grade_id": "q1", "points": 2, "locked": False, "schema_version": 3,
        "score": 1, "comment": ""}})
    code = nbformat.v4.new_code_cell("display(HTML(...))", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/html": "<table><tr><td>1</td></tr></table><img src=x onerror=alert(2)>"
                                           "<script>alert(3)</script>",
                              "application/javascript": "alert(4)"})])
    return nbformat.v4.new_notebook(cells=[graded, nbformat.v4.new_markdown_cell(ATTACK), code])


NBGRADER_CSS = Path(__import__("nbgrader").__file__).parent / "server_extensions" / "formgrader" / "static" / \
    "node_modules" / "bootstrap" / "dist" / "css"
# What formgrader's submission view and `autograder feedback` hand the exporter.
RESOURCES = {"formgrade": {"assignment_id": "01", "notebook_id": "n", "submission_id": "s", "index": 0, "total": 1,
                           "base_url": "/", "student": "mallory", "last_name": "", "first_name": "",
                           "notebook_path": "n.ipynb"},
             "feedback": {"nbgrader": {"notebook": "n", "score": 1, "max_score": 2, "late_penalty": 0}}}


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_no_script_of_the_students_reaches_a_page(template):
    config = load_config(REPO)
    config.HTMLExporter.template_name = template
    config.HTMLExporter.extra_template_paths = [str(NBGRADER_CSS)]
    html, _ = HTMLExporter(config=config).from_notebook_node(_notebook(), resources=RESOURCES[template])
    for script in ("onerror=", "onload=", "href=\"javascript:", "<script>fetch", "<script>alert", "alert(4)",
                   "<img src=\"x\""):  # the template's own scripts are the only ones left
        assert script not in html, script
    assert "<strong>bold</strong>" in html and "<td>1</td>" in html and "<table>" in html
    assert "a &lt; b" in html or "a < b" in html  # the math is left for MathJax
