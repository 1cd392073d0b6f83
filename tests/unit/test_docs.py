"""The docs keep up with the code: every command and `make` target is in docs/reference.md, and
every relative link between the docs points at a file and heading that exist. They describe the
course as it is: no page names an issue or a stop by its number, or a path in a machine's temp
folder (history goes to docs/changelog.md, which follows the same rule).

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
    return [REPO / "README.md", REPO / "ARCHITECTURE.md", *sorted((REPO / "docs").rglob("*.md"))]


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
