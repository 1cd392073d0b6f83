"""Wrong answers the deep-ensembles assignment's tests must catch.

Each mutant is (name, old, new): the reference solution cell with ``old``
replaced by ``new``. ``old`` must occur exactly once in that cell, so a
mutant that no longer matches the reference fails loudly instead of silently
testing the reference.
"""

_GAUSSIAN_BODY = (
    "    mean = np.mean(means, axis=0)\n    variance = np.mean(scales ** 2 + means ** 2, axis=0) - mean ** 2\n"
)
_LAPLACE_BODY = (
    "    mean = np.mean(locs, axis=0)\n    variance = np.mean(2 * scales ** 2 + locs ** 2, axis=0) - mean ** 2\n"
)
_SAFE_ENTROPY = "-np.sum(np.where(probs > 0, probs * np.log(np.where(probs > 0, probs, 1.0)), 0.0), axis=-1)"
_SPREAD_BODY = (
    "    member_means = np.asarray(member_means, dtype=np.float64)\n"
    "    num_members = member_means.shape[0]\n"
    "    return (size - 1) / size * num_members / (num_members - 1) * np.var(member_means, axis=0)\n"
)
_DECOMPOSITION_BODY = (
    "    total = entropy(member_probs.mean(axis=0))\n"
    "    data = entropy(member_probs).mean(axis=0)\n"
    "    knowledge = total - data\n"
)

