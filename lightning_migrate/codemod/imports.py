"""Make a rewritten module's imports follow its renamed classes.

No rewritten file may import a name the target lacks. So every ``from <lightning module> import Old`` (any
module path: ``pytorch_lightning.plugins``, ``...plugins.training_type``, ``...training_type.ddp``; any alias;
one of several names; parenthesized over several lines) whose name the file no longer uses is removed, and the
import of the new class takes its place, right after it. An alias stays the user's: ``DDPPlugin as DDP``
becomes ``DDPStrategy as DDP`` and the calls still say ``DDP(...)``. A name still used elsewhere in the file
keeps its import.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from ..semantics.classes import RENAMED_STRATEGIES, lookup
from ..semantics.model import Version, v

LIGHTNING_ROOTS = ("pytorch_lightning", "lightning")


@dataclass
class ImportChanges:
    renamed: dict[str, tuple[str, str]] = field(default_factory=dict)  # old class -> (namespace, new class)
    aliased: dict[str, tuple[str, str]] = field(default_factory=dict)  # alias -> (namespace, new class)
    dropped: set[tuple[str, str]] = field(default_factory=set)  # (module, name) to remove when unused

    def __bool__(self) -> bool:
        return bool(self.renamed or self.aliased or self.dropped)


def new_module(namespace: str, cls: str) -> str:
    row = lookup(cls)
    return f"{namespace}.{row.module if row else 'strategies'}"


@dataclass
class FixedImports:
    module: cst.Module
    unplaced: set[str]  # new classes whose import the caller must add (the old one was not found)
    still_used: set[str]  # old class names the file uses elsewhere, so their import stays


def fix_imports(module: cst.Module, changes: ImportChanges) -> FixedImports:
    """``module`` with its imports following ``changes``. A renamed class whose old import was not found
    (written ``pl.plugins.X``, imported another way) is ``unplaced``: the caller adds its import."""
    used = _used_names(module)
    fixer = _ImportFixer(changes, used, _imported(module))
    fixed = module.visit(fixer)
    unplaced = {new for _, new in changes.renamed.values() if new in used and new not in fixer.placed}
    return FixedImports(fixed, unplaced, {old for old in changes.renamed if old in used})


class _Names(cst.CSTVisitor):
    """The names a module uses outside its imports (``x.DDPPlugin`` uses ``x``, not ``DDPPlugin``)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _used_names(module: cst.Module) -> set[str]:
    names = _Names()
    module.visit(names)
    return names.names


def _imported(module: cst.Module) -> set[str]:
    """The local names bound by ``from ... import`` statements anywhere in the module."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
            if not isinstance(node.names, cst.ImportStar):
                found.update(_local(alias) for alias in node.names)

    module.visit(Visitor())
    return found


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return _dotted(alias.name)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


class _ImportFixer(cst.CSTTransformer):
    def __init__(self, changes: ImportChanges, used: set[str], imported: set[str]) -> None:
        super().__init__()
        self.changes = changes
        self.used = used
        self.imported = imported
        self.placed: set[str] = set()  # new classes whose import is now written

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if len(updated.body) != 1 or not isinstance(updated.body[0], cst.ImportFrom):
            return updated
        node = updated.body[0]
        module = _dotted(node.module) if node.module is not None else ""
        if node.relative or not module.startswith(LIGHTNING_ROOTS) or isinstance(node.names, cst.ImportStar):
            return updated
        kept: list[cst.ImportAlias] = []
        added: list[cst.BaseStatement] = []
        for alias in node.names:
            replacement = self._replacement(module, alias)
            if replacement is None:
                kept.append(alias)
            elif isinstance(replacement, cst.SimpleStatementLine):
                added.append(replacement)
        if len(kept) == len(node.names):
            return updated
        statements: list[cst.BaseStatement] = []
        if kept:
            kept[-1] = kept[-1].with_changes(comma=node.names[-1].comma)
            statements.append(updated.with_changes(body=[node.with_changes(names=kept)]))
        for index, statement in enumerate(added):
            # the first new import takes the old statement's place: its leading comments and blank lines
            lead = updated.leading_lines if not kept and index == 0 else ()
            statements.append(statement.with_changes(leading_lines=lead))
        if not statements:
            return cst.RemovalSentinel.REMOVE
        return cst.FlattenSentinel(statements)

    def _replacement(self, module: str, alias: cst.ImportAlias) -> cst.SimpleStatementLine | str | None:
        """None: keep ``alias``; "": drop it; a statement: drop it and write this import after it."""
        name, local = _dotted(alias.name), _local(alias)
        if local in self.changes.aliased and lookup(name) is not None:
            namespace, new = self.changes.aliased[local]
            self.placed.add(new)
            return _statement(new_module(namespace, new), new, local)
        if name in self.changes.renamed and local not in self.used:
            namespace, new = self.changes.renamed[name]
            if new not in self.used or new in self.placed or new in self.imported:
                return ""
            self.placed.add(new)
            return _statement(new_module(namespace, new), new, new)
        if (module, name) in self.changes.dropped and local not in self.used:
            return ""
        return None


def _statement(module: str, name: str, local: str) -> cst.SimpleStatementLine:
    alias = f"{name} as {local}" if local != name else name
    statement = cst.parse_statement(f"from {module} import {alias}\n")
    assert isinstance(statement, cst.SimpleStatementLine)
    return statement


class RenameUses(cst.CSTTransformer):
    """Every other use of a renamed class in the file (``isinstance(s, DDPPlugin)``, ``class X(DDPPlugin)``)
    takes the new name, so the old import can go: the rewritten calls build the new class, and code that
    asks for the old one would no longer match it. Attribute names and keywords are not uses."""

    def __init__(self, renames: dict[str, str]) -> None:
        super().__init__()
        self.renames = renames

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        new = self.renames.get(original.value)
        return updated.with_changes(value=new) if new else updated


@dataclass(frozen=True)
class StaleImport:
    """``from <lightning module> import Old [as local]`` of a training-type class the target renamed."""

    line: int
    column: int
    name: str
    local: str
    namespace: str  # "pytorch_lightning" or "lightning.pytorch"
    new: str  # the class's 1.6 name
    used: bool  # the file uses ``local`` outside its imports


def stale_imports(tree: ast.Module, target: Version) -> list[StaleImport]:
    """The imports of ``*Plugin`` training-type classes in ``source`` that ``target`` (1.6 or later) renamed,
    whether or not a Trainer call of the file is rewritten: an old name that no call uses still fails to
    import on 2.x."""
    if target < v("1.6"):
        return []
    found, used = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        if not node.module.startswith(LIGHTNING_ROOTS):
            continue
        namespace = "lightning.pytorch" if node.module.startswith("lightning.") else "pytorch_lightning"
        for alias in node.names:
            row = lookup(alias.name)
            if row is None or alias.name not in RENAMED_STRATEGIES:
                continue
            local = alias.asname or alias.name
            found.append((node, alias.name, local, namespace, row.renamed_to))
    return [
        StaleImport(node.lineno, node.col_offset + 1, name, local, namespace, new, local in used)
        for node, name, local, namespace, new in found
    ]
