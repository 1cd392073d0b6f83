"""Wrong answers the likelihoods assignment's tests must catch, and correct
alternatives they must pass.

Each variant is (name, old, new): the reference solution cell with ``old``
replaced by ``new``; ``old`` must occur exactly once in that cell.
"""

CRPS_BODY = (
    "    z = (y - loc) / scale\n"
    "    cdf = 0.5 * (1.0 + tf.math.erf(z / np.sqrt(2.0)))\n"
    "    pdf = tf.exp(-0.5 * tf.square(z)) / np.sqrt(2 * np.pi)\n"
    "    return scale * (z * (2.0 * cdf - 1.0) + 2.0 * pdf - 1.0 / np.sqrt(np.pi))\n"
)

MUTANTS = {
    "brier_score": [
        ("absolute instead of squared error", "tf.square(probs - labels)", "tf.abs(probs - labels)"),
        ("sum over the examples", "return tf.reduce_mean(tf.reduce_sum(", "return tf.reduce_sum(tf.reduce_sum("),
        (
            "mean over the classes",
            "tf.reduce_sum(tf.square(probs - labels), axis=-1)",
            "tf.reduce_mean(tf.square(probs - labels), axis=-1)",
        ),
        (
            "true class only",
            "tf.reduce_sum(tf.square(probs - labels), axis=-1)",
            "tf.square(1 - tf.reduce_sum(probs * labels, axis=-1))",
        ),
        (
            "integer labels taken as one-hot",
            "labels = tf.one_hot(labels, depth=tf.shape(probs)[-1])",
            "labels = labels[:, None]",
        ),
        ("one-hot labels encoded again", "if labels.shape.rank == probs.shape.rank - 1:", "if True:"),
        ("class count hard-coded", "depth=tf.shape(probs)[-1]", "depth=3"),
        (
            "float64 tensors rejected",
            "probs = tf.cast(probs, tf.float32)",
            "probs = tf.convert_to_tensor(probs, dtype=tf.float32)",
        ),
        (
            "integer one-hot labels not cast",
            "    labels = tf.cast(labels, probs.dtype)\n",
            "    if labels.dtype.is_floating:\n        labels = tf.cast(labels, probs.dtype)\n",
        ),
    ],
    "gaussian_nll": [
        (
            "scale taken as the variance",
            "tf.math.log(scale)\n                 + tf.square(y - mean) / (2 * tf.square(scale))",
            "0.5 * tf.math.log(scale)\n                 + tf.square(y - mean) / (2 * scale)",
        ),
        ("missing log(2 pi)", "0.5 * np.log(2 * np.pi) + tf.math.log(scale)", "tf.math.log(scale)"),
        ("sum instead of mean", "return tf.reduce_mean(per_entry)", "return tf.reduce_sum(per_entry)"),
        ("missing 1/2 on the squared error", "/ (2 * tf.square(scale))", "/ tf.square(scale)"),
        ("log-likelihood, not its negative", "return tf.reduce_mean(per_entry)", "return -tf.reduce_mean(per_entry)"),
        ("not differentiable", "return tf.reduce_mean(per_entry)", "return tf.constant(np.mean(per_entry.numpy()))"),
        (
            "a NumPy value instead of a tensor",
            "return tf.reduce_mean(per_entry)",
            "return tf.reduce_mean(per_entry).numpy()",
        ),
        ("mean and scale swapped", "    per_entry = (0.5", "    mean, scale = scale, mean\n    per_entry = (0.5"),
        # Right when called directly; inside tf.function, where the notebook trains with it, AutoGraph makes this
        # `if` on a tensor's value a tf.cond and traces both branches, so the raise always runs.
        (
            "a Python if on a tensor's value",
            "    per_entry = (0.5",
            "    if tf.reduce_any(scale <= 0):\n"
            '        raise ValueError("the scale must be positive")\n'
            "    per_entry = (0.5",
        ),
    ],
    "laplace_nll": [
        ("log(b) instead of log(2b)", "tf.math.log(2 * scale)", "tf.math.log(scale)"),
        ("squared instead of absolute error", "tf.abs(y - loc) / scale", "tf.square(y - loc) / scale"),
        ("sum instead of mean", "return tf.reduce_mean(per_entry)", "return tf.reduce_sum(per_entry)"),
        ("scale taken as the variance", "tf.abs(y - loc) / scale", "tf.abs(y - loc) / tf.sqrt(scale)"),
        ("Gaussian normaliser", "tf.math.log(2 * scale)", "0.5 * np.log(2 * np.pi) + tf.math.log(scale)"),
        (
            "a NumPy value instead of a tensor",
            "return tf.reduce_mean(per_entry)",
            "return tf.reduce_mean(per_entry).numpy()",
        ),
        (
            "loc and scale swapped",
            "    per_entry = tf.math.log(2 * scale)",
            "    loc, scale = scale, loc\n    per_entry = tf.math.log(2 * scale)",
        ),
        # The right value, but d sqrt(r^2) / d loc is 0 / 0 = nan where y == loc: one exact fit makes a step nan.
        (
            "|y - loc| as the square root of its square",
            "tf.abs(y - loc) / scale",
            "tf.sqrt(tf.square(y - loc)) / scale",
        ),
        # Right when called directly (and differentiable there); inside tf.function, where the notebook trains
        # with it, a tensor has no .numpy() and the call raises.
        (
            "the number of entries from .numpy()",
            "return tf.reduce_mean(per_entry)",
            "return tf.reduce_sum(per_entry) / per_entry.numpy().size",
        ),
    ],
    "categorical_nll": [
        (
            "softmax then log",
            "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
            "log_probs = tf.math.log(tf.nn.softmax(logits, axis=-1))",
        ),
        (
            "log-sum-exp without the maximum",
            "tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
            "tf.math.log(tf.reduce_sum(tf.exp(logits), axis=-1, keepdims=True))",
        ),
        ("sum over the examples", "return -tf.reduce_mean(tf.reduce_sum(", "return -tf.reduce_sum(tf.reduce_sum("),
        (
            "log-sum-exp over the wrong axis",
            "tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
            "tf.reduce_logsumexp(logits, axis=0, keepdims=True)",
        ),
        # Shifted by the largest logit of the whole batch, not each row's own: a row far below it underflows.
        (
            "one maximum for the whole batch",
            "tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
            "(tf.reduce_max(logits) + tf.math.log(tf.reduce_sum(tf.exp(logits - tf.reduce_max(logits)), axis=-1, "
            "keepdims=True)))",
        ),
        (
            "missing normaliser",
            "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
            "log_probs = logits",
        ),
        (
            "clipped probabilities",
            "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
            "log_probs = tf.math.log(tf.clip_by_value(tf.nn.softmax(logits), 1e-7, 1.0))",
        ),
        (
            "labels and logits swapped",
            "    logits = tf.convert_to_tensor(logits)\n",
            "    labels_onehot, logits = logits, labels_onehot\n    logits = tf.convert_to_tensor(logits)\n",
        ),
        (
            "a NumPy value instead of a tensor",
            "return -tf.reduce_mean(tf.reduce_sum(labels_onehot * log_probs, axis=-1))",
            "return -tf.reduce_mean(tf.reduce_sum(labels_onehot * log_probs, axis=-1)).numpy()",
        ),
    ],
    "split_mean_scale": [
        ("exp instead of softplus", "tf.math.softplus(outputs[:, 1:2])", "tf.exp(outputs[:, 1:2])"),
        ("naive softplus overflows", "tf.math.softplus(outputs[:, 1:2])", "tf.math.log(1 + tf.exp(outputs[:, 1:2]))"),
        ("no 1e-6 floor", "tf.math.softplus(outputs[:, 1:2]) + 1e-6", "tf.math.softplus(outputs[:, 1:2])"),
        ("columns swapped", "mean = outputs[:, 0:1]", "mean = outputs[:, 1:2]"),
        ("last axis dropped", "mean = outputs[:, 0:1]", "mean = outputs[:, 0]"),
        ("raw rho as the scale", "tf.math.softplus(outputs[:, 1:2]) + 1e-6", "outputs[:, 1:2]"),
        ("batch size hard-coded", "mean = outputs[:, 0:1]", "mean = tf.reshape(outputs[:, 0], (3, 1))"),
        (
            "outputs squeezed first",
            "    mean = outputs[:, 0:1]\n",
            "    outputs = tf.squeeze(outputs)\n    mean = outputs[:, 0:1]\n",
        ),
        # Runs and differentiates when called directly; NumPy cannot read a tensor inside tf.function.
        (
            "a NumPy check of the outputs",
            "    mean = outputs[:, 0:1]\n",
            '    assert not np.any(np.isnan(outputs)), "nan outputs"\n    mean = outputs[:, 0:1]\n',
        ),
    ],
    "fgsm": [
        ("sign error", "return x + eps * tf.sign(", "return x - eps * tf.sign("),
        (
            "gradient without its sign",
            "return x + eps * tf.sign(tape.gradient(loss, x))",
            "return x + eps * tape.gradient(loss, x)",
        ),
        (
            "gradient with respect to y",
            "    x = tf.cast(x, tf.float32)\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n        loss = loss_fn(x, y)\n    return x + eps * tf.sign(tape.gradient(loss, x))",
            "    x = tf.cast(x, tf.float32)\n    y = tf.convert_to_tensor(y, dtype=tf.float32)\n    with tf.GradientTape() as tape:\n        tape.watch(y)\n        loss = loss_fn(x, y)\n    return x + eps * tf.sign(tape.gradient(loss, y))",
        ),
        ("input not watched", "        tape.watch(x)\n", ""),
        # The spec says a tensor; an array breaks the notebook's training inside tf.function.
        (
            "a NumPy array instead of a tensor",
            "return x + eps * tf.sign(tape.gradient(loss, x))",
            "return (x + eps * tf.sign(tape.gradient(loss, x))).numpy()",
        ),
        ("perturbation only", "return x + eps * tf.sign(", "return eps * tf.sign("),
        ("sign of the input", "tf.sign(tape.gradient(loss, x))", "tf.sign(x)"),
        (
            "eps from the notebook's adversarial_eps",
            "return x + eps * tf.sign(",
            "return x + adversarial_eps * tf.sign(",
        ),
        ("float64 tensors rejected", "x = tf.cast(x, tf.float32)", "x = tf.convert_to_tensor(x, dtype=tf.float32)"),
        (
            "size-1 axes squeezed away",
            "return x + eps * tf.sign(tape.gradient(loss, x))",
            "return tf.squeeze(x + eps * tf.sign(tape.gradient(loss, x)))",
        ),
        # Where an entry of the gradient is exactly 0, 0 / 0 is nan: the input should stay put there.
        (
            "sign as the gradient over its absolute value",
            "    return x + eps * tf.sign(tape.gradient(loss, x))",
            "    gradient = tape.gradient(loss, x)\n    return x + eps * gradient / tf.abs(gradient)",
        ),
        (
            "sign of 0 taken as 1",
            "    return x + eps * tf.sign(tape.gradient(loss, x))",
            "    gradient = tape.gradient(loss, x)\n    return x + eps * tf.where(gradient >= 0, 1.0, -1.0)",
        ),
        # Right when called directly; adversarial training calls fgsm inside train's tf.function, where the input
        # gradient is a symbolic tensor with no .numpy().
        (
            "NumPy on the input gradient",
            "return x + eps * tf.sign(tape.gradient(loss, x))",
            "return tf.constant(x.numpy() + eps * np.sign(tape.gradient(loss, x).numpy()))",
        ),
        # Right when called directly, but train's tf.function creates variables on its first call only: a new
        # tf.Variable at every step makes adversarial training raise a ValueError.
        (
            "variable input",
            "    x = tf.cast(x, tf.float32)\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n",
            "    x = tf.Variable(tf.cast(x, tf.float32))\n    with tf.GradientTape() as tape:\n",
        ),
    ],
    "adversarial_loss": [
        ("adversarial term only", "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))", "return loss_fn(x_adv, y)"),
        (
            "sum instead of mean",
            "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))",
            "return loss_fn(x, y) + loss_fn(x_adv, y)",
        ),
        ("step towards a lower loss", "x_adv = fgsm(loss_fn, x, y, eps)", "x_adv = fgsm(loss_fn, x, y, -eps)"),
        ("clean term only", "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))", "return loss_fn(x, y)"),
        (
            "weights frozen",
            "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))",
            "return tf.stop_gradient(0.5 * (loss_fn(x, y) + loss_fn(x_adv, y)))",
        ),
        # The spec says loss_fn may sum over the examples: then one call on both batches is twice too large.
        (
            "one call on the two batches joined",
            "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))",
            "return loss_fn(tf.concat([x, x_adv], axis=0), tf.concat([y, y], axis=0))",
        ),
        (
            "eps from the notebook's adversarial_eps",
            "x_adv = fgsm(loss_fn, x, y, eps)",
            "x_adv = fgsm(loss_fn, x, y, adversarial_eps)",
        ),
    ],
    "gaussian_crps": [
        ("missing 1/sqrt(pi)", " + 2.0 * pdf - 1.0 / np.sqrt(np.pi))", " + 2.0 * pdf)"),
        ("phi where 2 phi", "+ 2.0 * pdf -", "+ pdf -"),
        ("z not divided by the scale", "z = (y - loc) / scale", "z = y - loc"),
        ("Phi in place of 2 Phi - 1", "z * (2.0 * cdf - 1.0)", "z * cdf"),
        (
            "mean over the examples",
            "return scale * (z * (2.0 * cdf - 1.0) + 2.0 * pdf - 1.0 / np.sqrt(np.pi))",
            "return tf.reduce_mean(scale * (z * (2.0 * cdf - 1.0) + 2.0 * pdf - 1.0 / np.sqrt(np.pi)))",
        ),
        (
            "a NumPy value instead of a tensor",
            "return scale * (z * (2.0 * cdf - 1.0) + 2.0 * pdf - 1.0 / np.sqrt(np.pi))",
            "return (scale * (z * (2.0 * cdf - 1.0) + 2.0 * pdf - 1.0 / np.sqrt(np.pi))).numpy()",
        ),
        (
            "loc and scale swapped",
            "    z = (y - loc) / scale\n",
            "    loc, scale = scale, loc\n    z = (y - loc) / scale\n",
        ),
    ],
}

