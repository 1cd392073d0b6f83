"""How the grader's questions reach the student's kernel, and its answers come back: as data only.

A test cell runs in the examiner, where each kernel name it uses is a ``Remote``: calling it or
reading an attribute sends the kernel a question, which ``respond`` runs there and answers in
JSON. Values travel as numbers, strings, containers and NumPy arrays (``allow_pickle=False``); a
kernel object that is not data comes back as a *handle*; the examiner's arguments that are not
data (a distribution, an initialiser, a library function, a stand-in) are named, and the kernel
makes them anew. So neither side runs code of the other's by reading it.
"""

import base64
import contextvars
import importlib
import io
import json
import re
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bdl import loaded_tensorflow

# The largest answer the examiner reads, in bytes of JSON.
MAX_ANSWER = 64 * 2**20
# The modules a named function or class may come from, on either side.
LIBRARIES = ("bdl.", "numpy", "scipy", "tensorflow", "tensorflow_probability", "tf_keras", "keras", "math")
# What an array may hold: numbers and booleans, never objects.
ARRAY_KINDS = "biufc"
# The most the kernel tells of an error of the student's code: characters of its message, and of the
# notebook's line it was raised in (the examiner shows either only as it can vouch for it).
MAX_TOLD = 2000
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


# What the kernel's side looks a ref or handle up with (``decode``).
Lookup = Callable[[Any], Any]


class WireError(Exception):
    """A request or answer that is not of the agreed form."""


class AnswerError(Exception):
    """A question the kernel did not answer, or the student's code raised on, in the examiner's words:
    its ``message``, ``name`` the error's type as a message may name it, and on lines of their own what
    the error ``said`` (as the examiner wrote it anew) and the student's ``line`` it was raised in, each
    "" if none."""

    def __init__(self, message: str, name: str = "Exception", said: str = "", line: str = "") -> None:
        super().__init__(message)
        self.message, self.name, self.said, self.line = message, name, said, line


@dataclass(frozen=True)
class Reply:
    """The kernel's answer to one question, as ``respond`` writes it and the examiner reads it back
    (``read``): the value, as ``encode`` wrote it, or (``error`` not None) the class names of the
    error the student's code raised and what the kernel tells of it (``_told``)."""

    value: Any = None
    error: list[str] | None = None
    message: str = ""
    line: str = ""

    def text(self) -> str:
        """The reply as JSON text."""
        if self.error is None:
            return json.dumps({"value": self.value})
        return json.dumps({"error": self.error, "message": self.message, "line": self.line})

    @classmethod
    def read(cls, text: str) -> "Reply":
        """The reply ``text`` holds, exactly of the form ``text`` writes; else ``WireError``."""
        try:
            data = json.loads(text)
        except ValueError:
            raise WireError("an answer that is not JSON") from None
        if type(data) is dict and set(data) == {"value"}:
            return cls(value=data["value"])
        if (
            type(data) is dict
            and set(data) == {"error", "message", "line"}
            and type(data["error"]) is list
            and all(type(name) is str for name in data["error"])
            and type(data["message"]) is str
            and type(data["line"]) is str
        ):
            return cls(error=data["error"], message=data["message"], line=data["line"])
        raise WireError("an answer that is not of the agreed form")


# {"module:name": function} of every question (``bdl.questions.question`` registers them); the
# kernel imports a question's module (one of ``bdl``'s) before it looks the question up.
QUESTIONS: dict[str, Callable[..., Any]] = {}
# The examiner's way to the kernel while it runs a test cell, and only then (``examine`` sets it for
# the cell): a function (question, args, kwargs) -> the kernel's answer, decoded. Unset in the kernel
# and on a student's machine, where a question is a plain call.
ask_kernel: contextvars.ContextVar[Callable[[str, tuple, dict], object] | None] = contextvars.ContextVar(
    "ask_kernel", default=None
)


def ask(name: str, /, *args: Any, **kwargs: Any) -> Any:
    """Put question ``name`` ("module:function") to the kernel (in the examiner only)."""
    channel = ask_kernel.get()
    if channel is None:
        raise RuntimeError("a kernel object is asked about outside the examiner")
    return channel(name, args, kwargs)


