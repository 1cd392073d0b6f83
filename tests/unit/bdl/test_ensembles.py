"""bdl.ensembles: stacked members train exactly like separate ones, with the loss and attack they are given."""

import numpy as np
import pytest

import bdl  # noqa: F401  (before TensorFlow: Keras 2, quiet logs)

# isort: split
import tensorflow as tf

from bdl import ensembles
from bdl.ensembles import StackedMLP

LAYERS = [2, 8, 5, 3]


def _numpy_forward(weights, x):
    h = x
    for i, (kernel, bias) in enumerate(weights):
        h = h @ kernel + bias
        if i < len(weights) - 1:
            h = np.maximum(h, 0)
    return h


def _variables(model):
    return [v.numpy() for v in model.kernels + model.biases]


def test_member_seeds_are_distinct_and_repeatable():
    seeds = ensembles.member_seeds(0, 6)
    assert len(set(seeds)) == 6
    assert seeds == ensembles.member_seeds(0, 6)
    assert seeds != ensembles.member_seeds(1, 6)


def test_member_init_draws_its_scale_from_its_seed():
    weights, scale = ensembles.member_init([1, 200, 300], seed=5)
    again, same_scale = ensembles.member_init([1, 200, 300], seed=5)
    assert scale == same_scale and np.array_equal(weights[1][0], again[1][0])
    assert scale == pytest.approx(abs(np.random.default_rng(5).normal(0.0, 0.1)))
    assert [k.shape for k, _ in weights] == [(1, 200), (200, 300)]
    assert [b.shape for _, b in weights] == [(200,), (300,)]
    assert np.std(weights[1][0]) == pytest.approx(scale, rel=0.02)
    assert np.std(weights[1][1]) == pytest.approx(scale, rel=0.2)
    _, fixed = ensembles.member_init([1, 4], seed=5, init_scale=0.3)
    assert fixed == 0.3


def test_init_scales_differ_between_members():
    model = StackedMLP([1, 10, 6, 30, 2], 6, seed=0)
    assert len(set(model.init_scales)) == 6
    assert all(0 < s < 0.5 for s in model.init_scales)


