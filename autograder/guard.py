"""Kernel-side guard for grading: every cell starts from the state the grader set up.

``python -m autograder grade`` starts each grading kernel with ``install()``.
It imports what the hidden tests rely on, snapshots it, and before every cell
puts back:

* the working directory, ``os.environ`` and ``sys.path`` (a cell that changes
  them, e.g. clearing ``NBGRADER_EXECUTION`` to train in full mode, affects
  only itself);
* the module-level names of the modules the tests call (``builtins``,
  ``math``, NumPy and its testing helpers, TensorFlow's core namespaces,
  TensorFlow Probability's distributions, ``bdl.checks``), so that
  ``numpy.testing.assert_allclose = lambda *a, **k: None`` in one cell does not
  disarm the tests in the next;
* ``warnings.showwarning``, which it points at stdout: nbgrader scores a test
  cell zero when anything reaches stderr, and a correct answer must not lose
  points because NumPy or a library warned (a test that forbids warnings
  says so and catches them itself).

It also keeps a submission that kills its kernel from losing every later
answer's points. Before each cell it writes the cell's source to the file
named by ``$BDL_GRADING_PROGRESS``, so the grader knows which cell was running
when the kernel died or was killed; on the next attempt, the cells whose keys
(``cell_key``) are listed in ``$BDL_GRADING_SKIP`` are not run but raise an
error instead, so they and whatever needs their names score zero and every
other cell is graded.

This is a guard against tampering by ordinary means, not a sandbox: code that
sets out to defeat it in the same process can (see the README's threat model).
"""
import hashlib
import importlib
import json
import os
import sys
import warnings

PROTECTED = ("builtins", "math", "numpy", "numpy.testing", "numpy.linalg", "numpy.random",
             "tensorflow", "tensorflow.math", "tensorflow.nn", "tensorflow.random",
             "tensorflow_probability", "tensorflow_probability.distributions",
             "bdl.checks", "warnings")


# What a kernel runs first to install the guard (IPKernelApp.exec_lines).
GUARD = "import autograder.guard; autograder.guard.install()"
# Set by the grading worker for its kernel: where to note the running cell, which cells to skip.
PROGRESS_ENV = "BDL_GRADING_PROGRESS"
SKIP_ENV = "BDL_GRADING_SKIP"
SKIPPED = ("raise RuntimeError('not run when graded: this cell stopped the grading kernel, "
           "so it was left out and the rest of the notebook graded without it')\n")

_MISSING = object()


def _snapshot():
    modules = {}
    for name in PROTECTED:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        modules[name] = (module, dict(vars(module)))
    return {"cwd": os.getcwd(), "environ": dict(os.environ), "path": list(sys.path),
            "modules": modules}


def _restore(snapshot):
    if os.getcwd() != snapshot["cwd"]:
        os.chdir(snapshot["cwd"])
    if dict(os.environ) != snapshot["environ"]:
        os.environ.clear()
        os.environ.update(snapshot["environ"])
    sys.path[:] = snapshot["path"]
    for module, names in snapshot["modules"].values():
        namespace = vars(module)
        for key, value in names.items():
            if namespace.get(key, _MISSING) is not value:
                namespace[key] = value


def cell_key(source):
    """What names a cell across grading attempts: a hash of its code."""
    return hashlib.sha256(source.strip().encode()).hexdigest()


def _skipper(keys):
    """An IPython input transformer that swaps the code of the cells in ``keys`` for ``SKIPPED``."""
    def skip(lines):
        return [SKIPPED] if cell_key("".join(lines)) in keys else lines
    return skip


def install(ipython=None):
    """Snapshot now and restore before every cell of this IPython kernel."""
    import bdl  # Keras 2 for TensorFlow Probability; must precede TensorFlow

    ipython = ipython or get_ipython()  # noqa: F821 (defined in an IPython kernel)
    warnings.showwarning = bdl.show_warning_on_stdout
    snapshot = _snapshot()
    progress = os.environ.get(PROGRESS_ENV)
    skip = set(json.loads(os.environ.get(SKIP_ENV) or "[]"))

    def before_cell(info=None):
        _restore(snapshot)
        if progress and info is not None:
            try:
                with open(progress, "w") as handle:
                    handle.write(info.raw_cell)
            except OSError:  # a cell removed the folder: it can only lose the crash isolation
                pass

    ipython.events.register("pre_run_cell", before_cell)
    if skip:
        # First of the clean-up transforms, so it sees the cell as written.
        ipython.input_transformers_cleanup.insert(0, _skipper(skip))
    return snapshot
