"""The accelerator connector of Lightning 1.4 and 1.5 (``trainer/connectors/accelerator_connector.py``).

The old connector is a mutable object whose properties have side effects (``has_gpu`` maps ``devices`` onto
``gpus`` the first time it is asked), so it is modelled as the same object: ``_Connector`` mirrors its fields
and methods, in the release's order, and the comments name the release method each step copies.
1.5.0 and 1.5.10 have byte-identical connectors; 1.5 adds ``strategy=`` (``_handle_accelerator_and_strategy``,
``_set_training_type_plugin``) and makes the training-type plugins' ``distributed_backend`` attributes enums.

Two kinds of string comparison matter. ``LightningEnum`` members (``DeviceType``, ``DistributedType``) compare
case-insensitively, while plain literals (``== "auto"``, 1.4's ``== "ddp_cpu"``) and ``DistributedType(x)``
(a lookup by value) are exact. Values the connector assigns itself are lower-case, so both agree on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from lightning_migrate.semantics import classes, precision, registry
from lightning_migrate.semantics.model import (
    MISCONF,
    Hardware,
    Obj,
    Precision,
    Reject,
    Setup,
    Strategy,
    Unmodelled,
    Value,
    Version,
    v,
)

Warn = Callable[[str, str], None]
V15 = v("1.5")

# DeviceType values (the enum names are upper-case, which is what Python 3.11 f-strings print).
CPU, GPU, IPU, TPU = "cpu", "gpu", "ipu", "tpu"
DEVICE_TYPES = (CPU, GPU, IPU, TPU)
ACCELERATOR_KINDS = {CPU: "cpu", GPU: "cuda", IPU: "ipu", TPU: "tpu"}

# DistributedType values.
DP, DDP, DDP2, DDP_CPU, DDP_SPAWN = "dp", "ddp", "ddp2", "ddp_cpu", "ddp_spawn"
TPU_SPAWN, DEEPSPEED, HOROVOD = "tpu_spawn", "deepspeed", "horovod"
DDP_SHARDED, DDP_SHARDED_SPAWN, DDP_FULLY_SHARDED = "ddp_sharded", "ddp_sharded_spawn", "ddp_fully_sharded"
_DISTRIBUTED_TYPES_14 = (
    DP,
    DDP,
    DDP2,
    DDP_SPAWN,
    TPU_SPAWN,
    DEEPSPEED,
    HOROVOD,
    DDP_SHARDED,
    DDP_SHARDED_SPAWN,
    DDP_FULLY_SHARDED,
)
_DISTRIBUTED_TYPES_15 = (*_DISTRIBUTED_TYPES_14, DDP_CPU)  # 1.5 made `ddp_cpu` a member
_USE_DDP = (DDP, DDP_SPAWN, DDP_SHARDED, DDP_SHARDED_SPAWN, DDP_FULLY_SHARDED, DEEPSPEED, TPU_SPAWN)
_GPU_DISTRIB_TYPES = (DP, DDP, DDP_SPAWN, DDP2)  # "DP and DDP2 cannot run without GPU"
# What `select_training_type_plugin` builds for a DDP-like type (anything else in _USE_DDP: DDPPlugin).
_DDP_PLUGIN_CLASSES = {
    DDP_SHARDED: "DDPShardedPlugin",
    DDP_SHARDED_SPAWN: "DDPSpawnShardedPlugin",
    DDP_SPAWN: "DDPSpawnPlugin",
    DDP_FULLY_SHARDED: "DDPFullyShardedPlugin",
}


@dataclass(frozen=True)
class _PluginClass:
    """A training-type plugin class: its module and its ``distributed_backend`` class attribute.

    1.4 sets the attribute only on DDPPlugin, DDPSpawnPlugin and DeepSpeedPlugin, so subclasses inherit
    "ddp"/"ddp_spawn"; 1.5 gives every class its own enum member. ``None``: no such attribute.
    """

    module: str
    backend_14: str | None
    backend_15: str | None
    parallel: bool = True  # a ParallelPlugin: takes the connector's `parallel_devices` when given none

    def backend(self, version: Version) -> str | None:
        return self.backend_15 if version >= V15 else self.backend_14


PLUGIN_CLASSES: dict[str, _PluginClass] = {
    "DDPPlugin": _PluginClass("ddp", DDP, DDP),
    "DDP2Plugin": _PluginClass("ddp2", DDP, DDP2),
    "DDPSpawnPlugin": _PluginClass("ddp_spawn", DDP_SPAWN, DDP_SPAWN),
    "DataParallelPlugin": _PluginClass("dp", None, DP),
    "DeepSpeedPlugin": _PluginClass("deepspeed", DEEPSPEED, DEEPSPEED),
    "HorovodPlugin": _PluginClass("horovod", None, HOROVOD),
    "DDPShardedPlugin": _PluginClass("sharded", DDP, DDP_SHARDED),
    "DDPSpawnShardedPlugin": _PluginClass("sharded_spawn", DDP_SPAWN, DDP_SHARDED_SPAWN),
    "DDPFullyShardedPlugin": _PluginClass("fully_sharded", DDP, DDP_FULLY_SHARDED),
    "TPUSpawnPlugin": _PluginClass("tpu_spawn", DDP_SPAWN, DDP_SPAWN),  # inherits DDPSpawnPlugin's
    "IPUPlugin": _PluginClass("ipu", None, None),
    "SingleDevicePlugin": _PluginClass("single_device", None, None, parallel=False),
    "SingleTPUPlugin": _PluginClass("single_tpu", None, None, parallel=False),
}

# 1.5 training-type plugins whose `checkpoint_io` setter raises, and the name their message gives.
_REFUSE_CHECKPOINT_IO = {
    "TPUSpawnPlugin": "TPU Spawn Plugin",
    "SingleTPUPlugin": "TPU Plugin",
    "DeepSpeedPlugin": "DeepSpeed",
}

# Plugin constructors that raise without their optional package (the key of `Hardware.installed`).
_NEEDS_PACKAGE = {
    "DeepSpeedPlugin": (
        "deepspeed",
        "To use the DeepSpeed plugin, you must have DeepSpeed installed. pip install deepspeed",
    ),
    "IPUPlugin": (
        "poptorch",
        "The IPU Accelerator requires IPU devices to run. "
        "Learn more or get started with IPUs at https://www.graphcore.ai/getstarted",
    ),
}

_HOROVOD_MISSING = (
    'Requested `accelerator="horovod"`, but Horovod is not installed.'
    "Install with \n $HOROVOD_WITH_PYTORCH=1 pip install horovod[pytorch]"
)
_NUM_NODES = {
    False: "Your chosen distributed type does not support num_nodes > 1. "
    "Please set accelerator=ddp or accelerator=ddp2.",
    True: "Your chosen strategy does not support `num_nodes > 1`. Please set `strategy=('ddp'|'ddp2')`.",
}


@dataclass(frozen=True)
class _TrainingType:
    """A training-type plugin instance: from the user, from the registry, or built by the connector."""

    cls: str
    strategy: Strategy
    root: int | None = None  # SingleDevicePlugin / SingleTPUPlugin: the device index


def connect(flags: dict[str, Value], version: Version, hardware: Hardware, warn: Warn) -> Setup:
    for obj in _objects(flags):
        _construct(obj.cls, hardware)  # Python builds the objects before Trainer sees them
    gpus = flags.get("gpus")
    if flags.get("auto_select_gpus") and isinstance(gpus, int):
        gpus = list(_pick_multiple_gpus(gpus, version, hardware))
    gpu_ids = _parse_gpu_ids(gpus, version, hardware, warn)  # Trainer._parse_devices
    tpu_cores = _parse_tpu_cores(flags.get("tpu_cores"), hardware)
    connector = _Connector(version, hardware, warn, flags, gpu_ids, tpu_cores)
    return connector.run()


def _objects(flags: dict[str, Value]) -> list[Obj]:
    found: list[Obj] = []
    for value in flags.values():
        items = value if isinstance(value, (list, tuple)) else [value]
        found.extend(item for item in items if isinstance(item, Obj))
    return found


def _construct(cls: str, hardware: Hardware) -> None:
    package, message = _NEEDS_PACKAGE.get(cls, ("", ""))
    if package and package not in hardware.installed:
        raise Reject(MISCONF, message)


def _text(value: Value) -> str:
    """``str(value)`` as the release prints it; objects as ``harness.normalize`` shortens their repr."""
    return f"<{value.cls} object>" if isinstance(value, Obj) else str(value)


def _repr(value: Value) -> str:
    return _text(value) if isinstance(value, Obj) else repr(value)


def _is(value: Value, member: str) -> bool:
    """``LightningEnum.__eq__``: a case-insensitive comparison with the member's value."""
    return isinstance(value, str) and value.lower() == member


