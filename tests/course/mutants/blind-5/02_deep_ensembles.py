"""Blind one-bug answers for 02_deep_ensembles, round five, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "gaussian_mixture_moments": [
        (
            "squares_scales_in_place",
            "Squares the scales in place (np.square(scales, out=scales)) to get the member variances, so the "
            "caller's scales array is overwritten with variances; the notebook uses the arrays again after the call. "
            "The returned moments are right on every input. Visible asserts pass.",
            '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    variances = np.square(scales, out=scales)
    mean = np.mean(means, axis=0)
    second_moment = np.mean(variances + np.square(means), axis=0)
    return mean, second_moment - np.square(mean)
''',
        ),
        (
            "raw_moment_cancellation_in_float32",
            "Uses the raw-moment form E[y^2] - mu*^2 in the inputs' own precision. For float32 inputs (what a "
            "network returns) with large means and small scales, e.g. means around 1e4 with scales 0.01, the two "
            "terms cancel catastrophically: the variance comes out 0, negative or off by orders of magnitude "
            "instead of about 1e-4 plus the spread. Visible asserts pass (float64, small numbers).",
            '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    mean = np.mean(means, axis=0)
    second_moment = np.mean(np.square(scales) + np.square(means), axis=0)
    return mean, second_moment - np.square(mean)
''',
        ),
    ],
    "laplace_mixture_moments": [
        (
            "mean_absolute_deviation_squared",
            "Takes the spread of the members' locations as the square of their mean absolute deviation, "
            "(mean_m |mu_m - mu*|)^2, instead of the mean squared deviation. With two members both deviations are "
            "equal, so the visible asserts pass; with three or more unequal deviations, e.g. locations 0, 0, 3, "
            "the spread term is 16/9 instead of 2 and the variance is too small.",
            '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    mean = np.mean(locs, axis=0)
    noise = np.mean(2.0 * np.square(scales), axis=0)
    spread = np.square(np.mean(np.abs(locs - mean), axis=0))
    return mean, noise + spread
''',
        ),
    ],
    "entropy": [
        (
            "sum_over_axis_one",
            "Sums over axis 1 instead of the last axis. For a 2-D [N, K] array (visible asserts) that is the same, "
            "but for a single vector [K] it raises an AxisError, and for [M, N, K] it sums over N and returns "
            "shape [M, K] of the wrong numbers. Visible asserts pass.",
            '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = np.asarray(probs)
    terms = np.where(probs > 0, -probs * np.log(np.where(probs > 0, probs, 1.0)), 0.0)
    return np.sum(terms, axis=1)
''',
        ),
        (
            "atleast_2d_breaks_scalar_case",
            "Wraps the input in np.atleast_2d to 'handle' a single vector, so one probability vector of shape [K] "
            "returns shape (1,) instead of the scalar the task asks for (shape ()). Every other shape is right. "
            "Visible asserts pass.",
            '''from scipy.special import xlogy


def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = np.atleast_2d(np.asarray(probs, dtype=np.float64))
    return -np.sum(xlogy(probs, probs), axis=-1)
''',
        ),
    ],
    "uncertainty_decomposition": [
        (
            "squeeze_drops_singleton_axes",
            "Starts with np.squeeze(member_probs) 'to be safe'. With one input (N = 1) the input axis disappears "
            "and the three results are scalars instead of shape [1]; with one member (M = 1) the member axis "
            "disappears and the 'mean over members' averages over the inputs instead (wrong values and shapes). "
            "Visible asserts pass (M = 3, N = 2).",
            '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    member_probs = np.squeeze(np.asarray(member_probs))
    total = np.asarray(entropy(np.mean(member_probs, axis=0)))
    data = np.mean(np.asarray(entropy(member_probs)), axis=0)
    return total, data, total - data
''',
        ),
    ],
}
CORRECT = {
    "gaussian_mixture_moments": [
        (
            "tfp_mixture_same_family",
            '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    # Let TensorFlow Probability do it: move the members to the last axis and mix them uniformly.
    loc = np.moveaxis(np.asarray(means), 0, -1)
    scale = np.moveaxis(np.asarray(scales), 0, -1)
    uniform = tfd.Categorical(logits=tf.zeros(loc.shape, dtype=loc.dtype))
    mixture = tfd.MixtureSameFamily(uniform, tfd.Normal(loc=loc, scale=scale))
    return mixture.mean().numpy(), mixture.variance().numpy()
''',
        ),
    ],
    "entropy": [
        (
            "scipy_entr",
            '''from scipy.special import entr


def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    # entr(p) = -p log p elementwise, with entr(0) = 0 and no warning.
    return entr(np.asarray(probs)).sum(axis=-1)
''',
        ),
    ],
}
