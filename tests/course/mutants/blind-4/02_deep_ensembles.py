"""Blind one-bug answers for 02_deep_ensembles, round four, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "gaussian_mixture_moments": [
        (
            "spread_with_sample_variance",
            "Takes the spread of the members' means with the unbiased sample variance (ddof=1, dividing by "
            "M - 1) instead of the mixture's 1/M; with M = 2 the epistemic part is doubled, which the visible "
            "test catches (6.5 expected at the third input, 10.5 returned).",
            """def gaussian_mixture_moments(means, scales):
    means, scales = np.asarray(means), np.asarray(scales)
    mean = means.mean(axis=0)
    variance = np.mean(scales ** 2, axis=0) + np.var(means, axis=0, ddof=1)
    return mean, variance
""",
        ),
        (
            "second_moment_cancels_in_float32",
            "Uses the textbook form E[y^2] - E[y]^2 in the inputs' own dtype: for float32 members whose means "
            "are large against their scales (means near 1e4, scales near 1) the two terms of order 1e8 cancel "
            "and the variance is off by whole units, even negative; the visible test is float64 with small "
            "means and passes.",
            """def gaussian_mixture_moments(means, scales):
    means, scales = np.asarray(means), np.asarray(scales)
    mean = np.mean(means, axis=0)
    second_moment = np.mean(scales ** 2 + means ** 2, axis=0)
    return mean, second_moment - mean ** 2
""",
        ),
    ],
    "laplace_mixture_moments": [
        (
            "squares_scales_in_place",
            "Squares the caller's scales array in place (scales **= 2 on the array it was given) to save "
            "memory, so the moments are right but the caller's scales are overwritten with b^2; the notebook "
            "uses the same scales again for the mixture's log-likelihood. The visible test does not reuse "
            "its array and passes.",
            """def laplace_mixture_moments(locs, scales):
    locs = np.asarray(locs)
    scales = np.asarray(scales)
    mean = locs.mean(axis=0)
    scales **= 2
    variance = np.mean(2.0 * scales + (locs - mean) ** 2, axis=0)
    return mean, variance
""",
        ),
    ],
    "entropy": [
        (
            "classes_on_axis_one",
            "Sums over axis 1 instead of the last axis: right for a batch [N, K], but a single vector [K] "
            "raises an axis error and a stack [A, N, K] sums over the wrong axis; the visible test is [N, K] "
            "and passes.",
            """def entropy(probs):
    probs = np.asarray(probs)
    safe_log = np.log(np.where(probs > 0, probs, 1.0))
    return -np.sum(probs * safe_log, axis=1)
""",
        ),
    ],
    "uncertainty_decomposition": [
        (
            "averages_over_inputs",
            "Averages the members' probabilities over axis 1 (the inputs) instead of axis 0 (the members) "
            "for the total uncertainty, so the total has shape [M] and mixes different inputs; the visible "
            "shape check (2 inputs, 3 members) fails.",
            """def uncertainty_decomposition(member_probs):
    member_probs = np.asarray(member_probs)
    total = np.asarray(entropy(member_probs.mean(axis=1)))
    data = np.asarray(entropy(member_probs)).mean(axis=0)
    return total, data, total - data
""",
        ),
        (
            "squeeze_drops_single_axes",
            "Squeezes the input first to tidy its shape; with one member (M = 1) or one input (N = 1) that "
            "axis disappears, so the mean over axis 0 runs over the wrong axis and the shapes are wrong "
            "(e.g. M = 1, N = 4, K = 3: total and data come back as scalars, the entropy of the inputs' "
            "average, not arrays of shape [4]); the visible test has M = 3, N = 2, K = 2 and passes.",
            """def uncertainty_decomposition(member_probs):
    member_probs = np.squeeze(np.asarray(member_probs))
    total = np.asarray(entropy(np.mean(member_probs, axis=0)))
    data = np.mean(np.asarray(entropy(member_probs)), axis=0)
    return total, data, total - data
""",
        ),
    ],
}

CORRECT = {
    "uncertainty_decomposition": [
        (
            "knowledge_as_mean_kl_to_the_mixture",
            """def uncertainty_decomposition(member_probs):
    from scipy.special import xlogy
    p = np.asarray(member_probs, dtype=np.float64)
    p_bar = p.mean(axis=0)
    total = np.asarray(entropy(p_bar), dtype=np.float64)
    # Jensen-Shannon divergence: the members' mean KL divergence to their average.
    knowledge = np.mean(np.sum(xlogy(p, p) - xlogy(p, p_bar[None]), axis=-1), axis=0)
    return total, total - knowledge, knowledge
""",
        ),
    ],
}
