"""The grading guide and the rubrics it shows: every manual cell has one, the guide shows it with the
question and the model answer typeset offline, and no rubric reaches the release or the student kit."""

import html
import re
import shutil

import nbformat
import pytest

from autograder.course import cells, rubric
from autograder.course.directory import REPO, assignments
from autograder.course.lint import lint_course
from autograder.outputs import guide, mathjax
from tests.support.scan import course_secrets, scan_folder

SOURCES = sorted(REPO.glob("source/*/*.ipynb"))


def _manual(path):
    return [cell for cell in nbformat.read(path, 4).cells if cells.is_manual(cell) and cells.has_points(cell)]


def test_every_manual_cell_has_a_rubric_that_adds_up_to_its_points():
    """Every assignment, found in source/, has hand-graded points, and each of its manual cells a rubric."""
    for name in assignments(REPO):
        manual = [cell for path in REPO.glob(f"source/{name}/*.ipynb") for cell in _manual(path)]
        assert sum(cells.nbgrader_metadata(cell)["points"] for cell in manual) > 0, name
        for cell in manual:
            assert rubric.problems(cell) == [], (name, cells.grade_id(cell))
            parsed, problems = rubric.parse(rubric.split(cell.source)[1])
            assert not problems and parsed.points == cells.nbgrader_metadata(cell)["points"]
            assert parsed.wrong_answers and all(len(c.text) > 20 for c in parsed.criteria)


def test_rubric_parses_criteria_wrong_answers_and_continued_lines():
    answer, text = rubric.split(
        "The answer, $x^2$.\n\n### BEGIN RUBRIC\n- 1 point: the square,\n"
        "  written $x^2$.\n- 0.5 points: why.\n\n**Common wrong answers:**\n"
        "- $2x$, the derivative\n  instead.\n### END RUBRIC"
    )
    assert answer == "The answer, $x^2$."
    parsed, problems = rubric.parse(text)
    assert problems == []
    assert parsed.criteria == (rubric.Criterion(1.0, "the square, written $x^2$."), rubric.Criterion(0.5, "why."))
    assert parsed.wrong_answers == ("$2x$, the derivative instead.",) and parsed.points == 1.5
    assert rubric.split("no rubric here") == ("no rubric here", None)
    assert rubric.parse("- one point: x")[1], "a criterion without its points is reported"


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("guides")
    return out, guide.write_guides(REPO, None, out)


def test_a_guide_page_per_assignment_with_question_rubric_and_model_answer(pages):
    out, written = pages
    assert [path.name for path in written] == [f"{name}.html" for name in assignments()]
    for path in SOURCES:
        page = (out / f"{path.parent.name}.html").read_text()
        text = html.unescape(re.sub(r"<[^>]+>", " ", page))
        assert "Instructors and teaching assistants only" in page
        nb = nbformat.read(path, 4)
        for index, cell in enumerate(nb.cells):
            if not (cells.is_manual(cell) and cells.has_points(cell)):
                continue
            grade_id, points = cells.grade_id(cell), cells.nbgrader_metadata(cell)["points"]
            assert f'<section id="{grade_id}">' in page and f"{points:g} point" in page
            answer, text_of_rubric = rubric.split(cell.source)
            parsed = rubric.parse(text_of_rubric)[0]
            # the question (the markdown cell above), the model answer, every criterion and wrong answer
            shown = [nb.cells[index - 1].source, answer, *(c.text for c in parsed.criteria), *parsed.wrong_answers]
            for markdown in shown:
                assert guide._md(markdown) in page, (grade_id, markdown[:60])
                words = re.findall(r"[A-Za-z]{5,}", markdown)[:5]
                assert all(word in text for word in words), (grade_id, words)
            assert cells.BEGIN_RUBRIC not in page and cells.END_RUBRIC not in page
    assert '<section id="discussion_monte_carlo_kl">' in (out / "04_bayesian_cnn.html").read_text()