MUTANTS = {
    "gaussian_mixture_moments": [
        ("missing -mu*^2", "axis=0) - mean ** 2", "axis=0)"),
        ("scale not squared", "scales ** 2 + means ** 2", "scales + means ** 2"),
        ("standard deviation instead of variance", "return mean, variance", "return mean, np.sqrt(variance)"),
        ("members' spread only", "np.mean(scales ** 2 + means ** 2, axis=0) - mean ** 2", "np.var(means, axis=0)"),
        (
            "average member variance only",
            "np.mean(scales ** 2 + means ** 2, axis=0) - mean ** 2",
            "np.mean(scales ** 2, axis=0)",
        ),
        ("members on the last axis", _GAUSSIAN_BODY, _GAUSSIAN_BODY.replace("axis=0", "axis=-1")),
        (
            "sample variance of the means",
            "np.mean(scales ** 2 + means ** 2, axis=0) - mean ** 2",
            "np.mean(scales ** 2, axis=0) + np.var(means, axis=0, ddof=1)",
        ),
        (
            "arguments swapped",
            "def gaussian_mixture_moments(means, scales):",
            "def gaussian_mixture_moments(scales, means):",
        ),
        (
            "members counted from the notebook's regression_ensemble_size",
            "mean = np.mean(means, axis=0)",
            "mean = np.sum(means, axis=0) / regression_ensemble_size",
        ),
        (
            "the notebook's member_scales instead of the argument",
            "scales = np.asarray(scales, dtype=np.float64)",
            "scales = np.asarray(member_scales, dtype=np.float64)",
        ),
        ("size-1 axes squeezed away", "return mean, variance", "return np.squeeze(mean), np.squeeze(variance)"),
        (
            "scales squared in place",
            _GAUSSIAN_BODY,
            "    scales **= 2  # in place: the caller's array, when it is already float64\n"
            + _GAUSSIAN_BODY.replace("scales ** 2", "scales"),
        ),
    ],
    "laplace_mixture_moments": [
        ("Laplace variance b^2 instead of 2b^2", "2 * scales ** 2", "scales ** 2"),
        ("Laplace variance 2b instead of 2b^2", "2 * scales ** 2", "2 * scales"),
        ("Laplace variance (2b)^2", "2 * scales ** 2", "(2 * scales) ** 2"),
        ("missing -mu*^2", "axis=0) - mean ** 2", "axis=0)"),
        ("members on the last axis", _LAPLACE_BODY, _LAPLACE_BODY.replace("axis=0", "axis=-1")),
        (
            "arguments swapped",
            "def laplace_mixture_moments(locs, scales):",
            "def laplace_mixture_moments(scales, locs):",
        ),
        (
            "members counted from the notebook's regression_ensemble_size",
            "mean = np.mean(locs, axis=0)",
            "mean = np.sum(locs, axis=0) / regression_ensemble_size",
        ),
        ("size-1 axes squeezed away", "return mean, variance", "return np.squeeze(mean), np.squeeze(variance)"),
        ("members' spread only", "np.mean(2 * scales ** 2 + locs ** 2, axis=0) - mean ** 2", "np.var(locs, axis=0)"),
        (
            "scales squared in place",
            _LAPLACE_BODY,
            "    scales **= 2  # in place: the caller's array, when it is already float64\n"
            + _LAPLACE_BODY.replace("scales ** 2", "scales"),
        ),
    ],
    "entropy": [
        ("log2 instead of the natural log", "np.log(np.where(", "np.log2(np.where("),
        ("unsafe at p = 0", _SAFE_ENTROPY, "-np.sum(probs * np.log(probs), axis=-1)"),
        ("summed over the first axis", "0.0), axis=-1)", "0.0), axis=0)"),
        ("sign error", "return -np.sum(", "return np.sum("),
        ("mean over the classes instead of the sum", "return -np.sum(", "return -np.mean("),
        ("clipped too coarsely", _SAFE_ENTROPY, "-np.sum(probs * np.log(np.clip(probs, 1e-3, 1.0)), axis=-1)"),
        (
            "class axis kept, then squeezed",
            _SAFE_ENTROPY,
            "np.squeeze(-np.sum(np.where(probs > 0, probs * np.log(np.where(probs > 0, probs, 1.0)), 0.0),"
            " axis=-1, keepdims=True))",
        ),
    ],
    "uncertainty_decomposition": [
        ("mean over the wrong axis", "entropy(member_probs.mean(axis=0))", "entropy(member_probs.mean(axis=1))"),
        ("data and knowledge swapped", "return total, data, knowledge", "return total, knowledge, data"),
        (
            "data uncertainty is the entropy of the mean",
            "data = entropy(member_probs).mean(axis=0)",
            "data = entropy(member_probs.mean(axis=0))",
        ),
        (
            "total is the mean entropy",
            "total = entropy(member_probs.mean(axis=0))",
            "total = entropy(member_probs).mean(axis=0)",
        ),
        ("knowledge sign error", "knowledge = total - data", "knowledge = data - total"),
        (
            "log2 unannounced",
            _DECOMPOSITION_BODY,
            "    total = entropy(member_probs.mean(axis=0)) / np.log(2)\n"
            "    data = entropy(member_probs).mean(axis=0) / np.log(2)\n"
            "    knowledge = total - data\n",
        ),
        (
            "knowledge from the first member only",
            "knowledge = total - data",
            "knowledge = total - entropy(member_probs[0])",
        ),
        (
            "members counted from the notebook's ensemble_size",
            "data = entropy(member_probs).mean(axis=0)",
            "data = entropy(member_probs).sum(axis=0) / ensemble_size",
        ),
        (
            "size-1 axes squeezed away",
            "return total, data, knowledge",
            "return np.squeeze(total), np.squeeze(data), np.squeeze(knowledge)",
        ),
    ],
    "expected_spread": [
        ("no finite-population factor", "(size - 1) / size * num_members / (num_members - 1) *", "(size - 1) / size *"),
        ("no subset factor", "(size - 1) / size * num_members", "num_members"),
        (
            "the sample variance of all members",
            "return (size - 1) / size * num_members / (num_members - 1) * np.var(member_means, axis=0)",
            "return np.var(member_means, axis=0, ddof=1)",
        ),
        ("subset factor inverted", "(size - 1) / size", "size / (size - 1)"),
        ("members on the last axis", "np.var(member_means, axis=0)", "np.var(member_means, axis=-1)"),
        (
            "members counted from the notebook",
            "num_members = member_means.shape[0]",
            "num_members = max(ensemble_sizes)",
        ),
        (
            "the spread of the first subset",
            "return (size - 1) / size * num_members / (num_members - 1) * np.var(member_means, axis=0)",
            "return np.var(member_means[:size], axis=0)",
        ),
        (
            "size-1 axes squeezed away",
            "return (size - 1) / size * num_members / (num_members - 1) * np.var(member_means, axis=0)",
            "return np.squeeze((size - 1) / size * num_members / (num_members - 1) * np.var(member_means, axis=0))",
        ),
    ],
}

