"""Wrong answers the approximate-posteriors assignment's tests must catch, and correct
alternatives they must pass.

Each variant is (name, old, new): the reference solution cell with ``old``
replaced by ``new``; ``old`` must occur exactly once in that cell.
"""

LOG_JOINT_BODY = (
    "    outputs = mlp(weights, x)                                            # [B, N]\n"
    "    targets = tf.transpose(tf.convert_to_tensor(y, tf.float32))          # [1, N]\n"
    "    log_likelihood = tf.reduce_sum(tfd.Normal(outputs, noise_std).log_prob(targets), axis=1)\n"
    "    log_prior = tf.reduce_sum(tfd.Normal(0.0, prior_std).log_prob(weights), axis=1)\n"
    "    return log_likelihood + log_prior\n"
)
DROPOUT_BODY = (
    "    outputs = np.stack([np.asarray(model(x, training=True), np.float64)[:, 0] for _ in range(num_passes)])\n"
    "    return outputs.mean(axis=0), outputs.var(axis=0) + noise_std ** 2\n"
)
LAPLACE_BODY = (
    "    features, new_features = np.asarray(features, np.float64), np.asarray(new_features, np.float64)\n"
    "    precision = features.T @ features / noise_std ** 2 + np.eye(features.shape[1]) / prior_std ** 2\n"
    "    covariance = np.linalg.inv(precision)\n"
    '    variance = np.einsum("mk,kl,ml->m", new_features, covariance, new_features) + noise_std ** 2\n'
    "    return precision, covariance, variance\n"
)
W2_BODY = (
    "    mean_p, std_p, mean_q, std_q = (np.asarray(a, np.float64) for a in (mean_p, std_p, mean_q, std_q))\n"
    "    return np.sqrt((mean_p - mean_q) ** 2 + (std_p - std_q) ** 2)\n"
)
CONFORMAL_BODY = (
    "    scores = np.sort(np.asarray(scores, np.float64))\n"
    "    k = int(np.ceil((len(scores) + 1) * (1 - alpha)))\n"
    "    return float(scores[k - 1]) if k <= len(scores) else float(np.inf)\n"
)

# Whole bodies without their last newline: a handed-in notebook (``cells.answered``) ends the cell there.
LOG_JOINT_BODY, DROPOUT_BODY, LAPLACE_BODY, W2_BODY, CONFORMAL_BODY = (
    body.rstrip("\n") for body in (LOG_JOINT_BODY, DROPOUT_BODY, LAPLACE_BODY, W2_BODY, CONFORMAL_BODY)
)

