"""``similar``: pairs of students whose answers look alike, in a CSV and an HTML page for a person to
read. It decides nothing and takes no points: a short answer has few honest spellings.

Each student's answer cells are fingerprinted as MOSS does (winnowing: Schleimer, Wilkerson and Aiken
2003) but statement by statement (``fingerprints``), the release's own fingerprints dropped; a pair's
similarity is the larger share of one's fingerprints found in the other's. copydetect, the maintained
library of the method, was measured and not taken: its k-grams run across statements, so a copy with
its statements reordered loses matches honest answers keep (03's planted copy 79%, below its
alternatives' 95%; here 98% and 93%). The notebooks are the student's bytes (``read_handin``); the page
escapes every character of them, holds no script and loads nothing.
"""

import argparse
import builtins
import hashlib
import html
import io
import itertools
import keyword
import re
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from autograder.course import cells, spreadsheet
from autograder.course.cli import root_option
from autograder.course.directory import check_assignment, notebook_names
from autograder.course.table import format_table
from autograder.grading.collect import MAX_NOTEBOOK_BYTES
from autograder.grading.handin import Unreadable, read_handin

K = 5  # tokens in a k-gram: "V = V . mean"
WINDOW = 4  # k-grams of which winnowing keeps the least: any match of K + WINDOW - 1 tokens is found
MIN_TOKENS = 3  # a shorter statement ("return V") says nothing of who wrote it
FLOOR = 20  # the fewest fingerprints a share is of: a near-empty answer is not "all found"
THRESHOLD = 0.7
COLUMNS = ("student_a", "student_b", "similarity", "share_of_a", "share_of_b")
KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins))
SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
# Python 3.12 tokenizes an f-string in parts
STRINGS = {tokenize.STRING} | {
    getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, name)
}
WORD = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")
# Between cells; each cell is tokenized on its own, so one unfinished cell spoils no other's statements.
CELL_BREAK = "\n\n# ----\n\n"


@dataclass
class Pair:
    a: str
    b: str
    similarity: float
    shares: tuple  # (share of a's fingerprints found in b's, of b's in a's)
    marked: tuple = ((), ())  # (a's code, b's code), each as [(text, found in the other's)]


def _code_cells(notebook, answer_ids=None):
    code = [cell for cell in notebook.cells if cell.get("cell_type") == "code"]
    chosen = [cell for cell in code if cells.grade_id(cell) in answer_ids] if answer_ids else []
    return chosen or code


def _text(notebook_cells):
    return "".join((cells.cell_text(cell) or "") + CELL_BREAK for cell in notebook_cells)


