"""The tiny assignment: what the grading machinery's own tests grade, in NumPy alone.

The red team, the class of bad submissions, the canary, Dask, the exchange and the gradebook's
tests grade hundreds of hand-ins between them. Their cases need graded functions, hidden tests,
a hand-graded cell and a kernel, never TensorFlow: ``00_tiny`` is 01's eight graded functions
under their names and points, written for NumPy (``fgsm`` takes its input gradient by central
differences, as no library differentiates here), with one hand-graded cell. Neither its kernel
nor the examiner imports TensorFlow, so a hand-in costs about a second of CPU, not eight.

It is made the way an assignment is made: ``source_notebook`` is the instructor's, and the
release is what nbgrader's ``generate_assignment`` makes of it (``release_notebook``, once per
process). It lives here, with the tests, never in ``source/``, ``release/`` or the student kit.
``write_course`` writes both into a temporary course root, where ``grade`` makes release/ anew.
"""

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.course import cells
from autograder.course.directory import generate_release
from tests.support.small_course import automatic_points, manual_points  # noqa: F401 (the tests' names, here too)

ASSIGNMENT = "00_tiny"
NOTEBOOK = "tiny"
# An attack's or a bad submission's code is written for 01 (``small_course``); here its TensorFlow is
# spelled in NumPy, as this notebook has none (the longer spellings first).
SPELLING = {
    "import numpy as np, tensorflow as tf, tensorflow_probability as tfp\ntfd = tfp.distributions\n": "import numpy as np\n",
    "import numpy as np, tensorflow as tf, tensorflow_probability as tfp": "import numpy as np",
    "import numpy as np, tensorflow as tf": "import numpy as np",
    '{"tf": tf, "tfd": tfp.distributions, "np": np, ': '{"np": np, ',
    '{"tf": tf, "np": np}': '{"np": np}',
    "tf.constant(": "np.float32(",
    "tf.reduce_mean(": "np.mean(",
    "tf.reduce_sum(": "np.sum(",
    "tf.square(": "np.square(",
    "tf.math.log(": "np.log(",
    "tf.ones(": "np.ones(",
    "tf.float32": "np.float32",
}


def spelled(code):
    """``code``, written for 01, with its TensorFlow spelled in NumPy."""
    for tensorflow, numpy in SPELLING.items():
        code = code.replace(tensorflow, numpy)
    return code


def _solution(signature, docstring, body):
    return f'{signature}\n    """{docstring}"""\n    ### BEGIN SOLUTION\n{body}\n    ### END SOLUTION\n'


def _tests(visible, hidden):
    """A test cell: ``visible``, then ``hidden`` (None: adversarial_loss's, inside the visible part's ``try``)."""
    if hidden is None:
        return (
            "from bdl.checks import assert_close, assert_equal\n\n"
            + visible
            + "    ### BEGIN HIDDEN TESTS\n"
            + "".join(f"    {line}\n" if line else "\n" for line in ADVERSARIAL_HIDDEN.split("\n"))
            + "    ### END HIDDEN TESTS\nfinally:\n    bind_back(_students_fgsm)\n"
        )
    return (
        "from bdl.checks import assert_close, assert_equal\n\n"
        + visible
        + "\n### BEGIN HIDDEN TESTS\n"
        + hidden
        + "\n### END HIDDEN TESTS\n"
    )


ADVERSARIAL_HIDDEN = (
    "def _reference_fgsm(x, y, eps):\n"
    "    return x + eps * np.sign(x - y)\n\n"
    "_rng = np.random.default_rng(26)\n"
    "_x = _rng.normal(size=5)\n"
    "_y = _x + _rng.choice([-1, 1], 5) * _rng.uniform(0.2, 1, 5)\n"
    "for _eps in [0.1, 0.3]:\n"
    "    _adversarial = _reference_fgsm(_x, _y, _eps)\n"
    '    bind({"fgsm": Returns(_adversarial, tensor=False)})\n'
    "    _expected = 0.5 * (sqeuclidean(_x, _y) + sqeuclidean(_adversarial, _y))\n"
    "    assert_close(adversarial_loss(Partial(sqeuclidean), _x, _y, _eps), _expected,\n"
    '                 f"the adversarial loss of the squared distance with eps = {_eps}", rtol=1e-5)'
)


