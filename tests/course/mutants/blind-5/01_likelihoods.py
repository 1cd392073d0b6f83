"""Blind one-bug answers for 01_likelihoods, round five, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "brier_score": [
        (
            "labels_cast_to_float32",
            "Casts the labels (one-hot or one_hot of the indices) to a hard-coded tf.float32 instead of probs' dtype. "
            "Float32 probs (the visible asserts, the notebook's own cell) work; float64 probs, NumPy's default and "
            "allowed by the task, raise an InvalidArgumentError in the subtraction. Visible asserts pass.",
            '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.convert_to_tensor(probs)
    labels = tf.convert_to_tensor(labels)
    if labels.shape.rank == 1:
        labels = tf.one_hot(labels, depth=tf.shape(probs)[-1])
    labels = tf.cast(labels, tf.float32)
    return tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))
''',
        ),
        (
            "integer_dtype_taken_as_indices",
            "Tells one-hot from index labels by the labels' dtype (integer means indices) instead of by their number "
            "of dimensions, as the task says. One-hot labels of an integer dtype (allowed: 'of a float or an integer "
            "dtype') go through tf.one_hot and become (N, K, K): the subtraction raises an InvalidArgumentError "
            "(shapes (N, K) and (N, K, K)), or, when N = K, broadcasts silently to a wrong number. Visible "
            "asserts pass (their one-hot labels are float32).",
            '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.convert_to_tensor(probs)
    labels = tf.convert_to_tensor(labels)
    if labels.dtype.is_integer:
        labels = tf.one_hot(labels, depth=tf.shape(probs)[-1], dtype=probs.dtype)
    labels = tf.cast(labels, probs.dtype)
    return tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))
''',
        ),
    ],
    "gaussian_nll": [
        (
            "log_of_density_underflows",
            "Computes the density first and then takes its log, -log(exp(-(y-mu)^2/(2 s^2)) / (sqrt(2 pi) s)). "
            "In float32 the exponential underflows to 0 once |y - mu| / s exceeds about 13, and the NLL becomes inf "
            "(e.g. y = 20, mean = 0, scale = 1 gives inf instead of 200.92); the gradient is nan there. "
            "Visible asserts pass.",
            '''def gaussian_nll(y, mean, scale):
    """Return the mean over all entries of -log N(y | mean, scale^2)."""
    density = tf.exp(-tf.square(y - mean) / (2.0 * tf.square(scale))) / (np.sqrt(2.0 * np.pi) * scale)
    return tf.reduce_mean(-tf.math.log(density))
''',
        ),
    ],
    "laplace_nll": [
        (
            "sum_last_axis_then_mean",
            "Sums the per-entry NLL over the last axis and then averages over the rest, so for inputs whose last "
            "axis is longer than 1, e.g. shape (N, 3), the result is 3 times the mean over all entries the task asks "
            "for. Shapes (N, 1) (visible asserts, the notebook's network) are unaffected. Visible asserts pass.",
            '''def laplace_nll(y, loc, scale):
    """Return the mean over all entries of -log Laplace(y | loc, scale)."""
    per_entry = tf.math.log(2.0 * scale) + tf.abs(y - loc) / scale
    return tf.reduce_mean(tf.reduce_sum(per_entry, axis=-1))
''',
        ),
    ],
    "categorical_nll": [
        (
            "global_max_shift",
            "Stabilises the log-sum-exp with the largest logit of the whole batch instead of each row's own "
            "maximum. A row whose logits are all far below another row's maximum (e.g. logits [[1000, 0], [0, 1]]) "
            "underflows to log(0) = -inf, and the NLL becomes inf or nan (0 * inf for the other classes). Visible "
            "asserts pass (each of their batches has rows of similar size, or one row).",
            '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    m = tf.reduce_max(logits)
    log_normaliser = m + tf.math.log(tf.reduce_sum(tf.exp(logits - m), axis=-1, keepdims=True))
    log_probs = logits - log_normaliser
    return tf.reduce_mean(-tf.reduce_sum(labels_onehot * log_probs, axis=-1))
''',
        ),
        (
            "mean_axis0_then_sum",
            "Averages over axis 0 only and sums everything else. For (N, K) this equals the mean over the examples, "
            "but with more leading axes, (B, T, K), which the task allows, it sums over T instead of averaging: "
            "T times too large. Visible asserts pass (2-D inputs).",
            '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)
    return tf.reduce_sum(tf.reduce_mean(-labels_onehot * log_probs, axis=0))
''',
        ),
    ],
    "split_mean_scale": [
        (
            "naive_softplus_overflows",
            "Writes the softplus as log(1 + exp(rho)) instead of tf.math.softplus. exp overflows to inf in float32 "
            "for rho above about 88, so the scale is inf (e.g. rho = 100 gives inf, not 100), and for very negative "
            "rho loses precision. Visible asserts pass.",
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
            "numpy_sign_breaks_tf_function",
            "Takes the sign with NumPy on gradient.numpy(). It works eagerly, so the visible asserts pass, but "
            "adversarial_loss is called inside train()'s tf.function, where a symbolic tensor has no .numpy(): "
            "the adversarial training cell raises an error.",
            '''def fgsm(loss_fn, x, y, eps):
    """Return x + eps * sign(d loss_fn(x, y) / dx)."""
    x = tf.convert_to_tensor(x, dtype=tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x, y)
    gradient = tape.gradient(loss, x)
    return x + eps * np.sign(gradient.numpy())
''',
        ),
        (
            "sign_by_division_nan_at_zero",
            "Computes the sign as gradient / |gradient|, which is nan wherever a gradient entry is exactly 0 "
            "(a point the model already fits exactly, y = w x, or an input in a dead ReLU region). tf.sign gives 0 "
            "there and leaves x unchanged. Visible asserts pass (no zero gradient).",
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
            "Calls loss_fn once on the inputs and the adversarial inputs joined along axis 0. For a mean loss this "
            "equals the two calls' average (the visible assert uses a mean loss and passes), but for a loss summed "
            "over the examples, which the task allows, it is twice the required value.",
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
            "expanded_square_with_gather",
            '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    # sum_k (p_k - y_k)^2 = sum_k p_k^2 - 2 <p, y> + sum_k y_k^2, and sum_k y_k^2 = 1 for a one-hot y.
    probs = tf.convert_to_tensor(probs)
    if not probs.dtype.is_floating:
        probs = tf.cast(probs, tf.float64)
    labels = tf.convert_to_tensor(labels)
    if labels.shape.rank == 1:
        p_true = tf.gather(probs, tf.cast(labels, tf.int32), axis=1, batch_dims=1)
        y_squared = tf.ones_like(p_true)
    else:
        labels = tf.cast(labels, probs.dtype)
        p_true = tf.reduce_sum(probs * labels, axis=-1)
        y_squared = tf.reduce_sum(tf.square(labels), axis=-1)
    per_example = tf.reduce_sum(tf.square(probs), axis=-1) - 2.0 * p_true + y_squared
    return tf.reduce_mean(per_example)
''',
        ),
    ],
    "categorical_nll": [
        (
            "manual_logsumexp_stop_gradient_max",
            '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    # -log softmax(z)_k = m + log sum_j exp(z_j - m) - z_k, with m each row's own max; the max is held
    # constant for the gradient, which does not change it (the expression does not depend on m).
    m = tf.stop_gradient(tf.reduce_max(logits, axis=-1, keepdims=True))
    shifted = logits - m
    log_normaliser = tf.math.log(tf.reduce_sum(tf.exp(shifted), axis=-1, keepdims=True))
    per_example = tf.reduce_sum(labels_onehot * (log_normaliser - shifted), axis=-1)
    return tf.reduce_mean(per_example)
''',
        ),
    ],
}
