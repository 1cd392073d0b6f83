"""The string a piece of code spells out of constants alone, for the review to read a name however it is
written: ``'bdl.' + 'wire'``, ``''.join(['bd', 'l'])``, ``'eriw'[::-1]``, ``chr(119)``, an f-string of
constants, ``'%s'`` and ``'{}'`` formatting. Nothing of the code is run: only ``str``'s own operations
on its constants, each result bounded in length.
"""

import ast
import re

# The longest string spelled out, and the ``str`` methods followed.
MAX_SPELLED = 1000
STRING_METHODS = {
    "join",
    "replace",
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "title",
    "capitalize",
    "swapcase",
    "casefold",
    "removeprefix",
    "removesuffix",
}


def spelled(node, memo=None):
    """The string the expression ``node`` always evaluates to, or None when it is not spelled out of
    constants alone. ``memo`` keeps what each node spells, so a long expression is read once."""
    try:
        value = _spelled(node, {} if memo is None else memo)
    except RecursionError:  # an expression nested deeper than Python's own reading of it
        return None
    return value if isinstance(value, str) else None


def _spelled(node, memo):
    if id(node) not in memo:
        memo[id(node)] = _spell(node, memo)
    return memo[id(node)]


def _spell(node, memo):
    if isinstance(node, ast.Constant):
        return (
            node.value
            if isinstance(node.value, (str, int, bytes))
            and not isinstance(node.value, bool)
            and (not isinstance(node.value, (str, bytes)) or len(node.value) <= MAX_SPELLED)
            else None
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _spelled(node.operand, memo)
        return -value if isinstance(value, int) else None
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_spelled(item, memo) for item in node.elts]
        return items if all(isinstance(item, str) for item in items) else None
    result = None
    if isinstance(node, ast.JoinedStr):
        parts = [
            _spelled(
                part.value
                if isinstance(part, ast.FormattedValue) and part.format_spec is None and part.conversion == -1
                else part,
                memo,
            )
            for part in node.values
        ]
        result = "".join(parts) if all(isinstance(part, str) for part in parts) else None
    elif isinstance(node, ast.BinOp):
        left, right = _spelled(node.left, memo), _spelled(node.right, memo)
        if isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
            result = left + right
        elif isinstance(node.op, ast.Mult) and {type(left), type(right)} == {str, int}:
            text, times = (left, right) if isinstance(left, str) else (right, left)
            result = text * times if len(text) * max(times, 0) <= MAX_SPELLED else None
        elif isinstance(node.op, ast.Mod) and isinstance(left, str):
            values = right if isinstance(right, list) else [right]
            if (
                all(isinstance(value, str) for value in values)
                and "{" not in left
                and "}" not in left
                and left.count("%") == left.count("%s") == len(values)
            ):
                result = left.replace("%s", "{}").format(*values)
    elif isinstance(node, ast.Subscript):
        text, key = _spelled(node.value, memo), node.slice
        if isinstance(text, str) and isinstance(key, ast.Slice):
            bounds = [None if part is None else _spelled(part, memo) for part in (key.lower, key.upper, key.step)]
            if all(bound is None or isinstance(bound, int) for bound in bounds) and bounds[2] != 0:
                result = text[slice(*bounds)]
        elif isinstance(text, str):
            index = _spelled(key, memo)
            result = text[index] if isinstance(index, int) and -len(text) <= index < len(text) else None
    elif isinstance(node, ast.Call) and not node.keywords:
        arguments = [_spelled(argument, memo) for argument in node.args]
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "chr"
            and len(arguments) == 1
            and isinstance(arguments[0], int)
            and 0 <= arguments[0] < 0x110000
        ):
            result = chr(arguments[0])
        elif isinstance(node.func, ast.Attribute) and None not in arguments:
            owner, method = _spelled(node.func.value, memo), node.func.attr
            if isinstance(owner, bytes) and method == "decode" and not arguments:
                result = owner.decode("latin-1")
            elif (
                isinstance(owner, str)
                and method in STRING_METHODS
                and all(isinstance(argument, (str, list)) for argument in arguments)
            ):
                try:
                    result = getattr(owner, method)(*arguments)
                except (TypeError, ValueError):
                    result = None
            elif (
                isinstance(owner, str)
                and method == "format"
                and all(isinstance(a, str) for a in arguments)
                and re.fullmatch(r"([^{}]|\{\d*\})*", owner)
            ):
                try:
                    result = owner.format(*arguments)
                except IndexError:
                    result = None
    return result if isinstance(result, str) and len(result) <= MAX_SPELLED else None
