"""Kernel-side guard for grading: every cell starts from the state the grader set up,
and every test cell ends with a seal that says whether it did.

``python -m autograder grade`` starts each grading kernel with ``install()``.
It imports what the hidden tests rely on, snapshots it, and before and after
every cell puts back:

* the working directory, ``os.environ`` and ``sys.path`` (a cell that changes
  them, e.g. clearing ``NBGRADER_EXECUTION`` to train in full mode, affects
  only itself);
* the module-level names of the modules the tests call (``builtins``,
  ``math``, NumPy and its testing helpers, TensorFlow's core namespaces,
  TensorFlow Probability's distributions, ``bdl.checks``), those modules in
  ``sys.modules``, the import system's finders, and the names the notebook
  bound to them (``np``, ``tf``, ``assert_close``), so that
  ``numpy.testing.assert_allclose = lambda *a, **k: None`` in one cell does not
  disarm the tests in the next;
* IPython's machinery that runs a cell and reports its errors: the input and
  AST transformers, the shell's methods (``run_cell``, ``showtraceback``, ...),
  its events, display hook and the session that sends messages, the kernel's
  streams, and ``sys``'s hooks; tracing and profiling are switched off;
* ``warnings.showwarning``, which it points at stdout: nbgrader scores a test
  cell zero when anything reaches stderr, and a correct answer must not lose
  points because NumPy or a library warned (a test that forbids warnings
  says so and catches them itself).

Putting things back is prevention, and code in the same process can get
around it. What the grader relies on is the seal (``autograder.worker.seal``): the
worker appends ``_bdl_seal("<token>")`` to each test cell, with a token the
kernel first sees when that cell runs. ``seal`` checks that the cell ran with
the machinery intact (nothing above changed since the cell began, the guard's
own callbacks saw this cell, no tracer) and prints the token with an HMAC
under a key that the worker handed the guard in a file it deletes before any
student code runs. A test cell whose seal is missing, forged or says
"tampered", and that shows no error, is scored zero by the worker and the
submission is not scored.

It also keeps a submission that kills its kernel from losing every later
answer's points. Before each cell it writes the cell's source to the file
named by ``$BDL_GRADING_PROGRESS``, so the grader knows which cell was running
when the kernel died or was killed; on the next attempt, the cells whose keys
(``cell_key``) are listed in ``$BDL_GRADING_SKIP`` are not run but raise an
error instead, so they and whatever needs their names score zero and every
other cell is graded.
"""
import ast
import builtins
import hashlib
import hmac
import importlib
import json
import os
import re
import sys
import threading
import types
import warnings

# As the notebooks name them (``tfp.distributions`` is an attribute, not an importable module).
PROTECTED = ("builtins", "math", "numpy", "numpy.testing", "numpy.linalg", "numpy.random",
             "tensorflow", "tensorflow.math", "tensorflow.nn", "tensorflow.random", "tensorflow.debugging",
             "tensorflow.keras", "tensorflow.keras.layers", "tensorflow_probability",
             "tensorflow_probability.distributions", "tensorflow_probability.layers",
             "bdl", "bdl.checks", "bdl.diagnoses", "warnings")
# The shell's methods that run a cell and report how it went; a submission may not replace them.
SHELL_METHODS = ("run_cell", "run_cell_async", "run_ast_nodes", "run_code", "transform_cell", "transform_ast",
                 "should_run_async", "showtraceback", "_showtraceback", "showsyntaxerror",
                 "showindentationerror", "get_exception_only", "_get_exc_info")
SHELL_PARTS = ("displayhook", "display_pub", "events", "input_transformer_manager", "input_transformers_post",
               "ast_transformers", "history_manager", "compile", "kernel", "user_ns")

# The libraries whose classes the tests' computations go through.
LIBRARIES = ("numpy", "tensorflow", "tensorflow_probability", "tf_keras", "keras", "bdl")

# What the kernel itself rebinds for each request (reading from the front end's stdin).
KERNEL_REBINDS = {("builtins", "input"), ("builtins", "raw_input"), ("getpass", "getpass")}

