"""The examiner: the process that runs the test cells and decides every verdict, never the student's kernel.

``python -m autograder.worker.examiner`` (started by ``autograder.worker.relay``, under bubblewrap
when the kernel is: no network, nothing writable, nothing of the course but its packages) reads
test cells on its stdin and runs each in a namespace of its own where every name the cell uses that
the examiner does not define (the student's functions and classes, the notebook's data) is a
``bdl.wire.Remote``. Using one puts a question to the kernel (``bdl.questions``), through the
worker, at the state the notebook has reached at that cell; the kernel answers with data. So the
test's code, its hidden inputs' generators, its expected values, tolerances and reference code stay
in this process, and the verdict is this process's: an error output written here, or none.

The error output is the examiner's own: its traceback names the test cell's lines and ``bdl``'s
frames as IPython would (so the feedback tells visible from hidden), its message is the test's
assertion (raised by the test cell or by ``bdl``'s helpers, which show an answer only through
``bdl.words``' bounded formatters), and an error of the student's code is named by its type
only, and only when that type is Python's or TensorFlow's. Any other error (one the test's own
code raised on an answer it could not use, whose message may quote that answer) keeps its type's
name and says a fixed sentence. Nothing the kernel says reaches it as text.

It speaks JSON lines with the worker over its stdin and stdout: ``{"source", "count"}`` in, then
``{"ask"}`` out and ``{"answer"}`` or ``{"failed"}`` in as often as the test asks, then
``{"verdict"}`` out. It imports no more than the tests need (TensorFlow only for a test cell that
uses it, never nbgrader): each grading slot starts one and keeps it between submissions.
"""

import ast
import builtins
import json
import os
import re
import sys
import traceback

from autograder.worker.framing import receive, send
from bdl.wire import AnswerError
from bdl.words import speaks

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
# What an error of the test's own code says: its message may quote the answer it could not use.
UNUSABLE = "the tests could not go on with what your code gave them"


# The notebooks' names for TensorFlow's libraries: the examiner's own in every test cell, imported
# only for a cell that reads one (a NumPy-only notebook's tests never load TensorFlow).
TENSORFLOW_NAMES = ("tf", "tfp", "tfd", "tfpl")


def read_names(tree):
    """The names a test cell's ``tree`` reads."""
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def trusted_namespace(read):
    """What a test cell that reads the names ``read`` finds defined before it runs: the libraries,
    under the notebooks' names; TensorFlow's only when the cell reads one of them."""
    import bdl  # noqa: F401 (Keras 2 for TensorFlow Probability; before TensorFlow)
    import numpy as np

    namespace = {"__name__": "__examiner__", "__builtins__": builtins, "np": np}
    if read & set(TENSORFLOW_NAMES):
        import tensorflow as tf
        import tensorflow_probability as tfp

        namespace.update(tf=tf, tfp=tfp, tfd=tfp.distributions, tfpl=tfp.layers)
    return namespace


def kernel_names(read, namespace):
    """The names of ``read`` that neither the namespace nor Python defines: the kernel's."""
    return sorted(name for name in read if name not in namespace and not hasattr(builtins, name))


def _error_name(kinds):
    """The name a message may give an error of the student's code, from its class names."""
    for kind in kinds:
        module, _, name = str(kind).rpartition(".")
        if (module == "builtins" and name in PYTHON_ERRORS) or (module == TF_MODULE and name in TF_ERRORS):
            return name
    return "Exception"


def speaks_for_the_tests(error):
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


def _notes(error):
    """The notes on ``error`` that are a diagnosis, in the tables' own words (``bdl.diagnoses``)."""
    notes = [note for note in getattr(error, "__notes__", ()) if type(note) is str]
    if not notes:
        return []
    from bdl.diagnoses import noted, note as diagnosis

    return [note for note in notes if noted(note) is not None and diagnosis(noted(note)) == note]


def error_output(error, source, execution_count, own=True):
    """An nbformat error output for ``error``, raised by the test cell ``source``: its frames in
    the cell and in the course's helpers, as IPython shows them, and the test's message (unless
    ``own`` is False: then the type's name and ``UNUSABLE``)."""
    lines = source.split("\n")
    frames = []
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == FILENAME:
            code = lines[frame.lineno - 1] if 0 < frame.lineno <= len(lines) else ""
            frames.append(f"Cell In[{execution_count}], line {frame.lineno}\n{code}")
        elif speaks(frame.filename):  # bdl's helpers, as IPython would show them
            frames.append(f"File {frame.filename}:{frame.lineno}, in {frame.name}")
    name = re.sub(r"[^A-Za-z0-9_]", "", type(error).__name__)[:40] or "Exception"
    if isinstance(error, AnswerError):
        name, message = error.args[1], error.args[0]
    else:
        message = str(error) if own else UNUSABLE
    notes = _notes(error)
    return {
        "output_type": "error",
        "ename": name,
        "evalue": "\n".join([message, *notes]),
        "traceback": [f"{name}    Traceback (most recent call last)", *frames, f"{name}: {message}", *notes],
    }