class StandIn:
    """What a test hands the student's code in place of a loss, a layer, another graded function:
    made from its arguments alone (data, or other stand-ins), on either side (``bdl.questions``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.given_args, self.given_kwargs = args, kwargs


# Attributes libraries read to decide what an object is (``tf.is_tensor`` reads ``is_tensor_like``):
# a Remote answers them itself, as an object that is none of these things.
NOT_ASKED = frozenset({"is_tensor_like", "_tf_api_names", "_keras_mask", "_type_spec", "_shape_invariant_to_type_spec"})


class Remote:
    """An object in the student's kernel, as the examiner sees it: a notebook name or a handle.

    Calling it or reading an attribute asks the kernel (``ask``); ``kind`` is
    the names of the object's classes as the kernel reported them (a handle's only)."""

    __slots__ = ("_ref", "_kind")

    def __init__(self, ref: dict, kind: Iterable[str] = ()) -> None:
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_kind", tuple(kind))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return ask("bdl.questions:call", self, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # a kernel object is never a tensor: tf.is_tensor would take the kernel's word for it
        if name.startswith("__") or name in NOT_ASKED:
            raise AttributeError(name)
        return ask("bdl.questions:attribute", self, name)

    def __getitem__(self, key: Any) -> Any:
        return ask("bdl.questions:item", self, key)

    def __setattr__(self, name: str, value: Any) -> None:
        ask("bdl.questions:set_attribute", self, name, value)

    def __repr__(self) -> str:
        return f"<kernel object {self._ref}>"

    def __eq__(self, other: object) -> bool:
        return type(other) is Remote and other._ref == self._ref

    def __hash__(self) -> int:
        return hash(json.dumps(self._ref, sort_keys=True))


# ---------------------------------------------------------------------------------------------
# Values to JSON and back


def _array_bytes(array: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _array(text: str) -> np.ndarray:
    array: np.ndarray = np.load(io.BytesIO(base64.b64decode(text, validate=True)), allow_pickle=False)
    if array.dtype.kind not in ARRAY_KINDS:
        raise WireError(f"an array of {array.dtype} is not data")
    return array


def library_name(value: object) -> str | None:
    """``"module:qualname"`` of a library function or class, or None."""
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if (
        isinstance(module, str)
        and isinstance(name, str)
        and "<" not in name
        and module.startswith(LIBRARIES)
        and _IDENTIFIER.fullmatch(name)
    ):
        return f"{module}:{name}"
    return None


def resolve(reference: str) -> Any:
    """The library function or class ``"module:qualname"`` names (imported, never run)."""
    module_name, _, name = reference.partition(":")
    if (
        not module_name.startswith(LIBRARIES)
        or not _IDENTIFIER.fullmatch(module_name)
        or not _IDENTIFIER.fullmatch(name)
    ):
        raise WireError(f"{reference!r} is not a library name")
    value = importlib.import_module(module_name)
    for part in name.split("."):
        value = getattr(value, part)
    return value


def encode(value: Any, handle: Callable[[Any], dict] | None = None) -> dict:
    """``value`` as JSON-ready data. ``handle(obj)`` gives a non-data object's handle (the kernel);
    without it, such an object is named as a library value or refused (the examiner)."""
    tf = loaded_tensorflow()  # no value is a tensor before TensorFlow is loaded
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return {"t": "py", "v": value}
    if kind in (tuple, list):
        return {"t": kind.__name__, "v": [encode(item, handle) for item in value]}
    if kind is dict and all(type(key) is str for key in value):
        return {"t": "dict", "v": {key: encode(item, handle) for key, item in value.items()}}
    if kind is Remote:
        return {"t": "ref", "v": value._ref}
    if kind is np.ndarray and value.dtype.kind in ARRAY_KINDS:
        return {"t": "array", "v": _array_bytes(value)}
    if isinstance(value, np.generic) and np.dtype(kind).kind in ARRAY_KINDS:
        return {"t": "scalar", "v": _array_bytes(np.asarray(value))}
    if tf is not None and isinstance(value, tf.Variable):
        return {
            "t": "variable",
            "v": _array_bytes(value.numpy()),
            "name": value.name,
            "trainable": bool(value.trainable),
        }
    if tf is not None and tf.is_tensor(value) and hasattr(value, "numpy"):
        return {"t": "tensor", "v": _array_bytes(np.asarray(value.numpy()))}
    if tf is not None and isinstance(value, tf.DType):
        return {"t": "dtype", "v": value.name}
    if tf is not None and isinstance(value, tf.TensorShape):
        return {"t": "shape", "v": value.as_list() if value.rank is not None else None}
    if handle is not None:
        return {"t": "handle", "v": handle(value), "kind": _class_names(value)}
    return _named(value)


def _class_names(value: object) -> list[str]:
    return [f"{cls.__module__}.{cls.__qualname__}" for cls in type(value).__mro__][:20]


def _named(value: Any) -> dict:
    """An examiner's argument that is not data, as the kernel can make it anew."""
    if isinstance(value, StandIn) and library_name(type(value)):
        return {
            "t": "standin",
            "id": id(value),
            "class": library_name(type(value)),
            "v": encode(list(value.given_args)),
            "kwargs": encode(dict(value.given_kwargs)),
        }
    tf = loaded_tensorflow()  # a distribution or an initialiser is made with TensorFlow loaded
    tfp = sys.modules.get("tensorflow_probability") if tf is not None else None
    if (
        tfp is not None
        and isinstance(value, tfp.distributions.Distribution)
        and type(value).__module__.startswith("tensorflow_probability")
    ):
        return {
            "t": "distribution",
            "class": type(value).__name__,
            "v": encode({key: item for key, item in value.parameters.items() if item is not None and key != "name"}),
        }
    if tf is not None and isinstance(value, tf.keras.initializers.Initializer):
        return {"t": "initializer", "v": json.loads(json.dumps(tf.keras.initializers.serialize(value)))}
    name = library_name(value)
    if name is not None:
        return {"t": "library", "v": name}
    raise WireError(f"a {type(value).__name__} cannot be put to the kernel")


