"""Every check of an assignment's tests, in one live kernel per notebook: seeds, mutants, alternatives,
independence, the kit and the hints; one row per graded function."""

from dataclasses import dataclass, field
from pathlib import Path

from autograder.checktests.blind import load_blind
from autograder.checktests.hints import check_hints
from autograder.checktests.kernel import executed_notebook
from autograder.checktests.kit import check_kit, watch
from autograder.checktests.variants import (
    MIN_ALTERNATIVES,
    MIN_DIAGNOSED,
    MIN_MUTANTS,
    MUTANTS_DIR,
    check_dependence,
    check_independence,
    load_variants,
    run_variant,
)
from autograder.course.cells import graded_functions, names_mistakes
from autograder.course.directory import REPO


@dataclass
class Row:
    """check-tests' figures for one graded function: seeds passed, mutants killed and diagnosed,
    alternatives passed, the other functions' tests that still pass without it and with it wrong (each
    with its total), ``problems`` (what failed, one line each), the kit's figures (the first row of a
    notebook: callables of ``bdl`` tried, seconds), and ``check_tests``' notebook and blind figures."""

    function: str
    seeds: int = 0
    num_seeds: int = 0
    killed: int = 0
    num_mutants: int = 0
    diagnosed: int = 0
    passed: int = 0
    num_alternatives: int = 0
    independent: int = 0
    num_others: int = 0
    problems: list[str] = field(default_factory=list)
    kit: tuple[int, float] | None = None
    notebook: str = ""
    blind: dict | None = None


def _check_seeds(kernel, row, solution, tests):
    """The reference's tests under each seed (the first watched for ``check_kit``)."""
    for seed in range(row.num_seeds):
        kernel.seed(seed)
        if seed == 0:  # for check_kit: the stand-ins the tests make, and their first call of the answer
            watch(kernel, solution, row.function)
        try:
            ok, why = kernel.succeeds(tests.source, test=True)
        finally:
            if seed == 0:
                watch(kernel, solution, row.function, stop=True)
        row.seeds += ok
        if not ok:
            row.problems.append(f"the reference fails under seed {seed}: {why}")


def _check_mutants(kernel, row, solution, tests, variants, every_mutant):
    """Each mutant against the tests, and its diagnosis; return the killed mutants the other functions'
    tests run with (the first, or each with ``every_mutant``)."""
    function, wrong = row.function, []
    mutants = variants["mutants"].get(function, [])
    row.num_mutants = len(mutants)
    if len(mutants) < MIN_MUTANTS:
        row.problems.append(f"only {len(mutants)} mutants (at least {MIN_MUTANTS} needed)")
    written_as = variants["diagnoses"].get(function, {})
    for name, old, new in mutants:
        passed, why, text = run_variant(kernel, solution, tests, old, new)
        row.killed += passed is False
        if passed is None:
            row.problems.append(f"mutant {name!r} {why}")
        elif passed:
            row.problems.append(f"mutant {name!r} survives")
        else:
            if every_mutant or row.killed == 1:  # by default one: all take 2-5 times as long
                wrong.append((name, old, new))
            noted = kernel.noted_mistake(text, function)
            row.diagnosed += noted is not None and noted == written_as.get(name)
            if noted is not None and noted != written_as.get(name):
                row.problems.append(f"mutant {name!r} is diagnosed as {noted!r}, but makes {written_as.get(name)!r}")
    if mutants and names_mistakes(tests, function) and row.diagnosed < MIN_DIAGNOSED * len(mutants):
        row.problems.append(
            f"only {row.diagnosed} of {len(mutants)} mutants diagnosed (at least {MIN_DIAGNOSED:.0%} needed)"
        )
    return wrong


def _check_alternatives(kernel, row, solution, tests, variants):
    """Each correct alternative against the tests."""
    alternatives = variants["alternatives"].get(row.function, [])
    row.num_alternatives = len(alternatives)
    if len(alternatives) < MIN_ALTERNATIVES:
        row.problems.append(f"only {len(alternatives)} alternatives (at least {MIN_ALTERNATIVES} needed)")
    for name, old, new in alternatives:
        passed, why, _ = run_variant(kernel, solution, tests, old, new)
        row.passed += bool(passed)
        if not passed:
            row.problems.append(f"correct alternative {name!r} fails: {why}")


