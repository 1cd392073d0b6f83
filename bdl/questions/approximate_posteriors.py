"""Questions and stand-ins for the tests of 06 (approximate posteriors).

``KnownOutputs`` stands in for a regression network with dropout: a table of the outputs each pass
returns, never their mean or variance.
"""

from bdl.questions.calibration import KnownDropout


class KnownOutputs(KnownDropout):
    """Stands in for a Keras model with dropout whose outputs have shape ``[N, 1]``, on the inputs ``x``
    it is made for: with ``training=True`` its t-th pass on input ``i`` returns ``passes[t][i]`` (then the
    first pass again), otherwise ``plain[i]``; as 05's ``KnownDropout``, whose workings it shares."""
