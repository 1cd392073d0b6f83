"""The known mistakes of assignment 01 (likelihoods), recognised by what the answer computes.

Each recogniser gets the student's function and returns whether it behaves like the
mistake on its probes; ``bdl.diagnoses`` says the rules (no right answer computed here).
"""

import numpy as np
import tensorflow as tf

from bdl.diagnoses.probes import Function, Mistake, call, fails, same

# Four examples, three classes; the classes are not in order of probability.
_PROBS = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5], [0.9, 0.05, 0.05]], "float32")
_LABELS = np.array([0, 2, 2, 1])
_ONE_HOT = np.eye(3, dtype="float32")[_LABELS]
# Five classes, for a count of classes written into the code.
_PROBS5 = np.array([[0.5, 0.1, 0.1, 0.2, 0.1], [0.05, 0.05, 0.1, 0.2, 0.6]], "float32")
_LABELS5 = np.array([3, 4])
# Integer labels among which the last class never occurs: a count of classes taken from them is short.
_NO_LAST_CLASS = np.array([0, 1, 1, 0])


def _error(function, *args):
    """The message of the error ``function(*args)`` raises ("" if none): a gradient that never
    reached an input is None, and TensorFlow says so when it is used."""
    try:
        function(*args)
        return ""
    except Exception as error:
        return str(error)


def _labels_work(function, probs, labels):
    """Whether integer ``labels`` give what their one-hot vectors (as many as ``probs`` has classes) give."""
    return not fails(function, probs, labels) and same(
        call(function, probs, labels), call(function, probs, np.eye(probs.shape[-1], dtype="float32")[labels])
    )


def _perfect(function, labels):
    """Whether ``function`` scores a forecast that puts all its probability on the label as perfect
    (zero), given the labels in this form."""
    try:
        return same(call(function, _ONE_HOT, labels), 0.0)
    except Exception:
        return False


def _twice(*arrays):
    """The examples of each array, each one twice: a mean over them stays, a sum doubles."""
    return [np.concatenate([a, a]) for a in arrays]


def _doubles_with_the_examples(function, *arrays):
    once, twice = call(function, *arrays), call(function, *_twice(*arrays))
    return np.all(np.abs(once) > 1e-3) and same(twice, 2 * once)


BRIER = Function(
    "brier_score",
    (
        Mistake(
            "rejects_float64",
            "Your score fails for float64 probabilities; the spec allows float32 or float64, so bring the "
            "probabilities and labels to one dtype instead of requiring float32.",
            lambda f: (
                not fails(f, tf.constant(_PROBS), _ONE_HOT) and fails(f, tf.constant(_PROBS, tf.float64), _ONE_HOT)
            ),
        ),
        Mistake(
            "integer_one_hot_not_cast",
            "Your score fails for one-hot labels of an integer dtype: such labels (as many dimensions as the "
            "probabilities) are one-hot already, whatever their dtype, and need only a cast to the "
            "probabilities' dtype before you subtract them.",
            lambda f: not fails(f, _PROBS, _ONE_HOT) and fails(f, _PROBS, _ONE_HOT.astype("int32")),
        ),
        Mistake(
            "classes_hard_coded",
            "Your score does not take the number of classes from the probabilities: it goes wrong for another "
            "number of classes, or for integer labels that leave out the last class.",
            lambda f: (
                same(call(f, _PROBS, _LABELS), call(f, _PROBS, _ONE_HOT))
                and not (_labels_work(f, _PROBS5, _LABELS5) and _labels_work(f, _PROBS, _NO_LAST_CLASS))
            ),
        ),
        Mistake(
            "one_hot_encoded_again",
            "Your score handles integer labels but not one-hot ones: one-hot labels (as many dimensions as "
            "the probabilities) are used as they are; only integer class indices need turning into one-hot "
            "vectors.",
            lambda f: _perfect(f, _LABELS) and not _perfect(f, _ONE_HOT),
        ),
        Mistake(
            "integer_labels_as_one_hot",
            "Your score handles one-hot labels but not integer class indices: integer labels (one dimension "
            "fewer than the probabilities) must be turned into one-hot vectors first.",
            lambda f: _perfect(f, _ONE_HOT) and not _perfect(f, _LABELS),
        ),
        Mistake(
            "sum_over_examples",
            "Your score grows with the number of examples: it seems to add up over the examples, where the "
            "Brier score averages over them.",
            lambda f: _doubles_with_the_examples(f, _PROBS, _ONE_HOT),
        ),
        Mistake(
            "absolute_error",
            "Your score seems to add up the absolute differences between the probabilities and the labels; "
            "the Brier score squares each difference.",
            lambda f: same(call(f, _PROBS, _ONE_HOT), np.mean(np.sum(np.abs(_PROBS - _ONE_HOT), axis=-1))),
        ),
        Mistake(
            "mean_over_classes",
            "Your score seems to average the squared differences over the classes; the Brier score adds "
            "them up over the classes, and averages over the examples only.",
            lambda f: same(call(f, _PROBS, _ONE_HOT), np.mean((_PROBS - _ONE_HOT) ** 2)),
        ),
        Mistake(
            "true_class_only",
            "Your score seems to look only at the probability of the true class; the Brier score counts the "
            "squared difference of every class, the wrong ones too.",
            lambda f: same(call(f, _PROBS, _ONE_HOT), np.mean((1 - np.sum(_PROBS * _ONE_HOT, axis=-1)) ** 2)),
        ),
    ),
)


