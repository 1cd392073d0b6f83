"""Blind one-bug answers for 02_deep_ensembles, written from the release notebook alone (see README.md beside this file)."""

# function: the nbgrader grade_id of the graded answer cell (its cell metadata "nbgrader": {"grade_id": ...}).
# Each answer: (name, mistake, source). ``mistake`` says, in one plain sentence, the bug as its writer meant it.
# ``source`` is the whole graded cell as the student would submit it: the release cell with the student's
# code in place of every "# YOUR CODE HERE" / "raise NotImplementedError()".
ANSWERS = {
    "gaussian_mixture_moments": [
        ("returns std", "Returns the square root of the mixture variance (a standard deviation) instead of the variance.", '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    mean = np.mean(means, axis=0)
    variance = np.mean(scales ** 2 + means ** 2, axis=0) - mean ** 2
    return mean, np.sqrt(variance)
'''),
        ("second moment only", "Forgets to subtract the squared mixture mean, returning E[y^2] = mean(sigma^2 + mu^2) instead of the variance.", '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    mean = means.mean(axis=0)
    second_moment = (scales ** 2 + means ** 2).mean(axis=0)
    return mean, second_moment
'''),
        ("sample variance of means", "Adds the spread of the means with np.var(..., ddof=1) (dividing by M - 1) instead of the mixture's 1/M spread.", '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    mean = np.mean(means, axis=0)
    variance = np.mean(np.square(scales), axis=0) + np.var(means, axis=0, ddof=1)
    return mean, variance
'''),
        ("wrong member axis", "Averages over the last axis (the inputs) instead of axis 0 (the members).", '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    mean = np.mean(means, axis=-1)
    variance = np.mean(scales ** 2 + means ** 2, axis=-1) - mean ** 2
    return mean, variance
'''),
        ("scale as variance", "Uses the scales themselves as the members' variances (sigma instead of sigma^2).", '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    means = tf.convert_to_tensor(means)
    scales = tf.convert_to_tensor(scales)
    mean = tf.reduce_mean(means, axis=0)
    variance = tf.reduce_mean(scales + tf.square(means), axis=0) - tf.square(mean)
    return mean, variance
'''),
    ],
    "laplace_mixture_moments": [
        ("b squared as variance", "Uses b^2 as each Laplace member's variance instead of 2 b^2.", '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    mean = np.mean(locs, axis=0)
    variance = np.mean(scales ** 2 + locs ** 2, axis=0) - mean ** 2
    return mean, variance
'''),
        ("2b not squared", "Uses 2 b (not squared) as each member's variance instead of 2 b^2.", '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    mean = np.mean(locs, axis=0)
    member_variance = 2 * scales
    variance = np.mean(member_variance, axis=0) + np.mean((locs - mean) ** 2, axis=0)
    return mean, variance
'''),
        ("spread of means dropped", "Returns only the members' average variance mean(2 b^2), leaving out the spread of the locations around the mixture mean.", '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    mean = np.mean(locs, axis=0)
    variance = np.mean(2.0 * np.square(scales), axis=0)
    return mean, variance
'''),
    ],
    "entropy": [
        ("bits not nats", "Computes the entropy with log base 2 (bits) instead of the natural logarithm (nats).", '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    safe = np.where(probs > 0, probs, 1.0)
    return -np.sum(probs * np.log2(safe), axis=-1)
'''),
        ("nan at zero", "Computes -sum p log p directly with np.log, giving nan where a probability is exactly 0.", '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    return -np.sum(probs * np.log(probs), axis=-1)
'''),
        ("sum over first axis", "Sums over axis 0 instead of the last (class) axis.", '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = tf.convert_to_tensor(probs)
    return -tf.reduce_sum(tf.math.xlogy(probs, probs), axis=0)
'''),
    ],
    "uncertainty_decomposition": [
        ("knowledge sign flipped", "Computes knowledge uncertainty as data minus total instead of total minus data.", '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    total = entropy(np.mean(member_probs, axis=0))
    data = np.mean(entropy(member_probs), axis=0)
    knowledge = data - total
    return total, data, knowledge
'''),
        ("order of averaging swapped", "Takes total as the members' average entropy and data as the entropy of the averaged prediction (the two definitions swapped).", '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    total = np.mean(entropy(member_probs), axis=0)
    data = entropy(np.mean(member_probs, axis=0))
    knowledge = total - data
    return total, data, knowledge
'''),
        ("averages over inputs", "Averages the member predictions and entropies over axis 1 (the inputs) instead of axis 0 (the members).", '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    mean_probs = member_probs.mean(axis=1)
    total = entropy(mean_probs)
    data = np.asarray(entropy(member_probs)).mean(axis=1)
    return total, data, total - data
'''),
    ],
}

