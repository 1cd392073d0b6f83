"""One test cell run in the examiner: its namespace, and its questions to the kernel.

The cell runs in a namespace of its own, where every name it reads that the examiner does not
define (the student's functions, the notebook's data) is a ``bdl.wire.Remote``. Using one is a
question: an ``Ask`` to the relay, answered by the kernel with data (``bdl.wire``). So the test's
code, its hidden inputs, expected values and tolerances stay in this process, and so does the verdict.
"""

import ast
import builtins
from collections.abc import Callable
from typing import IO

from autograder.worker.examiner import verdict
from autograder.worker.examiner.catalogue import StudentCode, rendered, your_line
from autograder.worker.examiner.protocol import Answer, Ask, Failed, receive, send
from autograder.worker.examiner.verdict import FILENAME, outputs, speaks_for_the_tests
from bdl import wire
from bdl.wire import AnswerError, Remote, Reply

# The notebooks' names for TensorFlow's libraries: the examiner's own in every test cell, imported
# only for a cell that reads one (a NumPy-only notebook's tests never load TensorFlow).
TENSORFLOW_NAMES = ("tf", "tfp", "tfd", "tfpl")
# question, args, kwargs -> the kernel's answer, decoded
Asker = Callable[[str, tuple, dict], object]


def read_names(tree: ast.AST) -> set[str]:
    """The names a test cell's ``tree`` reads."""
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def trusted_namespace(read: set[str]) -> dict:
    """What a test cell that reads the names ``read`` finds defined before it runs: the libraries,
    under the notebooks' names; TensorFlow's only when the cell reads one of them."""
    import numpy as np

    import bdl  # noqa: F401 (Keras 2 for TensorFlow Probability; before TensorFlow)

    namespace = {"__name__": "__examiner__", "__builtins__": builtins, "np": np}
    if read & set(TENSORFLOW_NAMES):
        import tensorflow as tf
        import tensorflow_probability as tfp

        namespace.update(tf=tf, tfp=tfp, tfd=tfp.distributions, tfpl=tfp.layers)
    return namespace


def kernel_names(read: set[str], namespace: dict) -> list[str]:
    """The names of ``read`` that neither the namespace nor Python defines: the kernel's."""
    return sorted(name for name in read if name not in namespace and not hasattr(builtins, name))


def examine(source: str, ask: Asker, execution_count: int) -> list[dict]:
    """Run the test cell ``source`` here, its questions answered by ``ask``; return its outputs: an
    error output and the examiner's decision (``verdict.outputs``), or none when it passed."""
    try:
        tree = ast.parse(source, FILENAME)
    except SyntaxError as error:  # in the course's own code: its message quotes nothing else
        return outputs(error, source, execution_count)
    read = read_names(tree)
    namespace = trusted_namespace(read)
    for name in kernel_names(read, namespace):
        namespace[name] = Remote({"name": name})
    cell = wire.ask_kernel.set(ask)  # for this cell's questions alone
    try:
        exec(compile(tree, FILENAME, "exec"), namespace)  # the course's test code, never the student's
    except Exception as error:
        return outputs(error, source, execution_count, own=speaks_for_the_tests(error))
    finally:
        wire.ask_kernel.reset(cell)
    return []


class RelayAsker:
    """The examiner's way to the kernel: each question an ``Ask`` to the relay, each reply an
    ``Answer`` (decoded as data) or a ``Failed``; a question the student's code raised on is an
    ``AnswerError`` in the examiner's words. ``code`` is the student's code cells the kernel ran,
    which an error's line must be one of."""

    def __init__(self, reader: IO[bytes], writer: IO[bytes], code: str = "") -> None:
        self.reader, self.writer, self.code = reader, writer, StudentCode(code)

    def __call__(self, question: str, args: tuple, kwargs: dict) -> object:
        return self.ask(question, args, kwargs)

    def ask(self, question: str, args: tuple, kwargs: dict, describe: bool = True) -> object:
        """Put ``question`` to the kernel; a call that raised is described (``_failed_call``) unless
        ``describe`` is False."""
        send(self.writer, Ask(question, wire.encode(list(args)), wire.encode(dict(kwargs))))
        reply = receive(self.reader, Answer, Failed)
        if isinstance(reply, Failed):
            raise verdict.unanswered(question, args, reply.reason)
        try:
            answer = Reply.read(reply.text)
            if answer.error is None:
                return wire.decode(answer.value)
        except Exception:  # any answer that is not data, however it fails to decode
            raise verdict.unreadable(question, args) from None
        if not describe:
            raise verdict.raised(question, args, answer.error, "")
        said, line = rendered(answer.message, self.code), your_line(answer.line, self.code)
        raise verdict.raised(question, args, answer.error, self._failed_call(question, args, kwargs), said, line)

    def _failed_call(self, question: str, args: tuple, kwargs: dict) -> str:
        """ " with a float64 tensor of shape (2, 3); the same call in float32 runs": what a call that
        raised was given, and which simpler calls of it run (``bdl.difference.described_failed_call``),
        else ""."""
        from bdl.difference import described_failed_call
        from bdl.words import shown

        if question == "bdl.questions:call" and args:  # the answer called: its arguments follow it
            given, given_kwargs = args[1:], kwargs

            def again(new_args: tuple, new_kwargs: dict) -> tuple[tuple, dict]:
                return (args[0], *new_args), new_kwargs
        elif len(args) >= 2 and type(args[0]) is Remote and type(args[1]) in (tuple, list):
            given, given_kwargs = tuple(args[1]), {}  # a question about a call (its gradient, say): (answer, args, ...)

            def again(new_args: tuple, new_kwargs: dict) -> tuple[tuple, dict]:
                return (args[0], type(args[1])(new_args), *args[2:]), kwargs
        else:
            return ""

        def runs(new_args: tuple, new_kwargs: dict) -> bool:
            try:
                self.ask(question, *again(new_args, new_kwargs), describe=False)
                return True
            except AnswerError:
                return False

        def show(value: object) -> str:
            return "one of your objects" if type(value) is Remote else shown(value)

        try:
            said = described_failed_call(given, given_kwargs, runs, show)
        except Exception:  # arguments no description is made for: the error is named alone
            return ""
        return f" {said}" if said else ""
