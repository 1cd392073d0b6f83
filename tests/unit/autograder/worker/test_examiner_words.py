"""Only the examiner's words and numbers reach an error output, for every test cell of the course.

Each test cell of each assignment in ``source/`` runs in the examiner (``examine``), its questions
answered by the notebook's reference solution, run in this process as a kernel runs it
(``bdl.wire.respond``), and those answers are recorded. Then the cell runs again, once per place
where it puts a question (the first time it puts one there), the recorded answers replayed up to
that question and a lie told there (``LIES``): a random string, numbers of 77 and 300 digits, a
float of 300 digits, containers of them, arrays of enormous shape, an object whose class and
attributes are the string, a forged error, reference or reply, and an error whose message and line
are the string, numbers or a float in the shapes of the messages the examiner repeats (``TOLD``), each
telling the next. Whatever the cell then says, its
error's name, message and traceback and the line the feedback builds from them, holds neither
the string (nor its base64 or hex) nor a run of more than ``MAX_DIGITS`` digits.

At each place the cell also gets the reference's own answer 1.37 times as large (``NUDGED``), where
that answer is numbers: wrong, but near. Its message may say by how much and which way, never where
the expected value lies: no number of three or more significant digits in it is within 0.1 % of the
reference's answer there (a message that printed the expected value would be).

Every form of lie is told at each cell's first question; the later places get the object and,
where the reference answered with data, a lie of its kind (``LOOK_ALIKES``). A cell is followed
as deep as its reference run gets in ``DEEP_SECONDS`` from its first question (a few cells spend
seconds on one answer or on their expected values, so how deep depends a little on the machine),
and a lie for ``AFTER_LIE_SECONDS`` or ``AFTER_LIE_QUESTIONS`` questions the reference was not asked
(it is noticed within a question or two), so the whole course takes under a minute.
"""

import ast
import base64
import itertools
import json
import re
import secrets
import sys
import time
from dataclasses import asdict

import nbformat
import numpy as np
import pytest

from autograder.course import cells
from autograder.course.directory import REPO
from autograder.outputs.feedback import shown_lines
from autograder.worker.examiner import protocol
from autograder.worker.examiner.examine import RelayAsker, examine
from autograder.worker.examiner.protocol import Answer, Ask, Failed, parse
from autograder.worker.examiner.verdict import FILENAME

CANARY = "canary" + secrets.token_hex(8)
LONG = 10**76 + secrets.randbelow(9 * 10**76)  # 77 digits: 256 bits
BIG = 10**299 + secrets.randbelow(9 * 10**299)
# An array of no elements may have any shape whose other dimensions' product fits in a machine word.
HUGE_DIMENSION = 10**17 + secrets.randbelow(10**18)
MAX_DIGITS = 12
TOO_MANY_DIGITS = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")
DEEP_SECONDS = 1.0
AFTER_LIE_SECONDS = 0.5
AFTER_LIE_QUESTIONS = 12
NOTEBOOKS = sorted((REPO / "source").glob("*/*.ipynb"))
DIAGNOSIS = "bdl.diagnoses:likely_mistake"


class Liar:
    """A kernel object whose every attribute, call and item is the canary (its class is named after
    it, below): what a student's ``fgsm`` may return for one input."""

    def __getattr__(self, name):
        if name.startswith("_") or name == "numpy":  # Python's protocols; "numpy" would make it a tensor
            raise AttributeError(name)
        return CANARY

    def __call__(self, *args, **kwargs):
        return CANARY

    def __getitem__(self, key):
        return CANARY


Liar.__name__ = Liar.__qualname__ = CANARY
Liar.__module__ = "tensorflow.python.framework." + CANARY


def _value(value):
    """The kernel's reply when its answer is ``value`` (an object of its becomes a handle)."""
    from bdl import wire

    return lambda: Answer(json.dumps({"value": wire.encode(value, wire.handles.number)}))


def _reply(reply):
    return lambda: reply