ALTERNATIVES = {
    "brier_score": [
        (
            "NumPy",
            "    probs = tf.cast(probs, tf.float32)\n    labels = tf.convert_to_tensor(labels)\n    if labels.shape.rank == probs.shape.rank - 1:\n        labels = tf.one_hot(labels, depth=tf.shape(probs)[-1])\n    labels = tf.cast(labels, probs.dtype)\n    return tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))",
            "    probs, labels = np.asarray(probs), np.asarray(labels)\n    if labels.ndim < probs.ndim:\n        labels = np.eye(probs.shape[-1])[labels]\n    return np.mean(np.sum((probs - labels) ** 2, axis=1))",
        ),
        (
            "expanded square",
            "tf.reduce_sum(tf.square(probs - labels), axis=-1)",
            "tf.reduce_sum(probs ** 2, axis=-1) - 2 * tf.reduce_sum(probs * labels, axis=-1) + 1.0",
        ),
        (
            "a loop over the examples",
            "    probs = tf.cast(probs, tf.float32)\n    labels = tf.convert_to_tensor(labels)\n    if labels.shape.rank == probs.shape.rank - 1:\n        labels = tf.one_hot(labels, depth=tf.shape(probs)[-1])\n    labels = tf.cast(labels, probs.dtype)\n    return tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))",
            "    probs, labels = np.array(probs), np.array(labels)\n    total = 0.0\n    for i in range(len(probs)):\n"
            "        target = labels[i] if labels.ndim == 2 else np.eye(probs.shape[1])[labels[i]]\n"
            "        total += sum((p - t) ** 2 for p, t in zip(probs[i], target))\n    return total / len(probs)",
        ),
        (
            "rows of an identity matrix",
            "labels = tf.one_hot(labels, depth=tf.shape(probs)[-1])",
            "labels = tf.gather(tf.eye(tf.shape(probs)[-1]), labels)",
        ),
        ("float64 throughout", "probs = tf.cast(probs, tf.float32)", "probs = tf.cast(probs, tf.float64)"),
        ("wrapped in tf.function", "def brier_score(probs, labels):", "@tf.function\ndef brier_score(probs, labels):"),
    ],
    "gaussian_nll": [
        (
            "log of the variance",
            "0.5 * np.log(2 * np.pi) + tf.math.log(scale)",
            "0.5 * tf.math.log(2 * np.pi * tf.square(scale))",
        ),
        ("standardised error", "tf.square(y - mean) / (2 * tf.square(scale))", "0.5 * tf.square((y - mean) / scale)"),
        (
            "the constant from the math module",
            "    per_entry = (0.5 * np.log(2 * np.pi)",
            "    import math\n    per_entry = (0.5 * math.log(2 * math.pi)",
        ),
        ("tf.math.log of the constant", "0.5 * np.log(2 * np.pi)", "0.5 * tf.math.log(2 * np.pi)"),
        (
            "sum divided by the number of entries",
            "return tf.reduce_mean(per_entry)",
            "return tf.reduce_sum(per_entry) / tf.cast(tf.size(per_entry), per_entry.dtype)",
        ),
        (
            "wrapped in tf.function",
            "def gaussian_nll(y, mean, scale):",
            "@tf.function\ndef gaussian_nll(y, mean, scale):",
        ),
    ],
    "laplace_nll": [
        ("log 2 plus log b", "tf.math.log(2 * scale)", "np.log(2.0) + tf.math.log(scale)"),
        ("standardised absolute error", "tf.abs(y - loc) / scale", "tf.abs((y - loc) / scale)"),
        (
            "the log-density, negated",
            "    per_entry = tf.math.log(2 * scale) + tf.abs(y - loc) / scale\n    return tf.reduce_mean(per_entry)",
            "    log_density = -tf.math.log(2.0) - tf.math.log(scale) - tf.abs(y - loc) / scale\n"
            "    return -tf.reduce_mean(log_density)",
        ),
        ("wrapped in tf.function", "def laplace_nll(y, loc, scale):", "@tf.function\ndef laplace_nll(y, loc, scale):"),
        # Where y == loc these give the two ends of the subgradient, 1 and -1 (over scale and the number of entries).
        ("absolute value by tf.where", "tf.abs(y - loc) / scale", "tf.where(y - loc > 0, y - loc, loc - y) / scale"),
        ("absolute value by tf.maximum", "tf.abs(y - loc) / scale", "tf.maximum(y - loc, loc - y) / scale"),
    ],
    "categorical_nll": [
        (
            "tf.nn.log_softmax",
            "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
            "log_probs = tf.nn.log_softmax(logits, axis=-1)",
        ),
        (
            "max subtracted by hand",
            "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
            "shifted = logits - tf.reduce_max(logits, axis=-1, keepdims=True)\n"
            "    log_probs = shifted - tf.math.log(tf.reduce_sum(tf.exp(shifted), axis=-1, keepdims=True))",
        ),
        (
            "softmax_cross_entropy_with_logits",
            "return -tf.reduce_mean(tf.reduce_sum(labels_onehot * log_probs, axis=-1))",
            "return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels_onehot, logits))",
        ),
        (
            "Keras' CategoricalCrossentropy from logits",
            "    logits = tf.convert_to_tensor(logits)\n    labels_onehot = tf.cast(labels_onehot, logits.dtype)\n"
            "    log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)\n"
            "    return -tf.reduce_mean(tf.reduce_sum(labels_onehot * log_probs, axis=-1))",
            "    return tf.keras.losses.CategoricalCrossentropy(from_logits=True)(labels_onehot, logits)",
        ),
        (
            "log-sum-exp minus the true class's logit",
            "    log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)\n"
            "    return -tf.reduce_mean(tf.reduce_sum(labels_onehot * log_probs, axis=-1))",
            "    true_logit = tf.reduce_sum(labels_onehot * logits, axis=-1)\n"
            "    return tf.reduce_mean(tf.reduce_logsumexp(logits, axis=-1) - true_logit)",
        ),
    ],
    "split_mean_scale": [
        (
            "tf.split",
            "    mean = outputs[:, 0:1]\n    scale = tf.math.softplus(outputs[:, 1:2]) + 1e-6",
            "    mean, rho = tf.split(outputs, 2, axis=-1)\n    scale = tf.nn.softplus(rho) + 1e-6",
        ),
        (
            "ellipsis slices and Keras' softplus",
            "    mean = outputs[:, 0:1]\n    scale = tf.math.softplus(outputs[:, 1:2]) + 1e-6",
            "    mean = outputs[..., :1]\n    scale = tf.keras.activations.softplus(outputs[..., 1:]) + 1e-6",
        ),
        (
            "a stable softplus written out",
            "tf.math.softplus(outputs[:, 1:2])",
            "(tf.maximum(outputs[:, 1:2], 0.0) + tf.math.log1p(tf.exp(-tf.abs(outputs[:, 1:2]))))",
        ),
        (
            "columns as vectors, the axis put back",
            "    mean = outputs[:, 0:1]\n    scale = tf.math.softplus(outputs[:, 1:2]) + 1e-6",
            "    mean = tf.expand_dims(outputs[:, 0], axis=-1)\n"
            "    scale = tf.reshape(tf.nn.softplus(outputs[:, 1]) + 1e-6, (-1, 1))",
        ),
    ],
    "fgsm": [
        ("a float32 NumPy copy", "x = tf.cast(x, tf.float32)", "x = tf.constant(np.asarray(x, dtype='float32'))"),
        (
            "computed in the input's dtype, cast at the end",
            "    x = tf.cast(x, tf.float32)\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
            "        loss = loss_fn(x, y)\n    return x + eps * tf.sign(tape.gradient(loss, x))",
            "    x = tf.convert_to_tensor(x)\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
            "        loss = loss_fn(x, y)\n    return tf.cast(x + eps * tf.sign(tape.gradient(loss, x)), tf.float32)",
        ),
        ("wrapped in tf.function", "def fgsm(loss_fn, x, y, eps):", "@tf.function\ndef fgsm(loss_fn, x, y, eps):"),
        # The spec allows float32 or the dtype of x: these keep float64 as float64.
        ("x's dtype kept (convert_to_tensor)", "x = tf.cast(x, tf.float32)", "x = tf.convert_to_tensor(x)"),
        ("x's dtype kept (tf.identity)", "x = tf.cast(x, tf.float32)", "x = tf.identity(x)"),
        (
            "x's dtype kept (dtype_hint)",
            "x = tf.cast(x, tf.float32)",
            "x = tf.convert_to_tensor(x, dtype_hint=tf.float32)",
        ),
        ("tf.math.sign", "tf.sign(tape.gradient(loss, x))", "tf.math.sign(tape.gradient(loss, x))"),
        (
            "sign by tf.where",
            "    return x + eps * tf.sign(tape.gradient(loss, x))",
            "    gradient = tape.gradient(loss, x)\n"
            "    return x + eps * tf.where(gradient > 0, 1.0, tf.where(gradient < 0, -1.0, 0.0))",
        ),
        (
            "sign from two comparisons",
            "    return x + eps * tf.sign(tape.gradient(loss, x))",
            "    gradient = tape.gradient(loss, x)\n"
            "    return x + eps * (tf.cast(gradient > 0, gradient.dtype) - tf.cast(gradient < 0, gradient.dtype))",
        ),
    ],
    "adversarial_loss": [
        (
            "tf.reduce_mean of the two",
            "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))",
            "return tf.reduce_mean(tf.stack([loss_fn(x, y), loss_fn(x_adv, y)]))",
        ),
        (
            "tf.add_n, halved",
            "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))",
            "return tf.add_n([loss_fn(x, y), loss_fn(x_adv, y)]) / 2",
        ),
        (
            "the FGSM step written out",
            "    x_adv = fgsm(loss_fn, x, y, eps)\n",
            "    x = tf.convert_to_tensor(x, dtype=tf.float32)\n    with tf.GradientTape() as tape:\n"
            "        tape.watch(x)\n        clean = loss_fn(x, y)\n"
            "    x_adv = x + eps * tf.sign(tape.gradient(clean, x))\n",
        ),
        (
            "adversarial inputs held constant",
            "x_adv = fgsm(loss_fn, x, y, eps)",
            "x_adv = tf.stop_gradient(fgsm(loss_fn, x, y, eps))",
        ),
        (
            "wrapped in tf.function",
            "def adversarial_loss(loss_fn, x, y, eps):",
            "@tf.function\ndef adversarial_loss(loss_fn, x, y, eps):",
        ),
    ],
    "gaussian_crps": [
        (
            "tfd.Normal's standard cdf and prob",
            CRPS_BODY,
            "    z = (y - loc) / scale\n"
            "    standard = tfd.Normal(0.0, 1.0)\n"
            "    return scale * (z * (2.0 * standard.cdf(z) - 1.0) + 2.0 * standard.prob(z) - 1.0 / np.sqrt(np.pi))\n",
        ),
        (
            "erfc and math constants, in the error's units",
            CRPS_BODY,
            "    import math\n"
            "    d = y - loc\n"
            "    cdf = 0.5 * tf.math.erfc(-d / (scale * math.sqrt(2.0)))\n"
            "    pdf = tf.exp(-tf.square(d / scale) / 2.0) / math.sqrt(2.0 * math.pi)\n"
            "    return d * (2.0 * cdf - 1.0) + 2.0 * scale * pdf - scale / math.sqrt(math.pi)\n",
        ),
        (
            "E|X - y| from tfd.Normal(loc, scale), minus the spread term",
            CRPS_BODY,
            "    predictive = tfd.Normal(loc, scale)\n"
            "    d = y - loc\n"
            "    expected_distance = d * (2.0 * predictive.cdf(y) - 1.0) + 2.0 * tf.square(scale) * predictive.prob(y)\n"
            "    return expected_distance - scale / tf.sqrt(tf.constant(np.pi, tf.float32))\n",
        ),
    ],
}

