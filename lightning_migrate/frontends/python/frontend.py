"""The Python front end: locate a file's Trainer calls with ``ast``, decide each as a call site, and hand the
rewrites to the applier (``apply``: LibCST, only where the edits are); report what cannot be rewritten
safely."""

from __future__ import annotations

import ast
import bisect
import functools
import itertools
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from lightning_migrate.edit.imports import ImportChanges, StaleImport, stale_imports
from lightning_migrate.edit.slots import SLOTS
from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Text, tree_of
from lightning_migrate.frontends.python import cli_api, dict_keys, reaching, unpacked_keys
from lightning_migrate.frontends.python.callbacks import callbacks_of, is_callback
from lightning_migrate.frontends.python.namespaces import counterexample
from lightning_migrate.frontends.python.objects import same_strategy
from lightning_migrate.frontends.python.resume import never_fits, sole_fit
from lightning_migrate.plan import domains, gone, rejected
from lightning_migrate.plan.ast_values import Reader, Unknown, bound_arguments, dict_entries
from lightning_migrate.plan.callsite import (
    LIGHTNING_PACKAGE,
    NAMESPACE,
    UNPACKED,
    CallSite,
    Run,
    flat,
    rewrite_findings,
)
from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.knowledge import Choice, Known, RunTime, holes, key_of, keywords, written_values
from lightning_migrate.plan.locate import TRAINER_NAMES, Located, Scope, TrainerCall, locate, trainer_skip
from lightning_migrate.plan.planner import (
    PLANNED_FLAGS,
    V16,
    Decision,
    Refusal,
    Rewrite,
    Unchanged,
    changed_keyword,
    derived,
)
from lightning_migrate.plan.ranges import NOTHING_IMPORTED, Imported, RunTimeReader
from lightning_migrate.plan.trainers import (
    NO_SUBCLASSES,
    SHIM_KEEPS,
    SHIM_MODULES,
    RunSubclasses,
    shim_takes,
    shim_unbuilt,
)
from lightning_migrate.project import script_options
from lightning_migrate.project.lightning_cli import CLIDefaults
from lightning_migrate.project.loaded_configs import NO_LOADED, Apart, LoadedConfigs
from lightning_migrate.report.findings import SHIM, UNSAFE_FIXES, Finding, Result, with_details
from lightning_migrate.report.findings import written as cut
from lightning_migrate.report.rules import BY_CODE
from lightning_migrate.semantics.classes import RENAMED_STRATEGIES, lookup
from lightning_migrate.semantics.model import RELEASES, Obj, Value, Version
from lightning_migrate.semantics.signature import (
    LAST_REMOVAL,
    MODELLED,
    REMOVED_METHODS,
    SHIM_METHODS,
    accepts,
    current,
    is_default,
)
from lightning_migrate.semantics.translate import REFERENCE

if TYPE_CHECKING:
    import libcst as cst

    from lightning_migrate.edit.call import Edited

NO_CLI_WORK = cli_api.Work()
_REPORTED, _NO_FLAGS = object(), object()  # how a call with `**` was decided
_RESUME = "resume_from_checkpoint"  # moved to the `.fit(` call (``resume``)

# The refusals of a call with run-time values that the runtime shim settles with the values it gets.
_SHIMMED = frozenset({"LM101", "LM102"})


def migrate(
    source: str,
    target: Version,
    source_version: Version | None = None,
    unsafe: bool = False,
    leave: frozenset[tuple[int, int]] = frozenset(),
    shim: bool = False,
    subclasses: RunSubclasses = NO_SUBCLASSES,
    path: Path | None = None,
    clis: Sequence[CLIDefaults] = (),
    loaded: LoadedConfigs = NO_LOADED,
    floor: Version = RELEASES[0],
    starred: tuple[tuple[str, str], ...] = (),
    width: int | None = None,
    pinned: bool = False,
    pieces: bool = False,
) -> Result:
    """Rewrite ``source`` (a whole Python file) for Lightning ``target``; with ``unsafe``, in the idiomatic
    modern spelling even where it adopts a changed default (each such finding says what changes). The calls
    at the (line, column) positions in ``leave`` are reported but not rewritten (``# noqa``). With ``shim``,
    a call whose flags are only known at run time builds the runtime shim's Trainer instead. ``subclasses``:
    the Trainer subclasses the other files of the run define (their calls are Trainer calls too). ``path``:
    where the file is, to read the argparse parsers the project's other modules build for it; ``clis``: the
    file's LightningCLI calls whose ``trainer_defaults`` the run judged with their configs; ``loaded``: the
    calls of the file whose ``**`` section of a loaded config the run settles; ``floor``: the oldest release
    the project requires (``Run.floor``); ``starred``: the names star imports of the project's modules bind
    in it (else those ``subclasses`` knows for ``path``); ``width``: the line length a one-line call made
    longer is wrapped past (None: never); ``pinned``: ``source_version`` is the project's pin
    (``Run.pinned``); ``pieces``: ``source`` is pieces of code joined (a notebook's cells, a document's code
    blocks), whose context the run does not see: no import of a module the file lacks is added."""
    tree = _parse(source)
    text = Text(source)
    located = locate(tree, text, subclasses, starred or subclasses.starred_in(path))
    imported = functools.partial(script_options.imported, path) if path is not None else _nothing_imported
    migrator = _Migrator(
        text, located, Run(target, source_version, unsafe, leave, floor, pinned), shim, imported
    )
    migrator.cli_defaults(clis)
    if "trainer_defaults" in source and (
        "LightningCLI" in source or cli_api.may_concern(source, subclasses.cli)
    ):
        migrator.cli_keys(cli_api.cli_calls(located, subclasses.cli))
    where = path if path is not None else Path("-")
    migrator.package_init = where.name == "__init__.py"
    migrator.may_import_torch = not pieces
    migrator.loaded = lambda call: loaded.verdict(where, call.lineno, call.col_offset)
    migrator.loaded_reason = lambda call: loaded.reason(where, call.lineno, call.col_offset)
    migrator.loaded_apart = lambda call: loaded.apart_of(where, call.lineno, call.col_offset)
    migrator.run()
    cli = NO_CLI_WORK
    if cli_api.may_concern(
        source, subclasses.cli
    ):  # LightningCLI's own API (LM008): its call edits go with the others
        cli = cli_api.examine(located, text, target, leave, subclasses.cli)
        migrator.edits.extend(cli.edits)
        migrator.findings.extend(cli.findings)
    kept: set[str] = set()
    if "Plugin" in source:  # the renamed classes are all `*Plugin`s
        stale = stale_imports(_plain_imports(located), located.names, target)
        if target >= V16:
            kept = _unrenamable(located, migrator, target, {i.local: i.name for i in stale})
        held, shim_held = _held(located, migrator)
        _follow_stale_imports(stale, migrator, target, held, kept, shim_held)
    new_code = source
    if migrator.edits or migrator.imports or migrator.built or migrator.shim_imports:
        # the applier, and LibCST with it, is imported only for a file with something to write
        from lightning_migrate.edit import apply

        new_code = apply.write(text, migrator.edits, width)
    if migrator.imports or migrator.built or migrator.shim_imports or migrator.torch_imported:
        renames = _other_uses(migrator, target, kept)
        new_code, still_used = apply.write_imports(
            new_code,
            migrator.imports,
            migrator.built,
            migrator.shim_imports,
            renames,
            ("torch",) if migrator.torch_imported else (),
        )
        names = set(renames) | still_used
        migrator.findings.extend(_old_names_left(located, names, migrator, target, kept))
    new_code = cli_api.rewrite_imports(new_code, cli.imports)
    if new_code != source:
        _check_parses(new_code)
    findings = sorted(migrator.findings, key=lambda f: (f.line, f.column, f.code))
    return Result(new_code, findings, located.call_spans())


def _nothing_imported() -> Imported:
    return NOTHING_IMPORTED


def _parse(source: str) -> ast.Module:
    """The file's tree; a file Python cannot read is a ``SourceError`` in Python's own words (exact position,
    familiar message) or, where only this Python is too old for it, one that says so."""
    try:
        return depth.parse(source)  # (too deep: a SourceError before LibCST sees it)
    except (SyntaxError, ValueError) as exc:
        null = source.find("\0")
        if null >= 0:  # no Python reads it: say so, not that another Python might
            text = Text(source)
            line = bisect.bisect_right(text.starts, null)
            raise SourceError("source contains a null byte", line, null - text.starts[line - 1] + 1) from exc
        from lightning_migrate.edit import apply  # LibCST's verdict: is the code newer than this Python?

        broken = apply.syntax_error(source)
        if broken is None:
            version = ".".join(map(str, sys.version_info[:2]))
            message = f"cannot parse with Python {version}: {getattr(exc, 'msg', exc)}; run lightning-migrate"
            where = (getattr(exc, "lineno", None) or 0, getattr(exc, "offset", None) or 0)
            raise SourceError(f"{message} with the Python this code is written for", *where) from exc
        if isinstance(exc, SyntaxError):
            raise SourceError(f"cannot parse: {exc.msg}", exc.lineno or 0, exc.offset or 0) from exc
        raise SourceError(f"cannot parse: {broken[0]}", broken[1], broken[2]) from exc  # e.g. a null byte


def _check_parses(code: str) -> None:
    """Never hand out code that does not parse."""
    tree_of(code)


@dataclass(frozen=True)
class _Arg:
    """One argument of a call as written: ``keyword=value``, a positional ``value``, ``*value`` or
    ``**value`` (``node``: what its position is, the keyword or the starred node)."""

    keyword: str | None
    star: str
    value: ast.expr
    node: ast.expr | ast.keyword


def _arguments(call: ast.Call) -> list[_Arg]:
    """The arguments of ``call`` in the order they are written."""
    args = [
        _Arg(None, "*", a.value, a) if isinstance(a, ast.Starred) else _Arg(None, "", a, a) for a in call.args
    ]
    args += [_Arg(k.arg, "" if k.arg else "**", k.value, k) for k in call.keywords]
    return sorted(args, key=lambda a: (a.node.lineno, a.node.col_offset))


def _flag_arguments(call: TrainerCall) -> list[_Arg]:
    """The arguments of ``call`` that may be flags: past its leading ones, none a keyword its callee (a
    Trainer subclass) takes itself and hands to Lightning under no name of its (``trainers.swallowed``)."""
    return [
        a for a in _arguments(call.node)[call.skip :] if a.keyword is None or a.keyword not in call.swallowed
    ]


def _names_in(node: ast.expr) -> list[ast.Name]:
    """The bare names an argument value is made of: ``ddp`` or the items of ``[ddp, env]``."""
    items = list(node.elts) if isinstance(node, (ast.List, ast.Tuple)) else [node]
    items = [item.value if isinstance(item, ast.Starred) else item for item in items]
    return [item for item in items if isinstance(item, ast.Name)]


def _post_order(text: Text, nodes: Iterable[ast.expr]) -> list[ast.expr]:
    """Nodes in the order a transformer leaves them: inner before outer, then in source order."""
    return sorted(nodes, key=lambda n: (text.end(n), -text.start(n)))


@dataclass(frozen=True)
class _DictEdit:
    node: ast.Dict | ast.Call
    call: TrainerCall
    old: dict[str, Known]
    new: dict[str, Known]


