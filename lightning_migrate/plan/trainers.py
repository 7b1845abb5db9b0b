"""Which classes build a Lightning Trainer from the flags they are called with.

Lightning's own ``Trainer`` (every path it is exported from), the Lightning-ecosystem subclasses that pass
every flag through (``ECOSYSTEM``), and a class defined in the file that subclasses one of those and passes
its keyword arguments through: no ``__init__``, or one that takes ``*args, **kwargs`` and hands them to
``super().__init__`` untouched. Their calls are migrated like ``Trainer(...)``.

A subclass whose ``__init__`` takes a flag itself (``def __init__(self, gpus, **kwargs)``), sets one on its
way to Lightning (``super().__init__(gpus=..., **kwargs)``, ``kwargs["gpus"] = ...``) or takes no
``**kwargs`` *consumes* flags: what reaches Lightning is its business, so its calls are reported, never
rewritten.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from lightning_migrate.plan.planner import machines
from lightning_migrate.semantics.model import Value, Version
from lightning_migrate.semantics.removed import SHIM_REFUSES, SHIM_TAKES
from lightning_migrate.semantics.signature import MODELLED
from lightning_migrate.semantics.translate import TRANSLATED, Unbuilt, unbuilt

PACKAGES = ("pytorch_lightning", "lightning.pytorch", "lightning")
# what passes its keywords on to the class its first argument names: ``partial(Trainer, gpus=2)``, and
# hydra-zen's config builders (``builds(Trainer, gpus=2)``: a Hydra config that instantiates that call)
_PARTIALS = (("functools", "partial"), ("hydra_zen", "builds"), ("hydra_zen", "pbuilds"))
PARTIAL_NAMES = frozenset(f"{module}.{name}" for module, name in _PARTIALS)
PARTIAL_CALLEES = tuple(name for _, name in _PARTIALS)  # (the names such a callee ends with)
LIGHTNING_TRAINERS = frozenset(
    f"{package}.{path}Trainer" for package in PACKAGES for path in ("", "trainer.", "trainer.trainer.")
)
# The runtime shim's module for each Lightning namespace (``lightning_migrate.shim`` builds
# ``pytorch_lightning``'s Trainer, ``lightning_migrate.shim.lightning`` the ``lightning`` package's), and its
# Trainer by the dotted path a Hydra `_target_` names it with: a config that builds it hands its hardware
# flags to the shim.
SHIM_MODULES = {
    "pytorch_lightning": "lightning_migrate.shim",
    "lightning.pytorch": "lightning_migrate.shim.lightning",
}
SHIM_TRAINERS = {f"{module}.Trainer": namespace for namespace, module in SHIM_MODULES.items()}


# The keywords 1.7 and 2.0 removed that the runtime shim's Trainer still takes, on every release, as 1.5 read
# them, for every value (`semantics.removed.SHIM_TAKES` less `SHIM_REFUSES`; `lightning_migrate.shim.resume`
# and `shim.removed`; `tests/test_command_line_shim.py` checks the two agree): not reported where the shim
# builds the Trainer (handed to it)
SHIM_KEEPS = frozenset(SHIM_TAKES) - frozenset(SHIM_REFUSES)


def shim_takes(keyword: str, value: object) -> bool:
    """Does the runtime shim's Trainer take ``keyword=value`` on every release, building what 1.5 built from
    it (``SHIM_KEEPS``; a value of a ``SHIM_REFUSES`` keyword known to be false, which it drops as 1.5 did
    nothing with it: ``shim.removed.taken`` raises for a true one only)? ``value``: as ``gone.judge`` reads it
    (a value only known at run time is none of Python's scalars)."""
    if keyword in SHIM_KEEPS:
        return True
    return keyword in SHIM_REFUSES and isinstance(value, (bool, int, float, str)) and not value


# a device count a call may add beside the training type a config gives it (`gpus=args.gpus`), and the
# flags that give one
_BESIDE: dict[str, Value] = {"gpus": 2}
_COUNTS = ("gpus", "devices", "tpu_cores", "num_processes", "ipus")


def shim_unbuilt(
    flags: Mapping[str, Value], target: Version, namespace: str = "pytorch_lightning", counted: bool = False
) -> tuple[dict[str, Value], Unbuilt] | None:
    """Where the runtime shim's Trainer fails on ``target`` for a call given the hardware ``flags`` (model
    values), on a machine the codemod judges calls on, though Lightning 1.5.10 builds it there: the shim's
    own answer (``translate.unbuilt``), asked here as the shim asks it when the Trainer is built. Returns
    the flags tried and what fails; None where the shim builds it on every machine. With ``counted``, also
    with a device count beside flags that give none (a config's training type, passed beside a count of the
    call's own)."""
    given = {k: v for k, v in flags.items() if k in TRANSLATED}
    tried = [given]
    if counted and not any(given.get(k) not in (None, 0) for k in _COUNTS):
        tried.append({**given, **_BESIDE})
    for probe in tried:
        for machine in machines(probe):
            found = unbuilt(probe, target, machine, namespace)
            if found is not None:
                return probe, found
    return None


def shim_trainer(trainer: str) -> str:
    """The shim's Trainer for a Lightning Trainer's dotted path (``pytorch_lightning.Trainer``)."""
    namespace = "lightning.pytorch" if trainer.startswith("lightning.") else "pytorch_lightning"
    return f"{SHIM_MODULES[namespace]}.Trainer"


# Subclasses of Lightning's Trainer in Lightning-ecosystem packages whose `__init__` passes every hardware
# and distribution flag through (read from their sources): `flash.core.trainer.Trainer.__init__(self, *args,
# serve_sanity_check=False, **kwargs)` hands both to `super().__init__`.
ECOSYSTEM = frozenset({"flash.Trainer", "flash.core.trainer.Trainer"})
# A class the file defines is qualified under this prefix (no import can bind a name that starts so).
LOCAL = "<file>"


@dataclass(frozen=True)
class RunSubclasses:
    """The Trainer subclasses the files of one run define, by every dotted name another file may import
    them under (``project.subclasses.module_names``): those that pass the flags through, and those that
    consume some, with why. (Plain data: it goes to the workers.)"""

    passing: frozenset[str] = frozenset()
    consuming: tuple[tuple[str, str], ...] = ()
    # the flags each consuming class takes itself and hands to Lightning under no name of theirs
    # (``swallowed``)
    swallowing: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # the names each file of the run gets from star imports of the project's own modules, that the codemod
    # cares about (``from icevision.all import *`` giving ``pl``): (the file's resolved path, ((name, the
    # dotted name it is), ...)) (``project.star_imports``)
    starred: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    # the LightningCLI subclasses of the run that hand keywords on to LightningCLI: (dotted name, the keywords
    # it takes itself, those it passes LightningCLI itself) (``project.cli_classes``)
    cli: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()

    def starred_in(self, path: object) -> tuple[tuple[str, str], ...]:
        """The names the file at ``path`` gets from the project's star imports (none: the empty tuple)."""
        if not self.starred or path is None or str(path) == "-":
            return ()
        resolved = str(Path(str(path)).resolve())
        return next((names for where, names in self.starred if where == resolved), ())

    @property
    def names(self) -> frozenset[str]:
        """The classes' own names (what a call of one ends with)."""
        classes = (*self.passing, *dict(self.consuming), *(row[0] for row in self.cli))
        return frozenset(name.rsplit(".", 1)[-1] for name in classes)


NO_SUBCLASSES = RunSubclasses()


def subclasses(
    classes: Iterable[ast.ClassDef],
    qualified: Callable[[ast.expr], AbstractSet[str]],
    known: frozenset[str],
    consumers: dict[str, str] | None = None,
    swallowers: dict[str, frozenset[str]] | None = None,
) -> tuple[frozenset[str], dict[str, str], dict[str, frozenset[str]]]:
    """The file's module-level ``classes`` that subclass a Trainer of ``known`` (or of ``consumers``, which
    consume flags, or of each other): those that pass the flags through, those that consume one, with why,
    and the flags each of those swallows (``swallowed``; ``swallowers``: those of ``consumers``) (qualified
    ``<file>.Name``)."""
    passing: set[str] = set(known)
    consuming: dict[str, str] = dict(consumers or {})
    swallowing: dict[str, frozenset[str]] = dict(swallowers or {})
    pending = list(classes)
    changed = True
    while changed:  # a subclass of a subclass defined further down is found on a later round
        changed = False
        for node in list(pending):
            bases = set().union(*(qualified(base) for base in node.bases)) if node.bases else set()
            inherited = next((b for b in sorted(bases) if b in consuming), None)
            if not bases & passing and inherited is None:
                continue
            name = f"{LOCAL}.{node.name}"
            why = consuming[inherited] if inherited is not None else consumes(node)
            if why:
                consuming[name] = why
                init = _init(node)
                # (a subclass with an `__init__` of its own swallows only what that `__init__` does)
                own = (
                    swallowing.get(inherited, frozenset()) if init is None and inherited else swallowed(node)
                )
                if own:
                    swallowing[name] = own
            else:
                passing.add(name)
            pending.remove(node)
            changed = True
    return (
        frozenset(passing - known),
        {k: why for k, why in consuming.items() if k.startswith(LOCAL)},
        {k: own for k, own in swallowing.items() if k.startswith(LOCAL)},
    )


def _init(node: ast.ClassDef) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return next(
        (
            s
            for s in node.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"
        ),
        None,
    )


def swallowed(node: ast.ClassDef) -> frozenset[str]:
    """The flags ``node``'s ``__init__`` takes as parameters and hands to Lightning under no name of theirs:
    no keyword and no string of that name anywhere in its body (``super().__init__(devices=gpus or 1)``, a
    callback's argument). A call's keyword of that name is the subclass's own, not a Trainer flag: it never
    reaches ``Trainer.__init__`` as that keyword. (``gpus=gpus`` handed on, ``kwargs["gpus"] = gpus``: it
    does.)"""
    init = _init(node)
    if init is None:
        return frozenset()
    args = init.args
    taken = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg in MODELLED}
    for child in ast.walk(init):
        if isinstance(child, ast.keyword) and child.arg in taken:
            taken.discard(child.arg)
        elif isinstance(child, ast.Constant) and isinstance(child.value, str) and child.value in taken:
            taken.discard(child.value)
    return frozenset(taken)