MUTANTS = {
    "log_joint": [
        (
            "likelihood without its normalising constant",
            "tfd.Normal(outputs, noise_std).log_prob(targets)",
            "-0.5 * ((targets - outputs) / noise_std) ** 2",
        ),
        (
            "prior without its normalising constant",
            "tfd.Normal(0.0, prior_std).log_prob(weights)",
            "-0.5 * (weights / prior_std) ** 2",
        ),
        ("variance for sd in the likelihood", "tfd.Normal(outputs, noise_std)", "tfd.Normal(outputs, noise_std ** 2)"),
        ("prior left out", "return log_likelihood + log_prior", "return log_likelihood"),
        # Right in shape only when B equals N (as in the visible test), where each output meets every target.
        (
            "targets kept as a column",
            "targets = tf.transpose(tf.convert_to_tensor(y, tf.float32))",
            "targets = tf.convert_to_tensor(y, tf.float32)",
        ),
        (
            "mean over the points, not the sum",
            "log_likelihood = tf.reduce_sum(",
            "log_likelihood = tf.reduce_mean(",
        ),
        (
            "summed over the batch too",
            "return log_likelihood + log_prior",
            "return tf.reduce_sum(log_likelihood + log_prior)",
        ),
        (
            "float64 result",
            "return log_likelihood + log_prior",
            "return tf.cast(log_likelihood + log_prior, tf.float64)",
        ),
        (
            "through NumPy: no gradient",
            "    return log_likelihood + log_prior",
            "    return tf.constant((log_likelihood + log_prior).numpy())",
        ),
    ],
    "mc_dropout_moments": [
        ("variance divided by T - 1", "outputs.var(axis=0)", "outputs.var(axis=0, ddof=1)"),
        ("noise variance left out", "outputs.var(axis=0) + noise_std ** 2", "outputs.var(axis=0)"),
        ("noise sd added, not its square", "outputs.var(axis=0) + noise_std ** 2", "outputs.var(axis=0) + noise_std"),
        ("dropout off", "model(x, training=True)", "model(x)"),
        (
            "the sd, not the variance",
            "outputs.var(axis=0) + noise_std ** 2",
            "np.sqrt(outputs.var(axis=0) + noise_std ** 2)",
        ),
        (
            "outputs kept as [N, 1]",
            "np.asarray(model(x, training=True), np.float64)[:, 0]",
            "np.asarray(model(x, training=True), np.float64)",
        ),
        (
            "tensors, not NumPy arrays",
            "return outputs.mean(axis=0), outputs.var(axis=0) + noise_std ** 2",
            "return tf.constant(outputs.mean(axis=0)), tf.constant(outputs.var(axis=0) + noise_std ** 2)",
        ),
    ],
    "last_layer_laplace": [
        (
            "prior precision left out",
            "features.T @ features / noise_std ** 2 + np.eye(features.shape[1]) / prior_std ** 2",
            "features.T @ features / noise_std ** 2",
        ),
        ("noise sd not squared", "features.T @ features / noise_std ** 2", "features.T @ features / noise_std"),
        ("prior sd not squared", "np.eye(features.shape[1]) / prior_std ** 2", "np.eye(features.shape[1]) / prior_std"),
        ("covariance = precision", "covariance = np.linalg.inv(precision)", "covariance = precision.copy()"),
        (
            "noise left out of the predictive variance",
            "new_features, covariance, new_features) + noise_std ** 2",
            "new_features, covariance, new_features)",
        ),
        (
            "predictive variance with the precision",
            "new_features, covariance, new_features)",
            "new_features, precision, new_features)",
        ),
        (
            "the whole M x M matrix, not its diagonal",
            '    variance = np.einsum("mk,kl,ml->m", new_features, covariance, new_features) + noise_std ** 2\n',
            "    variance = new_features @ covariance @ new_features.T + noise_std ** 2\n",
        ),
    ],
    "gaussian_w2": [
        (
            "variances, not standard deviations",
            "(std_p - std_q) ** 2)",
            "(std_p ** 2 - std_q ** 2) ** 2)",
        ),
        (
            "no square root",
            "return np.sqrt((mean_p - mean_q) ** 2 + (std_p - std_q) ** 2)",
            "return (mean_p - mean_q) ** 2 + (std_p - std_q) ** 2",
        ),
        (
            "absolute differences added",
            "return np.sqrt((mean_p - mean_q) ** 2 + (std_p - std_q) ** 2)",
            "return np.abs(mean_p - mean_q) + np.abs(std_p - std_q)",
        ),
        ("sum of the sds", "(std_p - std_q) ** 2)", "(std_p + std_q) ** 2)"),
        (
            "one number for all points",
            "return np.sqrt((mean_p - mean_q) ** 2 + (std_p - std_q) ** 2)",
            "return np.mean(np.sqrt((mean_p - mean_q) ** 2 + (std_p - std_q) ** 2))",
        ),
    ],
    "conformal_quantile": [
        (
            "plain empirical quantile",
            CONFORMAL_BODY,
            "    return float(np.quantile(scores, 1 - alpha))\n",
        ),
        ("n instead of n + 1", "np.ceil((len(scores) + 1) * (1 - alpha))", "np.ceil(len(scores) * (1 - alpha))"),
        (
            "one rank too high",
            "return float(scores[k - 1]) if k <= len(scores)",
            "return float(scores[min(k, len(scores) - 1)]) if k <= len(scores)",
        ),
        (
            "floor instead of ceiling",
            "int(np.ceil((len(scores) + 1) * (1 - alpha)))",
            "int((len(scores) + 1) * (1 - alpha))",
        ),
        (
            "the largest score when there are too few",
            "return float(scores[k - 1]) if k <= len(scores) else float(np.inf)",
            "return float(scores[min(k, len(scores)) - 1])",
        ),
        (
            "sorts the caller's array in place",
            "    scores = np.sort(np.asarray(scores, np.float64))\n",
            "    scores = np.asarray(scores, np.float64)\n    scores.sort()\n",
        ),
    ],
}

