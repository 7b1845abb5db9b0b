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
from lightning_migrate.frontends.shell.command_line import Site
from lightning_migrate.frontends.shell.words import quoted
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.knowledge import Known
from lightning_migrate.plan.site_judge import Unknown, judge, not_fixed
from lightning_migrate.project import hydra
from lightning_migrate.report.findings import Finding
from lightning_migrate.semantics.model import Value

Edits = list[tuple[int, int, str]]


def composed(
    site: Site,
    view: str,
    position: Callable[[int], tuple[int, int]],
    run: Run,
    advice: str,
    commands: hydra.CommandLines = hydra.NO_COMMANDS,
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
    unknown = {k: Unknown(why, line, column, written=f"trainer.{k}") for k, why in old_unknown.items()}
    verdict = judge(run, CallSite(line, column, old), unknown, advice)
    if verdict.rewrite is None:
        return verdict.findings, []
    desired = dict(verdict.rewrite.flags)
    try:
        return verdict.findings, _edits(site, view, composition, words, desired, run, commands)
    except Unwritable as exc:
        return not_fixed(verdict.findings, str(exc)), []


def _edits(
    site: Site,
    view: str,
    composition: hydra.Composition,
    words: tuple[str, ...],
    desired: dict[str, Known],
    run: Run,
    commands: hydra.CommandLines,
) -> Edits:
    """The overrides that give ``desired`` over the configs as the run writes them, checked by composing
    them again, as edits of the command's words."""
    from lightning_migrate.frontends.yaml import compose

    tree = dict(_tree(composition.primary.config_dir, run, commands))
    new = list(compose.override_words(composition, words, desired, tree, run.target))
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
    from lightning_migrate.frontends.yaml import compose

    return compose.node_flags(node)


def _tree(folder: Path, run: Run, commands: hydra.CommandLines) -> tuple[tuple[Path, str], ...]:
    """The configs of ``folder`` the run rewrites, as it writes them (a config a command line left as
    written keeps as it is: ``commands``)."""
    from lightning_migrate.frontends.yaml import compose, frontend

    return compose.migrated_folder(folder, run, frontend.written_with(frontend.CHECKS, commands))
