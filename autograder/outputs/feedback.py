"""Feedback for students: nbgrader's HTML, showing only the tests' own words.

nbgrader renders feedback from the autograded notebook, where every test cell is restored in full
from the gradebook (hidden tests, their markers, any reference code they hold), and every cell keeps
what it printed, which a submission may have filled with what it read of the tests. So
``HideHiddenTests``, a preprocessor in nbgrader's feedback pipeline (set in ``nbgrader_config.py``,
so ``nbgrader generate_feedback`` by hand is safe too), leaves visible tests, verdicts and vetted
messages only. The instructor's autograded notebooks keep everything.
"""

import functools
import re
from pathlib import Path

import jinja2
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_output
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.course import cells, deadlines
from autograder.course.cells import hidden_lines
from autograder.course.cli import course_options, db_url
from autograder.course.directory import REPO, make_api
from autograder.course.gradebook import check_graded, handed_in
from autograder.course.leaks import course_secrets
from autograder.worker.examiner.verdict import STUDENTS_LINE
from autograder.worker.guard import SKIPPED_MESSAGE
from bdl.requirements import PREFIX as REQUIREMENT
from bdl.requirements import cited, plain
from bdl.words import speaks

# A traceback's colours (items.py strips them from messages too).
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The frames of an IPython traceback: a notebook cell's, or a file's.
CELL_FRAME = re.compile(r"^Cell In\[(\d+)\], line (\d+)")
FILE_FRAME = re.compile(r"^(?:File|Input) (.+?):\d+, in ")
MAX_MESSAGE = 300
REDACTED = "[redacted]"


def _frames(error):
    """[("cell", execution count, line) or ("file", path, None)] of an error's traceback, in order."""
    frames = []
    for entry in error.get("traceback", []):
        text = ANSI.sub("", entry).strip()
        cell, file = CELL_FRAME.match(text), FILE_FRAME.match(text)
        if cell:
            frames.append(("cell", int(cell.group(1)), int(cell.group(2))))
        elif file:
            frames.append(("file", file.group(1), None))
    return frames


def _verdict(error, hidden, execution_count):
    """What a student may know of the hidden tests, given the cell's error output (or None)."""
    if error is None:
        return "passed"
    own = [line for kind, count, line in _frames(error) if kind == "cell" and count == execution_count]
    if not own:
        return "failed or did not run"
    if own[0] in hidden:
        return "failed"
    return "not run (a visible test above failed)" if own[0] < min(hidden) else "passed"


def _tests_own_assertion(error, execution_count):
    """Whether the test cell's own code raised this AssertionError (``_in_the_tests``)."""
    frames = _frames(error)
    return error.get("ename") == "AssertionError" and _in_the_tests(frames, execution_count)


def _unanswered_question(error, execution_count):
    """Whether this error is the examiner's account of a question the student's code raised on or did
    not answer (``bdl.wire.AnswerError``): raised in the tests (``_in_the_tests``), the last frame in
    ``bdl/wire.py``, where a question is put."""
    frames = _frames(error)
    return (
        len(frames) > 1
        and _in_the_tests(frames, execution_count)
        and frames[-1][0] == "file"
        and frames[-1][1].replace("\\", "/").endswith("bdl/wire.py")
    )


def _in_the_tests(frames, execution_count):
    """Whether an error's ``frames`` start in the test cell and stay there (a function it defines, say)
    or in one of ``bdl.words.SPEAKING_FILES``: never in another cell (the student's code) or elsewhere."""
    return (
        bool(frames)
        and frames[0][:2] == ("cell", execution_count)
        and all(
            (kind, where) == ("cell", execution_count) or (kind == "file" and speaks(where))
            for kind, where, _ in frames
        )
    )


def _identifier(text, limit=40):
    """``text`` reduced to identifier characters: the name of a type, never the student's prose."""
    return re.sub(r"[^A-Za-z0-9_.]", "", str(text))[:limit] or "an error"


def shown_message(error, execution_count, secrets):
    """The one line a student sees for a failed test cell: the message, when an assertion of the test cell
    itself or of ``bdl.checks`` or ``bdl.questions`` called from it raised it, or when it is the examiner's
    account of a question the student's code raised on (each of its lines cut to ``MAX_MESSAGE``), with
    any line that holds a secret (a hidden test, model answer or rubric line) redacted; for any other
    error only its type and a fixed sentence, since the message of an error the student's code raised in
    the kernel is the student's code's to choose; a test cell left out because it stopped the grading
    kernel says so."""
    name = _identifier(error.get("ename", ""))
    if error.get("evalue") == SKIPPED_MESSAGE:  # the grader's own sentence: a cell that stopped the kernel
        return f"{name}: {SKIPPED_MESSAGE}"
    answered = _unanswered_question(error, execution_count)
    if not answered and not _tests_own_assertion(error, execution_count):
        return f"{name}: your code raised {name} while the tests ran"
    from bdl.diagnoses import PREFIX as MISTAKE  # its recognisers load TensorFlow: only here, not for every command

    said = str(error.get("evalue", "")).split("\n")
    notes = next((n for n, line in enumerate(said) if line.startswith((REQUIREMENT, MISTAKE))), len(said))
    if answered:  # the examiner's sentence, its message and the student's line: each line cut alone
        said = [line if len(line) <= MAX_MESSAGE else line[:MAX_MESSAGE] + " ..." for line in said[:notes]]
        # The student's own line is dropped, not redacted, when it holds a secret line: it is theirs.
        said = [
            line for line in said if not (line.startswith(STUDENTS_LINE) and any(secret in line for secret in secrets))
        ]
        return f"{name}: " + "\n".join(REDACTED if any(secret in line for secret in secrets) else line for line in said)
    lines = [REDACTED if any(secret in line for secret in secrets) else line for line in said[:notes]]
    message = "\n".join(lines)
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE] + " ..."
    return f"AssertionError: {message}"


@functools.lru_cache(maxsize=8)
def _secret_lines(root):
    """Every secret line of the course at ``root`` and its markers (``autograder.course.leaks``)."""
    return tuple(course_secrets(root).lines())


class HideHiddenTests(NbGraderPreprocessor):
    """Leave the feedback only the tests' own words: visible tests, verdicts, vetted messages.

    * each test cell with hidden tests keeps the visible tests and one line that says whether the
      hidden part passed;
    * a failed test cell shows one error line (``shown_message``), and under it the sentence of the
      text its check cites (``bdl.requirements``) and the likely mistake that ``bdl.diagnoses`` noted, if
      any: only the tables' own sentences count, so nothing else of the error gets through;
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
        error = next((output for output in cell.get("outputs", []) if output.output_type == "error"), None)
        hidden = hidden_lines(cell.source)
        if hidden:
            visible = [line for number, line in enumerate(cell.source.split("\n"), start=1) if number not in hidden]
            verdict = _verdict(error, hidden, cell.get("execution_count"))
            cell.source = "\n".join(visible).rstrip() + f"\n# hidden tests: {verdict}"
        if error is None:
            cell.outputs = []
        else:
            line = shown_message(error, cell.get("execution_count"), self._secrets)
            name, _, message = line.partition(": ")
            lines = [line]
            from bdl.diagnoses import PREFIX, noted  # its recognisers load TensorFlow: only here, not for every command

            said = "\n".join(error.get("traceback", []))
            sentence = cited(said)
            if sentence:
                lines.append(REQUIREMENT + plain(sentence))
                message += "\n" + REQUIREMENT + plain(sentence)
            mistake = noted(said)
            if mistake:
                lines.append(PREFIX + mistake)
                message += "\n" + PREFIX + mistake
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