def _raw(function, *args):
    """The answer's result as it returned it (not converted)."""
    return function(*args)


def _returns_numpy(function, *args):
    return isinstance(_raw(function, *args), (np.ndarray, np.generic, float))


def _no_gradient(function, *args, wrt=1):
    """Whether no gradient reaches argument ``wrt`` (a variable here) through ``function``."""
    args = [tf.constant(a) for a in args]
    variable = tf.Variable(args[wrt])
    args[wrt] = variable
    with tf.GradientTape() as tape:
        value = function(*args)
    return tf.is_tensor(value) and tape.gradient(value, variable) is None


NOT_A_TENSOR = (
    "Your {what} returns a NumPy value; a training loss must be a tensor, so keep to TensorFlow "
    "operations on the tensors and return their result."
)
NOT_DIFFERENTIABLE = (
    "Your {what} is not differentiable: no gradient reaches its inputs. Compute it with "
    "TensorFlow operations on the tensors you are given, without going through NumPy."
)
SUM_NOT_MEAN = (
    "Your {what} grows with the number of entries: it seems to add them up, where the spec asks for their mean."
)
ORDER = (
    "Your {what} changes when the observations and the {centre} move together by the same amount; it should "
    "depend on them only through their difference: check the order of the arguments ({arguments})."
)
CONSTANT = (
    "Your {what} differs from the expected one by the same constant for every input: check the "
    "normalising constant of the density."
)

# Observations, centres and scales of four entries, shape (4, 1).
_Y = np.array([[0.0], [1.0], [-2.0], [0.5]], "float32")
_CENTRE = np.array([[0.0], [0.0], [0.0], [1.0]], "float32")
_SCALE = np.array([[1.0], [2.0], [0.5], [3.0]], "float32")
_ZERO = np.zeros((4, 1), "float32")
_ONE = np.ones((4, 1), "float32")


def _at(function, error, scale):
    """The NLL of entries ``error`` away from their centre, all with one scale."""
    return call(function, tf.constant(_ZERO + error), tf.constant(_ZERO), tf.constant(_ONE * scale))


def _shift_changes(function):
    return not same(call(function, _Y + 2, _CENTRE + 2, _SCALE), call(function, _Y, _CENTRE, _SCALE))


