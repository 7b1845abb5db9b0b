"""The config files a run's Python loads and passes to the Trainer: ``Trainer(**cfg.trainer)`` after ``cfg =
OmegaConf.load("configs/x.yaml")``, ``yaml.safe_load(open(...))``, ``json.load(f)``, or ``trainer_kwargs =
config["trainer_params"]`` then ``Trainer(**trainer_kwargs)``. Each such call is linked to the files its path
may name (a literal, the default and choices of the script's own option, each branch of a conditional; looked
for beside the script and in the folders above it; beside an option's default, the other files of its folder
that hold the same section, which the command line may name as well, unless another script loads one by its
name) and to the key path of its section there. Whether the
config's flags are settled there (migrated by the YAML front end, or none of them old) is the driver's to
judge (``run.loaded``): the front ends below it cannot be asked from here."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Text
from lightning_migrate.plan.ast_values import Reader, Unknown
from lightning_migrate.plan.locate import Located, Scope, TrainerCall, locate
from lightning_migrate.plan.trainers import NO_SUBCLASSES, RunSubclasses
from lightning_migrate.semantics.model import Value, Version
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
_WORDS = re.compile(r"\b(?:OmegaConf|safe_load|full_load|yaml|json|hydra)\b")  # (`@hydra.main`: its config)
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
    group: bool = False  # the configs are the files of a Hydra app's `trainer` group, each a whole config
    # the configs that are candidates because they sit beside the option's default and share its section
    # (``--config`` may name any of them), not because the code names them
    siblings: tuple[Path, ...] = ()
    # the modelled flags the call passes itself beside the section, where each is known where it is written
    # (``strategy=DDPPlugin(find_unused_parameters=False)``); None where one is only known at run time
    own: tuple[tuple[str, Value], ...] | None = None


# a call's own flags beside its section, as read; what the run rewrites them to; the releases that keeps
Apart = tuple[tuple[tuple[str, Value], ...], tuple[tuple[str, Value], ...], tuple[Version, ...]]


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
    # the calls that pass flags of their own beside a section the run migrates where it is, judged together
    # with each config (``run.loaded.beside``): the call's flags as read, what they are rewritten to, and
    # the releases whose behaviour that keeps
    apart: tuple[tuple[tuple[str, int, int], Apart], ...] = ()

    def verdict(self, path: Path, line: int, column: int) -> str:
        where = (str(path), line, column)
        if where in self.no_flags:
            return "no flags"
        if where in self.settled:
            return "settled"
        return "apart" if any(where == w for w, _ in self.apart) else ""

    def apart_of(self, path: Path, line: int, column: int) -> Apart | None:
        """How the run judged an ``apart`` call's own flags: as read, as rewritten, the releases kept."""
        return dict(self.apart).get((str(path), line, column))

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
        text = Text(source)
        located = locate(tree, text, subclasses)
        found.extend(_links_of(path, located, text))
    # a sibling another script loads by name is that script's config, not one of this option's choices
    named = {config for link in found for config in link.configs if config not in link.siblings}
    return [
        replace(link, configs=tuple(c for c in link.configs if c not in named or c not in link.siblings))
        if link.siblings
        else link
        for link in found
    ]


def _links_of(path: Path, located: Located, text: Text) -> Iterator[Link]:
    changed: _Writes | None = None
    for call in located.calls:
        starred = [k for k in call.node.keywords if k.arg is None]
        if len(starred) != 1 or any(isinstance(a, ast.Starred) for a in call.node.args):
            continue
        changed = _Writes(located.tree) if changed is None else changed
        explicit = any(k.arg in MODELLED for k in call.node.keywords[call.skip :] if k.arg)
        own = _own_flags(located, text, call) if explicit else ()
        where = (call.node.lineno, call.node.col_offset)
        section = _section(located, starred[0].value, call.scope, changed.at(call.node))
        if section is None:
            continue
        paths, keys = section
        if paths and paths[0].startswith(_HYDRA):
            yield _hydra_link(path, where, paths, keys, explicit)
            continue
        files = [_found(path.parent, name.removeprefix(_DEFAULT)) for name in paths]
        configs = tuple(dict.fromkeys(f for f in files if f is not None))
        defaults = [f for f, name in zip(files, paths) if f is not None and name.startswith(_DEFAULT)]
        siblings = tuple(s for f in defaults for s in _siblings(f, keys) if s not in configs)
        complete = None not in files and bool(configs)
        yield Link(path, where, configs + siblings, keys, complete, explicit, siblings=siblings, own=own)


