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
each in the function's place (``autograder.candidates`` in the kernel: every function and class of
``bdl``, and every stand-in the tests made, with their arguments) and runs the tests.

A second catalogue, written blind (by someone who never read the recognisers or the mutants), lives in
``tests/course/mutants/blind/<assignment>.py`` as whole answer cells; ``blind/judged.py`` says, for each
of its answers, which hints would name its mistake (``autograder.course.blind``). It measures what the
tuned figure cannot: the hints a class will get. A hint that contradicts an answer (a correct
alternative, a correct blind answer, or a blind wrong answer it does not fit) is a problem
(``check_hints``).
"""
import ast
import contextlib
import json
import os
import time
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

from autograder.course.blind import figures, judge, load_blind, load_module, target_problems
from autograder.course.cells import graded_functions
from autograder.course.table import format_table
from autograder.course.directory import KERNEL_LOG_LEVEL, REPO, assignments, check_assignment
from autograder.worker.relay import ExaminingClient
from autograder.worker.guard import GUARD

MUTANTS_DIR = REPO / "tests" / "course" / "mutants"
# A function whose tests no wrong answer was tried against is not checked.
MIN_MUTANTS = 3
# Fewer correct idioms than this, and a test that rejects a common one can go unseen.
MIN_ALTERNATIVES = 3
# The share of a function's mutants whose failure must name the mistake they make.
MIN_DIAGNOSED = 0.6
# Seconds one cell of the solution notebook may take while check-tests runs it.
NOTEBOOK_CELL_TIMEOUT = 600
# Seconds one question of a test may take with a callable of bdl in the graded function's place.
KIT_QUESTION_TIMEOUT = 60


def load_variants(assignment, mutants_dir=MUTANTS_DIR):
    """Return {"mutants": ..., "alternatives": ..., "diagnoses": ...} from ``<mutants_dir>/<assignment>.py``."""
    path = Path(mutants_dir) / f"{assignment}.py"
    if not path.exists():
        return {"mutants": {}, "alternatives": {}, "diagnoses": {}}
    module = load_module(path)
    return {"mutants": module.MUTANTS, "alternatives": module.ALTERNATIVES,
            "diagnoses": getattr(module, "DIAGNOSES", {})}


class NotebookKernel:
    """A kernel that has run a notebook; ``run(code)`` executes more code in it."""

    def __init__(self, client):
        self.client = client

    def run(self, source, test=False):
        """Execute ``source`` (examined, as a test cell is when graded, if ``test``); return its
        outputs or raise CellExecutionError."""
        cell = nbformat.v4.new_code_cell(source)
        if test:
            cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True,
                                         "grade_id": "checked_tests", "points": 1}
        # nbclient stores the executed cell back at its index: lend it a slot.
        cells = self.client.nb.cells
        cells.append(cell)
        try:
            self.client.execute_cell(cell, len(cells) - 1)
        finally:
            cells.pop()
        return cell.outputs

    def succeeds(self, source, test=False):
        """Return (True, "") if ``source`` runs cleanly and silently, else (False, why)."""
        return self.outcome(source, test)[:2]

    def outcome(self, source, test=False):
        """Return (True, "", "") if ``source`` runs cleanly and silently, else (False, why, the
        whole error as text).

        nbgrader scores a test cell zero when it writes to stderr, so that fails too.
        """
        try:
            outputs = self.run(source, test)
        except CellExecutionError as error:
            text = str(error).strip()
            return False, _last_error_line(text), text
        for output in outputs:
            if output.output_type == "stream" and output.name == "stderr":
                return False, f"wrote to stderr: {output.text.strip()[:200]}", output.text
        return True, "", ""


def _last_error_line(text):
    """The error's own line: its last line that is not a diagnosis note."""
    from bdl.diagnoses import PREFIX  # its recognisers load TensorFlow: only here, not for every command
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith(PREFIX)]
    return lines[-1] if lines else text


def noted_mistake(text, function):
    """The name of the mistake of ``function``'s table that an error's text notes, or None."""
    from bdl.diagnoses import all_tables, noted  # its recognisers load TensorFlow: only here, not for every command
    sentence, table = noted(text), all_tables().get(function)
    return next((mistake.name for mistake in (table.mistakes if table else ()) if mistake.sentence == sentence),
                f"a mistake of another function: {sentence}" if sentence else None)


