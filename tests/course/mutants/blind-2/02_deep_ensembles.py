"""Blind one-bug answers for 02_deep_ensembles, round two, written from the release notebook alone."""

ANSWERS = {
    "gaussian_mixture_moments": [
        (
            "standard deviation returned",
            "The mixture's variance is computed correctly but its square root is returned, so the second value is the standard deviation sigma_* instead of the variance sigma_*^2.",
            '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    means = np.asarray(means, dtype=np.float64)
    scales = np.asarray(scales, dtype=np.float64)
    mean = np.mean(means, axis=0)
    second_moment = np.mean(scales ** 2 + means ** 2, axis=0)
    return mean, np.sqrt(second_moment - mean ** 2)
''',
        ),
        (
            "sample variance of the means",
            "The spread of the members' means is taken with np.var(..., ddof=1), the unbiased sample variance, so the epistemic part is M / (M - 1) times too large; the mixture's variance divides by M.",
            '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    mean = np.mean(means, axis=0)
    aleatoric = np.mean(np.square(scales), axis=0)
    epistemic = np.var(means, axis=0, ddof=1)
    return mean, aleatoric + epistemic
''',
        ),
    ],
    "laplace_mixture_moments": [
        (
            "scale squared as the variance",
            "Each Laplace member's variance is taken as b^2 instead of 2 b^2, so the members' noise part of the mixture variance is half what it should be.",
            '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    locs = np.asarray(locs, dtype=np.float64)
    scales = np.asarray(scales, dtype=np.float64)
    mean = locs.mean(axis=0)
    member_variance = scales ** 2
    variance = np.mean(member_variance + locs ** 2, axis=0) - mean ** 2
    return mean, variance
''',
        ),
        (
            "spread averaged over every input",
            "The spread of the locations is averaged with np.mean and no axis, over the members and the inputs together, so every input gets the same epistemic part (the average over all inputs) instead of its own.",
            '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    locs = np.asarray(locs, dtype=np.float64)
    scales = np.asarray(scales, dtype=np.float64)
    mean = np.mean(locs, axis=0)
    noise = np.mean(2.0 * scales ** 2, axis=0)
    spread = np.mean((locs - mean) ** 2)
    return mean, noise + spread
''',
        ),
    ],
    "entropy": [
        (
            "kept the class axis",
            "The sum over the classes keeps its axis (keepdims=True), so the entropy has shape probs.shape[:-1] + (1,) instead of probs.shape[:-1], and differences with correctly shaped arrays later broadcast to a matrix.",
            '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = np.asarray(probs, dtype=np.float64)
    safe_log = np.log(np.where(probs > 0, probs, 1.0))
    return -np.sum(probs * safe_log, axis=-1, keepdims=True)
''',
        ),
        (
            "summed over axis 1",
            "The classes are summed over axis 1 instead of the last axis, which is right only for a 2-D [N, K] array: a single vector raises an axis error, and a [M, N, K] array is summed over N instead of K.",
            '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = np.asarray(probs)
    terms = tf.math.xlogy(probs, probs).numpy()
    return -np.sum(terms, axis=1)
''',
        ),
    ],
    "uncertainty_decomposition": [
        (
            "total and data swapped",
            "The total uncertainty is taken as the members' average entropy and the data uncertainty as the entropy of the averaged prediction (the two definitions swapped), so knowledge = total - data comes out as minus the Jensen-Shannon divergence.",
            '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    member_probs = np.asarray(member_probs)
    total = np.mean(entropy(member_probs), axis=0)
    data = entropy(np.mean(member_probs, axis=0))
    knowledge = total - data
    return total, data, knowledge
''',
        ),
        (
            "members summed, not averaged",
            "The ensemble's prediction is the sum of the members' probability vectors rather than their mean, so the total uncertainty is the 'entropy' of a vector summing to M, and the knowledge uncertainty is wrong with it.",
            '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    ensemble_probs = np.sum(member_probs, axis=0)
    total = np.asarray(entropy(ensemble_probs))
    data = np.mean(np.asarray(entropy(member_probs)), axis=0)
    return total, data, total - data
''',
        ),
    ],
}
CORRECT = {
    "gaussian_mixture_moments": [
        (
            "loop over members in float64",
            '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    num_members = len(means)
    first = np.zeros(np.shape(means)[1:], dtype=np.float64)
    second = np.zeros(np.shape(means)[1:], dtype=np.float64)
    for m in range(num_members):
        mu = np.asarray(means[m], dtype=np.float64)
        sigma = np.asarray(scales[m], dtype=np.float64)
        first += mu / num_members
        second += (sigma * sigma + mu * mu) / num_members
    return first, second - first * first
''',
        )
    ],
    "entropy": [
        (
            "TFP categorical entropy",
            '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    return tfd.Categorical(probs=tf.convert_to_tensor(probs)).entropy()
''',
        )
    ],
}
