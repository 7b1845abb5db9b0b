"""Build a real Lightning ``Trainer`` for a set of flags under simulated hardware and report what it built.

Used by the differential tests (one tox environment per release). It knows nothing about flag semantics:
it only turns the model's vocabulary (``Obj``, ``Hardware``) into real objects and reads the result back
into the model's vocabulary (``Setup``/``Rejected``) through class names and attributes.

Run as a script to dump what a release does for the whole grid (useful when working on the model):
    python tests/real/harness.py out.json
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import importlib
import importlib.abc
import importlib.machinery
import inspect
import json
import logging
import os
import re
import sys
import tempfile
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from lightning_migrate.semantics.model import (
    Hardware,
    Obj,
    Outcome,
    Precision,
    Rejected,
    Setup,
    Strategy,
    Value,
    Version,
)

ROOT = os.environ.get("LM_LIGHTNING_ROOT", "pytorch_lightning")

# Strategy classes of every release, mapped to the model's release-independent family and start method.
STRATEGY_FAMILIES: dict[str, tuple[str, str | None]] = {
    "SingleDevicePlugin": ("single_device", None),
    "SingleDeviceStrategy": ("single_device", None),
    "DDPPlugin": ("ddp", "popen"),
    "DDPStrategy": ("ddp", "popen"),
    "DDPSpawnPlugin": ("ddp", "spawn"),
    "DDPSpawnStrategy": ("ddp", "spawn"),
    "DataParallelPlugin": ("dp", None),
    "DataParallelStrategy": ("dp", None),
    "DDP2Plugin": ("ddp2", "popen"),
    "DDP2Strategy": ("ddp2", "popen"),
    "DeepSpeedPlugin": ("deepspeed", "popen"),
    "DeepSpeedStrategy": ("deepspeed", "popen"),
    "HorovodPlugin": ("horovod", None),
    "HorovodStrategy": ("horovod", None),
    "DDPShardedPlugin": ("fairscale_sharded", "popen"),
    "DDPShardedStrategy": ("fairscale_sharded", "popen"),
    "DDPSpawnShardedPlugin": ("fairscale_sharded", "spawn"),
    "DDPSpawnShardedStrategy": ("fairscale_sharded", "spawn"),
    "DDPFullyShardedPlugin": ("fairscale_fsdp", "popen"),
    "DDPFullyShardedStrategy": ("fairscale_fsdp", "popen"),
    "DDPFullyShardedNativeStrategy": ("fsdp", "popen"),
    "FSDPStrategy": ("fsdp", "popen"),
    "TPUSpawnPlugin": ("xla", "spawn"),
    "TPUSpawnStrategy": ("xla", "spawn"),
    "XLAStrategy": ("xla", "spawn"),
    "SingleTPUPlugin": ("single_xla", None),
    "SingleTPUStrategy": ("single_xla", None),
    "SingleDeviceXLAStrategy": ("single_xla", None),
    "IPUPlugin": ("ipu", None),
    "IPUStrategy": ("ipu", None),
    "BaguaStrategy": ("bagua", None),
    "ColossalAIStrategy": ("colossalai", None),
    "HPUParallelStrategy": ("hpu_parallel", "popen"),
    "SingleHPUStrategy": ("hpu_single", None),
}

ACCELERATOR_KINDS = {
    "CPUAccelerator": "cpu",
    "GPUAccelerator": "cuda",
    "CUDAAccelerator": "cuda",
    "TPUAccelerator": "tpu",
    "XLAAccelerator": "tpu",
    "MPSAccelerator": "mps",
    "IPUAccelerator": "ipu",
    "HPUAccelerator": "hpu",
}

# Where a release may export the classes a call names.
OBJECT_MODULES = ("strategies", "plugins", "plugins.environments", "plugins.training_type")


def lightning() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = importlib.import_module(ROOT)
    for name in (
        "pytorch_lightning",
        "lightning",
        "lightning.pytorch",
        "lightning.fabric",
        "lightning_fabric",
    ):
        logging.getLogger(name).setLevel(logging.ERROR)  # "GPU available: ..." for every Trainer
    return module


def release() -> str:
    return str(lightning().__version__)


# Top-level package names of every release (and of the Fabric/Lite package it ships with).
LIGHTNING_PACKAGES = ("pytorch_lightning", "lightning", "lightning_fabric", "lightning_lite")

_ABSENT = object()


def lightning_modules() -> list[Any]:
    """The loaded modules of the installed release (not ``lightning_migrate`` or ``lightning_utilities``)."""
    return [
        module
        for name, module in list(sys.modules.items())
        if module is not None and name.split(".")[0] in LIGHTNING_PACKAGES
    ]


@contextlib.contextmanager
def simulated(hardware: Hardware) -> Iterator[None]:
    """Make the release see ``hardware``, the way Lightning's own tests mock device counts.

    Patches torch's CUDA queries and every Lightning-level helper that caches or wraps them
    (``num_cuda_devices``/``is_cuda_available`` moved between modules across releases), and with
    ``hardware.tpu_cores`` a TPU machine (see ``simulated_tpu``). Everything is restored on exit:
    the same process then builds trainers for other hardware.
    """
    import torch  # here, so that replay.py can use this module without torch

    n = hardware.cuda
    replacements: dict[str, Any] = {
        "num_cuda_devices": lambda: n,
        "is_cuda_available": lambda: n > 0,
        "_device_count_nvml": lambda: n,
    }
    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        # On a class, save the raw attribute (a staticmethod object, not the function getattr gives).
        old = owner.__dict__.get(name, _ABSENT) if isinstance(owner, type) else getattr(owner, name, _ABSENT)
        saved.append((owner, name, old))
        setattr(owner, name, value)

    env = dict(os.environ)
    try:
        patch(torch.cuda, "device_count", lambda: n)
        patch(torch.cuda, "is_available", lambda: n > 0)
        if hasattr(torch.backends, "mps"):
            patch(torch.backends.mps, "is_available", lambda: hardware.mps)
        for module in lightning_modules():
            for attr, replacement in replacements.items():
                if callable(module.__dict__.get(attr)):
                    patch(module, attr, replacement)
        for rank_zero_only in _rank_zero_only_functions():  # strategies set it; Lightning's tests restore it
            patch(rank_zero_only, "rank", rank_zero_only.rank)
        with contextlib.ExitStack() as stack:
            if hardware.tpu_cores:
                stack.enter_context(simulated_tpu(hardware.tpu_cores, patch))
            if hardware.installed:
                stack.enter_context(simulated_packages(hardware.installed, patch))
            yield
    finally:
        for owner, name, value in reversed(saved):
            if value is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, value)
        os.environ.clear()
        os.environ.update(env)


def _rank_zero_only_functions() -> list[Any]:
    """The ``rank_zero_only`` decorators of the release and lightning_utilities, whose ``rank`` is global."""
    functions = {}
    for name, module in list(sys.modules.items()):
        if module is not None and name.split(".")[0] in (*LIGHTNING_PACKAGES, "lightning_utilities"):
            function = module.__dict__.get("rank_zero_only")
            if function is not None and hasattr(function, "rank"):
                functions[id(function)] = function
    return list(functions.values())


# --- TPU ---------------------------------------------------------------------------------------------------
#
# How each release decides that it runs on a TPU, and what ``simulated_tpu`` patches for it (the same names
# Lightning's own tests patch: ``_TPU_AVAILABLE`` in 1.x, ``mock_tpu_available`` in 1.8+/2.x):
#   1.4-1.7  ``utilities.imports._TPU_AVAILABLE = XLADeviceUtils.tpu_device_exists()`` (a subprocess probing
#            torch_xla), computed once at import and copied by ``from ... import`` into ~15 modules
#            (device_parser, the accelerator connector, the trainer, ...); ``_XLA_AVAILABLE`` likewise.
#            1.6/1.7 ``TPUAccelerator.is_available()`` returns that flag, ``auto_device_count()`` is 8.
#            Modules import torch_xla at import time under ``if _TPU_AVAILABLE:`` / ``if _XLA_AVAILABLE:``
#            (``xm``, ``xmp``, ``xenv``, ...), so on a CPU box those names are missing or None.
#   1.8-2.0  ``lightning_lite``/``lightning_fabric`` ``TPUAccelerator.is_available()`` (lru-cached subprocess
#            probe), which the pytorch_lightning ``TPUAccelerator`` delegates to; ``_XLA_AVAILABLE`` is a
#            ``RequirementCache``/``ModuleAvailableCache`` checked by every XLA class's ``__init__``;
#            torch_xla is imported inside functions.
#   2.1+     ``XLAAccelerator.is_available()`` / ``auto_device_count()`` (lru-cached, ask torch_xla);
#            ``_XLA_AVAILABLE`` as above; ``_XLA_GREATER_EQUAL_2_1``/``_2_5`` are left alone (False: the
#            stub has no version), as in Lightning's tests, so ``XLAAccelerator()``'s ``_using_pjrt()`` asks
#            ``torch_xla.experimental.pjrt.using_pjrt()`` (True, see ``XLA_FUNCTIONS``).
# Each patched name is restored by ``simulated``; ``simulated_tpu`` removes the stub modules and clears the
# lru_caches that were filled while simulating. (Checked: a process that builds the TPU grid first, then the
# CPU/CUDA grid, records the same CPU/CUDA outcomes as a fresh one, and the reverse order too.)
# The stub torch_xla (``_XlaStubFinder``, like the ``sys.modules["torch_xla"] = Mock()`` of Lightning's tests)
# answers every ``torch_xla.*`` import with a module whose attributes are Mocks, except the few functions of
# ``XLA_FUNCTIONS``: ``xla_model.xla_device(n)`` returns the ``torch.device("xla", n)`` torch_xla returns, so
# that strategies hold real devices, and the rank/world-size/runtime queries answer as on a TPU host.

AVAILABILITY_FLAGS = ("_TPU_AVAILABLE", "_XLA_AVAILABLE")
TPU_ACCELERATORS = ("TPUAccelerator", "XLAAccelerator")


class _XlaStubModule(types.ModuleType):
    """A ``torch_xla`` (sub)module: every public attribute is a ``Mock`` named after it."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        name = f"{self.__name__}.{attr}"
        if any(module == name or module.startswith(f"{name}.") for module in XLA_FUNCTIONS):
            return importlib.import_module(name)  # `from torch_xla.experimental import pjrt`
        from unittest.mock import Mock

        value = Mock(name=name)
        setattr(self, attr, value)
        return value