# What a kernel runs first to install the guard (IPKernelApp.exec_lines).
GUARD = "import autograder.worker.guard; autograder.worker.guard.install()"
# Set by the grading worker for its kernel: where to note the running cell, which cells to skip,
# and the file holding the seal's key (deleted once read).
PROGRESS_ENV = "BDL_GRADING_PROGRESS"
SKIP_ENV = "BDL_GRADING_SKIP"
KEY_ENV = "BDL_GRADING_KEY"
SKIPPED = ("raise RuntimeError('not run when graded: this cell stopped the grading kernel, "
           "so it was left out and the rest of the notebook graded without it')\n")
# The builtin a sealed test cell calls last, and the line it prints.
SEAL_NAME = "_bdl_seal"
SEAL_PREFIX = "bdl-seal:"
SEAL_CALL = re.compile(r"\n" + SEAL_NAME + r"\('\w+'\)\s*$")

_MISSING = object()


def cell_key(source):
    """What names a cell across grading attempts: a hash of its code, without the seal (whose
    token is new in each attempt)."""
    return hashlib.sha256(SEAL_CALL.sub("", source).strip().encode()).hexdigest()


def seal_mac(key, token):
    """The HMAC a genuine seal prints after ``token``."""
    return hmac.new(key, token.encode(), "sha256").hexdigest()


def _skipper(keys):
    """An IPython input transformer that swaps the code of the cells in ``keys`` for ``SKIPPED``."""
    def skip(lines):
        return [SKIPPED] if cell_key("".join(lines)) in keys else lines
    return skip


def _rebuilt(value):
    """Whether Python makes ``value`` anew on each lookup (a bound method), so identity says nothing."""
    return isinstance(value, (types.MethodType, types.BuiltinMethodType, types.MethodWrapperType))


def _module(name):
    """The module the notebooks reach as ``name``, loaded (a lazy loader fills its namespace on
    first use)."""
    root, *parts = name.split(".")
    module = importlib.import_module(root)
    for part in parts:
        module = getattr(module, part)
    dir(module)
    return module


def _code(function):
    return function.__code__, function.__defaults__, function.__kwdefaults__


def _library_classes(namespaces):
    """The libraries' classes the tests use: those named in ``namespaces`` (``tfd.Normal``), a
    tensor's and a variable's, and their bases. Their methods (``log_prob``, ``__array__``,
    ``numpy``, ``__eq__``) compute what the tests compare."""
    import tensorflow as tf
    classes = [type(tf.constant(0.0)), type(tf.Variable(0.0))]
    classes += [value for names in namespaces for value in names.values() if isinstance(value, type)]
    return list(dict.fromkeys(base for cls in classes for base in cls.__mro__
                              if base.__module__.split(".")[0] in LIBRARIES))


def _routines(namespace):
    """What of a namespace can change what code does: its functions, classes and modules (not
    its data, which libraries change as they run)."""
    return {key: value for key, value in namespace.items()
            if callable(value) or isinstance(value, (types.ModuleType, property, classmethod, staticmethod))}


def _same(now, then):
    """Whether ``now`` is still the snapshot's ``then``: the same object, the same bound method
    made anew, or the module a lazy loader (TensorFlow's ``tf.keras``) has since put in its place."""
    if now is then or (_rebuilt(then) and now == then):
        return True
    lazy = isinstance(then, types.ModuleType) and "LazyLoader" in type(then).__name__
    return lazy and isinstance(now, types.ModuleType) and sys.modules.get(now.__name__) is now