# --- utilities/device_parser.py and tuner/auto_gpu_select.py -------------------------------------------


def _pick_multiple_gpus(nb: int, version: Version, hardware: Hardware) -> list[int]:
    if nb == 0:
        # 1.4 wrote the message as a raw string continued with a backslash, indentation included
        gap = " " if version >= V15 else "\\\n            "
        raise Reject(
            MISCONF,
            f"auto_select_gpus=True, gpus=0 is not a valid configuration.{gap}"
            "Please select a valid number of GPU resources when using auto_select_gpus.",
        )
    count = hardware.cuda if nb == -1 else nb
    if count > hardware.cuda:  # pick_single_gpu: assumes every GPU is free
        raise Reject("RuntimeError", "No GPUs available.")
    return list(range(count))


def _check_data_type(device_ids: Value) -> None:
    if device_ids is not None and (
        not isinstance(device_ids, (int, str, list, tuple)) or isinstance(device_ids, bool)
    ):
        raise Reject(MISCONF, "Device ID's (GPU/TPU) must be int, string or sequence of ints or None.")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise Reject("ValueError", f"invalid literal for int() with base 10: {text!r}") from None


def _parse_gpu_ids(gpus: Value, version: Version, hardware: Hardware, warn: Warn) -> list[int] | None:
    _check_data_type(gpus)
    if gpus is None or (isinstance(gpus, int) and gpus == 0):
        return None
    if version >= V15 and str(gpus).strip() in ("0", "[]"):  # 1.5: "0" and [] mean CPU too
        return None
    normal = _normalize_gpu_string(gpus, version, warn)
    ids: list[int] | None = None  # _normalize_parse_gpu_input_to_list
    if isinstance(normal, (list, tuple)):
        ids = [item if isinstance(item, int) else _int(str(item)) for item in normal]
    elif isinstance(normal, int) and normal:
        ids = list(range(hardware.cuda)) if normal == -1 else list(range(normal))
    if not ids:
        raise Reject(MISCONF, "GPUs requested but none are available.")
    if version >= V15 and len(ids) != len(set(ids)):
        raise Reject(MISCONF, "Device ID's (GPU) must be unique.")
    available = list(range(hardware.cuda))
    if any(gpu not in available for gpu in ids):
        raise Reject(MISCONF, f"You requested GPUs: {ids}\n But your machine only has: {available}")
    return ids


