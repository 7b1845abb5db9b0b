"""What a file writes into a dict it unpacks into a Trainer call (``Trainer(**trainer_kwargs)``), as far as it
can be seen: the keys of the dict displays and ``dict(...)`` calls the name is bound to, of every
``name["key"]`` and of ``name.update(...)``/``name.setdefault(...)``, each with its value where that is a
literal. A project that requires a release from which no `**dict` can hold a training type (``Run.floor``)
only vouches for a dict whose visible keys show no older usage: a dict that writes ``gpus`` or
``distributed_backend`` (real code pinned to ``pytorch-lightning>=1.8`` does) is old code, whatever the pin
says.

Keys are gathered by the name over the whole file (any scope): a key of another dict of the same name makes
the answer more cautious, never less.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

_UNREAD = object()  # a key written with a value that is not a literal
_WRITERS = frozenset({"update", "setdefault"})


def written_keys(tree: ast.AST, name: str) -> Iterator[tuple[str, object]]:
    """The string keys the file writes into (or reads from) the dicts named ``name``, each with its value
    where it is a literal (else ``_UNREAD``; a key written with a literal comes twice: also as read)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if _is(target, name):  # `name = {...}`, `name = dict(...)`
                    yield from _display(node.value)
                elif isinstance(target, ast.Subscript) and _is(target.value, name):  # `name["key"] = ...`
                    yield from _key(target, _literal(node.value))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and _is(node.target, name) and node.value:
            yield from _display(node.value)  # (`name |= {...}`)
        elif isinstance(node, ast.Subscript) and _is(node.value, name):
            yield from _key(node, _UNREAD)
        elif isinstance(node, ast.Call) and _writes(node.func, name):  # `name.update(gpus=2)`
            yield from _call_keys(node)


def _key(node: ast.Subscript, value: object) -> Iterator[tuple[str, object]]:
    key = node.slice
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        yield key.value, value


def _writes(func: ast.expr, name: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr in _WRITERS and _is(func.value, name)


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _display(node: ast.expr) -> Iterator[tuple[str, object]]:
    """The keys of a dict display or a ``dict(...)`` call (``dict(base, gpus=2)``), with literal values."""
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield key.value, _literal(value)
            elif key is None:  # `{**other, ...}`
                yield from _display(value)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        yield from _call_keys(node)


def _call_keys(node: ast.Call) -> Iterator[tuple[str, object]]:
    """The keys ``dict(...)``, ``.update(...)`` or ``.setdefault(...)`` writes."""
    for keyword in node.keywords:
        if keyword.arg is not None:
            yield keyword.arg, _literal(keyword.value)
    for argument in node.args:
        yield from _display(argument)
    if isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault" and node.args:
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            yield first.value, _literal(node.args[1]) if len(node.args) > 1 else None


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNREAD


def is_read(value: object) -> bool:
    """Whether a written value is a literal (as ``written_keys`` gives it)."""
    return value is not _UNREAD