class _Migrator:
    def __init__(
        self,
        text: Text,
        located: Located,
        run_options: Run,
        shim: bool,
        imported: Callable[[], Imported] = _nothing_imported,
    ) -> None:
        self.text = text
        self.located = located
        self.reader = Reader(located, text)
        self.ranges = RunTimeReader(located, self.reader, text, imported)
        self.run_options = run_options
        self.shim = shim
        self.package_init = False  # the file is a package's `__init__.py` (its imports are exports)
        self.shim_imports: set[str] = set()  # shim modules the file now imports
        # a rewrite may add `import torch` for its test of the machine's GPU count (``_machine``): a file of
        # its own (not a notebook's cells or a document's code, whose context the run does not see)
        self.may_import_torch = False
        self.torch_imported = False  # a rewrite tests the machine with the `import torch` it adds
        self._shimmed: dict[int, str] = {}  # id(call) -> the shim module whose Trainer it builds
        self.findings: list[Finding] = []
        self.edits: list[
            tuple[ast.Call | ast.Dict, str, Callable[[cst.CSTNode, cst.CSTNode], cst.CSTNode]]
        ] = []
        self.imports = ImportChanges()  # imports to rewrite: renamed classes, kept aliases, unused names
        self.built: dict[str, str] = {}  # class of an object written from scratch -> namespace
        # id(call building a bound object) -> (the call, its scope, the object, the object it becomes)
        self._objects: dict[int, tuple[ast.Call, Scope, Obj, Obj]] = {}
        self.rewritten: Spans = []  # (line, byte column) spans
        self._splats: dict[int, object] = {}  # id(call with `**`) -> how `_plan_splat` decided it
        self._dict_edits: dict[int, _DictEdit] = {}  # id(dict display or `dict(...)` call) -> its edit
        self._parents = reaching.Parents(located.tree)  # (each node's parent, found on first use)
        self._judged_keys: set[int] = set()  # id(a `**` dict's key reported): a key seen by several calls
        # id(Trainer call) -> the callbacks its fixes append to `callbacks=`, and whether as `[*value, ...]`
        self._added: dict[int, tuple[list[str], bool]] = {}
        # (line, column) spans of a LightningCLI's defaults reported, not rewritten: their classes keep names
        self.held_spans: Spans = []
        # id(a LightningCLI's judged `trainer_defaults` dict) -> the keys its configs' `trainer:` write
        self._config_keys: dict[int, frozenset[str]] = {}
        # (line, column) spans of the old strategy objects a run with `--shim` rebuilds (``_shim_objects``)
        self.shim_spans: Spans = []
        # what the run settled of a call's `**` section of a loaded config (``project.loaded_configs``)
        self.loaded: Callable[[ast.Call], str] = lambda call: ""
        self.loaded_reason: Callable[[ast.Call], str] = lambda call: ""  # why it does not settle the call
        # how the run judged a call's own flags beside the configs it loads (``LoadedConfigs.apart``)
        self.loaded_apart: Callable[[ast.Call], Apart | None] = lambda call: None

    def run(self) -> None:
        """Decide every call, then turn the decisions into edits in the order a transformer would make
        them. A `**cfg` dict or a `ddp = DDPPlugin(...)` object may be written before or after its call:
        the calls that pass one are decided first, so the dict or object is rewritten where it is built."""
        removed = self._removed_methods()
        self._namespace_writes()
        for shim_call in self.located.shim_calls:
            self._shim_call(shim_call)
        calls = sorted(
            (c for c in self.located.calls if id(c.node) not in removed),
            key=lambda c: (self.text.start(c.node), -self.text.end(c.node)),
        )
        splats = [c for c in calls if any(k.arg is None for k in c.node.keywords)]
        for call in splats:
            self._splats[id(call.node)] = self._plan_splat(call)
        for call in splats:  # (after every dict's rewrite is planned: the keys it renames join it)
            self._unpacked_gone(call)
        for call in calls:
            if id(call.node) not in self._splats and any(
                k.arg is not None and _names_in(k.value) for k in call.node.keywords
            ):
                self._plan_bound_objects(call)
        by_node: dict[int, TrainerCall] = {id(c.node): c for c in calls}
        nodes: dict[int, ast.expr] = {id(c.node): c.node for c in calls}
        nodes.update((key, node) for key, (node, _, _, _) in self._objects.items())
        nodes.update((key, edit.node) for key, edit in self._dict_edits.items())
        for node in _post_order(self.text, nodes.values()):
            if id(node) in self._objects:
                self._edit_object(self._objects[id(node)][0])
            elif id(node) in self._dict_edits:
                self._edit_dict(self._dict_edits[id(node)].node)
            else:
                self._migrate(by_node[id(node)])

    # --- flags written into the namespace `from_argparse_args` reads --------------------------------------

    def _namespace_writes(self) -> None:
        """Report the Trainer flags the file writes into the argparse namespace a
        ``X.from_argparse_args(args)`` call reads, where the value written is old usage for the target on its
        own: ``args.distributed_backend = "ddp"`` or ``setattr(args, "gpus", 2)`` before the call in its
        function, ``parser.set_defaults(
        accelerator="ddp")`` before it in the file. The call gets that value whatever the command line says,
        and was reported for nothing (the namespace's own flags are Lightning's defaults). Not fixed: the
        script may read the option too. Not where the target removed ``from_argparse_args`` and ``--shim``
        hands the namespace to the shim's, which takes every old flag."""
        # (where the target removed `from_argparse_args`, `--shim` hands the namespace to the shim's)
        shim = self.run_options.target >= REMOVED_METHODS["from_argparse_args"]
        if self.shim and shim:
            return
        for call in self.located.calls:
            namespace = call.namespace
            if call.owner or not isinstance(namespace, ast.Name):
                continue
            if self.text.position(call.node) in self.run_options.leave:
                continue
            callee = cut(self.text.segment(call.node.func))
            for node, flag, value_node in _namespace_writes(self.located.tree, namespace.id, call.node):
                value = self.reader.read(value_node, call.scope)
                if isinstance(value, Unknown):
                    continue
                line, column = self.text.position(node)
                site = CallSite(line, column, {flag: value}, self._site(call, {}).since)
                sign = self.run_options.old_api(site)
                if sign is None:
                    continue
                said = (
                    f"`{flag}={cut(repr(value))}` written to `{namespace.id}` reaches `{callee}` (line"
                    f" {call.node.lineno}); {'use `--shim` or ' if shim else ''}change it by hand"
                )
                why = "the Trainer gets the value written, whatever the command line says"
                code = _NAMESPACE_CODES.get(flag, "LM101")
                remedy = SHIM if shim else ""
                self.findings.append(
                    Finding(line, column, code, said, False, details=(sign, why), remedy=remedy)
                )

    # --- the calls of the runtime shim's Trainer ------------------------------------------------------------

    def _shim_call(self, call: TrainerCall) -> None:
        """Judge a call that builds the runtime shim's Trainer (as written, or as a run with ``--shim`` wrote
        it). The shim translates its hardware flags and takes the removed keywords 1.5 read
        (``trainers.shim_takes``): none of those is reported, but a setup the shim cannot build on the target
        where Lightning 1.5.10 builds it (LM103: no tool can, ``_unbuilt``). Every other keyword reaches
        Lightning's Trainer as written, and is judged as in a call of it (LM100, LM007), renamed where a
        rename keeps its meaning."""
        args = _flag_arguments(call)
        self._unbuilt(call, args)
        written, _ = self._gone_written(call, args)
        taken = frozenset(k for k, value in written.items() if shim_takes(k, value))
        old, new = self._gone_keywords(call, taken=taken)
        self._untranslated(call, old, new)
        if not old or self.text.position(call.node) in self.run_options.leave:
            return
        quote = _quote(call.node, self.text)

        def change(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
            from lightning_migrate.edit import apply  # (imported: the file has edits)

            updated, edited = apply.trainer_call(updated, call.skip, old, new, quote)
            self._record_renames(call.node, call.scope, edited)
            return updated

        self._edit(call.node, change)

    def _unbuilt(self, call: TrainerCall, args: list[_Arg]) -> None:
        """Report (LM103) the hardware flags of a call of the runtime shim's Trainer that the shim cannot
        build on the target on some machine where Lightning 1.5.10 builds them (the shim's own answer,
        ``trainers.shim_unbuilt``): `distributed_backend='dp'` beside `gpus=2` on 2.x, whose Trainer has no
        DataParallel. Each value the file writes is tried (a conditional's branches, an option's choices);
        a value only known at run time that the file does not narrow is left to the shim."""
        if any(a.star for a in args):
            return
        flags = self._read_flags(call, args, quiet=True)
        planned = {k: value for k, value in (flags or {}).items() if k in PLANNED_FLAGS}
        target = self.run_options.target
        for given in _written_combinations(planned):
            found = shim_unbuilt(given, target, call.shim)
            if found is None:
                continue
            tried, failed = found
            shown = [a for a in args if a.keyword in tried]
            first = next((a for a in shown if a.keyword in _TRAINING_TYPE_KEYWORDS), shown[0])
            more = f" and {len(shown) - 1} more" if len(shown) > 1 else ""
            name = failed.meaning.strategy.name
            said = (
                f"`{cut(self.text.segment(first.node))}`{more}: the runtime shim cannot build the {name}"
                f" strategy on Lightning {target}; no tool can, move off it by hand"
            )
            given_text = ", ".join(f"{k}={v!r}" for k, v in tried.items())
            machine = failed.hardware
            details = (
                f"Lightning {REFERENCE} builds the {name} strategy from `{given_text}` (a machine with"
                f" {machine.cuda} CUDA GPUs, {machine.tpu_cores} TPU cores)",
                f"the runtime shim's Trainer raises on Lightning {target}: {failed.raised.error}:"
                f" {failed.raised.message}",
            )
            self._report(first.node, "LM103", said, False, details=details)
            return

    # --- the Trainer's methods 2.0 removed ------------------------------------------------------------------

    def _removed_methods(self) -> set[int]:
        """Report the calls of a Trainer method the target removed (LM105: ``Trainer.add_argparse_args``);
        with ``shim``, rewrite those the shim has a function for (``lightning_migrate.shim.add_argparse_args
        (parser)``). Returns the ids of the ``from_argparse_args`` calls it took: the method is gone, so
        their flags are not planned as a Trainer call's."""
        target = self.run_options.target
        taken = set()
        trainer_calls = {id(c.node): c for c in self.located.calls}
        for node, scope, named in self.located.methods:
            method = node.func.attr  # type: ignore[attr-defined]
            if target < REMOVED_METHODS[method]:
                continue
            taken.add(id(node))
            callee = self.text.segment(node.func)
            module = SHIM_MODULES[self._package(node, scope, named)]
            replacement = f"`{module}.{method}(...)`"
            gone_since = f"`{cut(callee)}` was removed in Lightning {BY_CODE['LM105'].removed_in}"
            # the keywords a `from_argparse_args` call passes still reach the target's Trainer (through the
            # shim's function too): those it rejects are reported and renamed as in any call (LM007)
            call = trainer_calls.get(id(node))
            leave = self.text.position(node) in self.run_options.leave
            shimmed = self.shim and method in SHIM_METHODS and not leave
            # (the shim's Trainer takes `resume_from_checkpoint=` on every release: not reported there)
            kept = SHIM_KEEPS if shimmed else frozenset()
            old, new = self._gone_keywords(call, taken=kept) if call is not None else ({}, {})
            if call is not None:  # (the keys of a `**` dict it passes: reported, the dict is not rewritten)
                self._unpacked_gone(call, taken=kept)
            if call is not None:
                self._untranslated(call, old, new)
            same = f"{replacement} works the same on every release from 1.4"
            if method not in SHIM_METHODS:
                self._report(node, "LM105", f"{gone_since}; {_NO_SHIM[method]}")
            elif shimmed:  # (no span recorded: the objects the call passes are judged where they are built)
                self.shim_imports.add(module)
                self._shim_objects(node, scope)
                self._report(node, "LM105", f"{gone_since}; fix: {replacement}", True, details=(same,))
            else:
                said = f"{gone_since}; fix with `--shim`"
                if not leave:
                    self._shim_objects(node, scope, rebuild=False)
                details = (f"`--shim` writes {replacement}", same)
                self._report(node, "LM105", said, details=details, remedy="" if leave else SHIM)
            if shimmed or old:
                own = not named.isdisjoint(TRAINER_NAMES)  # Lightning's own class, not a subclass
                quote = _quote(node, self.text)
                self._edit(node, _method_edit(old, new, quote, (module, method, own) if shimmed else None))
        return taken

    def _untranslated(self, call: TrainerCall, old: dict[str, Known], new: dict[str, Known]) -> None:
        """Add to a rewrite's ``old`` and ``new`` keywords the model's keywords of a call that builds the
        runtime shim's Trainer (a removed
        ``from_argparse_args`` call, one ``--shim`` hands to it, one written so) that the target's Trainer
        lacks and the shim does not translate (it translates ``PLANNED_FLAGS``, and passes the rest on):
        reported (LM007), each with its value and its rename where Lightning documents one
        (``replace_sampler_ddp=`` is ``use_distributed_sampler=``, #16829), or dropped where it is at a
        default a release had (``amp_level="O2"``, ``auto_select_gpus=False``: what the planner drops too);
        any other is only reported."""
        target = self.run_options.target
        for arg in _flag_arguments(call):
            if arg.keyword not in MODELLED or arg.keyword in PLANNED_FLAGS or accepts(arg.keyword, target):
                continue
            value = self.reader.read(arg.value, call.scope)
            rename = _RENAMED.get(arg.keyword)
            if rename is None and not isinstance(value, Unknown) and is_default(arg.keyword, value):
                message = f"`{arg.keyword}={cut(repr(value))}` is not in Lightning {target}; fix: remove it"
                self._report(arg.node, "LM007", message, True, details=("at its default",))
                old[arg.keyword] = value
                continue
            if rename is None or isinstance(value, Unknown):
                message = f"Lightning {target} has no `{arg.keyword}=`; remove it, or set what it did by hand"
                self._report(arg.node, "LM007", message, False)
                continue
            message = f"Lightning {target} has no `{arg.keyword}=`: it is `{rename}=`"
            self._report(arg.node, "LM007", message, True)
            old[arg.keyword] = value
            new[rename] = value

    def _package(self, node: ast.Call, scope: Scope, named: frozenset[str]) -> str:
        """The Lightning package a method call's class comes from: its qualified name's, or for a subclass
        the file or the run defines, the one the file imports."""
        qualified = set(named) | self._all_qualified(node, scope)
        if not any(n.startswith(("lightning.", "pytorch_lightning.")) for n in qualified):
            qualified = {b.qualified or "" for bs in self.located.scopes[0].bindings.values() for b in bs}
        return _package_of(qualified)

    # --- the calls ------------------------------------------------------------------------------------------

    def _edit(
        self, node: ast.Call | ast.Dict, change: Callable[[cst.CSTNode, cst.CSTNode], cst.CSTNode]
    ) -> None:
        self.edits.append((node, self.located.indents[id(node)], change))

    def _edit_object(self, node: ast.Call) -> None:
        """A strategy object bound to a name a Trainer call uses, rebuilt where it is built."""
        self._rebuild(*self._objects[id(node)])

    def _rebuild(self, node: ast.Call, scope: Scope, old: Obj, new: Obj) -> None:
        """The strategy object ``node`` (``old``) rebuilt as ``new`` where it is written."""
        quote = _quote(node, self.text)

        def change(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
            from lightning_migrate.edit import apply  # (imported: the file has edits)

            new_node, edited = apply.object_call(updated, old, new, quote)
            self._record_renames(node, scope, edited)
            return new_node

        self._record_span(node)
        self._edit(node, change)

    def _plan_bound_objects(self, call: TrainerCall) -> None:
        """Where ``call`` passes a name bound to a strategy object and the rewrite renames that object, edit
        it where it is built (``ddp = DDPPlugin(...)`` -> ``ddp = DDPStrategy(...)``) and keep the name."""
        args = [a for a in _flag_arguments(call) if not a.star]
        flags = self._read_flags(call, args, quiet=True)
        if not flags or call.consumes:
            return
        decision = self.run_options.judge(self._site(call, flags))
        if not isinstance(decision, Rewrite):
            return
        new_objects = [val for val in flat(decision.flags.values()) if isinstance(val, Obj)]
        for arg in args:
            for name in _names_in(arg.value):
                bound = self.located.bound(name, call.scope)
                if bound is None or not isinstance(bound[0], ast.Call):
                    continue
                old = self.reader.read(bound[0], bound[1])
                if not isinstance(old, Obj):
                    continue
                new = next((o for o in new_objects if derived(old, o)), None)
                if new is not None and new != old:
                    self._objects[id(bound[0])] = (bound[0], bound[1], old, new)

    def _read_flags(
        self, call: TrainerCall, args: list[_Arg], quiet: bool = False, unpacked: _Arg | None = None
    ) -> dict[str, Known] | None:
        """The modelled flags among keyword ``args``: each value as known (``knowledge``: a value only known
        at run time ranges over its domain, a conditional expression over its branches). None when a value
        cannot be ranged over (an object built from run-time values, a flag with no domain) or the call
        unpacks ``unpacked``, a `**dict` nobody can read: such a call is reported (unless ``quiet``) only
        where it shows a sign of the old API (``Run.old_api``); written in the target's own form, it is left
        alone whatever its values are."""
        flags: dict[str, Known] = {}
        unknown: dict[str, str | None] = {}
        defaults: dict[str, Value] = {}
        first: tuple[_Arg, str] | None = None
        if unpacked is not None:
            unknown[UNPACKED] = None
            loaded = self.loaded_reason(call.node)
            first = (
                unpacked,
                f"the flags it passes come from {loaded}"
                if loaded
                else "the flags it passes are only known at run time (or come from a dict that is also used"
                " elsewhere)",
            )
        namespace = call.namespace
        if namespace is not None:  # `from_argparse_args(args, ...)`: every flag, from the command line
            unknown[NAMESPACE] = None
            first = first or (_Arg(None, "", namespace, namespace), "")
        for arg in args:
            if arg.keyword not in MODELLED:
                continue
            value = self.reader.read(arg.value, call.scope)
            if not isinstance(value, Unknown):
                flags[arg.keyword] = value
                continue
            # (a subclass's `super().__init__(devices=devices)` hands on its `__init__`'s parameter: its
            # callers fill it, and their calls are judged; its default is the subclass's own API's)
            handed = bool(call.owner) and self._parameter_of(arg.value, call.scope)
            ranged = None if value.cls or handed else self.ranges.known(arg.value, call.scope, arg.keyword)
            if ranged is not None:
                flags[arg.keyword] = ranged
                continue
            unknown[arg.keyword] = value.cls
            default = None if value.cls or handed else self._default(arg.value, call.scope)
            if default is not None:
                defaults[arg.keyword] = default[0]
            first = first or (arg, value.reason)
        if first is None:
            return flags
        if quiet:
            return None
        site = replace(self._site(call, flags), unknown=unknown, defaults=defaults)
        if unpacked is not None and self._vouched(unpacked.value, call.scope):
            site = replace(site, floor=self.run_options.floor)
        sign = self.run_options.old_api(site)
        if sign is not None:
            arg, reason = first
            what, evidence = RUN_TIME_SIGN, [reason]
            if arg.keyword is None and not arg.star:  # the namespace
                what, evidence = NAMESPACE_SIGN, list(self._namespace_reason(call, flags))
            written = (
                f"{arg.star}{self.text.segment(arg.value)}"
                if arg.star or arg.keyword is None
                else f"{arg.keyword}={self.text.segment(arg.value)}"
            )
            said = f"`{cut(written)}`: {what}"
            self._runtime(call, arg.node, said, (*evidence, f"a sign of old usage: {sign}"))
        return None

    def _parameter_of(self, node: ast.expr, scope: Scope) -> bool:
        """Is ``node`` a parameter of the function ``scope`` is (bound nowhere else)?"""
        found = self.located.parameter(node, scope) if isinstance(node, ast.Name) else None
        return found is not None and found[1] is scope.parent

    def _vouched(self, node: ast.expr, scope: Scope) -> bool:
        """Whether the project's required release (``Run.floor``) speaks for the `**dict` ``node``: a name
        bound only by assignments, into which the file writes no key the required release or the target
        deprecates or lacks, and no literal value that is old usage on its own (``dict_keys``)."""
        options = self.run_options
        if options.floor == RELEASES[0]:
            return False
        if not isinstance(node, ast.Name) or self.located.assigned(node, scope) is None:
            # Filled elsewhere (an attribute, a config's section, a parameter: a library's user kwargs). From
            # 2.0 no release removed a flag, so what a project that requires one fills it with runs on the
            # target; before, its fillers may still write `gpus=`, which this file cannot see.
            return options.floor >= LAST_REMOVAL and options.target >= options.floor
        for key, value in dict_keys.written_keys(self.located.tree, node.id):
            if key not in MODELLED:
                continue
            if not (current(key, options.floor) and current(key, options.target)):
                return False
            if dict_keys.is_read(value) and options.old_api(CallSite(1, 1, {key: value})) is not None:  # type: ignore[dict-item]
                return False
        return True

    def _namespace_reason(self, call: TrainerCall, flags: dict[str, Known]) -> tuple[str, ...]:
        """Why the flags beside an argparse namespace are not rewritten: the namespace holds every flag the
        command line gives, and a rewrite that is right for the defaults is wrong for one of them (the
        command line it is wrong for, where one is found)."""
        reason = "each flag is whatever the command line gives: no rewrite is proven for every command line"
        if holes(flags):
            return (reason,)
        site = self._site(call, flags)
        options = self.run_options
        example = counterexample(site.flags, options.target, options.source, site.since)  # type: ignore[arg-type]
        return (reason, example) if example else (reason,)

    def _default(self, node: ast.expr, scope: Scope) -> tuple[Value] | None:
        """The default of the parameter ``node`` names, where it is a plain value: (value,), else None."""
        parameter = self.located.parameter(node, scope) if isinstance(node, ast.Name) else None
        if parameter is None or parameter[0].default is None or parameter[0].function is None:
            return None  # (a lambda's parameter: the prefilter reads the defaults of `def`s only)
        value = self.reader.read(parameter[0].default, parameter[1])
        if value is None or isinstance(value, (bool, int, float, str)):
            return (value,)
        return None

    def _report_run_time(self, call: TrainerCall, flags: dict[str, Known]) -> None:
        """Report (LM101, where it shows a sign of the old API) a call whose values only known at run time
        are not planned: the call also passes a `**dict` whose flags meet them."""
        known = {k: value for k, value in flags.items() if k not in holes(flags)}
        site = replace(self._site(call, known), unknown=dict.fromkeys(holes(flags)))
        sign = self.run_options.old_api(site)
        if sign is not None:
            arg = next(a for a in _arguments(call.node) if a.keyword in holes(flags))
            written = f"{arg.keyword}={self.text.segment(arg.value)}"
            said = f"`{cut(written)}`: {RUN_TIME_SIGN}"
            self._runtime(
                call,
                arg.node,
                said,
                ("only known at run time, beside a `**` dict", f"a sign of old usage: {sign}"),
            )

    def _migrate(self, call: TrainerCall) -> None:
        splat = self._splats.get(id(call.node))
        decision: Decision | None = None
        flags: dict[str, Known] | None = None
        if splat is None or splat is _NO_FLAGS:
            flags = self._read_flags(call, [a for a in _flag_arguments(call) if not a.star])
            if flags:
                decision = self._decide(call, flags)
        rewrite = decision if isinstance(decision, Rewrite) else None
        shimmed = id(call.node) in self._shimmed
        left = self._left_to_shim(call) if rewrite is not None and not shimmed else None
        if left is not None and self.shim:  # (its hardware flags rewritten, the shim takes the rest)
            module = SHIM_MODULES[self._namespace(call.node, call.scope)]
            self._shimmed[id(call.node)], shimmed = module, True
            node = next(a.node for a in _arguments(call.node) if a.keyword == left)
            said = f"`{left}=` is not in Lightning {self.run_options.target}; fix: build `{module}.Trainer`"
            why = "no fix here keeps it; the runtime shim's Trainer takes it as Lightning 1.5 read it"
            self._report(node, gone.CODE, said, True, details=(why,))
        handed = SHIM_KEEPS if shimmed else frozenset()
        # (without `--shim`, the keywords a run with it hands to the shim name it as their remedy)
        remedied = left is not None and not self.shim
        old_gone, new_gone = self._gone_keywords(call, move=True, handed=handed, remedied=remedied)
        if shimmed and rewrite is None:  # (the shim passes on what it does not translate: the target judges)
            self._untranslated(call, old_gone, new_gone)
        if rewrite is None and not shimmed and not old_gone:
            return
        quote = _quote(call.node, self.text)
        # the keywords beside the model's are renamed or dropped in the same edit as the hardware flags
        old = {**(flags or {}), **old_gone} if rewrite is not None else old_gone
        new = {**rewrite.flags, **new_gone} if rewrite is not None else new_gone
        if rewrite is not None:
            new = self._through_names(call, old, new)

        def change(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
            if old:
                from lightning_migrate.edit import apply  # (imported: the file has edits)

                updated, edited = apply.trainer_call(updated, call.skip, old, new, quote)
                self._record_renames(call.node, call.scope, edited)
                self._record_dropped(call, old, new)
                if id(call.node) in self._added:
                    updated = apply.add_callbacks(updated, call.skip, *self._added[id(call.node)], quote)
            return self._to_shim(call, updated) if shimmed else updated

        if rewrite is not None:  # (an edit of the keywords beside the model's leaves its classes as written)
            self._record_span(call.node)
        self._edit(call.node, change)

    def _through_names(
        self, call: TrainerCall, old: dict[str, Known], new: dict[str, Known]
    ) -> dict[str, Known]:
        """``new`` with each conditional bound to a name that only this call reads (``gpus = -1 if
        torch.cuda.is_available() else None`` in a function, then ``gpus=gpus``) passed again by its name
        at the keyword that takes over its place, where the rewrite gives that keyword a conditional over
        the same tests: its branches are rewritten where it is bound (``_edit_bound``), so the call keeps
        reading the name and no assignment is left unused. (Elsewhere the rewrite writes the conditional
        at the call.)"""
        out = dict(new)
        taken: set[str] = set()
        for flag, value in old.items():
            if not isinstance(value, Choice) or value.name is None or new.get(flag) == value:
                continue
            if any(v == value for v in new.values()):
                continue  # (kept as written, at another keyword)
            bound = self._sole_conditional(value.name, call.scope)
            if bound is None:
                continue
            tests = tuple(map(key_of, value.tests))
            fits = [
                k
                for k in SLOTS.get(flag, (flag,))
                if k not in taken
                and isinstance(out.get(k), Choice)
                and tuple(map(key_of, out[k].tests)) == tests  # type: ignore[union-attr]
                and len(out[k].branches) == len(value.branches)  # type: ignore[union-attr]
                and all(
                    not isinstance(b, RunTime) or b == mine
                    for b, mine in zip(out[k].branches, value.branches)  # type: ignore[union-attr]
                )
            ]
            if not fits:
                continue
            # the keyword whose branches are nearest the name's (`devices` for `gpus`, `strategy` for a
            # backend)
            key = max(fits, key=lambda k: sum(b == m for b, m in zip(out[k].branches, value.branches)))  # type: ignore[union-attr]
            written = out[key]
            assert isinstance(written, Choice)
            named = replace(value, branches=written.branches)
            out[key] = named
            taken.add(key)
            self._edit_bound(bound, value, named, _quote(call.node, self.text))
        return out

    def _sole_conditional(self, name: str, scope: Scope) -> ast.IfExp | None:
        """The conditional expression ``name`` is bound to, in the function ``scope`` is, where that
        assignment is its only binding and the call's argument its only read."""
        node = ast.Name(id=name, ctx=ast.Load())
        bound = self.located.bound(node, scope, sole_use=True)
        if bound is None or scope.kind != "function" or bound[1] is not scope:
            return None
        return bound[0] if isinstance(bound[0], ast.IfExp) else None

    def _edit_bound(self, node: ast.IfExp, old: Choice, new: Choice, quote: str) -> None:
        """Rewrite the branches of the conditional ``node`` where it is bound (quoted as its own strings
        are, else as the call's ``quote``)."""
        strings = [
            n for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes))
        ]
        if strings:
            quote = '"' if self.text.segment(strings[0]).lstrip("rRbBuU")[:1] == '"' else "'"

        def change(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
            from lightning_migrate.edit import apply  # (imported: the file has edits)

            return apply.conditional(updated, old, new, quote)

        self._record_span(node)
        self.edits.append((node, self.located.indents[id(node)], change))  # type: ignore[arg-type]

    def _gone_keywords(
        self,
        call: TrainerCall,
        move: bool = False,
        taken: frozenset[str] = frozenset(),
        handed: frozenset[str] = frozenset(),
        remedied: bool = False,
    ) -> tuple[dict[str, Known], dict[str, Known]]:
        """Report the keywords of ``call`` beside the model's that the target rejects or deprecates (LM007,
        ``gone``), but those of ``taken`` (the Trainer that builds it takes them) and those of ``handed`` that
        no fix here rewrites (the shim's Trainer, which builds it, takes them), and return those its edit
        rewrites: old keywords with their values, new ones with theirs.
        A call that also passes a ``**dict`` or ``*args``, one to leave (``# noqa``) or a subclass that takes
        flags itself is only reported. With ``move``, a keyword whose fix is a callback appended to
        ``callbacks=`` is fixed so (the callbacks to append kept in ``_added``). With ``remedied``, one the
        shim's Trainer takes that no fix here rewrites says that `--shim` fixes it (``_left_to_shim``)."""
        target = self.run_options.target
        args = _flag_arguments(call)
        self._ancient(call, args)
        written, values = self._gone_written(call, args)
        places = {a.keyword: a.node for a in args if a.keyword is not None}
        if not any(gone.concerns(k, target) for k in written):
            return {}, {}
        opaque = any(a.star for a in args)
        held = bool(call.consumes) or self.text.position(call.node) in self.run_options.leave
        old: dict[str, Known] = {}
        new: dict[str, Known] = {}
        callbacks, splat = (
            callbacks_of(values.get("callbacks"), self.located, call.scope) if move else (None, False)
        )
        added: list[str] = []
        resumable = move and not opaque and not held and not call.consumes
        for found in gone.judge(written, target, opaque, callbacks, self.run_options.unsafe, fixes=move):
            judged = self._judged_gone(found, call, values, resumable, taken, handed)
            if judged is None:
                continue
            if remedied and judged.edit is None and judged.old in SHIM_KEEPS:
                judged = judged.said("; fixable with `--shim`", remedy=SHIM)
            if judged.edit is not None and call.consumes:
                said, why = self._held(call)
                judged = judged.said(f" (not fixed: {said})", why)
            fixable, remedy = judged.fixable and not call.consumes, "" if held else judged.remedy
            place = places[judged.old]
            self._report(place, gone.CODE, judged.message, fixable, details=judged.details, remedy=remedy)
            if judged.edit is None or held:
                continue
            old[judged.old] = written[judged.old]  # type: ignore[assignment]
            keyword, value = judged.edit
            if keyword is not None:
                new[keyword] = value
                if keyword in written and keyword != judged.old:  # (a key the fix sets that is written too)
                    old[keyword] = written[keyword]  # type: ignore[assignment]
            if judged.added is not None:
                added.append(self._callback(judged.added, values[judged.old]))
                if judged.added.cls is not None:
                    self.built.setdefault(judged.added.cls, self._package_of(call.node, call.scope))
        if added:
            self._added[id(call.node)] = (added, splat)
        return old, new

    def _gone_written(
        self, call: TrainerCall, args: list[_Arg]
    ) -> tuple[dict[str, object], dict[str, ast.expr]]:
        """The keywords of ``call`` as ``gone.judge`` reads them (a value, ``RUN_TIME``, ``CALLBACK`` or a
        narrowed one, for those it judges or reads), and the expressions written for them."""
        target = self.run_options.target
        written: dict[str, object] = {}
        values: dict[str, ast.expr] = {}
        for arg in args:
            if arg.keyword is None:
                continue
            values[arg.keyword] = arg.value
            written[arg.keyword] = gone.RUN_TIME
            if gone.concerns(arg.keyword, target) or arg.keyword in gone.READ:
                value = self.reader.read(arg.value, call.scope)
                written[arg.keyword] = gone.RUN_TIME if isinstance(value, Unknown) else value
                if isinstance(value, Unknown) and is_callback(arg.value, self.located, call.scope):
                    written[arg.keyword] = gone.CALLBACK
                elif isinstance(value, Unknown) and arg.keyword in gone.NARROWED:
                    written[arg.keyword] = self._narrowed(arg.value, call.scope)
        return written, values

    def _left_to_shim(self, call: TrainerCall) -> str | None:
        """The first keyword of ``call`` that the target lacks, that no fix here rewrites
        (`resume_from_checkpoint=` with no `.fit(` to move it to, `flush_logs_every_n_steps=`) and that the
        runtime shim's Trainer takes as 1.5 read it (``SHIM_KEEPS``); None where there is none, or the call
        cannot build the shim. With ``--shim``, a call the run rewrites that has one builds the shim too, so
        that nothing of it is left to do by hand; without, that keyword names ``--shim`` as its remedy."""
        args = _flag_arguments(call)
        if (
            not any(a.keyword in SHIM_KEEPS for a in args)
            or any(a.star for a in args)
            or call.consumes
            or call.owner
            or self.text.position(call.node) in self.run_options.leave
            or not self._shimmable(call)
        ):
            return None
        written, values = self._gone_written(call, args)
        callbacks, _ = callbacks_of(values.get("callbacks"), self.located, call.scope)
        target, unsafe = self.run_options.target, self.run_options.unsafe
        for found in gone.judge(written, target, False, callbacks, unsafe, fixes=True):
            if found.old not in SHIM_KEEPS or found.edit is not None:
                continue
            path = values.get(_RESUME)
            if found.old == _RESUME and path is not None:  # (``_resume``'s moves, without its edit)
                where = (call.node, path, self.located, call.scope)
                if sole_fit(*where) is not None or never_fits(*where):
                    continue
            return found.old
        return None

    def _judged_gone(
        self,
        found: gone.Judged,
        call: TrainerCall,
        values: dict[str, ast.expr],
        resumable: bool,
        taken: frozenset[str],
        handed: frozenset[str],
    ) -> gone.Judged | None:
        """``found`` as reported (`resume_from_checkpoint=` moved to the `.fit(` call where it can be), or
        None where it is not: a keyword of ``taken``, or one of ``handed`` that no fix here rewrites (the
        runtime shim's Trainer, which builds the call, reads it as 1.5 did)."""
        if found.old in taken:
            return None
        judged = self._resume(found, call, values[_RESUME]) if resumable and found.old == _RESUME else found
        return None if judged.edit is None and judged.old in handed else judged

    def _unpacked_gone(self, call: TrainerCall, taken: frozenset[str] = frozenset()) -> None:
        """Report the keys of the dict ``call`` unpacks (``**params``) that the target rejects or deprecates
        as if they were keywords of the call (LM007, LM100), where the file says which keys it holds
        (``_unpacked``). A key is renamed or dropped inside the dict where the run rewrites that dict anyway
        (its hardware flags) and the dict holds exactly the keys read; anywhere else it is reported. Not the
        keys of ``taken`` (the Trainer that builds it takes them)."""
        found = self._unpacked(call)
        if found is None:
            return
        entries, scope, complete, node = found
        entries = [
            a
            for a in entries
            if a.keyword not in call.swallowed
            and a.keyword not in taken
            and id(a.node) not in self._judged_keys
        ]
        target = self.run_options.target
        self._ancient_keys(call, entries)
        if not any(gone.concerns(a.keyword, target) for a in entries):  # type: ignore[arg-type]
            return
        written = {a.keyword: self._gone_value(a, call.scope) for a in _flag_arguments(call) if a.keyword}
        keys = {a.keyword: a for a in entries if a.keyword}
        written.update((k, self._gone_value(a, scope)) for k, a in keys.items())
        opaque = not complete or sum(1 for a in _flag_arguments(call) if a.star) > 1
        held = bool(call.consumes) or self.text.position(call.node) in self.run_options.leave
        edit = self._dict_edits.get(id(node)) if node is not None else None
        editable = complete and edit is not None and edit.call.node is call.node and not held
        old: dict[str, Known] = {}
        new: dict[str, Known] = {}
        for found_key in gone.judge(written, target, opaque, None, self.run_options.unsafe, fixes=True):
            if found_key.old not in keys:
                continue
            place = keys[found_key.old].node
            self._judged_keys.add(id(place))
            renamed = found_key.edit[0] if found_key.edit is not None else None
            fixed = editable and (renamed is None or renamed in keys or renamed not in written)
            judged = found_key if fixed else self._unfixed_key(found_key, call)
            self._judged_key(place, judged, written, held, old, new)
        if old and edit is not None and node is not None:
            self._dict_edits[id(node)] = replace(edit, old={**edit.old, **old}, new={**edit.new, **new})

    def _judged_key(
        self,
        place: ast.expr | ast.keyword,
        judged: gone.Judged,
        written: dict[str, object],
        held: bool,
        old: dict[str, Known],
        new: dict[str, Known],
    ) -> None:
        """Report one key of a dict judged as a Trainer keyword (a ``**`` dict's, a LightningCLI's
        ``trainer_defaults``) and add its fix, if any, to the dict's edit (``old``/``new``); a key the fix
        sets that the dict also writes goes into ``old`` too."""
        remedy = "" if held else judged.remedy
        self._report(place, gone.CODE, judged.message, judged.fixable, details=judged.details, remedy=remedy)
        if judged.edit is None:
            return
        old[judged.old] = written[judged.old]  # type: ignore[assignment]
        keyword, value = judged.edit
        if keyword is not None:
            new[keyword] = value
            if keyword in written and keyword != judged.old:
                old[keyword] = written[keyword]  # type: ignore[assignment]

    def _ancient_keys(self, call: TrainerCall, entries: list[_Arg]) -> None:
        """Report (LM100) the keys of the dict ``call`` unpacks that are keywords of Lightning 0.x's
        Trainer, passed to Lightning's own Trainer (``_ancient``)."""
        if not self._shimmable(call):
            return
        for arg in entries:
            said = gone.ancient(arg.keyword) if arg.keyword is not None else None
            if said is not None:
                self._judged_keys.add(id(arg.node))
                self._report(arg.node, gone.ANCIENT_CODE, said[0], False, details=said[1])

    def _unfixed_key(self, judged: gone.Judged, call: TrainerCall) -> gone.Judged:
        """``judged``, a key of the dict ``call`` unpacks, reported without its fix (or the flag that makes
        it): the run does not rewrite that dict, or the fix would write a keyword the call passes itself."""
        if judged.edit is None and not judged.remedy:
            return judged
        fix = judged.fix.removeprefix("; ")
        why = f"{fix}, made by hand where the dict is written" if fix else ""
        if call.consumes:
            why = self._held(call)[1]
        starred = next(a.value for a in _flag_arguments(call) if a.star)
        named = f"`**{starred.id}`" if isinstance(starred, ast.Name) else "the `**` dict"
        notes = (*judged.notes, why) if why else judged.notes
        said = f" (not fixed: a key of {named})"
        return replace(judged, edit=None, added=None, remedy="", fix=said, notes=notes)

    def _gone_value(self, arg: _Arg, scope: Scope) -> object:
        """A keyword's value as ``gone.judge`` reads it (``gone.RUN_TIME`` where it is not needed)."""
        assert arg.keyword is not None
        if not (gone.concerns(arg.keyword, self.run_options.target) or arg.keyword in gone.READ):
            return gone.RUN_TIME
        value = self.reader.read(arg.value, scope)
        if not isinstance(value, Unknown):
            return value
        if is_callback(arg.value, self.located, scope):
            return gone.CALLBACK
        return self._narrowed(arg.value, scope) if arg.keyword in gone.NARROWED else gone.RUN_TIME

    def _unpacked(
        self, call: TrainerCall
    ) -> tuple[list[_Arg], Scope, bool, ast.Dict | ast.Call | None] | None:
        """The keys of the one ``**`` dict ``call`` unpacks as far as the file says, the scope their values
        are read in, whether the dict holds exactly these (a display or ``dict(...)`` the codemod reads,
        ``_dict_of``), and that display; None where the file says nothing of its keys. Else the keys any
        path of the code that binds the name puts into the dict (``unpacked_keys``): it may hold each."""
        starred = [a for a in _flag_arguments(call) if a.star]
        if len(starred) != 1 or starred[0].star != "**":
            return None
        value = starred[0].value
        source = self._dict_of(value, call.scope, call.node)
        if source is not None:
            entries = _dict_entries(source[0])
            if entries is not None:
                return entries, source[1], True, source[0]
            shown = unpacked_keys.display_keys(source[0])
            return [_Arg(k, "", v, at) for k, v, at in shown], source[1], False, None
        if not isinstance(value, ast.Name):
            return None
        where = call.scope.lookup(value.id)
        code: ast.AST | None = None
        if where is None:
            return None
        if where.kind == "module":
            code = self.located.tree
        elif where is call.scope and where.kind == "function":
            code = reaching.function_of(call.node, self._parents)
        if code is None:
            return None
        keys = unpacked_keys.keys_in(code, value.id)
        return [_Arg(k, "", v, at) for k, v, at in keys], where, False, None

    def _ancient(self, call: TrainerCall, args: list[_Arg]) -> None:
        """Report (LM100) the keywords of Lightning 0.x's Trainer that no release from 1.4 takes
        (``removed.ANCIENT``), passed to Lightning's own Trainer: each raises TypeError on every release."""
        if not (self._shimmable(call) or call.shim):  # (the shim's Trainer passes them on)
            return
        for arg in args:
            found = gone.ancient(arg.keyword) if arg.keyword is not None else None
            if found is not None:
                self._report(arg.node, gone.ANCIENT_CODE, found[0], False, details=found[1])

    def _narrowed(self, node: ast.expr, scope: Scope) -> object:
        """``gone.BOOL`` where ``node`` (a run-time value) is a bool on every run as far as the file says: a
        parameter bound nowhere else, annotated ``bool``, whose default (if any) is a bool; else
        ``gone.RUN_TIME``."""
        found = self.located.parameter(node, scope) if isinstance(node, ast.Name) else None
        if found is None or found[0].parameter is None:
            return gone.RUN_TIME
        binding, outside = found
        annotation = binding.parameter.annotation  # type: ignore[union-attr]
        default = self.reader.read(binding.default, outside) if binding.default is not None else True
        typed = isinstance(annotation, ast.Name) and annotation.id == "bool"
        return gone.BOOL if typed and type(default) is bool else gone.RUN_TIME

    def _resume(self, judged: gone.Judged, call: TrainerCall, path: ast.expr) -> gone.Judged:
        """``judged`` (`resume_from_checkpoint=path`) moved to `ckpt_path=` of the one `.fit(` call of the
        Trainer, where that keeps what the code did (``resume.sole_fit``)."""
        if judged.fixable:
            return judged
        fit = sole_fit(call.node, path, self.located, call.scope)
        if fit is None and never_fits(call.node, path, self.located, call.scope):
            said = "; fix: remove it (the Trainer never runs `fit`)"
            why = "1.4-1.9 resumed in `fit` alone; `validate`/`test`/`predict` take their own `ckpt_path=`"
            return judged.said(said, why, edit=(None, None))
        if fit is None:
            return judged
        text, quote = self.text.segment(path), _quote(fit, self.text)

        def change(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
            from lightning_migrate.edit import apply  # (imported: the file has edits)

            return apply.add_keyword(updated, "ckpt_path", text, quote)

        self._edit(fit, change)
        said = f"; fix: move it to `ckpt_path=` of the `.fit(` on line {fit.lineno}"
        return judged.said(said, "1.4-1.6 resumed in `fit` alone", edit=(None, None))

    def _callback(self, added: gone.Added, old: ast.expr) -> str:
        """The text of the callback a fix appends: its argument the old keyword's value as written."""
        value = self.text.segment(old) if added.value == gone.OLD else repr(added.value)
        return value if added.cls is None else f"{added.cls}({added.argument}={value})"

    def _site(self, call: TrainerCall, flags: dict[str, Known]) -> CallSite:
        """``call`` as a call site. Written with the unified ``lightning`` package, it can only have been
        written for 1.8 or later: narrowing the sources avoids asking for ``--source-version`` over
        differences between releases the code never ran on."""
        line, column = self.text.position(call.node)
        lightning = self._namespace(call.node, call.scope) == "lightning.pytorch"
        places = {a.keyword: self.text.position(a.node) for a in _arguments(call.node) if a.keyword in flags}
        since = LIGHTNING_PACKAGE if lightning else RELEASES[0]
        machine = self._torch(call)
        return CallSite(
            line, column, flags, since, places=places, expects_raise=call.expects_raise, machine=machine
        )

    def _torch(self, call: TrainerCall) -> str:
        """The name the module imports torch as, before the call (a notebook's earlier cell), where the
        call's scope sees that import and nothing else under it (however many times it is imported): a test
        of the machine's GPU count is written with it. "" where the file does not import torch so (no import
        is added for a test: a rewrite edits the call and what it reads)."""
        module = self.located.scopes[0]
        names = sorted(
            (name != "torch", name)
            for name, bindings in module.bindings.items()
            if bindings
            and all(b.qualified == "torch" for b in bindings)  # (a notebook may import it in several cells)
            and call.scope.lookup(name) is module
            and self._imported_torch.get(name, call.node.lineno) < call.node.lineno
        )
        return names[0][1] if names else ""

    def _no_torch_import(self, call: TrainerCall) -> str:
        """Why a rewrite of ``call`` may not add `import torch` to the module for its test of the machine
        ("" where it may): only where the name `torch` is bound nowhere the call's scope sees it, nor in the
        module, and no star import may bind it (anything else bound to `torch` keeps its meaning), in a
        file of its own."""
        if not self.may_import_torch:
            return "the code's context is not seen here: import torch before the call"
        if self.located.scopes[0].bindings.get("torch") or call.scope.lookup("torch") is not None:
            return "`torch` is another name here: import torch under a name of its own before the call"
        if any(alias.name == "*" for node in self.located.import_froms for alias in node.names):
            return "a star import may bind `torch` to anything: import torch after it"
        return ""

    @functools.cached_property
    def _imported_torch(self) -> dict[str, int]:
        """The first line on which the module imports torch under each name (``import torch as t``); a name
        only star imports of the project's modules bind to torch (``from models import *``, whose module
        does ``import torch``), the line of the module's last star import."""
        found: dict[str, int] = {}
        stars = [
            node.end_lineno or node.lineno
            for node in self.located.tree.body
            if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        ]
        imported: set[str] = set()  # (every name an `import` binds: `import torch.nn` binds `torch`)
        for node in self.located.tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    imported.add(alias.asname or alias.name.split(".")[0])
                    if alias.name == "torch":
                        found.setdefault(alias.asname or "torch", node.lineno)
        module = self.located.scopes[0]
        for name, bindings in module.bindings.items():
            if name in imported or not stars or not bindings:
                continue
            if all(b.qualified == "torch" for b in bindings):
                found[name] = max(stars)
        return found

    def _decide(self, call: TrainerCall, flags: dict[str, Known]) -> Decision:
        """Plan ``call`` and report the outcome (the rewrite, or why there is none). With ``shim``, a call
        no rewrite keeps for every value it may take at run time builds the runtime shim's Trainer, which
        migrates the values it gets."""
        if call.expects_raise and holes(flags) and self._raises_in_every_case(call, flags):
            return Unchanged()
        site = self._site(call, flags)
        apart = self._apart(call, flags) if self.loaded(call.node) == "apart" else None
        decision: Decision
        if isinstance(apart, Rewrite):  # (judged with the configs it loads: ``LoadedConfigs.apart``)
            held = (site.line, site.column) in self.run_options.leave
            decision, findings = (Unchanged() if held else apart), rewrite_findings(site, apart)
        elif apart is not None:
            decision, findings = apart, []
        else:
            decision, findings = self.run_options.decide(site)
        if isinstance(decision, Refusal) and not site.machine:
            # a rewrite that keeps every value with a test of the machine's GPU count, written with the
            # `import torch` it adds (torch is a dependency of every Lightning release), where it may
            tested, told = self.run_options.decide(replace(site, machine="torch"))
            if isinstance(tested, Rewrite) and any(
                isinstance(v, Choice) and v.machine for v in tested.flags.values()
            ):
                why = self._no_torch_import(call)
                if not why:
                    decision, findings = tested, told
                    self.torch_imported = True
                else:
                    said = "a test of the machine's GPU count (`torch.cuda.device_count() > 1`) would keep it"
                    findings = [with_details(f, "", f"{said}, but {why}") for f in findings]
        if call.consumes and isinstance(decision, Rewrite):  # a subclass that takes flags itself
            said, why = self._held(call)
            said = f" (not fixed: {said}; migrate it by hand)"
            self.findings.extend(replace(with_details(f, said, why), fixable=False) for f in findings)
            return Unchanged()
        if self.shim and isinstance(decision, Refusal) and decision.code in _SHIMMED and holes(flags):
            node = next(a.node for a in _arguments(call.node) if a.keyword == decision.flag)
            self._runtime(call, node, decision.message.partition("; ")[0], decision.details, decision.remedy)
            return decision
        self.findings.extend(self._remedied(call, flags, decision, findings))
        return decision

    def _held(self, call: TrainerCall) -> tuple[str, str]:
        """Why the fix of a finding of ``call``, a Trainer subclass's call that is reported and not rewritten,
        is not made: what the finding says, and why."""
        if call.owner:  # its `super().__init__(...)`, which also hands on its callers' `**kwargs`
            why = f"`{call.owner}` is a Trainer subclass and {call.consumes}"
            return f"`{call.owner}`'s callers may pass the same flags", why
        callee = self.text.segment(_built_class(call))
        return f"`{cut(callee)}` takes flags itself", f"`{callee}` is a Trainer subclass and {call.consumes}"

    def _remedied(
        self, call: TrainerCall, flags: dict[str, Known], decision: Decision, findings: list[Finding]
    ) -> list[Finding]:
        """``findings`` with the flag that would fix them: a refusal ``--shim`` routes through the runtime
        shim (``_runtime``) says so; a subclass that takes flags itself is never rewritten, whatever the
        flags (the planner's ``--unsafe-fixes`` advice included)."""
        if call.consumes:
            return [replace(f, remedy="", message=_unshimmed(f.message)) for f in findings]
        if call.owner:  # (a subclass's `super().__init__`: the shim builds Lightning's own Trainer)
            return [replace(f, message=_unshimmed(f.message)) for f in findings]
        shimmed = isinstance(decision, Refusal) and decision.code in _SHIMMED and holes(flags)
        if shimmed and not self.shim and self._shimmable(call):
            self._shim_objects(call.node, call.scope, rebuild=False)
            return [replace(f, remedy=SHIM) for f in findings]
        return findings

    def _raises_in_every_case(self, call: TrainerCall, flags: dict[str, Known]) -> bool:
        """Is ``call`` (where the code expects a raise) in a test run with the cases a `pytest.mark.
        parametrize` lists, none of which any release builds? (The planner ranges over each value on its
        own, and so would also judge combinations no row gives.)"""
        found = holes(flags)
        names = {a.keyword: a.value for a in _arguments(call.node) if a.keyword in found}
        if set(names) != set(found) or not all(isinstance(n, ast.Name) for n in names.values()):
            return False
        written = {flag: node.id for flag, node in names.items() if isinstance(node, ast.Name)}
        bindings = [self.located.parameter(node, call.scope) for node in names.values()]  # type: ignore[arg-type]
        functions = {id(b[0].function): b[0].function for b in bindings if b is not None}
        if None in bindings or len(functions) != 1:
            return False
        (function,) = functions.values()
        cases = domains.parametrized_cases(function, list(written.values())) if function else None
        known: dict[str, Value] = {k: v for k, v in flags.items() if k not in found}  # type: ignore[misc]
        target = self.run_options.target
        return bool(cases) and all(
            rejected.everywhere({**known, **{f: case[n] for f, n in written.items()}}, target, plan)
            for case in cases or ()
        )

    # --- a LightningCLI's `trainer_defaults` ---------------------------------------------------------------

    def cli_defaults(self, clis: Sequence[CLIDefaults]) -> None:
        """The ``trainer_defaults`` dicts the run judged with the configs they feed
        (``project.lightning_cli``): their findings, and their rewrite, made where the dict is written, as a
        ``**cfg`` dict's is."""
        for cli in clis:
            found = self._cli_call(cli)
            if found is None:
                continue
            call, node = found
            held = (cli.line, cli.column + 1) in self.run_options.leave
            self.findings.extend(cli.findings)
            new = cli.new_flags()
            self._config_keys[id(node)] = cli.config_keys
            if new is not None and not held:
                self._dict_edits[id(node)] = _DictEdit(node, call, cli.flags(), new)
            else:  # (a class renamed there alone would make the defaults look migrated)
                assert node.end_lineno is not None
                assert node.end_col_offset is not None
                self.held_spans.append(
                    ((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset))
                )

    def cli_keys(self, calls: Sequence[tuple[ast.Call, frozenset[str]]]) -> None:
        """Report the keys of each LightningCLI call's ``trainer_defaults=`` dict that the target rejects or
        deprecates as if they were keywords of a Trainer call (LM007, LM100): LightningCLI hands them to
        Lightning's Trainer. ``calls``: the calls that reach LightningCLI with their keywords, each with the
        keywords its class takes itself. A key is renamed or dropped inside the dict only where the run
        rewrites that dict anyway (its hardware flags, judged with its configs: ``cli_defaults``) and the dict
        holds exactly the keys read; anywhere else it is reported, with the fix as evidence."""
        scopes = {id(call): scope for call, scope in self.located.scoped_calls}
        target = self.run_options.target
        for call, own in calls:
            given = {k.arg: k for k in call.keywords if k.arg is not None}
            keyword = given.get("trainer_defaults")
            if keyword is None or "trainer_defaults" in own or "trainer_class" in given:
                continue  # (a subclass's own, or another Trainer class, which may take other keywords)
            scope = scopes.get(id(call))
            source = self._dict_of(keyword.value, scope) if scope is not None else None
            if source is None:
                continue
            node, where = source
            entries = _dict_entries(node)
            complete = entries is not None
            if entries is None:
                entries = [_Arg(k, "", v, at) for k, v, at in unpacked_keys.display_keys(node)]
            entries = [a for a in entries if a.keyword is not None and id(a.node) not in self._judged_keys]
            for arg in entries:  # (0.x keywords: every release raises)
                said = gone.ancient(arg.keyword) if arg.keyword is not None else None
                if said is not None:
                    self._judged_keys.add(id(arg.node))
                    self._report(arg.node, gone.ANCIENT_CODE, said[0], False, details=said[1])
            if any(gone.concerns(a.keyword, target) for a in entries):  # type: ignore[arg-type]
                self._cli_gone_keys(node, where, entries, complete)

    def _cli_gone_keys(
        self, node: ast.Dict | ast.Call, where: Scope, entries: list[_Arg], complete: bool
    ) -> None:
        """Judge the keys of one ``trainer_defaults`` dict (``cli_keys``); ``complete``: it holds exactly
        these."""
        target = self.run_options.target
        keys = {a.keyword: a for a in entries if a.keyword is not None}
        written = {k: self._gone_value(a, where) for k, a in keys.items()}
        edit = self._dict_edits.get(id(node))
        held = self.text.position(node) in self.run_options.leave
        editable = complete and edit is not None and not held
        overridden = self._config_keys.get(id(node), frozenset())
        old: dict[str, Known] = {}
        new: dict[str, Known] = {}
        for found in gone.judge(written, target, not complete, None, self.run_options.unsafe, fixes=True):
            if found.old not in keys:
                continue
            place = keys[found.old].node
            self._judged_keys.add(id(place))
            renamed = found.edit[0] if found.edit is not None else None
            fixed = editable and (renamed is None or renamed in keys or renamed not in written)
            # (a key a config writes over it, in either form, keeps what it says only as written)
            over = sorted(k for k in {found.old, renamed} & overridden if k is not None)
            why = f"a config of this LightningCLI writes `{over[0]}` over it" if over else ""
            judged = found if fixed and not over else _unfixed_default(found, why)
            self._judged_key(place, judged, written, held, old, new)
        if old and edit is not None:
            self._dict_edits[id(node)] = replace(edit, old={**edit.old, **old}, new={**edit.new, **new})

    def _cli_call(self, cli: CLIDefaults) -> tuple[TrainerCall, ast.Dict | ast.Call] | None:
        """The LightningCLI call whose ``trainer_defaults`` is the dict at the position ``cli`` names, as a
        call that passes that dict, and the dict."""
        for call, scope in self.located.scoped_calls:
            for keyword in call.keywords:
                if keyword.arg == "trainer_defaults":
                    found = self._dict_of(keyword.value, scope)
                    if found is not None and (found[0].lineno, found[0].col_offset) == (cli.line, cli.column):
                        indent = self.located.indents.get(id(call), "")
                        return TrainerCall(call, 0, scope, indent), found[0]
        return None

    # --- `Trainer(**cfg)` -----------------------------------------------------------------------------------

    def _plan_splat(self, call: TrainerCall) -> object:
        """Decide a call that passes ``**something``: rewrite the dict it names when that dict is certain and
        used nowhere else; otherwise report. Returns ``_NO_FLAGS`` when the dict holds no modelled flag (the
        call is then migrated as if it had no ``**``). A section of a config file the run loads is judged
        there: one with no flag is no flag here, one migrated where it is leaves the call as written."""
        if all(k.arg is not None or _forwarded(k.value, call) for k in call.node.keywords):
            return (
                _NO_FLAGS  # (a subclass's `super().__init__(..., **kwargs)`: its callers' calls are judged)
            )
        verdict = self.loaded(call.node)
        if verdict == "no flags":
            return _NO_FLAGS
        if verdict == "settled":
            return _REPORTED  # (its other keywords beside the model's are still renamed: `_gone_keywords`)
        if verdict == "apart" and self._apart(call, self._own_flags(call)) is not None:
            return _NO_FLAGS  # (its configs are migrated where they are, its own flags as the run judged)
        args = _flag_arguments(call)
        starred = [a for a in args if a.star]
        source = (
            self._dict_of(starred[0].value, call.scope, call.node)
            if len(starred) == 1 and starred[0].star == "**"
            else None
        )
        entries = _dict_entries(source[0]) if source is not None else None
        explicit = self._read_flags(
            call, [a for a in args if not a.star], unpacked=starred[0] if entries is None else None
        )
        if explicit is None or entries is None:
            return _REPORTED
        if holes(explicit):  # the explicit flags, some only known at run time, are reported on their own
            self._report_run_time(call, explicit)
            return _REPORTED
        assert source is not None
        modelled = [a for a in entries if a.keyword in MODELLED]
        if not modelled:
            return _NO_FLAGS
        flags = self._read_flags(TrainerCall(call.node, call.skip, source[1], call.indent), modelled)
        if flags is None:
            return _REPORTED
        if explicit:
            merged = {**explicit, **flags}
            if isinstance(self.run_options.judge(self._site(call, merged)), Unchanged):
                return _REPORTED
            self._report(
                starred[0].node,
                "LM101",
                f"`{self.text.segment(starred[0].value)}` and the call both pass hardware/distribution flags;"
                " write them in one place and run lightning-migrate again",
            )
            return _REPORTED
        decision = self._decide(call, flags)
        if isinstance(decision, Rewrite):
            self._dict_edits[id(source[0])] = _DictEdit(source[0], call, flags, decision.flags)
        return _REPORTED

    def _own_flags(self, call: TrainerCall) -> dict[str, Known] | None:
        return self._read_flags(call, [a for a in _flag_arguments(call) if not a.star], quiet=True)

    def _apart(self, call: TrainerCall, flags: dict[str, Known] | None) -> Decision | None:
        """The rewrite the run judged for the flags a call passes beside its `**` section of loaded configs,
        each migrated where it is (``LoadedConfigs.apart``), where this file reads the same flags; else
        None (the call is judged, and reported, as before)."""
        judged = self.loaded_apart(call.node)
        if judged is None or not flags or holes(flags) or keywords(flags) != keywords(dict(judged[0])):
            return None
        new = dict(judged[1])
        return Unchanged() if keywords(new) == keywords(flags) else Rewrite(new, judged[2])  # type: ignore[arg-type]

    def _dict_of(
        self, node: ast.expr, scope: Scope, call: ast.Call | None = None
    ) -> tuple[ast.Dict | ast.Call, Scope] | None:
        """The dict display or ``dict(...)`` call ``node`` is, or names when the name is bound once to one and
        used only here (rewriting a dict shared with other code would change that code too); for the
        ``**`` of ``call``, also the one binding of several that reaches it where nothing else sees the
        model's keys of it (``reaching``)."""
        if isinstance(node, ast.Name):
            bound = self.located.bound(node, scope, sole_use=True)
            if bound is None and call is not None:
                bound = reaching.reaching_dict(
                    self.located, node, scope, call, self._parents, self.run_options.target
                )
            if bound is None:
                return None
            node, scope = bound
        if isinstance(node, ast.Dict):
            return node, scope
        if isinstance(node, ast.Call) and self.located.builtin(node.func, scope) and node.func.id == "dict":  # type: ignore[attr-defined]
            return node, scope
        return None

    def _edit_dict(self, node: ast.Dict | ast.Call) -> None:
        edit = self._dict_edits[id(node)]
        quote = _quote(edit.call.node, self.text)

        def change(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
            from lightning_migrate.edit import apply  # (imported: the file has edits)

            new_node, edited = apply.config_dict(updated, edit.old, edit.new, quote)
            self._record_renames(edit.call.node, edit.call.scope, edited)
            self._record_dropped(edit.call, edit.old, edit.new)
            return new_node

        self._record_span(node)
        self._edit(node, change)

    def _record_dropped(self, call: TrainerCall, old: dict[str, Known], new: dict[str, Known]) -> None:
        """Lightning classes the call no longer uses (a ``DDPPlugin()`` rebuilt as ``DDPStrategy(...)``)."""
        kept = {v.cls for v in flat(new.values()) if isinstance(v, Obj)}
        gone = {v.cls for v in flat(old.values()) if isinstance(v, Obj)} - kept
        for name in self._all_qualified(call.node, call.scope):
            module, _, cls = name.rpartition(".")
            if cls in gone:
                self.imports.dropped.add((module, cls))
        for arg in _arguments(
            call.node
        ):  # `plugins.DDPPlugin(...)` became `DDPStrategy(...)`: maybe `plugins` is unused
            items = arg.value.elts if isinstance(arg.value, (ast.List, ast.Tuple)) else [arg.value]
            for node in items:
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.attr in gone
                ):
                    for name in self.located.qualified(node.func.value, call.scope):
                        module, _, alias = name.rpartition(".")
                        if module:
                            self.imports.dropped.add((module, alias))

    def _record_span(self, node: ast.expr) -> None:
        assert node.end_lineno is not None
        assert node.end_col_offset is not None
        self.rewritten.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)))

    def _record_renames(self, node: ast.Call, scope: Scope, edited: Edited) -> None:
        namespace = self._package_of(node, scope)
        for old, new in edited.renamed.items():
            self.imports.renamed[old] = (namespace, new)
        for alias, new in edited.aliased.items():
            self.imports.aliased[alias] = (namespace, new)
        for cls in edited.built:
            self.built.setdefault(cls, namespace)

    def _package_of(self, node: ast.Call, scope: Scope) -> str:
        """The package the classes ``node`` (a Trainer call) builds are imported from, where the file says."""
        return _package_of(self._all_qualified(node, scope))

    def _all_qualified(self, call: ast.Call, scope: Scope) -> set[str]:
        found: set[str] = set()
        values = [a.value for a in _arguments(call)]
        for value in list(values):  # the objects of a `plugins=[...]` list too
            if isinstance(value, (ast.List, ast.Tuple)):
                values.extend(value.elts)
        for node in (call.func, *values):
            found |= self.located.qualified(node, scope)
        return found

    def _runtime(
        self,
        call: TrainerCall,
        node: ast.expr | ast.keyword,
        why: str,
        details: tuple[str, ...] = (),
        remedy: str = "",
    ) -> None:
        """Report a flag value only known at run time (LM101: ``why``, the flag and what is wrong, and the
        evidence); with ``shim``, route the call through the runtime shim, which applies the migration when
        the Trainer is built (not a subclass's call: the shim builds Lightning's own Trainer). ``remedy``:
        the flag that fixes it otherwise (the planner's)."""
        shimmable = self._shimmable(call)
        if not self.shim or not shimmable:
            todo = "use `--shim` or pass the flags literally" if shimmable else "pass the flags literally"
            if shimmable:
                self._shim_objects(call.node, call.scope, rebuild=False)
            self._report(
                node, "LM101", f"{why}; {todo}", details=details, remedy=SHIM if shimmable else remedy
            )
            return
        module = SHIM_MODULES[self._namespace(call.node, call.scope)]
        if id(call.node) not in self._shimmed:
            self._shim_objects(call.node, call.scope)
        self._shimmed[id(call.node)] = module
        said = f"{why}; fix: build `{module}.Trainer`"
        runtime = "the shim's Trainer migrates the flags it gets when it is built"
        self._report(node, "LM101", said, fixable=True, details=(*details, runtime))

    def _shim_objects(self, node: ast.Call, scope: Scope, rebuild: bool = True) -> None:
        """The old strategy objects written in ``node``'s `strategy=`/`plugins=` (a call handed to the runtime
        shim) rebuilt as the target's class that builds the same strategy (``objects.same_strategy``): the
        shim translates flags, but the file must still import on the target, which has no `*Plugin` class.
        An object with no such class is left as written (its import is reported, and ``_unrenamable`` says
        why where an argument means something else). Without ``rebuild`` (a run without `--shim`), only
        remember where they are: their class's import then names `--shim` as its remedy."""
        run = self.run_options
        sources = (run.source,) if run.source else tuple(r for r in RELEASES if r < run.target)
        for keyword in node.keywords:
            if keyword.arg not in ("strategy", "plugins"):
                continue
            for inner in ast.walk(keyword.value):
                if not isinstance(inner, ast.Call):
                    continue
                old = self.reader.read(inner, scope)
                if not isinstance(old, Obj) or old.cls not in RENAMED_STRATEGIES:
                    continue
                new = same_strategy(old, sources, run.target)
                if new is None:
                    continue
                if not rebuild:
                    assert inner.end_lineno is not None
                    assert inner.end_col_offset is not None
                    end = (inner.end_lineno, inner.end_col_offset)
                    self.shim_spans.append(((inner.lineno, inner.col_offset), end))
                    continue
                self._rebuild(inner, scope, old, new)
                row = lookup(old.cls)
                renamed = "is renamed" if row is not None and new.cls == row.renamed_to else "becomes"
                said = f"`{old.cls}` {renamed} `{new.cls}`; fix: `{cut(repr(new))}`"
                why = f"the same strategy on Lightning {run.target} as `{cut(repr(old))}` built before"
                self._report(inner, "LM005", said, True, details=(why,))

    def _shimmable(self, call: TrainerCall) -> bool:
        """Does ``call`` build Lightning's own Trainer, which ``--shim`` can make the shim's?"""
        return trainer_skip(self.located, call.node, call.scope, TRAINER_NAMES) is not None

    def _namespace(self, call: ast.Call, scope: Scope) -> str:
        """``lightning.pytorch`` when the call names anything of the unified ``lightning`` package."""
        lightning = any(n.startswith("lightning.") for n in self._all_qualified(call, scope))
        return "lightning.pytorch" if lightning else "pytorch_lightning"

    def _to_shim(self, call: TrainerCall, updated: cst.CSTNode) -> cst.CSTNode:
        """``updated`` building the shim's Trainer instead of Lightning's (``Trainer(...)``,
        ``Trainer.from_argparse_args(...)``, ``partial(Trainer, ...)``)."""
        module = self._shimmed[id(call.node)]
        for name in self._all_qualified(call.node, call.scope):
            if name in TRAINER_NAMES:
                self.imports.dropped.add(tuple(name.rsplit(".", 1)))  # type: ignore[arg-type]
        self.shim_imports.add(module)
        direct = bool(self.located.qualified(call.node.func, call.scope) & TRAINER_NAMES)
        from lightning_migrate.edit import apply  # (imported: the file has edits)

        return apply.shim_call(updated, module, direct)

    def _report(
        self,
        node: ast.expr | ast.keyword,
        rule: str,
        message: str,
        fixable: bool | None = None,
        remedy: str = "",
        details: tuple[str, ...] = (),
    ) -> None:
        line, column = self.text.position(node)
        fixed = BY_CODE[rule].fixable if fixable is None else fixable
        self.findings.append(Finding(line, column, rule, message, fixed, details=details, remedy=remedy))


