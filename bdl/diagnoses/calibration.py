"""The known mistakes of assignment calibration, recognised by what the answer computes (see bdl.diagnoses)."""

TABLE = {}
