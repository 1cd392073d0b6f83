"""The words a student may read: how the tests' messages write a value.

Messages never quote the student's objects (a ``repr`` is the object's to choose: it could carry what it
read of the tests) beyond what these formatters write themselves: numbers of at most ``MAX_DIGITS``
digits, shapes of at most ``MAX_RANK`` dimensions each under ``MAX_DIMENSION``, short containers of them,
dtypes and a type's name; never a string. A long number is text in disguise.

``SPEAKING_FILES`` are the files of ``bdl`` whose words reach a student: each writes a value only through
this module. The examiner shows their frames in an error output, as IPython would, and the feedback takes
an assertion raised through them alone for the tests' own words.
"""

import fnmatch
import functools
import re
import textwrap

import numpy as np

from bdl import loaded_tensorflow

# Under bdl/: checks.py and difference.py, which write the tests' messages, this module, the wire, the
# questions' checks and the diagnoses' notes.
SPEAKING_FILES = ("checks.py", "difference.py", "words.py", "wire.py", "questions/*.py", "diagnoses/*.py")


# A note under an error (a likely mistake, the sentence a check cites) wraps within nbgrader Validate's
# width (90, an indent of 4 included), so that a student reads it whole.
NOTE_WIDTH = 80
# A terminal's colours, as an IPython traceback writes them (the feedback and the item analysis strip them).
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# What a student reads when the tests' own code raised on what the answer gave them (its message may
# quote that answer): the examiner's sentence, and the feedback's for an error it has no decision for.
UNUSABLE = "the tests could not go on with what your code gave them"


def note(prefix, sentence):
    """A table's sentence as a note under an error: ``prefix`` and the sentence, wrapped."""
    return "\n".join(
        textwrap.wrap(
            prefix + sentence, NOTE_WIDTH, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False
        )
    )


def flat(text):
    """``text`` without a terminal's colours, its whitespace runs one space: as a note is found in it."""
    return " ".join(ANSI.sub("", text).split())


def first_noted(text, notes):
    """The value, in ``notes`` ({a note as written: value}), of the note found first in ``text``, or
    None. Only a table's own notes count, whatever else the text says."""
    words = flat(text)
    found = [(words.find(flat(written)), written, value) for written, value in notes.items() if flat(written) in words]
    return min(found)[2] if found else None


def speaks(filename):
    """Whether ``filename`` (a path) is one of ``SPEAKING_FILES`` of a ``bdl`` folder."""
    head, found, tail = str(filename).replace("\\", "/").rpartition("bdl/")
    return (
        bool(found)
        and (not head or head.endswith("/"))
        and any(fnmatch.fnmatchcase(tail, pattern) for pattern in SPEAKING_FILES)
    )


PLAIN_PYTHON = (int, float, bool, complex, str, bytes, type(None))
NUMPY_SCALARS = frozenset(np.sctypeDict.values())
NUMPY_DTYPES = frozenset(type(np.dtype(kind)) for kind in NUMPY_SCALARS)


@functools.lru_cache(maxsize=2)
def tensorflow_kinds(tf):
    """(the classes of a tensor and a variable, those of a dtype and a shape), or two empty sets before
    TensorFlow is loaded, when no value is one of them: a NumPy-only notebook's tests never import it."""
    if tf is None:
        return frozenset(), frozenset()
    return frozenset({type(tf.constant(0.0)), type(tf.Variable(0.0))}), frozenset({tf.dtypes.DType, tf.TensorShape})


def tensor_kinds():
    """The classes of a tensor and a variable (none before TensorFlow is loaded)."""
    return tensorflow_kinds(loaded_tensorflow())[0]


# The most a message shows of a value: digits of a number (significant digits of a float), dimensions
# of a shape and the size of each, items of a container, characters in all.
MAX_DIGITS = 12
FLOAT_DIGITS = 8
MAX_RANK = 6
MAX_DIMENSION = 10**7
MAX_ITEMS = 6
MAX_SHOWN = 60


def type_name(value):
    """The name of ``value``'s type, reduced to identifier characters (``identifier``). In the examiner
    every value is of its own types (``bdl.wire`` makes the kernel's answers of a few), so there the
    name is one of a fixed few."""
    return identifier(type(value).__name__, "object")


