"""Strategy and plugin classes: which release exports which name, where, and what it builds.

The ``*Plugin`` training-type classes became ``*Strategy`` in 1.6. In 1.6 and 1.7 the old names are
deprecated subclasses; in 1.8 and 1.9 they are stubs whose constructor raises; in 2.0 they are gone.
"""

from __future__ import annotations

from dataclasses import dataclass

from lightning_migrate.semantics import constructors, precision
from lightning_migrate.semantics.model import RELEASES, Obj, Reject, Strategy, Value, Version, v
from lightning_migrate.semantics.registry import resolve

STRATEGY, PRECISION, ENVIRONMENT, CHECKPOINT_IO = "strategy", "precision", "environment", "checkpoint_io"


@dataclass(frozen=True)
class LightningClass:
    name: str
    kind: str
    module: str  # submodule of the package root that exports it
    since: Version
    until: Version | None = None  # first release where importing it fails
    stub_since: Version | None = None  # from this release on, constructing it raises NotImplementedError
    family: str = ""
    start_method: str | None = None
    renamed_to: str = ""

    def exists_in(self, version: Version) -> bool:
        return self.since <= version and (self.until is None or version < self.until)


V14, V16, V17, V18, V20, V21 = v("1.4"), v("1.6"), v("1.7"), v("1.8"), v("2.0"), v("2.1")
V15, V19, V2_1_1 = v("1.5"), v("1.9"), v("2.1.1")

# (old Plugin name, 1.6+ Strategy name, family, start method, Strategy class removed in)
_TRAINING_TYPES: tuple[tuple[str, str, str, str | None, Version | None], ...] = (
    ("DDP", "DDP", "ddp", "popen", None),
    ("DDPSpawn", "DDPSpawn", "ddp", "spawn", V20),
    ("DDP2", "DDP2", "ddp2", "popen", V18),
    ("DataParallel", "DataParallel", "dp", None, V20),
    ("DeepSpeed", "DeepSpeed", "deepspeed", "popen", None),
    ("Horovod", "Horovod", "horovod", None, V20),
    ("DDPSharded", "DDPSharded", "fairscale_sharded", "popen", V20),
    ("DDPSpawnSharded", "DDPSpawnSharded", "fairscale_sharded", "spawn", V20),
    ("DDPFullySharded", "DDPFullySharded", "fairscale_fsdp", "popen", V20),
    ("SingleDevice", "SingleDevice", "single_device", None, None),
    ("SingleTPU", "SingleTPU", "single_xla", None, None),
    ("TPUSpawn", "TPUSpawn", "xla", "spawn", V20),
    ("IPU", "IPU", "ipu", None, v("2.3")),
)

_DDP2_GONE = (
    "The `DDP2Strategy`/`DDP2Plugin` is no longer supported in v1.7 and will be removed completely in v1.8."
    " For single-node execution, we recommend the `DDPStrategy` or the `DPStrategy`. If you rely on DDP2, you"
    " will need `torch < 1.9` and `pytorch-lightning < 1.5`."
)
# Importable classes whose constructor raises from a release on: (release, error class, message).
BROKEN: dict[str, tuple[Version, str, str]] = {
    "DDP2Strategy": (V17, "TypeError", _DDP2_GONE),
    "DDP2Plugin": (V17, "TypeError", _DDP2_GONE),
    "IPUStrategy": (  # moved to an external package in 2.1; the stub is gone in 2.3
        V21,
        "NotImplementedError",
        "The `IPUStrategy` class has been moved to an external package. Install the extension package as"
        " `pip install lightning-graphcore` and import with `from lightning_graphcore import IPUStrategy`."
        " Please see: https://github.com/Lightning-AI/lightning-Graphcore for more details.",
    ),
}


def _training_type_classes() -> list[LightningClass]:
    rows = []
    for old, new, family, start, removed in _TRAINING_TYPES:
        rows.append(
            LightningClass(
                f"{old}Plugin", STRATEGY, "plugins", V14, V20, V18, family, start, renamed_to=f"{new}Strategy"
            )
        )
        rows.append(
            LightningClass(f"{new}Strategy", STRATEGY, "strategies", V16, removed, None, family, start)
        )
    return rows


