"""The seal: the worker, outside the kernel, confirms that each test cell's own code ran to its end.

Two nbgrader preprocessors around ``Execute`` in the worker's autograde pipeline:

* ``SealTests`` appends ``_bdl_seal("<token>")`` to every graded test cell, with
  a fresh random token per cell and run: the kernel first sees it when that
  cell runs, so no earlier cell can know it.
* ``CheckSeals`` reads each test cell's output after the run. The guard in the
  kernel (``autograder.worker.guard``) prints ``bdl-seal:<token>:<HMAC>`` when the
  cell's last line is reached with the grading machinery intact, under a key
  only the worker and the guard hold. A test cell that shows no error yet has
  no valid seal (its code was skipped, cut short, silenced or run under a
  tracer) or whose seal says "tampered" gets an error output, so nbgrader
  scores it zero, and the finding is kept for the worker's status. The seal
  lines and the appended code are taken out again, so the autograded notebook
  holds the tests as written.

What it guarantees and what it cannot is in the README's threat model.
"""
import re
import secrets

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bytes

from autograder.course import cells
from autograder.worker.guard import SEAL_NAME, SEAL_PREFIX, seal_mac

SEAL_LINE = re.compile(r"\n?" + re.escape(SEAL_PREFIX) + r"(\w+):(.*)\n?")
ERROR_NAME = "GradingIntegrityError"
# What ``CheckSeals`` found in the last notebook it checked: ["<grade_id>: why"]. The worker
# runs one autograde at a time and reads it when nbgrader is done.
findings = []


def _stdout_texts(cell):
    return [output for output in cell.get("outputs", []) if output.output_type == "stream"
            and output.name == "stdout"]


class SealTests(NbGraderPreprocessor):
    """Append a seal with a fresh token to each graded test cell (before ``Execute``)."""

    def preprocess(self, nb, resources):
        findings.clear()
        seals = {}
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and cells.is_test(cell):
                token = secrets.token_hex(16)
                seals[index] = (token, cell.source)
                cell.source = f"{cell.source}\n{SEAL_NAME}({token!r})"
        resources["bdl_seals"] = seals
        return nb, resources


class CheckSeals(NbGraderPreprocessor):
    """Score zero a test cell that shows no error yet has no valid seal (after ``Execute``)."""

    key = Bytes(b"", help="the HMAC key the guard in the kernel seals with").tag(config=True)

    def preprocess(self, nb, resources):
        seals = resources.pop("bdl_seals", {})
        for index, cell in enumerate(nb.cells):
            found = {}
            for output in _stdout_texts(cell):
                for match in SEAL_LINE.finditer(output.text):
                    found.setdefault(match.group(1), match.group(2))
                output.text = SEAL_LINE.sub("", output.text)
            cell.outputs = [output for output in cell.get("outputs", [])
                            if not (output.output_type == "stream" and not output.text)]
            if index not in seals:
                continue
            token, source = seals[index]
            cell.source = source
            problem = self._problem(cell, token, found)
            if problem:
                name = cells.grade_id(cell) or f"cell {index}"
                findings.append(f"{name}: {problem}")
                cell.outputs.append(new_output("error", ename=ERROR_NAME, evalue=f"not scored: {problem}",
                                               traceback=[f"{ERROR_NAME}: not scored: {problem}"]))
        return nb, resources

    def _problem(self, cell, token, found):
        """Why the cell's tests cannot be trusted to have run, or ""."""
        verdict = found.get(token)
        if any(output.output_type == "error" for output in cell.outputs):
            return ""  # it failed: nbgrader scores it zero as it is
        if verdict is None:
            other = " (it printed another cell's seal)" if found else ""
            return f"its tests did not run to their end, yet it showed no error{other}"
        if verdict.startswith("tampered:"):
            return "changed while the tests ran: " + verdict[len("tampered:"):]
        if not self.key or verdict != seal_mac(self.key, token):
            return "its seal is forged"
        return ""
