"""Stand-ins for the tests of 02 (deep ensembles): a table taking another graded function's place."""

import numpy as np
import tensorflow as tf

from bdl.questions import STAND_IN_ERRORS, StandIn


class KnownEntropies(StandIn):
    """Stands in for ``entropy`` in the tests of ``uncertainty_decomposition``: a table of probability
    vectors (``vectors``, one per row) and the entropy in nats the examiner worked out for each
    (``entropies``). A call looks each vector along the last axis of ``probs`` up in the table (equal
    within ``atol``) and returns the entries found, in the shape of ``probs`` without its last axis. A
    vector the table lacks raises ``ValueError``: the stand-in knows nothing else. A tensor in gives
    a tensor of its dtype out, anything else NumPy's float64."""

    def __init__(self, vectors, entropies, atol=1e-5):
        super().__init__(vectors, entropies, atol=atol)
        self.vectors = np.asarray(vectors, dtype=np.float64)
        self.entropies = np.asarray(entropies, dtype=np.float64).reshape(-1)
        self.atol = float(atol)

    def __call__(self, probs):
        values = np.asarray(probs, dtype=np.float64)
        if values.ndim == 0 or values.shape[-1] != self.vectors.shape[-1]:
            raise ValueError(STAND_IN_ERRORS["entropy_length"])
        rows = values.reshape(-1, values.shape[-1])
        close = np.all(np.abs(rows[:, None, :] - self.vectors[None, :, :]) <= self.atol, axis=-1)
        if not np.all(np.any(close, axis=1)):
            raise ValueError(STAND_IN_ERRORS["entropy_vectors"])
        result = self.entropies[np.argmax(close, axis=1)].reshape(values.shape[:-1])
        return tf.constant(result, dtype=probs.dtype) if tf.is_tensor(probs) else result[()]