ALTERNATIVES = {
    "log_joint": [
        (
            "the Gaussian log densities by hand",
            LOG_JOINT_BODY,
            "    residual = tf.transpose(tf.cast(y, tf.float32)) - mlp(weights, x)\n"
            "    n, d = tf.cast(tf.shape(residual)[1], tf.float32), tf.cast(tf.shape(weights)[1], tf.float32)\n"
            "    log_lik = -0.5 * tf.reduce_sum(tf.square(residual), axis=1) / noise_std ** 2 - n * (\n"
            "        np.log(noise_std) + 0.5 * np.log(2 * np.pi))\n"
            "    log_pri = -0.5 * tf.reduce_sum(tf.square(weights), axis=1) / prior_std ** 2 - d * (\n"
            "        np.log(prior_std) + 0.5 * np.log(2 * np.pi))\n"
            "    return log_lik + log_pri\n",
        ),
        (
            "multivariate normals with diagonal scales",
            LOG_JOINT_BODY,
            "    outputs = mlp(weights, x)\n"
            "    likelihood = tfd.MultivariateNormalDiag(loc=outputs, scale_diag=noise_std * tf.ones_like(outputs))\n"
            "    prior = tfd.MultivariateNormalDiag(loc=tf.zeros_like(weights), scale_diag=prior_std * tf.ones_like(weights))\n"
            "    return likelihood.log_prob(tf.reshape(tf.cast(y, tf.float32), [1, -1])) + prior.log_prob(weights)\n",
        ),
        (
            "tfd.Independent over the points, prior by tf.map_fn",
            LOG_JOINT_BODY,
            "    outputs = mlp(weights, x)\n"
            "    likelihood = tfd.Independent(tfd.Normal(outputs, noise_std), reinterpreted_batch_ndims=1)\n"
            "    log_prior = tf.map_fn(lambda w: tf.reduce_sum(tfd.Normal(0.0, prior_std).log_prob(w)), weights)\n"
            "    return likelihood.log_prob(tf.cast(y[:, 0], tf.float32)) + log_prior\n",
        ),
    ],
    "mc_dropout_moments": [
        (
            "running sums of the outputs and their squares",
            DROPOUT_BODY,
            "    total, squares = 0.0, 0.0\n"
            "    for _ in range(num_passes):\n"
            "        f = np.ravel(model(x, training=True).numpy()).astype(np.float64)\n"
            "        total, squares = total + f, squares + f ** 2\n"
            "    mean = total / num_passes\n"
            "    return mean, np.maximum(squares / num_passes - mean ** 2, 0.0) + noise_std ** 2\n",
        ),
        (
            "one call on a tiled batch, tf.nn.moments",
            DROPOUT_BODY,
            "    tiled = np.concatenate([x] * num_passes, axis=0)\n"
            "    outputs = tf.reshape(tf.cast(model(tiled, training=True), tf.float64), (num_passes, len(x)))\n"
            "    mean, variance = tf.nn.moments(outputs, axes=[0])\n"
            "    return mean.numpy(), variance.numpy() + noise_std ** 2\n",
        ),
        (
            "Welford's running mean and variance",
            DROPOUT_BODY,
            "    mean, m2 = np.zeros(len(x)), np.zeros(len(x))\n"
            "    for t in range(1, num_passes + 1):\n"
            "        f = np.asarray(model(x, training=True), np.float64).reshape(-1)\n"
            "        delta = f - mean\n"
            "        mean = mean + delta / t\n"
            "        m2 = m2 + delta * (f - mean)\n"
            "    return mean, m2 / num_passes + noise_std ** 2\n",
        ),
    ],
    "last_layer_laplace": [
        (
            "np.linalg.solve instead of an inverse for the variance",
            LAPLACE_BODY,
            "    phi, phi_new = np.asarray(features, np.float64), np.asarray(new_features, np.float64)\n"
            "    precision = np.dot(phi.T, phi) / noise_std ** 2 + np.identity(phi.shape[1]) / prior_std ** 2\n"
            "    covariance = np.linalg.solve(precision, np.identity(phi.shape[1]))\n"
            "    variance = np.sum(phi_new * np.linalg.solve(precision, phi_new.T).T, axis=1) + noise_std ** 2\n"
            "    return precision, covariance, variance\n",
        ),
        (
            "a Cholesky factor",
            LAPLACE_BODY,
            "    phi, phi_new = np.asarray(features, np.float64), np.asarray(new_features, np.float64)\n"
            "    precision = (phi / noise_std).T @ (phi / noise_std) + np.diag(np.full(phi.shape[1], prior_std ** -2.0))\n"
            "    factor = np.linalg.cholesky(precision)\n"
            "    whitened = np.linalg.solve(factor, phi_new.T)\n"
            "    inverse_factor = np.linalg.inv(factor)\n"
            "    return precision, inverse_factor.T @ inverse_factor, np.sum(whitened ** 2, axis=0) + noise_std ** 2\n",
        ),
        (
            "TensorFlow's linear algebra, outer products summed in a loop",
            LAPLACE_BODY,
            "    phi = tf.constant(features, tf.float64)\n"
            "    precision = tf.eye(phi.shape[1], dtype=tf.float64) / prior_std ** 2\n"
            "    for i in range(phi.shape[0]):\n"
            "        precision += tf.tensordot(phi[i], phi[i], axes=0) / noise_std ** 2\n"
            "    covariance = tf.linalg.inv(precision)\n"
            "    phi_new = tf.constant(new_features, tf.float64)\n"
            "    variance = tf.reduce_sum(tf.matmul(phi_new, covariance) * phi_new, axis=1) + noise_std ** 2\n"
            "    return precision.numpy(), covariance.numpy(), variance.numpy()\n",
        ),
    ],
    "gaussian_w2": [
        ("np.hypot", W2_BODY, "    return np.hypot(np.subtract(mean_p, mean_q), np.subtract(std_p, std_q))\n"),
        (
            "TensorFlow",
            W2_BODY,
            "    difference = tf.constant(np.subtract(mean_p, mean_q), tf.float64)\n"
            "    spread = tf.constant(np.subtract(std_p, std_q), tf.float64)\n"
            "    return tf.sqrt(tf.square(difference) + tf.square(spread)).numpy()\n",
        ),
        (
            "the norm of the stacked differences",
            W2_BODY,
            "    return np.linalg.norm(np.stack([np.subtract(mean_p, mean_q), np.subtract(std_p, std_q)]), axis=0)\n",
        ),
    ],
    "conformal_quantile": [
        (
            "np.partition",
            CONFORMAL_BODY,
            "    import math\n"
            "    n = len(scores)\n"
            "    k = math.ceil((n + 1) * (1 - alpha))\n"
            "    if k > n:\n"
            "        return math.inf\n"
            "    return float(np.partition(scores, k - 1)[k - 1])\n",
        ),
        (
            "heapq.nsmallest",
            CONFORMAL_BODY,
            "    import heapq\n"
            "    rank = -int(-(len(scores) + 1) * (1 - alpha) // 1)\n"
            "    return float(heapq.nsmallest(rank, list(scores))[-1]) if rank <= len(scores) else float('inf')\n",
        ),
        (
            "tf.sort and a Python list",
            CONFORMAL_BODY,
            "    ordered = tf.sort(tf.constant(scores, tf.float64)).numpy().tolist()\n"
            "    k = int(np.ceil((len(ordered) + 1) * (1 - alpha)))\n"
            "    if k > len(ordered):\n"
            "        return float(np.inf)\n"
            "    return float(ordered[k - 1])\n",
        ),
    ],
}

