"""Wrong answers the tiny assignment's tests must catch, and correct alternatives they must pass
(``tests/support/tiny_course.py``; check-tests' format: (name, old, new), ``old`` once in the cell).

Its tests name no likely mistake (``bdl.diagnoses`` holds no table for it: students never get it), so
``DIAGNOSES`` is empty.
"""

MUTANTS = {
    "brier_score": [
        ("absolute instead of squared error", "(probs - labels) ** 2", "np.abs(probs - labels)"),
        ("sum over the examples", "float(np.mean(np.sum(", "float(np.sum(np.sum("),
        ("mean over the classes", "np.sum((probs - labels) ** 2, axis=-1)", "np.mean((probs - labels) ** 2, axis=-1)"),
    ],
    "gaussian_nll": [
        ("missing log(2 pi)", "0.5 * np.log(2 * np.pi) + ", ""),
        ("sum instead of mean", "return np.mean(", "return np.sum("),
        ("scale taken as the variance", "(2 * scale ** 2)", "(2 * scale)"),
    ],
    "laplace_nll": [
        ("log(b) instead of log(2b)", "np.log(2 * scale)", "np.log(scale)"),
        ("squared instead of absolute error", "np.abs(y - loc)", "(y - loc) ** 2"),
        ("sum instead of mean", "return np.mean(", "return np.sum("),
    ],
    "categorical_nll": [
        (
            "not stable",
            "log_probs = logits - top - np.log(np.sum(np.exp(logits - top), axis=-1, keepdims=True))",
            "log_probs = np.log(np.exp(logits) / np.sum(np.exp(logits), axis=-1, keepdims=True))",
        ),
        ("sum over the examples", "return -np.mean(", "return -np.sum("),
        ("log-likelihood, not its negative", "return -np.mean(", "return np.mean("),
    ],
    "split_mean_scale": [
        ("exp instead of softplus", "np.logaddexp(0.0, outputs[:, 1:2])", "np.exp(outputs[:, 1:2])"),
        ("one axis dropped", "outputs[:, 0:1], ", "outputs[:, 0], "),
        ("no floor", "outputs[:, 1:2]) + 1e-6", "outputs[:, 1:2])"),
    ],
    "gaussian_crps": [
        ("missing 1/sqrt(pi)", " + 2 * pdf - 1 / np.sqrt(np.pi))", " + 2 * pdf)"),
        ("phi where 2 phi", "+ 2 * pdf -", "+ pdf -"),
        ("z not divided by the scale", "z = (y - loc) / scale", "z = y - loc"),
    ],
    "fgsm": [
        ("gradient, not its sign", "eps * np.sign(gradient)", "eps * gradient"),
        ("a step down the loss", "x + eps * np.sign(gradient)", "x - eps * np.sign(gradient)"),
        ("the sign of the input, not of its gradient", "eps * np.sign(gradient)", "eps * np.sign(x)"),
    ],
    "adversarial_loss": [
        ("the clean loss only", "0.5 * (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y))", "loss_fn(x, y)"),
        ("summed, not averaged", "0.5 * (loss_fn(x, y) +", "(loss_fn(x, y) +"),
        (
            "the adversarial loss against x, not y",
            "loss_fn(fgsm(loss_fn, x, y, eps), y))\n",
            "loss_fn(fgsm(loss_fn, x, y, eps), x))\n",
        ),
    ],
}

