"""The examiner process (``python -m autograder.worker.examiner``): examine each test cell the relay
sends on stdin; questions and the verdict go out on the original stdout, which the test code's own
prints (moved to stderr) cannot reach."""

import os
import sys

from autograder.worker.examiner.examine import RelayAsker, examine
from autograder.worker.examiner.protocol import Cell, Verdict, receive, send


def main() -> None:
    reader, writer = sys.stdin.buffer, os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    while True:
        try:
            cell = receive(reader, Cell)
        except EOFError:
            return
        send(writer, Verdict(examine(cell.source, RelayAsker(reader, writer, cell.code), cell.count)))


if __name__ == "__main__":
    main()