# The keywords that may name a training type: the place an LM103 of a shim's call is reported at.
_TRAINING_TYPE_KEYWORDS = ("distributed_backend", "accelerator", "strategy", "plugins")
# How many of the written values' combinations of a shim call's flags are tried (``_written_combinations``).
_COMBINATIONS = 64


def _written_combinations(flags: dict[str, Known]) -> list[dict[str, Value]]:
    """Every combination of the values the file writes for ``flags``: a value as written, a conditional's
    branches, an option's choices (a run-time value whose every value the file writes); none where a value
    ranges over what the file does not write, or past ``_COMBINATIONS`` of them."""
    options: list[list[Value]] = []
    for value in flags.values():
        if not isinstance(value, (RunTime, Choice)):
            options.append([value])
            continue
        branches = value.branches if isinstance(value, Choice) else (value,)
        if any(isinstance(b, RunTime) and not b.told for b in branches):
            return []
        options.append(written_values(value))
    combinations = list(itertools.islice(itertools.product(*options), _COMBINATIONS + 1))
    return [dict(zip(flags, c)) for c in combinations] if len(combinations) <= _COMBINATIONS else []


# The rule a flag written into an argparse namespace is reported under (``_namespace_writes``).
_NAMESPACE_CODES = {
    "distributed_backend": "LM002",
    "accelerator": "LM001",
    "plugins": "LM003",
    **dict.fromkeys(("gpus", "tpu_cores", "ipus", "num_processes"), "LM004"),
}
# What an LM101 finding says of a value it cannot range over (the reason and the sign of old usage are its
# details).
RUN_TIME_SIGN = "run-time value, may be old usage"
NAMESPACE_SIGN = "an argparse namespace holds every Trainer flag"
# The model's keywords 2.0 renamed without a change of meaning (the planner writes the same rename).
_RENAMED = {"replace_sampler_ddp": "use_distributed_sampler"}
# What replaces a removed Trainer method the shim has no function for.
_NO_SHIM = {
    "default_attributes": "read the defaults from `inspect.signature(Trainer).parameters`",
    "match_env_arguments": "read the `PL_TRAINER_*` variables yourself (the Trainer still applies them)",
}


