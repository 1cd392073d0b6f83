"""Every check of an assignment's tests, in one live kernel per notebook: seeds, mutants, alternatives,
independence, the kit and the hints; one row per graded function."""

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


def check_notebook(path, variants, seeds=5, log=None, then=None, every_mutant=False):
    """Check every graded function of the solution notebook ``path``; return one row each.

    A row: function, seeds passed, mutants killed, alternatives passed, the
    other functions' tests that still pass without it and with its first
    killed mutant in its place, or each with ``every_mutant`` (each with its
    total), and ``problems``: what failed, one line each, a callable of ``bdl``
    that passes the function's tests included (``check_kit``; the first row
    holds its figures under ``kit``). ``then(kernel, functions)``, if given,
    runs last in the same kernel.
    """
    rows = []
    with executed_notebook(path, {"NBGRADER_EXECUTION": "autograde"}) as (kernel, nb):
        functions = graded_functions(nb)
        wrong = {function: [] for function in functions}  # the killed mutants the other tests run with
        for function, (solution, tests) in functions.items():
            row = {
                "function": function,
                "seeds": 0,
                "num_seeds": seeds,
                "killed": 0,
                "num_mutants": 0,
                "passed": 0,
                "num_alternatives": 0,
                "diagnosed": 0,
                "problems": [],
            }
            for seed in range(seeds):
                kernel.seed(seed)
                if seed == 0:  # for check_kit: the stand-ins the tests make, and their first call of the answer
                    watch(kernel, solution, function)
                try:
                    ok, why = kernel.succeeds(tests.source, test=True)
                finally:
                    if seed == 0:
                        watch(kernel, solution, function, stop=True)
                row["seeds"] += ok
                if not ok:
                    row["problems"].append(f"the reference fails under seed {seed}: {why}")
            mutants = variants["mutants"].get(function, [])
            row["num_mutants"] = len(mutants)
            if len(mutants) < MIN_MUTANTS:
                row["problems"].append(f"only {len(mutants)} mutants (at least {MIN_MUTANTS} needed)")
            written_as = variants["diagnoses"].get(function, {})
            for name, old, new in mutants:
                passed, why, text = run_variant(kernel, solution, tests, old, new)
                row["killed"] += passed is False
                if passed is None:
                    row["problems"].append(f"mutant {name!r} {why}")
                elif passed:
                    row["problems"].append(f"mutant {name!r} survives")
                else:
                    if every_mutant or row["killed"] == 1:  # by default one: all take 2-5 times as long
                        wrong[function].append((name, old, new))
                    noted = kernel.noted_mistake(text, function)
                    row["diagnosed"] += noted is not None and noted == written_as.get(name)
                    if noted is not None and noted != written_as.get(name):
                        row["problems"].append(
                            f"mutant {name!r} is diagnosed as {noted!r}, but makes {written_as.get(name)!r}"
                        )
            if mutants and names_mistakes(tests, function) and row["diagnosed"] < MIN_DIAGNOSED * len(mutants):
                row["problems"].append(
                    f"only {row['diagnosed']} of {len(mutants)} mutants diagnosed (at least {MIN_DIAGNOSED:.0%} needed)"
                )
            alternatives = variants["alternatives"].get(function, [])
            row["num_alternatives"] = len(alternatives)
            if len(alternatives) < MIN_ALTERNATIVES:
                row["problems"].append(f"only {len(alternatives)} alternatives (at least {MIN_ALTERNATIVES} needed)")
            for name, old, new in alternatives:
                passed, why, _ = run_variant(kernel, solution, tests, old, new)
                row["passed"] += bool(passed)
                if not passed:
                    row["problems"].append(f"correct alternative {name!r} fails: {why}")
            rows.append(row)
            if log:
                log(f"{path.stem}: {function} checked")
        missing = check_independence(kernel, functions)
        broken_by = check_dependence(kernel, functions, wrong)
        for row in rows:
            function = row["function"]
            row["problems"] += [f"the tests of {other} fail when {function} is missing" for other in missing[function]]
            row["problems"] += [
                f"the tests of {other} fail when {function} is wrong (mutant {name!r})"
                for other, name in broken_by[function]
            ]
            broken = set(missing[function]) | {other for other, _ in broken_by[function]}
            row["independent"], row["num_others"] = len(functions) - 1 - len(broken), len(functions) - 1
        found, tried, seconds = check_kit(kernel, functions)
        for row in rows:
            row["problems"] += found.get(row["function"], [])
        if rows:
            rows[0]["kit"] = (tried, seconds)
        if log:
            log(f"{path.stem}: {tried} callables of bdl tried in the graded functions' places ({seconds:.0f} s)")
        unknown = set(variants["mutants"]) | set(variants["alternatives"])
        unknown -= set(functions)
        for function in sorted(unknown):
            rows.append(
                {
                    "function": function,
                    "seeds": 0,
                    "num_seeds": 0,
                    "killed": 0,
                    "num_mutants": 0,
                    "passed": 0,
                    "num_alternatives": 0,
                    "diagnosed": 0,
                    "independent": 0,
                    "num_others": 0,
                    "problems": ["variants given for a function the notebook does not grade"],
                }
            )
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
    """Check the tests of every notebook of ``assignment``; return rows with a ``notebook`` key.

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
            notebook_rows = [{"function": function, "problems": []} for function in hints]
        else:
            notebook_rows = check_notebook(path, variants, seeds, log, then, every_mutant)
        for row in notebook_rows:
            found = hints.get(row["function"], {})
            row["problems"] += found.get("problems", [])
            if found.get("blind"):
                row["blind"] = found["blind"]
            rows.append({"notebook": path.stem, **row})
    return rows