def _loss_mistakes(what, centre):
    """The mistakes the Gaussian and the Laplace NLL share."""
    arguments = f"y, {centre}, scale"
    return (
        Mistake("not_a_tensor", NOT_A_TENSOR.format(what=what), lambda f: _returns_numpy(f, _Y, _CENTRE, _SCALE)),
        Mistake(
            "not_differentiable", NOT_DIFFERENTIABLE.format(what=what), lambda f: _no_gradient(f, _Y, _CENTRE, _SCALE)
        ),
        Mistake(
            "sum_not_mean", SUM_NOT_MEAN.format(what=what), lambda f: _doubles_with_the_examples(f, _Y, _CENTRE, _SCALE)
        ),
        Mistake(
            "arguments_swapped",
            ORDER.format(what=what, centre=centre.replace("loc", "location"), arguments=arguments),
            _shift_changes,
        ),
    )


GAUSSIAN = Function(
    "gaussian_nll",
    _loss_mistakes("NLL", "mean")
    + (
        Mistake(
            "log_likelihood",
            "Your NLL falls as the observations move away from the mean: it seems to be the log-likelihood, "
            "where the loss is its negative.",
            lambda f: _at(f, 3.0, 1.0) < _at(f, 0.0, 1.0),
        ),
        Mistake(
            "scale_as_variance",
            "Your NLL seems to treat the scale as the variance; the scale is the standard deviation, and the "
            "variance is its square.",
            # the squared error over twice the scale, not its square, at a wide and a narrow scale
            lambda f: (
                same(_at(f, 2.0, 4.0) - _at(f, 0.0, 4.0), 4.0 / 8.0)
                and same(_at(f, 1.0, 0.25) - _at(f, 0.0, 0.25), 1.0 / 0.5)
            ),
        ),
        Mistake(
            "squared_error_factor",
            "The squared-error term of your NLL seems twice as large as it should be: check the factor in "
            "front of it in your derivation.",
            lambda f: same(_at(f, 2.0, 1.0) - _at(f, 0.0, 1.0), 4.0),
        ),
        Mistake(
            "missing_constant",
            CONSTANT.format(what="NLL"),
            lambda f: same(_at(f, 0.0, 1.0), 0.0) and same(_at(f, 0.0, 4.0), np.log(4.0)),
        ),
    ),
)

LAPLACE = Function(
    "laplace_nll",
    _loss_mistakes("NLL", "loc")
    + (
        Mistake(
            "squared_error",
            "Your NLL seems to square the distance between the observation and the location; the Laplace "
            "NLL grows with its absolute value.",
            lambda f: same(_at(f, 3.0, 1.0) - _at(f, 0.0, 1.0), 9.0),
        ),
        Mistake(
            "scale_as_variance",
            "Your NLL seems to divide the error by the square root of the scale, as if the scale were a "
            "variance; the Laplace scale divides the absolute error itself.",
            lambda f: same(_at(f, 2.0, 4.0) - _at(f, 0.0, 4.0), 1.0),
        ),
        Mistake(
            "wrong_constant",
            CONSTANT.format(what="NLL").replace("the density", "the Laplace density"),
            lambda f: any(same(_at(f, 0.0, 1.0), wrong) for wrong in (0.0, 0.5 * np.log(2 * np.pi))),
        ),
    ),
)

# Three examples over three classes, and confident logits for the stability of the log-softmax.
_CLASSES = np.eye(3, dtype="float32")
_LOGITS = np.array([[2.0, 1.0, 0.0], [0.5, -1.0, 3.0], [1.0, 1.0, 1.0]], "float32")
_BIG = np.array([[1000.0, 0.0, -1000.0], [0.0, 1000.0, 0.0]], "float32")
_BIG_CLASSES = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], "float32")
# Rows whose largest logits are far apart: one shift for the whole batch underflows the second row.
_UNEVEN = np.array([[1000.0, 0.0, -1000.0], [0.0, 1.0, 2.0]], "float32")


def _shifted_rows(array):
    """Each example's row plus its own constant: the softmax of logits does not change."""
    return array + np.arange(1, len(array) + 1, dtype="float32")[:, None]


def _unchanged(function, labels, logits, changed_labels, changed_logits):
    return same(call(function, changed_labels, changed_logits), call(function, labels, logits))


