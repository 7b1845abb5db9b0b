"""Which ``Trainer(**cfg.trainer)`` calls of a run the config they load settles (``project.loaded_configs``
links each call to its config files): a section that holds no flag of the Trainer's hardware model, or whose
flags are the target's own, leaves the call's own keywords to be judged alone; a section the YAML front end
migrates where it is (a file's top-level ``trainer:``, in this run, with no finding left in it) leaves the
call as written. Any other call is reported as before: its flags are only known at run time."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from lightning_migrate.files import sourcefile
from lightning_migrate.frontends.contract import Migrated
from lightning_migrate.frontends.yaml.read import load, read
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.knowledge import holes, keywords
from lightning_migrate.plan.planner import Rewrite, Unchanged, builds_the_same
from lightning_migrate.project.loaded_configs import NO_LOADED, Apart, Link, LoadedConfigs
from lightning_migrate.run import file_kinds as kinds
from lightning_migrate.run.options import Options
from lightning_migrate.semantics.model import Value, Version

# The sections the YAML front end reads as a Trainer config where they are: a file's top-level `trainer:`.
MIGRATED_SECTIONS = (("trainer",),)


def beside(found: list[Link], options: Options, run_files: set[Path]) -> LoadedConfigs:
    """``options.loaded`` with the calls that pass flags of their own beside a section of loaded configs
    (``Trainer(strategy=DDPPlugin(...), **config["trainer_params"])``), judged together with each config
    the call may load. For each config, the planner's rewrite of the old call with that config's flags is
    the reference; the config is migrated where it is (by the YAML front end, with no finding left), and
    the call's flags are the reference's keywords the migrated config does not write. Where every config
    gives the call the same flags, the two pass no keyword twice and together build on every machine what
    the reference builds, the sections are migrated (``sections``) and the call is rewritten to those flags
    (``apart``). A section that another call passes beside flags not judged so is not migrated."""
    loaded = options.loaded
    run = Run(
        options.target, options.source, options.unsafe, floor=options.floor, pinned=options.source_pinned
    )
    apart: dict[tuple[str, int, int], Apart] = {}
    for link in found:
        if not link.explicit or not link.own or not link.complete or link.group or not link.keys:
            continue
        sections = {(str(c.resolve()), link.keys) for c in link.configs}
        trial = replace(
            options, loaded=replace(loaded, sections=tuple(sorted({*loaded.sections, *sections})))
        )
        judged = [_together(config, link, run, trial, run_files) for config in link.configs]
        first = judged[0]
        if first is None or any(
            j is None or keywords(dict(j[0])) != keywords(dict(first[0])) for j in judged
        ):
            continue
        apart[(str(link.script), link.call[0], link.call[1])] = (link.own, *first)
    if not apart:
        return loaded
    passing: dict[tuple[str, tuple[str, ...]], list[Link]] = {}
    for link in found:
        for config in link.configs:
            passing.setdefault((str(config.resolve()), link.keys), []).append(link)
    calls = {(str(lk.script), lk.call[0], lk.call[1]) for lk in found if not lk.explicit} | set(apart)
    sections = {
        where
        for where, links in passing.items()
        if any(lk.explicit for lk in links)
        and all((str(lk.script), lk.call[0], lk.call[1]) in calls for lk in links)
    }
    return replace(
        loaded, sections=tuple(sorted({*loaded.sections, *sections})), apart=tuple(sorted(apart.items()))
    )


def _together(
    config: Path, link: Link, run: Run, options: Options, run_files: set[Path]
) -> tuple[tuple[tuple[str, Value], ...], tuple[Version, ...]] | None:
    """The call's own flags beside ``config`` migrated where it is, and the releases whose behaviour they
    keep: the planner's rewrite of the old call with the config's old flags, less the keywords the migrated
    config writes, where the two together build that rewrite's setup; None where they do not (or the
    config is not migrated where it is, or passes a keyword the call passes too)."""
    own = dict(link.own or ())
    if config.resolve() not in run_files or config.suffix.lower() not in (".yaml", ".yml"):
        return None
    try:
        text = sourcefile.decode(sourcefile.read_bytes(config), False).text
    except sourcefile.SourceError:
        return None
    if kinds.kind_of(config, text).name != "yaml":
        return None
    old = _section_flags(text, link.keys)
    if old is None or not old.keys().isdisjoint(own):
        return None
    migrated = whole(config, text, options, unfixed=True)
    new = _section_flags(migrated.code, link.keys) if migrated is not None else None
    if new is None:
        return None
    decision = run.plan(CallSite(0, 0, {**own, **old}))
    if isinstance(decision, Unchanged):
        reference: dict[str, Value] = {**own, **old}
        source: tuple[Version, ...] = ()
    elif isinstance(decision, Rewrite) and not decision.left and not holes(decision.flags):
        reference, source = decision.values, decision.source
    else:
        return None
    call = {key: value for key, value in reference.items() if key not in new}
    if not builds_the_same({**call, **new}, reference, options.target):
        return None
    return tuple(call.items()), source


def _section_flags(text: str, keys: tuple[str, ...]) -> dict[str, Value] | None:
    """The modelled flags of the section at ``keys`` of a YAML text, each known as written (None: not one
    document, no such mapping, or a value only known at run time)."""
    try:
        documents = load(text)
    except sourcefile.SourceError:
        return None
    if len(documents) != 1:
        return None
    section: Any = documents[0]
    for key in keys:
        if not hasattr(section, "_ok") or key not in section:
            return None
        section = section[key]
    if not hasattr(section, "_ok"):
        return None
    flags = read(section)
    if flags.unknown or holes(flags.flags):
        return None
    return dict(flags.flags)  # type: ignore[arg-type]


def settle(found: Iterable[Link], options: Options, run_files: set[Path]) -> LoadedConfigs:
    """The verdict on each linked call (``run_files``: the run's files, resolved: a config outside the run
    is not migrated by it), and for a call still reported, why its config does not settle it."""
    no_flags: set[tuple[str, int, int]] = set()
    settled: set[tuple[str, int, int]] = set()
    reasons: dict[tuple[str, int, int], str] = {}
    run = Run(
        options.target, options.source, options.unsafe, floor=options.floor, pinned=options.source_pinned
    )
    sections = options.loaded.sections  # (``passed_alone``: the front end migrates them)
    apart = options.loaded.apart  # (``beside``: judged together)
    judged_apart = {where for where, _ in apart}
    for link in found:
        if not link.complete or (str(link.script), link.call[0], link.call[1]) in judged_apart:
            continue
        verdicts = {config: _verdict(config, link, run, options, run_files) for config in link.configs}
        where = (str(link.script), link.call[0], link.call[1])
        kinds_of = {verdict for verdict, _ in verdicts.values()}
        if kinds_of == {"no flags"}:
            no_flags.add(where)
        elif kinds_of <= {"no flags", "settled"} and not link.explicit:
            settled.add(where)
        else:
            # (a config left to be reported, else one that meets the call's own flags)
            config, (verdict, why) = min(verdicts.items(), key=lambda item: item[1][0] != "")
            why = why if verdict == "" else "holds flags beside the call's own: write them in one place"
            section = (
                f"`{'.'.join(link.keys)}`" if link.keys or not link.group else "a file of its Hydra group"
            )
            reasons[where] = f"`{config.name}` ({section}), which {why}"
    if not no_flags and not settled and not reasons and not sections and not apart:
        return NO_LOADED
    return LoadedConfigs(
        frozenset(no_flags), frozenset(settled), tuple(sorted(reasons.items())), sections, apart
    )


def passed_alone(found: list[Link], run_files: set[Path]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The sections of the run's YAML files that are a Trainer config because every call that passes them
    passes them alone (``Trainer(**config["trainer_params"])``: no flag of its own to judge them with)."""
    calls: dict[tuple[str, tuple[str, ...]], list[Link]] = {}
    for link in found:
        if link.group and not link.complete:
            continue  # (another config of the app sets Trainer keys over the group's: not migrated alone)
        for config in link.configs:
            resolved = config.resolve()
            yaml = config.suffix.lower() in (".yaml", ".yml")
            if (
                (link.keys or link.group)
                and link.keys not in MIGRATED_SECTIONS
                and resolved in run_files
                and yaml
            ):
                calls.setdefault((str(resolved), link.keys), []).append(link)
    return tuple(sorted(where for where, links in calls.items() if not any(lk.explicit for lk in links)))


