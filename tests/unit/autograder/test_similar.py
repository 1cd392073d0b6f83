"""``similar``: a planted copy, its names changed and its statements reordered, ranks above every pair
of independently written correct answers (the alternatives of the tests' catalogue), on the tiny
assignment and on every assignment of the course; the page shows the students' text as text. No kernel:
the answers are only read."""

import ast
import shutil

import nbformat
import pytest

from autograder import similar
from autograder.__main__ import main
from autograder.checktests.variants import load_variants
from autograder.course import cells
from autograder.course.directory import REPO, assignments
from tests.support import tiny_course

NOTEBOOK = "answers"


class _Disguise(ast.NodeTransformer):
    """A copier's edits: every name the answer binds renamed, and each two neighbouring simple
    statements that use nothing of each other swapped (the copy computes what the original does)."""

    def __init__(self, keep):
        self.keep = set(keep)

    def visit_Name(self, node):
        node.id = node.id if node.id in self.keep or node.id not in self.bound else f"my_{node.id}"
        return node

    def visit_arg(self, node):
        node.arg = node.arg if node.arg in self.keep else f"my_{node.arg}"
        return node

    def visit_FunctionDef(self, node):
        body, i = node.body, 1 if isinstance(node.body[0], ast.Expr) else 0  # the docstring stays first
        while i + 1 < len(body):
            first, second = body[i], body[i + 1]
            if all(isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr)) for s in (first, second)) and not (
                _names(first, ast.Store) & _names(second) or _names(second, ast.Store) & _names(first)
            ):
                body[i], body[i + 1] = second, first
                i += 1
            i += 1
        self.generic_visit(node)
        return node

    def disguise(self, source):
        tree = ast.parse(source)
        self.bound = _names(tree, ast.Store) | {arg.arg for arg in ast.walk(tree) if isinstance(arg, ast.arg)}
        return ast.unparse(self.visit(tree))


def _names(tree, context=None):
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and (context is None or isinstance(node.ctx, context))
    }


def _class(root, assignment, source, release, alternatives):
    """A class in ``root``: student ``honest<i>`` answers each function with its i-th alternative, as
    many students as every function has alternatives; ``copier`` hands in honest0's, disguised."""
    for folder, notebook in (("source", source), ("release", release)):
        (root / folder / assignment).mkdir(parents=True)
        nbformat.write(notebook, root / folder / assignment / f"{NOTEBOOK}.ipynb")
    students = {}
    for i in range(min(len(options) for options in alternatives.values())):
        notebook = cells.answered(source)
        for function, cell in cells.graded_cells(notebook).items():
            if function in alternatives:
                _, old, new = alternatives[function][i]
                cell.source = cell.source.replace(old, new)
        students[f"honest{i}"] = notebook
    copier = nbformat.from_dict(nbformat.reads(nbformat.writes(students["honest0"]), 4))
    for function, cell in cells.graded_cells(copier).items():
        if function in alternatives:
            disguised = _Disguise([function, "self"]).disguise(cell.source)
            assert disguised.count("my_") > 0 and disguised != cell.source
            cell.source = disguised
    students["copier"] = copier
    for student, notebook in students.items():
        (root / "submitted" / student / assignment).mkdir(parents=True)
        nbformat.write(notebook, root / "submitted" / student / assignment / f"{NOTEBOOK}.ipynb")


def _course(assignment):
    if assignment == tiny_course.ASSIGNMENT:
        variants = load_variants(assignment, REPO / "tests" / "support" / "tiny_mutants")
        return tiny_course.source_notebook(), nbformat.read(tiny_course.release_path(), 4), variants["alternatives"]
    source = next((REPO / "source" / assignment).glob("*.ipynb"))
    release = REPO / "release" / assignment / source.name
    return nbformat.read(source, 4), nbformat.read(release, 4), load_variants(assignment)["alternatives"]


@pytest.mark.parametrize("assignment", [tiny_course.ASSIGNMENT, *assignments(REPO)])
def test_a_disguised_copy_ranks_above_every_pair_of_honest_answers(tmp_path, assignment):
    _class(tmp_path, assignment, *_course(assignment))
    answers, given, notes = similar.answer_code(tmp_path, assignment)
    assert not notes and len(answers) >= 4
    ranked, _ = similar.compare(answers, given)
    assert {ranked[0].a, ranked[0].b} == {"copier", "honest0"}
    honest = [pair.similarity for pair in ranked if "copier" not in (pair.a, pair.b)]
    assert ranked[0].similarity > max(honest) and ranked[0].similarity >= 0.9, ranked[:3]


def test_the_command_writes_the_pairs_and_the_page_shows_code_as_text(tmp_path, capsys):
    assignment = tiny_course.ASSIGNMENT
    source, release, alternatives = _course(assignment)
    _class(tmp_path, assignment, source, release, alternatives)
    # Two students who hand in one answer with markup in it, and a notebook that is no JSON.
    hostile = "    return '</pre><script>alert(1)</script>' + str(probs.sum() * labels.max() + 12)\n"
    for student in ("eve", "mallory"):
        notebook = cells.answered(source)
        answer = cells.graded_cells(notebook)["brier_score"]
        answer.source = answer.source.split('"""\n')[0] + '"""\n' + hostile
        (tmp_path / "submitted" / student / assignment).mkdir(parents=True)
        nbformat.write(notebook, tmp_path / "submitted" / student / assignment / f"{NOTEBOOK}.ipynb")
    (tmp_path / "submitted" / "zed" / assignment).mkdir(parents=True)
    (tmp_path / "submitted" / "zed" / assignment / f"{NOTEBOOK}.ipynb").write_bytes(b"\xff{")
    shutil.rmtree(tmp_path / "submitted" / "honest1")
    assert main(["similar", assignment, "--root", str(tmp_path), "--threshold", "0.9"]) == 0
    printed = capsys.readouterr().out
    assert "copier" in printed and "honest2" not in printed and "note: zed's answers.ipynb not compared" in printed
    rows = (tmp_path / "reports" / f"{assignment}_similar.csv").read_text().splitlines()
    assert rows[0] == ",".join(similar.COLUMNS) and {row.split(",")[0] for row in rows[1:]} >= {"copier", "eve"}
    page = (tmp_path / "reports" / f"{assignment}_similar.html").read_text()
    assert "<script" not in page and "&lt;/pre&gt;&lt;script&gt;alert(1)" in page and "<mark>" in page
    assert main(["similar", "99_nothing", "--root", str(tmp_path)]) == 2
    assert "unknown assignment '99_nothing'" in capsys.readouterr().err


def test_one_unfinished_cell_spoils_no_other_cells_statements():
    answer = "def f(x, y):\n    d = np.mean((x - y) ** 2)\n    return np.sqrt(d) + np.log(d)\n"
    copy = answer.replace("x", "u").replace("d", "q")
    fingerprints = lambda code: {hash_ for hash_, _, _ in similar.fingerprints(code)}
    whole = fingerprints(answer + similar.CELL_BREAK)
    assert whole and whole <= fingerprints(copy + similar.CELL_BREAK + "z = (1," + similar.CELL_BREAK)
    # read line by line, an unfinished cell is normalised as tokenized code is
    assert fingerprints("y = np.mean((x - y) ** 2) + (") == fingerprints("q = np.mean((u - q) ** 2) + (")
