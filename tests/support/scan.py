"""The leak scans: of folders of files students get (the student kit), every secret line,
marker and graded definition found (``autograder.course.leaks`` says what is secret); and of the
text a feedback page shows (``visible_text``) against an assignment's hidden tests."""

import html
import json
import re
from pathlib import Path

import nbformat

from autograder.course import cells
from autograder.course.cells import hidden_lines
from autograder.course.directory import REPO
from autograder.course.leaks import Secrets, course_secrets, defined_names, leaked_lines, secrets  # noqa: F401 (the tests' names)

SOURCE = REPO / "source" / "01_likelihoods" / "likelihoods.ipynb"
RELEASE = REPO / "release" / "01_likelihoods" / "likelihoods.ipynb"


def secret_lines(source_path=SOURCE, release_path=RELEASE):
    """Lines of the hidden-test blocks that a student sees neither in the release nor in their own
    answers when they are right (long enough to be telling), and the markers."""
    given = {line.strip() for cell in nbformat.read(release_path, 4).cells for line in cell.source.splitlines()}
    given |= {
        line.strip()
        for cell in nbformat.read(source_path, 4).cells
        if cells.is_answer(cell)
        for line in cell.source.splitlines()
    }
    lines = set()
    for cell in nbformat.read(source_path, 4).cells:
        source = cell.source.split("\n")
        lines |= {source[number - 1].strip() for number in hidden_lines(cell.source)}
    return {line for line in lines if len(line) >= 12 and line not in given} | {
        "BEGIN HIDDEN TESTS",
        "END HIDDEN TESTS",
    }


BASE64_RUN = re.compile(r"[A-Za-z0-9+/=]{16,}")


def decoded_forms(text):
    """``text`` and what it says once undone the ways an attack would hide it: rot13, reversed,
    one character per line joined, and every base64 run decoded."""
    import base64
    import codecs

    forms = [
        text,
        codecs.encode(text, "rot13"),
        text[::-1],
        "".join(line if len(line) == 1 else "\n" for line in text.split("\n")),
    ]
    for run in BASE64_RUN.findall(text):
        try:
            forms.append(base64.b64decode(run + "=" * (-len(run) % 4)).decode("utf-8", errors="ignore"))
        except ValueError:
            pass
    return forms


def visible_text(page):
    """The text a reader sees in an HTML page (tags removed, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _notebook_parts(nb, answers_are_the_students):
    """[(where, text, python, may define)] of a notebook's cells: all a reader sees (source and
    outputs), the Python among it, and whether the cell may define graded names (a release's
    own answer cells, the student's stubs, when ``answers_are_the_students``)."""
    parts = []
    for index, cell in enumerate(nb.get("cells", [])):
        source = cells.cell_text(cell) or ""
        outputs = []
        for output in cell.get("outputs", []):
            for value in [output.get("text", "")] + list(output.get("data", {}).values()) + output.get("traceback", []):
                outputs.append("".join(value) if isinstance(value, list) else str(value))
        python = source if cell.get("cell_type") == "code" else None
        may_define = answers_are_the_students and cells.is_answer(cell)
        parts.append((f"cell {index}", "\n".join([source] + outputs), python, may_define))
    return parts


def scan_folder(folder, known):
    """Every leak of ``known`` (a ``Secrets``) in the files under ``folder``: ["path (where): kind:
    line"], empty when clean.

    Release notebooks (``release/*/*.ipynb``) may define graded names in their own answer
    cells (the student's stubs), and an earlier assignment's graded names anywhere (its
    answer, given); everything else may not define them at all, and no file may hold a
    secret line or marker."""
    folder, found = Path(folder), []
    lines_only = Secrets(known.hidden, known.solution, frozenset(), rubric=known.rubric)
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        assignment = rel.split("/")[1] if rel.startswith("release/") else None
        names = known.names - {name for name, first in known.origin if assignment is not None and first < assignment}
        names_only = Secrets(frozenset(), frozenset(), names)
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            found.append(f"{rel}: binary: not a text file, cannot be scanned")
            continue
        if path.suffix == ".ipynb":
            parts = _notebook_parts(json.loads(text), answers_are_the_students=rel.startswith("release/"))
        else:
            parts = [("", text, text if path.suffix == ".py" else None, False)]
        for where, part, python, may_define in parts:
            label = f"{rel} ({where})" if where else rel
            kinds = leaked_lines(part, lines_only, whole_lines=True)
            if not may_define:
                # Python is read as Python (def anywhere, names bound at top level); the rest
                # (markdown, READMEs, outputs) as text, for `def name(` lines
                if python is not None:
                    kinds += [("definition", name) for name in sorted(defined_names(python) & names)]
                rest = part if python is None else part.replace(python, "", 1)
                kinds += [item for item in leaked_lines(rest, names_only) if item[0] == "definition"]
            found += [f"{label}: {kind}: {line}" for kind, line in kinds]
    return found