FLOAT = float("9" * 300)
# (message, line) of an error the kernel tells of: in the forms of the catalogue's messages, each part a lie.
TOLD = [
    (f"Incompatible shapes: [{BIG}] vs. [{LONG},{HUGE_DIMENSION}] {CANARY}", CANARY),
    (f"name '{CANARY}' is not defined", f"x = {LONG}"),
    (f"'{CANARY}' object has no attribute '{CANARY}'", f"{CANARY} = 1"),
    (f"module '{CANARY}' has no attribute 'log'", f"return {FLOAT}"),
    (f"Input to reshape is a tensor with {BIG} values, but the requested shape has {LONG}", f"{BIG}"),
    (f"indices[0] = {LONG} is not in [0, {BIG})", " " * 3000 + CANARY),
    (f"Tensor conversion requested dtype float32 for Tensor with dtype int64: {FLOAT} {CANARY}", None),
    (
        f"cannot compute {CANARY} as input #{LONG}(zero-based) was expected to be a {CANARY} tensor but is a float tensor",
        "",
    ),
    (f"{CANARY}() takes 1 positional argument but {LONG} were given", [CANARY]),
    (f"unsupported operand type(s) for {CANARY[:3]}: '{CANARY}' and '{CANARY}'", {"line": CANARY}),
    (f"Value for attr '{CANARY}' of float is not in the list of allowed values: {CANARY}, {LONG}", 7),
    (f"operands could not be broadcast together with shapes ({BIG},) ({LONG},{LONG}) ", CANARY),
    (f"Shapes ({FLOAT},) and [{LONG}] are incompatible; Received a label value of {LONG} which is outside", CANARY),
    (f"{CANARY}() missing 2 required positional arguments: '{CANARY}' and 'x'", CANARY),
    (["not", "text", CANARY], {"message": CANARY}),
    ("Incompatible shapes: [2] vs. [3] " * 10**5 + CANARY, CANARY * 10**4),
]
_told = itertools.cycle(TOLD)


def _told_error():
    message, line = next(_told)
    return Answer(json.dumps({"error": ["builtins.ValueError"], "message": message, "line": line}))


# {form: what makes the reply (as the examiner's RelayAsker reads it)}. The value forms first.
LIES = {
    "object": _value(Liar()),
    "text": _value(CANARY),
    "number": _value(LONG),
    "huge number": _value(BIG),
    "float": _value(float("9" * 300)),
    "list": _value([CANARY, BIG, {"x": CANARY}, [LONG]]),
    "tuple": _value((LONG, CANARY)),
    "dict": _value({CANARY: BIG}),
    "array": _value(np.empty((0, HUGE_DIMENSION), "float32")),
    "deep array": _value(np.empty((0,) + (3,) * 31, "float32")),
    "numbers": _value(np.array([BIG % 2**62, -(BIG % 2**62)], "int64")),
    "objects": _value([Liar(), (Liar(), [CANARY])]),
    # The examiner's own reading of a reply.
    "reference": _reply(Answer(json.dumps({"value": {"t": "handle", "v": {"name": CANARY}, "kind": [CANARY]}}))),
    "error": _reply(
        Answer(json.dumps({"error": [f"tensorflow.python.framework.errors_impl.{CANARY}Error", f"builtins.{CANARY}"]}))
    ),
    # Four forms, so that each notebook's test cells (four at least) hear every one of ``TOLD``.
    **{f"told {number}": _told_error for number in range(4)},
    "failed": _reply(Failed(CANARY)),
    "garbled": _reply(Answer(CANARY)),
}
VALUE_LIES = [
    form for form in LIES if form not in ("object", "reference", "error", "failed", "garbled") and "told" not in form
]
# Not a lie: the reference's own numbers, 1.37 times as large (``Kernel._nudged``).
NUDGED = "nudged"


class Enough(BaseException):
    """Stops a reference run that has gone deep enough (not an Exception: no test cell catches it)."""


class FakeIPython:
    def __init__(self, namespace):
        self.user_ns = namespace


def _definitions(cell):
    """Whether a notebook cell only defines functions and classes and imports (the reference's helpers)."""
    tree = ast.parse(cell.source)
    return all(isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)) for node in tree.body)


