"""The hints, checked: none for a correct answer, and a blind wrong answer's names its mistake."""

from nbclient.exceptions import CellExecutionError

from autograder.checktests.blind import judge
from autograder.checktests.kernel import last_error_line
from autograder.checktests.variants import run_variant
from autograder.course.cells import names_mistakes


def probe_hint(kernel, function):
    """The mistake ``function``'s recognisers name for the answer the kernel holds now, as a failing test
    of it would name it in its feedback (asked from the examiner), or None."""
    # The tables' recognisers load TensorFlow: the kernel, which has it, reads them.
    name = kernel.call("bdl.diagnoses:table_name", function)
    if name is None:
        return None
    kernel.seed(0)
    source = (
        f"from bdl.diagnoses import diagnosed\n{name}\n"
        f"with diagnosed({function!r}):\n    raise AssertionError('a probe of the hints')"
    )
    return kernel.noted_mistake(kernel.outcome(source, test=True)[2], function)


def _hint_with(kernel, solution, source, function):
    """``probe_hint`` with ``source`` in place of the solution cell."""
    try:
        kernel.run(source)
        return probe_hint(kernel, function)
    finally:
        kernel.run(solution.source)


def _run_answer(kernel, solution, tests, source):
    """(tests pass, why not, the error's text) with the whole solution cell replaced by ``source``; an
    answer cell that fails to run fails, as it does when graded."""
    try:
        return run_variant(kernel, solution, tests, solution.source, source)
    except CellExecutionError as error:
        return False, f"the answer cell fails: {last_error_line(str(error))}", ""


def check_hints(kernel, functions, variants, catalogue, alternatives=True):
    """A hint never contradicts the answer: none for a correct alternative (if ``alternatives``) or a
    correct blind answer, and a blind wrong answer's hint must name its mistake (``judge``).

    Return {function: {"problems": [...], "blind": its blind figures, or None}}."""
    found = {}
    for function, (solution, tests) in functions.items():
        problems, blind = [], None
        hinted = names_mistakes(tests, function)  # tests that name no mistake give no hint to check
        for name, old, new in variants["alternatives"].get(function, []) if alternatives and hinted else ():
            hint = solution.source.count(old) == 1 and _hint_with(
                kernel, solution, solution.source.replace(old, new), function
            )
            if hint:
                problems.append(f"correct alternative {name!r} gets the hint {hint!r}")
        if catalogue:
            for name, source in catalogue["correct"].get(function, []):
                passed, why, _ = _run_answer(kernel, solution, tests, source)
                if not passed:
                    problems.append(f"correct blind answer {name!r} fails: {why}")
                hint = hinted and _hint_with(kernel, solution, source, function)
                if hint:
                    problems.append(f"correct blind answer {name!r} gets the hint {hint!r}")
            results = []
            for name, _mistake, source in catalogue["answers"].get(function, []):
                passed, why, text = _run_answer(kernel, solution, tests, source)
                results.append((name, bool(passed), None if passed else kernel.noted_mistake(text, function), why))
            blind = judge(function, results, catalogue["right"].get(function, {}))
            problems += blind.pop("problems")
        found[function] = {"problems": problems, "blind": blind}
    if catalogue:
        for function in sorted((set(catalogue["answers"]) | set(catalogue["correct"])) - set(functions)):
            found[function] = {
                "problems": ["blind answers given for a function the notebook does not grade"],
                "blind": None,
            }
    return found
