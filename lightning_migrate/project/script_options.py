"""What a script does with the options of its command line, read across the modules of its project: the
parser that defines them (in the script, or in a function of another module it calls: ``opt.get_opts()``,
``Model.add_model_specific_args(parser)``), and where each option's value goes.

- An option the script's own parser defines whose value is read where a Lightning Trainer is built
  (``Trainer(gpus=args.gpus)``, ``gpus=hparams.gpus``, ``self.hparams["gpus"]``, through a name bound to such
  a read) is followed there: the Python call is migrated so that it keeps its meaning, or reported, and the
  command line needs nothing of its own (``Script.reaching``).
- A parser built by ``Trainer.add_argparse_args`` passes the Trainer's own flags, unless the script changes
  one: ``parser.set_defaults(gpus=...)``, its own ``add_argument("--gpus")``, or a read or write of the
  option outside a Trainer call (``args.gpus = setup(args.gpus)``, ``cfg["accelerator"]``, ``getattr(opt,
  "gpus")``): such an option is the script's (``Script.changed``), and a rewrite of it on a command line
  could change what the script does with it.

How the namespace of Lightning's parser reaches a Trainer (``Script.built``): through the runtime shim's
``from_argparse_args`` only (what ``--shim`` writes; the shim takes every old flag on every release), through
Lightning's own ``Trainer.from_argparse_args`` only (which a ``--shim`` run rewrites to the shim's where the
target removed it), or otherwise (a subclass, a ``**`` dict handed to a Trainer call, a ``# noqa`` that keeps
the call): then nothing is said to reach the shim.

A module is found the way the script would import it, from the script's folder up to its project's root
(``search_folders``); what cannot be found or read is not followed, and the command line is judged as before.
The files are read from disk once per process (a run's command lines name few scripts).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lightning_migrate.files import depth, run_cache
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import Text
from lightning_migrate.plan import domains
from lightning_migrate.plan.locate import TRAINER_NAMES, Located, Scope, locate, trainer_callee
from lightning_migrate.plan.ranges import NOTHING_IMPORTED, Imported
from lightning_migrate.plan.trainers import SHIM_MODULES, RunSubclasses
from lightning_migrate.plan.trainers import SHIM_TRAINERS as SHIM_TRAINERS_BY_PATH
from lightning_migrate.semantics.signature import MODELLED

_PROJECT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")
MAX_BYTES = 1 << 20  # a module larger than this is not read (generated code, vendored libraries)
MAX_MODULES = 40  # the modules read for one script at most

# The runtime shim's names, as `--shim` writes them: its Trainer and its `from_argparse_args`
SHIM_TRAINERS = frozenset(SHIM_TRAINERS_BY_PATH)
SHIM_BUILDERS = frozenset(f"{module}.from_argparse_args" for module in SHIM_MODULES.values())
# How the namespace of Lightning's parser reaches a Trainer (``Script.built``)
BY_SHIM, BY_LIGHTNING = "shim", "lightning"


@run_cache.per_run(256)
def marked_root(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` with ``.git``, ``pyproject.toml``, ``setup.py`` or
    ``setup.cfg`` (a few levels up at most), if any; a package's folder (with ``__init__.py``) is no project
    root, whatever its modules are called (``solo/args/setup.py`` is a module of ``solo.args``)."""
    folder = folder.resolve()
    for candidate in [folder, *folder.parents][:6]:
        if (candidate / "__init__.py").exists() and not (candidate / ".git").exists():
            continue
        if any((candidate / marker).exists() for marker in _PROJECT_MARKERS):
            return candidate
    return None


def project_root(folder: Path) -> Path:
    """The project ``folder`` is in: its ``marked_root``, else ``folder`` itself."""
    return marked_root(folder) or folder.resolve()


def ancestors(folder: Path) -> list[Path]:
    """``folder`` and the folders above it, up to its project's root."""
    folder, root = folder.resolve(), project_root(folder)
    found = [folder]
    for parent in folder.parents:
        if found[-1] == root:
            break
        found.append(parent)
    return found if found[-1] == root else [folder]


UNMARKED_LEVELS = 4  # a project without a marker: how far above a file its scripts and modules are looked for


def search_folders(folder: Path) -> list[Path]:
    """Where a command line's script or an import is looked for: from ``folder`` up to its project's root,
    or, in a project without a marker (a copied tree, no ``.git``), up to a few levels above ``folder`` (a
    script runs from the folder its command line names it from: the top of the project, most often)."""
    if marked_root(folder) is not None:
        return ancestors(folder)
    folder = folder.resolve()
    return [folder, *folder.parents][: UNMARKED_LEVELS + 1]