def _handle_number(value: Any) -> bool:
    """Whether ``value`` is what the kernel's handles are: ``{"handle": n}``, and nothing else (a
    notebook name, ``{"name": ...}``, is the examiner's to give)."""
    return (
        type(value) is dict
        and list(value) == ["handle"]
        and type(value["handle"]) is int
        and 0 <= value["handle"] < 2**53
    )


# Called with each stand-in ``decode`` makes, where set: the course's own check of its tests records
# them so in the solution's kernel, to try each in a graded function's place; None everywhere else.
on_standin = None


def _plain(data: dict, value: Any, lookup: Lookup | None, made: dict) -> Any:
    if value is None or type(value) in (bool, int, float, str):
        return value
    raise WireError("not a plain value")


def _sequence(data: dict, value: Any, lookup: Lookup | None, made: dict) -> tuple | list:
    items = [decode(item, lookup, made) for item in value]
    return tuple(items) if data["t"] == "tuple" else items


def _dict(data: dict, value: Any, lookup: Lookup | None, made: dict) -> dict:
    return {str(key): decode(item, lookup, made) for key, item in value.items()}


def _tensorflow(data: dict, value: Any, lookup: Lookup | None, made: dict) -> Any:
    import tensorflow as tf  # here only: a NumPy-only notebook's answers never need it

    kind = data["t"]
    if kind == "tensor":
        return tf.constant(_array(value))
    if kind == "variable":
        return tf.Variable(_array(value), trainable=bool(data.get("trainable")))
    if kind == "dtype":
        return tf.as_dtype(str(value))
    return tf.TensorShape(value)


def _reference(data: dict, value: Any, lookup: Lookup | None, made: dict) -> Any:
    if lookup is not None:
        return lookup(value)
    if data["t"] == "handle" and _handle_number(value):
        kinds = data["kind"] if type(data.get("kind")) is list else []
        return Remote(value, [str(name)[:200] for name in kinds[:20]])
    raise WireError("a reference the examiner cannot hold")


def _distribution(data: dict, value: Any, lookup: Lookup | None, made: dict) -> Any:
    import tensorflow_probability as tfp

    if not _IDENTIFIER.fullmatch(str(data.get("class"))):
        raise WireError("not a distribution's name")
    return getattr(tfp.distributions, data["class"])(**decode(value, lookup, made))


def _initializer(data: dict, value: Any, lookup: Lookup | None, made: dict) -> Any:
    import tensorflow as tf

    return tf.keras.initializers.deserialize(value)


def _standin(data: dict, value: Any, lookup: Lookup | None, made: dict) -> Any:
    cls = resolve(str(data.get("class")))
    if not (isinstance(cls, type) and issubclass(cls, StandIn)):
        raise WireError("not a stand-in")
    key = str(data.get("id"))
    if key not in made:
        made[key] = cls(*decode(value, lookup, made), **decode(data.get("kwargs"), lookup, made))
        if on_standin is not None:
            on_standin(made[key])
    return made[key]