def _xla_device(n: int | None = None, devkind: str | None = None) -> Any:
    import torch

    return torch.device("xla", n) if n is not None else torch.device("xla")


# The torch_xla names whose answer steers ``Trainer(...)`` in some release, answering as torch_xla does in
# the main process of a single-host TPU (before ``xmp.spawn``: rank 0 of a world of 1). Left as Mocks, these
# would put a Mock into ``rank_zero_only.rank`` (1.9/2.0 ``TPUSpawnStrategy.set_world_ranks``) or pass for
# truthy by accident (2.1+ ``XLAAccelerator()`` checks ``_using_pjrt()``).
XLA_FUNCTIONS: dict[str, dict[str, Any]] = {
    "torch_xla.core.xla_model": {
        "xla_device": _xla_device,  # SingleTPU* / SingleDeviceXLAStrategy(device)
        "get_ordinal": lambda: 0,
        "get_local_ordinal": lambda: 0,
        "xrt_world_size": lambda: 1,
    },
    "torch_xla.experimental.pjrt": {"using_pjrt": lambda: True},  # PJRT is torch_xla's only runtime from 2.1
    # the environment variable names, read by 1.7-1.9's XLAEnvironment (`os.environ.get(xenv.HOST_ORDINAL)`)
    # when a `TPUSpawnStrategy()` object sets its ranks: a Mock there is a TypeError no TPU host raises
    "torch_xla.core.xla_env_vars": {
        "HOST_ORDINAL": "XRT_HOST_ORDINAL",
        "HOST_WORLD_SIZE": "XRT_HOST_WORLD_SIZE",
        "LOCAL_ORDINAL": "XRT_LOCAL_ORDINAL",
        "ORDINAL": "XRT_SHARD_ORDINAL",
        "WORLD_SIZE": "XRT_SHARD_WORLD_SIZE",
        "TPUVM_MODE": "TPUVM_MODE",
        "TPU_MESH_CTLER_ADDR": "TPU_MESH_CONTROLLER_ADDRESS",
        "TPU_MESH_CTLER_PORT": "TPU_MESH_CONTROLLER_PORT",
    },
}


