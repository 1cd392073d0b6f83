"""bdl.figures: every figure draws, with titles, labelled axes and legends."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import bdl  # noqa: E402, F401  (before TensorFlow: Keras 2, quiet logs)
from bdl.figures import bayesian_cnn, calibration  # noqa: E402
from bdl.figures import ensembles as figures_ensembles  # noqa: E402


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


class _FixedModel:
    """Stands in for a model that always predicts the same class probabilities."""

    def __init__(self, probs):
        self.probs = np.asarray(probs)

    def __call__(self, x):
        return _Probs(self.probs)


def test_entropy_histograms_are_in_bits_and_safe_at_zero(monkeypatch):
    figures = []
    monkeypatch.setattr(bayesian_cnn.plt, "show", lambda: figures.append(bayesian_cnn.plt.gcf()))
    certain, uniform, half = np.eye(10)[0], np.full(10, 0.1), np.r_[0.5, 0.5, np.zeros(8)]
    # Correct: one certain prediction (0 bits) and one split between two classes (1 bit);
    # incorrect: a uniform prediction (log2 10 bits).
    model = _FixedModel([certain, half, uniform])
    with np.errstate(all="raise"):
        bayesian_cnn.plot_entropy_distribution(model, np.zeros((3, 28, 28, 1)), np.array([0, 0, 5]), "entropy")
    correct, incorrect = (ax.get_legend().get_texts()[0].get_text() for ax in figures[0].axes)
    assert correct == "mean 0.500 bits"
    assert incorrect == f"mean {np.log2(10):.3f} bits"
    bayesian_cnn.plt.close("all")


@pytest.mark.parametrize("run_ensemble", [False, True])
def test_figures_draw_with_titles_and_labels(run_ensemble, monkeypatch):
    figures = []
    monkeypatch.setattr(bayesian_cnn.plt, "show", lambda: figures.append(bayesian_cnn.plt.gcf()))
    x = np.random.default_rng(1).random((20, 28, 28, 1)).astype("float32")
    labels = np.arange(20) % 10
    model = _NoisyModel()
    bayesian_cnn.inspect_images(x, 4, "images")
    bayesian_cnn.analyse_model_prediction(x, labels, model, 3, run_ensemble=run_ensemble, num_samples=7)
    bayesian_cnn.plot_entropy_distribution(model, x, labels, "entropy")
    parts = (np.ones(20), np.ones(20) * 0.5, np.ones(20) * 0.5)
    bayesian_cnn.plot_uncertainty_decomposition({"a": parts, "b": parts}, "split")
    assert len(figures) == 4
    for figure in figures[1:]:
        for ax in figure.axes:
            if ax.axison and ax.has_data():  # image panels have no axes to label
                assert ax.get_title() and ax.get_xlabel(), "every plot has a title and labelled axes"
    bayesian_cnn.plt.close("all")


def test_intervals_of_a_keras_bayesian_model_come_from_fresh_weights(monkeypatch):
    """analyse_model_prediction traces Keras models; each call must still sample new weights."""
    import tensorflow as tf
    import tensorflow_probability as tfp

    figures = []
    monkeypatch.setattr(bayesian_cnn.plt, "show", lambda: figures.append(bayesian_cnn.plt.gcf()))
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Flatten(input_shape=(28, 28, 1)),
            tfp.layers.DenseReparameterization(10),
            tfp.layers.OneHotCategorical(10),
        ]
    )
    x = np.random.default_rng(2).random((3, 28, 28, 1)).astype("float32")
    bayesian_cnn.analyse_model_prediction(x, np.array([1, 2, 3]), model, 0, run_ensemble=True, num_samples=20)
    intervals = figures[0].axes[1].collections[0].get_segments()
    lengths = [abs(segment[1][1] - segment[0][1]) for segment in intervals]
    assert max(lengths) > 0.05, "the 95% intervals should show the spread over weight samples"
    bayesian_cnn.plt.close("all")


def test_reliability_diagram_draws_bars_diagonal_and_shares(monkeypatch):
    figures = []
    monkeypatch.setattr(calibration.plt, "show", lambda: figures.append(calibration.plt.gcf()))
    count = np.array([0, 0, 5, 15, 80])
    accuracy = np.array([0.0, 0.0, 0.4, 0.6, 0.95])
    confidence = np.array([0.0, 0.0, 0.5, 0.7, 0.9])
    calibration.plot_reliability_diagram(accuracy, confidence, count, "diagram")
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
    fig, axes = calibration.plt.subplots(2, 1)
    calibration.plot_reliability_diagram(accuracy, confidence, count, "into axes", axes=axes)
    assert len(figures) == 1 and axes[0].get_title() == "into axes"
    calibration.plt.close("all")


def test_ensemble_figures_have_titles_labels_and_legends(monkeypatch):
    shown = []
    monkeypatch.setattr(plt, "show", lambda: shown.append(plt.gcf()))
    x = np.linspace(-6, 6, 50)
    means, scales = np.stack([x**3 + m for m in range(6)]), np.ones((6, 50))
    figures_ensembles.plot_regression_ensemble(x, means, scales, means.mean(0), np.ones(50), x[:5], x[:5] ** 3, x**3)
    figures_ensembles.plot_training_history(
        {"accuracy": np.linspace(0.5, 0.9, 10), "nll": np.linspace(1, 0.2, 10)},
        reference={"accuracy": 0.962, "nll": 0.124},
    )
    grid = np.linspace(-2, 2, 20)
    points = np.random.default_rng(0).uniform(-1, 1, size=(30, 2))
    vmax = figures_ensembles.plot_uncertainty_maps(
        points, np.arange(30) % 3, grid, np.arange(400) % 3, np.linspace(0, 1, 400), np.linspace(0, 0.2, 400)
    )
    assert vmax == pytest.approx((1.0, 0.2))
    band = (x**3, np.full(50, 5.0))
    figures_ensembles.plot_ensemble_bands(
        x,
        x**3,
        [
            ("clean", x[:5], x[:5] ** 3, {"Gaussian": band, "Laplace": band}),
            ("outlier", x[:6], x[:6] ** 3, {"Gaussian": band, "Laplace": band}, np.arange(6) == 5),
        ],
        ylim=(-100, 100),
    )
    figures_ensembles.plot_ensemble_size_sweep(
        [1, 2, 3, 5, 10],
        {"inside": [3.6, 3.3, 3.3, 3.4, 3.5], "outside": [3e7, 9.2, 6.6, 6.0, 5.9]},
        {"inside": [0.0, 0.15, 0.2, 0.23, 0.25], "outside": [0.0, 0.5, 0.6, 0.6, 0.6]},
        best_nll=2.52,
    )
    assert len(shown) == 5
    sweep_nll = shown[4].axes[0]
    assert max(np.max(line.get_ydata()) for line in sweep_nll.get_lines()) < 100, (
        "an off-scale NLL is drawn at the top of the axis, not stretching it"
    )
    assert any("3e+07" in text.get_text() for text in sweep_nll.texts), "and its value is written beside it"
    for fig in shown:
        assert fig._suptitle is not None and fig._suptitle.get_text()
        for ax in fig.axes:
            if ax.get_label() == "<colorbar>":
                continue
            assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel(), ax
        plt.close(fig)


def test_mixture_prior_draws_the_mixture_and_its_weighted_components(monkeypatch):
    import tensorflow as tf
    import tensorflow_probability as tfp
    from scipy import stats

    tfd = tfp.distributions
    figures = []
    monkeypatch.setattr(bayesian_cnn.plt, "show", lambda: figures.append(bayesian_cnn.plt.gcf()))
    # The notebook's spike-and-slab over one weight, with unequal weights so they cannot be mixed up.
    prior = tfd.Mixture(
        cat=tfd.Categorical(probs=[0.3, 0.7]),
        components=[
            tfd.Independent(tfd.Normal(tf.zeros(1), scale * tf.ones(1)), reinterpreted_batch_ndims=1)
            for scale in (1.0, 10.0)
        ],
    )
    ax = bayesian_cnn.plot_mixture_prior(prior, ["spike", "slab"], "prior")
    assert len(figures) == 1 and ax.figure is figures[0]
    assert ax.get_title() == "prior" and ax.get_xlabel() and ax.get_ylabel()
    assert ax.get_yscale() == "log"
    mixture, spike, slab = ax.lines
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels[0].startswith("mixture") and "spike" in labels[1] and "slab" in labels[2]
    w = mixture.get_xdata()
    assert w.min() < -10 and w.max() > 10, "the range shows the slab's tails"
    np.testing.assert_allclose(spike.get_ydata(), 0.3 * stats.norm.pdf(w, 0, 1), rtol=1e-4, atol=1e-300)
    np.testing.assert_allclose(slab.get_ydata(), 0.7 * stats.norm.pdf(w, 0, 10), rtol=1e-4)
    np.testing.assert_allclose(mixture.get_ydata(), spike.get_ydata() + slab.get_ydata(), rtol=1e-4)
    assert np.all(mixture.get_ydata() > 0), "densities far out stay positive on the log axis"
    bayesian_cnn.plt.close("all")