def _package_of(names: set[str] | frozenset[str]) -> str:
    """``lightning.pytorch`` where the names are of the unified package and none of ``pytorch_lightning``."""
    if any(n == "pytorch_lightning" or n.startswith("pytorch_lightning.") for n in names):
        return "pytorch_lightning"
    unified = any(n == "lightning" or n.startswith("lightning.") for n in names)
    return "lightning.pytorch" if unified else "pytorch_lightning"


def _method_edit(
    old: dict[str, Known], new: dict[str, Known], quote: str, shim: tuple[str, str, bool] | None
) -> Callable[[cst.CSTNode, cst.CSTNode], cst.CSTNode]:
    """The edit of a removed method's call: the keywords the target rejects renamed or dropped (``old`` to
    ``new``, after the namespace), then, with ``shim`` (module, method, Lightning's own class), the call made
    the shim's function."""

    def change(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        from lightning_migrate.edit import apply  # (imported: the file has edits)

        if old:
            updated, _ = apply.trainer_call(updated, 1, old, new, quote)
        return updated if shim is None else apply.shim_method(updated, *shim)

    return change


def _unfixed_default(judged: gone.Judged, why: str = "") -> gone.Judged:
    """``judged``, a key of a LightningCLI's ``trainer_defaults``, reported without its fix: the run does not
    rewrite that dict (its hardware flags need no rewrite, or cannot be rewritten for every config it feeds),
    the fix would write a key the dict holds itself, or a config writes that key over it (``why``)."""
    if judged.edit is None and not judged.remedy:
        return judged
    fix = judged.fix.removeprefix("; ")
    notes = (*judged.notes, *([why] if why else []), *([f"{fix}, made by hand in the dict"] if fix else []))
    said = " (not fixed: a key of `trainer_defaults`)"
    return replace(judged, edit=None, added=None, remedy="", fix=said, notes=notes)


def _dict_entries(node: ast.Dict | ast.Call) -> list[_Arg] | None:
    """A dict display or ``dict(...)`` call as keyword arguments (``ast_values.dict_entries``)."""
    entries = dict_entries(node)
    return None if entries is None else [_Arg(name, "", value, at) for name, value, at in entries]


def _quote(call: ast.Call, text: Text) -> str:
    """The quote style the call already uses (that of its first string argument)."""
    for arg in _arguments(call):
        if isinstance(arg.value, ast.Constant) and isinstance(arg.value.value, (str, bytes)):
            quote = text.segment(arg.value).lstrip("rRbBuU")[:1]
            return '"' if quote == '"' else "'"
    return '"'


def _other_uses(migrator: _Migrator, target: Version, kept: set[str]) -> dict[str, str]:
    """How the file's other uses of a class the rewrite renamed are renamed: by the class's own rename
    (``DDPSpawnPlugin`` -> ``DDPSpawnStrategy``; never to the class a rewritten call now builds, which may be
    another one, ``DDPStrategy(start_method="spawn")``), where the target has it and no object of it is
    built with arguments the new class takes differently (``kept``)."""
    renames = {}
    for old, (namespace, new) in migrator.imports.renamed.items():
        row = lookup(old)
        if row is None or not row.renamed_to or not _usable(row.renamed_to, target) or old in kept:
            continue
        renames[old] = row.renamed_to
        if row.renamed_to != new:
            migrator.built.setdefault(row.renamed_to, namespace)
    return renames


def _plain_imports(located: Located) -> list[ast.ImportFrom]:
    """The imports whose names follow a class rename: not those in an `if`/`try` (code written for several
    releases, `if PL_1_6: from ...strategies import X else: from ...plugins import XPlugin`), nor those of
    a name bound more than once in the module (a fallback import under the old name); but an import in a
    `try:` that catches ImportError is the file's import where its handler only falls back
    (``_falls_back``)."""
    module = located.scopes[0]
    return [
        node
        for node in located.import_froms
        if (
            id(node) not in located.guarded
            and all(len(module.bindings.get(a.asname or a.name, ())) <= 1 for a in node.names)
        )
        or _falls_back(node, located)
    ]


def _falls_back(node: ast.ImportFrom, located: Located) -> bool:
    """Is ``node`` imported in a ``try:`` whose ImportError handlers bind its names only to a constant
    (``DDPPlugin = None``) or to the same class from another module? Then the class is the one the code
    uses, and its rename follows. A handler that imports another class under the name (``from
    ...strategies import DDPStrategy as DDPPlugin``) makes it code for several releases: left alone."""
    tried = located.tried.get(id(node))
    if tried is None:
        return False
    module = located.scopes[0]
    for alias in node.names:
        local = alias.asname or alias.name
        others = [
            statement
            for handler in tried.handlers
            for statement in ast.walk(ast.Module(handler.body, []))
            if isinstance(statement, (ast.Assign, ast.ImportFrom, ast.Import)) and _binds(statement, local)
        ]
        if len(module.bindings.get(local, ())) != 1 + len(others):
            return False  # bound elsewhere too
        for other in others:
            if isinstance(other, ast.Assign) and not isinstance(other.value, ast.Constant):
                return False
            if isinstance(other, ast.Import):
                return False
            if isinstance(other, ast.ImportFrom) and not any(
                (a.asname or a.name) == local and a.name == alias.name for a in other.names
            ):
                return False
    return True


def _binds(statement: ast.Assign | ast.ImportFrom | ast.Import, local: str) -> bool:
    if isinstance(statement, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == local for t in statement.targets)
    return any((a.asname or a.name.split(".")[0]) == local for a in statement.names)


def _unrenamable(
    located: Located, migrator: _Migrator, target: Version, imported: dict[str, str]
) -> set[str]:
    """The local names of renamed classes that an object built outside a rewritten Trainer call passes an
    argument the new class takes differently (``DDPPlugin(num_nodes=n)``: a parameter in 1.4, torch DDP's
    ``TypeError`` once renamed ``DDPStrategy``), or positional arguments (1.6 put ``accelerator`` first):
    renaming the class there trades a deprecation for a crash, so each such object is reported (LM103) and
    the class keeps its name in the file. ``imported``: local name -> class, for aliased imports; an object
    inside a Trainer call the planner refused is its finding's."""
    run = migrator.run_options
    sources = (run.source,) if run.source else tuple(r for r in RELEASES if r < target)
    refused = {(f.line, f.column) for f in migrator.findings if f.code == "LM103"}
    covered = [
        (c.node.lineno, c.node.col_offset, c.node.end_lineno, c.node.end_col_offset)
        for c in located.calls
        if migrator.text.position(c.node) in refused
    ]
    covered += [(*start, *end) for start, end in migrator.rewritten]
    class_names = {id(name) for name in located.class_names}
    before_16 = [r for r in sources if r < V16]
    kept = set()
    for call in located.every_call:
        named = isinstance(call.func, ast.Name) and (call.func.id in imported or id(call.func) in class_names)
        if not named or not isinstance(call.func, ast.Name):
            continue
        cls = imported.get(call.func.id, call.func.id)
        row = lookup(cls)
        if row is None or cls not in RENAMED_STRATEGIES:
            continue
        where = (call.lineno, call.col_offset)
        if any((a, b) <= where < (c, d) for a, b, c, d in covered if c is not None and d is not None):
            continue
        # (positional arguments bound alike by every release are judged as the keywords they bind to)
        arguments = bound_arguments(cls, call)
        bound = None if arguments is None else [keyword for keyword, _ in arguments[: len(call.args)]]
        written = [k.arg for k in call.keywords if k.arg is not None] + list(bound or ())
        changed = changed_keyword(cls, written, sources, target)
        why = None if changed is None else changed[1]
        said = f"`{cls}(...)` not renamed: an argument means something else in Lightning {target}"
        if why is None and bound is None and any(map(row.exists_in, before_16)):
            said = f"`{cls}(...)` not renamed: pass its positional arguments by keyword, then run again"
            why = "their meaning changed in Lightning 1.6 (a new first parameter)"
        if why is not None:
            line, column = migrator.text.position(call)
            migrator.findings.append(Finding(line, column, "LM103", said, False, details=(why,)))
            kept.add(call.func.id)
    return kept


def _held(located: Located, migrator: _Migrator) -> tuple[set[str], set[str]]:
    """The Lightning class names used in a Trainer call the codemod leaves as written (reported instead):
    renaming the class there alone would make the call look migrated when it is not. Second, those of them
    used only in objects a run with `--shim` rebuilds (``_Migrator.shim_spans``)."""
    rewritten = migrator.rewritten
    calls = [
        (c.node.lineno, c.node.col_offset, c.node.end_lineno, c.node.end_col_offset) for c in located.calls
    ]
    held: set[str] = set()
    shimmed: set[str] = set()
    for node in located.class_names:
        where = (node.lineno, node.col_offset)
        if any(
            (a, b) <= where < (c, d) for a, b, c, d in calls if c is not None and d is not None
        ) and not _inside(where, rewritten):
            shim = _inside(where, migrator.shim_spans)
            (shimmed if shim else held).add(node.id)
        if _inside(where, migrator.held_spans):
            held.add(node.id)
    return held | shimmed, shimmed - held


def _follow_stale_imports(
    stale: list[StaleImport],
    migrator: _Migrator,
    target: Version,
    held: set[str],
    kept: set[str],
    shim_held: set[str],
) -> None:
    """An imported ``*Plugin`` class the file uses follows its rename like one a rewritten call built (the
    import is replaced, the uses renamed, each use reported by ``_old_names_left``); an unused one is only
    reported (removing it could break a module that re-exports it), and so is one a Trainer call left as
    written uses (``held``), unless a rewritten call renames it anyway, and one that builds an object the new
    class would not take (``kept``, each such object reported by ``_unrenamable``). One held only in calls
    whose objects `--shim` rebuilds (``shim_held``) names `--shim` as its remedy."""
    for imported in stale:
        if imported.local in kept:
            message = f"`{imported.local}` is `{imported.new}`; rename it with the object it builds (LM103)"
            why = (
                f"it builds an object with arguments `{imported.new}` of Lightning {target} takes differently"
            )
            migrator.findings.append(
                Finding(imported.line, imported.column, "LM005", message, False, details=(why,))
            )
            continue
        if imported.local in held and imported.name not in migrator.imports.renamed:
            message = f"`{imported.local}` is `{imported.new}`; change it with the call that uses it"
            why = f"a Trainer call left as written uses it; Lightning {target} calls it `{imported.new}`"
            remedy = SHIM if imported.local in shim_held else ""
            migrator.findings.append(
                Finding(
                    imported.line, imported.column, "LM005", message, False, details=(why,), remedy=remedy
                )
            )
            continue
        if not imported.used:
            _unused_import(imported, migrator, target)
        elif imported.local != imported.name:
            if _usable(imported.new, target):
                migrator.imports.aliased.setdefault(imported.local, (imported.namespace, imported.new))
                message = f"`{imported.name} as {imported.local}` is `{imported.new}` in Lightning {target}"
                migrator.findings.append(Finding(imported.line, imported.column, "LM005", message, True))
            else:
                message = (
                    f"`{imported.name}` (as `{imported.local}`): Lightning {target} has neither it nor"
                    f" `{imported.new}`; change its uses by hand"
                )
                migrator.findings.append(Finding(imported.line, imported.column, "LM005", message, False))
        else:
            migrator.imports.renamed.setdefault(imported.name, (imported.namespace, imported.new))


def _unused_import(imported: StaleImport, migrator: _Migrator, target: Version) -> None:
    """An old class the file imports and does not use: nothing in the file needs the import, which fails on
    2.x, but another module may import the class from this one (``from train import DDPPlugin``), which
    the import's removal would break. So removing it is an unsafe fix (``--unsafe-fixes``); an alias
    (``DDPPlugin as D``) and a re-export (``_exported``: a package's ``__init__.py``, ``# noqa: F401``,
    ``__all__``) are left as written."""
    gone = "lacks it" if not _usable(imported.name, target) else "deprecates it"
    message = f"`{imported.name}` imported, unused; Lightning {target} {gone}"
    renamed = (f"it is `{imported.new}` in Lightning {target}",) if _usable(imported.new, target) else ()
    exported = _exported(imported, migrator)
    if imported.local != imported.name or exported:
        message += ": import the new class or remove it"
        why = exported or f"imported as `{imported.local}`: the codemod removes no alias"
        migrator.findings.append(
            Finding(imported.line, imported.column, "LM005", message, False, details=(why, *renamed))
        )
        return
    why = f"a module that imports `{imported.name}` from this one then fails to import it"
    if not migrator.run_options.unsafe:
        message += "; fixable with `--unsafe-fixes`"
        details = ("`--unsafe-fixes` removes the import", why, *renamed)
        finding = Finding(
            imported.line, imported.column, "LM005", message, False, details=details, remedy=UNSAFE_FIXES
        )
        migrator.findings.append(finding)
        return
    migrator.imports.dropped.add((imported.module, imported.name))
    message += "; unsafe fix: remove the import"
    migrator.findings.append(
        Finding(imported.line, imported.column, "LM005", message, True, details=(why, *renamed))
    )


_UNUSED_ON_PURPOSE = re.compile(r"#\s*noqa(?!:)|#\s*noqa:[\w\s,]*\bF401\b")  # `# noqa`, `# noqa: F401`


def _exported(imported: StaleImport, migrator: _Migrator) -> str | None:
    """Why the unused ``imported`` is there for other modules (a re-export the codemod must not remove), or
    None: a package's ``__init__.py`` (its imports are its names), an import its line marks as unused on
    purpose (``# noqa: F401``), a name a string of the file holds (``__all__``)."""
    if migrator.package_init:
        return "a package's `__init__.py`: its imports are what the package exports"
    if _UNUSED_ON_PURPOSE.search(migrator.text.line(imported.line)):
        return "its line says it is unused on purpose (`# noqa`): a re-export"
    if _named_in_strings(migrator.located.tree, imported.name):
        return f"a string of the file names `{imported.name}` (`__all__`?): this module may re-export it"
    return None


def _named_in_strings(tree: ast.AST, name: str) -> bool:
    """Does a string of the file hold ``name`` as a word (``__all__ = ["DDPPlugin"]``)?"""
    word = re.compile(rf"\b{re.escape(name)}\b")
    return any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and word.search(node.value) is not None
        for node in ast.walk(tree)
    )


