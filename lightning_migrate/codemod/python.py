"""Rewrite the Trainer calls of one Python file (LibCST), and report what cannot be rewritten safely."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    QualifiedNameSource,
    ScopeProvider,
)

from ..rules import BY_CODE, FLAG_RULES
from ..semantics.classes import lookup
from ..semantics.model import Obj, Value, Version
from ..semantics.signature import MODELLED
from .edit import edit_arguments
from .plan import DEVICE_NAMES, Refusal, Rewrite, plan
from .values import Unknown, code, read

PACKAGES = ("pytorch_lightning", "lightning.pytorch", "lightning")
TRAINER_NAMES = frozenset(
    f"{package}.{path}Trainer" for package in PACKAGES for path in ("", "trainer.", "trainer.trainer.")
)
PARTIAL_NAMES = frozenset({"functools.partial"})


@dataclass(frozen=True)
class Finding:
    line: int
    column: int
    code: str
    message: str
    fixable: bool


@dataclass(frozen=True)
class Result:
    code: str  # the new source (the same text when nothing changed)
    findings: list[Finding]


def migrate(source: str, target: Version, source_version: Version | None = None) -> Result:
    """Rewrite ``source`` (a whole Python file) for Lightning ``target``."""
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module)
    migrator = _Migrator(target, source_version)
    new_module = wrapper.visit(migrator)
    if migrator.renamed or migrator.dropped:
        new_module = _fix_imports(new_module, migrator)
    new_code = new_module.code
    if new_code != source:
        cst.parse_module(new_code)  # never hand out code that does not parse
    return Result(new_code, sorted(migrator.findings, key=lambda f: (f.line, f.column, f.code)))


class _Migrator(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider, ScopeProvider, ParentNodeProvider)

    def __init__(self, target: Version, source: Version | None) -> None:
        super().__init__()
        self.target = target
        self.source = source
        self.findings: list[Finding] = []
        self.renamed: dict[str, tuple[str, str, str]] = {}  # new class -> (namespace, old class, old module)
        self.dropped: set[tuple[str, str]] = set()  # (module, class) whose import may now be unused
        self._bindings: dict[int, cst.BaseExpression] = {}

    # --- name resolution ----------------------------------------------------------------------------------

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._bindings[id(target.target)] = node.value

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self._bindings[id(node.target)] = node.value

    def _resolve(self, name: cst.Name) -> cst.BaseExpression | None:
        """The expression ``name`` is bound to, when it is bound exactly once (a constant)."""
        scope = self.get_metadata(ScopeProvider, name, None)
        if scope is None:
            return None
        assignments = list(scope[name.value])
        if len(assignments) != 1:
            return None
        return self._bindings.get(id(getattr(assignments[0], "node", None)))

    def _qualified(self, node: cst.CSTNode) -> set[str]:
        names = self.get_metadata(QualifiedNameProvider, node, set())
        return {q.name for q in names if q.source == QualifiedNameSource.IMPORT}

    def _lightning_class(self, func: cst.BaseExpression) -> str | None:
        for name in self._qualified(func):
            if name.startswith(tuple(f"{p}." for p in PACKAGES)):
                cls = name.rsplit(".", 1)[-1]
                if lookup(cls) is not None:
                    return cls
        return None

    # --- the calls ------------------------------------------------------------------------------------------

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        names = self._qualified(original.func)
        if names & TRAINER_NAMES:
            return self._migrate(original, updated, skip=0)
        if (
            names & PARTIAL_NAMES
            and original.args
            and self._qualified(original.args[0].value) & TRAINER_NAMES
        ):
            return self._migrate(original, updated, skip=1)  # functools.partial(Trainer, ...)
        if any(
            n.endswith(".Trainer.from_argparse_args") and n[: -len(".from_argparse_args")] in TRAINER_NAMES
            for n in names
        ):
            return self._migrate(original, updated, skip=1)  # Trainer.from_argparse_args(args, ...)
        return updated

    def _migrate(self, original: cst.Call, updated: cst.Call, skip: int) -> cst.Call:
        position = self.get_metadata(PositionProvider, original).start
        flags: dict[str, Value] = {}
        for arg in original.args[skip:]:
            key = arg.keyword.value if arg.keyword is not None else None
            if key not in MODELLED:
                continue
            value = read(arg.value, self._resolve, self._lightning_class)
            if isinstance(value, Unknown):
                self._report(
                    arg,
                    "LM101",
                    f"`{key}={code(arg.value)}`: {value.reason}; use the runtime shim or pass literal values",
                )
                return updated
            flags[key] = value
        if not flags:
            return updated
        starred = next((arg for arg in original.args[skip:] if arg.star), None)
        if starred is not None:  # `**cfg` may set (or clash with) any flag a rewrite would touch
            self._report(
                starred,
                "LM101",
                f"`{starred.star}{code(starred.value)}`: the flags it passes are only known at run time;"
                " use the runtime shim or pass literal values",
            )
            return updated
        decision = plan(flags, self.target, self.source)
        if isinstance(decision, Refusal):
            self.findings.append(
                Finding(position.line, position.column + 1, decision.code, decision.message, False)
            )
            return updated
        if not isinstance(decision, Rewrite):
            return updated
        head, tail = list(updated.args[:skip]), list(updated.args[skip:])
        edited = edit_arguments(tail, flags, decision.flags, _quote(original))
        self._record_renames(original, edited.renamed, edited.built, edited.qualified)
        self._record_dropped(original, flags, decision.flags)
        new_args = edited.args
        self._report_rewrite(original, flags, decision.flags, position.line, position.column + 1)
        return updated.with_changes(args=[*head, *new_args])

    def _record_dropped(self, call: cst.Call, old: dict[str, Value], new: dict[str, Value]) -> None:
        """Lightning classes the call no longer uses (a ``DDPPlugin()`` rebuilt as ``DDPStrategy(...)``)."""
        kept = {v.cls for v in _flat(new.values()) if isinstance(v, Obj)}
        gone = {v.cls for v in _flat(old.values()) if isinstance(v, Obj)} - kept
        for name in self._all_qualified(call):
            module, _, cls = name.rpartition(".")
            if cls in gone:
                self.dropped.add((module, cls))
        for arg in call.args:  # `plugins.DDPPlugin(...)` became `DDPStrategy(...)`: maybe `plugins` is unused
            nodes = arg.value.elements if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg.value]
            for item in nodes:
                node = item.value if isinstance(item, cst.BaseElement) else item
                if (
                    isinstance(node, cst.Call)
                    and isinstance(node.func, cst.Attribute)
                    and isinstance(node.func.value, cst.Name)
                    and node.func.attr.value in gone
                ):
                    for name in self._qualified(node.func.value):
                        module, _, alias = name.rpartition(".")
                        if module:
                            self.dropped.add((module, alias))

    def _record_renames(
        self, call: cst.Call, renamed: dict[str, str], built: set[str], attribute: set[str]
    ) -> None:
        qualified = self._all_qualified(call)
        namespace = next(
            (p for p in PACKAGES for n in qualified if n.startswith(f"{p}.") and p != "lightning"), None
        )
        namespace = namespace or (
            "lightning.pytorch" if any(n.startswith("lightning.") for n in qualified) else "pytorch_lightning"
        )
        for old, new in renamed.items():
            if new in attribute:  # written `pl.strategies.DDPStrategy`: nothing to import
                self.dropped.add((f"{namespace}.plugins", old))
            else:
                self.renamed[new] = (namespace, old, "plugins")
        for cls in built:
            row = lookup(cls)
            self.renamed.setdefault(cls, (namespace, "", row.module if row else "strategies"))

    def _all_qualified(self, call: cst.Call) -> set[str]:
        found: set[str] = set()
        for node in (call.func, *(a.value for a in call.args)):
            found |= self._qualified(node)
            if isinstance(node, cst.Call):
                found |= self._qualified(node.func)
        return found

    def _report(self, node: cst.CSTNode, rule: str, message: str) -> None:
        start = self.get_metadata(PositionProvider, node).start
        self.findings.append(Finding(start.line, start.column + 1, rule, message, BY_CODE[rule].fixable))

    def _report_rewrite(
        self, call: cst.Call, old: dict[str, Value], new: dict[str, Value], line: int, column: int
    ) -> None:
        rules: dict[str, str] = {}
        for key, value in old.items():
            if new.get(key) == value and key in new:
                continue
            rule = FLAG_RULES.get(key, "LM006")
            if key == "accelerator" and isinstance(value, str) and value.lower() in DEVICE_NAMES:
                rule = "LM004"
            rules.setdefault(rule, key)
        if any(isinstance(v, Obj) and v.cls.endswith("Plugin") for v in _flat(old.values())):
            rules.setdefault("LM005", "")
        fix = ", ".join(f"{k}={v!r}" for k, v in new.items())
        for index, rule in enumerate(sorted(rules)):
            info = BY_CODE[rule]
            dates = f" (deprecated in {info.deprecated_in}, removed in {info.removed_in})"
            when = dates if info.removed_in else ""
            # the fix is the same for every rule the call breaks: say it once
            message = f"{info.title}{when}" + (f"; fix: {fix}" if index == 0 else "")
            self.findings.append(Finding(line, column, rule, message, True))


def _flat(values: Iterable[Value]) -> list[Value]:
    out: list[Value] = []
    for value in values:
        if isinstance(value, list):
            out.extend(_flat(value))
        else:
            out.append(value)
    return out


def _quote(call: cst.Call) -> str:
    """The quote style the call already uses."""
    for node in call.args:
        if isinstance(node.value, cst.SimpleString):
            return '"' if node.value.quote.endswith('"') else "'"
    return '"'


def _fix_imports(module: cst.Module, migrator: _Migrator) -> cst.Module:
    context = CodemodContext()
    for new, (namespace, old, old_module) in migrator.renamed.items():
        row = lookup(new)
        AddImportsVisitor.add_needed_import(
            context, f"{namespace}.{row.module if row else 'strategies'}", new
        )
        if old:
            RemoveImportsVisitor.remove_unused_import(context, f"{namespace}.{old_module}", old)
    for module_name, cls in migrator.dropped:
        RemoveImportsVisitor.remove_unused_import(context, module_name, cls)
    module = AddImportsVisitor(context).transform_module(module)
    return RemoveImportsVisitor(context).transform_module(module)
