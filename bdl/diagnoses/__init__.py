"""Diagnoses: which known mistake a failing answer seems to make, recognised by what it computes.

A test cell runs its asserts inside ``with diagnosed("gaussian_nll"):``, citing with
``requirement("key")`` the sentence of the text its next checks follow from (``bdl.requirements``,
quoted under a failure). When one fails, the first
mistake of the function's table whose recogniser matches the answer adds one line under the error:
``Likely mistake: <sentence>``, which says what the code seems to do and what the spec asks, with no
code and no numbers. A recogniser never computes the right answer: students get this package. A
diagnosis only adds words to a failure; it never makes a test pass or fail. One table per assignment,
in this package's modules, maps each graded function (by its cell's grade id) to the name the notebook
defines it under and its mistakes; ``probes`` holds what they are made of.
"""

import contextlib
import functools
import importlib
import io
import pkgutil

from bdl import requirements, words
from bdl.diagnoses.probes import Function, Mistake  # noqa: F401 (the tables' parts, named here too)
from bdl.questions import question
from bdl.wire import Remote
from bdl.words import NOTE_WIDTH  # noqa: F401 (the width the tests check notes against)

PREFIX = "Likely mistake: "


@functools.lru_cache(maxsize=1)
def all_tables():
    """{grade id: Function} of every assignment: the ``TABLE`` of each module of this package that has
    one (an assignment's module is named after its notebook, as in ``bdl.questions``)."""
    tables = {}
    for found in sorted(pkgutil.iter_modules(__path__), key=lambda found: found.name):
        tables.update(getattr(importlib.import_module(f"{__name__}.{found.name}"), "TABLE", {}))
    return tables


def table_name(function):
    """The name of ``function``'s table (by grade id), as a test cell imports it, or None."""
    table = all_tables().get(function)
    return None if table is None else table.name


@functools.lru_cache(maxsize=1)
def sentences():
    """Every sentence a diagnosis can add, as the student reads it (with ``PREFIX``)."""
    return frozenset(PREFIX + mistake.sentence for function in all_tables().values() for mistake in function.mistakes)


def note(sentence):
    """A mistake's sentence as a note under an error: ``PREFIX`` and the sentence, wrapped."""
    return words.note(PREFIX, sentence)


def noted_mistake(text, function):
    """The name of the mistake of ``function``'s table (by grade id) that an error's ``text`` notes, or
    None (check-tests counts the mutants diagnosed so)."""
    sentence = noted(text)
    if sentence is None:
        return None
    table = all_tables().get(function)
    return next(
        (mistake.name for mistake in (table.mistakes if table else ()) if mistake.sentence == sentence),
        f"a mistake of another function: {sentence}",
    )


def has_note(text):
    """Whether an error's ``text`` holds a note at all (``noted`` says which), found without the tables
    (and TensorFlow, which they load)."""
    return words.flat(PREFIX) in words.flat(text)


def noted(text):
    """The sentence of the first diagnosis noted in an error's ``text`` (its traceback, say, or
    Validate's report of it), or None.

    Only one of the tables' own sentences is ever returned, whatever else the text says (an
    error's message is the raiser's to choose), so nothing but course text passes through."""
    if not has_note(text):
        return None
    return words.first_noted(text, {known: known[len(PREFIX) :] for known in sentences()})


def diagnose(grade_id, answer):
    """The first mistake of ``grade_id``'s table that ``answer`` seems to make, or None.

    A recogniser runs the answer on probe inputs chosen so that the mistake shows: it compares the
    answer with the *wrong* computation the mistake makes, or the answer with itself (twice the
    examples, twice the score: a sum, not a mean). It never computes the right answer, which must not
    ship in this package (students get it), nor leans on one a hidden test defines (the answer could
    call it while it is graded). Each runs with its output silenced and every error caught
    (``_quietly``), so a probe cannot break the cell."""
    function = all_tables().get(grade_id)
    for mistake in function.mistakes if function else ():
        if _quietly(mistake.recognise, answer):
            return mistake
    return None


def _quietly(recognise, *args):
    """``recognise(*args)`` with its output swallowed and any error taken as "no match"."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return bool(recognise(*args))
        except Exception:  # the answer is wrong in some other way: not this mistake
            return False


class diagnosed:  # noqa: N801 (used as a statement: ``with diagnosed("name"):``)
    """Run a test cell's asserts; on failure, note the answer's likely mistake under the error.

    When one of them fails (or the answer crashes), the answer is looked up by name in the notebook's
    namespace and diagnosed (``diagnose``); where no mistake matches, the error is as it was, saying
    what was checked.

    A class, not a generator: the error then leaves with its own traceback, so the feedback
    still finds the test cell's line that raised it."""

    active = []  # the cells running, innermost last: what ``requirement`` speaks of

    def __init__(self, grade_id, namespace=None):
        self.grade_id, self.namespace = grade_id, namespace
        self.requirement = None

    def __enter__(self):
        diagnosed.active.append(self)
        return self

    def __exit__(self, kind, error, traceback):
        diagnosed.active.remove(self)
        if error is None or not isinstance(error, Exception):
            return False
        if self.requirement is not None:
            _add_note(error, requirements.note(self.requirement.sentence))
        function = all_tables().get(self.grade_id)
        namespace = self.namespace if self.namespace is not None else traceback.tb_frame.f_globals
        answer = namespace.get(function.name) if function else None
        if answer is not None:
            mistake = _diagnosis(self.grade_id, function, answer)
            if mistake is not None:
                _add_note(error, note(mistake.sentence))
        return False


def requirement(key):
    """Cite the sentence of the text (``bdl.requirements``, by ``key``) that the checks which follow,
    in the innermost ``diagnosed`` cell, hold: a failure quotes it."""
    if not diagnosed.active:
        raise LookupError("requirement() cites a sentence for the checks of a `with diagnosed(...)` block")
    cell = diagnosed.active[-1]
    cell.requirement = requirements.find(cell.grade_id, key)


def _add_note(error, text):
    try:
        BaseException.add_note(error, text)
    except Exception:  # an exception class that refuses notes keeps its own words
        pass


def _diagnosis(grade_id, function, answer):
    """The mistake ``answer`` seems to make. An answer in the student's kernel (the examiner's
    ``Remote``) is diagnosed there, by these same public recognisers, and only the mistake's name
    comes back: the sentence is the table's own. A hint is not a verdict: a kernel that lies here
    can only choose which of its function's sentences its own feedback shows."""
    if type(answer) is not Remote:
        return diagnose(grade_id, answer)
    try:
        name = likely_mistake(grade_id, answer)
    except Exception:  # no answer: no hint
        return None
    return next((mistake for mistake in function.mistakes if type(name) is str and mistake.name == name), None)


@question
def likely_mistake(grade_id, answer):
    """The name of the first known mistake of ``grade_id``'s table that ``answer`` makes, or None."""
    mistake = diagnose(grade_id, answer)
    return None if mistake is None else mistake.name