def _normalize_gpu_string(gpus: Value, version: Version, warn: Warn) -> Value:
    if not isinstance(gpus, str):
        return gpus
    if gpus == "-1":
        return -1
    if "," in gpus:
        return [_int(x.strip()) for x in gpus.split(",") if len(x) > 0]
    num_gpus = _int(gpus.strip())
    if version < V15:  # 1.4: a string is a device index
        warn(
            "gpus",
            f"Parsing of the Trainer argument gpus='{gpus}' (string) will change in the future."
            " In the current version of Lightning, this will select"
            f" CUDA device with index {num_gpus}, but from v1.5 it will select gpus"
            f" {list(range(num_gpus))} (same as gpus={gpus} (int)).",
        )
        return [num_gpus]
    return num_gpus


def _parse_tpu_cores(tpu_cores: Value, hardware: Hardware) -> Value:
    _check_data_type(tpu_cores)
    if isinstance(tpu_cores, str):
        text = tpu_cores.strip()
        tpu_cores = (
            int(text) if text in ("1", "8") else [_int(x.strip()) for x in text.split(",") if len(x) > 0]
        )
    if not _tpu_cores_valid(tpu_cores):
        raise Reject(MISCONF, "`tpu_cores` can only be 1, 8 or [<1-8>]")
    if tpu_cores is not None and not hardware.tpu_cores:
        raise Reject(MISCONF, "No TPU devices were found.")
    return tpu_cores


def _tpu_cores_valid(tpu_cores: Value) -> bool:
    if tpu_cores in (1, 8, None):
        return True
    if isinstance(tpu_cores, (list, tuple)):
        if not tpu_cores:  # `list(tpu_cores)[0]` is evaluated even when the length check failed
            raise Reject("IndexError", "list index out of range")
        first = tpu_cores[0]
        return len(tpu_cores) == 1 and isinstance(first, int) and 1 <= first <= 8
    return False


# --- the connector -----------------------------------------------------------------------------------


