"""Read the keyword arguments of a Trainer call written as text, into the model's values.

Used by ``inspect``: a call such as ``accelerator="ddp", gpus=2`` or
``Trainer(plugins=[DDPPlugin(find_unused_parameters=False)])``. Only literal values and Lightning objects
built from literals are understood; anything else is reported, never guessed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from lightning_migrate.plan.ast_values import bound_arguments
from lightning_migrate.plan.trainers import PARTIAL_CALLEES
from lightning_migrate.semantics.model import Hardware, Obj, Value
from lightning_migrate.semantics.signature import MODELLED


class NotLiteral(ValueError):
    """A value only known at run time (a variable, an expression)."""


@dataclass(frozen=True)
class Call:
    line: int
    text: str
    flags: dict[str, Value]
    where: str = ""  # where it is, as its file's kind addresses it ("cell 3:2"); "" for the line alone
    note: str = ""  # what the flags shown do not say (a config Hydra composes with others)


@dataclass(frozen=True)
class Unread:
    """A call whose flags are not inspected, and why."""

    line: int
    text: str
    why: str
    where: str = ""


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


Names = dict[str, ast.expr]  # names bound exactly once in a file, to their expression


def keywords(
    call: ast.Call, names: Names | None = None, skip: int = 0, machine: Hardware | None = None
) -> dict[str, Value]:
    """The modelled flags of ``call`` (after ``skip`` leading positional arguments), resolving names bound
    once in the file and ``**`` dicts (displays or ``dict(...)``) through ``names``, and what asks the
    ``machine`` (``torch.cuda.device_count()``) through it."""
    names = names or {}
    if len(call.args) > skip:
        raise NotLiteral("positional arguments to Trainer are not supported; name them")
    flags: dict[str, Value] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            for key, value in _dict_items(keyword.value, names):
                if key in MODELLED:
                    flags[key] = literal(value, names, machine=machine)
        elif keyword.arg in MODELLED:  # max_epochs, logger, callbacks ... do not matter here
            flags[keyword.arg] = literal(keyword.value, names, machine=machine)
    return flags


def _dict_items(node: ast.expr, names: Names) -> list[tuple[str, ast.expr]]:
    node = names.get(node.id, node) if isinstance(node, ast.Name) else node
    items: list[tuple[str | None, ast.expr]] = []
    if isinstance(node, ast.Dict):
        items = [(_string(k), v) for k, v in zip(node.keys, node.values)]
    elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dict" and not node.args:
        items = [(k.arg, k.value) for k in node.keywords]
    else:
        items = [(None, node)]
    if any(not isinstance(key, str) for key, _ in items):
        raise NotLiteral(f"`**{ast.unparse(node)}`: values only known at run time")
    return [(key, value) for key, value in items if isinstance(key, str)]


def _string(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def bound_once(tree: ast.AST) -> Names:
    """Every name assigned exactly once in the file (a constant), whatever the scope."""
    seen: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        value = node.value if target is name else ast.Constant(None)
                        seen.setdefault(name.id, []).append(value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.NamedExpr)) and isinstance(
            node.target, ast.Name
        ):
            value = node.value if isinstance(node, ast.AnnAssign) and node.value else ast.Constant(None)
            seen.setdefault(node.target.id, []).append(value)
            if not isinstance(node, ast.AnnAssign):
                seen[node.target.id].append(value)  # rebound: never a constant
        elif isinstance(node, ast.arg):
            seen.setdefault(node.arg, []).extend([ast.Constant(None)] * 2)
    return {name: values[0] for name, values in seen.items() if len(values) == 1}


def literal(
    node: ast.expr,
    names: Names | None = None,
    followed: frozenset[str] = frozenset(),
    machine: Hardware | None = None,
) -> Value:
    """The value of ``node``, following ``names`` (each once: `gpus = gpus` is a run-time value); what asks
    the machine (``torch.cuda.device_count()``, ``min(1, ...)`` of it) is what ``machine`` answers."""
    names = names or {}
    if isinstance(node, ast.Name) and node.id in names and node.id not in followed:
        return literal(names[node.id], names, followed | {node.id}, machine)
    asked, value = _machine_value(node, names, followed, machine)
    if asked:
        return value
    if isinstance(node, ast.Call):
        name = _name(node.func)
        if name is None:
            raise NotLiteral(ast.unparse(node))
        # positional arguments: the parameters every release binds them to (`classes.positional_names`)
        written = bound_arguments(name, node)
        if written is None:
            raise NotLiteral(f"`{ast.unparse(node)}` is only known at run time")
        return Obj.of(name, **{key: literal(value, names, followed, machine) for key, value in written})
    if isinstance(node, (ast.List, ast.Tuple)):
        return [literal(element, names, followed, machine) for element in node.elts]
    try:
        value = ast.literal_eval(node)
    except ValueError as exc:
        raise NotLiteral(f"`{ast.unparse(node)}` is only known at run time") from exc
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    raise NotLiteral(f"`{ast.unparse(node)}` is not a Trainer flag value")


# what a script asks torch about the machine, by the dotted call, answered from the machine inspected
_ASKS: dict[str, Callable[[Hardware], Value]] = {
    "torch.cuda.device_count": lambda machine: machine.cuda,
    "torch.cuda.is_available": lambda machine: machine.cuda > 0,
}
_FOLDS: dict[str, Callable[[Iterable[int]], int]] = {"min": min, "max": max}  # of the values, each known


def _machine_value(
    node: ast.expr, names: Names, followed: frozenset[str], machine: Hardware | None
) -> tuple[bool, Value]:
    """(True, what a question to the machine gives on ``machine``): ``torch.cuda.device_count()``,
    ``min``/``max`` of known values, ``a if torch.cuda.is_available() else b``; (False, None) where ``node``
    is none of those (or no machine is named)."""
    if machine is None:
        return False, None
    if isinstance(node, ast.IfExp):
        asked, test = _machine_value(node.test, names, followed, machine)
        if asked and isinstance(test, bool):
            return True, literal(node.body if test else node.orelse, names, followed, machine)
        return False, None
    if not isinstance(node, ast.Call) or node.keywords:
        return False, None
    dotted = _dotted(node.func)
    if dotted in _ASKS and not node.args:
        return True, _ASKS[dotted](machine)
    if dotted in _FOLDS and node.args and not any(isinstance(a, ast.Starred) for a in node.args):
        values = [literal(argument, names, followed, machine) for argument in node.args]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return True, _FOLDS[dotted](v for v in values if isinstance(v, int))
    return False, None


def _dotted(node: ast.expr) -> str | None:
    """``torch.cuda.device_count`` as written; None for anything but names and attributes."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def trainer_calls(source: str, machine: Hardware | None = None) -> Iterator[Call | Unread]:
    """Every call of something named ``Trainer`` in a file (also ``Trainer.from_argparse_args(args, ...)`` and
    ``partial(Trainer, ...)``): a parsed ``Call`` or why not (``Unread``), as ``ast.walk`` meets them;
    ``machine``: the one whose questions (``torch.cuda.device_count()``) are answered (None: none is)."""
    tree = ast.parse(source)
    names = bound_once(tree)
    aliases = trainer_aliases(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        skip = _trainer_skip(node, aliases)
        if skip is None:
            continue
        text = ast.get_source_segment(source, node) or ast.unparse(node)
        try:
            yield Call(node.lineno, text, keywords(node, _nearest(tree, node, names), skip, machine))
        except NotLiteral as exc:
            yield Unread(node.lineno, text, str(exc))


def _nearest(tree: ast.Module, call: ast.Call, names: Names) -> Names:
    """``names``, with each name the call unpacks (``**params``) that the file binds more than once read as
    the plain ``params = ...`` statement nearest before the call's statement in the same statement list,
    where no statement between them binds it otherwise."""
    starred = [k.value.id for k in call.keywords if k.arg is None and isinstance(k.value, ast.Name)]
    wanted = [name for name in starred if name not in names]
    if not wanted:
        return names
    found = dict(names)
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            at = next((i for i, s in enumerate(block) if any(n is call for n in ast.walk(s))), None)
            if at is None:
                continue
            for name in wanted:
                for statement in reversed(block[:at]):
                    if (
                        isinstance(statement, ast.Assign)
                        and len(statement.targets) == 1
                        and isinstance(statement.targets[0], ast.Name)
                        and statement.targets[0].id == name
                    ):
                        found[name] = statement.value
                        break
                    if any(
                        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                        for n in ast.walk(statement)
                    ):
                        break
    return found


def trainer_aliases(tree: ast.Module) -> set[str]:
    """The names a Trainer is called by in a file: ``Trainer``, its import aliases, and the classes the file
    defines on top of one of those (by name alone: this reading does not tell a subclass that consumes
    flags from one that passes them through)."""
    aliases = {"Trainer"} | {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name == "Trainer" and alias.asname
    }
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    while True:
        found = {
            c.name for c in classes if c.name not in aliases and any(_name(b) in aliases for b in c.bases)
        }
        if not found:
            return aliases
        aliases |= found


def _name(node: ast.expr) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)


def _trainer_skip(call: ast.Call, aliases: set[str]) -> int | None:
    if _name(call.func) in aliases:
        return 0
    if isinstance(call.func, ast.Attribute) and call.func.attr == "from_argparse_args":
        return 1 if _name(call.func.value) in aliases else None
    if _name(call.func) in PARTIAL_CALLEES and call.args and _name(call.args[0]) in aliases:
        return 1
    return None
