"""The requirements of 02 (deep_ensembles), quoted from its text."""

from bdl.requirements import Requirement

TABLE = {
    "gaussian_mixture_moments": (
        Requirement(
            "inputs",
            "`means` and `scales` are NumPy arrays (float32, as a network returns them, or float64) of the same "
            "shape `[M, ...]`:",
        ),
        Requirement(
            "std",
            "member `m`'s Gaussian has mean `means[m]` and **standard deviation** (scale) `scales[m]`.",
        ),
        Requirement(
            "axis",
            "The **members are on axis 0**; any further axes (for example one per input $x$) are kept.",
        ),
        Requirement(
            "result",
            "Return a tuple `(mean, variance)`: the mixture's mean $\\mu_*$ and its **variance** $\\sigma_*^2$ (not "
            "the standard deviation), each of shape `means.shape[1:]`.",
        ),
        Requirement(
            "unchanged",
            "Leave the arrays you are given as they were: the notebook uses them again after the call.",
        ),
    ),
    "laplace_mixture_moments": (
        Requirement(
            "laplace_variance",
            "Its mean is $\\mu_m$, but its variance is $2 b_m^2$, not $b_m^2$: the scale $b$ of a Laplace "
            "distribution is not its standard deviation.",
        ),
        Requirement(
            "inputs",
            "`locs[m]` and `scales[m]` are member `m`'s location $\\mu_m$ and scale $b_m$, arrays (float32 or "
            "float64) of shape `[M, ...]` with the members on axis 0.",
        ),
        Requirement(
            "result",
            "Return `(mean, variance)` of the uniform mixture, each of shape `locs.shape[1:]`,",
        ),
        Requirement("unchanged", "and leave `locs` and `scales` as they were."),
    ),
    "entropy": (
        Requirement(
            "input",
            "`probs` is a NumPy array (float32, as a network's softmax returns it, or float64) of shape `[..., K]`, "
            "probability vectors along the **last axis**;",
        ),
        Requirement(
            "result",
            "return the entropy in **nats**, of shape `probs.shape[:-1]` (a scalar for a single vector), as a NumPy "
            "array or a tensor;",
        ),
        Requirement(
            "zeros",
            "it must be safe where a probability is exactly 0: take $0 \\log 0 = 0$, so the result has no `nan`",
        ),
        Requirement(
            "extremes",
            "is 0 when all the probability is on one class and largest, $\\log K$, when it is spread evenly.",
        ),
    ),
    "uncertainty_decomposition": (
        Requirement(
            "input",
            "`member_probs` is a NumPy array (float32 or float64) of shape `[M, N, K]`: `member_probs[m, n]` is "
            "member `m`'s probability vector over $K$ classes at input $n$ (**members on axis 0, classes on the "
            "last axis**);",
        ),
        Requirement(
            "result",
            "return a tuple `(total, data, knowledge)` of the total, data and knowledge uncertainty in nats, each "
            "of shape `[N]` (NumPy arrays or tensors).",
        ),
        Requirement(
            "total",
            "**total uncertainty** is the entropy of the ensemble's prediction, $H\\big(\\frac{1}{M}\\sum_m "
            "\\boldsymbol{p}^{(m)}\\big)$;",
        ),
        Requirement(
            "data",
            "**data uncertainty** is the members' average entropy, $\\frac{1}{M}\\sum_m "
            "H\\big(\\boldsymbol{p}^{(m)}\\big)$:",
        ),
        Requirement("knowledge", "**knowledge uncertainty** is the difference,"),
        Requirement(
            "never_negative",
            "It is never negative, because entropy is concave; it is 0 when the members agree, and large when they "
            "disagree confidently.",
        ),
    ),
    "expected_spread": (
        Requirement(
            "input",
            "`member_means` is a NumPy array (float32 or float64) of shape `[N, ...]` with $N \\ge 2$: the means of "
            "all $N$ members, **members on axis 0**; any further axes (for example one per input $x$) are kept.",
        ),
        Requirement("size", "`size` is the number $M$ of members in a subset, an integer with $1 \\le M \\le N$."),
        Requirement(
            "result",
            "Return the average of $\\operatorname{spread}(S)$ over all subsets $S$ of `size` of the $N$ members, of "
            "shape `member_means.shape[1:]`, as a NumPy array or a tensor.",
        ),
    ),
}
