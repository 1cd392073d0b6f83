"""Flag submissions whose code an instructor should read before trusting the score.

A static look at the submitted notebook's code, never its execution: code
that rebinds names inside modules (monkey-patching test helpers), reaches for
the interpreter's or IPython's internals (the shell, its history and
transformers, frames, ``gc``), looks names up through computed strings,
defines objects that compare equal to anything, ends the process, or names
the course's files. An answer to this course needs none of it. A flag does
not change the score; it is listed in the grading table and the report so a
person decides.
"""

import ast
import functools
import re

from autograder.course import cells
from autograder.grading.spelled import spelled

# Calls that have no business in an answer to this course's questions.
SUSPECT_CALLS = {
    "setattr",
    "delattr",
    "exec",
    "eval",
    "compile",
    "__import__",
    "os._exit",
    "os.kill",
    "os.fork",
    "os.system",
    "os.chdir",
    "os.putenv",
    "sys.exit",
    "sys._getframe",
    "sys.settrace",
    "sys.setprofile",
    "gc.get_referrers",
    "gc.get_objects",
    "inspect.currentframe",
    "subprocess.run",
    "subprocess.Popen",
    "subprocess.call",
    "shutil.rmtree",
    "ctypes.CDLL",
    "ctypes.pythonapi",
}
# The standard library's modules that run code given as a string.
CODE_RUNNER_MODULES = {
    "timeit",
    "doctest",
    "code",
    "codeop",
    "runpy",
    "cProfile",
    "profile",
    "pdb",
    "bdb",
    "trace",
    "pydoc",
}
SUSPECT_MODULES = {
    "ctypes",
    "gc",
    "inspect",
    "subprocess",
    "signal",
    "multiprocessing",
    "importlib",
    "builtins",
    "sqlite3",
    "pty",
    "resource",
    "linecache",
    "traceback",
    "IPython",
    "ipykernel",
    "jupyter_client",
    "threading",
    "types",
    "dis",
    "marshal",
    "pickle",
    "autograder",
    "bdl.wire",
    "bdl.questions",
} | CODE_RUNNER_MODULES  # the standard library's ways to run code given as a string
# What runs code given as a string.
CODE_RUNNERS = {"exec", "eval", "compile"}
# Magics an answer may use: they run no code of their own.
HARMLESS_MAGICS = {"matplotlib"}
# The cell magics whose body is Python that runs (read as the cell's own code); any other's body is a
# file, a shell script or markup, not read as Python (the magic itself is flagged).
PYTHON_CELL_MAGICS = {"capture", "time", "timeit", "prun", "debug"}
# A code cell longer than this is not parsed (an answer of the course is a few thousand characters; a
# megabyte of Python-looking text costs the parser gigabytes), and is flagged.
MAX_CELL_CHARACTERS = 100_000
# A magic or shell escape on a line of its own, or as an assignment's value (``x = !ls``).
MAGIC_LINE = re.compile(r"^(\s*)(?:[\w.]+\s*=\s*)?(%%?|!!?)\s*(\w*)\s*(.*)$")
SUSPECT_ATTRIBUTES = {
    "__code__",
    "__defaults__",
    "__kwdefaults__",
    "__globals__",
    "__builtins__",
    "__dict__",
    "__closure__",
    "__subclasses__",
    "__bases__",
    "__mro__",
    "__func__",
    "__self__",
    "__traceback__",
    "f_back",
    "f_globals",
    "f_locals",
    "f_code",
    "f_trace",
    "f_lineno",
    "tb_frame",
    "tb_next",
    "gi_frame",
    "cr_frame",
    "co_consts",
    "__setattr__",
    "__delattr__",
}
# The shell's parts: what runs a cell, what it remembers of the cells, what reports errors.
SHELL_ATTRIBUTES = {
    "input_transformers_cleanup",
    "input_transformers_post",
    "ast_transformers",
    "input_transformer_manager",
    "events",
    "run_cell",
    "run_cell_async",
    "run_ast_nodes",
    "run_code",
    "showtraceback",
    "_showtraceback",
    "showsyntaxerror",
    "transform_cell",
    "transform_ast",
    "should_run_async",
    "history_manager",
    "displayhook",
    "excepthook",
    "display_pub",
    "user_ns",
    "user_global_ns",
    "input_hist_raw",
    "input_hist_parsed",
    "register_magic_function",
    "run_line_magic",
    "run_cell_magic",
    "set_next_input",
}
# IPython's names for the cells' inputs and outputs (``_i`` and ``_`` are too common to flag).
SHELL_NAMES = {"get_ipython", "In", "Out", "_ih", "_oh", "_dh", "_ii", "_iii", "__builtins__"}
NUMBERED_INPUT = re.compile(r"_i\d+$|_\d+$")
# Methods that make an object equal, or look like, whatever it is compared with.
SUSPECT_METHODS = {
    "__eq__",
    "__ne__",
    "__bool__",
    "__array__",
    "__array_ufunc__",
    "__array_function__",
    "__array_priority__",
    "__float__",
    "__instancecheck__",
    "__subclasscheck__",
    "__getattr__",
    "__getattribute__",
    "__class__",
    "__hash__",
    "__len__",
    "__abs__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
}
NAME_LOOKUPS = {"getattr", "setattr", "hasattr", "delattr"}
NAMESPACES = {"globals", "vars", "locals", "dir"}
COURSE_WORDS = ("gradebook", "source/", "release/", "submitted/", "autograded/", ".ipynb", "mutants", "nbgrader_config")
# The answering machinery: the module that answers the examiner's questions in the kernel, the names
# an answer would be forged through (its ``respond``, the registry of questions it looks up, the
# examiner's hook), and the package whose modules reach it. Each name says which one it reaches.
MACHINERY = {
    "wire": "bdl.wire",
    "respond": "bdl.wire",
    "QUESTIONS": "bdl.wire",
    "ask_kernel": "bdl.wire",
    "questions": "bdl.questions",
}
# What gives a module, however it is reached: the import functions (and ``sys.modules``, the table
# of loaded modules, read in ``_gives_module``).
MODULE_GETTERS = {"__import__", "import_module", "reload"}
DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _machinery(name):
    """What of the answering machinery the module or attribute name ``name`` reaches, or None."""
    parts = name.split(".")
    for part in parts:
        if MACHINERY.get(part) == "bdl.wire":
            return "bdl.wire"
    if "questions" in parts and (parts[0] == "bdl" or name == "questions"):
        return "bdl.questions"
    return None


