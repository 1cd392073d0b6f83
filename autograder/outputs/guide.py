"""The grading guide (``python -m autograder guide``): one HTML page per assignment for the people who
grade by hand, with each manually graded cell's question, points, rubric and model answer, and each
graded function's requirements with the checks that hold them (``bdl.requirements``).

Everything comes from ``source/``: the question is the markdown cell just above the answer cell, the
model answer is the answer cell, its rubric the block at its end (``autograder.course.rubric``). The math is
typeset by the MathJax copy the course installs (``autograder.outputs.mathjax``), copied beside the pages, so
the guide works offline and from a plain folder. The pages hold model answers: instructors only.
"""

import html
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from autograder.course import cells, citations, rubric
from autograder.course.cli import root_option
from autograder.course.directory import REPO, assignments, check_assignment
from autograder.outputs import mathjax
from bdl import requirements

MATHJAX_FOLDER = "mathjax"  # beside the pages
MATHJAX_SETUP = """<script type="text/x-mathjax-config">
MathJax.Hub.Config({
  jax: ["input/TeX", "output/HTML-CSS"],
  tex2jax: {inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]], displayMath: [["$$", "$$"], ["\\\\[", "\\\\]"]],
            processEscapes: true},
  "HTML-CSS": {availableFonts: [], webFont: "STIX-Web", imageFont: null},
  messageStyle: "none"
});
</script>
<script src="%s/MathJax.js?config=%s"></script>"""
STYLE = """
body { font-family: system-ui, sans-serif; max-width: 54em; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
.banner { background: #fdecea; border: 1px solid #e0a39d; padding: .5em .8em; font-weight: 600; }
section { border-top: 2px solid #ccc; margin-top: 2em; }
h2 .points { font-weight: normal; color: #555; font-size: 80%; }
.question { background: #f4f6f8; padding: .2em .8em; border-left: 4px solid #8aa; }
.answer { border-left: 4px solid #7a7; padding: .2em .8em; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #ccc; padding: .3em .6em; vertical-align: top; text-align: left; }
td.points { white-space: nowrap; text-align: right; }
.wrong li { margin-bottom: .3em; }
td p, li p { margin: 0; }
"""


@dataclass(frozen=True)
class ManualCell:
    notebook: str
    grade_id: str
    points: float
    question: str  # markdown
    answer: str  # markdown: the model answer without its rubric
    rubric: object  # rubric.Rubric, or None when the cell has none


def manual_cells(path):
    """Return the ManualCells of a source notebook, in order."""
    nb = nbformat.read(path, 4)
    found = []
    for index, cell in enumerate(nb.cells):
        if not (cells.is_manual(cell) and cells.has_points(cell)):
            continue
        before = nb.cells[index - 1] if index else None
        question = (
            before.source
            if before is not None and before.cell_type == "markdown" and not cells.is_graded(before)
            else ""
        )
        answer, text = rubric.split(cell.source)
        found.append(
            ManualCell(
                Path(path).stem,
                cells.grade_id(cell),
                float(cells.nbgrader_metadata(cell)["points"]),
                question,
                answer,
                None if text is None else rubric.parse(text)[0],
            )
        )
    return found


def automatic_cells(path):
    """Return [(grade_id, points, its checks read by ``citations``)] of a source notebook's test cells."""
    nb = nbformat.read(path, 4)
    answers = {cells.tests_id(name): answer for name, (answer, _) in cells.graded_functions(nb).items()}
    return [
        (
            cells.grade_id(cell),
            float(cells.nbgrader_metadata(cell)["points"]),
            citations.read(cell.source, citations.defined_names(answers[cells.grade_id(cell)].source))
            if cells.grade_id(cell) in answers
            else citations.read(cell.source),
        )
        for cell in nb.cells
        if cells.is_test(cell) and cells.has_points(cell)
    ]


def _requirements(test_id, read):
    """The rows of a graded function's requirements (``bdl.requirements``): each sentence of the text,
    and the checks of its test cell that cite it, or why none does."""
    table = requirements.all_tables().get(cells.answer_id(test_id), ())
    if not table:
        return ""
    rows = []
    for requirement in table:
        holding = [check for check in read.checks if check.key == requirement.key]
        cases = sorted({check.case for check in holding if check.case}) or [
            "the answer runs on the tests' inputs"
        ] * any(holding)
        held = (
            f"<em>not checked:</em> {html.escape(requirement.unchecked)}"
            if requirement.unchecked
            else "<ul>" + "".join(f"<li>{html.escape(case)}</li>" for case in cases) + "</ul>"
        )
        rows.append(f"<tr><td>{_md(requirement.sentence)}</td><td>{held}</td></tr>")
    return (
        f'<h3 id="{html.escape(test_id)}">{html.escape(cells.answer_id(test_id))}</h3>'
        f"<table><tr><th>the text asks</th><th>the checks that hold it</th></tr>{''.join(rows)}</table>"
    )


ANCHOR = re.compile(r'<a class="anchor-link" href="[^"]*">[^<]*</a>')


def _md(text):
    """Markdown to HTML, math left for MathJax; without nbconvert's heading anchors (a question's
    heading would otherwise link into the notebook)."""
    return ANCHOR.sub("", markdown2html_mistune(text))


def _points(value):
    return f"{value:g} point" + ("" if value == 1 else "s")


