"""The known mistakes of assignment deep_ensembles, recognised by what the answer computes (see bdl.diagnoses)."""

TABLE = {}