def script_file(folder: Path, script: str) -> Path | None:
    """The file of ``script`` (a path, or a module run with ``-m``) a command line in ``folder`` runs,
    looked for from ``folder`` up to the project's root."""
    name = script if script.endswith(".py") else script.replace(".", "/") + ".py"
    for ancestor in search_folders(folder):
        candidate = ancestor / name
        if candidate.is_file():
            return candidate.resolve()
    return None


@dataclass(frozen=True)
class Script:
    """What a script's parser defines and where its options go."""

    trainer_parser: bool  # its parser adds the Trainer's options (``Trainer.add_argparse_args``)
    own: frozenset[str]  # the options its own ``add_argument`` calls define (destinations)
    reaching: dict[str, str] = field(default_factory=dict)  # option -> the Trainer keyword it is read in
    changed: dict[str, str] = field(default_factory=dict)  # Trainer flag -> how the script changes it
    # how the namespace of Lightning's parser reaches a Trainer: BY_SHIM (the runtime shim's
    # `from_argparse_args` only), BY_LIGHTNING (Lightning's own `Trainer.from_argparse_args` only, which a
    # `--shim` run makes the shim's), or "" (another way, or none found)
    built: str = ""
    # Trainer flag -> the call that passes it beside the namespace (`from_argparse_args(args, accelerator=
    # ...)`), whose keyword beats the namespace's option
    passed: dict[str, str] = field(default_factory=dict)


@dataclass
class _Module:
    path: Path
    tree: ast.Module
    source: str
    # a local name -> (the module file it comes from, the name imported from it; "" for the module itself)
    imports: dict[str, tuple[Path, str]]
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]  # module-level functions
    classes: dict[str, ast.ClassDef]


