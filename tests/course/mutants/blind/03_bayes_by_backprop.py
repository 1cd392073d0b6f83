"""Blind one-bug answers for 03_bayes_by_backprop, written from the release notebook alone (see README.md beside this file)."""

# function: the nbgrader grade_id of the graded answer cell (its cell metadata "nbgrader": {"grade_id": ...}).
# Each answer: (name, mistake, source). ``mistake`` says, in one plain sentence, the bug as its writer meant it.
# ``source`` is the whole graded cell as the student would submit it: the release cell with the student's
# code in place of every "# YOUR CODE HERE" / "raise NotImplementedError()".

_LAYER_HEAD = '''class BayesianDense(tf.keras.layers.Layer):
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
'''

_BUILD = '''
    def build(self, input_shape):
        kernel_shape = (input_shape[-1], self.units)
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=kernel_shape,
                                         initializer=self.new_initializer("mu"), trainable=True)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=kernel_shape,
                                          initializer=self.new_initializer("rho"), trainable=True)
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,),
                                       initializer=self.new_initializer("mu"), trainable=True)
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,),
                                        initializer=self.new_initializer("rho"), trainable=True)
'''

_CALL = '''
    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel = self.kernel_mu + kernel_sigma * tf.random.normal(tf.shape(self.kernel_mu))
        bias = self.bias_mu + bias_sigma * tf.random.normal(tf.shape(self.bias_mu))
        self.log_prior = tf.reduce_sum(self.prior.log_prob(kernel)) + tf.reduce_sum(self.prior.log_prob(bias))
        self.log_variational_posterior = (
            tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
            + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
'''