def consumes(node: ast.ClassDef) -> str:
    """Why ``node``'s ``__init__`` does not hand the Trainer flags it is called with to Lightning as they are
    ("" when it does)."""
    init = _init(node)
    if init is None:
        return ""
    args = init.args
    taken = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg in MODELLED]
    if taken:
        return f"its `__init__` takes `{taken[0]}=` itself"
    if args.kwarg is None:
        return "its `__init__` takes no `**kwargs` to pass the flags on"
    kwargs = args.kwarg.arg
    passed = False
    for child in ast.walk(init):
        if isinstance(child, ast.Call) and _is_super_init(child):
            passed = passed or any(k.arg is None and _is_name(k.value, kwargs) for k in child.keywords)
            set_here = [k.arg for k in child.keywords if k.arg in MODELLED]
            if set_here:
                return f"its `__init__` sets `{set_here[0]}=` itself"
        elif isinstance(child, ast.Name) and child.id == kwargs and not _only_passed(init, child, kwargs):
            return f"its `__init__` reads or changes `**{kwargs}` before passing it on"
    return "" if passed else f"its `__init__` does not pass `**{kwargs}` to `super().__init__`"


def _is_super_init(call: ast.Call) -> bool:
    """``super().__init__(...)``, ``super(Cls, self).__init__(...)`` or ``Base.__init__(self, ...)``."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "__init__":
        return False
    owner = func.value
    return (isinstance(owner, ast.Call) and _is_name(owner.func, "super")) or isinstance(
        owner, (ast.Name, ast.Attribute)
    )


def super_init_owner(call: ast.Call, cls: str, self_name: str) -> int | None:
    """Where ``call`` in the ``__init__`` of the class ``cls`` (whose first parameter is ``self_name``) is the
    call of its first base's ``__init__``: how many leading arguments precede the flags (0 for
    ``super().__init__(...)`` and ``super(cls, self).__init__(...)``, 1 for ``Base.__init__(self, ...)``,
    whose ``Base`` the caller checks); None for any other call."""
    if not _is_super_init(call):
        return None
    owner = call.func.value  # type: ignore[attr-defined]
    if isinstance(owner, ast.Call):  # `super()`, `super(cls, self)`
        args = owner.args
        plain = not args and not owner.keywords
        named = len(args) == 2 and _is_name(args[0], cls) and _is_name(args[1], self_name)
        return 0 if plain or named else None
    first = call.args[0] if call.args else None
    return 1 if first is not None and self_name and _is_name(first, self_name) else None


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _only_passed(init: ast.AST, name: ast.Name, kwargs: str) -> bool:
    """Is this read of ``**kwargs`` its hand-over to ``super().__init__``, or a look at a key that is no
    Trainer flag (``kwargs.pop("serve_sanity_check", False)``)?"""
    for child in ast.walk(init):
        if (
            isinstance(child, ast.Call)
            and _is_super_init(child)
            and any(k.arg is None and k.value is name for k in child.keywords)
        ):
            return True
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.value is name:
            key = child.args[0] if child.args else None
            looked = (
                isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value not in MODELLED
            )
            return child.func.attr in ("get", "pop") and looked
        if isinstance(child, ast.Subscript) and child.value is name and isinstance(child.ctx, ast.Load):
            key = child.slice
            return isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value not in MODELLED
    return False
