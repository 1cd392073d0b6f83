"""Wrong answers the Bayes-by-Backprop assignment's tests must catch, and
correct alternatives they must pass.

Each variant is (name, old, new): the reference solution cell with ``old``
replaced by ``new``; ``old`` must occur exactly once in that cell.
"""

_DENSE_BUILD = """\
    def build(self, input_shape):
        ### BEGIN SOLUTION
        kernel_shape = (int(input_shape[-1]), self.units)
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=kernel_shape,
                                         initializer=self.new_initializer("mu"))
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=kernel_shape,
                                          initializer=self.new_initializer("rho"))
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,), initializer=self.new_initializer("mu"))
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,), initializer=self.new_initializer("rho"))
"""
_DENSE_BUILD_ONE_MU = """\
    def build(self, input_shape):
        ### BEGIN SOLUTION
        kernel_shape = (int(input_shape[-1]), self.units)
        mu_initializer = self.new_initializer("mu")
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=kernel_shape, initializer=mu_initializer)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=kernel_shape,
                                          initializer=self.new_initializer("rho"))
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,), initializer=mu_initializer)
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,), initializer=self.new_initializer("rho"))
"""
_DENSE_BUILD_SHARED_DEFAULTS = """\
    def build(self, input_shape, kernel_default=tf.keras.initializers.RandomUniform(-0.6, 0.6),
              bias_default=tf.keras.initializers.RandomUniform(-0.6, 0.6)):
        ### BEGIN SOLUTION
        kernel_shape = (int(input_shape[-1]), self.units)
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=kernel_shape,
                                         initializer=self.initializers["mu"] or kernel_default)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=kernel_shape,
                                          initializer=self.new_initializer("rho"))
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,),
                                       initializer=self.initializers["mu"] or bias_default)
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,), initializer=self.new_initializer("rho"))
"""

# The defaults as objects in the signature, handed out as they are: every layer made without an
# initialiser shares the two instances, so layers of one shape start equal (a probe that passed
# mu_initializer=None would never see it).
_DENSE_INIT = """\
    def __init__(self, units, prior, mu_initializer=None, rho_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self.initializers = {"mu": mu_initializer, "rho": rho_initializer}  # None: the default
        ### BEGIN SOLUTION
        self.units = units
        self.prior = prior
        ### END SOLUTION

    def new_initializer(self, name):
        \"\"\"Return a new initialiser for one "mu" or "rho" weight: the given one's settings, or the default.\"\"\"
        given = self.initializers[name]
        if given is None:
            return (tf.keras.initializers.RandomUniform(-0.6, 0.6) if name == "mu"
                    else tf.keras.initializers.Constant(-6.0))
        # A new instance every time: an initialiser without a seed returns the same values on
        # every call, so weights that shared one would start equal.
        given = tf.keras.initializers.get(given)
        return type(given).from_config(given.get_config())
"""
_DENSE_INIT_DEFAULT_OBJECTS = """\
    def __init__(self, units, prior, mu_initializer=tf.keras.initializers.RandomUniform(-0.6, 0.6),
                 rho_initializer=tf.keras.initializers.Constant(-6.0), **kwargs):
        super().__init__(**kwargs)
        self.initializers = {"mu": mu_initializer, "rho": rho_initializer}
        ### BEGIN SOLUTION
        self.units = units
        self.prior = prior
        ### END SOLUTION

    def new_initializer(self, name):
        given = tf.keras.initializers.get(self.initializers[name])
        return type(given).from_config(given.get_config())

    def build(self, input_shape):
        ### BEGIN SOLUTION
        kernel_shape = (int(input_shape[-1]), self.units)
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=kernel_shape, initializer=self.initializers["mu"])
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=kernel_shape, initializer=self.initializers["rho"])
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,), initializer=self.new_initializer("mu"))
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,), initializer=self.new_initializer("rho"))
"""