ANSWERS = {
    "bbb_loss_terms": [
        ("exp instead of softplus", "Uses sigma = exp(rho) instead of softplus(rho) for the weight's standard deviation.", '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.exp(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_sum(tfd.Normal(w * x, noise_std).log_prob(y))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
'''),
        ("stop_gradient in log q", "Evaluates log q at tf.stop_gradient(w), so the value is right but the gradient path through w into log q is cut.", '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(tf.stop_gradient(w)))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_sum(tfd.Normal(w * x, noise_std).log_prob(y))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
'''),
        ("noise variance as scale", "Passes noise_std**2 (the variance) as the scale of the Gaussian likelihood instead of noise_std.", '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.nn.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(tfd.Normal(loc=mu, scale=sigma).log_prob(w))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_sum(tfd.Normal(loc=w * x, scale=noise_std ** 2).log_prob(y))
    loss = log_q - log_prior - log_likelihood
    return log_q, log_prior, log_likelihood, loss
'''),
        ("mean log-likelihood", "Averages the log-likelihood over the data points instead of summing it.", '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_mean(tfd.Normal(w * x, noise_std).log_prob(y))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
'''),
        ("prior sign in loss", "Adds log_prior in the loss (log_q + log_prior - log_likelihood) instead of subtracting it.", '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(-0.5 * np.log(2 * np.pi) - tf.math.log(sigma) - 0.5 * tf.square((w - mu) / sigma))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    residual = y - w * x
    log_likelihood = tf.reduce_sum(-0.5 * np.log(2 * np.pi) - np.log(noise_std) - 0.5 * tf.square(residual / noise_std))
    return log_q, log_prior, log_likelihood, log_q + log_prior - log_likelihood
'''),
    ],
    "bayesian_dense": [
        ("one shared mu initialiser", "Creates one mu initialiser and one rho initialiser and reuses each for both kernel and bias, so the bias mu starts as a copy of the kernel mu's first row.", _LAYER_HEAD + '''
    def build(self, input_shape):
        mu_init = self.new_initializer("mu")
        rho_init = self.new_initializer("rho")
        kernel_shape = (input_shape[-1], self.units)
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=kernel_shape, initializer=mu_init, trainable=True)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=kernel_shape, initializer=rho_init, trainable=True)
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,), initializer=mu_init, trainable=True)
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,), initializer=rho_init, trainable=True)
''' + _CALL),
        ("noise drawn in build", "Draws the noise epsilon once in build and reuses it on every call, so every call uses the same weights.", _LAYER_HEAD + _BUILD.rstrip("\n") + '''
        self.kernel_eps = tf.random.normal(kernel_shape)
        self.bias_eps = tf.random.normal((self.units,))

    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel = self.kernel_mu + kernel_sigma * self.kernel_eps
        bias = self.bias_mu + bias_sigma * self.bias_eps
        self.log_prior = tf.reduce_sum(self.prior.log_prob(kernel)) + tf.reduce_sum(self.prior.log_prob(bias))
        self.log_variational_posterior = (
            tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
            + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
'''),
        ("mean of log densities", "Averages the log densities over the weights (reduce_mean) instead of summing them.", _LAYER_HEAD + _BUILD + '''
    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel = self.kernel_mu + kernel_sigma * tf.random.normal(tf.shape(self.kernel_mu))
        bias = self.bias_mu + bias_sigma * tf.random.normal(tf.shape(self.bias_mu))
        self.log_prior = tf.reduce_mean(self.prior.log_prob(kernel)) + tf.reduce_mean(self.prior.log_prob(bias))
        self.log_variational_posterior = (
            tf.reduce_mean(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
            + tf.reduce_mean(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
'''),
        ("bias left out of the densities", "Sums log p and log q over the kernel weights only and leaves the bias out.", _LAYER_HEAD + _BUILD + '''
    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel = self.kernel_mu + kernel_sigma * tf.random.normal(tf.shape(self.kernel_mu))
        bias = self.bias_mu + bias_sigma * tf.random.normal(tf.shape(self.bias_mu))
        self.log_prior = tf.reduce_sum(self.prior.log_prob(kernel))
        self.log_variational_posterior = tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
        return tf.matmul(inputs, kernel) + bias
'''),
        ("numpy noise", "Draws epsilon with np.random.normal, which inside tf.function is a constant fixed at tracing time, so compiled calls reuse one weight sample.", _LAYER_HEAD + _BUILD + '''
    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel_eps = np.random.normal(size=self.kernel_mu.shape).astype("float32")
        bias_eps = np.random.normal(size=self.bias_mu.shape).astype("float32")
        kernel = self.kernel_mu + kernel_sigma * kernel_eps
        bias = self.bias_mu + bias_sigma * bias_eps
        self.log_prior = tf.reduce_sum(self.prior.log_prob(kernel)) + tf.reduce_sum(self.prior.log_prob(bias))
        self.log_variational_posterior = (
            tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
            + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
'''),
    ],
    "sample_elbo": [
        ("sum over samples", "Sums the per-sample losses over the num_samples samples instead of averaging them.", '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    total = 0.0
    for _ in range(num_samples):
        outputs = model(x)
        log_prior = tf.add_n([layer.log_prior for layer in model.layers if hasattr(layer, "log_prior")])
        log_q = tf.add_n([layer.log_variational_posterior for layer in model.layers if hasattr(layer, "log_prior")])
        total += kl_scale * (log_q - log_prior) - log_likelihood_fn(y, outputs)
    return total
'''),
        ("kl_scale on the likelihood", "Multiplies the log-likelihood by kl_scale instead of the KL term.", '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    losses = []
    for _ in range(num_samples):
        outputs = model(x)
        kl = 0.0
        for layer in model.layers:
            if hasattr(layer, "log_prior"):
                kl += layer.log_variational_posterior - layer.log_prior
        losses.append(kl - kl_scale * log_likelihood_fn(y, outputs))
    return tf.reduce_mean(tf.stack(losses))
'''),
        ("one forward pass", "Calls model(x) once and reuses the same outputs and log densities for all num_samples samples (one weight sample instead of one per sample).", '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    outputs = model(x)
    bayesian = [layer for layer in model.layers if hasattr(layer, "log_prior")]
    losses = []
    for _ in range(num_samples):
        log_q = tf.add_n([layer.log_variational_posterior for layer in bayesian])
        log_prior = tf.add_n([layer.log_prior for layer in bayesian])
        losses.append(kl_scale * (log_q - log_prior) - log_likelihood_fn(y, outputs))
    return tf.reduce_mean(losses)
'''),
        ("layers read before the call", "Collects the Bayesian layers (hasattr log_prior) before the first model(x) call, so a new never-called model has none and the KL term is lost.", '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    bayesian = [layer for layer in model.layers if hasattr(layer, "log_prior")]
    losses = []
    for _ in range(num_samples):
        outputs = model(x)
        kl = tf.constant(0.0)
        for layer in bayesian:
            kl += layer.log_variational_posterior - layer.log_prior
        losses.append(kl_scale * kl - log_likelihood_fn(y, outputs))
    return tf.reduce_mean(tf.stack(losses))
'''),
    ],
    "scale_mixture_log_prob": [
        ("densities then log", "Adds the two weighted densities and takes the log directly, which underflows to log(0) = -inf for narrow sigma2 or large |w|.", '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    density1 = tfd.Normal(0.0, sigma1).prob(w)
    density2 = tfd.Normal(0.0, sigma2).prob(w)
    return tf.math.log(pi * density1 + (1 - pi) * density2)
'''),
        ("weights swapped", "Gives the weight pi to the narrow component sigma2 and 1 - pi to the broad one.", '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    a = np.log(1 - pi) + tfd.Normal(0.0, sigma1).log_prob(w)
    b = np.log(pi) + tfd.Normal(0.0, sigma2).log_prob(w)
    return tf.reduce_logsumexp(tf.stack([a, b]), axis=0)
'''),
        ("mixing weights outside the log", "Multiplies the log densities by pi and 1 - pi instead of adding log pi and log(1 - pi) inside the log-sum-exp.", '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    a = pi * tfd.Normal(0.0, sigma1).log_prob(w)
    b = (1 - pi) * tfd.Normal(0.0, sigma2).log_prob(w)
    return tf.reduce_logsumexp(tf.stack([a, b], axis=-1), axis=-1)
'''),
        ("no normalising constant", "Writes the Gaussian log densities without the -log(sigma) - 0.5 log(2 pi) normaliser (only -w^2 / (2 sigma^2)).", '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    log1 = np.log(pi) - tf.square(w) / (2 * sigma1 ** 2)
    log2 = np.log(1 - pi) - tf.square(w) / (2 * sigma2 ** 2)
    return tf.reduce_logsumexp(tf.stack([log1, log2], axis=0), axis=0)
'''),
    ],
}

# Correct answers in idioms of their own (the same cell format): they must earn full marks.
CORRECT = {
    "bbb_loss_terms": [
        ("tfd", '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_sum(tfd.Normal(w * x, noise_std).log_prob(y))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
'''),
        ("by hand", '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    half_log_2pi = 0.5 * np.log(2.0 * np.pi)
    sigma = tf.nn.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(-half_log_2pi - tf.math.log(sigma) - tf.square(w - mu) / (2.0 * tf.square(sigma)))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_sum(-half_log_2pi - tf.math.log(tf.cast(noise_std, tf.float32))
                                   - tf.square(y - w * x) / (2.0 * noise_std ** 2))
    loss = log_q - log_prior - log_likelihood
    return log_q, log_prior, log_likelihood, loss
'''),
    ],
    "bayesian_dense": [
        ("tfd densities", _LAYER_HEAD + _BUILD + _CALL),
        ("by-hand log q, weight list", _LAYER_HEAD + '''
    def build(self, input_shape):
        shapes = {"kernel": (int(input_shape[-1]), self.units), "bias": (self.units,)}
        self.params = {}
        for part, shape in shapes.items():
            for kind in ("mu", "rho"):
                self.params[part, kind] = self.add_weight(name=f"{part}_{kind}", shape=shape,
                                                          initializer=self.new_initializer(kind))
        super().build(input_shape)

    def call(self, inputs):
        log_prior, log_q, sampled = 0.0, 0.0, {}
        for part in ("kernel", "bias"):
            mu, rho = self.params[part, "mu"], self.params[part, "rho"]
            sigma = tf.nn.softplus(rho)
            eps = tf.random.normal(tf.shape(mu))
            w = mu + sigma * eps
            sampled[part] = w
            log_prior += tf.reduce_sum(self.prior.log_prob(w))
            log_q += tf.reduce_sum(-0.5 * np.log(2 * np.pi) - tf.math.log(sigma) - 0.5 * tf.square(eps))
        self.log_prior = log_prior
        self.log_variational_posterior = log_q
        return inputs @ sampled["kernel"] + sampled["bias"]
'''),
    ],
    "sample_elbo": [
        ("loop and list", '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    losses = []
    for _ in range(num_samples):
        outputs = model(x)
        log_prior, log_q = 0.0, 0.0
        for layer in model.layers:
            if hasattr(layer, "log_prior"):
                log_prior += layer.log_prior
                log_q += layer.log_variational_posterior
        losses.append(kl_scale * (log_q - log_prior) - log_likelihood_fn(y, outputs))
    return tf.reduce_mean(tf.stack(losses))
'''),
        ("running mean", '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    total = tf.constant(0.0)
    for _ in range(num_samples):
        outputs = model(x)
        layers = [l for l in model.layers if hasattr(l, "log_prior")]
        kl = tf.add_n([l.log_variational_posterior - l.log_prior for l in layers]) if layers else 0.0
        total += kl_scale * kl - log_likelihood_fn(y, outputs)
    return total / num_samples
'''),
    ],
    "scale_mixture_log_prob": [
        ("logsumexp stack", '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    log1 = np.log(pi) + tfd.Normal(0.0, sigma1).log_prob(w)
    log2 = np.log(1 - pi) + tfd.Normal(0.0, sigma2).log_prob(w)
    return tf.reduce_logsumexp(tf.stack([log1, log2], axis=0), axis=0)
'''),
        ("tfp mixture", '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    mixture = tfd.MixtureSameFamily(
        mixture_distribution=tfd.Categorical(probs=[pi, 1.0 - pi]),
        components_distribution=tfd.Normal(loc=[0.0, 0.0], scale=[sigma1, sigma2]))
    return mixture.log_prob(w)
'''),
        ("max shift by hand", '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    def log_normal(s):
        return -0.5 * np.log(2 * np.pi) - np.log(s) - tf.square(w) / (2.0 * s * s)
    a = np.log(pi) + log_normal(sigma1)
    b = np.log(1.0 - pi) + log_normal(sigma2)
    m = tf.maximum(a, b)
    return m + tf.math.log(tf.exp(a - m) + tf.exp(b - m))
'''),
    ],
}
