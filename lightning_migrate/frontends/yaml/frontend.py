"""The YAML front end: each Trainer config of a file (``read``) is a call site, decided by the planner
like a Python call, and its rewrite is spliced into the text (``write``); a Lightning ``*Plugin``
object a config builds outside a Trainer config (``_target_: pytorch_lightning.plugins.DDPPlugin``) follows
its class's rename. ruamel.yaml (round trip) is only the reader: nothing is dumped."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from lightning_migrate.files import run_cache
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Unwritable
from lightning_migrate.frontends.contract import Migrated, Request
from lightning_migrate.frontends.yaml import compose
from lightning_migrate.frontends.yaml.read import (
    Config,
    Read,
    _since,
    class_path,
    configs,
    known_value,
    lightning_class,
    load,
    mappings,
    read,
    value_of,
)
from lightning_migrate.frontends.yaml.text import Document
from lightning_migrate.frontends.yaml.words import GROUP_FOLDER, holds, may_hold
from lightning_migrate.frontends.yaml.write import Writer
from lightning_migrate.plan import gone
from lightning_migrate.plan.callsite import UNPACKED, CallSite, Run, rewrite_findings
from lightning_migrate.plan.knowledge import Choice, Known, RunTime
from lightning_migrate.plan.locate import TRAINER_NAMES
from lightning_migrate.plan.planner import (
    PLANNED_FLAGS,
    V16,
    Refusal,
    Rewrite,
    builds_the_same,
    derived,
    interpreter,
    machines,
)
from lightning_migrate.plan.site_judge import Unknown, judge, not_fixed
from lightning_migrate.plan.trainers import SHIM_KEEPS, SHIM_TRAINERS, shim_takes, shim_trainer, shim_unbuilt
from lightning_migrate.project import hydra
from lightning_migrate.project.key_references import Ref
from lightning_migrate.project.lightning_cli import written_over
from lightning_migrate.report import noqa
from lightning_migrate.report.findings import MESSAGE_WIDTH, SHIM, Finding, Span
from lightning_migrate.report.findings import written as cut
from lightning_migrate.semantics import Setup
from lightning_migrate.semantics.classes import lookup
from lightning_migrate.semantics.model import RELEASES, Obj, Value, Version
from lightning_migrate.semantics.signature import MODELLED, accepts
from lightning_migrate.semantics.translate import REFERENCE

# What to do with a config the codemod cannot migrate (the shim: `lightning_migrate.shim.install()`)
ADVICE = "write the flags by hand, or use the runtime shim"
# How deep a rewrite is checked: the other configs of a composition are as written with one check less, the
# last as written without composing again (each file of a folder is judged with the same configs below it,
# so that depth suffices: a file whose own check fails is then left as it was for the file above it too)
CHECKS = 2
_CAPITALIZED = re.compile(r":\s+(True|False)\s*(#.*)?$", re.M)


def migrate(text: str, request: Request, checks: int = CHECKS) -> Migrated:
    """The file's rewrite and findings. A config Hydra composes with others is judged over what each of its
    compositions merges below it, and its rewrite composed again with the other configs of its folder as
    they are written with ``checks - 1`` (none: the rewrite is not composed again)."""
    documents: list[Any] = []  # a file that cannot hold a Trainer config or a Lightning object is not parsed
    if may_hold(text, request.path):
        try:
            documents = load(text)
        except SourceError:
            if holds(text, request.path):
                raise
            # not YAML (a Helm template), or YAML of another tool this reader cannot build (a duplicate key
            # in a `mkdocs.yml`): no Trainer config either
    doc = Document(text)
    writer = Writer(doc, _CAPITALIZED.search(text) is not None)
    findings: list[Finding] = []
    spans: list[Span] = []
    written: list[dict[str, Known] | None] = []  # each config's own flags as the rewrite writes them
    composed: list[_Composed] = []  # the compositions of composed configs the rewrite changed
    rewritten: list[tuple[int, int]] = []  # where the configs the rewrite changes start
    bases: list[tuple[int, int]] = []  # where a whole group file starts that others of its group may extend
    for document in documents:
        planned: set[int] = set()  # the objects the configs' flags hold: planned with their config
        tied = request.clis.of_config(request.path)
        passed = request.loaded.sections_of(request.path)
        for config in configs(document, text, request.path, tied, passed):
            if config.shimmed or _built_by_takers(config, request):
                findings += _shimmed(config, writer, request, spans, written)
            elif config.composed:
                findings += _composed(config, text, writer, request, spans, written, composed, checks)
            elif config.start in request.refused:  # (a Hydra command line it would change: reported)
                reason = request.refused[config.start]
                findings += _config(replace(config, overrides=reason), writer, request, spans, written)
            else:
                findings += _config(config, writer, request, spans, written)
            if written and written[-1] is not None:
                rewritten.append(config.start)
            if config.root and not config.composed and request.path.parent.name == GROUP_FOLDER:
                bases.append(config.start)
            planned |= _objects_in(config.mapping)
        findings += _plugin_objects(document, planned, writer, request.run)
    new = doc.result() if doc.edits else text
    if new != text:
        _check(new, written, request)
        failed = _composed_again(text, new, composed, rewritten, bases, request, checks) if checks else None
        if failed is not None:
            return failed
    comments = noqa.hash_comments(text)
    return Migrated(new, findings, lambda found: noqa.apply(text, found, spans, comments))


def _check(new: str, written: list[dict[str, Known] | None], request: Request) -> None:
    """Never hand out YAML that does not parse, or whose configs do not read back as the rewrite planned."""
    cli = request.clis.of_config(request.path)
    passed = request.loaded.sections_of(request.path)
    found = [config for document in load(new) for config in configs(document, new, request.path, cli, passed)]
    got = [_as_written(read(config.mapping).flags) for config in found]
    planned = [None if w is None else _as_written(w) for w in written]
    if len(got) != len(planned) or any(w is not None and w != g for w, g in zip(planned, got)):
        raise SourceError(
            "internal error: the rewritten configs do not read back as planned; file left as it was"
        )


def _as_written(flags: dict[str, Known]) -> dict[str, object]:
    """The flags as the text holds them: a value only known at run time is its text (wherever it moved)."""
    return {k: ("run time", v.text) if isinstance(v, RunTime) else v for k, v in flags.items()}


def _config(
    config: Config,
    writer: Writer,
    request: Request,
    spans: list[Span],
    written: list[dict[str, Known] | None],
    desired: list[dict[str, Known]] | None = None,
) -> list[Finding]:
    """Decide one config (over the flags of ``config.base``) and write its rewrite; ``desired``: where to
    put the flags the Trainer must get (the planner's rewrite), for a check after the rewrite."""
    written.append(None)
    own = read(config.mapping)
    flags = {**{k: v for k, v in config.base.items() if k not in own.order}, **own.flags}
    unknown = {k: u for k, u in config.base_unknown.items() if k not in own.order}
    unknown.update(own.unknown)
    first = own.order[0] if own.order else None
    line, column = config.mapping.lc.key(first) if first is not None else config.start
    line, column = line + 1, column + 1
    held = (line, column) in request.run.leave
    gone_found, gone_old, gone_new = _gone_keys(config, request, held)
    if not flags and not unknown:
        if gone_found:  # (the lines a suppression comment may be on)
            spans.append(_span(config, writer.doc))
        return _gone_alone(config, writer, gone_found, gone_old, gone_new)
    spans.append(_span(config, writer.doc))
    since = max(config.since, written_since(own.flags)) if config.overrides else config.since
    site = CallSite(line, column, flags, since, conditionals=False)
    alone_said: tuple[str, ...] = ()
    if config.overrides:
        unknown[UNPACKED] = Unknown(config.overrides, line, column, written=_written(own.order))
        alone_said = _alone_said(config, own, CallSite(line, column, own.flags, since), request)
    verdict = judge(request.run, site, unknown, ADVICE, *alone_said)
    rewrite = verdict.rewrite
    if rewrite is None:
        return [*verdict.findings, *_gone_alone(config, writer, gone_found, gone_old, gone_new)]
    try:
        _merged_keys_kept(config.mapping, own.order, flags, rewrite.flags)
        new = _own_flags(config, own.flags, rewrite.flags, request)
        if config.cli is not None:  # (the defaults' own old flags are reported where they are written)
            own_site = CallSite(line, column, own.flags, since, conditionals=False)
            verdict = replace(verdict, findings=_cli_findings(own_site, replace(rewrite, flags=new)))
    except Unwritable as exc:
        return not_fixed([*verdict.findings, *gone_found], str(exc))
    referred = _referred(config, own.flags, new, request)
    shim: str | None = None
    findings = verdict.findings
    if referred:  # (the keywords beside the model's are still renamed)
        handed = _read_elsewhere(config, own.flags, new, request, findings, referred)
        if isinstance(handed, list):
            return [*handed, *_gone_alone(config, writer, gone_found, gone_old, gone_new)]
        shim, new, findings = handed
        # (the keys beside the model's that the shim's Trainer takes and no fix here rewrites: handed to it)
        gone_found = [f for f in gone_found if f.fixable or not _handed_key(f)]
    try:  # the keywords beside the model's are renamed in the same edit
        old_all, new_all = {**own.flags, **gone_old}, {**new, **gone_new}
        writer.rewrite(config.mapping, old_all, new_all, _order(config.mapping, old_all))
        for path in [shim] if shim is not None else []:  # (the shim's Trainer: its hardware flags as written)
            writer.retarget(config.mapping, path)
        written[-1] = {**{k: v for k, v in own.flags.items() if k not in own.order}, **new}  # merged keys
        if desired is not None:
            desired.append(dict(rewrite.flags))
    except Unwritable as exc:
        return not_fixed([*verdict.findings, *gone_found], str(exc))
    return [*findings, *gone_found]


def _alone_said(config: Config, own: Read, alone: CallSite, request: Request) -> tuple[str, ...]:
    """What a finding on a config merged with flags not known here says of it: its own flags' rewrite, the
    runtime shim, and why `--shim` does not hand it on where Hydra cannot compose it."""
    planned = request.run.plan(alone)
    said: tuple[str, ...] = ()
    if isinstance(planned, Rewrite) and not own.unknown:
        said = (f"written alone, they would be {_yaml(planned.flags)}",)
    said += ("the runtime shim: `lightning_migrate.shim.install()` before the Trainer is built",)
    return (*said, UNCOMPOSED_SHIM) if request.shim and config.composed else said


UNCOMPOSED_SHIM = (
    "`--shim` does not hand it to the runtime shim: without its compositions, what each gives the Trainer"
    " once the run has written the others is not known here, nor that each builds the shim's Trainer"
)


def _handed_key(finding: Finding) -> bool:
    """Is ``finding`` (LM007) about a key the runtime shim's Trainer takes, whatever its value
    (``SHIM_KEEPS``)?"""
    flag = _FLAG.match(finding.message)
    return finding.code == gone.CODE and flag is not None and flag[1] in SHIM_KEEPS


def _cli_findings(own: CallSite, rewrite: Rewrite) -> list[Finding]:
    """The findings of a config merged over LightningCLI defaults: its own flags' (none where it is
    written as it was)."""
    if dict(own.flags) == rewrite.flags and not rewrite.left:
        return []
    written = {*own.flags, *rewrite.flags}  # (a note on a flag another file writes is that file's)
    notes = tuple(note for note in rewrite.notes if note.partition("=")[0] in written)
    return rewrite_findings(own, replace(rewrite, notes=notes))


_ABSENT = object()
SHOWN_REFERENCES = 3  # how many references a finding names (then how many more)


def _gone_alone(
    config: Config,
    writer: Writer,
    found: list[Finding],
    old: dict[str, Known],
    new: dict[str, Known],
) -> list[Finding]:
    """The keywords beside the model's renamed or dropped alone (the hardware flags are left as written)."""
    if old:
        try:
            writer.rewrite(config.mapping, old, new, _order(config.mapping, old))
        except Unwritable as exc:
            return not_fixed(found, str(exc))
    return found


def _referred(
    config: Config, old: dict[str, Known], new: dict[str, Known], request: Request
) -> tuple[str, ...]:
    """Why a rewrite that drops, changes or adds a key that code elsewhere reads or sets (``${trainer.gpus}``,
    ``cfg.trainer.gpus = 0``: ``project.key_references``) is not written (that code would read what the
    config no longer says, or set a flag the target rejects), as the evidence of a finding: the keys, then
    each place; none where no code refers to such a key."""
    changed = [k for k in dict.fromkeys([*old, *new]) if old.get(k, _ABSENT) != new.get(k, _ABSENT)]
    referred = [key for key in changed if request.references.of(config.section, key)]
    if not referred:
        return ()
    found = [ref for key in referred for ref in request.references.of(config.section, key)]
    return _said(config.section, referred, found)


def _said(section: str, keys: list[str], found: Iterable[Ref]) -> tuple[str, ...]:
    """The evidence that code refers to ``keys`` of ``section`` a rewrite changes (``found``): the keys, then
    each place (in reading order)."""
    refs = sorted(set(found), key=lambda ref: (ref.path, ref.line, ref.column))
    named = " and ".join(f"`{section}.{key}`" for key in keys)
    more = (f"and {len(refs) - SHOWN_REFERENCES} more",) if len(refs) > SHOWN_REFERENCES else ()
    verb = "is" if len(keys) == 1 else "are"
    said = f"the rewrite changes {named}, which {verb} also read or set by:"
    return (said, *map(str, refs[:SHOWN_REFERENCES]), *more)


_FLAG = re.compile(r"`(\w+)=")  # the flag a finding's message starts with
SHIM_BUILT = "the shim's Trainer migrates the hardware flags it gets when it is built"
SHIM_WRITES = "`--shim` makes its `_target_` the runtime shim's Trainer, which keeps the keys as they are"


def _read_elsewhere(
    config: Config,
    old: dict[str, Known],
    new: dict[str, Known],
    request: Request,
    findings: list[Finding],
    referred: tuple[str, ...],
) -> tuple[str | None, dict[str, Known], list[Finding]] | list[Finding]:
    """A rewrite that changes keys code elsewhere reads (``referred``): with ``--shim``, handed to the
    runtime shim where it can be (``_to_shim``: its own ``_target_``; else ``_to_takers``: the Trainer calls
    that take it); else not written, its findings said so and why no call could take it to the shim
    (``--shim`` their remedy where it would hand them to the shim)."""
    handed = _to_shim(config, old, new, request, findings, referred)
    if handed is not None and request.shim:
        return handed
    taken: tuple[str | None, dict[str, Known], list[Finding]] | None = None
    why: tuple[str, ...] = ()
    unbuilt: tuple[str, str] | None = None
    if handed is None:
        taken, why, unbuilt = _to_takers(config, old, new, request, findings, referred)
        if taken is not None and request.shim:
            return taken
    if unbuilt is not None:  # (the calls that take its keys hand them to the shim, which cannot build them)
        findings = _no_tool(findings, unbuilt, request.run.target, referred)
    shown = not_fixed(findings, "keys read elsewhere", *referred)
    if handed is not None:
        shown = [replace(f, remedy=SHIM, details=(*f.details, SHIM_WRITES)) for f in shown]
    elif taken is not None:
        shown = [replace(f, remedy=SHIM, details=(*f.details, TAKERS_WRITE)) for f in shown]
    elif why:
        shown = [replace(f, details=(*f.details, *why)) for f in shown]
    return shown


TAKERS_WRITE = (
    "`--shim` makes the Trainer calls that take its flags build the runtime shim's Trainer, which keeps its"
    " keys as they are"
)
TAKERS_BUILD = "the Trainer calls of the run that take its flags build the runtime shim's Trainer (`--shim`):"
NO_TAKER = (
    "no Trainer call of the run takes its flags (a `**` mapping known only at run time, a read of its keys"
    " in the call's arguments, a Hydra `instantiate`): what builds the Trainer from it is outside the run"
    " (a library's code), so no rewrite here can hand it to the runtime shim; call"
    " `lightning_migrate.shim.install()` before that code builds the Trainer"
)
NOT_TAKEN = "the Trainer calls of the run that take its flags do not all build the runtime shim's Trainer:"
MERGED = (
    "its flags are merged with another config's (Hydra's `defaults:`, LightningCLI's defaults) that the run"
    " may rewrite: it is handed to the runtime shim only where its flags are all its own"
)
_INSTANTIATED = "builds what the config's `_target_` names"
_UNSHIMMED = "the Python front end does not hand it to the shim"


def _to_takers(
    config: Config,
    old: dict[str, Known],
    new: dict[str, Known],
    request: Request,
    findings: list[Finding],
    referred: tuple[str, ...],
) -> tuple[
    tuple[str | None, dict[str, Known], list[Finding]] | None, tuple[str, ...], tuple[str, str] | None
]:
    """A config (no ``_target_`` of its own) whose rewrite code elsewhere keeps from being written, handed
    to the runtime shim where every Trainer call of the run that may take its flags (``project.takers``:
    ``Trainer(**cfg.trainer)``, ``Trainer(**kwargs)`` after ``kwargs.update(cfg.trainer)``, a read of its
    keys in a call's arguments) builds the shim's Trainer, as written or once a run with ``--shim`` has
    written its file: its keys as they are (``_shim_flags``), its findings fixed so (none where every call
    builds the shim as written and no key changes: the run's fixed point). Else None, and why (the calls
    that do not build it, or that there is none: the Trainer is built outside the run), and where they all
    build it, or will, what the shim cannot build from it (``_shim_cannot_build``). Only a config whose
    flags are all its own (not one merged over a sibling it extends, LightningCLI defaults, or what Hydra
    composes with it: a rewrite of those is checked with them as the run writes them)."""
    if class_path(config.mapping) is not None:
        return None, (), None
    if config.base or config.cli is not None or config.overrides:
        return None, (MERGED,), None
    takers = request.references.takers_of(config.section)
    if not takers:
        return None, (NO_TAKER,), None
    left = [t for t in takers if not (t.built or t.by_run)]
    if left:
        shown = [f"{t} ({_INSTANTIATED if t.instantiates else _UNSHIMMED})" for t in left[:SHOWN_REFERENCES]]
        more = (f"and {len(left) - SHOWN_REFERENCES} more",) if len(left) > SHOWN_REFERENCES else ()
        return None, (NOT_TAKEN, *shown, *more), None
    computed = _shim_flags(config, old, new, request)
    if computed is None:
        return None, (), None
    flags, others = computed
    unbuilt = _shim_cannot_build(flags, request.run.target)
    if unbuilt is not None:
        return None, (unbuilt[0],), unbuilt
    named = [str(t) for t in takers[:SHOWN_REFERENCES]]
    more = (f"and {len(takers) - SHOWN_REFERENCES} more",) if len(takers) > SHOWN_REFERENCES else ()
    details = (*referred, TAKERS_BUILD, *named, *more, SHIM_BUILT)
    fix = "; fix: the runtime shim (the Trainer calls that take it build it)"
    return (None, flags, _fixed(findings, flags, others, fix, details)), (), None


def _shim_cannot_build(
    flags: Mapping[str, Known], target: Version, counted: bool = True
) -> tuple[str, str] | None:
    """Why the runtime shim cannot build on ``target`` what Lightning 1.5.10 builds from a config's
    ``flags``, on some machine, alone or (``counted``) with a device count a call may add beside them (the
    shim's own answer: ``trainers.shim_unbuilt``), and the strategy it cannot build; None where it can (a
    value only known at run time: as the call's own finding says)."""
    if any(isinstance(v, (RunTime, Choice)) for v in flags.values()):
        return None
    probe: dict[str, Value] = {k: v for k, v in flags.items() if k in PLANNED_FLAGS}  # type: ignore[misc]
    found = shim_unbuilt(probe, target, counted=counted)
    if found is None:
        return None
    given, failed = found
    name = failed.meaning.strategy.name
    said = (
        f"the runtime shim cannot hand it on: Lightning {target} cannot build the {name} strategy that"
        f" Lightning {REFERENCE} builds from it ({_yaml(given)}); no tool can keep it: move off it by hand"
    )
    return said, name


def _no_tool(
    findings: list[Finding], unbuilt: tuple[str, str], target: Version, referred: tuple[str, ...]
) -> list[Finding]:
    """The findings of a config whose hardware flags the Trainer calls that take it hand to the runtime
    shim, which cannot build what 1.5.10 built from them (``unbuilt``: why, the strategy): each on a
    hardware flag is LM103, which no tool can do for ``target`` (the shim neither, the rewrite neither: code
    reads the keys, ``referred``); the others as they are."""
    name = unbuilt[1]
    out = []
    for f in findings:
        flag = _FLAG.match(f.message)
        if flag is None or flag[1] not in PLANNED_FLAGS:
            out.append(f)
            continue
        head = f.message[: f.message.index("`", 1) + 1]
        message = (
            f"{head}: the runtime shim cannot build the {name} strategy on Lightning {target}; no tool can,"
            " move off it by hand"
        )
        details = (*f.details, *referred)  # (then why: ``_read_elsewhere``)
        out.append(replace(f, code="LM103", message=message, fixable=False, details=details, remedy=""))
    return out


def _built_by_takers(config: Config, request: Request) -> bool:
    """Is ``config`` (no ``_target_`` of its own, its flags all its own) taken only by Trainer calls of the
    run that build the runtime shim's Trainer as written (a run with ``--shim`` handed it so: its fixed
    point)? Then its hardware flags are the shim's, as in a config whose ``_target_`` is the shim's; not
    where the shim cannot build what 1.5.10 built from them (judged, and reported, as any other config)."""
    if config.base or config.cli is not None or config.overrides or config.composed:
        return False
    takers = request.references.takers_of(config.section)
    if not takers or not all(t.built for t in takers) or class_path(config.mapping) is not None:
        return False
    return _shim_cannot_build(read(config.mapping).flags, request.run.target) is None


def _shim_flags(
    config: Config, old: dict[str, Known], new: dict[str, Known], request: Request
) -> tuple[dict[str, Known], list[str]] | None:
    """The flags a config handed to the runtime shim writes: the hardware flags the shim translates
    (``PLANNED_FLAGS``) as written, for the code that reads them; the rewrite's other keys, which the shim
    passes on as they are, in the target's form (``replace_sampler_ddp`` is ``use_distributed_sampler``);
    and those other keys that change. None where a key the rewrite changes beside the hardware flags is read
    elsewhere too."""
    kept = {k: v for k, v in old.items() if k in PLANNED_FLAGS}
    flags = {**kept, **{k: v for k, v in new.items() if k not in PLANNED_FLAGS}}
    changed = [k for k in dict.fromkeys([*old, *flags]) if old.get(k, _ABSENT) != flags.get(k, _ABSENT)]
    if any(request.references.of(config.section, key) for key in changed):
        return None
    return flags, [k for k in changed if k not in PLANNED_FLAGS]


def _fixed(
    findings: list[Finding], flags: dict[str, Known], others: list[str], fix: str, details: tuple[str, ...]
) -> list[Finding]:
    """The findings of a config handed to the runtime shim, fixed so (``fix``); a finding on a key beside
    the hardware flags names that key as the rewrite writes it."""
    beside = ", ".join(f"{k}={flags[k]!r}" if k in flags else f"no {k}=" for k in others)
    fixed = []
    for f in findings:
        flag = _FLAG.match(f.message)
        said = f"; fix: {beside} for the shim's Trainer" if flag and flag[1] in others else fix
        message = f.message.partition("; ")[0] + said
        fixed.append(replace(f, message=message, fixable=True, details=(*f.details, *details)))
    return fixed


def _to_shim(
    config: Config,
    old: dict[str, Known],
    new: dict[str, Known],
    request: Request,
    findings: list[Finding],
    referred: tuple[str, ...],
) -> tuple[str, dict[str, Known], list[Finding]] | None:
    """With ``--shim``, a Hydra config whose rewrite code elsewhere keeps from being written (it reads the
    config's keys) and that builds Lightning's Trainer itself (its own ``_target_``) builds the runtime
    shim's Trainer instead: the shim's ``_target_``, the flags to write (the hardware flags the shim
    translates, ``PLANNED_FLAGS``, as written, for that code; the rewrite's other keys, which the shim
    passes on as they are, in the target's form: ``replace_sampler_ddp`` is ``use_distributed_sampler``)
    and the findings, fixed so. Every composition the config takes part in then gets the shim's Trainer
    (another config that sets a ``_target_`` over it is a Trainer config of its own). None where a key the
    rewrite changes beside the hardware flags is read elsewhere too."""
    named = class_path(config.mapping)
    if named is None or named[0] != "_target_" or named[1] not in TRAINER_NAMES:
        return None
    computed = _shim_flags(config, old, new, request)
    if computed is None:
        return None
    flags, others = computed
    shim = shim_trainer(named[1])
    fix = f"; fix: the runtime shim (`_target_: {shim}`)"
    return shim, flags, _fixed(findings, flags, others, fix, (*referred, SHIM_BUILT))


def _shimmed(
    config: Config,
    writer: Writer,
    request: Request,
    spans: list[Span],
    written: list[dict[str, Known] | None],
) -> list[Finding]:
    """A config whose ``_target_`` is the runtime shim's Trainer, which migrates its hardware flags when it
    is built: only the keys beside them are judged (``_untaken``, and those the target renames or drops)."""
    written.append(None)
    own = read(config.mapping)
    line, column = config.mapping.lc.key(own.order[0]) if own.order else config.start
    held = (line + 1, column + 1) in request.run.leave
    found, old, new = _gone_keys(config, request, held, shim=True)  # (the shim's Trainer takes some)
    if own.order or found:
        spans.append(_span(config, writer.doc))
    unbuilt = _unbuilt(config, own.flags, request.run.target) if config.shimmed else []
    untaken = _untaken(config, own.flags, request.run.target)
    return [*unbuilt, *untaken, *_gone_alone(config, writer, found, old, new)]


def _unbuilt(config: Config, flags: dict[str, Known], target: Version) -> list[Finding]:
    """A config whose ``_target_`` is the runtime shim's Trainer whose hardware flags the shim cannot build
    on ``target`` where 1.5.10 builds them (LM103, at its first hardware key: no tool can)."""
    unbuilt = _shim_cannot_build(flags, target, counted=False)
    keys = [key for key in flags if key in PLANNED_FLAGS and key in config.mapping._ok]
    if unbuilt is None or not keys:
        return []
    line, column = config.mapping.lc.key(keys[0])
    said = f"{_yaml({k: flags[k] for k in keys})}: the runtime shim cannot build the {unbuilt[1]} strategy"
    message = f"{said} on Lightning {target}; no tool can, move off it by hand"
    return [Finding(line + 1, column + 1, "LM103", message, False, details=(unbuilt[0],))]


def _untaken(config: Config, flags: dict[str, Known], target: Version) -> list[Finding]:
    """The flags of a config that builds the shim's Trainer that the shim does not translate and ``target``
    lacks (LM007): the shim passes them on as they are, and the target's Trainer rejects them."""
    found = []
    for key in flags:
        if key in PLANNED_FLAGS or key in SHIM_KEEPS or key not in config.mapping._ok or accepts(key, target):
            continue
        line, column = config.mapping.lc.key(key)
        message = f"Lightning {target} has no `{key}=`, which the runtime shim passes on; remove it by hand"
        found.append(Finding(line + 1, column + 1, "LM007", message, False))
    return found


def _uncomposed(config: Config, why: str) -> Config:
    """A composed config judged without its compositions, the reason said with the rest unknown."""
    return replace(config, overrides=f"{config.overrides} ({why})") if config.composed else config


@dataclass(frozen=True)
class _Composed:
    """A composition whose config the rewrite changed, and the flags it must then give the Trainer."""

    composition: hydra.Composition
    desired: dict[str, Known]
    start: tuple[int, int]


def _composed(
    config: Config,
    text: str,
    writer: Writer,
    request: Request,
    spans: list[Span],
    written: list[dict[str, Known] | None],
    checks: list[_Composed],
    depth: int = 0,
) -> list[Finding]:
    """A config Hydra composes with others: judged over what each composition merges below it, and
    rewritten where every composition needs the same rewrite (reported, with the compositions named, where
    they need different ones). A config every composition of which builds the runtime shim's Trainer, on
    disk or once this run has written the others (``_handed_by_run``, with ``depth`` checks), is a shim
    config."""
    if config.start in request.refused:
        return _config(_uncomposed(config, request.refused[config.start]), writer, request, spans, written)
    found = compose.variants(config, request.path, text)
    if isinstance(found, str):
        return _config(_uncomposed(config, found), writer, request, spans, written)
    if all(variant.config.shimmed for variant in found):  # (every composition builds the shim's Trainer)
        return _shimmed(config, writer, request, spans, written)
    if request.shim and _handed_by_run(config, found, text, request, depth):
        return _shimmed(config, writer, request, spans, written)
    if request.shim:  # (a rewrite that cannot be written, judged on a scratch copy: handed to the shim?)
        scratch = Writer(Document(text), writer.capitalized)
        tried = _judged_composed(config, text, scratch, request, [], [], [], found)
        if any(not f.fixable for f in tried):
            handed = _handed_composed(config, found, text, writer, request, spans, written, depth, tried)
            if not isinstance(handed, tuple):
                return handed
            if handed:  # (why it is not handed to the shim, said where the rewrite is not written)
                findings = _judged_composed(config, text, writer, request, spans, written, checks, found)
                return [_unhanded(f, handed) if not f.fixable else f for f in findings]
    findings = _judged_composed(config, text, writer, request, spans, written, checks, found)
    left = [f for f in findings if not f.fixable and not f.remedy]
    if left and not request.shim and _handed_by_run(config, found, text, replace(request, shim=True), depth):
        # (the run with `--shim` hands its base to the shim, whose Trainer takes these flags: its remedy)
        why = "`--shim` hands the config it extends to the runtime shim, whose Trainer takes its flags"
        return [replace(f, remedy=SHIM, details=(*f.details, why)) if f in left else f for f in findings]
    if left and not request.shim:  # (a run with `--shim` would hand it to the shim: its remedy)
        scratch = Writer(Document(text), writer.capitalized)
        asking = replace(request, shim=True)
        if not isinstance(
            _handed_composed(config, found, text, scratch, asking, [], [], depth, findings), tuple
        ):
            return [
                replace(f, remedy=SHIM, details=(*f.details, SHIM_HANDS)) if f in left else f
                for f in findings
            ]
    return findings


SHIM_HANDS = (
    "`--shim` hands it to the runtime shim, whose Trainer takes its flags as written: every composition of it"
    " builds the shim's Trainer once that run has written its folder"
)


def _judged_composed(
    config: Config,
    text: str,
    writer: Writer,
    request: Request,
    spans: list[Span],
    written: list[dict[str, Known] | None],
    checks: list[_Composed],
    found: list[compose.Variant],
) -> list[Finding]:
    """``_composed``'s config judged over each of its compositions (``found``)."""
    tried = []
    for variant in found:
        scratch = Writer(Document(text), writer.capitalized)
        desired: list[dict[str, Known]] = []
        findings = _config(variant.config, scratch, request, [], [], desired)
        tried.append((variant, findings, scratch.doc.edits, desired))
    if any(edits != tried[0][2] for _, _, edits, _ in tried):
        written.append(None)
        spans.append(_span(config, writer.doc))
        own = read(config.mapping)
        line, column = config.mapping.lc.key(own.order[0]) if own.order else config.start
        names = ", ".join(f"`{variant.composition.name}`" for variant, *_ in tried)
        message = f"`{cut(_written(own.order))}`: compositions need different rewrites; {ADVICE}"
        why = f"this Hydra config takes part in compositions that need different rewrites: {names}"
        return [Finding(line + 1, column + 1, "LM101", message, False, details=(why,))]
    findings = _config(found[0].config, writer, request, spans, written)
    for variant, _, edits, desired in tried:
        if edits and desired:
            checks.append(_Composed(variant.composition, desired[0], config.start))
    return findings


def _handed_by_run(
    config: Config, found: list[compose.Variant], text: str, request: Request, depth: int
) -> bool:
    """With ``--shim``, does every composition of ``config`` (no ``_target_`` of its own: a group file that
    extends another, `defaults: [default]`) build the runtime shim's Trainer once this run has written the
    other configs of its folder (its base handed to the shim: ``_to_shim``)? Then it is judged as a shim
    config now, as the next run would judge it (one run reaches the fixed point). The others are written as
    the run writes them, with ``depth - 1`` checks, where the run writes every one of them that changes (its
    ``configs``); this file as it is."""
    if not request.shim or depth < 1 or class_path(config.mapping) is not None or str(request.path) == "-":
        return False
    if not all(variant.target in TRAINER_NAMES for variant in found):
        return False  # (a composition that builds no Lightning Trainer: no shim hands it one)
    writes = _writes(depth - 1, request.commands, _Held(request))
    for variant in found:
        changed = compose.migrated_folder(variant.composition.primary.config_dir, request.run, writes)
        if any(path not in request.configs for path, _ in changed):
            return False  # (a file this run does not write: it is not handed to the shim here)
        try:
            _, target = compose.composed_read(
                variant.composition, {request.path.resolve(): text}, request.run, writes
            )
        except (hydra.ComposeError, SourceError):
            return False
        if target not in SHIM_TRAINERS:
            return False
    return True


class _Held:
    """A file's request, compared by the run's knowledge it carries (identity) and its options: the other
    files of the folder are written alike for every file of the run."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self.key = (
            request.run,
            request.shim,
            request.commands,
            request.configs,
            *map(id, (request.subclasses, request.clis, request.loaded, request.references)),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Held) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


HANDED_COMPOSED = (
    "`--shim` hands it to the runtime shim: every composition of it builds the shim's Trainer once the run"
    " has written its folder, and gives it the hardware flags it gave Lightning's, as written"
)


def _handed_composed(
    config: Config,
    found: list[compose.Variant],
    text: str,
    writer: Writer,
    request: Request,
    spans: list[Span],
    written: list[dict[str, Known] | None],
    depth: int,
    tried: list[Finding],
) -> list[Finding] | tuple[str, ...]:
    """With ``--shim``, a group file with no ``_target_`` of its own that extends another (``defaults:
    [default]``) whose rewrite cannot be written (code elsewhere reads its keys, a key no fix here rewrites:
    ``tried``'s findings) is handed to the runtime shim where every composition of it builds the shim's
    Trainer and gets from it what it got before (issue 24, part 7): its compositions name Lightning's
    Trainer (the file gets the shim's ``_target_`` of its own, over its base's) or none, and every Trainer
    call of the run that takes its group builds the shim's (``project.takers``: as written or once the run
    has written it; a Hydra ``instantiate``, which builds what the node names, only where it names one);
    and each composition, once the run has written the other files of its folder and this one as handed
    (its keys beside the hardware flags as a shim config writes them: ``_shimmed``), gives the Trainer the
    hardware flags it gave it before, as written (the shim gives them 1.5.10's meaning), and no key the
    target lacks that the shim passes on (``_compositions_kept``). Where it cannot be handed (judged as
    before), why (empty: as its findings say)."""
    if depth < 1 or class_path(config.mapping) is not None or str(request.path) == "-":
        return ()
    targets = {variant.target for variant in found}
    target = targets.pop() if len(targets) == 1 else ""
    first = next((k for k in config.mapping if isinstance(k, str) and k != "defaults"), None)
    takers = request.references.takers_of(config.section)
    if not takers:
        return (NO_TAKER,)
    left = [t for t in takers if not (t.built or t.by_run or (t.instantiates and target))]
    if left:  # (a call that builds Lightning's Trainer from it: not handed here)
        shown = [f"{t} ({_INSTANTIATED if t.instantiates else _UNSHIMMED})" for t in left[:SHOWN_REFERENCES]]
        more = (f"and {len(left) - SHOWN_REFERENCES} more",) if len(left) > SHOWN_REFERENCES else ()
        return (NOT_TAKEN, *shown, *more)
    if target is None:
        shim: str | None = None
        fix = "; fix: the runtime shim (the Trainer calls that take it build it)"
        settled = all(t.built for t in takers)  # (the run's fixed point: the calls build the shim as written)
    elif target in TRAINER_NAMES and first is not None:
        shim = shim_trainer(target)
        fix = f"; fix: the runtime shim (`_target_: {shim}`)"
        settled = False
    else:
        return ()
    # (its keys beside the hardware flags as a shim config writes them, over the base of each composition:
    # one text for all)
    texts = set()
    for variant in found:
        attempt = Writer(Document(text), writer.capitalized)
        try:
            if shim is not None and first is not None:
                attempt.add_target(config.mapping, first, shim)
            _shimmed(replace(variant.config, shimmed=True), attempt, request, [], [])
        except Unwritable:
            return ()
        texts.add(attempt.doc.result() if attempt.doc.edits else text)
    if len(texts) != 1:
        return ()
    new = texts.pop()
    why = _compositions_kept(found, new, shim, request, depth)
    if why is not None:
        return why
    if shim is not None and first is not None:
        writer.add_target(config.mapping, first, shim)
    findings = _shimmed(replace(found[0].config, shimmed=True), writer, request, spans, written)
    if settled:
        return findings
    said = {(f.line, f.column, f.code) for f in findings}
    for f in tried:
        if (f.line, f.column, f.code) in said:
            continue
        message = f.message.partition("; ")[0] + fix
        details = tuple(d for d in f.details if d not in _UNHANDED)
        findings.append(replace(f, message=message, fixable=True, details=(*details, HANDED_COMPOSED)))
    return sorted(findings, key=lambda f: (f.line, f.column))


# (what a finding of a rewrite that cannot be written says of it, not said once it is handed to the shim)
_UNHANDED = frozenset({"the fix is then to write by hand", MERGED, NOT_TAKEN, NO_TAKER})


CHANGED_COMPOSED = (
    "with `--shim`, it is not handed to the runtime shim: once the run has written its folder, a composition"
    " of it would give the Trainer other hardware flags than it gave before (the config it extends is"
    " rewritten)"
)


def _unhanded(finding: Finding, why: tuple[str, ...]) -> Finding:
    """``finding`` of a rewrite that is not written, with why its config is not handed to the shim."""
    details = tuple(d for d in finding.details if d != MERGED)
    return replace(finding, details=(*details, *why))


def _compositions_kept(
    found: list[compose.Variant], new: str, shim: str | None, request: Request, depth: int
) -> tuple[str, ...] | None:
    """Does each composition of ``found``, once the run has written its folder (this file as ``new``),
    build the Trainer ``shim`` names (None: a node with no ``_target_``) and give it the hardware flags it
    gave before, as written, and no key the target lacks that the shim passes on? None where it does; else
    why not (empty: as the findings say)."""
    writes = _writes(depth - 1, request.commands, _Held(request))
    for variant in found:
        changed = compose.migrated_folder(variant.composition.primary.config_dir, request.run, writes)
        if any(path not in request.configs for path, _ in changed):
            return ()  # (a file this run does not write: what the composition gets is not known here)
        try:
            before, _ = compose.composed_read(variant.composition)
            after, named = compose.composed_read(
                variant.composition, {request.path.resolve(): new}, request.run, writes
            )
        except (hydra.ComposeError, SourceError):
            return ()
        if named != shim or before.unknown or after.unknown:
            return ()
        kept = _hardware(before.flags) == _hardware(after.flags)
        if not kept and not _rewritten_alike(before.flags, after.flags, variant.config.since, request.run):
            return (f"{CHANGED_COMPOSED}: `{variant.composition.name}`",)
        target = request.run.target
        lacks = [k for k in after.flags if k not in PLANNED_FLAGS | SHIM_KEEPS and not accepts(k, target)]
        if lacks:
            return ()
        unbuilt = _shim_cannot_build(before.flags, target)
        if unbuilt is not None:
            return (unbuilt[0],)
    return None


def _rewritten_alike(
    before: Mapping[str, Known], after: Mapping[str, Known], since: Version, run: Run
) -> bool:
    """Are the hardware flags a composition gives the Trainer ``after`` the run the target's own (the run
    rewrote the config it extends), building on the target what the planner's rewrite of those ``before``
    builds? The shim passes such flags to the Trainer as written."""
    new = {k: v for k, v in after.items() if k in PLANNED_FLAGS}
    if any(isinstance(v, (RunTime, Choice)) for v in new.values()):
        return False
    if any(not accepts(k, run.target) for k in new):
        return False
    planned = run.plan(CallSite(1, 1, {k: v for k, v in before.items() if k in PLANNED_FLAGS}, since))
    return isinstance(planned, Rewrite) and builds_the_same(new, dict(planned.flags), run.target)  # type: ignore[arg-type]


def _hardware(flags: Mapping[str, Known]) -> dict[str, object]:
    """The hardware flags the runtime shim translates (``PLANNED_FLAGS``), as written."""
    return {
        k: ("run time", v.text) if isinstance(v, RunTime) else v
        for k, v in flags.items()
        if k in PLANNED_FLAGS
    }


def _composed_again(
    text: str,
    new: str,
    composed: list[_Composed],
    rewritten: list[tuple[int, int]],
    bases: list[tuple[int, int]],
    request: Request,
    checks: int,
) -> Migrated | None:
    """Compose again after the rewrite (the other configs of the folder as written with ``checks - 1``):
    each composition must give the Trainer what the planner's rewrite gives it, each composition of a group
    file that extends a rewritten one of the ``bases`` what the planner's rewrite of it gives
    (``_extenders_changed``), and each Hydra command line of the run over the folder what it gave
    (``_commands_changed``). Where one does not, the file is migrated again with its config reported (the
    configs it ``rewritten``, for a command line), not rewritten."""
    refused: dict[tuple[int, int], str] = {}
    plain = replace(request.run, leave=frozenset())
    written = written_with(checks - 1, request.commands)
    for check in composed:
        name = check.composition.name
        try:
            got = compose.composed_flags(check.composition, {request.path.resolve(): new}, plain, written)
        except (hydra.ComposeError, SourceError) as exc:
            refused[check.start] = f"Hydra cannot compose `{name}` after the rewrite: {exc}"
            continue
        if not _same(got, check.desired, request.run.target):
            refused[check.start] = (
                f"composed by Hydra after the rewrite, `{name}` would give the Trainer {_yaml(got)}, not"
                f" {_yaml(check.desired)}"
            )
    changed = _commands_changed(new, request, plain, written)
    for start in rewritten if changed else []:
        refused.setdefault(start, changed)
    extended = _extenders_changed(new, request, plain, checks) if set(bases) - set(refused) else ""
    for start in bases if extended else []:
        refused.setdefault(start, extended)
    if not refused:
        return None
    return migrate(text, replace(request, refused={**request.refused, **refused}), checks)


def _extenders_changed(new: str, request: Request, run: Run, checks: int) -> str:
    """Why the rewrite of a whole group file that others of its group extend (``defaults: [default]``:
    ``compose.extenders``) is not written where it changes what a composition it feeds (each of those files,
    the primaries and experiments that choose it or them: ``compose.fed``) gives the Trainer otherwise than
    the planner's rewrite of that composition, with those compositions named; "" where it changes none. The
    other configs are composed as the run writes them (with ``checks - 1``) and as their own rewrites would
    be written unchecked: the run writes one of the two, whichever it is once this file is decided."""
    if str(request.path) == "-":
        return ""
    others = compose.extenders(request.path)
    if others and not hydra.available():
        names = ", ".join(f"`{other.name}`" for other in others)
        return f"files of its group extend it ({names}), and Hydra composes them over it: {hydra.INSTALL}"
    named: list[str] = []
    for composition in compose.fed(request.path, others) if others else []:
        try:
            before, target = compose.composed_read(composition)
        except (hydra.ComposeError, SourceError):
            continue  # (Hydra refuses it as it is: its run fails loudly before the rewrite)
        since = _since(target) if target is not None else RELEASES[0]
        for depth in dict.fromkeys((checks - 1, 0)):
            written = written_with(depth, request.commands)
            if not _extension_kept(composition, before, since, (request.path.resolve(), new), run, written):
                named.append(f"`{composition.name}`")
                break
    if not named:
        return ""
    return (
        "files of its group extend it, and composed by Hydra after the rewrite (with those files as the run"
        " writes them),"
        f" {', '.join(named)} would not give the Trainer what the planner's rewrite gives it;"
        " change them with it by hand"
    )


def _extension_kept(
    composition: hydra.Composition,
    before: Read,
    since: Version,
    rewritten: tuple[Path, str],
    run: Run,
    migrate: compose.Migrate,
) -> bool:
    """Whether ``composition`` gives the Trainer, over the configs of its folder as ``migrate`` writes them
    and the ``rewritten`` file (path, new text), what it gives with that file as it is (its rewrite changes
    nothing there), what it gave (``before``), or the planner's rewrite of that; a run that the target
    rejects loudly both ways, or that no release builds, is kept too."""
    path, text = rewritten
    try:
        after, _ = compose.composed_read(composition, {path: text}, run, migrate)
        left, _ = compose.composed_read(composition, {path: path.read_text(encoding="utf-8")}, run, migrate)
    except (hydra.ComposeError, SourceError, OSError, UnicodeDecodeError):
        return False
    if compose.as_left(after) in (compose.as_left(before), compose.as_left(left)):
        return True
    if before.unknown or after.unknown:
        return False
    decision = run.plan(CallSite(0, 0, before.flags, since))
    if isinstance(decision, Rewrite):
        return _same(after.flags, dict(decision.flags), run.target)
    if isinstance(decision, Refusal) and decision.nowhere:
        return True  # (no release builds it on any machine: the run has no training to keep)
    values = [before.flags, after.flags]
    if any(isinstance(v, (RunTime, Choice)) for flags in values for v in flags.values()):
        return False
    old, new = before.flags, after.flags
    return compose.same_outcome(old, new, run.target) or compose.fails_both(old, new, run.target)  # type: ignore[arg-type]


def _commands_changed(new: str, request: Request, run: Run, written: compose.Migrate) -> str:
    """Why the rewrite is not written where it changes what a command line of the run gives the Trainer (a
    Hydra override of a Trainer flag, left as written or rewritten otherwise: ``compose.command_changed``),
    with those command lines named; "" where it changes none."""
    lines = request.commands.over(request.path) if str(request.path) != "-" else ()
    changed: dict[tuple[object, ...], bool] = {}  # (command lines that compose alike are judged once)
    named: list[str] = []
    for line in lines:
        composition = line.composition()
        key = (composition, line.trainer) if composition is not None else (line,)
        if key not in changed:
            changed[key] = compose.command_changed(line, request.path, new, run, written, ADVICE)
        if changed[key]:
            named.append(line.where)
    if not named:
        return ""
    shown = ", ".join(named[:SHOWN_REFERENCES])
    more = f" and {len(named) - SHOWN_REFERENCES} more" if len(named) > SHOWN_REFERENCES else ""
    return (
        f"the rewrite would change what the Hydra command line {shown}{more} (its overrides left as"
        " written, or not composed here) gives the Trainer; change them with it by hand"
    )


def _same(got: dict[str, Known], desired: dict[str, Known], target: Version) -> bool:
    if _as_written(got) == _as_written(desired):
        return True
    values = [got, desired]
    if any(isinstance(v, (RunTime, Choice)) for flags in values for v in flags.values()):
        return False
    return builds_the_same(got, desired, target)  # type: ignore[arg-type]


def written_with(checks: int, commands: hydra.CommandLines = hydra.NO_COMMANDS) -> compose.Migrate:
    """A config file as written by ``migrate`` with ``checks`` and the run's Hydra ``commands``."""
    return _writes(checks, commands, None)


@run_cache.per_run(64)
def _writes(checks: int, commands: hydra.CommandLines, held: _Held | None) -> compose.Migrate:
    """A config file as the run writes it, with ``checks`` and the run's Hydra ``commands``; ``held``: the
    run's request for another file, whose options and project it shares (None: those of a bare request).
    One function for each: the folders it writes are remembered by it."""
    request = held.request if held is not None else None
    return functools.partial(_as_run_writes, checks=checks, commands=commands, request=request)


def _as_run_writes(
    text: str, path: Path, run: Run, checks: int, commands: hydra.CommandLines, request: Request | None = None
) -> str:
    """The file as the run writes it: a config whose fixable finding a ``# noqa`` suppresses is left
    (``request``: the run's request for another file, whose options and project it shares)."""
    asked = Request(run, commands=commands) if request is None else replace(request, run=run, refused={})
    migrated = migrate(text, replace(asked, path=path), checks)
    left = frozenset((f.line, f.column) for f in migrated.suppress(migrated.findings).suppressed if f.fixable)
    if left and migrated.code != text:
        migrated = migrate(text, replace(asked, run=replace(run, leave=left), path=path), checks)
    return migrated.code


def _order(mapping: CommentedMap, keys: Mapping[str, object]) -> list[str]:
    """The mapping's own keys among ``keys``, in written order."""
    return [key for key in mapping if key in keys and key in mapping._ok]


def _gone_keys(
    config: Config, request: Request, held: bool, shim: bool = False
) -> tuple[list[Finding], dict[str, Known], dict[str, Known]]:
    """The config's own keys beside the model's that the target rejects or deprecates (LM007, ``gone``):
    the findings, and the keys the rewrite renames or drops with their old and new values (none of those
    the runtime shim's Trainer takes where it builds the config, ``shim``: ``trainers.shim_takes``). A
    config whose other flags come from elsewhere (merged, overridden) or one to leave is only reported."""
    target = request.run.target
    mapping = config.mapping
    written: dict[str, object] = {}
    for key in mapping:
        if not isinstance(key, str):
            continue
        read = gone.concerns(key, target) or key in gone.READ
        read_it, value = known_value(mapping[key]) if read else (False, None)
        written[key] = value if read_it else gone.RUN_TIME
    # (keys merged in with `<<` are shared with other configs: a rename there is not this config's to make)
    opaque = bool(config.overrides) or any(key not in mapping._ok for key in mapping)
    taken = frozenset(k for k, value in written.items() if shim and shim_takes(k, value))
    findings: list[Finding] = []
    for key in _order(mapping, written):  # (Lightning 0.x's keywords: every release raises for them)
        ancient = gone.ancient(key)
        if ancient is not None:
            line, column = mapping.lc.key(key)
            findings.append(
                Finding(line + 1, column + 1, gone.ANCIENT_CODE, ancient[0], False, details=ancient[1])
            )
    old: dict[str, Known] = {}
    new: dict[str, Known] = {}
    # (no callback is written into a config: its `callbacks` are objects to instantiate, or another file's)
    for judged in gone.judge(written, target, opaque, unsafe=request.run.unsafe, fixes=True):
        if judged.old in taken:
            continue
        own = judged.old in mapping._ok
        line, column = mapping.lc.key(judged.old) if own else config.start
        remedy = judged.remedy if own and not held else ""  # (the fix is made only where it is written)
        fixable = judged.fixable and own
        findings.append(
            Finding(
                line + 1,
                column + 1,
                gone.CODE,
                judged.message,
                fixable,
                details=judged.details,
                remedy=remedy,
            )
        )
        if judged.edit is None or held or not own:
            continue
        refs = request.references.of(config.section, judged.old)
        if (
            refs
        ):  # (code reads the key the fix renames or drops: it would read what the config no longer says)
            findings[-1] = not_fixed(
                [findings[-1]], "keys read elsewhere", *_said(config.section, [judged.old], refs)
            )[0]
            continue
        old[judged.old] = written[judged.old]  # type: ignore[assignment]
        keyword, value = judged.edit
        if keyword is not None:
            new[keyword] = value
            if keyword in written and keyword != judged.old:  # (a key the fix sets that is written too)
                old[keyword] = written[keyword]  # type: ignore[assignment]
    return findings, old, new


# What the trainer config a Hydra config is merged into may set: no hardware flag, GPUs, TPUs, a training
# type, in 1.x's words and in the `strategy=` API's.
_MERGED_INTO: tuple[dict[str, Value], ...] = (
    {},
    {"gpus": 2},
    {"tpu_cores": 8},
    {"accelerator": "ddp", "gpus": 2},
    {"accelerator": "gpu", "devices": 2},
    {"accelerator": "tpu", "devices": 8},
    {"strategy": "ddp", "accelerator": "gpu", "devices": 2},
)


def written_since(flags: Mapping[str, Known]) -> Version:
    """The oldest release that builds a config's own ``flags`` over any of the trainer configs it may be
    merged into (``_MERGED_INTO``) on some machine: an older one rejects them whatever they are merged
    into, so they cannot be written for it (``precision: 16-mixed`` is 2.0's)."""
    values = {k: v for k, v in flags.items() if not isinstance(v, (RunTime, Choice))}
    for release in RELEASES:
        for base in _MERGED_INTO:
            merged = {**base, **values}
            ask = interpreter(merged)
            if any(isinstance(ask(release, machine).outcome, Setup) for machine in machines(merged)):
                return release
    return RELEASES[0]  # (none builds them: that says nothing of the release they are for)


def _merged_keys_kept(
    mapping: CommentedMap, own: list[str], flags: dict[str, Known], desired: dict[str, Known]
) -> None:
    """A flag the config gets from a merged mapping (``<<: *hardware``) is shared with others: a rewrite
    that must change it is not written."""
    for key, value in flags.items():
        if key in mapping and key not in own and (key not in desired or desired[key] != value):
            raise Unwritable(f"`{key}` comes from a merged mapping (`<<`), shared with other configs")


def _own_flags(
    config: Config, own: dict[str, Known], desired: dict[str, Known], request: Request
) -> dict[str, Known]:
    """The flags the config itself must write so that, over the flags of the sibling it extends (as that
    sibling is migrated) or the LightningCLI defaults it is merged over (as the run rewrites them), the
    Trainer gets ``desired``."""
    if not config.base:
        return desired
    if config.cli is not None:
        under = config.cli.base_new
        written = written_over(dict(under) if under is not None else config.base, own, desired)
        if written is None:
            raise Unwritable("a flag the CLI merges under it (its `trainer_defaults`) would have to be unset")
        return written
    base = request.run.plan(CallSite(0, 0, config.base, config.since))
    if isinstance(base, Refusal):
        raise Unwritable("the config it extends cannot be migrated")
    base_new = base.flags if isinstance(base, Rewrite) else config.base
    stale = [key for key in base_new if key not in desired]
    if stale:
        raise Unwritable(f"`{stale[0]}` of the config it extends would have to be unset")
    return {k: v for k, v in desired.items() if k in own or k not in base_new or base_new[k] != v}


def _span(config: Config, doc: Document) -> Span:
    """The lines a ``# noqa`` comment may be on: the config's (its ``trainer:`` key and its value)."""
    line, column = config.start
    end = len(doc.starts) - 1 if config.root else doc.block_end(line, column)
    return (line + 1, 0, end + 1, len(doc.line(end).encode()))


def _written(keys: list[str]) -> str:
    return ", ".join(keys) if keys else "trainer"


def _yaml(flags: Mapping[str, Known]) -> str:
    return ", ".join(f"`{key}: {value!r}`" for key, value in flags.items())


def _objects_in(mapping: CommentedMap) -> set[int]:
    """The mappings under the config's flags (the objects they build)."""
    return {id(found) for key in mapping if key in MODELLED for found in mappings(mapping[key])}


def _plugin_objects(document: Any, planned: set[int], writer: Writer, run: Run) -> list[Finding]:
    """A ``*Plugin`` training-type object the file builds outside a Trainer config (a Hydra ``strategy``
    group file, a callback's argument) becomes the object the target needs to build the same strategy (its
    class renamed, an argument added where a default changed: ``DDPPlugin`` searched for unused parameters),
    as the planner rewrites it in a Trainer call (LM005); where there is none, it is reported."""
    findings: list[Finding] = []
    if run.target < V16:
        return findings
    for mapping in mappings(document):
        named = class_path(mapping)
        cls = lightning_class(named[1]) if named is not None else None
        row = lookup(cls) if cls is not None else None
        if id(mapping) in planned or named is None or row is None or not row.renamed_to:
            continue
        line, column = mapping.lc.value(named[0])
        where = (line + 1, column + 1)
        old = value_of(mapping)
        problem, new = _object_for_target(old, run)
        if new is not None and isinstance(old, Obj):
            try:
                writer.edit_object(mapping, old, new)
            except Unwritable as exc:
                problem = f"{exc}; change it by hand"
        if problem is None and new is not None:
            message = f"`{cut(repr(old))}` is renamed; fix: `{cut(repr(new))}`"
            why = f"training-type `*Plugin` classes were renamed `*Strategy`: `{old}` is now `{new}`"
            findings.append(Finding(*where, "LM005", message, True, details=(why,)))
        else:
            findings.append(_not_renamed(where, str(cls), str(problem)))
    return findings


def _not_renamed(where: tuple[int, int], cls: str, problem: str) -> Finding:
    """An old class a config builds that is left as written (LM005): why, on the line where it fits, else
    as the evidence."""
    said = f"`{cls}`: {problem}"
    if len(said) <= MESSAGE_WIDTH:
        return Finding(*where, "LM005", said, False)
    return Finding(*where, "LM005", f"`{cls}` is not renamed; change it by hand", False, details=(problem,))


def _object_for_target(old: object, run: Run) -> tuple[str | None, Obj | None]:
    """The object the target needs to build what ``old`` built as a strategy (asked of the planner with a
    1.4-style call that uses it), or why there is none."""
    if not isinstance(old, Obj):
        return "its arguments are only known at run time; change it by hand", None
    decision = run.plan(CallSite(0, 0, {"plugins": [old], "gpus": 2}))
    if isinstance(decision, Refusal):
        return f"{decision.message.split(';')[0]}; change it by hand", None
    new = decision.flags.get("strategy") if isinstance(decision, Rewrite) else None
    if not isinstance(new, Obj) or not derived(old, new):
        return f"Lightning {run.target} has no object that builds the same strategy; change it by hand", None
    return None, new
