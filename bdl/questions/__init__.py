"""The questions a test cell may put to the student's code, and the stand-ins it may hand it.

On a student's machine each question is a plain function on the notebook's objects; in the
examiner, where those objects are ``bdl.wire.Remote``s, it is put to the kernel, which runs the
same function and answers with data. So a test cell reads the same in both places. Everything here
is public: a question says what is asked, never what the answer should be.
"""

import functools

import numpy as np

from bdl import loaded_tensorflow, wire
from bdl.wire import StandIn, ask  # noqa: F401 (the tests' names, here with the questions)

# What a stand-in says when the student's code asks it what the test did not: the tests' own words,
# which the examiner repeats when the student's function raises one (``examiner/catalogue.py``).
STAND_IN_ERRORS = {
    "entropy_length": "the tests' entropy (a stand-in) was called with vectors of another length than the "
    "members' probability vectors",
    "entropy_vectors": "the tests' entropy (a stand-in) knows the members' probability vectors and their mean "
    "over the members, and was called with other vectors",
    "bins_inputs": "the tests' reliability_bins (a stand-in) was called with other probabilities or labels than "
    "the ones your function was given",
    "bins_count": "the tests' reliability_bins (a stand-in) was called with another num_bins than your function "
    "was given",
    "fgsm_input": "the tests' fgsm (a stand-in) was called with another input than the one your function was given",
    "dropout_inputs": "the tests' dropout model (a stand-in) was called with inputs other than the rows of the x "
    "your function was given",
}


def question(function):
    """Register ``function`` as a question: run where it is called, but in the examiner, where it is
    put to the kernel."""
    name = f"{function.__module__}:{function.__name__}"
    wire.QUESTIONS[name] = function

    @functools.wraps(function)
    def put(*args, **kwargs):
        if wire.ask_kernel.get() is not None:  # in the examiner: every question is about the kernel's state
            return ask(name, *args, **kwargs)
        return function(*args, **kwargs)

    return put


# The questions ``Remote`` itself puts: a call, an attribute, an item.
@question
def call(target, *args, **kwargs):
    return target(*args, **kwargs)


@question
def attribute(target, name):
    return getattr(target, name)


@question
def item(target, key):
    return target[key]


@question
def set_attribute(target, name, value):
    setattr(target, name, value)


@question
def has_attribute(target, name):
    """Whether ``target`` has attribute ``name``."""
    return hasattr(target, name)


@question
def class_names(target):
    """The names of ``target``'s classes, most derived first (``module.qualname``)."""
    return [f"{cls.__module__}.{cls.__qualname__}" for cls in type(target).__mro__]


@question
def call_and_arguments(function, args):
    """``function(*args)``, and the arguments as the call left them: ``(value, [arg, ...])``, so that
    a change the function makes to an argument it was given shows."""
    args = list(args)
    return function(*args), args


@question
def gradient(function, args, wrt, kwargs=None):
    """``function(*args)`` and its gradients with respect to the arguments at positions ``wrt``,
    each taken as a ``tf.Variable``: ``(value, [gradient or None, ...])``. A tuple value gives
    a gradient list per part, ``[[...], [...]]``, each for that part alone."""
    import tensorflow as tf

    args = list(args)
    for position in wrt:
        args[position] = tf.Variable(args[position])
    with tf.GradientTape(persistent=True) as tape:
        value = function(*args, **(kwargs or {}))
    sources = [args[position] for position in wrt]
    if type(value) in (tuple, list):
        return value, [tape.gradient(part, sources) for part in value]
    return value, tape.gradient(value, sources)


@question
def compiled(function, args, times=1, kwargs=None):
    """The outputs of ``times`` calls of ``function(*args)`` inside one ``tf.function``."""
    import tensorflow as tf

    traced = tf.function(lambda *inputs: [function(*inputs, **(kwargs or {})) for _ in range(times)])
    return traced(*args)


@question
def variables_gradients(function, owner, args=()):
    """Whether ``function(*args)`` has a gradient with respect to each of ``owner``'s trainable
    variables (a model, say): a list of booleans."""
    import tensorflow as tf

    with tf.GradientTape() as tape:
        value = function(*args)
    return [gradient is not None for gradient in tape.gradient(value, owner.trainable_variables)]


@question
def numbers(value):
    """``value`` as a NumPy array (a tensor, a distribution's sample, a list of numbers)."""
    tf = loaded_tensorflow()
    return np.asarray(value if tf is None else tf.convert_to_tensor(value))


# ---------------------------------------------------------------------------------------------
# Stand-ins: what a test hands the student's code (a loss, a layer, another graded function's
# place-taker). The examiner sends a stand-in by its class and arguments; the kernel makes its own.


class Returns(StandIn):
    """A function that returns ``value`` whatever it is given: stands in for another graded
    function, so that a mistake there costs nothing here. An array comes back as a tensor, or as
    it is with ``tensor=False`` (a notebook without TensorFlow)."""

    def __init__(self, value, tensor=True):
        super().__init__(value, **({} if tensor else {"tensor": False}))  # as the tests wrote it
        self.value, self.tensor = value, tensor

    def __call__(self, *args, **kwargs):
        if self.tensor and isinstance(self.value, np.ndarray):
            import tensorflow as tf

            return tf.constant(self.value)
        return self.value


class Partial(StandIn):
    """``function(*args, **kwargs, **keywords)``: a library function with some arguments fixed."""

    def __init__(self, function, **keywords):
        super().__init__(function, **keywords)
        self.function, self.keywords = function, keywords

    def __call__(self, *args, **kwargs):
        return self.function(*args, **{**self.keywords, **kwargs})


@question
def gradient_by_variables(function, args, owner):
    """``function(*args)`` and its gradients with respect to ``owner.variables`` (a stand-in's)."""
    import tensorflow as tf

    with tf.GradientTape() as tape:
        value = function(*args)
    return value, tape.gradient(value, owner.variables)


@question
def replaced(function, args, names, kwargs=None):
    """``function(*args)`` with the notebook's ``names`` (a dict) bound to the given stand-ins for
    the call, and put back after it."""
    before = bind(names)  # here, in the kernel (or on a student's machine): plain calls
    try:
        return function(*args, **(kwargs or {}))
    finally:
        bind_back(before)


@question
def bind(names):
    """Bind the notebook's ``names`` (a dict) to the given values for the rest of a test cell;
    return ``{name: (bound, value)}`` of what they were, for ``bind_back``."""
    from IPython import get_ipython

    namespace = get_ipython().user_ns
    before = {name: (name in namespace, namespace.get(name)) for name in names}
    namespace.update(names)
    return before


@question
def bind_back(before):
    """Undo ``bind``: each name bound as it was (or unbound)."""
    from IPython import get_ipython

    namespace = get_ipython().user_ns
    for name, (bound, value) in before.items():
        if bound:
            namespace[name] = value
        else:
            namespace.pop(name, None)