class _Attributes:
    """Named attributes of an object as they are now, looked up where Python finds them: the
    object's own ``__dict__`` and each class of its MRO, so a method replaced on the instance or
    on its class is seen and put back."""

    def __init__(self, label, owner, names):
        self.label, self.owner, self.names = label, owner, names
        self.own = {name: vars(owner).get(name, _MISSING) for name in names} if hasattr(owner, "__dict__") else {}
        self.classes = [(cls, {name: vars(cls).get(name, _MISSING) for name in names})
                        for cls in type(owner).__mro__ if cls is not object]
        self.values = {name: getattr(owner, name, _MISSING) for name in names}

    def changed(self):
        found = []
        own = vars(self.owner) if hasattr(self.owner, "__dict__") else {}
        for name in self.names:
            if self.own and own.get(name, _MISSING) is not self.own[name]:
                found.append(f"{self.label}.{name}")
            elif any(vars(cls).get(name, _MISSING) is not saved[name] for cls, saved in self.classes):
                found.append(f"{type(self.owner).__name__}.{name}")
            elif not _rebuilt(self.values[name]) and getattr(self.owner, name, _MISSING) is not self.values[name]:
                found.append(f"{self.label}.{name}")
        return found

    def restore(self):
        own = vars(self.owner) if hasattr(self.owner, "__dict__") else None
        for name in self.names:
            try:
                if own is not None and own.get(name, _MISSING) is not self.own.get(name, _MISSING):
                    if self.own.get(name, _MISSING) is _MISSING:
                        del own[name]
                    else:
                        own[name] = self.own[name]
                for cls, saved in self.classes:
                    if vars(cls).get(name, _MISSING) is not saved[name]:
                        if saved[name] is _MISSING:
                            delattr(cls, name)
                        else:
                            setattr(cls, name, saved[name])
                value = self.values[name]
                if value is not _MISSING and not _rebuilt(value) and getattr(self.owner, name, _MISSING) is not value:
                    setattr(self.owner, name, value)
            except (AttributeError, TypeError, KeyError):  # read-only: nothing a cell could change either
                pass


class _Lists:
    """Lists the machinery reads (transformers, event callbacks, import finders): the same list
    objects with the same items."""

    def __init__(self, lists):
        self.lists = [(label, items, list(items)) for label, items in lists]

    def changed(self):
        return [label for label, items, saved in self.lists
                if len(items) != len(saved) or any(a is not b for a, b in zip(items, saved))]

    def restore(self):
        for _, items, saved in self.lists:
            items[:] = saved


