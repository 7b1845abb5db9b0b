"""Rewrite the Trainer calls of one Python file (LibCST), and report what cannot be rewritten safely."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import (
    MetadataWrapper,
    PositionProvider,
    QualifiedNameSource,
    ScopeProvider,
)

from ..findings import Finding, Result
from ..rules import BY_CODE, FLAG_RULES
from ..semantics.classes import lookup
from ..semantics.model import RELEASES, Obj, Value, Version, v
from ..semantics.signature import MODELLED, is_default
from .edit import Edited, derived, edit_arguments, rebuilt
from .imports import ImportChanges, RenameUses, StaleImport, fix_imports, new_module, stale_imports
from .plan import DEVICE_NAMES, Decision, Refusal, Rewrite, Unchanged, plan
from .values import Unknown, code, read

PACKAGES = ("pytorch_lightning", "lightning.pytorch", "lightning")
TRAINER_NAMES = frozenset(
    f"{package}.{path}Trainer" for package in PACKAGES for path in ("", "trainer.", "trainer.trainer.")
)
PARTIAL_NAMES = frozenset({"functools.partial"})
LIGHTNING_PACKAGE = v("1.8")
SHIM_MODULES = {
    "pytorch_lightning": "lightning_migrate.shim",
    "lightning.pytorch": "lightning_migrate.shim.lightning",
}
_REPORTED, _NO_FLAGS = object(), object()  # how a call with `**` was decided


def migrate(
    source: str,
    target: Version,
    source_version: Version | None = None,
    unsafe: bool = False,
    leave: frozenset[tuple[int, int]] = frozenset(),
    shim: bool = False,
) -> Result:
    """Rewrite ``source`` (a whole Python file) for Lightning ``target``; with ``unsafe``, in the idiomatic
    modern spelling even where it adopts a changed default (each such finding says what changes). The calls
    at the (line, column) positions in ``leave`` are reported but not rewritten (``# noqa``). With ``shim``,
    a call whose flags are only known at run time builds the runtime shim's Trainer instead."""
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)  # parsed just now: nobody else holds it
    migrator = _Migrator(target, source_version, unsafe, leave, shim, splats="**" in source)
    new_module = wrapper.visit(migrator)
    stale = stale_imports(source, target)
    _follow_stale_imports(stale, migrator, target)
    if migrator.imports or migrator.built or migrator.shim_imports:
        renames = _other_uses(migrator, target)
        if renames:
            new_module = new_module.visit(RenameUses(renames))
        new_module, still_used = _fix_imports(new_module, migrator)
        migrator.findings.extend(_old_names_left(source, set(renames) | still_used, migrator, target))
    new_code = new_module.code
    if new_code != source:
        _check_parses(new_code)
    return Result(new_code, sorted(migrator.findings, key=lambda f: (f.line, f.column, f.code)))


class _Calls(cst.CSTVisitor):
    """The calls that must be decided before any node is left: those that pass ``**something`` (their dict
    may be written anywhere) and those that pass a name (it may be bound to an object built earlier)."""

    def __init__(self, splats: bool) -> None:
        super().__init__()
        self.want_splats = splats
        self.splats: list[cst.Call] = []
        self.named: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if self.want_splats and any(arg.star == "**" for arg in node.args):
            self.splats.append(node)
        elif any(arg.keyword is not None and _names_in(arg.value) for arg in node.args):
            self.named.append(node)


def _names_in(node: cst.BaseExpression) -> list[cst.Name]:
    """The bare names an argument value is made of: ``ddp`` or the items of ``[ddp, env]``."""
    items = [e.value for e in node.elements] if isinstance(node, (cst.List, cst.Tuple)) else [node]
    return [
        item for item in items if isinstance(item, cst.Name) and item.value not in ("True", "False", "None")
    ]


def _check_parses(code: str) -> None:
    """Never hand out code that does not parse (Python's own parser is quick; LibCST has the last word on
    syntax newer than the running interpreter)."""
    try:
        ast.parse(code)
    except SyntaxError:
        cst.parse_module(code)