@dataclass
class _Connector:
    version: Version
    hardware: Hardware
    warn: Warn
    flags: dict[str, Value]
    parallel_device_ids: list[int] | None
    tpu_cores: Value
    v15: bool = False
    distributed_backend: Value = None
    strategy: Value = None
    num_processes: Value = 1
    devices: Value = None
    ipus: Value = None
    num_nodes: int = 1
    plugins: list[Value] = field(default_factory=list)
    device_type: str = CPU
    distrib_type: str | None = None
    accelerator_type: str | None = None
    training_type: _TrainingType | None = None

    def __post_init__(self) -> None:
        flags = self.flags
        self.v15 = self.version >= V15
        self.num_processes = flags.get("num_processes", 1)
        self.devices = flags.get("devices")
        self.ipus = flags.get("ipus")
        self.num_nodes = _num_nodes(flags.get("num_nodes", 1))
        plugins = flags.get("plugins")
        self.plugins = (
            [] if plugins is None else list(plugins) if isinstance(plugins, (list, tuple)) else [plugins]
        )
        strategy = flags.get("strategy")
        self.strategy = strategy.lower() if isinstance(strategy, str) else strategy
        self.distributed_backend = flags.get("accelerator")
        backend = flags.get("distributed_backend")
        if backend is not None:  # 1.4 only (a TypeError in 1.5); it silently beats `accelerator`
            self.warn(
                "distributed_backend",
                f"`Trainer(distributed_backend={_text(backend)})` has been deprecated and will be removed in"
                f" v1.5. Use `Trainer(accelerator={_text(backend)})` instead.",
            )
        self.distributed_backend = backend or self.distributed_backend

    def run(self) -> Setup:
        """``AcceleratorConnector.__init__``."""
        if self.v15:
            _check_precision_type(self.flags.get("precision", 32))
            self._handle_accelerator_and_strategy()
        self._validate_accelerator_and_devices()
        self.select_accelerator_type()
        if self.v15 and self.strategy is not None:
            self._set_training_type_plugin()
        else:
            self.set_distributed_mode()
        self.handle_given_plugins()
        if self.v15 and self.distrib_type is None and self.training_type is not None:
            # _set_distrib_type_if_training_type_plugin_passed
            self.distrib_type = PLUGIN_CLASSES[self.training_type.cls].backend(self.version)
        if self.training_type is not None and self.training_type.cls == "IPUPlugin":
            self.device_type = IPU  # update_device_type_if_ipu_plugin
        if self.v15:
            self.update_device_type_if_training_type_plugin_passed()
        self._validate_accelerator_type()
        return self.select_accelerator()

    # --- accelerator and devices -------------------------------------------------------------------

    def _handle_accelerator_and_strategy(self) -> None:
        backend, strategy = self.distributed_backend, self.strategy
        deprecated = tuple(t for t in _DISTRIBUTED_TYPES_15 if t not in (TPU_SPAWN, DDP_CPU))
        if isinstance(backend, str) and backend.lower() in deprecated:
            self.warn(
                "accelerator",
                f"Passing `Trainer(accelerator={backend!r})` has been deprecated"
                f" in v1.5 and will be removed in v1.7. Use `Trainer(strategy={backend!r})` instead.",
            )
            if strategy is not None:
                raise Reject(
                    MISCONF,
                    f"You have passed `Trainer(strategy={_repr(strategy)})` but have"
                    f" also passed `Trainer(accelerator={backend!r})`."
                    f" HINT: Use just `Trainer(strategy={_repr(strategy)})` instead.",
                )
        if _is(strategy, TPU_SPAWN):
            raise Reject(
                MISCONF,
                "`Trainer(strategy='tpu_spawn')` is not a valid strategy,"
                " you can use `Trainer(strategy='ddp_spawn', accelerator='tpu')` instead.",
            )
        if _is(strategy, DDP_CPU):
            raise Reject(
                MISCONF,
                "`Trainer(strategy='ddp_cpu')` is not a valid strategy,"
                " you can use `Trainer(strategy='ddp'|'ddp_spawn', accelerator='cpu')` instead.",
            )

    def _is_accelerator_type(self, value: Value) -> bool:
        """``value in ["auto"] + list(DeviceType)``: "auto" compares exactly, the enum members do not."""
        return value == "auto" or any(_is(value, member) for member in DEVICE_TYPES)

    def _validate_accelerator_and_devices(self) -> None:
        if not self._is_accelerator_type(self.distributed_backend) and self.devices is not None:
            backend = _repr(self.distributed_backend) if self.v15 else _text(self.distributed_backend)
            raise Reject(
                MISCONF,
                f"You passed `devices={_text(self.devices)}` but haven't specified"
                " `accelerator=('auto'|'tpu'|'gpu'|'ipu'|'cpu')` for the devices mapping,"
                f" got `accelerator={backend}`.",
            )

    def select_accelerator_type(self) -> None:
        backend = self.distributed_backend
        if backend == "auto":
            if self.has_tpu():
                self.accelerator_type = TPU
            elif self.has_ipu():
                self.accelerator_type = IPU
            elif self.has_gpu():
                self.accelerator_type = GPU
            else:
                self._set_devices_to_cpu_num_processes()
                self.accelerator_type = CPU
        elif _is(backend, TPU):
            if not self.has_tpu():
                msg = (
                    "you didn't pass `tpu_cores` to `Trainer`"
                    if self.hardware.tpu_cores
                    else "TPUs are not available"
                )
                raise Reject(MISCONF, f"You passed `accelerator='tpu'`, but {msg}.")
            self.accelerator_type = TPU
        elif _is(backend, IPU):
            if not self.has_ipu():
                raise Reject(MISCONF, "You passed `accelerator='ipu'`, but IPUs are not available.")
            self.accelerator_type = IPU
        elif _is(backend, GPU):
            if not self.has_gpu():
                msg = (
                    "you didn't pass `gpus` to `Trainer`" if self.hardware.cuda else "GPUs are not available"
                )
                raise Reject(MISCONF, f"You passed `accelerator='gpu'`, but {msg}.")
            self.accelerator_type = GPU
        elif _is(backend, CPU):
            self._set_devices_to_cpu_num_processes()
            self.accelerator_type = CPU
        if self._is_accelerator_type(backend):
            self.distributed_backend = None

    def _set_devices_to_cpu_num_processes(self) -> None:
        if self.num_processes == 1:
            self._map_devices_to_accelerator(CPU)

    def _map_devices_to_accelerator(self, accelerator: str) -> bool:
        if self.devices is None:
            return False
        if accelerator == TPU and self.hardware.tpu_cores:
            if self.v15 and self.devices == "auto":
                self.devices = 8  # TPUAccelerator.auto_device_count()
            self.tpu_cores = _parse_tpu_cores(self.devices, self.hardware)
            return True
        # IPU: `_IPU_AVAILABLE` needs poptorch and IPU hardware, which `Hardware` cannot describe.
        if accelerator == GPU and self.hardware.cuda:
            if self.v15 and self.devices == "auto":
                self.devices = self.hardware.cuda  # GPUAccelerator.auto_device_count()
            self.parallel_device_ids = _parse_gpu_ids(self.devices, self.version, self.hardware, self.warn)
            return True
        if accelerator == CPU:
            if self.v15 and self.devices == "auto":
                self.devices = 1  # CPUAccelerator.auto_device_count()
            if not isinstance(self.devices, int):
                prefix = "must be an int with" if self.v15 else "only supports integer for"
                devices = _text(self.devices)
                raise Reject(
                    MISCONF,
                    f"The flag `devices` {prefix} `accelerator='cpu'`, got `devices={devices}` instead.",
                )
            self.num_processes = self.devices
            return True
        return False

    def has_gpu(self) -> bool:
        if self.parallel_device_ids:
            return True
        return self._map_devices_to_accelerator(GPU)

    def has_tpu(self) -> bool:
        if self.tpu_cores is not None:
            return True
        return self._map_devices_to_accelerator(TPU)

    def has_ipu(self) -> bool:
        if self.ipus is not None or (
            self.training_type is not None and self.training_type.cls == "IPUPlugin"
        ):
            return True
        return self._map_devices_to_accelerator(IPU)

    def use_gpu(self) -> bool:
        return self.accelerator_type == GPU and self.has_gpu()

    def use_tpu(self) -> bool:
        return self.accelerator_type == TPU and self.has_tpu()

    def use_ipu(self) -> bool:
        return self.accelerator_type == IPU and self.has_ipu()

    @property
    def num_gpus(self) -> int:
        return len(self.parallel_device_ids or ())

    def _validate_accelerator_type(self) -> None:
        if self.accelerator_type and self.accelerator_type != self.device_type:
            # Python 3.11 formats a str-mixin enum member as `DeviceType.GPU` in an f-string.
            requested, assigned = self.accelerator_type.upper(), self.device_type.upper()
            raise Reject(
                "ValueError" if self.v15 else MISCONF,
                f"Mismatch between the requested accelerator type (DeviceType.{requested})"
                f" and assigned device type (DeviceType.{assigned}).",
            )
        self.accelerator_type = self.device_type

    # --- strategy and plugins ------------------------------------------------------------------------

    def _set_training_type_plugin(self) -> None:
        """1.5: a ``strategy`` flag replaces ``set_distributed_mode()`` without arguments."""
        strategy = self.strategy
        if isinstance(strategy, str) and strategy in registry.registered(self.version):
            self.training_type = self._from_registry(strategy)
        if isinstance(strategy, str):
            self.set_distributed_mode(strategy)
        elif isinstance(strategy, Obj) and classes.kind_of(strategy) == classes.STRATEGY:
            self.training_type = self._from_object(strategy)

    def _from_registry(self, name: str) -> _TrainingType:
        """``TrainingTypePluginsRegistry.get(name)``: builds the plugin."""
        strategy = registry.resolve(registry.registered(self.version)[name], self.version)
        cls = _plugin_class(strategy)
        _construct(cls, self.hardware)
        return _TrainingType(cls, strategy)

    def _from_object(self, obj: Obj) -> _TrainingType:
        root = None
        device = obj.kw().get("device")
        if isinstance(device, int):
            root = device
        elif isinstance(device, str) and ":" in device:
            root = _int(device.split(":")[1])
        return _TrainingType(obj.cls, classes.strategy_of(obj, self.version), root)

    def _is_training_type(self, plug: Value) -> bool:
        if isinstance(plug, Obj):
            return classes.kind_of(plug) == classes.STRATEGY
        if not isinstance(plug, str):
            return False
        if plug in registry.registered(self.version):
            return True
        # 1.5 `_is_plugin_training_type` also counts `DistributedType` strings (case-insensitively).
        return self.v15 and plug.lower() in _DISTRIBUTED_TYPES_15

    def _is_training_type_in_plugins(self) -> bool:
        names = registry.registered(self.version)
        return any(
            (isinstance(p, str) and p in names)
            or (self.v15 and isinstance(p, Obj) and self._is_training_type(p))
            for p in self.plugins
        )

    def handle_given_plugins(self) -> None:
        if self.v15:
            self._check_plugins_against_strategy()
        training_type = self.training_type
        seen: dict[str, Obj] = {}
        for plug in self.plugins:
            if isinstance(plug, str) and plug in registry.registered(self.version):
                if training_type is not None:
                    cls = _plugin_class(registry.registered(self.version)[plug])
                    path = f"pytorch_lightning.plugins.training_type.{PLUGIN_CLASSES[cls].module}.{cls}"
                    raise Reject(
                        MISCONF,
                        "You can only specify one precision and one training type plugin."
                        f" Found more than 1 training type plugin: <class '{path}'> registered to {plug}",
                    )
                training_type = self._from_registry(plug)
            if isinstance(plug, str):
                self.distrib_type = None  # "the user has overridden training type via the plugins argument"
                self.set_distributed_mode(plug)
            elif isinstance(plug, Obj) and classes.kind_of(plug) == classes.STRATEGY:
                if training_type is not None:
                    raise Reject(
                        MISCONF, self._duplicate_message(classes.STRATEGY, training_type.cls, plug.cls)
                    )
                training_type = self._from_object(plug)
            else:
                self._other_plugin(plug, seen)
        self.training_type = training_type

    def _check_plugins_against_strategy(self) -> None:
        for plug in self.plugins:
            if not self._is_training_type(plug):
                continue
            if self.strategy is not None:
                raise Reject(
                    MISCONF,
                    f"You have passed `Trainer(strategy={_repr(self.strategy)})` and you can only specify one"
                    f" training type plugin, but you have passed {_text(plug)} as a plugin.",
                )
            self.warn(
                "plugins",
                f"Passing {_text(plug)} `strategy` to the `plugins` flag in Trainer has been deprecated"
                f" in v1.5 and will be removed in v1.7. Use `Trainer(strategy={_text(plug)})` instead.",
            )

    def _other_plugin(self, plug: Value, seen: dict[str, Obj]) -> None:
        kind = classes.kind_of(plug)
        known = (classes.PRECISION, classes.ENVIRONMENT) + ((classes.CHECKPOINT_IO,) if self.v15 else ())
        if not isinstance(plug, Obj) or kind not in known:
            raise Reject(
                MISCONF,
                f"Found invalid type for plugin {_text(plug)}. Expected a precision or training type plugin.",
            )
        if kind in seen:
            raise Reject(MISCONF, self._duplicate_message(kind, seen[kind].cls, plug.cls))
        seen[kind] = plug

    def _duplicate_message(self, kind: str, available: str, given: str) -> str:
        if kind == classes.ENVIRONMENT:
            return (
                "You can only specify one cluster environment. Found more than 1 cluster environment plugin"
            )
        if self.v15:
            noun = {classes.STRATEGY: "training type", classes.PRECISION: "precision"}.get(kind, "checkpoint")
            return f"You can only specify one {noun} plugin. Available: {available}, given: {given}"
        noun = "training type" if kind == classes.STRATEGY else "precision"
        return (
            "You can only specify one precision and one training type plugin."
            f" Found more than 1 {noun} plugin: {given}"
        )

    def update_device_type_if_training_type_plugin_passed(self) -> None:
        objects = [self.strategy, *self.plugins]
        if not any(isinstance(p, Obj) and classes.kind_of(p) == classes.STRATEGY for p in objects):
            return
        if self.accelerator_type is not None:
            checks = (self.use_ipu, self.use_tpu, self.use_gpu)
        else:
            checks = (self.has_ipu, self.has_tpu, self.has_gpu)
        for device, check in zip((IPU, TPU, GPU), checks):
            if check():
                self.device_type = device
                return

    # --- set_distributed_mode ------------------------------------------------------------------------

    def set_distributed_mode(self, strategy: str | None = None) -> None:
        if strategy is None and self._is_training_type_in_plugins():
            return
        names = registry.registered(self.version)
        if strategy is not None and strategy in names:
            cls = _plugin_class(names[strategy])
            self.distributed_backend = PLUGIN_CLASSES[cls].backend(self.version)
        elif strategy is not None:
            self.distributed_backend = strategy
        use_cpu = self._use_cpu()
        if self.distributed_backend is None:
            self._default_backend(use_cpu)
        if self._is_ddp_cpu(self.distributed_backend):
            self._set_ddp_cpu()
        elif self.has_tpu() and not use_cpu:
            self.device_type = TPU
            if isinstance(self.tpu_cores, int):
                self.distrib_type = TPU_SPAWN
        elif self.has_ipu() and not use_cpu:
            self.device_type = IPU
        elif self.distributed_backend and self.distrib_type is None:
            self.distrib_type = self._distributed_type(self.distributed_backend)
        if self.num_gpus > 0 and not use_cpu:
            self.device_type = GPU
        self._fall_back_without_gpus(use_cpu)
        # (check_interactive_compatibility: an interactive session is not modelled)
        if self.device_type == GPU and self.distrib_type in (DDP, DDP_SPAWN):
            self.num_processes = self.num_gpus
        if self.device_type == GPU and self.distrib_type == DDP2:
            self.num_processes = self.num_nodes
        backend = self.distributed_backend
        if _is(backend, HOROVOD) if self.v15 else backend == HOROVOD:
            self._set_horovod_backend()
        if self.num_nodes > 1 and self.distrib_type not in (*_USE_DDP, DDP2):
            raise Reject(MISCONF, _NUM_NODES[self.v15])

    def _use_cpu(self) -> bool:
        if self.accelerator_type == CPU:
            return True
        backend = self.distributed_backend
        if not backend:
            return False
        if not isinstance(backend, str):  # `"cpu" in backend` on an object
            raise Reject("TypeError", f"argument of type '{_class_name(backend)}' is not iterable")
        return "cpu" in backend  # a case-sensitive substring test: "ddp_cpu" but not "DDP_CPU"

    def _default_backend(self, use_cpu: bool) -> None:
        # (has_horovodrun: needs horovodrun's environment variables, not modelled)
        if self.num_gpus == 0 and self.num_nodes > 1:
            self.distrib_type = DDP
        elif self.num_gpus == 0 and _gt(self.num_processes, 1):
            self.distributed_backend = DDP_SPAWN
        elif self.num_gpus > 1 and not use_cpu:
            # 'You requested multiple GPUs but did not specify a backend ... Setting "ddp_spawn" for you.'
            self.distributed_backend = DDP_SPAWN

    def _is_ddp_cpu(self, backend: Value) -> bool:
        # 1.4 compares with the literal "ddp_cpu", 1.5 with `DistributedType.DDP_CPU`.
        return _is(backend, DDP_CPU) if self.v15 else backend == DDP_CPU

    def _set_ddp_cpu(self) -> None:
        if self.hardware.tpu_cores:
            raise Reject(
                MISCONF,
                "`accelerator='ddp_cpu'` is not supported on TPU machines. "
                "Learn more: https://github.com/PyTorchLightning/pytorch-lightning/issues/7810",
            )
        # 1.5 (#9603): one process on several nodes is DDP, not a spawn
        one_per_node = self.v15 and self.num_processes == 1 and self.num_nodes > 1
        self.distrib_type = DDP if one_per_node else DDP_SPAWN
        if self.num_gpus > 0:  # "Training will not use GPUs."
            self.parallel_device_ids = None
        # (num_processes=None means os.cpu_count(), which the model cannot know)

    def _distributed_type(self, backend: Value) -> str:
        """``DistributedType(backend)``: an exact lookup by value."""
        members = _DISTRIBUTED_TYPES_15 if self.v15 else _DISTRIBUTED_TYPES_14
        if isinstance(backend, str) and backend in members:
            return backend
        raise Reject("ValueError", f"{_repr(backend)} is not a valid DistributedType")

    def _fall_back_without_gpus(self, use_cpu: bool) -> None:
        if self.num_gpus != 0 or self.distrib_type not in _GPU_DISTRIB_TYPES or use_cpu:
            return
        if self.num_nodes > 1 or _gt(self.num_processes, 1):
            if self.distrib_type in (DP, DDP2):  # "... is not supported on CPUs, hence ... `ddp`"
                self.distrib_type = DDP
        else:  # "You are running on single node with no parallelization, so distributed has no effect."
            self.distrib_type = None

    def _set_horovod_backend(self) -> None:
        if "horovod" not in self.hardware.installed:
            raise Reject(MISCONF, _HOROVOD_MISSING)
        if self.num_gpus > 1 or self.num_nodes > 1:
            raise Reject(
                MISCONF,
                "Horovod does not support setting num_nodes / num_gpus explicitly. Use "
                "horovodrun / mpirun to configure the number of processes.",
            )
        self.distrib_type = HOROVOD
        if self.has_gpu():  # one local GPU per process; without horovodrun `hvd.local_size()` is 1
            self.parallel_device_ids = [0]
        else:
            self.num_processes = 1

    # --- select_accelerator --------------------------------------------------------------------------

    def select_accelerator(self) -> Setup:
        if self.use_gpu():
            kind = GPU
        elif self.use_tpu():
            kind = TPU
        elif self.use_ipu():
            kind = IPU
        else:
            kind = CPU
        training_type = self.training_type or self.select_training_type_plugin()
        if PLUGIN_CLASSES[training_type.cls].parallel:
            devices = self.parallel_devices()  # resolve_training_type_plugin
        elif training_type.root is not None:
            devices = (training_type.root,)
        else:
            devices = (0,)
        self._attach_checkpoint_io(training_type)
        trained = _precision_plugin(self, training_type)
        return Setup(
            ACCELERATOR_KINDS[kind], devices, training_type.strategy, self.num_nodes, precision=trained
        )

    def _attach_checkpoint_io(self, training_type: _TrainingType) -> None:
        """1.5 ``training_type_plugin``: a CheckpointIO plugin goes to the training type's setter, which
        raises for the plugins that save their own checkpoints."""
        refuses = _REFUSE_CHECKPOINT_IO.get(training_type.cls)
        given = any(classes.kind_of(plug) == classes.CHECKPOINT_IO for plug in self.plugins)
        if self.v15 and refuses and given:
            raise Reject(MISCONF, f"{refuses} currently does not support custom checkpoint plugins.")

    def select_training_type_plugin(self) -> _TrainingType:
        distrib = self.distrib_type
        if distrib == DDP2:
            cls = "DDP2Plugin"
        elif distrib == DEEPSPEED:
            cls = "DeepSpeedPlugin"
        elif distrib in _USE_DDP:
            use_tpu_spawn = self.use_tpu() and distrib == TPU_SPAWN
            # (SLURM-managed tasks, TorchElastic and Kubeflow would pick DDPPlugin: not modelled)
            cls = "TPUSpawnPlugin" if use_tpu_spawn else _DDP_PLUGIN_CLASSES.get(distrib or "", "DDPPlugin")
        elif distrib == DP:
            cls = "DataParallelPlugin"
        elif distrib == HOROVOD:
            cls = "HorovodPlugin"
        elif self.use_tpu() and isinstance(self.tpu_cores, list):
            tpu_id = self.tpu_cores[0]
            root = tpu_id if isinstance(tpu_id, int) else None
            return _TrainingType("SingleTPUPlugin", _strategy_of("SingleTPUPlugin", self.version), root)
        elif self.use_ipu():
            cls = "IPUPlugin"
        else:
            root = self.parallel_device_ids[0] if self.use_gpu() and self.parallel_device_ids else None
            return _TrainingType("SingleDevicePlugin", _strategy_of("SingleDevicePlugin", self.version), root)
        self.parallel_devices()  # the constructor's `parallel_devices=` argument comes first
        _construct(cls, self.hardware)
        return _TrainingType(cls, _strategy_of(cls, self.version))

    def parallel_devices(self) -> tuple[int, ...]:
        if self.use_gpu():
            return tuple(self.parallel_device_ids or ())
        if self.use_tpu():
            if isinstance(self.tpu_cores, int):
                return tuple(range(self.tpu_cores))
            raise Reject(
                "UnboundLocalError",
                "cannot access local variable 'devices' where it is not associated with a value",
            )
        if self.use_ipu():
            return tuple(range(self.ipus if isinstance(self.ipus, int) else 0))
        count = self.num_processes  # `[torch.device("cpu")] * self.num_processes`
        if isinstance(count, int):  # a negative count is no process, `True` one
            return tuple(range(count))
        raise Reject("TypeError", f"can't multiply sequence by non-int of type '{_class_name(count)}'")


