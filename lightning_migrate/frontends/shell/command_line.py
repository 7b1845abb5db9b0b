"""Trainer flags on command lines: which words reach Lightning's Trainer, their values as the Trainer gets
them, and how to write new ones. Four ways, one table (``FLAVOURS``):

- LightningCLI: ``--trainer.accelerator=ddp``, ``--trainer.gpus 2`` (any program: the ``trainer.`` group is
  LightningCLI's); the values are YAML, as jsonargparse reads them.
- Hydra overrides of a script's trainer config: ``trainer.accelerator=ddp``, ``+trainer.gpus=4``, where the
  project has a Hydra ``trainer`` config group of Lightning's Trainer.
- A script's argparse options ``--gpus 2 --accelerator ddp`` where the script's parser comes from
  ``Trainer.add_argparse_args`` (1.x): typed as that parser types them (``--gpus 2`` an int, ``--devices 2``
  the string "2").
- The variables 1.x and 2.x read as Trainer defaults: ``PL_TRAINER_ACCELERATOR=ddp``, ``export
  PL_TRAINER_GPUS=2`` (values read with ``literal_eval``, a word that is not a literal is a string).

Options of other programs (``gcloud ... --accelerator type=...``, ``accelerate launch --num_processes 2``:
the launcher's own, before the script) are never read.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from lightning_migrate.files import run_cache
from lightning_migrate.frontends.shell.words import Command, Word
from lightning_migrate.frontends.yaml.read import group_since
from lightning_migrate.plan.locate import TRAINER_NAMES
from lightning_migrate.plan.planner import PLANNED_FLAGS
from lightning_migrate.plan.trainers import SHIM_TRAINERS
from lightning_migrate.project import hydra as hydra_project
from lightning_migrate.project.script_options import ancestors, of_script, script_file
from lightning_migrate.semantics.model import RELEASES, Value, Version
from lightning_migrate.semantics.signature import MODELLED

_YAML_INT = re.compile(r"[-+]?(0|[1-9][0-9_]*)")
_LIST = re.compile(r"\[\s*(-?\d+\s*(,\s*-?\d+\s*)*)?\]")
_PYTHON = re.compile(r"(?:.*/)?(?:python[\d.]*|pypy[\d.]*)")
# launchers that run a Python script given after their own options
_LAUNCHERS = frozenset({"torchrun", "srun", "mpirun", "horovodrun", "deepspeed", "accelerate", "lightning"})
_BOOLEAN_FLAGS = frozenset({"sync_batchnorm", "auto_select_gpus", "replace_sampler_ddp"})
_INT_FLAGS = frozenset({"num_nodes", "num_processes", "ipus"})
_GPUS_TYPE = frozenset(
    {"gpus", "tpu_cores"}
)  # int, unless the value holds a comma (1.x's `_gpus_allowed_type`)


class NotAValue(Exception):
    pass


def yaml_value(text: str) -> Value:
    """A command-line value as jsonargparse and Hydra read it (YAML: ints, null, booleans, int lists)."""
    if "${" in text:
        raise NotAValue("is an interpolation, only known at run time")
    if _YAML_INT.fullmatch(text):
        return int(text.replace("_", ""))
    lowered = text.lower()
    if lowered in ("null", "~", "none"):
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    if _LIST.fullmatch(text):
        return [int(i) for i in text.strip("[] ").split(",") if i.strip()]
    return text


def argparse_value(flag: str, text: str) -> Value:
    """A value as 1.x's ``Trainer.add_argparse_args`` parser types it."""
    if flag in _GPUS_TYPE:
        return text if "," in text else int(text) if _YAML_INT.fullmatch(text) else text
    if flag in _INT_FLAGS:
        if not _YAML_INT.fullmatch(text):
            raise NotAValue("is not an int, which the parser requires")
        return int(text)
    if flag in _BOOLEAN_FLAGS:
        if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
            raise NotAValue("is not a boolean")
        return text.lower() in ("true", "1", "yes")
    if flag == "precision":
        return int(text) if _YAML_INT.fullmatch(text) else text
    return text


def env_value(text: str) -> Value:
    """A ``PL_TRAINER_*`` value: ``literal_eval``'d, else the string itself."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(i, int) for i in value):
        return list(value)
    raise NotAValue("is not a Trainer flag value")


def spelled_word(value: Value) -> str:
    """A value as a command-line word writes it for a parser that reads YAML (LightningCLI, a Hydra
    override): ``null``, ``true``, ``[0,1]``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ",".join(str(i) for i in value) + "]"
    return str(value)


def _spelled_env(value: Value) -> str:
    return value if isinstance(value, str) else repr(value)


