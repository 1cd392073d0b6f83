"""Blind one-bug answers for 05_calibration, written from the release notebook alone (see README.md beside this file)."""

# function: the nbgrader grade_id of the graded answer cell (its cell metadata "nbgrader": {"grade_id": ...}).
# Each answer: (name, mistake, source). ``mistake`` says, in one plain sentence, the bug as its writer meant it.
# ``source`` is the whole graded cell as the student would submit it: the release cell with the student's
# code in place of every "# YOUR CODE HERE" / "raise NotImplementedError()".
ANSWERS = {
    "reliability_bins": [
        ("floor binning without clip", "Bins with floor(confidence * num_bins), so a confidence of exactly 1.0 gets index num_bins, one past the last bin, and crashes.", '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    confidence = probs.max(axis=1)
    correct = (probs.argmax(axis=1) == labels).astype(float)
    index = np.floor(confidence * num_bins).astype(int)
    count = np.zeros(num_bins)
    acc_sum = np.zeros(num_bins)
    conf_sum = np.zeros(num_bins)
    for i, b in enumerate(index):
        count[b] += 1
        acc_sum[b] += correct[i]
        conf_sum[b] += confidence[i]
    safe = np.maximum(count, 1)
    return acc_sum / safe, conf_sum / safe, count
'''),
        ("nan in empty bins", "Divides by the bin counts without guarding empty bins, so an empty bin gets nan instead of 0.", '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    confidence = np.max(probs, axis=1)
    correct = np.argmax(probs, axis=1) == labels
    index = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)
    count = np.bincount(index, minlength=num_bins)
    with np.errstate(all="ignore"):
        accuracy = np.bincount(index, weights=correct, minlength=num_bins) / count
        mean_conf = np.bincount(index, weights=confidence, minlength=num_bins) / count
    return accuracy, mean_conf, count
'''),
        ("probability of the true class", "Uses the probability given to the true label as the confidence instead of the largest probability.", '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    confidence = probs[np.arange(len(labels)), labels]
    correct = np.argmax(probs, axis=1) == labels
    index = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)
    count = np.bincount(index, minlength=num_bins)
    accuracy = np.zeros(num_bins)
    mean_conf = np.zeros(num_bins)
    full = count > 0
    accuracy[full] = np.bincount(index, weights=correct, minlength=num_bins)[full] / count[full]
    mean_conf[full] = np.bincount(index, weights=confidence, minlength=num_bins)[full] / count[full]
    return accuracy, mean_conf, count
'''),
        ("hard-coded 15 bins", "Ignores the num_bins argument and always uses 15 bins.", '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    M = 15
    edges = np.linspace(0.0, 1.0, M + 1)
    confidence = probs.max(axis=1)
    correct = probs.argmax(axis=1) == labels
    accuracy, mean_conf, count = np.zeros(M), np.zeros(M), np.zeros(M, dtype=int)
    for m in range(M):
        in_bin = (confidence > edges[m]) & (confidence <= edges[m + 1])
        if m == 0:
            in_bin |= confidence == 0
        count[m] = in_bin.sum()
        if count[m] > 0:
            accuracy[m] = correct[in_bin].mean()
            mean_conf[m] = confidence[in_bin].mean()
    return accuracy, mean_conf, count
'''),
    ],
    "expected_calibration_error": [
        ("unweighted mean over bins", "Averages |acc - conf| over the num_bins bins with equal weight instead of weighting each bin by its share of the points.", '''def expected_calibration_error(probs, labels, num_bins=15):
    """Return the expected calibration error (a float) with num_bins equal-width confidence bins."""
    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)
    return float(np.mean(np.abs(accuracy - confidence)))
'''),
        ("no absolute value", "Sums the signed gaps acc - conf weighted by the bin shares, so over- and under-confident bins cancel instead of adding.", '''def expected_calibration_error(probs, labels, num_bins=15):
    """Return the expected calibration error (a float) with num_bins equal-width confidence bins."""
    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)
    weights = np.asarray(count) / len(labels)
    return float(np.sum(weights * (accuracy - confidence)))
'''),
        ("no binning", "Returns the global gap |mean accuracy - mean confidence| over all points instead of the per-bin weighted gaps.", '''def expected_calibration_error(probs, labels, num_bins=15):
    """Return the expected calibration error (a float) with num_bins equal-width confidence bins."""
    confidence = probs.max(axis=1)
    accuracy = (probs.argmax(axis=1) == labels).mean()
    return float(abs(accuracy - confidence.mean()))
'''),
    ],
    "fit_temperature": [
        ("returns log T", "Optimises tau = log T correctly but returns tau instead of T = exp(tau).", '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    z = tf.constant(logits, dtype=tf.float32)
    y = tf.constant(labels)
    tau = tf.Variable(0.0)
    optimizer = tf.keras.optimizers.Adam(0.05)
    for _ in range(400):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, z / tf.exp(tau)))
        optimizer.apply_gradients([(tape.gradient(loss, tau), tau)])
    return float(tau.numpy())