CATEGORICAL = Function(
    "categorical_nll",
    (
        Mistake("not_a_tensor", NOT_A_TENSOR.format(what="NLL"), lambda f: _returns_numpy(f, _CLASSES, _LOGITS)),
        Mistake(
            "unstable",
            "Your NLL overflows or underflows for large logits (it gives inf or nan there): work from the "
            "logits, with each row's own largest logit subtracted before any exponential (log-sum-exp).",
            lambda f: (
                np.all(np.isfinite(call(f, _CLASSES, _LOGITS)))
                and not (
                    np.all(np.isfinite(call(f, _BIG_CLASSES, _BIG)))
                    and np.all(np.isfinite(call(f, _BIG_CLASSES, _UNEVEN)))
                )
            ),
        ),
        Mistake(
            "clipped",
            "Your NLL is capped for confident wrong predictions, as if the probabilities were clipped before "
            "the log; compute it from the logits instead, without clipping.",
            lambda f: (
                _unchanged(f, _CLASSES, _LOGITS, _CLASSES, _shifted_rows(_LOGITS))
                and 1 < call(f, _BIG_CLASSES, _BIG) < 100
            ),
        ),
        Mistake(
            "sum_not_mean",
            SUM_NOT_MEAN.format(what="NLL").replace("entries", "examples"),
            lambda f: _doubles_with_the_examples(f, _CLASSES, _LOGITS),
        ),
        Mistake(
            "missing_normaliser",
            "Your NLL seems to use the logits as if they were log-probabilities; subtract the log of the "
            "softmax's normaliser first.",
            lambda f: same(call(f, _CLASSES, _LOGITS), -np.mean(np.sum(_CLASSES * _LOGITS, axis=-1))),
        ),
        Mistake(
            "wrong_axis",
            "Your NLL seems to normalise the logits over the examples; the softmax normalises over the "
            "classes, the last axis.",
            # one constant added to every logit changes nothing, but one per example does
            lambda f: (
                _unchanged(f, _CLASSES, _LOGITS, _CLASSES, _LOGITS + 5.0)
                and not _unchanged(f, _CLASSES, _LOGITS, _CLASSES, _shifted_rows(_LOGITS))
            ),
        ),
        Mistake(
            "arguments_swapped",
            "Your NLL seems to take the labels as logits and the logits as labels: check the order of the "
            "arguments (labels first, then logits).",
            lambda f: (
                _unchanged(f, _CLASSES, _LOGITS, _shifted_rows(_CLASSES), _LOGITS)
                and not _unchanged(f, _CLASSES, _LOGITS, _CLASSES, _shifted_rows(_LOGITS))
            ),
        ),
    ),
)

# Network outputs: three rows; one row; a large and a very negative raw scale.
_OUTPUTS = np.array([[0.5, -1.0], [2.0, 0.0], [-1.0, 3.0]], "float32")
_ROW = np.array([[0.3, 0.7]], "float32")
_LARGE = np.array([[0.0, 100.0], [1.0, 1.0]], "float32")
_TINY = np.array([[0.0, -30.0], [1.0, 1.0]], "float32")


def _scale(function, outputs):
    return call(function, tf.constant(outputs))[1]


