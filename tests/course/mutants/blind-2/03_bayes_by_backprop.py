"""Blind one-bug answers for 03_bayes_by_backprop, round two, written from the release notebook alone."""

ANSWERS = {
    "bbb_loss_terms": [
        (
            "sample detached inside log q",
            "log q is evaluated at tf.stop_gradient(w), which cuts the path through the sample: the four values are right but the gradient of the loss keeps only the direct path through q's parameters, so the entropy's push on sigma is lost and the estimate is biased.",
            '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(tf.stop_gradient(w)))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_sum(tfd.Normal(w * x, noise_std).log_prob(y))
    loss = log_q - log_prior - log_likelihood
    return log_q, log_prior, log_likelihood, loss
''',
        ),
        (
            "rho used as the scale of q",
            "The weight is sampled with sigma = softplus(rho), but log q is evaluated under N(mu, rho^2), using the raw rho as the standard deviation, so log q (and the loss) is wrong, and nan for a negative rho.",
            '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    w = mu + tf.math.softplus(rho) * eps
    q = tfd.Normal(loc=mu, scale=rho)
    log_q = tf.reduce_sum(q.log_prob(w))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_sum(tfd.Normal(loc=w * x, scale=noise_std).log_prob(y))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
''',
        ),
    ],
    "bayesian_dense": [
        (
            "noise drawn with NumPy",
            "The noise eps is drawn with np.random.normal inside call, which gives new weights on every eager call but is drawn once when a tf.function is traced and then frozen as a constant, so compiled training steps reuse the same weight sample every time.",
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
        kernel_shape = (int(input_shape[-1]), self.units)
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=kernel_shape,
                                         initializer=self.new_initializer("mu"), trainable=True)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=kernel_shape,
                                          initializer=self.new_initializer("rho"), trainable=True)
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,),
                                       initializer=self.new_initializer("mu"), trainable=True)
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,),
                                        initializer=self.new_initializer("rho"), trainable=True)
        super().build(input_shape)

    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel_eps = np.random.normal(size=self.kernel_mu.shape).astype("float32")
        bias_eps = np.random.normal(size=self.bias_mu.shape).astype("float32")
        kernel = self.kernel_mu + kernel_sigma * kernel_eps
        bias = self.bias_mu + bias_sigma * bias_eps
        self.log_prior = (tf.reduce_sum(self.prior.log_prob(kernel))
                          + tf.reduce_sum(self.prior.log_prob(bias)))
        self.log_variational_posterior = (tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
                                          + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
''',
        ),
        (
            "one mu initialiser for kernel and bias",
            "build asks for one mu initialiser and one rho initialiser and uses each for both the kernel and the bias, so with the default (unseeded) uniform initialiser the bias mu starts as a copy of the kernel mu's first row.",
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
        mu_init = self.new_initializer("mu")
        rho_init = self.new_initializer("rho")
        n_in = input_shape[-1]
        self.w_mu = self.add_weight(name="w_mu", shape=(n_in, self.units), initializer=mu_init)
        self.w_rho = self.add_weight(name="w_rho", shape=(n_in, self.units), initializer=rho_init)
        self.b_mu = self.add_weight(name="b_mu", shape=(self.units,), initializer=mu_init)
        self.b_rho = self.add_weight(name="b_rho", shape=(self.units,), initializer=rho_init)

    def call(self, inputs):
        w_sigma = tf.math.softplus(self.w_rho)
        b_sigma = tf.math.softplus(self.b_rho)
        w = self.w_mu + w_sigma * tf.random.normal(tf.shape(self.w_mu))
        b = self.b_mu + b_sigma * tf.random.normal(tf.shape(self.b_mu))
        self.log_prior = tf.reduce_sum(self.prior.log_prob(w)) + tf.reduce_sum(self.prior.log_prob(b))
        self.log_variational_posterior = (tf.reduce_sum(tfd.Normal(self.w_mu, w_sigma).log_prob(w))
                                          + tf.reduce_sum(tfd.Normal(self.b_mu, b_sigma).log_prob(b)))
        return tf.matmul(inputs, w) + b
''',
        ),
    ],
    "sample_elbo": [
        (
            "kl_scale on the whole loss",
            "kl_scale multiplies the likelihood term as well as the KL term, so the loss is kappa * (log q - log prior - log likelihood) and the data term is down-weighted by the number of batches.",
            '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    total = 0.0
    for _ in range(num_samples):
        outputs = model(x)
        log_prior = 0.0
        log_q = 0.0
        for layer in model.layers:
            if hasattr(layer, "log_prior"):
                log_prior += layer.log_prior
                log_q += layer.log_variational_posterior
        total += kl_scale * (log_q - log_prior - log_likelihood_fn(y, outputs))
    return total / num_samples
''',
        ),
        (
            "Bayesian layers listed before the first call",
            "The layers that have log_prior are collected before the model is first called, so on a new model the list is empty and the KL term is silently 0 (only the likelihood is counted); it works on a model that was already called.",
            '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    bayesian_layers = [layer for layer in model.layers if hasattr(layer, "log_prior")]
    losses = []
    for _ in range(num_samples):
        outputs = model(x)
        kl = tf.constant(0.0)
        for layer in bayesian_layers:
            kl += layer.log_variational_posterior - layer.log_prior
        losses.append(kl_scale * kl - log_likelihood_fn(y, outputs))
    return tf.reduce_mean(tf.stack(losses))
''',
        ),
    ],
    "scale_mixture_log_prob": [
        (
            "densities mixed directly",
            "The two Gaussian densities are computed, mixed and only then logged, so for a narrow sigma2 or a large |w| both densities underflow to 0 in float32 and the log is -inf instead of a finite value.",
            '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    density1 = tf.exp(-tf.square(w) / (2.0 * sigma1 ** 2)) / (np.sqrt(2.0 * np.pi) * sigma1)
    density2 = tf.exp(-tf.square(w) / (2.0 * sigma2 ** 2)) / (np.sqrt(2.0 * np.pi) * sigma2)
    return tf.math.log(pi * density1 + (1.0 - pi) * density2)
''',
        ),
        (
            "mixture weights swapped",
            "The weight pi is attached to the narrow component sigma2 and 1 - pi to the broad one sigma1, the reverse of the prior, so the log density is wrong unless pi = 1/2.",
            '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    broad = np.log(1.0 - pi) + tfd.Normal(0.0, sigma1).log_prob(w)
    narrow = np.log(pi) + tfd.Normal(0.0, sigma2).log_prob(w)
    return tf.reduce_logsumexp(tf.stack([broad, narrow], axis=0), axis=0)
''',
        ),
    ],
}
CORRECT = {
    "bbb_loss_terms": [
        (
            "Gaussian log density written out",
            '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    half_log_two_pi = 0.5 * np.log(2.0 * np.pi)
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(-half_log_two_pi - tf.math.log(sigma) - 0.5 * tf.square((w - mu) / sigma))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    residual = y - w * x
    log_likelihood = tf.reduce_sum(-half_log_two_pi - np.log(noise_std) - tf.square(residual) / (2.0 * noise_std ** 2))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
''',
        )
    ],
    "scale_mixture_log_prob": [
        (
            "log-sum-exp of two terms by hand",
            '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    def log_normal(sigma):
        return -0.5 * float(np.log(2.0 * np.pi)) - float(np.log(sigma)) - tf.square(w) / (2.0 * sigma * sigma)

    a = float(np.log(pi)) + log_normal(sigma1)
    b = float(np.log(1.0 - pi)) + log_normal(sigma2)
    larger = tf.stop_gradient(tf.maximum(a, b))
    return larger + tf.math.log(tf.exp(a - larger) + tf.exp(b - larger))
''',
        )
    ],
}
