"""Kernel-side guard for grading: every cell of a submission starts from the state the grader
set up, and a cell that killed the kernel once is left out of the next attempt.

``python -m autograder grade`` starts each grading kernel with ``install()``. The verdicts are
not here: test cells run in the examiner (``autograder.worker.examiner``), outside this
process, and nothing in this module can make a test pass. What it does is for fairness to an
honest submission. Before and after every cell it puts back:

* the working directory, ``os.environ`` and ``sys.path``: a cell that changes them, e.g.
  clearing ``NBGRADER_EXECUTION`` to train in full mode, affects only itself;
* ``warnings.showwarning``, pointed at stdout: nbgrader scores a cell zero when anything reaches
  stderr, and a correct answer must not lose points because NumPy or a library warned.

It also keeps a submission that kills its kernel from losing every later answer's points.
The worker notes which cell was running when the kernel died or was killed (in a file of its
own, out of the kernel's reach); on the next attempt, the cells whose keys (``cell_key``) are
listed in ``$BDL_GRADING_SKIP`` are not run but raise an error instead, so they and whatever
needs their names score zero and every other cell is graded. A graded function whose tests
stopped the kernel is named in ``$BDL_GRADING_CRASHED``: after every cell, the guard puts a
stand-in that raises at once in its place, so however many later cells call it, they fail with
that error instead of stopping the kernel again.
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
    """Snapshot now and restore before and after every cell of this IPython kernel; return the guard."""
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