SPLIT = Function(
    "split_mean_scale",
    (
        Mistake(
            "last_axis_dropped",
            "Your mean and scale lose the last axis: keep it, so that each has one column and lines up with "
            "the targets.",
            lambda f: any(part.shape == (3,) for part in call(f, _OUTPUTS)),
        ),
        Mistake(
            "batch_size_hard_coded",
            "Your function works for one batch size only: take the number of rows from the outputs.",
            lambda f: call(f, _OUTPUTS)[0].shape == (3, 1) and fails(f, np.concatenate([_OUTPUTS, _ROW])),
        ),
        Mistake(
            "batch_of_one",
            "Your function fails for a batch of one example: keep the batch axis even when it has size one.",
            lambda f: call(f, _OUTPUTS)[0].shape == (3, 1) and (fails(f, _ROW) or call(f, _ROW)[0].shape != (1, 1)),
        ),
        Mistake(
            "columns_swapped",
            "Your mean seems to come from the second column; the mean is the first column, and the scale "
            "comes from the second.",
            lambda f: same(call(f, _OUTPUTS)[0], _OUTPUTS[:, 1:2]),
        ),
        Mistake(
            "raw_scale",
            "Your scale seems to be the raw second output, which can be negative: pass it through the "
            "softplus of the spec to keep it positive.",
            lambda f: same(_scale(f, _OUTPUTS), _OUTPUTS[:, 1:2]),
        ),
        Mistake(
            "exp_not_softplus",
            "Your scale seems to use the exponential, which overflows for large outputs; the spec asks for "
            "the softplus.",
            lambda f: same(_scale(f, _OUTPUTS), np.exp(_OUTPUTS[:, 1:2]), rtol=1e-3),
        ),
        Mistake(
            "unstable_softplus",
            "Your scale overflows for large outputs: compute the softplus stably (TensorFlow has one).",
            lambda f: np.all(np.isfinite(_scale(f, _OUTPUTS))) and not np.all(np.isfinite(_scale(f, _LARGE))),
        ),
        Mistake(
            "no_floor",
            "Your scale can come arbitrarily close to zero for very negative outputs: add the small floor of the spec.",
            lambda f: _scale(f, _TINY)[0, 0] < 1e-7,
        ),
    ),
)

# A linear model y = w x with the squared error, whose input gradients have signs worked out by
# hand. The gradient with respect to y has the opposite signs for w = 2 and the same for w = -0.5.
_X = np.array([[0.0], [1.0], [-1.0]], "float32")
_TARGETS = np.array([[1.0], [1.0], [-3.0]], "float32")
_UP = np.array([[-1.0], [1.0], [1.0]], "float32")  # the sign of the input gradient for w = 2
_UP_NEGATIVE_W = np.array([[1.0], [1.0], [-1.0]], "float32")  # and for w = -0.5


def _linear_loss(w):
    return lambda x, y: tf.reduce_mean(tf.square(w * tf.cast(x, tf.float32) - y))


def _step(function, w=2.0, eps=0.1, x=_X):
    return call(function, _linear_loss(w), tf.constant(x), tf.constant(_TARGETS), eps)