class _Guard:
    """The snapshot of one kernel and what puts it back."""

    def __init__(self, ipython, key):
        self.ipython, self.key = ipython, key
        self.cell = ""          # the raw code of the cell now running, as pre_run_cell saw it
        self.sealed = set()     # tokens sealed already: each seals one run of one cell
        self.modules = {}
        for name in PROTECTED:
            module = _module(name)
            self.modules[name] = (module, dict(vars(module)))
        self.imported = {name for name, (module, _) in self.modules.items() if sys.modules.get(name) is module}
        # A function keeps its identity when its code is swapped (``f.__code__ = ...``).
        self.functions = {function: _code(function) for _, names in self.modules.values()
                          for function in names.values() if isinstance(function, types.FunctionType)}
        # NumPy's inner modules (``np.allclose`` calls ``numpy._core.numeric.isclose``) and the
        # libraries' classes, whose methods the tests call.
        self.inner = {module: _routines(vars(module)) for name, module in list(sys.modules.items())
                      if module is not None and name.split(".")[0] in ("numpy", "bdl") and name not in PROTECTED}
        self.classes = {cls: _routines(vars(cls)) for cls in _library_classes(
            [names for _, names in self.modules.values()])}
        self.cwd, self.environ, self.path = os.getcwd(), dict(os.environ), list(sys.path)
        self.hooks = {name: getattr(sys, name) for name in ("displayhook", "excepthook", "stdout", "stderr")}
        self.stdout = sys.stdout
        self.names = {}         # notebook names bound to a protected module or helper: np, tf, assert_close
        self.module_ids = {id(module) for module, _ in self.modules.values()}
        self.callbacks = {event: list(callbacks) for event, callbacks in ipython.events.callbacks.items()}
        self.lists, self.attributes = self._machinery()

    def _machinery(self):
        ip = self.ipython
        events = ip.events
        manager = ip.input_transformer_manager
        lists = [("input_transformers_cleanup", manager.cleanup_transforms),
                 ("input_transformer_manager.line_transforms", manager.line_transforms),
                 ("input_transformers_post", ip.input_transformers_post),
                 ("ast_transformers", ip.ast_transformers),
                 ("sys.meta_path", sys.meta_path), ("sys.path_hooks", sys.path_hooks)]
        parts = [("shell", ip, SHELL_METHODS + SHELL_PARTS), ("events", events, ("trigger", "register",
                                                                                   "unregister", "callbacks")),
                 ("input_transformer_manager", manager, ("transform_cell", "cleanup_transforms", "line_transforms",
                                                         "token_transformers"))]
        for label, owner in (("displayhook", ip.displayhook), ("display_pub", ip.display_pub)):
            parts.append((label, owner, ("__call__", "write_output_prompt", "write_format_data",
                                         "finish_displayhook", "start_displayhook", "publish", "session",
                                         "pub_socket")))
        session = getattr(ip.displayhook, "session", None)
        if session is not None:
            parts.append(("session", session, ("send", "serialize", "sign", "msg")))
        kernel = getattr(ip, "kernel", None)
        if kernel is not None:
            parts.append(("kernel", kernel, ("do_execute", "execute_request", "send_response", "session",
                                             "iopub_socket", "shell_handlers")))
        for label, stream in (("sys.stdout", sys.stdout), ("sys.stderr", sys.stderr)):
            parts.append((label, stream, ("write", "flush", "writelines", "session", "pub_thread")))
        return _Lists(lists), [_Attributes(*part) for part in parts]

    def _foreign_callbacks(self):
        """Event callbacks a cell added: any whose code is not in Python's or the course's files."""
        course = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))  # above autograder/worker/
        trusted = tuple({os.path.realpath(path) for path in (sys.prefix, sys.base_prefix, course)})
        found = []
        for event, callbacks in self.ipython.events.callbacks.items():
            for callback in callbacks:
                if callback in self.callbacks.get(event, ()):
                    continue
                function = getattr(callback, "__func__", callback)
                code = getattr(function, "__code__", None) or getattr(getattr(type(callback), "__call__", None),
                                                                     "__code__", None)
                if code is None or not os.path.realpath(code.co_filename).startswith(trusted):
                    found.append((event, callback))
        return found

    def _routine_changes(self):
        """(owner, name) of each routine of an inner module or a library class that was replaced,
        removed or added."""
        return [(owner, key) for snapshot in (self.inner, self.classes) for owner, names in snapshot.items()
                for key in set(names) | set(_routines(vars(owner)))
                if not _same(vars(owner).get(key, _MISSING), names.get(key, _MISSING))]

    def changed(self):
        """What differs from the snapshot: a list of descriptions, empty when nothing does."""
        found = [f"{name}.{key}" for name, (module, names) in self.modules.items()
                 for key, value in names.items()
                 if not _same(vars(module).get(key, _MISSING), value) and (name, key) not in KERNEL_REBINDS]
        found += [f"{function.__module__}.{function.__qualname__}.__code__"
                  for function, code in self.functions.items() if _code(function) != code]
        found += [f"{owner.__name__}.{key}" for owner, key in self._routine_changes()]
        found += [f"sys.modules[{name!r}]" for name, (module, _) in self.modules.items()
                  if name in self.imported and sys.modules.get(name) is not module]
        found += [f"the notebook's {name}" for name, value in self.names.items()
                  if self.ipython.user_ns.get(name, value) is not value]
        found += [f"sys.{name}" for name, hook in self.hooks.items() if not _same(getattr(sys, name), hook)]
        found += self.lists.changed()
        for part in self.attributes:
            found += part.changed()
        found += [f"events: a {event} callback of the submission's" for event, _ in self._foreign_callbacks()]
        for event, callbacks in self.callbacks.items():
            if any(callback not in self.ipython.events.callbacks.get(event, ()) for callback in callbacks):
                found.append(f"events: the grader's {event} callback removed")
        if sys.gettrace() is not None or threading._trace_hook is not None:
            found.append("sys.settrace")
        if sys.getprofile() is not None or threading._profile_hook is not None:
            found.append("sys.setprofile")
        return sorted(set(found))

    def restore(self):
        if os.getcwd() != self.cwd:
            os.chdir(self.cwd)
        if dict(os.environ) != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        sys.path[:] = self.path
        sys.settrace(None)
        sys.setprofile(None)
        threading.settrace(None)
        threading.setprofile(None)
        for name, hook in self.hooks.items():
            setattr(sys, name, hook)
        for part in self.attributes:
            part.restore()
        self.lists.restore()
        for function, (code, defaults, kwdefaults) in self.functions.items():
            if _code(function) != (code, defaults, kwdefaults):
                function.__code__, function.__defaults__, function.__kwdefaults__ = code, defaults, kwdefaults
        for owner, key in self._routine_changes():
            value = {**self.inner, **self.classes}[owner].get(key, _MISSING)
            try:
                if value is _MISSING:
                    delattr(owner, key)
                else:
                    setattr(owner, key, value)
            except (AttributeError, TypeError):  # a built-in type's: nothing a cell could change either
                pass
        for event, callbacks in self.ipython.events.callbacks.items():
            for _, callback in [item for item in self._foreign_callbacks() if item[0] == event]:
                callbacks.remove(callback)
        for event, callbacks in self.callbacks.items():
            present = self.ipython.events.callbacks.setdefault(event, [])
            present.extend(callback for callback in callbacks if callback not in present)
        for name, (module, names) in self.modules.items():
            if name in self.imported:
                sys.modules[name] = module
            namespace = vars(module)
            for key, value in names.items():
                if not _same(namespace.get(key, _MISSING), value):
                    namespace[key] = value
        user_ns = self.ipython.user_ns
        for name, value in self.names.items():
            user_ns[name] = value
        for name, value in list(user_ns.items()):  # the first binding of np, tf, tfd is the one kept
            if id(value) in self.module_ids and name not in self.names:
                self.names[name] = value

    def _helpers_changed(self):
        """The test cell's own imports from bdl.checks that no longer name the helpers."""
        try:
            tree = ast.parse(self.cell)
        except SyntaxError:
            return []
        checks = self.modules["bdl.checks"][1]
        imported = [alias.asname or alias.name for node in tree.body
                    if isinstance(node, ast.ImportFrom) and node.module == "bdl.checks"
                    for alias in node.names if alias.name in checks]
        names = [alias.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "bdl.checks"
                 for alias in node.names if alias.name in checks]
        return [f"the test's {local}" for local, name in zip(imported, names)
                if self.ipython.user_ns.get(local) is not checks[name]]

    def seal(self, token):
        """The line a sealed test cell prints last: its token, and the HMAC or what was tampered with."""
        token = str(token)
        problems = self.changed() + self._helpers_changed()
        if token not in self.cell:
            problems.append("the cell that ran is not the one the grader's callbacks saw")
        if token in self.sealed:
            problems.append("sealed twice")
        self.sealed.add(token)
        verdict = seal_mac(self.key, token) if not problems else "tampered:" + "; ".join(problems)
        self.stdout.write(f"\n{SEAL_PREFIX}{token}:{verdict}\n")
        self.stdout.flush()


