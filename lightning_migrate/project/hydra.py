"""Hydra projects, composed by Hydra itself: which primary configs a project has (the ``config_path`` and
``config_name`` of its ``@hydra.main``, else the configs with a defaults list beside a ``trainer`` group), the
compositions a config file takes part in (the primary alone, with an experiment or mode config selected
``experiment=x``, or a group file composed as its own primary), and what the Trainer gets from each: the node
the code builds it from (``Trainer(**cfg.trainer)``, ``hydra.utils.instantiate(cfg.trainer)``), composed with
hydra-core's compose API over the files as they are, or with some of them replaced (a rewrite to check).

hydra-core is an optional dependency (the ``hydra`` extra) and is imported only here, only for a file of a
Hydra project; without it, ``available`` is False and the front ends report what they cannot compose.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lightning_migrate.files import run_cache, scratch

INSTALL = "install `lightning-migrate[hydra]` to have Hydra compose it"
GROUP = "trainer"  # the config group of Trainer configs, and the node the Trainer is built from by default
_YAML = (".yaml", ".yml")
_SKIPPED = frozenset({"node_modules", "venv", ".venv", "outputs", "multirun", "wandb", "lightning_logs"})
_PROJECT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")

# `@hydra.main(config_path="configs/", config_name="config.yaml")` (keywords in any order, or positional)
_MAIN = re.compile(r"@\s*(?:hydra\.)?main\s*\(([^)]*)\)", re.S)
_KEYWORD = re.compile(r"\b(config_path|config_name)\s*=\s*(?:r|f)?([\"'])(.*?)\2")
_POSITIONAL = re.compile(r"^\s*(?:r)?([\"'])(.*?)\1\s*(?:,\s*(?:r)?([\"'])(.*?)\3)?")
# the node the Trainer is built from: `Trainer(**cfg.trainer)`, `instantiate(cfg.trainer, ...)`
_TRAINER_NODE = re.compile(r"(?:Trainer\(\s*\*\*\s*|instantiate\(\s*)\w+\.(\w+)")


class ComposeError(Exception):
    """Hydra cannot compose a config (a missing group, an override of a key it lacks), or the config has no
    node the Trainer is built from."""


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """Whether hydra-core (and OmegaConf) can be imported."""
    try:
        import hydra  # noqa: F401
        import omegaconf  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class Primary:
    """A config Hydra composes as the primary config of a run: its folder, its name (``config``,
    ``trainer/ddp``), and the node the Trainer is built from."""

    config_dir: Path
    config_name: str
    key: str = GROUP


@dataclass(frozen=True)
class Composition:
    """One run's config: a primary with overrides (``experiment=four_gpus``)."""

    primary: Primary
    overrides: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """As a finding names it: ``config.yaml experiment=four_gpus``."""
        name = self.primary.config_name
        shown = name if name.endswith(_YAML) else f"{name}.yaml"
        return " ".join([shown, *self.overrides])

    def files(self) -> list[str]:
        return [self.primary.config_name, *self.overrides]


def trainer_node(
    composition: Composition, replaced: Mapping[Path, str] | None = None, more: tuple[str, ...] = ()
) -> str:
    """The Trainer's node of ``composition`` (with the overrides ``more`` after its own), composed by Hydra
    as YAML text, its interpolations unresolved (each is read as a value known only at run time), the files
    of ``replaced`` (path: text) in place of those on disk. Each answer is remembered (the same compositions
    are asked for by every file and command line of a project)."""
    folder = composition.primary.config_dir.resolve()
    inside = ((p.resolve(), text) for p, text in (replaced or {}).items())
    key = tuple(sorted((str(p), text) for p, text in inside if p.is_relative_to(folder)))
    node = _remembered(composition, key, more)
    if isinstance(node, ComposeError):
        raise node
    return node


@run_cache.per_run(1024)
def _remembered(
    composition: Composition, replaced: tuple[tuple[str, str], ...], more: tuple[str, ...]
) -> str | ComposeError:
    shared = _same_names(composition.primary.config_dir, replaced)
    traces = _traces(composition, more)
    folder, texts = str(composition.primary.config_dir.resolve()), dict(replaced)
    for files, node in traces if shared else []:
        if all(_digest(_text_now(folder, texts, file)) == digest for file, digest in files):
            return node
    loads: list[tuple[str, str | None]] = []
    try:
        node = _composed(composition, replaced, more, loads)
    except ComposeError as exc:
        return exc
    read = _read_files(composition.primary.config_dir, replaced, loads) if shared else None
    if read is not None and len(traces) < _TRACES:
        traces.append((read, node))
    return node


