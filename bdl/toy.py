"""Seeded toy data sets the notebooks share.

Each function takes a ``seed`` and returns float32 NumPy arrays, the same on
every machine (NumPy's ``default_rng`` streams are stable across platforms).
"""

import numpy as np


def cubic(x):
    """The cubic regression's noise-free truth, y = x**3."""
    return np.asarray(x) ** 3


def cubic_data(num_points=40, noise_std=3.0, low=-4.0, high=4.0, seed=0):
    """Return ``(x, y)`` of shape ``(num_points, 1)``: x uniform in [low, high],
    y = x**3 + N(0, noise_std**2).
    """
    rng = np.random.default_rng(seed)
    x = rng.uniform(low, high, size=(num_points, 1))
    y = cubic(x) + rng.normal(0.0, noise_std, size=(num_points, 1))
    return x.astype("float32"), y.astype("float32")


def spiral_data(points_per_class=1000, num_classes=3, angular_noise=0.3, seed=0):
    """Return ``(x, labels)``: a spiral with one arm per class, in the unit disc.

    The original assignment's recipe: arm ``k``'s points have radius r evenly
    spaced on [0, 1] and angle ``8 * (k + r)`` radians (each arm winds 8
    radians) plus ``angular_noise * (1 + r)`` times standard normal noise, so
    the noise grows from ``angular_noise`` at the centre to twice that at the
    rim. ``x`` has shape ``(num_classes * points_per_class, 2)`` and
    ``labels`` holds integers.
    """
    rng = np.random.default_rng(seed)
    radius = np.linspace(0.0, 1.0, points_per_class)
    xs, labels = [], []
    for k in range(num_classes):
        angle = 8.0 * (k + radius) + angular_noise * (1.0 + radius) * rng.standard_normal(points_per_class)
        xs.append(np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1))
        labels.append(np.full(points_per_class, k))
    return np.concatenate(xs).astype("float32"), np.concatenate(labels).astype("int64")


def quartic(x):
    """The six-point set's truth, y = -x**4 + 3 x**2 + 1."""
    x = np.asarray(x)
    return -(x**4) + 3 * x**2 + 1


def quartic_data():
    """Return ``(x, y)`` of shape ``(6, 1)``: x in {-2, -1.8, -1, 1, 1.8, 2}, y = quartic(x), no noise."""
    x = np.array([-2.0, -1.8, -1.0, 1.0, 1.8, 2.0])[:, None]
    return x.astype("float32"), quartic(x).astype("float32")


def three_blobs_data(
    num_points=50_000,
    centres=((-3.0, -5.0), (0.0, 0.0), (5.0, 5.0)),
    label_probability=(0.0, 0.5, 1.0),
    std=0.6,
    seed=0,
):
    """Return ``(x_train, y_train, blob_train), (x_test, y_test, blob_test)``: Gaussian blobs, split in half.

    Blob ``k`` has ``num_points // len(centres)`` points drawn from
    N(centres[k], std**2 I) in the plane, each labelled 1 with probability
    ``label_probability[k]`` and 0 otherwise. By default the outer blobs are
    pure (class 0 and class 1) and the middle one is **mixed**: labels 0 or 1
    with probability 0.5 each, wherever the point lies, so a calibrated model
    predicts about 0.5 there. The points are shuffled and the first half is
    the training set. ``x`` has shape ``(n, 2)`` (float32); labels and blob
    indices are integers.
    """
    rng = np.random.default_rng(seed)
    centres = np.asarray(centres, dtype=np.float64)
    blob = np.repeat(np.arange(len(centres)), num_points // len(centres))
    x = centres[blob] + rng.normal(0.0, std, size=(blob.size, centres.shape[1]))
    labels = rng.random(blob.size) < np.asarray(label_probability)[blob]
    order = rng.permutation(blob.size)
    x, labels, blob = x[order].astype("float32"), labels[order].astype("int64"), blob[order].astype("int64")
    half = blob.size // 2
    return (x[:half], labels[:half], blob[:half]), (x[half:], labels[half:], blob[half:])


def linear_data(num_points=20, slope=2.0, intercept=-1.0, noise_std=3.0, low=-5.0, high=5.0, seed=0):
    """Return ``(x, y)`` of shape ``(num_points,)``: x uniform in [low, high],
    y = slope * x + intercept + N(0, noise_std**2).

    The toy set of the Bayesian linear regression (known noise, sigma = 3).
    """
    rng = np.random.default_rng(seed)
    x = rng.uniform(low, high, size=num_points)
    y = slope * x + intercept + rng.normal(0.0, noise_std, size=num_points)
    return x.astype("float32"), y.astype("float32")
