"""The docs keep up with the code: every command and `make` target is in docs/reference.md, and
every relative link between the docs points at a file and heading that exist. They describe the
course as it is: no page names an issue or a stop by its number, or a path in a machine's temp
folder (history goes to docs/changelog.md, which follows the same rule). And a newcomer reads them
in an evening: a budget of words for all pages and for each, and of words for each sentence.

Pure and fast: it reads files and runs `python -m autograder --help` once; no kernel.
"""

import re
import subprocess
import sys
from pathlib import Path


def _repo():
    """The repository's root, found upwards, so the test may move between tiers' folders."""
    here = Path(__file__).resolve().parent
    while not (here / "pyproject.toml").exists():
        assert here != here.parent, "no pyproject.toml above the tests"
        here = here.parent
    return here


REPO = _repo()
REFERENCE = REPO / "docs" / "reference.md"
FENCE = re.compile(r"^\s*(```|~~~)")
# [text](target) and ![alt](target); the target ends at a space (a title may follow) or ")"
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
CODE_SPAN = re.compile(r"(`+).*?\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...
# "issue 33", "Issues 34 and 35", "stop 38", "issue #7": a work item's number, which no reader of the docs has
ISSUE_OR_STOP = re.compile(r"\b(?:issues?|stop)\s+#?\d+", re.IGNORECASE)
# an absolute path in a temp folder ("/tmp/ci G/bdl", "/var/tmp/x"): one machine's run folder. Not the
# folder by name (`/tmp`, "a /tmp of its own") and not a path that merely ends in tmp/ (/srv/bdl-hub/tmp/).
TEMP_PATH = re.compile(r"(?<![\w.~/-])/(?:var/)?tmp/")

# The budget. Words are counted as `wc -w` counts them: runs of characters between white space.
TOTAL_WORDS = 25_000  # every page of doc_files() together: an evening's reading
PAGE_WORDS = 3_500  # one page; a page that needs more is named below, with why
PAGE_WORDS_EXCEPTIONS: dict[str, tuple[int, str]] = {}  # {page: (its limit, why)}
SENTENCE_WORDS = 40  # one sentence of prose: outside fenced code, tables and headings
# {(page, the sentence's first words): why it may run longer}. Keep this list short.
LONG_SENTENCES: dict[tuple[str, str], str] = {}
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
# a link as its text and its target, for counting: [text](target) or ![alt](target)
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# a sentence ends at . ! or ? (a closing quote, bracket or emphasis may follow) before white space;
# "e.g." and "i.e." end none
SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)[.!?][\"')\]*_]*(?=\s)")
KEPT = re.compile(r"\x00(\d+)\x00")


def _prose_lines(text):
    """Yield the lines outside fenced code blocks."""
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield line


def _subcommands():
    """The subcommands `python -m autograder --help` lists: argparse's {a,b,...} choices."""
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "--help"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    choices = re.search(r"\{([a-z][a-z0-9,-]*)\}", result.stdout)
    assert choices, f"no {{choices}} in the help:\n{result.stdout}"
    return choices.group(1).split(",")


def _phony_targets():
    """The targets of every .PHONY line of the Makefile, continuation lines included."""
    text = (REPO / "Makefile").read_text().replace("\\\n", " ")
    return [
        target for line in text.splitlines() if line.startswith(".PHONY:") for target in line.split(":", 1)[1].split()
    ]


def _documented(text, command):
    """Whether ``command`` (`autograder grade`, `make test`) names a heading or a table row's
    first cell: in backticks, followed by its arguments or the closing backtick."""
    pattern = re.compile(re.escape(f"`{command}") + r"[` ]")
    for line in _prose_lines(text):
        if line.startswith("#") and pattern.search(line):
            return True
        if line.startswith("|") and pattern.search(line.split("|")[1]):
            return True
    return False


def slug(heading):
    """GitHub's anchor for a heading: lowercase, punctuation dropped except hyphens (and
    underscores, which GitHub keeps as word characters), spaces to hyphens."""
    heading = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays
    heading = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return heading.replace(" ", "-")


def anchors(path):
    """The anchors of a Markdown file's headings, with GitHub's -1, -2 for repeats."""
    seen, found = {}, set()
    for line in _prose_lines(path.read_text()):
        heading = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path):
    """Yield every link target of a Markdown file, outside code blocks and code spans."""
    for line in _prose_lines(path.read_text()):
        prose = CODE_SPAN.sub("", line)
        yield from INLINE_LINK.findall(prose)
        definition = REFERENCE_LINK.match(prose)
        if definition:
            yield definition.group(1)


def broken_links(paths):
    """Return one line per relative link that points at a missing file or heading."""
    problems = []
    for path in paths:
        for target in links(path):
            if SCHEME.match(target) or target.startswith("//"):
                continue  # another site: not checked offline
            file_part, _, fragment = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: ({target})"
            if not linked.exists():
                problems.append(f"{where}: no file {file_part}")
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
                problems.append(f"{where}: no heading #{fragment} in {linked.name}")
    return problems


