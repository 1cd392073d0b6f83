"""Blind one-bug answers for 01_likelihoods, written from the release notebook alone (see README.md beside this file)."""

# function: the nbgrader grade_id of the graded answer cell (its cell metadata "nbgrader": {"grade_id": ...}).
# Each answer: (name, mistake, source). ``mistake`` says, in one plain sentence, the bug as its writer meant it.
# ``source`` is the whole graded cell as the student would submit it: the release cell with the student's
# code in place of every "# YOUR CODE HERE" / "raise NotImplementedError()".
ANSWERS = {
    "brier_score": [
        ("sum over examples", "Sums the per-example Brier scores over the N examples instead of averaging them.", '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.convert_to_tensor(probs)
    if len(np.shape(labels)) == 1:
        labels = tf.one_hot(labels, depth=probs.shape[-1], dtype=probs.dtype)
    labels = tf.cast(labels, probs.dtype)
    return tf.reduce_sum(tf.square(probs - labels))
'''),
        ("mean over all entries", "Averages the squared differences over all N*K entries (divides by K too) instead of summing over classes and averaging over examples.", '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.convert_to_tensor(probs)
    if labels.ndim == 1:
        labels = tf.one_hot(labels, probs.shape[1], dtype=probs.dtype)
    labels = tf.cast(labels, probs.dtype)
    return tf.reduce_mean(tf.square(probs - labels))
'''),
        ("one-hot depth from labels", "Takes the one-hot depth from the largest integer label present (max(labels) + 1) instead of the number of classes K of probs, so the shapes break or mismatch when the top class never occurs.", '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.cast(probs, tf.float32)
    if np.ndim(labels) == 1:
        labels = tf.one_hot(labels, int(np.max(labels)) + 1)
    labels = tf.cast(labels, tf.float32)
    return tf.reduce_mean(tf.reduce_sum((probs - labels) ** 2, axis=1))
'''),
    ],
    "gaussian_nll": [
        ("no 2pi constant", "Drops the constant 0.5 * log(2 pi) from the Gaussian NLL.", '''def gaussian_nll(y, mean, scale):
    """Return the mean over all entries of -log N(y | mean, scale^2)."""
    return tf.reduce_mean(tf.math.log(scale) + 0.5 * tf.square((y - mean) / scale))
'''),
        ("log variance without half", "Uses log(scale^2) instead of log(scale) (forgets the factor 1/2 in front of the log-variance).", '''def gaussian_nll(y, mean, scale):
    """Return the mean over all entries of -log N(y | mean, scale^2)."""
    variance = tf.square(scale)
    nll = 0.5 * np.log(2 * np.pi) + tf.math.log(variance) + tf.square(y - mean) / (2 * variance)
    return tf.reduce_mean(nll)
'''),
        ("scale treated as variance", "Divides the squared error by 2*scale instead of 2*scale^2, treating the standard deviation as if it were the variance.", '''def gaussian_nll(y, mean, scale):
    """Return the mean over all entries of -log N(y | mean, scale^2)."""
    nll = 0.5 * np.log(2 * np.pi) + tf.math.log(scale) + tf.square(y - mean) / (2 * scale)
    return tf.reduce_mean(nll)
'''),
        ("sum not mean", "Returns the sum of the Gaussian NLL over all entries instead of the mean.", '''def gaussian_nll(y, mean, scale):
    """Return the mean over all entries of -log N(y | mean, scale^2)."""
    z = (y - mean) / scale
    return tf.reduce_sum(0.5 * z ** 2 + tf.math.log(scale) + 0.5 * np.log(2 * np.pi))
'''),
    ],
    "laplace_nll": [
        ("no log 2", "Drops the constant log 2 from the Laplace NLL (uses log b instead of log 2b).", '''def laplace_nll(y, loc, scale):
    """Return the mean over all entries of -log Laplace(y | loc, scale)."""
    return tf.reduce_mean(tf.math.log(scale) + tf.abs(y - loc) / scale)
'''),
        ("no absolute value", "Uses the signed error (y - loc)/scale instead of its absolute value |y - loc|/scale.", '''def laplace_nll(y, loc, scale):
    """Return the mean over all entries of -log Laplace(y | loc, scale)."""
    return tf.reduce_mean(tf.math.log(2.0 * scale) + (y - loc) / scale)
'''),
        ("squared error", "Uses the squared error (y - loc)^2 / scale in place of the absolute error |y - loc| / scale.", '''def laplace_nll(y, loc, scale):
    """Return the mean over all entries of -log Laplace(y | loc, scale)."""
    nll = np.log(2.0) + tf.math.log(scale) + tf.square(y - loc) / scale
    return tf.reduce_mean(nll)
'''),
    ],
    "categorical_nll": [
        ("log of softmax", "Computes log(softmax(logits)) naively, which gives -inf/nan (infinite loss) for confident logits such as (1000, 0).", '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    probs = tf.nn.softmax(logits, axis=-1)
    return tf.reduce_mean(-tf.reduce_sum(labels_onehot * tf.math.log(probs), axis=-1))
'''),
        ("logsumexp over all axes", "Calls tf.reduce_logsumexp without axis=-1, so the log-normaliser is taken over every entry of the batch instead of per example.", '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    true_logit = tf.reduce_sum(labels_onehot * logits, axis=-1)
    return tf.reduce_mean(tf.reduce_logsumexp(logits) - true_logit)
'''),
        ("mean over classes too", "Averages -y_k log p_k over all N*K entries (divides by the number of classes) instead of summing over classes then averaging over examples.", '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)
    return -tf.reduce_mean(labels_onehot * log_probs)
'''),
        ("logsumexp without max shift", "Computes log(sum(exp(logits))) directly without subtracting the largest logit, which overflows to inf for logits of size 1000.", '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    log_norm = tf.math.log(tf.reduce_sum(tf.exp(logits), axis=-1))
    true_logit = tf.reduce_sum(labels_onehot * logits, axis=-1)
    return tf.reduce_mean(log_norm - true_logit)
'''),
    ],
    "split_mean_scale": [
        ("exp instead of softplus", "Maps column 1 to the scale with exp(rho) + 1e-6 instead of softplus(rho) + 1e-6.", '''def split_mean_scale(outputs):
    """Return (mean, scale), each (N, 1): column 0, and softplus(column 1) + 1e-6."""
    mean = outputs[:, 0:1]
    scale = tf.exp(outputs[:, 1:2]) + 1e-6
    return mean, scale
'''),
        ("dropped last axis", "Indexes the columns with outputs[:, 0] and outputs[:, 1], returning shape (N,) instead of (N, 1).", '''def split_mean_scale(outputs):
    """Return (mean, scale), each (N, 1): column 0, and softplus(column 1) + 1e-6."""
    mean = outputs[:, 0]
    scale = tf.math.softplus(outputs[:, 1]) + 1e-6
    return mean, scale
'''),
        ("numpy softplus", "Converts the outputs to NumPy and computes the softplus with np.log1p(np.exp(.)), so no gradient reaches outputs and it fails inside tf.function.", '''def split_mean_scale(outputs):
    """Return (mean, scale), each (N, 1): column 0, and softplus(column 1) + 1e-6."""
    values = np.asarray(outputs)
    mean = values[:, :1]
    scale = np.log1p(np.exp(values[:, 1:])) + 1e-6
    return tf.constant(mean), tf.constant(scale)
'''),
    ],
    "fgsm": [
        ("gradient not sign", "Steps along eps times the raw gradient instead of eps times its sign.", '''def fgsm(loss_fn, x, y, eps):
    """Return x + eps * sign(d loss_fn(x, y) / dx)."""
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x, y)
    gradient = tape.gradient(loss, x)
    return x + eps * gradient
'''),
        ("descends the loss", "Subtracts eps * sign(gradient), moving the input to decrease the loss instead of increasing it.", '''def fgsm(loss_fn, x, y, eps):
    """Return x + eps * sign(d loss_fn(x, y) / dx)."""
    x = tf.convert_to_tensor(x, dtype=tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x, y)
    return x - eps * tf.sign(tape.gradient(loss, x))
'''),
    ],
    "adversarial_loss": [
        ("one call on joined batch", "Calls loss_fn once on the inputs and adversarial inputs concatenated, which differs from the mean of two calls when loss_fn sums over examples.", '''def adversarial_loss(loss_fn, x, y, eps):
    """Return (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y)) / 2."""
    x = tf.convert_to_tensor(x, dtype=tf.float32)
    x_adv = tf.cast(fgsm(loss_fn, x, y, eps), tf.float32)
    return loss_fn(tf.concat([x, x_adv], axis=0), tf.concat([y, y], axis=0))
'''),
        ("sum without half", "Returns loss(x) + loss(x') without the factor 1/2.", '''def adversarial_loss(loss_fn, x, y, eps):
    """Return (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y)) / 2."""
    x_adv = fgsm(loss_fn, x, y, eps)
    return loss_fn(x, y) + loss_fn(x_adv, y)
'''),
        ("global epsilon", "Ignores the eps argument and uses the notebook's global adversarial_eps (0.08) for the FGSM step.", '''def adversarial_loss(loss_fn, x, y, eps):
    """Return (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y)) / 2."""
    x_adv = fgsm(loss_fn, x, y, adversarial_eps)
    return 0.5 * loss_fn(x, y) + 0.5 * loss_fn(x_adv, y)
'''),
    ],
}

# Correct answers in idioms of their own (the same cell format): they must earn full marks.
CORRECT = {
    "brier_score": [
        ("tf one-hot", '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    probs = tf.convert_to_tensor(probs)
    if len(labels.shape) == 1:
        labels = tf.one_hot(tf.cast(labels, tf.int32), tf.shape(probs)[-1], dtype=probs.dtype)
    labels = tf.cast(labels, probs.dtype)
    return tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))
'''),
        ("numpy identity rows", '''def brier_score(probs, labels):
    """Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2."""
    p = np.asarray(probs, dtype=np.float64)
    y = np.asarray(labels)
    if y.ndim == 1:
        y = np.eye(p.shape[1])[y.astype(int)]
    return float(np.mean(np.sum((p - y) ** 2, axis=1)))
'''),
    ],
    "gaussian_nll": [
        ("by hand", '''def gaussian_nll(y, mean, scale):
    """Return the mean over all entries of -log N(y | mean, scale^2)."""
    nll = 0.5 * np.log(2 * np.pi) + tf.math.log(scale) + 0.5 * tf.square((y - mean) / scale)
    return tf.reduce_mean(nll)
'''),
        ("log variance form", '''import math

def gaussian_nll(y, mean, scale):
    """Return the mean over all entries of -log N(y | mean, scale^2)."""
    log_var = 2.0 * tf.math.log(scale)
    return 0.5 * tf.reduce_mean(math.log(2 * math.pi) + log_var + tf.square(y - mean) * tf.exp(-log_var))
'''),
    ],
    "laplace_nll": [
        ("by hand", '''def laplace_nll(y, loc, scale):
    """Return the mean over all entries of -log Laplace(y | loc, scale)."""
    return tf.reduce_mean(tf.math.log(2.0 * scale) + tf.abs(y - loc) / scale)
'''),
        ("constant split", '''def laplace_nll(y, loc, scale):
    """Return the mean over all entries of -log Laplace(y | loc, scale)."""
    per_entry = np.log(2.0) + tf.math.log(scale) + tf.math.abs(tf.math.subtract(y, loc)) / scale
    return tf.math.reduce_mean(per_entry)
'''),
    ],
    "categorical_nll": [
        ("logsumexp", '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    log_probs = logits - tf.reduce_logsumexp(logits, axis=-1, keepdims=True)
    return tf.reduce_mean(-tf.reduce_sum(labels_onehot * log_probs, axis=-1))
'''),
        ("max shift by hand", '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    m = tf.reduce_max(logits, axis=-1, keepdims=True)
    lse = m[..., 0] + tf.math.log(tf.reduce_sum(tf.exp(logits - m), axis=-1))
    return tf.reduce_mean(lse - tf.reduce_sum(labels_onehot * logits, axis=-1))
'''),
        ("log_softmax", '''def categorical_nll(labels_onehot, logits):
    """Return the mean over the examples of -sum_k y_k log softmax(logits)_k."""
    return -tf.reduce_mean(tf.reduce_sum(labels_onehot * tf.nn.log_softmax(logits, axis=-1), axis=-1))
'''),
    ],
    "split_mean_scale": [
        ("slices", '''def split_mean_scale(outputs):
    """Return (mean, scale), each (N, 1): column 0, and softplus(column 1) + 1e-6."""
    return outputs[:, :1], tf.math.softplus(outputs[:, 1:]) + 1e-6
'''),
        ("tf.split", '''def split_mean_scale(outputs):
    """Return (mean, scale), each (N, 1): column 0, and softplus(column 1) + 1e-6."""
    mean, rho = tf.split(outputs, 2, axis=-1)
    return mean, tf.nn.softplus(rho) + 1e-6
'''),
    ],
    "fgsm": [
        ("tape watch", '''def fgsm(loss_fn, x, y, eps):
    """Return x + eps * sign(d loss_fn(x, y) / dx)."""
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x, y)
    return x + eps * tf.sign(tape.gradient(loss, x))
'''),
        ("float32 cast, stop_gradient", '''def fgsm(loss_fn, x, y, eps):
    """Return x + eps * sign(d loss_fn(x, y) / dx)."""
    x = tf.cast(x, tf.float32)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        loss = loss_fn(x, y)
    gradient = tape.gradient(loss, x)
    return tf.stop_gradient(x + eps * tf.math.sign(gradient))
'''),
    ],
    "adversarial_loss": [
        ("half and half", '''def adversarial_loss(loss_fn, x, y, eps):
    """Return (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y)) / 2."""
    x_adv = fgsm(loss_fn, x, y, eps)
    return 0.5 * loss_fn(x, y) + 0.5 * loss_fn(x_adv, y)
'''),
        ("mean of stack", '''def adversarial_loss(loss_fn, x, y, eps):
    """Return (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y)) / 2."""
    losses = [loss_fn(x, y), loss_fn(fgsm(loss_fn, x, y, eps), y)]
    return tf.reduce_mean(tf.stack(losses))
'''),
    ],
}
