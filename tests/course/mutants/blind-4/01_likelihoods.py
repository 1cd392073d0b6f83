"""Blind one-bug answers for 01_likelihoods, round four, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "brier_score": [
        (
            "depth_from_largest_label",
            "Integer labels are one-hot encoded with depth max(labels) + 1 instead of the number of columns of "
            "probs, so whenever the last class never occurs among the labels the one-hot matrix is too narrow; "
            "shows on the visible integer-label check (labels [0, 1] with K = 3 fails to broadcast).",
            """def brier_score(probs, labels):
    probs = tf.convert_to_tensor(probs)
    labels = tf.convert_to_tensor(labels)
    if labels.shape.rank == 1:
        depth = tf.reduce_max(labels) + 1
        labels = tf.one_hot(labels, depth, dtype=probs.dtype)
    labels = tf.cast(labels, probs.dtype)
    return tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))
""",
        ),
    ],
    "gaussian_nll": [
        (
            "divides_by_rows_not_entries",
            "Sums the per-entry NLL and divides by the number of rows N instead of the number of entries, so "
            "for y of shape (N, D) with D > 1 (or any shape with more than one column) the result is D times "
            "the mean; the visible test has shape (3, 1) and passes.",
            """def gaussian_nll(y, mean, scale):
    z = (y - mean) / scale
    per_entry = 0.5 * np.log(2 * np.pi) + tf.math.log(scale) + 0.5 * tf.square(z)
    return tf.reduce_sum(per_entry) / tf.cast(tf.shape(y)[0], per_entry.dtype)
""",
        ),
    ],
    "laplace_nll": [
        (
            "abs_as_sqrt_of_square",
            "Writes |y - loc| as sqrt((y - loc)^2): the value is right, but the gradient with respect to y, loc "
            "or the network weights is nan wherever y equals loc exactly (the derivative of sqrt at 0 is "
            "infinite, times 0); the visible test checks values only and passes.",
            """def laplace_nll(y, loc, scale):
    distance = tf.sqrt(tf.square(y - loc))
    return tf.reduce_mean(tf.math.log(2.0 * scale) + distance / scale)
""",
        ),
    ],
    "categorical_nll": [
        (
            "one_max_for_the_whole_batch",
            "Subtracts one maximum taken over the whole batch instead of each example's own largest logit "
            "before the log-sum-exp, so an example whose logits all lie far below another example's (e.g. "
            "rows (1000, 0) and (-1000, -1001)) has every exponential underflow to 0 and an infinite NLL; "
            "the visible tests use one row at a time for the large logits and pass.",
            """def categorical_nll(labels_onehot, logits):
    m = tf.reduce_max(logits)
    log_norm = m + tf.math.log(tf.reduce_sum(tf.exp(logits - m), axis=-1, keepdims=True))
    log_probs = logits - log_norm
    return tf.reduce_mean(-tf.reduce_sum(labels_onehot * log_probs, axis=-1))
""",
        ),
    ],
    "split_mean_scale": [
        (
            "softplus_written_by_hand",
            "Writes the softplus as log(1 + exp(rho)) instead of tf.math.softplus, which overflows: for "
            "rho above about 88 in float32 exp(rho) is inf and the scale is inf instead of about rho; the "
            "visible test uses rho in [-3, 3] and passes.",
            """def split_mean_scale(outputs):
    mean = outputs[:, 0:1]
    scale = tf.math.log(1.0 + tf.exp(outputs[:, 1:2])) + 1e-6
    return mean, scale
""",
        ),
    ],
    "fgsm": [
        (
            "sign_as_gradient_over_its_size",
            "Computes the sign as g / |g|, which is nan where the loss's gradient with respect to an input "
            "is exactly 0 (sign(0) = 0 leaves that input unmoved), e.g. the linear model with x = 1, y = 2 "
            "(2x - y = 0); the visible inputs all have non-zero gradients and pass.",
            """def fgsm(loss_fn, x, y, eps):
    x = tf.cast(tf.convert_to_tensor(x), tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x, y)
    gradient = tape.gradient(loss, x)
    return x + eps * gradient / tf.abs(gradient)
""",
        ),
    ],
    "adversarial_loss": [
        (
            "one_call_on_joined_batch",
            "Calls loss_fn once on the inputs and the adversarial inputs joined along the batch axis; that "
            "equals the mean of the two losses only for a loss that averages over examples. For a loss that "
            "sums over examples it is twice the asked value; the visible test's loss is a mean and passes.",
            """def adversarial_loss(loss_fn, x, y, eps):
    x = tf.cast(tf.convert_to_tensor(x), tf.float32)
    x_adv = fgsm(loss_fn, x, y, eps)
    return loss_fn(tf.concat([x, x_adv], axis=0), tf.concat([y, y], axis=0))
""",
        ),
    ],
}

CORRECT = {
    "categorical_nll": [
        (
            "logsumexp_minus_true_logit",
            """def categorical_nll(labels_onehot, logits):
    labels_onehot = tf.cast(labels_onehot, logits.dtype)
    true_logit = tf.einsum("...k,...k->...", labels_onehot, logits)
    weight = tf.reduce_sum(labels_onehot, axis=-1)
    return tf.reduce_mean(weight * tf.reduce_logsumexp(logits, axis=-1) - true_logit)
""",
        ),
    ],
}