# Other correct answers a student may write: the tests must pass them all.
ALTERNATIVES = {
    "gaussian_mixture_moments": [
        (
            "law of total variance",
            "np.mean(scales ** 2 + means ** 2, axis=0) - mean ** 2",
            "np.mean(scales ** 2, axis=0) + np.mean((means - mean) ** 2, axis=0)",
        ),
        (
            "TensorFlow ops, tensors returned",
            _GAUSSIAN_BODY + "    return mean, variance\n",
            "    mean = tf.reduce_mean(means, axis=0)\n"
            "    variance = tf.reduce_mean(tf.square(scales) + tf.square(means), axis=0) - tf.square(mean)\n"
            "    return mean, variance\n",
        ),
        (
            "TensorFlow Probability mixture",
            _GAUSSIAN_BODY + "    return mean, variance\n",
            "    import tensorflow_probability as tfp\n"
            "    tfd = tfp.distributions\n"
            "    loc, scale = np.moveaxis(means, 0, -1), np.moveaxis(scales, 0, -1)\n"
            "    mixture = tfd.MixtureSameFamily(tfd.Categorical(logits=np.zeros(loc.shape)),\n"
            "                                    tfd.Normal(loc=loc, scale=scale))\n"
            "    return mixture.mean(), mixture.variance()\n",
        ),
        (
            "inputs left as float32",
            "    means = np.asarray(means, dtype=np.float64)\n    scales = np.asarray(scales, dtype=np.float64)\n",
            "",
        ),
        (
            "float32 TensorFlow",
            "    means = np.asarray(means, dtype=np.float64)\n"
            "    scales = np.asarray(scales, dtype=np.float64)\n" + _GAUSSIAN_BODY,
            "    means = tf.cast(means, tf.float32)\n"
            "    scales = tf.cast(scales, tf.float32)\n"
            "    mean = tf.reduce_mean(means, axis=0)\n"
            "    variance = tf.reduce_mean(scales ** 2 + means ** 2, axis=0) - mean ** 2\n",
        ),
        (
            "a loop over the members",
            _GAUSSIAN_BODY,
            "    mean = sum(means[m] for m in range(len(means))) / len(means)\n"
            "    variance = sum(scales[m] ** 2 + (means[m] - mean) ** 2 for m in range(len(means))) / len(means)\n",
        ),
    ],
    "laplace_mixture_moments": [
        (
            "np.var of the locations",
            "np.mean(2 * scales ** 2 + locs ** 2, axis=0) - mean ** 2",
            "2 * np.mean(scales ** 2, axis=0) + np.var(locs, axis=0)",
        ),
        (
            "TensorFlow Probability mixture",
            _LAPLACE_BODY + "    return mean, variance\n",
            "    import tensorflow_probability as tfp\n"
            "    tfd = tfp.distributions\n"
            "    loc, scale = np.moveaxis(locs, 0, -1), np.moveaxis(scales, 0, -1)\n"
            "    mixture = tfd.MixtureSameFamily(tfd.Categorical(logits=np.zeros(loc.shape)),\n"
            "                                    tfd.Laplace(loc=loc, scale=scale))\n"
            "    return mixture.mean(), mixture.variance()\n",
        ),
        (
            "TensorFlow ops, tensors returned",
            _LAPLACE_BODY,
            "    mean = tf.reduce_mean(locs, axis=0)\n"
            "    variance = tf.reduce_mean(2 * tf.square(scales) + tf.square(locs), axis=0) - tf.square(mean)\n",
        ),
        (
            "a loop over the members",
            _LAPLACE_BODY,
            "    mean = sum(locs[m] for m in range(len(locs))) / len(locs)\n"
            "    variance = sum(2 * scales[m] ** 2 + (locs[m] - mean) ** 2 for m in range(len(locs))) / len(locs)\n",
        ),
        (
            "float32 TensorFlow",
            "    locs = np.asarray(locs, dtype=np.float64)\n"
            "    scales = np.asarray(scales, dtype=np.float64)\n" + _LAPLACE_BODY,
            "    locs = tf.cast(locs, tf.float32)\n"
            "    scales = tf.cast(scales, tf.float32)\n"
            "    mean = tf.reduce_mean(locs, axis=0)\n"
            "    variance = tf.reduce_mean(2 * scales ** 2 + locs ** 2, axis=0) - mean ** 2\n",
        ),
    ],
    "entropy": [
        (
            "scipy.special.xlogy",
            "    probs = np.asarray(probs, dtype=np.float64)\n    return " + _SAFE_ENTROPY,
            "    from scipy.special import xlogy\n    return -np.sum(xlogy(probs, probs), axis=-1)",
        ),
        (
            "tf.math.xlogy, a tensor returned",
            "    probs = np.asarray(probs, dtype=np.float64)\n    return " + _SAFE_ENTROPY,
            "    probs = tf.convert_to_tensor(probs)\n    return -tf.reduce_sum(tf.math.xlogy(probs, probs), axis=-1)",
        ),
        (
            "np.where without a safe log (warns, right values)",
            _SAFE_ENTROPY,
            "-np.sum(np.where(probs > 0, probs * np.log(probs), 0.0), axis=-1)",
        ),
        (
            "float32 TensorFlow with tf.where",
            "    probs = np.asarray(probs, dtype=np.float64)\n    return " + _SAFE_ENTROPY,
            "    probs = tf.cast(probs, tf.float32)\n"
            "    safe = tf.where(probs > 0, probs, tf.ones_like(probs))\n"
            "    return -tf.reduce_sum(tf.where(probs > 0, probs * tf.math.log(safe), 0.0), axis=-1)",
        ),
        ("a tiny epsilon inside the log", _SAFE_ENTROPY, "-np.sum(probs * np.log(probs + 1e-12), axis=-1)"),
        (
            "TensorFlow Probability Categorical",
            "    probs = np.asarray(probs, dtype=np.float64)\n    return " + _SAFE_ENTROPY,
            "    import tensorflow_probability as tfp\n"
            "    return tfp.distributions.Categorical(probs=np.asarray(probs, dtype=np.float64)).entropy()",
        ),
    ],
    "uncertainty_decomposition": [
        (
            "TensorFlow ops on tensors",
            "    member_probs = np.asarray(member_probs, dtype=np.float64)\n" + _DECOMPOSITION_BODY,
            "    member_probs = tf.convert_to_tensor(member_probs)\n"
            "    total = entropy(tf.reduce_mean(member_probs, axis=0))\n"
            "    data = tf.reduce_mean(entropy(member_probs), axis=0)\n"
            "    knowledge = total - data\n",
        ),
        (
            "np.mean of a list of member entropies",
            "data = entropy(member_probs).mean(axis=0)",
            "data = np.mean([entropy(p) for p in member_probs], axis=0)",
        ),
        (
            "scipy.stats.entropy, not the student's entropy",
            _DECOMPOSITION_BODY,
            "    import scipy.stats\n"
            "    total = scipy.stats.entropy(member_probs.mean(axis=0), axis=-1)\n"
            "    data = scipy.stats.entropy(member_probs, axis=-1).mean(axis=0)\n"
            "    knowledge = np.maximum(total - data, 0.0)\n",
        ),
        (
            "a loop over the members",
            _DECOMPOSITION_BODY,
            "    num_members = len(member_probs)\n"
            "    total = entropy(sum(member_probs[m] for m in range(num_members)) / num_members)\n"
            "    data = sum(entropy(member_probs[m]) for m in range(num_members)) / num_members\n"
            "    knowledge = total - data\n",
        ),
        (
            "float32 tensors",
            "    member_probs = np.asarray(member_probs, dtype=np.float64)\n" + _DECOMPOSITION_BODY,
            "    member_probs = tf.convert_to_tensor(member_probs, dtype=tf.float32)\n"
            "    total = entropy(tf.reduce_mean(member_probs, axis=0))\n"
            "    data = tf.reduce_mean(entropy(member_probs), axis=0)\n"
            "    knowledge = total - data\n",
        ),
    ],
    "expected_spread": [
        (
            "every subset enumerated",
            _SPREAD_BODY,
            "    import itertools\n"
            "    member_means = np.asarray(member_means, dtype=np.float64)\n"
            "    subsets = itertools.combinations(range(len(member_means)), size)\n"
            "    return np.mean([np.var(member_means[list(subset)], axis=0) for subset in subsets], axis=0)\n",
        ),
        (
            "the sample variance times (M - 1)/M",
            "return (size - 1) / size * num_members / (num_members - 1) * np.var(member_means, axis=0)",
            "return (size - 1) / size * np.var(member_means, axis=0, ddof=1)",
        ),
        (
            "TensorFlow, float32",
            _SPREAD_BODY,
            "    member_means = tf.cast(member_means, tf.float32)\n"
            "    num_members = tf.cast(tf.shape(member_means)[0], tf.float32)\n"
            "    return (1 - 1 / size) * num_members / (num_members - 1) * tf.math.reduce_variance(member_means, axis=0)\n",
        ),
        (
            "the mean squared difference over pairs",
            _SPREAD_BODY,
            "    member_means = np.asarray(member_means, dtype=np.float64)\n"
            "    n = len(member_means)\n"
            "    differences = member_means[:, None] - member_means[None, :]\n"
            "    return (size - 1) / (2 * size) * np.sum(differences ** 2, axis=(0, 1)) / (n * (n - 1))\n",
        ),
    ],
}

