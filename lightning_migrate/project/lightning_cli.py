"""A LightningCLI's ``trainer_defaults=`` and the config files the project gives it are one Trainer: what
the run learns of them before any file is migrated.

LightningCLI sets ``trainer_defaults`` as the parser's defaults (``parser.set_defaults({"trainer." + k: v})``,
1.5 to 2.6), then its ``default_config_files`` and each ``--config`` file, in order, override them key by key,
then the command line's ``--trainer.*`` flags. So a config's ``accelerator: ddp`` beside a default
``plugins=DDPPlugin(...)`` is ``Trainer(plugins=DDPPlugin(...), accelerator="ddp", ...)``, and each of the two
files is rewritten so that together they build what they built: the default's training type moves to
``strategy=`` in ``trainer_defaults`` (the same for every config it feeds) and each config writes the rest of
the target's form over it (``plan`` judges the merged flags; ``move`` splits the rewrite between the two).

A config is tied to a CLI by the project: a launch command (``python main.py fit --config configs/a.yaml``,
``-c``) in a file of the run, ``parser_kwargs={"default_config_files": [...]}``, or a ``config``/``configs``
folder beside the CLI's script; and where a CLI of the run has defaults with modelled flags, a config shaped
like a LightningCLI config that nothing else ties is tied to every CLI of the run. A config tied to several
CLIs that merge it over different flags is not rewritten, and holds their defaults as they are (the finding
names the CLIs). A config tied to no CLI, or only to CLIs whose defaults cannot be read, is judged alone, as
any LightningCLI config; a default that its configs need rewritten in different ways is not
rewritten, and the finding names them. A default config file is judged over the defaults and the default files
before it, every other config over all of them; configs a command gives together (``--config a.yaml
--config b.yaml``) are merged over each other, which is not judged here: they are reported, not rewritten, and
the defaults stay as they are.
"""

from __future__ import annotations

import ast
import os
import re
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Text
from lightning_migrate.plan.ast_values import Reader, Unknown, dict_entries
from lightning_migrate.plan.callsite import CallSite, Run, rewrite_findings
from lightning_migrate.plan.knowledge import Known, keywords
from lightning_migrate.plan.locate import Located, Scope, locate
from lightning_migrate.plan.planner import Decision, Refusal, Rewrite, Unchanged
from lightning_migrate.project.cli_classes import CLI_CLASSES, CLISubclass, subclasses
from lightning_migrate.report.findings import Finding, written
from lightning_migrate.semantics.classes import lookup
from lightning_migrate.semantics.model import Obj, Value
from lightning_migrate.semantics.signature import MODELLED

CLI_CLASS = "LightningCLI"
CLIRows = tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]  # ``cli_classes.of_run``'s rows
CONFIG_FOLDERS = ("configs", "config")  # a folder of configs beside the CLI's script
# The top-level keys of a LightningCLI config (1.5 to 2.6): the parser's sections and options, a subcommand's
# method arguments (given after the subcommand), and the subcommands' own sections (given before it). A YAML
# file whose keys are all among them, with a `trainer:` mapping, is shaped like one (``cli_shaped``).
CLI_KEYS = frozenset(
    {
        *("trainer", "model", "data", "seed_everything", "optimizer", "lr_scheduler", "config"),
        *("print_config", "ckpt_path", "verbose", "return_predictions", "lr_find_kwargs"),
        *("scale_batch_size_kwargs", "fit", "validate", "test", "predict", "tune"),
    }
)
_TOP_TRAINER = re.compile(r"^trainer[ \t]*:", re.MULTILINE)  # (a cheap test before the YAML is read)
# `python script.py ... --config PATH` (or `-c PATH`, `--config=PATH`): a launch command's script and
# its configs (a command continued over lines with `\` is one line here)
_COMMAND = re.compile(r"\bpython[\d.]*\s+(?P<script>[\w./-]+\.py)\b(?P<rest>[^\n;&|]*)")
_CONFIG_OPTION = re.compile(r"(?:--config|-c)(?:=|\s+)(?P<path>[\w./${}-]+\.ya?ml)\b")
# Where a training type or the devices went when a default's keyword is rewritten: the keywords the
# rewrite writes in its place (the rest of the rewrite is each config's own)
MOVES: dict[str, tuple[str, ...]] = {
    "plugins": ("strategy", "plugins"),
    "accelerator": ("strategy", "accelerator"),
    "distributed_backend": ("strategy", "accelerator"),
    "strategy": ("strategy",),
    "gpus": ("accelerator", "devices"),
    "tpu_cores": ("accelerator", "devices"),
    "num_processes": ("accelerator", "devices"),
    "ipus": ("accelerator", "devices"),
}


