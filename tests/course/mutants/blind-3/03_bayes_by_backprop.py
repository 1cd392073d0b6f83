"""Blind one-bug answers for 03_bayes_by_backprop, round three, written from the release notebook alone."""

ANSWERS = {
    "bbb_loss_terms": [
        (
            "log_q_of_stopped_w",
            "Evaluates log q at tf.stop_gradient(w), cutting the path through the sampled weight inside log q. The four "
            "values are right, but the gradient of log q keeps only the direct path through q's own mu and sigma, so "
            "the gradient of the loss with respect to mu and rho is biased (the entropy's push on sigma is lost).",
            '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(tf.stop_gradient(w)))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_sum(tfd.Normal(w * x, noise_std).log_prob(y))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
''',
        ),
        (
            "mean_over_weights",
            "Averages log q and log p over the weights instead of summing them. For one weight (the visible test) the "
            "mean is the sum, but with several weights both terms are divided by their number.",
            '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_mean(tfd.Normal(mu, sigma).log_prob(w))
    log_prior = tf.reduce_mean(prior.log_prob(w))
    log_likelihood = tf.reduce_sum(tfd.Normal(w * x, noise_std).log_prob(y))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
''',
        ),
    ],
    "bayesian_dense": [
        (
            "numpy_noise_constant_in_graph",
            "Draws epsilon with NumPy. Eagerly every call gets new weights, so the visible test passes, but inside a "
            "tf.function the draw happens once, at tracing, and becomes a constant: every step of the compiled "
            "training loop, and two calls in one compiled function, use the same weights.",
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
        kernel_eps = np.random.normal(size=self.kernel_mu.shape).astype("float32")
        bias_eps = np.random.normal(size=self.bias_mu.shape).astype("float32")
        kernel = self.kernel_mu + kernel_sigma * kernel_eps
        bias = self.bias_mu + bias_sigma * bias_eps
        self.log_prior = tf.reduce_sum(self.prior.log_prob(kernel)) + tf.reduce_sum(self.prior.log_prob(bias))
        self.log_variational_posterior = (tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
                                          + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
''',
        ),
        (
            "one_initializer_shared_by_kernel_and_bias",
            "Asks new_initializer once per kind and gives the same initialiser object to the kernel and to the bias. "
            "An unseeded Keras initialiser returns the same values on every call, so the bias mu starts as a copy of "
            "the kernel mu's first row (and a given random rho initialiser would be shared the same way). Two layers "
            "still start different, so the visible test passes.",
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
        mu_init = self.new_initializer("mu")
        rho_init = self.new_initializer("rho")
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=(n_in, self.units),
                                         initializer=mu_init, trainable=True)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=(n_in, self.units),
                                          initializer=rho_init, trainable=True)
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,), initializer=mu_init, trainable=True)
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,), initializer=rho_init, trainable=True)
        super().build(input_shape)

    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel = self.kernel_mu + kernel_sigma * tf.random.normal(tf.shape(self.kernel_mu))
        bias = self.bias_mu + bias_sigma * tf.random.normal(tf.shape(self.bias_mu))
        self.log_prior = tf.reduce_sum(self.prior.log_prob(kernel)) + tf.reduce_sum(self.prior.log_prob(bias))
        self.log_variational_posterior = (tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
                                          + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
''',
        ),
    ],
    "sample_elbo": [
        (
            "kl_scale_on_whole_loss",
            "Multiplies the whole per-sample loss, the log-likelihood term as well, by kl_scale, instead of scaling "
            "only the KL term: kl_scale * (log q - log p - log likelihood).",
            '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    total = 0.0
    for _ in range(num_samples):
        outputs = model(x)
        kl = 0.0
        for layer in model.layers:
            if hasattr(layer, "log_prior"):
                kl += layer.log_variational_posterior - layer.log_prior
        total += kl_scale * (kl - log_likelihood_fn(y, outputs))
    return total / num_samples
''',
        ),
        (
            "numpy_mean_of_samples",
            "Collects the per-sample losses in a list and averages them with np.mean. Eagerly the value is right (a "
            "NumPy number, so the visible test passes), but the result is no longer a tensor: no gradient reaches the "
            "weights, and inside a tf.function (as the training steps call it) np.mean of symbolic tensors fails.",
            '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    losses = []
    for _ in range(num_samples):
        outputs = model(x)
        log_q = sum(layer.log_variational_posterior for layer in model.layers if hasattr(layer, "log_prior"))
        log_p = sum(layer.log_prior for layer in model.layers if hasattr(layer, "log_prior"))
        losses.append(kl_scale * (log_q - log_p) - log_likelihood_fn(y, outputs))
    return np.mean(losses)
''',
        ),
    ],
    "scale_mixture_log_prob": [
        (
            "log_of_summed_densities",
            "Adds the two weighted densities and then takes the log. It is right where both densities are "
            "representable (the visible weights, with sigma2 = 0.5), but with a narrow sigma2 such as e^-6 the narrow "
            "density underflows at moderate w and at large w (w = 40) both do, giving -inf instead of a finite log "
            "density.",
            '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    density1 = tfd.Normal(0.0, sigma1).prob(w)
    density2 = tfd.Normal(0.0, sigma2).prob(w)
    return tf.math.log(pi * density1 + (1 - pi) * density2)
''',
        ),
    ],
}
CORRECT = {
    "scale_mixture_log_prob": [
        (
            "mixture_same_family",
            '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    w = tf.convert_to_tensor(w)
    mixture = tfd.MixtureSameFamily(
        mixture_distribution=tfd.Categorical(probs=tf.constant([pi, 1.0 - pi], dtype=w.dtype)),
        components_distribution=tfd.Normal(loc=tf.zeros(2, dtype=w.dtype),
                                           scale=tf.constant([sigma1, sigma2], dtype=w.dtype)))
    return mixture.log_prob(w)
''',
        ),
    ],
}
