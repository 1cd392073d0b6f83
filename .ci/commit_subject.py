"""The commit-msg hook: a commit's subject (its first line) is at most 72 characters.

`git log --oneline`, GitHub's lists and `git shortlog` cut a longer subject, so the rest of it is never read.
Run by pre-commit as `python .ci/commit_subject.py <message file>` (.pre-commit-config.yaml, stage commit-msg).
"""

import sys
from pathlib import Path

LIMIT = 72


def subject_problem(message):
    """Return one line saying what is wrong with ``message``'s subject, or None if nothing is."""
    # git drops the comment lines (`#`) it put in the editor, so they are not the subject
    lines = [line for line in message.splitlines() if not line.startswith("#")]
    subject = next((line for line in lines if line.strip()), "")
    if not subject:
        return "the commit message has no subject line"
    if len(subject) > LIMIT:
        return f"the subject is {len(subject)} characters, over {LIMIT}: {subject[:LIMIT]}..."
    return None


def main(argv):
    problem = subject_problem(Path(argv[1]).read_text(encoding="utf-8"))
    if problem:
        print(f"commit-msg: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
