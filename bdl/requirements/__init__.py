"""What the text asks of each graded function, sentence by sentence, and which checks hold it.

Each assignment's module (named after its notebook, as in ``bdl.diagnoses``) has a ``TABLE``:
{grade id: (Requirement, ...)}, each sentence quoted from the release notebook. A test cell names the
sentence its next checks follow from with ``requirement("key")`` inside ``with diagnosed(...)``; a
failure then quotes it under the error (``PREFIX``). A requirement no check holds says why
(``unchecked``). ``tests/course/test_requirements.py`` keeps the table true both ways; the grading
guide prints it, so a TA can answer "why did I lose this point" with the sentence.
"""

import functools
import importlib
import pkgutil
from dataclasses import dataclass

from bdl import words

PREFIX = "The text asks: "


@dataclass(frozen=True)
class Requirement:
    key: str  # what a test cell cites: requirement("key")
    sentence: str  # quoted from the release notebook's text
    unchecked: str = ""  # why no check holds it, for a requirement the course does not check


@functools.lru_cache(maxsize=1)
def all_tables() -> dict[str, tuple[Requirement, ...]]:
    """{grade id: requirements} of every assignment."""
    tables: dict[str, tuple[Requirement, ...]] = {}
    for found in sorted(pkgutil.iter_modules(__path__), key=lambda found: found.name):
        tables.update(getattr(importlib.import_module(f"{__name__}.{found.name}"), "TABLE", {}))
    return tables


def find(grade_id: str, key: str) -> Requirement:
    """The requirement ``key`` of ``grade_id``'s table; a LookupError names what is missing."""
    for requirement in all_tables().get(grade_id, ()):
        if requirement.key == key:
            return requirement
    raise LookupError(f"{grade_id} has no requirement {key!r} in bdl.requirements")


def plain(sentence: str) -> str:
    """A sentence as an error's plain text shows it: without markdown's bold and code marks (its math
    stays as the student read it typeset, in LaTeX)."""
    return sentence.replace("**", "").replace("`", "")


def note(sentence: str) -> str:
    """A requirement's sentence as a note under an error, wrapped as the diagnoses' are."""
    return words.note(PREFIX, plain(sentence))


@functools.lru_cache(maxsize=1)
def sentences() -> frozenset[str]:
    """Every sentence a check can cite."""
    return frozenset(r.sentence for table in all_tables().values() for r in table if not r.unchecked)


def cited(text: str) -> str | None:
    """The sentence of the first requirement noted in an error's ``text``, or None. Only the tables'
    own sentences are returned, whatever else the text says."""
    if words.flat(PREFIX) not in words.flat(text):
        return None
    return words.first_noted(text, {PREFIX + plain(known): known for known in sentences()})