def _gt(value: Value, limit: int) -> bool:
    """``value and value > limit`` for a count that may be None."""
    return isinstance(value, int) and value > limit


def _class_name(value: Value) -> str:
    return value.cls if isinstance(value, Obj) else type(value).__name__


def _plugin_class(strategy: Strategy) -> str:
    """The 1.4/1.5 ``*Plugin`` class a registered strategy builds."""
    rows = [
        row
        for row in classes.CLASSES
        if row.kind == classes.STRATEGY and row.name.endswith("Plugin") and row.family == strategy.name
    ]
    exact = [row for row in rows if row.start_method == strategy.start_method]
    return (exact or rows)[0].name


def _strategy_of(cls: str, version: Version) -> Strategy:
    return classes.strategy_of(Obj(cls), version)


# --- precision -------------------------------------------------------------------------------------------

_PRECISION_TYPES = ("16", "32", "64", "bf16", "mixed")


def _check_precision_type(precision: Value) -> None:
    """1.5 ``PrecisionType.supported_type``: compares ``str(precision)`` case-insensitively."""
    if not any(str(precision).lower() == member for member in _PRECISION_TYPES):
        raise Reject(
            MISCONF,
            f"Precision {_repr(precision)} is invalid. Allowed precision values: {list(_PRECISION_TYPES)}",
        )


