"""What the codemod may read from one call's arguments, worked out without the file's scopes: every reading
it can take, for the prefilter to put to the planner.

The call's argument list is parsed on its own (``ast``, a few microseconds: the file is not parsed) and each
modelled keyword's value is read by the codemod's own ``Reader`` (``plan.ast_values``), so literals, lists
and Lightning objects are read as the codemod reads them. What only the scopes could tell is taken every
way the codemod could see it, one "world" per combination:

- a name an assignment may bind (``strategy = DDPStrategy()``) is read as the value of each such assignment
  in the file, or as unknown (the codemod reads a name bound exactly once, in the scope it resolves in);
- a call of a class named like a Lightning one (``DDPStrategy(...)``) builds that class, or something else
  (a class imported from elsewhere, a shadowing name);
- a ``**cfg`` dict is one the codemod cannot read (its flags are then only known at run time), or each dict
  display or ``dict(...)`` call an assignment may bind ``cfg`` to, read as the codemod reads it
  (``frontends.python.frontend._Migrator._plan_splat``).

It gives up (None) on an argument list or an assigned value it cannot parse on its own, a callee that is an
import alias of a class name or not a plain (dotted) name, more than ``MAX_WORLDS`` worlds, or ``*args``.
The worlds are those the codemod's reading leads to: a choice is only made where the ``Reader`` asks.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from lightning_migrate.files.text import Text
from lightning_migrate.plan.ast_values import Reader, Unknown, dict_entries
from lightning_migrate.plan.callsite import UNPACKED
from lightning_migrate.plan.knowledge import Known, RunTime, holes
from lightning_migrate.plan.locate import Scope
from lightning_migrate.semantics.classes import lookup
from lightning_migrate.semantics.model import Value
from lightning_migrate.semantics.signature import MODELLED

MAX_WORLDS = 256
_MODULE = Scope("module", None)
_RUN_TIME = ast.Attribute(ast.Name("_", ast.Load()), "_", ast.Load())  # a value the Reader cannot read


class File(Protocol):
    """What the readings need to know of the rest of the file."""

    @property
    def aliases(self) -> Collection[str]:
        """Every name an ``... as name`` may bind."""

    def may_be_bound(self, name: str) -> bool:
        """May an assignment statement bind ``name``?"""

    def values(self, name: str) -> list[ast.expr] | None:
        """The value of every assignment statement that may bind ``name``; None where one cannot be read."""

    def parametrized(self, name: str) -> tuple[Value, ...] | None:
        """Every value a test of the file may list for a parameter ``name`` (``pytest.mark.parametrize``,
        all of them: a name no assignment binds may be such a parameter, whose values the codemod reads);
        () where no test lists it; None where they cannot be read."""

    def defaults(self, name: str) -> tuple[Value, ...] | None:
        """Every plain value a function of the file may give a parameter ``name`` as its default (the codemod
        takes it as a value the file writes); None where a signature or a default cannot be read."""


@dataclass(frozen=True)
class Reading:
    """One way the codemod may read a call: the modelled flags whose values it knows, and those only known at
    run time with the Lightning class each builds where known (``UNPACKED``: a ``**`` dict it cannot read)."""

    flags: dict[str, Known] = field(default_factory=dict)  # (a test's parameter: its values, `RunTime`)
    unknown: dict[str, str | None] = field(default_factory=dict)
    defaults: dict[str, Value] = field(default_factory=dict)  # a parameter's default (`CallSite.defaults`)


class _Unquoted(Text):
    """A ``Text`` for a ``Reader`` whose reasons nobody reads (the nodes come from several snippets)."""

    def segment(self, node: ast.expr | ast.keyword) -> str:
        return ""


_UNQUOTED = _Unquoted("")


class _GiveUp(Exception):
    """The call's reading depends on what this module cannot tell."""