FGSM = Function(
    "fgsm",
    (
        Mistake(
            "not_a_tensor",
            "Your FGSM returns a NumPy array; the spec asks for a tensor, which the training steps need.",
            lambda f: _returns_numpy(f, _linear_loss(2.0), tf.constant(_X), tf.constant(_TARGETS), 0.1),
        ),
        Mistake(
            "input_not_watched",
            "Your FGSM gets no gradient for an input that is not a variable: tell the tape to watch the input.",
            lambda f: "None" in _error(f, _linear_loss(2.0), tf.constant(_X), tf.constant(_TARGETS), 0.1),
        ),
        Mistake(
            "shape_lost",
            "Your adversarial inputs lose an axis of size one: return them in the shape of the inputs.",
            lambda f: _step(f).shape != _X.shape and _step(f).size == _X.size,
        ),
        Mistake(
            "eps_ignored",
            "Your step does not change with eps: use the eps you are given, not a value from the notebook.",
            lambda f: same(_step(f, eps=0.1), _step(f, eps=0.3)) and not same(_step(f), _X),
        ),
        Mistake(
            "gradient_of_targets",
            "Your step follows the gradient with respect to the targets; FGSM follows the gradient of the "
            "loss with respect to the input.",
            lambda f: same(_step(f, w=2.0), _X - 0.1 * _UP) and same(_step(f, w=-0.5), _X + 0.1 * _UP_NEGATIVE_W),
        ),
        Mistake(
            "sign_flipped",
            "Your step goes the wrong way: it lowers the loss, where an adversarial example moves the input "
            "to raise it.",
            lambda f: same(_step(f), _X - 0.1 * _UP),
        ),
        Mistake(
            "perturbation_only",
            "Your FGSM seems to return only the perturbation; the adversarial input is the input plus it.",
            lambda f: same(_step(f), 0.1 * _UP),
        ),
        Mistake(
            "gradient_without_sign",
            "Your step seems to use the gradient itself; FGSM takes only its sign, so every entry moves by "
            "the same size.",
            lambda f: not same(np.abs(_step(f) - _X), np.full(_X.shape, 0.1)) and same(np.sign(_step(f) - _X), _UP),
        ),
        Mistake(
            "sign_of_input",
            "Your step follows the sign of the input; FGSM follows the sign of the loss's gradient with respect "
            "to the input.",
            # inputs whose signs are not all their gradient's: for w = -0.5 the third entry's sign differs
            lambda f: (
                same(_step(f, w=-0.5, x=_X + 2), _X + 2 + 0.1) and same(_step(f, w=-0.5, x=_X - 2.5), _X - 2.5 - 0.1)
            ),
        ),
        # Last: an answer that computes the wrong step is told that first, whatever dtypes it accepts.
        Mistake(
            "rejects_float64",
            "Your FGSM fails for float64 inputs; the spec allows float32 or float64 inputs: cast them instead of "
            "requiring float32.",
            lambda f: (
                not fails(f, _linear_loss(2.0), tf.constant(_X), tf.constant(_TARGETS), 0.1)
                and fails(f, _linear_loss(2.0), tf.constant(_X, tf.float64), tf.constant(_TARGETS), 0.1)
            ),
        ),
    ),
)

_SUM_LOSS = lambda x, y: tf.reduce_sum(tf.square(2.0 * tf.cast(x, tf.float32) - y))  # noqa: E731
_MEAN_LOSS = _linear_loss(2.0)


def _adversarial(function, loss=_MEAN_LOSS, eps=0.1):
    return call(function, loss, tf.constant(_X), tf.constant(_TARGETS), eps)


def _loss_at(loss, x):
    return float(loss(tf.constant(x), tf.constant(_TARGETS)))


def _terms(loss=_MEAN_LOSS, eps=0.1):
    """The loss on the inputs, on their adversarial examples, and on examples stepped the wrong way."""
    return _loss_at(loss, _X), _loss_at(loss, _X + eps * _UP), _loss_at(loss, _X - eps * _UP)


def _frozen(function):
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        value = function(_linear_loss(w), tf.constant(_X), tf.constant(_TARGETS), 0.1)
    return tf.is_tensor(value) and tape.gradient(value, w) is None


ADVERSARIAL = Function(
    "adversarial_loss",
    (
        Mistake(
            "weights_frozen",
            "No gradient reaches the model's weights through your adversarial loss: it must stay "
            "differentiable, so keep the gradient flowing through both terms.",
            _frozen,
        ),
        Mistake(
            "eps_ignored",
            "Your adversarial loss does not change with eps: use the eps you are given, not a value from the notebook.",
            lambda f: (
                same(_adversarial(f, eps=0.1), _adversarial(f, eps=0.3)) and not same(_adversarial(f), _terms()[0])
            ),
        ),
        Mistake(
            "adversarial_term_only",
            "Your adversarial loss seems to keep only the loss on the adversarial examples; the spec averages "
            "it with the loss on the inputs themselves.",
            lambda f: same(_adversarial(f), _terms()[1]),
        ),
        Mistake(
            "clean_term_only",
            "Your adversarial loss seems to be the loss on the inputs alone; the spec averages it with the "
            "loss on their adversarial examples.",
            lambda f: same(_adversarial(f), _terms()[0]),
        ),
        Mistake(
            "sum_not_mean",
            "Your adversarial loss seems to add the two losses; the spec averages them (one half each).",
            lambda f: same(_adversarial(f), _terms()[0] + _terms()[1]),
        ),
        Mistake(
            "joined_batches",
            "Your adversarial loss is right for a loss that averages over the examples but not for one that "
            "sums them: call the loss once on the inputs and once on the adversarial examples.",
            lambda f: same(_adversarial(f, _SUM_LOSS), sum(_terms(_SUM_LOSS)[:2])),
        ),
        Mistake(
            "step_towards_lower_loss",
            "Your adversarial examples lower the loss: the step must go in the direction that raises it.",
            lambda f: same(_adversarial(f), (_terms()[0] + _terms()[2]) / 2),
        ),
    ),
)