@dataclass(frozen=True)
class Tied:
    """A config tied to a CLI: the flags merged under it (the CLI's defaults, then the
    ``default_config_files`` before it), and as the run rewrites them (None: as written); or why it is
    judged with flags no one file shows (``held``: given together with other configs in one command)."""

    path: str  # absolute
    base: tuple[tuple[str, Known], ...]
    base_new: tuple[tuple[str, Known], ...] | None = None
    held: str = ""


@dataclass(frozen=True)
class CLIDefaults:
    """One LightningCLI call's ``trainer_defaults`` dict, judged with the configs tied to it. (Plain data:
    it goes to the workers.)"""

    script: str  # the file that builds the CLI (absolute)
    line: int  # where its dict display is (1-based line, 0-based column, as ``ast`` says)
    column: int
    old: tuple[tuple[str, Known], ...]  # its modelled flags
    configs: tuple[Tied, ...]  # the configs tied to it: its `default_config_files`, in order, then the others
    new: tuple[tuple[str, Known], ...] | None = None  # the flags it is rewritten to; None: left as written
    findings: tuple[Finding, ...] = ()  # at the dict: the rewrite's, or why there is none
    # the keys the `trainer:` of its configs write (a default's key they write is not renamed under them)
    config_keys: frozenset[str] = frozenset()

    def flags(self) -> dict[str, Known]:
        return dict(self.old)

    def new_flags(self) -> dict[str, Known] | None:
        return dict(self.new) if self.new is not None else None


@dataclass(frozen=True)
class RunCLIs:
    """The LightningCLI calls of a run whose ``trainer_defaults`` feed configs of the run."""

    calls: tuple[CLIDefaults, ...] = ()

    def of_config(self, path: Path) -> Tied | None:
        where = os.path.abspath(path)
        return next((t for c in self.calls for t in c.configs if t.path == where), None)

    def of_script(self, path: Path) -> list[CLIDefaults]:
        where = os.path.abspath(path)
        return [c for c in self.calls if c.script == where]

    @property
    def scripts(self) -> frozenset[str]:
        return frozenset(c.script for c in self.calls)


NO_CLIS = RunCLIs()


def may_build(source: str) -> bool:
    """Whether a Python file may build a LightningCLI (the few files the pre-pass parses: a config no
    command ties to a CLI is judged against each CLI of the run, those without defaults too)."""
    return CLI_CLASS in source


Command = tuple[Path, str, list[str]]  # a launch command: the folder of its file, its script, its configs


def launch_commands(path: Path, text: str) -> list[Command]:
    """The launch commands of the file ``path`` that give a config: (its folder, the script, the configs it
    names). Asked of every file of the run: a file without the words costs a substring search (a YAML
    name among them: notebooks say `python` and `-c ` often, `.yaml` far less; on the census corpus 71
    files are searched, not 234 of 35 MB. Joining the continued lines makes no `.yaml` the text lacks)."""
    if "python" not in text or not ("--config" in text or "-c " in text):
        return []
    if ".yaml" not in text and ".yml" not in text:
        return []
    joined = text.replace("\\\n", " ")
    found = []
    for command in _COMMAND.finditer(joined):
        configs = [m.group("path") for m in _CONFIG_OPTION.finditer(command.group("rest"))]
        if configs:
            found.append((path.parent, command.group("script"), configs))
    return found