def history_marks(paths):
    """Return one line per issue or stop number and per absolute temp-folder path, code blocks included."""
    problems = []
    for path in paths:
        where = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for pattern, what in ((ISSUE_OR_STOP, "an issue or stop number"), (TEMP_PATH, "a temp-folder path")):
                for found in pattern.finditer(line):
                    problems.append(f"{where}:{number}: {what} ({found.group(0)!r}): {line.strip()}")
    return problems


def doc_files():
    return [
        REPO / "README.md",
        REPO / "ARCHITECTURE.md",
        REPO / "data" / "README.md",
        *sorted((REPO / "docs").rglob("*.md")),
    ]


def words(path):
    """A page's words, as `wc -w` counts them."""
    return len(path.read_text().split())


def _paragraphs(text):
    """Yield a page's paragraphs of prose, each on one line: outside fenced code, tables and
    headings; a list item starts a paragraph of its own."""
    lines = []
    for line in _prose_lines(text):
        stripped = line.strip()
        item = LIST_ITEM.match(line)
        if not stripped or stripped.startswith(("#", "|", "<!--")) or item:
            if lines:
                yield " ".join(lines)
            lines = [line[item.end() :].strip()] if item else []
            continue
        lines.append(stripped)
    if lines:
        yield " ".join(lines)


def sentences(paragraph):
    """Yield (sentence, its words) of a paragraph. A code span counts as one word, and a link as its
    text's words and one for its target; a full stop inside either ends no sentence."""
    kept = []

    def keep(match):
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"

    protected = LINK.sub(keep, CODE_SPAN.sub(keep, paragraph))

    def counted(match):
        item = kept[int(match.group(1))]
        link = LINK.fullmatch(item)
        return f"{link.group(1)} target" if link else "code"

    def restored(match):
        return kept[int(match.group(1))]

    start = 0
    ends = [end.end() for end in SENTENCE_END.finditer(protected)] + [len(protected)]
    for end in ends:
        sentence = protected[start:end].strip()
        start = end
        if not sentence:
            continue
        count, text = sentence, sentence
        while "\x00" in count:
            count = KEPT.sub(counted, count)
        while "\x00" in text:
            text = KEPT.sub(restored, text)
        yield text, len(count.split())


def long_sentences(paths, limit=SENTENCE_WORDS):
    """Return (page, sentence, words) for every sentence of prose longer than ``limit`` words."""
    found = []
    for path in paths:
        where = (path.relative_to(REPO) if path.is_relative_to(REPO) else path).as_posix()
        for paragraph in _paragraphs(path.read_text()):
            for sentence, count in sentences(paragraph):
                if count > limit:
                    found.append((where, sentence, count))
    return found


def over_budget(paths, total=TOTAL_WORDS, page=PAGE_WORDS, exceptions=PAGE_WORDS_EXCEPTIONS):
    """Return one line per page over its limit, and one for the pages together over ``total``."""
    problems, counted = [], 0
    for path in paths:
        where = (path.relative_to(REPO) if path.is_relative_to(REPO) else path).as_posix()
        count = words(path)
        counted += count
        limit = exceptions.get(where, (page, ""))[0]
        if count > limit:
            problems.append(f"{where}: {count} words, over its {limit}")
    if counted > total:
        problems.append(f"all pages: {counted} words, over {total}")
    return problems


def test_every_subcommand_is_in_the_reference():
    text = REFERENCE.read_text()
    commands = _subcommands()
    assert "grade" in commands and "hub" in commands, commands  # the parse found the list
    missing = [command for command in commands if not _documented(text, f"autograder {command}")]
    assert not missing, (
        f"docs/reference.md has no heading or table row for: "
        f"{', '.join(f'autograder {command}' for command in missing)}"
    )


def test_every_make_target_is_in_the_reference():
    text = REFERENCE.read_text()
    targets = _phony_targets()
    assert "course" in targets and "test" in targets, targets
    missing = [target for target in targets if not _documented(text, f"make {target}")]
    assert not missing, (
        f"docs/reference.md has no heading or table row for: {', '.join(f'make {target}' for target in missing)}"
    )


def test_every_doc_link_resolves():
    assert (REPO / "docs").is_dir()
    problems = broken_links(doc_files())
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_the_link_checker_finds_a_planted_broken_link(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A `make` target, twice\n\n## A `make` target, twice\n")
    (tmp_path / "image.png").write_bytes(b"")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n"
        "[fine](other.md#other-page) [repeat](other.md#a-make-target-twice-1) "
        "![fine](image.png) [here](#page) [web](https://example.org/missing)\n"
        "[gone](missing.md) and [no heading](other.md#nowhere) and ![gone](images/x.png)\n"
        "`[in code](missing-in-code.md)`\n\n"
        "```\n[in a block](missing-in-block.md)\n```\n\n"
        "[ref]: also-missing.md\n"
    )
    problems = broken_links([page])
    assert len(problems) == 4, problems
    for target in ("missing.md", "other.md#nowhere", "images/x.png", "also-missing.md"):
        assert any(f"({target})" in problem for problem in problems), (target, problems)