# The CRPS's probes as float32 tensors, as its spec gives them; centres away from 0, so that a scale and a
# location swapped stay finite.
_CRPS_ARGS = (tf.constant(_Y), tf.constant(_CENTRE + 1.5), tf.constant(_SCALE))


def _not_per_example(function):
    return np.shape(call(function, *_CRPS_ARGS)) != np.shape(_Y)


def _crps_shift_changes(function):
    y, centre, scale = _CRPS_ARGS
    return not same(call(function, y + 2, centre + 2, scale), call(function, *_CRPS_ARGS))


CRPS = Function(
    "gaussian_crps",
    (
        Mistake(
            "not_a_tensor",
            "Your CRPS returns a NumPy value; keep to TensorFlow operations on the tensors and return their result.",
            lambda f: _returns_numpy(f, *_CRPS_ARGS),
        ),
        Mistake(
            "not_differentiable",
            NOT_DIFFERENTIABLE.format(what="CRPS"),
            lambda f: _no_gradient(f, _Y, _CENTRE + 1.5, _SCALE),
        ),
        Mistake(
            "not_per_example",
            "Your CRPS does not keep one value per example: the spec asks for the CRPS of each example, in the "
            "broadcast shape of the inputs, not their mean or sum.",
            _not_per_example,
        ),
        Mistake(
            "arguments_swapped",
            ORDER.format(what="CRPS", centre="location", arguments="y, loc, scale"),
            _crps_shift_changes,
        ),
        Mistake(
            "missing_constant",
            "Your CRPS seems to be the expected distance between the prediction and the observation alone: "
            "the CRPS subtracts half the expected distance between two independent draws, a term of its own in "
            "the scale.",
            # E|X - y| for y at the mean is the scale times sqrt(2 / pi)
            lambda f: same(_at(f, 0.0, 1.0), np.sqrt(2 / np.pi)) and same(_at(f, 0.0, 3.0), 3 * np.sqrt(2 / np.pi)),
        ),
        Mistake(
            "density_factor",
            "Your CRPS is negative for an observation at the mean; the CRPS is an expected distance and never "
            "negative: check the factor in front of the density term in your derivation.",
            lambda f: bool(np.all(np.asarray(_at(f, 0.0, 1.0)) < 0)),
        ),
        Mistake(
            "z_unscaled",
            "Your CRPS over the scale depends on the error itself, not on the error measured in scales: check "
            "that z divides the difference between the observation and the location by the scale.",
            lambda f: (
                same(np.asarray(_at(f, 1.0, 2.0)) / 2.0, _at(f, 1.0, 1.0))
                and same(np.asarray(_at(f, 3.0, 0.5)) / 0.5, _at(f, 3.0, 1.0))
            ),
        ),
        Mistake(
            "asymmetric",
            "Your CRPS gives an observation above the location another score than one the same distance below "
            "it; a Gaussian is symmetric, and so is its CRPS: check the factor that multiplies z.",
            lambda f: not same(_at(f, 2.0, 1.0), _at(f, -2.0, 1.0)),
        ),
    ),
)

# By grade id: here each is the function's own name.
TABLE = {
    "brier_score": BRIER,
    "gaussian_nll": GAUSSIAN,
    "laplace_nll": LAPLACE,
    "categorical_nll": CATEGORICAL,
    "split_mean_scale": SPLIT,
    "fgsm": FGSM,
    "adversarial_loss": ADVERSARIAL,
    "gaussian_crps": CRPS,
}