def of_run(
    scripts: Iterable[tuple[Path, str]],
    commands: Iterable[Command],
    run: Run,
    files: Iterable[Path],
    cli: CLIRows = (),
) -> RunCLIs:
    """The LightningCLI calls the Python ``scripts`` (path, text) build (``cli``: the run's LightningCLI
    subclasses, ``project.cli_classes``, whose calls reach LightningCLI from any file), each judged with the
    configs the launch ``commands``, its ``parser_kwargs`` and its folder tie to it among the run's
    ``files`` (a config the run does not migrate is not rewritten with its defaults: the defaults stay as
    they are).

    Where some CLI of the run has defaults with modelled flags, a config shaped like a LightningCLI config
    (``cli_shaped``) that nothing ties to a CLI is tied to every CLI of the run: LightningCLI merges it over
    the defaults of whichever CLI it is given to. A config tied to several CLIs is rewritten only where each
    of them has it merged over the same flags, before and after the run; otherwise it is reported, naming
    them, and holds the defaults of each as they are."""
    commands = list(commands)
    files = list(files)
    in_run = {os.path.abspath(path) for path in files}
    found: list[_Call] = []
    for path, source in scripts:
        for node, flags, default_files in _cli_calls(path, source, cli):
            layers, launched, together = _tied(path, default_files, commands)
            layers = [c for c in layers if c in in_run]
            launched = [c for c in launched if c in in_run]
            found.append(_Call(path, node, flags, layers, launched, together))
    if not any(call.flags for call in found):
        return NO_CLIS
    explicit = {c for call in found for c in (*call.layers, *call.launched)}
    documents = _Documents()
    inferred = [c for c in _shaped(files, documents) if c not in explicit]
    if inferred:
        found = [replace(call, launched=sorted({*call.launched, *inferred})) for call in found]
    read = {c: _config_flags(c, documents) for call in found for c in (*call.layers, *call.launched)}
    readable = {config: flags for config, flags in read.items() if flags is not None}
    held: dict[str, str] = {}
    while True:
        calls = []
        for call in found:
            if call.flags is None or not call.flags:
                continue
            configs = {c: readable[c] for c in (*call.layers, *call.launched) if c in readable}
            if configs:
                ordered = [c for c in call.layers if c in configs]
                reasons = dict.fromkeys(call.together, TOGETHER) | held
                judged = _judged(call.path, call.node, call.flags, ordered, configs, reasons, run)
                written = frozenset(
                    k for c in (*call.layers, *call.launched) for k in _trainer_keys(c, documents)
                )
                calls.append(replace(judged, config_keys=written))
            elif (alone := _alone(call.path, call.node, call.flags, run)) is not None:
                calls.append(alone)
        more = _differing(found, calls, readable, held)
        if not more:
            return RunCLIs(tuple(calls))
        held.update(more)


@dataclass(frozen=True)
class _Call:
    """A LightningCLI call of the run: its defaults' modelled flags ({}: none; None: not known here) and the
    configs tied to it (absolute paths in the run: its ``default_config_files``, in order, then the others),
    with those a command gives together with another."""

    path: Path
    node: ast.Dict | ast.Call
    flags: dict[str, Known] | None
    layers: list[str]
    launched: list[str]
    together: set[str]

    def shown(self, root: str) -> str:
        return f"`{Path(os.path.relpath(os.path.abspath(self.path), root)).as_posix()}:{self.node.lineno}`"


def _differing(
    found: list[_Call], calls: list[CLIDefaults], readable: Mapping[str, object], held: Mapping[str, str]
) -> dict[str, str]:
    """The configs, not yet ``held``, tied to several CLIs that merge them over different flags (before or
    after the run), or over defaults not known here: why each is not rewritten."""
    judged = {(os.path.abspath(c.script), c.line, c.column): c for c in calls}
    root = os.path.commonpath([os.path.dirname(os.path.abspath(call.path)) for call in found])
    merged: dict[str, dict[str, tuple[object, ...]]] = {}  # config -> CLI -> what it is merged over
    for call in found:
        cli = judged.get((os.path.abspath(call.path), call.node.lineno, call.node.col_offset))
        for config in (*call.layers, *call.launched):
            if config not in readable or config in held:
                continue
            tie = next((t for t in cli.configs if t.path == config), None) if cli is not None else None
            if call.flags is None:
                under: tuple[object, ...] = ("unknown",)
            elif tie is not None:
                under = (tie.base, tie.base_new, tie.held)
            else:  # (defaults with no modelled flag: the config is merged over its default files alone)
                under = ("no defaults", *(c for c in call.layers if c != config))
            merged.setdefault(config, {})[call.shown(root)] = under
    more = {}
    for config, by_cli in merged.items():
        if len(by_cli) < 2 or len(set(by_cli.values())) == 1:
            continue
        names = ", ".join(sorted(by_cli))
        unknown = [name for name, under in by_cli.items() if under == ("unknown",)]
        more[config] = (
            f"it may be given to several LightningCLIs ({names}), and the `trainer_defaults` of"
            f" {', '.join(unknown)} are not known here"
            if unknown
            else f"it may be given to several LightningCLIs ({names}) whose `trainer_defaults` differ: no"
            " one rewrite of it keeps what each of them builds"
        )
    return more