# --- sharing a composition's answer between the trees it is composed over -----------------------------------
#
# A file's check composes the same composition over several trees: the folder on disk, and copies of it with
# some configs replaced (the rewrite, the folder as the run writes it, with one check less or none). A
# composition reads only some of the folder's files (its primary, the group files its defaults tree selects),
# and what Hydra gives is made of those files' texts alone: the same composition, the same overrides, over a
# tree whose files Hydra reads hold the same texts, reads the same files and gives the same node (the folder's
# other files are not read; the copies hold the same names). So each answer is kept with the texts of the
# files it read (a digest of each), and a composition over another tree whose files at those paths hold those
# texts gets it without composing (a state-spaces group file feeds 21 compositions, each composed over 4
# trees, some of which change no file it reads). Only a node is shared, never an error (one
# names the folder's path); and nothing of a folder with hidden files or links, which its copies do not hold
# alike (the copy leaves out `.*`, and holds a link's target).
_TRACES = 8  # answers kept for each composition and its overrides


@run_cache.per_run(1024)
def _traces(
    composition: Composition, more: tuple[str, ...]
) -> list[tuple[tuple[tuple[str, bytes], ...], str]]:
    """The nodes ``composition`` gave with ``more``, each with the files it read (path, digest of the text):
    a path inside the config folder relative to it, another absolute (filled by ``_remembered``)."""
    return []


# the files the composition Hydra runs now reads (real path, text; None: not read as text), while it runs
_LOADING: list[list[tuple[str, str | None]]] = []


def _digest(text: str | None) -> bytes | None:
    return (
        None
        if text is None
        else hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    )


def _read_files(
    config_dir: Path, replaced: tuple[tuple[str, str], ...], loads: list[tuple[str, str | None]]
) -> tuple[tuple[str, bytes], ...] | None:
    """The files a composition over the tree of ``replaced`` read, as ``_traces`` keeps them; None where its
    answer is not to be shared (a file it did not read as text)."""
    if any(text is None for _, text in loads):
        return None
    tree = os.path.realpath(_tree(config_dir, replaced))
    read: dict[str, bytes] = {}
    for path, text in loads:
        inside = os.path.relpath(path, tree)
        read[path if inside.startswith("..") or os.path.isabs(inside) else inside] = _digest(text)  # type: ignore[assignment]
    return tuple(read.items())


def _text_now(folder: str, replaced: dict[str, str], file: str) -> str | None:
    """The text of ``file`` (relative to the config ``folder``, or absolute) in the tree of ``replaced``."""
    path = os.path.join(folder, file)
    if path in replaced:
        return replaced[path]
    try:
        with open(path, encoding="utf-8") as opened:
            return opened.read()
    except (OSError, UnicodeDecodeError):
        return None


def _same_names(config_dir: Path, replaced: tuple[tuple[str, str], ...]) -> bool:
    """Whether the tree of ``replaced`` holds the names the folder on disk holds, as every other such tree:
    no name of the folder is hidden or a link, and each file replaced is one of the folder's."""
    return _plain_folder(config_dir) and all(os.path.isfile(path) for path, _ in replaced)


@run_cache.per_run(64)
def _plain_folder(folder: Path) -> bool:
    """Whether no file or folder below ``folder`` is hidden (``.x``) or a link (its copies hold it alike)."""
    return not any(path.name.startswith(".") or path.is_symlink() for path in folder.resolve().rglob("*"))


