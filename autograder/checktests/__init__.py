"""``check-tests``: the graded tests, themselves tested (docs/authoring.md lists what fails it).

A test that passes a wrong answer or fails a right one grades a whole class wrongly, unseen. So each
solution notebook runs once, in grading mode, in one live kernel, and every graded function's tests
run again there: under several seeds, against wrong variants of the answer ("mutants"), which they
must fail, and other correct answers ("alternatives"), which they must pass. A wrong or missing
answer must cost only its own points; a mutant's failure should name the mistake it makes
(``bdl.diagnoses``); no callable of ``bdl``, which students get, may pass (``check_kit``); and no
hint may contradict an answer, a blind catalogue's included (``check_hints``).
"""

from autograder.checktests.checks import check_notebook, check_tests  # noqa: F401 (the package's own names)
from autograder.checktests.cli import add_parser  # noqa: F401
from autograder.checktests.kernel import NOTEBOOK_CELL_TIMEOUT  # noqa: F401
from autograder.checktests.variants import (  # noqa: F401
    MIN_ALTERNATIVES,
    MIN_DIAGNOSED,
    MIN_MUTANTS,
    MUTANTS_DIR,
    load_variants,
)