def _precision_plugin(connector: _Connector, training_type: _TrainingType) -> Precision:
    """The ``precision_plugin`` property: a precision plugin given in ``plugins`` is used as it is, and
    ``select_precision_plugin`` (with all its checks) never runs."""
    for plug in connector.plugins:
        if isinstance(plug, Obj) and classes.kind_of(plug) == classes.PRECISION:
            return precision.construct(plug, connector.version, connector.hardware)
    return _select_precision(connector, training_type)


def _select_precision(connector: _Connector, training_type: _TrainingType) -> Precision:
    """``select_precision_plugin``: what the flags select, raising where it raises."""
    flags = connector.flags
    value = flags.get("precision", 32)
    backend = flags.get("amp_backend", "native")
    amp = backend.lower() if isinstance(backend, str) and backend.lower() in ("native", "apex") else None
    level = flags.get("amp_level", None if connector.v15 else "O2")
    on_cpu = connector.accelerator_type == CPU
    sharded = training_type.cls in ("DDPShardedPlugin", "DDPSpawnShardedPlugin", "DDPFullyShardedPlugin")
    if connector.v15:
        return _select_precision_15(connector, value, amp, level, on_cpu, sharded)
    if connector.use_ipu() or connector.distrib_type == DEEPSPEED or training_type.cls == "DeepSpeedPlugin":
        return Precision(precision.unified(value))  # IPUPrecisionPlugin / DeepSpeedPrecisionPlugin(precision)
    if value == 32:
        return Precision()
    if value == 64:
        return Precision("64-true")
    if value != 16:
        raise Reject("NotImplementedError", "We only support precisions 64, 32 and 16!")
    if connector.use_tpu():
        return precision.TPU_HALF  # TPUHalfPrecisionPlugin
    if amp == "native" and on_cpu:
        raise Reject(MISCONF, "You have asked for native AMP on CPU, but AMP is only available on GPU.")
    if amp == "apex":
        _check_apex(
            connector,
            sharded,
            "Sharded Plugin is not supported with Apex AMP, please using native AMP for 16-bit precision.",
        )
        return precision.apex(level)
    if amp is None:
        raise Reject("NotImplementedError", "We only support precisions 64, 32 and 16!")
    if sharded:  # (FullySharded)ShardedNativeMixedPrecisionPlugin: the sharded strategy's own autocast
        return Precision("16-mixed")
    return precision.mixed(16, "cuda")  # NativeMixedPrecisionPlugin: torch.cuda.amp


