"""The examiner's words: the error output a failed test cell gets, with the ``Decision`` of what a
student reads beside it, and what it says of a question the kernel did not answer. Nothing the kernel says reaches them as text: an error of the student's
code is named by its type (Python's or TensorFlow's), its message only as ``catalogue`` writes it
anew and its line only if the student wrote it; an error of the tests' own code on an answer it
could not use says a fixed sentence, since its message may quote that answer."""

import builtins
import re
import traceback

from autograder.course.decision import Decision
from bdl.wire import AnswerError, Remote
from bdl.words import UNUSABLE, identifier, speaks

# The file name of a test cell's code in the examiner's frames.
FILENAME = "<test cell>"
# The error types of the student's code a message may name (any other is "Exception").
PYTHON_ERRORS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)
# TensorFlow's (``tf.errors``), by the name the kernel reports (a class's module and name are its
# author's to choose, so only these exact names count).
TF_MODULE = "tensorflow.python.framework.errors_impl"
TF_ERRORS = frozenset(
    {
        "AbortedError",
        "AlreadyExistsError",
        "CancelledError",
        "DataLossError",
        "DeadlineExceededError",
        "FailedPreconditionError",
        "InternalError",
        "InvalidArgumentError",
        "NotFoundError",
        "OpError",
        "OperatorNotAllowedInGraphError",
        "OutOfRangeError",
        "PermissionDeniedError",
        "ResourceExhaustedError",
        "UnauthenticatedError",
        "UnavailableError",
        "UnimplementedError",
        "UnknownError",
    }
)
# How the student's own line where an error was raised is shown.
STUDENTS_LINE = "in your line: "
# Why a question got no answer, as the relay reports it (``protocol.Failed``); any other reason is the last.
NO_ANSWER_REASONS = ("took longer than", "gave an answer too large", "gave no answer")
VERBS = {
    "bdl.questions:call": "called",
    "bdl.questions:attribute": "read an attribute of",
    "bdl.questions:item": "indexed",
}
# Where a question ran the answer, when that is not a plain call: an answer that runs when called
# directly and raises inside a tf.function (a .numpy(), a Python `if` on a tensor) is told which one broke.
WHERE = {"bdl.questions:compiled": " inside a compiled function (tf.function)"}


def error_name(kinds: list) -> str:
    """The name a message may give an error of the student's code, from its class names."""
    for kind in kinds:
        module, _, name = str(kind).rpartition(".")
        if (module == "builtins" and name in PYTHON_ERRORS) or (module == TF_MODULE and name in TF_ERRORS):
            return name
    return "Exception"


def about(args: tuple) -> str:
    """What a question was about, as the test names it: the kernel name it starts from (a name the
    examiner gave, from the test cell: ``decode`` takes no name from the kernel)."""
    target = args[0] if args else None
    ref = object.__getattribute__(target, "_ref") if type(target) is Remote else None
    name = ref.get("name") if type(ref) is dict else None
    if type(name) is str and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,39}", name):
        return name
    return "your code"


def unanswered(question: str, args: tuple, reason: str) -> AnswerError:
    """The error for a question the relay got no answer to, for ``reason``."""
    said = next((text for text in NO_ANSWER_REASONS if reason.startswith(text)), NO_ANSWER_REASONS[-1])
    return AnswerError(f"{about(args)} {said} when the tests {VERBS.get(question, 'used')} it{WHERE.get(question, '')}")


def unreadable(question: str, args: tuple) -> AnswerError:
    """The error for an answer that is not data, however it fails to decode."""
    return AnswerError(f"the kernel gave no readable answer when the tests {VERBS.get(question, 'used')} {about(args)}")


def raised(question: str, args: tuple, kinds: list, inputs: str, said: str = "", line: str = "") -> AnswerError:
    """The error for a question the student's code raised on: its type's name, and ``inputs``, what
    the call was given and which simpler calls run (or ""); then, on lines of their own, its message
    as ``catalogue.rendered`` wrote it (``said``) and the student's line it was raised in, if any."""
    name = error_name(kinds)
    verb, where = VERBS.get(question, "used"), WHERE.get(question, "")
    return AnswerError(f"{about(args)} raised {name} when the tests {verb} it{where}{inputs}", name, said, line)


