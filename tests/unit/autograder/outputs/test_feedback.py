"""Student feedback never shows hidden tests: the preprocessor on its own, and in nbgrader's config."""

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.course import cells
from autograder.course.cells import hidden_lines
from autograder.course.decision import Decision
from autograder.course.directory import REPO, load_config
from autograder.outputs.feedback import HideHiddenTests
from autograder.worker.examiner.relay import ExaminingClient
from tests.support.scan import secret_lines

SOURCE = REPO / "source" / "01_likelihoods" / "likelihoods.ipynb"


def _error(line, message="the NLL should be finite"):
    """A failed test cell's outputs: an error output whose traceback quotes the failing line of the cell,
    as IPython writes it, and the examiner's decision beside it."""
    decided = nbformat.from_dict(Decision("AssertionError", [message], "", [], line).output())
    return [
        new_output(
            "error",
            ename="AssertionError",
            evalue=message,
            traceback=[
                "\x1b[31mAssertionError\x1b[39m   Traceback (most recent call last)",
                f"\x1b[36mCell\x1b[39m\x1b[36m \x1b[39m\x1b[32mIn[7]\x1b[39m\x1b[32m, line {line}\x1b[39m\n"
                "\x1b[32m----> \x1b[39m _reference_fgsm(x)  # quoted code\n",
                f"\x1b[31mAssertionError\x1b[39m: {message}",
            ],
        ),
        decided,
    ]


def _hidden_test_cells(nb):
    return [cell for cell in nb.cells if cells.is_test(cell) and hidden_lines(cell.source)]


def test_feedback_keeps_visible_tests_and_verdicts_but_no_hidden_code():
    nb = nbformat.read(SOURCE, 4)
    tests = _hidden_test_cells(nb)
    assert len(tests) >= 3
    visible = [
        [
            line
            for number, line in enumerate(cell.source.split("\n"), start=1)
            if number not in hidden_lines(cell.source)
        ]
        for cell in tests
    ]
    first_hidden = [min(hidden_lines(cell.source)) for cell in tests]
    for cell in tests:
        cell.execution_count = 7  # as the tracebacks of _error say
    tests[0].outputs = [new_output("stream", name="stdout", text="reference value 0.1234\n")]
    tests[1].outputs = _error(first_hidden[1] + 1)  # a hidden test failed
    tests[2].outputs = _error(1, "a visible check")  # a visible test failed first
    HideHiddenTests().preprocess(nb, {})
    text = "\n".join(
        cell.source + "\n" + "\n".join(str(output) for output in cell.get("outputs", [])) for cell in tests
    )  # the answer cells hold the (here: reference) student's code
    for line in secret_lines():
        assert line not in text, f"hidden test line in feedback: {line}"
    assert "_reference_fgsm" not in text and "quoted code" not in text, "no traceback reaches the student"
    assert "reference value" not in text, "what a test cell printed may come from hidden tests"
    assert tests[0].source.endswith("# hidden tests: passed") and tests[0].outputs == []
    assert tests[1].source.endswith("# hidden tests: failed")
    assert tests[1].outputs[0].traceback == ["AssertionError: the NLL should be finite"]
    assert tests[2].source.endswith("# hidden tests: not run (a visible test above failed)")
    for cell, lines in zip(tests, visible):
        assert cell.source.startswith("\n".join(lines).rstrip()), "the visible tests stay as they were"


def test_other_cells_keep_their_code_and_lose_their_outputs():
    """What a student's own cell printed may be what it read of the tests (``print(In)``)."""
    nb = nbformat.read(SOURCE, 4)
    others = [cell for cell in nb.cells if cell not in _hidden_test_cells(nb)]
    for cell in others:
        if cell.cell_type == "code":
            cell.outputs = [new_output("stream", name="stdout", text="\n".join(secret_lines()))]
    before = [cell.source for cell in others]
    HideHiddenTests().preprocess(nb, {})
    assert [cell.source for cell in others] == before
    assert all(cell.get("outputs", []) == [] for cell in others)