'''),
        ("multiplies by T", "Multiplies the logits by T instead of dividing them by T, so it returns about 1/T.", '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    from scipy.optimize import minimize_scalar
    z = np.asarray(logits, dtype=np.float64)
    def nll(tau):
        scaled = z * np.exp(tau)
        scaled = scaled - scaled.max(axis=1, keepdims=True)
        log_probs = scaled - np.log(np.exp(scaled).sum(axis=1, keepdims=True))
        return -np.mean(log_probs[np.arange(len(labels)), labels])
    result = minimize_scalar(nll, bounds=(-4.0, 4.0), method="bounded")
    return float(np.exp(result.x))
'''),
        ("logits changed in place", "Shifts the caller's logits array in place (logits -= max) for stability, so the array the caller passed is modified.", '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    from scipy.optimize import minimize_scalar
    logits -= logits.max(axis=1, keepdims=True)
    z = logits.astype(np.float64)
    def nll(tau):
        scaled = z / np.exp(tau)
        log_probs = scaled - np.log(np.exp(scaled).sum(axis=1, keepdims=True))
        return -np.mean(log_probs[np.arange(len(labels)), labels])
    result = minimize_scalar(nll, bounds=(-4.0, 4.0), method="bounded", options={"xatol": 1e-6})
    return float(np.exp(result.x))
'''),
    ],
    "planar_flow": [
        ("u used instead of u_hat", "Uses u directly in f and the log-determinant instead of the constrained u_hat, so the map need not be invertible.", '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    h = tf.tanh(tf.linalg.matvec(z, w) + b)
    f_z = z + h[:, None] * u[None, :]
    psi = (1.0 - tf.square(h))[:, None] * w[None, :]
    log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u)))
    return f_z, log_det
'''),
        ("m without the -1", "Uses m(x) = softplus(x) instead of -1 + softplus(x) when building u_hat.", '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    wu = tf.reduce_sum(w * u)
    u_hat = u + (tf.math.softplus(wu) - wu) * w / tf.reduce_sum(w * w)
    h = tf.tanh(tf.linalg.matvec(z, w) + b)
    f_z = z + h[:, None] * u_hat[None, :]
    psi = (1.0 - tf.square(h))[:, None] * w[None, :]
    log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u_hat)))
    return f_z, log_det
'''),
        ("norm not squared", "Divides by the norm ||w|| instead of the squared norm ||w||^2 in u_hat.", '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    wu = tf.tensordot(w, u, axes=1)
    m = -1.0 + tf.math.softplus(wu)
    u_hat = u + (m - wu) * w / tf.norm(w)
    h = tf.tanh(tf.linalg.matvec(z, w) + b)
    f_z = z + tf.expand_dims(h, 1) * u_hat
    psi = tf.expand_dims(1.0 - h ** 2, 1) * w
    log_det = tf.math.log(tf.abs(1.0 + tf.reduce_sum(psi * u_hat, axis=1)))
    return f_z, log_det
'''),
        ("psi without tanh derivative", "Uses psi(z) = w, leaving out the factor 1 - tanh^2(w.z + b).", '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    wu = tf.reduce_sum(w * u)
    u_hat = u + (-1.0 + tf.math.softplus(wu) - wu) * w / tf.reduce_sum(tf.square(w))
    h = tf.tanh(tf.linalg.matvec(z, w) + b)
    f_z = z + h[:, None] * u_hat[None, :]
    log_det = tf.math.log(tf.abs(1.0 + tf.reduce_sum(w * u_hat))) * tf.ones_like(h)
    return f_z, log_det
'''),
        ("numpy tanh", "Computes tanh and the log-determinant with NumPy, so the results are arrays with no gradient to u, w and b.", '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    z, u, w, b = (np.asarray(t) for t in (z, u, w, b))
    wu = w @ u
    u_hat = u + (-1.0 + np.log1p(np.exp(wu)) - wu) * w / (w @ w)
    h = np.tanh(z @ w + b)
    f_z = z + h[:, None] * u_hat[None, :]
    psi = (1.0 - h ** 2)[:, None] * w[None, :]
    log_det = np.log(np.abs(1.0 + psi @ u_hat))
    return f_z, log_det
'''),
    ],
}

