"""Blind one-bug answers for 03_bayes_by_backprop, round four, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "bbb_loss_terms": [
        (
            "likelihood_averaged_over_points",
            "Averages the Gaussian log-likelihood over the data points instead of summing it, so with more "
            "than one data point the likelihood is N times too small and the posterior it finds is too wide "
            "and too close to the prior; the visible worked example has a single point and passes.",
            """def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_mean(tfd.Normal(w * x, noise_std).log_prob(y))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
""",
        ),
    ],
    "bayesian_dense": [
        (
            "bias_left_out_of_log_prior",
            "Records log p(w) summed over the kernel only, forgetting the bias, while log q covers both; the "
            "recorded prior is too large by the bias's log density (e.g. units = 3: three terms missing), "
            "which the visible test, checking only that it is a scalar, does not see.",
            '''class BayesianDense(tf.keras.layers.Layer):
    """A dense layer whose kernel and bias are sampled from q(w | mu, rho) on every call."""

    def __init__(self, units, prior, mu_initializer=None, rho_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self.initializers = {"mu": mu_initializer, "rho": rho_initializer}  # None: the default
        self.units = units
        self.prior = prior

    def new_initializer(self, name):
        """Return a new initialiser for one "mu" or "rho" weight: the given one's settings, or the default."""
        given = self.initializers[name]
        if given is None:
            return (tf.keras.initializers.RandomUniform(-0.6, 0.6) if name == "mu"
                    else tf.keras.initializers.Constant(-6.0))
        # A new instance every time: an initialiser without a seed returns the same values on
        # every call, so weights that shared one would start equal.
        given = tf.keras.initializers.get(given)
        return type(given).from_config(given.get_config())

    def build(self, input_shape):
        n_in = int(input_shape[-1])
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=(n_in, self.units),
                                         initializer=self.new_initializer("mu"), trainable=True)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=(n_in, self.units),
                                          initializer=self.new_initializer("rho"), trainable=True)
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,),
                                       initializer=self.new_initializer("mu"), trainable=True)
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,),
                                        initializer=self.new_initializer("rho"), trainable=True)
        super().build(input_shape)

    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel = self.kernel_mu + kernel_sigma * tf.random.normal(tf.shape(self.kernel_mu))
        bias = self.bias_mu + bias_sigma * tf.random.normal(tf.shape(self.bias_mu))
        self.log_prior = tf.reduce_sum(self.prior.log_prob(kernel))
        self.log_variational_posterior = (
            tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
            + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
''',
        ),
        (
            "noise_drawn_with_numpy",
            "Draws epsilon with NumPy: in eager mode every call differs (the visible test passes), but inside "
            "a tf.function the draw happens once at tracing and becomes a constant, so every compiled call, "
            "and every run of the compiled function, uses the same weights.",
            '''class BayesianDense(tf.keras.layers.Layer):
    """A dense layer whose kernel and bias are sampled from q(w | mu, rho) on every call."""

    def __init__(self, units, prior, mu_initializer=None, rho_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self.initializers = {"mu": mu_initializer, "rho": rho_initializer}  # None: the default
        self.units = units
        self.prior = prior

    def new_initializer(self, name):
        """Return a new initialiser for one "mu" or "rho" weight: the given one's settings, or the default."""
        given = self.initializers[name]
        if given is None:
            return (tf.keras.initializers.RandomUniform(-0.6, 0.6) if name == "mu"
                    else tf.keras.initializers.Constant(-6.0))
        # A new instance every time: an initialiser without a seed returns the same values on
        # every call, so weights that shared one would start equal.
        given = tf.keras.initializers.get(given)
        return type(given).from_config(given.get_config())

    def build(self, input_shape):
        n_in = int(input_shape[-1])
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=(n_in, self.units),
                                         initializer=self.new_initializer("mu"))
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=(n_in, self.units),
                                          initializer=self.new_initializer("rho"))
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,),
                                       initializer=self.new_initializer("mu"))
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,),
                                        initializer=self.new_initializer("rho"))

    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel_eps = np.random.normal(size=self.kernel_mu.shape).astype("float32")
        bias_eps = np.random.normal(size=self.bias_mu.shape).astype("float32")
        kernel = self.kernel_mu + kernel_sigma * kernel_eps
        bias = self.bias_mu + bias_sigma * bias_eps
        self.log_prior = (tf.reduce_sum(self.prior.log_prob(kernel))
                          + tf.reduce_sum(self.prior.log_prob(bias)))
        self.log_variational_posterior = (
            tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
            + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
''',
        ),
    ],
    "sample_elbo": [
        (
            "likelihood_arguments_swapped",
            "Calls log_likelihood_fn(outputs, y) instead of log_likelihood_fn(y, outputs); the visible test's "
            "squared error is symmetric and passes, but a categorical log-likelihood (labels, logits) gets "
            "its arguments the wrong way round and fails or gives a wrong value.",
            """def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    total = 0.0
    for _ in range(num_samples):
        outputs = model(x)
        kl = 0.0
        for layer in model.layers:
            if hasattr(layer, "log_prior"):
                kl += layer.log_variational_posterior - layer.log_prior
        total += kl_scale * kl - log_likelihood_fn(outputs, y)
    return total / num_samples
""",
        ),
        (
            "kl_read_after_the_loop",
            "Draws the likelihood samples in a loop but reads the layers' log densities once, after the loop, "
            "so the KL term is the last sample's instead of the average over samples; with the visible "
            "counting layer (KL 1.5 k for call k) the KL part is 4.5 instead of 3 and the test fails.",
            """def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    nll = 0.0
    for _ in range(num_samples):
        nll -= log_likelihood_fn(y, model(x))
    kl = 0.0
    for layer in model.layers:
        if hasattr(layer, "log_prior"):
            kl += layer.log_variational_posterior - layer.log_prior
    return kl_scale * kl + nll / num_samples
""",
        ),
    ],
    "scale_mixture_log_prob": [
        (
            "direct_in_float64",
            "Avoids the underflow by computing the densities directly in float64 instead of in log space: "
            "this fixes w = 0.5 with sigma2 = e^-6, but for larger weights (e.g. w = 40 with sigma1 = 1, "
            "density e^-800) both densities still underflow and the result is -inf; it also returns float64 "
            "for float32 weights. The visible test (w up to 2, sigma2 = 0.5) passes.",
            """def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    w64 = tf.cast(w, tf.float64)
    density1 = tf.exp(-tf.square(w64) / (2.0 * sigma1 ** 2)) / (np.sqrt(2.0 * np.pi) * sigma1)
    density2 = tf.exp(-tf.square(w64) / (2.0 * sigma2 ** 2)) / (np.sqrt(2.0 * np.pi) * sigma2)
    return tf.math.log(pi * density1 + (1.0 - pi) * density2)
""",
        ),
    ],
}

CORRECT = {
    "bbb_loss_terms": [
        (
            "log_q_written_with_eps",
            """def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    # (w - mu) / sigma is eps exactly, as a function of mu and rho too, so both gradient paths are kept.
    standardized = (w - mu) / sigma
    log_q = tf.reduce_sum(-0.5 * np.log(2.0 * np.pi) - tf.math.log(sigma) - 0.5 * tf.square(standardized))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    residual = (y - w * x) / noise_std
    log_likelihood = tf.reduce_sum(-0.5 * np.log(2.0 * np.pi) - np.log(noise_std) - 0.5 * tf.square(residual))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
""",
        ),
    ],
    "scale_mixture_log_prob": [
        (
            "max_plus_log1p",
            """def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    w = tf.convert_to_tensor(w)
    def log_normal(sigma):
        return -0.5 * tf.square(w / sigma) - float(np.log(sigma) + 0.5 * np.log(2.0 * np.pi))
    a = float(np.log(pi)) + log_normal(sigma1) if pi > 0 else None
    b = float(np.log1p(-pi)) + log_normal(sigma2) if pi < 1 else None
    if a is None:
        return b
    if b is None:
        return a
    larger = tf.maximum(a, b)
    return larger + tf.math.log1p(tf.exp(-tf.abs(a - b)))
""",
        ),
    ],
}
