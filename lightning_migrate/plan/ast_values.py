"""Read Trainer keyword values from ``ast`` nodes into the model's vocabulary.

A value is either certain (a literal, a list of literals, a Lightning object built from literals, or a name
bound exactly once to one of those) or ``Unknown`` with the reason, which the codemod reports instead of
guessing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Protocol

from lightning_migrate.files.text import Text
from lightning_migrate.plan.locate import Scope
from lightning_migrate.plan.trainers import PACKAGES
from lightning_migrate.semantics.classes import lookup, positional_names
from lightning_migrate.semantics.model import Obj, Value

LIGHTNING_PREFIXES = tuple(f"{package}." for package in PACKAGES)


def bound_arguments(cls: str, call: ast.Call) -> list[tuple[str, ast.expr]] | None:
    """The arguments of ``cls(...)`` as (keyword, expression) pairs: the positional ones named by the
    parameters every release binds them to (``classes.positional_names``), then the keywords written (a
    ``**`` left out); None where the positional ones cannot be named so (one is starred, or releases bind
    them otherwise)."""
    bound = positional_names(cls, len(call.args)) if call.args else ()
    if bound is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    return [*zip(bound, call.args), *((k.arg, k.value) for k in call.keywords if k.arg is not None)]


@dataclass(frozen=True)
class Unknown:
    """A value only known at run time; ``cls``: the Lightning class it builds, where it is an object of one
    whose arguments are (``DDPPlugin(find_unused_parameters=args.fup)``)."""

    reason: str
    cls: str | None = None


class Names(Protocol):
    """How a file's names resolve: ``plan.locate.Located`` (or, in the prefilter, an assumption)."""

    def bound(
        self, name: ast.Name, scope: Scope, sole_use: bool = False
    ) -> tuple[ast.expr, Scope] | None: ...

    def qualified(self, node: ast.expr, scope: Scope) -> set[str]: ...


@dataclass(frozen=True)
class Reader:
    """Reads values in one file: its names resolve through ``located``, its text quotes them."""

    located: Names
    text: Text

    def read(self, node: ast.expr, scope: Scope, depth: int = 0) -> Value | Unknown:
        code = self.text.segment
        if depth > 8:
            return Unknown(f"`{code(node)}` is defined too indirectly")
        if isinstance(node, (ast.Constant, ast.UnaryOp)):
            return self._literal(node)
        if isinstance(node, ast.Name):
            bound = self.located.bound(node, scope)
            if bound is None:
                return Unknown(f"`{node.id}` is only known at run time")
            return self.read(bound[0], bound[1], depth + 1)
        if isinstance(node, (ast.List, ast.Tuple)):
            items: list[Value] = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    return Unknown(f"`{code(node)}` is built at run time")
                value = self.read(element, scope, depth + 1)
                if isinstance(value, Unknown):
                    return value
                items.append(value)
            return items
        if isinstance(node, ast.Call):
            return self._object(node, scope, depth)
        if isinstance(node, ast.IfExp):
            cls = self._branch_class(node, scope, depth)
            return Unknown(f"`{code(node)}` is only known at run time", cls)
        return Unknown(f"`{code(node)}` is only known at run time")

    def _branch_class(self, node: ast.IfExp, scope: Scope, depth: int) -> str | None:
        """The Lightning class a branch of a conditional expression builds (``DDPPlugin(...) if n > 1 else
        None``), a renamed one first: the call's sign of old usage, where its value is only known at run time
        (the planner judges no object in a branch)."""
        found: list[str] = []
        current: ast.expr = node
        branches: list[ast.expr] = []
        while isinstance(current, ast.IfExp):
            branches.append(current.body)
            current = current.orelse
        for branch in (*branches, current):
            value = self.read(branch, scope, depth + 1)
            cls = value.cls if isinstance(value, (Obj, Unknown)) else None
            if cls:
                found.append(cls)
        return min(found, key=lambda c: (not getattr(lookup(c), "renamed_to", None), c), default=None)

    def lightning_classes(self, func: ast.expr, scope: Scope) -> list[str]:
        """The Lightning classes a callee names (``DDPPlugin``), through the file's imports: several where
        the name is imported more than once (``try: from ...plugins import DDPPlugin`` / ``except
        ImportError: from ...strategies import DDPStrategy as DDPPlugin``), newest name first."""
        found = set()
        for name in self.located.qualified(func, scope):
            if name.startswith(LIGHTNING_PREFIXES):
                cls = name.rsplit(".", 1)[-1]
                if lookup(cls) is not None:
                    found.add(cls)
        return sorted(found, key=lambda c: (bool(lookup(c).renamed_to), c))  # type: ignore[union-attr]

    def _literal(self, node: ast.Constant | ast.UnaryOp) -> Value | Unknown:
        if isinstance(node, ast.Constant) and (node.value is Ellipsis or isinstance(node.value, complex)):
            return Unknown(f"`{self.text.segment(node)}` is only known at run time")
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return Unknown(f"`{self.text.segment(node)}` is only known at run time")
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        return Unknown(f"`{self.text.segment(node)}` is not a Trainer flag value")

    def _object(self, node: ast.Call, scope: Scope, depth: int) -> Value | Unknown:
        classes = self.lightning_classes(node.func, scope)
        if not classes:
            return Unknown(f"`{self.text.segment(node)}` is only known at run time")
        name = classes[0]
        if len(classes) > 1:  # code for several releases: which class it builds depends on the one installed
            named = " or ".join(f"`{c}`" for c in classes)
            return Unknown(
                f"`{self.text.segment(node.func)}` is {named}, whichever the installed release has", name
            )
        # positional arguments are read as the keywords they bind to, where every release binds them alike
        arguments = bound_arguments(name, node)
        bound = [keyword for keyword, _ in arguments[: len(node.args)]] if arguments is not None else []
        if arguments is None or any(k.arg is None or k.arg in bound for k in node.keywords):
            return Unknown(
                f"`{self.text.segment(node)}` passes positional arguments, whose meaning changed between"
                " releases",
                name,
            )
        kwargs: dict[str, Value] = {}
        for keyword, written in arguments:
            value = self.read(written, scope, depth + 1)
            if isinstance(value, Unknown):
                return Unknown(value.reason, value.cls or name)
            kwargs[keyword] = value
        return Obj.of(name, **kwargs)


def dict_entries(node: ast.Dict | ast.Call) -> list[tuple[str, ast.expr, ast.expr | ast.keyword]] | None:
    """A dict display or ``dict(...)`` call as keyword arguments (name, value, where the name is written), or
    None when a key is not an identifier string or an entry is ``**other``: such a dict is not read. (The
    codemod and the prefilter read a `**` dict with this one function.)"""
    if isinstance(node, ast.Call):
        if node.args or any(k.arg is None for k in node.keywords):
            return None
        return [(k.arg, k.value, k) for k in node.keywords if k.arg is not None]
    entries: list[tuple[str, ast.expr, ast.expr | ast.keyword]] = []
    for key, value in zip(node.keys, node.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier()):
            return None
        entries.append((key.value, value, key))
    return entries
