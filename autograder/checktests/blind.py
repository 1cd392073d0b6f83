"""The blind catalogue: wrong and right answers written by someone who never read the recognisers
(``bdl/diagnoses``) or the mutants, kept to measure the hints a class will get.

The recognisers were tuned on the mutants, so how often they name a mutant's mistake says little of
the hints a class will get; answers no one fitted them to say it. So the catalogue is frozen once
written, never edited, and its judgement (``blind/judged.py``: which hints would be right for each
answer) is written after the freeze and before any measurement. ``check-tests`` runs each answer's
tests and notes the hint it gets; here, what the results add up to.
"""

import importlib.util
from pathlib import Path

# The targets, per assignment: the share of hinted failing answers whose hint names their mistake
# (a hint judged wrong counts against it), and the share of failing answers given any hint.
MIN_PRECISION = 0.95
MIN_RECALL = 0.5


def load_module(path):
    """The Python file ``path`` (a catalogue of answers), loaded as a module of its own."""
    spec = importlib.util.spec_from_file_location(f"{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_blind(assignment, mutants_dir, folder=None):
    """{"answers": ..., "correct": ..., "right": ...} of ``<folder>/<assignment>.py`` (by default the
    catalogue ``<mutants_dir>/blind/``) and its judgement, or None when the assignment has none there.

    The catalogue holds, per graded answer cell's grade id::

        ANSWERS = {grade_id: [(name, "the mistake, as its writer meant it", "whole answer cell")]}
        CORRECT = {grade_id: [(name, "whole answer cell")]}

    Its judgement, ``judged.py``, is written from the answers' code and sentences against the
    recognisers' sentences (an empty set: no hint of the tables would be right for it)::

        RIGHT = {assignment: {grade_id: {answer name: {the names of the hints that would be right}}}}
    """
    folder = Path(folder) if folder else Path(mutants_dir) / "blind"
    path = folder / f"{assignment}.py"
    if not path.exists():
        return None
    module = load_module(path)
    judged = folder / "judged.py"
    right = load_module(judged).RIGHT.get(assignment, {}) if judged.exists() else {}
    return {"answers": module.ANSWERS, "correct": getattr(module, "CORRECT", {}), "right": right}


def judge(function, results, right):
    """Add up one function's blind answers; ``results`` are (name, passed, hint, message) with the hint's
    name or None and the failing test's message (what the student reads above the hint). Return its
    figures and ``problems``: grading gaps (a wrong answer passes) and wrong hints."""
    row = {"answers": len(results), "failing": 0, "hinted": 0, "right": 0, "problems": [], "lines": []}
    for name, passed, hint, message in results:
        acceptable = right.get(name)
        if passed:
            row["problems"].append(f"blind answer {name!r} passes its tests (a grading gap)")
            row["lines"].append(f"{function} {name!r}: passes")
            continue
        row["failing"] += 1
        row["hinted"] += hint is not None
        ok = hint is not None and acceptable is not None and hint in acceptable
        row["right"] += ok
        if hint is not None and not ok:
            row["problems"].append(
                f"blind answer {name!r} gets the hint {hint!r}, judged right: "
                f"{sorted(acceptable) if acceptable is not None else 'not judged'}"
            )
        row["lines"].append(
            f"{function} {name!r}: fails, hint {hint or '-'}"
            + ("" if hint is None else " (right)" if ok else " (WRONG)")
            + f"; says: {message}"
        )
    return row


def figures(rows):
    """(failing, hinted, right) over the rows that measured blind answers."""
    return tuple(sum((row.blind or {}).get(key, 0) for row in rows) for key in ("failing", "hinted", "right"))


def target_problems(rows):
    """The targets the rows' blind answers miss, one line each."""
    failing, hinted, right = figures(rows)
    problems = []
    if failing and hinted < MIN_RECALL * failing:
        problems.append(f"blind recall {hinted}/{failing} (at least {MIN_RECALL:.0%} needed)")
    if hinted and right < MIN_PRECISION * hinted:
        problems.append(f"blind precision {right}/{hinted} (at least {MIN_PRECISION:.0%} needed)")
    return problems
