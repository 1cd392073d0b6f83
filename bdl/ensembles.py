"""Deep ensembles trained together: the stacked members, their losses and training loops.

Nothing here is graded. ``StackedMLP`` holds the M members of an ensemble of
small ReLU networks in one set of tensors (every kernel has shape
``[M, inputs, outputs]``), so one batched matrix product runs all members at
once. Each member's loss depends only on its own weights and Adam updates
every weight on its own, so training the stack on the sum of the members'
losses trains each member exactly as if it were alone.
"""
import time

import numpy as np
import tensorflow as tf

# The scale a member's network outputs is softplus(raw) + MIN_SCALE, so it is never zero.
MIN_SCALE = 1e-6


def member_seeds(seed, ensemble_size):
    """Return ``ensemble_size`` independent integer seeds derived from ``seed``, one per member."""
    children = np.random.SeedSequence(seed).spawn(ensemble_size)
    return [int(child.generate_state(1)[0]) for child in children]


def member_init(layer_sizes, seed, init_scale=None):
    """Return ``(weights, scale)``: one member's initial ``[(kernel, bias), ...]``.

    Every weight and bias is ``scale * N(0, 1)``. Unless ``init_scale`` is given,
    the scale itself is drawn as ``|z|``, ``z ~ N(0, 0.1**2)``, from the member's own ``seed``,
    so members start at different sizes as well as different directions.
    """
    rng = np.random.default_rng(seed)
    scale = abs(rng.normal(0.0, 0.1)) if init_scale is None else float(init_scale)
    weights = [(scale * rng.standard_normal((fan_in, fan_out)), scale * rng.standard_normal(fan_out))
               for fan_in, fan_out in zip(layer_sizes[:-1], layer_sizes[1:])]
    return [(k.astype("float32"), b.astype("float32")) for k, b in weights], scale


class StackedMLP(tf.Module):
    """``ensemble_size`` ReLU networks with layer widths ``layer_sizes``, stacked.

    Calling it on ``x`` of shape ``[M, B, inputs]`` (member m sees ``x[m]``) or
    ``[B, inputs]`` (every member sees the same batch) returns the members'
    outputs, shape ``[M, B, outputs]``; the last layer has no activation.
    """

    def __init__(self, layer_sizes, ensemble_size, seed=0, init_scale=None, name=None):
        super().__init__(name=name)
        self.layer_sizes = list(layer_sizes)
        self.ensemble_size = ensemble_size
        self.seeds = member_seeds(seed, ensemble_size)
        members = [member_init(layer_sizes, s, init_scale) for s in self.seeds]
        self.init_scales = [scale for _, scale in members]
        self.initial_weights = [weights for weights, _ in members]
        self.kernels, self.biases = [], []
        for layer in range(len(layer_sizes) - 1):
            self.kernels.append(tf.Variable(np.stack([w[layer][0] for w in self.initial_weights]),
                                            name=f"kernel_{layer}"))
            self.biases.append(tf.Variable(np.stack([w[layer][1] for w in self.initial_weights])[:, None, :],
                                           name=f"bias_{layer}"))

    def __call__(self, x):
        h = tf.convert_to_tensor(x, tf.float32)
        if h.shape.rank == 2:
            h = tf.broadcast_to(h, tf.concat([[self.ensemble_size], tf.shape(h)], axis=0))
        last = len(self.kernels) - 1
        for layer, (kernel, bias) in enumerate(zip(self.kernels, self.biases)):
            h = tf.matmul(h, kernel) + bias
            if layer < last:
                h = tf.nn.relu(h)
        return h

    def predict(self, x, batch_size=8192):
        """Return the members' outputs on ``x`` ``[N, inputs]`` as a NumPy array ``[M, N, outputs]``."""
        if not hasattr(self, "_compiled_call"):  # one trace for every batch size
            self._compiled_call = tf.function(self.__call__, input_signature=[
                tf.TensorSpec([None, self.layer_sizes[0]], tf.float32)])
        x = np.asarray(x, "float32")
        return np.concatenate([self._compiled_call(x[i:i + batch_size]).numpy()
                               for i in range(0, len(x), batch_size)], axis=1)