def _graded(cell, grade_id, points=None, solution=False):
    meta = {
        "grade": points is not None,
        "grade_id": grade_id,
        "locked": not solution,
        "schema_version": 3,
        "solution": solution,
    }
    if points is not None:
        meta["points"] = points
    cell.metadata["nbgrader"] = meta
    return cell


FUNCTIONS = [  # (grade id, solution, visible tests, hidden tests, points)
    (
        "brier_score",
        _solution(
            "def brier_score(probs, labels):",
            "Return the mean over the examples of sum_k (probs_k - onehot(labels)_k)^2.",
            "    probs = np.asarray(probs, dtype=float)\n"
            "    labels = np.asarray(labels)\n"
            "    if labels.ndim == probs.ndim - 1:\n"
            "        labels = np.eye(probs.shape[-1])[labels]\n"
            "    return float(np.mean(np.sum((probs - labels) ** 2, axis=-1)))",
        ),
        "_probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])\n"
        "# First example: 0.3^2 + 0.2^2 + 0.1^2 = 0.14; second: 0.1^2 + 0.9^2 + 0.8^2 = 1.46.\n"
        'assert_close(brier_score(_probs, np.array([0, 1])), 0.8, "the Brier score of two examples", rtol=1e-5)\n',
        "_rng = np.random.default_rng(11)\n"
        "for _n, _k in [(1, 2), (7, 3), (50, 10)]:\n"
        "    _p = _rng.dirichlet(np.ones(_k), size=_n)\n"
        "    _y = _rng.integers(0, _k, _n)\n"
        "    _expected = np.mean(np.sum((_p - np.eye(_k)[_y]) ** 2, axis=1))\n"
        '    assert_equal(np.shape(brier_score(_p, _y)), (), f"the shape of the Brier score of {_n} examples")\n'
        '    assert_close(brier_score(_p, _y), _expected, f"the Brier score of {_n} examples, integer labels",\n'
        "                 rtol=1e-4)\n"
        '    assert_close(brier_score(_p, np.eye(_k)[_y]), _expected, f"the Brier score of {_n} examples, one-hot",\n'
        "                 rtol=1e-4)\n"
        'assert_close(brier_score(np.eye(3), (np.arange(3) + 1) % 3), 2.0, "the Brier score of confident mistakes")',
        2,
    ),
    (
        "gaussian_nll",
        _solution(
            "def gaussian_nll(y, mean, scale):",
            "Return the mean over all entries of -log N(y | mean, scale^2).",
            "    return np.mean(0.5 * np.log(2 * np.pi) + np.log(scale) + (y - mean) ** 2 / (2 * scale ** 2))",
        ),
        "_y, _mean, _scale = np.array([[0.0], [1.0], [3.0]]), np.array([[0.0], [0.0], [1.0]]), np.array([[1.0], [1.0], [2.0]])\n"
        "# The mean of scipy.stats.norm.logpdf's three values, negated.\n"
        'assert_close(gaussian_nll(_y, _mean, _scale), 1.4833209, "the Gaussian NLL of three observations", rtol=1e-5)\n',
        "_rng = np.random.default_rng(21)\n"
        "for _shape in [(1,), (5,), (3, 4), (2, 3, 2)]:\n"
        "    _y, _mean = _rng.normal(scale=5, size=_shape), _rng.normal(scale=5, size=_shape)\n"
        "    _scale = np.exp(_rng.uniform(-3, 3, size=_shape))\n"
        "    _expected = np.mean(0.5 * np.log(2 * np.pi * _scale ** 2) + (_y - _mean) ** 2 / (2 * _scale ** 2))\n"
        '    assert_close(gaussian_nll(_y, _mean, _scale), _expected, f"the Gaussian NLL for inputs of shape {_shape}",\n'
        "                 rtol=1e-4, atol=1e-4)",
        2,
    ),
    (
        "laplace_nll",
        _solution(
            "def laplace_nll(y, loc, scale):",
            "Return the mean over all entries of -log Laplace(y | loc, scale).",
            "    return np.mean(np.log(2 * scale) + np.abs(y - loc) / scale)",
        ),
        "_y, _loc, _scale = np.array([0.0, 1.0, -3.0]), np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.5, 2.0])\n"
        'assert_close(laplace_nll(_y, _loc, _scale), 2.0264805, "the Laplace NLL of three observations", rtol=1e-5)\n',
        "_rng = np.random.default_rng(22)\n"
        "for _shape in [(1,), (5,), (3, 4)]:\n"
        "    _y, _loc = _rng.normal(scale=5, size=_shape), _rng.normal(scale=5, size=_shape)\n"
        "    _scale = np.exp(_rng.uniform(-3, 3, size=_shape))\n"
        "    _expected = np.mean(np.log(2 * _scale) + np.abs(_y - _loc) / _scale)\n"
        '    assert_close(laplace_nll(_y, _loc, _scale), _expected, f"the Laplace NLL for inputs of shape {_shape}",\n'
        "                 rtol=1e-4, atol=1e-4)",
        2,
    ),
    (
        "categorical_nll",
        _solution(
            "def categorical_nll(labels_onehot, logits):",
            "Return the mean over the examples of -sum_k y_k log softmax(logits)_k.",
            "    logits = np.asarray(logits, dtype=float)\n"
            "    top = logits.max(axis=-1, keepdims=True)\n"
            "    log_probs = logits - top - np.log(np.sum(np.exp(logits - top), axis=-1, keepdims=True))\n"
            "    return -np.mean(np.sum(labels_onehot * log_probs, axis=-1))",
        ),
        "_labels = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])\n"
        "_logits = np.log(np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]]))\n"
        'assert_close(categorical_nll(_labels, _logits), np.mean(-np.log([0.7, 0.8])), "the categorical NLL of two "\n'
        '             "examples", rtol=1e-5)\n',
        "_rng = np.random.default_rng(23)\n"
        "for _scale in [1.0, 4.0, 1e3]:\n"
        "    _logits = _rng.normal(scale=_scale, size=(20, 5))\n"
        "    _classes = _rng.integers(0, 5, size=20)\n"
        "    _shifted = _logits - _logits.max(axis=1, keepdims=True)\n"
        "    _expected = -np.mean(_shifted[np.arange(20), _classes] - np.log(np.exp(_shifted).sum(axis=1)))\n"
        "    assert_close(categorical_nll(np.eye(5)[_classes], _logits), _expected,\n"
        '                 f"the categorical NLL for logits of size {_scale:g} (is it computed stably?)", rtol=1e-4, atol=1e-4)',
        2,
    ),
    (
        "split_mean_scale",
        _solution(
            "def split_mean_scale(outputs):",
            "Return (mean, scale), each (N, 1): column 0, and softplus(column 1) + 1e-6.",
            "    outputs = np.asarray(outputs, dtype=float)\n"
            "    return outputs[:, 0:1], np.logaddexp(0.0, outputs[:, 1:2]) + 1e-6",
        ),
        "_mean, _scale = split_mean_scale(np.array([[1.0, 0.0], [-2.0, 3.0], [0.5, -3.0]]))\n"
        'assert_equal(np.shape(_mean), (3, 1), "the shape of the mean for 3 inputs")\n'
        'assert_close(_mean, [[1.0], [-2.0], [0.5]], "the mean")\n',
        'assert_close(_scale, np.log1p(np.exp([[0.0], [3.0], [-3.0]])) + 1e-6, "the scale", rtol=1e-5)\n'
        "_mean, _scale = split_mean_scale(np.array([[0.0, -1000.0], [0.0, 1000.0]]))\n"
        'assert np.all(np.asarray(_scale) > 0), "the scale must be positive even for rho = -1000"\n'
        'assert_close(_scale, [[1e-6], [1000.0]], "the scale for rho = -1000 and 1000", rtol=1e-5)',
        1,
    ),
    (
        "gaussian_crps",
        _solution(
            "def gaussian_crps(y, loc, scale):",
            "Return the CRPS of N(loc, scale^2) at each y: one value per example.",
            "    from math import erf\n\n"
            "    z = (y - loc) / scale\n"
            "    cdf = 0.5 * (1 + np.vectorize(erf)(z / np.sqrt(2)))\n"
            "    pdf = np.exp(-0.5 * z ** 2) / np.sqrt(2 * np.pi)\n"
            "    return scale * (z * (2 * cdf - 1) + 2 * pdf - 1 / np.sqrt(np.pi))",
        ),
        "_y, _loc, _scale = np.array([0.0, 1.0, -3.0]), np.array([0.0, 0.0, 1.0]), np.array([1.0, 2.0, 0.5])\n"
        'assert_close(gaussian_crps(_y, _loc, _scale), [0.23369498, 0.66280706, 3.71790521], "the CRPS of three examples",\n'
        "             rtol=1e-4)\n",
        "_draws = np.random.default_rng(28).standard_normal((2, 100_000))\n"
        "for _y, _loc, _scale in [(2.5, 1.0, 0.5), (-1.0, 3.0, 2.0)]:\n"
        "    _x, _x2 = _loc + _scale * _draws\n"
        "    _sampled = np.mean(np.abs(_x - _y)) - 0.5 * np.mean(np.abs(_x - _x2))\n"
        "    assert_close(gaussian_crps(np.array([_y]), np.array([_loc]), np.array([_scale])) / _scale, [_sampled / _scale],\n"
        '                 "the CRPS against its expectation form from samples", rtol=0.0, atol=0.03)',
        2,
    ),
    (
        "fgsm",
        _solution(
            "def fgsm(loss_fn, x, y, eps):",
            "Return x + eps * sign(g), g the gradient of loss_fn(x, y) in x by central differences of step 1e-3.",
            "    x = np.asarray(x, dtype=float)\n"
            "    gradient = np.zeros_like(x)\n"
            "    for i in range(x.size):\n"
            "        step = np.zeros_like(x)\n"
            "        step.flat[i] = 1e-3\n"
            "        gradient.flat[i] = (loss_fn(x + step, y) - loss_fn(x - step, y)) / 2e-3\n"
            "    return x + eps * np.sign(gradient)",
        ),
        "from bdl.questions import Partial\n"
        "from scipy.spatial.distance import sqeuclidean\n\n"
        "# The squared distance: its gradient in x is 2 (x - y), so the step moves x away from y.\n"
        "_x, _y = np.array([0.0, 1.0, -1.0]), np.array([1.0, 0.5, -3.0])\n"
        'assert_close(fgsm(Partial(sqeuclidean), _x, _y, 0.1), [-0.1, 1.1, -0.9], "the adversarial inputs",\n'
        "             rtol=1e-5, start=_x)\n",
        "from scipy.spatial.distance import cityblock, minkowski\n\n"
        "_rng = np.random.default_rng(25)\n"
        'for _loss, _name in [(Partial(cityblock), "the L1 distance"), (Partial(minkowski, p=3), "the L3 distance"),\n'
        '                     (Partial(sqeuclidean, w=_rng.uniform(0.5, 2, 6)), "a weighted squared distance")]:\n'
        "    _x = _rng.normal(size=6)\n"
        "    _y = _x + _rng.choice([-1, 1], 6) * _rng.uniform(0.2, 1, 6)  # no entry where the gradient is 0\n"
        "    _expected = _x + 0.05 * np.sign(_x - _y)\n"
        '    assert_close(fgsm(_loss, _x, _y, 0.05), _expected, f"the adversarial inputs of {_name}", rtol=1e-5,\n'
        "                 start=_x)\n"
        'assert_close(fgsm(Partial(cityblock), _x, _y, 0.0), _x, "the adversarial inputs for eps = 0")',
        2,
    ),
    (
        "adversarial_loss",
        _solution(
            "def adversarial_loss(loss_fn, x, y, eps):",
            "Return (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y)) / 2.",
            "    return 0.5 * (loss_fn(x, y) + loss_fn(fgsm(loss_fn, x, y, eps), y))",
        ),
        "from bdl.questions import Partial, Returns, bind, bind_back\n"
        "from scipy.spatial.distance import sqeuclidean\n\n"
        "# For this cell, fgsm's place is taken by the right adversarial inputs (a stand-in that returns them),\n"
        "# so that a wrong or missing fgsm costs only fgsm's points; yours is bound back at the end.\n"
        "_x, _y = np.array([0.0, 1.0, -1.0]), np.array([1.0, 0.5, -3.0])\n"
        '_students_fgsm = bind({"fgsm": Returns(np.array([-0.1, 1.1, -0.9]), tensor=False)})\n'
        "try:\n"
        "    # 5.25 at the inputs, 5.98 at the adversarial ones.\n"
        '    assert_close(adversarial_loss(Partial(sqeuclidean), _x, _y, 0.1), 5.615, "the adversarial loss", rtol=1e-5)\n',
        None,
        2,
    ),
]

