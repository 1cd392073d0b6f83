"""The examiner: test cells run in a process of the grader's, never in the student's kernel.

nbgrader's ``Execute`` runs a submission's cells in its kernel, top to bottom. ``ExaminesTests``
takes the test cells out of that stream and hands each to the examiner, a process of its own
(``python -m autograder.worker.examiner``, under bubblewrap when the kernel is: no network,
nothing writable, nothing of the course but its packages), which runs it in a namespace of its own
where every name the cell uses that the examiner does not define (the student's functions and
classes, the notebook's data) is a ``bdl.wire.Remote``. Using one puts a question to the kernel
(``bdl.questions``), at the state the notebook has reached at that cell; the kernel answers with
data. So the test's code, its hidden inputs' generators, its expected values, tolerances and
reference code stay in this process, and the verdict is this process's: the cell gets an error
output written here (nbgrader then scores it zero), or none.

The error output is the examiner's own: its traceback names the test cell's lines and
``bdl.checks``' frames as IPython would (so the feedback tells visible from hidden), its message
is the test's, and an error of the student's code is named by its type only, and only when
that type is Python's or TensorFlow's. Nothing the kernel says reaches it as text.

Three processes, each with one job. The examiner holds the tests and decides; it never sees the
kernel. The worker (this module's ``ExaminesTests``, in nbgrader's process) only relays: it puts
the examiner's question to the kernel as a silent request (no history, no cell hooks) whose
``user_expressions`` calls ``bdl.wire.respond``, and hands the examiner the answer the kernel
wrote to a file in its own folder, as text, unread. Time limits and a dying kernel are
nbclient's, as for a cell. The examiner and the worker speak JSON lines over the examiner's
stdin and stdout: ``{"source", "count"}`` in, then ``{"ask"}`` out and ``{"answer"}`` or
``{"failed"}`` in as often as the test asks, then ``{"verdict"}`` out.
"""
import ast
import asyncio
import builtins
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import nbformat

from jupyter_core.utils import ensure_async, run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Bool, List, Unicode

from autograder.course import cells
from autograder.worker import bwrap
from autograder.worker.guard import SKIPPED_MESSAGE, cell_key
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
    return new_output("error", ename=name, evalue="\n".join([message, *notes]),
                      traceback=[f"{name}    Traceback (most recent call last)", *frames,
                                 f"{name}: {message}", *notes])


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


