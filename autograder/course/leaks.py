"""What a student must never see, and a scan for it: hidden tests, model answers, rubrics, graded definitions.

Used where the course hands something to students: the feedback (``autograder.outputs.feedback``
redacts secret lines from the messages it shows) and the tests' leak scans of the student kit and of
feedback pages (``tests/support/scan.py``). A *secret line* is a line of a hidden test, a model answer
or a rubric in a ``source/`` notebook that is neither given to the student (``secrets``) nor too short
to tell anything (``telling``): a scan that flagged those would only learn to be ignored. The markers
themselves are secret too: a release must never hold one.
"""

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.course import cells

MIN_LENGTH = 12
MARKERS = cells.SOURCE_MARKERS  # what only a source notebook holds, mark schemes' included


def solution_lines(cell):
    """The 1-based line numbers of a source cell's model answer, markers included.

    nbgrader replaces what lies between the solution markers, or the whole
    cell of an answer that has no markers."""
    source = cell["source"]
    if not cells.has_markers(source, cells.BEGIN_SOLUTION, cells.END_SOLUTION):
        return set(range(1, len(source.split("\n")) + 1)) if cells.is_answer(cell) else set()
    return cells.block_lines(source, cells.BEGIN_SOLUTION, cells.END_SOLUTION)


def telling(line):
    """Whether a stripped line is long and wordy enough to give something away: at least ``MIN_LENGTH``
    characters, with a word of three letters or digits. Shorter lines (``)``, ``return x``, ``else:``,
    ``$$``) occur in any Python or LaTeX and say nothing about the answer, so finding one in ``bdl``
    would be noise, not a leak."""
    return len(line) >= MIN_LENGTH and re.search(r"[A-Za-z0-9_]{3}", line) is not None


