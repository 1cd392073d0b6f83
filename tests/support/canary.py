"""The canary test's parts: canaries planted in every test cell's hidden part, and a kernel that
searches everything it can reach for them.

``plant`` writes a copy of the course's source notebooks whose test cells each hide three random
canaries (a comment, an expected value, the name of a reference function) and whose notebooks
start with ``SCANNER`` and end with ``REPORT``. The scanner runs in the grading kernel: before
every question the examiner puts to it (it wraps ``bdl.wire.respond``) and after every cell it
searches the files in every folder it can write, every process's environment, command line and
open files it can see, its own environment, and (at most every few seconds) its own memory; the
report cell adds every file of the sandbox changed since the test began and prints what was
found. It plants symbolic links to a file outside the sandbox, and a FIFO, in every folder it can
write, under the names the grader's files had and might have.

The kernel holds each canary only as two halves, never joined, so a search of its own memory
finds a canary only where something else put it whole.
"""

import json
import secrets

import nbformat

from autograder.course import cells

MARK = "CANARY-SCAN "
PREFIX = "cny"  # every canary's: the kernel searches for it, then for the two halves after it
KINDS = ("comment", "expected value", "reference function", "environment")


def new_canaries():
    """{kind: canary}: random, identifier-safe, as no file holds them before the test."""
    return {kind: f"{PREFIX}{secrets.token_hex(12)}" for kind in KINDS}


def hidden_lines(canaries):
    """What every test cell's hidden part gets: one canary as a comment, one as an expected value,
    one as a reference function's name."""
    return [
        f"# {canaries['comment']}",
        f"_expected_canary = {canaries['expected value']!r}",
        f"def _reference_{canaries['reference function']}():",
        "    return _expected_canary",
    ]


def _with_canaries(source, canaries):
    """``source`` with the canaries first in its hidden part (indented as its marker is), or in
    a hidden part of their own at its end."""
    lines = source.split("\n")
    planted = hidden_lines(canaries)
    if cells.BEGIN_HIDDEN in source:
        at = next(i for i, line in enumerate(lines) if cells.BEGIN_HIDDEN in line)
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        return "\n".join(lines[: at + 1] + [indent + line for line in planted] + lines[at + 1 :])
    return "\n".join(lines + [f"### {cells.BEGIN_HIDDEN}", *planted, f"### {cells.END_HIDDEN}"])