def _read_key():
    """The seal's key from the file the worker names, which is deleted at once; a random key
    (the seal then convinces nobody) when the kernel is not grading."""
    path = os.environ.pop(KEY_ENV, "")
    try:
        with open(path, "rb") as handle:
            key = handle.read()
        os.unlink(path)
        return key
    except OSError:
        return os.urandom(32)


def install(ipython=None):
    """Snapshot now, restore before and after every cell of this IPython kernel, and give test
    cells their seal; return the guard."""
    import bdl  # Keras 2 for TensorFlow Probability; must precede TensorFlow
    import bdl.checks  # noqa: F401 (protected: the tests' helpers)
    import bdl.diagnoses  # noqa: F401 (protected: what a failing test says of the answer; its tables load now)

    ipython = ipython or get_ipython()  # noqa: F821 (defined in an IPython kernel)
    warnings.showwarning = bdl.show_warning_on_stdout
    key = _read_key()
    progress = os.environ.get(PROGRESS_ENV)
    skip = set(json.loads(os.environ.get(SKIP_ENV) or "[]"))
    if skip:
        # First of the clean-up transforms, so it sees the cell as written.
        ipython.input_transformers_cleanup.insert(0, _skipper(skip))
    guard = None

    def before_cell(info=None):
        guard.restore()
        guard.cell = getattr(info, "raw_cell", "") or ""
        if progress and info is not None:
            try:
                with open(progress, "w") as handle:
                    handle.write(info.raw_cell)
            except OSError:  # a cell removed the folder: it can only lose the crash isolation
                pass

    def after_cell(result=None):
        guard.restore()

    def seal(token):
        guard.seal(token)

    setattr(builtins, SEAL_NAME, seal)
    ipython.events.register("pre_run_cell", before_cell)
    ipython.events.register("post_run_cell", after_cell)
    guard = _Guard(ipython, key)
    return guard
