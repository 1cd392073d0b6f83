"""The requirements of 05 (calibration), quoted from its text."""

from bdl.requirements import Requirement

TABLE = {
    "reliability_bins": (
        Requirement(
            "inputs",
            "`probs` is a NumPy array of shape `[N, K]` (float32 or float64; rows sum to one), `labels` holds the "
            "integer true classes, shape `[N]`;",
        ),
        Requirement("default", "Write `reliability_bins(probs, labels, num_bins=15)`:"),
        Requirement(
            "prediction",
            "the confidence of a point is its largest probability, the prediction its `argmax`; a point is "
            "correct when the prediction equals its label;",
        ),
        Requirement(
            "bins",
            r"bin $m$ (counting from 0 in code) holds the confidences in $\big(\tfrac{m}{M}, \tfrac{m+1}{M}\big]$; "
            "a confidence of exactly 0 goes to the first bin (points exactly on an inner bin edge are rare and are "
            "not tested);",
        ),
        Requirement(
            "returns",
            "return a tuple of three NumPy arrays of length `num_bins`: `(accuracy, confidence, count)`, the "
            "accuracy and the mean confidence of each bin's points and the number of points in each bin.",
        ),
        Requirement(
            "empty",
            "An **empty bin** has count 0 and accuracy and confidence 0 (not `nan`).",
        ),
    ),
    "expected_calibration_error": (
        Requirement(
            "weighted",
            "the gap between accuracy and confidence in each bin, weighted by the share of points in the bin,",
        ),
        Requirement(
            "fifteen",
            "with $n$ the number of points and $M = 15$ equal-width bins as in Guo et al. (2017).",
        ),
        Requirement("range", "It is 0 for a perfectly calibrated model and at most 1."),
        Requirement("empty", "Empty bins contribute nothing."),
        Requirement(
            "returns",
            "Write `expected_calibration_error(probs, labels, num_bins=15)` returning the ECE as a Python `float`;",
        ),
        Requirement("inputs", "`probs` and `labels` are as for `reliability_bins`."),
    ),
    "fit_temperature": (
        Requirement(
            "nll",
            "$T$ is fitted after training, on held-out **validation** data, by minimising the negative log-likelihood",
        ),
        Requirement(
            "log_t",
            r"To keep $T$ positive without a constraint, optimise $\tau = \log T$ over all real numbers and use "
            r"$T = e^{\tau}$.",
            unchecked="It suggests a way to keep T positive; the result's positivity is checked, not the way.",
        ),
        Requirement(
            "inputs",
            "`logits` of shape `[N, K]` (a NumPy array, float32 or float64), `labels` the integer classes of "
            "shape `[N]`;",
        ),
        Requirement("returns", "return the fitted temperature $T$ as a positive Python `float`."),
        Requirement("unchanged", "Leave the array `logits` unchanged: the caller uses it again."),
        Requirement(
            "precision",
            "The fit must be precise to about 1% of $T$, for temperatures between 0.2 and 10.",
        ),
    ),
    "mc_dropout_predict": (
        Requirement(
            "inputs",
            "`model` is a Keras model with dropout layers that outputs **logits**; `x` is a NumPy array of `N` inputs;",
        ),
        Requirement(
            "training",
            "call the model on `x` `num_passes` times with dropout on: Keras turns dropout off in `predict` and "
            "whenever a model is called without `training=True`, so call it as `model(x, training=True)`;",
        ),
        Requirement(
            "softmax",
            "turn each pass's logits into probabilities with the softmax and average the probabilities over the "
            "passes (not the logits);",
        ),
        Requirement("returns", "return a NumPy array of shape `[N, K]` whose rows sum to one."),
    ),
    "planar_flow": (
        Requirement(
            "inputs",
            "`z` is a batch of points of shape `[N, D]`, `u` and `w` have shape `[D]`, `b` is a scalar (all "
            "`float32` tensors or variables).",
        ),
        Requirement(
            "returns",
            "Return a tuple `(f_z, log_det)`: `f_z` of shape `[N, D]` and `log_det`, the log absolute determinant "
            "of the Jacobian at each point, of shape `[N]`.",
        ),
        Requirement(
            "flow",
            r"$$f(z) = z + \hat u\, \tanh(w^\top z + b), \qquad \log\left|\det \frac{\partial f}{\partial z}\right| "
            r"= \log\big|1 + \hat u^\top \psi(z)\big|, \qquad \psi(z) = \big(1 - \tanh^2(w^\top z + b)\big)\, w ,$$",
        ),
        Requirement("invertible", r"A planar map is invertible only if $w^\top \hat u \ge -1$."),
        Requirement(
            "u_hat",
            r"$$\hat u = u + \big(m(w^\top u) - w^\top u\big)\frac{w}{\lVert w \rVert^2}, \qquad m(x) = -1 + "
            r"\log(1 + e^{x}) \;\; (\text{softplus}),$$",
        ),
        Requirement(
            "gradients",
            "Use TensorFlow operations only, so that gradients reach `u`, `w` and `b` (the model below trains them).",
        ),
    ),
}