# The mistake each mutant makes, by its name in bdl.diagnoses.approximate_posteriors (check-tests counts
# the killed mutants whose failure names it).
DIAGNOSES = {
    "log_joint": {
        "likelihood without its normalising constant": "likelihood_constant",
        "prior without its normalising constant": "prior_constant",
        "variance for sd in the likelihood": "variance_for_sd",
        "prior left out": "no_prior",
        "targets kept as a column": "targets_as_column",
        "mean over the points, not the sum": "mean_not_sum",
        "summed over the batch too": "one_number",
        "float64 result": "not_float32",
        "through NumPy: no gradient": "no_gradient",
    },
    "mc_dropout_moments": {
        "variance divided by T - 1": "ddof_one",
        "noise variance left out": "no_noise",
        "noise sd added, not its square": "noise_sd_added",
        "dropout off": "dropout_off",
        "the sd, not the variance": "sd_not_variance",
        "outputs kept as [N, 1]": "shape_kept",
        "tensors, not NumPy arrays": "not_numpy",
    },
    "last_layer_laplace": {
        "prior precision left out": "no_prior",
        "noise sd not squared": "noise_not_squared",
        "prior sd not squared": "prior_not_squared",
        "covariance = precision": "covariance_not_inverse",
        "noise left out of the predictive variance": "no_noise",
        "predictive variance with the precision": "variance_with_precision",
        "the whole M x M matrix, not its diagonal": "matrix_not_diagonal",
    },
    "gaussian_w2": {
        "variances, not standard deviations": "variances",
        "no square root": "no_root",
        "absolute differences added": "absolute_differences",
        "sum of the sds": "sum_of_sds",
        "one number for all points": "one_number",
    },
    "conformal_quantile": {
        "plain empirical quantile": "plain_quantile",
        "n instead of n + 1": "n_not_n_plus_one",
        "one rank too high": "rank_too_high",
        "floor instead of ceiling": "floor",
        "the largest score when there are too few": "no_infinity",
        "sorts the caller's array in place": "sorts_in_place",
    },
}
