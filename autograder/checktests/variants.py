"""The variants of a solution (``tests/course/mutants/<assignment>.py``): loaded, one run in the
reference's place, and whether a wrong or missing answer costs only its own points."""

import ast
from pathlib import Path

from autograder.checktests.blind import load_module
from autograder.course.directory import REPO

MUTANTS_DIR = REPO / "tests" / "course" / "mutants"
# A function whose tests no wrong answer was tried against is not checked.
MIN_MUTANTS = 3
# Fewer correct idioms than this, and a test that rejects a common one can go unseen.
MIN_ALTERNATIVES = 3
# The share of a function's mutants whose failure must name the mistake they make.
MIN_DIAGNOSED = 0.6


def load_variants(assignment, mutants_dir=MUTANTS_DIR):
    """Return {"mutants": ..., "alternatives": ..., "diagnoses": ...} from ``<mutants_dir>/<assignment>.py``.

    Its ``MUTANTS`` and ``ALTERNATIVES`` map each graded function to ``(name, old, new)`` edits of the
    reference solution cell: ``old`` occurs exactly once in it and is replaced by ``new``. ``DIAGNOSES``
    maps a mutant's name to the mistake it was written to make, by its name in ``bdl.diagnoses``' tables:
    a killed mutant whose failure notes that mistake is *diagnosed*; one that notes another would send the
    student the wrong way."""
    path = Path(mutants_dir) / f"{assignment}.py"
    if not path.exists():
        return {"mutants": {}, "alternatives": {}, "diagnoses": {}}
    module = load_module(path)
    return {
        "mutants": module.MUTANTS,
        "alternatives": module.ALTERNATIVES,
        "diagnoses": getattr(module, "DIAGNOSES", {}),
    }


def run_variant(kernel, solution, tests, old, new):
    """Swap ``old`` for ``new`` in the solution cell; return (tests pass, why not, the error's text).

    Variants run under seed 0, so their verdicts repeat.
    """
    if solution.source.count(old) != 1:
        return None, "no longer matches the reference solution", ""
    try:
        kernel.run(solution.source.replace(old, new))
        kernel.seed(0)
        return kernel.outcome(tests.source, test=True)
    finally:
        kernel.run(solution.source)


def top_level_names(source):
    """The names a solution cell defines at top level (functions, classes, variables)."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
    return names


def _put_back(kernel, functions):
    """Run every solution cell again, in the notebook's order."""
    for solution, _ in functions.values():
        kernel.run(solution.source)


def _failing_with(kernel, functions, changes):
    """{function: [the other functions whose tests fail while its cell is ``changes[function]``]}.

    ``changes``: {function: the source run in place of its solution cell}. Each other function's tests
    run once with every change but its own in place; only those that then fail run again with one
    change at a time, to name which. So a course whose tests are independent costs one run per
    function here, not one per pair (04: 9 runs, not 72). The one run stands for the pairs: a test
    that passes with every other answer missing (or wrong) is taken to pass with any one of them so,
    which misses only a test whose fallbacks for two broken answers make up for each other."""
    failing = {function: [] for function in changes}
    try:
        for other, (_, tests) in functions.items():
            changed = [function for function in changes if function != other]
            if not changed:
                continue
            for function in changed:
                kernel.run(changes[function])
            kernel.seed(0)
            ok = kernel.succeeds(tests.source, test=True)[0]
            _put_back(kernel, functions)
            if ok:
                continue
            for function in changed:
                solution, _ = functions[function]
                if not run_variant(kernel, solution, tests, solution.source, changes[function])[0]:
                    failing[function].append(other)
    finally:
        _put_back(kernel, functions)
    return failing


def _removed(source):
    """Code that removes what a solution cell defines from the namespace."""
    return f"for _name in {top_level_names(source)!r}:\n    globals().pop(_name, None)"


def check_independence(kernel, functions):
    """{function: the other functions whose tests fail while what its cell defines is removed}.

    A submission whose answer crashes or is missing must lose only that
    answer's points.
    """
    return _failing_with(
        kernel, functions, {function: _removed(solution.source) for function, (solution, _) in functions.items()}
    )


def check_dependence(kernel, functions, wrong):
    """{function: the other functions whose tests fail while it is wrong}, ``wrong`` being
    {function: [(mutant's name, old, new), ...]}: one mutant of each function at a time.

    It finds a test that uses another answer as the student wrote it whenever that answer is
    there (a missing one may send it down another path), so that one wrong answer would cost two
    functions' points. Returns {function: [(other, mutant's name), ...]}.
    """
    found = {function: [] for function in wrong}
    for round_ in range(max((len(mutants) for mutants in wrong.values()), default=0)):
        mutants = {function: mutants[round_] for function, mutants in wrong.items() if len(mutants) > round_}
        failing = _failing_with(
            kernel,
            functions,
            {function: functions[function][0].source.replace(old, new) for function, (_, old, new) in mutants.items()},
        )
        for function, others in failing.items():
            found[function] += [(other, mutants[function][0]) for other in others]
    return found