class ExaminesTests:
    """Mixed into an nbclient client (nbgrader's ``Execute``, check-tests' client): test cells go
    to the examiner; every other cell runs in the kernel as before."""

    answer_file = None  # where the kernel writes its answers (a folder it can write to)
    skip = frozenset()  # ``guard.cell_key``s of cells not to run (they crashed the kernel)
    progress = None      # the file that names the running cell, should the kernel die
    sandbox = False      # run the examiner under bubblewrap
    _examiner = None

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        if cell.cell_type != "code" or not cells.is_test(cell):
            return await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        self._examined = getattr(self, "_examined", 0) + 1
        count = 10_000 + self._examined  # no kernel count: the feedback only matches it within the cell
        cell.outputs, cell.execution_count = [], count
        if self.progress:
            Path(self.progress).write_text(cell.source)
        if cell_key(cell.source) in self.skip:
            cell.outputs = [error_output(RuntimeError(SKIPPED_MESSAGE), cell.source, count)]
        else:
            loop = asyncio.get_running_loop()
            output = await loop.run_in_executor(None, self._relay, cell, count, loop)
            if output is not None:
                cell.outputs = [output]
        if cell.outputs and not (self.allow_errors or "raises-exception" in cell.metadata.get("tags", [])):
            raise CellExecutionError.from_cell_and_msg(cell, cell.outputs[0])
        return cell

    async def async_start_new_kernel_client(self):
        self._start_examiner()  # it loads TensorFlow while the kernel starts and the notebook runs
        return await super().async_start_new_kernel_client()

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    # nbclient's own ``execute_cell`` wraps *its* coroutine, not this one, and nbconvert calls it.
    execute_cell = run_sync(async_execute_cell)

    def _relay(self, cell, count, loop):
        """Hand the examiner ``cell``; relay its questions to the kernel; return its verdict."""
        examiner = self._start_examiner()
        try:
            _send(examiner.stdin, {"source": cell.source, "count": count})
            while True:
                message = _receive(examiner.stdout)
                if "verdict" in message:
                    return nbformat.from_dict(message["verdict"]) if message["verdict"] else None
                reply = asyncio.run_coroutine_threadsafe(self._ask(message["ask"], cell), loop).result()
                _send(examiner.stdin, reply)
        except (DeadKernelError, CellTimeoutError):
            self._stop_examiner()
            raise
        except (OSError, ValueError, KeyError, TypeError) as error:  # the examiner died: a grader's fault
            self._stop_examiner()
            raise RuntimeError(f"the examiner stopped: {error}; its log: {self._examiner_log()}") from None

    def _start_examiner(self):
        if self._examiner is None or self._examiner.poll() is not None:
            command = bwrap.examiner_command() if self.sandbox else [sys.executable, "-m", __name__]
            self._examiner_errors = tempfile.TemporaryFile()
            self._examiner = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              stderr=self._examiner_errors)
        return self._examiner

    def _examiner_log(self):
        self._examiner_errors.seek(0)
        return self._examiner_errors.read()[-2000:].decode(errors="replace")

    def examiner_running(self):
        return self._examiner is not None and self._examiner.poll() is None

    def _stop_examiner(self):
        if self._examiner is not None:
            self._examiner.kill()
            self._examiner.wait()
            self._examiner = None

    async def _async_cleanup_kernel(self):
        self._stop_examiner()
        await super()._async_cleanup_kernel()

    _cleanup_kernel = run_sync(_async_cleanup_kernel)

    async def _ask(self, request, cell):
        """Put the examiner's ``request`` to the kernel; return the kernel's answer as text, unread."""
        answer_file = Path(self.answer_file)
        answer_file.unlink(missing_ok=True)
        expression = f"__import__('bdl.wire').wire.respond({json.dumps(request)!r}, {str(answer_file)!r})"
        msg_id = await ensure_async(self.kc.execute("", silent=True, store_history=False, allow_stdin=False,
                                                    user_expressions={"answer": expression},
                                                    stop_on_error=False))
        reply = await self.async_wait_for_reply(msg_id, cell)
        if reply is None:
            return {"failed": f"took longer than {self._get_timeout(cell)} seconds"}
        try:
            if answer_file.stat().st_size > MAX_ANSWER:
                return {"failed": "gave an answer too large to read"}
            return {"answer": answer_file.read_text(errors="replace")}
        except OSError:
            return {"failed": "gave no answer"}


def _send(stream, message):
    stream.write((json.dumps(message) + "\n").encode())
    stream.flush()


def _receive(stream):
    line = stream.readline(MAX_ANSWER + 2**20)
    if not line:
        raise EOFError("no reply")
    return json.loads(line)


def ask_worker(question, args, kwargs, channel):
    """The examiner's side of a question: send it, read the kernel's answer, decode it as data."""
    from bdl.wire import WireError, decode, encode

    _send(channel[1], {"ask": {"question": question, "args": encode(list(args)), "kwargs": encode(dict(kwargs))}})
    reply = _receive(channel[0])
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
            request = _receive(channel[0])
        except EOFError:
            return
        output = examine(request["source"], lambda *question: ask_worker(*question, channel), request["count"])
        _send(channel[1], {"verdict": output})


class ExaminingClient(ExaminesTests, NotebookClient):
    """nbclient's client with test cells examined (check-tests, and tests of the examiner)."""


class Examine(ExaminesTests, Execute):
    """nbgrader's ``Execute``, with test cells examined (the worker's autograde pipeline)."""

    answer_file = Unicode("", help="where the kernel writes its answers").tag(config=True)
    progress = Unicode("", help="the file naming the running cell").tag(config=True)
    skip = List([], help="keys of the cells not to run").tag(config=True)
    sandbox = Bool(False, help="run the examiner under bubblewrap").tag(config=True)


if __name__ == "__main__":
    main()
