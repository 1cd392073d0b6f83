"""Helpers shared by the course's notebooks ("bdl" = Bayesian deep learning).

Import ``bdl`` before TensorFlow. Importing it

* sets ``TF_USE_LEGACY_KERAS=1`` so ``tf.keras`` is Keras 2 (``tf-keras``), the Keras that
  TensorFlow Probability's layers are written for;
* quiets TensorFlow's C++ and Python logging and the deprecation warnings TensorFlow Probability
  raises, because nbgrader scores a test cell zero when anything reaches stderr;
* in a notebook's kernel, shows the remaining warnings on stdout (``show_warning_on_stdout``), so a
  correct answer that makes NumPy warn passes the Validate button as it gets its points in grading.
"""

import logging
import os
import sys
import warnings

if "tensorflow" in sys.modules and os.environ.get("TF_USE_LEGACY_KERAS") != "1":
    warnings.warn(
        "import bdl before tensorflow: tf.keras is already Keras 3, so TensorFlow Probability's layers will not work",
        stacklevel=2,
    )

os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

logging.getLogger("tensorflow").setLevel(logging.ERROR)
try:  # absl is a TensorFlow dependency; it may be absent for the data step.
    import absl.logging

    absl.logging.set_verbosity(absl.logging.ERROR)
except ImportError:
    pass

for _module in ("tensorflow", "tensorflow_probability", "tf_keras", "keras"):
    warnings.filterwarnings("ignore", category=UserWarning, module=_module)
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=_module)
warnings.filterwarnings("ignore", category=DeprecationWarning, module="jupyter_client")


def show_warning_on_stdout(message, category, filename, lineno, file=None, line=None):
    print(f"warning (costs no points): {category.__name__}: {message}", file=sys.stdout)


if "ipykernel" in sys.modules:  # a notebook, not a script or the test suite
    warnings.showwarning = show_warning_on_stdout


def loaded_tensorflow():
    """TensorFlow if this process has imported it, else None. No value is a tensor before it is, so
    the tests' helpers look for tensors only then, and a NumPy-only notebook's tests never import it."""
    return sys.modules.get("tensorflow")


from bdl.modes import choose, run_mode  # noqa: E402

__all__ = ["choose", "loaded_tensorflow", "run_mode"]