# What each task says, beside its docstring: every hidden check of its tests follows from a sentence here.
TASKS = {
    "brier_score": "Labels come as integers or one-hot rows; the result is one number, the mean over the examples.",
    "gaussian_nll": "The inputs are arrays of any one shape; the result is the mean over all their entries.",
    "laplace_nll": "The inputs are arrays of any one shape; the result is the mean over all their entries.",
    "categorical_nll": "Compute it stably: logits as large as 1000 in size must give the right value.",
    "split_mean_scale": "The scale must be positive and finite for any column-1 value, 1000 in size included.",
    "gaussian_crps": "One CRPS per example; the tests compare it with E|X - y| - E|X - X'| / 2 from samples.",
    "fgsm": "`loss_fn(x, y)` is any smooth loss of two 1-D arrays; with `eps = 0` the inputs stay as they are.",
    "adversarial_loss": "Call your `fgsm` for the adversarial inputs.",
}

DISCUSSION = (
    "**Discussion.** Why is the negative log-likelihood a proper scoring rule, and the squared "
    "error of a point forecast not a score of a distribution at all?"
)
MODEL_ANSWER = (
    "The expected log score of a forecast q under the truth p is maximised by q = p alone (Gibbs' "
    "inequality: the gap is KL(p || q) >= 0), so the NLL rewards honesty. The squared error of "
    "a point forecast reads only its mean: two forecasts with one mean and any spreads score alike.\n\n"
    "### BEGIN RUBRIC\n"
    "- 1 point: the log score's expectation is largest at the true distribution (the KL gap).\n"
    "- 1 point: the squared error judges a mean only, never a spread.\n\n"
    "Common wrong answers:\n"
    '- "The NLL is smaller": a size says nothing about propriety.\n'
    "### END RUBRIC\n"
)


