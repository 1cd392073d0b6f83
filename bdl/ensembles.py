"""Deep ensembles trained together: the stacked members and their training loops.

Nothing here is graded, and nothing here is an answer: the training loops take
the members' loss and, for adversarial training, the attack as arguments
(assignment 02 passes the answers to assignment 01). ``StackedMLP`` holds the
M members of an ensemble of small ReLU networks in one set of tensors (every
kernel has shape ``[M, inputs, outputs]``), so one batched matrix product runs
all members at once. Each member's loss depends only on its own weights and
Adam updates every weight on its own, so training the stack on the sum of the
members' losses trains each member exactly as if it were alone.
"""

import time

import numpy as np
import tensorflow as tf


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
    weights = [
        (scale * rng.standard_normal((fan_in, fan_out)), scale * rng.standard_normal(fan_out))
        for fan_in, fan_out in zip(layer_sizes[:-1], layer_sizes[1:])
    ]
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
            self.kernels.append(
                tf.Variable(np.stack([w[layer][0] for w in self.initial_weights]), name=f"kernel_{layer}")
            )
            self.biases.append(
                tf.Variable(np.stack([w[layer][1] for w in self.initial_weights])[:, None, :], name=f"bias_{layer}")
            )

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
            self._compiled_call = tf.function(
                self.__call__, input_signature=[tf.TensorSpec([None, self.layer_sizes[0]], tf.float32)]
            )
        x = np.asarray(x, "float32")
        return np.concatenate(
            [self._compiled_call(x[i : i + batch_size]).numpy() for i in range(0, len(x), batch_size)], axis=1
        )


def member_categorical_nll(labels, logits):
    """Per-example cross-entropy of integer ``labels`` under softmax ``logits``, from TensorFlow.

    ``labels`` ``[N]`` or ``[M, N]`` broadcasts against ``logits`` ``[M, N, K]``;
    returns ``[M, N]`` (``tf.nn.sparse_softmax_cross_entropy_with_logits``).
    """
    labels = tf.broadcast_to(tf.cast(labels, tf.int32), tf.shape(logits)[:-1])
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def _check_attack(adversarial_eps, attack):
    if adversarial_eps and attack is None:
        raise ValueError(
            "adversarial training (adversarial_eps > 0) needs an attack: "
            "pass attack=fgsm, a function fgsm(loss_fn, x, y, eps)"
        )


def _adversarial_inputs(objective, x, y, adversarial_eps, attack):
    """Return ``attack(objective, x, y, adversarial_eps)`` as a constant: training does not
    differentiate through the attack."""
    return tf.stop_gradient(tf.convert_to_tensor(attack(objective, x, y, adversarial_eps), x.dtype))


def _training_loss(model, loss_fn, x, y, adversarial_eps, attack, weight_decay):
    """Return the per-member losses ``[M]``: mean NLL (clean and attacked inputs) plus L2."""

    def member_nll(inputs, targets):
        return tf.reduce_mean(loss_fn(targets, model(inputs)), axis=-1)

    if adversarial_eps:
        # Member m's inputs x[m] affect only its own loss: one gradient of the sum attacks every member.
        x_adv = _adversarial_inputs(
            lambda inputs, targets: tf.reduce_sum(member_nll(inputs, targets)), x, y, adversarial_eps, attack
        )
        losses = 0.5 * (member_nll(x, y) + member_nll(x_adv, y))
    else:
        losses = member_nll(x, y)
    if weight_decay:
        losses += weight_decay * tf.add_n([tf.reduce_sum(tf.square(k), axis=[1, 2]) for k in model.kernels])
    return losses


def train_stacked(
    model,
    x,
    y,
    loss_fn,
    num_epochs,
    batch_size=None,
    learning_rate=1e-3,
    adversarial_eps=0.0,
    attack=None,
    weight_decay=0.0,
    seed=0,
    metrics=None,
    print_every=None,
):
    """Train every member of ``model`` together with Adam; return the history.

    Each epoch, each member sees the training set in its own random order, in
    batches of ``batch_size`` (default: the whole set; a last, smaller batch is
    dropped). A member's loss is the mean of ``loss_fn(y, outputs)`` (one value
    per example, ``[M, batch]``) on the batch, plus ``weight_decay`` times the
    squared L2 norm of its kernels. When ``adversarial_eps > 0`` the mean is
    averaged with the mean on the adversarial inputs
    ``attack(objective, x, y, adversarial_eps)``, where ``objective(x, y)`` is
    the members' summed mean loss (the FGSM of assignment 01 fits). One
    ``tf.function`` call runs a whole epoch.

    ``metrics(outputs, y)``, if given, maps the members' outputs on the whole
    training set ``[M, N, outputs]`` to a dict of scalars, logged after each
    epoch. Returns a dict of NumPy arrays (one value per epoch) with those
    metrics and ``"seconds"``, the wall time since training started.
    """
    _check_attack(adversarial_eps, attack)
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
            batch = order[:, step * batch_size : (step + 1) * batch_size]  # [M, batch_size]
            xb, yb = tf.gather(x, batch), tf.gather(y, batch)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(_training_loss(model, loss_fn, xb, yb, adversarial_eps, attack, weight_decay))
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
    over clean and attacked inputs (``attack``, when ``adversarial_eps > 0``),
    plus L2 weight decay on the kernels.
    """

    def __init__(self, layer_sizes, weights, loss_fn, adversarial_eps=0.0, attack=None, weight_decay=0.0):
        super().__init__()
        _check_attack(adversarial_eps, attack)
        last = len(layer_sizes) - 2
        regularizer = tf.keras.regularizers.L2(weight_decay) if weight_decay else None
        self.dense = [
            tf.keras.layers.Dense(units, activation=None if i == last else "relu", kernel_regularizer=regularizer)
            for i, units in enumerate(layer_sizes[1:])
        ]
        self.loss_fn = loss_fn
        self.adversarial_eps = adversarial_eps
        self.attack = attack
        self(tf.zeros((1, layer_sizes[0])))
        self.set_weights([array for kernel_bias in weights for array in kernel_bias])

    def call(self, x):
        for layer in self.dense:
            x = layer(x)
        return x

    def train_step(self, data):
        x, y = data

        def mean_loss(inputs, targets):
            return tf.reduce_mean(self.loss_fn(targets, self(inputs, training=True)))

        if self.adversarial_eps:
            x_adv = _adversarial_inputs(mean_loss, x, y, self.adversarial_eps, self.attack)
        with tf.GradientTape() as tape:
            loss = mean_loss(x, y)
            if self.adversarial_eps:
                loss = 0.5 * (loss + mean_loss(x_adv, y))
            if self.losses:
                loss += tf.add_n(self.losses)
        self.optimizer.apply_gradients(zip(tape.gradient(loss, self.trainable_variables), self.trainable_variables))
        return {"loss": loss}


def train_serial(
    model,
    x,
    y,
    loss_fn,
    num_epochs,
    batch_size=None,
    learning_rate=1e-3,
    adversarial_eps=0.0,
    attack=None,
    weight_decay=0.0,
):
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
        member = KerasMember(model.layer_sizes, weights, loss_fn, adversarial_eps, attack, weight_decay)
        member.compile(optimizer=tf.keras.optimizers.Adam(learning_rate))
        member.fit(x, y, epochs=num_epochs, batch_size=batch_size, shuffle=True, verbose=0)
        members.append(member)
    return members, time.perf_counter() - start
