"""Hydra overrides of a script's Trainer config on a command line (``trainer.gpus=4 +trainer.num_nodes=2``),
composed by Hydra with the script's primary config and the command's other overrides (``experiment=x``):
the Trainer gets the composed node, so that is what the planner judges. The rewrite is the overrides that
give the Trainer the planner's flags over the configs as the run writes them: ``trainer.gpus=4`` becomes
``+trainer.devices=4 trainer.accelerator=cuda ...`` (``+`` only where the composed config lacks the key,
``~trainer.KEY`` where it has one the target must not get); it is composed again and checked before it is
written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lightning_migrate.files.text import Unwritable
from lightning_migrate.frontends.shell.command_line import FLAVOURS, Site
from lightning_migrate.frontends.shell.words import quoted
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.knowledge import Choice, Known, RunTime
from lightning_migrate.plan.planner import builds_the_same
from lightning_migrate.plan.site_judge import Unknown, judge, not_fixed
from lightning_migrate.project import hydra
from lightning_migrate.report.findings import Finding
from lightning_migrate.semantics.model import Value, Version
from lightning_migrate.semantics.signature import MODELLED

Edits = list[tuple[int, int, str]]


def composed(
    site: Site, view: str, position: Callable[[int], tuple[int, int]], run: Run, advice: str
) -> tuple[list[Finding], Edits] | str:
    """The findings on the Trainer flags the command's composition gives, and the edits of its rewrite
    (none where it is not rewritten); or why it cannot be composed (the site is then judged as before)."""
    if site.primary is None:
        return "the script's Hydra config was not found"
    if not hydra.available():
        return hydra.INSTALL
    if site.others is None or any(entry.text is None for entry in site.entries.values()):
        return "an override expands at run time"
    composition = hydra.Composition(site.primary, hydra.reaching(site.primary, site.others))
    written = tuple(view[e.words[0].start : e.words[-1].end] for e in site.entries.values())
    words = tuple(e.words[0].value or "" for e in site.entries.values())
    try:
        old, old_unknown = _read(hydra.trainer_node(composition, more=words))
    except (hydra.ComposeError, ValueError) as exc:
        return f"Hydra cannot compose `{composition.name} {' '.join(written)}`: {exc}"
    line, column = position(site.first.name[0] - len(site.flavour.prefix))
    unknown = {k: Unknown(f"`trainer.{k}` {why}", line, column) for k, why in old_unknown.items()}
    verdict = judge(run, CallSite(line, column, old), unknown, advice)
    if verdict.rewrite is None:
        return verdict.findings, []
    desired = dict(verdict.rewrite.flags)
    try:
        return verdict.findings, _edits(site, view, composition, words, desired, run)
    except Unwritable as exc:
        return not_fixed(verdict.findings, f"{exc}; write it by hand"), []


def _edits(
    site: Site,
    view: str,
    composition: hydra.Composition,
    words: tuple[str, ...],
    desired: dict[str, Known],
    run: Run,
) -> Edits:
    """The overrides that give ``desired`` over the configs as the run writes them, checked by composing
    them again, as edits of the command's words."""
    tree = dict(_tree(composition.primary.config_dir, run))
    try:
        base, _ = _read(hydra.trainer_node(composition, tree))
    except (hydra.ComposeError, ValueError) as exc:
        raise Unwritable(f"Hydra cannot compose the migrated configs: {exc}") from exc
    new: list[str] = []
    for key, value in desired.items():
        if isinstance(value, (RunTime, Choice)):
            raise Unwritable(f"`{key}` is only known at run time")
        if key not in base or base[key] != value:
            plus = "" if key in base else "+"
            new.append(f"{plus}trainer.{key}={FLAVOURS['hydra'].spell(value)}")
    new += [f"~trainer.{key}" for key in base if key not in desired]
    try:
        got, _ = _read(hydra.trainer_node(composition, tree, tuple(new)))
    except (hydra.ComposeError, ValueError) as exc:
        raise Unwritable(f"Hydra cannot compose the rewritten overrides: {exc}") from exc
    if not _same(got, desired, run.target):
        raise Unwritable("composed again, the rewritten overrides would not give the planned flags")
    kept = [word for word in words if word in new]
    new = [word for word in new if word not in kept]
    edits: Edits = []
    entries = sorted(site.entries.values(), key=lambda e: e.words[0].start)
    for index, entry in enumerate(entries):
        word = entry.words[0]
        if (word.value or "") in kept:
            continue
        if index == 0 and new:
            edits.append((word.start, word.end, " ".join(map(quoted, new))))
            new = []
            continue
        start = word.start
        while start > 0 and view[start - 1] in " \t":
            start -= 1
        edits.append((start, word.end, ""))
    if new:  # (the first entry was kept: the new overrides follow the last)
        end = entries[-1].words[-1].end
        edits.append((end, end, " " + " ".join(map(quoted, new))))
    return edits


def _read(node: str) -> tuple[dict[str, Value], dict[str, str]]:
    """The modelled flags of a composed Trainer node, and those it leaves to run time (with why)."""
    from lightning_migrate.frontends.yaml.read import load, read

    documents = load(node)
    found = read(documents[0]) if documents and hasattr(documents[0], "lc") else None
    if found is None:
        return {}, {}
    unknown = {k: u.reason.split("` ", 1)[-1] for k, u in found.unknown.items()}
    flags = {k: v for k, v in found.flags.items() if k in MODELLED}
    for key, value in list(flags.items()):
        if isinstance(value, (RunTime, Choice)):
            unknown[key] = "is only known at run time"
            del flags[key]
    return flags, unknown  # type: ignore[return-value]


def _same(got: dict[str, Value], desired: dict[str, Known], target: Version) -> bool:
    return got == desired or builds_the_same(got, desired, target)  # type: ignore[arg-type]


def _tree(folder: Path, run: Run) -> tuple[tuple[Path, str], ...]:
    """The configs of ``folder`` the run rewrites, as it writes them."""
    from lightning_migrate.frontends.yaml import compose, frontend

    return compose.migrated_folder(folder, run, frontend.written_with(frontend.CHECKS))
