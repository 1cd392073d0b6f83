"""Blind one-bug answers for 05_calibration, round two, written from the release notebook alone."""

ANSWERS = {
    "reliability_bins": [
        (
            "a confidence of exactly 1 overflows the bins",
            "The bin index is floor(confidence * num_bins), so a confidence of exactly 1 (common for a confident float32 softmax) gets index num_bins, one past the last bin, and np.add.at raises an IndexError; confidences below 1 are binned correctly.",
            '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    probs = np.asarray(probs)
    confidence_per_point = probs.max(axis=1)
    correct = (probs.argmax(axis=1) == np.asarray(labels)).astype(np.float64)
    bins = np.floor(confidence_per_point * num_bins).astype(int)
    count = np.zeros(num_bins, dtype=np.int64)
    correct_sum = np.zeros(num_bins)
    confidence_sum = np.zeros(num_bins)
    np.add.at(count, bins, 1)
    np.add.at(correct_sum, bins, correct)
    np.add.at(confidence_sum, bins, confidence_per_point)
    nonempty = count > 0
    accuracy = np.zeros(num_bins)
    confidence = np.zeros(num_bins)
    accuracy[nonempty] = correct_sum[nonempty] / count[nonempty]
    confidence[nonempty] = confidence_sum[nonempty] / count[nonempty]
    return accuracy, confidence, count
''',
        ),
        (
            "empty bins divided by zero",
            "The per-bin sums are divided by the counts without guarding empty bins, so every empty bin gets 0/0 = nan for its accuracy and confidence instead of 0.",
            '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    conf = np.max(probs, axis=1)
    hits = (np.argmax(probs, axis=1) == labels).astype(float)
    index = np.clip(np.ceil(conf * num_bins).astype(int) - 1, 0, num_bins - 1)
    count = np.bincount(index, minlength=num_bins)
    accuracy = np.bincount(index, weights=hits, minlength=num_bins) / count
    confidence = np.bincount(index, weights=conf, minlength=num_bins) / count
    return accuracy, confidence, count
''',
        ),
    ],
    "expected_calibration_error": [
        (
            "bins not weighted by their size",
            "The ECE is the plain average of |acc - conf| over the non-empty bins instead of weighting each bin by its share of the points, so a bin with one point counts as much as a bin with thousands.",
            '''def expected_calibration_error(probs, labels, num_bins=15):
    """Return the expected calibration error (a float) with num_bins equal-width confidence bins."""
    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)
    used = count > 0
    return float(np.mean(np.abs(accuracy[used] - confidence[used])))
''',
        ),
        (
            "absolute value of the sum",
            "The absolute value is taken of the weighted sum of the signed gaps instead of each bin's gap, so over-confident and under-confident bins cancel and the ECE is too small whenever the gaps have different signs.",
            '''def expected_calibration_error(probs, labels, num_bins=15):
    """Return the expected calibration error (a float) with num_bins equal-width confidence bins."""
    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)
    weights = count / np.sum(count)
    return float(np.abs(np.sum(weights * (accuracy - confidence))))
''',
        ),
    ],
    "fit_temperature": [
        (
            "logits multiplied by T",
            "The logits are multiplied by T instead of divided by it, so the fitted number is the inverse of the temperature (about 1/3 where 3 is right).",
            '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    logits = tf.constant(logits, dtype=tf.float64)
    labels = tf.constant(labels)
    log_t = tf.Variable(0.0, dtype=tf.float64)
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.05)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            scaled = logits * tf.exp(log_t)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, scaled))
        optimizer.apply_gradients([(tape.gradient(loss, log_t), log_t)])

    for _ in range(500):
        step()
    return float(tf.exp(log_t))
''',
        ),
        (
            "logits shifted in place",
            "For stability each row's largest logit is subtracted with an in-place -=, which silently changes the caller's logits array (the spec says to leave it unchanged); the fitted temperature itself is right, and the shift leaves softmax values alone, but any later use of the raw logits sees shifted values.",
            '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    logits -= logits.max(axis=1, keepdims=True)
    z = tf.constant(logits, dtype=tf.float64)
    y = tf.constant(labels, dtype=tf.int64)
    tau = tf.Variable(0.0, dtype=tf.float64)
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.05)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            nll = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, z / tf.exp(tau)))
        optimizer.apply_gradients([(tape.gradient(nll, tau), tau)])

    for _ in range(500):
        step()
    return float(tf.exp(tau))
''',
        ),
    ],
    "planar_flow": [
        (
            "u used without the invertibility fix",
            "The flow uses u directly instead of u_hat, skipping the correction that makes w.u_hat >= -1, so f(z) and log_det differ from the planar flow as defined whenever w.u is not already large, and the map can be non-invertible; f and log_det still agree with each other.",
            '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    activation = tf.tanh(tf.linalg.matvec(z, w) + b)  # [N]
    f_z = z + activation[:, None] * u[None, :]
    psi = (1.0 - tf.square(activation))[:, None] * w[None, :]
    log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u)))
    return f_z, log_det
''',
        ),
        (
            "derivative of tanh as 1 - tanh",
            "psi uses 1 - tanh(w.z + b) instead of 1 - tanh^2(w.z + b) as the derivative of tanh, so log_det does not match the Jacobian of f except where tanh is 0.",
            '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    wu = tf.reduce_sum(w * u)
    m = -1.0 + tf.math.softplus(wu)
    u_hat = u + (m - wu) * w / tf.reduce_sum(w * w)
    h = tf.tanh(tf.reduce_sum(z * w, axis=1) + b)
    f_z = z + tf.expand_dims(h, 1) * u_hat
    psi = tf.expand_dims(1.0 - h, 1) * w
    log_det = tf.math.log(tf.abs(1.0 + tf.reduce_sum(psi * u_hat, axis=1)))
    return f_z, log_det
''',
        ),
    ],
}
CORRECT = {
    "reliability_bins": [
        (
            "loop over bins with masks",
            '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    probs = np.asarray(probs, dtype=np.float64)
    labels = np.asarray(labels)
    conf = probs.max(axis=1)
    right = probs.argmax(axis=1) == labels
    accuracy = np.zeros(num_bins)
    confidence = np.zeros(num_bins)
    count = np.zeros(num_bins, dtype=int)
    for m in range(num_bins):
        low, high = m / num_bins, (m + 1) / num_bins
        in_bin = (conf > low) & (conf <= high)
        if m == 0:
            in_bin |= conf <= 0.0
        count[m] = int(in_bin.sum())
        if count[m] > 0:
            accuracy[m] = right[in_bin].mean()
            confidence[m] = conf[in_bin].mean()
    return accuracy, confidence, count
''',
        )
    ],
    "fit_temperature": [
        (
            "golden-section search on log T in NumPy",
            '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    z = np.array(logits, dtype=np.float64)  # a copy: the caller's array is left alone
    y = np.asarray(labels)

    def nll(log_t):
        scaled = z / np.exp(log_t)
        scaled = scaled - scaled.max(axis=1, keepdims=True)
        log_norm = np.log(np.exp(scaled).sum(axis=1))
        return float(np.mean(log_norm - scaled[np.arange(len(y)), y]))

    low, high = np.log(0.01), np.log(100.0)
    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    fa, fb = nll(a), nll(b)
    while high - low > 1e-6:
        if fa < fb:
            high, b, fb = b, a, fa
            a = high - ratio * (high - low)
            fa = nll(a)
        else:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = nll(b)
    return float(np.exp((low + high) / 2.0))
''',
        )
    ],
}
