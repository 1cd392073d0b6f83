"""The known mistakes of assignment bayes_by_backprop, recognised by what the answer computes (see bdl.diagnoses)."""

TABLE = {}
