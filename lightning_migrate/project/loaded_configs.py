"""The config files a run's Python loads and passes to the Trainer: ``Trainer(**cfg.trainer)`` after ``cfg =
OmegaConf.load("configs/x.yaml")``, ``yaml.safe_load(open(...))``, ``json.load(f)``, or ``trainer_kwargs =
config["trainer_params"]`` then ``Trainer(**trainer_kwargs)``. Each such call is linked to the files its path
may name (a literal, the default and choices of the script's own option, each branch of a conditional; looked
for beside the script and in the folders above it) and to the key path of its section there. Whether the
config's flags are settled there (migrated by the YAML front end, or none of them old) is the driver's to
judge (``run.loaded``): the front ends below it cannot be asked from here."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Text
from lightning_migrate.plan.locate import Located, Scope, locate
from lightning_migrate.plan.trainers import NO_SUBCLASSES, RunSubclasses
from lightning_migrate.semantics.signature import MODELLED

# The functions that read a config file into a mapping, by qualified name: how many of their leading
# arguments to skip to the path (or the open file).
LOADERS = {
    "omegaconf.OmegaConf.load": 0,
    "yaml.safe_load": 0,
    "yaml.load": 0,
    "yaml.full_load": 0,
    "json.load": 0,
}
# The calls that hand a loaded mapping on unchanged: ``OmegaConf.to_container(cfg.trainer, resolve=True)``
WRAPPERS = frozenset(
    {"omegaconf.OmegaConf.to_container", "omegaconf.OmegaConf.to_object", "dict", "copy.deepcopy"}
)
_WORDS = re.compile(r"\b(?:OmegaConf|safe_load|full_load|yaml|json)\b")
MAX_PARENTS = (
    4  # how far above the script a relative path is looked for (the repository root, a launch's cwd)
)


@dataclass(frozen=True)
class Link:
    """A Trainer call (its file, and the line and column of the call) that passes ``**`` a section of loaded
    config files: the ``configs`` its path names that exist, the key path of the section in them, whether
    every path it may name was found, and whether the call passes flags of its own beside it."""

    script: Path
    call: tuple[int, int]
    configs: tuple[Path, ...]
    keys: tuple[str, ...]
    complete: bool
    explicit: bool


@dataclass(frozen=True)
class LoadedConfigs:
    """What the run settled of such calls (picklable: it goes to the workers): the calls whose config holds
    no Trainer flag (their own keywords are judged alone) and those whose config is migrated where it is
    (left as written, with no finding), each as (the script's path, line, column); for the others, which
    config their flags come from and why it does not settle them (the finding says so); and the sections
    the YAML front end migrates as Trainer configs because calls pass them."""

    no_flags: frozenset[tuple[str, int, int]] = frozenset()
    settled: frozenset[tuple[str, int, int]] = frozenset()
    # the other linked calls: which config their flags come from, and why it does not settle them
    reasons: tuple[tuple[tuple[str, int, int], str], ...] = ()
    # the sections that are a Trainer config because calls pass them alone (`**config["trainer_params"]`):
    # (the file's resolved path, the key path)
    sections: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def verdict(self, path: Path, line: int, column: int) -> str:
        where = (str(path), line, column)
        return "no flags" if where in self.no_flags else "settled" if where in self.settled else ""

    def reason(self, path: Path, line: int, column: int) -> str:
        return dict(self.reasons).get((str(path), line, column), "")

    def sections_of(self, path: Path) -> list[tuple[str, ...]]:
        """The key paths of the file at ``path`` that are Trainer configs because calls pass them."""
        if not self.sections or str(path) == "-":
            return []
        resolved = str(Path(path).resolve())
        return [keys for name, keys in self.sections if name == resolved]


NO_LOADED = LoadedConfigs()


def may_load(text: str) -> bool:
    """Can the Python ``text`` load a config (a word of the loaders, and a ``**``)?"""
    return "**" in text and _WORDS.search(text) is not None


def links(files: Iterable[tuple[Path, str]], subclasses: RunSubclasses = NO_SUBCLASSES) -> list[Link]:
    """The links of every Trainer call of the Python ``files`` (path, text) to a config they load."""
    found: list[Link] = []
    for path, source in files:
        try:
            tree = depth.parse(source)
        except (SyntaxError, ValueError, SourceError):  # the file's own migration reports it
            continue
        located = locate(tree, Text(source), subclasses)
        found.extend(_links_of(path, located))
    return found


def _links_of(path: Path, located: Located) -> Iterator[Link]:
    changed: frozenset[str] | None = None
    for call in located.calls:
        starred = [k for k in call.node.keywords if k.arg is None]
        if len(starred) != 1 or any(isinstance(a, ast.Starred) for a in call.node.args):
            continue
        changed = _changed(located.tree) if changed is None else changed
        section = _section(located, starred[0].value, call.scope, changed)
        if section is None:
            continue
        paths, keys = section
        files = [_found(path.parent, name) for name in paths]
        configs = tuple(dict.fromkeys(f for f in files if f is not None))
        explicit = any(k.arg in MODELLED for k in call.node.keywords[call.skip :] if k.arg)
        where = (call.node.lineno, call.node.col_offset)
        yield Link(path, where, configs, keys, None not in files and bool(configs), explicit)


def _section(
    located: Located, node: ast.expr, scope: Scope, changed: frozenset[str], depth: int = 0
) -> tuple[list[str], tuple[str, ...]] | None:
    """The paths a loaded config may come from and the key path of ``node`` in it: ``cfg.trainer``,
    ``config["trainer_params"]``, a wrapper of one, or a name bound once to one and used only to be read
    and to get keys the Trainer does not take (``trainer_args["logger"] = ...``)."""
    if depth > 6:
        return None
    keys: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            keys.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            if not isinstance(node.slice.value, str):
                return None
            keys.append(node.slice.value)
            node = node.value
        elif isinstance(node, ast.Call) and node.args and _is(located, node.func, scope, WRAPPERS):
            node = node.args[0]
        else:
            break
    keys.reverse()
    if isinstance(node, ast.Call):
        paths = _loaded(located, node, scope)
        return None if paths is None else (paths, tuple(keys))
    if not isinstance(node, ast.Name) or node.id in changed:
        return None
    bound = located.bound(node, scope)
    if bound is None:
        return None
    inner = _section(located, bound[0], bound[1], changed, depth + 1)
    return None if inner is None else (inner[0], inner[1] + tuple(keys))


def _is(located: Located, func: ast.expr, scope: Scope, names: frozenset[str] | dict[str, int]) -> bool:
    if isinstance(func, ast.Name) and located.builtin(func, scope):
        return func.id in names
    return not located.qualified(func, scope).isdisjoint(names)


def _changed(tree: ast.Module) -> frozenset[str]:
    """The names of the file that may be changed in a way that reaches the Trainer: a key the Trainer takes
    set, updated or deleted (``cfg["gpus"] = 2``, ``cfg.update(...)``, ``cfg.trainer.gpus = 0``), or handed
    whole to a call that may change it (``extras(cfg)``). Asked once per file."""
    changed: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            changed.update(_root(t) or "" for t in targets if _root(t) and not _harmless_key(t))
        elif isinstance(node, ast.Call):
            changed.update(_may_change(node))
    return frozenset(changed)


_READERS = frozenset({"get", "keys", "items", "values"})  # methods that leave a mapping as it is


def _may_change(call: ast.Call) -> list[str]:
    """The names ``call`` may change: the one a method of it or of a part of it that is not a reader is
    called on (``name.update(...)``, ``name.trainer.pop("gpus")``), those handed whole to another function
    (``f(**name)`` gets a copy)."""
    func = call.func
    changed = []
    if isinstance(func, ast.Attribute) and func.attr not in _READERS:
        owner = func.value.id if isinstance(func.value, ast.Name) else _root(func.value)
        changed += [owner] if owner is not None else []
    if isinstance(func, ast.Name) and func.id in _VIEWERS:
        return changed
    handed = [*call.args, *(k.value for k in call.keywords if k.arg)]
    return changed + [a.id for a in handed if isinstance(a, ast.Name)]


_VIEWERS = frozenset({"print", "len", "str", "repr", "isinstance"})  # builtins that only look at a mapping


def _root(node: ast.expr) -> str | None:
    """The name ``node`` is an attribute or subscript of (``name.a["b"]``: ``name``; a bare name: None)."""
    if not isinstance(node, (ast.Attribute, ast.Subscript)):
        return None
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _harmless_key(target: ast.expr) -> bool:
    """``name["logger"] = ...`` (one level, a key the model does not read and no Trainer config section)."""
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        key = target.slice.value if isinstance(target.slice, ast.Constant) else None
        return isinstance(key, str) and key not in MODELLED
    return False


def _loaded(located: Located, node: ast.Call, scope: Scope) -> list[str] | None:
    """The paths a loader call reads (``OmegaConf.load(p)``, ``yaml.safe_load(open(p))``, ``json.load(f)``
    in ``with open(p) as f``), each a text relative to the script or a folder above it; None where it is no
    loader or a path is not known."""
    if not _is(located, node.func, scope, LOADERS) or not node.args:
        return None
    argument = node.args[0]
    if isinstance(argument, ast.Name) and not _is(located, node.func, scope, {"omegaconf.OmegaConf.load": 0}):
        argument = _opened(located.tree, argument.id) or argument
    elif isinstance(argument, ast.Call) and _is(located, argument.func, scope, {"open": 0}) and argument.args:
        argument = argument.args[0]
    elif not _is(located, node.func, scope, {"omegaconf.OmegaConf.load": 0}):
        return None
    return _paths(located, argument, scope)


def _opened(tree: ast.Module, name: str) -> ast.expr | None:
    """The path of the one ``with open(path) as name`` of the file."""
    found = [
        item.context_expr.args[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.With, ast.AsyncWith))
        for item in node.items
        if isinstance(item.optional_vars, ast.Name)
        and item.optional_vars.id == name
        and isinstance(item.context_expr, ast.Call)
        and isinstance(item.context_expr.func, ast.Name)
        and item.context_expr.func.id == "open"
        and item.context_expr.args
    ]
    return found[0] if len(found) == 1 else None


def _paths(located: Located, node: ast.expr, scope: Scope, depth: int = 0) -> list[str] | None:
    """Every text ``node`` may be: a string, a conditional of them, ``os.path.join`` of them, a name bound
    once to one, or an option of the script's own parser (its default and choices)."""
    if depth > 6:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = (
            _paths(located, node.body, scope, depth + 1),
            _paths(located, node.orelse, scope, depth + 1),
        )
        return None if body is None or orelse is None else body + orelse
    if isinstance(node, ast.Call) and _is(located, node.func, scope, {"os.path.join": 0}):
        parts = [_paths(located, a, scope, depth + 1) for a in node.args]
        if any(p is None or len(p) != 1 for p in parts) or not parts:
            return None
        return [str(Path(*(p[0] for p in parts if p)))]
    if isinstance(node, ast.Name):
        bound = located.bound(node, scope)
        return None if bound is None else _paths(located, bound[0], bound[1], depth + 1)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return _option(located.tree, node.attr)
    return None


def _option(tree: ast.Module, dest: str) -> list[str] | None:
    """The texts the script's own option ``dest`` may hold: its ``choices`` where it has them, else its
    ``default`` (None: no such option, or one without a string default)."""
    found: list[list[str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "add_argument" or _dest(node) != dest:
            continue
        named = {k.arg: k.value for k in node.keywords if k.arg}
        choices = named.get("choices")
        if isinstance(choices, (ast.List, ast.Tuple)) and all(
            isinstance(c, ast.Constant) and isinstance(c.value, str) for c in choices.elts
        ):
            found.append([c.value for c in choices.elts])  # type: ignore[attr-defined]
        elif isinstance(default := named.get("default"), ast.Constant) and isinstance(default.value, str):
            found.append([default.value])
        else:
            return None
    return found[0] if len(found) == 1 else None


def _dest(node: ast.Call) -> str | None:
    """The attribute an ``add_argument`` call's option is read as."""
    for keyword in node.keywords:
        if keyword.arg == "dest" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    long = [n for n in names if n.startswith("--")]
    name = (long or names or [""])[0].lstrip("-")
    return name.replace("-", "_") or None


def _found(folder: Path, name: str) -> Path | None:
    """The file ``name`` names, relative to ``folder`` or a folder above it (the first that has it)."""
    path = Path(name)
    if path.is_absolute():
        return path if path.is_file() else None
    folder = folder.resolve()
    for base in [folder, *folder.parents][: MAX_PARENTS + 1]:
        if (base / path).is_file():
            return base / path
    return None
