"""check-tests' kernel side of the kit sweep: every callable ``bdl`` holds, as a candidate answer.

``bdl`` ships to students, so none of its callables may pass a graded function's tests in that
function's place. check-tests imports this module into the live kernel of a solution notebook: it
records the stand-ins the tests make (``start_recording``), lists the candidates that can take a
graded function's call (``choose``) and puts one under the function's name (``bind``), where the next
run of its tests finds it. Each run of the tests costs a few round trips to the kernel, so ``choose``
screens the candidates first (``looks_right``).
"""

import contextlib
import functools
import importlib
import inspect
import io
import pkgutil
import signal
import sys
import warnings

import numpy as np

import bdl
from bdl import wire

# Seconds a candidate may take on the screening call; one that takes longer is tried in full.
SCREEN_SECONDS = 10


class _Sweep:
    """What the sweep keeps in the kernel between check-tests' calls into it."""

    def __init__(self):
        self.recorded = {}  # a stand-in's key -> (label, the stand-in)
        self.first_handle = None  # while recording: the first handle the window holds
        self.first_calls = {}  # a graded name -> (args, kwargs, the result's form) of the tests' first call of it
        self.chosen = []  # the candidates of the last ``choose``
        self.diagnose = None  # bdl's diagnose while ``quiet_diagnoses`` holds it back


_sweep = _Sweep()


def _key(value):
    """What two stand-ins made alike share: their class and arguments, arrays by their bytes."""
    if isinstance(value, wire.StandIn):
        return (
            type(value).__module__,
            type(value).__qualname__,
            _key(list(value.given_args)),
            _key(dict(value.given_kwargs)),
        )
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_key(item) for item in value))
    if isinstance(value, dict):
        return tuple(sorted((str(name), _key(item)) for name, item in value.items()))
    if isinstance(value, (np.ndarray, np.generic)):
        return ("array", str(value.dtype), np.shape(value), np.asarray(value).tobytes())
    if hasattr(value, "numpy"):  # a tensor
        return _key(np.asarray(value.numpy()))
    return (type(value).__qualname__, repr(value))


def _shown(value):
    """An argument as a report shows it: a stand-in as made, a library function by its name."""
    if isinstance(value, wire.StandIn):
        return _label(value)
    name = wire.library_name(value)
    return name.replace(":", ".") if name else " ".join(repr(value).split())


def _label(value):
    """``module.Class(arguments)``, shortened: how a report names a recorded stand-in."""
    cls = type(value)
    if not isinstance(value, wire.StandIn):
        return f"a {cls.__module__}.{cls.__qualname__} the tests made"
    arguments = [_shown(item) for item in value.given_args]
    arguments += [f"{name}={_shown(item)}" for name, item in value.given_kwargs.items()]
    text = ", ".join(arguments)
    return f"{cls.__module__}.{cls.__qualname__}({text[:120] + '...' if len(text) > 120 else text})"


def _record(value):
    cls = type(value)
    key = _key(value) if isinstance(value, wire.StandIn) else ("made", cls.__module__, cls.__qualname__)
    if key not in _sweep.recorded:
        _sweep.recorded[key] = (_label(value), value)


def start_recording():
    """From now on, keep each stand-in the kernel is sent (a prior, a loss, a table of values), with the
    arguments the tests gave, and each ``bdl`` object it hands back."""
    if _sweep.first_handle is not None:
        return
    _sweep.first_handle = len(wire.handles.objects)
    wire.on_standin = _record


def stop_recording():
    """Stop recording; keep, too, the ``bdl`` objects the tests had made here meanwhile (``made``)."""
    if _sweep.first_handle is None:
        return
    first, _sweep.first_handle, wire.on_standin = _sweep.first_handle, None, None
    for number, value in list(wire.handles.objects.items()):
        if number >= first and type(value).__module__.startswith("bdl."):
            _record(value)


def _modules():
    names = [info.name for info in pkgutil.walk_packages(bdl.__path__, "bdl.") if not info.name.endswith(".__main__")]
    return [bdl] + [importlib.import_module(name) for name in sorted(names)]


def callables():
    """[(label, callable)]: every function and class a ``bdl`` module defines (dunder names aside;
    private ones too: a student can import them), then every stand-in recorded."""
    found, seen = [], set()
    for module in _modules():
        for name, value in sorted(vars(module).items()):
            if (
                name.startswith("__")
                or not callable(value)
                or id(value) in seen
                or getattr(value, "__module__", None) != module.__name__
            ):
                continue
            seen.add(id(value))
            found.append((f"{module.__name__}.{name}", value))
    return found + list(_sweep.recorded.values())


def watch(namespace, name):
    """Note the first call the tests make of the function ``namespace[name]``, or of the class's
    constructor (the class itself stays, its ``__init__`` is wrapped: tests look at its instances'
    classes)."""
    reference = namespace.get(name)
    _sweep.first_calls.pop(name, None)
    if inspect.isclass(reference):
        own, init = reference.__dict__.get("__init__"), reference.__init__

        @functools.wraps(init)
        def watched_init(self, *args, **kwargs):
            init(self, *args, **kwargs)
            if type(self) is reference and _eager():
                _sweep.first_calls.setdefault(name, (args, kwargs, form(self)))

        watched_init.watched = (reference, own)
        reference.__init__ = watched_init
    elif inspect.isfunction(reference):

        def watched(*args, **kwargs):
            result = reference(*args, **kwargs)
            if _eager():  # a call inside a tf.function holds symbols, not values
                _sweep.first_calls.setdefault(name, (args, kwargs, form(result)))
            return result

        # Its name and signature, not ``__wrapped__``: AutoGraph would compile the reference's source
        # in this function's closure.
        watched.__name__, watched.__qualname__, watched.__doc__ = name, reference.__qualname__, reference.__doc__
        watched.__signature__ = inspect.signature(reference)
        watched.watched = (reference, None)
        namespace[name] = watched