SCANNER = r"""
import json as _cj, os as _cos, stat as _cstat, time as _ctime
import bdl.wire as _cwire
_C_HALVES = [tuple(_cpart.encode() for _cpart in _cpair) for _cpair in %(halves)s]
_C_SINCE, _C_SENTINEL, _C_MEMORY_EVERY = %(since)r, %(sentinel)r, 10.0
_c = {"questions": 0, "cells": 0, "memory": 0, "walks": 0, "planted": 0, "found": [], "last_memory": 0.0}


def _c_forms(prefix, halves):
    return prefix, [(first[len(prefix):], second) for first, second in halves]


_C_FORMS = [_c_forms(b"%(prefix)s", _C_HALVES),
            _c_forms("%(prefix)s".encode("utf-16-le"),
                     [tuple(_part.decode().encode("utf-16-le") for _part in _pair) for _pair in _C_HALVES])]


def _c_search(data, where):
    # one pass per encoding for the prefix all canaries share, each hit checked half by half
    for _prefix, _rests in _C_FORMS:
        _at = data.find(_prefix)
        while _at >= 0:
            _here = _at + len(_prefix)
            for _rest, _second in _rests:
                if data[_here:_here + len(_rest)] == _rest and \
                        data[_here + len(_rest):_here + len(_rest) + len(_second)] == _second:
                    if where not in _c["found"]:
                        _c["found"].append(where)
                    return
            _at = data.find(_prefix, _at + 1)


def _c_file(path):
    try:
        if not _cstat.S_ISREG(_cos.lstat(path).st_mode):
            return
        with open(path, "rb") as _handle:  # a regular file: no FIFO to block on
            _c_search(_handle.read(64 * 2**20), "file " + path)
    except OSError:
        pass


def _c_walk(top, changed_only=False):
    for _dir, _dirs, _files in _cos.walk(top):  # never follows a link
        if _dir in ("/proc", "/sys") or (_dir == "/dev" and top == "/"):
            _dirs[:] = [_d for _d in _dirs if _dir == "/dev" and _d == "shm"]
            continue
        if not changed_only:
            # The writable folders' walks leave out the read-only folders bound inside them (the venv and
            # the course's packages, inside /tmp when the clone is): the kernel cannot write there, and
            # the report's walk of every file changed since the test began reads them.
            _dirs[:] = [_d for _d in _dirs if not _c_read_only(_cos.path.join(_dir, _d))]
        for _name in _files + [_d for _d in _dirs if _cos.path.islink(_cos.path.join(_dir, _d))]:
            _path = _cos.path.join(_dir, _name)
            try:
                if changed_only and _cos.lstat(_path).st_ctime < _C_SINCE:
                    continue
            except OSError:
                continue
            _c_search(_path.encode(), "a file's name " + _path)
            _c_file(_path)


def _c_read_only(path):
    try:
        return bool(_cos.statvfs(path).f_flag & _cos.ST_RDONLY)
    except OSError:
        return False


def _c_writable():
    from ipykernel import get_connection_file
    return sorted({"/tmp", "/dev/shm", _cos.getcwd(), _cos.path.expanduser("~"),
                   _cos.path.dirname(get_connection_file())})


def _c_processes():
    for _pid in [_p for _p in _cos.listdir("/proc") if _p.isdigit()]:
        for _part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{_pid}/{_part}", "rb") as _handle:
                    _c_search(_handle.read(), f"/proc/{_pid}/{_part}")
            except OSError:
                pass
        try:
            for _fd in _cos.listdir(f"/proc/{_pid}/fd"):
                _c_search(_cos.readlink(f"/proc/{_pid}/fd/{_fd}").encode(), f"/proc/{_pid}/fd")
        except OSError:
            pass


def _c_memory():
    _c["memory"] += 1
    _c["last_memory"] = _ctime.monotonic()
    with open("/proc/self/maps") as _maps, open("/proc/self/mem", "rb", 0) as _mem:
        for _line in _maps:
            _fields = _line.split()
            _named = _fields[5] if len(_fields) > 5 else ""
            # the process's own memory: heap, stacks, anonymous maps (a file's are the file scan's)
            if not _fields[1].startswith("r") or (_named and not _named.startswith("[")) \
                    or _named in ("[vvar]", "[vsyscall]", "[vdso]"):
                continue
            _start, _end = (int(_x, 16) for _x in _fields[0].split("-"))
            # in pieces that overlap by more than a canary, so a large region costs no large copy
            for _at in range(_start, _end, 32 * 2**20):
                try:
                    _mem.seek(_at)
                    _c_search(_mem.read(min(32 * 2**20 + 256, _end - _at)), "the kernel's memory " + _named)
                except (OSError, ValueError, OverflowError):
                    pass


def _c_scan(memory=False):
    for _top in _c_writable():
        _c_walk(_top)
    _c_processes()
    _c_search(_cj.dumps(dict(_cos.environ)).encode(), "os.environ")
    if memory or _ctime.monotonic() - _c["last_memory"] > _C_MEMORY_EVERY:
        _c_memory()


def _c_plant():
    for _folder in _c_writable():
        for _name in ("progress", "answer.json", "connection-2.json", "canary-link"):
            _path = _cos.path.join(_folder, _name)
            try:
                if _cos.path.lexists(_path):  # a file the grader made: the link takes its place
                    _cos.unlink(_path)
                _cos.symlink(_C_SENTINEL, _path)
                _c["planted"] += 1
            except OSError:
                pass
        try:
            _cos.mkfifo(_cos.path.join(_folder, "canary-fifo"))
            _c["planted"] += 1
        except OSError:
            pass


_c_respond = _cwire.respond


def _c_answering(*args, **kwargs):
    _c["questions"] += 1
    _c_scan()
    return _c_respond(*args, **kwargs)


def _c_after_cell(result=None):
    _c["cells"] += 1
    _c_scan()


_cwire.respond = _c_answering
get_ipython().events.register("post_run_cell", _c_after_cell)
_c_plant()
_c_scan(memory=True)
"""

REPORT = r"""
_c_walk("/", changed_only=True)
_c["walks"] += 1
_c_scan(memory=True)
print("%(mark)s" + _cj.dumps({key: value for key, value in _c.items() if key != "last_memory"}))
"""


def plant(source_root, target_root, canaries, since, sentinel):
    """Copy every notebook of ``source_root/source`` to ``target_root/source`` with canaries in
    every test cell and the scanner around its cells; return the number of test cells planted."""
    halves = [(canary[: len(canary) // 2], canary[len(canary) // 2 :]) for canary in canaries.values()]
    scanner = SCANNER % {"halves": halves, "since": since, "sentinel": str(sentinel), "prefix": PREFIX}
    planted = 0
    for path in sorted((source_root / "source").glob("*/*.ipynb")):
        nb = nbformat.read(path, 4)
        for cell in nb.cells:
            if cell.cell_type == "code" and cells.is_test(cell):
                cell.source = _with_canaries(cell.source, canaries)
                planted += 1
        first_code = next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code")
        nb.cells.insert(first_code + 1, nbformat.v4.new_code_cell(scanner))
        nb.cells.append(nbformat.v4.new_code_cell(REPORT % {"mark": MARK}))
        target = target_root / "source" / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
    return planted


def report(nb):
    """What the scanner of an autograded notebook found: its report, or None if it never printed."""
    for cell in reversed(nb.cells):
        for output in cell.get("outputs", []):
            for line in output.get("text", "").splitlines():
                if line.startswith(MARK):
                    return json.loads(line[len(MARK) :])
    return None
