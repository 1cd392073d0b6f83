"""How the worker's relay and the examiner speak over the examiner's stdin and stdout: one JSON
message per line. The examiner sends ``{"ask"}`` (a question) and ``{"verdict"}``; the relay sends
``{"source", "count"}`` (a test cell), and ``{"answer"}`` or ``{"failed"}`` (the kernel's reply)."""

import json
from typing import IO, Any

from bdl.wire import MAX_ANSWER


def send(stream: IO[bytes], message: dict[str, Any]) -> None:
    """One JSON line to the other side (the worker's relay, or the examiner)."""
    stream.write((json.dumps(message) + "\n").encode())
    stream.flush()


def receive(stream: IO[bytes]) -> Any:
    """One JSON line from the other side; EOFError when it has gone."""
    line = stream.readline(MAX_ANSWER + 2**20)
    if not line:
        raise EOFError("no reply")
    return json.loads(line)
