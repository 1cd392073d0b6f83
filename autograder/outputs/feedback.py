"""Feedback for students: nbgrader's HTML, showing only the tests' own words.

nbgrader renders feedback from the autograded notebook, where every test cell is restored in full
from the gradebook (hidden tests, their markers, any reference code they hold), and every cell keeps
what it printed, which a submission may have filled with what it read of the tests. So
``HideHiddenTests``, a preprocessor in nbgrader's feedback pipeline (set in ``nbgrader_config.py``,
so ``nbgrader generate_feedback`` by hand is safe too), leaves visible tests, verdicts and the
messages the examiner decided, which it reads as data (``autograder.course.decision``), never from a
traceback's text. The instructor's autograded notebooks keep everything.
"""

import functools
from pathlib import Path

import jinja2
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_output
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.course import cells, deadlines
from autograder.course.cells import hidden_lines
from autograder.course.cli import course_options, db_url
from autograder.course.decision import Decision, decision
from autograder.course.directory import REPO, make_api
from autograder.course.gradebook import check_graded, handed_in
from autograder.course.leaks import course_secrets
from bdl.words import UNUSABLE, identifier

MAX_MESSAGE = 300
REDACTED = "[redacted]"


def _verdict(error, found, hidden):
    """What a student may know of the hidden tests, from the cell's error output (or None) and the
    examiner's decision on it (``found``, or None): whether the line it failed at is hidden."""
    if error is None:
        return "passed"
    if found is None or found.line is None:
        return "failed or did not run"
    if found.line in hidden:
        return "failed"
    return "not run (a visible test above failed)" if found.line < min(hidden) else "passed"


def _shown(found: Decision, secrets) -> str:
    """The examiner's decision as the one message a student reads: its name and lines, each line
    that holds a secret (a hidden test, model answer or rubric line) redacted, the student's own line
    dropped instead (it is theirs), each cut to ``MAX_MESSAGE``."""

    def secret(line):
        return any(secret in line for secret in secrets)

    said = [REDACTED if secret(line) else line for line in found.lines]
    said += [found.yours] if found.yours and not secret(found.yours) else []
    return f"{found.name}: " + "\n".join(
        line if len(line) <= MAX_MESSAGE else line[:MAX_MESSAGE] + " ..." for line in said
    )


def shown_lines(outputs, secrets) -> list[str]:
    """The lines a student reads of a failed test cell whose ``outputs`` hold an error: the message
    (``_shown``) and the notes under it, as the examiner decided them; for an error it decided nothing
    of, only the error's type and ``UNUSABLE``."""
    found = decision(outputs)
    if found is None:
        error = next(output for output in outputs if output.get("output_type") == "error")
        return [f"{identifier(error.get('ename', ''), 'Exception')}: {UNUSABLE}"]
    return [_shown(found, secrets), *found.notes]


@functools.lru_cache(maxsize=8)
def _secret_lines(root):
    """Every secret line of the course at ``root`` and its markers (``autograder.course.leaks``)."""
    return tuple(course_secrets(root).lines())


class HideHiddenTests(NbGraderPreprocessor):
    """Leave the feedback only the tests' own words: visible tests, verdicts, vetted messages.

    * each test cell with hidden tests keeps the visible tests and one line that says whether the
      hidden part passed;
    * a failed test cell shows what the examiner decided a student reads (``shown_lines``): one error
      line, and under it the sentence of the text its check cites (``bdl.requirements``) and the likely
      mistake that ``bdl.diagnoses`` noted, if any;
    * no other output of any cell: neither tracebacks (they quote the code) nor what a cell printed or
      displayed.
    """

    def preprocess(self, nb, resources):
        root = self.config.CourseDirectory.get("root")
        self._secrets = _secret_lines(str(Path(root if isinstance(root, str) else REPO).resolve()))
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        if not cells.is_test(cell):
            cell.outputs = []
            return cell, resources
        outputs = cell.get("outputs", [])
        error = next((output for output in outputs if output.output_type == "error"), None)
        hidden = hidden_lines(cell.source)
        if hidden:
            visible = [line for number, line in enumerate(cell.source.split("\n"), start=1) if number not in hidden]
            verdict = _verdict(error, decision(outputs), hidden)
            cell.source = "\n".join(visible).rstrip() + f"\n# hidden tests: {verdict}"
        if error is None:
            cell.outputs = []
        else:
            lines = shown_lines(outputs, self._secrets)
            name, _, message = "\n".join(lines).partition(": ")
            cell.outputs = [new_output("error", ename=name, evalue=message, traceback=lines)]
        return cell, resources


class _TemplateCode(jinja2.BytecodeCache):
    """Jinja's compiled templates, kept in this process's memory (by template and source)."""

    def __init__(self):
        self.code = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket):
        self.code[bucket.key] = bucket.bytecode_to_string()


TEMPLATE_CODE = _TemplateCode()


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTML exporter with its templates compiled once per process: nbgrader makes an exporter
    per student, whose own Jinja environment would compile them again (0.1 s of CPU a page)."""

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = TEMPLATE_CODE
        return environment


def write_feedback(root, assignment, db_url, student=None):
    """Generate the HTML feedback of every graded student, or of ``student`` alone (after a regrade);
    return (written, problems)."""
    api = make_api(
        root, {"CourseDirectory": {"db_url": db_url}, "GenerateFeedback": {"exporter_class": FeedbackExporter}}
    )
    written, problems = [], []
    deadlines.apply(db_url, root, assignment)  # a hand grade since the last run may change what lateness costs
    with Gradebook(db_url) as gradebook:
        students = sorted(s.student_id for s in gradebook.assignment_submissions(assignment) if handed_in(s))
    if student is not None:
        if student not in students:
            raise ValueError(
                f"{student} has no graded submission of {assignment}; graded: {', '.join(students) or 'none'}"
            )
        students = [student]
    for student in students:
        if not (Path(root) / "autograded" / student / assignment).exists():
            problems.append(f"{student}: no autograded notebook (grade it first)")
            continue
        result = api.generate_feedback(assignment, student, force=True)
        if result["success"]:
            written += sorted(str(p) for p in (Path(root) / "feedback" / student / assignment).glob("*.html"))
        else:
            problems.append(f"{student}: {(result['error'] or result['log']).strip().splitlines()[-1]}")
    return written, problems


def _feedback(args):
    url = db_url(args)
    check_graded(url, args.assignment)
    written, problems = write_feedback(args.root, args.assignment, url, args.student)
    print("\n".join(written + problems) or "no graded submissions")
    print(f"{len(written)} feedback files written")
    return 1 if problems else 0


def add_parser(commands):
    feedback_cmd = commands.add_parser(
        "feedback", help="write nbgrader's HTML feedback for every graded student, or one"
    )
    feedback_cmd.add_argument("assignment")
    feedback_cmd.add_argument("--student", help="only this student's (default: every graded student's)")
    course_options(feedback_cmd)
    feedback_cmd.set_defaults(run=_feedback)