ALTERNATIVES = {
    "brier_score": [
        (
            "a loop over the examples",
            "    return float(np.mean(np.sum((probs - labels) ** 2, axis=-1)))",
            "    return sum(float(np.sum((p - t) ** 2)) for p, t in zip(probs, labels)) / len(probs)",
        ),
        (
            "np.square and a NumPy float",
            "float(np.mean(np.sum((probs - labels) ** 2, axis=-1)))",
            "np.mean(np.sum(np.square(probs - labels), axis=-1))",
        ),
        (
            "the expanded square",
            "float(np.mean(np.sum((probs - labels) ** 2, axis=-1)))",
            "float(np.mean(np.sum(probs ** 2, axis=-1) - 2 * np.sum(probs * labels, axis=-1) + 1))",
        ),
    ],
    "gaussian_nll": [
        (
            "scipy's logpdf",
            "    return np.mean(0.5 * np.log(2 * np.pi) + np.log(scale) + (y - mean) ** 2 / (2 * scale ** 2))",
            "    from scipy.stats import norm\n    return -np.mean(norm.logpdf(y, mean, scale))",
        ),
        ("log of the variance", "np.log(scale)", "0.5 * np.log(scale ** 2)"),
        ("the standardised error", "(y - mean) ** 2 / (2 * scale ** 2)", "0.5 * ((y - mean) / scale) ** 2"),
    ],
    "laplace_nll": [
        (
            "scipy's logpdf",
            "    return np.mean(np.log(2 * scale) + np.abs(y - loc) / scale)",
            "    from scipy.stats import laplace\n    return -np.mean(laplace.logpdf(y, loc, scale))",
        ),
        ("log 2 apart", "np.log(2 * scale)", "np.log(2) + np.log(scale)"),
        ("a square root of the square", "np.abs(y - loc)", "np.sqrt((y - loc) ** 2)"),
    ],
    "categorical_nll": [
        (
            "scipy's logsumexp",
            "    log_probs = logits - top - np.log(np.sum(np.exp(logits - top), axis=-1, keepdims=True))",
            "    from scipy.special import logsumexp\n    log_probs = logits - logsumexp(logits, axis=-1, keepdims=True)",
        ),
        (
            "scipy's log_softmax",
            "    log_probs = logits - top - np.log(np.sum(np.exp(logits - top), axis=-1, keepdims=True))",
            "    from scipy.special import log_softmax\n    log_probs = log_softmax(logits, axis=-1)",
        ),
        (
            "the true class picked",
            "    return -np.mean(np.sum(labels_onehot * log_probs, axis=-1))",
            "    return -np.mean(log_probs[np.arange(len(log_probs)), np.argmax(labels_onehot, axis=-1)])",
        ),
    ],
    "split_mean_scale": [
        (
            "log1p of exp, stably",
            "np.logaddexp(0.0, outputs[:, 1:2])",
            "np.maximum(outputs[:, 1:2], 0) + np.log1p(np.exp(-np.abs(outputs[:, 1:2])))",
        ),
        ("reshaped columns", "outputs[:, 0:1], ", "outputs[:, 0].reshape(-1, 1), "),
        (
            "np.split",
            "    return outputs[:, 0:1], np.logaddexp(0.0, outputs[:, 1:2]) + 1e-6",
            "    mean, rho = np.split(outputs, 2, axis=1)\n    return mean, np.logaddexp(0.0, rho) + 1e-6",
        ),
    ],
    "gaussian_crps": [
        (
            "erfc",
            "    from math import erf\n\n    z = (y - loc) / scale\n    cdf = 0.5 * (1 + np.vectorize(erf)(z / np.sqrt(2)))\n",
            "    from math import erfc\n\n    z = (y - loc) / scale\n    cdf = 0.5 * np.vectorize(erfc)(-z / np.sqrt(2))\n",
        ),
        (
            "in the error's units",
            "    return scale * (z * (2 * cdf - 1) + 2 * pdf - 1 / np.sqrt(np.pi))",
            "    return (y - loc) * (2 * cdf - 1) + 2 * scale * pdf - scale / np.sqrt(np.pi)",
        ),
        (
            "expected distance minus half the spread",
            "    return scale * (z * (2 * cdf - 1) + 2 * pdf - 1 / np.sqrt(np.pi))",
            "    distance = scale * (z * (2 * cdf - 1) + 2 * pdf)\n    return distance - scale * np.sqrt(2 / np.pi) / np.sqrt(2)",
        ),
    ],
    "fgsm": [
        ("a smaller step", "step.flat[i] = 1e-3", "step.flat[i] = 1e-4"),
        (
            "np.where for the sign",
            "eps * np.sign(gradient)",
            "eps * np.where(gradient > 0, 1.0, np.where(gradient < 0, -1.0, 0.0))",
        ),
        (
            "a list of partial derivatives",
            "    gradient = np.zeros_like(x)\n    for i in range(x.size):\n        step = np.zeros_like(x)\n"
            "        step.flat[i] = 1e-3\n        gradient.flat[i] = (loss_fn(x + step, y) - loss_fn(x - step, y)) / 2e-3\n",
            "    steps = np.eye(x.size).reshape((x.size,) + x.shape) * 1e-3\n"
            "    gradient = np.array([(loss_fn(x + s, y) - loss_fn(x - s, y)) / 2e-3 for s in steps]).reshape(x.shape)\n",
        ),
    ],
    "adversarial_loss": [
        (
            "a mean of the two",
            "0.5 * (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y))",
            "np.mean([loss_fn(x, y), loss_fn(fgsm(loss_fn, x, y, eps), y)])",
        ),
        (
            "the inputs named first",
            "    return 0.5 * (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y))",
            "    x_adv = fgsm(loss_fn, x, y, eps)\n    return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))",
        ),
        (
            "halves added",
            "0.5 * (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y))",
            "loss_fn(x, y) / 2 + loss_fn(fgsm(loss_fn, x, y, eps), y) / 2",
        ),
    ],
}

DIAGNOSES = {}