_DENSE_CALL_HEAD = """\
    def call(self, inputs):
        ### BEGIN SOLUTION
        sampled, log_prior, log_q = [], 0.0, 0.0
        for mu, rho in [(self.kernel_mu, self.kernel_rho), (self.bias_mu, self.bias_rho)]:
            sigma = tf.math.softplus(rho)
            w = mu + sigma * tf.random.normal(tf.shape(mu))
"""
_DENSE_CALL_HEAD_COMPILED_NUMPY = """\
    @staticmethod
    @tf.function
    def draw(mu, sigma):
        return mu + sigma * np.random.normal(size=mu.shape).astype("float32")

    def call(self, inputs):
        ### BEGIN SOLUTION
        sampled, log_prior, log_q = [], 0.0, 0.0
        for mu, rho in [(self.kernel_mu, self.kernel_rho), (self.bias_mu, self.bias_rho)]:
            sigma = tf.math.softplus(rho)
            w = self.draw(mu, sigma)
"""
_DENSE_CALL_BODY = """\
            w = mu + sigma * tf.random.normal(tf.shape(mu))
            log_prior += tf.reduce_sum(self.prior.log_prob(w))
            log_q += tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))
            sampled.append(w)
        self.log_prior = log_prior
        self.log_variational_posterior = log_q
        kernel, bias = sampled
        return tf.matmul(inputs, kernel) + bias
"""
_DENSE_CALL_BODY_PER_EXAMPLE = """\
            shape = tf.concat([tf.shape(inputs)[:1], tf.shape(mu)], axis=0)
            w = mu + sigma * tf.random.normal(shape)
            log_prior += tf.reduce_sum(self.prior.log_prob(w))
            log_q += tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))
            sampled.append(w)
        self.log_prior = log_prior
        self.log_variational_posterior = log_q
        kernel, bias = sampled
        return tf.einsum("bi,bij->bj", inputs, kernel) + bias
"""

