"""The traced table (bdl.requirements), both ways: every sentence is the release's own text, every
check cites one, every requirement is held by a check or says why not; a failure quotes it."""

import re

import nbformat
import pytest

from autograder.course import cells, citations
from autograder.course.directory import REPO, assignments, notebook_names
from bdl import requirements
from bdl.diagnoses import diagnosed
from bdl.diagnoses import requirement as cite


def _notebooks():
    for assignment in assignments():
        for name in notebook_names(REPO, assignment):
            yield assignment, name


def _graded(assignment, name):
    """{function: its test cell read (``citations``)} of a source notebook."""
    nb = nbformat.read(REPO / "source" / assignment / f"{name}.ipynb", 4)
    return {
        function: citations.read(tests.source, citations.defined_names(answer.source))
        for function, (answer, tests) in cells.graded_functions(nb).items()
    }


def _release_text(assignment, name):
    nb = nbformat.read(REPO / "release" / assignment / f"{name}.ipynb", 4)
    return " ".join(" ".join(cell.source.split()) for cell in nb.cells)


@pytest.mark.parametrize("assignment, name", list(_notebooks()))
def test_every_graded_function_has_its_requirements(assignment, name):
    missing = [function for function in _graded(assignment, name) if function not in requirements.all_tables()]
    assert not missing, f"graded functions of {assignment} with no table in bdl.requirements: {missing}"


@pytest.mark.parametrize("assignment, name", list(_notebooks()))
def test_every_sentence_is_the_release_text(assignment, name):
    text = _release_text(assignment, name)
    tables = requirements.all_tables()
    wrong = [
        (function, requirement.key)
        for function in _graded(assignment, name)
        for requirement in tables.get(function, ())
        if " ".join(requirement.sentence.split()) not in text
    ]
    assert not wrong, f"requirements whose sentence the release of {assignment} does not hold, word for word: {wrong}"


@pytest.mark.parametrize("assignment, name", list(_notebooks()))
def test_every_check_cites_a_sentence(assignment, name):
    uncited = {function: lines for function, read in _graded(assignment, name).items() if (lines := read.uncited())}
    assert not uncited, f"checks (test cell lines) citing no requirement, or loops not starting with one: {uncited}"


@pytest.mark.parametrize("assignment, name", list(_notebooks()))
def test_every_requirement_is_checked_or_says_why(assignment, name):
    tables = requirements.all_tables()
    for function, read in _graded(assignment, name).items():
        cited = read.keys()
        keys = {requirement.key for requirement in tables.get(function, ())}
        assert cited <= keys, f"{function}'s tests cite requirements its table lacks: {sorted(cited - keys)}"
        for requirement in tables.get(function, ()):
            if requirement.unchecked:
                assert requirement.key not in cited, (
                    f"{function}: {requirement.key} is checked, yet listed as unchecked"
                )
            else:
                assert requirement.key in cited, (
                    f"{function}: no check holds {requirement.key!r}: check it, or say why not"
                )


def test_keys_are_unique_and_reasons_are_sentences():
    for function, table in requirements.all_tables().items():
        keys = [requirement.key for requirement in table]
        assert len(keys) == len(set(keys)), function
        for requirement in table:
            assert re.fullmatch(r"[a-z][a-z0-9_]*", requirement.key), (function, requirement.key)
            assert not requirement.unchecked or len(requirement.unchecked.split()) >= 4, (function, requirement.key)


def test_a_failing_check_quotes_the_sentence_it_cites():
    sentence = requirements.find("brier_score", "mean").sentence
    with pytest.raises(AssertionError) as raised, diagnosed("brier_score", {}):
        cite("labels")
        cite("mean")
        raise AssertionError("the Brier score of two examples")
    assert raised.value.__notes__ == [requirements.note(sentence)]
    assert requirements.cited("\n".join(["AssertionError: x", *raised.value.__notes__])) == sentence


def test_the_checks_before_any_citation_quote_nothing_and_a_wrong_key_is_named():
    with pytest.raises(AssertionError) as raised, diagnosed("brier_score", {}):
        raise AssertionError("the Brier score")
    assert not getattr(raised.value, "__notes__", [])
    with pytest.raises(LookupError, match="brier_score has no requirement 'nosuch'"), diagnosed("brier_score", {}):
        cite("nosuch")
    assert not diagnosed.active


def _uncited(source):
    return citations.read(source).uncited()


def test_the_static_rules_catch_what_they_say():
    assert _uncited("with diagnosed('f'):\n    assert_close(f(1), 1, 'x')") == [2]
    assert _uncited("with diagnosed('f'):\n    requirement('a')\n    assert_close(f(1), 1, 'x')") == []
    loop = "with diagnosed('f'):\n    requirement('a')\n    for i in range(2):\n        assert f(i)\n        requirement('b')\n"
    assert _uncited(loop) == [3]
    helper = "def _check(x):\n    assert_close(f(x), x, 'x')\n\nwith diagnosed('f'):\n    _check(1)\n    requirement('a')\n    _check(2)\n"
    assert _uncited(helper) == [5]
    assert requirements.cited("The text asks: something no table says") is None
    read = citations.read("requirement('a')\nassert_close(f(x), 1, f'the NLL of {n} points', rtol=1e-4)\nassert x, 'x'")
    assert read.checks == (citations.Check(2, "a", "the NLL of … points"), citations.Check(3, "a", "x"))
    # A call of the answer holds the sentence cited before it, and needs one: an error it raises quotes it.
    read = citations.read("v = f(1)\nrequirement('a')\nw = f(2)\nrequirement('b')\nassert v", {"f"})
    assert read.keys() == {"a", "b"} and read.uncited() == [1]
    assert citations.read("requirement('a')\nrequirement('b')\nassert v").keys() == {"b"}
