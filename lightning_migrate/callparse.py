"""Read the keyword arguments of a Trainer call written as text, into the model's values.

Used by ``inspect``: a call such as ``accelerator="ddp", gpus=2`` or
``Trainer(plugins=[DDPPlugin(find_unused_parameters=False)])``. Only literal values and Lightning objects
built from literals are understood; anything else is reported, never guessed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .semantics.model import Obj, Value
from .semantics.signature import MODELLED


class NotLiteral(ValueError):
    """A value only known at run time (a variable, an expression)."""


@dataclass(frozen=True)
class Call:
    line: int
    text: str
    flags: dict[str, Value]


def parse_arguments(text: str) -> dict[str, Value]:
    """``'accelerator="ddp", gpus=2'`` or ``'Trainer(accelerator="ddp")'`` to a flags dict."""
    text = text.strip()
    if not re.match(r"[\w.]*Trainer\s*\(", text):
        text = f"Trainer({text})"
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise ValueError(f"not a Trainer call: {exc.msg}") from exc
    call = tree.body[0].value if tree.body and isinstance(tree.body[0], ast.Expr) else None
    if not isinstance(call, ast.Call):
        raise ValueError("not a Trainer call")
    return keywords(call)


def keywords(call: ast.Call) -> dict[str, Value]:
    if call.args:
        raise NotLiteral("positional arguments to Trainer are not supported; name them")
    flags: dict[str, Value] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise NotLiteral(f"`**{ast.unparse(keyword.value)}`: values only known at run time")
        if keyword.arg in MODELLED:  # max_epochs, logger, callbacks ... do not matter here
            flags[keyword.arg] = literal(keyword.value)
    return flags


def literal(node: ast.expr) -> Value:
    if isinstance(node, ast.Call) and not node.args:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name is None:
            raise NotLiteral(ast.unparse(node))
        return Obj.of(name, **{k.arg: literal(k.value) for k in node.keywords if k.arg is not None})
    if isinstance(node, (ast.List, ast.Tuple)):
        return [literal(element) for element in node.elts]
    try:
        value = ast.literal_eval(node)
    except ValueError as exc:
        raise NotLiteral(f"`{ast.unparse(node)}` is only known at run time") from exc
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    raise NotLiteral(f"`{ast.unparse(node)}` is not a Trainer flag value")


def trainer_calls(source: str) -> Iterator[Call | tuple[int, str, str]]:
    """Every call of something named ``Trainer`` in a file: a parsed ``Call`` or (line, text, why not)."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name != "Trainer":
            continue
        text = ast.get_source_segment(source, node) or ast.unparse(node)
        try:
            yield Call(node.lineno, text, keywords(node))
        except NotLiteral as exc:
            yield (node.lineno, text, str(exc))
