"""Read Trainer keyword values from LibCST nodes into the model's vocabulary.

A value is either certain (a literal, a list of literals, a Lightning object built from literals, or a name
bound exactly once to one of those) or ``Unknown`` with the reason, which the codemod reports instead of
guessing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from ..semantics.model import Obj, Value


@dataclass(frozen=True)
class Unknown:
    """A value only known at run time."""

    reason: str


# Resolves a Name to the expression it is bound to (a module/function constant), or None.
Resolver = Callable[[cst.Name], "cst.BaseExpression | None"]
# Gives the Lightning class name a call's callee refers to (``DDPPlugin``), or None for anything else.
ClassNamer = Callable[[cst.BaseExpression], "str | None"]

_MODULE = cst.Module(body=[])


def code(node: cst.CSTNode) -> str:
    return _MODULE.code_for_node(node)


def read(
    node: cst.BaseExpression, resolve: Resolver, class_name: ClassNamer, depth: int = 0
) -> Value | Unknown:
    if depth > 8:
        return Unknown(f"`{code(node)}` is defined too indirectly")
    if isinstance(
        node, (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.UnaryOperation)
    ):
        return _literal(node)
    if isinstance(node, cst.Name):
        if node.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.value]
        bound = resolve(node)
        if bound is None:
            return Unknown(f"`{node.value}` is only known at run time")
        return read(bound, resolve, class_name, depth + 1)
    if isinstance(node, (cst.List, cst.Tuple)):
        items: list[Value] = []
        for element in node.elements:
            if not isinstance(element, cst.Element):
                return Unknown(f"`{code(node)}` is built at run time")
            value = read(element.value, resolve, class_name, depth + 1)
            if isinstance(value, Unknown):
                return value
            items.append(value)
        return items
    if isinstance(node, cst.Call):
        return _object(node, resolve, class_name, depth)
    return Unknown(f"`{code(node)}` is only known at run time")


def _literal(node: cst.BaseExpression) -> Value | Unknown:
    try:
        value = ast.literal_eval(code(node))
    except (ValueError, SyntaxError):
        return Unknown(f"`{code(node)}` is only known at run time")
    if isinstance(value, (bool, int, float, str)):
        return value
    return Unknown(f"`{code(node)}` is not a Trainer flag value")


def _object(node: cst.Call, resolve: Resolver, class_name: ClassNamer, depth: int) -> Value | Unknown:
    name = class_name(node.func)
    if name is None:
        return Unknown(f"`{code(node)}` is only known at run time")
    if any(arg.keyword is None for arg in node.args):
        return Unknown(f"`{code(node)}` passes positional arguments, whose meaning changed between releases")
    kwargs: dict[str, Value] = {}
    for arg in node.args:
        assert arg.keyword is not None
        value = read(arg.value, resolve, class_name, depth + 1)
        if isinstance(value, Unknown):
            return value
        kwargs[arg.keyword.value] = value
    return Obj.of(name, **kwargs)