class _World:
    """The ``Names`` a ``Reader`` resolves through in one world. Each question it is asked (what a name is
    bound to, whether a callee is a Lightning class) is a choice among what the codemod may see; ``choices``
    are those of this world, in the order the questions come, and ``trace`` records every question asked
    with the choice taken and how many there were (a question past ``choices`` takes the first)."""

    def __init__(self, file: File, choices: list[int]) -> None:
        self.file = file
        self.choices = choices
        self.trace: list[tuple[int, int]] = []

    def choose(self, options: int) -> int:
        chosen = self.choices[len(self.trace)] if len(self.trace) < len(self.choices) else 0
        self.trace.append((chosen, options))
        return chosen

    def bound(self, name: ast.Name, scope: Scope, sole_use: bool = False) -> tuple[ast.expr, Scope] | None:
        if not self.file.may_be_bound(name.id):
            return None
        values = self.file.values(name.id)
        if values is None:
            raise _GiveUp
        chosen = self.choose(len(values) + 1)  # none of them (the codemod reads a name bound once), or one
        return (values[chosen - 1], _MODULE) if chosen else None

    def qualified(self, node: ast.expr, scope: Scope) -> set[str]:
        if not isinstance(node, (ast.Name, ast.Attribute)):  # `make()(...)`: its qualified name is make's
            raise _GiveUp
        if isinstance(node, ast.Name) and node.id in self.file.aliases:  # `... import DDPStrategy as S`
            raise _GiveUp
        name = node.attr if isinstance(node, ast.Attribute) else node.id
        if lookup(name) is None or not self.choose(2):  # no Lightning class, whatever it resolves to
            return set()
        return {f"lightning.pytorch.{name}"}


def readings(arguments: str, file: File) -> list[Reading] | None:
    """Every reading the codemod may take of a call whose argument list (the text between its brackets) is
    ``arguments``, or None where this module cannot tell."""
    try:
        call = ast.parse(f"_({arguments}\n)", mode="eval").body
    except Exception:  # not Python on its own (PEP 701 on an older Python): the codemod must look
        return None
    assert isinstance(call, ast.Call)
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None  # (the codemod does not read `*args`; the prefilter's tests keep such a call a candidate)
    modelled = [(k.arg, k.value) for k in call.keywords if k.arg in MODELLED]
    try:
        dicts = _splat(call, file)
        if dicts is None:
            return None
        return _every_world(lambda world: _reading(Reader(world, _UNQUOTED), world, modelled, dicts), file)
    except _GiveUp:
        return None


def _every_world(read: Callable[[_World], Reading], file: File) -> list[Reading] | None:
    """``read`` in every world its questions lead to (a depth-first walk of their choices), or None beyond
    ``MAX_WORLDS`` of them."""
    out = []
    pending: list[list[int]] = [[]]
    while pending:
        world = _World(file, pending.pop())
        out.append(read(world))
        if len(out) > MAX_WORLDS:
            return None
        for asked in range(len(world.choices), len(world.trace)):  # the questions this world asked first
            taken = [chosen for chosen, _ in world.trace[:asked]]
            pending.extend([*taken, other] for other in range(1, world.trace[asked][1]))
    return out


def _reading(
    reader: Reader,
    world: _World,
    modelled: Sequence[tuple[str | None, ast.expr]],
    dicts: Sequence[ast.expr | None],
) -> Reading:
    flags, unknown, defaults = _read(reader, modelled)
    if not dicts:
        return Reading(flags, unknown, defaults)
    return _splat_reading(reader, flags, unknown, defaults, dicts[world.choose(len(dicts))])


def _read(
    reader: Reader, arguments: Sequence[tuple[str | None, ast.expr]]
) -> tuple[dict[str, Known], dict[str, str | None], dict[str, Value]]:
    """The known flags, those only known at run time and the defaults of those that may be a parameter,
    as ``frontends.python.frontend._Migrator._read_flags`` has them (a keyword given twice: the last one)."""
    flags: dict[str, Known] = {}
    unknown: dict[str, str | None] = {}
    defaults: dict[str, Value] = {}
    for keyword, written in arguments:
        if keyword not in MODELLED:
            continue
        node = _branch(written, reader)
        tested = _parameter(node, reader)
        if tested is not None:
            flags[keyword] = RunTime(keyword, node.id, tested, pure=True, told=True)  # type: ignore[attr-defined]
            continue
        value = reader.read(node, _MODULE)
        if isinstance(value, Unknown):
            unknown[keyword] = value.cls
            given = _default(node, reader) if value.cls is None else None
            if given:
                defaults[keyword] = given[0]
        else:
            flags[keyword] = value
    return flags, unknown, defaults


def _default(node: ast.expr, reader: Reader) -> tuple[Value] | None:
    """The default of a parameter ``node`` may be, in a world where it is one with that default (whatever
    an assignment elsewhere may bind: the codemod reads the scope the call is in)."""
    world = reader.located
    assert isinstance(world, _World)
    if not isinstance(node, ast.Name):
        return None
    given = world.file.defaults(node.id)
    if given is None:
        raise _GiveUp
    chosen = world.choose(len(given) + 1) if given else 0  # (or a parameter with none, or not one)
    return (given[chosen - 1],) if chosen else None