MUTANTS = {
    "bbb_loss_terms": [
        ("sigma = exp(rho)", "sigma = tf.math.softplus(rho)", "sigma = tf.exp(rho)"),
        (
            "stopped gradient in log q",
            "tfd.Normal(mu, sigma).log_prob(w)",
            "tfd.Normal(mu, sigma).log_prob(tf.stop_gradient(w))",
        ),
        ("log prior of the mean", "prior.log_prob(w)", "prior.log_prob(mu)"),
        ("noise std taken as the variance", "tfd.Normal(w * x, noise_std)", "tfd.Normal(w * x, noise_std ** 0.5)"),
        (
            "log-likelihood added",
            "return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood",
            "return log_q, log_prior, log_likelihood, log_q - log_prior + log_likelihood",
        ),
        ("mean over the data points", "log_likelihood = tf.reduce_sum(", "log_likelihood = tf.reduce_mean("),
        ("x and y swapped", "tfd.Normal(w * x, noise_std).log_prob(y)", "tfd.Normal(w * y, noise_std).log_prob(x)"),
        ("the prior argument ignored for N(0, 1)", "prior.log_prob(w)", "tfd.Normal(0.0, 1.0).log_prob(w)"),
        (
            "log-likelihood as a NumPy number",
            "log_likelihood = tf.reduce_sum(tfd.Normal(w * x, noise_std).log_prob(y))",
            "log_likelihood = np.sum(tfd.Normal(w * x, noise_std).log_prob(y).numpy())",
        ),
        # Roeder et al.'s "sticking the landing": unbiased, but not the one-sample gradient the task asks for.
        (
            "q's own parameters held constant in log q (sticking the landing)",
            "tfd.Normal(mu, sigma).log_prob(w)",
            "tfd.Normal(tf.stop_gradient(mu), tf.stop_gradient(sigma)).log_prob(w)",
        ),
        # The text's formula typed as it stands: 1 + e^rho rounds to 1 below rho = -16.6 in float32
        # (sigma 0) and e^rho overflows above 88.7 (sigma infinite).
        (
            "softplus written as log(1 + exp(rho))",
            "sigma = tf.math.softplus(rho)",
            "sigma = tf.math.log(1 + tf.exp(rho))",
        ),
    ],
    "bayesian_dense": [
        (
            "size-1 axes squeezed away",
            "return tf.matmul(inputs, kernel) + bias",
            "return tf.squeeze(tf.matmul(inputs, kernel) + bias)",
        ),
        ("sigma = exp(rho)", "sigma = tf.math.softplus(rho)", "sigma = tf.exp(rho)"),
        ("log prior of the mean", "self.prior.log_prob(w)", "self.prior.log_prob(mu)"),
        (
            "stopped gradient in log q",
            "tfd.Normal(mu, sigma).log_prob(w)",
            "tfd.Normal(mu, sigma).log_prob(tf.stop_gradient(w))",
        ),
        (
            "noise drawn once",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            "w = mu + sigma * tf.random.stateless_normal(tf.shape(mu), seed=[1, 2])",
        ),
        # New noise on every eager call, but NumPy's draw happens when a tf.function traces the layer:
        # every run of a compiled training step then uses the same weights.
        (
            "noise drawn with NumPy",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            'w = mu + sigma * np.random.normal(size=mu.shape).astype("float32")',
        ),
        (
            "bias not sampled",
            "for mu, rho in [(self.kernel_mu, self.kernel_rho), (self.bias_mu, self.bias_rho)]:",
            "for mu, rho in [(self.kernel_mu, self.kernel_rho), (self.bias_mu, self.bias_rho - 100.0)]:",
        ),
        (
            "initialisers swapped",
            'initializer=self.new_initializer("mu"))\n        self.kernel_rho',
            'initializer=self.new_initializer("rho"))\n        self.kernel_rho',
        ),
        # One initialiser for both mu: an unseeded one returns the same values on every call, so the
        # bias mu starts as the kernel mu's first row.
        ("one initialiser for the kernel's and the bias's mu", _DENSE_BUILD, _DENSE_BUILD_ONE_MU),
        # The original default argument: one instance for every layer, so two layers of one shape start equal.
        ("one default initialiser instance shared by every layer", _DENSE_BUILD, _DENSE_BUILD_SHARED_DEFAULTS),
        (
            "default initialiser objects in the signature",
            _DENSE_INIT + "\n" + _DENSE_BUILD,
            _DENSE_INIT_DEFAULT_OBJECTS,
        ),
        (
            "kernel log densities only",
            "self.log_prior = log_prior",
            "self.log_prior = tf.reduce_sum(self.prior.log_prob(sampled[0]))",
        ),
        (
            "log densities kept as NumPy numbers",
            "self.log_prior = log_prior\n        self.log_variational_posterior = log_q",
            "self.log_prior = log_prior.numpy()\n        self.log_variational_posterior = log_q.numpy()",
        ),
        (
            "input size hard-coded",
            "kernel_shape = (int(input_shape[-1]), self.units)",
            "kernel_shape = (2, self.units)",
        ),
        (
            "an activation inside the layer",
            "return tf.matmul(inputs, kernel) + bias",
            "return tf.nn.sigmoid(tf.matmul(inputs, kernel) + bias)",
        ),
        ("the prior argument ignored for N(0, 1)", "self.prior.log_prob(w)", "tfd.Normal(0.0, 1.0).log_prob(w)"),
        # The same freezing with NumPy's Generator, turned into a tensor: drawn once per trace.
        (
            "noise drawn with NumPy's Generator, as a tensor",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            "w = mu + sigma * tf.constant(np.random.default_rng().standard_normal(mu.shape), tf.float32)",
        ),
        # The NumPy draw inside a compiled helper: traced once per shape, so every call, compiled or
        # not, reuses the noise of the first.
        ("NumPy noise drawn inside a compiled function", _DENSE_CALL_HEAD, _DENSE_CALL_HEAD_COMPILED_NUMPY),
        (
            "q's own parameters held constant in log q (sticking the landing)",
            "tfd.Normal(mu, sigma).log_prob(w)",
            "tfd.Normal(tf.stop_gradient(mu), tf.stop_gradient(sigma)).log_prob(w)",
        ),
        # A new kernel and bias for every row of the batch (as the local reparameterisation samples per example).
        ("weights drawn per example", _DENSE_CALL_BODY, _DENSE_CALL_BODY_PER_EXAMPLE),
        # A truncated normal eps: variance 0.77, nothing beyond two standard deviations.
        (
            "eps from a truncated normal",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            "w = mu + sigma * tf.random.truncated_normal(tf.shape(mu))",
        ),
        (
            "eps from a stateless truncated normal, seeded per call",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            "w = mu + sigma * tf.random.stateless_truncated_normal(\n"
            "                tf.shape(mu), seed=tf.random.uniform([2], 0, 2**31 - 1, dtype=tf.int32))",
        ),
        # One eps per unit, broadcast over the kernel's inputs: every weight keeps its spread, but the
        # weights into one unit move together, which mean field (independent weights) rules out.
        (
            "one eps per unit, shared by its inputs",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            "w = mu + sigma * tf.random.normal(tf.shape(mu)[-1:])",
        ),
    ],
    "sample_elbo": [
        ("KL not scaled", "losses.append(kl_scale * (log_q - log_prior)", "losses.append((log_q - log_prior)"),
        ("sum over the samples", "return tf.reduce_mean(tf.stack(losses))", "return tf.reduce_sum(tf.stack(losses))"),
        ("one sample only", "for _ in range(num_samples):", "for _ in range(1):"),
        ("KL sign", "kl_scale * (log_q - log_prior)", "kl_scale * (log_prior - log_q)"),
        (
            "first Bayesian layer only",
            'layers = [layer for layer in model.layers if hasattr(layer, "log_prior")]',
            'layers = [layer for layer in model.layers if hasattr(layer, "log_prior")][:1]',
        ),
        (
            "log-likelihood scaled too",
            "kl_scale * (log_q - log_prior) - log_likelihood_fn(y, outputs)",
            "kl_scale * (log_q - log_prior - log_likelihood_fn(y, outputs))",
        ),
        # Full marks once, because every test model had been called: on a new model no layer has
        # log_prior yet, so the list is empty and the KL term silently 0.
        (
            "layers collected before the call",
            "    for _ in range(num_samples):\n"
            "        outputs = model(x)\n"
            '        layers = [layer for layer in model.layers if hasattr(layer, "log_prior")]\n'
            "        log_prior = tf.add_n([layer.log_prior for layer in layers])\n"
            "        log_q = tf.add_n([layer.log_variational_posterior for layer in layers])\n",
            '    layers = [layer for layer in model.layers if hasattr(layer, "log_prior")]\n'
            "    for _ in range(num_samples):\n"
            "        outputs = model(x)\n"
            "        log_prior = sum(layer.log_prior for layer in layers)\n"
            "        log_q = sum(layer.log_variational_posterior for layer in layers)\n",
        ),
        ("log-likelihood arguments swapped", "log_likelihood_fn(y, outputs)", "log_likelihood_fn(outputs, y)"),
        (
            "kl_scale ignored for the notebook's 1 / num_batches",
            "kl_scale * (log_q - log_prior)",
            "(1.0 / num_batches) * (log_q - log_prior)",
        ),
        (
            "loss returned as a NumPy number",
            "return tf.reduce_mean(tf.stack(losses))",
            "return tf.reduce_mean(tf.stack(losses)).numpy()",
        ),
    ],
    "scale_mixture_log_prob": [
        (
            "size-1 axes squeezed away",
            "return tf.reduce_logsumexp(log_components, axis=0)",
            "return tf.squeeze(tf.reduce_logsumexp(log_components, axis=0))",
        ),
        ("mixture weights swapped", "np.log(pi) + tfd.Normal(0.0, sigma1)", "np.log(1 - pi) + tfd.Normal(0.0, sigma1)"),
        (
            "direct computation underflows",
            "    log_components = tf.stack([np.log(pi) + tfd.Normal(0.0, sigma1).log_prob(w),\n"
            "                               np.log(1 - pi) + tfd.Normal(0.0, sigma2).log_prob(w)], axis=0)\n"
            "    return tf.reduce_logsumexp(log_components, axis=0)",
            "    return tf.math.log(pi * tfd.Normal(0.0, sigma1).prob(w) + (1 - pi) * tfd.Normal(0.0, sigma2).prob(w))",
        ),
        ("sigma taken as the variance", "tfd.Normal(0.0, sigma2)", "tfd.Normal(0.0, sigma2 ** 0.5)"),
        (
            "max instead of log-sum-exp",
            "return tf.reduce_logsumexp(log_components, axis=0)",
            "return tf.reduce_max(log_components, axis=0)",
        ),
        ("mixture weights left out", "np.log(pi) + tfd.Normal(0.0, sigma1)", "tfd.Normal(0.0, sigma1)"),
        (
            "a NumPy array returned",
            "return tf.reduce_logsumexp(log_components, axis=0)",
            "return tf.reduce_logsumexp(log_components, axis=0).numpy()",
        ),
        ("the paper's sigma2 hard-coded", "tfd.Normal(0.0, sigma2)", "tfd.Normal(0.0, float(np.exp(-6.0)))"),
        (
            "sigma1 and sigma2 swapped",
            "def scale_mixture_log_prob(w, pi, sigma1, sigma2):",
            "def scale_mixture_log_prob(w, pi, sigma2, sigma1):",
        ),
    ],
}

