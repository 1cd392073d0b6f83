"""The requirements of 01 (likelihoods), quoted from its text."""

from bdl.requirements import Requirement

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
}