def test_no_page_names_an_issue_a_stop_or_a_temp_folder():
    paths = doc_files()
    assert REPO / "docs" / "changelog.md" in paths
    problems = history_marks(paths)
    assert not problems, (
        "the docs describe the course as it is: history goes to docs/changelog.md, with "
        "dates and commits but no issue or stop numbers, and a run folder is described, not "
        'named ("a fresh clone in a temporary folder with a space in its path"):\n' + "\n".join(problems)
    )


def test_the_history_check_finds_planted_marks(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n"
        "Issue 33 asks for 30 minutes; issues 34 and 35 and issue #7 too.\n"
        "CI's run (stop 38), then `CI=true bash .ci/run` in `/tmp/after run/bdl`.\n"
        "```\ncd /var/tmp/course\n```\n"
        "Fine: a `/tmp` of its own, /srv/bdl-hub/tmp/<user>, stop the hub, issue a token, "
        "it stops 2 s later, tmp/ and ./tmp/ beside the repository.\n"
    )
    problems = history_marks([page])
    found = [problem.split(" (", 1)[1].split(")", 1)[0] for problem in problems]
    assert found == ["'Issue 33'", "'issues 34'", "'issue #7'", "'stop 38'", "'/tmp/'", "'/var/tmp/'"], problems


def test_slugs_follow_github():
    assert slug("The instructor's course folder") == "the-instructors-course-folder"
    assert slug("`make test`, before and after") == "make-test-before-and-after"
    assert slug("Setting up: `make course`") == "setting-up-make-course"
    assert slug("`autograder bench-hub`") == "autograder-bench-hub"


def test_the_budget_check_counts_as_wc_does_and_finds_a_page_over(tmp_path):
    small, large = tmp_path / "small.md", tmp_path / "large.md"
    small.write_text("# Small\n\nThree `words here`, [a link](other.md#x).\n\n```\ncode counts too\n```\n")
    large.write_text("word " * 13)
    result = subprocess.run(["wc", "-w", str(small)], capture_output=True, text=True)
    assert words(small) == int(result.stdout.split()[0]) == 12  # code blocks, links and headings count
    assert over_budget([small, large], total=30, page=20) == []
    assert over_budget([small, large], total=30, page=12) == [f"{large}: 13 words, over its 12"]
    assert over_budget([small, large], total=24, page=20) == ["all pages: 25 words, over 24"]
    # a page named as an exception has its own limit
    assert over_budget([small, large], total=30, page=12, exceptions={str(large): (13, "why")}) == []


def test_the_sentence_check_finds_a_planted_long_sentence(tmp_path):
    page = tmp_path / "page.md"
    long = "This sentence " + "runs on and " * 13 + "ends here."  # 2 + 39 + 2 words
    target = "x" * 80 + ".md#a-long-target"
    linked = f"A sentence of [a link with words]({target}), `code . with a stop`, and {'more ' * 30}words."  # 41
    page.write_text(
        "# A heading " + "that is long " * 20 + "\n\n"
        "Short one. " + long + " Another short one (`a code span of many words` counts as one).\n\n"
        "- a list item " + "with many words " * 10 + "\n"
        "- an item that goes on, as in e.g. a list, " + "and on and on " * 10 + "to its end.\n"
        "  Its second line is the same item.\n\n"
        "| a table row " + "with many words " * 20 + "|\n\n"
        "```\na code block " + "with many words " * 20 + "\n```\n\n"
        f"{linked}\n"
    )
    found = long_sentences([page])
    assert [(sentence[:20], count) for _, sentence, count in found] == [
        ("This sentence runs o", 43),
        ("an item that goes on", 53),
        ("A sentence of [a lin", 41),
    ], found
    assert found[0][1] == long
    assert [count for _, _, count in long_sentences([page], limit=30)] == [43, 33, 53, 41]


def test_the_docs_keep_to_their_budget_of_words():
    paths = doc_files()
    assert REPO / "data" / "README.md" in paths and len(paths) > 10
    stale = [page for page in PAGE_WORDS_EXCEPTIONS if not (REPO / page).exists()]
    assert not stale, f"page exceptions for pages that are gone: {stale}"
    assert all(reason for _, reason in PAGE_WORDS_EXCEPTIONS.values()), "each page exception needs its reason"
    problems = over_budget(paths)
    assert not problems, (
        "the docs are read in an evening: say each fact once and link to it, and cut what a reader "
        "does not need (history goes to docs/changelog.md, short):\n" + "\n".join(problems)
    )


def _excused(page, sentence, exceptions=LONG_SENTENCES):
    return any(page == excused and sentence.startswith(start) for excused, start in exceptions)


def test_no_sentence_of_the_docs_runs_past_its_limit():
    assert len(LONG_SENTENCES) <= 5, "keep the list of long sentences short"
    found = long_sentences(doc_files())
    problems = [
        f"{page} ({count} words): {sentence}" for page, sentence, count in found if not _excused(page, sentence)
    ]
    assert not problems, f"split these sentences (at most {SENTENCE_WORDS} words each):\n" + "\n".join(problems)
    unused = [key for key in LONG_SENTENCES if not any(_excused(page, sentence, [key]) for page, sentence, _ in found)]
    assert not unused, f"these long sentences are gone: remove them from LONG_SENTENCES: {unused}"