def gaussian_head(outputs):
    """Split a network's two outputs ``[..., 2]`` into ``(mean, scale)``, each ``[...]``.

    The scale is ``softplus(raw) + MIN_SCALE``.
    """
    return outputs[..., 0], tf.nn.softplus(outputs[..., 1]) + MIN_SCALE


def member_gaussian_nll(y, outputs):
    """Per-example Gaussian negative log-likelihood of ``y`` ``[..., 1]`` under ``gaussian_head(outputs)``."""
    mean, scale = gaussian_head(outputs)
    z = (tf.cast(y[..., 0], outputs.dtype) - mean) / scale
    return 0.5 * np.log(2 * np.pi) + tf.math.log(scale) + 0.5 * tf.square(z)


def member_categorical_nll(labels, logits):
    """Per-example negative log-likelihood of integer ``labels`` under softmax ``logits``.

    ``labels`` ``[N]`` or ``[M, N]`` broadcasts against ``logits`` ``[M, N, K]``.
    """
    labels = tf.broadcast_to(tf.cast(labels, tf.int32), tf.shape(logits)[:-1])
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def fgsm_examples(x, loss, tape, adversarial_eps):
    """Fast gradient sign method: ``x + eps * sign(d loss / d x)`` (Goodfellow et al., 2015).

    ``tape`` must have watched ``x`` while ``loss`` was computed. The result is
    a constant: training does not differentiate through the attack.
    """
    return tf.stop_gradient(x + adversarial_eps * tf.sign(tape.gradient(loss, x)))


def _training_loss(model, loss_fn, x, y, adversarial_eps, weight_decay):
    """Return the per-member losses ``[M]``: mean NLL (clean and FGSM-perturbed) plus L2."""
    def member_nll(inputs):
        return tf.reduce_mean(loss_fn(y, model(inputs)), axis=-1)

    if adversarial_eps:
        with tf.GradientTape() as attack:
            attack.watch(x)
            clean = member_nll(x)
            # Member m's inputs x[m] affect only its own loss: one gradient gives every member's attack.
            clean_sum = tf.reduce_sum(clean)
        x_adv = fgsm_examples(x, clean_sum, attack, adversarial_eps)
        losses = 0.5 * (clean + member_nll(x_adv))
    else:
        losses = member_nll(x)
    if weight_decay:
        losses += weight_decay * tf.add_n([tf.reduce_sum(tf.square(k), axis=[1, 2]) for k in model.kernels])
    return losses


def train_stacked(model, x, y, loss_fn, num_epochs, batch_size=None, learning_rate=1e-3,
                  adversarial_eps=0.0, weight_decay=0.0, seed=0, metrics=None, print_every=None):
    """Train every member of ``model`` together with Adam; return the history.

    Each epoch, each member sees the training set in its own random order, in
    batches of ``batch_size`` (default: the whole set; a last, smaller batch is
    dropped). A member's loss is its mean negative log-likelihood ``loss_fn``
    on the batch, averaged with the loss on FGSM examples when
    ``adversarial_eps > 0``, plus ``weight_decay`` times the squared L2 norm
    of its kernels. One ``tf.function`` call runs a whole epoch.

    ``metrics(outputs, y)``, if given, maps the members' outputs on the whole
    training set ``[M, N, outputs]`` to a dict of scalars, logged after each
    epoch. Returns a dict of NumPy arrays (one value per epoch) with those
    metrics and ``"seconds"``, the wall time since training started.
    """
    x = tf.constant(x, tf.float32)
    y = tf.constant(y)
    num_points = int(x.shape[0])
    batch_size = min(batch_size or num_points, num_points)
    num_steps = num_points // batch_size
    optimizer = tf.keras.optimizers.Adam(learning_rate)
    variables = model.trainable_variables
    optimizer.build(variables)

    @tf.function
    def train_epoch(order):
        for step in tf.range(num_steps):
            batch = order[:, step * batch_size:(step + 1) * batch_size]  # [M, batch_size]
            xb, yb = tf.gather(x, batch), tf.gather(y, batch)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(_training_loss(model, loss_fn, xb, yb, adversarial_eps, weight_decay))
            optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return metrics(model(x), y) if metrics else {}

    rng = np.random.default_rng(seed)
    history = {"seconds": []}
    start = time.perf_counter()
    for epoch in range(1, num_epochs + 1):
        order = np.stack([rng.permutation(num_points) for _ in range(model.ensemble_size)]).astype("int32")
        logged = train_epoch(tf.constant(order))
        history["seconds"].append(time.perf_counter() - start)
        for name, value in logged.items():
            history.setdefault(name, []).append(float(value))
        if print_every and (epoch % print_every == 0 or epoch == num_epochs):
            shown = ", ".join(f"{name} {history[name][-1]:.3f}" for name in logged)
            print(f"epoch {epoch:4d}/{num_epochs}: {shown} ({history['seconds'][-1]:.1f} s)")
    return {name: np.asarray(values) for name, values in history.items()}