# Correct answers in idioms of their own (the same cell format): they must earn full marks.
CORRECT = {
    "gaussian_mixture_moments": [
        ("numpy", '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    mean = np.mean(means, axis=0)
    variance = np.mean(scales ** 2, axis=0) + np.mean((means - mean) ** 2, axis=0)
    return mean, variance
'''),
        ("tfp mixture", '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    means = np.moveaxis(np.asarray(means, dtype=np.float64), 0, -1)
    scales = np.moveaxis(np.asarray(scales, dtype=np.float64), 0, -1)
    mixture = tfd.MixtureSameFamily(
        mixture_distribution=tfd.Categorical(logits=np.zeros(means.shape, dtype=np.float64)),
        components_distribution=tfd.Normal(loc=means, scale=scales))
    return mixture.mean().numpy(), mixture.variance().numpy()
'''),
        ("tf second moment", '''def gaussian_mixture_moments(means, scales):
    """Return (mean, variance) of the uniform mixture of N(means[m], scales[m]**2); members on axis 0."""
    means, scales = tf.constant(means), tf.constant(scales)
    mean = tf.reduce_mean(means, axis=0)
    variance = tf.reduce_mean(tf.square(scales) + tf.square(means), axis=0) - tf.square(mean)
    return mean, variance
'''),
    ],
    "laplace_mixture_moments": [
        ("reuse gaussian", '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    # A Laplace(mu, b) has the variance of a Gaussian with standard deviation sqrt(2) b.
    return gaussian_mixture_moments(locs, np.sqrt(2.0) * scales)
'''),
        ("tfp laplace mixture", '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    locs = np.moveaxis(np.asarray(locs, dtype=np.float64), 0, -1)
    scales = np.moveaxis(np.asarray(scales, dtype=np.float64), 0, -1)
    mixture = tfd.MixtureSameFamily(tfd.Categorical(logits=np.zeros(locs.shape)),
                                    tfd.Laplace(loc=locs, scale=scales))
    return mixture.mean().numpy(), mixture.variance().numpy()
'''),
        ("loop over members", '''def laplace_mixture_moments(locs, scales):
    """Return (mean, variance) of the uniform mixture of Laplace(locs[m], scales[m]); members on axis 0."""
    M = len(locs)
    first = sum(locs[m] for m in range(M)) / M
    second = sum(2 * scales[m] ** 2 + locs[m] ** 2 for m in range(M)) / M
    return first, second - first ** 2
'''),
    ],
    "entropy": [
        ("np.where", '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = np.asarray(probs)
    log_p = np.log(np.where(probs > 0, probs, 1.0))
    return -np.sum(probs * log_p, axis=-1)
'''),
        ("scipy xlogy", '''from scipy.special import xlogy

def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    return -xlogy(probs, probs).sum(axis=-1)
'''),
        ("tf xlogy", '''def entropy(probs):
    """Return the entropy in nats of the probability vectors along the last axis of probs."""
    probs = tf.convert_to_tensor(probs)
    return -tf.reduce_sum(tf.math.xlogy(probs, probs), axis=-1)
'''),
    ],
    "uncertainty_decomposition": [
        ("numpy", '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    total = np.asarray(entropy(np.mean(member_probs, axis=0)))
    data = np.mean(np.asarray(entropy(member_probs)), axis=0)
    return total, data, total - data
'''),
        ("loop over members", '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    M = member_probs.shape[0]
    total = np.asarray(entropy(member_probs.mean(axis=0)))
    data = sum(np.asarray(entropy(member_probs[m])) for m in range(M)) / M
    knowledge = total - data
    return total, data, knowledge
'''),
        ("tensorflow", '''def uncertainty_decomposition(member_probs):
    """Return (total, data, knowledge) uncertainty in nats, each [N], from member_probs [M, N, K]."""
    member_probs = tf.convert_to_tensor(member_probs)
    total = tf.convert_to_tensor(entropy(tf.reduce_mean(member_probs, axis=0)))
    data = tf.reduce_mean(tf.convert_to_tensor(entropy(member_probs)), axis=0)
    return total, data, total - data
'''),
    ],
}
