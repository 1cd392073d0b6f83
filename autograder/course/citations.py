"""Which checks of a test cell cite which requirement of the text, read from the cell's code.

A test cell calls ``requirement("key")`` (``bdl.requirements``) before the checks that hold that
sentence; a check is an ``assert`` statement, a call of an ``assert...`` helper, or a call of a function
the cell defines that checks. A call of the answer is one too: it must run on those inputs, and an
error it raises quotes the sentence cited before it. Read in line order, as the cell runs, except that a loop must start by
citing if it cites at all: its first checks would otherwise cite the previous iteration's sentence.
"""

import ast
from collections.abc import Collection
from dataclasses import dataclass

MARKER = "requirement"


@dataclass(frozen=True)
class Check:
    line: int
    key: str | None  # the requirement it cites; None: none
    case: str  # what the check says it checks, its placeholders as "…"
    call: bool = False  # a call of the answer, not a check


@dataclass(frozen=True)
class Citations:
    checks: tuple[Check, ...]
    late_loops: tuple[int, ...]  # lines of loops that cite, but not first

    def keys(self) -> set[str]:
        return {check.key for check in self.checks if check.key is not None}

    def uncited(self) -> list[int]:
        return sorted({check.line for check in self.checks if check.key is None} | set(self.late_loops))


def _called(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _marker(node: ast.AST) -> str | None:
    """The key a ``requirement("key")`` call cites ("" for a key that is not a literal), or None."""
    if not (isinstance(node, ast.Call) and _called(node) == MARKER):
        return None
    first = node.args[0] if node.args else None
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""


def _case(node: ast.AST) -> str:
    """The first text among a check's arguments (an assert's message), placeholders as "…"."""
    parts = (
        [node.msg]
        if isinstance(node, ast.Assert)
        else [*getattr(node, "args", []), *[k.value for k in getattr(node, "keywords", [])]]
    )
    for part in parts:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            return part.value
        if isinstance(part, ast.JoinedStr):
            return "".join(v.value if isinstance(v, ast.Constant) else "…" for v in part.values)
    return ""


def defined_names(source: str) -> set[str]:
    """The functions and classes an answer cell defines."""
    return {node.name for node in ast.parse(source).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def read(source: str, answers: Collection[str] = ()) -> Citations:
    """The checks of the test cell ``source`` and what each cites; a call of one of ``answers`` counts
    as holding the sentence cited before it."""
    tree = ast.parse(source)
    checkers = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and any(isinstance(inner, ast.Assert) or _called(inner).startswith("assert") for inner in ast.walk(node))
    }
    found: list[tuple[int, str | None, ast.AST]] = []  # (line, a marker's key or None, node)
    late_loops = []

    def visit(node: ast.AST, in_checker: bool) -> None:
        in_checker = in_checker or (isinstance(node, ast.FunctionDef) and node.name in checkers)
        if isinstance(node, (ast.For, ast.While)) and any(_marker(inner) is not None for inner in ast.walk(node)):
            first = node.body[0]
            if not (isinstance(first, ast.Expr) and _marker(first.value) is not None):
                late_loops.append(node.lineno)
        key = _marker(node)
        if key is not None:
            found.append((node.lineno, key, node))
        elif not in_checker and (
            isinstance(node, ast.Assert)
            or (isinstance(node, ast.Call) and (_called(node).startswith("assert") or _called(node) in checkers))
        ):
            found.append((node.lineno, None, node))
        elif isinstance(node, ast.Call) and _called(node) in answers:
            found.append((node.lineno, None, node))
        for child in ast.iter_child_nodes(node):
            visit(child, in_checker)

    visit(tree, False)
    checks, cited = [], None
    for line, key, node in sorted(found, key=lambda item: (item[0], item[1] is None)):
        if key is not None:
            cited = key
        else:
            call = isinstance(node, ast.Call) and _called(node) in answers
            checks.append(Check(line, cited, "" if call else _case(node), call))
    return Citations(tuple(checks), tuple(late_loops))