Spans = list[tuple[tuple[int, int], tuple[int, int]]]  # (line, column) start and end of nodes of the file


def _inside(where: tuple[int, int], spans: Spans) -> bool:
    """Is the (line, column) ``where`` within one of ``spans``?"""
    return any(start <= where < end for start, end in spans)


def _usable(cls: str, target: Version) -> bool:
    row = lookup(cls)
    return row is not None and row.exists_in(target) and not (row.stub_since and target >= row.stub_since)


def _old_names_left(
    located: Located, names: set[str], migrator: _Migrator, target: Version, kept: set[str]
) -> list[Finding]:
    """The other uses of a class the rewrite renamed (``isinstance(s, DDPPlugin)``, a subclass): renamed
    too where the target has the new class (a subclass may then need the new constructor's arguments) and
    no object of it is built with arguments the new class takes differently (``kept``), else reported, its
    import kept."""
    if not names:
        return []
    findings = []
    in_plugins = _left_in_plugins(located, target)
    for node in located.class_names:
        if node.id not in names:
            continue
        where = (node.lineno, node.col_offset)
        if _inside(where, migrator.rewritten):
            continue
        _, new = migrator.imports.renamed[node.id]
        row = lookup(node.id)
        new = row.renamed_to if row and row.renamed_to else new
        if _inside(where, in_plugins):
            # (renamed all the same: the import is, for the calls rewritten; but not counted as fixed)
            message = (
                f"`{node.id}` renamed `{new}`, still in `plugins=`: move it to `strategy=` with the call"
            )
            why = f"Lightning {target} takes no strategy in `plugins=`; the call is left (see its finding)"
            findings.append(
                Finding(node.lineno, node.col_offset + 1, "LM005", message, False, details=(why,))
            )
        elif node.id in kept:
            message = f"`{node.id}` is `{new}`; rename it with the object it builds (LM103)"
            why = f"an object of it is built with arguments `{new}` takes differently; it keeps its import"
            findings.append(
                Finding(node.lineno, node.col_offset + 1, "LM005", message, False, details=(why,))
            )
        elif _usable(new, target):
            message = f"`{node.id}` is renamed `{new}`; fix: `{new}`"
            why = "a subclass may need the new constructor's arguments"
            findings.append(Finding(node.lineno, node.col_offset + 1, "LM005", message, True, details=(why,)))
        else:
            message = f"`{node.id}`: Lightning {target} has neither it nor `{new}`; change this use by hand"
            findings.append(Finding(node.lineno, node.col_offset + 1, "LM005", message, False))
    return findings