def identifier(name, default):
    """``name`` reduced to at most 40 identifier characters and dots (a class's name is its author's to
    choose), or ``default`` if none is left."""
    return re.sub(r"[^A-Za-z0-9_.]", "", str(name))[:40] or default


def listed(names):
    """Names (each already fit to show) as a message may list them: the first ``MAX_ITEMS``."""
    names = list(names)
    more = ", ..." if len(names) > MAX_ITEMS else ""
    return f"[{', '.join(names[:MAX_ITEMS])}{more}]"


def number(value, digits=FLOAT_DIGITS):
    """A real number as a message may show it: an integer of at most ``MAX_DIGITS`` digits, a float
    to ``digits`` significant digits (at most ``FLOAT_DIGITS``), a one-element array or tensor as
    its number; anything else as ``shown`` shows it."""
    kind = type(value)
    if kind in tensor_kinds() or kind is np.ndarray:
        array = np.asarray(value.numpy()) if kind is not np.ndarray else value
        if array.size == 1 and array.dtype.kind in "biuf":
            value, kind = array.reshape(()).item(), None
    if kind is not None and not (kind in (bool, int, float) or kind in NUMPY_SCALARS):
        return shown(value)
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        value = int(value)
        return str(value) if abs(value) < 10**MAX_DIGITS else f"a number of more than {MAX_DIGITS} digits"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.{max(1, min(int(digits), FLOAT_DIGITS))}g}"
    return shown(value)


def shape_text(shape):
    """A shape as a message may show it: ``(3, 4)``, or ``a shape of rank 9`` when it has more than
    ``MAX_RANK`` dimensions or one of ``MAX_DIMENSION`` or more (or not a whole number)."""
    dims = list(shape)
    if (
        len(dims) <= MAX_RANK
        and all(type(dim) in (int, type(None)) or isinstance(dim, np.integer) for dim in dims)
        and all(dim is None or 0 <= dim < MAX_DIMENSION for dim in dims)
    ):
        return repr(tuple(None if dim is None else int(dim) for dim in dims))
    return f"a shape of rank {number(len(dims))}"


def _text(value, depth=0):
    """``value`` written by this module (see ``shown``), or None when it cannot be."""
    kind = type(value)
    if value is None:
        return "None"
    if kind in (bool, int, float) or kind in NUMPY_SCALARS and np.dtype(kind).kind in "biuf":
        text = number(value)
        return None if text.startswith("a ") else text
    if kind in (tuple, list) and depth < 2 and len(value) <= MAX_ITEMS:
        items = [_text(item, depth + 1) for item in value]
        if None in items:
            return None
        if kind is list:
            return f"[{', '.join(items)}]"
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    tf = loaded_tensorflow()
    if tf is not None and kind is tf.TensorShape:
        return (
            "TensorShape(None)"
            if value.rank is None
            else (f"TensorShape({list(value.as_list())})" if not shape_text(value.as_list()).startswith("a ") else None)
        )
    if tf is not None and kind is tf.dtypes.DType:
        return f"tf.{value.name}"
    if kind in NUMPY_DTYPES and re.fullmatch(r"[a-z]+[0-9]{0,3}", value.name):
        return f"dtype('{value.name}')"
    return None


def _dtype_name(array):
    name = str(getattr(array.dtype, "name", ""))
    return name if re.fullmatch(r"[a-z]+[0-9]{0,3}", name) else "numeric"


def shown(value):
    """``value`` as a message may show it, in words this module writes: a number (``number``), a
    short list or tuple of numbers, a dtype, a shape; an array or tensor by its dtype and shape;
    anything else (text above all: a string from the student's code is its to choose, it could
    carry what it read) by its type's name."""
    kind = type(value)
    if kind is np.ndarray or kind in tensor_kinds():
        noun = "array" if kind is np.ndarray else "tensor"
        shape = shape_text(value.shape)
        where = f"of shape {shape}" if shape.startswith("(") else f"of rank {len(value.shape)}"
        dtype = _dtype_name(value)
        return f"{'an' if dtype[0] in 'aeiou' else 'a'} {dtype} {noun} {where}"
    if kind in (int, float) or kind in NUMPY_SCALARS and np.dtype(kind).kind in "iuf":
        return number(value)
    text = _text(value)
    if text is not None and len(text) <= MAX_SHOWN:
        return text
    return f"a {type_name(value)}"