class Kernel:
    """The notebook's reference, in this process: its imports, helpers and solution cells run, and
    questions answered as ``bdl.wire.respond`` answers them in a kernel. Also the examiner's
    channel to it: ``write`` takes a question, ``readline`` gives the reply."""

    def __init__(self, nb):
        from bdl import wire

        self.namespace = {"__name__": "__main__"}
        code = [cell for cell in nb.cells if cell.cell_type == "code" and not cells.is_test(cell)]
        for cell in code[:1] + [cell for cell in code[1:] if cells.is_answer(cell) or _definitions(cell)]:
            try:
                exec(compile(cell.source, "<reference>", "exec"), self.namespace)
            except NameError:  # a helper whose defaults come from the notebook's data: not the reference's
                assert not cells.is_answer(cell), cell.source
        self.start = dict(self.namespace)
        self.code = "\n".join(cell.source for cell in code)  # the student's code cells, as the relay sends them
        wire.handles = wire.Handles()

    def examine(self, source, lie=None, form=None):
        """The outputs of ``source`` examined against this kernel, None if it passed. Without
        ``lie``: the reference's run, recorded. With ``lie``: the recorded replies up to question
        ``lie`` (the cell's own random inputs may differ), the lie ``form`` there (and for a
        diagnosis after it: a lying kernel's is a lie too), then the recorded reply where the
        question is the one recorded, the reference's answer where it is not. A
        reference run raises Enough at its first question ``DEEP_SECONDS`` after its first, a lie's
        run at its first question ``AFTER_LIE_SECONDS`` after the lie, or at its
        ``AFTER_LIE_QUESTIONS``-th question that was not recorded."""
        self.namespace.clear()
        self.namespace.update(self.start)
        self.sites, self.lie, self.form, self.replayed, self.unrecorded = [], lie, form, 0, 0
        self.nudged_from = None
        if lie is None:
            self.recorded = []
        self.deadline = float("inf")
        return examine(source, RelayAsker(self, self, self.code), 1) or None

    def write(self, data):
        self.request = asdict(parse(data, Ask))

    def flush(self):
        pass

    def readline(self, limit=-1):
        lines, frame = [], sys._getframe()
        while frame is not None:  # where in the test cell the question was put: its lines, call by call
            if frame.f_code.co_filename == FILENAME:
                lines.append(frame.f_lineno)
            frame = frame.f_back
        index, question = len(self.sites), self.request["question"]
        site = (tuple(lines), question)
        self.sites.append(site)
        if time.perf_counter() > self.deadline:
            raise Enough
        asked = json.dumps(self.request, sort_keys=True)
        if self.lie is None:
            if index == 0:
                self.deadline = time.perf_counter() + DEEP_SECONDS
            reply = self._answer()
            self.recorded.append((site, asked, reply))
        elif index == self.lie:
            self.deadline = time.perf_counter() + AFTER_LIE_SECONDS
            # in place of the recorded reply
            reply = self.told = self._nudged() if self.form == NUDGED else LIES[self.form]()
            self.replayed += 1
        elif index > self.lie and question == DIAGNOSIS:
            reply = self._answer() if self.form == NUDGED else self.told
        elif (
            self.replayed < len(self.recorded)
            and self.recorded[self.replayed][0] == site
            and (index < self.lie or self.recorded[self.replayed][1] == asked)
        ):
            reply, self.replayed = self.recorded[self.replayed][2], self.replayed + 1
        else:  # after the lie: the cell asked on, or asked about the lie (the lie's object, say)
            self.unrecorded += 1
            if self.unrecorded > AFTER_LIE_QUESTIONS:
                raise Enough
            reply = self._answer()
        return protocol.line(reply)

    def _nudged(self):
        """The reference's reply with its numbers (a float, or an array of floats) 1.37 times as large:
        a wrong answer near the right one. ``self.nudged_from`` keeps the reference's numbers (None
        where the answer is of another kind, and the reply is the reference's)."""
        from bdl import wire

        reply, self.nudged_from = self._answer(), None
        value = numbers(reply)
        if value is None:
            return reply
        self.nudged_from = np.asarray(value, float)  # a tensor's numbers too
        return Answer(json.dumps({"value": wire.encode(value * 1.37)}))

    def _answer(self):
        from bdl import wire

        in_kernel = wire.ask_kernel.set(None)  # in the kernel, questions are plain calls
        try:
            return Answer(repr(wire.respond(json.dumps(self.request), self.namespace)))
        finally:
            wire.ask_kernel.reset(in_kernel)


def numbers(reply):
    """The float, or the array or tensor of floats, a reply answers with; None for an answer of another kind."""
    from bdl import loaded_tensorflow, wire

    try:
        value = wire.decode(json.loads(reply.text)["value"])
    except (AttributeError, KeyError, TypeError, ValueError, wire.WireError):
        return None
    tf = loaded_tensorflow()
    array = np.asarray(value.numpy()) if tf is not None and type(value) is type(tf.constant(0.0)) else value
    if type(value) is float or type(array) is np.ndarray and array.dtype.kind == "f" and 0 < array.size <= 10**5:
        return value
    return None


def _text(output, source):
    """A failed cell's outputs (its error output and the examiner's decision) and the lines the student reads
    of them, less the test cell's own lines."""
    from bdl.diagnoses import noted

    text = json.dumps(output) + "\n".join(shown_lines(output, ())) + str(noted("\n".join(output[0]["traceback"])))
    for line in source.split("\n"):  # the traceback quotes the test cell's own lines: its numbers are its own
        text = text.replace(json.dumps(line)[1:-1], "")
    return text