def _parameter(node: ast.expr, reader: Reader) -> tuple[Value, ...] | None:
    """The values of a test's parameter the codemod reads (``plan.ranges``: a name no assignment binds,
    which a `pytest.mark.parametrize` lists), in a world where it is one (else None)."""
    world = reader.located
    assert isinstance(world, _World)
    if not isinstance(node, ast.Name) or world.file.may_be_bound(node.id):
        return None
    listed = world.file.parametrized(node.id)
    if listed is None:
        raise _GiveUp
    return listed if listed and world.choose(2) else None  # (or not a parameter of such a test)


def _branch(node: ast.expr, reader: Reader) -> ast.expr:
    """A conditional expression is each of its branches to the codemod (``plan.ranges``: it reads the
    values written there), or unknown: one world each."""
    world = reader.located
    assert isinstance(world, _World)
    if isinstance(node, ast.BoolOp):
        return _operand(node, reader)
    if not isinstance(node, ast.IfExp):
        return node
    branches: list[ast.expr] = []
    while isinstance(node, ast.IfExp):
        branches.append(node.body)
        node = node.orelse
    branches.append(node)
    chosen = world.choose(len(branches) + 1)  # unknown, or one branch
    return _branch(branches[chosen - 1], reader) if chosen else _RUN_TIME


def _operand(node: ast.BoolOp, reader: Reader) -> ast.expr:
    """`a or b` is any operand that may be its value to the codemod (``plan.ranges``: the values written
    there are the value's, `devices=n or None` may be None), or unknown: one world each. (A constant that
    never decides, the `0` of `0 or n`, is left out.)"""
    world = reader.located
    assert isinstance(world, _World)
    decides = isinstance(node.op, ast.Or)
    last = len(node.values) - 1
    operands = [
        operand
        for index, operand in enumerate(node.values)
        if index == last or not isinstance(operand, ast.Constant) or bool(operand.value) == decides
    ]
    chosen = world.choose(len(operands) + 1)  # unknown, or one operand
    return _branch(operands[chosen - 1], reader) if chosen else _RUN_TIME


def _splat(call: ast.Call, file: File) -> list[ast.expr | None] | None:
    """The dicts the codemod may read for the call's ``**`` argument: None for one it cannot read, and each
    dict display or ``dict(...)`` call it may be (``_Migrator._dict_of``); [] without a ``**``."""
    stars = [k.value for k in call.keywords if k.arg is None]
    if len(stars) != 1:
        return [None] if stars else []
    value = stars[0]
    if isinstance(value, ast.Name):
        if not file.may_be_bound(value.id):
            return [None]
        values = file.values(value.id)
        if values is None:
            return None
        return [None, *(v for v in values if _is_dict(v))]
    return [None, value] if _is_dict(value) else [None]


def _is_dict(node: ast.expr) -> bool:
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "dict"
    return isinstance(node, ast.Dict)


def _entries(node: ast.expr) -> list[tuple[str | None, ast.expr]] | None:
    """A dict display or ``dict(...)`` call as keyword arguments, or None where the codemod cannot read it
    so (``ast_values.dict_entries``, the codemod's own reader)."""
    assert isinstance(node, (ast.Dict, ast.Call))
    entries = dict_entries(node)
    return None if entries is None else [(name, value) for name, value, _ in entries]


def _splat_reading(
    reader: Reader,
    flags: dict[str, Known],
    unknown: dict[str, str | None],
    defaults: dict[str, Value],
    source: ast.expr | None,
) -> Reading:
    """How ``_Migrator._plan_splat`` reads a call with explicit ``flags``/``unknown`` and a ``**`` dict that
    is ``source`` (None: one it cannot read)."""
    entries = _entries(source) if source is not None else None
    if entries is None:
        return Reading(flags, {UNPACKED: None, **unknown}, defaults)
    if unknown or holes(flags):  # the explicit flags are reported (or not) on their own; the dict is unread
        known = {k: value for k, value in flags.items() if k not in holes(flags)}
        return Reading(known, {**dict.fromkeys(holes(flags)), **unknown}, defaults)
    modelled = [(key, value) for key, value in entries if key in MODELLED]
    if not modelled:  # a dict without flags: the call is read as if it had no `**`
        return Reading(flags, {})
    dict_flags, dict_unknown, dict_defaults = _read(reader, modelled)
    if dict_unknown:
        return Reading(dict_flags, dict_unknown, dict_defaults)
    return Reading({**flags, **dict_flags}, {})
