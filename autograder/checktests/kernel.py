"""The solution notebook run once in a live kernel, as when graded (the guard and the examiner), and
more code run in it; what a failing test's error says."""

import contextlib
import json
import os
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

from autograder.course.directory import KERNEL_LOG_LEVEL
from autograder.worker.examiner.relay import ExaminingClient
from autograder.worker.guard import GUARD

# Seconds one cell of the solution notebook may take while check-tests runs it.
NOTEBOOK_CELL_TIMEOUT = 600
# The one program check-tests writes for the kernel: a library function ("module:attribute.path") called
# with JSON arguments (after the notebook's namespace, when asked), its value printed as JSON.
CALL = (
    "print('\\n' + __import__('json').dumps(__import__('functools').reduce(getattr, {path!r}, "
    "__import__({module!r}, fromlist=['_']))({namespace}*__import__('json').loads({args!r}))))"
)


class NotebookKernel:
    """A kernel that has run a notebook; ``run(code)`` executes more code in it."""

    def __init__(self, client):
        self.client = client

    def run(self, source, test=False):
        """Execute ``source`` (examined, as a test cell is when graded, if ``test``); return its
        outputs or raise CellExecutionError."""
        cell = nbformat.v4.new_code_cell(source)
        if test:
            cell.metadata["nbgrader"] = {
                "grade": True,
                "solution": False,
                "locked": True,
                "grade_id": "checked_tests",
                "points": 1,
            }
        # nbclient stores the executed cell back at its index: lend it a slot.
        cells = self.client.nb.cells
        cells.append(cell)
        try:
            self.client.execute_cell(cell, len(cells) - 1)
        finally:
            cells.pop()
        return cell.outputs

    def call(self, function, *args, namespace=False):
        """``function`` ("module:attribute.path", a library's or the course's) called in the kernel with
        ``args`` (JSON data), after the notebook's namespace when ``namespace``; return its JSON value.
        No name of the namespace changes but as the function changes it."""
        module, _, path = function.partition(":")
        code = CALL.format(
            module=module,
            path=path.split("."),
            namespace="globals(), " if namespace else "",
            args=json.dumps(args),
        )
        outputs = self.run(code)
        text = "".join(output.text for output in outputs if output.output_type == "stream" and output.name == "stdout")
        return json.loads(text.rstrip("\n").rpartition("\n")[2])  # the last line: a warning may print before it

    def noted_mistake(self, text, function):
        """``bdl.diagnoses.noted_mistake``, asked of this kernel: it has TensorFlow, which the tables'
        recognisers load, loaded already, where this process would spend about 3 s of CPU loading it."""
        from bdl.diagnoses import has_note

        if not has_note(text):  # most failures: no question to ask
            return None
        return self.call("bdl.diagnoses:noted_mistake", text, function)

    def seed(self, seed):
        """Seed the kernel's random generators (Python's, NumPy's, TensorFlow's), as the tests' runs are."""
        self.call("tensorflow:keras.utils.set_random_seed", seed)

    def succeeds(self, source, test=False):
        """Return (True, "") if ``source`` runs cleanly and silently, else (False, why)."""
        return self.outcome(source, test)[:2]

    def outcome(self, source, test=False):
        """Return (True, "", "") if ``source`` runs cleanly and silently, else (False, why, the
        whole error as text).

        nbgrader scores a test cell zero when it writes to stderr, so that fails too.
        """
        try:
            outputs = self.run(source, test)
        except CellExecutionError as error:
            text = str(error).strip()
            return False, last_error_line(text), text
        for output in outputs:
            if output.output_type == "stream" and output.name == "stderr":
                return False, f"wrote to stderr: {output.text.strip()[:200]}", output.text
        return True, "", ""


def last_error_line(text):
    """The error's own line: its last line that is not part of a diagnosis note (the note's first line,
    and the indented lines it wraps onto)."""
    from bdl.diagnoses import PREFIX  # its recognisers load TensorFlow: only here, not for every command

    lines, in_note = [], False
    for line in text.splitlines():
        in_note = line.startswith(PREFIX) or (in_note and line.startswith(" "))
        if line.strip() and not in_note:
            lines.append(line)
    return lines[-1] if lines else text


@contextlib.contextmanager
def executed_notebook(path, env):
    """Execute every cell of ``path`` with ``env`` added to the kernel's environment.

    Yields ``(kernel, nb)``: the live kernel and the notebook with its outputs.
    A cell that fails stops execution with CellExecutionError.
    """
    nb = nbformat.read(path, as_version=4)
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        # The grading guard and the examiner, as in `grade`: the tests run as they will when graded.
        client = ExaminingClient(
            nb,
            timeout=NOTEBOOK_CELL_TIMEOUT,
            kernel_name="python3",
            extra_arguments=[KERNEL_LOG_LEVEL, f"--IPKernelApp.exec_lines={GUARD}"],
            resources={"metadata": {"path": str(Path(path).parent)}},
        )
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                if cell.cell_type == "code":
                    client.execute_cell(cell, index)
            yield NotebookKernel(client), nb
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
