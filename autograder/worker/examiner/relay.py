"""The worker's side of the examiner: test cells go to it, and its questions to the kernel.

nbgrader's ``Execute`` runs a submission's cells in its kernel, top to bottom; ``ExaminesTests``
takes the test cells out of that stream and hands each to the examiner. For each of its questions
the worker sends the kernel a silent request (no history, no cell hooks) whose ``user_expressions``
call ``bdl.wire.respond``, and hands the examiner the reply's text, unread. Before each code cell
runs, the worker writes the cell's key (a hash) to its progress file, out of the kernel's reach, so
a cell that kills the kernel is named there and left out of the next attempt.
"""

import asyncio
import json
import select
from collections.abc import Collection
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
from jupyter_client.client import KernelClient
from jupyter_core.utils import ensure_async, run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, List, Unicode

from autograder.course import cells
from autograder.worker.examiner.pool import Examiner, LentExaminer
from autograder.worker.examiner.protocol import MAX_CODE, Answer, Ask, Cell, Failed, Verdict, receive, send
from autograder.worker.examiner.verdict import outputs
from autograder.worker.guard import SKIPPED_MESSAGE, cell_key
from bdl.wire import MAX_ANSWER

# What the mixin is mixed into, as the type checker reads it.
if TYPE_CHECKING:
    _Client = NotebookClient
else:
    _Client = object


class ExaminesTests(_Client):
    """Mixed into an nbclient client (nbgrader's ``Execute``, check-tests' client): test cells go
    to the examiner; every other cell runs in the kernel as before."""

    skip: Collection[str] = frozenset()  # ``guard.cell_key``s of cells not to run (they crashed the kernel)
    progress: str = ""  # the worker's file naming the running cell's key, should the kernel die
    sandbox: bool = False  # run the examiner under bubblewrap
    slot: LentExaminer | None = None  # the grading slot's examiner, if it has one
    _examiner: Examiner | None = None
    _attached = False

    async def async_execute_cell(
        self, cell: NotebookNode, cell_index: int, execution_count: int | None = None, store_history: bool = True
    ) -> NotebookNode:
        if cell.cell_type == "code" and self.progress:
            Path(self.progress).write_text(cell_key(cell.source))
        if cell.cell_type != "code" or not cells.is_test(cell):
            if cell.cell_type == "code":  # the code the kernel has run: each source once, the latest last
                ran = self.__dict__.setdefault("_ran", {})
                ran.pop(cell.source, None)
                ran[cell.source] = None
            return await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        count = execution_count or self.code_cells_executed + 1  # nbclient's count: the kernel runs no test cell
        cell.execution_count = count
        if cell_key(cell.source) in self.skip:
            found = outputs(RuntimeError(SKIPPED_MESSAGE), cell.source, count)
        else:
            loop = asyncio.get_running_loop()
            found = await loop.run_in_executor(None, self._relay, cell, count, loop)
        cell.outputs = [nbformat.from_dict(output) for output in found]
        if cell.outputs and not (self.allow_errors or "raises-exception" in cell.metadata.get("tags", [])):
            raise CellExecutionError.from_cell_and_msg(cell, cell.outputs[0])
        return cell

    async def async_start_new_kernel_client(self) -> KernelClient:
        self._start_examiner()  # it loads TensorFlow while the kernel starts and the notebook runs
        return await super().async_start_new_kernel_client()

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    # nbclient's own ``execute_cell`` wraps *its* coroutine, not this one, and nbconvert calls it.
    execute_cell = run_sync(async_execute_cell)

    def _relay(self, cell: NotebookNode, count: int, loop: asyncio.AbstractEventLoop) -> list[dict]:
        """Hand the examiner ``cell``; relay its questions to the kernel; return its outputs. The examiner
        has the cell's timeout for each of its messages (the kernel has it for each answer): past it, the
        cell fails and the examiner, mid-test, is stopped."""
        examiner = self._start_examiner()
        timeout = self._get_timeout(cell)
        try:
            code = "\n".join(getattr(self, "_ran", {}))[-MAX_CODE:]  # the latest, past the bound
            send(examiner.stdin, Cell(cell.source, count, code))
            while True:
                # One message at a time each way: nothing of the next is in the reader's buffer.
                if timeout and not select.select([examiner.stdout], [], [], timeout)[0]:
                    self._stop_examiner()
                    late = TimeoutError(f"the tests of this cell took longer than {timeout} seconds")
                    return outputs(late, cell.source, count)
                message = receive(examiner.stdout, Ask, Verdict)
                if isinstance(message, Verdict):
                    return message.outputs
                reply = asyncio.run_coroutine_threadsafe(self._ask(message, cell), loop).result()
                send(examiner.stdin, reply)
        except (DeadKernelError, CellTimeoutError):
            self._stop_examiner()
            raise
        except (OSError, ValueError, KeyError, TypeError) as error:  # the examiner died: a grader's fault
            self._stop_examiner()
            raise RuntimeError(f"the examiner stopped: {error}; its log: {examiner.log()}") from None

    def _start_examiner(self) -> Examiner:
        if self._examiner is None or not self._examiner.running():
            if self.slot is not None and self.slot.clean and not self._attached:  # the slot's, once
                self._examiner, self._attached = Examiner.attach(self.slot.fds), True
            else:
                self._examiner = Examiner.start(self.sandbox)
        return self._examiner

    def examiner_running(self) -> bool:
        return self._examiner is not None and self._examiner.running()

    def _stop_examiner(self) -> None:
        """Stop this client's examiner; one of the slot's is left mid-question: the slot makes a new one."""
        if self._examiner is not None:
            if self._examiner.process is None and self.slot is not None:
                self.slot.clean = False
            self._examiner.stop()
            self._examiner = None

    async def _async_cleanup_kernel(self) -> None:
        if self._examiner is not None and self._examiner.process is not None:
            self._stop_examiner()  # one this client started; the slot's stays, between two cells
        await super()._async_cleanup_kernel()

    _cleanup_kernel = run_sync(_async_cleanup_kernel)

    async def _ask(self, question: Ask, cell: NotebookNode) -> Answer | Failed:
        """Put the examiner's ``question`` to the kernel; return the kernel's answer as text, unread."""
        expression = f"__import__('bdl.wire').wire.respond({json.dumps(asdict(question))!r})"
        if self.kc is None:  # nbclient's client holds a kernel while a cell runs
            raise RuntimeError("no kernel to ask")
        msg_id = await ensure_async(
            self.kc.execute(
                "",
                silent=True,
                store_history=False,
                allow_stdin=False,
                user_expressions={"answer": expression},
                stop_on_error=False,
            )
        )
        reply = await self.async_wait_for_reply(msg_id, cell)
        if reply is None:
            return Failed(f"took longer than {self._get_timeout(cell)} seconds")
        return answer_text(reply)