_STRATEGY_LEAVES_PLUGINS = Version.parse(BY_CODE["LM003"].removed_in)


def _left_in_plugins(located: Located, target: Version) -> Spans:
    """Where the `plugins=` values of the file's Trainer calls are, at a target that takes no strategy there
    (a call the rewrite changed is skipped by its caller: what is still there is of a call left)."""
    if target < _STRATEGY_LEAVES_PLUGINS:
        return []
    return [
        ((k.value.lineno, k.value.col_offset), (k.value.end_lineno or 0, k.value.end_col_offset or 0))
        for call in located.calls
        for k in call.node.keywords
        if k.arg == "plugins"
    ]


def _namespace_writes(
    tree: ast.Module, name: str, call: ast.Call
) -> Iterator[tuple[ast.expr | ast.keyword, str, ast.expr]]:
    """The modelled flags written into the namespace ``name`` before ``call`` (which reads it): the node
    written, the flag and its value. ``name.flag = value`` and ``setattr(name, "flag", value)`` in the
    function ``call`` is in (or at module level, for a call there); where ``name`` is a parameter of that
    function, those written at module level into what a module-level call of the function passes it (``args
    .accelerator = "dp"`` then ``main(args)`` under ``if __name__ == "__main__":``); ``X.set_defaults(flag=
    value)`` anywhere before it in the file."""
    function = _enclosing_function(tree, call)
    yield from _attribute_writes(function.body if function is not None else tree.body, name, call)
    if function is not None:
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        module_level = [s for s in tree.body if not isinstance(s, _DEFINITIONS)]
        for statement in module_level:
            for node in ast.walk(statement):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                    continue
                if node.func.id != function.name:
                    continue
                passed = [a for i, a in enumerate(node.args) if i < len(params) and params[i] == name]
                passed += [k.value for k in node.keywords if k.arg == name]
                for value in passed:
                    if isinstance(value, ast.Name):
                        yield from _attribute_writes(module_level, value.id, node)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "set_defaults"
            and node.lineno < call.lineno
        ):
            for keyword in node.keywords:
                if keyword.arg in MODELLED:
                    yield keyword, keyword.arg, keyword.value


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _attribute_writes(
    statements: list[ast.stmt], name: str, before: ast.Call
) -> Iterator[tuple[ast.expr | ast.keyword, str, ast.expr]]:
    """``name.flag = value`` and ``setattr(name, "flag", value)`` of a modelled flag in ``statements``,
    before the call ``before``."""
    for statement in statements:
        for node in ast.walk(statement):
            if (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) >= (
                before.lineno,
                before.col_offset,
            ):
                continue
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == name
                    and target.attr in MODELLED
                ):
                    yield target, target.attr, node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                args = node.args
                if (
                    len(args) == 3
                    and isinstance(args[0], ast.Name)
                    and args[0].id == name
                    and isinstance(args[1], ast.Constant)
                    and args[1].value in MODELLED
                ):
                    yield node, str(args[1].value), args[2]