_DENSE_BUILD_AND_CALL = (
    """\
        kernel_shape = (int(input_shape[-1]), self.units)
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=kernel_shape,
                                         initializer=self.new_initializer("mu"))
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=kernel_shape,
                                          initializer=self.new_initializer("rho"))
        self.bias_mu = self.add_weight(name="bias_mu", shape=(self.units,), initializer=self.new_initializer("mu"))
        self.bias_rho = self.add_weight(name="bias_rho", shape=(self.units,), initializer=self.new_initializer("rho"))
        ### END SOLUTION

    def call(self, inputs):
        ### BEGIN SOLUTION
        sampled, log_prior, log_q = [], 0.0, 0.0
        for mu, rho in [(self.kernel_mu, self.kernel_rho), (self.bias_mu, self.bias_rho)]:
            sigma = tf.math.softplus(rho)
"""
    + _DENSE_CALL_BODY
)
# The same layer without the loop: add_weight's shape straight from input_shape, the noise's shape static.
_DENSE_WRITTEN_OUT = """\
        self.kernel_mu = self.add_weight(name="kernel_mu", shape=[input_shape[-1], self.units],
                                         initializer=self.new_initializer("mu"), trainable=True)
        self.kernel_rho = self.add_weight(name="kernel_rho", shape=[input_shape[-1], self.units],
                                          initializer=self.new_initializer("rho"), trainable=True)
        self.bias_mu = self.add_weight(name="bias_mu", shape=[self.units], initializer=self.new_initializer("mu"),
                                       trainable=True)
        self.bias_rho = self.add_weight(name="bias_rho", shape=[self.units], initializer=self.new_initializer("rho"),
                                        trainable=True)
        ### END SOLUTION

    def call(self, inputs):
        ### BEGIN SOLUTION
        kernel_sigma = tf.nn.softplus(self.kernel_rho)
        bias_sigma = tf.nn.softplus(self.bias_rho)
        kernel = self.kernel_mu + kernel_sigma * tf.random.normal(self.kernel_mu.shape)
        bias = self.bias_mu + bias_sigma * tf.random.normal(self.bias_mu.shape)
        self.log_prior = (tf.reduce_sum(self.prior.log_prob(kernel))
                          + tf.reduce_sum(self.prior.log_prob(bias)))
        self.log_variational_posterior = (tf.reduce_sum(tfd.Normal(self.kernel_mu, kernel_sigma).log_prob(kernel))
                                          + tf.reduce_sum(tfd.Normal(self.bias_mu, bias_sigma).log_prob(bias)))
        return inputs @ kernel + bias
"""
_ELBO_BODY = """\
    losses = []
    for _ in range(num_samples):
        outputs = model(x)
        layers = [layer for layer in model.layers if hasattr(layer, "log_prior")]
        log_prior = tf.add_n([layer.log_prior for layer in layers])
        log_q = tf.add_n([layer.log_variational_posterior for layer in layers])
        losses.append(kl_scale * (log_q - log_prior) - log_likelihood_fn(y, outputs))
    return tf.reduce_mean(tf.stack(losses))
"""
_MIXTURE_BODY = """\
    w = tf.convert_to_tensor(w, dtype=tf.float32)
    log_components = tf.stack([np.log(pi) + tfd.Normal(0.0, sigma1).log_prob(w),
                               np.log(1 - pi) + tfd.Normal(0.0, sigma2).log_prob(w)], axis=0)
    return tf.reduce_logsumexp(log_components, axis=0)
"""

