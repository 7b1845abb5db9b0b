"""Which ``Trainer(**cfg.trainer)`` calls of a run the config they load settles (``project.loaded_configs``
links each call to its config files): a section that holds no flag of the Trainer's hardware model, or whose
flags are the target's own, leaves the call's own keywords to be judged alone; a section the YAML front end
migrates where it is (a file's top-level ``trainer:``, in this run, with no finding left in it) leaves the
call as written. Any other call is reported as before: its flags are only known at run time."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lightning_migrate.files import sourcefile
from lightning_migrate.frontends.contract import Migrated
from lightning_migrate.frontends.yaml.read import load, read
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.planner import Unchanged
from lightning_migrate.project.loaded_configs import NO_LOADED, Link, LoadedConfigs
from lightning_migrate.run import file_kinds as kinds
from lightning_migrate.run.options import Options

# The sections the YAML front end reads as a Trainer config where they are: a file's top-level `trainer:`.
MIGRATED_SECTIONS = (("trainer",),)


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
    for link in found:
        if not link.complete:
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
    if not no_flags and not settled and not reasons and not sections:
        return NO_LOADED
    return LoadedConfigs(frozenset(no_flags), frozenset(settled), tuple(sorted(reasons.items())), sections)


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


def whole(path: Path, text: str, options: Options) -> Migrated | None:
    """The migration of the file at ``path`` where the run writes all of it: no finding left, none
    suppressed by a ``# noqa`` or left out by the selection (the run would leave that rewrite unwritten);
    else None."""
    try:
        migrated = kinds.migrate(path, text, options, frozenset(), False)
    except Exception:  # the file's own migration reports it (and a bug of ours must not stop the run)
        return None
    outcome = migrated.suppress(migrated.findings)
    if outcome.suppressed or any(not f.fixable or not options.selects(f.code, path) for f in outcome.kept):
        return None
    return migrated