# --- the CLI calls ------------------------------------------------------------------------------------------


def _cli_calls(
    path: Path, source: str, cli: CLIRows = ()
) -> Iterable[tuple[ast.Dict | ast.Call, dict[str, Known] | None, list[str]]]:
    """Each call that builds Lightning's LightningCLI (the class, a subclass the run defines that hands its
    keywords on, ``cli_classes``, or one the file defines that builds it some other way): where its
    ``trainer_defaults`` is a dict the file writes (a display, ``dict(...)``, or a name bound once to one)
    and reaches LightningCLI as written, the dict and its modelled flags ({} where it passes none, or no such
    keyword), else the call and None (defaults not known here); and the ``default_config_files`` its
    ``parser_kwargs`` name."""
    try:
        tree = depth.parse(source)
    except (SyntaxError, ValueError, SourceError):  # (the file's own migration reports it)
        return
    text = Text(source)
    located = locate(tree, text)
    known = {name: CLISubclass(name, frozenset(own), frozenset(passed)) for name, own, passed in cli}
    local = subclasses(located, known)
    others = _cli_classes(tree, located, set(known))  # (the file's own, those that take no `**kwargs` too)
    module = located.scopes[0]
    reader = Reader(located, text)
    for call, scope in located.scoped_calls:
        qualified = located.qualified(call.func, scope)
        named = call.func.id if isinstance(call.func, ast.Name) else None
        taken: frozenset[str] | None = None  # (the keywords its class takes or passes itself)
        if qualified & CLI_CLASSES:
            taken = frozenset()
        elif qualified & set(known):
            row = known[min(qualified & set(known))]
            taken = row.own | row.passed
        elif named is not None and named in local and scope.lookup(named) is module:
            taken = local[named].own | local[named].passed
        elif not (named is not None and named in others and scope.lookup(named) is module):
            continue
        given = {k.arg: k.value for k in call.keywords if k.arg is not None}
        default_files = _default_config_files(given.get("parser_kwargs"))
        if taken is None or "trainer_defaults" in taken:  # (its defaults are its class's business)
            yield call, None, default_files
            continue
        if "trainer_defaults" not in given:
            unpacked = any(k.arg is None for k in call.keywords)
            yield call, (None if unpacked else {}), default_files
            continue
        found = _dict_of(given.get("trainer_defaults"), scope, located)
        entries = dict_entries(found[0]) if found is not None else None
        if found is None or entries is None:
            yield call, None, default_files
            continue
        flags: dict[str, Known] | None = {}
        for key, value, _ in entries:
            if key in MODELLED:
                read = reader.read(value, found[1])
                if isinstance(read, Unknown):
                    flags = None
                    break
                assert flags is not None
                flags[key] = read
        yield (found[0] if flags is not None else call), flags, default_files


def _cli_classes(tree: ast.Module, located: Located, known: set[str]) -> set[str]:
    """The local names of the file's module-level subclasses of Lightning's LightningCLI (or of one the run
    defines, ``known``), those that take no ``**kwargs`` to hand on too."""
    classes = set(CLI_CLASSES) | known
    module = located.scopes[0]
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
            located.qualified(base, module) & classes or _local_name(base) in classes for base in node.bases
        ):
            classes.add(node.name)
    return classes - CLI_CLASSES - known