def _enclosing_function(tree: ast.Module, call: ast.Call) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose body holds ``call``, or None at module level."""
    found: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    where = ((call.lineno, call.col_offset), (call.end_lineno or 0, call.end_col_offset or 0))
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        # (told by position, from its first decorator to its end: no walk of every function's nodes)
        first = node.decorator_list[0] if node.decorator_list else node
        span = ((first.lineno, first.col_offset), (node.end_lineno or 0, node.end_col_offset or 0))
        if span[0] <= where[0] and where[1] <= span[1] and (found is None or node.lineno > found.lineno):
            found = node
    return found


def _forwarded(node: ast.expr, call: TrainerCall) -> bool:
    """Is ``node`` (a ``**`` argument) the ``**kwargs`` of the subclass's ``__init__`` whose
    ``super().__init__(...)`` ``call`` is?"""
    return isinstance(node, ast.Name) and node.id in call.forwarded


def _unshimmed(message: str) -> str:
    """``message`` without the planner's advice to use ``--shim`` (``quantify``), for a call the runtime
    shim cannot build (a subclass's)."""
    return message.replace(" or use `--shim`", "").replace(
        ", pass it literally or `--shim`", " or pass it literally"
    )


def _built_class(call: TrainerCall) -> ast.expr:
    """The class a Trainer call builds, as written: ``X`` in ``X(...)``, ``X.from_argparse_args(args, ...)``
    and ``partial(X, ...)``."""
    func = call.node.func
    if isinstance(func, ast.Attribute) and func.attr == "from_argparse_args":
        return func.value
    if call.owner:  # a subclass's `super().__init__(...)`
        return func
    return call.node.args[0] if call.skip else func