def _own_flags(located: Located, text: Text, call: TrainerCall) -> tuple[tuple[str, Value], ...] | None:
    """The modelled flags ``call`` passes by keyword beside its ``**``, read as the codemod reads them;
    None where one is only known at run time, or the call also passes positional arguments, or is a
    subclass's that takes flags itself."""
    if call.node.args[call.skip :] or call.consumes or call.owner:
        return None
    reader = Reader(located, text)
    found: list[tuple[str, Value]] = []
    for keyword in call.node.keywords:
        if keyword.arg is None or keyword.arg not in MODELLED:
            continue
        value = reader.read(keyword.value, call.scope)
        if isinstance(value, Unknown):
            return None
        found.append((keyword.arg, value))
    return tuple(found)


def _section(
    located: Located, node: ast.expr, scope: Scope, changed: _Seen, depth: int = 0
) -> tuple[list[str], tuple[str, ...]] | None:
    """The paths a loaded config may come from and the key path of ``node`` in it: ``cfg.trainer``,
    ``config["trainer_params"]``, a wrapper of one, or a name bound once to one, or the config parameter of
    a ``@hydra.main`` function (or of a function only it calls with that parameter: ``_HYDRA`` paths), used
    only to be read and to get keys the Trainer does not take (``trainer_args["logger"] = ...``)."""
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
    if not isinstance(node, ast.Name):
        return None
    bound = located.bound(node, scope)
    if bound is None:
        found = located.parameter(node, scope)
        owner = found[0].function if found is not None else None
        if owner is None or changed.harmful(node.id, tuple(keys), owner):
            return None
        primary = _hydra_config(located, node, scope, tuple(keys), changed.of)
        return None if primary is None else ([primary], tuple(keys))
    if changed.harmful(node.id, tuple(keys)):
        return None
    inner = _section(located, bound[0], bound[1], changed, depth + 1)
    return None if inner is None else (inner[0], inner[1] + tuple(keys))


def _is(located: Located, func: ast.expr, scope: Scope, names: frozenset[str] | dict[str, int]) -> bool:
    if isinstance(func, ast.Name) and located.builtin(func, scope):
        return func.id in names
    return not located.qualified(func, scope).isdisjoint(names)


@dataclass(frozen=True)
class _Write:
    """A statement that may change what a name holds: at ``keys`` below it (``cfg.trainer.gpus = 0``: the
    name ``cfg``, keys ``trainer, gpus``; a method that is not a reader called on ``cfg.trainer``, or
    ``cfg.trainer`` handed to a function: ``trainer``, anything below it may change), in ``function`` (the
    def it is in; None: the module), ending on ``line``."""

    keys: tuple[str, ...]
    function: ast.AST | None
    line: int
    call: int = 0  # id() of the call that hands it on (0: an assignment)
    handed: bool = False  # handed to a function (which may change what is below it, not a key of it)