def _code(source):
    """Python source of a code cell, with IPython's magics and shell lines blanked."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))


def defined_names(source, top_level_assignments=True):
    """Names a piece of Python defines: ``def``/``class`` anywhere, and names bound at top level
    (``name = lambda ...``, ``name = ...``) when ``top_level_assignments``. Empty if it does not parse."""
    try:
        tree = ast.parse(_code(source))
    except SyntaxError:
        return set()
    names = {
        node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    if top_level_assignments:
        for node in tree.body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else ([node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
            )
            names |= {name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}
    return names


def graded_names(source):
    """What a code answer defines at its top level (functions, classes, ``name = lambda``): the
    graded names. Not their methods or inner helpers (``call``, ``build``), nor names it merely
    assigns along the way, nor private ``_names``."""
    try:
        body = ast.parse(_code(source)).body
    except SyntaxError:
        return set()
    names = {node.name for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    names |= {
        target.id
        for node in body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return {name for name in names if not name.startswith("_")}


@dataclass(frozen=True)
class Secrets:
    hidden: frozenset  # telling lines of hidden-test blocks
    solution: frozenset  # telling lines of model answers (code and markdown)
    names: frozenset  # what the code answers define: the graded functions and classes
    # {graded name: the first assignment that grades it}: a later assignment's release may
    # give an earlier one's answer as code of its own ("the answer to assignment NN")
    origin: tuple = ()
    rubric: frozenset = frozenset()  # telling lines of the rubrics of manual answers

    def lines(self):
        """{secret line: "hidden", "solution" or "rubric"}, markers included."""
        kinds = {line: "solution" for line in self.solution}
        kinds.update({line: "rubric" for line in self.rubric})
        kinds.update({line: "hidden" for line in self.hidden})
        kinds.update({marker: "marker" for marker in MARKERS})
        return kinds


def secrets(source_paths, release_paths):
    """The Secrets of the source notebooks, for a student who holds the release notebooks
    ``release_paths``: a source's text outside its blocks is its release's, so it is given only
    with that release (a later assignment's question text is not in the student's hands yet).

    A line is given when it appears in a release notebook the student holds, or outside the solution,
    hidden-test and rubric blocks of a source notebook whose release the student holds. Given code (a
    function's ``def`` line and docstring, imports, a visible test) is in the student's hands anyway:
    it is no secret, and only telling lines (``telling``) are."""
    sources = [nbformat.read(path, 4) for path in source_paths]
    given = {
        line.strip()
        for path in release_paths
        for cell in nbformat.read(path, 4).cells
        for line in cell.source.split("\n")
    }
    held = {Path(path).parent.name for path in release_paths}
    hidden, solution, rubric, names, origin = set(), set(), set(), set(), {}
    for path, nb in sorted(zip(source_paths, sources)):
        for cell in nb.cells:
            lines = cell.source.split("\n")
            hide, answer, grading = (
                cells.hidden_lines(cell.source),
                solution_lines(cell),
                cells.rubric_lines(cell.source),
            )
            if Path(path).parent.name in held:
                given |= {
                    line.strip() for number, line in enumerate(lines, start=1) if number not in hide | answer | grading
                }
            hidden |= {lines[number - 1].strip() for number in hide}
            solution |= {lines[number - 1].strip() for number in answer - grading}
            rubric |= {lines[number - 1].strip() for number in grading}
            if cell.cell_type == "code" and cells.is_answer(cell):
                for name in graded_names(cell.source):
                    origin.setdefault(name, Path(path).parent.name)
                names |= graded_names(cell.source)

    def keep(lines):
        return frozenset(
            line
            for line in lines
            if telling(line) and line not in given and not any(marker in line for marker in MARKERS)
        )

    return Secrets(keep(hidden), keep(solution), frozenset(names), tuple(sorted(origin.items())), keep(rubric))


def course_secrets(root):
    """The Secrets of every notebook in ``root``/source/."""
    root = Path(root)
    return secrets(sorted((root / "source").glob("*/*.ipynb")), sorted((root / "release").glob("*/*.ipynb")))


def secrets_from(root, assignment):
    """The Secrets of ``assignment`` and every later one, for a student who holds the releases up to
    ``assignment`` and no later ones (a student kit through it).

    Given to that student is every line of the releases 01 to ``assignment``, no more: the earlier
    assignments' questions and what their releases hand out (01's ``fgsm`` in 02's release), and
    this one's question text. A later release is not given: what it shows (an earlier answer it
    hands out, its own question text) is still secret where it equals a line of a hidden test,
    model answer or rubric of ``assignment`` or later. Earlier assignments are past their deadline:
    their answers are no longer secret, but they are not given either (the student holds only
    their own), so a line they share with a later answer stays that answer's secret."""
    root = Path(root)
    sources = sorted(path for path in (root / "source").glob("*/*.ipynb") if path.parent.name >= assignment)
    releases = sorted(path for path in (root / "release").glob("*/*.ipynb") if path.parent.name <= assignment)
    return secrets(sources, releases)


_DEF = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")


def leaked_lines(text, secrets, own=(), whole_lines=False):
    """[(kind, secret)] for each secret line and marker in ``text`` and each ``def``/``class`` line of
    a graded name, leaving out what lies within one of the lines in ``own`` (the reader's own work).

    A secret is found anywhere in ``text`` (HTML, whose lines are not the notebook's), or, with
    ``whole_lines``, only as a whole stripped line (files that keep their lines: there a given
    ``_model = tf.keras.Sequential([`` must not count as the secret ``model = tf.keras.Sequential([``);
    markers are found anywhere either way."""
    own = [line for line in own if line.strip()]
    mine = lambda found: any(found in line for line in own)  # noqa: E731
    stripped = {line.strip() for line in text.split("\n")} if whole_lines else None
    found = [
        (kind, line)
        for line, kind in secrets.lines().items()
        if (line in stripped if whole_lines and kind != "marker" else line in text) and not mine(line)
    ]
    for line in text.split("\n"):
        match = _DEF.match(line)
        if match and match.group(1) in secrets.names and not mine(line.strip()):
            found.append(("definition", line.strip()))
    return sorted(set(found))
