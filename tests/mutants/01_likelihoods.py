"""Wrong answers the likelihoods assignment's tests must catch, and correct
alternatives they must pass.

Each variant is (name, old, new): the reference solution cell with ``old``
replaced by ``new``; ``old`` must occur exactly once in that cell.
"""

MUTANTS = {
    "brier_score": [
        ("absolute instead of squared error", "tf.square(probs - labels)", "tf.abs(probs - labels)"),
        ("sum over the examples", "return tf.reduce_mean(tf.reduce_sum(", "return tf.reduce_sum(tf.reduce_sum("),
        ("mean over the classes", "tf.reduce_sum(tf.square(probs - labels), axis=-1)",
         "tf.reduce_mean(tf.square(probs - labels), axis=-1)"),
        ("true class only", "tf.reduce_sum(tf.square(probs - labels), axis=-1)",
         "tf.square(1 - tf.reduce_sum(probs * labels, axis=-1))"),
        ("integer labels taken as one-hot", "labels = tf.one_hot(labels, depth=tf.shape(probs)[-1])",
         "labels = labels[:, None]"),
    ],
    "gaussian_nll": [
        ("scale taken as the variance", "tf.math.log(scale)\n                 + tf.square(y - mean) / (2 * tf.square(scale))",
         "0.5 * tf.math.log(scale)\n                 + tf.square(y - mean) / (2 * scale)"),
        ("missing log(2 pi)", "0.5 * np.log(2 * np.pi) + tf.math.log(scale)", "tf.math.log(scale)"),
        ("sum instead of mean", "return tf.reduce_mean(per_entry)", "return tf.reduce_sum(per_entry)"),
        ("missing 1/2 on the squared error", "/ (2 * tf.square(scale))", "/ tf.square(scale)"),
        ("log-likelihood, not its negative", "return tf.reduce_mean(per_entry)", "return -tf.reduce_mean(per_entry)"),
        ("not differentiable", "return tf.reduce_mean(per_entry)",
         "return tf.constant(np.mean(per_entry.numpy()))"),
    ],
    "laplace_nll": [
        ("log(b) instead of log(2b)", "tf.math.log(2 * scale)", "tf.math.log(scale)"),
        ("squared instead of absolute error", "tf.abs(y - loc) / scale", "tf.square(y - loc) / scale"),
        ("sum instead of mean", "return tf.reduce_mean(per_entry)", "return tf.reduce_sum(per_entry)"),
        ("scale taken as the variance", "tf.abs(y - loc) / scale", "tf.abs(y - loc) / tf.sqrt(scale)"),
        ("Gaussian normaliser", "tf.math.log(2 * scale)", "0.5 * np.log(2 * np.pi) + tf.math.log(scale)"),
    ],
    "categorical_nll": [
        ("softmax then log", "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
         "log_probs = tf.math.log(tf.nn.softmax(logits, axis=-1))"),
        ("log-sum-exp without the maximum",
         "tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
         "tf.math.log(tf.reduce_sum(tf.exp(logits), axis=-1, keepdims=True))"),
        ("sum over the examples", "return -tf.reduce_mean(tf.reduce_sum(", "return -tf.reduce_sum(tf.reduce_sum("),
        ("log-sum-exp over the wrong axis", "tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
         "tf.reduce_logsumexp(logits, axis=0, keepdims=True)"),
        ("missing normaliser", "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
         "log_probs = logits"),
        ("clipped probabilities", "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
         "log_probs = tf.math.log(tf.clip_by_value(tf.nn.softmax(logits), 1e-7, 1.0))"),
    ],
    "split_mean_scale": [
        ("exp instead of softplus", "tf.math.softplus(outputs[:, 1:2])", "tf.exp(outputs[:, 1:2])"),
        ("naive softplus overflows", "tf.math.softplus(outputs[:, 1:2])",
         "tf.math.log(1 + tf.exp(outputs[:, 1:2]))"),
        ("no 1e-6 floor", "tf.math.softplus(outputs[:, 1:2]) + 1e-6", "tf.math.softplus(outputs[:, 1:2])"),
        ("columns swapped", "mean = outputs[:, 0:1]", "mean = outputs[:, 1:2]"),
        ("last axis dropped", "mean = outputs[:, 0:1]", "mean = outputs[:, 0]"),
        ("raw rho as the scale", "tf.math.softplus(outputs[:, 1:2]) + 1e-6", "outputs[:, 1:2]"),
    ],
    "fgsm": [
        ("sign error", "return x + eps * tf.sign(", "return x - eps * tf.sign("),
        ("gradient without its sign", "return x + eps * tf.sign(tape.gradient(loss, x))",
         "return x + eps * tape.gradient(loss, x)"),
        ("gradient with respect to y",
         "    x = tf.convert_to_tensor(x, dtype=tf.float32)\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n        loss = loss_fn(x, y)\n    return x + eps * tf.sign(tape.gradient(loss, x))",
         "    x = tf.convert_to_tensor(x, dtype=tf.float32)\n    y = tf.convert_to_tensor(y, dtype=tf.float32)\n    with tf.GradientTape() as tape:\n        tape.watch(y)\n        loss = loss_fn(x, y)\n    return x + eps * tf.sign(tape.gradient(loss, y))"),
        ("input not watched", "        tape.watch(x)\n", ""),
        # The spec says a tensor; an array breaks the notebook's training inside tf.function.
        ("a NumPy array instead of a tensor", "return x + eps * tf.sign(tape.gradient(loss, x))",
         "return (x + eps * tf.sign(tape.gradient(loss, x))).numpy()"),
        ("perturbation only", "return x + eps * tf.sign(", "return eps * tf.sign("),
        ("sign of the input", "tf.sign(tape.gradient(loss, x))", "tf.sign(x)"),
    ],
    "adversarial_loss": [
        ("adversarial term only", "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))", "return loss_fn(x_adv, y)"),
        ("sum instead of mean", "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))",
         "return loss_fn(x, y) + loss_fn(x_adv, y)"),
        ("step towards a lower loss", "x_adv = fgsm(loss_fn, x, y, eps)", "x_adv = fgsm(loss_fn, x, y, -eps)"),
        ("clean term only", "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))", "return loss_fn(x, y)"),
        ("weights frozen", "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))",
         "return tf.stop_gradient(0.5 * (loss_fn(x, y) + loss_fn(x_adv, y)))"),
    ],
}

