"""``similar``: pairs of students whose code looks alike, in a CSV and an HTML page for a person to read.
It decides nothing and takes no points: a short answer has few honest spellings.

The code cells each student wrote (``written_cells``) are fingerprinted as MOSS does (winnowing:
Schleimer, Wilkerson and Aiken 2003) but statement by statement (``fingerprints``), the release's own
fingerprints dropped; a pair's similarity is the larger share of one's fingerprints found in the
other's. copydetect, the maintained library of the method, was measured and not taken: its k-grams run
across statements, so a copy with its statements reordered loses matches honest answers keep (03's
planted copy 79%, below its alternatives' 95%; here 98% and 93%). The notebooks are the student's bytes
(``read_handin``), read within ``MAX_STUDENT_CHARACTERS``; the page escapes every character of them,
holds no script and loads nothing.
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
from autograder.grading.review import MAX_CELL_CHARACTERS

K = 5  # tokens in a k-gram: "V = V . mean"
WINDOW = 4  # k-grams of which winnowing keeps the least: any match of K + WINDOW - 1 tokens is found
MIN_TOKENS = 3  # a shorter statement ("return V") says nothing of who wrote it
FLOOR = 20  # the fewest fingerprints a share is of: a near-empty answer is not "all found"
THRESHOLD = 0.7
# Of a student's code, at most this is compared (a cell: the review's ``MAX_CELL_CHARACTERS``): the answers
# of an assignment of the course are under 5,000 characters, all the code of one of its notebooks under
# 70,000. Reading code costs at most about 5 microseconds and 35 bytes a character, so a student costs at
# most about a second and 10 MB beyond their notebooks' JSON, however large.
MAX_STUDENT_CHARACTERS = 200_000
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


def written_cells(notebook, given_ids):
    """(position from 1, source) of each code cell of ``notebook`` the student wrote: the answers and any
    cell of their own, not the release's given and test cells. Those are the first cell of each id of
    ``given_ids``, as ``repair_notebook`` matches them: nbgrader puts their sources back before it grades,
    and strips a forged grade_id from any other cell, so a cell's own metadata says nothing."""
    notebook_cells = notebook.get("cells")
    seen = set()
    for position, cell in enumerate(notebook_cells if isinstance(notebook_cells, list) else [], 1):
        cell_id = cell.get("id") if isinstance(cell, dict) else None
        if isinstance(cell_id, str) and cell_id in given_ids and cell_id not in seen:
            seen.add(cell_id)
        elif isinstance(cell, dict) and cell.get("cell_type") == "code":
            yield position, cells.cell_text(cell) or ""


def _student_code(student, folder, names, given_ids, notes):
    """The code ``student`` wrote in the notebooks ``names`` of ``folder``, cells split by ``CELL_BREAK``,
    cut to ``MAX_CELL_CHARACTERS`` a cell and ``MAX_STUDENT_CHARACTERS`` in all; a note in ``notes`` for
    each notebook not read and each cut."""
    parts, left = [], MAX_STUDENT_CHARACTERS
    for name in names:
        path = folder / f"{name}.ipynb"
        if not path.is_file() or path.is_symlink():
            continue
        try:
            if path.stat().st_size > MAX_NOTEBOOK_BYTES:
                raise Unreadable(f"larger than {MAX_NOTEBOOK_BYTES // 2**20} MB")
            notebook = read_handin(path.read_bytes())
        except Unreadable as error:
            notes.append(f"{student}'s {name}.ipynb not compared: {error}")
            continue
        for position, text in written_cells(notebook, given_ids):
            where = f"{student}'s {name}.ipynb cell {position}"
            if text and not left:
                notes.append(f"{where} and all after not compared: past {MAX_STUDENT_CHARACTERS:,} characters of code")
                return "".join(parts)
            kept = text[: min(MAX_CELL_CHARACTERS, left)]
            if len(kept) < len(text):
                notes.append(f"{where}: only its first {len(kept):,} of {len(text):,} characters compared")
            left -= len(kept)
            parts.append(kept + CELL_BREAK)
    return "".join(parts)


def answer_code(root, assignment):
    """({student: the code they wrote}, the release's code, [notes on notebooks not read and code cut])."""
    release = root / "release" / assignment
    names = notebook_names(root, assignment)
    released = [read_handin((release / f"{name}.ipynb").read_bytes()) for name in names]
    given_ids = {c.get("id") for nb in released for c in nb.cells if (cells.nbgrader_metadata(c) or {}).get("locked")}
    given = "".join(
        (cells.cell_text(c) or "") + CELL_BREAK for nb in released for c in nb.cells if c.get("cell_type") == "code"
    )
    answers, notes = {}, []
    for folder in sorted((root / "submitted").glob(f"*/{assignment}")):
        code = _student_code(folder.parent.name, folder, names, given_ids, notes)
        if code:
            answers[folder.parent.name] = code
    return answers, given, notes