def answer_text(reply: dict) -> Answer | Failed:
    """The examiner's message for a kernel's reply to a question: its answer's text, or why none."""
    try:
        answer = reply["content"]["user_expressions"]["answer"]
        text = answer["data"]["text/plain"] if answer["status"] == "ok" else None
    except (KeyError, TypeError):
        text = None
    if type(text) is not str:
        return Failed("gave no answer")
    if len(text) > MAX_ANSWER:
        return Failed("gave an answer too large to read")
    return Answer(text)


class ExaminingClient(ExaminesTests, NotebookClient):
    """nbclient's client with test cells examined (check-tests, and tests of the examiner)."""


class Examine(ExaminesTests, Execute):
    """nbgrader's ``Execute``, with test cells examined (the worker's autograde pipeline)."""

    # traitlets, which nbgrader's config sets; the type checker reads the mixin's types
    progress = Unicode("", help="the worker's file naming the running cell's key").tag(config=True)  # type: ignore[assignment]
    skip = List(Unicode(), [], help="keys of the cells not to run").tag(config=True)  # type: ignore[assignment]
    sandbox = Bool(False, help="run the examiner under bubblewrap").tag(config=True)  # type: ignore[assignment]


def examining(slot: LentExaminer | None) -> type[Examine]:
    """``Examine`` for one worker's run: with ``slot`` (or None to start an examiner of its own),
    which nbgrader's config cannot carry (it holds what the run learns)."""
    return type("Examine", (Examine,), {"slot": slot})
