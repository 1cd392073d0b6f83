"""bdl: import-time set-up, run modes, no helper named like a graded function, and no stand-in that is an answer."""

import ast
import importlib
import json
import os
import pkgutil
import subprocess
import sys
import types
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")  # importing every bdl module imports its figures

import bdl  # noqa: E402

SOURCE = Path(__file__).resolve().parents[3] / "source"

TFP_LAYER_SCRIPT = """
import bdl
import tensorflow as tf
import tensorflow_probability as tfp
layer = tfp.layers.Convolution2DReparameterization(8, (5, 5), input_shape=(28, 28, 1))
model = tf.keras.Sequential([layer, tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
model(tf.zeros((1, 28, 28, 1)))
print(tf.keras.layers.Dense.__module__, model.count_params())
"""


def test_importing_bdl_first_gives_keras_2_and_a_quiet_stderr():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "NBGRADER"))}
    result = subprocess.run(
        [sys.executable, "-c", TFP_LAYER_SCRIPT], capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr
    module, params = result.stdout.split()
    assert module.startswith("tf_keras"), f"tf.keras should be Keras 2 (tf_keras), found {module}"
    assert params == str(408 + 24 * 24 * 8 * 10 + 10)
    assert result.stderr == "", f"TensorFlow wrote to stderr:\n{result.stderr}"


@pytest.mark.parametrize(
    "env, mode",
    [
        ({}, "full"),
        ({"BDL_FAST": "1"}, "fast"),
        ({"BDL_FAST": "0"}, "full"),
        ({"NBGRADER_EXECUTION": "autograde"}, "grading"),
        ({"NBGRADER_EXECUTION": "validate", "BDL_FAST": "1"}, "grading"),
    ],
)
def test_run_mode(monkeypatch, env, mode):
    monkeypatch.delenv("BDL_FAST", raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert bdl.run_mode() == mode
    assert bdl.choose(full="full", fast="fast", grading="grading") == mode


def _graded_names():
    """Map each graded name to where it is graded: the grade_ids of the solution
    code cells in source/ and the top-level functions and classes those cells define."""
    graded = {}
    for path in sorted(SOURCE.glob("*/*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            nbgrader = cell["metadata"].get("nbgrader", {})
            if cell["cell_type"] != "code" or not nbgrader.get("solution"):
                continue
            where = f"{path.relative_to(SOURCE.parent)}, cell {nbgrader['grade_id']!r}"
            graded[nbgrader["grade_id"]] = where
            for node in ast.parse("".join(cell["source"])).body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    graded[node.name] = where
    return graded


def _bdl_modules():
    names = ["bdl"] + [info.name for info in pkgutil.walk_packages(bdl.__path__, "bdl.")]
    return {name: importlib.import_module(name) for name in names}


def _clashes(modules, graded):
    return [
        f"{module}.{name} is named like the graded {graded[name]}"
        for module, namespace in modules.items()
        for name, value in vars(namespace).items()
        if name in graded and not name.startswith("_") and callable(value)
    ]


def test_no_bdl_function_or_class_is_named_like_a_graded_function():
    """bdl ships to students: none of its functions or classes shares a name with a graded answer."""
    graded = _graded_names()
    notebooks = {str(path.relative_to(SOURCE.parent)) for path in SOURCE.glob("*/*.ipynb")}
    assert notebooks and {where.split(",")[0] for where in graded.values()} == notebooks, (
        "every source notebook has graded solution cells"
    )
    modules = _bdl_modules()
    assert {"bdl.checks", "bdl.ensembles", "bdl.figures.ensembles", "bdl.spatter"} <= set(modules)
    decoy = types.ModuleType("decoy")
    setattr(decoy, next(iter(graded)), lambda: None)
    assert len(_clashes({"decoy": decoy}, graded)) == 1, "the check finds a clash"
    clashes = _clashes(modules, graded)
    assert clashes == [], "rename these bdl helpers:\n" + "\n".join(clashes)


def test_the_entropy_stand_in_is_a_table_not_an_entropy():
    """02's uncertainty_decomposition is tested with a table in entropy's place: it gives what the table
    holds, in the shape a correct entropy gives, and refuses any vector it does not hold, so it cannot
    pass entropy's own tests."""
    import numpy as np
    import tensorflow as tf

    from bdl.questions.deep_ensembles import KnownEntropies

    table = KnownEntropies([[0.5, 0.5], [1.0, 0.0]], [np.log(2.0), 0.0])
    np.testing.assert_allclose(table(np.array([[[1.0, 0.0], [0.5, 0.5]]])), [[0.0, np.log(2.0)]])
    assert np.shape(table(np.array([0.5, 0.5]))) == ()
    found = table(tf.constant([[0.5, 0.5]], tf.float32))
    assert tf.is_tensor(found) and found.dtype == tf.float32
    for unknown in (np.array([0.3, 0.7]), np.array([[0.5, 0.5, 0.0]])):
        with pytest.raises(ValueError):
            table(unknown)


def _spike_and_slab_log_prob(w):
    """get_prior's density (the whole vector an equal mixture of N(0, 1) and N(0, 10^2)) and
    get_per_weight_prior's (that mixture for each weight on its own), one value per row of ``w``."""
    import numpy as np
    from scipy.special import logsumexp
    from scipy.stats import norm

    whole = logsumexp([np.log(0.5) + norm.logpdf(w, 0, 1).sum(-1), np.log(0.5) + norm.logpdf(w, 0, 10).sum(-1)], axis=0)
    per_weight = np.logaddexp(np.log(0.5) + norm.logpdf(w, 0, 1), np.log(0.5) + norm.logpdf(w, 0, 10)).sum(-1)
    return whole, per_weight


def test_no_prior_or_posterior_stand_in_is_a_graded_one():
    """04's dense variational layer is tested with a prior and a posterior of the test's own; none of
    them, for any of these arguments, is the spike-and-slab prior, the per-weight prior or an
    independent normal posterior (the answers of get_prior, get_per_weight_prior, get_posterior)."""
    import numpy as np
    import tensorflow as tf
    from scipy.stats import norm

    from bdl.questions.bayesian_cnn import FixedPosterior, LaplaceMixturePrior, NormalPrior

    w = np.random.default_rng(0).normal(0, 3, (4, 15)).astype("float32")
    stand_ins = [LaplaceMixturePrior(scales) for scales in ([1.0, 10.0], [1.0], [10.0, 1.0], [1.0, 10.0, 10.0])]
    stand_ins += [NormalPrior(1.0), NormalPrior(10.0), FixedPosterior(0.0), FixedPosterior(0.3)]
    for stand_in in stand_ins:
        distribution = stand_in(12, 3, tf.float32)(tf.zeros((1, 1)))
        log_prob = np.asarray(distribution.log_prob(w), "float64")
        for graded in _spike_and_slab_log_prob(w.astype("float64")):
            assert not np.allclose(log_prob, graded, rtol=1e-3), stand_in.given_args
    for value in (0.0, 0.3):
        posterior = FixedPosterior(value)(12, 3, tf.float32)(tf.zeros((1, 1)))
        mean, stddev = np.asarray(posterior.mean(), "float64"), np.asarray(posterior.stddev(), "float64")
        assert not np.allclose(posterior.log_prob(w), norm.logpdf(w, mean, stddev).sum(-1), rtol=1e-3)
