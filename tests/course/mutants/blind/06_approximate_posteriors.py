"""Blind one-bug answers for 06_approximate_posteriors, written from the release notebook alone (see README.md beside this file)."""

# function: the nbgrader grade_id of the graded answer cell (its cell metadata "nbgrader": {"grade_id": ...}).
# Each answer: (name, mistake, source). ``mistake`` says, in one plain sentence, the bug as its writer meant it.
# ``source`` is the whole graded cell as the student would submit it: the release cell with the student's
# code in place of every "# YOUR CODE HERE" / "raise NotImplementedError()".
ANSWERS = {
    "log_joint": [
        ("normalising constants dropped", "Drops every normalising constant (the -log(sigma sqrt(2 pi)) of each point and the -log(s sqrt(2 pi)) of each weight), keeping only the squared terms.", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    f = mlp(weights, x)
    residuals = f - tf.reshape(y, [1, -1])
    log_likelihood = -tf.reduce_sum(residuals ** 2, axis=1) / (2 * noise_std ** 2)
    log_prior = -tf.reduce_sum(weights ** 2, axis=1) / (2 * prior_std ** 2)
    return log_likelihood + log_prior
'''),
        ("mean over the points", "Averages the log-likelihood over the N points instead of summing it, so the data count as one point against the prior.", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    outputs = mlp(weights, x)
    likelihood = tfd.Normal(loc=outputs, scale=noise_std)
    prior = tfd.Normal(loc=0.0, scale=prior_std)
    log_likelihood = tf.reduce_mean(likelihood.log_prob(tf.transpose(y)), axis=1)
    log_prior = tf.reduce_sum(prior.log_prob(weights), axis=1)
    return log_likelihood + log_prior
'''),
        ("variance as the scale", "Passes the variances noise_std**2 and prior_std**2 as the scales of the Normal distributions, which take standard deviations.", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    f = mlp(weights, x)
    log_likelihood = tf.reduce_sum(tfd.Normal(f, noise_std ** 2).log_prob(y[:, 0]), axis=-1)
    log_prior = tf.reduce_sum(tfd.Normal(0.0, prior_std ** 2).log_prob(weights), axis=-1)
    return log_likelihood + log_prior
'''),
        ("targets not transposed", "Subtracts y of shape [N, 1] from the outputs of shape [B, N] without reshaping it, so the residuals broadcast to a wrong [N, N] (or fail) instead of pairing each output with its own target.", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    n = x.shape[0]
    d = weights.shape[1]
    f = mlp(weights, x)
    sq_err = tf.reduce_sum(tf.square(f - y), axis=1)
    log_lik = -n * np.log(noise_std * np.sqrt(2 * np.pi)) - sq_err / (2 * noise_std ** 2)
    log_prior = -d * np.log(prior_std * np.sqrt(2 * np.pi)) - tf.reduce_sum(tf.square(weights), axis=1) / (2 * prior_std ** 2)
    return log_lik + log_prior
'''),
        ("float64 result", "Computes and returns the log joint in float64 instead of the float32 tensor asked for.", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    w = tf.cast(weights, tf.float64)
    f = tf.cast(mlp(weights, x), tf.float64)
    targets = tf.constant(np.asarray(y, np.float64).reshape(1, -1))
    log_likelihood = tf.reduce_sum(tfd.Normal(f, tf.constant(noise_std, tf.float64)).log_prob(targets), axis=1)
    log_prior = tf.reduce_sum(tfd.Normal(tf.constant(0.0, tf.float64), tf.constant(prior_std, tf.float64)).log_prob(w), axis=1)
    return log_likelihood + log_prior
'''),
        ("prior summed over the batch", "Sums the squared weights over the whole batch instead of per weight vector, so every vector's log prior depends on the other vectors of the batch.", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    f = mlp(weights, x)
    num_points = tf.cast(tf.shape(f)[1], tf.float32)
    num_weights = tf.cast(tf.shape(weights)[1], tf.float32)
    log_lik = (-0.5 * tf.reduce_sum((f - tf.transpose(y)) ** 2, axis=1) / noise_std ** 2
               - num_points * tf.math.log(noise_std * tf.sqrt(2 * np.pi)))
    log_prior = -0.5 * tf.reduce_sum(weights ** 2) / prior_std ** 2 - num_weights * tf.math.log(prior_std * tf.sqrt(2 * np.pi))
    return log_lik + log_prior
'''),
        ("NumPy arithmetic", "Converts the outputs and weights to NumPy and computes the log joint with NumPy, so it returns an array instead of a tensor and HMC gets no gradient (and it fails inside tf.function).", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    f = mlp(weights, x).numpy()
    w = np.asarray(weights)
    n = len(y)
    log_lik = -0.5 * np.sum((f - y.T) ** 2, axis=1) / noise_std ** 2 - n * np.log(np.sqrt(2 * np.pi) * noise_std)
    log_prior = -0.5 * np.sum(w ** 2, axis=1) / prior_std ** 2 - w.shape[1] * np.log(np.sqrt(2 * np.pi) * prior_std)
    return (log_lik + log_prior).astype(np.float32)
'''),
    ],
    "mc_dropout_moments": [
        ("variance with T - 1", "Divides the variance over the passes by T - 1 (ddof=1) instead of T.", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    outputs = np.stack([model(x, training=True).numpy()[:, 0] for _ in range(num_passes)])
    mean = outputs.mean(axis=0)
    variance = outputs.var(axis=0, ddof=1) + noise_std ** 2
    return mean, variance
'''),
        ("noise variance forgotten", "Returns only the variance of the passes, without adding the noise variance noise_std**2.", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    samples = []
    for _ in range(num_passes):
        samples.append(np.reshape(np.asarray(model(x, training=True)), -1))
    samples = np.array(samples)
    return np.mean(samples, axis=0), np.var(samples, axis=0)
'''),
        ("dropout off", "Calls the model without training=True, so dropout is off and every pass returns the same deterministic output.", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    preds = np.array([np.asarray(model(x)).ravel() for _ in range(num_passes)])
    mean = preds.mean(axis=0)
    variance = ((preds - mean) ** 2).mean(axis=0) + noise_std ** 2
    return mean, variance
'''),
        ("standard deviation returned", "Returns the standard deviation sqrt(variance of the passes + noise_std**2) instead of the variance.", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    outputs = np.concatenate([np.asarray(model(x, training=True)) for _ in range(num_passes)], axis=1)
    mean = outputs.mean(axis=1)
    std = np.sqrt(outputs.var(axis=1) + noise_std ** 2)
    return mean, std
'''),
        ("tensors returned", "Computes the moments with TensorFlow and returns tensors instead of NumPy arrays.", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    passes = tf.stack([tf.squeeze(model(x, training=True), axis=-1) for _ in range(num_passes)], axis=0)
    mean = tf.reduce_mean(passes, axis=0)
    variance = tf.reduce_mean(tf.square(passes - mean), axis=0) + noise_std ** 2
    return mean, variance
'''),
        ("moments over the wrong axis", "Takes the mean and variance over the points axis instead of over the passes, giving one value per pass.", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    outputs = np.stack([np.asarray(model(x, training=True)) for _ in range(num_passes)])
    outputs = outputs.squeeze(-1)
    mean = np.mean(outputs, axis=1)
    variance = np.var(outputs, axis=1) + noise_std ** 2
    return mean, variance
'''),
        ("num_passes ignored", "Ignores the num_passes argument and always makes 100 passes.", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    T = 100
    outputs = np.zeros((T, len(x)))
    for t in range(T):
        outputs[t] = np.asarray(model(x, training=True))[:, 0]
    mean = outputs.sum(axis=0) / T
    variance = ((outputs - mean) ** 2).sum(axis=0) / T + noise_std ** 2
    return mean, variance
'''),
    ],
    "last_layer_laplace": [
        ("prior precision forgotten", "Leaves out the prior precision I / s^2, so the precision is only Phi^T Phi / sigma^2 (singular when N < K).", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    precision = features.T @ features / noise_std ** 2
    covariance = np.linalg.inv(precision)
    variance = np.sum(new_features @ covariance * new_features, axis=1) + noise_std ** 2
    return precision, covariance, variance
'''),
        ("noise std not squared", "Divides Phi^T Phi by sigma instead of sigma^2 in the precision.", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    K = features.shape[1]
    precision = np.dot(features.T, features) / noise_std + np.eye(K) / prior_std ** 2
    covariance = np.linalg.inv(precision)
    variance = np.einsum("ij,jk,ik->i", new_features, covariance, new_features) + noise_std ** 2
    return precision, covariance, variance
'''),
        ("prior std not squared", "Adds I / s instead of the prior precision I / s^2.", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    num_features = features.shape[-1]
    precision = features.T @ features / noise_std ** 2 + np.identity(num_features) / prior_std
    covariance = np.linalg.solve(precision, np.identity(num_features))
    variance = np.array([phi @ covariance @ phi for phi in new_features]) + noise_std ** 2
    return precision, covariance, variance
'''),
        ("noise left out of the predictive", "Returns phi^T Sigma phi without adding the noise variance sigma^2 to the predictive variance.", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    k = features.shape[1]
    precision = (1 / noise_std ** 2) * features.T.dot(features) + (1 / prior_std ** 2) * np.eye(k)
    covariance = np.linalg.inv(precision)
    variance = np.diag(new_features @ covariance @ new_features.T)
    return precision, covariance, variance
'''),
        ("Phi Phi^T", "Builds the precision from Phi Phi^T (an [N, N] matrix over the points) instead of Phi^T Phi over the features.", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    gram = features @ features.T
    precision = gram / noise_std ** 2 + np.eye(gram.shape[0]) / prior_std ** 2
    covariance = np.linalg.inv(precision)
    variance = np.sum((new_features @ covariance) * new_features, axis=1) + noise_std ** 2
    return precision, covariance, variance
'''),
        ("full predictive covariance", "Returns the whole [M, M] matrix Phi_* Sigma Phi_*^T + sigma^2 instead of its diagonal, the variance of each row.", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    precision = features.T @ features / noise_std ** 2 + np.eye(features.shape[1]) / prior_std ** 2
    covariance = np.linalg.inv(precision)
    variance = new_features @ covariance @ new_features.T + noise_std ** 2
    return precision, covariance, variance
'''),
        ("precision in the predictive", "Uses the precision Lambda instead of the covariance Sigma = Lambda^-1 in phi^T Sigma phi.", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    phi = np.asarray(features, np.float64)
    precision = phi.T @ phi / noise_std ** 2 + np.eye(phi.shape[1]) / prior_std ** 2
    covariance = np.linalg.inv(precision)
    variance = np.einsum("mk,kl,ml->m", new_features, precision, new_features) + noise_std ** 2
    return precision, covariance, variance
'''),
    ],
    "gaussian_w2": [
        ("variances for stds", "Takes the difference of the variances std_p**2 - std_q**2 instead of the standard deviations.", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    return np.sqrt((mean_p - mean_q) ** 2 + (std_p ** 2 - std_q ** 2) ** 2)
'''),
        ("squared distance", "Returns the squared distance (m1 - m2)^2 + (s1 - s2)^2 without the square root.", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    mean_p, std_p, mean_q, std_q = (np.asarray(a, dtype=float) for a in (mean_p, std_p, mean_q, std_q))
    w2 = (mean_p - mean_q) ** 2 + (std_p - std_q) ** 2
    return w2
'''),
        ("sum of the stds", "Uses std_p + std_q instead of the difference std_p - std_q, so a distribution is not at distance 0 from itself.", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    return np.sqrt(np.square(np.subtract(mean_p, mean_q)) + np.square(np.add(std_p, std_q)))
'''),
        ("L1 instead of L2", "Adds |m1 - m2| + |s1 - s2| instead of taking the square root of the sum of squares.", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    return np.abs(np.asarray(mean_p) - np.asarray(mean_q)) + np.abs(np.asarray(std_p) - np.asarray(std_q))
'''),
        ("averaged over the points", "Averages the distance over all points and returns one number instead of the distance at each point.", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    distances = np.sqrt((np.asarray(mean_p) - mean_q) ** 2 + (np.asarray(std_p) - std_q) ** 2)
    return np.mean(distances)
'''),
        ("tensor returned", "Computes the distance with TensorFlow and returns a tensor instead of a NumPy array.", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    mean_diff = tf.constant(mean_p, tf.float64) - tf.constant(mean_q, tf.float64)
    std_diff = tf.constant(std_p, tf.float64) - tf.constant(std_q, tf.float64)
    return tf.sqrt(mean_diff ** 2 + std_diff ** 2)
'''),
        ("loop over zip", "Loops over zip of the arguments, which fails for Python floats and flattens arrays of more than one dimension to a list of rows.", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    import math
    result = []
    for m1, s1, m2, s2 in zip(mean_p, std_p, mean_q, std_q):
        result.append(math.sqrt((m1 - m2) ** 2 + (s1 - s2) ** 2))
    return np.array(result)
'''),
    ],
    "conformal_quantile": [
        ("rank ceil(n(1 - alpha))", "Takes the ceil(n(1 - alpha))-th smallest score instead of the ceil((n + 1)(1 - alpha))-th, and so never returns inf.", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    n = len(scores)
    k = int(np.ceil(n * (1 - alpha)))
    if k > n:
        return np.inf
    return float(np.sort(scores)[k - 1])
'''),
        ("np.quantile", "Returns np.quantile(scores, 1 - alpha), an interpolated empirical quantile, instead of the ceil((n + 1)(1 - alpha))-th smallest score.", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    n = len(scores)
    if np.ceil((n + 1) * (1 - alpha)) > n:
        return np.inf
    return float(np.quantile(scores, 1 - alpha))
'''),
        ("index off by one", "Indexes the sorted scores with k instead of k - 1, so it returns the (k + 1)-th smallest (and fails when k = n).", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    import math
    n = scores.shape[0]
    k = math.ceil((n + 1) * (1 - alpha))
    if k > n:
        return float("inf")
    return float(np.sort(scores)[k])
'''),
        ("sorted in place", "Sorts the caller's array in place with scores.sort(), so the array the caller passed is changed.", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    n = len(scores)
    k = int(np.ceil((n + 1) * (1 - alpha)))
    if k > n:
        return np.inf
    scores.sort()
    return float(scores[k - 1])
'''),
        ("rank clipped to n", "Clips the rank to n and returns the largest score instead of np.inf when ceil((n + 1)(1 - alpha)) > n.", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    n = len(scores)
    k = min(int(np.ceil((n + 1) * (1 - alpha))), n)
    return float(np.partition(scores, k - 1)[k - 1])
'''),
        ("inf already at k = n", "Returns np.inf when k >= n instead of only when k > n, so the case k = n gives inf instead of the largest score.", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    n = len(scores)
    k = int(np.ceil((n + 1) * (1 - alpha)))
    if k >= n:
        return np.inf
    ordered = np.sort(scores)
    return float(ordered[k - 1])
'''),
        ("scores not sorted", "Takes the k-th score in the given order instead of the k-th smallest, forgetting to sort.", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    n = len(scores)
    k = int(np.ceil((n + 1) * (1 - alpha)))
    if k > n:
        return np.inf
    return float(scores[k - 1])
'''),
    ],
}

# Correct answers in idioms of their own (the same cell format): they must earn full marks.
CORRECT = {
    "log_joint": [
        ("tfd.Normal log_prob", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    outputs = mlp(weights, x)
    targets = tf.reshape(tf.convert_to_tensor(y, tf.float32), [1, -1])
    log_likelihood = tf.reduce_sum(tfd.Normal(outputs, noise_std).log_prob(targets), axis=1)
    log_prior = tf.reduce_sum(tfd.Normal(0.0, prior_std).log_prob(weights), axis=1)
    return log_likelihood + log_prior
'''),
        ("written-out formula", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    f = mlp(weights, x)
    residuals = f - tf.transpose(tf.cast(y, tf.float32))
    num_points = tf.cast(tf.shape(f)[1], tf.float32)
    num_weights = tf.cast(tf.shape(weights)[1], tf.float32)
    log_two_pi = float(np.log(2 * np.pi))
    log_lik = (-0.5 * tf.reduce_sum(tf.square(residuals), axis=1) / noise_std ** 2
               - num_points * (float(np.log(noise_std)) + 0.5 * log_two_pi))
    log_prior = (-0.5 * tf.reduce_sum(tf.square(weights), axis=1) / prior_std ** 2
                 - num_weights * (float(np.log(prior_std)) + 0.5 * log_two_pi))
    return log_lik + log_prior
'''),
        ("Independent and MultivariateNormalDiag", '''def log_joint(weights, x, y, noise_std, prior_std):
    """Return log p(y | x, w) + log p(w) for each of the B weight vectors, a float32 tensor of shape [B]."""
    f = mlp(weights, x)
    likelihood = tfd.Independent(tfd.Normal(loc=f, scale=noise_std), reinterpreted_batch_ndims=1)
    prior = tfd.MultivariateNormalDiag(loc=tf.zeros_like(weights), scale_diag=prior_std * tf.ones_like(weights))
    return likelihood.log_prob(tf.reshape(y, [-1])) + prior.log_prob(weights)
'''),
    ],
    "mc_dropout_moments": [
        ("stacked NumPy passes", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    outputs = np.stack([np.asarray(model(x, training=True)) for _ in range(num_passes)])[:, :, 0]
    mean = outputs.mean(axis=0)
    variance = outputs.var(axis=0) + noise_std ** 2
    return mean, variance
'''),
        ("Welford loop", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    mean = np.zeros(len(x))
    m2 = np.zeros(len(x))
    for t in range(1, num_passes + 1):
        f = np.asarray(model(x, training=True), dtype=np.float64).reshape(-1)
        delta = f - mean
        mean += delta / t
        m2 += delta * (f - mean)
    return mean, m2 / num_passes + noise_std ** 2
'''),
        ("tf.nn.moments", '''def mc_dropout_moments(model, x, num_passes, noise_std):
    """Return (mean, variance) of the MC-dropout predictive, two NumPy arrays of shape [N]."""
    passes = tf.stack([tf.reshape(model(x, training=True), [-1]) for _ in range(num_passes)])
    mean, variance = tf.nn.moments(passes, axes=[0])
    return mean.numpy(), (variance + noise_std ** 2).numpy()
'''),
    ],
    "last_layer_laplace": [
        ("inverse and einsum", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    k = features.shape[1]
    precision = features.T @ features / noise_std ** 2 + np.eye(k) / prior_std ** 2
    covariance = np.linalg.inv(precision)
    covariance = (covariance + covariance.T) / 2
    variance = np.einsum("mk,kl,ml->m", new_features, covariance, new_features) + noise_std ** 2
    return precision, covariance, variance
'''),
        ("TensorFlow linear algebra", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    phi = tf.constant(features, tf.float64)
    phi_new = tf.constant(new_features, tf.float64)
    eye = tf.eye(phi.shape[1], dtype=tf.float64)
    precision = tf.matmul(phi, phi, transpose_a=True) / noise_std ** 2 + eye / prior_std ** 2
    covariance = tf.linalg.inv(precision)
    variance = tf.reduce_sum(tf.matmul(phi_new, covariance) * phi_new, axis=1) + noise_std ** 2
    return precision.numpy(), covariance.numpy(), variance.numpy()
'''),
        ("outer products and Cholesky", '''def last_layer_laplace(features, new_features, noise_std, prior_std):
    """Return (precision [K, K], covariance [K, K], predictive variance [M]) of the last-layer Laplace."""
    K = features.shape[1]
    precision = np.eye(K) / prior_std ** 2
    for phi in features:
        precision = precision + np.outer(phi, phi) / noise_std ** 2
    L = np.linalg.cholesky(precision)
    L_inv = np.linalg.solve(L, np.eye(K))
    covariance = L_inv.T @ L_inv
    variance = np.array([np.sum((L_inv @ phi) ** 2) for phi in new_features]).reshape(-1) + noise_std ** 2
    return precision, covariance, variance
'''),
    ],
    "gaussian_w2": [
        ("sqrt of squares", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    mean_p, std_p, mean_q, std_q = (np.asarray(a, dtype=np.float64) for a in (mean_p, std_p, mean_q, std_q))
    return np.asarray(np.sqrt((mean_p - mean_q) ** 2 + (std_p - std_q) ** 2))
'''),
        ("np.hypot", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    return np.array(np.hypot(np.subtract(mean_p, mean_q), np.subtract(std_p, std_q)))
'''),
        ("norm over a stacked axis", '''def gaussian_w2(mean_p, std_p, mean_q, std_q):
    """Return the 2-Wasserstein distance between N(mean_p, std_p^2) and N(mean_q, std_q^2), elementwise."""
    differences = np.stack(np.broadcast_arrays(np.asarray(mean_p, float) - np.asarray(mean_q, float),
                                               np.asarray(std_p, float) - np.asarray(std_q, float)))
    return np.asarray(np.linalg.norm(differences, axis=0))
'''),
    ],
    "conformal_quantile": [
        ("np.sort", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    n = len(scores)
    k = int(np.ceil((n + 1) * (1 - alpha)))
    if k > n:
        return np.inf
    return float(np.sort(scores)[k - 1])
'''),
        ("np.partition", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    import math
    scores = np.asarray(scores)
    n = scores.size
    rank = math.ceil((n + 1) * (1 - alpha))
    if rank > n:
        return float("inf")
    return float(np.partition(scores, rank - 1)[rank - 1])
'''),
        ("sorted list", '''def conformal_quantile(scores, alpha):
    """Return the ceil((n + 1)(1 - alpha))-th smallest of the n scores (np.inf if that exceeds n), a float."""
    import math
    ordered = sorted(float(score) for score in scores)
    k = math.ceil((len(ordered) + 1) * (1 - alpha))
    if k > len(ordered):
        return math.inf
    return ordered[k - 1]
'''),
    ],
}
