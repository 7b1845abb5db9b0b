"""What a flag whose value is only known at run time may hold: its domain, and what a file says to narrow it.

The planner quantifies over a domain (``plan.plan_over``): a rewrite of the known flags is made only if it
keeps the call's behaviour for every value. The domains are small on purpose: one value of each kind the
model tells apart (none, zero, one, several, all; an int, a string of an int, a string of indices, a list of
indices), so the planner's cost stays bounded, and wide enough that a value that behaves differently from
its neighbours is in it.

A file narrows a domain where it says what the value is: a conditional expression of literals is exactly
its branches (``1 if args.cuda else 0``); an option of the file's own ``argparse`` parser
(``parser.add_argument("--gpus", type=int, default=1)``) holds what its ``type`` makes of a command line,
its ``choices`` or its ``default``; an option ``Trainer.add_argparse_args`` adds holds what Lightning's
parser makes of it (``--gpus 2`` is the int 2, ``--gpus 0,1`` the string "0,1").
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from lightning_migrate.semantics.model import Value

# One value of each kind per flag. Strings of a single number are where releases disagree most (`gpus="2"`
# was GPU index 2 in 1.4 and two GPUs from 1.5), so they are there whenever the file does not rule them out.
DOMAINS: dict[str, tuple[Value, ...]] = {
    "gpus": (None, 0, 1, 2, 8, -1, "0", "1", "2", "0,1", "-1", [0], [1], [0, 1], [1, 3]),
    "tpu_cores": (None, 1, 8, [1], [5], "1", "8"),
    "num_processes": (1, 2, 4),
    "devices": (None, 1, 2, 8, -1, "auto", "0,1", [0], [0, 1]),
    "num_nodes": (1, 2, 4),
    "precision": (16, 32, 64, "16", "32", "bf16", "16-mixed", "bf16-mixed", "32-true"),
    "auto_select_gpus": (False, True),
    "sync_batchnorm": (False, True),
}

# What each `type=` of an argparse option makes of a command-line word, kept to the domain's values.
_KINDS = {"int": int, "str": str, "float": float}


@dataclass(frozen=True)
class Option:
    """One option of the file's own argparse parser: its ``type`` (a builtin's name, "" for none, None for
    a function the codemod cannot read), ``choices`` and ``default`` (``MISSING``: not written)."""

    kind: str | None
    choices: tuple[Value, ...] | None
    default: object


MISSING = object()


def domain(flag: str, narrowed: Iterable[Value] | None = None) -> tuple[Value, ...] | None:
    """The values ``flag`` may hold (``narrowed``: what the file says), or None when the model has no
    domain for it (the call is then reported, as before)."""
    if narrowed is not None:
        return tuple(_unique(narrowed))
    return DOMAINS.get(flag)


def union(parts: Iterable[tuple[Value, ...] | None]) -> tuple[Value, ...] | None:
    """The values of several expressions one of which gives the value (a conditional's branches); None
    when one of them has no domain."""
    values: list[Value] = []
    for part in parts:
        if part is None:
            return None
        values += part
    return tuple(_unique(values))


def of_annotation(flag: str, annotation: ast.expr | None, default: object) -> tuple[Value, ...] | None:
    """The values a function's parameter may give ``flag``: the domain's values of the kinds its
    annotation names (``gpus: int``, ``Optional[int]``, ``int | str``, ``List[int]``), and its default."""
    whole = DOMAINS.get(flag)
    if whole is None:
        return None
    kinds = _kinds(annotation) if annotation is not None else None
    values = [value for value in whole if kinds is None or _kind(value) in kinds]
    if default is not MISSING and (default is None or isinstance(default, (bool, int, float, str, list))):
        values.append(default)
    return tuple(_unique(values)) or None


_KIND_NAMES = {"int": "int", "str": "str", "float": "float", "bool": "bool", "None": "None"}
_SEQUENCES = frozenset({"list", "List", "Sequence", "tuple", "Tuple", "MutableSequence"})


def _kinds(node: ast.expr) -> frozenset[str] | None:
    """The kinds of value an annotation admits (None: any, or one the codemod cannot read)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _kinds(ast.parse(node.value, mode="eval").body)  # a string annotation
        except SyntaxError:
            return None
    if isinstance(node, ast.Constant) and node.value is None:
        return frozenset({"None"})
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if name in _KIND_NAMES:
        kind = _KIND_NAMES[name]
        return frozenset({"int", "float"}) if kind == "float" else frozenset({kind})
    if name in _SEQUENCES:
        return frozenset({"list"})
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _kinds(node.left), _kinds(node.right)
        return None if left is None or right is None else left | right
    if isinstance(node, ast.Subscript):
        outer = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", "")
        inner = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if outer in _SEQUENCES:
            return frozenset({"list"})
        if outer in ("Optional", "Union"):
            parts = [_kinds(part) for part in inner]
            if any(part is None for part in parts):
                return None
            found = frozenset().union(*parts)  # type: ignore[arg-type]
            return found | {"None"} if outer == "Optional" else found
    return None


def _kind(value: Value) -> str:
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        return "list"
    return type(value).__name__


# What a builtin conversion makes of a value (`int(args.gpus)`); a value it rejects is one the call never
# gets (the conversion raises first).
_CONVERSIONS = {"int": int, "str": str}


def converted(name: str, values: Iterable[Value]) -> tuple[Value, ...] | None:
    convert = _CONVERSIONS.get(name)
    if convert is None:
        return None
    out: list[Value] = []
    for value in values:
        if isinstance(value, (list, tuple)):
            continue  # `int([0, 1])` raises; `str([0, 1])` is no value a parser or config gives
        try:
            out.append(convert(value))
        except (TypeError, ValueError):
            continue
    return tuple(_unique(out))


def of_option(flag: str, option: Option) -> tuple[Value, ...] | None:
    """The values an argparse option can give ``flag``: its choices, or its default and what its type makes
    of a command-line word (a word that is one of the domain's strings)."""
    whole = DOMAINS.get(flag)
    if whole is None or option.kind is None:
        return None
    values: list[Value] = []
    if option.choices is not None:
        values += option.choices
    else:
        words = [str(v) for v in whole if isinstance(v, (int, str)) and not isinstance(v, bool)]
        convert = _KINDS.get(option.kind, str) if option.kind else str
        for word in words:
            try:
                values.append(convert(word))
            except ValueError:
                continue
    if option.default is not MISSING:
        values.append(option.default)  # type: ignore[arg-type]
    else:  # (argparse does not check a default against `choices`)
        values.append(None)  # argparse's own default
    return tuple(_unique(values))


# What `Trainer.add_argparse_args` gives a flag it adds: `--gpus 2` is 2, `--gpus 0,1` is "0,1" (Lightning's
# `_gpus_allowed_type`), and the flag's default when the option is not given.
TRAINER_OPTIONS: dict[str, tuple[Value, ...]] = {
    "gpus": (None, 0, 1, 2, 8, -1, "0,1"),
    "tpu_cores": (None, 1, 8, "1,2"),
    "num_processes": (1, 2, 4),
    "num_nodes": (1, 2, 4),
}


def options(every_call: Iterable[ast.Call]) -> tuple[dict[str, Option], bool]:
    """The file's own argparse options by destination, and whether it adds the Trainer's
    (``Trainer.add_argparse_args``). An option defined twice is left out: which one applies is not known."""
    found: dict[str, Option | None] = {}
    trainer = False
    for call in every_call:
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name == "add_argparse_args":
            trainer = True
        if name != "add_argument":
            continue
        dest = _destination(call)
        if dest is None:
            continue
        found[dest] = None if dest in found else _option(call)
    return {dest: option for dest, option in found.items() if option is not None}, trainer


def _destination(call: ast.Call) -> str | None:
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    dest = keywords.get("dest")
    if dest is not None:
        return dest.value if isinstance(dest, ast.Constant) and isinstance(dest.value, str) else None
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    long = [n for n in names if n.startswith("--")]
    chosen = long[0][2:] if long else (names[0].lstrip("-") if names else "")
    return chosen.replace("-", "_") or None


def _option(call: ast.Call) -> Option | None:
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if any(k.arg is None for k in call.keywords) or "action" in keywords or "nargs" in keywords:
        return None  # `store_true`, lists of words, `**kwargs`: not a single value read from one word
    kind: str | None = ""
    if "type" in keywords:
        node = keywords["type"]
        kind = node.id if isinstance(node, ast.Name) and node.id in _KINDS else None
    choices: tuple[Value, ...] | None = None
    if "choices" in keywords:
        literal = _literal(keywords["choices"])
        if not isinstance(literal, (list, tuple)):
            return None
        choices = tuple(literal)
    default: object = MISSING
    if "default" in keywords:
        default = _literal(keywords["default"])
        if default is MISSING:
            return None
    return Option(kind, choices, default)


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return MISSING


def _unique(values: Iterable[Value]) -> list[Value]:
    seen: list[Value] = []
    for value in values:
        if not any(value == s and type(value) is type(s) for s in seen):
            seen.append(value)
    return seen