# The mistake each mutant makes, by its name in bdl.diagnoses.likelihoods (check-tests counts
# the killed mutants whose failure names it).
DIAGNOSES = {
    "brier_score": {
        "absolute instead of squared error": "absolute_error",
        "sum over the examples": "sum_over_examples",
        "mean over the classes": "mean_over_classes",
        "true class only": "true_class_only",
        "integer labels taken as one-hot": "integer_labels_as_one_hot",
        "one-hot labels encoded again": "one_hot_encoded_again",
        "class count hard-coded": "classes_hard_coded",
        "float64 tensors rejected": "rejects_float64",
        "integer one-hot labels not cast": "integer_one_hot_not_cast",
    },
}
DIAGNOSES.update(
    {
        "gaussian_nll": {
            "scale taken as the variance": "scale_as_variance",
            "missing log(2 pi)": "missing_constant",
            "sum instead of mean": "sum_not_mean",
            "missing 1/2 on the squared error": "squared_error_factor",
            "log-likelihood, not its negative": "log_likelihood",
            "not differentiable": "not_differentiable",
            "a NumPy value instead of a tensor": "not_a_tensor",
            "mean and scale swapped": "arguments_swapped",
        },
        "laplace_nll": {
            "log(b) instead of log(2b)": "wrong_constant",
            "squared instead of absolute error": "squared_error",
            "sum instead of mean": "sum_not_mean",
            "scale taken as the variance": "scale_as_variance",
            "Gaussian normaliser": "wrong_constant",
            "a NumPy value instead of a tensor": "not_a_tensor",
            "loc and scale swapped": "arguments_swapped",
        },
        "categorical_nll": {
            "softmax then log": "unstable",
            "log-sum-exp without the maximum": "unstable",
            "sum over the examples": "sum_not_mean",
            "log-sum-exp over the wrong axis": "wrong_axis",
            "one maximum for the whole batch": "unstable",
            "missing normaliser": "missing_normaliser",
            "clipped probabilities": "clipped",
            "labels and logits swapped": "arguments_swapped",
            "a NumPy value instead of a tensor": "not_a_tensor",
        },
        "split_mean_scale": {
            "exp instead of softplus": "exp_not_softplus",
            "naive softplus overflows": "unstable_softplus",
            "no 1e-6 floor": "no_floor",
            "columns swapped": "columns_swapped",
            "last axis dropped": "last_axis_dropped",
            "raw rho as the scale": "raw_scale",
            "batch size hard-coded": "batch_size_hard_coded",
            "outputs squeezed first": "batch_of_one",
        },
        "fgsm": {
            "sign error": "sign_flipped",
            "gradient without its sign": "gradient_without_sign",
            "gradient with respect to y": "gradient_of_targets",
            "input not watched": "input_not_watched",
            "a NumPy array instead of a tensor": "not_a_tensor",
            "perturbation only": "perturbation_only",
            "sign of the input": "sign_of_input",
            "eps from the notebook's adversarial_eps": "eps_ignored",
            "float64 tensors rejected": "rejects_float64",
            "size-1 axes squeezed away": "shape_lost",
        },
        "adversarial_loss": {
            "adversarial term only": "adversarial_term_only",
            "sum instead of mean": "sum_not_mean",
            "step towards a lower loss": "step_towards_lower_loss",
            "clean term only": "clean_term_only",
            "weights frozen": "weights_frozen",
            "one call on the two batches joined": "joined_batches",
            "eps from the notebook's adversarial_eps": "eps_ignored",
        },
        "gaussian_crps": {
            "missing 1/sqrt(pi)": "missing_constant",
            "phi where 2 phi": "density_factor",
            "z not divided by the scale": "z_unscaled",
            "Phi in place of 2 Phi - 1": "asymmetric",
            "mean over the examples": "not_per_example",
            "a NumPy value instead of a tensor": "not_a_tensor",
            "loc and scale swapped": "arguments_swapped",
        },
    }
)
