"""The examiner: test cells run here, in the grader's process, never in the student's kernel.

nbgrader's ``Execute`` runs a submission's cells in its kernel, top to bottom. ``ExaminesTests``
takes the test cells out of that stream: each runs in this process, in a namespace of its own
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

A question goes to the kernel as a silent request (no history, no cell hooks), whose
``user_expressions`` calls ``bdl.wire.respond``; the answer comes back in a file in the
kernel's own folder. Time limits and a dying kernel are nbclient's, as for a cell.
"""
import ast
import asyncio
import builtins
import json
import re
import traceback
from pathlib import Path

from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import List, Unicode

from autograder.course import cells
from autograder.worker.guard import SKIPPED_MESSAGE, cell_key

FILENAME = "<test cell>"
# The error types of the student's code a message may name (any other is "Exception").
KNOWN_ERRORS = frozenset(name for name, value in vars(builtins).items()
                         if isinstance(value, type) and issubclass(value, BaseException))
TF_ERRORS = re.compile(r"^tensorflow\.python\.framework\.errors_impl\.(\w+Error)$")
HELPERS = ("checks.py", "questions.py", "wire.py", "diagnoses")


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
    from bdl import questions
    from bdl.wire import Remote

    namespace = trusted_namespace()
    try:
        tree = ast.parse(source, FILENAME)
    except SyntaxError as error:
        return error_output(error, source, execution_count)
    for name in kernel_names(tree, namespace):
        namespace[name] = Remote({"name": name})
    questions.ask_kernel = ask_kernel
    try:
        exec(compile(tree, FILENAME, "exec"), namespace)  # the course's test code, never the student's
    except (DeadKernelError, CellTimeoutError):
        raise
    except Exception as error:
        return error_output(error, source, execution_count)
    finally:
        questions.ask_kernel = None
    return None


class ExaminesTests:
    """Mixed into an nbclient client (nbgrader's ``Execute``, check-tests' client): test cells are
    examined here; every other cell runs in the kernel as before."""

    answer_file = None  # where the kernel writes its answers (a folder it can write to)
    skip = frozenset()  # ``guard.cell_key``s of cells not to run (they crashed the kernel)
    progress = None      # the file that names the running cell, should the kernel die

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        if cell.cell_type != "code" or not cells.is_test(cell):
            return await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        self._examined = getattr(self, "_examined", 0) + 1
        count = 10_000 + self._examined  # no kernel count: the feedback only matches it within the cell
        cell.outputs, cell.execution_count = [], count
        if self.progress:
            Path(self.progress).write_text(cell.source)
        if cell_key(cell.source) in self.skip:
            error = RuntimeError(SKIPPED_MESSAGE)
            cell.outputs = [error_output(error, cell.source, count)]
        else:
            loop = asyncio.get_running_loop()

            def ask_kernel(question, args, kwargs):
                return asyncio.run_coroutine_threadsafe(self._ask(question, args, kwargs, cell), loop).result()

            output = await loop.run_in_executor(None, examine, cell.source, ask_kernel, count)
            if output is not None:
                cell.outputs = [output]
        if cell.outputs and not (self.allow_errors or "raises-exception" in cell.metadata.get("tags", [])):
            raise CellExecutionError.from_cell_and_msg(cell, cell.outputs[0])
        return cell

    # nbclient's own ``execute_cell`` wraps *its* coroutine, not this one, and nbconvert calls it.
    execute_cell = run_sync(async_execute_cell)

    async def _ask(self, question, args, kwargs, cell):
        from bdl.wire import MAX_ANSWER, WireError, decode, encode

        answer_file = Path(self.answer_file)
        answer_file.unlink(missing_ok=True)
        request = json.dumps({"question": question, "args": encode(list(args)), "kwargs": encode(dict(kwargs))})
        expression = f"__import__('bdl.wire').wire.respond({request!r}, {str(answer_file)!r})"
        msg_id = self.kc.execute("", silent=True, store_history=False, allow_stdin=False,
                                 user_expressions={"answer": expression}, stop_on_error=False)
        reply = await self.async_wait_for_reply(msg_id, cell)
        if reply is None or reply["content"].get("status") != "ok":
            raise AnswerError(f"the kernel could not answer a question about {_about(args)}", "Exception")
        try:
            if answer_file.stat().st_size > MAX_ANSWER:
                raise WireError("too large")
            answer = json.loads(answer_file.read_text())
            if "error" in answer:
                kinds = answer["error"] if type(answer["error"]) is list else []
                name = _error_name(kinds)
                raise AnswerError(f"{_about(args)} raised {name} when the tests {_verb(question)} it", name)
            return decode(answer["value"])
        except (OSError, ValueError, KeyError, TypeError, WireError):
            raise AnswerError(f"the kernel gave no readable answer about {_about(args)}", "Exception") from None


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


class ExaminingClient(ExaminesTests, NotebookClient):
    """nbclient's client with test cells examined (check-tests, and tests of the examiner)."""


class Examine(ExaminesTests, Execute):
    """nbgrader's ``Execute``, with test cells examined (the worker's autograde pipeline)."""

    answer_file = Unicode("", help="where the kernel writes its answers").tag(config=True)
    progress = Unicode("", help="the file naming the running cell").tag(config=True)
    skip = List([], help="keys of the cells not to run").tag(config=True)
