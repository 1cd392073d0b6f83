"""The rubric of a manually graded cell: what earns each point, and the common wrong answers.

It lives in ``source/``, at the end of the cell's model answer, between ``### BEGIN RUBRIC`` and
``### END RUBRIC`` (``parse`` says what it holds). nbgrader replaces a markdown answer whole in the
release, so the rubric never reaches students; ``autograder.course.lint`` checks that it stays where
that holds.
"""

import re
from dataclasses import dataclass

from autograder.course import cells

CRITERION = re.compile(r"^-\s+(\d+(?:\.\d+)?)\s+points?\s*:\s*(.+)$")
WRONG_ANSWERS = re.compile(r"^\**common wrong answers:?\**:?\s*$", re.IGNORECASE)
BULLET = re.compile(r"^-\s+(.+)$")


@dataclass(frozen=True)
class Criterion:
    points: float
    text: str


@dataclass(frozen=True)
class Rubric:
    criteria: tuple  # Criterion, in order
    wrong_answers: tuple  # str, in order

    @property
    def points(self):
        return sum(criterion.points for criterion in self.criteria)


def split(source):
    """Return (model answer, rubric text or None) of a manual cell's source: the rubric block
    taken out (its marker lines dropped), the answer stripped."""
    inside = cells.rubric_lines(source)
    lines = source.split("\n")
    answer = "\n".join(line for number, line in enumerate(lines, start=1) if number not in inside)
    if not inside:
        return answer.strip(), None
    body = [
        lines[number - 1]
        for number in sorted(inside)
        if cells.BEGIN_RUBRIC not in lines[number - 1] and cells.END_RUBRIC not in lines[number - 1]
    ]
    return answer.strip(), "\n".join(body)


def parse(text):
    """Return (Rubric, problems) of a rubric block's text (without its markers)::

        - 1 point: the density written out and its negative logarithm taken ...
        - 1 point: which term penalises over-confidence and which under-confidence ...

        Common wrong answers:
        - $+\\log\\sigma$ written as $-\\log\\sigma$ ...

    A criterion is ``- N point(s): text``, a wrong answer a ``- text`` after the
    ``Common wrong answers:`` line; an indented line continues the item above."""
    criteria, wrong, problems, section = [], [], [], "criteria"
    for line in text.split("\n"):
        if not line.strip():
            continue
        if line[:1].isspace() and (wrong if section == "wrong" else criteria):
            # an indented line continues the item above
            if section == "wrong":
                wrong[-1] += " " + line.strip()
            else:
                criteria[-1] = Criterion(criteria[-1].points, criteria[-1].text + " " + line.strip())
            continue
        line = line.strip()
        if WRONG_ANSWERS.match(line):
            section = "wrong"
        elif section == "criteria" and CRITERION.match(line):
            points, text = CRITERION.match(line).groups()
            criteria.append(Criterion(float(points), text.strip()))
        elif section == "wrong" and BULLET.match(line):
            wrong.append(BULLET.match(line).group(1).strip())
        else:
            problems.append(
                f"rubric line not understood (expected '- N points: ...', "
                f"'Common wrong answers:' or '- ...'): {line[:60]!r}"
            )
    return Rubric(tuple(criteria), tuple(wrong)), problems


def problems(cell):
    """What is wrong with a manual cell's rubric: missing, unreadable, or not adding up to its points."""
    answer, text = split(cell["source"])
    if text is None:
        return [f"manual cell has no rubric ('### {cells.BEGIN_RUBRIC}' ... '### {cells.END_RUBRIC}')"]
    rubric, found = parse(text)
    points = float((cells.nbgrader_metadata(cell) or {}).get("points") or 0)
    if not rubric.criteria:
        found.append("rubric has no criterion ('- N points: what earns them')")
    elif abs(rubric.points - points) > 1e-9:
        found.append(f"rubric criteria add up to {rubric.points:g} points, the cell has {points:g}")
    if not rubric.wrong_answers:
        found.append("rubric lists no common wrong answer (after 'Common wrong answers:')")
    if not answer:
        found.append("manual cell has a rubric but no model answer")
    return found