class _XlaStubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``torch_xla`` and any ``torch_xla.*`` as a ``_XlaStubModule`` package."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not _is_xla(fullname):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: Any) -> Any:
        module = _XlaStubModule(spec.name)
        for name, function in XLA_FUNCTIONS.get(spec.name, {}).items():
            setattr(module, name, function)
        return module

    def exec_module(self, module: Any) -> None:
        pass


_XLA_NAMES: dict[str, list[tuple[str, str, str | None]]] = {}


def _import_time_xla_names(module: Any) -> list[tuple[str, str, str | None]]:
    """The names a 1.x module binds to torch_xla at import time on a TPU machine.

    Those are the ``import``s inside a top-level ``if _TPU_AVAILABLE:``/``if _XLA_AVAILABLE:`` (the ``else``
    branch, if any, binds them to None). Returns (name, torch_xla module, attribute or None).
    """
    if module.__name__ not in _XLA_NAMES:
        _XLA_NAMES[module.__name__] = _find_import_time_xla_names(module)
    return _XLA_NAMES[module.__name__]


def _find_import_time_xla_names(module: Any) -> list[tuple[str, str, str | None]]:
    return _import_time_bindings(module, "torch_xla", lambda flag: flag in AVAILABILITY_FLAGS)


def _import_time_bindings(
    module: Any, package: str, is_flag: Callable[[str], bool]
) -> list[tuple[str, str, str | None]]:
    """The names ``module`` binds to ``package`` in the top-level ``if`` blocks whose test reads a flag."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return []
    if package not in source:
        return []

    def ours(name: str) -> bool:
        return name.split(".", maxsplit=1)[0] == package

    bindings: list[tuple[str, str, str | None]] = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.If) or not any(
            isinstance(name, ast.Name) and is_flag(name.id) for name in ast.walk(node.test)
        ):
            continue
        for statement in node.body:
            for sub in ast.walk(statement):
                if isinstance(sub, ast.Import):
                    for alias in sub.names:
                        if ours(alias.name) and alias.asname:  # import torch_xla.core.xla_model as xm
                            bindings.append((alias.asname, alias.name, None))
                        elif ours(alias.name):  # import torch_xla.core.xla_model
                            bindings.append((package, package, None))
                elif isinstance(sub, ast.ImportFrom) and sub.level == 0 and ours(sub.module or ""):
                    for alias in sub.names:
                        bindings.append((alias.asname or alias.name, str(sub.module), alias.name))
    return bindings


def _is_xla(module_name: str) -> bool:
    return module_name.split(".", maxsplit=1)[0] == "torch_xla"


def _lru_caches(modules: list[Any]) -> list[Any]:
    """Every ``functools.lru_cache`` function of these modules, module-level or a method of their classes."""
    caches: dict[int, Any] = {}
    for module in modules:
        for value in list(module.__dict__.values()):
            candidates = [value]
            if isinstance(value, type) and value.__module__ == module.__name__:
                candidates = list(value.__dict__.values())
            for candidate in candidates:
                function = getattr(candidate, "__func__", candidate)  # staticmethod / classmethod
                if isinstance(function, functools._lru_cache_wrapper):
                    caches[id(function)] = function
    return list(caches.values())


def _cached_modules() -> list[Any]:
    """Where a cached answer may depend on the simulated TPU: the release, and the availability checks
    (``package_available``/``module_available``) of lightning_utilities that it calls."""
    return lightning_modules() + [
        module
        for name, module in list(sys.modules.items())
        if module is not None and name.split(".")[0] == "lightning_utilities"
    ]


@contextlib.contextmanager
def simulated_tpu(cores: int, patch: Any) -> Iterator[None]:
    """A TPU host with ``cores`` cores, for the installed release (see the table above).

    ``patch(owner, name, value)`` records what it changes; the caller restores it. This restores the rest:
    the stub importer, the ``torch_xla`` entries of ``sys.modules`` and any lru_cache filled meanwhile.
    """
    modules = lightning_modules()
    caches = {id(cache): cache.cache_info().misses for cache in _lru_caches(_cached_modules())}
    stubbed = {name for name in sys.modules if _is_xla(name)}
    finder = _XlaStubFinder()
    sys.meta_path.insert(0, finder)
    try:
        seen: set[int] = set()
        for module in modules:
            for flag in AVAILABILITY_FLAGS:
                if flag in module.__dict__:
                    patch(module, flag, True)
            for name, xla_module, attr in _import_time_xla_names(module):
                value = importlib.import_module(xla_module)
                patch(module, name, getattr(value, attr) if attr else value)
            for value in list(module.__dict__.values()):
                if not isinstance(value, type) or id(value) in seen:
                    continue
                seen.add(id(value))
                if value.__name__ in TPU_ACCELERATORS:
                    if "is_available" in value.__dict__:
                        patch(value, "is_available", staticmethod(lambda: True))
                    if "auto_device_count" in value.__dict__:
                        patch(value, "auto_device_count", staticmethod(lambda: cores))
                elif value.__name__ == "XLADeviceUtils":  # 1.4-1.9
                    patch(value, "_TPU_AVAILABLE", True)
                    patch(value, "tpu_device_exists", staticmethod(lambda: True))
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [name for name in sys.modules if _is_xla(name)]:
            if name not in stubbed:
                del sys.modules[name]
        for cache in _lru_caches(_cached_modules()):
            if cache.cache_info().misses != caches.get(id(cache)):  # computed while simulating
                cache.cache_clear()


# --- optional packages ---------------------------------------------------------------------------------
#
# How each release decides that DeepSpeed, FairScale or Horovod is installed, and what
# ``simulated_packages`` patches for it (the names Lightning's own tests patch, e.g.
# ``mock.patch("...deepspeed._DEEPSPEED_AVAILABLE", True)``, with a stub module in ``sys.modules``):
#   1.4-1.8  ``utilities.imports._DEEPSPEED_AVAILABLE``/``_FAIRSCALE_AVAILABLE``/
#            ``_FAIRSCALE_FULLY_SHARDED_AVAILABLE``/``_HOROVOD_AVAILABLE`` (plain bools computed at import),
#            copied by ``from ... import`` into the strategies and the accelerator connector; those modules
#            import the package at import time under ``if _X_AVAILABLE:`` (``import horovod.torch as hvd``,
#            ``import deepspeed``, fairscale classes).
#   1.9-2.x  the same names as ``RequirementCache``s (DeepSpeed's in
#            ``lightning_fabric.strategies.deepspeed``, with ``_DEEPSPEED_GREATER_EQUAL_0_16`` in 2.6), and
#            the package imported inside functions.
# Every such flag of every Lightning module is patched to True, every import-time binding is made to the stub,
# and any other ``import`` of the package meets the stub finder; all of it is restored after the call.
# ``horovod.torch`` answers as Horovod does in a process started without horovodrun: rank 0 of a world of 1.

PACKAGE_FLAG_PREFIXES = {"deepspeed": "_DEEPSPEED_", "fairscale": "_FAIRSCALE_", "horovod": "_HOROVOD_"}

PACKAGE_FUNCTIONS: dict[str, dict[str, Any]] = {
    "deepspeed": {"__version__": "0.16.0"},
    "horovod.torch": {
        "init": lambda *args, **kwargs: None,
        "rank": lambda: 0,
        "local_rank": lambda: 0,
        "size": lambda: 1,
        "local_size": lambda: 1,
        "cross_size": lambda: 1,
    },
}


def _is_package_flag(package: str, name: str) -> bool:
    prefix = PACKAGE_FLAG_PREFIXES[package]
    return name.startswith(prefix) and ("AVAILABLE" in name or "GREATER_EQUAL" in name)


class _PackageStubFinder(_XlaStubFinder):
    """Imports the simulated packages (and any of their submodules) as stub modules of Mocks."""

    def __init__(self, packages: frozenset[str]) -> None:
        self.packages = packages

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname.split(".", maxsplit=1)[0] not in self.packages:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: Any) -> Any:
        module = _XlaStubModule(spec.name)
        for name, function in PACKAGE_FUNCTIONS.get(spec.name, {}).items():
            setattr(module, name, function)
        return module


_PACKAGE_NAMES: dict[tuple[str, str], list[tuple[str, str, str | None]]] = {}


def _package_bindings(module: Any, package: str) -> list[tuple[str, str, str | None]]:
    key = (module.__name__, package)
    if key not in _PACKAGE_NAMES:
        is_flag = functools.partial(_is_package_flag, package)
        _PACKAGE_NAMES[key] = _import_time_bindings(module, package, is_flag)
    return _PACKAGE_NAMES[key]


@contextlib.contextmanager
def simulated_packages(installed: frozenset[str], patch: Any) -> Iterator[None]:
    """DeepSpeed, FairScale and Horovod installed, as far as ``installed`` names them (see above)."""
    packages = frozenset(installed) & set(PACKAGE_FLAG_PREFIXES)
    caches = {id(cache): cache.cache_info().misses for cache in _lru_caches(_cached_modules())}
    stubbed = {name for name in sys.modules if name.split(".", maxsplit=1)[0] in packages}
    finder = _PackageStubFinder(packages)
    sys.meta_path.insert(0, finder)
    try:
        for module in lightning_modules():
            for package in packages:
                for name in [n for n in module.__dict__ if _is_package_flag(package, n)]:
                    patch(module, name, True)
                for name, stub_module, attr in _package_bindings(module, package):
                    value = importlib.import_module(stub_module)
                    patch(module, name, getattr(value, attr) if attr else value)
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n.split(".", maxsplit=1)[0] in packages]:
            if name not in stubbed:
                del sys.modules[name]
        for cache in _lru_caches(_cached_modules()):
            if cache.cache_info().misses != caches.get(id(cache)):
                cache.cache_clear()


def find_class(name: str) -> Any:
    for sub in OBJECT_MODULES:
        try:
            module = importlib.import_module(f"{ROOT}.{sub}")
        except ImportError:
            continue
        if name in module.__dict__ or hasattr(module, name):
            return getattr(module, name)
    raise ImportError(f"cannot import name {name!r}")


def build_value(value: Value) -> Any:
    if isinstance(value, Obj):
        return find_class(value.cls)(**{k: build_value(v) for k, v in value.kwargs})
    if isinstance(value, (list, tuple)):
        return type(value)(build_value(v) for v in value)
    return value


def observe(flags: dict[str, Value], hardware: Hardware) -> Outcome:
    """What the installed release builds for ``Trainer(**flags)`` on ``hardware``."""
    pl = lightning()
    with simulated(hardware), warnings.catch_warnings(), tempfile.TemporaryDirectory() as tmp:
        warnings.simplefilter("ignore")
        try:
            kwargs = {k: build_value(v) for k, v in flags.items()}
            trainer = pl.Trainer(default_root_dir=tmp, **kwargs)
        except Exception as exc:
            return rejected(exc)
        passed = zip(_items(kwargs.get("plugins")), _items(flags.get("plugins")))
        plugins = [(real, obj) for real, obj in passed if isinstance(obj, Obj) and not is_precision(real)]
        return replace(read_setup(trainer), plugins=kept_plugins(trainer, plugins))


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [] if value is None else [value]


def kept_plugins(trainer: Any, passed: list[tuple[Any, Obj]]) -> tuple[Obj, ...]:
    """The passed plugin objects (not strategies) that the trainer holds and will use: found by identity
    among the attributes of its strategy and accelerator connector (where each release keeps them)."""
    strategy = strategy_of(trainer)
    connector = getattr(trainer, "_accelerator_connector", None) or trainer.accelerator_connector
    owners = (
        strategy,
        connector,
        getattr(trainer, "accelerator", None),
    )  # 1.4/1.5: the accelerator's precision
    held = {id(value) for owner in owners if owner is not None for value in vars(owner).values()}
    return tuple(obj for real, obj in passed if id(real) in held and real is not strategy)


def rejected(exc: BaseException) -> Rejected:
    message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return Rejected(type(exc).__name__, normalize(str(message)))


def normalize(message: str) -> str:
    """Remove what no model can predict: object addresses and module paths in reprs, and the order of
    the accelerator names 2.6 prints from a set."""
    message = re.sub(r"<(?:[\w.]+\.)?(\w+) object at 0x[0-9a-f]+>", r"<\1 object>", message)
    return re.sub(
        r"(Available names are: )([\w, ]+)",
        lambda m: m.group(1) + ", ".join(sorted(m.group(2).split(", "))),
        message,
    )


# --- precision ---------------------------------------------------------------------------------------------
#
# The precision plugin the Trainer holds, read into the model's release-independent ``Precision``:
# - the value in 2.x's words: 1.x plugins hold 32, 64, 16, "bf16" (and 1.4/1.5's mixed-precision base class
#   "mixed", which is float16 AMP); the torch-AMP classes autocast to bfloat16 exactly when their precision
#   says bf16, else to float16; 1.x/2.0 TPU half-precision plugins set XLA_USE_BF16=1 (all of the model in
#   bfloat16, 2.1's "bf16-true");
# - the backend: NVIDIA Apex for the Apex plugins (and a DeepSpeed plugin built with amp_type="apex");
# - the autocast device of the plain torch-AMP classes (1.4's has none: it always uses torch.cuda.amp).
TPU_HALF_PLUGINS = ("TPUHalfPrecisionPlugin", "TPUBf16PrecisionPlugin")
TORCH_AMP_PLUGINS = ("NativeMixedPrecisionPlugin", "MixedPrecisionPlugin", "MixedPrecision")
DOUBLE_PLUGINS = ("DoublePrecisionPlugin", "DoublePrecision")
UNIFIED = {"32": "32-true", "64": "64-true", "16": "16-mixed", "bf16": "bf16-mixed", "mixed": "16-mixed"}


def precision_base() -> Any:
    plugins = importlib.import_module(f"{ROOT}.plugins")
    return getattr(plugins, "Precision", None) or plugins.PrecisionPlugin


def is_precision(value: Any) -> bool:
    return isinstance(value, precision_base())


def precision_plugin_of(trainer: Any) -> Any:
    strategy = strategy_of(trainer)
    plugin = getattr(strategy, "precision_plugin", None)  # 1.6+
    if plugin is None:  # 1.4/1.5: the accelerator holds it
        plugin = trainer.accelerator.precision_plugin
    return plugin


def read_precision(trainer: Any) -> Precision:
    plugin = precision_plugin_of(trainer)
    names = [cls.__name__ for cls in type(plugin).__mro__]
    raw = str(plugin.precision)
    if any(name in TPU_HALF_PLUGINS for name in names):
        value = "bf16-true"
    elif any(name in DOUBLE_PLUGINS for name in names):
        value = "64-true"
    elif any(name in TORCH_AMP_PLUGINS for name in names):
        value = "bf16-mixed" if "bf16" in raw else "16-mixed"
    else:
        value = UNIFIED.get(raw, raw)
    apex = "Apex" in names[0] or str(getattr(plugin, "amp_type", "")).lower().endswith("apex")
    # (a sharded/FSDP subclass runs its strategy's own autocast: no device of its own)
    device = str(getattr(plugin, "device", "cuda")) if names[0] in TORCH_AMP_PLUGINS else None
    return Precision(
        value,
        "apex" if apex else "native",
        str(plugin.amp_level) if apex and getattr(plugin, "amp_level", None) is not None else None,
        device,
    )


def strategy_of(trainer: Any) -> Any:
    # 1.4/1.5 only have `training_type_plugin`; 1.6/1.7 warn on it, so prefer `strategy`.
    if hasattr(type(trainer), "strategy"):
        return trainer.strategy
    return trainer.training_type_plugin


def find_unused_parameters(strategy: Any) -> bool | None:
    """The value torch DDP will get, letting the release fill in its own default."""
    kwargs = getattr(strategy, "_ddp_kwargs", None)
    if kwargs is None:
        return None
    if "find_unused_parameters" not in kwargs and hasattr(strategy, "pre_configure_ddp"):
        probe = copy.copy(strategy)
        probe._ddp_kwargs = dict(kwargs)
        with contextlib.suppress(Exception):  # later lines need a model; the default is set first
            type(strategy).pre_configure_ddp(probe)
        kwargs = probe._ddp_kwargs
    return bool(kwargs.get("find_unused_parameters", False))


def device_indices(strategy: Any) -> tuple[int, ...]:
    devices = getattr(strategy, "parallel_devices", None)
    if devices is None:
        devices = [strategy.root_device]
    indices = []
    for position, device in enumerate(devices):
        if isinstance(device, int):
            indices.append(device)
        elif device.index is None or device.type == "cpu":
            indices.append(position)
        else:
            indices.append(device.index)
    if STRATEGY_FAMILIES[type(strategy).__name__][0] == "single_xla" and xla_ordinals_one_based():
        indices = [max(index - 1, 0) for index in indices]
    return tuple(indices)


# TPU cores are reported 0-based, as 2.1+ numbers them. What the strategies hold:
# - XLA spawn strategies (TPUSpawnPlugin/TPUSpawnStrategy, XLAStrategy) hold the cores they will spawn
#   processes for, already 0-based: `list(range(n))` (ints) up to 2.0, `torch.device("xla", i)` from 2.1.
# - Single-core strategies (SingleTPUPlugin/SingleTPUStrategy, SingleDeviceXLAStrategy) hold
#   `xm.xla_device(k)` = `torch.device("xla", k)` with the k the user gave. Up to 2.0 the releases accept
#   `tpu_cores=[k]`/`devices=[k]` with 1 <= k <= 8, the XRT ordinals of the 8 cores (xla:1..xla:8), so
#   core k-1: `tpu_cores=[5]` -> (4,). From 2.1 (#17227, PJRT ordinals) `devices=[i]`, 0 <= i <= 7, is core i.
#   The one exception: 1.6-2.0 also choose a single-core strategy for `tpu_cores=1`/`devices=1` (1.4/1.5:
#   TPUSpawnPlugin on [0]) and build it on `xm.xla_device(0)`, an ordinal outside 1..8 that no user can
#   pick; it is read as core 0 ("one core", like 2.1+'s `devices=1` -> xla:0).
def xla_ordinals_one_based() -> bool:
    return Version.parse(release()) < Version(2, 1)


def read_setup(trainer: Any) -> Setup:
    strategy = strategy_of(trainer)
    family, start_method = STRATEGY_FAMILIES[type(strategy).__name__]
    start_method = getattr(strategy, "_start_method", None) or start_method
    accelerator = getattr(trainer, "accelerator", None) or trainer.accelerator_connector.accelerator
    return Setup(
        accelerator=ACCELERATOR_KINDS[type(accelerator).__name__],
        devices=device_indices(strategy),
        strategy=Strategy(
            name=family,
            start_method=start_method,
            find_unused_parameters=find_unused_parameters(strategy) if family == "ddp" else None,
            options=package_options(family, strategy),
        ),
        num_nodes=int(trainer.num_nodes),
        precision=read_precision(trainer),
    )


# DeepSpeed's options as the strategy's own config holds them, in the model's vocabulary (the keywords that
# set them): the ZeRO stage, what is offloaded where, and the device ZeRO-3 first builds the model on.
DEEPSPEED_DEFAULT_DEVICE, DEEPSPEED_DEFAULT_NVME = "cpu", "/local_nvme"


def package_options(family: str, strategy: Any) -> tuple[tuple[str, Value], ...]:
    if family == "deepspeed":
        return tuple(sorted(deepspeed_options(strategy).items()))
    if family.startswith("fairscale"):  # the DDP keywords the sharded strategy was given, for torch DDP
        return tuple(sorted(getattr(strategy, "_ddp_kwargs", {}).items()))
    return ()


def deepspeed_options(strategy: Any) -> dict[str, Value]:
    zero = strategy.config.get("zero_optimization")
    if not zero:
        return {"zero_optimization": False}
    options: dict[str, Value] = {"stage": zero["stage"]}
    nvme_paths = set()
    for flag, key, device_flag in (
        ("offload_optimizer", "offload_optimizer", "offload_optimizer_device"),
        ("offload_parameters", "offload_param", "offload_params_device"),
    ):
        offload = zero.get(key)
        if offload:
            options[flag] = True
            if offload["device"] != DEEPSPEED_DEFAULT_DEVICE:
                options[device_flag] = offload["device"]
            nvme_paths.add(offload.get("nvme_path", DEEPSPEED_DEFAULT_NVME))
    if nvme_paths - {DEEPSPEED_DEFAULT_NVME}:
        options["nvme_path"] = nvme_paths.pop()
    if zero["stage"] == 3:  # `deepspeed.zero.Init(remote_device=...)` runs for stage 3 only
        options["remote_device"] = strategy.remote_device
    return options


def outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    if isinstance(outcome, Rejected):
        return {"error": outcome.error, "message": outcome.message}
    return {
        "accelerator": outcome.accelerator,
        "devices": list(outcome.devices),
        "num_nodes": outcome.num_nodes,
        "strategy": str(outcome.strategy),
        "precision": str(outcome.precision),
    }


if __name__ == "__main__":
    from grid import HARDWARE, cases

    records = [
        {"hw": h, "case": i, "real": outcome_to_json(observe(flags, hardware))}
        for h, hardware in enumerate(HARDWARE)
        for i, flags in enumerate(cases())
    ]
    with open(sys.argv[1], "w") as out:
        json.dump({"release": release(), "namespace": ROOT, "records": records}, out, indent=0)
    print(f"{len(records)} records for {release()}")