def _gives_module(node, modules):
    """Whether ``node`` evaluates to a module: a name bound to one, an import function's result, an
    entry of ``sys.modules``, or an attribute of any of these."""
    while isinstance(node, ast.Attribute):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id in modules
    if isinstance(node, ast.Subscript):  # sys.modules[...], however sys was got
        return _module_table(node.value, modules)
    if isinstance(node, ast.Call):
        if _dotted(node.func) == "getattr":
            return bool(node.args) and _gives_module(node.args[0], modules)
        function = node.func.attr if isinstance(node.func, ast.Attribute) else _dotted(node.func)
        return function in MODULE_GETTERS or (
            function in ("get", "setdefault", "pop")
            and isinstance(node.func, ast.Attribute)
            and _module_table(node.func.value, modules)
        )
    return False


def _module_table(node, modules):
    """Whether ``node`` may be ``sys.modules``: an attribute ``modules``, or what a module holds."""
    return (isinstance(node, ast.Attribute) and node.attr == "modules") or _gives_module(node, modules)


def _reaches(tree, modules):
    """Flags for every reach into the answering machinery (``bdl.wire``, ``bdl.questions``): imported,
    named by an attribute, or spelled as a string out of constants (for ``__import__``, ``importlib``,
    ``getattr``, ``sys.modules``); and for every attribute set on a module, however it was got."""
    flags = set()
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
    memo = {}
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Attribute) and _gives_module(node.value, modules):
            names = [node.attr] if node.attr in MACHINERY else []
        elif id(node) not in docstrings and isinstance(
            node, (ast.Constant, ast.BinOp, ast.JoinedStr, ast.Subscript, ast.Call)
        ):
            text = (spelled(node, memo) or "").strip()
            names = [text] if DOTTED_NAME.fullmatch(text) else []
        for name in names:
            if _machinery(name):
                flags.add(f"reaches {_machinery(name)}")
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            flags.update(
                f"rebinds {_short(target)}"
                for target in targets  # (a module named by a name: above)
                if isinstance(target, ast.Attribute)
                and _dotted(target) is None
                and _gives_module(target.value, modules)
            )
        elif (
            isinstance(node, ast.Call)
            and _dotted(node.func) in ("setattr", "delattr")
            and node.args
            and _gives_module(node.args[0], modules)
        ):
            attribute = spelled(node.args[1]) if len(node.args) > 1 else None
            flags.add(f"rebinds {_short(node.args[0])}.{attribute or '...'}")
            if attribute and _machinery(attribute):
                flags.add(f"reaches {_machinery(attribute)}")
    return flags