# Correct answers in idioms of their own (the same cell format): they must earn full marks.
CORRECT = {
    "reliability_bins": [
        ("vectorised ceil", '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    probs = np.asarray(probs, dtype=np.float64)
    confidence = probs.max(axis=1)
    correct = (probs.argmax(axis=1) == np.asarray(labels)).astype(np.float64)
    index = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)
    count = np.bincount(index, minlength=num_bins)
    safe = np.maximum(count, 1)
    accuracy = np.bincount(index, weights=correct, minlength=num_bins) / safe
    mean_conf = np.bincount(index, weights=confidence, minlength=num_bins) / safe
    return accuracy, mean_conf, count
'''),
        ("loop over bins", '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    edges = np.linspace(0.0, 1.0, num_bins + 1)
    confidence = np.max(probs, axis=1)
    correct = np.argmax(probs, axis=1) == labels
    accuracy, mean_conf, count = np.zeros(num_bins), np.zeros(num_bins), np.zeros(num_bins, dtype=int)
    for m in range(num_bins):
        in_bin = (confidence > edges[m]) & (confidence <= edges[m + 1])
        if m == 0:
            in_bin |= confidence <= 0
        count[m] = np.sum(in_bin)
        if count[m]:
            accuracy[m] = np.mean(correct[in_bin])
            mean_conf[m] = np.mean(confidence[in_bin])
    return accuracy, mean_conf, count
'''),
    ],
    "expected_calibration_error": [
        ("from bins", '''def expected_calibration_error(probs, labels, num_bins=15):
    """Return the expected calibration error (a float) with num_bins equal-width confidence bins."""
    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)
    return float(np.sum(np.asarray(count) / len(labels) * np.abs(accuracy - confidence)))
'''),
        ("direct per-point", '''def expected_calibration_error(probs, labels, num_bins=15):
    """Return the expected calibration error (a float) with num_bins equal-width confidence bins."""
    probs = np.asarray(probs, dtype=np.float64)
    conf = probs.max(axis=1)
    hit = (probs.argmax(axis=1) == labels).astype(np.float64)
    bin_of = np.clip(np.ceil(conf * num_bins).astype(int) - 1, 0, num_bins - 1)
    ece = 0.0
    for m in np.unique(bin_of):
        sel = bin_of == m
        ece += sel.sum() / len(conf) * abs(hit[sel].mean() - conf[sel].mean())
    return float(ece)
'''),
    ],
    "fit_temperature": [
        ("bisection on the GradientTape derivative", '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    z = tf.constant(np.asarray(logits, dtype=np.float64))
    y = tf.constant(np.asarray(labels, dtype=np.int64))

    def slope(tau):
        # d NLL / d tau, with T = exp(tau); the NLL is unimodal in tau, so its slope changes sign once.
        tau = tf.constant(tau, tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(tau)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, z / tf.exp(tau)))
        return float(tape.gradient(loss, tau))

    low, high = np.log(0.02), np.log(50.0)
    for _ in range(50):
        middle = 0.5 * (low + high)
        if slope(middle) > 0:
            high = middle
        else:
            low = middle
    return float(np.exp(0.5 * (low + high)))
'''),
        ("scipy bounded", '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import log_softmax
    z = np.array(logits, dtype=np.float64)  # a copy: the caller's array stays as it is
    idx = np.arange(len(labels))
    def nll(tau):
        return -np.mean(log_softmax(z / np.exp(tau), axis=1)[idx, labels])
    result = minimize_scalar(nll, bounds=(np.log(0.05), np.log(50.0)), method="bounded",
                             options={"xatol": 1e-6})
    return float(np.exp(result.x))
'''),
    ],
    "planar_flow": [
        ("broadcasting", '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    wu = tf.reduce_sum(w * u)
    m = -1.0 + tf.math.softplus(wu)
    u_hat = u + (m - wu) * w / tf.reduce_sum(w * w)
    h = tf.tanh(tf.linalg.matvec(z, w) + b)
    f_z = z + h[:, None] * u_hat[None, :]
    psi = (1.0 - tf.square(h))[:, None] * w[None, :]
    log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u_hat)))
    return f_z, log_det
'''),
        ("einsum, outer product", '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    wtu = tf.tensordot(w, u, axes=1)
    u_hat = u + (tf.nn.softplus(wtu) - 1.0 - wtu) * w / tf.tensordot(w, w, axes=1)
    activation = tf.einsum("nd,d->n", z, w) + b
    tanh = tf.math.tanh(activation)
    f_z = z + tf.einsum("n,d->nd", tanh, u_hat)
    derivative = 1.0 - tanh ** 2
    log_det = tf.math.log(tf.math.abs(1.0 + derivative * tf.tensordot(w, u_hat, axes=1)))
    return f_z, log_det
'''),
    ],
}