def _graded_by_a_kernel(answer, tests, tmp_path):
    """A student cell run in a real kernel and a test cell by the examiner, as grading runs them, then
    through the feedback pipeline; return the test cell as the student sees it."""
    test_cell = new_code_cell(
        tests,
        metadata={
            "nbgrader": {
                "grade": True,
                "solution": False,
                "locked": True,
                "grade_id": "f_tests",
                "points": 1,
                "schema_version": 3,
            }
        },
    )
    nb = new_notebook(cells=[new_code_cell(answer), test_cell])
    ExaminingClient(
        nb, timeout=120, allow_errors=True, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    HideHiddenTests().preprocess(nb, {})
    return nb.cells[1]


HIDDEN = secret_lines() - {"BEGIN HIDDEN TESTS", "END HIDDEN TESTS"}
TESTS = "from bdl.checks import assert_close\n_x = 2.0\nassert_close(f(_x), 4.0, 'f of two')"


def test_an_assertion_of_the_tests_shows_its_message(tmp_path):
    cell = _graded_by_a_kernel("def f(x):\n    return x", TESTS, tmp_path)
    assert cell.outputs[0].traceback == [
        "AssertionError: f of two does not match the expected values (largest difference 2): it is 0.5 times the expected value"
    ]


def test_an_assertion_message_with_a_secret_line_is_redacted(tmp_path):
    secret = sorted(HIDDEN)[0]
    cell = _graded_by_a_kernel(
        "def f(x):\n    return x", TESTS.replace("'f of two'", f"'f of two\\n' + {secret!r}"), tmp_path
    )
    assert cell.outputs[0].traceback == ["AssertionError: f of two\n[redacted]"]
    assert secret not in str(cell.outputs)


def test_an_error_the_students_code_raised_shows_only_its_type(tmp_path):
    """Its message is the student's code's to choose: the tests' source, say."""
    secret = sorted(HIDDEN)[0]
    for answer, name in [
        (f"def f(x):\n    raise ValueError({secret!r})", "ValueError"),
        (f"def f(x):\n    assert False, {secret!r}", "AssertionError"),
        (f"from bdl.checks import assert_close\n\ndef f(x):\n    assert_close(0, 1, {secret!r})", "AssertionError"),
    ]:
        cell = _graded_by_a_kernel(answer, TESTS, tmp_path)
        assert cell.outputs[0].traceback == [f"{name}: f raised {name} when the tests called it with 2"], answer


def test_a_known_mistake_is_named_under_the_failing_test(tmp_path):
    """The note bdl.diagnoses adds in the kernel reaches the student, in the table's own words."""
    from bdl.diagnoses import PREFIX, all_tables

    missing = next(m.sentence for m in all_tables()["gaussian_nll"].mistakes if m.name == "missing_constant")
    answer = (
        "import bdl\nimport tensorflow as tf\n\ndef gaussian_nll(y, mean, scale):\n"
        "    return tf.reduce_mean(tf.math.log(scale) + tf.square(y - mean) / (2 * tf.square(scale)))"
    )
    tests = (
        "from bdl.checks import assert_close\nfrom bdl.diagnoses import diagnosed\n\n"
        "with diagnosed('gaussian_nll'):\n"
        "    assert_close(gaussian_nll(tf.zeros((2, 1)), tf.zeros((2, 1)), tf.ones((2, 1))), 0.9189385,\n"
        "                 'the Gaussian NLL at the mean')"
    )
    cell = _graded_by_a_kernel(answer, tests, tmp_path)
    assert cell.outputs[0].traceback == [
        "AssertionError: the Gaussian NLL at the mean does not match the expected values (largest difference 0.92): it is smaller than the expected value",
        PREFIX + missing,
    ]
    # A line the answer writes into its own error is not taken for a diagnosis unless it is one.
    forged = answer.replace(
        "    return", f"    raise ValueError({PREFIX + 'the hidden test says 0.919'!r})\n    return"
    )
    cell = _graded_by_a_kernel(forged, tests, tmp_path)
    assert cell.outputs[0].traceback == [
        "ValueError: gaussian_nll raised ValueError when the tests called it with a float32 tensor of shape (2, 1), "
        "a float32 tensor of shape (2, 1) and a float32 tensor of shape (2, 1)"
    ]


def test_the_course_config_puts_it_in_nbgraders_feedback_pipeline():
    """So `nbgrader generate_feedback` run by hand is safe too."""
    preprocessors = load_config(REPO).GenerateFeedback.preprocessors
    assert HideHiddenTests in preprocessors
    names = [pp.__name__ for pp in preprocessors]
    assert names.index("GetGrades") < names.index("HideHiddenTests"), "scores are read first"


def test_a_layer_check_of_bdl_questions_shows_its_message():
    """The checks of bdl.questions speak for the tests, as bdl.checks' do; a layer's class is named
    only when it is Keras' or TFP's (its other names are the kernel's to choose)."""
    import bdl  # noqa: F401 (Keras 2 before TensorFlow)

    # isort: split
    import tensorflow as tf

    from autograder.outputs.feedback import shown_lines
    from autograder.worker.examiner.examine import examine
    from bdl.questions.bayesian_cnn import class_name
    from bdl.wire import Remote

    source = (
        "from bdl.questions.bayesian_cnn import assert_model_layers\n"
        "assert_model_layers(get_model(), [tf.keras.layers.Conv2D, tf.keras.layers.Dense])"
    )
    dense = (
        ["__main__.TheHiddenTestSaysEight", class_name(tf.keras.layers.Dense), class_name(tf.keras.layers.Layer)],
        Remote({"handle": 1}),
    )
    other = (["__main__.TheHiddenTestSaysEight"], Remote({"handle": 2}))
    for layers, line in [
        ([dense, other], "layer 0 of the model should be a Conv2D, found Dense"),
        ([other, dense, other], "the model should have 2 layers (Conv2D, Dense), found 3: [object, Dense, object]"),
    ]:
        answers = {"bdl.questions:call": Remote({"handle": 0}), "bdl.questions.bayesian_cnn:layer_classes": layers}
        outputs = examine(source, lambda question, args, kwargs: answers[question], 7)
        assert shown_lines(outputs, ()) == [f"AssertionError: {line}"]


def test_a_failing_check_quotes_the_requirement_it_cites_once(tmp_path):
    """Through the examiner and the feedback: the message, then the sentence of the text the failing
    check cites, each once."""
    from autograder.worker.examiner.examine import examine
    from bdl import requirements
    from bdl.wire import AnswerError

    sentence = requirements.find("brier_score", "mean").sentence
    source = (
        "from bdl.checks import assert_close\nfrom bdl.diagnoses import diagnosed, requirement\n\n"
        "with diagnosed('brier_score'):\n    requirement('mean')\n    assert_close(brier_score(1, 2), 0.5, 'the Brier score')"
    )

    def ask(question, args, kwargs):
        if question == "bdl.diagnoses:likely_mistake":
            return None
        if question == "bdl.questions:call":
            return 0.25
        raise AnswerError(f"unexpected question {question}")

    outputs = examine(source, ask, 3)
    assert requirements.note(sentence) in outputs[0]["evalue"]
    cell = new_code_cell(
        source, metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "brier_score_tests", "points": 1}}
    )
    cell.execution_count, cell.outputs = 3, [nbformat.from_dict(output) for output in outputs]
    HideHiddenTests().preprocess(new_notebook(cells=[cell]), {})
    shown = cell.outputs[0].traceback
    assert shown[1] == requirements.PREFIX + requirements.plain(sentence) and len(shown) == 2, shown
    assert shown[0].startswith("AssertionError: the Brier score") and requirements.PREFIX not in shown[0]


