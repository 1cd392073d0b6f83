"""Blind one-bug answers for 03_bayes_by_backprop, round five, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "bbb_loss_terms": [
        (
            "log_q_of_stopped_w",
            "Evaluates log q at tf.stop_gradient(w), cutting the path through w (the biased cut the task text "
            "describes). All four values are right, so the visible asserts pass, but the gradients are wrong: at "
            "the worked example d loss / d mu loses the log q part through w (it is then only the direct path) and "
            "d loss / d rho misses the entropy's push, so sigma collapses in 2.2's run.",
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
            "likelihood_mean_over_points",
            "Averages the log-likelihood over the data points instead of summing it. With the single data point "
            "of the visible asserts and of 2.2 the two agree, so they pass; with several points, e.g. x = [1, 2], "
            "y = [1, 3], the likelihood is half the required value and the posterior it leads to is too wide.",
            '''def bbb_loss_terms(mu, rho, eps, x, y, noise_std, prior):
    """Return (log_q, log_prior, log_likelihood, loss) for w = mu + softplus(rho) * eps in y = w x."""
    sigma = tf.math.softplus(rho)
    w = mu + sigma * eps
    log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))
    log_prior = tf.reduce_sum(prior.log_prob(w))
    log_likelihood = tf.reduce_mean(tfd.Normal(w * x, noise_std).log_prob(y))
    return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood
''',
        ),
    ],
    "bayesian_dense": [
        (
            "numpy_noise_frozen_in_tf_function",
            "Draws eps with NumPy. Eagerly every call draws new weights, so the visible asserts pass, but inside a "
            "tf.function the draw happens once, at tracing, and is a constant of the graph: two calls in one "
            "compiled function, and every run of it, use the same weights (the toy and MNIST training steps never "
            "resample).",
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
        fan_in = int(input_shape[-1])
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=(fan_in, self.units),
                                         initializer=self.new_initializer("mu"), trainable=True)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=(fan_in, self.units),
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
        self.log_prior = (tf.reduce_sum(self.prior.log_prob(kernel)) + tf.reduce_sum(self.prior.log_prob(bias)))
        self.log_variational_posterior = (tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
                                          + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
''',
        ),
        (
            "one_initializer_per_kind",
            "Makes one mu initialiser and one rho initialiser per layer and uses each for both the kernel and the "
            "bias. Two layers still differ (each gets new instances), so the visible asserts pass, but with the "
            "default unseeded RandomUniform the bias mu comes out equal to the first row of the kernel mu, which "
            "the task text forbids.",
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
        fan_in = int(input_shape[-1])
        mu_init, rho_init = self.new_initializer("mu"), self.new_initializer("rho")
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=(fan_in, self.units),
                                         initializer=mu_init, trainable=True)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=(fan_in, self.units),
                                          initializer=rho_init, trainable=True)
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,), initializer=mu_init, trainable=True)
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,), initializer=rho_init, trainable=True)
        super().build(input_shape)

    def call(self, inputs):
        kernel_sigma = tf.math.softplus(self.kernel_rho)
        bias_sigma = tf.math.softplus(self.bias_rho)
        kernel = self.kernel_mu + kernel_sigma * tf.random.normal(tf.shape(self.kernel_mu))
        bias = self.bias_mu + bias_sigma * tf.random.normal(tf.shape(self.bias_mu))
        self.log_prior = (tf.reduce_sum(self.prior.log_prob(kernel)) + tf.reduce_sum(self.prior.log_prob(bias)))
        self.log_variational_posterior = (tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
                                          + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return tf.matmul(inputs, kernel) + bias
''',
        ),
    ],
    "sample_elbo": [
        (
            "first_layer_only",
            "Reads log_prior and log_variational_posterior from model.layers[0] only, instead of summing them "
            "over every layer that has them. With one Bayesian layer (the visible assert) it is right; for the "
            "notebook's networks of two or three BayesianDense layers the KL term misses every layer but the "
            "first.",
            '''def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
    """Return the Monte Carlo estimate of kl_scale * (log q - log prior) - log likelihood."""
    total = 0.0
    for _ in range(num_samples):
        outputs = model(x)
        layer = model.layers[0]
        kl = layer.log_variational_posterior - layer.log_prior
        total += kl_scale * kl - log_likelihood_fn(y, outputs)
    return total / num_samples
''',
        ),
    ],
    "scale_mixture_log_prob": [
        (
            "log_of_summed_densities",
            "Adds the two weighted densities and then takes the log, the direct form the task warns about. It is "
            "right where the densities do not underflow (the visible asserts pass) but gives -inf where both "
            "densities underflow in float32, e.g. w = 40 with the notebook's pi = 1/4, sigma1 = 1, sigma2 = e^-6 "
            "(the right value is about -802.3), and its gradient there is nan.",
            '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    broad = tfd.Normal(0.0, sigma1).prob(w)
    narrow = tfd.Normal(0.0, sigma2).prob(w)
    return tf.math.log(pi * broad + (1.0 - pi) * narrow)
''',
        ),
    ],
}
CORRECT = {
    "scale_mixture_log_prob": [
        (
            "tfp_mixture_same_family",
            '''def scale_mixture_log_prob(w, pi, sigma1, sigma2):
    """Return log(pi N(w | 0, sigma1^2) + (1 - pi) N(w | 0, sigma2^2)), entry by entry."""
    # TFP's mixture adds its components' log densities with a log-sum-exp, so nothing underflows.
    prior = tfd.MixtureSameFamily(
        mixture_distribution=tfd.Categorical(probs=[pi, 1.0 - pi]),
        components_distribution=tfd.Normal(loc=[0.0, 0.0], scale=[sigma1, sigma2]))
    return prior.log_prob(w)
''',
        ),
    ],
}
