"""``check-tests``: the graded tests, themselves tested.

Each solution notebook runs once, in grading mode, in one live kernel. Then
every graded function's test cell is re-run against the reference under N
seeds, against each wrong variant ("mutant") of the function, which it must
fail, and against each other correct answer ("alternative"), which it must
pass. A wrong or missing answer must cost only its own points: with the
first killed mutant of a function in place, and with the function removed,
every other function's tests must still pass. Variants live in
``tests/course/mutants/<assignment>.py`` as ``(name, old, new)`` edits of the
reference solution cell: ``old`` occurs exactly once in it and is replaced by
``new``.

The same file's ``DIAGNOSES`` maps a mutant's name to the mistake it was
written to make, by its name in ``bdl.diagnoses``' tables: a killed mutant
whose failure notes that mistake is *diagnosed*. A failure that notes another
mistake is a problem (the student would be sent the wrong way), and so is a
function whose mutants are diagnosed less often than ``MIN_DIAGNOSED``.

Students get ``bdl``, so none of its callables may pass a graded function's tests: ``check_kit`` puts
each in the function's place (``autograder.checktests.candidates`` in the kernel: every function and class of
``bdl``, and every stand-in the tests made, with their arguments) and runs the tests.

A second catalogue, written blind (by someone who never read the recognisers or the mutants), lives in
``tests/course/mutants/blind/<assignment>.py`` as whole answer cells; ``blind/judged.py`` says, for each
of its answers, which hints would name its mistake (``autograder.checktests.blind``). It measures what the
tuned figure cannot: the hints a class will get. A hint that contradicts an answer (a correct
alternative, a correct blind answer, or a blind wrong answer it does not fit) is a problem
(``check_hints``).
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