def _local_name(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def _dict_of(
    node: ast.expr | None, scope: Scope, located: Located
) -> tuple[ast.Dict | ast.Call, Scope] | None:
    """The dict display or ``dict(...)`` call ``node`` is, or names where the name is bound once to one and
    read only here (a dict shared with other code is not the CLI's alone to rewrite)."""
    if isinstance(node, ast.Name):
        bound = located.bound(node, scope, sole_use=True)
        if bound is None:
            return None
        node, scope = bound
    if isinstance(node, ast.Dict):
        return node, scope
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return (node, scope) if located.builtin(node.func, scope) else None
    return None


def _default_config_files(node: ast.expr | None) -> list[str]:
    """The strings of every ``"default_config_files": [...]`` in a ``parser_kwargs`` display (also under a
    subcommand's key: ``{"fit": {"default_config_files": [...]}}``)."""
    found: list[str] = []
    for item in ast.walk(node) if node is not None else ():
        for key, value in zip(item.keys, item.values) if isinstance(item, ast.Dict) else ():
            named = isinstance(key, ast.Constant) and key.value == "default_config_files"
            if named and isinstance(value, (ast.List, ast.Tuple)):
                found += [
                    e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                ]
    return found


# --- which configs a CLI is given ---------------------------------------------------------------------------


def _tied(
    script: Path, default_files: list[str], commands: list[Command]
) -> tuple[list[str], list[str], set[str]]:
    """The configs (absolute paths) tied to the CLI of ``script``: its ``default_config_files`` (in order:
    each is merged over those before it), the others (each once, in path order), and those a command gives
    together with another (merged over each other: not judged here)."""
    here = Path(os.path.abspath(script))
    layers = [f for f in (_found(name, here.parent) for name in default_files) if f is not None]
    launched: list[str | None] = []
    together: set[str] = set()
    for folder, named, configs in commands:
        ran = _found(named, Path(os.path.abspath(folder)))
        if ran is not None and ran == str(here):
            given = [_found(config, Path(os.path.abspath(folder))) for config in configs]
            launched += given
            together |= {g for g in given if g is not None} if len(given) > 1 else set()
    for name in CONFIG_FOLDERS:
        beside = here.parent / name
        if beside.is_dir():
            launched += [str(p) for p in sorted(beside.rglob("*.y*ml")) if p.suffix in (".yaml", ".yml")]
    others = sorted({t for t in launched if t is not None} - set(layers))
    return layers, others, together


def _found(name: str, folder: Path) -> str | None:
    """The file ``name`` names, from ``folder`` or a folder above it (a command runs from the project's root
    or the script's folder: the nearest one that has it)."""
    for base in (folder, *list(folder.parents)[:3]):
        candidate = base / name
        if candidate.is_file():
            return os.path.abspath(candidate)
    return None


class _Documents(dict[str, object]):
    """Each config's YAML document as ``_loaded`` reads it, by absolute path, read and loaded once for one
    ``of_run`` (``_UNREADABLE``: it cannot be read): its configs are asked for again and again (whether
    shaped like a CLI's, their flags, their keys once for each CLI in each round), and loading is most of
    that pass's time. Nobody changes a document (each is only read), and ``of_run`` reads every file anew."""

    def __missing__(self, path: str) -> object:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeError):  # (the file's own migration reports it)
            self[path] = _UNREADABLE
        else:
            self[path] = _loaded(text)
        return self[path]


_UNREADABLE = object()  # (what `_Documents` has of a file that cannot be read)


def _shaped(files: Iterable[Path], documents: _Documents) -> list[str]:
    """The YAML files among ``files`` shaped like a LightningCLI config (absolute paths, in order)."""
    found = []
    for path in files:
        if path.suffix not in (".yaml", ".yml"):
            continue
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeError):  # (the file's own migration reports it)
            continue
        if _TOP_TRAINER.search(text) is None:
            continue
        where = os.path.abspath(path)
        if where not in documents:  # (the text just read: no other file's is kept)
            documents[where] = _loaded(text)
        if cli_shaped(documents[where]):
            found.append(where)
    return sorted(found)


def cli_shaped(document: object) -> bool:
    """Whether a YAML document is shaped like a LightningCLI config: a mapping with a ``trainer:`` mapping
    whose top-level keys are all LightningCLI's (``CLI_KEYS``)."""
    return (
        isinstance(document, dict)
        and isinstance(document.get("trainer"), dict)
        and all(isinstance(key, str) and key in CLI_KEYS for key in document)
    )


def _loaded(text: str) -> object:
    """The YAML document of ``text`` as LightningCLI's jsonargparse reads it (None where it cannot be)."""
    from ruamel.yaml import YAML  # (only for a run with a LightningCLI)

    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 1)  # (as PyYAML, which LightningCLI's jsonargparse uses, reads it)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return yaml.load(text)
    except Exception:  # (the file's own migration reports what is wrong with it)
        return None


def _trainer_keys(path: str, documents: _Documents) -> frozenset[str]:
    """The keys of a config's top-level ``trainer:`` (none where it cannot be read)."""
    document = documents[path]
    if document is _UNREADABLE:  # (the file's own migration reports it)
        return frozenset()
    trainer = document.get("trainer") if isinstance(document, dict) else None
    return frozenset(str(k) for k in trainer) if isinstance(trainer, dict) else frozenset()