def _verdict(config: Path, link: Link, run: Run, options: Options, run_files: set[Path]) -> tuple[str, str]:
    """``no flags``, ``settled`` or ``""`` (left to be reported, with why) for one config file of a link."""
    try:
        text = sourcefile.decode(sourcefile.read_bytes(config), False).text
        documents = load(text)
    except sourcefile.SourceError:
        return "", "cannot be read"
    if len(documents) != 1:
        return "", "holds several documents"
    section: Any = documents[0]
    for key in link.keys:
        if not hasattr(section, "_ok") or key not in section:
            return "", f"has no `{key}` of its own"  # (the call fails, or gets it from elsewhere)
        section = section[key]
    if not hasattr(section, "_ok"):
        return "", "is not a mapping there"
    flags = read(section)
    if not flags.flags and not flags.unknown:
        return "no flags", ""
    if flags.unknown:
        return "", "holds values only known at run time"
    if isinstance(run.plan(CallSite(0, 0, flags.flags)), Unchanged) and not link.explicit:
        return "settled", ""
    if link.explicit:
        return "", "holds flags beside the call's own: write them in one place"
    if link.keys not in MIGRATED_SECTIONS and link.keys not in options.loaded.sections_of(config):
        return "", "is not migrated there (not a Trainer config on its own)"
    if config.resolve() not in run_files or kinds.kind_of(config, text).name != "yaml":
        return "", "is not migrated in this run (not a YAML file of it)"
    if whole(config, text, options) is None:
        return "", "cannot be migrated there (see its findings)"
    return "settled", ""


def whole(path: Path, text: str, options: Options, unfixed: bool = False) -> Migrated | None:
    """The migration of the file at ``path`` where the run writes all of it: no finding left (with
    ``unfixed``, findings it cannot fix may be left: the file's own, reported there), none suppressed by a
    ``# noqa`` or left out by the selection (the run would leave that rewrite unwritten); else None."""
    try:
        migrated = kinds.migrate(path, text, options, frozenset(), False)
    except Exception:  # the file's own migration reports it (and a bug of ours must not stop the run)
        return None
    outcome = migrated.suppress(migrated.findings)
    if outcome.suppressed or any(
        (not f.fixable and not unfixed) or not options.selects(f.code, path) for f in outcome.kept
    ):
        return None
    return migrated