# A number of three significant digits or more: one that could pin a value down to 0.1 %.
PRECISE = re.compile(r"(?<![\w.])-?(?:\d+\.\d*[1-9]\d*|\d*[1-9]\d*\.\d+)(?:e[-+]?\d+)?")


def located(output, source, reference):
    """The numbers of three or more significant digits in ``output`` (a failed cell's outputs, or None) within
    0.1 % of one of ``reference``'s values: a message that says where the expected value lies."""
    if output is None:
        return []
    values = reference.ravel()[np.abs(reference.ravel()) > 1e-9]
    found = []
    for text in PRECISE.findall(_text(output, source)):
        digits = len(text.lstrip("-").split("e")[0].replace(".", "").strip("0"))
        if digits >= 3 and np.any(np.abs(float(text) - values) <= 1e-3 * np.abs(values)):
            found.append(text)
    return found


def leaks(output, source):
    """What of the lies ``output`` (a failed cell's outputs, or None) holds, with the feedback's line built from it."""
    if output is None:
        return []
    text = _text(output, source)
    forms = (CANARY, CANARY[len("canary") :], base64.b64encode(CANARY.encode()).decode()[:16], CANARY.encode().hex())
    return [form for form in forms if form in text] + TOO_MANY_DIGITS.findall(text)


# The lies that look most like what the reference answered (by its kind on the wire): they get past
# the tests' checks of a type, into the messages that show a value.
LOOK_ALIKES = {
    "py:str": ["text"],
    "py:int": ["number", "huge number"],
    "py:bool": ["number"],
    "py:float": ["float"],
    "list": ["list", "objects"],
    "tuple": ["tuple", "objects"],
    "dict": ["dict"],
    "array": ["array", "deep array", "numbers"],
    "scalar": ["float", "number"],
    "tensor": ["array", "deep array", "numbers"],
    "variable": ["array", "numbers"],
}


def look_alikes(reply, number):
    """Lies like the recorded ``reply``: for data, one of its kind (in turn); for a handle, the object
    alone; for anything else, one of the value lies in turn."""
    try:
        value = json.loads(reply.text)["value"]
        kind = value["t"] if value["t"] != "py" else f"py:{type(value['v']).__name__}"
    except (AttributeError, KeyError, TypeError, ValueError):
        kind = None
    forms = LOOK_ALIKES.get(kind, VALUE_LIES)
    return ["object"] + ([] if kind == "handle" else [forms[number % len(forms)]])


def lies_told(kernel, cell):
    """[(position, form, leaks)] of the lies told to ``cell``'s questions: every form at its first,
    the object and a look-alike at the first of each other place."""
    try:
        output = kernel.examine(cell.source)
        assert output is None, output  # the reference passes its tests (as deep as they were followed)
    except Enough:
        pass
    positions = sorted({site: index for index, (site, *_) in reversed(list(enumerate(kernel.recorded)))}.values())
    told = []
    for position in positions:  # an answer near the right one: the message says how far, not where
        if numbers(kernel.recorded[position][2]) is None:
            continue
        try:
            output = kernel.examine(cell.source, position, NUDGED)
        except Enough:
            output = None
        if kernel.nudged_from is not None:
            told.append((position, NUDGED, located(output, cell.source, kernel.nudged_from)))
    for number, position in enumerate(positions):
        forms = list(LIES) if position == 0 else look_alikes(kernel.recorded[position][2], number)
        for form in forms:
            try:
                output = kernel.examine(cell.source, position, form)
            except Enough:  # the lie went unnoticed for as long as a run may take
                output = None
            told.append((position, form, leaks(output, cell.source)))
    return told


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.parent.name for path in NOTEBOOKS])
def test_no_test_cell_says_what_the_kernel_chose(path, monkeypatch):
    import IPython

    nb = nbformat.read(path, 4)
    kernel = Kernel(nb)
    monkeypatch.setattr(IPython, "get_ipython", lambda: FakeIPython(kernel.namespace))  # bind's namespace
    started, problems, counts = time.perf_counter(), [], []
    for cell in [cell for cell in nb.cells if cells.is_test(cell)]:
        told = lies_told(kernel, cell)
        counts.append(len(told))
        problems += [(cells.grade_id(cell), position, form, found[:2]) for position, form, found in told if found]
    print(
        f"{path.parent.name}: {sum(counts)} lies told to {len(counts)} test cells "
        f"in {time.perf_counter() - started:.1f} s"
    )
    assert all(counts), "every test cell is told lies"
    assert not problems, "\n".join(map(str, problems))