def _config_flags(path: str, documents: _Documents) -> dict[str, Known] | None:
    """The modelled flags of a LightningCLI config's top-level ``trainer:``, where every one of them is a
    plain value or a Lightning object of plain values; None where the file is no such config, or holds a
    value the CLI's parser builds some other way (an interpolation, a tag, another class)."""
    document = documents[path]
    if document is _UNREADABLE:  # (the file's own migration reports it)
        return None
    if not isinstance(document, dict) or "defaults" in document:  # (a Hydra config: Hydra merges it)
        return None
    trainer = document.get("trainer")
    if not isinstance(trainer, dict) or "class_path" in trainer or "_target_" in trainer:
        return None
    flags: dict[str, Known] = {}
    for key, value in trainer.items():
        if key in MODELLED:
            read = _plain(value)
            if read is None and value is not None:
                return None
            flags[key] = read
    return flags


def _plain(value: Any) -> Value:
    """A YAML value as the model reads it, or None where it is none it reads."""
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    if isinstance(value, str):
        return None if "${" in value else value
    if isinstance(value, list):
        items = [_plain(item) for item in value]
        return None if any(i is None for i in items) else items
    if isinstance(value, dict) and isinstance(value.get("class_path"), str):
        cls = value["class_path"].rsplit(".", 1)[-1]
        args = value.get("init_args") or {}
        if lookup(cls) is None or not isinstance(args, dict):
            return None
        kwargs = {str(k): _plain(v) for k, v in args.items()}
        return (
            None
            if any(v is None and args[k] is not None for k, v in kwargs.items())
            else Obj.of(cls, **kwargs)
        )
    return None


# --- the judgement ------------------------------------------------------------------------------------------


def _judged(
    path: Path,
    node: ast.Dict | ast.Call,
    flags: dict[str, Known],
    layers: list[str],
    configs: Mapping[str, dict[str, Known]],
    reasons: Mapping[str, str],
    run: Run,
) -> CLIDefaults:
    """The CLI's defaults judged with each config merged over them (and over the ``default_config_files``
    before it, ``layers``): rewritten where every config needs the same defaults, else left with a finding
    that names the configs; and each config tied with the flags under it, before and after."""
    under: dict[str, dict[str, Known]] = {}
    stacked = dict(flags)
    for layer in layers:
        under[layer] = dict(stacked)
        stacked.update(configs[layer])
    for config in configs:
        under.setdefault(config, dict(stacked))
    decisions = {
        config: run.plan(CallSite(0, 0, {**under[config], **own}, conditionals=False))
        for config, own in configs.items()
    }
    # (a default config file given with others in one command is still merged under the others)
    held = sorted(c for c in configs if c in reasons and (c not in layers or reasons[c] != TOGETHER))
    new, findings = _defaults(path, node, flags, decisions, held, run)
    ties = []
    stacked_new = dict(new if new is not None else flags)
    for layer in layers:
        why = reasons[layer] if layer in held else ""
        ties.append(Tied(layer, tuple(under[layer].items()), tuple(stacked_new.items()), why))
        desired = _desired(decisions[layer], under[layer], configs[layer]) if not why else None
        written = written_over(stacked_new, configs[layer], desired) if desired is not None else None
        stacked_new.update(written if written is not None else configs[layer])
    for config in configs:
        if config not in layers:
            why = reasons[config] if config in held else ""
            ties.append(Tied(config, tuple(under[config].items()), tuple(stacked_new.items()), why))
    return CLIDefaults(
        os.path.abspath(path),
        node.lineno,
        node.col_offset,
        tuple(flags.items()),
        tuple(ties),
        tuple(new.items()) if new is not None else None,
        tuple(findings),
    )


TOGETHER = (
    "a launch command gives it together with other configs, merged over each other: the flags it is merged"
    " with are not judged here"
)


