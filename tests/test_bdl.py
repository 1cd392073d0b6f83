"""bdl: import-time set-up, run modes, and the shared figures."""
import os
import subprocess
import sys

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import bdl  # noqa: E402
from bdl import plots  # noqa: E402

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
    result = subprocess.run([sys.executable, "-c", TFP_LAYER_SCRIPT], capture_output=True,
                            text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    module, params = result.stdout.split()
    assert module.startswith("tf_keras"), f"tf.keras should be Keras 2 (tf_keras), found {module}"
    assert params == str(408 + 24 * 24 * 8 * 10 + 10)
    assert result.stderr == "", f"TensorFlow wrote to stderr:\n{result.stderr}"


@pytest.mark.parametrize("env, mode", [
    ({}, "full"),
    ({"BDL_FAST": "1"}, "fast"),
    ({"BDL_FAST": "0"}, "full"),
    ({"NBGRADER_EXECUTION": "autograde"}, "grading"),
    ({"NBGRADER_EXECUTION": "validate", "BDL_FAST": "1"}, "grading"),
])
def test_run_mode(monkeypatch, env, mode):
    monkeypatch.delenv("BDL_FAST", raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert bdl.run_mode() == mode
    assert bdl.choose(full="full", fast="fast", grading="grading") == mode


class _Probs:
    def __init__(self, probs):
        self.probs = probs

    def mean(self):
        return self.probs


class _NoisyModel:
    """Stands in for a Bayesian model: new random class probabilities on every call."""

    def __init__(self):
        self.rng = np.random.default_rng(0)

    def __call__(self, x):
        logits = self.rng.normal(size=(len(x), 10))
        return _Probs(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True))


def test_entropy_is_safe_at_zero_and_in_bits():
    probs = np.array([[1.0, 0.0], [0.5, 0.5]])
    assert np.allclose(plots._entropy_bits(probs), [0.0, 1.0])


@pytest.mark.parametrize("run_ensemble", [False, True])
def test_figures_draw_with_titles_and_labels(run_ensemble, monkeypatch):
    figures = []
    monkeypatch.setattr(plots.plt, "show", lambda: figures.append(plots.plt.gcf()))
    x = np.random.default_rng(1).random((20, 28, 28, 1)).astype("float32")
    labels = np.arange(20) % 10
    model = _NoisyModel()
    plots.inspect_images(x, 4, "images")
    plots.analyse_model_prediction(x, labels, model, 3, run_ensemble=run_ensemble, num_samples=7)
    plots.plot_entropy_distribution(model, x, labels, "entropy")
    parts = (np.ones(20), np.ones(20) * 0.5, np.ones(20) * 0.5)
    plots.plot_uncertainty_decomposition({"a": parts, "b": parts}, "split")
    assert len(figures) == 4
    for figure in figures[1:]:
        for ax in figure.axes:
            if ax.axison and ax.has_data():  # image panels have no axes to label
                assert ax.get_title() and ax.get_xlabel(), "every plot has a title and labelled axes"
    plots.plt.close("all")


def test_intervals_of_a_keras_bayesian_model_come_from_fresh_weights(monkeypatch):
    """analyse_model_prediction traces Keras models; each call must still sample new weights."""
    import tensorflow as tf
    import tensorflow_probability as tfp

    figures = []
    monkeypatch.setattr(plots.plt, "show", lambda: figures.append(plots.plt.gcf()))
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([
        tf.keras.layers.Flatten(input_shape=(28, 28, 1)),
        tfp.layers.DenseReparameterization(10),
        tfp.layers.OneHotCategorical(10),
    ])
    x = np.random.default_rng(2).random((3, 28, 28, 1)).astype("float32")
    plots.analyse_model_prediction(x, np.array([1, 2, 3]), model, 0, run_ensemble=True, num_samples=20)
    intervals = figures[0].axes[1].collections[0].get_segments()
    lengths = [abs(segment[1][1] - segment[0][1]) for segment in intervals]
    assert max(lengths) > 0.05, "the 95% intervals should show the spread over weight samples"
    plots.plt.close("all")


def test_reliability_diagram_draws_bars_diagonal_and_shares(monkeypatch):
    figures = []
    monkeypatch.setattr(plots.plt, "show", lambda: figures.append(plots.plt.gcf()))
    count = np.array([0, 0, 5, 15, 80])
    accuracy = np.array([0.0, 0.0, 0.4, 0.6, 0.95])
    confidence = np.array([0.0, 0.0, 0.5, 0.7, 0.9])
    plots.plot_reliability_diagram(accuracy, confidence, count, "diagram")
    assert len(figures) == 1
    top, share = figures[0].axes
    for ax in (top, share):
        assert ax.get_title() and ax.get_ylabel() and ax.get_legend() is not None
    assert share.get_xlabel()
    heights = [patch.get_height() for patch in top.containers[0]]
    assert heights == pytest.approx([0.4, 0.6, 0.95]), "one accuracy bar per non-empty bin"
    gaps = [patch.get_height() for patch in top.containers[1]]
    assert gaps == pytest.approx([0.1, 0.1, 0.05])
    shares = [patch.get_height() for patch in share.containers[0]]
    assert shares == pytest.approx([0.0, 0.0, 0.05, 0.15, 0.8])
    # Into given axes, without showing a figure of its own.
    fig, axes = plots.plt.subplots(2, 1)
    plots.plot_reliability_diagram(accuracy, confidence, count, "into axes", axes=axes)
    assert len(figures) == 1 and axes[0].get_title() == "into axes"
    plots.plt.close("all")