def answer_code(root, assignment):
    """({student: their answer code}, the release's code, [notes on notebooks not read])."""
    release = root / "release" / assignment
    names = notebook_names(root, assignment)
    released = {name: read_handin((release / f"{name}.ipynb").read_bytes()) for name in names}
    answer_ids = {cells.grade_id(c) for nb in released.values() for c in nb.cells if cells.is_answer(c)} - {None}
    given = "".join(_text(_code_cells(nb)) for nb in released.values())
    answers, notes = {}, []
    for folder in sorted((root / "submitted").glob(f"*/{assignment}")):
        parts = []
        for name in names:
            path = folder / f"{name}.ipynb"
            if not path.is_file() or path.is_symlink():
                continue
            try:
                if path.stat().st_size > MAX_NOTEBOOK_BYTES:
                    raise Unreadable(f"larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
                parts.append(_text(_code_cells(read_handin(path.read_bytes()), answer_ids)))
            except Unreadable as error:
                notes.append(f"{folder.parent.name}'s {name}.ipynb not compared: {error}")
        if parts:
            answers[folder.parent.name] = "".join(parts)
    return answers, given, notes


def statements(code):
    """[[(token, start offset, end offset)]]: ``code``'s logical lines as normalised tokens, each cell
    (``CELL_BREAK``) on its own. Every name is "V" but keywords, builtins and attributes, every string
    "S"; a cell Python's tokenizer gives up on is read line by line, a word or a character a token."""
    found, offset = [], 0
    for cell in code.split(CELL_BREAK):
        found += _cell_statements(cell, offset)
        offset += len(cell) + len(CELL_BREAK)
    return found


def _name(text, previous):
    return "V" if text not in KEPT_NAMES and previous != "." else text


def _cell_statements(code, offset):
    starts = list(itertools.accumulate((len(line) for line in code.splitlines(keepends=True)), initial=offset))
    found, line, previous = [], [], ""
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.NEWLINE and line:
                found.append(line)
                line = []
            if token.type in SKIPPED or token.type == tokenize.ENDMARKER:
                continue
            text = token.string
            if token.type == tokenize.NAME:
                text = _name(text, previous)
            elif token.type in STRINGS:
                text = "S"
            line.append((text, starts[token.start[0] - 1] + token.start[1], starts[token.end[0] - 1] + token.end[1]))
            previous = token.string
    except (tokenize.TokenError, SyntaxError):
        found = []
        for start, text in zip(starts, code.splitlines(keepends=True)):
            words = [(word.group(), start + word.start(), start + word.end()) for word in WORD.finditer(text)]
            line = [
                (_name(w, words[i - 1][0] if i else "") if w[0].isalpha() or w[0] == "_" else w, a, b)
                for i, (w, a, b) in enumerate(words)
            ]
            if line:
                found.append(line)
        return found
    return found + ([line] if line else [])


def _hash(tokens):
    return int.from_bytes(hashlib.blake2b(" ".join(tokens).encode(), digest_size=8).digest(), "big")


def fingerprints(code):
    """[(hash, its statement's start offset, end offset)] of ``code``: each statement's (``statements``: every name one
    symbol but keywords, builtins and attributes, every string another, comments and layout dropped)
    k-grams of ``K`` tokens hashed and winnowed (the least hash of each ``WINDOW``), a statement shorter
    than ``K`` hashed whole. No k-gram spans two statements: renaming and reordering change nothing."""
    found = []
    for line in statements(code):
        if len(line) < MIN_TOKENS:
            continue
        hashes = [_hash([text for text, _, _ in line[i : i + K]]) for i in range(max(1, len(line) - K + 1))]
        chosen = {min(hashes[i : i + WINDOW]) for i in range(max(1, len(hashes) - WINDOW + 1))}
        # each with its statement's place: the page marks whole statements, not winnowing's scattered k-grams
        found.extend((hash_, line[0][1], line[-1][2]) for hash_ in sorted(chosen))
    return found


def _marked(code, spans):
    """``code`` as [(text, found)], found where a span of ``spans`` covers it."""
    found = [False] * len(code)
    for start, end in spans:
        found[start:end] = [True] * (end - start)
    return [("".join(c for c, _ in group), flag) for flag, group in _runs(zip(code, found))]


def _runs(pairs):
    return ((flag, list(group)) for flag, group in itertools.groupby(pairs, key=lambda pair: pair[1]))


def compare(answers, given):
    """Every pair of students, most alike first (``marked`` left empty: ``mark`` fills it)."""
    boilerplate = {hash_ for hash_, _, _ in fingerprints(given)}
    prints = {
        student: [gram for gram in fingerprints(code) if gram[0] not in boilerplate]
        for student, code in answers.items()
    }
    counts = {student: Counter(hash_ for hash_, _, _ in grams) for student, grams in prints.items()}
    pairs = []
    for a, b in itertools.combinations(sorted(prints), 2):
        common = sum((counts[a] & counts[b]).values())
        shares = (common / max(len(prints[a]), FLOOR), common / max(len(prints[b]), FLOOR))
        pairs.append(Pair(a, b, max(shares), shares))
    return sorted(pairs, key=lambda pair: (-pair.similarity, pair.a, pair.b)), prints


def mark(pair, answers, prints):
    """``pair`` with each student's code marked where its fingerprints are found in the other's."""
    a, b = ({hash_ for hash_, _, _ in prints[student]} for student in (pair.a, pair.b))
    pair.marked = (
        _marked(answers[pair.a], [(start, end) for hash_, start, end in prints[pair.a] if hash_ in b]),
        _marked(answers[pair.b], [(start, end) for hash_, start, end in prints[pair.b] if hash_ in a]),
    )
    return pair


def _percent(share):
    return f"{100 * share:.0f}%"


def write_csv(pairs, path):
    with open(path, "w", newline="") as handle:
        writer = spreadsheet.Writer(handle)
        writer.writerow(COLUMNS)
        for pair in pairs:
            writer.writerow(
                [pair.a, pair.b, f"{pair.similarity:.3f}", f"{pair.shares[0]:.3f}", f"{pair.shares[1]:.3f}"]
            )


def _code_html(marked):
    return "".join(f"<mark>{html.escape(text)}</mark>" if copied else html.escape(text) for text, copied in marked)


def write_html(pairs, assignment, threshold, path):
    sections = "".join(
        f"<h2>{html.escape(pair.a)} and {html.escape(pair.b)}: {_percent(pair.similarity)}</h2>"
        f"<table><tr><th>{html.escape(pair.a)} ({_percent(pair.shares[0])} found in the other's)</th>"
        f"<th>{html.escape(pair.b)} ({_percent(pair.shares[1])} found in the other's)</th></tr>"
        f"<tr><td><pre>{_code_html(pair.marked[0])}</pre></td><td><pre>{_code_html(pair.marked[1])}</pre></td></tr></table>"
        for pair in pairs
    )
    Path(path).write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        # Nothing on the page may run or load: the code in it is the students'.
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{html.escape(assignment)}: alike answers</title><style>"
        "td{vertical-align:top;width:50%}pre{white-space:pre-wrap;font-size:12px}mark{background:#fd8}</style>"
        f"</head><body><h1>{html.escape(assignment)}: pairs of answers at least {_percent(threshold)} alike</h1>"
        "<p>Highlighted: statements found in both answers (names aside), the release's own code left out. This is for a person "
        "to read; it decides nothing.</p>" + (sections or "<p>No pair.</p>") + "</body></html>",
        encoding="utf-8",
    )


