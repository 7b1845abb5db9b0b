"""What a Trainer call's ``callbacks=`` holds, for the fixes that append a callback to it (``plan.gone``):
1.4-1.6 added their own progress bar or model summary only where the user's callbacks held none, so a
callback appended there keeps what the call did only where every item is known not to be one."""

from __future__ import annotations

import ast

from lightning_migrate.plan.gone import Callbacks
from lightning_migrate.plan.locate import Located, Scope

_LIGHTNING = ("pytorch_lightning.", "lightning.pytorch.", "lightning.")
_BAR, _KNOWN, _UNKNOWN = "bar", "known", "unknown"


def callbacks_of(value: ast.expr | None, located: Located, scope: Scope) -> tuple[Callbacks, bool]:
    """What ``value`` (the ``callbacks=`` argument, None where the call has none) holds, and whether an
    appended callback is written ``[*value, new]`` (True) rather than into the list display (or
    ``[value, new]`` for one callback object)."""
    if value is None or (isinstance(value, ast.Constant) and value.value is None):
        return Callbacks.ABSENT, False
    if isinstance(value, ast.List):
        kinds = {_UNKNOWN if isinstance(e, ast.Starred) else _kind(e, located, scope) for e in value.elts}
        if _BAR in kinds:
            return Callbacks.BAR, False
        return (Callbacks.KNOWN if kinds <= {_KNOWN} else Callbacks.ITEMS), False
    kind = _kind(value, located, scope)  # one callback object (1.4-2.x take one as a list of it)
    if kind == _UNKNOWN:
        return Callbacks.OPEN, True
    return (Callbacks.BAR if kind == _BAR else Callbacks.KNOWN), False


def is_callback(node: ast.expr, located: Located, scope: Scope) -> bool:
    """Is ``node`` a Lightning callback object (not a progress bar), built where it is or bound to a name?"""
    return _kind(node, located, scope) == _KNOWN


def _kind(node: ast.expr, located: Located, scope: Scope) -> str:
    """A Lightning progress bar (``_BAR``), another Lightning callback (``_KNOWN``), or anything else: an
    object built by a call of a class imported from Lightning, directly or through a name bound to it."""
    if isinstance(node, ast.Name):
        bound = located.assigned(node, scope) or []  # (each binding a call: a name is not followed on)
        kinds = {
            _kind(value, located, where) if isinstance(value, ast.Call) else _UNKNOWN
            for value, where in bound
        }
        return kinds.pop() if len(kinds) == 1 else _UNKNOWN
    if not isinstance(node, ast.Call):
        return _UNKNOWN
    names = located.qualified(node.func, scope)
    if not names or not all(n.startswith(_LIGHTNING) for n in names):
        return _UNKNOWN
    return _BAR if any("ProgressBar" in n.rpartition(".")[2] for n in names) else _KNOWN