@dataclass(frozen=True)
class Flavour:
    """How one way of passing flags is written and read."""

    name: str
    prefix: str  # written before the flag's name
    upper: bool  # the name is written in capitals (environment variables)
    read: Callable[[str, str], Value]  # (flag, text) -> value
    spell: Callable[[Value], str]
    joined: bool  # new flags are written `name=value` (else `name value`, as the slot flag is)
    what: str  # for messages

    def written(self, flag: str) -> str:
        """How ``flag``'s name is written (``PL_TRAINER_GPUS``)."""
        return flag.upper() if self.upper else flag


FLAVOURS = {
    "cli": Flavour(
        "cli", "--trainer.", False, lambda f, t: yaml_value(t), spelled_word, False, "LightningCLI"
    ),
    "hydra": Flavour("hydra", "trainer.", False, lambda f, t: yaml_value(t), spelled_word, True, "Hydra"),
    "argparse": Flavour("argparse", "--", False, argparse_value, spelled_word, False, "argparse"),
    "env": Flavour("env", "PL_TRAINER_", True, lambda f, t: env_value(t), _spelled_env, True, "environment"),
}


@dataclass(frozen=True)
class Entry:
    """One flag as written: the word of its name (and of its value where that is a word of its own), the
    span of the name and of the value in the text."""

    flag: str
    name: tuple[int, int]  # the flag's name, after the flavour's prefix
    value: tuple[int, int] | None  # None: a boolean option given alone
    words: tuple[Word, ...]  # every word it takes (removed together)
    text: str | None  # the value's text; None where it expands at run time
    joined: bool  # `name=value` in one word


@dataclass
class Site:
    """The flags one command (or one script's exports) passes one way."""

    flavour: Flavour
    entries: dict[str, Entry] = field(default_factory=dict)
    unknown_rest: str = ""  # why flags this site does not show also reach the Trainer ("" if none do)
    rest_flags: tuple[str, ...] = ()  # the Trainer flags that rest may set, where known (else: any)
    script: str = ""  # the script whose options these are (argparse, hydra)
    reaches: bool = True  # False: not known to reach Lightning's Trainer (a script's own options)
    changed_by: str = ""  # how the script changes these options of Lightning's parser itself (not reaching)
    primary: hydra_project.Primary | None = None  # the script's Hydra primary config, where it is found
    since: Version = RELEASES[0]  # the oldest release the flags can be written for (a Hydra trainer group's)
    others: tuple[str, ...] | None = ()  # the command's other Hydra overrides (None: one expands at run time)
    # how the script builds its Trainer from these options of Lightning's parser (``Script.built``): through
    # the runtime shim's `from_argparse_args`, which takes every old flag, or Lightning's own, which `--shim`
    # makes the shim's
    built: str = ""
    # the options the script's own parser defines, where that parser is not Lightning's (no
    # `Trainer.add_argparse_args`): its command line's words are the script's, not Trainer flags
    defined: frozenset[str] = frozenset()

    @property
    def first(self) -> Entry:
        return min(self.entries.values(), key=lambda e: e.name[0])


# --- the folder commands run in ---------------------------------------------------------------------------


def moved(command: Command, source: str, folder: Path | None) -> Path | None:
    """The folder the commands after ``command`` run in, where it is ``cd DIR`` and ``DIR`` (a literal path
    relative to ``folder``, no expansion) is a folder of the tree (``cd explain`` before ``python
    trainer.py``: the script is ``explain/trainer.py``); else ``folder`` (a ``cd`` to a place this tree does
    not hold, ``cd $ROOT``, ``cd ROOT_DIR/project``: its scripts are looked for as before, from ``folder``
    up to the project's root; a ``cd`` in a subshell, ``(cd x && ...)``, which the commands after the
    parenthesis do not follow)."""
    words = command.words
    if folder is None or len(words) != 2 or words[0].value != "cd":
        return folder
    if source[: words[0].start].rstrip().endswith("("):
        return folder
    target = words[1].value
    if not target or target.startswith(("/", "~", "-")):
        return folder
    candidate = folder / target
    try:
        return candidate.resolve() if candidate.is_dir() else folder
    except OSError:
        return folder


# --- reading a command ------------------------------------------------------------------------------------


