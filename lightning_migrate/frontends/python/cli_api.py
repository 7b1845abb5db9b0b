"""LightningCLI's own API in a Python file (LM008): the imports of ``<root>.utilities.cli`` (moved to
``<root>.cli`` in 1.7, gone in 1.9), its registries (gone in 1.9) and the keywords of ``LightningCLI(...)``
that 1.9 and 2.0 reject (``semantics.removed``'s last table). Where the target has the same object or the same
setting under another name, the file is rewritten to it: the import's module (split where its names went to
different modules), the keyword moved into ``save_config_kwargs``/``parser_kwargs`` under the key the
deprecating releases move it to themselves, ``auto_registry=`` dropped. The rest is reported where the target
rejects it and left alone where it only deprecates it.

Decided with ``ast`` (``examine``); the call edits are LibCST changes the applier makes with the Trainer
calls' (``apply.write``), the import statements are rewritten last, on the file as the other edits left it
(``rewrite_imports``: the same statements, in the same order).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lightning_migrate.files.text import Text
from lightning_migrate.plan.locate import Located
from lightning_migrate.project import cli_classes
from lightning_migrate.project.cli_classes import CLI_CLASSES, CLISubclass
from lightning_migrate.report.findings import Finding, written
from lightning_migrate.semantics.model import Version
from lightning_migrate.semantics.removed import (
    CLI_KEYWORD,
    CLI_MODULE,
    CLI_MODULE_SINCE,
    CLI_MOVED,
    CLI_REGISTRIES,
    OLD_CLI_MODULE,
    OLD_CLI_MODULE_REMOVED,
    REGISTRIES_ADVICE,
    CLIKeyword,
    cli_accepts,
    mentions_cli_api,
)

if TYPE_CHECKING:
    import libcst as cst

CODE = "LM008"
ROOTS = ("pytorch_lightning", "lightning.pytorch")
OLD_MODULES = frozenset(f"{root}.{OLD_CLI_MODULE}" for root in ROOTS)


@dataclass(frozen=True)
class ImportMove:
    """One ``from <root>.utilities.cli import ...`` statement rewritten: the modules its names go to, in the
    order they are first named (``module``, [(name, alias)]); names it keeps, under the old module."""

    index: int  # its place among the file's imports of an old module, in source order
    root: str
    groups: tuple[tuple[str, tuple[tuple[str, str | None], ...]], ...]


@dataclass
class Work:
    findings: list[Finding] = field(default_factory=list)
    # (call node, its statement's indentation, the LibCST change of the call)
    edits: list[tuple[ast.Call, str, Callable[[cst.CSTNode, cst.CSTNode], cst.CSTNode]]] = field(
        default_factory=list
    )
    imports: list[ImportMove] = field(default_factory=list)


def may_concern(text: str, cli: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()) -> bool:
    """Whether ``text`` may hold anything ``examine`` reports or rewrites (the prefilter's words, or the name
    of one of the run's LightningCLI subclasses ``cli``)."""
    return mentions_cli_api(text) or any(name.rsplit(".", 1)[-1] in text for name, _, _ in cli)


def examine(
    located: Located,
    text: Text,
    target: Version,
    leave: frozenset[tuple[int, int]] = frozenset(),
    cli: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (),
) -> Work:
    """What the file's LightningCLI API needs for ``target``: findings, call edits and import moves (the
    statements and calls at the positions in ``leave`` are reported but not rewritten; ``cli``: the run's
    LightningCLI subclasses, ``project.cli_classes``)."""
    work = Work()
    if target < CLI_MODULE_SINCE:
        return work
    for index, node in enumerate(old_imports(located.tree)):
        _import(node, index, text, target, leave, work)
    for statement in _module_imports(located.tree):
        _module_import(statement, text, target, work)
    run = {name: CLISubclass(name, frozenset(own), frozenset(passed)) for name, own, passed in cli}
    for call, cls in _cli_calls(located, run):
        _call(call, cls, located.indents.get(id(call), ""), text, target, leave, work)
    return work


def cli_calls(
    located: Located, cli: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
) -> list[tuple[ast.Call, frozenset[str]]]:
    """The file's calls that reach Lightning's LightningCLI with the keywords written (``_cli_calls``), each
    with the keywords its class takes itself or passes LightningCLI itself (they are not LightningCLI's
    as written)."""
    run = {name: CLISubclass(name, frozenset(own), frozenset(passed)) for name, own, passed in cli}
    return [(call, cls.own | cls.passed) for call, cls in _cli_calls(located, run)]


# --- imports ------------------------------------------------------------------------------------------------


def old_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """Every ``from <root>.utilities.cli import ...`` of the file, in source order."""
    found = [
        n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level and n.module in OLD_MODULES
    ]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _root(module: str) -> str:
    return module[: -len(OLD_CLI_MODULE) - 1]


def _import(
    node: ast.ImportFrom,
    index: int,
    text: Text,
    target: Version,
    leave: frozenset[tuple[int, int]],
    work: Work,
) -> None:
    root = _root(node.module or "")
    removed = target >= OLD_CLI_MODULE_REMOVED
    line, column = text.position(node)
    old = f"{root}.{OLD_CLI_MODULE}"
    groups: dict[str, list[tuple[str, str | None]]] = {}
    for alias in node.names:
        module = CLI_MOVED.get(alias.name)
        groups.setdefault(module or OLD_CLI_MODULE, []).append((alias.name, alias.asname))
        if module is None and removed:
            work.findings.append(_left(alias.name, old, root, line, column))
    moved = [m for m in groups if m != OLD_CLI_MODULE]
    if not moved:
        return
    where = ", ".join(f"`{root}.{m}`" for m in moved)
    said = f"`{old}` ({_dates(removed)}); fix: {where}"
    details = (
        *(f"{', '.join(name for name, _ in groups[m])}: {root}.{m}" for m in moved),
        f"{_WORDS_1_9 if removed else _WORDS_1_7} ({old})",
    )
    split = len(groups) > 1
    if (line, column) not in leave and split and not _splittable(node, text):
        said = f"`{old}` ({_dates(removed)}): {where}; not fixed: split the import by hand"
        work.findings.append(Finding(line, column, CODE, said, False, details=details))
        return
    work.findings.append(Finding(line, column, CODE, said, True, details=details))
    if (line, column) in leave:
        return
    ordered = tuple((m, tuple(names_)) for m, names_ in groups.items())
    work.imports.append(ImportMove(index, root, ordered))


# Lightning's own words: 1.7/1.8's deprecation of each moved name, 1.9's stubs of the four classes
_WORDS_1_7 = 'deprecated in v1.7: "Use the equivalent class in `pytorch_lightning.cli` instead"'
_WORDS_1_9 = '"deprecated in v1.7.0 and is no longer supported as of v1.9.0"'


def _dates(removed: bool) -> str:
    if removed:
        return f"gone in {_line(OLD_CLI_MODULE_REMOVED)}"
    return f"deprecated in {_line(CLI_MODULE_SINCE)}"


def _left(name: str, old: str, root: str, line: int, column: int) -> Finding:
    """A name of the old module that no module of the target holds as it was (the target rejects it)."""
    gone = _line(OLD_CLI_MODULE_REMOVED)
    if name in CLI_REGISTRIES:
        said = f"`{name}` of `{old}` is gone in {gone}, with nothing in its place: drop it by hand"
        return Finding(line, column, CODE, said, False, details=(REGISTRIES_ADVICE,))
    if name == "*":
        said = (
            f"`from {old} import *`: the module is gone in {gone}; import by hand from `{root}.{CLI_MODULE}`"
        )
        return Finding(line, column, CODE, said, False)
    said = f"`{name}` of `{old}` (gone in {gone}) is not in `{root}.{CLI_MODULE}`: import it by hand"
    return Finding(line, column, CODE, said, False)


def _splittable(node: ast.ImportFrom, text: Text) -> bool:
    """A statement that may be written again as several: alone on its lines, with no comment in it."""
    segment = _segment(node, text)
    before = text.source[text.starts[node.lineno - 1] : text.start(node)]
    return (
        "#" not in segment and "\\" not in segment and before.strip() == "" and not _after_on_line(node, text)
    )


def _after_on_line(node: ast.ImportFrom, text: Text) -> bool:
    end = text.end(node)
    rest = text.source[end:].split("\n", 1)[0]
    return rest.strip() not in ("", "\r") and not rest.strip().startswith("#")


def _module_imports(tree: ast.Module) -> Iterable[ast.stmt]:
    """``import <root>.utilities.cli`` and ``from <root>.utilities import cli``: reported, not rewritten (the
    code reads the module's attributes, which are not all in the new one)."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Import) and any(a.name in OLD_MODULES for a in node.names)) or (
            isinstance(node, ast.ImportFrom)
            and not node.level
            and node.module in {f"{root}.utilities" for root in ROOTS}
            and any(a.name == "cli" for a in node.names)
        ):
            yield node


def _module_import(node: ast.stmt, text: Text, target: Version, work: Work) -> None:
    if target < OLD_CLI_MODULE_REMOVED:
        return
    line, column = text.position(node)
    root = "lightning.pytorch" if "lightning.pytorch" in _segment(node, text) else "pytorch_lightning"
    gone = _line(OLD_CLI_MODULE_REMOVED)
    said = f"`{root}.{OLD_CLI_MODULE}` is gone in {gone}: use `{root}.{CLI_MODULE}` by hand"
    details = ("its registries have no replacement: " + REGISTRIES_ADVICE,)
    work.findings.append(Finding(line, column, CODE, said, False, details=details))


def rewrite_imports(code: str, moves: list[ImportMove]) -> str:
    """``code`` with the import statements ``moves`` name rewritten (``code`` holds the statements
    ``examine`` read, in the same order: no other edit adds or removes one)."""
    if not moves:
        return code
    text = Text(code)
    nodes = old_imports(ast.parse(code))
    out, position = [], 0
    for move in moves:
        node = nodes[move.index]
        start, end = text.start(node), text.end(node)
        out.append(code[position:start])
        out.append(_written(node, move, text))
        position = end
    out.append(code[position:])
    return "".join(out)


def _written(node: ast.ImportFrom, move: ImportMove, text: Text) -> str:
    segment = _segment(node, text)
    if len(move.groups) == 1:  # the module's path alone changes: the rest is kept byte for byte
        module = move.groups[0][0]
        pattern = re.compile(
            r"(from\s+)" + r"\s*\.\s*".join(map(re.escape, (move.root + "." + OLD_CLI_MODULE).split(".")))
        )
        return pattern.sub(lambda m: f"{m.group(1)}{move.root}.{module}", segment, count=1)
    newline = "\r\n" if "\r\n" in text.source else "\n"
    indent = text.source[text.starts[node.lineno - 1] : text.start(node)]
    lines = []
    for module, names in move.groups:
        listed = ", ".join(name if alias is None else f"{name} as {alias}" for name, alias in names)
        lines.append(f"from {move.root}.{module} import {listed}")
    return (newline + indent).join(lines)


def _segment(node: ast.stmt, text: Text) -> str:
    return text.source[text.start(node) : text.end(node)]


def _line(version: Version) -> str:
    return f"{version.major}.{version.minor}"


# --- LightningCLI calls -------------------------------------------------------------------------------------


_LIGHTNING = CLISubclass("LightningCLI", frozenset(), frozenset())


def _cli_calls(located: Located, run: dict[str, CLISubclass]) -> list[tuple[ast.Call, CLISubclass]]:
    """The calls that reach Lightning's LightningCLI with the keywords written, each with the class it
    calls (what it takes itself, what it passes LightningCLI itself): of the class, of a subclass (the file's
    own or ``run``'s, by dotted name) that hands its keywords on, and ``super().__init__(...)`` in the
    ``__init__`` of a subclass (to its base)."""
    module = located.scopes[0]
    local = cli_classes.subclasses(located, run)
    bases: dict[int, CLISubclass] = {}  # id(a subclass's `__init__` super call) -> the class it calls
    for node in located.tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        base = _base(node, located, run, local)
        for function in node.body if base is not None else ():
            if _is_init(function):
                for call in ast.walk(function):
                    if isinstance(call, ast.Call) and _super_init(call, node):
                        bases[id(call)] = base  # type: ignore[assignment]
    found = []
    for call, scope in located.scoped_calls:
        qualified = located.qualified(call.func, scope)
        if id(call) in bases:
            found.append((call, bases[id(call)]))
        elif qualified & CLI_CLASSES:
            found.append((call, _LIGHTNING))
        elif qualified & set(run):
            found.append((call, run[min(qualified & set(run))]))
        elif (
            isinstance(call.func, ast.Name) and call.func.id in local and scope.lookup(call.func.id) is module
        ):
            found.append((call, local[call.func.id]))
    return found


def _base(
    node: ast.ClassDef, located: Located, run: dict[str, CLISubclass], local: dict[str, CLISubclass]
) -> CLISubclass | None:
    """The LightningCLI (or subclass of it) the class ``node`` derives from, if any."""
    for base in node.bases:
        qualified = located.qualified(base, located.scopes[0])
        if qualified & CLI_CLASSES:
            return _LIGHTNING
        if qualified & set(run):
            return run[min(qualified & set(run))]
        if isinstance(base, ast.Name) and base.id in local and base.id != node.name:
            return local[base.id]
    return None


def _is_init(node: ast.stmt) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__init__"


def _super_init(call: ast.Call, cls: ast.ClassDef) -> bool:
    """``super().__init__(...)`` or ``super(Cls, self).__init__(...)``."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call)):
        return False
    inner = func.value
    return (
        isinstance(inner.func, ast.Name)
        and inner.func.id == "super"
        and (not inner.args or (isinstance(inner.args[0], ast.Name) and inner.args[0].id == cls.name))
    )


def _call(
    call: ast.Call,
    cls: CLISubclass,
    indent: str,
    text: Text,
    target: Version,
    leave: frozenset[tuple[int, int]],
    work: Work,
) -> None:
    given = {k.arg: k for k in call.keywords if k.arg is not None}
    splat = any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args)
    moves: dict[str, list[tuple[str, str]]] = {}  # into -> [(old keyword, key)]
    dropped: list[str] = []
    for keyword, node in given.items():
        row = CLI_KEYWORD.get(keyword)
        if row is None or target < row.deprecated or keyword in cls.own:
            continue  # (a keyword the subclass takes itself is not LightningCLI's)
        rejected = not cli_accepts(keyword, target)
        line, column = text.position(node)
        reason = _unmovable(row, given, splat, rejected, target, moves) or _passed(row, cls)
        where = row.advice or f"the releases that deprecate it move it there: {row.into}[{row.key!r}]"
        details = (f"{keyword}={written(text.segment(node.value))}", where)
        if reason is None and (line, column) not in leave and text.position(call) not in leave:
            if row.into:
                moves.setdefault(row.into, []).append((keyword, row.key))
            else:
                dropped.append(keyword)
            work.findings.append(Finding(line, column, CODE, _said(row, rejected), True, details=details))
        elif reason is None:
            work.findings.append(Finding(line, column, CODE, _said(row, rejected), True, details=details))
        elif rejected:
            said = _said(row, rejected).split("; fix:")[0] + f"; not fixed: {reason}"
            work.findings.append(Finding(line, column, CODE, said, False, details=details))
    if moves or dropped:
        quote = _quote(call, text)
        change = _change(moves, dropped, quote)
        work.edits.append((call, indent, change))


def _unmovable(
    row: CLIKeyword,
    given: dict[str, ast.keyword],
    splat: bool,
    rejected: bool,
    target: Version,
    moves: dict[str, list[tuple[str, str]]],
) -> str | None:
    """Why the keyword cannot be moved (None: it can)."""
    if not row.into:
        if not rejected:
            return "the target still takes it"
        value = given[row.keyword].value
        if not isinstance(value, (ast.Constant, ast.Name)):
            return "its value is computed: drop it by hand"
        return None
    if target < row.since:
        return f"the target has no `{row.into}=`"
    if splat and not rejected:
        return f"the call passes `**` arguments, which may hold `{row.into}`"
    present = given.get(row.into)
    if present is None:
        return None
    if not isinstance(present.value, ast.Dict):
        return f"add `{row.key!r}` to `{row.into}=` by hand"
    keys = present.value.keys
    if any(k is None for k in keys) and row.into == "parser_kwargs":
        return f"`{row.into}=` unpacks a dict that may set `{row.key!r}`"
    if any(isinstance(k, ast.Constant) and k.value == row.key for k in keys):
        return f"`{row.into}=` sets `{row.key!r}` too"
    return None


def _passed(row: CLIKeyword, cls: CLISubclass) -> str | None:
    """Why the keyword cannot move into its dict keyword where the class called passes that keyword (or one
    the rewrite moves into it) to LightningCLI itself: both would reach it."""
    moved = {CLI_KEYWORD[k].into for k in cls.passed if k in CLI_KEYWORD}
    if row.into and (row.into in cls.passed or row.into in moved):
        return f"`{cls.name.rsplit('.', 1)[-1]}` passes `{row.into}=` itself: move it there by hand"
    return None


def _said(row: CLIKeyword, rejected: bool) -> str:
    """``save_config_overwrite=`` of LightningCLI (removed in 2.0); the fix."""
    when = f"removed in {_line(row.removed)}" if rejected else f"deprecated in {_line(row.deprecated)}"
    head = f"`{row.keyword}=` of LightningCLI ({when})"
    if row.into:
        return f"{head}; fix: `{row.into}={{{row.key!r}: ...}}`"
    return f"{head}; fix: dropped"


def _quote(call: ast.Call, text: Text) -> str:
    for node in ast.walk(call):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return '"' if text.segment(node).lstrip("rRbBuUfF")[:1] == '"' else "'"
    return '"'


def _change(
    moves: dict[str, list[tuple[str, str]]], dropped: list[str], quote: str
) -> Callable[[cst.CSTNode, cst.CSTNode], cst.CSTNode]:
    def change(_: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        from lightning_migrate.edit.cli_call import moved_keywords

        return moved_keywords(updated, moves, dropped, quote)

    return change
