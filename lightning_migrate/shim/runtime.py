"""The Lightning side of the shim: the installed release, the machine, real objects <-> model values.

Lightning is imported only when a shim Trainer is built or installed, from the namespace the user's code
imports (``pytorch_lightning`` or ``lightning.pytorch``: the ``lightning`` package installs both, and their
classes are not interchangeable).
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import logging
import sys
import warnings
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from lightning_migrate.semantics import Hardware, Obj, Rejected, Value, Version
from lightning_migrate.semantics.classes import (
    CHECKPOINT_IO,
    ENVIRONMENT,
    START_METHOD_PARAMETER,
    STRATEGY,
    lookup,
)
from lightning_migrate.semantics.model import MISCONF, OPTIONAL_PACKAGES
from lightning_migrate.semantics.translate import TRANSLATED, Translation, as_list, given_flags, translate

LOG = logging.getLogger(__name__)

INSTALL_HINT = {
    "pytorch_lightning": "pip install pytorch-lightning",
    "lightning.pytorch": "pip install lightning",
}

# Where each release keeps what the shim needs, newest first.
DEPRECATION_CATEGORY_MODULES = ("utilities.rank_zero", "utilities.warnings")
TPU_ACCELERATORS = ("XLAAccelerator", "TPUAccelerator")  # 2.1+ / 1.6-2.0: `is_available()`
CLASS_MODULES = ("strategies", "plugins", "plugins.environments")
MODELLED_KINDS = (STRATEGY, ENVIRONMENT, CHECKPOINT_IO)


def load(namespace: str) -> ModuleType:
    try:
        with warnings.catch_warnings():  # old releases warn about pkg_resources at import
            warnings.simplefilter("ignore")
            return importlib.import_module(namespace)
    except ImportError as exc:
        raise ImportError(
            f"lightning_migrate.shim needs Lightning: `import {namespace}` failed ({exc}). Install it"
            f" ({INSTALL_HINT[namespace]}), or use the shim of the namespace your code imports:"
            " `lightning_migrate.shim` for `pytorch_lightning`, `lightning_migrate.shim.lightning` for"
            " `lightning.pytorch`."
        ) from exc


def release(namespace: str) -> Version:
    return Version.parse(str(load(namespace).__version__))


def _submodule(namespace: str, name: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"{namespace}.{name}")
    except ImportError:
        return None


def hardware(namespace: str) -> Hardware:
    """What the machine offers, asked the way the installed release asks (so Lightning's own test mocks and
    the harness's simulations apply)."""
    torch: Any = importlib.import_module("torch")  # not a dependency: Lightning brings it
    mps = getattr(torch.backends, "mps", None)
    return Hardware(
        cuda=torch.cuda.device_count(),
        tpu_cores=_tpu_cores(namespace),
        mps=bool(mps is not None and mps.is_available()),
        installed=frozenset(name for name in OPTIONAL_PACKAGES if _importable(name)),
    )


def _importable(name: str) -> bool:
    """Whether ``import name`` would find the package, without importing it (DeepSpeed's import is slow)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # ValueError: a module in sys.modules without a spec (a mock)
        return name in sys.modules


def _tpu_cores(namespace: str) -> int:
    accelerators = _submodule(namespace, "accelerators")
    for name in TPU_ACCELERATORS:
        cls = getattr(accelerators, name, None)
        if cls is not None and "is_available" in dir(cls):
            return int(cls.auto_device_count()) if cls.is_available() else 0
    utilities = load(namespace).utilities  # 1.4/1.5: a flag computed at import
    return 8 if getattr(utilities, "_TPU_AVAILABLE", False) else 0


def deprecation_category(namespace: str) -> type[Warning]:
    for name in DEPRECATION_CATEGORY_MODULES:
        category = getattr(_submodule(namespace, name), "LightningDeprecationWarning", None)
        if isinstance(category, type) and issubclass(category, Warning):
            return category
    return DeprecationWarning


def exception(rejected: Rejected, namespace: str) -> BaseException:
    """The exception the installed release would raise for ``rejected`` (its MisconfigurationException)."""
    if rejected.error == MISCONF:
        exceptions = load(namespace).utilities.exceptions
        cls: type[BaseException] = exceptions.MisconfigurationException
    else:
        cls = getattr(builtins, rejected.error, RuntimeError)
    return cls(rejected.message)


@dataclass
class Conversion:
    """Real keyword values as model values. Each ``Obj`` made from a user's object is remembered, in order,
    so that the translated flags get back the very objects the user built."""

    namespace: str
    installed: Version
    originals: list[tuple[Obj, Any]] = field(default_factory=list)
    set_aside: list[Any] = field(default_factory=list)  # plugins the model does not know: kept as given
    opaque: bool = False  # a value the model cannot read where it matters: the real Trainer decides

    def to_model(self, flag: str, value: Any) -> Value:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, (list, tuple)):
            items = [self._item(flag, item) for item in value]
            return [item for item in items if item is not _ASIDE]
        item = self._item(flag, value)
        return None if item is _ASIDE else item

    def _item(self, flag: str, value: Any) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        obj = self._obj(value)
        if obj is not None:
            self.originals.append((obj, value))
            return obj
        if flag == "plugins" and not self._is_strategy(value):
            self.set_aside.append(value)
            return _ASIDE
        self.opaque = True
        return None

    def _obj(self, value: Any) -> Obj | None:
        """The model's ``Obj`` for an object of the installed release's classes the model knows."""
        cls = type(value)
        row = lookup(cls.__name__)
        if row is None or row.kind not in MODELLED_KINDS or not row.exists_in(self.installed):
            return None
        if not cls.__module__.startswith(f"{self.namespace}."):
            return None  # a class of the other namespace, or the user's own subclass elsewhere
        kwargs: dict[str, Value] = {}
        ddp_kwargs = getattr(value, "_ddp_kwargs", None) or {}
        if "find_unused_parameters" in ddp_kwargs:
            kwargs["find_unused_parameters"] = bool(ddp_kwargs["find_unused_parameters"])
        since = START_METHOD_PARAMETER.get(cls.__name__)
        start = getattr(value, "_start_method", None)
        if since is not None and self.installed >= since and start not in (None, row.start_method):
            kwargs["start_method"] = start
        return Obj.of(cls.__name__, **kwargs)

    def _is_strategy(self, value: Any) -> bool:
        bases = [
            getattr(_submodule(self.namespace, "strategies"), "Strategy", None),
            getattr(_submodule(self.namespace, "plugins"), "TrainingTypePlugin", None),
        ]
        return any(isinstance(base, type) and isinstance(value, base) for base in bases)

    def to_real(self, value: Value) -> Any:
        if isinstance(value, list):
            return [self.to_real(item) for item in value]
        if not isinstance(value, Obj):
            return value
        for position, (obj, original) in enumerate(self.originals):
            if obj == value:
                del self.originals[position]
                return original
        return self._build(value)  # a strategy the rendering chose, e.g. TPUSpawnStrategy() on 1.6

    def _build(self, obj: Obj) -> Any:
        for name in CLASS_MODULES:
            cls = getattr(_submodule(self.namespace, name), obj.cls, None)
            if cls is not None:
                return cls(**{k: self.to_real(val) for k, val in obj.kwargs})
        raise ImportError(f"cannot import name {obj.cls!r} from {self.namespace}")


_ASIDE = object()


def translated_kwargs(
    namespace: str, kwargs: dict[str, Any], defaults: dict[str, Any], stacklevel: int
) -> dict[str, Any]:
    """``kwargs`` for the installed ``Trainer.__init__``: the hardware/distribution flags translated, the
    rest untouched. A flag at its default (``defaults``, see ``given_flags``) is not given. Warns once per
    deprecated spelling and raises the conflict checks."""
    flags = given_flags(kwargs, defaults)
    as_given = {k: val for k, val in kwargs.items() if k not in TRANSLATED} | flags
    try:
        result, final = _translated(namespace, as_given, flags)
    except Exception:  # whatever fails in the shim's own reading, the model included: the Trainer decides
        LOG.debug("the shim could not translate %r: passed on as given", flags, exc_info=True)
        return as_given
    _warn(result, namespace, stacklevel + 1)
    if isinstance(result.outcome, Rejected):
        raise exception(result.outcome, namespace)
    return final


def _translated(
    namespace: str, as_given: dict[str, Any], flags: dict[str, Any]
) -> tuple[Translation, dict[str, Any]]:
    """The translation of ``flags`` and the keywords for the real Trainer (``as_given`` where the shim
    cannot read a value)."""
    installed = release(namespace)
    conversion = Conversion(namespace, installed)
    given = {k: conversion.to_model(k, val) for k, val in flags.items()}
    if conversion.opaque:
        return Translation(flags, how="passed through: a value the model cannot read"), as_given
    result = translate(given, installed, hardware(namespace), namespace)
    if isinstance(result.outcome, Rejected):
        return result, as_given
    final = {k: val for k, val in as_given.items() if k not in TRANSLATED}
    final.update({k: conversion.to_real(val) for k, val in result.outcome.items()})
    if conversion.set_aside:
        final["plugins"] = [*as_list(final.get("plugins")), *conversion.set_aside]
    return result, final


def _warn(result: Translation, namespace: str, stacklevel: int) -> None:
    """One warning per deprecated spelling."""
    for spelling in result.deprecated:
        warn_deprecated(spelling.message, namespace, stacklevel + 1)


def warn_deprecated(message: str, namespace: str, stacklevel: int) -> None:
    """The release's deprecation warning (``stacklevel``: from the caller), from rank zero only (`ddp` re-runs
    the script on every rank)."""
    if getattr(load(namespace).utilities.rank_zero_only, "rank", 0) != 0:
        return
    warnings.warn(message, deprecation_category(namespace), stacklevel=stacklevel + 1)