# The mistake each mutant makes, by its name in bdl.diagnoses.deep_ensembles (check-tests counts
# the killed mutants whose failure names it).
_MOMENTS = {
    "missing -mu*^2": "missing_squared_mean",
    "members' spread only": "spread_only",
    "members on the last axis": "members_on_last_axis",
    "arguments swapped": "arguments_swapped",
    "members counted from the notebook's regression_ensemble_size": "members_from_the_notebook",
    "size-1 axes squeezed away": "size_one_axes_lost",
    "scales squared in place": "changes_its_arguments",
}
DIAGNOSES = {
    "gaussian_mixture_moments": {
        **_MOMENTS,
        "scale not squared": "scale_not_squared",
        "standard deviation instead of variance": "standard_deviation",
        "average member variance only": "average_variance_only",
        "sample variance of the means": "sample_variance",
    },
    "laplace_mixture_moments": {
        **_MOMENTS,
        "Laplace variance b^2 instead of 2b^2": "gaussian_member_variance",
        "Laplace variance 2b instead of 2b^2": "linear_member_variance",
        "Laplace variance (2b)^2": "member_variance_too_large",
    },
    "entropy": {
        "log2 instead of the natural log": "bits",
        "unsafe at p = 0": "nan_at_zero",
        "summed over the first axis": "wrong_axis",
        "sign error": "negated",
        "mean over the classes instead of the sum": "mean_over_classes",
        "clipped too coarsely": "clipped",
        "class axis kept, then squeezed": "size_one_axes_lost",
    },
    "uncertainty_decomposition": {
        "mean over the wrong axis": "wrong_axis",
        "data and knowledge swapped": "data_and_knowledge_swapped",
        "data uncertainty is the entropy of the mean": "data_is_entropy_of_mean",
        "total is the mean entropy": "total_is_mean_entropy",
        "knowledge sign error": "knowledge_negated",
        "log2 unannounced": "bits",
        "knowledge from the first member only": "members_reordered",
        "members counted from the notebook's ensemble_size": "members_from_the_notebook",
        "size-1 axes squeezed away": "size_one_axes_lost",
    },
    "expected_spread": {
        "no finite-population factor": "no_finite_population_factor",
        "no subset factor": "size_ignored",
        "the sample variance of all members": "size_ignored",
        "subset factor inverted": "not_finite_for_one",
        "members on the last axis": "members_on_last_axis",
        "members counted from the notebook": "members_from_the_notebook",
        "the spread of the first subset": "one_subset",
        "size-1 axes squeezed away": "size_one_axes_lost",
    },
}
