"""The examiner's messages: each read back as it was sent, and any other line refused."""

import io

import pytest

from autograder.worker.examiner.protocol import (
    Answer,
    Ask,
    Cell,
    Failed,
    ProtocolError,
    Verdict,
    line,
    parse,
    receive,
    send,
)

MESSAGES = [
    Cell("assert f(1) == 2", 10_001, "def f(x):\n    return 2 * x"),
    Ask("bdl.questions:call", {"t": "list", "v": []}, {"t": "dict", "v": {}}),
    Answer('{"value": {"t": "py", "v": 1}}'),
    Failed("gave no answer"),
    Verdict([]),
    Verdict([{"output_type": "error", "ename": "AssertionError", "evalue": "", "traceback": []}]),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda message: type(message).__name__)
def test_a_message_is_read_back_as_it_was_sent(message):
    stream = io.BytesIO()
    send(stream, message)
    stream.seek(0)
    assert receive(stream, type(message)) == message


@pytest.mark.parametrize(
    "text, expected",
    [
        (b"not json\n", Cell),
        (b"[1, 2]\n", Cell),
        (b'{"source": "x", "count": 1, "code": ""}\n', Cell),  # no kind
        (b'{"kind": "cell", "source": "x", "count": 1, "code": ""}\n', Verdict),  # not the kind expected
        (b'{"kind": "cell", "source": "x", "count": 1}\n', Cell),  # a key missing
        (b'{"kind": "cell", "source": "x", "count": 1, "code": "", "more": 2}\n', Cell),  # a key too many
        (b'{"kind": "cell", "source": "x", "count": "1", "code": ""}\n', Cell),  # a field of another type
        (b'{"kind": "cell", "source": "x", "count": true, "code": ""}\n', Cell),  # a bool is not a count
        (b'{"kind": "cell", "source": "x", "count": 1, "code": ["y = 1"]}\n', Cell),  # code is one text
        (b'{"kind": "answer", "text": {"value": 1}}\n', Answer),
        (b'{"kind": "verdict", "outputs": {}}\n', Verdict),  # outputs are a list
        (b'{"kind": ["answer"], "text": "x"}\n', Answer),
    ],
)
def test_any_other_line_is_refused(text, expected):
    with pytest.raises(ProtocolError):
        parse(text, expected)


def test_a_side_that_has_gone_is_an_end_of_file():
    with pytest.raises(EOFError):
        receive(io.BytesIO(b""), Answer, Failed)


def test_a_line_is_one_line():
    assert line(Cell("a\nb", 1, "c\nd")).count(b"\n") == 1