def _section(cell):
    parts = [
        f'<section id="{html.escape(cell.grade_id)}">',
        f'<h2>{html.escape(cell.grade_id)} <span class="points">{_points(cell.points)} '
        f"&middot; {html.escape(cell.notebook)}.ipynb</span></h2>",
        "<h3>Question</h3>",
        f'<div class="question">{_md(cell.question) or "<p>(no question above the cell)</p>"}</div>',
        "<h3>Rubric</h3>",
    ]
    if cell.rubric is None:
        parts.append('<p class="banner">No rubric in source/ for this cell (the lint reports it).</p>')
    else:
        rows = "".join(
            f'<tr><td class="points">{_points(c.points)}</td><td>{_md(c.text)}</td></tr>' for c in cell.rubric.criteria
        )
        parts.append(f'<table class="rubric"><tr><th>points</th><th>what earns them</th></tr>{rows}</table>')
        wrong = "".join(f"<li>{_md(text)}</li>" for text in cell.rubric.wrong_answers)
        parts.append(f'<h4>Common wrong answers</h4><ul class="wrong">{wrong}</ul>')
    parts += ["<h3>Model answer</h3>", f'<div class="answer">{_md(cell.answer)}</div>', "</section>"]
    return "\n".join(parts)


def render(assignment, notebook_paths, typeset=True):
    """Return the guide page of one assignment (HTML), given its source notebooks."""
    manual = [cell for path in notebook_paths for cell in manual_cells(path)]
    automatic = [item for path in notebook_paths for item in automatic_cells(path)]
    manual_total, automatic_total = sum(c.points for c in manual), sum(p for _, p, _ in automatic)
    head = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>Grading guide: {html.escape(assignment)}</title>",
        f"<style>{STYLE}</style>",
    ]
    if typeset:
        head.append(MATHJAX_SETUP % (MATHJAX_FOLDER, mathjax.CONFIG))
    body = [
        "</head><body>",
        '<p class="banner">Instructors and teaching assistants only: model answers and rubrics. '
        "Never publish this page or give it to students.</p>",
        f"<h1>Grading guide: {html.escape(assignment)}</h1>",
    ]
    if not typeset:
        body.append(
            '<p class="banner">No MathJax copy was found when this page was written: math is shown as LaTeX.</p>'
        )
    automatic_text = f"{_points(automatic_total)} graded automatically by {len(automatic)} test cells"
    if manual:
        body.append(
            f"<p>{_points(manual_total)} graded by hand in {len(manual)} cells, {automatic_text}. "
            "Grade the hand-graded cells in formgrader (Nbgrader &gt; Formgrader); it writes to the "
            "gradebook that <code>python -m autograder report</code> reads.</p>"
        )
        items = "".join(
            f'<li><a href="#{html.escape(c.grade_id)}">{html.escape(c.grade_id)}</a> ({_points(c.points)})</li>'
            for c in manual
        )
        body.append(f"<ul>{items}</ul>")
    else:
        body.append(f"<p><strong>Nothing to grade by hand:</strong> {automatic_text}.</p>")
    body += [_section(cell) for cell in manual]
    rows = "".join(
        f'<tr><td>{html.escape(name)}</td><td class="points">{points:g}</td></tr>' for name, points, _ in automatic
    )
    traced = "".join(_requirements(name, read) for name, _, read in automatic)
    if traced:
        traced = (
            "<p>Each graded function's requirements, quoted from the text, and the checks that hold them. "
            "A failing check quotes its sentence in the student's feedback.</p>" + traced
        )
    body.append(
        f"<section><h2>Graded automatically</h2><table><tr><th>test cell</th><th>points</th></tr>"
        f"{rows}</table>{traced}</section></body></html>\n"
    )
    return "\n".join(head + body)


def _copy_mathjax(out):
    """Copy the installed MathJax beside the pages; return False when there is none."""
    try:
        source = mathjax.mathjax_dir()
    except RuntimeError as error:
        print(f"autograder: warning: {error}; the guide shows math as LaTeX", file=sys.stderr)
        return False
    target = Path(out) / MATHJAX_FOLDER
    if (
        not (target / "MathJax.js").is_file()
        or (target / "MathJax.js").read_bytes() != (source / "MathJax.js").read_bytes()
    ):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target)
    return True


def write_guides(root=REPO, only=None, out=None):
    """Write ``out/<assignment>.html`` (default ``root/guides``) for each assignment; return the paths."""
    root = Path(root)
    out = Path(out) if out else root / "guides"
    names = list(only or assignments(root))
    for name in names:
        check_assignment(name, root)
    out.mkdir(parents=True, exist_ok=True)
    typeset = _copy_mathjax(out)
    written = []
    for name in names:
        path = out / f"{name}.html"
        path.write_text(render(name, sorted((root / "source" / name).glob("*.ipynb")), typeset))
        written.append(path)
    return written


def _guide(args):
    written = write_guides(args.root, args.assignments, args.out)
    print("\n".join(str(path) for path in written))
    print(f"{len(written)} grading guides written (instructors only: they hold model answers and rubrics)")
    return 0


def add_parser(commands):
    guide_cmd = commands.add_parser(
        "guide",
        help="write the grading guide: per assignment an HTML page "
        "with each hand-graded cell's question, points, rubric and model answer",
    )
    guide_cmd.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: every assignment")
    guide_cmd.add_argument("--out", help="the folder of the pages (default: ROOT/guides)")
    root_option(guide_cmd)
    guide_cmd.set_defaults(run=_guide)
