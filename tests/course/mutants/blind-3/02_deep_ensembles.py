"""Blind one-bug answers for 02_deep_ensembles, round three, written from the release notebook alone."""

ANSWERS = {
    "gaussian_mixture_moments": [
        (
            "raw_second_moment_cancels",
            "Computes the variance as E[sigma^2 + mu^2] - mu_*^2 in the inputs' own dtype. For float32 members whose "
            "means are large against their scales (means near 1000, scales of 0.1 or less) the two terms cancel and "
            "float32 rounding leaves a variance that is far off, even negative; float64 and the visible small "
            "values are fine.",
            '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    mean = np.mean(means, axis=0)
    second_moment = np.mean(scales ** 2 + means ** 2, axis=0)
    return mean, second_moment - mean ** 2
''',
        ),
        (
            "returns_standard_deviation",
            "Returns the square root of the mixture variance, the standard deviation, where the variance is asked.",
            '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    mean = np.mean(means, axis=0)
    variance = np.mean(scales ** 2, axis=0) + np.mean((means - mean) ** 2, axis=0)
    return mean, np.sqrt(variance)
''',
        ),
    ],
    "laplace_mixture_moments": [
        (
            "laplace_variance_b_squared",
            "Takes a Laplace member's variance to be b^2, as for a Gaussian's scale, instead of 2 b^2: the members' "
            "noise part of the mixture variance is half what it should be.",
            '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    mean = np.mean(locs, axis=0)
    variance = np.mean(scales ** 2, axis=0) + np.mean((locs - mean) ** 2, axis=0)
    return mean, variance
''',
        ),
    ],
    "entropy": [
        (
            "sum_over_axis_1",
            "Sums over axis 1 instead of the last axis. For a 2-D [N, K] array that is the class axis and the visible "
            "test passes, but a single probability vector (1-D) raises an axis error and a [M, N, K] array is summed "
            "over N instead of K.",
            '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = np.asarray(probs)
    safe_log = np.log(np.where(probs > 0, probs, 1.0))
    return -np.sum(probs * safe_log, axis=1)
''',
        ),
        (
            "entropy_in_bits",
            "Uses the base-2 logarithm, so the entropy is in bits instead of nats (too large by a factor 1/ln 2).",
            '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = np.asarray(probs)
    safe_log = np.log2(np.where(probs > 0, probs, 1.0))
    return -np.sum(probs * safe_log, axis=-1)
''',
        ),
    ],
    "uncertainty_decomposition": [
        (
            "summed_not_averaged_probs",
            "Takes the total uncertainty as the entropy of the members' summed probabilities instead of their mean, "
            "so the 'ensemble prediction' does not sum to one (it sums to M) and total and knowledge are wrong for "
            "every M > 1.",
            '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    total = np.asarray(entropy(np.sum(member_probs, axis=0)))
    data = np.mean(np.asarray(entropy(member_probs)), axis=0)
    return total, data, total - data
''',
        ),
    ],
}
CORRECT = {
    "gaussian_mixture_moments": [
        (
            "noise_plus_spread_with_var",
            '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    means = np.asarray(means, dtype=np.float64)
    scales = np.asarray(scales, dtype=np.float64)
    # average noise of the members plus the (population) spread of their means
    return means.mean(axis=0), np.square(scales).mean(axis=0) + means.var(axis=0)
''',
        ),
    ],
    "entropy": [
        (
            "tf_xlogy",
            '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = tf.convert_to_tensor(probs)
    return -tf.reduce_sum(tf.math.xlogy(probs, probs), axis=-1)
''',
        ),
    ],
}