def speaks_for_the_tests(error: BaseException) -> bool:
    """Whether ``error``'s message is the tests' own words: a question the kernel did not answer
    (``AnswerError``), or an assertion that the test cell or ``bdl``'s helpers raised."""
    if isinstance(error, AnswerError):
        return True
    frames = traceback.extract_tb(error.__traceback__)
    return (
        type(error) is AssertionError
        and bool(frames)
        and (frames[-1].filename == FILENAME or speaks(frames[-1].filename))
    )


def _notes(error: BaseException) -> tuple[list[str], list[str]]:
    """The notes on ``error`` in the tables' own words, as written (each), and as the feedback shows them:
    the first requirement a check cites (``bdl.requirements``), then the first diagnosis (``bdl.diagnoses``)."""
    notes = [note for note in getattr(error, "__notes__", ()) if type(note) is str]
    if not notes:
        return [], []
    from bdl import diagnoses, requirements

    written, cited, mistakes = [], [], []
    for note in notes:
        sentence, mistake = requirements.cited(note), diagnoses.noted(note)
        if sentence is not None and requirements.note(sentence) == note:
            written.append(note)
            cited.append(requirements.PREFIX + requirements.plain(sentence))
        elif mistake is not None and diagnoses.note(mistake) == note:
            written.append(note)
            mistakes.append(diagnoses.PREFIX + mistake)
    return written, cited[:1] + mistakes[:1]


def _decided(error: BaseException, own: bool, notes: list[str]) -> Decision:
    """What a student reads of ``error``, raised by a test cell: the test's message (unless ``own`` is
    False: then ``UNUSABLE``), or an ``AnswerError``'s sentences and the student's line; the ``notes``
    as shown; and the cell's line it was raised from."""
    name = identifier(type(error).__name__, "Exception")
    if isinstance(error, AnswerError):
        name, lines = error.name, [error.message] + ([f"the error says: {error.said}"] if error.said else [])
    else:
        lines = str(error).split("\n") if own else [UNUSABLE]
    in_cell = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == FILENAME]
    yours = f"{STUDENTS_LINE}{error.line}" if isinstance(error, AnswerError) and error.line else ""
    return Decision(name, lines, yours, notes, in_cell[0] if in_cell else None)


def outputs(error: BaseException, source: str, execution_count: int, own: bool = True) -> list[dict]:
    """The outputs of the test cell ``source`` that raised ``error``: an nbformat error output, with
    its frames in the cell and in the course's helpers as IPython shows them (for the instructor), and
    the examiner's ``Decision`` beside it (for the feedback)."""
    lines = source.split("\n")
    frames = []
    for frame in traceback.extract_tb(error.__traceback__):
        lineno = frame.lineno or 0
        if frame.filename == FILENAME:
            code = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
            frames.append(f"Cell In[{execution_count}], line {lineno}\n{code}")
        elif speaks(frame.filename):  # bdl's helpers, as IPython would show them
            frames.append(f"File {frame.filename}:{lineno}, in {frame.name}")
    notes, shown = _notes(error)
    decision = _decided(error, own, shown)
    name, message, details = decision.name, "\n".join(decision.lines), []
    if isinstance(error, AnswerError):  # its sentence, then the details on lines of their own
        message, details = decision.lines[0], decision.lines[1:] + ([decision.yours] if decision.yours else [])
    # The details go before the error's own line, as a traceback's code does: that line stays the last.
    error_output = {
        "output_type": "error",
        "ename": name,
        "evalue": "\n".join([message, *details, *notes]),
        "traceback": [f"{name}    Traceback (most recent call last)", *frames, *details, f"{name}: {message}", *notes],
    }
    return [error_output, decision.output()]