def _composed(
    composition: Composition,
    replaced: tuple[tuple[str, str], ...],
    more: tuple[str, ...],
    loads: list[tuple[str, str | None]] | None = None,
) -> str:
    """The Trainer's node of ``composition`` composed by Hydra over the tree of ``replaced``; the files Hydra
    reads are added to ``loads`` (real path, text)."""
    if _names_packages(composition.primary.config_dir):
        raise ComposeError(_PACKAGES)
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import DictConfig, OmegaConf

    primary = composition.primary
    folder = _tree(primary.config_dir, replaced)
    _remember_loaded_files()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (Hydra's advice on `_self_` and version_base is not the user's)
        GlobalHydra.instance().clear()
        _LOADING.append([] if loads is None else loads)
        try:
            with initialize_config_dir(config_dir=str(folder), version_base=None):
                overrides = _with_plain_logging([*composition.overrides, *more])
                config = compose(primary.config_name, overrides)
        except Exception as exc:  # Hydra's own errors, and OmegaConf's on a file it cannot read
            raise ComposeError(_first_line(exc)) from exc
        finally:
            _LOADING.pop()
            GlobalHydra.instance().clear()
    node = OmegaConf.select(config, primary.key)
    if not isinstance(node, DictConfig):
        raise ComposeError(f"it has no `{primary.key}` config")
    return OmegaConf.to_yaml(node, resolve=False)


# How many config files' loaded configs are remembered, by text (a few hundred kB each at most)
REMEMBERED_FILES = 512


@functools.lru_cache(maxsize=1)
def _remember_loaded_files() -> None:
    """Have Hydra read config files through readers that remember what each text loads to: each composition
    loads every file it names anew (PyYAML in Python, then OmegaConf's nodes: about a third of a
    composition's time), and the compositions of a project load the same files over and over (each copy of
    the folder holds mostly the same texts, and Hydra's own configs, read from its package, are loaded by
    every composition). Each reader is Hydra's own for its scheme (``file://``, ``pkg://``), which Hydra
    1.3 looks up in its sources registry (``pyproject.toml`` pins hydra-core below 1.4), with the text read
    first and its load remembered, by the text alone (the text is all a load reads: nothing to invalidate).
    Each composition gets a deep copy (Hydra changes the config it gets: it takes the defaults list out,
    merges into it). A file that cannot be loaded (missing, bad bytes, bad YAML) is read by Hydra's own
    method, so the error is its own."""
    import copy
    import io
    import zipfile

    from hydra._internal.core_plugins.file_config_source import FileConfigSource
    from hydra._internal.core_plugins.importlib_resources_config_source import ImportlibResourcesConfigSource
    from hydra._internal.sources_registry import SourcesRegistry
    from hydra.plugins.config_source import ConfigResult, ConfigSource
    from omegaconf import DictConfig, ListConfig, OmegaConf

    remembered: dict[str, tuple[DictConfig | ListConfig, dict[str, str | None]]] = {}

    def result(source: ConfigSource, text: str) -> ConfigResult:
        """What Hydra's reader of ``source`` gives for a file that holds ``text`` (raises as it would)."""
        if text not in remembered:
            header = ConfigSource._get_header_dict(text[:512])  # (Hydra reads 512 characters)
            config = OmegaConf.load(io.StringIO(text))
            if len(remembered) >= REMEMBERED_FILES:
                remembered.clear()
            remembered[text] = (config, header)
        loaded, header = remembered[text]
        return ConfigResult(
            config=copy.deepcopy(loaded),
            path=f"{source.scheme()}://{source.path}",
            provider=source.provider,
            header=dict(header),
        )

    class _RememberingFiles(FileConfigSource):
        def load_config(self, config_path: str) -> ConfigResult:
            full_path = os.path.realpath(os.path.join(self.path, self._normalize_file_name(config_path)))
            text = None
            try:
                with open(full_path, encoding="utf-8") as file:
                    text = file.read()
                return result(self, text)
            except Exception:
                return super().load_config(config_path)
            finally:
                if _LOADING:  # (what this composition read: `_traces`)
                    _LOADING[-1].append((full_path, text))

    class _RememberingPackages(ImportlibResourcesConfigSource):
        def _read_config(self, res: Any) -> ConfigResult:
            if isinstance(res, zipfile.Path):  # (Hydra reads its header in bytes)
                return super()._read_config(res)
            try:
                return result(self, res.read_text(encoding="utf-8"))
            except Exception:
                return super()._read_config(res)

    types = SourcesRegistry.instance().types
    for reader, hydras in (
        (_RememberingFiles, FileConfigSource),
        (_RememberingPackages, ImportlibResourcesConfigSource),
    ):
        reader.__name__ = hydras.__name__  # (the registry keeps one class per scheme, by its name)
        types[hydras.scheme()] = reader


# Hydra's own logging groups, which a project often points at a plugin that need not be installed here
# (`override hydra/job_logging: colorlog`): composed with Hydra's defaults, which no Trainer node reads
_LOGGING = ("hydra/job_logging", "hydra/hydra_logging")


