"""``similar``: a planted copy, its names changed and its statements reordered, ranks above every pair
of independently written correct answers (the alternatives of the tests' catalogue), on the tiny
assignment and on every assignment of the course; the page shows the students' text as text. No kernel:
the answers are only read."""

import ast
import json
import shutil
import signal
import tracemalloc
from contextlib import contextmanager

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
    _write(root, "source", assignment, source)
    _write(root, "release", assignment, release)
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
        _write(root, f"submitted/{student}", assignment, notebook)


def _write(root, folder, assignment, notebook):
    (root / folder / assignment).mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, root / folder / assignment / f"{NOTEBOOK}.ipynb")


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
        _write(tmp_path, f"submitted/{student}", assignment, notebook)
    (tmp_path / "submitted" / "zed" / assignment).mkdir(parents=True)
    (tmp_path / "submitted" / "zed" / assignment / f"{NOTEBOOK}.ipynb").write_bytes(b"\xff{")
    # and a notebook whose cells are no cells
    odd = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": ["x", 3, {"cell_type": "code", "id": []}]}
    (tmp_path / "submitted" / "trudy" / assignment).mkdir(parents=True)
    (tmp_path / "submitted" / "trudy" / assignment / f"{NOTEBOOK}.ipynb").write_text(json.dumps(odd))
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


@contextmanager
def _within_cpu(seconds):
    """Fail the test once the process has used ``seconds`` of CPU (the machine may be busy; before, some of
    these ran for hours)."""

    def late(signum, frame):
        pytest.fail(f"over {seconds} CPU seconds")

    previous = signal.signal(signal.SIGPROF, late)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _lines(characters):
    """Distinct statements of code, ``characters`` of them."""
    return "".join(f"value_{i} = weights[{i}] * inputs.mean(axis={i % 3}) + {i}\n" for i in range(characters // 30))[
        :characters
    ]


def test_an_8_mb_cell_costs_what_reading_it_does_and_the_cuts_are_noted(tmp_path, capsys):
    # Before: the cell tokenized whole, about 200 bytes a character (1.1 to 1.7 GB). Now 100,000
    # characters of a cell are read, 200,000 of a student's; the notebook's bytes, text and JSON (three
    # times its size) are most of the peak.
    assignment = tiny_course.ASSIGNMENT
    source, release, _ = _course(assignment)
    _write(tmp_path, "source", assignment, source)
    _write(tmp_path, "release", assignment, release)
    _write(tmp_path, "submitted/honest", assignment, tiny_course.reference())
    notebook = tiny_course.reference()
    answer = cells.graded_cells(notebook)["brier_score"]
    answer.source += _lines(8 * 2**20)
    notebook.cells += [nbformat.v4.new_code_cell("# " + "x" * 149_998) for _ in range(2)]  # cheap to read
    _write(tmp_path, "submitted/eve", assignment, notebook)
    tracemalloc.start()
    try:
        with _within_cpu(20):
            assert main(["similar", assignment, "--root", str(tmp_path)]) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 48 * 2**20, f"{peak / 2**20:.0f} MiB"
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note: ")]
    cell, last = notebook.cells.index(answer) + 1, len(notebook.cells)
    where = f"note: eve's {NOTEBOOK}.ipynb cell"
    assert len(notes) == 3, notes
    assert notes[0] == f"{where} {cell}: only its first 100,000 of {len(answer.source):,} characters compared"
    # the rest of the 200,000 after the other answers
    assert notes[1].startswith(f"{where} {last - 1}: only its first ") and notes[1].endswith(
        " of 150,000 characters compared"
    )
    assert notes[2] == f"{where} {last} and all after not compared: past 200,000 characters of code"
    page = (tmp_path / "reports" / f"{assignment}_similar.html").read_text()
    assert f"Note: eve&#x27;s {NOTEBOOK}.ipynb cell {last} and all after not compared" in page


def test_a_pair_sharing_a_long_statement_is_marked_in_one_pass():
    # Before: each of the statement's fingerprints marked it again, character by character (0.4 MB: no
    # end in 600 s).
    statement = "total = " + " + ".join(str(10**17 + i) for i in range(20_000)) + "\n"  # cheap to tokenize
    assert len(statement) > 400_000
    answers = {"eve": statement, "mallory": "import numpy\n" + statement}
    ranked, prints = similar.compare(answers, "")
    with _within_cpu(2):
        pair = similar.mark(ranked[0], answers, prints)
    assert pair.marked == (
        [(statement[:-1], True), ("\n", False)],
        [("import numpy\n", False), (statement[:-1], True), ("\n", False)],
    )


def test_a_copy_in_cells_of_its_own_is_found_and_given_cells_are_not_compared(tmp_path):
    assignment = tiny_course.ASSIGNMENT
    _class(tmp_path, assignment, *_course(assignment))
    release = tiny_course.blank()
    copier = nbformat.read(tmp_path / "submitted" / "copier" / assignment / f"{NOTEBOOK}.ipynb", 4)
    # the release's blank answers left as they are; the copy in a new cell after the rest, under a test
    # cell's metadata (nbgrader strips it and runs the cell), and a cell whose grade_id is no name at all
    copied = [cell.source for cell in copier.cells if cells.is_answer(cell) and cell.cell_type == "code"]
    forged = {"grade_id": "brier_score_tests", "grade": True, "locked": True, "solution": False, "points": 1}
    release.cells += [
        nbformat.v4.new_code_cell("print(num_samples)", metadata={"nbgrader": {"grade_id": ["a", "list"]}}),
        nbformat.v4.new_code_cell("\n\n".join(copied), metadata={"nbgrader": forged}),
    ]
    shutil.rmtree(tmp_path / "submitted" / "copier")
    _write(tmp_path, "submitted/copier", assignment, release)
    answers, given, notes = similar.answer_code(tmp_path, assignment)
    ranked, _ = similar.compare(answers, given)
    assert {ranked[0].a, ranked[0].b} == {"copier", "honest0"} and ranked[0].similarity >= 0.9, ranked[:3]
    tests = [cell.source for cell in tiny_course.blank().cells if cells.is_test(cell)]
    assert tests and not any(test in code for test in tests for code in answers.values())
