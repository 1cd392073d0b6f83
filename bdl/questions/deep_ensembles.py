"""Stand-ins for the tests of 02 (deep ensembles): a library function taking another graded
function's place."""
import numpy as np
import tensorflow as tf

from bdl.questions import StandIn


class OnProbabilities(StandIn):
    """``function(probs)`` for probability vectors along the last axis of ``probs`` only: it refuses
    (ValueError) a vector with a negative entry or one that does not add up to one (within
    ``atol``), so that a library function that normalises what it is given (``scipy.stats.entropy``
    does) cannot hide its caller's mistake. A tensor in gives a tensor out, anything else NumPy's."""

    def __init__(self, function, atol=1e-5):
        super().__init__(function, atol=atol)
        self.function, self.atol = function, float(atol)

    def __call__(self, probs):
        values = np.asarray(probs)
        if np.any(values < 0) or not np.allclose(np.sum(values, axis=-1), 1.0, rtol=0, atol=self.atol):
            raise ValueError("not probability vectors along the last axis")
        result = self.function(values)
        return tf.constant(result) if tf.is_tensor(probs) else result