class _Migrator(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider, ScopeProvider)

    def __init__(
        self,
        target: Version,
        source: Version | None,
        unsafe: bool,
        leave: frozenset[tuple[int, int]],
        shim: bool,
        splats: bool,
    ) -> None:
        super().__init__()
        self.leave = leave
        self.shim = shim
        self.shim_imports: set[str] = set()  # shim modules the file now imports
        self._shimmed: dict[int, str] = {}  # id(call) -> the shim module whose Trainer it builds
        self.target = target
        self.source = source
        self.unsafe = unsafe
        self.findings: list[Finding] = []
        self.imports = ImportChanges()  # imports to rewrite: renamed classes, kept aliases, unused names
        self.built: dict[str, str] = {}  # class of an object written from scratch -> namespace
        self._objects: dict[int, tuple[Obj, Obj]] = {}  # id(call building a bound object) -> (old, new)
        self.rewritten: list[tuple[tuple[int, int], tuple[int, int]]] = []  # (line, column 0-based) spans
        self._splats: dict[int, object] = {}  # id(call with `**`) -> how `_plan_splat` decided it
        self._dict_edits: dict[int, tuple[cst.Call, dict[str, Value], dict[str, Value]]] = {}
        self._assigned: dict[int, tuple[cst.BaseExpression, bool]] = {}  # see `_assignments`
        self._splat_in_source = splats  # the text has `**`: some call may pass a dict

    # --- name resolution ----------------------------------------------------------------------------------

    def _resolve(self, name: cst.Name) -> cst.BaseExpression | None:
        """The expression ``name`` is bound to, when it is bound exactly once (a constant)."""
        return self._binding(name, sole_use=False)

    def _binding(self, name: cst.Name, sole_use: bool) -> cst.BaseExpression | None:
        scope = self.get_metadata(ScopeProvider, name, None)
        assignments = list(scope[name.value]) if scope is not None else []
        if len(assignments) != 1 or (sole_use and len(assignments[0].references) != 1):
            return None
        target = getattr(assignments[0], "node", None)
        bound = self._assigned.get(id(target))
        if bound is None or (sole_use and not bound[1]):
            return None
        return bound[0]

    def _qualified(
        self, node: cst.CSTNode, source: QualifiedNameSource = QualifiedNameSource.IMPORT
    ) -> set[str]:
        # asked of the scope for the few nodes that matter: QualifiedNameProvider computes every node's names
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return set()
        return {q.name for q in scope.get_qualified_names_for(node) if q.source == source}

    def _lightning_class(self, func: cst.BaseExpression) -> str | None:
        for name in self._qualified(func):
            if name.startswith(tuple(f"{p}." for p in PACKAGES)):
                cls = name.rsplit(".", 1)[-1]
                if lookup(cls) is not None:
                    return cls
        return None

    # --- the calls ------------------------------------------------------------------------------------------

    def _trainer_call(self, call: cst.Call) -> int | None:
        """How many leading arguments precede the Trainer flags, if ``call`` builds a Lightning Trainer."""
        names = self._qualified(call.func)
        if names & TRAINER_NAMES:
            return 0
        if names & PARTIAL_NAMES and call.args and self._qualified(call.args[0].value) & TRAINER_NAMES:
            return 1  # functools.partial(Trainer, ...)
        if any(
            n.endswith(".Trainer.from_argparse_args") and n[: -len(".from_argparse_args")] in TRAINER_NAMES
            for n in names
        ):
            return 1  # Trainer.from_argparse_args(args, ...)
        return None

    def visit_Module(self, node: cst.Module) -> None:
        self._assigned = _assignments(node)
        # A `**cfg` dict or a `ddp = DDPPlugin(...)` object may be written before or after its call; decide
        # every such call before any node is left, so the dict or object can be rewritten where it is built.
        calls = _Calls(self._splat_in_source)
        node.visit(calls)
        for call in calls.splats:
            skip = self._trainer_call(call)
            if skip is not None:
                self._splats[id(call)] = self._plan_splat(call, skip)
        for call in calls.named:
            skip = self._trainer_call(call)
            if skip is not None:
                self._plan_bound_objects(call, skip)

    def _plan_bound_objects(self, call: cst.Call, skip: int) -> None:
        """Where ``call`` passes a name bound to a strategy object and the rewrite renames that object, edit
        it where it is built (``ddp = DDPPlugin(...)`` -> ``ddp = DDPStrategy(...)``) and keep the name."""
        args = [a for a in call.args[skip:] if not a.star]
        flags = self._read_flags(call, args, quiet=True)
        if not flags:
            return
        decision = self._plan(call, flags)
        if not isinstance(decision, Rewrite):
            return
        new_objects = [val for val in _flat(decision.flags.values()) if isinstance(val, Obj)]
        for arg in args:
            for name in _names_in(arg.value):
                bound = self._resolve(name)
                if not isinstance(bound, cst.Call):
                    continue
                old = read(bound, self._resolve, self._lightning_class)
                if not isinstance(old, Obj):
                    continue
                new = next((o for o in new_objects if derived(old, o)), None)
                if new is not None and new != old:
                    self._objects[id(bound)] = (old, new)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if id(original) in self._objects:  # a strategy object bound to a name a Trainer call uses
            old, new = self._objects[id(original)]
            edited = Edited([])
            updated = rebuilt(updated, old, new, _quote(original), edited)
            self._record_renames(original, edited)
            self._record_span(original)
            return updated
        if id(original) in self._dict_edits:
            return updated.with_changes(args=self._edit_dict_args(original, list(updated.args)))
        skip = self._trainer_call(original)
        if skip is None:
            return updated
        updated = self._migrate(original, updated, skip)
        return self._to_shim(original, updated) if id(original) in self._shimmed else updated

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> cst.BaseExpression:
        if id(original) not in self._dict_edits:
            return updated
        args = [_as_arg(element) for element in updated.elements]
        edited = self._edit_dict_args(original, args)
        return updated.with_changes(elements=[_as_element(arg, updated, args) for arg in edited])

    def _read_flags(
        self, call: cst.Call, args: Sequence[cst.Arg], quiet: bool = False
    ) -> dict[str, Value] | None:
        """The modelled flags among keyword ``args``; None (reported unless ``quiet``) when one is only known
        at run time."""
        flags: dict[str, Value] = {}
        for arg in args:
            key = arg.keyword.value if arg.keyword is not None else None
            if key not in MODELLED:
                continue
            value = read(arg.value, self._resolve, self._lightning_class)
            if isinstance(value, Unknown):
                if not quiet:
                    self._runtime(call, arg, f"`{key}={code(arg.value)}`: {value.reason}")
                return None
            flags[key] = value
        return flags

    def _migrate(self, original: cst.Call, updated: cst.Call, skip: int) -> cst.Call:
        splat = self._splats.get(id(original))
        if splat is not None and splat is not _NO_FLAGS:
            return updated  # decided with its `**` dict (see `_plan_splat`)
        flags = self._read_flags(original, [a for a in original.args[skip:] if not a.star])
        if not flags:
            return updated
        decision = self._decide(original, flags)
        if not isinstance(decision, Rewrite):
            return updated
        head, tail = list(updated.args[:skip]), list(updated.args[skip:])
        edited = edit_arguments(tail, flags, decision.flags, _quote(original))
        self._record_renames(original, edited)
        self._record_dropped(original, flags, decision.flags)
        self._record_span(original)
        return updated.with_changes(args=[*head, *edited.args])

    def _since(self, call: cst.Call) -> Version:
        """The oldest release the call can have been written for: the unified `lightning` package (its
        `lightning.pytorch` namespace) first shipped with 1.8. Narrowing the sources avoids asking for
        `--source-version` over differences between releases the code never ran on."""
        return LIGHTNING_PACKAGE if self._namespace(call) == "lightning.pytorch" else RELEASES[0]

    def _decide(self, call: cst.Call, flags: dict[str, Value]) -> Decision:
        """Plan ``call`` and report the outcome (the rewrite, or why there is none)."""
        position = self.get_metadata(PositionProvider, call).start
        decision = self._plan(call, flags)
        if isinstance(decision, Refusal):
            self.findings.append(
                Finding(position.line, position.column + 1, decision.code, decision.message, False)
            )
        elif isinstance(decision, Rewrite):
            self._report_rewrite(call, flags, decision, position.line, position.column + 1)
            if (position.line, position.column + 1) in self.leave:
                return Unchanged()
        return decision

    def _plan(self, call: cst.Call, flags: dict[str, Value]) -> Decision:
        decision = plan(flags, self.target, self.source, self.unsafe, self._since(call))
        if isinstance(decision, Refusal) and decision.code == "LM100":
            # written with `lightning` imports but old flags no `lightning` release took: an import rename
            # done before the flags; keep what the call did where it last ran
            decision = plan(flags, self.target, self.source, self.unsafe)
        return decision

    # --- `Trainer(**cfg)` -----------------------------------------------------------------------------------

    def _plan_splat(self, call: cst.Call, skip: int) -> object:
        """Decide a call that passes ``**something``: rewrite the dict it names when that dict is certain and
        used nowhere else; otherwise report. Returns ``_NO_FLAGS`` when the dict holds no modelled flag (the
        call is then migrated as if it had no ``**``)."""
        starred = [a for a in call.args[skip:] if a.star]
        explicit = self._read_flags(call, [a for a in call.args[skip:] if not a.star])
        if explicit is None:
            return _REPORTED
        source = self._dict_of(starred[0].value) if len(starred) == 1 and starred[0].star == "**" else None
        entries = _dict_entries(source) if source is not None else None
        if entries is None:
            self._runtime(
                call,
                starred[0],
                f"`{starred[0].star}{code(starred[0].value)}`: the flags it passes are only known at run time"
                " (or come from a dict that is also used elsewhere)",
            )
            return _REPORTED
        modelled = [a for a in entries if a.keyword is not None and a.keyword.value in MODELLED]
        if not modelled:
            return _NO_FLAGS
        flags = self._read_flags(call, modelled)
        if flags is None:
            return _REPORTED
        if explicit:
            merged = {**explicit, **flags}
            if isinstance(plan(merged, self.target, self.source, self.unsafe, self._since(call)), Unchanged):
                return _REPORTED
            self._report(
                starred[0],
                "LM101",
                f"`{code(starred[0].value)}` and the call both pass hardware/distribution flags; write them"
                " in one place and run lightning-migrate again",
            )
            return _REPORTED
        decision = self._decide(call, flags)
        if isinstance(decision, Rewrite):
            self._dict_edits[id(source)] = (call, flags, decision.flags)
        return _REPORTED

    def _dict_of(self, node: cst.BaseExpression) -> cst.Dict | cst.Call | None:
        """The dict display or ``dict(...)`` call ``node`` is, or names when the name is bound once to one and
        used only here (rewriting a dict shared with other code would change that code too)."""
        if isinstance(node, cst.Name):
            bound = self._binding(node, sole_use=True)
            if bound is None:
                return None
            node = bound
        if isinstance(node, cst.Dict):
            return node
        if isinstance(node, cst.Call) and "builtins.dict" in self._qualified(
            node.func, QualifiedNameSource.BUILTIN
        ):
            return node
        return None

    def _edit_dict_args(self, original: cst.CSTNode, args: list[cst.Arg]) -> list[cst.Arg]:
        call, old, new = self._dict_edits[id(original)]
        edited = edit_arguments(args, old, new, _quote(call))
        self._record_renames(call, edited)
        self._record_dropped(call, old, new)
        self._record_span(original)
        return edited.args

    def _record_dropped(self, call: cst.Call, old: dict[str, Value], new: dict[str, Value]) -> None:
        """Lightning classes the call no longer uses (a ``DDPPlugin()`` rebuilt as ``DDPStrategy(...)``)."""
        kept = {v.cls for v in _flat(new.values()) if isinstance(v, Obj)}
        gone = {v.cls for v in _flat(old.values()) if isinstance(v, Obj)} - kept
        for name in self._all_qualified(call):
            module, _, cls = name.rpartition(".")
            if cls in gone:
                self.imports.dropped.add((module, cls))
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
                            self.imports.dropped.add((module, alias))

    def _record_span(self, node: cst.CSTNode) -> None:
        where = self.get_metadata(PositionProvider, node)
        self.rewritten.append(((where.start.line, where.start.column), (where.end.line, where.end.column)))

    def _record_renames(self, call: cst.Call, edited: Edited) -> None:
        qualified = self._all_qualified(call)
        namespace = next(
            (p for p in PACKAGES for n in qualified if n.startswith(f"{p}.") and p != "lightning"), None
        )
        namespace = namespace or (
            "lightning.pytorch" if any(n.startswith("lightning.") for n in qualified) else "pytorch_lightning"
        )
        for old, new in edited.renamed.items():
            self.imports.renamed[old] = (namespace, new)
        for alias, new in edited.aliased.items():
            self.imports.aliased[alias] = (namespace, new)
        for cls in edited.built:
            self.built.setdefault(cls, namespace)

    def _all_qualified(self, call: cst.Call) -> set[str]:
        found: set[str] = set()
        values = [a.value for a in call.args]
        for value in list(values):  # the objects of a `plugins=[...]` list too
            if isinstance(value, (cst.List, cst.Tuple)):
                values.extend(element.value for element in value.elements)
        for node in (call.func, *values):
            found |= self._qualified(node)
            if isinstance(node, cst.Call):
                found |= self._qualified(node.func)
        return found

    def _runtime(self, call: cst.Call, node: cst.CSTNode, why: str) -> None:
        """Report a flag value only known at run time (LM101); with ``shim``, route the call through the
        runtime shim, which applies the migration when the Trainer is built."""
        if not self.shim:
            self._report(node, "LM101", f"{why}; use the runtime shim (`--shim`) or pass the flags literally")
            return
        module = SHIM_MODULES[self._namespace(call)]
        self._shimmed[id(call)] = module
        message = f"{why}; the call now builds `{module}.Trainer`, which migrates the flags at run time"
        self._report(node, "LM101", message, fixable=True)

    def _namespace(self, call: cst.Call) -> str:
        """``lightning.pytorch`` when the call names anything of the unified ``lightning`` package."""
        lightning = any(n.startswith("lightning.") for n in self._all_qualified(call))
        return "lightning.pytorch" if lightning else "pytorch_lightning"

    def _to_shim(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """``updated`` building the shim's Trainer instead of Lightning's (``Trainer(...)``,
        ``Trainer.from_argparse_args(...)``, ``partial(Trainer, ...)``)."""
        module = self._shimmed[id(original)]
        shim = cst.parse_expression(f"{module}.Trainer")
        for name in self._all_qualified(original):
            if name in TRAINER_NAMES:
                self.imports.dropped.add(tuple(name.rsplit(".", 1)))  # type: ignore[arg-type]
        self.shim_imports.add(module)
        if self._qualified(original.func) & TRAINER_NAMES:
            return updated.with_changes(func=shim)
        if isinstance(updated.func, cst.Attribute) and updated.func.attr.value == "from_argparse_args":
            return updated.with_changes(func=updated.func.with_changes(value=shim))
        first = updated.args[0].with_changes(value=shim)  # functools.partial(Trainer, ...)
        return updated.with_changes(args=[first, *updated.args[1:]])

    def _report(self, node: cst.CSTNode, rule: str, message: str, fixable: bool | None = None) -> None:
        start = self.get_metadata(PositionProvider, node).start
        fixed = BY_CODE[rule].fixable if fixable is None else fixable
        self.findings.append(Finding(start.line, start.column + 1, rule, message, fixed))

    def _report_rewrite(
        self, call: cst.Call, old: dict[str, Value], rewrite: Rewrite, line: int, column: int
    ) -> None:
        new = rewrite.flags
        rules: dict[str, str] = {}
        for key, value in old.items():
            if (new.get(key) == value and key in new) or key == "precision":
                continue  # a re-spelled precision is a note of the rewrite, not a rule of its own
            if key in new and is_default(key, value):
                continue  # `accelerator=None` given a device: part of the rewrite another rule asks for
            rule = FLAG_RULES.get(key, "LM006")
            if key == "accelerator" and isinstance(value, str) and value.lower() in DEVICE_NAMES:
                rule = "LM004"
            rules.setdefault(rule, key)
        kept = {v.cls for v in _flat(new.values()) if isinstance(v, Obj)}
        if any(
            isinstance(v, Obj) and v.cls.endswith("Plugin") and v.cls not in kept for v in _flat(old.values())
        ):
            rules.setdefault("LM005", "")  # a `*Plugin` class the rewrite renamed
        fix = ", ".join(f"{k}={v!r}" for k, v in new.items())
        for index, rule in enumerate(sorted(rules)):
            info = BY_CODE[rule]
            dates = f" (deprecated in {info.deprecated_in}, removed in {info.removed_in})"
            when = dates if info.removed_in else ""
            # the fix is the same for every rule the call breaks: say it once
            message = f"{info.title}{when}" + (f"; fix: {fix}" if index == 0 else "")
            if index == 0 and rewrite.notes:
                message += f" ({'; '.join(rewrite.notes)})"
            if index == 0 and rewrite.changes:
                message += f" (unsafe fix, changes behaviour: {'; '.join(rewrite.changes)})"
            self.findings.append(Finding(line, column, rule, message, True))


def _flat(values: Iterable[Value]) -> list[Value]:
    out: list[Value] = []
    for value in values:
        if isinstance(value, list):
            out.extend(_flat(value))
        else:
            out.append(value)
    return out


# Statements that hold other statements: where an assignment can be, short of expressions.
_BLOCKS = (
    cst.BaseSuite,
    cst.BaseCompoundStatement,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


def _assignments(module: cst.Module) -> dict[int, tuple[cst.BaseExpression, bool]]:
    """id(assigned Name) -> (the value, whether it is the only target) for every ``x = ...`` and
    ``x: T = ...`` statement: a walk over statements only, much cheaper than a parent map of every node."""
    found: dict[int, tuple[cst.BaseExpression, bool]] = {}
    stack: list[cst.CSTNode] = list(module.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in node.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            found[id(target.target)] = (small.value, len(small.targets) == 1)
                elif isinstance(small, cst.AnnAssign) and small.value and isinstance(small.target, cst.Name):
                    found[id(small.target)] = (small.value, True)
        elif isinstance(node, _BLOCKS):
            stack.extend(child for child in node.children if isinstance(child, (*_BLOCKS, cst.BaseStatement)))
    return found


def _dict_entries(node: cst.Dict | cst.Call) -> list[cst.Arg] | None:
    """A dict display or ``dict(...)`` call as keyword arguments, or None when a key is not a plain string."""
    if isinstance(node, cst.Call):
        return list(node.args) if all(a.keyword is not None and not a.star for a in node.args) else None
    args = [_as_arg(element) for element in node.elements]
    return None if any(a.keyword is None for a in args) else args


def _as_arg(element: cst.BaseDictElement) -> cst.Arg:
    """``"key": value`` as ``key=value`` (keyword None when the key is not an identifier string)."""
    key = None
    if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
        text = element.key.evaluated_value
        if isinstance(text, str) and text.isidentifier():
            key = cst.Name(text)
    value = element.value if isinstance(element, cst.DictElement) else cst.Name("_")
    return cst.Arg(value, keyword=key, comma=element.comma)


def _as_element(arg: cst.Arg, original: cst.Dict, args: list[cst.Arg]) -> cst.BaseDictElement:
    """An edited argument back as a dict entry, reusing the entry it came from (its key's quotes, spacing)."""
    for element, before in zip(original.elements, args):
        if arg.value is before.value and isinstance(element, cst.DictElement):
            assert arg.keyword is not None
            if before.keyword is not None and arg.keyword.value == before.keyword.value:
                return element.with_changes(comma=arg.comma)
            key = element.key.with_changes(value=_requote(element.key, arg.keyword.value))
            return element.with_changes(key=key, comma=arg.comma)
    assert arg.keyword is not None
    quote = next(
        (
            e.key.quote
            for e in original.elements
            if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
        ),
        '"',
    )
    return cst.DictElement(cst.SimpleString(f"{quote}{arg.keyword.value}{quote}"), arg.value, comma=arg.comma)


def _requote(key: cst.BaseExpression, text: str) -> str:
    quote = key.quote if isinstance(key, cst.SimpleString) else '"'
    prefix = key.prefix if isinstance(key, cst.SimpleString) else ""
    return f"{prefix}{quote}{text}{quote}"


def _quote(call: cst.Call) -> str:
    """The quote style the call already uses."""
    for node in call.args:
        if isinstance(node.value, cst.SimpleString):
            return '"' if node.value.quote.endswith('"') else "'"
    return '"'


def _fix_imports(module: cst.Module, migrator: _Migrator) -> tuple[cst.Module, set[str]]:
    fixed = fix_imports(module, migrator.imports)
    namespaces = {new: namespace for namespace, new in migrator.imports.renamed.values()}
    context = CodemodContext()
    for cls, namespace in {**{c: namespaces[c] for c in fixed.unplaced}, **migrator.built}.items():
        AddImportsVisitor.add_needed_import(context, new_module(namespace, cls), cls)
    for module_name, cls in migrator.imports.dropped:
        RemoveImportsVisitor.remove_unused_import(context, module_name, cls)
    for shim in migrator.shim_imports:
        AddImportsVisitor.add_needed_import(context, shim)
    # each visitor walks the whole module (RemoveImportsVisitor with a scope analysis): only when it has work
    module = fixed.module
    if context.scratch.get(AddImportsVisitor.CONTEXT_KEY):
        module = AddImportsVisitor(context).transform_module(module)
    if context.scratch.get(RemoveImportsVisitor.CONTEXT_KEY):
        module = RemoveImportsVisitor(context).transform_module(module)
    return module, fixed.still_used


def _other_uses(migrator: _Migrator, target: Version) -> dict[str, str]:
    """How the file's other uses of a class the rewrite renamed are renamed: by the class's own rename
    (``DDPSpawnPlugin`` -> ``DDPSpawnStrategy``; never to the class a rewritten call now builds, which may be
    another one, ``DDPStrategy(start_method="spawn")``), where the target has it."""
    renames = {}
    for old, (namespace, new) in migrator.imports.renamed.items():
        row = lookup(old)
        if row is None or not row.renamed_to or not _usable(row.renamed_to, target):
            continue
        renames[old] = row.renamed_to
        if row.renamed_to != new:
            migrator.built.setdefault(row.renamed_to, namespace)
    return renames


def _follow_stale_imports(stale: list[StaleImport], migrator: _Migrator, target: Version) -> None:
    """An imported ``*Plugin`` class the file uses follows its rename like one a rewritten call built (the
    import is replaced, the uses renamed, each use reported by ``_old_names_left``); an unused one is only
    reported (removing it could break a module that re-exports it)."""
    for imported in stale:
        if not imported.used:
            gone = "lacks it" if not _usable(imported.name, target) else "deprecates it"
            message = (
                f"`{imported.name}` is imported but not used here; Lightning {target} {gone}"
                + (f" (it is `{imported.new}`)" if _usable(imported.new, target) else "")
                + ": import the new class or remove the import"
            )
            migrator.findings.append(Finding(imported.line, imported.column, "LM005", message, False))
        elif imported.local != imported.name:
            if _usable(imported.new, target):
                migrator.imports.aliased.setdefault(imported.local, (imported.namespace, imported.new))
                message = f"`{imported.name} as {imported.local}` is `{imported.new}` in Lightning {target}"
                migrator.findings.append(Finding(imported.line, imported.column, "LM005", message, True))
            else:
                message = (
                    f"`{imported.name}` (as `{imported.local}`) is used here, but Lightning {target} has"
                    f" neither it nor `{imported.new}`; change its uses by hand"
                )
                migrator.findings.append(Finding(imported.line, imported.column, "LM005", message, False))
        else:
            migrator.imports.renamed.setdefault(imported.name, (imported.namespace, imported.new))


def _usable(cls: str, target: Version) -> bool:
    row = lookup(cls)
    return row is not None and row.exists_in(target) and not (row.stub_since and target >= row.stub_since)


def _old_names_left(source: str, names: set[str], migrator: _Migrator, target: Version) -> list[Finding]:
    """The other uses of a class the rewrite renamed (``isinstance(s, DDPPlugin)``, a subclass): renamed
    too where the target has the new class (a subclass may then need the new constructor's arguments), else
    reported, its import kept."""
    if not names:
        return []
    findings = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Name) or node.id not in names:
            continue
        where = (node.lineno, node.col_offset)
        if any(start <= where < end for start, end in migrator.rewritten):
            continue
        _, new = migrator.imports.renamed[node.id]
        row = lookup(node.id)
        new = row.renamed_to if row and row.renamed_to else new
        if _usable(new, target):
            message = (
                f"training-type `*Plugin` classes were renamed `*Strategy`: `{node.id}` is now `{new}` here"
                " too (a subclass may need the new constructor's arguments)"
            )
            findings.append(Finding(node.lineno, node.col_offset + 1, "LM005", message, True))
        else:
            message = (
                f"`{node.id}` is still used here and keeps its import, but Lightning {target} has neither it"
                f" nor `{new}`; change this use by hand"
            )
            findings.append(Finding(node.lineno, node.col_offset + 1, "LM005", message, False))
    return findings