def test_the_examiners_account_of_a_raised_call_shows_its_lines_but_a_secret_or_a_note():
    """An error of the student's code, as the examiner wrote it: its sentence, the message it wrote anew and
    the student's line, each cut to its length; a line holding a secret redacted (the student's own line
    dropped: it is theirs); a note in the error's text that the examiner did not decide is not shown."""
    from autograder.outputs.feedback import MAX_MESSAGE, shown_lines
    from autograder.worker.examiner.examine import examine
    from bdl.diagnoses import PREFIX
    from bdl.wire import AnswerError
    from bdl.words import UNUSABLE

    secret = sorted(HIDDEN)[0]
    said = "ZeroDivisionError when the tests called it"
    for given, shown in [
        ({"said": secret, "line": secret}, ["[redacted]"]),
        (
            {"said": "x" * MAX_MESSAGE, "line": "y = 1 / x"},
            ["the error says: " + "x" * (MAX_MESSAGE - 16) + " ...", "in your line: y = 1 / x"],
        ),
    ]:

        def ask(question, args, kwargs):
            raise AnswerError(f"f raised {said}", "ZeroDivisionError", **given)

        outputs = examine("f(1)", ask, 7)
        outputs[0]["evalue"] += f"\n{PREFIX}the scale taken as\n  the variance"
        assert shown_lines(outputs, (secret,)) == ["\n".join([f"ZeroDivisionError: f raised {said}", *shown])]
    # An error output without the examiner's decision: its type and one fixed sentence.
    assert shown_lines(outputs[:1], (secret,)) == [f"ZeroDivisionError: {UNUSABLE}"]


