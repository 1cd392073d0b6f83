"""Where the course finds MathJax offline: the copy the pinned ``jupyter-server-mathjax`` installs.

Pages the course writes for instructors (the grading guide) and formgrader typeset LaTeX with
MathJax 2; nbgrader and nbconvert load it from a CDN, which an offline machine cannot reach.
The package ships MathJax 2.7 (``MathJax.js``, its TeX input, its HTML-CSS output and the
STIX-Web fonts) and serves the same folder at ``/static/jupyter_server_mathjax/``.
"""

import importlib.util
from pathlib import Path

# The configuration the package's server uses (its ``mathjax_config``, without ",Safe").
CONFIG = "TeX-AMS-MML_HTMLorMML-full"


def mathjax_dir():
    """Return the folder that holds ``MathJax.js``; raise RuntimeError if it is not installed."""
    spec = importlib.util.find_spec("jupyter_server_mathjax")
    folder = Path(spec.origin).parent / "static" if spec and spec.origin else None
    if folder is None or not (folder / "MathJax.js").is_file():
        raise RuntimeError(
            "no MathJax copy found: install the pinned jupyter-server-mathjax (pip install -e . installs it)"
        )
    return folder
