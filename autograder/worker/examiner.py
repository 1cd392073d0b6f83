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
frames as IPython would (so the feedback tells visible from hidden), its message is the test's,
and an error of the student's code is named by its type only, and only when that type is
Python's or TensorFlow's. Nothing the kernel says reaches it as text.

It speaks JSON lines with the worker over its stdin and stdout: ``{"source", "count"}`` in, then
``{"ask"}`` out and ``{"answer"}`` or ``{"failed"}`` in as often as the test asks, then
``{"verdict"}`` out. It imports no more than the tests need (TensorFlow, not nbgrader): it starts
once per submission.
"""
import ast
import builtins
import json
import os
import re
import sys
import traceback

from bdl.wire import MAX_ANSWER

FILENAME = "<test cell>"
# The error types of the student's code a message may name (any other is "Exception").
KNOWN_ERRORS = frozenset(name for name, value in vars(builtins).items()
                         if isinstance(value, type) and issubclass(value, BaseException))
TF_ERRORS = re.compile(r"^tensorflow\.python\.framework\.errors_impl\.(\w+Error)$")
HELPERS = ("/checks.py", "/questions/", "/wire.py", "/diagnoses/")


class AnswerError(Exception):
    """The student's code raised an error while a question was put to it."""


def trusted_namespace():
    """What a test cell finds defined before it runs: the libraries, under the notebooks' names."""
    import bdl  # noqa: F401 (Keras 2 for TensorFlow Probability; before TensorFlow)
    import numpy as np
    import tensorflow as tf
    import tensorflow_probability as tfp
    return {"__name__": "__examiner__", "__builtins__": builtins, "np": np, "tf": tf, "tfp": tfp,
            "tfd": tfp.distributions, "tfpl": tfp.layers}


def kernel_names(tree, namespace):
    """The names ``tree`` reads that neither the namespace nor Python defines: the kernel's."""
    loaded = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return sorted(name for name in loaded if name not in namespace and not hasattr(builtins, name))


def _error_name(kinds):
    """The name a message may give an error of the student's code, from its class names."""
    for kind in kinds:
        module, _, name = str(kind).rpartition(".")
        if module == "builtins" and name in KNOWN_ERRORS:
            return name
        if TF_ERRORS.match(str(kind)):
            return TF_ERRORS.match(str(kind)).group(1)
    return "Exception"


def error_output(error, source, execution_count):
    """An nbformat error output for ``error``, raised by the test cell ``source``: its frames in
    the cell and in the course's helpers, as IPython shows them, and the test's message."""
    lines = source.split("\n")
    frames = []
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == FILENAME:
            code = lines[frame.lineno - 1] if 0 < frame.lineno <= len(lines) else ""
            frames.append(f"Cell In[{execution_count}], line {frame.lineno}\n{code}")
        elif any(part in frame.filename for part in HELPERS) and "bdl" in frame.filename:
            frames.append(f"File {frame.filename}:{frame.lineno}, in {frame.name}")
    name = type(error).__name__
    if isinstance(error, AnswerError):
        name = error.args[1]
        message = error.args[0]
    else:
        message = str(error)
    notes = list(getattr(error, "__notes__", ()))
    return {"output_type": "error", "ename": name, "evalue": "\n".join([message, *notes]),
            "traceback": [f"{name}    Traceback (most recent call last)", *frames, f"{name}: {message}", *notes]}


def examine(source, ask_kernel, execution_count):
    """Run the test cell ``source`` here, its kernel names answered by ``ask_kernel(question,
    args, kwargs)``; return its error output, or None when it passed."""
    from bdl import wire
    from bdl.wire import Remote

    namespace = trusted_namespace()
    try:
        tree = ast.parse(source, FILENAME)
    except SyntaxError as error:
        return error_output(error, source, execution_count)
    for name in kernel_names(tree, namespace):
        namespace[name] = Remote({"name": name})
    wire.ask_kernel = ask_kernel
    try:
        exec(compile(tree, FILENAME, "exec"), namespace)  # the course's test code, never the student's
    except Exception as error:
        return error_output(error, source, execution_count)
    finally:
        wire.ask_kernel = None
    return None


def send(stream, message):
    """One JSON line to the other side (the worker's relay, or the examiner)."""
    stream.write((json.dumps(message) + "\n").encode())
    stream.flush()


def receive(stream):
    """One JSON line from the other side; EOFError when it has gone."""
    line = stream.readline(MAX_ANSWER + 2**20)
    if not line:
        raise EOFError("no reply")
    return json.loads(line)


def ask_worker(question, args, kwargs, channel):
    """The examiner's side of a question: send it, read the kernel's answer, decode it as data."""
    from bdl.wire import WireError, decode, encode

    send(channel[1], {"ask": {"question": question, "args": encode(list(args)), "kwargs": encode(dict(kwargs))}})
    reply = receive(channel[0])
    about, verb = _about(args), _verb(question)
    if "failed" in reply:
        reasons = ("took longer than", "gave an answer too large", "gave no answer")
        reason = next((text for text in reasons if str(reply["failed"]).startswith(text)), "gave no answer")
        raise AnswerError(f"{about} {reason} when the tests {verb} it", "Exception")
    try:
        answer = json.loads(reply["answer"])
        if "error" in answer:
            kinds = answer["error"] if type(answer["error"]) is list else []
            name = _error_name(kinds)
            raise AnswerError(f"{about} raised {name} when the tests {verb} it", name)
        return decode(answer["value"])
    except (ValueError, KeyError, TypeError, WireError):
        raise AnswerError(f"the kernel gave no readable answer when the tests {verb} {about}", "Exception") from None


def _about(args):
    """What a question was about, as the test names it: the kernel name it starts from."""
    from bdl.wire import Remote
    target = args[0] if args else None
    ref = object.__getattribute__(target, "_ref") if type(target) is Remote else None
    if isinstance(ref, dict) and isinstance(ref.get("name"), str):
        return ref["name"]
    return "your code"


def _verb(question):
    return {"bdl.questions:call": "called", "bdl.questions:attribute": "read an attribute of",
            "bdl.questions:item": "indexed"}.get(question, "used")


def main():
    """The examiner process: examine each test cell sent on stdin; questions and the verdict go
    out on the original stdout, which the test code's own prints (moved to stderr) cannot reach."""
    channel = (sys.stdin.buffer, os.fdopen(os.dup(sys.stdout.fileno()), "wb"))
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    trusted_namespace()  # TensorFlow loads once, before the first test cell
    while True:
        try:
            request = receive(channel[0])
        except EOFError:
            return
        output = examine(request["source"], lambda *question: ask_worker(*question, channel), request["count"])
        send(channel[1], {"verdict": output})


if __name__ == "__main__":
    main()
