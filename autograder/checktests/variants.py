"""The variants of a solution (``tests/course/mutants/<assignment>.py``): loaded, one run in the
reference's place, and whether a wrong or missing answer costs only its own points."""
import ast
from pathlib import Path

from autograder.checktests.blind import load_module
from autograder.checktests.kernel import SEED_CODE
from autograder.course.directory import REPO


MUTANTS_DIR = REPO / "tests" / "course" / "mutants"
# A function whose tests no wrong answer was tried against is not checked.
MIN_MUTANTS = 3
# Fewer correct idioms than this, and a test that rejects a common one can go unseen.
MIN_ALTERNATIVES = 3
# The share of a function's mutants whose failure must name the mistake they make.
MIN_DIAGNOSED = 0.6


def load_variants(assignment, mutants_dir=MUTANTS_DIR):
    """Return {"mutants": ..., "alternatives": ..., "diagnoses": ...} from ``<mutants_dir>/<assignment>.py``."""
    path = Path(mutants_dir) / f"{assignment}.py"
    if not path.exists():
        return {"mutants": {}, "alternatives": {}, "diagnoses": {}}
    module = load_module(path)
    return {"mutants": module.MUTANTS, "alternatives": module.ALTERNATIVES,
            "diagnoses": getattr(module, "DIAGNOSES", {})}


def run_variant(kernel, solution, tests, old, new):
    """Swap ``old`` for ``new`` in the solution cell; return (tests pass, why not, the error's text).

    Variants run under seed 0, so their verdicts repeat.
    """
    if solution.source.count(old) != 1:
        return None, "no longer matches the reference solution", ""
    try:
        kernel.run(solution.source.replace(old, new))
        kernel.run(SEED_CODE.format(0))
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


def _failing_others(kernel, functions, function):
    """The functions other than ``function`` whose tests fail in the kernel as it is."""
    return [other for other, (_, tests) in functions.items()
            if other != function and not kernel.succeeds(tests.source, test=True)[0]]


def check_independence(kernel, functions, function):
    """Remove what ``function``'s cell defines; return the other functions whose tests then fail.

    A submission whose answer crashes or is missing must lose only that
    answer's points.
    """
    solution, _ = functions[function]
    kernel.run(f"for _name in {top_level_names(solution.source)!r}:\n    globals().pop(_name, None)")
    try:
        return _failing_others(kernel, functions, function)
    finally:
        kernel.run(solution.source)


def check_dependence(kernel, functions, function, old, new):
    """Put a wrong ``function`` (the mutant ``old`` -> ``new``) in place; return the other functions
    whose tests then fail.

    It finds a test that uses another answer as the student wrote it whenever that answer is
    there (a missing one may send it down another path), so that one wrong answer would cost two
    functions' points.
    """
    solution, _ = functions[function]
    kernel.run(solution.source.replace(old, new))
    kernel.run(SEED_CODE.format(0))
    try:
        return _failing_others(kernel, functions, function)
    finally:
        kernel.run(solution.source)