def read(command: Command, source: str, folder: Path | None) -> list[Site]:
    """The sites of one command (``folder``: where the file is, to find its scripts and configs)."""
    words = command.words
    sites: list[Site] = []
    env = Site(FLAVOURS["env"])
    exporting = bool(words) and words[0].value in ("export", "declare")
    position = 1 if words and words[0].value in ("export", "declare", "env") else 0
    for word in words[position:]:
        raw = word.text(source)
        if exporting and raw.startswith("-"):
            position += 1
            continue
        if not re.match(r"[A-Za-z_]\w*=", raw):
            break
        position += 1
        match = re.match(r"PL_TRAINER_([A-Z_]+)=", raw)
        if match is None or match.group(1).lower() not in MODELLED:
            continue
        flag = match.group(1).lower()
        start = word.start + len("PL_TRAINER_")
        text = word.value.split("=", 1)[1] if word.value is not None else None
        env.entries[flag] = Entry(
            flag, (start, start + len(flag)), (word.start + match.end(), word.end), (word,), text, True
        )
    if env.entries:
        env.script = "export" if exporting else ""
        sites.append(env)
    if exporting:
        return sites
    rest = words[position:]
    cli = options(rest, source, "cli")
    if cli.entries:
        if any(w.value in ("--config", "-c") or (w.value or "").startswith("--config=") for w in rest):
            cli.unknown_rest = "the command also reads a config file, which may set other Trainer flags"
        if any((w.value or "").startswith("--trainer=") or w.value == "--trainer" for w in rest):
            cli.unknown_rest = "the command also gives a whole trainer config, which may set other flags"
        sites.append(cli)
    script_at = _script(rest)
    if script_at is None:
        return sites
    script, arguments = rest[script_at].value or "", rest[script_at + 1 :]
    hydra = _hydra(arguments, source)
    if hydra.entries:
        hydra.script = script
        group = _trainer_group(folder) if folder is not None else None
        hydra.reaches = group is not None
        hydra.since = group_since(group, _selected(hydra.others)) if group is not None else RELEASES[0]
        hydra.primary = _script_primary(folder, script) if folder is not None else None
        hydra.unknown_rest = (
            "Hydra overrides the trainer config the script's defaults select, whose other flags are not"
            " known here"
        )
        sites.append(hydra)
    script_options = options(arguments, source, "argparse")
    if script_options.entries:
        script_options.script = script
        sites.extend(_script_sites(script_options, folder))
    return sites


def _script_sites(site: Site, folder: Path | None) -> list[Site]:
    """A script's options as the script takes them (``project.script_options``): those its own parser
    defines and hands to a Trainer call are that call's business (no site: the call is migrated so that they
    keep their meaning, or reported); those ``Trainer.add_argparse_args`` adds reach the Trainer as flags,
    judged with unknown flags beside them where the script changes others itself, and never rewritten where
    it changes or reads one of them (the command line's flags are then all the script's, reported once); any
    other is not known to reach the Trainer. A script that cannot be found or read is not known to."""
    path = script_file(folder, site.script) if folder is not None else None
    script = of_script(path) if path is not None else None
    if script is None:
        site.reaches = False
        return [site]
    # (an option of Lightning's parser that a Trainer call's keyword reads too is that call's: its
    # `gpus=args.gpus` overrides what the namespace passes)
    ours = frozenset(site.entries) if script.trainer_parser else script.own
    followed = {flag for flag in site.entries if flag in script.reaching and flag in ours}
    entries = {flag: entry for flag, entry in site.entries.items() if flag not in followed}
    if not script.trainer_parser:
        return [replace(site, entries=entries, reaches=False, defined=script.own)] if entries else []
    site = replace(site, built=script.built)
    # (a keyword of the call beats the namespace's option; one that reads an option of the command line is
    # that option's, followed)
    keywords = {script.reaching[flag] for flag in followed}
    passed = {flag: why for flag, why in script.passed.items() if flag not in keywords}
    changes = {**passed, **script.changed}
    changed = [flag for flag in entries if flag in changes]
    # (beside the command line's flags, one the call passes matters where the planner weighs it)
    changes = {flag: why for flag, why in changes.items() if flag in script.changed or flag in PLANNED_FLAGS}
    if changed:  # (one site: the command line's other flags go with them, and are not rewritten either)
        why = "; ".join(changes[flag] for flag in changed)
        return [replace(site, entries=entries, reaches=False, changed_by=why)]
    if not entries:
        return []
    rest = ""
    rest_flags: tuple[str, ...] = ()
    if changes:
        names = ", ".join(f"`{flag}`" for flag in sorted(changes))
        rest = f"the script sets or reads the Trainer flags {names} itself, which may change what it passes"
        rest_flags = tuple(sorted(changes))
    elif followed:  # (they still reach the Trainer beside these, as its call passes them)
        names = ", ".join(f"`--{flag}`" for flag in sorted(followed))
        rest = f"the command line's {names} reach the Trainer too, through a keyword of the script's call"
        rest_flags = tuple(sorted(keywords)) if keywords <= MODELLED else ()
    return [replace(site, entries=entries, unknown_rest=rest, rest_flags=rest_flags)]


