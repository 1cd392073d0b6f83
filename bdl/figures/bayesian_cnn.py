"""Figures of the Bayesian CNN notebook: images, predicted probabilities, entropies."""

import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from scipy import stats

CLASSES = np.arange(10)


def inspect_images(data, num_images, title):
    """Show the first ``num_images`` images of ``data`` (N, 28, 28, 1) in a row."""
    fig, axes = plt.subplots(1, num_images, figsize=(1.6 * num_images, 1.9))
    for i, ax in enumerate(np.atleast_1d(axes)):
        ax.imshow(data[i, ..., 0], cmap="gray", vmin=0, vmax=1)
        ax.set_title(f"image {i}", fontsize=9)
        ax.axis("off")
    fig.suptitle(title)
    plt.show()


def analyse_model_prediction(data, true_labels, model, image_num, run_ensemble=False, num_samples=200):
    """Plot one image beside the model's predicted class probabilities.

    ``model(x)`` must return a distribution whose ``mean()`` is the class
    probabilities. With ``run_ensemble`` the model is called ``num_samples``
    times (a Bayesian model draws new weights on every call) and the bars show
    the mean with a 95% interval (2.5th to 97.5th percentile) of those draws.
    """
    image = data[image_num : image_num + 1]
    true_label = int(np.ravel(true_labels)[image_num])
    draws = num_samples if run_ensemble else 1
    # One call per draw: the reparameterization layers sample one set of
    # weights per call, shared by the whole batch. A Keras model's weight
    # sampling is made of TensorFlow ops, so a traced graph still draws new
    # weights on every call, about 20 times faster than eager calls.
    predict = lambda batch: model(batch).mean()
    if isinstance(model, tf.keras.Model):
        predict = tf.function(predict)
    probs = np.stack([np.asarray(predict(image))[0] for _ in range(draws)])
    mean = probs.mean(axis=0)
    low, high = np.percentile(probs, [2.5, 97.5], axis=0)

    fig, (ax_image, ax_probs) = plt.subplots(1, 2, figsize=(10, 2.4), gridspec_kw={"width_ratios": [1, 4]})
    ax_image.imshow(image[0, ..., 0], cmap="gray", vmin=0, vmax=1)
    ax_image.set_title(f"True label: {true_label}")
    ax_image.axis("off")
    colours = ["tab:green" if c == true_label else "tab:red" for c in CLASSES]
    ax_probs.bar(CLASSES, mean, color=colours, alpha=0.45)
    legend = [
        Patch(color="tab:green", alpha=0.45, label="true class"),
        Patch(color="tab:red", alpha=0.45, label="other classes"),
    ]
    if run_ensemble:
        ax_probs.vlines(CLASSES, low, high, colors="black", linewidth=3)
        legend.append(Line2D([], [], color="black", linewidth=3, label="95% interval"))
        ax_probs.set_title(f"Mean predicted probabilities over {draws} weight samples")
    else:
        ax_probs.set_title("Predicted probabilities (one forward pass)")
    ax_probs.set_xticks(CLASSES)
    ax_probs.set_ylim(0, 1.05)
    ax_probs.set_xlabel("class")
    ax_probs.set_ylabel("probability")
    ax_probs.legend(handles=legend, loc="upper left", fontsize=8, bbox_to_anchor=(1.01, 1.0))
    plt.show()


def plot_entropy_distribution(model, x, labels, title):
    """Histogram the predictive entropy (bits) of correct and incorrect predictions.

    Uses a single call ``model(x)``: for a Bayesian model that is one weight
    sample for the whole set.
    """
    probs = np.asarray(model(x).mean())
    # SciPy's entropy, not one of the course's: the notebooks grade writing it.
    entropies = stats.entropy(probs, base=2, axis=-1)
    correct = np.argmax(probs, axis=1) == np.ravel(labels)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2), sharey=True)
    bins = np.linspace(0, np.log2(10), 25)
    for ax, mask, name in zip(axes, (correct, ~correct), ("Correctly", "Incorrectly")):
        values = entropies[mask]
        share = 100 * mask.mean()
        if values.size:
            ax.hist(
                values, bins=bins, weights=np.full(values.size, 1 / values.size), label=f"mean {values.mean():.3f} bits"
            )
            ax.legend(loc="upper right")
        ax.set_title(f"{name} labelled ({share:.1f}% of images)")
        ax.set_xlabel("predictive entropy (bits)")
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("fraction of images")
    fig.suptitle(title)
    fig.tight_layout()
    plt.show()


def plot_uncertainty_decomposition(parts_by_dataset, title):
    """Histogram total, aleatoric and epistemic entropy (bits) per data set.

    ``parts_by_dataset`` maps a data set's name to its ``(total, aleatoric,
    epistemic)`` arrays, one value per image.
    """
    names = ("total: entropy of the mean prediction", "aleatoric: expected entropy", "epistemic: mutual information")
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.6))
    for i, (ax, name) in enumerate(zip(axes, names)):
        top = max(float(np.max(parts[i])) for parts in parts_by_dataset.values())
        bins = np.linspace(0, max(top, 1e-3), 30)
        for dataset, parts in parts_by_dataset.items():
            values = np.asarray(parts[i])
            ax.hist(
                values,
                bins=bins,
                weights=np.full(values.size, 1 / values.size),
                histtype="step",
                linewidth=2,
                label=f"{dataset} (mean {values.mean():.3f})",
            )
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("bits")
        ax.set_ylabel("fraction of images")
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    plt.show()


def plot_mixture_prior(prior, names, title, limit=30.0):
    """Plot a one-weight mixture prior's density and its weighted components, on a log y axis.

    ``prior`` is a ``tfd.Mixture`` over one weight (event shape ``[1]``), such
    as the notebook's ``spike_and_slab(1, tf.float32)``; ``names`` labels its
    components in order. Returns the figure's axes.
    """
    w = np.linspace(-limit, limit, 1201)
    points = tf.constant(w[:, None], dtype=prior.dtype)
    weights = np.asarray(prior.cat.probs_parameter(), dtype=np.float64)
    # Densities from log densities in float64: the spike's density far out is far
    # below float32's smallest number, and the log axis needs it positive.
    mixture = np.exp(np.asarray(prior.log_prob(points), dtype=np.float64))
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(w, mixture, color="black", linewidth=2.5, label="mixture $p(w)$")
    for weight, component, name, style in zip(weights, prior.components, names, ("--", ":")):
        density = weight * np.exp(np.asarray(component.log_prob(points), dtype=np.float64))
        ax.plot(w, density, style, linewidth=2, label=f"{weight:g} × {name}")
    ax.set_yscale("log")
    ax.set_ylim(1e-6, 1.0)
    ax.set_xlim(-limit, limit)
    ax.set_title(title)
    ax.set_xlabel("weight $w$")
    ax.set_ylabel("density (log scale)")
    ax.legend()
    plt.show()
    return ax