CLASSES: tuple[LightningClass, ...] = (
    *_training_type_classes(),
    LightningClass("DDPFullyShardedNativeStrategy", STRATEGY, "strategies", V17, V20, None, "fsdp", "popen"),
    LightningClass("FSDPStrategy", STRATEGY, "strategies", V20, None, None, "fsdp", "popen"),
    LightningClass("XLAStrategy", STRATEGY, "strategies", V20, None, None, "xla", "fork"),
    LightningClass("SingleDeviceXLAStrategy", STRATEGY, "strategies", V21, None, None, "single_xla"),
    *(
        LightningClass(name, ENVIRONMENT, "plugins.environments", V14)
        for name in (
            "LightningEnvironment",
            "SLURMEnvironment",
            "TorchElasticEnvironment",
            "KubeflowEnvironment",
        )
    ),
    # Precision plugins: their constructors and what they train with are in `precision`.
    *(LightningClass(row.name, PRECISION, "plugins", row.since, row.until) for row in precision.CLASSES),
    LightningClass("TorchCheckpointIO", CHECKPOINT_IO, "plugins", V15),
)

# `start_method=` became a constructor parameter of DDPSpawnStrategy in 1.7 and of DDPStrategy in 2.0;
# before that it is swallowed by **kwargs (and only breaks torch DDP later, at fit time).
START_METHOD_PARAMETER = {"DDPSpawnStrategy": V17, "DDPStrategy": V20}

# The `*Plugin` training-type classes 1.6 renamed `*Strategy`.
RENAMED_STRATEGIES = frozenset(row.name for row in CLASSES if row.kind == STRATEGY and row.renamed_to)

_BY_NAME: dict[str, list[LightningClass]] = {}
for _row in CLASSES:
    _BY_NAME.setdefault(_row.name, []).append(_row)


def lookup(name: str) -> LightningClass | None:
    rows = _BY_NAME.get(name)
    return rows[0] if rows else None


def construct(obj: Obj, version: Version) -> LightningClass:
    """Check that ``version`` can import and build ``obj``; raise as the release would."""
    row = lookup(obj.cls)
    if row is None or not row.exists_in(version):
        raise Reject("ImportError", f"cannot import name {obj.cls!r}")
    if row.stub_since is not None and version >= row.stub_since:
        base = obj.cls.removesuffix("Plugin")
        raise Reject(
            "NotImplementedError",
            f"The `pl.plugins.{base}Plugin` class was deprecated in v1.6 and is no longer supported as of"
            f" v1.8. Use `pl.strategies.{base}Strategy` instead.",
        )
    broken = BROKEN.get(obj.cls)
    if broken is not None and version >= broken[0]:
        raise Reject(broken[1], broken[2])
    for keyword, _ in obj.kwargs:
        if constructors.role(obj.cls, keyword, version, row.renamed_to) == constructors.REJECTED:
            owner = constructors.defining_class(obj.cls, version, row.renamed_to)
            raise Reject("TypeError", f"{owner}.__init__() got an unexpected keyword argument {keyword!r}")
    return row


def positional_names(cls: str, count: int) -> tuple[str, ...] | None:
    """The parameters the first ``count`` positional arguments of ``cls(...)`` bind to, where that is the
    same in every release that builds the class (``NativeMixedPrecisionPlugin(16, "cuda")`` is
    ``(precision=16, device="cuda")`` from 1.5; 1.4's takes no argument, and raises ``TypeError`` either
    way). None where a release binds them otherwise (1.6 put ``accelerator`` first in ``DDPPlugin``), or
    takes fewer and forwards keywords through ``**kwargs`` (the keyword would go on where the positional
    argument raises), or the constructor is not tabled."""
    row = lookup(cls)
    if row is None:
        return None
    names: tuple[str, ...] | None = None
    for version in RELEASES:
        if not row.exists_in(version) or (row.stub_since is not None and version >= row.stub_since):
            continue  # (cannot be imported, or raises whatever it is given)
        if cls in BROKEN and version >= BROKEN[cls][0]:
            continue
        found = _positional(row, version)
        if found is None:
            return None
        params, forwards = found
        if len(params) < count:
            if forwards:
                return None
            continue  # (too many arguments, or an unexpected keyword: TypeError both ways)
        if names is None:
            names = params[:count]
        elif params[:count] != names:
            return None
    return names


