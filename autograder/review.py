"""Flag submissions whose code an instructor should read before trusting the score.

A static look at the submitted notebook's code, never its execution: code
that rebinds names inside modules (monkey-patching test helpers), reaches for
the interpreter's internals, ends the process, or names the course's files.
A flag does not change the score; it is listed in the grading table and the
report so a person decides.
"""
import ast
import functools
import json

# Calls that have no business in an answer to this course's questions.
SUSPECT_CALLS = {"setattr", "delattr", "exec", "eval", "compile", "__import__",
                 "os._exit", "os.kill", "os.fork", "os.system", "os.chdir", "os.putenv",
                 "sys.exit", "sys._getframe", "sys.settrace", "sys.setprofile",
                 "gc.get_referrers", "gc.get_objects", "inspect.currentframe",
                 "subprocess.run", "subprocess.Popen", "subprocess.call",
                 "shutil.rmtree", "ctypes.CDLL", "ctypes.pythonapi"}
SUSPECT_MODULES = {"ctypes", "gc", "inspect", "subprocess", "signal", "multiprocessing",
                   "importlib", "builtins", "sqlite3", "pty", "resource"}
SUSPECT_ATTRIBUTES = {"__code__", "__defaults__", "__kwdefaults__", "__globals__", "__builtins__",
                      "__dict__", "f_back", "f_globals", "f_locals"}
COURSE_WORDS = ("gradebook", "source/", "release/", "submitted/", "autograded/", ".ipynb",
                "mutants", "nbgrader_config")


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _flags(tree, modules):
    flags = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                name = _dotted(target) if isinstance(target, ast.Attribute) else None
                if name and (name.split(".")[0] in modules or name.rsplit(".", 1)[-1] in SUSPECT_ATTRIBUTES):
                    flags.add(f"rebinds {name}")
                if isinstance(target, ast.Subscript) and _dotted(target.value) in (
                        "sys.modules", "os.environ", "__builtins__"):
                    flags.add(f"writes {_dotted(target.value)}")
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in SUSPECT_CALLS or (name and name.startswith("os.environ")
                                         and name.endswith(("update", "pop", "clear", "setdefault"))):
                flags.add(f"calls {name}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) \
                else [node.module or ""]
            for name in names:
                if name.split(".")[0] in SUSPECT_MODULES:
                    flags.add(f"imports {name}")
        elif isinstance(node, ast.Attribute) and node.attr in SUSPECT_ATTRIBUTES:
            flags.add(f"uses .{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for word in COURSE_WORDS:
                if word in node.value:
                    flags.add(f"names course files ({word!r})")
    return flags


def _imported_modules(trees):
    """Names bound to modules by imports (``np``, ``tf``, ``checks``), plus well-known ones."""
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
    return names


@functools.lru_cache(maxsize=4096)
def _parse(source):
    """The cell's syntax tree, or None. The release's cells are parsed once for a whole class."""
    # IPython magics and shell escapes are not Python; nbgrader runs them anyway.
    lines = ["pass" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def review_notebook(path, provided=()):
    """Return sorted flags for the code of the notebook at ``path``.

    ``provided`` is the code cells' sources the release gives every student
    (e.g. its ``import`` cell): flags raised by them alone are not the student's.
    """
    try:
        nb = json.loads(open(path, encoding="utf-8").read())
        sources = ["".join(cell.get("source", "")) for cell in nb.get("cells", [])
                   if cell.get("cell_type") == "code"]
    except (OSError, ValueError, AttributeError, TypeError):
        return []  # nbgrader reports what is wrong with the file itself
    trees = [tree for tree in map(_parse, sources) if tree is not None]
    provided_trees = [tree for tree in map(_parse, provided) if tree is not None]
    modules = _imported_modules(trees)
    ours = set().union(*(_flags(tree, modules) for tree in provided_trees)) if provided_trees else set()
    return sorted(set().union(*(_flags(tree, modules) for tree in trees)) - ours) if trees else []
