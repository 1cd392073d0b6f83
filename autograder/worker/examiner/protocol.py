"""The messages between the worker's relay and the examiner: one JSON object per line, on the
examiner's stdin and stdout, each a class below and checked strictly when it is read.

Relay to examiner: a ``Cell`` to examine, then an ``Answer`` or ``Failed`` for each question.
Examiner to relay: an ``Ask`` (a question for the kernel), then one ``Verdict`` per cell.
This module is the only place a message's keys are spelled.
"""

import json
from dataclasses import asdict, dataclass, fields
from typing import IO, Any, ClassVar, TypeVar, get_args, get_origin, overload

from bdl.wire import MAX_ANSWER

# The most of the student's code a ``Cell`` carries, in characters.
MAX_CODE = 2 * 2**20


class ProtocolError(ValueError):
    """A line that is not one of the expected messages."""


@dataclass(frozen=True)
class Cell:
    """A test cell to examine: its source, the execution count its error output shows, and the code
    cells of the student's notebook the kernel has run (at most ``MAX_CODE`` characters): an error's
    line is shown only if it is one of theirs."""

    kind: ClassVar[str] = "cell"
    source: str
    count: int
    code: str


@dataclass(frozen=True)
class Ask:
    """A question for the kernel: its registered name and its arguments, encoded by ``bdl.wire``."""

    kind: ClassVar[str] = "ask"
    question: str
    args: dict
    kwargs: dict


@dataclass(frozen=True)
class Answer:
    """The kernel's reply to a question, as the text ``bdl.wire.respond`` made, unread by the relay."""

    kind: ClassVar[str] = "answer"
    text: str


@dataclass(frozen=True)
class Failed:
    """No answer to a question, and why ("took longer than 60 seconds", "gave no answer")."""

    kind: ClassVar[str] = "failed"
    reason: str


@dataclass(frozen=True)
class Verdict:
    """A test cell's verdict: the nbformat outputs the examiner wrote (an error output and its
    decision, ``verdict.outputs``), none when it passed."""

    kind: ClassVar[str] = "verdict"
    outputs: list


Message = Cell | Ask | Answer | Failed | Verdict
MESSAGES: dict[str, type[Message]] = {cls.kind: cls for cls in (Cell, Ask, Answer, Failed, Verdict)}
T = TypeVar("T", bound=Message)
U = TypeVar("U", bound=Message)


def line(message: Message) -> bytes:
    """``message`` as the line that carries it."""
    return (json.dumps({"kind": message.kind, **asdict(message)}) + "\n").encode()


def send(stream: IO[bytes], message: Message) -> None:
    """``message`` to the other side."""
    stream.write(line(message))
    stream.flush()


@overload
def receive(stream: IO[bytes], expected: type[T], /) -> T: ...
@overload
def receive(stream: IO[bytes], expected: type[T], other: type[U], /) -> T | U: ...
def receive(stream: IO[bytes], *expected: Any) -> Message:
    """The next message from the other side, one of the ``expected`` classes; ``EOFError`` when the
    other side has gone, ``ProtocolError`` for anything else."""
    text = stream.readline(MAX_ANSWER + 2**20)
    if not text:
        raise EOFError("no reply")
    return parse(text, *expected)


def parse(text: bytes, *expected: type[Message]) -> Message:
    """The message the line ``text`` holds, if it is one of the ``expected`` classes with exactly its fields,
    each of its type; else ``ProtocolError``."""
    try:
        data = json.loads(text)
    except ValueError:
        raise ProtocolError("a line that is not JSON") from None
    if type(data) is not dict:
        raise ProtocolError("a message that is not an object")
    kind = data.pop("kind", None)
    cls = MESSAGES.get(kind) if type(kind) is str else None
    if cls not in expected:
        raise ProtocolError(f"a message of the wrong kind; expected {', '.join(c.kind for c in expected)}")
    return typed(cls, data, f"a {cls.kind} message")


def _fits(value: object, declared: Any) -> bool:
    """Whether the JSON ``value`` is of the ``declared`` type: a class (a bool is no int), a union of
    them, or ``tuple[X, ...]`` (a list of Xs)."""
    if get_origin(declared) is tuple:
        return type(value) is list and all(_fits(item, get_args(declared)[0]) for item in value)
    if get_args(declared):
        return any(_fits(value, option) for option in get_args(declared))
    return type(value) is (type(None) if declared is None else declared)


C = TypeVar("C")


def typed(cls: type[C], data: object, what: str) -> C:
    """The dataclass ``cls`` made of the JSON object ``data``, if it has exactly the fields of ``cls``,
    each of its type (``tuple[X, ...]`` fields from lists); else ``ProtocolError`` naming ``what``."""
    if type(data) is not dict:
        raise ProtocolError(f"{what} that is not an object")
    declared = {field.name: field.type for field in fields(cls)}  # type: ignore[arg-type]
    if set(data) != set(declared):
        raise ProtocolError(f"{what} with the keys {sorted(data)}")
    for name, value in data.items():
        if not _fits(value, declared[name]):
            raise ProtocolError(f"{what} whose {name} is a {type(value).__name__}")
    return cls(
        **{
            name: tuple(value) if type(value) is list and get_origin(declared[name]) is tuple else value
            for name, value in data.items()
        }
    )