@contextlib.contextmanager
def executed_notebook(path, env):
    """Execute every cell of ``path`` with ``env`` added to the kernel's environment.

    Yields ``(kernel, nb)``: the live kernel and the notebook with its outputs.
    A cell that fails stops execution with CellExecutionError.
    """
    nb = nbformat.read(path, as_version=4)
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        # The grading guard and the examiner, as in `grade`: the tests run as they will when graded.
        client = ExaminingClient(nb, timeout=NOTEBOOK_CELL_TIMEOUT, kernel_name="python3",
                                extra_arguments=[KERNEL_LOG_LEVEL,
                                                 f"--IPKernelApp.exec_lines={GUARD}"],
                                resources={"metadata": {"path": str(Path(path).parent)}})
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                if cell.cell_type == "code":
                    client.execute_cell(cell, index)
            yield NotebookKernel(client), nb
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


SEED_CODE = "import tensorflow; tensorflow.keras.utils.set_random_seed({})"


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


# The kernel's side of the kit sweep (``autograder.candidates``), named without a name of its own in the
# notebook's namespace.
CANDIDATES = "__import__('autograder.candidates', fromlist=['candidates'])"


def answer_name(source, function):
    """The name under which a solution cell defines its answer: its one function or class (the one named
    ``function`` if it defines several), or None."""
    defined = [node.name for node in ast.parse(source).body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return function if function in defined else (defined[0] if len(defined) == 1 else None)


def _watch(kernel, solution, function, stop=False):
    """Start (or ``stop``) recording the stand-ins the kernel is sent and the first call of the answer."""
    name = answer_name(solution.source, function)
    if stop:
        kernel.run(f"{CANDIDATES}.stop_recording()" + (f"; {CANDIDATES}.unwatch(globals(), {name!r})" if name else ""))
    else:
        kernel.run(f"{CANDIDATES}.start_recording()" + (f"; {CANDIDATES}.watch(globals(), {name!r})" if name else ""))


def _catches(source):
    """Whether a test cell catches errors (then an answer that raises may still pass it)."""
    return any(isinstance(node, ast.Try) and node.handlers for node in ast.walk(ast.parse(source)))


def _printed(outputs):
    """The JSON a kernel cell printed last on stdout."""
    text = "".join(output.text for output in outputs if output.output_type == "stream" and output.name == "stdout")
    return json.loads(text.strip().splitlines()[-1])


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
    kernel.run(f"{CANDIDATES}.quiet_diagnoses()")
    try:
        for function, (solution, tests) in functions.items():
            found = problems.setdefault(function, [])
            name = answer_name(solution.source, function)
            if name is None:
                found.append("no callable of bdl tried in its place: its cell defines no one function or class")
                continue
            screen = not _catches(tests.source)
            try:
                labels = _printed(kernel.run(f"print(__import__('json').dumps({CANDIDATES}.choose(globals(), "
                                             f"{name!r}, {screen})))"))
            except CellExecutionError as error:
                found.append(f"bdl's callables could not be listed in its place: {_last_error_line(str(error))}")
                continue
            tried += len(labels)
            if not labels:
                continue
            try:
                for index, label in enumerate(labels):
                    kernel.run(f"{CANDIDATES}.bind(globals(), {name!r}, {index})\n" + SEED_CODE.format(0))
                    if kernel.succeeds(tests.source, test=True)[0]:
                        found.append(f"bdl's {label} passes the tests of {function}: students get it")
            finally:
                kernel.run(solution.source)
            # A candidate that upset the kernel's state would hide the next ones' verdicts.
            kernel.run(SEED_CODE.format(0))
            ok, why = kernel.succeeds(tests.source, test=True)
            if not ok:
                found.append(f"the reference fails after bdl's callables were tried in its place: {why}")
    finally:
        client.timeout, client.interrupt_on_timeout = saved
        kernel.run(f"{CANDIDATES}.quiet_diagnoses(False)")
    return problems, tried, time.monotonic() - started


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
        for function, (solution, tests) in functions.items():
            row = {"function": function, "seeds": 0, "num_seeds": seeds, "killed": 0,
                   "num_mutants": 0, "passed": 0, "num_alternatives": 0, "diagnosed": 0, "problems": []}
            broken = check_independence(kernel, functions, function)
            row["problems"] += [f"the tests of {other} fail when {function} is missing" for other in broken]
            for seed in range(seeds):
                kernel.run(SEED_CODE.format(seed))
                if seed == 0:  # for check_kit: the stand-ins the tests make, and their first call of the answer
                    _watch(kernel, solution, function)
                try:
                    ok, why = kernel.succeeds(tests.source, test=True)
                finally:
                    if seed == 0:
                        _watch(kernel, solution, function, stop=True)
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
                        wrong_breaks = check_dependence(kernel, functions, function, old, new)
                        broken += [other for other in wrong_breaks if other not in broken]
                        row["problems"] += [f"the tests of {other} fail when {function} is wrong "
                                            f"(mutant {name!r})" for other in wrong_breaks]
                    noted = noted_mistake(text, function)
                    row["diagnosed"] += noted is not None and noted == written_as.get(name)
                    if noted is not None and noted != written_as.get(name):
                        row["problems"].append(f"mutant {name!r} is diagnosed as {noted!r}, "
                                               f"but makes {written_as.get(name)!r}")
            row["independent"], row["num_others"] = len(functions) - 1 - len(broken), len(functions) - 1
            if mutants and row["diagnosed"] < MIN_DIAGNOSED * len(mutants):
                row["problems"].append(f"only {row['diagnosed']} of {len(mutants)} mutants diagnosed "
                                       f"(at least {MIN_DIAGNOSED:.0%} needed)")
            alternatives = variants["alternatives"].get(function, [])
            row["num_alternatives"] = len(alternatives)
            if len(alternatives) < MIN_ALTERNATIVES:
                row["problems"].append(f"only {len(alternatives)} alternatives "
                                       f"(at least {MIN_ALTERNATIVES} needed)")
            for name, old, new in alternatives:
                passed, why, _ = run_variant(kernel, solution, tests, old, new)
                row["passed"] += bool(passed)
                if not passed:
                    row["problems"].append(f"correct alternative {name!r} fails: {why}")
            rows.append(row)
            if log:
                log(f"{path.stem}: {function} checked")
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
            rows.append({"function": function, "seeds": 0, "num_seeds": 0, "killed": 0,
                         "num_mutants": 0, "passed": 0, "num_alternatives": 0, "diagnosed": 0,
                         "independent": 0, "num_others": 0,
                         "problems": ["variants given for a function the notebook does not grade"]})
        if then:
            then(kernel, functions)
    return rows


def check_tests(assignment, seeds=5, root=REPO, mutants_dir=MUTANTS_DIR, log=None, only_blind=False,
                every_mutant=False):
    """Check the tests of every notebook of ``assignment``; return rows with a ``notebook`` key.

    A row also holds the problems of ``check_hints`` and, where the assignment has a blind catalogue,
    ``blind``: its function's figures there. ``only_blind``: only those, without the rest.
    ``every_mutant``: see ``check_notebook``."""
    variants = load_variants(assignment, mutants_dir)
    catalogue = load_blind(assignment, mutants_dir)
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


def probe_hint(kernel, function):
    """The mistake ``function``'s recognisers name for the answer the kernel holds now, as a failing test
    of it would name it in its feedback (asked from the examiner), or None."""
    from bdl.diagnoses import all_tables  # its recognisers load TensorFlow: only here, not for every command
    table = all_tables().get(function)
    if table is None:
        return None
    kernel.run(SEED_CODE.format(0))
    source = (f"from bdl.diagnoses import diagnosed\n{table.name}\n"
              f"with diagnosed({function!r}):\n    raise AssertionError('a probe of the hints')")
    return noted_mistake(kernel.outcome(source, test=True)[2], function)


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
        return False, f"the answer cell fails: {_last_error_line(str(error))}", ""


def check_hints(kernel, functions, variants, catalogue, alternatives=True):
    """A hint never contradicts the answer: none for a correct alternative (if ``alternatives``) or a
    correct blind answer, and a blind wrong answer's hint must name its mistake (``judge``).

    Return {function: {"problems": [...], "blind": its blind figures, or None}}."""
    found = {}
    for function, (solution, tests) in functions.items():
        problems, blind = [], None
        for name, old, new in variants["alternatives"].get(function, []) if alternatives else ():
            hint = solution.source.count(old) == 1 and _hint_with(kernel, solution, solution.source.replace(old, new),
                                                                  function)
            if hint:
                problems.append(f"correct alternative {name!r} gets the hint {hint!r}")
        if catalogue:
            for name, source in catalogue["correct"].get(function, []):
                passed, why, _ = _run_answer(kernel, solution, tests, source)
                if not passed:
                    problems.append(f"correct blind answer {name!r} fails: {why}")
                hint = _hint_with(kernel, solution, source, function)
                if hint:
                    problems.append(f"correct blind answer {name!r} gets the hint {hint!r}")
            results = []
            for name, _mistake, source in catalogue["answers"].get(function, []):
                passed, _, text = _run_answer(kernel, solution, tests, source)
                results.append((name, bool(passed), None if passed else noted_mistake(text, function)))
            blind = judge(function, results, catalogue["right"].get(function, {}))
            problems += blind.pop("problems")
        found[function] = {"problems": problems, "blind": blind}
    if catalogue:
        for function in sorted((set(catalogue["answers"]) | set(catalogue["correct"])) - set(functions)):
            found[function] = {"problems": ["blind answers given for a function the notebook does not grade"],
                               "blind": None}
    return found


def format_check_table(rows):
    """Return the rows as a text table followed by one line per problem."""
    header = ("notebook", "function", "seeds passed", "mutants killed", "mistakes named", "alternatives passed",
              "other tests pass without it or with it wrong")
    text = [format_table(header, [(r["notebook"], r["function"], f"{r['seeds']}/{r['num_seeds']}",
                                   f"{r['killed']}/{r['num_mutants']}", _share(r["diagnosed"], r["num_mutants"]),
                                   f"{r['passed']}/{r['num_alternatives']}",
                                   f"{r['independent']}/{r['num_others']}") for r in rows])]
    diagnosed, mutants = sum(r["diagnosed"] for r in rows), sum(r["num_mutants"] for r in rows)
    text.append(f"mistakes named: {_share(diagnosed, mutants)} of the mutants")
    kit = [r["kit"] for r in rows if "kit" in r]
    if kit:
        text.append(f"bdl's callables tried in the graded functions' places: {sum(n for n, _ in kit)} "
                    f"({sum(seconds for _, seconds in kit):.0f} s)")
    text += [f"PROBLEM {r['notebook']}/{r['function']}: {problem}"
             for r in rows for problem in r["problems"]]
    return "\n".join(text)


def format_blind(rows):
    """The blind catalogue's figures next to the tuned one, and each blind answer's outcome."""
    measured = [r for r in rows if r.get("blind")]
    if not measured:
        return ""
    header = ("notebook", "function", "blind answers", "failing", "hinted", "hinted right")
    text = [format_table(header, [(r["notebook"], r["function"], str(r["blind"]["answers"]),
                                   str(r["blind"]["failing"]), str(r["blind"]["hinted"]),
                                   str(r["blind"]["right"])) for r in measured])]
    failing, hinted, right = figures(rows)
    text.append(f"blind catalogue: {_share(hinted, failing)} of the failing answers hinted (recall), "
                f"{_share(right, hinted)} of the hints right (precision)")
    if any("num_mutants" in r for r in rows):
        diagnosed, mutants = sum(r.get("diagnosed", 0) for r in rows), sum(r.get("num_mutants", 0) for r in rows)
        text.append(f"tuned catalogue: {_share(diagnosed, mutants)} of the mutants named")
    text += [f"  {line}" for r in measured for line in r["blind"]["lines"]]
    return "\n".join(text)


def _share(count, total):
    return f"{count}/{total} ({count / total:.0%})" if total else "0/0"


def _check_tests(args):
    failed = False
    for assignment in args.assignments or assignments(args.root):
        check_assignment(assignment, args.root)
        rows = check_tests(assignment, args.seeds, args.root, args.mutants, only_blind=args.blind_only,
                           every_mutant=args.every_mutant)
        text = ([] if args.blind_only else [format_check_table(rows)]) + [format_blind(rows)]
        if args.blind_only:
            text += [f"PROBLEM {r['notebook']}/{r['function']}: {problem}" for r in rows for problem in r["problems"]]
        missed = target_problems(rows)
        text += [f"PROBLEM {assignment}: {problem}" for problem in missed]
        print(f"== {assignment}\n" + "\n".join(part for part in text if part) + "\n", flush=True)
        failed |= any(row["problems"] for row in rows) or bool(missed)
    return 1 if failed else 0


def add_parser(commands):
    check = commands.add_parser("check-tests", help="run the graded tests against the reference "
                                "under several seeds and against the kept mutants")
    check.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: every assignment")
    check.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (default %(default)d)")
    check.add_argument("--root", default=str(REPO), help="the course directory")
    check.add_argument("--mutants", default=str(MUTANTS_DIR),
                       help="the folder of <assignment>.py variant files (and blind/, the blind catalogue)")
    check.add_argument("--blind-only", action="store_true",
                       help="only the blind catalogue and its hints (one run of the notebook, one of the tests "
                       "per answer)")
    check.add_argument("--every-mutant", action="store_true",
                       help="try the other functions' tests with every killed mutant in place, "
                       "not only each function's first (two to five times slower)")
    check.set_defaults(run=_check_tests)