ALTERNATIVES = {
    "brier_score": [
        ("NumPy", "    probs = tf.convert_to_tensor(probs, dtype=tf.float32)\n    labels = tf.convert_to_tensor(labels)\n    if labels.shape.rank == probs.shape.rank - 1:\n        labels = tf.one_hot(labels, depth=tf.shape(probs)[-1])\n    labels = tf.cast(labels, probs.dtype)\n    return tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))",
         "    probs, labels = np.asarray(probs), np.asarray(labels)\n    if labels.ndim < probs.ndim:\n        labels = np.eye(probs.shape[-1])[labels]\n    return np.mean(np.sum((probs - labels) ** 2, axis=1))"),
        ("expanded square", "tf.reduce_sum(tf.square(probs - labels), axis=-1)",
         "tf.reduce_sum(probs ** 2, axis=-1) - 2 * tf.reduce_sum(probs * labels, axis=-1) + 1.0"),
    ],
    "gaussian_nll": [
        ("log of the variance", "0.5 * np.log(2 * np.pi) + tf.math.log(scale)",
         "0.5 * tf.math.log(2 * np.pi * tf.square(scale))"),
        ("standardised error", "tf.square(y - mean) / (2 * tf.square(scale))",
         "0.5 * tf.square((y - mean) / scale)"),
    ],
    "laplace_nll": [
        ("log 2 plus log b", "tf.math.log(2 * scale)", "np.log(2.0) + tf.math.log(scale)"),
    ],
    "categorical_nll": [
        ("tf.nn.log_softmax", "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
         "log_probs = tf.nn.log_softmax(logits, axis=-1)"),
        ("max subtracted by hand", "log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)",
         "shifted = logits - tf.reduce_max(logits, axis=-1, keepdims=True)\n"
         "    log_probs = shifted - tf.math.log(tf.reduce_sum(tf.exp(shifted), axis=-1, keepdims=True))"),
        ("softmax_cross_entropy_with_logits",
         "return -tf.reduce_mean(tf.reduce_sum(labels_onehot * log_probs, axis=-1))",
         "return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels_onehot, logits))"),
    ],
    "split_mean_scale": [
        ("tf.split", "    mean = outputs[:, 0:1]\n    scale = tf.math.softplus(outputs[:, 1:2]) + 1e-6",
         "    mean, rho = tf.split(outputs, 2, axis=-1)\n    scale = tf.nn.softplus(rho) + 1e-6"),
    ],
    "fgsm": [
        ("persistent tape and numpy input", "x = tf.convert_to_tensor(x, dtype=tf.float32)",
         "x = tf.constant(np.asarray(x, dtype='float32'))"),
        ("variable input", "    x = tf.convert_to_tensor(x, dtype=tf.float32)\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n",
         "    x = tf.Variable(tf.cast(x, tf.float32))\n    with tf.GradientTape() as tape:\n"),
    ],
    "adversarial_loss": [
        ("tf.reduce_mean of the two", "return 0.5 * (loss_fn(x, y) + loss_fn(x_adv, y))",
         "return tf.reduce_mean(tf.stack([loss_fn(x, y), loss_fn(x_adv, y)]))"),
    ],
}