def test_a_check_in_a_function_of_the_test_cell_speaks_for_the_tests():
    """A test cell's own function (a stand-in's wrapper, say) is the tests' code: a question it puts that
    the student's code raised on, and an assertion it makes, show their messages."""
    from autograder.outputs.feedback import shown_lines
    from autograder.worker.examiner import verdict
    from autograder.worker.examiner.examine import examine

    source = (
        "from bdl.checks import assert_close\n\n"
        "def _wrapped(x):\n    return f(x)\n\n"
        "def _check(x):\n    assert_close(_wrapped(x), 4.0, 'f of two')\n\n"
        "_check(2.0)"
    )

    def raises(question, args, kwargs):
        raise verdict.raised(question, args, ["builtins.ValueError"], "")

    error = examine(source, raises, 5)
    assert shown_lines(error, ())[0] == "ValueError: f raised ValueError when the tests called it"
    # The student's own line is shown; dropped (not redacted) when it is also a secret line of the course.
    line = "    return x + tf.zeros((2, 2))"

    def raises_in_a_line(question, args, kwargs):
        raise verdict.raised(question, args, ["builtins.ValueError"], "", line=line.strip())

    error = examine(source, raises_in_a_line, 5)
    shown = "ValueError: f raised ValueError when the tests called it"
    assert shown_lines(error, ())[0] == f"{shown}\nin your line: {line.strip()}"
    assert shown_lines(error, (line.strip(),))[0] == shown
    error = examine(source, lambda question, args, kwargs: 3.0, 5)
    assert shown_lines(error, ())[0].startswith("AssertionError: f of two does not match")


def test_the_feedback_says_what_the_examiner_decided():
    """One decision: the tests' own code, failing on what the answer gave it, reads the same in the
    examiner's error output and in the feedback, in one sentence (the feedback once wrote another)."""
    from autograder.worker.examiner.examine import examine
    from bdl.words import UNUSABLE

    source = "_total = f(1) + 1\nassert _total == 2, 'f of one'"
    outputs = examine(source, lambda question, args, kwargs: "one", 4)
    assert outputs[0]["ename"] == "TypeError" and outputs[0]["evalue"] == UNUSABLE
    cell = new_code_cell(
        source, metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "f", "points": 1}}
    )
    cell.outputs = [nbformat.from_dict(output) for output in outputs]
    HideHiddenTests().preprocess(new_notebook(cells=[cell]), {})
    assert cell.outputs[0].traceback == [f"TypeError: {UNUSABLE}"]
