"""What a flag whose value is only known at run time may hold: its domain, and what a file says to narrow it.

The planner quantifies over a domain (``quantify.plan_over``): a rewrite of the known flags is made only if it
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
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lightning_migrate.plan.knowledge import unique
from lightning_migrate.semantics.model import Value

# One value of each kind per flag. Strings of a single number are where releases disagree most (`gpus="2"`
# was GPU index 2 in 1.4 and two GPUs from 1.5), so they are there whenever the file does not rule them out.
DOMAINS: dict[str, tuple[Value, ...]] = {
    "gpus": (None, 0, 1, 2, 8, -1, "0", "1", "2", "0,1", "-1", [0], [1], [0, 1], [1, 3]),
    "tpu_cores": (None, 0, 1, 8, [1], [5], "1", "5", "8"),
    "num_processes": (1, 2, 4, 0, -1, "2"),  # ("2": ignored by 1.4 and 1.5, two processes from 1.6)
    "devices": (None, 1, 2, 8, -1, "auto", "2", "0,1", [0], [1], [0, 1]),
    "num_nodes": (1, 2, 4),  # (below 1: the model judges no such value in 1.4 and 1.5, nor trains anyone)
    "precision": (None, 16, 32, 64, "16", "32", "bf16", "16-mixed", "bf16-mixed", "32-true"),
    "auto_select_gpus": (False, True),
    "sync_batchnorm": (False, True),
    "replace_sampler_ddp": (True, False),
    "use_distributed_sampler": (True, False),
    "amp_backend": ("native", "apex"),
    "amp_level": (None, "O0", "O1", "O2", "O3"),
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


@dataclass(frozen=True)
class Domain:
    """The values an expression may hold; ``told``: each is one the file writes (a literal it binds, a value
    a test's parametrize or an argparse option's ``choices`` lists), not a flag's whole domain the codemod
    assumes for want of better (only told values can show that a call is old usage). ``written``: where
    not every value is told, those the file does write (a parameter's default, ``strategy: Optional[str] =
    None``): they too can show it."""

    values: tuple[Value, ...]
    told: bool = False
    written: tuple[Value, ...] = ()

    @property
    def shown(self) -> tuple[Value, ...]:
        """The values the file writes."""
        return self.values if self.told else self.written


def whole(values: tuple[Value, ...] | None) -> Domain | None:
    """A domain the codemod assumes (a flag's, a type's, a machine reader's)."""
    return None if values is None else Domain(values)


def union(parts: Iterable[Domain | None]) -> Domain | None:
    """The values of several expressions one of which gives the value (a conditional's branches); None
    when one of them has no domain."""
    values: list[Value] = []
    shown: list[Value] = []
    told = True
    for part in parts:
        if part is None:
            return None
        values += part.values
        shown += part.shown
        told = told and part.told
    return Domain(tuple(unique(values)), told, () if told else tuple(unique(shown)))


def parametrized(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> tuple[Value, ...] | None:
    """The values a test's ``pytest.mark.parametrize`` gives its parameter ``name`` (every decorator that
    names it: the test runs with each), or None when none does or a value is not a literal."""
    cases = parametrized_cases(function, [name])
    return None if cases is None else tuple(unique(case[name] for case in cases))


def parametrized_cases(
    function: ast.FunctionDef | ast.AsyncFunctionDef, names: Sequence[str]
) -> list[dict[str, Value]] | None:
    """The cases a test's ``pytest.mark.parametrize`` decorators run it with, for its parameters ``names``:
    the values of one row of a decorator go together, and each decorator's rows go with every other's (pytest
    stacks them); None where a name is listed by none, or one of its values is not a literal."""
    cases: list[dict[str, Value]] = [{}]
    for decorator in function.decorator_list:
        table = _table(decorator)
        mine = [n for n in names if table is not None and n in table[0]]
        if table is None or not mine:
            continue
        listed, rows = table
        if rows is None:
            return None
        given = []
        for row in rows:
            values = {n: row[listed.index(n)] for n in mine}
            if not all(v is None or isinstance(v, (bool, int, float, str, list)) for v in values.values()):
                return None
            given.append(values)
        cases = [{**case, **values} for case in cases for values in given]  # type: ignore[dict-item]
    return cases if all(len(case) == len(names) for case in cases) else None


def _table(decorator: ast.expr) -> tuple[list[str], list[list[object]] | None] | None:
    """The names a ``pytest.mark.parametrize(...)`` decorator lists and the values of each of its rows
    (``MISSING`` for one that is not a literal; no rows where they are not written out); None for any other
    decorator."""
    if not (isinstance(decorator, ast.Call) and dotted(decorator.func).split(".")[-1] == "parametrize"):
        return None
    if len(decorator.args) < 2:
        return None
    names = _literal(decorator.args[0])
    listed = [n.strip() for n in names.split(",")] if isinstance(names, str) else names
    if not isinstance(listed, (list, tuple)):
        return None
    rows = decorator.args[1]
    if not isinstance(rows, (ast.List, ast.Tuple)):
        return list(listed), None
    table = []
    for row in rows.elts:
        cells = _cells(row, len(listed))
        if cells is None:
            return list(listed), None
        table.append([_literal(cell) for cell in cells])
    return list(listed), table


def _cells(row: ast.expr, width: int) -> list[ast.expr] | None:
    """The values of one parametrize row: ``value``, ``(a, b)``, or ``pytest.param(a, b, marks=...)``."""
    if isinstance(row, ast.Call) and dotted(row.func).endswith("param"):
        cells: list[ast.expr] = list(row.args)
    elif width == 1:
        cells = [row]
    elif isinstance(row, (ast.Tuple, ast.List)):
        cells = list(row.elts)
    else:
        return None
    return cells if len(cells) == width and not any(isinstance(c, ast.Starred) for c in cells) else None


def dotted(node: ast.expr) -> str:
    """``a.b.c`` for that chain of names ("" where it holds something else: ``f().x`` is ``.x``)."""
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


PARSE = ("parse_args", "parse_known_args")


def returns_parsed(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Does ``function`` return what a parser parsed: ``return parser.parse_args()``, or a name bound to
    that (``args = parser.parse_args(); ...; return args``)?"""
    parsed: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and parse_call(node.value):
            parsed |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if parse_call(value):
                return True
            if isinstance(value, ast.Name) and value.id in parsed:
                return True
    return False


def parse_call(node: ast.expr) -> bool:
    """Is ``node`` a call of ``parse_args`` or ``parse_known_args``?"""
    return isinstance(node, ast.Call) and dotted(node.func).endswith(PARSE)


def of_annotation(flag: str, annotation: ast.expr | None, default: object) -> tuple[Value, ...] | None:
    """The values a function's parameter may give ``flag``: the domain's values of the kinds its
    annotation names (``gpus: int``, ``Optional[int]``, ``int | str``, ``List[int]``), and its default."""
    whole = DOMAINS.get(flag)
    if whole is None:
        return None
    kinds = _kinds(annotation) if annotation is not None else None
    values = [value for value in whole if kinds is None or _kind(value) in kinds]
    for kind in sorted(kinds or ()):
        if not any(_kind(value) == kind for value in whole):  # (`num_processes: str`: not its kind, but
            values += KIND_VALUES[kind]  # what the call is handed: judged as it comes)
    if default is not MISSING and (default is None or isinstance(default, (bool, int, float, str, list))):
        values.append(default)
    return tuple(unique(values)) or None


_KIND_NAMES = {"int": "int", "str": "str", "float": "float", "bool": "bool", "None": "None"}
# Values of each kind an annotation may name, for a flag whose domain has none of that kind.
KIND_VALUES: dict[str, tuple[Value, ...]] = {
    "int": (0, 1, 2, -1),
    "float": (1.0, 2.0),
    "str": ("0", "1", "2", "-1", "0,1"),
    "bool": (False, True),
    "list": ([0], [1], [0, 1]),
    "None": (None,),
}
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


# Calls whose results the model knows, by qualified name: they read the machine (and are run-time values
# like any other: each result is judged on every machine).
CALLS: dict[str, tuple[Value, ...]] = {
    "torch.cuda.device_count": (0, 1, 2, 4, 8),
    "torch.cuda.is_available": (False, True),
}


# Calls that only read (as written: a name the file rebinds is its own business): the machine readers above
# and the builtins that convert or compare.
PURE_CALLS = frozenset({*CALLS, "int", "str", "bool", "min", "max", "len"})


def extreme(name: str, parts: list[tuple[Value, ...]]) -> tuple[Value, ...] | None:
    """What ``min``/``max`` of arguments with these values gives (None where they do not compare)."""
    pick = min if name == "min" else max
    out = []
    for combination in itertools.product(*parts):
        try:
            out.append(pick(combination))  # type: ignore[type-var]
        except TypeError:
            return None
    return tuple(unique(out))


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
    return tuple(unique(out))


def of_option(flag: str, option: Option) -> Domain | None:
    """The values an argparse option can give ``flag``: its choices (told), or what its type makes of a
    command-line word (a word that is one of the flag's domain's strings); and its default (argparse's own,
    None, when it names none)."""
    if option.kind is None:
        return None
    default: list[Value] = [None if option.default is MISSING else option.default]  # type: ignore[list-item]
    if option.choices is not None:
        return Domain(tuple(unique([*option.choices, *default])), told=True)
    assumed = DOMAINS.get(flag)
    if assumed is None:
        return None
    values: list[Value] = []
    convert = _KINDS.get(option.kind, str) if option.kind else str
    for word in (str(v) for v in assumed if isinstance(v, (int, str)) and not isinstance(v, bool)):
        try:
            values.append(convert(word))
        except ValueError:
            continue
    return Domain(tuple(unique([*values, *default])))


# What `Trainer.add_argparse_args` gives a flag it adds: `--gpus 2` is 2, `--gpus 0,1` is "0,1" (Lightning's
# `_gpus_allowed_type`), and the flag's default when the option is not given.
TRAINER_OPTIONS: dict[str, tuple[Value, ...]] = {
    "gpus": (None, 0, 1, 2, 8, -1, "0,1"),
    "tpu_cores": (None, 1, 8, "1,2"),
    "num_processes": (1, 2, 4, 0, -1),
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
        dest = destination(call)
        if dest is None:
            continue
        found[dest] = None if dest in found else _option(call)
    return {dest: option for dest, option in found.items() if option is not None}, trainer


def destination(call: ast.Call) -> str | None:
    """Where ``parser.add_argument(...)`` puts its option's value (``--num-gpus`` is ``num_gpus``)."""
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
