"""Write a rewritten module's imports so they follow its renamed classes (LibCST, statement by statement).

No rewritten file may import a name the target lacks. So every ``from <lightning module> import Old`` (any
module path: ``pytorch_lightning.plugins``, ``...plugins.training_type``, ``...training_type.ddp``; any alias;
one of several names; parenthesized over several lines) whose name the file no longer uses is removed, and the
import of the new class takes its place, right after it. An alias stays the user's: ``DDPPlugin as DDP``
becomes ``DDPStrategy as DDP`` and the calls still say ``DDP(...)``. A name still used elsewhere in the file
keeps its import. Only the import statements that change, and the import block at the top of the file where
a new import goes, are given to LibCST.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field

import libcst as cst

from lightning_migrate.edit.import_visitors import AddImports, RemoveNames
from lightning_migrate.edit.imports import LIGHTNING_ROOTS, ImportChanges, new_module
from lightning_migrate.edit.splice import splice_statements
from lightning_migrate.files.text import Text, cst_code, tree_of
from lightning_migrate.semantics.classes import lookup


@dataclass
class FixedImports:
    code: str
    unplaced: set[str]  # new classes whose import the caller must add (the old one was not found)
    still_used: set[str]  # old class names the file uses elsewhere, so their import stays


def fix_imports(source: str, tree: Parsed, changes: ImportChanges) -> FixedImports:
    """``source`` (read as ``tree``) with its imports following ``changes``. A renamed class whose old
    import was not found (written ``pl.plugins.X``, imported another way) is ``unplaced``: the caller adds
    its import. Only the import statements that change are given to LibCST."""
    imported = {alias.asname or alias.name for node in tree.imports for alias in node.names}
    fixer = _ImportFixer(changes, tree.used, imported)
    candidates = [
        (node, fixer)
        for node in tree.imports
        if not node.level
        and (node.module or "").startswith(LIGHTNING_ROOTS)
        and any(_changes(changes, node.module or "", alias) for alias in node.names)
    ]
    code = splice_statements(source, tree.ends, candidates, tree.alone)
    unplaced = {new for _, new in changes.renamed.values() if new in tree.used and new not in fixer.placed}
    return FixedImports(code, unplaced, {old for old in changes.renamed if old in tree.used})


def _changes(changes: ImportChanges, module: str, alias: ast.alias) -> bool:
    local = alias.asname or alias.name
    return (
        local in changes.aliased or alias.name in changes.renamed or (module, alias.name) in changes.dropped
    )


@dataclass
class _Walked:
    named: set[str] = field(default_factory=set)  # the names read or written (ast.Name)
    defined: set[str] = field(default_factory=set)  # defined functions and classes, parameters, keywords
    words: set[str] = field(default_factory=set)  # the identifiers in its strings (annotations, `__all__`)
    imports: list[ast.ImportFrom] = field(default_factory=list)
    names: list[ast.Name] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)  # the last line of every statement
    alone: set[int] = field(default_factory=set)  # id() of the statements alone in their block


class Parsed:
    """One version of the file as the import steps read it: its tree, and what one walk over it finds (made
    only when a step asks: placing a new import needs the tree alone)."""

    def __init__(self, source: str) -> None:
        self.tree = tree_of(source)

    @functools.cached_property
    def _walked(self) -> _Walked:
        walked = _Walked()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name):
                walked.named.add(node.id)
                walked.names.append(node)
                continue
            if isinstance(node, ast.stmt) and node.end_lineno:
                walked.ends.append(node.end_lineno)
                for block in ("body", "orelse", "finalbody"):
                    statements = getattr(node, block, None)
                    if isinstance(statements, list) and len(statements) == 1:
                        walked.alone.add(id(statements[0]))
            elif isinstance(node, ast.ExceptHandler) and len(node.body) == 1:
                walked.alone.add(id(node.body[0]))
            if isinstance(node, ast.ImportFrom):
                walked.imports.append(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                walked.defined.add(node.name)
            elif isinstance(node, (ast.arg, ast.keyword)) and node.arg:
                walked.defined.add(node.arg)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                walked.words.update(_WORD.findall(node.value))
        walked.imports.sort(key=lambda node: node.lineno)
        walked.ends.sort()
        return walked

    @property
    def used(self) -> set[str]:
        """The names the module uses outside its imports, as LibCST reads names: also what it defines, the
        parameters and the keywords of calls (``x.DDPPlugin`` uses ``x``, not ``DDPPlugin``)."""
        return self._walked.named | self._walked.defined

    @property
    def words(self) -> set[str]:
        return self._walked.words

    @property
    def imports(self) -> list[ast.ImportFrom]:
        return self._walked.imports

    @property
    def names(self) -> list[ast.Name]:
        return self._walked.names

    @property
    def ends(self) -> list[int]:
        return self._walked.ends

    @property
    def alone(self) -> frozenset[int]:
        return frozenset(self._walked.alone)

    def renamed(self, renames: dict[str, str]) -> Parsed:
        """The file after ``rename_uses``: the same lines and statements, its names renamed."""
        other = object.__new__(Parsed)
        other.tree = self.tree
        walked = self._walked
        other.__dict__["_walked"] = _Walked(
            {renames.get(name, name) for name in walked.named},
            walked.defined,
            walked.words,
            walked.imports,
            [],  # (their positions moved)
            walked.ends,
            walked.alone,
        )
        return other


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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
        added = _merged(added)
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


def _merged(statements: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """The new imports that replace one statement, those of one module in one statement (``from x import
    DDPPlugin, DeepSpeedPlugin`` -> ``from y import DDPStrategy, DeepSpeedStrategy``, not one line each), in
    the order their first name came."""
    merged: dict[str, cst.SimpleStatementLine] = {}
    for statement in statements:
        assert isinstance(statement, cst.SimpleStatementLine)
        node = statement.body[0]
        assert isinstance(node, cst.ImportFrom)
        assert not isinstance(node.names, cst.ImportStar)
        module = _dotted(node.module) if node.module is not None else ""
        before = merged.get(module)
        if before is None:
            merged[module] = statement
            continue
        first = before.body[0]
        assert isinstance(first, cst.ImportFrom)
        assert not isinstance(first.names, cst.ImportStar)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        names = [*first.names[:-1], first.names[-1].with_changes(comma=comma), *node.names]
        merged[module] = before.with_changes(body=[first.with_changes(names=names)])
    return list(merged.values())


def _statement(module: str, name: str, local: str) -> cst.SimpleStatementLine:
    alias = f"{name} as {local}" if local != name else name
    statement = cst.parse_statement(f"from {module} import {alias}\n")
    assert isinstance(statement, cst.SimpleStatementLine)
    return statement


def rename_uses(source: str, tree: Parsed, renames: dict[str, str]) -> str:
    """Every other use of a renamed class in the file (``isinstance(s, DDPPlugin)``, ``class X(DDPPlugin)``)
    takes the new name, so the old import can go: the rewritten calls build the new class, and code that
    asks for the old one would no longer match it. Attribute names, keywords and imports are not uses."""
    text = Text(source)
    names: list[tuple[int, int, str]] = sorted(
        (text.start(node), text.end(node), node.id) for node in tree.names if node.id in renames
    )
    out, position = [], 0
    for start, end, name in names:
        if source[start:end] != name:  # a position this Python's `ast` gets wrong: never guess
            raise AssertionError(f"`{name}` is not where ast says it is")
        out += [source[position:start], renames[name]]
        position = end
    return "".join([*out, source[position:]])


def add_imports(source: str, tree: Parsed, needed: list[tuple[str, str | None]]) -> str:
    """``source`` with ``from module import name`` (``import module`` for None) for each of ``needed``,
    where LibCST's ``AddImportsVisitor`` would put it (merged into an import of the same module, or after the
    imports at the top of the file). It only reads the top of the file: that is all LibCST is given."""
    text = Text(source)
    body = tree.tree.body
    top = 1 if body and _is_docstring(body[0], text) and _alone(body, 0) else 0
    while top < len(body) and isinstance(body[top], (ast.Import, ast.ImportFrom)) and _alone(body, top):
        top += 1
    if top < len(body):  # the first other statement, whose leading blank line LibCST may add, as `pass`
        following = body[top]
        first = min([following.lineno, *(d.lineno for d in getattr(following, "decorator_list", []))])
        head = source[: text.starts[first - 1]]
        parsed = cst.parse_module(f"{head}pass{text.newline}")
        code = cst_code(parsed.visit(AddImports(needed)).code, text.newline)
        assert code.endswith(f"pass{text.newline}")
        return code[: -len(f"pass{text.newline}")] + source[len(head) :]
    return cst_code(cst.parse_module(source).visit(AddImports(needed)).code, source)


def add_module_import(source: str, tree: Parsed, module: str) -> str:
    """``source`` with ``import module`` (a module the file binds no name for: ``torch``) placed as the file
    places its imports: on the line after the Lightning imports of the import block at its top, where they
    stand together (``import pytorch_lightning as pl``, then ``import torch``, as isort orders them), else
    where ``add_imports`` puts it. Either way before any other statement, so before any code that reads
    it."""
    text = Text(source)
    body = tree.tree.body
    index = 1 if body and _is_docstring(body[0], text) and _alone(body, 0) else 0
    last: ast.stmt | None = None
    while index < len(body) and _alone(body, index):
        statement = body[index]
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            break
        if _imports_lightning(statement):
            last = statement
        elif last is not None:
            break
        index += 1
    if last is None or last.end_lineno is None:
        return add_imports(source, tree, [(module, None)])
    if last.end_lineno >= len(text.starts):  # the file's last line, with no line end
        return f"{source}{text.newline}import {module}{text.newline}"
    at = text.starts[last.end_lineno]
    return f"{source[:at]}import {module}{text.newline}{source[at:]}"


def _imports_lightning(statement: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(statement, ast.ImportFrom):
        return not statement.level and (statement.module or "").split(".")[0] in _LIGHTNING_PACKAGES
    return any(alias.name.split(".")[0] in _LIGHTNING_PACKAGES for alias in statement.names)


_LIGHTNING_PACKAGES = frozenset(root.split(".")[0] for root in LIGHTNING_ROOTS)


def _is_docstring(statement: ast.stmt, text: Text) -> bool:
    """LibCST's test: a string (not an f-string, not concatenated) alone on the first line, or
    ``__strict__ = ...``."""
    if isinstance(statement, ast.Assign):
        return [getattr(t, "id", None) for t in statement.targets] == ["__strict__"]
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Constant):
        return False
    value = statement.value
    return isinstance(value.value, (str, bytes)) and isinstance(
        cst.parse_expression(text.segment(value)), cst.SimpleString
    )


def _alone(body: list[ast.stmt], index: int) -> bool:
    """Is ``body[index]`` the only statement on its lines (not ``import a; import b``)?"""
    statement = body[index]
    before = body[index - 1].end_lineno if index else 0
    after = body[index + 1].lineno if index + 1 < len(body) else None
    return (before or 0) < statement.lineno and (after is None or after > (statement.end_lineno or 0))


def remove_unused(source: str, tree: Parsed, dropped: set[tuple[str, str]]) -> str:
    """``source`` without the ``from module import name`` imports of ``dropped`` that nothing in the file
    uses any more. "Used" is read generously (a name, or a word of a string: an annotation, ``__all__``):
    an import kept is safe, one removed that was used breaks the file."""
    unused: set[tuple[str, str]] = set()
    statements = []
    for node in tree.imports:
        if node.level or not node.module:
            continue
        gone = [
            alias.name
            for alias in node.names
            if (node.module, alias.name) in dropped
            and not alias.asname
            and alias.name not in tree.used
            and alias.name not in tree.words
        ]
        unused.update((node.module, name) for name in gone)
        if gone:
            statements.append(node)
    if not statements:
        return source
    remover = RemoveNames(unused)
    return splice_statements(source, tree.ends, [(node, remover) for node in statements], tree.alone)
