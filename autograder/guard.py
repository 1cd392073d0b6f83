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

This is a guard against tampering by ordinary means, not a sandbox: code that
sets out to defeat it in the same process can (see the README's threat model).
"""
import importlib
import os
import sys
import warnings

PROTECTED = ("builtins", "math", "numpy", "numpy.testing", "numpy.linalg", "numpy.random",
             "tensorflow", "tensorflow.math", "tensorflow.nn", "tensorflow.random",
             "tensorflow_probability", "tensorflow_probability.distributions",
             "bdl.checks", "warnings")


# What a kernel runs first to install the guard (IPKernelApp.exec_lines).
GUARD = "import autograder.guard; autograder.guard.install()"

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


def show_warning_on_stdout(message, category, filename, lineno, file=None, line=None):
    print(f"warning (costs no points): {category.__name__}: {message}", file=sys.stdout)


def install(ipython=None):
    """Snapshot now and restore before every cell of this IPython kernel."""
    import bdl  # noqa: F401  (Keras 2 for TensorFlow Probability; must precede TensorFlow)

    ipython = ipython or get_ipython()  # noqa: F821 (defined in an IPython kernel)
    warnings.showwarning = show_warning_on_stdout
    snapshot = _snapshot()
    ipython.events.register("pre_run_cell", lambda *args: _restore(snapshot))
    return snapshot
