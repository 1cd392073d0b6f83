"""What the tables of ``bdl.diagnoses`` are made of: a mistake, a graded function's mistakes, and the
building blocks of recognisers."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bdl.checks import as_numbers


@dataclass(frozen=True)
class Mistake:
    name: str  # what check-tests maps mutants to
    sentence: str  # what the student reads: no code, no numbers
    recognise: Callable  # recognise(answer) -> whether the answer behaves like this mistake


@dataclass(frozen=True)
class Function:
    name: str  # the name the notebook defines the answer under
    mistakes: tuple


def call(function, *args, **kwargs):
    """``function(*args)`` as NumPy numbers (a tuple of them for a tuple result). NumPy arrays are passed
    as copies: an answer that changes the arrays it is given cannot change a table's probes."""
    args = [np.copy(arg) if type(arg) is np.ndarray else arg for arg in args]
    result = function(*args, **kwargs)
    if type(result) is tuple:
        return tuple(as_numbers(part, "a result") for part in result)
    return as_numbers(result, "a result")


def same(a, b, rtol=1e-4, atol=1e-5):
    """Whether two results (arrays or tuples of them) have the same shapes and values; a plain number
    ``b`` stands for an array of it in ``a``'s shape."""
    if isinstance(b, (int, float)) and not isinstance(a, tuple):
        b = np.full(np.shape(a), float(b))
    if type(a) is tuple or type(b) is tuple:
        return (
            type(a) is tuple
            and type(b) is tuple
            and len(a) == len(b)
            and all(same(x, y, rtol, atol) for x, y in zip(a, b))
        )
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.all(np.isfinite(a))) and np.allclose(a, b, rtol=rtol, atol=atol)


def fails(function, *args):
    """Whether ``function(*args)`` raises (a thunk, without arguments, too)."""
    try:
        function(*args)
        return False
    except Exception:
        return True


def changes_its_arguments(function, *arrays):
    """Whether ``function(*arrays)`` changes any of the NumPy arrays it is given (each is passed as a copy)."""
    copies = [np.copy(array) for array in arrays]
    function(*copies)
    return not all(np.array_equal(copy, array) for copy, array in zip(copies, arrays))