def similar(root, assignment, threshold=THRESHOLD, out=None):
    """Write ``<assignment>_similar.csv`` and ``.html`` into ``out`` (default ``root/reports``): every
    pair at least ``threshold`` alike. Return (the pairs written, {what: path}, notes)."""
    root = Path(root)
    check_assignment(assignment, root)
    answers, given, notes = answer_code(root, assignment)
    if len(answers) < 2:
        raise ValueError(
            f"{len(answers)} collected submissions of {assignment} in {root / 'submitted'}: run grade first"
        )
    ranked, prints = compare(answers, given)
    pairs = [mark(pair, answers, prints) for pair in ranked if pair.similarity >= threshold]
    out = Path(out) if out else root / "reports"
    out.mkdir(parents=True, exist_ok=True)
    files = {"CSV": out / f"{assignment}_similar.csv", "page": out / f"{assignment}_similar.html"}
    write_csv(pairs, files["CSV"])
    write_html(pairs, assignment, threshold, files["page"])
    return pairs, files, notes


def _similar(args):
    pairs, files, notes = similar(args.root, args.assignment, args.threshold, args.out)
    rows = [(p.a, p.b, _percent(p.similarity), _percent(p.shares[0]), _percent(p.shares[1])) for p in pairs]
    print(
        format_table(COLUMNS, rows, right=(2, 3, 4)) if rows else f"no pair at least {_percent(args.threshold)} alike"
    )
    for note in notes:
        print(f"note: {note}")
    print("\n".join(f"  {what:<5} {path}" for what, path in files.items()))
    return 0


def _fraction(text):
    try:
        value = float(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a fraction from 0 to 1, not {text!r}")
    return value


def add_parser(commands):
    parser = commands.add_parser(
        "similar",
        help="pairs of students whose answer cells look alike (token winnowing), in a CSV and an HTML page to read; "
        "never a penalty",
    )
    parser.add_argument("assignment")
    parser.add_argument(
        "--threshold",
        type=_fraction,
        default=THRESHOLD,
        help="the least similarity of a pair listed: the share of one's answer code found in the other's "
        "(default %(default)g)",
    )
    parser.add_argument("--out", help="the folder of the CSV and the page (default: ROOT/reports)")
    root_option(parser)
    parser.set_defaults(run=_similar)
