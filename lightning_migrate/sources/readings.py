"""What the codemod may read from one call's arguments, worked out without the file's scopes: every reading
it can take, for the prefilter to put to the planner.

The call's argument list is parsed on its own (``ast``, a few microseconds: the file is not parsed) and each
modelled keyword's value is read by the codemod's own ``Reader`` (``codemod.values``), so literals, lists
and Lightning objects are read as the codemod reads them. What the prefilter cannot know without the scopes
is assumed each way the codemod could see it:

- a call of a class named like a Lightning one (``DDPStrategy(...)``) builds that class, or something else
  (a class imported from elsewhere, a shadowing name): both readings;
- a ``**cfg`` dict is one the codemod reads (then holding no modelled key, or this module gives up) or one it
  cannot read (its flags are then only known at run time): both readings;
- any other name is bound by no assignment the codemod reads; where one may be (``may_be_bound``), this
  module gives up (the codemod would read that value).

It also gives up (None) on an argument list it cannot parse on its own, a keyword given twice, a callee that
is an import alias of a class name, more than ``MAX_OBJECTS`` objects in one call, or ``*args``.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field

from lightning_migrate.codemod.callsite import UNPACKED
from lightning_migrate.codemod.locate import Scope
from lightning_migrate.codemod.text import Text
from lightning_migrate.codemod.values import Reader, Unknown
from lightning_migrate.semantics.classes import lookup
from lightning_migrate.semantics.model import Value
from lightning_migrate.semantics.signature import MODELLED

MAX_OBJECTS = 3  # 2**3 readings of one call at most
_MODULE = Scope("module", None)


@dataclass(frozen=True)
class Reading:
    """One way the codemod may read a call: the modelled flags whose values it knows, and those only known at
    run time with the Lightning class each builds where known (``UNPACKED``: a ``**`` dict it cannot read)."""

    flags: dict[str, Value] = field(default_factory=dict)
    unknown: dict[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class _Assumed:
    """The ``Names`` a ``Reader`` resolves through: no name is bound by an assignment; the callees in
    ``lightning`` are the Lightning classes they are named after, every other callee is no Lightning class."""

    lightning: frozenset[int]  # id() of callee nodes

    def bound(self, name: ast.Name, scope: Scope, sole_use: bool = False) -> tuple[ast.expr, Scope] | None:
        return None

    def qualified(self, node: ast.expr, scope: Scope) -> set[str]:
        if id(node) not in self.lightning:
            return set()
        return {f"lightning.pytorch.{node.attr if isinstance(node, ast.Attribute) else _name(node)}"}


def readings(
    arguments: str,
    may_be_bound: Callable[[str], bool],
    dict_may_hold_flags: Callable[[str], bool],
    aliases: Collection[str],
) -> list[Reading] | None:
    """Every reading the codemod may take of a call whose argument list (the text between its brackets) is
    ``arguments``, or None where this module cannot tell. ``may_be_bound(name)``: may an assignment bind the
    name; ``dict_may_hold_flags(name)``: may an assignment bind it to a dict display or ``dict(...)`` call
    with a modelled key (or can that not be told); ``aliases``: the names an ``import ... as`` may bind."""
    snippet = f"_({arguments}\n)"
    try:
        call = ast.parse(snippet, mode="eval").body
    except Exception:  # not Python on its own (PEP 701 on an older Python): the codemod must look
        return None
    assert isinstance(call, ast.Call)
    modelled = [k for k in call.keywords if k.arg in MODELLED]
    if len({k.arg for k in modelled}) < len(modelled):
        return None
    names: list[str] = []
    objects: list[ast.expr] = []
    if not all(_inspect(k.value, names, objects, aliases) for k in modelled):
        return None
    if any(may_be_bound(name) for name in names) or len(objects) > MAX_OBJECTS:
        return None
    splats = _splats(call, may_be_bound, dict_may_hold_flags)
    if splats is None:
        return None
    text = Text(snippet)
    out = []
    for lightning in _subsets(objects):
        reader = Reader(_Assumed(frozenset(map(id, lightning))), text)
        reading = Reading()
        for keyword in modelled:
            assert keyword.arg is not None
            value = reader.read(keyword.value, _MODULE)
            if isinstance(value, Unknown):
                reading.unknown[keyword.arg] = value.cls
            else:
                reading.flags[keyword.arg] = value
        for unreadable in splats:
            out.append(Reading(reading.flags, {UNPACKED: None, **reading.unknown}) if unreadable else reading)
    return out


def _inspect(node: ast.expr, names: list[str], objects: list[ast.expr], aliases: Collection[str]) -> bool:
    """Collect the names ``Reader.read`` may look up in ``node`` and the callees it may take for Lightning
    classes; False where it may resolve a callee this module cannot name."""
    if isinstance(node, ast.Name):
        names.append(node.id)
        return True
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [item for item in node.elts if not isinstance(item, ast.Starred)]
        return all(_inspect(item, names, objects, aliases) for item in items)
    if not isinstance(node, ast.Call):
        return True  # a literal, or a value only known at run time
    func = node.func
    if not isinstance(func, (ast.Name, ast.Attribute)):  # `make()(...)`: its qualified name is make's
        return False
    if isinstance(func, ast.Name) and func.id in aliases:  # `from ... import DDPStrategy as S`: any class
        return False
    if lookup(func.attr if isinstance(func, ast.Attribute) else func.id) is None:
        return True  # whatever it resolves to, no Lightning class the codemod knows
    objects.append(func)
    return all(_inspect(k.value, names, objects, aliases) for k in node.keywords if k.arg)


def _splats(
    call: ast.Call, may_be_bound: Callable[[str], bool], dict_may_hold_flags: Callable[[str], bool]
) -> list[bool] | None:
    """How the codemod may read the call's ``**`` dict: [False] no such dict, [True] one it cannot read,
    [True, False] also one it reads that holds no modelled key; None: it may hold one, or the call unpacks
    ``*args`` (which the codemod does not read; the prefilter's tests keep such a call a candidate).
    (``codemod.python._Migrator._plan_splat`` and ``_dict_of``)."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    stars = [k for k in call.keywords if k.arg is None]
    if not stars:
        return [False]
    if len(stars) > 1:
        return [True]
    value = stars[0].value
    if isinstance(value, ast.Name):
        if not may_be_bound(value.id):
            return [True]
        return None if dict_may_hold_flags(value.id) else [True, False]
    if isinstance(value, ast.Dict):
        keys = [k.value for k in value.keys if isinstance(k, ast.Constant)]
        return None if any(k in MODELLED for k in keys if isinstance(k, str)) else [True, False]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        return None if any(k.arg in MODELLED for k in value.keywords) else [True, False]
    return [True]


def _subsets(objects: list[ast.expr]) -> Iterator[tuple[ast.expr, ...]]:
    return itertools.chain.from_iterable(itertools.combinations(objects, n) for n in range(len(objects) + 1))


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else ""
