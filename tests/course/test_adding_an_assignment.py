"""The convention that lets an assignment be added by its own files (authoring, "Adding an assignment"),
kept true for every assignment in source/: its folder is ``NN_topic`` and holds ``topic.ipynb``; its
variants are in ``tests/course/mutants/NN_topic.py`` and its likely mistakes in ``bdl/diagnoses/topic.py``,
each for every graded function; the notebook's own questions, if any, in ``bdl/questions/topic.py``. No kernel."""

import re

import nbformat
import pytest

from autograder.checktests import MIN_ALTERNATIVES, MIN_MUTANTS, load_variants
from autograder.course.cells import graded_functions, names_mistakes
from autograder.course.directory import REPO, assignments
from bdl.diagnoses import all_tables

NAMES = assignments(REPO)


def _parts(name):
    number, topic = name.split("_", 1)
    return number, topic


@pytest.mark.parametrize("name", NAMES)
def test_the_folder_names_the_notebook(name):
    number, topic = _parts(name)
    assert re.fullmatch(r"\d\d", number) and re.fullmatch(r"[a-z][a-z0-9_]*", topic), name
    assert [path.name for path in (REPO / "source" / name).glob("*.ipynb")] == [f"{topic}.ipynb"]


@pytest.mark.parametrize("name", NAMES)
def test_every_graded_function_has_variants_and_a_table(name):
    _, topic = _parts(name)
    functions = graded_functions(nbformat.read(REPO / "source" / name / f"{topic}.ipynb", 4))
    assert functions, f"{name} grades no function"
    variants, tables = load_variants(name), all_tables()
    for function in functions:
        assert len(variants["mutants"].get(function, [])) >= MIN_MUTANTS, (name, function)
        assert len(variants["alternatives"].get(function, [])) >= MIN_ALTERNATIVES, (name, function)
        assert function in tables, f"{function} has no table in bdl/diagnoses/{topic}.py"
        assert names_mistakes(functions[function][1], function), (
            f"{function}'s tests do not run inside diagnosed({function!r}): their failures name no mistake"
        )
    assert (REPO / "bdl" / "diagnoses" / f"{topic}.py").is_file()


@pytest.mark.parametrize("name", NAMES)
def test_the_notebook_asks_only_its_own_or_the_shared_questions(name):
    _, topic = _parts(name)
    text = (REPO / "source" / name / f"{topic}.ipynb").read_text()
    used = set(re.findall(r"bdl\.questions\.([a-z_]+)", text))
    assert used <= {topic}, f"{name} uses another assignment's questions: {sorted(used - {topic})}"
    if used:
        assert (REPO / "bdl" / "questions" / f"{topic}.py").is_file()