def _short(node):
    """A piece of code, for a flag: at most 40 characters."""
    try:
        text = ast.unparse(node)
    except RecursionError:
        return "..."
    return text if len(text) <= 40 else text[:37] + "..."


def _flags(tree, modules):
    flags = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr in SUSPECT_METHODS | SHELL_ATTRIBUTES:
                    flags.add(f"rebinds .{target.attr}")
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Attribute)
                    and target.value.attr[:1].isupper()
                ):  # a method of a library's class
                    flags.add(f"rebinds {_dotted(target) or '.'.join((target.value.attr, target.attr))}")
                name = _dotted(target) if isinstance(target, ast.Attribute) else None
                if name and (name.split(".")[0] in modules or name.rsplit(".", 1)[-1] in SUSPECT_ATTRIBUTES):
                    flags.add(f"rebinds {name}")
                if isinstance(target, ast.Subscript) and _dotted(target.value) in (
                    "sys.modules",
                    "os.environ",
                    "__builtins__",
                ):
                    flags.add(f"writes {_dotted(target.value)}")
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if (
                name in NAME_LOOKUPS
                and len(node.args) >= 2
                and not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str))
            ):
                flags.add(f"computed name lookup {name}(..., {_short(node.args[1])})")
            if name in NAMESPACES:
                flags.add(f"uses {name}()")
            if (
                name in ("__import__", "importlib.import_module")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and _suspect_module(str(node.args[0].value))
            ):
                flags.add(f"imports {node.args[0].value}")
            if name and (
                name in CODE_RUNNERS
                or name.split(".")[0] in CODE_RUNNER_MODULES
                or name.rsplit(".", 1)[-1] in ("run_line_magic", "run_cell_magic")
            ):
                # The code it is given as a string is read as the cell's own.
                for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
                    if spelled(argument) is not None:
                        inner = _parse(spelled(argument))
                        flags |= _flags(inner, modules) if inner is not None else set()
            if name == MAGIC and node.args and isinstance(node.args[0], ast.Constant):
                kind = node.args[0].value
                if kind == "!":
                    flags.add("runs a shell command (!)")
                elif kind.lstrip("%") not in HARMLESS_MAGICS:
                    flags.add(f"uses the magic {kind}")
            if name in SUSPECT_CALLS or (
                name and name.startswith("os.environ") and name.endswith(("update", "pop", "clear", "setdefault"))
            ):
                flags.add(f"calls {name}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                if _suspect_module(name):
                    flags.add(f"imports {name}")
        elif isinstance(node, ast.Attribute) and node.attr in SUSPECT_ATTRIBUTES:
            flags.add(f"uses .{node.attr}")
        elif isinstance(node, ast.Attribute) and node.attr in SHELL_ATTRIBUTES:
            flags.add(f"reaches the shell's {node.attr}")
        elif isinstance(node, ast.Attribute) and _dotted(node) == "sys.modules":
            flags.add("uses sys.modules")
        elif isinstance(node, ast.Attribute) and (_dotted(node) or "").split(".")[0] in ("builtins", "__builtins__"):
            flags.add(f"reaches builtins.{node.attr}")
        elif isinstance(node, ast.Name) and (node.id in SHELL_NAMES or NUMBERED_INPUT.match(node.id)):
            flags.add("uses get_ipython" if node.id == "get_ipython" else f"reads {node.id}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in SUSPECT_METHODS:
            flags.add(f"defines {node.name}")
        elif isinstance(node, ast.ClassDef):
            for item in node.body:  # ``__class__ = property(...)``, ``__eq__ = lambda ...``
                targets = item.targets if isinstance(item, ast.Assign) else []
                flags.update(
                    f"defines {target.id}"
                    for target in targets
                    if isinstance(target, ast.Name) and target.id in SUSPECT_METHODS
                )
        elif isinstance(node, ast.Global):
            flags.add(f"rebinds the notebook's names from a function (global {', '.join(node.names)})")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for word in COURSE_WORDS:
                if word in node.value:
                    flags.add(f"names course files ({word!r})")
    return flags | _reaches(tree, modules)


def _suspect_module(name):
    return name.split(".")[0] in SUSPECT_MODULES or any(
        name == module or name.startswith(module + ".") for module in SUSPECT_MODULES if "." in module
    )


def _imported_modules(trees):
    """Names bound to modules by imports (``np``, ``tf``, ``checks``), to their parts
    (``tfd = tfp.distributions``) or to what an import function gives (``w = __import__(...)``),
    plus well-known ones."""
    names = {"builtins", "__builtins__", "os", "sys", "math"}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    names.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name[:1].islower():  # modules and functions, not classes
                        names.add(alias.asname or alias.name)
    assignments = [node for tree in trees for node in ast.walk(tree) if isinstance(node, ast.Assign)]
    while True:  # until no name is added: ``m = sys.modules; w = m.get(...)``
        found = {
            target.id
            for node in assignments
            if _gives_module(node.value, names)
            for target in node.targets
            if isinstance(target, ast.Name)
        } - names
        if not found:
            return names
        names |= found


# What a magic or shell escape becomes in the syntax tree the review reads: a call that names it.
MAGIC = "__ipython_magic__"


def _python(source):
    """The cell as the review reads it: IPython's magics and shell escapes (which nbgrader runs)
    become a call naming them, followed by the Python they run where it is Python
    (``%time exec(...)``, a ``%%capture`` cell's body)."""
    lines = source.splitlines()
    out = []
    for number, line in enumerate(lines):
        match = MAGIC_LINE.match(line)
        if not match:
            out.append(line)
            continue
        indent, kind, name, rest = match.groups()
        label = "!" if kind.startswith("!") else (kind + name)[:40]
        out.append(f"{indent}{MAGIC}({label!r})")
        if kind == "%%" and number == 0:  # a cell magic: the lines after it are its body
            if name not in PYTHON_CELL_MAGICS:
                break
            continue
        if kind.startswith("%") and rest and _parses(rest):
            out.append(indent + rest)
    return "\n".join(out)


def _parses(code):
    try:
        ast.parse(code)
        return True
    except SyntaxError:
        return False


def _tree(code):
    """The syntax tree of ``code`` (a cell as ``_python`` reads it), or None."""
    if len(code) > MAX_CELL_CHARACTERS:
        return None
    try:
        return ast.parse(code)
    except (SyntaxError, RecursionError):  # too deep for Python's parser: the kernel's cannot run it either
        return None


def _parse(source):
    """The cell's syntax tree, or None."""
    return _tree(_python(source))


@functools.lru_cache(maxsize=8)
def _provided_trees(provided):
    """The release's code cells' trees, parsed once for a whole class (the students' are not kept)."""
    return [tree for tree in map(_parse, provided) if tree is not None]


def review_notebook(nb, provided=(), tests=()):
    """Return sorted flags for the code of the notebook ``nb`` (``autograder.grading.handin``'s).

    ``provided`` is the code cells' sources the release gives every student
    (e.g. its ``import`` cell): flags raised by them alone are not the student's. ``tests`` are the
    cell ids of the release's test cells, whose code is replaced by the gradebook's before it runs:
    a submitted cell's own metadata says nothing (repair strips a test's marks from any other cell).
    """
    codes = [
        _python(cells.cell_text(cell) or "")
        for cell in nb.cells
        if cell.get("cell_type") == "code" and cell.get("id") not in tests
    ]
    flags = {
        f"a code cell of {len(code):,} characters, too long for the review to read"
        for code in codes
        if len(code) > MAX_CELL_CHARACTERS
    }
    trees = [tree for tree in map(_tree, codes) if tree is not None]
    provided_trees = _provided_trees(tuple(provided))
    try:
        modules = _imported_modules(trees)
        ours = set().union(*(_flags(tree, modules) for tree in provided_trees)) if provided_trees else set()
        return sorted(flags | (set().union(*(_flags(tree, modules) for tree in trees)) - ours if trees else set()))
    except RecursionError:  # Python reads it, the review's walk through nested names does not
        return sorted(flags | {"nests code too deep for the review to read"})