def _positional(row: LightningClass, version: Version) -> tuple[tuple[str, ...], bool] | None:
    """The parameters of ``row``'s constructor in ``version``, in order, and whether it forwards others."""
    if row.kind == STRATEGY:
        signature = constructors.signature(row.name, version, row.renamed_to)
        return (signature.order, signature.forwards) if signature else None
    if row.kind == PRECISION:
        amp = precision.lookup(row.name)
        found = amp.constructor(version) if amp is not None else None
    else:
        found = constructors.plugin_constructor(row.name, version)
    return None if found is None else (tuple(name for name, _ in found.params), False)


# The module each training-type class lives in (`pl.plugins.training_type.<m>` / `pl.strategies.<m>`).
_MODULES = {
    "DDP": "ddp",
    "DDPSpawn": "ddp_spawn",
    "DDP2": "ddp2",
    "DataParallel": "dp",
    "DeepSpeed": "deepspeed",
    "Horovod": "horovod",
    "DDPSharded": "sharded",
    "DDPSpawnSharded": "sharded_spawn",
    "DDPFullySharded": "fully_sharded",
    "SingleDevice": "single_device",
    "SingleTPU": "single_tpu",
    "TPUSpawn": "tpu_spawn",
    "IPU": "ipu",
}


def deprecation(obj: Obj, version: Version) -> str | None:
    """The warning 1.6 and 1.7 give when an old ``*Plugin`` training-type class is built."""
    row = lookup(obj.cls)
    if row is None or not row.renamed_to or not V16 <= version < (row.stub_since or V20):
        return None
    base = obj.cls.removesuffix("Plugin")
    module = _MODULES[base]
    return (
        f"The `pl.plugins.training_type.{module}.{obj.cls}` is deprecated in v1.6 and will be removed in"
        " v1.8."
        f" Use `pl.strategies.{module}.{row.renamed_to}` instead."
    )


def kind_of(value: Value) -> str:
    if isinstance(value, Obj):
        row = lookup(value.cls)
        return row.kind if row else "unknown"
    return "unknown"


def strategy_of(obj: Obj, version: Version) -> Strategy:
    """The strategy a strategy object builds in ``version``."""
    row = construct(obj, version)
    kwargs = obj.kw()
    start = row.start_method
    since = START_METHOD_PARAMETER.get(obj.cls)
    if since is not None and version >= since and "start_method" in kwargs:
        start = str(kwargs["start_method"])
    fup = kwargs.get("find_unused_parameters") if row.family == "ddp" else None  # others keep it as an option
    options = ddp_options(obj, version) if row.family == "ddp" else obj.kwargs
    return resolve(Strategy(row.family, start, None if fup is None else bool(fup), options), version)


# The DDP keywords the Strategy already models in fields of its own.
_DDP_FIELDS = ("find_unused_parameters", "start_method")


def ddp_options(obj: Obj, version: Version) -> tuple[tuple[str, Value], ...]:
    """Every other keyword of a DDP-family object, by role: a parameter of the strategy keeps its name, a
    keyword forwarded to torch DDP is ``torch_ddp.<name>`` (so an argument whose role changed between two
    releases makes their setups differ, and a rename that would change it is refused)."""
    row = lookup(obj.cls)
    renamed = row.renamed_to if row else ""
    options = []
    for key, value in obj.kwargs:
        if key in _DDP_FIELDS:
            continue
        role = constructors.role(obj.cls, key, version, renamed)
        options.append((f"torch_ddp.{key}" if role == constructors.FORWARDED else key, value))
    return tuple(sorted(options))
