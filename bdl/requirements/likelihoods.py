"""The requirements of 01 (likelihoods), quoted from its text."""

from bdl.requirements import Requirement

# Section 3's sentences, which hold for each of its three losses.
_SCALAR = "returns the NLL **averaged over all entries** (the batch) as a scalar tensor"
_DIFFERENTIABLE = (
    "it must be differentiable, which means computing it with TensorFlow operations on the tensors you are given "
    "(no `.numpy()`, no NumPy functions applied to them)."
)
_NO_TFP = "Do not use `tfp.distributions` here; the hidden tests compare your results with it."
_NO_TFP_WHY = (
    "A rule about method, not about the result: an answer built on tfp.distributions gives the same values and "
    "gradients, and no test reads how a result was computed."
)
# Section 4's training loop, which calls the losses inside a compiled function.
_COMPILED = (
    "`train(network, objective, num_steps)` minimises `objective(x, y)` with Adam on the full training set (40 "
    "points, so no mini-batches), compiled with `tf.function` so each step is fast."
)


TABLE = {
    "brier_score": (
        Requirement(
            "probs",
            "`probs` has shape `(N, K)`: a probability vector over `K` classes for each of `N` examples;",
        ),
        Requirement(
            "labels",
            "`labels` holds the outcomes, either **one-hot**, with the same shape `(N, K)` as `probs` (of a "
            "float or an integer dtype), or as **integer** class indices of shape `(N,)`",
        ),
        Requirement(
            "mean",
            "return the Brier score $\\sum_k (p_k - y_k)^2$ **averaged over the `N` examples**, as a scalar.",
        ),
        Requirement(
            "inputs",
            "Inputs may be NumPy arrays or tensors, and `probs` may be float32 or float64 (NumPy's default);",
        ),
    ),
    "gaussian_nll": (
        Requirement("scalar", _SCALAR),
        Requirement("differentiable", _DIFFERENTIABLE),
        Requirement("no_tfp", _NO_TFP, unchecked=_NO_TFP_WHY),
        Requirement(
            "arguments",
            "The three arguments are float32 tensors of the same shape (for example `(N, 1)`); `scale` is the "
            "standard deviation $\\sigma$, not the variance.",
        ),
        Requirement(
            "value",
            "Return the mean over all entries of the Gaussian NLL $-\\log \\mathcal{N}(y \\mid \\mu, \\sigma^2)$ "
            "that you derived in 2.1.",
        ),
        Requirement("compiled", _COMPILED),
    ),
    "laplace_nll": (
        Requirement("scalar", _SCALAR),
        Requirement("differentiable", _DIFFERENTIABLE),
        Requirement("no_tfp", _NO_TFP, unchecked=_NO_TFP_WHY),
        Requirement(
            "value",
            "the mean over all entries of the Laplace NLL $-\\log \\operatorname{Laplace}(y \\mid \\mu, b)$ that "
            "you derived in 2.2",
        ),
        Requirement("arguments", "with `loc` $= \\mu$ and `scale` $= b$, float32 tensors of the same shape."),
        Requirement("compiled", _COMPILED),
        Requirement(
            "exact_fit",
            "Where `y` equals `loc` exactly, as a fitted network's output can, $|y - \\mu|$ has no derivative: there "
            "the gradient must stay finite, anywhere between the slopes on either side.",
        ),
    ),
    "categorical_nll": (
        Requirement("scalar", _SCALAR),
        Requirement("differentiable", _DIFFERENTIABLE),
        Requirement("no_tfp", _NO_TFP, unchecked=_NO_TFP_WHY),
        Requirement(
            "shapes",
            "Both are float32 tensors of shape `(N, K)` (or more leading axes, `(..., K)`); the classes are on the "
            "**last** axis.",
        ),
        Requirement(
            "value",
            "Return the mean over the examples of the categorical NLL that you derived in 2.3, with $p = "
            "\\mathrm{softmax}(z)$.",
        ),
        Requirement("stable", "Compute it **from the logits, stably**."),
    ),
    "split_mean_scale": (
        Requirement(
            "shapes",
            "`outputs` is a float32 tensor of shape `(N, 2)`; return the tuple `(mean, scale)`, each of shape `(N, "
            "1)` (keep the last axis, so they line up with `y` of shape `(N, 1)`),",
        ),
        Requirement("columns", "with the mean from column 0 and the scale from column 1 as above."),
        Requirement(
            "positive",
            "which is positive for every $\\rho$ and grows linearly for large $\\rho$ (unlike $e^{\\rho}$, which "
            "overflows).",
        ),
        Requirement("stable", "Use `tf.math.softplus`, which is computed stably."),
        Requirement(
            "gradients",
            "Both are part of the training loss, so compute them with TensorFlow operations: gradients must reach "
            "`outputs`.",
        ),
        Requirement("compiled", _COMPILED),
    ),
    "gaussian_crps": (
        Requirement(
            "value",
            "the CRPS of $\\mathcal{N}(\\mu, \\sigma^2)$ at the observation $y$, from the closed form of 4.1, with "
            "`loc` $= \\mu$ and `scale` $= \\sigma$ (the standard deviation).",
        ),
        Requirement(
            "broadcast",
            "`y`, `loc` and `scale` are float32 tensors that broadcast against one another: of one shape, such as "
            "`(N, 1)`, or with a scalar `scale` of shape `()` shared by every example.",
        ),
        Requirement(
            "per_example",
            "Return one CRPS per example, **not** their mean: a float32 tensor of the broadcast shape of the three "
            "inputs.",
        ),
        Requirement(
            "differentiable",
            "Compute it with TensorFlow operations, so that it is differentiable with respect to `loc` and `scale`.",
        ),
    ),
    "fgsm": (
        Requirement("value", "Return x + eps * sign(d loss_fn(x, y) / dx)."),
        Requirement("inputs", "`x` may be a NumPy array or a tensor, float32 or float64."),
        Requirement(
            "result",
            "Return the adversarial inputs $x'$ as a tensor of the shape of `x`, in float32 or in the dtype of `x`",
        ),
        Requirement("compiled", _COMPILED),
    ),
    "adversarial_loss": (
        Requirement(
            "value",
            "the mean of `loss_fn` on the inputs and on their FGSM adversarial examples (use your `fgsm`), "
            "$\\frac12 \\ell(x, y) + \\frac12 \\ell(x', y)$.",
        ),
        Requirement(
            "differentiable",
            "It is used as a training loss, so it must stay differentiable with respect to the model's weights.",
        ),
        Requirement(
            "separate",
            "Call `loss_fn` once on the inputs and once on the adversarial examples: `loss_fn` may be any scalar "
            "loss, a sum over the examples as well as a mean, so one call on the two batches joined together is "
            "not the same.",
        ),
    ),
}
