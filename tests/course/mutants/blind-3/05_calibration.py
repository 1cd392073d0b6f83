"""Blind one-bug answers for 05_calibration, round three, written from the release notebook alone."""

ANSWERS = {
    "reliability_bins": [
        (
            "floor_index_drops_confidence_one",
            "Puts a point in bin floor(confidence * num_bins). A confidence of exactly 1, which a saturated softmax "
            "gives in float32 and a one-hot prediction always gives, lands in bin num_bins, which does not exist, so "
            "those points are silently left out of every bin (the top bin's count, accuracy and confidence are "
            "wrong). The visible confidences are all below 1.",
            '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    confidence = np.max(probs, axis=1)
    correct = (np.argmax(probs, axis=1) == labels).astype(np.float64)
    bin_index = np.floor(confidence * num_bins).astype(int)
    accuracy = np.zeros(num_bins)
    mean_confidence = np.zeros(num_bins)
    count = np.zeros(num_bins, dtype=int)
    for m in range(num_bins):
        in_bin = bin_index == m
        count[m] = np.sum(in_bin)
        if count[m] > 0:
            accuracy[m] = np.mean(correct[in_bin])
            mean_confidence[m] = np.mean(confidence[in_bin])
    return accuracy, mean_confidence, count
''',
        ),
        (
            "empty_bin_nan",
            "Divides each bin's sums by its count without guarding empty bins, so an empty bin gets accuracy and "
            "confidence 0/0 = nan instead of 0.",
            '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    confidence = np.max(probs, axis=1)
    correct = (np.argmax(probs, axis=1) == labels).astype(np.float64)
    edges = np.linspace(0.0, 1.0, num_bins + 1)
    bin_index = np.clip(np.searchsorted(edges, confidence, side="left") - 1, 0, num_bins - 1)
    count = np.bincount(bin_index, minlength=num_bins)
    with np.errstate(invalid="ignore"):
        accuracy = np.bincount(bin_index, weights=correct, minlength=num_bins) / count
        mean_confidence = np.bincount(bin_index, weights=confidence, minlength=num_bins) / count
    return accuracy, mean_confidence, count
''',
        ),
    ],
    "expected_calibration_error": [
        (
            "unweighted_mean_over_bins",
            "Averages |acc - conf| over the non-empty bins with equal weight instead of weighting each bin by its "
            "share of the points. With a single occupied bin (the visible test) the two agree; with several bins "
            "of different sizes the ECE is wrong.",
            '''def expected_calibration_error(probs, labels, num_bins=15):
    """Return the expected calibration error (a float) with num_bins equal-width confidence bins."""
    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)
    occupied = count > 0
    return float(np.mean(np.abs(accuracy[occupied] - confidence[occupied])))
''',
        ),
    ],
    "fit_temperature": [
        (
            "shifts_caller_logits_in_place",
            "Subtracts each row's largest logit in place (logits -= ...) 'for stability'. The fitted temperature is "
            "right, since a softmax does not change when a row is shifted, but the caller's array is modified, which "
            "the task forbids: a NumPy float array passed in comes back shifted.",
            '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    logits -= np.max(logits, axis=1, keepdims=True)
    z = tf.constant(logits, tf.float64)
    y = tf.constant(labels, tf.int64)
    log_t = tf.Variable(0.0, dtype=tf.float64)
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.05)
    for _ in range(1500):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, z / tf.exp(log_t)))
        optimizer.apply_gradients([(tape.gradient(loss, log_t), log_t)])
    return float(tf.exp(log_t))
''',
        ),
        (
            "grid_too_narrow",
            "Searches T on a grid from 0.5 to 5 only. Inside that range the fit is fine (the visible T near 3), but "
            "the task allows temperatures from 0.2 to 10: below 0.5 or above 5 it returns the grid's end.",
            '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    z = tf.constant(logits, tf.float64)
    y = tf.constant(labels, tf.int64)
    temperatures = np.linspace(0.5, 5.0, 451)
    nlls = [float(tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, z / t))) for t in temperatures]
    return float(temperatures[int(np.argmin(nlls))])
''',
        ),
    ],
    "planar_flow": [
        (
            "u_not_constrained",
            "Uses u directly instead of u_hat. f and its log-determinant agree with each other (so the visible "
            "Jacobian check passes), but they are not the flow asked for, and when w.u < -1 the map is not "
            "invertible and 1 + u.psi(z) can reach 0 (log_det -inf).",
            '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    h = tf.tanh(tf.linalg.matvec(z, w) + b)                 # [N]
    f_z = z + h[:, None] * u[None, :]
    psi = (1.0 - h ** 2)[:, None] * w[None, :]              # [N, D]
    log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u)))
    return f_z, log_det
''',
        ),
    ],
}
CORRECT = {
    "reliability_bins": [
        (
            "ceil_index_bincount",
            '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    probs = np.asarray(probs, dtype=np.float64)
    confidence = probs.max(axis=-1)
    correct = (probs.argmax(axis=-1) == np.asarray(labels)).astype(np.float64)
    # (m/M, (m+1)/M] -> m; a confidence of 0 -> bin 0, a confidence of 1 -> the last bin
    index = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)
    count = np.bincount(index, minlength=num_bins)
    safe = np.maximum(count, 1)
    accuracy = np.where(count > 0, np.bincount(index, weights=correct, minlength=num_bins) / safe, 0.0)
    mean_confidence = np.where(count > 0, np.bincount(index, weights=confidence, minlength=num_bins) / safe, 0.0)
    return accuracy, mean_confidence, count
''',
        ),
    ],
    "fit_temperature": [
        (
            "bisection_on_inverse_temperature",
            '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    z = np.array(logits, dtype=np.float64)          # a copy: the caller's array stays as it is
    z_true = z[np.arange(len(z)), np.asarray(labels)]

    def slope(beta):
        # d/d beta of mean(logsumexp(beta z) - beta z_true): E_p[z] - z_true, increasing in beta
        scaled = beta * z
        p = np.exp(scaled - scaled.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return np.mean(np.sum(p * z, axis=1) - z_true)

    low, high = np.log(1e-3), np.log(1e3)           # log beta, beta = 1 / T
    for _ in range(200):
        middle = 0.5 * (low + high)
        if slope(np.exp(middle)) > 0:
            high = middle
        else:
            low = middle
    return float(np.exp(-0.5 * (low + high)))
''',
        ),
    ],
    "planar_flow": [
        (
            "einsum_closed_form_det",
            '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    wu = tf.reduce_sum(w * u)
    u_hat = u + (tf.math.softplus(wu) - 1.0 - wu) * w / tf.reduce_sum(w * w)
    h = tf.tanh(tf.einsum("nd,d->n", z, w) + b)
    f_z = z + tf.einsum("n,d->nd", h, u_hat)
    # u_hat . psi(z) = (1 - h^2) w . u_hat
    log_det = tf.math.log(tf.abs(1.0 + (1.0 - tf.square(h)) * tf.reduce_sum(w * u_hat)))
    return f_z, log_det
''',
        ),
    ],
}