def _eager():
    tf = sys.modules.get("tensorflow")
    return tf is None or tf.executing_eagerly()


def unwatch(namespace, name):
    """Put back what ``watch`` wrapped."""
    value = namespace.get(name)
    if inspect.isclass(value) and hasattr(value.__dict__.get("__init__"), "watched"):
        own = value.__init__.watched[1]
        if own is None:
            del value.__init__
        else:
            value.__init__ = own
    elif hasattr(value, "watched"):
        namespace[name] = value.watched[0]


def _required(reference):
    """The parameters a call of ``reference`` must give."""
    return [
        parameter
        for parameter in inspect.signature(reference).parameters.values()
        if parameter.default is parameter.empty
        and parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
    ]


def binds(candidate, required):
    """Whether ``candidate`` can be called with the ``required`` parameters, by position or by name."""
    try:
        signature = inspect.signature(candidate)
    except (TypeError, ValueError):  # it does not say: try it
        return True
    for call in (lambda: signature.bind(*required), lambda: signature.bind(**{p.name: p for p in required})):
        try:
            call()
            return True
        except TypeError:
            pass
    return False


def _fresh(value):
    """A stand-in made anew from its arguments, as the kernel makes one it is sent; arrays copied;
    anything else as it is."""
    if isinstance(value, wire.StandIn):
        try:
            return type(value)(*value.given_args, **value.given_kwargs)
        except Exception:
            return value
    if isinstance(value, np.ndarray):
        return value.copy()
    if type(value) in (list, tuple):
        return type(value)(_fresh(item) for item in value)
    if type(value) is dict:
        return {key: _fresh(item) for key, item in value.items()}
    return value


class _TooLong(Exception):
    pass


def _too_long(signum, frame):
    raise _TooLong()


def form(value):
    """What a test first sees of a result: ("data", its number of entries) for numbers, arrays and
    tensors (and sequences of plain numbers), ("parts", their forms) for other tuples and lists,
    ("none",), ("truth",) for a boolean, ("text",), or ("object", what kind: a Keras layer or model, a
    distribution, another callable, or other)."""
    if value is None:
        return ("none",)
    if isinstance(value, (bool, np.bool_)):  # a yes or no, not a number: no graded function returns one
        return ("truth",)
    if isinstance(value, str):
        return ("text",)
    if type(value) in (tuple, list) and not all(isinstance(item, (int, float, np.generic)) for item in value):
        return ("parts", tuple(form(item) for item in value))
    tf = sys.modules.get("tensorflow")
    if isinstance(value, (int, float, complex, np.generic, np.ndarray, tuple, list)) or (
        tf is not None and tf.is_tensor(value)
    ):
        try:
            return ("data", int(np.prod(value.shape)) if hasattr(value, "shape") else int(np.size(value)))
        except (TypeError, ValueError):
            return ("data", None)
    tfp = sys.modules.get("tensorflow_probability")
    if tf is not None and isinstance(value, tf.keras.layers.Layer):
        return ("object", "a layer or model")
    if tfp is not None and isinstance(value, tfp.distributions.Distribution):
        return ("object", "a distribution")
    return ("object", "callable" if callable(value) else "other")


def looks_right(candidate, call):
    """Whether ``candidate`` returns from ``call`` (args, kwargs, form), quietly, a result of the form the
    reference's had; one that takes longer than ``SCREEN_SECONDS`` counts as such (its tests will tell).

    ``call`` is the first call the tests made of the reference (``watch``), with the form of what it
    returned (``form``). A candidate that raises on that same call fails the tests there (check-tests
    does not screen the function of a test cell that catches errors), and one whose result has another
    form gives the test something else to look at than the reference did: only the others are worth a
    run of the tests."""
    args, kwargs = _fresh(call[0]), _fresh(call[1])
    previous = signal.signal(signal.SIGALRM, _too_long)
    signal.setitimer(signal.ITIMER_REAL, SCREEN_SECONDS)
    try:
        with (
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            return form(candidate(*args, **kwargs)) == call[2]
    except _TooLong:
        return True
    except KeyboardInterrupt:
        raise
    except BaseException:  # an error, or a command line's exit
        return False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def choose(namespace, name, screen=True):
    """The candidates for the graded ``namespace[name]``: those that can take its call and, with
    ``screen`` and a first call noted (``watch``), return from that call a result of the form the
    reference's had. Returns their labels."""
    unwatch(namespace, name)
    reference = namespace[name]
    required = _required(reference)
    chosen = [(label, value) for label, value in callables() if value is not reference and binds(value, required)]
    call = _sweep.first_calls.get(name)
    if screen and call is not None:
        chosen = [(label, value) for label, value in chosen if looks_right(_fresh(value), call)]
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
    _sweep.chosen = chosen
    return [label for label, _ in chosen]


def bind(namespace, name, index):
    """Put the candidate ``index`` of the last ``choose`` (a stand-in made anew) under ``name``."""
    namespace[name] = _fresh(_sweep.chosen[index][1])


def quiet_diagnoses(quiet=True):
    """Hold back ``bdl``'s diagnoses of a failure (or, with ``quiet=False``, let them run again): a
    candidate that fails needs no hint, and its probes cost time."""
    import bdl.diagnoses as diagnoses

    if quiet and _sweep.diagnose is None:
        _sweep.diagnose, diagnoses.diagnose = diagnoses.diagnose, lambda grade_id, answer: None
    elif not quiet and _sweep.diagnose is not None:
        diagnoses.diagnose, _sweep.diagnose = _sweep.diagnose, None
