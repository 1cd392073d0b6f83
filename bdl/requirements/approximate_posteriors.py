"""The requirements of 06 (approximate posteriors), quoted from its text."""

from bdl.requirements import Requirement

TABLE = {
    "log_joint": (
        Requirement(
            "inputs",
            "`weights` is a float32 tensor of shape `[B, 31]`, a batch of `B` flattened weight vectors; `x` and "
            "`y` are float32 arrays of shape `[N, 1]`; `noise_std` and `prior_std` are positive Python floats;",
        ),
        Requirement(
            "returns",
            r"return a float32 tensor of shape `[B]`: for each weight vector $w$, $\log p(y \mid x, w) + \log p(w)$, "
            "the Gaussian log-likelihood of all `N` points plus the Gaussian log prior of all 31 weights,",
        ),
        Requirement("constants", "**every normalising constant included**;"),
        Requirement(
            "gradient",
            "call `mlp(weights, x)` for the network's outputs and use TensorFlow operations on `weights`, so that "
            "HMC can take the gradient with respect to them;",
        ),
        Requirement("compiled", "HMC calls it inside a compiled `tf.function`: it must work there too."),
    ),
    "mc_dropout_moments": (
        Requirement(
            "inputs",
            "`model` is a Keras model with dropout that maps `x`, a float32 NumPy array of shape `[N, 1]`, to "
            "outputs of shape `[N, 1]`;",
        ),
        Requirement(
            "training",
            "call it `num_passes` times with dropout on, as `model(x, training=True)` (without `training=True` "
            "Keras turns dropout off);",
        ),
        Requirement(
            "returns",
            "return a tuple `(mean, variance)` of two NumPy arrays of shape `[N]`:",
        ),
        Requirement(
            "moments",
            "the mean of the passes' outputs, and the variance of the outputs over the passes (divided by $T$, not "
            "$T - 1$) plus the noise variance `noise_std**2`.",
        ),
    ),
    "last_layer_laplace": (
        Requirement(
            "inputs",
            r"`features` is a float64 NumPy array of shape `[N, K]` whose rows are the training inputs' features "
            r"$\phi(x_i)$, `new_features` one of shape `[M, K]` for the inputs to predict at; `noise_std` and "
            "`prior_std` are positive floats;",
        ),
        Requirement(
            "returns",
            r"return a tuple `(precision, covariance, variance)` of NumPy arrays: the posterior precision $\Lambda$ "
            r"of shape `[K, K]`, the covariance $\Sigma = \Lambda^{-1}$ of shape `[K, K]`, and the linearised "
            r"predictive variance $\phi_*^\top \Sigma \phi_* + \sigma^2$ of each row of `new_features`, shape `[M]`;",
        ),
        Requirement(
            "formula",
            r"$$\Lambda = \frac{1}{\sigma^2}\, \Phi^\top \Phi + \frac{1}{s^2}\, I, \qquad \Sigma = \Lambda^{-1}, "
            r"\qquad \operatorname{Var}\big[y_* \mid x_*\big] = \phi_*^\top \Sigma\, \phi_* + \sigma^2 ,$$",
        ),
        Requirement(
            "hessian",
            "the precision must be the Hessian of the negative log posterior of the last layer's weights, with the "
            "prior precision added: symmetric and positive definite.",
        ),
    ),
    "gaussian_w2": (
        Requirement(
            "formula",
            r"$$W_2\big(\mathcal{N}(m_1, s_1^2), \mathcal{N}(m_2, s_2^2)\big) = \sqrt{(m_1 - m_2)^2 + (s_1 - s_2)^2}.$$",
        ),
        Requirement(
            "inputs",
            "the four arguments are NumPy arrays of the same shape (or Python floats): the means and the",
        ),
        Requirement("std", "**standard deviations** (not variances) of two Gaussians at each point;"),
        Requirement("returns", "return a NumPy array of that shape holding $W_2$ at each point."),
    ),
    "conformal_quantile": (
        Requirement(
            "inputs",
            "`scores` is a one-dimensional NumPy array of the $n$ calibration scores, in any order; `alpha` is the "
            "miscoverage, a float in $(0, 1)$;",
        ),
        Requirement(
            "rank",
            r"return $\hat q$, the $\lceil (n + 1)(1 - \alpha) \rceil$-th smallest score (counting from 1),",
        ),
        Requirement("returns", "as a Python `float`;"),
        Requirement(
            "infinite",
            r"when $\lceil (n + 1)(1 - \alpha) \rceil > n$ there are too few scores for the guarantee: return "
            "`np.inf`;",
        ),
        Requirement("unchanged", "leave the array `scores` unchanged: the caller uses it again."),
        Requirement(
            "coverage",
            r"The interval $\hat f(x) \pm \hat q$ then covers a fresh $y$ with probability at least $1 - \alpha$, "
            "whenever the fresh point and the calibration points are **exchangeable**",
        ),
    ),
}
