"""Blind one-bug answers for 01_likelihoods, round two, written from the release notebook alone."""

ANSWERS = {
    "brier_score": [
        (
            "mean over all entries",
            "The squared differences are averaged over every entry of the (N, K) array instead of summed over the K classes and averaged over the N examples, so the score comes out K times too small.",
            '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.convert_to_tensor(probs)
    labels = tf.convert_to_tensor(labels)
    if len(labels.shape) == 1:
        labels = tf.one_hot(labels, probs.shape[-1], dtype=probs.dtype)
    labels = tf.cast(labels, probs.dtype)
    return tf.reduce_mean(tf.square(probs - labels))
''',
        ),
        (
            "one-hot float32 against float64 probs",
            "Integer labels are turned into float32 one-hot vectors and one-hot labels are cast to float32, but probs is never cast, so a float64 NumPy probs (NumPy's default) makes the subtraction fail with a dtype error; float32 inputs work.",
            '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.convert_to_tensor(probs)
    if np.ndim(labels) == 1:
        onehot = tf.one_hot(labels, depth=probs.shape[-1])
    else:
        onehot = tf.cast(labels, tf.float32)
    squared = tf.square(probs - onehot)
    return tf.reduce_mean(tf.reduce_sum(squared, axis=-1))
''',
        ),
    ],
    "gaussian_nll": [
        (
            "scale used as variance",
            "The scale argument (a standard deviation) is used where the variance belongs, log(2 pi scale) and (y - mean)^2 / (2 scale), so the NLL is wrong whenever scale is not 1.",
            '''def gaussian_nll(y, mean, scale):
    """Return the mean over all entries of -log N(y | mean, scale^2)."""
    nll = 0.5 * tf.math.log(2.0 * np.pi * scale) + tf.square(y - mean) / (2.0 * scale)
    return tf.reduce_mean(nll)
''',
        ),
    ],
    "laplace_nll": [
        (
            "error multiplied by the scale",
            "The absolute error is multiplied by the scale b instead of divided by it (b read as a rate), so the NLL is wrong whenever b is not 1 and a wider scale is punished instead of forgiven.",
            '''def laplace_nll(y, loc, scale):
    """Return the mean over all entries of -log Laplace(y | loc, scale)."""
    nll = tf.math.log(2.0 * scale) + tf.abs(y - loc) * scale
    return tf.reduce_mean(nll)
''',
        ),
    ],
    "categorical_nll": [
        (
            "log of softmax",
            "The NLL is computed as the log of the softmax probabilities, so with confident logits the probability of a class underflows to 0, its log is -inf, and 0 * -inf gives nan (and a confident wrong prediction gives inf) instead of the finite values.",
            '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    probs = tf.nn.softmax(logits, axis=-1)
    per_example = -tf.reduce_sum(labels_onehot * tf.math.log(probs), axis=-1)
    return tf.reduce_mean(per_example)
''',
        ),
        (
            "log-sum-exp over the whole batch",
            "tf.reduce_logsumexp is called without an axis, so the normaliser is the log-sum-exp over every logit of the batch rather than over each example's classes; the result is right for a batch of one example and wrong (too large) for several.",
            '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    true_logit = tf.reduce_sum(labels_onehot * logits, axis=-1)
    log_normaliser = tf.reduce_logsumexp(logits)
    return tf.reduce_mean(log_normaliser - true_logit)
''',
        ),
    ],
    "split_mean_scale": [
        (
            "last axis dropped",
            "Indexing columns with outputs[:, 0] and outputs[:, 1] drops the last axis, so mean and scale have shape (N,) instead of (N, 1), and y - mean with y of shape (N, 1) silently broadcasts to an (N, N) matrix in the losses.",
            '''def split_mean_scale(outputs):
    """Return (mean, scale), each (N, 1): column 0, and softplus(column 1) + 1e-6."""
    mean = outputs[:, 0]
    scale = tf.math.softplus(outputs[:, 1]) + 1e-6
    return mean, scale
''',
        ),
    ],
    "fgsm": [
        (
            "step against the gradient",
            "The input is moved by minus eps times the sign of the gradient, a gradient-descent step that lowers the loss, instead of plus eps times the sign, which would raise it.",
            '''def fgsm(loss_fn, x, y, eps):
    """Return x + eps * sign(d loss_fn(x, y) / dx)."""
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x, y)
    gradient = tape.gradient(loss, x)
    return x - eps * tf.sign(gradient)
''',
        ),
    ],
    "adversarial_loss": [
        (
            "one call on the joined batch",
            "The clean and adversarial inputs are concatenated and loss_fn is called once on the joined batch; that equals the half-and-half average only when loss_fn is a mean, and is twice too large when loss_fn sums over the examples.",
            '''def adversarial_loss(loss_fn, x, y, eps):
    """Return (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y)) / 2."""
    x = tf.convert_to_tensor(x)
    x_adv = tf.cast(fgsm(loss_fn, x, y, eps), x.dtype)
    both_x = tf.concat([x, x_adv], axis=0)
    both_y = tf.concat([y, y], axis=0)
    return loss_fn(both_x, both_y)
''',
        ),
    ],
}
CORRECT = {
    "brier_score": [
        (
            "NumPy with an identity matrix",
            '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = np.asarray(probs, dtype=np.float64)
    labels = np.asarray(labels)
    if labels.ndim == 1:
        labels = np.eye(probs.shape[-1])[labels.astype(np.int64)]
    labels = labels.astype(np.float64)
    return float(np.mean(np.sum((probs - labels) ** 2, axis=1)))
''',
        )
    ],
    "categorical_nll": [
        (
            "hand-written log-sum-exp",
            '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    largest = tf.reduce_max(logits, axis=-1, keepdims=True)
    shifted = logits - tf.stop_gradient(largest)
    log_sum = tf.math.log(tf.reduce_sum(tf.exp(shifted), axis=-1, keepdims=True))
    log_softmax = shifted - log_sum
    return -tf.reduce_mean(tf.reduce_sum(labels_onehot * log_softmax, axis=-1))
''',
        )
    ],
}
