"""Running a command for the hub: its secret input on stdin, its failure as one HubError."""

import subprocess

from autograder.hub.settings import HubError


def run_command(command, what, input=None, **kwargs):
    """Run ``command`` (with ``input`` on its stdin: a secret never goes on a command line, which every
    user sees in ``ps``); raise HubError with the end of its output when it fails."""
    stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
    result = subprocess.run(command, capture_output=True, text=True, **stdin, **kwargs)
    if result.returncode:
        raise HubError(
            f"{what} failed ({' '.join(map(str, command[:3]))} ...): {(result.stderr or result.stdout).strip()[-2000:]}"
        )
    return result.stdout