@run_cache.per_run(256)
def _module(path: Path) -> _Module | None:
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        source = path.read_text(encoding="utf-8")
        tree = depth.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, SourceError):
        return None
    imports: dict[str, tuple[Path, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found = _resolve(alias.name, 0, path)
                if found is not None and (alias.asname or "." not in alias.name):
                    imports[alias.asname or alias.name] = (found, "")
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                local = alias.asname or alias.name
                submodule = _resolve(
                    f"{node.module}.{alias.name}" if node.module else alias.name, node.level, path
                )
                if submodule is not None:
                    imports[local] = (submodule, "")
                    continue
                found = _resolve(node.module or "", node.level, path)
                if found is not None:
                    imports[local] = (found, alias.name)
    functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    return _Module(path, tree, source, imports, functions, classes)


def _resolve(module: str, level: int, importer: Path) -> Path | None:
    """The file of ``module`` imported from ``importer`` (``level``: the dots of a relative import), if it
    is one of the project's."""
    if level:
        base = importer.parent
        for _ in range(level - 1):
            base = base.parent
        roots = [base]
    else:
        roots = search_folders(importer.parent)
    relative = module.replace(".", os.sep)
    for root in roots:
        for candidate in (root / f"{relative}.py", root / relative / "__init__.py"):
            if relative and candidate.is_file():
                return candidate.resolve()
    return None


def _closure(script: _Module) -> list[_Module]:
    """The script and the project's modules it imports, and those they import (two levels)."""
    seen = {script.path: script}
    level = [script]
    for _ in range(2):
        following = []
        for module in level:
            for path, _name in module.imports.values():
                if path not in seen and len(seen) < MAX_MODULES:
                    found = _module(path)
                    if found is not None:
                        seen[path] = found
                        following.append(found)
        level = following
    return list(seen.values())


def _called_functions(module: _Module) -> Iterator[tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The functions of other modules that ``module`` calls (``get_opts()``, ``opt.get_opts()``,
    ``Model.add_model_specific_args(...)``), and the module-level functions of theirs those call."""
    for call in (n for n in ast.walk(module.tree) if isinstance(n, ast.Call)):
        for found in _callee(module, call.func):
            yield found
            other, function = found
            for inner in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
                if isinstance(inner.func, ast.Name) and inner.func.id in other.functions:
                    yield other, other.functions[inner.func.id]


def _callee(module: _Module, func: ast.expr) -> list[tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef]]:
    head = func.value if isinstance(func, ast.Attribute) else func
    if not isinstance(head, ast.Name) or head.id not in module.imports:
        return []
    path, name = module.imports[head.id]
    other = _module(path)
    if other is None:
        return []
    if isinstance(func, ast.Name):  # `get_opts()` imported by name
        found = other.functions.get(name)
        return [(other, found)] if found is not None else []
    assert isinstance(func, ast.Attribute)
    if not name:  # `opt.get_opts()`
        found = other.functions.get(func.attr)
        return [(other, found)] if found is not None else []
    owner = other.classes.get(name)  # `Model.add_model_specific_args(parser)`
    methods = (
        [n for n in owner.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] if owner else []
    )
    return [(other, m) for m in methods if m.name == func.attr]


def _calls(nodes: list[ast.AST]) -> list[ast.Call]:
    return [n for node in nodes for n in ast.walk(node) if isinstance(n, ast.Call)]


def _parser_calls(script: _Module) -> list[ast.Call]:
    """The calls that may build the script's parser: the script's own, and those of the functions of other
    modules it calls."""
    functions = [function for _, function in _called_functions(script)]
    return _calls([script.tree, *functions])


@run_cache.per_run(64)
def of_script(path: Path) -> Script | None:
    """What the script at ``path`` does with its options (None: it cannot be read)."""
    script = _module(path)
    if script is None:
        return None
    calls = _parser_calls(script)
    own, trainer = domains.options(calls)
    defined = {
        d for call in calls if _name(call.func) == "add_argument" for d in [domains.destination(call)] if d
    }
    trainer = trainer or any(_name(call.func) == "add_argparse_args" for call in calls)
    closure = _closure(script)
    reaching: dict[str, str] = {}
    inside: set[int] = set()  # id() of the nodes read in a Trainer call's keyword
    builders: set[str] = set()
    passed: dict[str, str] = {}
    for module in closure:
        located = _located(module)
        for keyword, node in _trainer_keywords(located):
            for read, at in _reads(node):
                reaching.setdefault(read, keyword)
                inside.add(id(at))
        builders |= _builders(module, located)
        for flag, node in _namespace_keywords(located):
            passed.setdefault(flag, f"`{flag}=` of the call at {module.path.name}:{node.lineno}")
    changed: dict[str, str] = {}
    if trainer:
        for dest in sorted(defined & MODELLED):
            changed[dest] = f"its own `add_argument` of `--{dest}` ({path.name})"
        for module in closure:
            for flag, why in _changes(module, inside):
                changed.setdefault(flag, why)
    built = next(iter(builders)) if len(builders) == 1 and trainer else ""
    if builders == {BY_SHIM, BY_LIGHTNING} and trainer:
        built = BY_LIGHTNING  # (the shim's after a `--shim` run)
    return Script(trainer, frozenset(own) | frozenset(defined), reaching, changed, built, passed)


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _located(module: _Module) -> Located:
    """``module``'s Trainer calls, the runtime shim's Trainer among them."""
    return locate(module.tree, Text(module.source), RunSubclasses(passing=SHIM_TRAINERS))


def _shim_builds(located: Located) -> Iterator[tuple[ast.Call, Scope]]:
    """The calls of the runtime shim's ``from_argparse_args(Trainer, args, ...)``."""
    for call, scope in located.scoped_calls:
        if located.qualified(call.func, scope) & SHIM_BUILDERS:
            yield call, scope


def _trainer_keywords(located: Located) -> Iterator[tuple[str, ast.expr]]:
    """The keywords of the Trainer calls of a module (Lightning's and the runtime shim's) and their values;
    a bare name in a value is followed to what it is bound to (``n = args.gpus`` ... ``Trainer(gpus=n)``)."""
    calls = [(call.node, call.scope) for call in located.calls]
    for node, scope in [*calls, *_shim_builds(located)]:
        for keyword in node.keywords:
            if keyword.arg is None:
                continue
            yield keyword.arg, keyword.value
            for name in (n for n in ast.walk(keyword.value) if isinstance(n, ast.Name)):
                for value, _ in located.assigned(name, scope) or []:
                    yield keyword.arg, value


def _namespace_keywords(located: Located) -> Iterator[tuple[str, ast.Call]]:
    """The Trainer flags a call that takes a namespace passes beside it (``X.from_argparse_args(args,
    accelerator="ddp")``, the shim's ``from_argparse_args(Trainer, args, ...)``), each with the call."""
    calls = [(call.node, call.scope) for call in located.calls if call.namespace is not None]
    for node, _ in [*calls, *_shim_builds(located)]:
        for keyword in node.keywords:
            if keyword.arg in MODELLED:
                yield keyword.arg, node


def _builders(module: _Module, located: Located) -> set[str]:
    """How the calls of ``module`` that may take a whole namespace build a Trainer: BY_SHIM (the shim's
    ``from_argparse_args``), BY_LIGHTNING (Lightning's own ``Trainer.from_argparse_args`` with no ``# noqa``,
    which ``--shim`` rewrites), "" (a subclass's, one kept by ``# noqa``, a Lightning Trainer call given a
    ``*``/``**`` argument)."""
    found = {BY_SHIM for _ in _shim_builds(located)}
    for call in located.calls:
        if located.qualified(call.node.func, call.scope) & SHIM_TRAINERS:
            continue  # (the shim's Trainer: whatever it is given, it migrates)
        if call.namespace is not None:  # `X.from_argparse_args(args, ...)`
            own = trainer_callee(located, call.node, call.scope, TRAINER_NAMES) is not None
            found.add(BY_LIGHTNING if own and not _noqa(module.source, call.node) else "")
        elif any(k.arg is None for k in call.node.keywords) or any(
            isinstance(a, ast.Starred) for a in call.node.args
        ):
            found.add("")
    return found


def _noqa(source: str, node: ast.AST) -> bool:
    """Does a line of ``node`` hold a ``noqa`` comment (which keeps a call as it is)?"""
    lines = source.splitlines()[node.lineno - 1 : (node.end_lineno or node.lineno)]  # type: ignore[attr-defined]
    return any("noqa" in line.lower() for line in lines)


def _reads(node: ast.expr) -> Iterator[tuple[str, ast.AST]]:
    """The options ``node`` reads off an object: ``x.gpus``, ``x["gpus"]``, ``getattr(x, "gpus")`` (not a
    method it calls)."""
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}  # (`parser.parse_args()`)
    for inner in ast.walk(node):
        name = _option_read(inner)
        if name is not None and id(inner) not in called:
            yield name, inner


_ATTRIBUTE_FUNCTIONS = ("getattr", "setattr", "delattr", "hasattr")


def _option_read(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return None if domains.dotted(node.value).endswith("trainer") else node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value if isinstance(node.slice.value, str) else None
    if isinstance(node, ast.Call) and _name(node.func) in _ATTRIBUTE_FUNCTIONS and len(node.args) >= 2:
        name = node.args[1]
        return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None
    return None


def _changes(module: _Module, inside: set[int]) -> Iterator[tuple[str, str]]:
    """The Trainer flags ``module`` sets the default of, or reads or writes outside a Trainer call's
    keywords (``inside``), each with where."""
    for node in ast.walk(module.tree):
        where = f"{module.path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call) and _name(node.func) == "set_defaults":
            for keyword in node.keywords:
                if keyword.arg in MODELLED:
                    yield keyword.arg, f"`set_defaults({keyword.arg}=...)` at {where}"
            continue
        if id(node) in inside:
            continue
        name = _option_read(node)
        if name in MODELLED and not (isinstance(node, ast.Call) and _name(node.func) == "add_argument"):
            assert name is not None
            segment = ast.get_source_segment(module.source, node) or name
            yield name, f"`{segment}` at {where}"


def imported(path: Path) -> Imported:
    """What the project's other modules say about the argparse options of the Python file at ``path``: the
    options of the parsers their functions that the file calls build, and which of those functions return
    what their parser parsed (``project.script_options``'s reading, for ``plan.ranges``)."""
    module = _module(path.resolve())
    if module is None:
        return NOTHING_IMPORTED
    functions = [function for _, function in _called_functions(module)]
    if not functions:
        return NOTHING_IMPORTED
    options, trainer = domains.options(_calls(list(functions)))
    parsers: set[str] = set()
    for local, (found, name) in module.imports.items():
        other = _module(found)
        if other is None:
            continue
        if name:
            function = other.functions.get(name)
            if function is not None and domains.returns_parsed(function):
                parsers.add(local)
        else:
            parsers |= {f"{local}.{n}" for n, f in other.functions.items() if domains.returns_parsed(f)}
    if not options and not parsers:
        return NOTHING_IMPORTED
    return Imported(tuple(sorted(options.items())), frozenset(parsers), trainer)