def _script(words: list[Word]) -> int | None:
    """Where the Python script is among a command's words (``python train.py``, ``torchrun ... train.py``,
    ``python -m package.train``), if the command runs one."""
    if not words:
        return None
    program = words[0].value or ""
    if not (_PYTHON.fullmatch(program) or os.path.basename(program) in _LAUNCHERS or program.endswith(".py")):
        return None
    if program.endswith(".py"):
        return 0
    for index, word in enumerate(words[1:], 1):
        value = word.value or ""
        if value.endswith(".py"):
            return index
        if value == "-m" and index + 1 < len(words):
            return index + 1
    return None


def options(words: list[Word], source: str, flavour: str) -> Site:
    """``--name value`` and ``--name=value`` options (``--trainer.name`` for LightningCLI)."""
    site = Site(FLAVOURS[flavour])
    prefix = site.flavour.prefix
    for index, word in enumerate(words):
        raw = word.text(source)
        if not raw.startswith(prefix) or (flavour == "argparse" and raw.startswith("--trainer.")):
            continue
        name, joined, _ = raw[len(prefix) :].partition("=")
        if name not in MODELLED:
            continue
        start = word.start + len(prefix)
        if joined:
            value_start = start + len(name) + 1
            text = word.value.split("=", 1)[1] if word.value is not None else None
            site.entries[name] = Entry(
                name, (start, start + len(name)), (value_start, word.end), (word,), text, True
            )
            continue
        following = words[index + 1] if index + 1 < len(words) else None
        if following is None or following.text(source).startswith("--"):
            site.entries[name] = Entry(name, (start, start + len(name)), None, (word,), "true", False)
            continue
        value = (following.start, following.end)
        site.entries[name] = Entry(
            name, (start, start + len(name)), value, (word, following), following.value, False
        )
    return site


# a Hydra override of the command line: `key=value`, `+key=value`, `++key=value`, `~key`, `group/sub=name`
_OVERRIDE = re.compile(r"(?:~|\+{0,2})[A-Za-z_][\w./@-]*(?:=|$)")


def _hydra(words: list[Word], source: str) -> Site:
    site = Site(FLAVOURS["hydra"])
    others: list[str | None] = []  # (None: a word the shell expands at run time)
    for word in words:
        match = re.match(r"(\+{0,2})trainer\.(\w+)=", word.text(source))
        if match is None or match.group(2) not in MODELLED:
            if _OVERRIDE.match(word.text(source)):
                others.append(word.value)
            continue
        start = word.start + match.start(2)
        text = word.value.split("=", 1)[1] if word.value is not None else None
        flag = match.group(2)
        site.entries[flag] = Entry(
            flag, (start, start + len(flag)), (word.start + match.end(), word.end), (word,), text, True
        )
    site.others = None if None in others else tuple(o for o in others if o is not None)
    return site


# --- what the project says ---------------------------------------------------------------------------------


@run_cache.per_run(64)
def _script_primary(folder: Path, script: str) -> hydra_project.Primary | None:
    """The Hydra primary config of ``script``'s ``@hydra.main``, the script looked for from ``folder`` up
    to the repository's root."""
    names = [script] if script.endswith(".py") else [script.replace(".", "/") + ".py"]
    for ancestor in ancestors(folder):
        for name in names:
            candidate = ancestor / name
            if candidate.is_file():
                return hydra_project.script_primary(candidate)
    return None


@run_cache.per_run(64)
def _trainer_group(folder: Path) -> Path | None:
    """The project's Hydra ``trainer`` config group whose configs build Lightning's Trainer, if it has one."""
    for ancestor in ancestors(folder):
        for top, dirs, files in os.walk(ancestor):
            depth = Path(top).relative_to(ancestor).parts
            dirs[:] = [
                d for d in dirs if not d.startswith(".") and d not in ("node_modules", "venv", ".venv")
            ]
            if len(depth) >= 3:
                dirs[:] = []
            if Path(top).name != "trainer":
                continue
            for name in files:
                if name.endswith((".yaml", ".yml")):
                    try:
                        text = (Path(top) / name).read_text(encoding="utf-8", errors="replace")
                    except OSError:
                        continue
                    if any(trainer in text for trainer in (*TRAINER_NAMES, *SHIM_TRAINERS)):
                        return Path(top)
    return None


def _selected(overrides: tuple[str, ...] | None) -> str | None:
    """The file of the ``trainer`` group a command's overrides select (``trainer=gpu``), if one does."""
    for override in overrides or ():
        key, equals, name = override.partition("=")
        if equals and key.lstrip("+") == "trainer" and re.fullmatch(r"[\w.-]+", name):
            return name if name.endswith((".yaml", ".yml")) else f"{name}.yaml"
    return None