def test_the_guide_shows_each_requirement_with_the_checks_that_hold_it(pages):
    """So a TA can answer "why did I lose this point" with the sentence the feedback quoted."""
    from bdl import requirements

    out, _ = pages
    page = (out / "01_likelihoods.html").read_text()
    section = page[page.index('<h3 id="brier_score_tests">') :]
    for requirement in requirements.all_tables()["brier_score"]:
        assert guide._md(requirement.sentence) in section
    assert "the Brier score of … examples over … classes, integer labels" in html.unescape(section)


def test_math_is_typeset_by_the_mathjax_copy_beside_the_pages(pages):
    out, written = pages
    for path in written:
        page = path.read_text()
        sources = re.findall(r'<script[^>]*src="([^"]+)"', page)
        assert sources == [f"mathjax/MathJax.js?config={mathjax.CONFIG}"], sources
        assert not re.search(r"(src|href)=\"(https?:)?//", page), "nothing is loaded from the network"
    copy = out / "mathjax"
    assert (copy / "MathJax.js").read_bytes() == (mathjax.mathjax_dir() / "MathJax.js").read_bytes()
    assert (copy / "config" / f"{mathjax.CONFIG}.js").is_file()
    assert (copy / "fonts" / "HTML-CSS" / "STIX-Web" / "woff").is_dir()
    # the LaTeX reaches MathJax intact (delimiters kept, not turned into markdown emphasis)
    assert r"$$p(y \mid x) = \frac{1}{\sqrt{2\pi}\,\sigma(x)}" in (out / "01_likelihoods.html").read_text()


def test_guide_cli_writes_pages_and_refuses_an_unknown_assignment(tmp_path, capsys):
    from autograder.__main__ import main

    assert main(["guide", "02_deep_ensembles", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "02_deep_ensembles.html").exists() and not (tmp_path / "01_likelihoods.html").exists()
    assert "1 grading guides written" in capsys.readouterr().out
    assert main(["guide", "99_nothing", "--out", str(tmp_path)]) == 2
    assert "unknown assignment '99_nothing'" in capsys.readouterr().err


def test_the_release_holds_no_rubric_and_a_planted_one_is_caught(tmp_path):
    assert lint_course(REPO / "source", REPO / "release") == []
    secrets = course_secrets(REPO)
    assert len(secrets.rubric) > 50 and not secrets.rubric & secrets.solution
    # the release as a student gets it, with one rubric line and one marker planted
    release = tmp_path / "release"
    shutil.copytree(REPO / "release", release)
    source = nbformat.read(REPO / "source" / "01_likelihoods" / "likelihoods.ipynb", 4)
    planted = rubric.split(cells.graded_cells(source)["derivation_gaussian"].source)[1].split("\n")[1].strip()
    path = release / "01_likelihoods" / "likelihoods.ipynb"
    nb = nbformat.read(path, 4)
    cells.graded_cells(nb)["derivation_gaussian"].source += "\n" + planted
    nb.cells.append(nbformat.v4.new_markdown_cell("### BEGIN RUBRIC"))
    nbformat.write(nb, path)
    problems = lint_course(REPO / "source", release)
    assert len(problems) == 2 and all("a rubric reached the release" in p for p in problems), problems
    assert any(planted[:40] in p for p in problems)
    rubric_findings = [item for item in scan_folder(tmp_path, secrets) if ": rubric: " in item or "RUBRIC" in item]
    answer_cell = next(i for i, cell in enumerate(nb.cells) if cells.grade_id(cell) == "derivation_gaussian")
    assert sorted(rubric_findings) == sorted(
        [
            f"release/01_likelihoods/likelihoods.ipynb (cell {answer_cell}): rubric: {planted}",
            f"release/01_likelihoods/likelihoods.ipynb (cell {len(nb.cells) - 1}): marker: BEGIN RUBRIC",
        ]
    ), rubric_findings