def examine(source, ask_kernel, execution_count):
    """Run the test cell ``source`` here, its kernel names answered by ``ask_kernel(question,
    args, kwargs)``; return its error output, or None when it passed."""
    from bdl import wire
    from bdl.wire import Remote

    try:
        tree = ast.parse(source, FILENAME)
    except SyntaxError as error:  # in the course's own code: its message quotes nothing else
        return error_output(error, source, execution_count)
    read = read_names(tree)
    namespace = trusted_namespace(read)
    for name in kernel_names(read, namespace):
        namespace[name] = Remote({"name": name})
    cell = wire.ask_kernel.set(ask_kernel)  # for this cell's questions alone
    try:
        exec(compile(tree, FILENAME, "exec"), namespace)  # the course's test code, never the student's
    except Exception as error:
        return error_output(error, source, execution_count, own=speaks_for_the_tests(error))
    finally:
        wire.ask_kernel.reset(cell)
    return None


def ask_worker(question, args, kwargs, channel, describe=True):
    """The examiner's side of a question: send it, read the kernel's answer, decode it as data. A call
    that raised is described (``_failed_call``) unless ``describe`` is False."""
    from bdl.wire import decode, encode

    send(channel[1], {"ask": {"question": question, "args": encode(list(args)), "kwargs": encode(dict(kwargs))}})
    reply = receive(channel[0])
    about, verb = _about(args), _verb(question)
    if type(reply) is dict and "failed" in reply:
        reasons = ("took longer than", "gave an answer too large", "gave no answer")
        reason = next((text for text in reasons if str(reply["failed"]).startswith(text)), "gave no answer")
        raise AnswerError(f"{about} {reason} when the tests {verb} it", "Exception")
    try:
        answer = json.loads(reply["answer"])
        if type(answer) is dict and "error" in answer:
            kinds = answer["error"] if type(answer["error"]) is list else []
            raised = True
        else:
            return decode(answer["value"])
    except Exception:  # any answer that is not data, however it fails to decode
        raised = False
    if not raised:
        raise AnswerError(f"the kernel gave no readable answer when the tests {verb} {about}", "Exception")
    inputs = _failed_call(question, args, kwargs, channel) if describe else ""
    raise AnswerError(f"{about} raised {_error_name(kinds)} when the tests {verb} it{inputs}", _error_name(kinds))


def _failed_call(question, args, kwargs, channel):
    """ " with a float64 tensor of shape (2, 3); the same call in float32 runs": what a call that raised
    was given, and which simpler calls of it run (``bdl.difference.described_failed_call``), else ""."""
    from bdl.difference import described_failed_call
    from bdl.words import shown
    from bdl.wire import Remote

    if question == "bdl.questions:call" and args:  # the answer called: its arguments follow it
        given, given_kwargs = args[1:], kwargs

        def again(new_args, new_kwargs):
            return (args[0], *new_args), new_kwargs
    elif len(args) >= 2 and type(args[0]) is Remote and type(args[1]) in (tuple, list):
        given, given_kwargs = tuple(args[1]), {}  # a question about a call (its gradient, say): (answer, args, ...)

        def again(new_args, new_kwargs):
            return (args[0], type(args[1])(new_args), *args[2:]), kwargs
    else:
        return ""

    def runs(new_args, new_kwargs):
        try:
            ask_worker(question, *again(new_args, new_kwargs), channel, describe=False)
            return True
        except AnswerError:
            return False

    def show(value):
        return "one of your objects" if type(value) is Remote else shown(value)

    try:
        said = described_failed_call(given, given_kwargs, runs, show)
    except Exception:  # arguments no description is made for: the error is named alone
        return ""
    return f" {said}" if said else ""


def _about(args):
    """What a question was about, as the test names it: the kernel name it starts from (a name the
    examiner gave, from the test cell: ``decode`` takes no name from the kernel)."""
    from bdl.wire import Remote

    target = args[0] if args else None
    ref = object.__getattribute__(target, "_ref") if type(target) is Remote else None
    name = ref.get("name") if type(ref) is dict else None
    if type(name) is str and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,39}", name):
        return name
    return "your code"


def _verb(question):
    return {
        "bdl.questions:call": "called",
        "bdl.questions:attribute": "read an attribute of",
        "bdl.questions:item": "indexed",
    }.get(question, "used")


def main():
    """The examiner process: examine each test cell sent on stdin; questions and the verdict go
    out on the original stdout, which the test code's own prints (moved to stderr) cannot reach."""
    channel = (sys.stdin.buffer, os.fdopen(os.dup(sys.stdout.fileno()), "wb"))
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    while True:
        try:
            request = receive(channel[0])
        except EOFError:
            return
        output = examine(request["source"], lambda *question: ask_worker(*question, channel), request["count"])
        send(channel[1], {"verdict": output})


if __name__ == "__main__":
    main()