class KerasMember(tf.keras.Model):
    """One member as a plain Keras model, for timing members trained one after another.

    ``fit`` minimises the same loss as ``train_stacked``: ``loss_fn`` averaged
    over clean and FGSM examples, plus L2 weight decay on the kernels.
    """

    def __init__(self, layer_sizes, weights, loss_fn, adversarial_eps=0.0, weight_decay=0.0):
        super().__init__()
        last = len(layer_sizes) - 2
        regularizer = tf.keras.regularizers.L2(weight_decay) if weight_decay else None
        self.dense = [tf.keras.layers.Dense(units, activation=None if i == last else "relu",
                                            kernel_regularizer=regularizer)
                      for i, units in enumerate(layer_sizes[1:])]
        self.loss_fn = loss_fn
        self.adversarial_eps = adversarial_eps
        self(tf.zeros((1, layer_sizes[0])))
        self.set_weights([array for kernel_bias in weights for array in kernel_bias])

    def call(self, x):
        for layer in self.dense:
            x = layer(x)
        return x

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            if self.adversarial_eps:
                with tf.GradientTape() as attack:
                    attack.watch(x)
                    clean = tf.reduce_mean(self.loss_fn(y, self(x, training=True)))
                x_adv = fgsm_examples(x, clean, attack, self.adversarial_eps)
                loss = 0.5 * (clean + tf.reduce_mean(self.loss_fn(y, self(x_adv, training=True))))
            else:
                loss = tf.reduce_mean(self.loss_fn(y, self(x, training=True)))
            if self.losses:
                loss += tf.add_n(self.losses)
        self.optimizer.apply_gradients(zip(tape.gradient(loss, self.trainable_variables),
                                           self.trainable_variables))
        return {"loss": loss}


def train_serial(model, x, y, loss_fn, num_epochs, batch_size=None, learning_rate=1e-3,
                 adversarial_eps=0.0, weight_decay=0.0):
    """Train ``model``'s members one after another as plain Keras models (``fit``).

    Starts from the same initial weights as ``model`` (a ``StackedMLP``, left
    untouched) and runs the same number of epochs and batches as
    ``train_stacked``. Returns ``(members, seconds)``: the trained Keras models
    and the wall time of their ``fit`` calls.
    """
    x = np.asarray(x, "float32")
    batch_size = min(batch_size or len(x), len(x))
    members = []
    start = time.perf_counter()
    for weights in model.initial_weights:
        member = KerasMember(model.layer_sizes, weights, loss_fn, adversarial_eps, weight_decay)
        member.compile(optimizer=tf.keras.optimizers.Adam(learning_rate))
        member.fit(x, y, epochs=num_epochs, batch_size=batch_size, shuffle=True, verbose=0)
        members.append(member)
    return members, time.perf_counter() - start
