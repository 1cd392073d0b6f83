"""Pages rendered from a student's notebook (formgrader's submission view, the feedback) run no
script of the student's: the course's config cleans markdown and outputs (``autograder/outputs/sanitize.py``)."""

import re
from pathlib import Path

import nbformat
import pytest
from nbconvert.exporters import HTMLExporter

from autograder.course.directory import REPO, load_config

ATTACK = (
    "An answer with $a < b$ and **bold**.\n\n"
    "<img src=x onerror=\"fetch('/services/bdl/api/terminals',{method:'POST'})\">"
    "<script>fetch('/services/bdl/api/terminals')</script>"
    "<a href=\"javascript:fetch('/x')\">link</a> <svg onload=alert(1)></svg>\n\n"
    "| x | y |\n|---|---|\n| 1 | 2 |\n"
)


def _answer(text):
    """A hand-graded markdown answer holding ``text``."""
    return nbformat.v4.new_markdown_cell(
        text,
        metadata={
            "nbgrader": {
                "grade": True,
                "solution": True,
                "grade_id": "q1",
                "points": 2,
                "locked": False,
                "schema_version": 3,
                "score": 1,
                "comment": "",
            }
        },
    )


def _notebook():
    graded = _answer(ATTACK)
    code = nbformat.v4.new_code_cell(
        "display(HTML(...))",
        outputs=[
            nbformat.v4.new_output(
                "display_data",
                data={
                    "text/html": "<table><tr><td>1</td></tr></table><img src=x onerror=alert(2)>"
                    "<script>alert(3)</script>",
                    "application/javascript": "alert(4)",
                },
            )
        ],
    )
    return nbformat.v4.new_notebook(cells=[graded, nbformat.v4.new_markdown_cell(ATTACK), code])


NBGRADER_CSS = (
    Path(__import__("nbgrader").__file__).parent
    / "server_extensions"
    / "formgrader"
    / "static"
    / "node_modules"
    / "bootstrap"
    / "dist"
    / "css"
)
# What formgrader's submission view and `autograder feedback` hand the exporter.
RESOURCES = {
    "formgrade": {
        "assignment_id": "01",
        "notebook_id": "n",
        "submission_id": "s",
        "index": 0,
        "total": 1,
        "base_url": "/",
        "student": "mallory",
        "last_name": "",
        "first_name": "",
        "notebook_path": "n.ipynb",
    },
    "feedback": {"nbgrader": {"notebook": "n", "score": 1, "max_score": 2, "late_penalty": 0}},
}


def _page(notebook, template):
    """The page ``template`` (formgrader's submission view, or the feedback) of ``notebook``, rendered
    with the course's config."""
    config = load_config(REPO)
    config.HTMLExporter.template_name = template
    config.HTMLExporter.extra_template_paths = [str(NBGRADER_CSS)]
    return HTMLExporter(config=config).from_notebook_node(notebook, resources=RESOURCES[template])[0]


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_no_script_of_the_students_reaches_a_page(template):
    html = _page(_notebook(), template)
    for script in (
        "onerror=",
        "onload=",
        'href="javascript:',
        "<script>fetch",
        "<script>alert",
        "alert(4)",
        '<img src="x"',
    ):  # the template's own scripts are the only ones left
        assert script not in html, script
    assert "<strong>bold</strong>" in html and "<td>1</td>" in html and "<table>" in html
    assert "a &lt; b" in html or "a < b" in html  # the math is left for MathJax


# Markup that formgrader would bind a test's score to (its id inside a ".nbgrader_cell", a "full-credit"
# button), and addresses of the server the grader is logged in to, which a page would request by itself.
HIJACK = (
    '<div class="nbgrader_cell" id="hijack"><span id="test_gaussian_nll" name="test_gaussian_nll"></span>'
    '<a class="full-credit btn" id="test_gaussian_nll-full-credit" href="/hub/logout">Show my working</a>'
    '<span class="score tabbable">10</span></div>'
    '<img src="/hub/api/users" alt="plot"><img src="https://hub.example/hub/spawn">'
    '<a href="../../api/terminals">see</a> <a href="https://example.org/paper">a paper</a>\n\n'
    "![inline](data:image/png;base64,iVBORw0KGgo=)\n"
)


def _hostile_notebook():
    graded = _answer(HIJACK)
    plot = nbformat.v4.new_output(
        "display_data",
        data={"image/png": "iVBORw0KGgo=", "image/svg+xml": "<svg/>"},
        metadata={"filenames": {"image/png": "/hub/logout"}},
    )
    html = nbformat.v4.new_output("display_data", data={"text/html": HIJACK})
    code = nbformat.v4.new_code_cell("import numpy as np\nx = np.ones(3)  # code", outputs=[plot, html])
    return nbformat.v4.new_notebook(cells=[graded, code])


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_a_students_markup_takes_no_grader_click_and_loads_no_page_of_the_server(template):
    html = _page(_hostile_notebook(), template)
    for bound in (
        'id="test_gaussian_nll',
        'name="test_gaussian_nll',
        'id="hijack"',
        'class="full-credit btn"',
        'class="score tabbable">10',
        'class="nbgrader_cell" id',
    ):  # the page's own elements have these too
        assert bound not in html, bound
    assert "<a>Show my working</a>" in html and "<span>10</span>" in html
    for address in ('"/hub/', "hub.example", "../../api"):
        assert address not in html, address
    assert 'href="https://example.org/paper"' in html  # a whole address stays a link
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in html
    assert re.search(r'<span class="kn">import</span>', html), "highlighted code keeps its classes"


def test_the_cleaner_keeps_highlighted_code_and_drops_every_other_class_and_id():
    from autograder.outputs.sanitize import clean_html

    code = '<div class="highlight hl-ipython3"><pre><span class="n">x</span> <span class="o">=</span></pre></div>'
    assert clean_html(code) == code
    assert clean_html('<p class="alert full-credit" id="x" name="y">a</p>') == "<p>a</p>"
    assert clean_html('<p class="k nbgrader_cell">a</p>') == "<p>a</p>"
    assert clean_html('<img src="data:image/png;base64,AA==">') == '<img src="data:image/png;base64,AA==">'
    assert clean_html('<img src="x.png"><a href="/hub/home">h</a>') == "<img><a>h</a>"