def statements(code):
    """[(tokens, start offset, end offset)]: ``code``'s logical lines as normalised tokens, each cell
    (``CELL_BREAK``) on its own. Every name is "V" but keywords, builtins and attributes, every string
    "S"; a cell Python's tokenizer gives up on is read line by line, a word or a character a token."""
    offset = 0
    for cell in code.split(CELL_BREAK):
        yield from _cell_statements(cell, offset)
        offset += len(cell) + len(CELL_BREAK)


def _name(text, previous):
    return "V" if text not in KEPT_NAMES and previous != "." else text


def _cell_statements(code, offset):
    # Only each statement's place is kept, not each token's: a token costs a pointer and its text.
    starts = list(itertools.accumulate((len(line) for line in code.splitlines(keepends=True)), initial=offset))
    found, line, start, end, previous = [], [], 0, 0, ""
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.NEWLINE and line:
                found.append((line, start, end))
                line = []
            if token.type in SKIPPED or token.type == tokenize.ENDMARKER:
                continue
            text = token.string
            if token.type == tokenize.NAME:
                text = _name(text, previous)
            elif token.type in STRINGS:
                text = "S"
            if not line:
                start = starts[token.start[0] - 1] + token.start[1]
            line.append(text)
            end = starts[token.end[0] - 1] + token.end[1]
            previous = token.string
    except (tokenize.TokenError, SyntaxError):
        return list(_words(code, starts))
    return found + ([(line, start, end)] if line else [])


def _words(code, starts):
    """``code``'s lines as statements of words: a name, a number or any other character a token."""
    for start, text in zip(starts, code.splitlines(keepends=True)):
        line, previous, first, last = [], "", None, None
        for word in WORD.finditer(text):
            w = word.group()
            line.append(_name(w, previous) if w[0].isalpha() or w[0] == "_" else w)
            first = word.start() if first is None else first
            last, previous = word.end(), w
        if line:
            yield line, start + first, start + last


def _hash(tokens):
    return int.from_bytes(hashlib.blake2b(" ".join(tokens).encode(), digest_size=8).digest(), "big")


def fingerprints(code):
    """[(hash, its statement's start offset, end offset)] of ``code``: each statement's (``statements``: every name one
    symbol but keywords, builtins and attributes, every string another, comments and layout dropped)
    k-grams of ``K`` tokens hashed and winnowed (the least hash of each ``WINDOW``), a statement shorter
    than ``K`` hashed whole. No k-gram spans two statements: renaming and reordering change nothing."""
    found = []
    for line, start, end in statements(code):
        if len(line) < MIN_TOKENS:
            continue
        hashes = [_hash(line[i : i + K]) for i in range(max(1, len(line) - K + 1))]
        chosen = {min(hashes[i : i + WINDOW]) for i in range(max(1, len(hashes) - WINDOW + 1))}
        # each with its statement's place: the page marks whole statements, not winnowing's scattered k-grams
        found.extend((hash_, start, end) for hash_ in sorted(chosen))
    return found


def _marked(code, spans):
    """``code`` as [(text, found)], found where a span of ``spans`` covers it: one pass over the spans,
    each statement once, however many of its fingerprints were found."""
    merged = []
    for start, end in sorted(set(spans)):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    marked, done = [], 0
    for start, end in merged:
        marked += [(code[done:start], False), (code[start:end], True)]
        done = end
    return [(text, found) for text, found in [*marked, (code[done:], False)] if text]


def _common(one, other):
    """How many fingerprints two Counters share, repeats counted, in the time of the smaller one."""
    small, large = sorted((one, other), key=len)
    return sum(min(count, large[hash_]) for hash_, count in small.items())


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
        common = _common(counts[a], counts[b])
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


def write_html(pairs, assignment, threshold, path, notes=()):
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
        "<p>Highlighted: statements found in both students' code (names aside), the release's own code left out. This is for a person "
        "to read; it decides nothing.</p>"
        + "".join(f"<p>Note: {html.escape(note)}</p>" for note in notes)
        + (sections or "<p>No pair.</p>")
        + "</body></html>",
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
    write_html(pairs, assignment, threshold, files["page"], notes)
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
        help="pairs of students whose code cells look alike (token winnowing), in a CSV and an HTML page to read; "
        "never a penalty",
    )
    parser.add_argument("assignment")
    parser.add_argument(
        "--threshold",
        type=_fraction,
        default=THRESHOLD,
        help="the least similarity of a pair listed: the share of one's code found in the other's "
        "(default %(default)g)",
    )
    parser.add_argument("--out", help="the folder of the CSV and the page (default: ROOT/reports)")
    root_option(parser)
    parser.set_defaults(run=_similar)
