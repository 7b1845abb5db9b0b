"""Count the old Trainer hardware/distribution flags in a tree of real code, before and after the codemod.

    python benchmarks/census.py TREE --target-version 1.5 --target-version 1.7 --target-version 2.6
    python benchmarks/census.py TREE --after MIGRATED_COPY --target-version 2.6   # before -> after
    python benchmarks/census.py TREE --json > census.json
    python benchmarks/census.py MIGRATED_COPY --target-version 2.6 --shapes 15   # commonest leftovers

The count is independent of the codemod's planner: it reads the files with ``ast`` and judges each keyword
against the package's model tables only (``lightning_migrate.semantics.signature`` for the keywords a
release accepts or deprecates, ``registry`` for the strategy names it registers, ``classes`` for the
strategy classes and their ``*Plugin`` names).

What counts as a Trainer-like call: ``Trainer(...)``/``pl.Trainer(...)``/``L.Trainer(...)`` (any name or
attribute chain that the file's imports bind to ``pytorch_lightning``, ``lightning.pytorch`` or
``lightning``'s ``Trainer``, or a star import of one of them; ``pl`` that no import binds is taken for
``pytorch_lightning``), a Trainer subclass (a class of the same file that subclasses it, or
``flash.Trainer``, which hands its keywords on), ``Trainer.from_argparse_args(args, ...)``,
``functools.partial(Trainer, ...)`` and ``LightningCLI(..., trainer_defaults={...})``. A call of a bare
``Trainer`` that no import of the file binds is counted apart (``unbound``), and not judged. The flags of a
call are its keywords, the keys of a ``**d`` whose ``d`` is a dict display or ``dict(...)`` bound once in
the file (and ``d["key"] = value`` stores to that name in the same scope), and the keywords of an
``argparse.Namespace(...)`` passed to ``from_argparse_args``. Any other ``**x`` (and any other argparse
namespace) is *opaque*: its flags are only known at run time. In a file that calls ``from_argparse_args``,
``parser.set_defaults(gpus=2)`` and ``parser.add_argument("--gpus", default=...)`` of a Trainer flag are flags
of its first such call too, known only at run time (the command line can override them).

Per target release, a flag is old when it is:

- a keyword the release lacks or deprecates (``gpus=`` at 2.6: lacks; ``gpus=`` at 1.7: deprecates, and warns
  for any value but ``None``);
- ``accelerator=`` holding a training-type name (dp, ddp, ddp_cpu, tpu_spawn, any registered strategy
  alias), from 1.5;
- ``plugins=`` holding a strategy name or a strategy object (``DDPPlugin(...)``, ``DDPStrategy(...)``), alone
  or in a list, from 1.5;
- ``strategy=`` holding a ``*Plugin`` class (renamed ``*Strategy`` in 1.6), from 1.6; a strategy name the
  release does not register (``'dp'`` at 2.6); a strategy class the release no longer has.

Each old flag's value is *literal* (written at the call; a constructor call of a named class counts, its
class being known), *named* (a name bound only to such values in the file), *conditional* (an ``a if c else
b``, directly or through a name) or *run-time* (``args.gpus``, ``cfg.x``, a parameter, a call). An
``accelerator=``/``plugins=`` whose value is only known at run time, or a ``plugins=`` object of a class the
tables do not know (``RayPlugin``), cannot be judged: it is counted as *undecided*, not as old.

``--shapes N`` lists the N commonest shapes of calls with an old flag, one example each (with ``--after``: of
the migrated tree, at the line of the same call before the codemod ran). A shape is the call's form and its
old flags, each with the kind of its value: ``<str>``/``<int>``/``<list>``... (literal), ``<name:literal>``,
``<name:conditional>``, ``<ifexp>``, ``<attr>`` (``args.gpus``), ``<subscript>``, ``<param>``, ``<name>``,
``<call>``; a flag from a dict is spelled ``**{key: <kind>}``, one from argparse ``argparse --key``.

Keywords outside the model tables (``progress_bar_refresh_rate=``, ``resume_from_checkpoint=`` ...) are not
counted at all.

Reproducing the corpus numbers. The corpus is 80 public projects (2020-2023 commits written for Lightning
0.6-1.8), named with their commits in ``benchmarks/projects.tsv`` and fetched at run time by
``benchmarks/projects.py`` (nothing of them is committed here); this script only takes a path. With the
package installed in ``.venv`` (the census imports its model tables), from the repository root::

    .venv/bin/python benchmarks/projects.py /tmp/projects     # about a minute; 800 MB
    .venv/bin/python benchmarks/census.py /tmp/projects       # targets 1.5, 1.7, 2.6
    for t in 1.5 1.7 2.6; do
      copy=/tmp/projects-$t && rm -rf $copy && cp -r /tmp/projects $copy
      .venv/bin/lightning-migrate $copy --target-version $t -j 2 -q      # rewrites the copy in place
      .venv/bin/python benchmarks/census.py /tmp/projects --after $copy --target-version $t --shapes 15
      .venv/bin/lightning-migrate --check --output-format json /tmp/projects --target-version $t >$t.json
    done

Each census run takes a few seconds (the files are read once; those without ``Trainer``/``LightningCLI`` in
their text are not parsed).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from lightning_migrate.semantics import classes, registry, signature
from lightning_migrate.semantics.model import Version, v

PACKAGES = ("pytorch_lightning", "lightning.pytorch", "lightning")
TRAINER_QUALNAMES = frozenset(
    f"{package}.{path}Trainer" for package in PACKAGES for path in ("", "trainer.", "trainer.trainer.")
)
# Trainer subclasses of other packages that hand every keyword on to Lightning's Trainer.
SUBCLASS_QUALNAMES = frozenset({"flash.Trainer", "flash.core.trainer.Trainer"})
CLI_QUALNAMES = frozenset(
    f"{package}.{path}LightningCLI" for package in PACKAGES for path in ("", "cli.", "utilities.cli.")
)
ARGPARSE_API = ("add_argparse_args", "parse_argparser", "from_argparse_args")
ARGPARSE_REMOVED = v("2.0")
DEFAULT_TARGETS = ("1.5", "1.7", "2.6")
TRAINER_FLAGS = frozenset(signature.TRAINER_FLAGS)
FORMS = ("Trainer", "subclass", "from_argparse_args", "partial", "LightningCLI")

# Every release the tables describe, for the union of the strategy names any of them registers.
RELEASES = tuple(v(release) for release in ("1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "2.0", "2.1", "2.6"))
# Names that mean a training type (a strategy), whatever the release: what `accelerator=` held before 1.5.
TRAINING_TYPES = (
    frozenset(registry.DISTRIBUTED_TYPES)
    | {"ddp_cpu", "tpu_spawn"}
    | {name for release in RELEASES for name in registry.registered(release)}
)
STRATEGY_CLASSES = frozenset(row.name for row in classes.CLASSES if row.kind == classes.STRATEGY)
KNOWN_CLASSES = frozenset(row.name for row in classes.CLASSES)
ACCELERATOR_SINCE = v("1.5")  # a training type in `accelerator=` or `plugins=` is deprecated from 1.5
PLUGIN_CLASS_SINCE = v("1.6")  # the `*Plugin` training-type classes were renamed `*Strategy` in 1.6
STRATEGY_AUTO_SINCE = v("1.9.4")

LITERAL, NAMED, CONDITIONAL, RUNTIME = "literal", "named", "conditional", "run-time"
VALUE_CLASSES = (LITERAL, NAMED, CONDITIONAL, RUNTIME)


# --- reading a file ---------------------------------------------------------------------------------------


@dataclass(eq=False)
class Scope:
    kind: str  # module, function, class, comprehension
    parent: Scope | None
    # name -> bindings: ("value", expr, scope) for a single-target assignment, ("param",) or ("other",)
    bindings: dict[str, list[tuple[object, ...]]] = field(default_factory=lambda: defaultdict(list))
    # name -> [(key, value)] for `name["key"] = value`
    stores: dict[str, list[tuple[str, ast.expr]]] = field(default_factory=lambda: defaultdict(list))

    def lookup(self, name: str) -> tuple[list[tuple[object, ...]], Scope] | None:
        scope: Scope | None = self
        while scope is not None:
            if (scope.kind != "class" or scope is self) and name in scope.bindings:
                return scope.bindings[name], scope
            scope = scope.parent
        return None


@dataclass
class Imports:
    names: dict[str, str] = field(default_factory=dict)  # local name -> dotted name it is bound to
    star: set[str] = field(default_factory=set)  # modules star-imported

    @staticmethod
    def of(tree: ast.AST) -> Imports:
        imports = Imports()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        imports.names[alias.asname] = alias.name
                    else:
                        first = alias.name.split(".")[0]
                        imports.names[first] = first
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                for alias in node.names:
                    if alias.name == "*":
                        imports.star.add(module)
                    else:
                        imports.names[alias.asname or alias.name] = f"{module}.{alias.name}"
        return imports

    def qualified(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            if node.id in ("Trainer", "LightningCLI") and self.star & set(PACKAGES):
                return f"pytorch_lightning.{node.id}"
            if node.id == "pl":  # the conventional alias, reaching the file through a star import
                return "pytorch_lightning"
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return f"{base}.{node.attr}" if base else None
        return None


@dataclass
class Keyword:
    name: str
    value: ast.expr
    scope: Scope
    via: str  # "keyword", "dict" or "argparse"


@dataclass
class TrainerCall:
    path: str
    line: int
    form: str  # "Trainer", "from_argparse_args", "partial", "LightningCLI"
    text: str
    keywords: list[Keyword]
    opaque: int  # `**x` expansions (and argparse namespaces) whose flags are only known at run time


@dataclass
class FileReport:
    path: str
    parsed: bool = True
    calls: list[TrainerCall] = field(default_factory=list)
    unbound: list[tuple[int, str]] = field(default_factory=list)  # calls of a `Trainer` no import binds
    argparse_api: list[tuple[int, str]] = field(default_factory=list)  # Trainer.add_argparse_args & co


class _Walker(ast.NodeVisitor):
    """One walk: the scopes with their bindings, and every call with the scope it is evaluated in."""

    def __init__(self) -> None:
        self.scope = Scope("module", None)
        self.calls: list[tuple[ast.Call, Scope]] = []
        self.class_bases: list[tuple[str, list[ast.expr]]] = []

    def _bind(self, name: str, binding: tuple[object, ...]) -> None:
        self.scope.bindings[name].append(binding)

    def _enter(self, kind: str) -> Scope:
        outer = self.scope
        self.scope = Scope(kind, outer)
        return outer

    def _arguments(self, args: ast.arguments) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                self._bind(arg.arg, ("param",))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._bind(node.name, ("other",))
        for expr in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if expr is not None:
                self.visit(expr)
        outer = self._enter("function")
        self._arguments(node.args)
        for statement in node.body:
            self.visit(statement)
        self.scope = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for expr in [*node.args.defaults, *node.args.kw_defaults]:
            if expr is not None:
                self.visit(expr)
        outer = self._enter("function")
        self._arguments(node.args)
        self.visit(node.body)
        self.scope = outer

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._bind(node.name, ("other",))
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit(expr)
        self.class_bases.append((node.name, node.bases))
        outer = self._enter("class")
        for statement in node.body:
            self.visit(statement)
        self.scope = outer

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        self.visit(node.generators[0].iter)
        outer = self._enter("comprehension")
        for index, generator in enumerate(node.generators):
            if index:
                self.visit(generator.iter)
            self.visit(generator.target)
            for condition in generator.ifs:
                self.visit(condition)
        for child in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
            self.visit(child)
        self.scope = outer

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and len(node.targets) == 1:
                self._bind(target.id, ("value", node.value, self.scope))
                continue
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Name)
                and isinstance(target.slice, ast.Constant)
                and isinstance(target.slice.value, str)
            ):
                self.scope.stores[target.value.id].append((target.slice.value, node.value))
            self.visit(target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        if isinstance(node.target, ast.Name) and node.value is not None:
            self._bind(node.target.id, ("value", node.value, self.scope))
        else:
            self.visit(node.target)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._bind(node.id, ("other",))

    def visit_alias(self, node: ast.alias) -> None:
        if node.name != "*":
            self._bind(node.asname or node.name.split(".")[0], ("other",))

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._bind(node.name, ("other",))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.calls.append((node, self.scope))
        self.generic_visit(node)


@dataclass
class Static:
    """What can be told of a value before run time."""

    value_class: str  # LITERAL, NAMED, CONDITIONAL or RUNTIME
    token: str  # the shape of the value, for grouping calls: <str>, <attr>, <param> ...
    strings: frozenset[str] = frozenset()  # the strings it may be
    objects: frozenset[str] = frozenset()  # the classes of the objects it may be


_LITERAL_TOKENS = {str: "<str>", int: "<int>", bool: "<bool>", float: "<float>", type(None): "<None>"}


def _callee_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def static(node: ast.expr, scope: Scope, depth: int = 0) -> Static:
    if isinstance(node, ast.Constant):
        strings = frozenset({node.value.lower()}) if isinstance(node.value, str) else frozenset()
        return Static(LITERAL, _LITERAL_TOKENS.get(type(node.value), "<const>"), strings)
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return Static(LITERAL, "<int>")
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        parts = [static(element, scope, depth + 1) for element in node.elts]
        worst = max((VALUE_CLASSES.index(p.value_class) for p in parts), default=0)
        return Static(
            VALUE_CLASSES[worst],
            "<list>",
            frozenset().union(*(p.strings for p in parts)),
            frozenset().union(*(p.objects for p in parts)),
        )
    if isinstance(node, ast.Call):
        name = _callee_name(node.func)
        if name and name[:1].isupper() and (name.endswith(("Plugin", "Strategy")) or name in KNOWN_CLASSES):
            return Static(LITERAL, f"{name}(...)", objects=frozenset({name}))
        return Static(RUNTIME, "<call>")
    if isinstance(node, ast.IfExp):
        parts = [static(branch, scope, depth + 1) for branch in (node.body, node.orelse)]
        return Static(
            CONDITIONAL,
            "<ifexp>",
            parts[0].strings | parts[1].strings,
            parts[0].objects | parts[1].objects,
        )
    if isinstance(node, ast.Name):
        found = scope.lookup(node.id)
        if found is None or depth > 4:
            return Static(RUNTIME, "<name>")
        bindings, _ = found
        if any(binding[0] == "param" for binding in bindings):
            return Static(RUNTIME, "<param>")
        if not all(binding[0] == "value" for binding in bindings):
            return Static(RUNTIME, "<name>")
        parts = [static(binding[1], binding[2], depth + 1) for binding in bindings]
        if any(p.value_class == RUNTIME for p in parts):
            return Static(RUNTIME, "<name>")
        conditional = any(p.value_class == CONDITIONAL for p in parts) or len(parts) > 1
        return Static(
            CONDITIONAL if conditional else NAMED,
            "<name:conditional>" if conditional else "<name:literal>",
            frozenset().union(*(p.strings for p in parts)),
            frozenset().union(*(p.objects for p in parts)),
        )
    if isinstance(node, ast.Attribute):
        return Static(RUNTIME, "<attr>")
    if isinstance(node, ast.Subscript):
        return Static(RUNTIME, "<subscript>")
    return Static(RUNTIME, f"<{type(node).__name__.lower()}>")


def _segment(text: str, node: ast.AST) -> str:
    segment = ast.get_source_segment(text, node) or ""
    segment = " ".join(segment.split())
    return segment if len(segment) <= 240 else segment[:237] + "..."


def _dict_keywords(node: ast.expr, scope: Scope, depth: int = 0) -> tuple[list[Keyword], int]:
    """The flags of ``**node`` (or of an argparse namespace), and how many parts of it stay opaque."""
    if isinstance(node, ast.Dict):
        found: list[Keyword] = []
        opaque = 0
        for key, value in zip(node.keys, node.values):
            if key is None:
                more, more_opaque = _dict_keywords(value, scope, depth + 1)
                found += more
                opaque += more_opaque
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                found.append(Keyword(key.value, value, scope, "dict"))
            else:
                opaque += 1
        return found, opaque
    if isinstance(node, ast.Call) and _callee_name(node.func) in ("dict", "Namespace"):
        found = [Keyword(k.arg, k.value, scope, "dict") for k in node.keywords if k.arg]
        opaque = 0
        for argument in [*node.args, *(k.value for k in node.keywords if k.arg is None)]:
            more, more_opaque = _dict_keywords(argument, scope, depth + 1)
            found += more
            opaque += more_opaque
        return found, opaque
    if isinstance(node, ast.Name) and depth < 4:
        looked_up = scope.lookup(node.id)
        if looked_up is None:
            return [], 1
        bindings, owner = looked_up
        # several bindings (one per branch, or one per part of a long function): the last one above the use,
        # with the stores between it and the use
        values = [b[1] for b in bindings if b[0] == "value"]
        above = [value for value in values if value.lineno <= node.lineno]
        start = above[-1].lineno if above else 0
        stored = [
            Keyword(key, value, owner, "dict")
            for key, value in owner.stores.get(node.id, ())
            if start <= value.lineno <= node.lineno
        ]
        if above and len(values) == len(bindings):
            found, opaque = _dict_keywords(above[-1], owner, depth + 1)
            return found + stored, opaque
        return stored, 1
    return [], 1


@dataclass
class _Resolver:
    """Which callees of one file build a Lightning Trainer."""

    imports: Imports
    subclasses: set[str]

    @staticmethod
    def of(imports: Imports, class_bases: list[tuple[str, list[ast.expr]]]) -> _Resolver:
        resolver = _Resolver(imports, set())
        changed = True
        while changed:  # a class of this file that subclasses the Trainer (or such a class) is a Trainer too
            changed = False
            for name, bases in class_bases:
                if name not in resolver.subclasses and any(resolver.is_trainer(b) for b in bases):
                    resolver.subclasses.add(name)
                    changed = True
        return resolver

    def is_subclass(self, node: ast.expr) -> bool:
        local = isinstance(node, ast.Name) and node.id in self.subclasses
        return local or self.imports.qualified(node) in SUBCLASS_QUALNAMES

    def is_trainer(self, node: ast.expr) -> bool:
        return self.is_subclass(node) or self.imports.qualified(node) in TRAINER_QUALNAMES

    def form(self, call: ast.Call) -> tuple[str | None, list[ast.keyword], ast.expr | None]:
        """The call's form (None: not a Trainer-like call), the keywords holding its flags, and the argparse
        namespace whose attributes are flags too."""
        func = call.func
        qualified = self.imports.qualified(func)
        if self.is_trainer(func):
            return "subclass" if self.is_subclass(func) else "Trainer", call.keywords, None
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "from_argparse_args"
            and self.is_trainer(func.value)
        ):
            return "from_argparse_args", call.keywords, call.args[0] if call.args else None
        if qualified == "functools.partial" and call.args and self.is_trainer(call.args[0]):
            return "partial", call.keywords, None
        if qualified in CLI_QUALNAMES:
            defaults = [k.value for k in call.keywords if k.arg == "trainer_defaults"]
            if defaults:
                return "LightningCLI", [ast.keyword(arg=None, value=defaults[0])], None
        return None, [], None


def read_file(path: Path, root: Path) -> FileReport:
    relative = str(path.relative_to(root)) if path != root else path.name
    report = FileReport(relative)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        report.parsed = False
        return report
    if "Trainer" not in text and "LightningCLI" not in text:
        return report
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        report.parsed = False
        return report
    imports = Imports.of(tree)
    walker = _Walker()
    walker.visit(tree)
    resolver = _Resolver.of(imports, walker.class_bases)
    for call, scope in walker.calls:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in ARGPARSE_API and resolver.is_trainer(func.value):
            report.argparse_api.append((call.lineno, func.attr))
        form, keywords, namespace = resolver.form(call)
        if form is None:
            if isinstance(func, ast.Name) and func.id == "Trainer" and "Trainer" not in imports.names:
                report.unbound.append((call.lineno, _segment(text, call)))
            continue
        found: list[Keyword] = []
        opaque = 0
        for keyword in keywords:
            if keyword.arg is not None:
                found.append(Keyword(keyword.arg, keyword.value, scope, "keyword"))
            else:
                more, more_opaque = _dict_keywords(keyword.value, scope)
                found += more
                opaque += more_opaque
        if namespace is not None:  # `from_argparse_args(args)`: every flag of the namespace
            more, more_opaque = _dict_keywords(namespace, scope)
            found += more
            opaque += more_opaque
        report.calls.append(TrainerCall(relative, call.lineno, form, _segment(text, call), found, opaque))
    namespaced = [call for call in report.calls if call.form == "from_argparse_args"]
    if namespaced:  # flags that reach the namespace through argparse: given to the first such call
        namespaced[0].keywords += _argparse_flags(walker.calls)
    return report


def _argparse_flags(calls: list[tuple[ast.Call, Scope]]) -> list[Keyword]:
    """``parser.set_defaults(gpus=2)`` and ``parser.add_argument("--gpus", default=2)`` of a Trainer flag."""
    found = []
    for call, scope in calls:
        if not isinstance(call.func, ast.Attribute):
            continue
        if call.func.attr == "set_defaults":
            found += [
                Keyword(k.arg, k.value, scope, "argparse") for k in call.keywords if k.arg in TRAINER_FLAGS
            ]
        elif call.func.attr == "add_argument" and call.args and isinstance(call.args[0], ast.Constant):
            name = str(call.args[0].value).lstrip("-").replace("-", "_")
            if name in TRAINER_FLAGS:
                default = [k.value for k in call.keywords if k.arg == "default"]
                found.append(Keyword(name, default[0] if default else ast.Constant(None), scope, "argparse"))
    return found


def python_files(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(directory) / name


def read_tree(root: Path) -> list[FileReport]:
    return [read_file(path, root) for path in python_files(root)]


# --- judging the flags for a release ----------------------------------------------------------------------


@dataclass
class OldFlag:
    path: str
    line: int
    keyword: str
    kind: str
    value_class: str
    token: str
    via: str


def _strategy_known(name: str, target: Version) -> bool:
    if name in registry.registered(target) or (name == "auto" and target >= STRATEGY_AUTO_SINCE):
        return True
    return target < v("1.6") and name in {*registry.DISTRIBUTED_TYPES, "ddp_cpu"}


def _was_known(name: str, target: Version) -> bool:
    return any(release < target and _strategy_known(name, release) for release in RELEASES)


def judge(keyword: Keyword, target: Version) -> tuple[str | None, Static]:
    """The kind of old usage ``keyword`` is at ``target`` (None: current usage; "?...": undecided)."""
    name = keyword.name
    value = static(keyword.value, keyword.scope)
    if keyword.via == "argparse":  # a default the command line can override
        value = replace(value, value_class=RUNTIME, token="<argparse>")
    if name in signature.TRAINER_FLAGS and not signature.accepts(name, target):
        return f"{name}= (removed)", value
    deprecated = signature.DEPRECATED_KEYWORDS.get(name)
    # a release that still has the keyword warns for every value but None (its default)
    if deprecated is not None and deprecated <= target and value.token != "<None>":
        return f"{name}= (deprecated)", value
    if name == "accelerator" and target >= ACCELERATOR_SINCE:
        if value.strings & TRAINING_TYPES:
            return "accelerator=<training type>", value
        if value.value_class == RUNTIME or (value.value_class == CONDITIONAL and not value.strings):
            return "?accelerator=<run-time>", value
    if name == "plugins" and target >= ACCELERATOR_SINCE:
        if value.strings & TRAINING_TYPES or value.objects & STRATEGY_CLASSES:
            return "plugins=<strategy>", value
        unknown = {o for o in value.objects if o not in KNOWN_CLASSES}
        if value.value_class == RUNTIME or unknown:
            return "?plugins=<run-time or unknown class>", value
    if name == "strategy":
        if target >= PLUGIN_CLASS_SINCE and value.objects & classes.RENAMED_STRATEGIES:
            return "strategy=<*Plugin class>", value
        # a class or name the release no longer has (one it does not have yet is not old usage)
        gone = {
            o
            for o in value.objects & STRATEGY_CLASSES
            if (row := classes.lookup(o)) is not None and row.until is not None and row.until <= target
        }
        if gone:
            return "strategy=<class the release lacks>", value
        if any(
            s in TRAINING_TYPES and not _strategy_known(s, target) and _was_known(s, target)
            for s in value.strings
        ):
            return "strategy=<name the release lacks>", value
    return None, value


@dataclass
class Census:
    target: str
    files: int = 0
    unparsable: int = 0
    files_with_calls: int = 0
    calls: int = 0
    forms: Counter[str] = field(default_factory=Counter)
    unbound_calls: int = 0
    opaque_calls: int = 0
    argparse_api: int = 0
    files_with_old: int = 0
    calls_with_old: int = 0
    old_flags: int = 0
    kinds: dict[str, Counter[str]] = field(default_factory=dict)
    undecided: Counter[str] = field(default_factory=Counter)
    flags: list[OldFlag] = field(default_factory=list)
    shapes: Counter[str] = field(default_factory=Counter)
    examples: dict[str, TrainerCall] = field(default_factory=dict)


def shape(call: TrainerCall, old: list[tuple[Keyword, Static]]) -> str:
    callee = {
        "Trainer": "Trainer({})",
        "subclass": "SubclassOfTrainer({})",
        "from_argparse_args": "Trainer.from_argparse_args(ns, {})",
        "partial": "partial(Trainer, {})",
        "LightningCLI": "LightningCLI(trainer_defaults={{{}}})",
    }[call.form]
    spelled = {"keyword": "{}={}", "dict": "**{{{}: {}}}", "argparse": "argparse --{}{}"}
    parts = sorted({spelled[k.via].format(k.name, "" if k.via == "argparse" else s.token) for k, s in old})
    if call.opaque:
        parts.append("**<run-time>")
    return callee.format(", ".join(parts))


def count(reports: Iterable[FileReport], target_text: str) -> Census:
    target = v(target_text)
    census = Census(target_text)
    for report in reports:
        census.files += 1
        census.unparsable += not report.parsed
        census.unbound_calls += len(report.unbound)
        if target >= ARGPARSE_REMOVED:
            census.argparse_api += len(report.argparse_api)
        if report.calls:
            census.files_with_calls += 1
        file_old = False
        for call in report.calls:
            census.calls += 1
            census.forms[call.form] += 1
            census.opaque_calls += call.opaque > 0
            old: list[tuple[Keyword, Static]] = []
            for keyword in call.keywords:
                kind, value = judge(keyword, target)
                if kind is None:
                    continue
                if kind.startswith("?"):
                    census.undecided[kind[1:]] += 1
                    continue
                old.append((keyword, value))
                census.old_flags += 1
                census.kinds.setdefault(kind, Counter())[value.value_class] += 1
                census.flags.append(
                    OldFlag(
                        call.path, call.line, keyword.name, kind, value.value_class, value.token, keyword.via
                    )
                )
            if old:
                census.calls_with_old += 1
                file_old = True
                key = shape(call, old)
                census.shapes[key] += 1
                census.examples.setdefault(key, call)
        census.files_with_old += file_old
    return census


# --- output -----------------------------------------------------------------------------------------------


def summary(census: Census) -> dict[str, object]:
    numbers = ("files", "unparsable", "files_with_calls", "calls", "unbound_calls", "opaque_calls")
    numbers += ("argparse_api", "files_with_old", "calls_with_old", "old_flags")
    data: dict[str, object] = {"target": census.target, **{name: getattr(census, name) for name in numbers}}
    data["forms"] = dict(census.forms)
    data["kinds"] = {
        kind: {**{c: counts[c] for c in VALUE_CLASSES}, "total": sum(counts.values())}
        for kind, counts in sorted(census.kinds.items())
    }
    data["undecided"] = dict(census.undecided)
    data["known_at_call"] = sum(c[LITERAL] + c[NAMED] for c in census.kinds.values())
    data["conditional"] = sum(c[CONDITIONAL] for c in census.kinds.values())
    data["run_time"] = sum(c[RUNTIME] for c in census.kinds.values())
    data["shapes"] = [
        {"shape": key, "calls": n, "example": _example(census.examples[key])}
        for key, n in census.shapes.most_common()
    ]
    data["flags"] = [asdict(flag) for flag in census.flags]
    return data


def _rows(census: Census) -> dict[str, str]:
    def by_class(counts: Counter[str]) -> str:
        return f"{sum(counts.values())} ({'/'.join(str(counts[c]) for c in VALUE_CLASSES)})"

    everything: Counter[str] = Counter()
    for counts in census.kinds.values():
        everything.update(counts)
    rows = {
        "python files": census.files,
        "  unparsable (not Python 3)": census.unparsable,
        "files with a Trainer-like call": census.files_with_calls,
        "Trainer-like calls": census.calls,
        **{f"  {form}": census.forms[form] for form in FORMS},
        "  with **kwargs known only at run time": census.opaque_calls,
        "calls of a Trainer no import binds (not judged)": census.unbound_calls,
        "files with an old flag": census.files_with_old,
        "calls with an old flag": census.calls_with_old,
        f"old flags, total ({'/'.join(VALUE_CLASSES)})": by_class(everything),
    }
    for kind in sorted(census.kinds, key=lambda k: (-sum(census.kinds[k].values()), k)):
        rows[f"  {kind}"] = by_class(census.kinds[kind])
    for kind, n in sorted(census.undecided.items()):
        rows[f"undecided {kind}"] = n
    if v(census.target) >= ARGPARSE_REMOVED:
        rows["Trainer argparse API uses (removed in 2.0)"] = census.argparse_api
    return {label: str(value) for label, value in rows.items()}


def table(before: Census, after: Census | None = None) -> str:
    lines = [f"target {before.target}" + ("" if after is None else ": before -> after")]
    left = _rows(before)
    right = _rows(after) if after is not None else {}
    labels = [*left, *(label for label in right if label not in left)]
    width = max(len(label) for label in labels) + 2
    for label in labels:
        if after is None:
            lines.append(f"  {label:<{width}} {left[label]}")
        else:
            lines.append(f"  {label:<{width}} {left.get(label, '0'):>18} -> {right.get(label, '0')}")
    return "\n".join(lines)


def _example(call: TrainerCall) -> str:
    return f"{call.path}:{call.line}: {call.text}"


def same_calls_before(after: Census, before: Iterable[FileReport]) -> None:
    """Point the examples of ``after`` (a migrated copy) at the same call in the tree before the codemod ran:
    the codemod may have moved the lines of a call it left alone."""
    lines = {(call.path, call.text): call.line for report in before for call in report.calls}
    for key, call in after.examples.items():
        line = lines.get((call.path, call.text))
        if line is not None:
            after.examples[key] = replace(call, line=line)


def shapes_markdown(census: Census, limit: int) -> str:
    lines = [f"## Target {census.target}: the {limit} commonest call shapes with an old flag", ""]
    lines += ["| # | calls | shape | example |", "|---|---|---|---|"]
    for index, (key, n) in enumerate(census.shapes.most_common(limit), 1):
        example = _example(census.examples[key]).replace("|", "\\|")
        lines.append(f"| {index} | {n} | `{key.replace('|', '/')}` | `{example}` |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path, help="a folder (or one file) of Python code")
    parser.add_argument(
        "--target-version",
        action="append",
        dest="targets",
        help=f"Lightning release to judge against, X.Y (repeatable; default {', '.join(DEFAULT_TARGETS)})",
    )
    parser.add_argument("--after", type=Path, help="the tree after the codemod ran: before -> after")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--shapes", type=int, default=0, help="list the N commonest call shapes (markdown)")
    options = parser.parse_args(argv)
    targets = options.targets or list(DEFAULT_TARGETS)
    for target in targets:
        v(target)  # raises on a malformed version
    before = read_tree(options.tree)
    after = read_tree(options.after) if options.after else None
    results = {t: (count(before, t), count(after, t) if after is not None else None) for t in targets}
    for _, migrated in results.values():
        if migrated is not None:
            same_calls_before(migrated, before)
    if options.json:
        out: dict[str, object] = {"tree": str(options.tree), "after": str(options.after or "")}
        out["targets"] = {
            t: {"before": summary(b), **({"after": summary(a)} if a is not None else {})}
            for t, (b, a) in results.items()
        }
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    for b, a in results.values():
        print(table(b, a))
        if options.shapes:
            print()
            print(shapes_markdown(a if a is not None else b, options.shapes))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