def _check_others(kernel, rows, functions, wrong):
    """The other functions' tests without each function, and with it wrong (its mutants in ``wrong``)."""
    missing = check_independence(kernel, functions)
    broken_by = check_dependence(kernel, functions, wrong)
    for row in rows:
        function = row.function
        row.problems += [f"the tests of {other} fail when {function} is missing" for other in missing[function]]
        row.problems += [
            f"the tests of {other} fail when {function} is wrong (mutant {name!r})"
            for other, name in broken_by[function]
        ]
        broken = set(missing[function]) | {other for other, _ in broken_by[function]}
        row.independent, row.num_others = len(functions) - 1 - len(broken), len(functions) - 1


def check_notebook(path, variants, seeds=5, log=None, then=None, every_mutant=False):
    """Check every graded function of the solution notebook ``path``; return one ``Row`` each.

    The other functions' tests run with each function's first killed mutant in its place, or each
    with ``every_mutant``. A callable of ``bdl`` that passes a function's tests is a problem of its
    row (``check_kit``). ``then(kernel, functions)``, if given, runs last in the same kernel.
    """
    rows = []
    with executed_notebook(path, {"NBGRADER_EXECUTION": "autograde"}) as (kernel, nb):
        functions = graded_functions(nb)
        wrong = {}  # the killed mutants the other tests run with
        for function, (solution, tests) in functions.items():
            row = Row(function, num_seeds=seeds)
            _check_seeds(kernel, row, solution, tests)
            wrong[function] = _check_mutants(kernel, row, solution, tests, variants, every_mutant)
            _check_alternatives(kernel, row, solution, tests, variants)
            rows.append(row)
            if log:
                log(f"{path.stem}: {function} checked")
        _check_others(kernel, rows, functions, wrong)
        found, tried, seconds = check_kit(kernel, functions)
        for row in rows:
            row.problems += found.get(row.function, [])
        if rows:
            rows[0].kit = (tried, seconds)
        if log:
            log(f"{path.stem}: {tried} callables of bdl tried in the graded functions' places ({seconds:.0f} s)")
        unknown = (set(variants["mutants"]) | set(variants["alternatives"])) - set(functions)
        rows += [
            Row(function, problems=["variants given for a function the notebook does not grade"])
            for function in sorted(unknown)
        ]
        if then:
            then(kernel, functions)
    return rows


def check_tests(
    assignment,
    seeds=5,
    root=REPO,
    mutants_dir=MUTANTS_DIR,
    log=None,
    only_blind=False,
    every_mutant=False,
    blind_dir=None,
):
    """Check the tests of every notebook of ``assignment``; return ``Row``s with their ``notebook``.

    A row also holds the problems of ``check_hints`` and, where the assignment has a blind catalogue,
    ``blind``: its function's figures there. ``only_blind``: only those, without the rest.
    ``every_mutant``: see ``check_notebook``. ``blind_dir``: another folder of blind answers than the
    catalogue (``load_blind``)."""
    variants = load_variants(assignment, mutants_dir)
    catalogue = load_blind(assignment, mutants_dir, blind_dir)
    rows = []
    for path in sorted((Path(root) / "source" / assignment).glob("*.ipynb")):
        hints = {}

        def then(kernel, functions):
            hints.update(check_hints(kernel, functions, variants, catalogue, alternatives=not only_blind))

        if only_blind:
            with executed_notebook(path, {"NBGRADER_EXECUTION": "autograde"}) as (kernel, nb):
                then(kernel, graded_functions(nb))
            notebook_rows = [Row(function) for function in hints]
        else:
            notebook_rows = check_notebook(path, variants, seeds, log, then, every_mutant)
        for row in notebook_rows:
            found = hints.get(row.function, {})
            row.problems += found.get("problems", [])
            row.blind = found.get("blind") or None
            row.notebook = path.stem
            rows.append(row)
    return rows