def _alone(path: Path, node: ast.Dict | ast.Call, flags: dict[str, Known], run: Run) -> CLIDefaults | None:
    """A CLI no config of the run is tied to, whose defaults are old usage: reported, not rewritten (what its
    configs and command lines merge over them is not known; a rewrite of them alone could change it)."""
    decision = run.plan(CallSite(0, 0, flags, conditionals=False))
    if isinstance(decision, Unchanged):
        return None
    alone = (
        f"alone, they would be written {keywords(decision.flags)}"
        if isinstance(decision, Rewrite)
        else decision.message.split(";")[0]
    )
    shown = written(keywords(flags))
    message = f"`trainer_defaults` {shown}: old usage under configs not known here; write them by hand"
    why = (
        f"they are old usage for Lightning {run.target}, and no config of the run is tied to this"
        " LightningCLI: what its configs and command lines merge over them is not known here"
    )
    finding = Finding(node.lineno, node.col_offset + 1, "LM101", message, False, details=(why, alone))
    where = os.path.abspath(path)
    return CLIDefaults(where, node.lineno, node.col_offset, tuple(flags.items()), (), None, (finding,))


def _defaults(
    path: Path,
    node: ast.Dict | ast.Call,
    flags: dict[str, Known],
    decisions: Mapping[str, Decision],
    held: list[str],
    run: Run,
) -> tuple[dict[str, Known] | None, list[Finding]]:
    """The defaults as every config needs them written (None: as they are) and the findings at the dict."""
    wanted: dict[str, dict[str, Known]] = {}
    rewrites: list[Rewrite] = []
    refused: list[str] = [*held]
    for config, decision in decisions.items():
        if isinstance(decision, Refusal):
            refused.append(config)
        elif isinstance(decision, Unchanged):
            wanted[config] = dict(flags)
        else:
            rewrites.append(decision)
            moved = move(flags, decision.flags, run)
            # (a default the config's rewrite does not write cannot be unset by the config)
            if moved is None or any(k not in decision.flags for k in moved):
                refused.append(config)
            else:
                wanted[config] = moved
    if not rewrites:
        return None, []
    where = (node.lineno, node.col_offset + 1)
    if refused or len({repr(w) for w in wanted.values()}) > 1:
        names = ", ".join(f"`{_shown(c, path)}`" for c in decisions)
        why = (
            f"`{_shown(refused[0], path)}` cannot be migrated over them"
            if refused
            else f"the configs they feed need them written differently ({names})"
        )
        message = "`trainer_defaults` not rewritten; write them by hand, or move these flags into the configs"
        return None, [Finding(*where, "LM101", message, False, details=(why,))]
    new = next(iter(wanted.values()))
    if new == flags:
        return None, []
    site = CallSite(*where, flags)
    return new, rewrite_findings(site, replace(rewrites[0], flags=new, changes=(), notes=(), left=()))


def _desired(decision: Decision, under: dict[str, Known], own: dict[str, Known]) -> dict[str, Known] | None:
    """The flags a config merged over ``under`` must give the Trainer in the target (None: none)."""
    if isinstance(decision, Rewrite):
        return decision.flags
    return {**under, **own} if isinstance(decision, Unchanged) else None


def written_over(
    base: Mapping[str, Known], own: Mapping[str, Known], desired: Mapping[str, Known]
) -> dict[str, Known] | None:
    """The flags a config must write so that, merged over ``base``, the Trainer gets ``desired`` (those it
    writes already stay, as the YAML front end writes them); None where a flag of ``base`` would have to
    be unset."""
    if any(key not in desired for key in base):
        return None
    return {k: v for k, v in desired.items() if k in own or k not in base or base[k] != v}


def move(defaults: Mapping[str, Known], rewrite: Mapping[str, Known], run: Run) -> dict[str, Known] | None:
    """``defaults`` as the target writes them under a config whose merged flags are rewritten to
    ``rewrite``: a flag the target takes as written stays (a config may override it); an old one gives
    way to the keywords the rewrite writes in its place (``MOVES``: a ``plugins`` strategy object to
    ``strategy=``); None where a default cannot be written so (the rewrite drops it)."""
    new: dict[str, Known] = {}
    for key, value in defaults.items():
        if isinstance(run.plan(CallSite(0, 0, {key: value})), Unchanged):
            new[key] = value
            continue
        taken = [k for k in MOVES.get(key, (key,)) if k in rewrite]
        if not taken:
            return None
        new.update((k, rewrite[k]) for k in taken)
    return new


def _shown(config: str, script: Path) -> str:
    """A config's path as the finding shows it: from the script's folder where it lies below it."""
    try:
        return Path(config).relative_to(Path(os.path.abspath(script)).parent).as_posix()
    except ValueError:
        return config