def _with_plain_logging(overrides: list[str]) -> list[str]:
    named = {override.lstrip("+~").split("=", 1)[0] for override in overrides}
    return [*overrides, *(f"{group}=default" for group in _LOGGING if group not in named)]


_PACKAGES = "its search path names a Python package (`pkg://`), which composing would import"


@run_cache.per_run(64)
def _names_packages(folder: Path) -> bool:
    """Whether a config of ``folder`` adds a package to Hydra's search path (``pkg://``): Hydra imports it to
    read its configs, and the codemod never runs the project's code."""
    for path in folder.rglob("*"):
        if path.suffix in _YAML and path.is_file():
            try:
                if "pkg://" in path.read_text(encoding="utf-8", errors="replace"):
                    return True
            except OSError:
                continue
    return False


def reaching(primary: Primary, overrides: tuple[str, ...]) -> tuple[str, ...]:
    """The overrides of a command line (other than the Trainer flags it sets) that may change the Trainer's
    flags: a choice of one of the project's config groups (``experiment=x``, ``trainer=ddp``). Any other
    (``seed=1``, ``trainer.max_epochs=5``, ``hydra.run.dir=...``) sets a value no flag is read from (the
    node is read with its interpolations unresolved): left out, the compositions of many command lines are
    one."""
    kept = []
    for override in overrides:
        key = override.lstrip("+~").split("=", 1)[0].split("@", 1)[0]
        if (primary.config_dir / key).is_dir():
            kept.append(override)
    return tuple(kept)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _tree(folder: Path, replaced: tuple[tuple[str, str], ...]) -> Path:
    """The config folder, or a copy of it with the files of ``replaced`` (path, text) in place of those on
    disk: made once for each such set in the run's temporary folder (``files.scratch``, removed when it ends),
    since every command line of a project composes over the same migrated configs."""
    folder = folder.resolve()
    return _copy(folder, replaced, scratch.folder()) if replaced else folder


@run_cache.per_run(256)
def _copy(folder: Path, replaced: tuple[tuple[str, str], ...], into: str) -> Path:
    """(``into``, the run's folder, is a key too: a copy made in a run that has ended is gone with it.)"""
    copy = Path(tempfile.mkdtemp(prefix="copy-", dir=into)) / "configs"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(".*"))
    for path, text in replaced:
        (copy / Path(path).relative_to(folder)).write_text(text, encoding="utf-8")
    return copy


# --- finding the primary configs ---------------------------------------------------------------------------


@run_cache.per_run(256)
def project_root(folder: Path) -> Path:
    """The project ``folder`` is in: the nearest folder at or above it (six levels at most) with ``.git``,
    ``pyproject.toml``, ``setup.py`` or ``setup.cfg``, else ``folder`` itself."""
    folder = folder.resolve()
    for candidate in [folder, *folder.parents][:6]:
        if any((candidate / marker).exists() for marker in _PROJECT_MARKERS):
            return candidate
    return folder


def _python_files(root: Path, depth: int = 4) -> Iterator[Path]:
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED)
        if len(Path(top).relative_to(root).parts) >= depth:
            dirs[:] = []
        yield from (Path(top) / name for name in sorted(files) if name.endswith(".py"))


def script_primary(script: Path) -> Primary | None:
    """The primary config of a script's ``@hydra.main`` (its ``config_path`` is relative to the script),
    with the node its Trainer is built from; None where the script has none."""
    try:
        text = script.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = _MAIN.search(text) if "main" in text else None
    if found is None:
        return None
    arguments = {k: v for k, _, v in _KEYWORD.findall(found.group(1))}
    positional = _POSITIONAL.match(found.group(1))
    if positional is not None and "=" not in found.group(1).split(",")[0]:
        arguments.setdefault("config_path", positional.group(2))
        if positional.group(4) is not None:
            arguments.setdefault("config_name", positional.group(4))
    name = arguments.get("config_name")
    if not name:
        return None
    folder = (script.parent / arguments.get("config_path", ".")).resolve()
    if not folder.is_dir():
        return None
    nodes = _TRAINER_NODE.findall(text)
    key = next((n for n in nodes if GROUP in n.lower()), nodes[0] if nodes else GROUP)
    return Primary(folder, name.removesuffix(".yaml").removesuffix(".yml"), key)


