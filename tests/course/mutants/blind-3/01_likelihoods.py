"""Blind one-bug answers for 01_likelihoods, round three, written from the release notebook alone."""

ANSWERS = {
    "brier_score": [
        (
            "one_hot_int_not_cast",
            "Does not cast one-hot labels to the dtype of probs: a one-hot tensor of another dtype (an integer one-hot "
            "tensor, or float32 one-hot labels with float64 probabilities) is subtracted from the probabilities and "
            "TensorFlow refuses the mixed dtypes. NumPy one-hot arrays are converted silently and integer class "
            "indices are one-hot encoded in the right dtype, so the visible tests pass.",
            '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.convert_to_tensor(probs)
    if len(np.shape(labels)) == 1:
        labels = tf.one_hot(labels, probs.shape[-1], dtype=probs.dtype)
    return tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))
''',
        ),
    ],
    "gaussian_nll": [
        (
            "log_variance_without_half",
            "Writes the normalising term as log(sigma^2) instead of (1/2) log(sigma^2) = log(sigma): the 1/2 is missing "
            "on the log-variance, so the NLL is log(sigma) too large wherever sigma != 1 (right only at sigma = 1).",
            '''def gaussian_nll(y, mean, scale):
    """Return the mean over all entries of -log N(y | mean, scale^2)."""
    nll = 0.5 * np.log(2 * np.pi) + tf.math.log(tf.square(scale)) + tf.square(y - mean) / (2.0 * tf.square(scale))
    return tf.reduce_mean(nll)
''',
        ),
    ],
    "laplace_nll": [
        (
            "divides_by_first_axis_only",
            "Sums the per-entry NLL and divides by len(y), the size of the first axis only: right for y of shape (N,) "
            "or (N, 1), but K times too large for (N, K) with K > 1 and wrong for any other shape.",
            '''def laplace_nll(y, loc, scale):
    """Return the mean over all entries of -log Laplace(y | loc, scale)."""
    nll = tf.math.log(2.0 * scale) + tf.abs(y - loc) / scale
    return tf.reduce_sum(nll) / y.shape[0]
''',
        ),
    ],
    "categorical_nll": [
        (
            "softmax_then_log",
            "Takes the log of the softmax probabilities instead of working from the logits. With confident logits "
            "such as (1000, 0, -1000) a probability underflows to 0, its log is -inf, and 0 * -inf gives nan (and a "
            "wrong class gives inf instead of 1000).",
            '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    probs = tf.nn.softmax(logits, axis=-1)
    return -tf.reduce_mean(tf.reduce_sum(labels_onehot * tf.math.log(probs), axis=-1))
''',
        ),
        (
            "logsumexp_over_axis_1",
            "Computes the log-sum-exp over axis 1 instead of the last axis. For (N, K) inputs that is the class axis "
            "and every visible test passes, but with more leading axes, (..., K), the sum runs over the wrong axis.",
            '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    log_normaliser = tf.reduce_logsumexp(logits, axis=1, keepdims=True)
    log_probs = logits - log_normaliser
    return -tf.reduce_mean(tf.reduce_sum(labels_onehot * log_probs, axis=-1))
''',
        ),
    ],
    "split_mean_scale": [
        (
            "softplus_by_hand_overflows",
            "Writes the softplus as log(1 + exp(rho)) by hand. For rho above about 88 the float32 exp overflows and "
            "the scale is inf (its gradient nan) where softplus(rho) is about rho; for negative rho, 1 + exp(rho) loses "
            "the small term to float32 rounding (a relative error above 1e-5 from about rho = -6, and the scale "
            "collapses to 1e-6 below about -17). The visible rho of -3, 0 and 3 pass.",
            '''def split_mean_scale(outputs):
    """Return (mean, scale), each (N, 1): column 0, and softplus(column 1) + 1e-6."""
    mean = outputs[:, 0:1]
    scale = tf.math.log(1.0 + tf.exp(outputs[:, 1:2])) + 1e-6
    return mean, scale
''',
        ),
    ],
    "fgsm": [
        (
            "sign_as_ratio",
            "Computes the sign of the gradient as g / |g|. Where a component of the gradient is exactly 0 (an exact "
            "fit, a flat ReLU region) this is 0/0 = nan instead of sign(0) = 0, so the adversarial input is nan there.",
            '''def fgsm(loss_fn, x, y, eps):
    """Return x + eps * sign(d loss_fn(x, y) / dx)."""
    x = tf.cast(x, tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x, y)
    gradient = tape.gradient(loss, x)
    return x + eps * gradient / tf.abs(gradient)
''',
        ),
    ],
    "adversarial_loss": [
        (
            "one_call_on_joined_batch",
            "Calls loss_fn once on the clean and adversarial inputs joined along the batch axis. For a loss that is a "
            "mean over the examples this equals the average of the two calls (the visible test), but for a loss that "
            "is a sum over the examples it is twice the asked value.",
            '''def adversarial_loss(loss_fn, x, y, eps):
    """Return (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y)) / 2."""
    x = tf.cast(x, tf.float32)
    x_adv = tf.cast(fgsm(loss_fn, x, y, eps), tf.float32)
    return loss_fn(tf.concat([x, x_adv], axis=0), tf.concat([y, y], axis=0))
''',
        ),
    ],
}
CORRECT = {
    "brier_score": [
        (
            "expanded_square",
            '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.convert_to_tensor(probs)
    if len(np.shape(labels)) == 1:
        onehot = tf.one_hot(tf.cast(labels, tf.int32), tf.shape(probs)[-1], dtype=probs.dtype)
    else:
        onehot = tf.cast(labels, probs.dtype)
    # sum_k (p_k - y_k)^2 = sum_k p_k^2 - 2 sum_k p_k y_k + sum_k y_k^2
    per_example = (tf.reduce_sum(probs * probs, axis=-1) - 2.0 * tf.reduce_sum(probs * onehot, axis=-1)
                   + tf.reduce_sum(onehot * onehot, axis=-1))
    return tf.reduce_mean(per_example)
''',
        ),
    ],
    "categorical_nll": [
        (
            "softmax_cross_entropy_op",
            '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels_onehot, logits=logits, axis=-1))
''',
        ),
    ],
}