class _Writes:
    """Every write of a file (``_Write``), by the name written, found once per file."""

    def __init__(self, tree: ast.Module) -> None:
        self.writes: dict[str, list[_Write]] = {}
        self.calls: dict[int, tuple[ast.AST | None, bool]] = {}  # id() of a call: its function, in a loop
        self.outer: dict[int, ast.AST | None] = {}  # id() of a function: the function it is defined in
        self._walk(tree, None, False)

    def within(self, function: ast.AST | None, owner: ast.AST) -> bool:
        """Is ``function`` (None: the module) ``owner`` or a function defined in it?"""
        for _ in range(100):
            if function is None:
                return False
            if function is owner:
                return True
            function = self.outer.get(id(function))
        return True

    def _walk(self, node: ast.AST, function: ast.AST | None, looped: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner, loop = function, looped
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inner, loop = child, False
                self.outer[id(child)] = function
            elif isinstance(child, (ast.For, ast.AsyncFor, ast.While, ast.comprehension)):
                loop = True
            self._note(child, function, looped)
            self._walk(child, inner, loop)

    def _note(self, node: ast.AST, function: ast.AST | None, looped: bool) -> None:
        line: int = getattr(node, "end_lineno", None) or getattr(node, "lineno", 0) or 0
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                chain = _chain(target)
                if chain is not None and chain[1]:
                    self._add(chain[0], chain[1], function, line)
        elif isinstance(node, ast.Call):
            self.calls[id(node)] = (function, looped)
            for name, keys, handed in _may_change(node):
                self.writes.setdefault(name, []).append(_Write(keys, function, line, id(node), handed))

    def _add(self, name: str, keys: tuple[str, ...], function: ast.AST | None, line: int) -> None:
        self.writes.setdefault(name, []).append(_Write(keys, function, line))

    def at(self, call: ast.Call) -> _Seen:
        """The writes seen from ``call`` (the Trainer call, or a call that hands the config on)."""
        function, looped = self.calls.get(id(call), (None, True))
        return _Seen(self, call, function, looped)


@dataclass(frozen=True)
class _Seen:
    """The writes of a file as a call sees them: those after it in its own function, where no loop runs it
    again, come too late to change what it gets."""

    of: _Writes
    call: ast.Call
    function: ast.AST | None
    looped: bool

    def harmful(self, name: str, keys: tuple[str, ...], owner: ast.AST | None = None) -> bool:
        """Whether a write of ``name`` may change its section at ``keys``: one at or above them (it
        replaces the section, or anything in it may change), or one in the section to a key the Trainer's
        hardware model reads (``gpus``); not one of another section or of another key of it. ``owner``: the
        function ``name`` is a local of (a parameter), whose writes alone are its (else every write of the
        name in the file is)."""
        end = self.call.end_lineno or self.call.lineno
        for write in self.of.writes.get(name, []):
            if (owner is not None and not self.of.within(write.function, owner)) or write.call == id(
                self.call
            ):
                continue  # (another function's name, or the call that hands the config on itself)
            own = write.function is self.function and self.function is not None
            if own and write.line > end and not self.looped:
                continue  # (after the call, which no loop of its function runs again)
            if keys[: len(write.keys)] == write.keys:
                return True
            if write.keys[: len(keys)] == keys and write.keys[len(keys)] in MODELLED and not write.handed:
                return True
        return False


_READERS = frozenset({"get", "keys", "items", "values", "copy", "to_yaml"})  # methods that leave it as it is
# functions that only look at a mapping (or copy it): `print(cfg)`, `OmegaConf.to_yaml(cfg)`
_VIEWERS = frozenset(
    {
        "print",
        "len",
        "str",
        "repr",
        "isinstance",
        "dict",
        "OmegaConf.to_yaml",
        "OmegaConf.to_container",
        "OmegaConf.to_object",
        "OmegaConf.select",
        "copy.deepcopy",
        "pprint.pprint",
        "json.dumps",
        "yaml.dump",
    }
)


def _may_change(call: ast.Call) -> list[tuple[str, tuple[str, ...], bool]]:
    """The (name, keys, handed) ``call`` may change: the part a method that is not a reader is called on
    (``name.update(...)``, ``name.trainer.pop("gpus")``), and what is handed to another function that does
    not only look at it (``f(name.trainer)``; ``f(**name)`` gets a copy)."""
    func = call.func
    changed = []
    if isinstance(func, ast.Attribute) and func.attr not in _READERS:
        owner = _chain(func.value)
        changed += [(*owner, False)] if owner is not None else []
    if _text(func) in _VIEWERS:
        return changed
    handed = [*call.args, *(k.value for k in call.keywords if k.arg)]
    return changed + [(*c, True) for c in (_chain(a) for a in handed) if c is not None]


def _text(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_text(node.value)}.{node.attr}"
    return ""


def _chain(node: ast.expr) -> tuple[str, tuple[str, ...]] | None:
    """The name ``node`` is, or is an attribute or constant subscript of, and the keys from it
    (``name.a["b"]``: ``name``, ``a, b``); a subscript by another value stops the keys there (any key of
    the part before it may be the one)."""
    keys: list[str] = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            keys.append(node.attr)
        elif isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            keys.append(node.slice.value)
        else:
            keys.clear()  # (`name[i].x`: anything of `name` may change)
        node = node.value
    return (node.id, tuple(reversed(keys))) if isinstance(node, ast.Name) else None


_HYDRA = "hydra:"  # a path that stands for a Hydra app's primary config: `hydra:<config_path>|<config_name>`
_GROUP = "trainer"  # the config group of Trainer configs (`frontends.yaml.words.GROUP_FOLDER`)
_CALLERS = 3  # how many functions a Hydra config is followed back through to its `@hydra.main`


def _hydra_config(
    located: Located, node: ast.Name, scope: Scope, keys: tuple[str, ...], writes: _Writes, depth: int = 0
) -> str | None:
    """Where ``node`` is the config parameter of a ``@hydra.main(config_path=..., config_name=...)``
    function, or of a module-level function that only such functions of the file call, each handing it their
    own config parameter unchanged (before the call) at that place: ``_HYDRA`` with the primary config's
    path (relative to the script) and name."""
    found = located.parameter(node, scope)
    if found is None or depth > _CALLERS:
        return None
    binding, outer = found
    function, parameter = binding.function, binding.parameter
    if function is None or parameter is None or function.args.vararg or function.args.kwarg:
        return None
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and _is(located, decorator.func, outer, {"hydra.main": 0}):
            named = {k.arg: k.value for k in decorator.keywords if k.arg}
            path, name = named.get("config_path"), named.get("config_name")
            if not (isinstance(path, ast.Constant) and isinstance(path.value, str)):
                return None
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                return None
            return f"{_HYDRA}{path.value}|{name.value}"
    if function.decorator_list or outer.kind != "module" or len(outer.bindings.get(function.name, [])) != 1:
        return None
    positional = [*function.args.posonlyargs, *function.args.args]
    index = next((i for i, a in enumerate(positional) if a is parameter), None)
    callers = [
        (call, where)
        for call, where in located.scoped_calls
        if isinstance(call.func, ast.Name)
        and call.func.id == function.name
        and where.lookup(call.func.id) is outer
    ]
    if not callers or located.reads(function.name, outer) != len(callers):
        return None  # (never called here, or used otherwise: handed on, called from elsewhere)
    primaries = set()
    for call, where in callers:
        handed = [k.value for k in call.keywords if k.arg == parameter.arg]
        if index is not None and index < len(call.args):
            handed.append(call.args[index])
        if len(handed) != 1 or not isinstance(handed[0], ast.Name):
            return None
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        caller = located.parameter(handed[0], where)
        if caller is None or caller[0].function is None:
            return None
        if writes.at(call).harmful(handed[0].id, keys, caller[0].function):
            return None
        primaries.add(_hydra_config(located, handed[0], where, keys, writes, depth + 1))
    return primaries.pop() if len(primaries) == 1 and None not in primaries else None


def _hydra_link(
    script: Path, where: tuple[int, int], paths: list[str], keys: tuple[str, ...], explicit: bool
) -> Link:
    """A Trainer call that passes ``**cfg.trainer`` of a Hydra app: linked to every file of the primary's
    ``trainer`` group (the one its defaults list selects, or any a command line may), complete where the
    primary's defaults list selects that group and no other config of the app sets a Trainer key of its own
    (a ``trainer:`` section, a ``@package trainer`` file, a ``trainer.x: ...`` key): then the group's files
    are the Trainer's flags, each a Trainer config of its own (``group``)."""
    config_path, _, name = paths[0][len(_HYDRA) :].partition("|")
    folder = (script.parent / config_path).resolve()
    group = folder / _GROUP
    if keys != (_GROUP,) or not group.is_dir():
        return Link(script, where, (), keys, False, explicit)
    files = tuple(sorted(p for p in group.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()))
    stem = name.removesuffix(".yaml").removesuffix(".yml")
    primary = next(
        (folder / f"{stem}{s}" for s in (".yaml", ".yml") if (folder / f"{stem}{s}").is_file()), None
    )
    complete = bool(files) and primary is not None and _selects_group(primary) and not _sets_trainer(folder)
    return Link(script, where, files, (), complete, explicit, group=True)


_SELECTS = re.compile(rf"^[ \t]*-[ \t]*(?:override[ \t]+)?/?{_GROUP}[ \t]*:", re.M)
_SETS = re.compile(rf"^[ \t]*{_GROUP}[ \t]*:|@package[ \t]+{_GROUP}\b|^[ \t]*{_GROUP}\.\w", re.M)


def _selects_group(primary: Path) -> bool:
    try:
        return _SELECTS.search(primary.read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:
        return False


def _sets_trainer(folder: Path) -> bool:
    """Does a config of the Hydra app's ``folder`` outside its ``trainer`` group set Trainer keys itself?"""
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not (Path(top) / d).samefile(folder / _GROUP)
        )
        for name in names:
            if name.endswith((".yaml", ".yml")):
                try:
                    text = (Path(top) / name).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    return True
                if _SETS.search(text):
                    return True
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
        return [str(Path(*(p[0].removeprefix(_DEFAULT) for p in parts if p)))]
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
            found.append([_DEFAULT + default.value])
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


_DEFAULT = "default:"  # a path that is an option's default: the files beside it with its section may be given


def _siblings(default: Path, keys: tuple[str, ...]) -> list[Path]:
    """The other config files of the folder of an option's ``default`` (``configs/vae.yaml`` of
    ``--config``) that have the section ``keys`` at their top level, as it has: the command line may name
    any of them (a folder of experiments sharing one layout). None where the section is the whole file."""
    if not keys or default.suffix.lower() not in (".yaml", ".yml", ".json"):
        return []
    top = re.compile(rf"^[\"']?{re.escape(keys[0])}[\"']?[ \t]*:", re.M)
    found = []
    try:
        entries = sorted(default.parent.iterdir())
    except OSError:
        return []
    for entry in entries:
        if entry == default or entry.suffix.lower() != default.suffix.lower() or not entry.is_file():
            continue
        try:
            text = entry.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if top.search(text):
            found.append(entry)
    return found


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
