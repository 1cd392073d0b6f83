"""The sweep of ``bdl``'s callables: each in every graded function's place (``autograder.checktests.candidates`` in
the kernel), none of which may pass its tests, as students get ``bdl``."""

import ast
import time

from nbclient.exceptions import CellExecutionError

from autograder.checktests.kernel import last_error_line

# Seconds one question of a test may take with a callable of bdl in the graded function's place.
KIT_QUESTION_TIMEOUT = 60


# The kernel's side of the kit sweep.
CANDIDATES = "autograder.checktests.candidates"


def answer_name(source, function):
    """The name under which a solution cell defines its answer: its one function or class (the one named
    ``function`` if it defines several), or None."""
    defined = [
        node.name
        for node in ast.parse(source).body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    return function if function in defined else (defined[0] if len(defined) == 1 else None)


def watch(kernel, solution, function, stop=False):
    """Start (or ``stop``) recording the stand-ins the kernel is sent and the first call of the answer."""
    name = answer_name(solution.source, function)
    kernel.call(f"{CANDIDATES}:{'stop_recording' if stop else 'start_recording'}")
    if name:
        kernel.call(f"{CANDIDATES}:{'unwatch' if stop else 'watch'}", name, namespace=True)


def _catches(source):
    """Whether a test cell catches errors (then an answer that raises may still pass it)."""
    return any(isinstance(node, ast.Try) and node.handlers for node in ast.walk(ast.parse(source)))


def check_kit(kernel, functions):
    """Every callable ``bdl`` holds in place of each graded function: each function and class of every
    ``bdl`` module, and each stand-in the tests made while they ran against the reference (recorded
    then, with the tests' own arguments), that can take the function's call. None may pass its tests:
    students get ``bdl``.

    Return ``({function: [problem, ...]}, callables tried, seconds)``. The kernel's state is put back
    after each function (its solution cell runs again), and the reference must pass once more then."""
    problems, tried, started = {}, 0, time.monotonic()
    client = kernel.client
    saved = client.timeout, client.interrupt_on_timeout
    # A candidate that never returns is not an answer: it is stopped, and the question fails.
    client.timeout, client.interrupt_on_timeout = KIT_QUESTION_TIMEOUT, True
    kernel.call(f"{CANDIDATES}:quiet_diagnoses")
    try:
        for function, (solution, tests) in functions.items():
            found = problems.setdefault(function, [])
            name = answer_name(solution.source, function)
            if name is None:
                found.append("no callable of bdl tried in its place: its cell defines no one function or class")
                continue
            screen = not _catches(tests.source)
            try:
                labels = kernel.call(f"{CANDIDATES}:choose", name, screen, namespace=True)
            except CellExecutionError as error:
                found.append(f"bdl's callables could not be listed in its place: {last_error_line(str(error))}")
                continue
            tried += len(labels)
            if not labels:
                continue
            try:
                for index, label in enumerate(labels):
                    kernel.call(f"{CANDIDATES}:bind", name, index, namespace=True)
                    kernel.seed(0)
                    if kernel.succeeds(tests.source, test=True)[0]:
                        found.append(f"bdl's {label} passes the tests of {function}: students get it")
            finally:
                kernel.run(solution.source)
            # A candidate that upset the kernel's state would hide the next ones' verdicts.
            kernel.seed(0)
            ok, why = kernel.succeeds(tests.source, test=True)
            if not ok:
                found.append(f"the reference fails after bdl's callables were tried in its place: {why}")
    finally:
        client.timeout, client.interrupt_on_timeout = saved
        kernel.call(f"{CANDIDATES}:quiet_diagnoses", False)
    return problems, tried, time.monotonic() - started