def _select_precision_15(
    connector: _Connector, value: Value, amp: str | None, level: Value, on_cpu: bool, sharded: bool
) -> Precision:
    if level is not None and amp != "apex":
        message = f"You have asked for `amp_level={_repr(level)}` but it's only supported with"
        raise Reject(MISCONF, f"{message} `amp_backend='apex'`.")
    if connector.use_ipu():
        if value not in (16, 32):
            raise Reject(MISCONF, f"`Trainer(accelerator='ipu', precision={_repr(value)})` is not supported.")
        return Precision(precision.unified(value))
    if connector.use_tpu() and value == 32:
        return Precision()  # TPUPrecisionPlugin
    if connector.use_tpu() and value in (16, "bf16"):
        return precision.TPU_HALF  # TPUBf16PrecisionPlugin
    if connector.use_tpu() and value == 64:
        raise Reject(
            MISCONF,
            "`Trainer(accelerator='tpu', precision=64)` is not implemented."
            " Please, open an issue in `https://github.com/PyTorchLightning/pytorch-lightning/issues`"
            " requesting this feature.",
        )
    if connector.distrib_type == DEEPSPEED:
        return Precision(precision.unified(value))  # DeepSpeedPrecisionPlugin(precision)
    if value == 32:
        return Precision()
    if value == 64:
        return Precision("64-true")
    if value == 16 and on_cpu:
        if amp == "apex":
            raise Reject(
                MISCONF,
                "You passed `Trainer(accelerator='cpu', precision=16, amp_type='apex')`"
                " but apex AMP not supported on CPU.",
            )
        value = "bf16"  # "native AMP is not supported on CPU. Using `precision='bf16'` instead."
    if value not in (16, "bf16"):
        raise Reject("RuntimeError", "No precision set")
    if value == "bf16" and amp != "native":
        raise Reject(
            MISCONF,
            f"You passed `Trainer(amp_type={amp!r}, precision='bf16')` but it's not supported."
            " Try using `amp_type='native'` instead.",
        )
    if amp == "apex" and sharded:
        raise Reject(
            MISCONF, "Sharded plugins are not supported with apex, please switch to `amp_backend='native'`."
        )
    if amp == "apex":
        if "apex" not in connector.hardware.installed:  # ApexMixedPrecisionPlugin.__init__
            raise Reject(
                MISCONF,
                "You have asked for Apex AMP but you have not installed it."
                " Install `apex` using this guide: https://github.com/NVIDIA/apex",
            )
        return precision.apex(level)
    mixed = precision.mixed(value, "cpu" if on_cpu else "cuda")
    return Precision(mixed.value) if sharded else mixed  # the sharded plugins: their strategy's autocast


def _check_apex(connector: _Connector, sharded: bool, sharded_message: str) -> None:
    if "apex" not in connector.hardware.installed:
        raise Reject(
            MISCONF,
            "You have asked for Apex AMP but you have not installed it yet."
            " Install apex first using this guide: https://github.com/NVIDIA/apex#linux",
        )
    if sharded:
        raise Reject(MISCONF, sharded_message)


def _num_nodes(value: Value) -> int:
    """1.4 and 1.5 keep `num_nodes` as given and compare it with 1 here and there (`None > 1` raises, `1.5`
    is more than one node, `0` builds a world of size 0): the model judges whole numbers of nodes only."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Unmodelled("num_nodes", value, "a whole number of nodes, 1 or more, in 1.4 and 1.5")
    return value