@run_cache.per_run(64)
def primaries(root: Path) -> tuple[Primary, ...]:
    """The primary configs of the ``@hydra.main`` scripts of the project at ``root``."""
    found: dict[Primary, None] = {}
    for path in _python_files(root):
        try:
            head = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "hydra" in head and "main" in head:
            primary = script_primary(path)
            if primary is not None:
                found[primary] = None
    return tuple(found)


def _config_folders(path: Path) -> list[Primary]:
    """Without a ``@hydra.main`` that covers ``path``: the configs with a defaults list in the folder above
    it that holds a ``trainer`` group (a config folder), each a primary."""
    for folder in list(path.resolve().parents)[:4]:
        if not (folder / GROUP).is_dir():
            continue
        found = []
        for candidate in sorted(folder.iterdir()):
            if candidate.suffix in _YAML and candidate.is_file():
                try:
                    text = candidate.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                if re.search(r"^defaults\s*:", text, re.M):
                    found.append(Primary(folder, candidate.stem))
        return found
    return []


def _covering(path: Path) -> list[Primary]:
    path = path.resolve()
    found = [p for p in primaries(project_root(path.parent)) if path.is_relative_to(p.config_dir)]
    return found or _config_folders(path)


def compositions_of(path: Path, extends: bool = False) -> list[Composition]:
    """The compositions the config file at ``path`` takes part in. A file that ``extends`` its siblings (a
    file of the ``trainer`` group with a defaults list) is composed as its own primary, the whole config its
    Trainer's; a primary config alone; any other group's file (an experiment, a debug or mode config) with
    the primaries whose defaults list has its group, selected as the group's choice (``experiment=x``), else
    with every primary of its folder (``+debug=x``)."""
    path = path.resolve()
    if extends:
        # (composed as the primary, a group's file is still put under its group's name)
        group = path.parent.name
        return [Composition(Primary(path.parent.parent, f"{group}/{path.stem}", group))]
    found: list[Composition] = []
    for primary in _covering(path):
        relative = path.relative_to(primary.config_dir)
        stem = relative.with_suffix("").as_posix()
        if stem == primary.config_name:
            found.append(Composition(primary))
            continue
        if len(relative.parts) < 2:
            continue  # (another primary's file)
        group = relative.parent.as_posix()
        found.append(_selected(primary, group, relative.stem))
    # where some primary's defaults list has the group (`experiment: null`), the runs that select it are that
    # primary's: another primary (an `eval.yaml`) is not run with it
    plain = [c for c in found if not c.overrides or not c.overrides[0].startswith("+")]
    return list(dict.fromkeys(plain or found))


def _selected(primary: Primary, group: str, name: str) -> Composition:
    """``group=name``, or ``+group=name`` where Hydra says the primary's defaults list lacks the group."""
    plain = Composition(primary, (f"{group}={name}",))
    try:
        trainer_node(plain)
    except ComposeError as exc:
        if "+" in str(exc) or "No match in the defaults list" in str(exc):
            return Composition(primary, (f"+{group}={name}",))
    return plain


# --- the run's command lines -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommandLine:
    """A command line of the run (a shell script's, a document's shell block's) that runs a Hydra script
    with overrides of its Trainer node (``trainer.gpus=4``): a composition too, whose run a rewrite of the
    configs below it must not change. ``others``: its other overrides (None: one expands at run time);
    ``trainer``: its overrides of Trainer flags (None: one's value expands at run time)."""

    where: str  # file:line, as a finding names it
    primary: Primary
    others: tuple[str, ...] | None
    trainer: tuple[str, ...] | None

    def composition(self) -> Composition | None:
        """The composition its run makes, the Trainer overrides aside (None: it cannot be known here)."""
        if self.others is None:
            return None
        return Composition(self.primary, reaching(self.primary, self.others))


@dataclass(frozen=True)
class CommandLines:
    """The run's Hydra command lines (hashable: the configs a run writes are remembered by it)."""

    found: tuple[CommandLine, ...] = ()

    def over(self, path: Path) -> tuple[CommandLine, ...]:
        """The command lines whose primary's config folder holds the config at ``path``."""
        path = path.resolve()
        return tuple(c for c in self.found if path.is_relative_to(c.primary.config_dir))


NO_COMMANDS = CommandLines()
