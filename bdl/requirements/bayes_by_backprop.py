"""The requirements of 03 (Bayes by Backprop), quoted from its text."""

from bdl.requirements import Requirement

TABLE = {
    "bbb_loss_terms": (
        Requirement(
            "inputs",
            "`mu`, `rho`, `eps`: float32 tensors of one shape (a scalar for one weight); `x`, `y`: float32 tensors "
            "holding the data points, of one shape; `noise_std`: the noise's standard deviation $s$; `prior`: a "
            "distribution with a `log_prob` method, such as `tfd.Normal(0.0, 1.0)`;",
        ),
        Requirement(
            "returns",
            r"sample $w = \mu + \mathrm{softplus}(\rho)\,\varepsilon$ and return the tuple "
            "`(log_q, log_prior, log_likelihood, loss)` of scalar tensors",
        ),
        Requirement("differentiable", "each differentiable in `mu` and `rho`"),
        Requirement(
            "values",
            r"$\log q(w \mid \theta)$ and $\log p(w)$ summed over the weights, $\log p(y \mid w, x) = \sum_i \log "
            r"\mathcal{N}(y_i \mid w x_i, s^2)$ summed over the data points, and "
            "`loss = log_q - log_prior - log_likelihood`.",
        ),
        Requirement(
            "paths",
            r"This assignment asks for the gradient of the one-sample loss $f(w, \theta)$ itself, through both "
            "paths, so that each sample's gradient can be checked exactly: the tests accept neither cut.",
        ),
        Requirement(
            "several",
            "`mu`, `rho` and `eps` may also hold several weights, as in the layer of Section 3: then `log_q` and "
            "`log_prior` are sums over all of them, the likelihood (not defined for several weights) is not "
            "checked, and all four values are still scalars with `loss = log_q - log_prior - log_likelihood`.",
        ),
        Requirement(
            "positive",
            r"$\sigma = \mathrm{softplus}(\rho) = \log(1 + e^\rho)$, so $\sigma > 0$ for any $\rho$.",
        ),
    ),
    "bayesian_dense": (
        Requirement(
            "init",
            "`__init__` stores `units` and `prior` (the given code keeps the two initialisers).",
            unchecked="The text names no attributes for them, so only their use is checked: the output's "
            "shape (units) and self.log_prior (prior).",
        ),
        Requirement(
            "defaults",
            "`mu_initializer` and `rho_initializer` are Keras initialisers, or `None` for the defaults "
            r"$\mu \sim U(-0.6, 0.6)$ (`tf.keras.initializers.RandomUniform(-0.6, 0.6)`) and $\rho = -6$ "
            "(`tf.keras.initializers.Constant(-6.0)`)",
        ),
        Requirement(
            "build",
            "`build(input_shape)` creates four trainable weights with `self.add_weight`: the kernel's $\\mu$ and "
            "$\\rho$, shape `(input_shape[-1], units)`, and the bias's $\\mu$ and $\\rho$, shape `(units,)`",
        ),
        Requirement(
            "own_initializer",
            "Do not share one initialiser between weights: a Keras initialiser without a seed returns the same "
            "values every time it is called, so two layers of one shape would start as the same layer, and a "
            "layer's bias $\\mu$ as a copy of its kernel $\\mu$'s first row.",
        ),
        Requirement(
            "fresh",
            r"on **every call** draws fresh weights $w = \mu + \mathrm{softplus}(\rho)\,\varepsilon$",
        ),
        Requirement(
            "normal",
            r"$$w = \mu + \sigma \varepsilon, \qquad \varepsilon \sim \mathcal{N}(0, 1),$$",
        ),
        Requirement(
            "independent",
            r"the mean-field approximation: the weights are independent under $q$",
        ),
        Requirement(
            "once",
            "`call(inputs)` samples the kernel and the bias **once per call**: one weight draw, shared by every "
            "row of the batch (not a new draw per example)",
        ),
        Requirement(
            "output",
            "returns `inputs @ kernel + bias`, with no activation (add an `Activation` layer after it);",
        ),
        Requirement(
            "log_densities",
            "sets `self.log_prior` and `self.log_variational_posterior` to the summed log densities of that "
            "sample (scalar tensors)",
        ),
        Requirement(
            "records",
            "For the loss, the layer also records, for the weights it has just used, $\\log p(w)$ and "
            r"$\log q(w \mid \theta)$ summed over all its kernel and bias entries.",
        ),
        Requirement(
            "paths",
            r"so that $f(w, \theta) = \log q(w \mid \theta) - \log p(w) - \log p(\mathcal{D} \mid w)$ is "
            r"differentiable in $\mu$ and $\rho$, through $w$ **and** directly through $q$'s own parameters.",
        ),
        Requirement(
            "compiled",
            "the layer must also work inside a `tf.function`: the training steps below compile their calls to it.",
        ),
        Requirement(
            "compiled_fresh",
            "Every call must draw new weights there too, two calls inside one compiled function as well as two "
            "runs of it.",
        ),
    ),
    "sample_elbo": (
        Requirement(
            "loss",
            r"$$\mathcal{F} \approx \frac{1}{S}\sum_{s=1}^{S} \Big[\kappa \big(\log q(w^{(s)} \mid \theta) - "
            r"\log p(w^{(s)})\big) - \log p(y \mid w^{(s)}, x)\Big],$$ where $\kappa$ is `kl_scale`.",
        ),
        Requirement(
            "returns",
            "returning this loss as a scalar tensor (the negative ELBO, to be minimised)",
        ),
        Requirement(
            "per_sample",
            "call `model(x)` once per sample; after each call, sum `log_prior` and `log_variational_posterior` "
            'over every layer in `model.layers` that has them (`hasattr(layer, "log_prior")`). A layer has them '
            "only once it has been called, and `model` may be new, never called before;",
        ),
        Requirement(
            "log_likelihood",
            "`log_likelihood_fn(y, outputs)` returns the log-likelihood of the batch, summed over its examples;",
        ),
        Requirement(
            "compiled",
            "the training steps below call `sample_elbo` inside a `tf.function`, so keep to TensorFlow "
            "operations on the tensors (no `.numpy()`).",
        ),
    ),
    "scale_mixture_log_prob": (
        Requirement(
            "inputs",
            "`w` is a float32 tensor of any shape, `pi`, `sigma1`, `sigma2` are Python floats;",
        ),
        Requirement(
            "mixture",
            r"$$p(w) = \pi\, \mathcal{N}(w \mid 0, \sigma_1^2) + (1 - \pi)\, \mathcal{N}(w \mid 0, \sigma_2^2), "
            r"\qquad \sigma_1 > \sigma_2 .$$",
        ),
        Requirement(
            "shape",
            "return $\\log p(w)$ for each entry of `w` (a tensor of `w`'s shape)",
        ),
        Requirement(
            "stable",
            "Find a way to compute it from $a$ and $b$ that never exponentiates a number far below zero (factor "
            "the larger of the two out of the sum), and look for whether TensorFlow already has it.",
        ),
    ),
}
