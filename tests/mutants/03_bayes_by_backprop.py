"""Wrong answers the Bayes-by-Backprop assignment's tests must catch, and
correct alternatives they must pass.

Each variant is (name, old, new): the reference solution cell with ``old``
replaced by ``new``; ``old`` must occur exactly once in that cell.
"""

MUTANTS = {
    "bbb_loss_terms": [
        ("sigma = exp(rho)", "sigma = tf.math.softplus(rho)", "sigma = tf.exp(rho)"),
        ("stopped gradient in log q", "tfd.Normal(mu, sigma).log_prob(w)",
         "tfd.Normal(mu, sigma).log_prob(tf.stop_gradient(w))"),
        ("log prior of the mean", "prior.log_prob(w)", "prior.log_prob(mu)"),
        ("noise std taken as the variance", "tfd.Normal(w * x, noise_std)", "tfd.Normal(w * x, noise_std ** 0.5)"),
        ("log-likelihood added", "return log_q, log_prior, log_likelihood, log_q - log_prior - log_likelihood",
         "return log_q, log_prior, log_likelihood, log_q - log_prior + log_likelihood"),
        ("mean over the data points", "log_likelihood = tf.reduce_sum(", "log_likelihood = tf.reduce_mean("),
    ],
    "bayesian_dense": [
        ("sigma = exp(rho)", "sigma = tf.math.softplus(rho)", "sigma = tf.exp(rho)"),
        ("log prior of the mean", "self.prior.log_prob(w)", "self.prior.log_prob(mu)"),
        ("stopped gradient in log q", "tfd.Normal(mu, sigma).log_prob(w)",
         "tfd.Normal(mu, sigma).log_prob(tf.stop_gradient(w))"),
        ("noise drawn once", "w = mu + sigma * tf.random.normal(tf.shape(mu))",
         "w = mu + sigma * tf.random.stateless_normal(tf.shape(mu), seed=[1, 2])"),
        ("bias not sampled", "for mu, rho in [(self.kernel_mu, self.kernel_rho), (self.bias_mu, self.bias_rho)]:",
         "for mu, rho in [(self.kernel_mu, self.kernel_rho), (self.bias_mu, self.bias_rho - 100.0)]:"),
        ("initialisers swapped", "initializer=self.mu_initializer)\n        self.kernel_rho",
         "initializer=self.rho_initializer)\n        self.kernel_rho"),
        ("kernel log densities only", "self.log_prior = log_prior",
         "self.log_prior = tf.reduce_sum(self.prior.log_prob(sampled[0]))"),
    ],
    "sample_elbo": [
        ("KL not scaled", "losses.append(kl_scale * (log_q - log_prior)", "losses.append((log_q - log_prior)"),
        ("sum over the samples", "return tf.reduce_mean(tf.stack(losses))", "return tf.reduce_sum(tf.stack(losses))"),
        ("one sample only", "for _ in range(num_samples):", "for _ in range(1):"),
        ("KL sign", "kl_scale * (log_q - log_prior)", "kl_scale * (log_prior - log_q)"),
        ("first Bayesian layer only", "layers = [layer for layer in model.layers if hasattr(layer, \"log_prior\")]",
         "layers = [layer for layer in model.layers if hasattr(layer, \"log_prior\")][:1]"),
        ("log-likelihood scaled too", "kl_scale * (log_q - log_prior) - log_likelihood_fn(y, outputs)",
         "kl_scale * (log_q - log_prior - log_likelihood_fn(y, outputs))"),
    ],
    "scale_mixture_log_prob": [
        ("mixture weights swapped", "np.log(pi) + tfd.Normal(0.0, sigma1)", "np.log(1 - pi) + tfd.Normal(0.0, sigma1)"),
        ("direct computation underflows",
         "    log_components = tf.stack([np.log(pi) + tfd.Normal(0.0, sigma1).log_prob(w),\n"
         "                               np.log(1 - pi) + tfd.Normal(0.0, sigma2).log_prob(w)], axis=0)\n"
         "    return tf.reduce_logsumexp(log_components, axis=0)",
         "    return tf.math.log(pi * tfd.Normal(0.0, sigma1).prob(w) + (1 - pi) * tfd.Normal(0.0, sigma2).prob(w))"),
        ("sigma taken as the variance", "tfd.Normal(0.0, sigma2)", "tfd.Normal(0.0, sigma2 ** 0.5)"),
        ("max instead of log-sum-exp", "return tf.reduce_logsumexp(log_components, axis=0)",
         "return tf.reduce_max(log_components, axis=0)"),
        ("mixture weights left out", "np.log(pi) + tfd.Normal(0.0, sigma1)", "tfd.Normal(0.0, sigma1)"),
    ],
}

ALTERNATIVES = {
    "bbb_loss_terms": [
        ("log q written out with eps", "log_q = tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))",
         "log_q = tf.reduce_sum(-0.5 * np.log(2 * np.pi) - tf.math.log(sigma) - 0.5 * tf.square(eps))"),
        ("tf.nn.softplus", "sigma = tf.math.softplus(rho)", "sigma = tf.nn.softplus(rho)"),
    ],
    "bayesian_dense": [
        ("log density written out", "log_q += tf.reduce_sum(tfd.Normal(mu, sigma).log_prob(w))",
         "log_q += tf.reduce_sum(-0.5 * np.log(2 * np.pi) - tf.math.log(sigma)"
         " - 0.5 * tf.square((w - mu) / sigma))"),
        ("log(1 + exp(rho))", "sigma = tf.math.softplus(rho)", "sigma = tf.math.log1p(tf.exp(rho))"),
    ],
    "sample_elbo": [
        ("add_n over the samples", "return tf.reduce_mean(tf.stack(losses))",
         "return tf.add_n(losses) / num_samples"),
    ],
    "scale_mixture_log_prob": [
        ("tf.math.log_sum_exp by hand",
         "    return tf.reduce_logsumexp(log_components, axis=0)",
         "    top = tf.reduce_max(log_components, axis=0)\n"
         "    return top + tf.math.log(tf.reduce_sum(tf.exp(log_components - top), axis=0))"),
        ("logaddexp via softplus",
         "    return tf.reduce_logsumexp(log_components, axis=0)",
         "    a, b = log_components[0], log_components[1]\n"
         "    return tf.maximum(a, b) + tf.math.softplus(-tf.abs(a - b))"),
    ],
}
