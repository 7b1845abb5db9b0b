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
    is not migrated by it)."""
    no_flags: set[tuple[str, int, int]] = set()
    settled: set[tuple[str, int, int]] = set()
    run = Run(options.target, options.source, options.unsafe)
    for link in found:
        if not link.complete:
            continue
        verdicts = {_verdict(config, link, run, options, run_files) for config in link.configs}
        where = (str(link.script), link.call[0], link.call[1])
        if verdicts == {"no flags"}:
            no_flags.add(where)
        elif verdicts <= {"no flags", "settled"} and not link.explicit:
            settled.add(where)
    if not no_flags and not settled:
        return NO_LOADED
    return LoadedConfigs(frozenset(no_flags), frozenset(settled))


def _verdict(config: Path, link: Link, run: Run, options: Options, run_files: set[Path]) -> str:
    """``no flags``, ``settled`` or ``""`` (left to be reported) for one config file of a link."""
    try:
        text = sourcefile.decode(sourcefile.read_bytes(config), False).text
        documents = load(text)
    except sourcefile.SourceError:
        return ""
    if len(documents) != 1:
        return ""
    section: Any = documents[0]
    for key in link.keys:
        if not hasattr(section, "_ok") or key not in section:
            return ""  # (a key the config lacks, or one merged in: the call fails or gets it elsewhere)
        section = section[key]
    if not hasattr(section, "_ok"):
        return ""
    flags = read(section)
    if not flags.flags and not flags.unknown:
        return "no flags"
    if flags.unknown:
        return ""
    if isinstance(run.plan(CallSite(0, 0, flags.flags)), Unchanged) and not link.explicit:
        return "settled"
    if link.keys not in MIGRATED_SECTIONS or config.resolve() not in run_files:
        return ""
    if kinds.kind_of(config, text).name != "yaml":  # (a JSON config: no front end of ours writes it)
        return ""
    try:
        migrated = kinds.migrate(config, text, options, frozenset(), False)
    except Exception:  # the config's own migration reports it (and a bug of ours must not stop the run)
        return ""
    return "settled" if not any(not f.fixable for f in migrated.findings) else ""
