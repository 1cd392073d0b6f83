"""The guard in each grading kernel: every cell starts from the state the grader set up, and a
cell that killed the kernel once is left out of the next attempt.

No verdict is decided here (test cells run in the examiner), so nothing in this module can make a
test pass: it is there so an honest submission is not marked down for a cell's side effects.
"""

import hashlib
import json
import os
import sys
import warnings

# What a kernel runs first to install the guard (IPKernelApp.exec_lines).
GUARD = "import autograder.worker.guard; autograder.worker.guard.install()"
# Set by the grading worker for its kernel: which cells to skip, which functions stand in.
SKIP_ENV = "BDL_GRADING_SKIP"
CRASHED_ENV = "BDL_GRADING_CRASHED"
SKIPPED_MESSAGE = (
    "not run when graded: this cell stopped the grading kernel, "
    "so it was left out and the rest of the notebook graded without it"
)
SKIPPED_CELL = f"raise RuntimeError({SKIPPED_MESSAGE!r})\n"
CRASHED_MESSAGE = (
    "not run when graded: {name} stopped the grading kernel when its tests called it, "
    "so every later call of it raises this error instead"
)


def cell_key(source):
    """What names a cell across grading attempts: a hash of its code."""
    return hashlib.sha256(source.strip().encode()).hexdigest()


def _skipper(keys):
    """An IPython input transformer that swaps the code of the cells in ``keys`` for ``SKIPPED_CELL``."""

    def skip(lines):
        return [SKIPPED_CELL] if cell_key("".join(lines)) in keys else lines

    return skip


def _crashed(name):
    """What stands in for the graded ``name`` once it stopped the kernel: it raises at once."""

    def crashed(*args, **kwargs):
        raise RuntimeError(CRASHED_MESSAGE.format(name=name))

    crashed.__name__ = crashed.__qualname__ = name
    return crashed


class _Guard:
    """The state a cell starts from, and what puts it back."""

    def __init__(self):
        self.cwd, self.environ, self.path = os.getcwd(), dict(os.environ), list(sys.path)
        self.showwarning = warnings.showwarning

    def restore(self):
        if os.getcwd() != self.cwd:
            os.chdir(self.cwd)
        if dict(os.environ) != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        sys.path[:] = self.path
        warnings.showwarning = self.showwarning


def install(ipython=None):
    """Snapshot now and restore before and after every cell of this IPython kernel; return the guard.

    Before and after each cell it puts back the working folder, ``os.environ`` and ``sys.path`` (a cell
    that clears ``NBGRADER_EXECUTION`` affects only itself), and ``warnings.showwarning`` pointed at
    stdout (nbgrader scores a cell zero when anything reaches stderr). The cells whose keys
    (``cell_key``) are in ``$BDL_GRADING_SKIP`` raise instead of running, so they and what needs their
    names score zero. A graded function named in ``$BDL_GRADING_CRASHED`` (its tests stopped the
    kernel) is replaced after every cell by a stand-in that raises at once."""
    import bdl  # Keras 2 for TensorFlow Probability; must precede TensorFlow

    ipython = ipython or get_ipython()  # noqa: F821 (defined in an IPython kernel)
    warnings.showwarning = bdl.show_warning_on_stdout
    skip = set(json.loads(os.environ.get(SKIP_ENV) or "[]"))
    stand_ins = {name: _crashed(name) for name in json.loads(os.environ.get(CRASHED_ENV) or "[]")}
    if skip:
        # First of the clean-up transforms, so it sees the cell as written.
        ipython.input_transformers_cleanup.insert(0, _skipper(skip))
    guard = _Guard()

    def before_cell(info=None):
        guard.restore()

    def after_cell(result=None):
        guard.restore()
        # Whichever cell (re)defined a crashed function, the next one finds the stand-in.
        namespace = ipython.user_ns
        for name, stand_in in stand_ins.items():
            if name in namespace and namespace[name] is not stand_in:
                namespace[name] = stand_in

    ipython.events.register("pre_run_cell", before_cell)
    ipython.events.register("post_run_cell", after_cell)
    return guard