ALTERNATIVES = {
    "bbb_loss_terms": [
        (
            "log q written out with eps",
            "log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))",
            "log_q = tf.reduce_sum(-0.5 * np.log(2 * np.pi) - tf.math.log(sigma) - 0.5 * tf.square(eps))",
        ),
        ("tf.nn.softplus", "sigma = tf.math.softplus(rho)", "sigma = tf.nn.softplus(rho)"),
        (
            "Gaussian log-likelihood written out",
            "log_likelihood = tf.reduce_sum(tfd.Normal(w * x, noise_std).log_prob(y))",
            "log_likelihood = tf.reduce_sum(-0.5 * np.log(2 * np.pi) - np.log(noise_std)\n"
            "                                   - tf.square(y - w * x) / (2 * noise_std ** 2))",
        ),
        ("wrapped in tf.function", "def bbb_loss_terms(", "@tf.function\ndef bbb_loss_terms("),
    ],
    "bayesian_dense": [
        (
            "log density written out",
            "log_q += tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))",
            "log_q += tf.reduce_sum(-0.5 * np.log(2 * np.pi) - tf.math.log(sigma) - 0.5 * tf.square((w - mu) / sigma))",
        ),
        ("log(1 + exp(rho))", "sigma = tf.math.softplus(rho)", "sigma = tf.math.log1p(tf.exp(rho))"),
        (
            "tfd.Normal(mu, sigma).sample()",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            "w = tfd.Normal(mu, sigma).sample()",
        ),
        (
            "eps from tfd.Normal(0, 1).sample",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            "w = mu + sigma * tfd.Normal(0.0, 1.0).sample(tf.shape(mu))",
        ),
        (
            "eps from a tf.random.Generator",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            "w = mu + sigma * tf.random.get_global_generator().normal(tf.shape(mu))",
        ),
        (
            "eps from a stateless normal, seeded per call",
            "w = mu + sigma * tf.random.normal(tf.shape(mu))",
            "w = mu + sigma * tf.random.stateless_normal(\n"
            "                tf.shape(mu), seed=tf.random.uniform([2], 0, 2**31 - 1, dtype=tf.int32))",
        ),
        ("kernel and bias written out, no loop", _DENSE_BUILD_AND_CALL, _DENSE_WRITTEN_OUT),
        (
            "the KL also given to add_loss",
            "self.log_variational_posterior = log_q",
            "self.log_variational_posterior = log_q\n        self.add_loss(log_q - log_prior)",
        ),
    ],
    "sample_elbo": [
        ("add_n over the samples", "return tf.reduce_mean(tf.stack(losses))", "return tf.add_n(losses) / num_samples"),
        ("wrapped in tf.function", "def sample_elbo(", "@tf.function\ndef sample_elbo("),
        (
            "running sums in Python loops",
            _ELBO_BODY,
            "    total = 0.0\n"
            "    for _ in range(num_samples):\n"
            "        outputs = model(x)\n"
            "        kl = 0.0\n"
            "        for layer in model.layers:\n"
            '            if hasattr(layer, "log_prior"):\n'
            "                kl += layer.log_variational_posterior - layer.log_prior\n"
            "        total += kl_scale * kl - log_likelihood_fn(y, outputs)\n"
            "    return total / num_samples\n",
        ),
        (
            "getattr and tf.reduce_sum over the layers",
            _ELBO_BODY,
            "    losses = []\n"
            "    for _ in range(num_samples):\n"
            "        outputs = model(x)\n"
            "        kl = tf.reduce_sum([layer.log_variational_posterior - layer.log_prior\n"
            '                            for layer in model.layers if getattr(layer, "log_prior", None) is not None])\n'
            "        losses.append(kl_scale * kl - log_likelihood_fn(y, outputs))\n"
            "    return tf.reduce_mean(losses)\n",
        ),
    ],
    "scale_mixture_log_prob": [
        (
            "tf.math.log_sum_exp by hand",
            "    return tf.reduce_logsumexp(log_components, axis=0)",
            "    top = tf.reduce_max(log_components, axis=0)\n"
            "    return top + tf.math.log(tf.reduce_sum(tf.exp(log_components - top), axis=0))",
        ),
        (
            "logaddexp via softplus",
            "    return tf.reduce_logsumexp(log_components, axis=0)",
            "    a, b = log_components[0], log_components[1]\n"
            "    return tf.maximum(a, b) + tf.math.softplus(-tf.abs(a - b))",
        ),
        (
            "tfd.MixtureSameFamily",
            _MIXTURE_BODY,
            "    mixture = tfd.MixtureSameFamily(tfd.Categorical(probs=[pi, 1 - pi]),\n"
            "                                    tfd.Normal(loc=[0.0, 0.0], scale=[sigma1, sigma2]))\n"
            "    return mixture.log_prob(w)\n",
        ),
        (
            "tfd.Mixture",
            _MIXTURE_BODY,
            "    mixture = tfd.Mixture(cat=tfd.Categorical(probs=[pi, 1 - pi]),\n"
            "                          components=[tfd.Normal(0.0, sigma1), tfd.Normal(0.0, sigma2)])\n"
            "    return mixture.log_prob(w)\n",
        ),
        (
            "NumPy logaddexp, returned as a tensor",
            _MIXTURE_BODY,
            "    w = np.asarray(w, dtype=np.float64)\n"
            "    log_normal = lambda s: -0.5 * np.log(2 * np.pi) - np.log(s) - w ** 2 / (2 * s ** 2)\n"
            "    return tf.convert_to_tensor(np.logaddexp(np.log(pi) + log_normal(sigma1),\n"
            "                                             np.log(1 - pi) + log_normal(sigma2)))\n",
        ),
    ],
}