def test_stacked_members_compute_their_own_networks():
    model = StackedMLP(LAYERS, 3, seed=1)
    x = np.random.default_rng(0).normal(size=(7, 2)).astype("float32")
    out = model(x).numpy()
    assert out.shape == (3, 7, 3)
    for m, weights in enumerate(model.initial_weights):
        np.testing.assert_allclose(out[m], _numpy_forward(weights, x), rtol=1e-5, atol=1e-6)
    # Per-member inputs [M, B, inputs], and predict in batches.
    per_member = np.stack([x, 2 * x, -x])
    out = model(per_member).numpy()
    np.testing.assert_allclose(out[1], _numpy_forward(model.initial_weights[1], 2 * x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.predict(x, batch_size=3), model(x).numpy(), rtol=1e-6)


def test_member_categorical_nll_is_the_cross_entropy():
    logits = np.array([[[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]]], dtype="float32")  # [M=1, N=2, K=3]
    labels = np.array([1, 0])
    log_probs = logits[0] - np.log(np.exp(logits[0]).sum(axis=-1, keepdims=True))
    expected = -log_probs[[0, 1], labels]
    np.testing.assert_allclose(ensembles.member_categorical_nll(labels, logits).numpy()[0], expected, rtol=1e-5)


def _fgsm(loss_fn, x, y, eps):
    # The attack a notebook passes in (assignment 01's FGSM); bdl holds none of its own.
    x = tf.convert_to_tensor(x, tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x, y)
    return x + eps * tf.sign(tape.gradient(loss, x))


def test_adversarial_training_uses_the_attack_it_is_given():
    x, labels = np.random.default_rng(8).normal(size=(12, 2)).astype("float32"), np.arange(12) % 3
    calls = []

    def attack(loss_fn, inputs, targets, eps):
        calls.append(eps)
        return _fgsm(loss_fn, inputs, targets, eps)

    def no_attack(loss_fn, inputs, targets, eps):
        return inputs

    model = StackedMLP(LAYERS, 2, seed=2)
    ensembles.train_stacked(
        model, x, labels, ensembles.member_categorical_nll, num_epochs=2, adversarial_eps=0.1, attack=attack
    )
    assert calls == [0.1], "the attack is traced once, with adversarial_eps"
    # An attack that leaves the inputs alone gives plain training exactly.
    plain, attacked = StackedMLP(LAYERS, 2, seed=2), StackedMLP(LAYERS, 2, seed=2)
    ensembles.train_stacked(plain, x, labels, ensembles.member_categorical_nll, num_epochs=3, learning_rate=0.01)
    ensembles.train_stacked(
        attacked,
        x,
        labels,
        ensembles.member_categorical_nll,
        num_epochs=3,
        learning_rate=0.01,
        adversarial_eps=0.1,
        attack=no_attack,
    )
    for mine, theirs in zip(_variables(plain), _variables(attacked)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="needs an attack"):
        ensembles.train_stacked(model, x, labels, ensembles.member_categorical_nll, num_epochs=1, adversarial_eps=0.1)
    with pytest.raises(ValueError, match="needs an attack"):
        ensembles.train_serial(model, x, labels, ensembles.member_categorical_nll, num_epochs=1, adversarial_eps=0.1)


def test_adversarial_training_matches_the_two_loss_average():
    """One full-batch step from known weights: the gradient of (clean + attacked) / 2 at FGSM inputs."""
    rng = np.random.default_rng(9)
    x, labels = rng.normal(size=(10, 2)).astype("float32"), rng.integers(0, 3, 10)
    eps, learning_rate = 0.05, 0.01
    model = StackedMLP(LAYERS, 1, seed=3)
    expected = StackedMLP(LAYERS, 1, seed=3)
    variables = expected.trainable_variables
    xs = tf.constant(x[None])

    def mean_loss(inputs, targets):
        return tf.reduce_mean(ensembles.member_categorical_nll(targets, expected(inputs)))

    x_adv = _fgsm(mean_loss, xs, labels[None], eps)
    with tf.GradientTape() as tape:
        loss = 0.5 * (mean_loss(xs, labels[None]) + mean_loss(x_adv, labels[None]))
    optimizer = tf.keras.optimizers.Adam(learning_rate)
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    ensembles.train_stacked(
        model,
        x,
        labels,
        ensembles.member_categorical_nll,
        num_epochs=1,
        learning_rate=learning_rate,
        adversarial_eps=eps,
        attack=_fgsm,
    )
    for mine, theirs in zip(_variables(model), _variables(expected)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("adversarial_eps, weight_decay", [(0.0, 0.0), (0.05, 1e-2)])
def test_training_together_equals_training_alone(adversarial_eps, weight_decay):
    """Summed losses and Adam: each stacked member trains exactly as a lone network."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(32, 2)).astype("float32")
    labels = rng.integers(0, 3, 32)
    together = StackedMLP(LAYERS, 3, seed=4)
    settings = dict(
        num_epochs=5, learning_rate=0.01, adversarial_eps=adversarial_eps, attack=_fgsm, weight_decay=weight_decay
    )  # full batch: the data order does not matter
    ensembles.train_stacked(together, x, labels, ensembles.member_categorical_nll, **settings)
    trained = _variables(together)
    for m in range(3):
        alone = StackedMLP(LAYERS, 1, seed=4)
        for variable, start in zip(alone.kernels + alone.biases, _variables(StackedMLP(LAYERS, 3, seed=4))):
            variable.assign(start[m : m + 1])
        ensembles.train_stacked(alone, x, labels, ensembles.member_categorical_nll, **settings)
        for mine, theirs in zip(_variables(alone), trained):
            np.testing.assert_allclose(mine[0], theirs[m], rtol=1e-4, atol=1e-5)


def test_keras_members_do_the_same_training():
    """The serial baseline of the speed comparison trains the same loss from the same start."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(24, 2)).astype("float32")
    labels = rng.integers(0, 3, 24)
    settings = dict(num_epochs=4, learning_rate=0.01, adversarial_eps=0.05, attack=_fgsm, weight_decay=1e-2)
    stacked = StackedMLP(LAYERS, 2, seed=6)
    members, seconds = ensembles.train_serial(stacked, x, labels, ensembles.member_categorical_nll, **settings)
    assert len(members) == 2 and seconds > 0
    # train_serial leaves the stacked model untouched.
    np.testing.assert_array_equal(stacked.kernels[0].numpy()[1], stacked.initial_weights[1][0][0])
    ensembles.train_stacked(stacked, x, labels, ensembles.member_categorical_nll, **settings)
    np.testing.assert_allclose(members[1].predict(x, verbose=0), stacked(x).numpy()[1], rtol=1e-4, atol=1e-4)


def test_train_stacked_logs_metrics_and_reduces_the_loss():
    x, labels = np.random.default_rng(7).normal(size=(60, 2)).astype("float32"), np.arange(60) % 3
    model = StackedMLP(LAYERS, 2, seed=0, init_scale=0.5)

    def metrics(logits, y):
        return {"nll": tf.reduce_mean(ensembles.member_categorical_nll(y, logits))}

    history = ensembles.train_stacked(
        model,
        x,
        labels,
        ensembles.member_categorical_nll,
        num_epochs=30,
        batch_size=20,
        learning_rate=0.01,
        metrics=metrics,
        seed=1,
    )
    assert set(history) == {"seconds", "nll"} and len(history["nll"]) == 30
    assert np.all(np.diff(history["seconds"]) > 0)
    assert history["nll"][-1] < history["nll"][0]