# How each kind ``encode`` writes is read back (data, its "v", lookup, made) -> value. The first
# table is read on either side; the second, the examiner's named arguments, in the kernel only.
DECODERS = {
    "py": _plain,
    "tuple": _sequence,
    "list": _sequence,
    "dict": _dict,
    "array": lambda data, value, lookup, made: _array(value),
    "scalar": lambda data, value, lookup, made: _array(value)[()],
    "tensor": _tensorflow,
    "variable": _tensorflow,
    "dtype": _tensorflow,
    "shape": _tensorflow,
    "ref": _reference,
    "handle": _reference,
}
KERNEL_DECODERS = {
    "distribution": _distribution,
    "initializer": _initializer,
    "library": lambda data, value, lookup, made: resolve(str(value)),
    "standin": _standin,
}


def decode(data: Any, lookup: Lookup | None = None, made: dict | None = None) -> Any:
    """What ``encode`` made, back as values. ``lookup(ref)`` gives the object a ref or handle
    stands for (the kernel); without it, a handle becomes a ``Remote`` (the examiner). ``made``
    keeps the stand-ins made so far, so that one of the examiner's, given twice, is one here."""
    made = {} if made is None else made
    if type(data) is not dict or "t" not in data:
        raise WireError("not a value")
    kind = data["t"]
    if type(kind) is not str:
        raise WireError("not a kind")
    if kind in DECODERS:
        return DECODERS[kind](data, data.get("v"), lookup, made)
    if kind in KERNEL_DECODERS:
        if lookup is None:
            raise WireError(f"the kernel cannot send a {kind}")
        return KERNEL_DECODERS[kind](data, data.get("v"), lookup, made)
    raise WireError(f"unknown kind {kind!r}")


# ---------------------------------------------------------------------------------------------
# The kernel's side


class Handles:
    """The kernel's objects the examiner holds handles to: one number per object, kept alive."""

    def __init__(self) -> None:
        self.objects: dict[int, object] = {}
        self.numbers: dict[int, dict] = {}

    def number(self, value: object) -> dict:
        key = id(value)
        if key not in self.numbers:
            self.numbers[key] = {"handle": len(self.objects)}
            self.objects[len(self.objects)] = value
        return self.numbers[key]


handles = Handles()


def _lookup(ref: Any, namespace: dict) -> Any:
    if type(ref) is not dict:
        raise WireError("not a reference")
    if "name" in ref:
        name = str(ref["name"])
        if name not in namespace:
            raise NameError(f"name '{name}' is not defined")
        return namespace[name]
    return handles.objects[int(ref["handle"])]


class Answer:
    """An answer as the kernel's reply carries it: its ``repr`` is the JSON text itself, so the
    silent request's ``user_expressions`` hand it back over the kernel's own channel, untouched."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def respond(request: str, namespace: dict | None = None) -> Answer:
    """Answer one question (``request``, JSON) about the kernel's state; return it as an ``Answer``.
    Runs in the student's kernel, as the examiner's silent request, whose reply carries the answer
    (no file: nothing of a question's round trip lies where the kernel could leave something for
    the worker to open)."""
    if namespace is None:
        from IPython import get_ipython

        namespace = get_ipython().user_ns
    try:
        asked = json.loads(request)
        module = str(asked["question"]).partition(":")[0]
        if module.startswith("bdl.") or module == "bdl":
            importlib.import_module(module)
        question = QUESTIONS[asked["question"]]
        made: dict = {}
        args = decode(asked["args"], lambda ref: _lookup(ref, namespace), made)
        kwargs = decode(asked["kwargs"], lambda ref: _lookup(ref, namespace), made)
        reply = Reply(value=encode(question(*args, **kwargs), handles.number))
    except Exception as error:  # the student's code failed: the examiner says so in its words
        reply = Reply(error=_class_names(error), **_told(error))
    return Answer(reply.text())


def _cell_files() -> dict:
    """The file names the kernel's shell gave the notebook's cells it ran (none outside a kernel)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    files = getattr(getattr(shell, "compile", None), "_filename_map", None)
    return files if isinstance(files, dict) else {}


def _told(error: BaseException) -> dict[str, str]:
    """What the examiner may repeat of ``error`` once it has checked it: the error's message, and the
    line of the notebook's code it was raised in (its innermost frame in a cell, not in a library),
    each at most ``MAX_TOLD`` characters, else ""."""
    try:
        message = str(error)[:MAX_TOLD]
    except Exception:  # a message that cannot be written: there is none to tell
        message = ""
    files, line = _cell_files(), ""
    try:
        for frame in traceback.extract_tb(error.__traceback__):
            if frame.filename in files:
                line = (frame.line or "").strip()
    except Exception:  # a traceback that cannot be read: no line
        line = ""
    return {"message": message, "line": line if len(line) <= MAX_TOLD else ""}