# The mistake each mutant makes, by its name in bdl.diagnoses.bayes_by_backprop (check-tests
# counts the killed mutants whose failure names it).
DIAGNOSES = {
    "bbb_loss_terms": {
        "sigma = exp(rho)": "exp_not_softplus",
        "stopped gradient in log q": "gradient_stopped",
        "log prior of the mean": "prior_at_the_mean",
        "noise std taken as the variance": "noise_as_variance",
        "log-likelihood added": "log_likelihood_added",
        "mean over the data points": "mean_over_data",
        "x and y swapped": "x_and_y_swapped",
        "the prior argument ignored for N(0, 1)": "prior_ignored",
        "log-likelihood as a NumPy number": "not_a_tensor",
        "q's own parameters held constant in log q (sticking the landing)": "parameters_stopped",
        "softplus written as log(1 + exp(rho))": "softplus_unstable",
    },
    "bayesian_dense": {
        "size-1 axes squeezed away": "size_one_axes_lost",
        "sigma = exp(rho)": "exp_not_softplus",
        "log prior of the mean": "prior_at_the_mean",
        "stopped gradient in log q": "gradient_stopped",
        "noise drawn once": "same_noise_every_call",
        "noise drawn with NumPy": "noise_frozen_when_compiled",
        "bias not sampled": "bias_not_sampled",
        "initialisers swapped": "initialisers_swapped",
        "one initialiser for the kernel's and the bias's mu": "one_initialiser_for_both_means",
        "one default initialiser instance shared by every layer": "layers_start_equal",
        "default initialiser objects in the signature": "layers_start_equal",
        "kernel log densities only": "kernel_only",
        "log densities kept as NumPy numbers": "not_a_tensor",
        "input size hard-coded": "input_size_hard_coded",
        "an activation inside the layer": "activation_inside",
        "the prior argument ignored for N(0, 1)": "prior_ignored",
        "noise drawn with NumPy's Generator, as a tensor": "noise_frozen_when_compiled",
        "NumPy noise drawn inside a compiled function": "same_noise_every_call",
        "q's own parameters held constant in log q (sticking the landing)": "parameters_stopped",
        "weights drawn per example": "weights_per_example",
        "one eps per unit, shared by its inputs": "noise_shared",
    },
    "sample_elbo": {
        "KL not scaled": "kl_scale_ignored",
        "sum over the samples": "sum_over_samples",
        "one sample only": "one_call",
        "KL sign": "kl_negated",
        "first Bayesian layer only": "first_layer_only",
        "log-likelihood scaled too": "log_likelihood_scaled",
        "layers collected before the call": "layers_before_the_call",
        "log-likelihood arguments swapped": "log_likelihood_arguments_swapped",
        "kl_scale ignored for the notebook's 1 / num_batches": "kl_scale_ignored",
        "loss returned as a NumPy number": "not_a_tensor",
    },
    "scale_mixture_log_prob": {
        "size-1 axes squeezed away": "size_one_axes_lost",
        "mixture weights swapped": "weights_unnormalised",
        "direct computation underflows": "underflows",
        "sigma taken as the variance": "sigma_as_variance",
        "max instead of log-sum-exp": "max_not_sum",
        "mixture weights left out": "weights_unnormalised",
        "a NumPy array returned": "not_a_tensor",
        "the paper's sigma2 hard-coded": "sigma2_ignored",
        "sigma1 and sigma2 swapped": "weights_swapped",
    },
}
