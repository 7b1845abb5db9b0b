"""The keys a file may put into a dict it names and unpacks into a Trainer call (``Trainer(**params)``) where
the codemod does not read that dict as one display (``_Migrator._dict_of``): the dict is also used elsewhere,
bound more than once, or given keys in branches (``params["progress_bar_refresh_rate"] = 0`` under an
``if``). Each string key of a display or ``dict(...)`` bound to the name, of ``name["key"] = ...``, and of
``name.update(...)``/``name.setdefault(...)``, in the code of the scope that binds the name (not in the
functions or classes it holds): a key that some path of that code puts into the dict, with the value written
and where the key is written. Such keys are only reported (``plan.gone``), never rewritten: the dict may or
may not hold them when the call runs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

# the scopes a function or module holds, whose code is not its own
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

Key = tuple[str, ast.expr, ast.expr | ast.keyword]  # the key, its value, where the key is written


def keys_in(code: ast.AST, name: str) -> list[Key]:
    """The keys the code of ``code`` (a function or a module, without the scopes it holds) may put into the
    dict named ``name``, in the order written."""
    found = list(_keys(code, name))
    return sorted(found, key=lambda k: (k[2].lineno, k[2].col_offset))


def _own_nodes(code: ast.AST) -> Iterator[ast.AST]:
    todo = list(ast.iter_child_nodes(code))
    while todo:
        node = todo.pop()
        if isinstance(node, NESTED):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _keys(code: ast.AST, name: str) -> Iterator[Key]:
    for node in _own_nodes(code):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if _is(target, name):  # `name = {...}`, `name = dict(...)`
                    yield from display_keys(node.value)
                elif isinstance(target, ast.Subscript) and _is(target.value, name):  # `name["key"] = ...`
                    yield from _subscript(target, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            if _is(node.target, name):
                yield from display_keys(node.value)
            elif isinstance(node.target, ast.Subscript) and _is(node.target.value, name):
                yield from _subscript(node.target, node.value)
        elif isinstance(node, ast.AugAssign) and _is(node.target, name):  # `name |= {...}`
            yield from display_keys(node.value)
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is(node.func.value, name)
        ):
            if node.func.attr == "update":  # `name.update(gpus=2)`, `name.update({...})`
                yield from _call_keys(node)
            elif node.func.attr == "setdefault" and len(node.args) == 2:
                key = node.args[0]
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    yield key.value, node.args[1], key


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _subscript(target: ast.Subscript, value: ast.expr) -> Iterator[Key]:
    key = target.slice
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        yield key.value, value, key


def display_keys(node: ast.expr) -> Iterator[Key]:
    """The string keys of a dict display or ``dict(...)`` call (and of the displays it unpacks)."""
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield key.value, value, key
            elif key is None:  # `{**other, ...}`
                yield from display_keys(value)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        yield from _call_keys(node)


def _call_keys(node: ast.Call) -> Iterator[Key]:
    for keyword in node.keywords:
        if keyword.arg is not None:
            yield keyword.arg, keyword.value, keyword
    for argument in node.args:
        yield from display_keys(argument)
