"""The item analysis' messages: a failing test's words, grouped when they differ only in their numbers."""

from autograder.outputs import items


def test_messages_differing_in_numbers_are_one_group():
    assert items.message_group("shape (5, 3) of float32, found 1e-05") == "shape (#, #) of float32, found #"
    assert items.error_message({"ename": "AssertionError", "evalue": "\x1b[31mthe mean\x1b[0m\nmore"}) == "the mean"
    assert (
        items.error_message({"ename": "NameError", "evalue": "name 'fgsm' is not defined"})
        == "NameError: name 'fgsm' is not defined"
    )