def source_notebook():
    """The tiny assignment's solution notebook, the instructor's: markers, hidden tests and all."""
    nb = new_notebook(
        metadata={
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        }
    )
    nb.cells = [
        new_markdown_cell("# A tiny assignment\n\nScoring rules and likelihoods in NumPy."),
        new_code_cell(
            "import bdl  # the course's helpers; this notebook needs no TensorFlow\n\n"
            "import numpy as np\n\n"
            'SEED = 0\nnp.random.seed(SEED)\nprint("run mode:", bdl.run_mode())'
        ),
        new_code_cell("num_samples = bdl.choose(full=1000, fast=100, grading=10)", metadata={"tags": ["parameters"]}),
    ]
    for grade_id, solution, visible, hidden, points in FUNCTIONS:
        nb.cells.append(new_markdown_cell(f"Write `{grade_id}`. {TASKS[grade_id]}"))
        nb.cells.append(_graded(new_code_cell(solution), grade_id, solution=True))
        nb.cells.append(_graded(new_code_cell(_tests(visible, hidden)), f"{grade_id}_tests", points=points))
    nb.cells.append(new_markdown_cell(DISCUSSION))
    nb.cells.append(_graded(new_markdown_cell(MODEL_ANSWER), "discussion_scores", points=2, solution=True))
    nb.cells.append(new_code_cell('print("the last cell ran; samples:", num_samples)'))
    for index, cell in enumerate(nb.cells):
        cell.id = f"tiny-{index}"
    return nb


@functools.cache
def _files():
    """(source, release) paths: the source written and nbgrader's release of it, once per process."""
    root = Path(tempfile.mkdtemp(prefix="tiny-course-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    source = root / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    source.parent.mkdir(parents=True)
    nbformat.write(source_notebook(), source)
    generate_release(root, only=[ASSIGNMENT])
    return source, root / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"


def source_path():
    return _files()[0]


def release_path():
    return _files()[1]


def reference():
    """The reference solution as a student who answered everything right hands it in
    (``cells.answered``: without the source's markers and hidden tests)."""
    return cells.answered(source_notebook())


def blank():
    """The release: the blank submission."""
    return nbformat.read(release_path(), 4)


FULL = automatic_points(source_notebook())  # a submission with every answer right
MAX_SCORE = FULL + manual_points(source_notebook())


def write_course(root):
    """Write the tiny assignment as ``root``'s source and release; return (source, release) paths."""
    paths = []
    for folder, made in (("source", source_path()), ("release", release_path())):
        path = Path(root) / folder / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(made, path)
        paths.append(path)
    return tuple(paths)
