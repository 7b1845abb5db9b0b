"""The accelerator connector of Lightning 1.6 to 1.9 (``AcceleratorConnector``, rewritten in 1.6, #11448).

The connector is one pass over the flags in a fixed order, and ``_Connector`` copies it step by step (the
comments name the release's methods):

1. ``_check_config_and_set_final_flags``: strategy, accelerator, precision and plugins against each other;
2. ``_check_device_config_and_set_final_flags``: gpus/num_processes/tpu_cores/ipus override ``devices``;
3. ``_set_parallel_devices_and_init_accelerator``: build the accelerator and parse its devices;
4. ``_choose_strategy`` (no strategy given), ``_check_strategy_and_fallback``, ``_init_strategy``;
5. ``_check_and_init_precision`` and ``_lazy_init_strategy``.

Each step raises where the release raises, with its text. Read from 1.6.5, 1.7.0, 1.7.7, 1.8.0, 1.8.6 and
1.9.0 to 1.9.5. Comparisons are the release's: accelerator names are matched case-sensitively, strategy
strings are lower-cased first. The model runs outside notebooks and outside any cluster: the
SLURM / TorchElastic / Kubeflow / LSF auto-detection never fires, and an environment plugin for a cluster
finds none of its variables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable, Union

from lightning_migrate.semantics import classes, precision, registry
from lightning_migrate.semantics.device_parser import check_data_type, parse_cpu_cores, parse_gpu_ids, to_int
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
V16, V17, V171, V18, V19, V191, V192, V193, V194 = (
    v(x) for x in ("1.6", "1.7", "1.7.1", "1.8", "1.9", "1.9.1", "1.9.2", "1.9.3", "1.9.4")
)

# AcceleratorRegistry names in registration order: the order of the release's "available" lists.
ACCELERATORS_16 = ("cpu", "gpu", "hpu", "ipu", "tpu")
ACCELERATORS_17 = ("cpu", "cuda", "hpu", "ipu", "mps", "tpu")
ACCELERATOR_CLASSES = {
    "cpu": "CPUAccelerator",
    "gpu": "GPUAccelerator",
    "cuda": "CUDAAccelerator",
    "hpu": "HPUAccelerator",
    "ipu": "IPUAccelerator",
    "mps": "MPSAccelerator",
    "tpu": "TPUAccelerator",
}
GPU_NAMES = ("gpu", "cuda", "mps")  # `determine_root_gpu_device` picks a single device only for these
XLA = "torch_xla"  # present exactly when `Hardware` has TPU cores

# `str(_XLA_AVAILABLE)`, raised by TPUAccelerator() from 1.8 on: a RequirementCache until 1.9.0, then a
# ModuleAvailableCache (text as lightning_utilities 0.15 words it).
XLA_MISSING = (
    (V191, "Module not found: 'torch_xla'. HINT: Try running `pip install -U torch_xla`"),
    (V18, "Requirement 'torch_xla' not met. HINT: Try running `pip install -U 'torch_xla'`"),
)

# Strategy families whose class is a ParallelStrategy (has `parallel_devices`), and those without `num_nodes`
# (`Trainer.num_nodes` is then 1 whatever the flag says).
PARALLEL_FAMILIES = frozenset(
    {"ddp", "ddp2", "dp", "deepspeed", "horovod", "fairscale_sharded", "fairscale_fsdp", "fsdp", "xla"}
    | {"ipu", "hpu_parallel", "bagua", "colossalai"}
)
NO_NUM_NODES = frozenset({"dp", "horovod", "ipu", "single_device", "single_xla", "hpu_single"})
TPU_FAMILIES = frozenset({"xla", "single_xla"})
HPU_FAMILIES = frozenset({"hpu_parallel", "hpu_single"})
FSDP_NATIVE_NAMES = ("fsdp_native", "fsdp_native_full_shard_offload")
# 1.7.0 registered these with find_unused_parameters=False by mistake (fixed in 1.7.1, #14095).
FUP_FALSE_170 = frozenset({"ddp_spawn", "ddp_fork", "ddp_notebook"})

# The class a registered strategy builds, for messages: family -> (popen/None class, spawn/fork class).
STRATEGY_CLASSES = {
    "ddp": ("DDPStrategy", "DDPSpawnStrategy"),
    "ddp2": ("DDP2Strategy", "DDP2Strategy"),
    "dp": ("DataParallelStrategy", ""),
    "deepspeed": ("DeepSpeedStrategy", ""),
    "horovod": ("HorovodStrategy", ""),
    "fairscale_sharded": ("DDPShardedStrategy", "DDPSpawnShardedStrategy"),
    "fairscale_fsdp": ("DDPFullyShardedStrategy", ""),
    "fsdp": ("DDPFullyShardedNativeStrategy", ""),
    "xla": ("TPUSpawnStrategy", "TPUSpawnStrategy"),
    "single_device": ("SingleDeviceStrategy", ""),
    "single_xla": ("SingleTPUStrategy", ""),
    "ipu": ("IPUStrategy", ""),
    "hpu_parallel": ("HPUParallelStrategy", ""),
    "hpu_single": ("SingleHPUStrategy", ""),
    "bagua": ("BaguaStrategy", ""),
    "colossalai": ("ColossalAIStrategy", ""),
}


@dataclass(frozen=True)
class Requirement:
    """A strategy whose constructor raises when its package (or device) is missing."""

    package: str  # a `Hardware.installed` name, XLA, or "" for devices no `Hardware` has (IPU, HPU)
    error: str
    message: str
    since: Version = V16


_DEEPSPEED_17 = "To use the `DeepSpeedStrategy`, you must have DeepSpeed installed. Install it by running"
HOROVOD_MISSING_19 = (
    'Requested `strategy="horovod"`, but Horovod is not installed.'
    " Install with `HOROVOD_WITH_PYTORCH=1 pip install horovod[pytorch]`"
)
_HOROVOD_HINT = "Install with \n $HOROVOD_WITH_PYTORCH=1 pip install horovod[pytorch]"
HOROVOD_MISSING = (
    (V19, HOROVOD_MISSING_19),
    (V17, f'Requested `strategy="horovod"`, but Horovod is not installed.{_HOROVOD_HINT}'),
    (V16, f'Requested `accelerator="horovod"`, but Horovod is not installed.{_HOROVOD_HINT}'),
)
_COLOSSALAI = (
    "To use the `ColossalAIStrategy`, please install `colossalai` first. "
    "Download `colossalai` by consulting `https://colossalai.org/download`."
)
# family -> requirements, newest first
REQUIREMENTS: dict[str, tuple[Requirement, ...]] = {
    "deepspeed": (
        Requirement("deepspeed", MISCONF, f"{_DEEPSPEED_17} `pip install -U deepspeed`.", V17),
        Requirement(
            "deepspeed",
            MISCONF,
            "To use the DeepSpeed plugin, you must have DeepSpeed installed. pip install deepspeed",
        ),
    ),
    "bagua": (
        Requirement(
            "bagua",
            MISCONF,
            "To use the `BaguaStrategy`, you must have `Bagua` installed."
            " Use `pip install bagua` to install it.",
        ),
    ),
    "colossalai": (
        Requirement("colossalai", "ModuleNotFoundError", _COLOSSALAI, V19),
        Requirement("colossalai", MISCONF, _COLOSSALAI, V18),
    ),
    "ipu": (
        Requirement(
            "",
            MISCONF,
            "The IPU Accelerator requires IPU devices to run. "
            "Learn more or get started with IPUs at https://www.graphcore.ai/getstarted",
        ),
    ),
    "hpu_parallel": (Requirement("", MISCONF, "`HPUParallelStrategy` requires HPU devices to run"),),
    "hpu_single": (Requirement("", MISCONF, "`SingleHPUStrategy` requires HPU devices to run"),),
    # HorovodStrategy() asks hvd for its rank in __init__; 1.9 checks for the package first
    "horovod": (
        Requirement("horovod", MISCONF, HOROVOD_MISSING_19, V19),
        Requirement("horovod", "NameError", "name 'hvd' is not defined"),
    ),
    # TPUSpawnStrategy / SingleTPUStrategy check for torch_xla from 1.8 (no check before)
    **{
        family: tuple(Requirement(XLA, "ModuleNotFoundError", text, since) for since, text in XLA_MISSING)
        for family in ("xla", "single_xla")
    },
}

APEX_19 = (
    "The NVIDIA/apex AMP implementation has been deprecated upstream. Consequently, its integration inside"
    " PyTorch Lightning has been deprecated in v1.9.0 and will be removed in v2.0.0."
)


@dataclass(frozen=True)
class Single:
    """A single-device strategy the connector builds itself (``SingleDeviceStrategy(device=...)`` etc.)."""

    family: str
    cls: str
    device: tuple[str, int]


Device = tuple[str, int]  # a torch device as (type, index); CPU devices are all ("cpu", 0)
StrategyFlag = Union[Value, Single]  # a flag value or a strategy the connector built


TPU_PRECISION = ("TPUPrecisionPlugin", "TPUBf16PrecisionPlugin")
SHARDED_FAMILIES = ("fairscale_sharded", "fairscale_fsdp", "fsdp")


def connect(flags: dict[str, Value], version: Version, hardware: Hardware, warn: Warn) -> Setup:
    conn = _Connector(version, hardware, warn, registry.registered(version))
    for value in (flags.get("strategy"), flags.get("accelerator"), *_listed(flags.get("plugins"))):
        if isinstance(value, Obj) and classes.kind_of(value) == classes.STRATEGY:
            conn.require(classes.strategy_of(value, version).name)  # the constructor runs before Trainer
    conn.check_config(flags)
    conn.check_device_config(flags)
    conn.choose_accelerator()
    conn.init_accelerator(flags)
    if conn.strategy is None or (version >= V194 and conn.strategy == "auto"):
        conn.strategy = conn.choose_strategy()
    conn.check_strategy_and_fallback()
    conn.init_strategy()
    conn.check_precision(flags)
    return conn.lazy_init()


def _listed(plugins: Value) -> list[Value]:
    if plugins is None:
        return []
    return list(plugins) if isinstance(plugins, list) else [plugins]


def _text(value: Value | Single) -> str:
    """``str(x)`` of a flag value as the release prints it (objects as ``harness.normalize`` leaves them)."""
    if isinstance(value, (Obj, Single)):
        return f"<{value.cls} object>"
    return str(value)


def _repr(value: Value) -> str:
    return _text(value) if isinstance(value, Obj) else repr(value)


def _newest(table: tuple[tuple[Version, str], ...], version: Version) -> str:
    return next(text for since, text in table if version >= since)


@dataclass
class _Connector:
    version: Version
    hardware: Hardware
    warn: Warn
    registered: Mapping[str, Strategy]
    strategy: StrategyFlag = None  # _strategy_flag
    accelerator: str | None = None  # _accelerator_flag
    devices: Value = None  # _devices_flag
    num_nodes: int = 1
    parallel: list[Device] = field(default_factory=list)  # _parallel_devices
    accelerator_kind: str = "cpu"  # the Accelerator instance built (can differ from the flag, see ddp_cpu)
    plugin_kinds: set[str] = field(default_factory=set)
    precision_plugin: str = ""  # the class of a precision plugin object in `plugins`
    precision_given: Obj | None = None  # that object
    trained: Precision = field(default_factory=Precision)  # what the chosen precision plugin trains with
    environment: str = "LightningEnvironment"  # the ClusterEnvironment class the strategy gets
    built: Strategy | None = None

    @property
    def v17(self) -> bool:
        return self.version >= V17

    def require(self, family: str) -> None:
        """A strategy constructor that checks for its package (``_DEEPSPEED_AVAILABLE`` etc.)."""
        for req in REQUIREMENTS.get(family, ()):
            if self.version >= req.since:
                if not self.has(req.package):
                    raise Reject(req.error, req.message)
                return

    def has(self, package: str) -> bool:
        if package == XLA:
            return self.hardware.tpu_cores > 0
        return bool(package) and package in self.hardware.installed

    # -- 1. _check_config_and_set_final_flags ----------------------------------------------------------------

    def check_config(self, flags: dict[str, Value]) -> None:
        strategy, accelerator = flags.get("strategy"), flags.get("accelerator")
        plugins = _listed(flags.get("plugins"))
        if isinstance(strategy, str):
            strategy = strategy.lower()
        if strategy is not None:
            self.strategy = strategy
            self._reject_strategy_name(strategy)
            if not self.v17:
                self._check_strategy_conflicts_16(strategy, accelerator, plugins)
        if self.v17:
            self._check_accelerator_17(strategy, accelerator)
        else:
            self._set_accelerator_16(accelerator)
        self._check_precision_value(flags.get("precision", 32))
        self._set_plugins(plugins)
        self._check_strategy_instance()
        self._check_amp(flags)

    def _reject_strategy_name(self, strategy: Value) -> None:
        if strategy == "ddp_cpu":
            fork = "|'ddp_fork'" if self.v17 else ""
            raise Reject(
                MISCONF,
                "`Trainer(strategy='ddp_cpu')` is not a valid strategy,"
                f" you can use `Trainer(strategy='ddp'|'ddp_spawn'{fork}, accelerator='cpu')` instead.",
            )
        if strategy == "tpu_spawn":
            raise Reject(
                MISCONF,
                "`Trainer(strategy='tpu_spawn')` is not a valid strategy,"
                " you can use `Trainer(strategy='ddp_spawn', accelerator='tpu')` instead.",
            )
        # 1.9.2 validates the name up front; "auto" is a valid name from 1.9.4 (#16916)
        exempt = ("auto",) if self.version >= V194 else ()
        if self.version >= V192 and isinstance(strategy, str) and strategy not in (*self.registered, *exempt):
            package = "pytorch_lightning" if self.version >= V193 else "lightning.pytorch"  # 1.9.2's typo
            raise Reject(
                "ValueError",
                f"You selected an invalid strategy name: `strategy={strategy!r}`."
                f" It must be either a string or an instance of `{package}.strategies.Strategy`."
                " Example choices: ddp, ddp_spawn, deepspeed, dp, ..."
                " Find a complete list of options in our documentation at https://lightning.ai",
            )

    def _is_strategy(self, value: Value) -> bool:
        """``isinstance(x, Strategy) or x in self._registered_strategies``."""
        if isinstance(value, Obj):
            return classes.kind_of(value) == classes.STRATEGY
        return isinstance(value, str) and value in self.registered

    def _check_strategy_conflicts_16(self, strategy: Value, accelerator: Value, plugins: list[Value]) -> None:
        # Objects compare by identity, so a strategy object in `accelerator` always differs from `strategy`.
        if isinstance(accelerator, Obj) and self._is_strategy(accelerator):
            raise Reject(
                MISCONF,
                "Incompatible values set in `strategy` and `accelerator` arguments."
                f"Received both strategy={_text(strategy)} and accelerator={_text(accelerator)}",
            )
        if isinstance(accelerator, str) and self._is_strategy(accelerator) and strategy != accelerator:
            raise Reject(
                MISCONF,
                f"strategy {_text(strategy)} already set through `strategy` flag,"
                f" but have also passed {accelerator} in through the accelerator flag.",
            )
        for plugin in plugins:
            if self._is_strategy(plugin):
                raise Reject(
                    MISCONF,
                    f"You have passed `Trainer(strategy={_text(strategy)})`"
                    " and you can only specify one strategy,"
                    f" but you have passed {_text(plugin)} as a plugin.",
                )

    def _set_accelerator_16(self, accelerator: Value) -> None:
        # 1.6 takes a registered strategy (deprecated), `ddp_cpu`, or a device name; anything else is ignored.
        if accelerator is None:
            return
        if accelerator in (*ACCELERATORS_16, "auto"):
            self.accelerator = str(accelerator)
        elif self._is_strategy(accelerator):
            self.warn(
                "accelerator",
                f"Passing `Trainer(accelerator={_repr(accelerator)})` has been deprecated in v1.5 and will be"
                f" removed in v1.7. Use `Trainer(strategy={_repr(accelerator)})` instead.",
            )
            self.strategy = accelerator
        elif accelerator == "ddp_cpu" and not self.strategy:
            self.strategy = accelerator

    def _check_accelerator_17(self, strategy: Value, accelerator: Value) -> None:
        if accelerator is not None and accelerator not in (*ACCELERATORS_17, "auto", "gpu"):
            raise Reject(
                "ValueError",
                f"You selected an invalid accelerator name: `accelerator={_repr(accelerator)}`."
                f" Available names are: {', '.join(ACCELERATORS_17)}.",
            )
        # 1.9: MPS runs a single device only; a substring test on the strategy name
        parallel = isinstance(strategy, str) and any(s in strategy for s in ("ddp", "dp", "deepspeed"))
        if isinstance(strategy, Obj):
            parallel = classes.strategy_of(strategy, self.version).name in PARALLEL_FAMILIES
        if (
            self.version >= V19
            and self.hardware.mps
            and accelerator in ("mps", "auto", "gpu", None)
            and parallel
        ):
            raise Reject(
                "ValueError",
                f"You set `strategy={_text(strategy)}` but strategies from the DDP family"
                " are not supported on the"
                f" MPS accelerator. Either explicitly set `accelerator='cpu'` or change the strategy.",
            )
        self.accelerator = None if accelerator is None else str(accelerator)

    def _check_precision_value(self, precision: Value) -> None:
        if self.version >= V19:
            allowed: tuple[Value, ...] = ("64", "32", "16", "bf16", 64, 32, 16)
            if precision not in allowed:
                raise Reject(
                    MISCONF, f"Precision {precision!r} is invalid. Allowed precision values: {allowed}"
                )
            return
        names = ("16", "32", "64", "bf16") if self.version >= V18 else ("16", "32", "64", "bf16", "mixed")
        if precision is not None and str(precision) not in names:
            raise Reject(MISCONF, f"Precision {precision!r} is invalid. Allowed precision values: {names}")

    def _set_plugins(self, plugins: list[Value]) -> None:
        counts: dict[str, int] = {}
        for plugin in plugins:
            kind = classes.kind_of(plugin)
            if not self.v17 and self._is_strategy(plugin):
                self.strategy = plugin
                self.warn(
                    "plugins",
                    f"Passing {_text(plugin)} `strategy` to the `plugins` flag in Trainer has been deprecated"
                    f" in v1.5 and will be removed in v1.7. Use `Trainer(strategy={_text(plugin)})` instead.",
                )
                key = "Strategy"
            elif kind in PLUGIN_KEYS:
                key = PLUGIN_KEYS[kind]
                if kind == classes.ENVIRONMENT and isinstance(plugin, Obj):
                    self.environment = plugin.cls
                if kind == classes.PRECISION and isinstance(plugin, Obj):
                    self.precision_plugin = plugin.cls
                    self.precision_given = plugin
            else:
                expected = "or LayerSync." if self.v17 else "LayerSync, or Strategy."
                raise Reject(
                    MISCONF,
                    f"Found invalid type for plugin {_text(plugin)}. Expected one of: PrecisionPlugin, "
                    f"CheckpointIO, ClusterEnviroment, {expected}",
                )
            counts[key] = counts.get(key, 0) + 1
        duplicated = [key for key, count in counts.items() if count > 1]
        if duplicated:
            raise Reject(
                MISCONF,
                f"Received multiple values for {', '.join(duplicated)} flags in `plugins`."
                " Expected one value for each type at most.",
            )
        self.plugin_kinds = set(counts)

    def _check_strategy_instance(self) -> None:
        """A strategy object built with its own accelerator / precision / checkpoint_io / environment."""
        if not isinstance(self.strategy, Obj) or not self._is_strategy(self.strategy):
            return
        kwargs = self.strategy.kw()
        own_env = kwargs.get("cluster_environment")
        if self.v17 and self._family(self.strategy) == "xla":  # TPUSpawnStrategy brings an XLAEnvironment
            own_env = Obj("XLAEnvironment")
        if isinstance(own_env, Obj):
            kwargs["cluster_environment"] = own_env
        if kwargs.get("accelerator") is not None and self.accelerator:
            raise Reject(
                MISCONF, "accelerator set through both strategy class and accelerator flag, choose one"
            )
        for kwarg, key, what in INSTANCE_CONFLICTS:
            if kwargs.get(kwarg) is not None and key in self.plugin_kinds:
                raise Reject(MISCONF, f"{what} set through both strategy class and plugins, choose one")
        if isinstance(own_env, Obj):
            self.environment = own_env.cls

    def _check_amp(self, flags: dict[str, Value]) -> None:
        amp_level = flags.get("amp_level")
        if self.version >= V19:
            backend = flags.get("amp_backend")
            if backend is not None:
                self.warn(
                    "amp_backend",
                    f"{APEX_19} The `Trainer(amp_backend={backend!r})` argument is deprecated. Removing this"
                    " argument will avoid this message,"
                    " it will select PyTorch's implementation automatically.",
                )
            if amp_level is not None:
                self.warn(
                    "amp_level",
                    f"{APEX_19} The `Trainer(amp_level={amp_level!r})` argument is deprecated. Removing this"
                    " argument will avoid this message.",
                )
        elif self.version >= V18 and amp_level is not None:
            self.warn(
                "amp_level",
                "Setting `amp_level` inside the `Trainer` is deprecated in v1.8.0 and will be removed"
                " in v1.10.0. Please set it inside the specific precision plugin"
                " and pass it to the `Trainer`.",
            )
        if amp_level is not None and self.amp_backend(flags) != "apex":
            raise Reject(
                MISCONF,
                f"You have asked for `amp_level={amp_level!r}`"
                " but it's only supported with `amp_backend='apex'`.",
            )

    def amp_backend(self, flags: dict[str, Value]) -> str | None:
        """``AMPType.from_str`` (case-insensitive) until 1.8; 1.9 keeps the string (default None)."""
        backend = flags.get("amp_backend", None if self.version >= V19 else "native")
        if not isinstance(backend, str):
            return None
        return backend if self.version >= V19 else backend.lower()

    # -- 2. _check_device_config_and_set_final_flags ---------------------------------------------------------

    def check_device_config(self, flags: dict[str, Value]) -> None:
        num_nodes = flags.get("num_nodes", 1)
        self.num_nodes = 1 if num_nodes is None else to_int(num_nodes)
        devices = self.devices = flags.get("devices")
        if _is_zero(devices):
            raise Reject(
                MISCONF,
                f"`Trainer(devices={devices!r})` value is not a valid input"
                f" using {self.accelerator} accelerator.",
            )
        self._map_device_flags(flags)
        if self.devices == "auto" and self.accelerator is None:
            # 1.6 prints 'hpu without its closing quote
            names = "'hpu'|'mps')` for the devices mapping." if self.v17 else "'hpu)` for the devices mapping"
            raise Reject(
                MISCONF,
                f"You passed `devices={devices}` but haven't specified"
                f" `accelerator=('auto'|'tpu'|'gpu'|'ipu'|'cpu'|{names}",
            )

    def _map_device_flags(self, flags: dict[str, Value]) -> None:
        """``_map_deprecated_devices_specific_info_to_accelerator_and_device_flag``."""
        given = {name: flags.get(name) for name in DEVICE_FLAGS}
        if self.v17:
            for name, value in given.items():
                if value is not None:
                    self.warn(name, _device_flag_deprecation(name, value))
        # `num_processes or gpus or ipus or tpu_cores`: the first truthy one wins ...
        chosen = next((value for value in given.values() if value), None)
        if not chosen or _is_zero(chosen):
            return
        self.devices = chosen
        if self.accelerator is None:
            # ... but for the accelerator the last assignment wins: num_processes > gpus > tpu_cores > ipus
            for name in ("num_processes", "gpus", "tpu_cores", "ipus"):
                if given[name]:
                    self.accelerator = DEVICE_FLAG_ACCELERATORS[name] if name != "gpus" else self._gpu_name
                    break

    @property
    def _gpu_name(self) -> str:
        return "cuda" if self.v17 else "gpu"

    # -- 3. accelerator --------------------------------------------------------------------------------------

    def choose_accelerator(self) -> None:
        if isinstance(self.strategy, Obj) and self._family(self.strategy) == "ipu":
            self.accelerator = "ipu"  # _set_accelerator_if_ipu_strategy_is_passed
        if self.accelerator in ("auto", None):
            self.accelerator = self._choose_auto_accelerator()
        elif self.accelerator == "gpu" and self.v17:  # _choose_gpu_accelerator_backend
            if self.hardware.mps:
                self.accelerator = "mps"
            elif self.hardware.cuda:
                self.accelerator = "cuda"
            else:
                raise Reject(MISCONF, "No supported gpu backend found!")

    def _choose_auto_accelerator(self) -> str:
        if self.accelerator == "auto":
            if self.hardware.tpu_cores:
                return "tpu"
            if self.v17 and self.hardware.mps:
                return "mps"
            if self.hardware.cuda:
                return self._gpu_name
        return "cpu"

    def _available(self, name: str) -> bool:
        hw = self.hardware
        return {
            "cpu": True,
            "gpu": hw.cuda > 0,
            "cuda": hw.cuda > 0,
            "mps": hw.mps,
            "tpu": hw.tpu_cores > 0,
        }.get(name, False)

    def init_accelerator(self, flags: dict[str, Value]) -> None:
        """``_set_parallel_devices_and_init_accelerator``."""
        name = self.accelerator or "cpu"
        if name == "tpu" and self.version >= V18 and not self.hardware.tpu_cores:
            raise Reject("ModuleNotFoundError", _newest(XLA_MISSING, self.version))  # TPUAccelerator()
        if not self._available(name):
            names = ACCELERATORS_17 if self.v17 else ACCELERATORS_16
            cls = f"`{ACCELERATOR_CLASSES[name]}`" if self.version >= V18 else ACCELERATOR_CLASSES[name]
            raise Reject(
                MISCONF,
                f"{cls} can not run on your system since the accelerator is not available. The following"
                " accelerator(s) is available and can be passed into `accelerator` argument of"
                f" `Trainer`: {[n for n in names if self._available(n)]}.",
            )
        self.accelerator_kind = name
        if self.devices in ("auto", None):
            self.devices = {"cpu": 1, "mps": 1, "tpu": 8}.get(name, self.hardware.cuda)
        self._auto_select_gpus(flags, name)
        parsed = self._parse_devices(name, self.devices)
        self.devices = parsed
        if not self.parallel:
            self.parallel = self._parallel_devices(name, parsed)

    def _auto_select_gpus(self, flags: dict[str, Value], name: str) -> None:
        auto = flags.get("auto_select_gpus")
        if self.version >= V19 and auto is not None:
            self.warn(
                "auto_select_gpus",
                "The Trainer argument `auto_select_gpus` has been deprecated in v1.9.0 and will be removed in"
                " v2.0.0. Please use the function `pytorch_lightning.accelerators.find_usable_cuda_devices`"
                " instead.",
            )
        gpus = flags.get("gpus") or self.devices
        if auto and isinstance(gpus, int) and name in ("gpu", "cuda"):
            self.devices = _values(_pick_multiple_gpus(gpus, self.hardware.cuda))

    def _parse_devices(self, name: str, devices: Value) -> Value:
        if name == "cpu":
            return parse_cpu_cores(devices, self.version)
        if name in ("gpu", "cuda", "mps"):
            available = list(range(self.hardware.cuda)) if name != "mps" else [0] if self.hardware.mps else []
            return _values(parse_gpu_ids(devices, available, self.version))
        if name == "tpu":
            return _parse_tpu_cores(devices, self.version)
        return devices

    @staticmethod
    def _parallel_devices(name: str, devices: Value) -> list[Device]:
        if name == "cpu":
            return [("cpu", 0)] * to_int(devices)
        if not isinstance(devices, (list, int)):  # `for i in None` in get_parallel_devices
            raise Reject("TypeError", "'NoneType' object is not iterable")
        if name == "tpu":
            return [("xla", i) for i in (range(devices) if isinstance(devices, int) else _ints(devices))]
        indices = range(len(_ints(devices))) if name == "mps" else _ints(devices)
        return [("cuda" if name != "mps" else "mps", i) for i in indices]

    # -- 4. strategy -----------------------------------------------------------------------------------------

    def choose_strategy(self) -> StrategyFlag:
        accelerator, many = self.accelerator, len(self.parallel) > 1
        if accelerator == "ipu":
            return "ipu_strategy"
        if accelerator == "hpu":
            return "hpu_parallel" if many else Single("hpu_single", "SingleHPUStrategy", ("hpu", 0))
        if accelerator == "tpu":
            return "tpu_spawn" if many else Single("single_xla", "SingleTPUStrategy", self.parallel[0])
        if self.num_nodes > 1:
            return "ddp"
        if not many:
            gpu = accelerator == "gpu" or (self.v17 and accelerator in GPU_NAMES)
            return Single("single_device", "SingleDeviceStrategy", self.parallel[0] if gpu else ("cpu", 0))
        # 1.9.4: None keeps "ddp_spawn" for backwards compatibility, "auto" picks "ddp"
        return "ddp" if self.strategy == "auto" else "ddp_spawn"

    def check_strategy_and_fallback(self) -> None:
        flag = self.strategy if isinstance(self.strategy, str) else ""
        if flag == "ddp_cpu":  # 1.6 only: 1.7 rejects the accelerator name before
            if self.hardware.tpu_cores:
                raise Reject(
                    MISCONF,
                    "`accelerator='ddp_cpu'` is not supported on TPU machines. "
                    "Learn more: https://github.com/Lightning-AI/lightning/issues/7810",
                )
            flag = "ddp" if self.devices == 1 and self.num_nodes > 1 else "ddp_spawn"
            if self.accelerator == "gpu":
                # the accelerator becomes CPU, the parallel devices stay the parsed GPUs
                self.accelerator = self.accelerator_kind = "cpu"
        if flag in (("dp",) if self.v17 else ("dp", "ddp2")) and self.accelerator == "cpu":
            flag = "ddp"
        fsdp_native = flag in FSDP_NATIVE_NAMES or (
            isinstance(self.strategy, Obj) and self._family(self.strategy) == "fsdp"
        )
        if self.v17 and fsdp_native and self.accelerator not in ("cuda", "gpu"):
            raise Reject(
                MISCONF, "You selected strategy to be `fsdp_native`, but GPU accelerator is not used."
            )
        if flag:
            self.strategy = flag

    def init_strategy(self) -> None:
        flag = self.strategy
        if flag == "horovod" or (isinstance(flag, Obj) and self._family(flag) == "horovod"):
            self._handle_horovod()
        if isinstance(flag, str):
            if V17 <= self.version < V18 and flag == "ddp2":
                raise Reject(
                    "ValueError",
                    "The DDP2 strategy is no longer supported."
                    " For single-node use, we recommend `strategy='ddp'` or"
                    " `strategy='dp'` as a replacement. If you need DDP2, you will need `torch < 1.9`,"
                    " `pytorch-lightning < 1.5`, and set it as `accelerator='ddp2'`.",
                )
            self.built = self._registry_get(flag)
        elif isinstance(flag, Obj):
            self.built = classes.strategy_of(flag, self.version)
        elif isinstance(flag, Single):
            self.built = Strategy(flag.family)
        else:  # 1.6 raises a RuntimeError of its own at this point, 1.7+ a MisconfigurationException
            raise Unmodelled("strategy", flag, "a strategy name or a strategy object")
        if self.built.name == "xla" and self.v17:  # TPUSpawnStrategy passes start_method="fork" from 1.7
            self.built = Strategy("xla", "fork", None, self.built.options)

    def _registry_get(self, name: str) -> Strategy:
        """``StrategyRegistry.get(name)``: builds the class with the registered keywords only."""
        if name not in self.registered:
            raise Reject(
                "KeyError",
                f"{name!r} not found in registry. Available names: {', '.join(sorted(self.registered))}",
            )
        strategy = self.registered[name]
        if strategy.name == "single_xla":  # registered without its required `device`
            raise Reject(
                "TypeError", "SingleTPUStrategy.__init__() missing 1 required positional argument: 'device'"
            )
        self.require(strategy.name)
        if V17 <= self.version < V171 and name in FUP_FALSE_170:
            strategy = Strategy(strategy.name, strategy.start_method, False, strategy.options)
        return registry.resolve(strategy, self.version)

    def _handle_horovod(self) -> None:
        if self.num_nodes > 1:
            raise Reject(
                MISCONF,
                "Horovod does not support setting num_nodes / num_gpus explicitly. Use "
                "horovodrun / mpirun to configure the number of processes.",
            )
        if not self.has("horovod"):
            raise Reject(MISCONF, _newest(HOROVOD_MISSING, self.version))
        # hvd.local_size() is 1 outside horovodrun: one process, on GPU 0 or the CPU
        self.parallel = [("cuda", 0) if self.accelerator_kind in ("gpu", "cuda") else ("cpu", 0)]

    def _family(self, obj: Obj) -> str:
        return classes.strategy_of(obj, self.version).name

    # -- 5. precision and _lazy_init_strategy ----------------------------------------------------------------

    def check_precision(self, flags: dict[str, Value]) -> None:
        """``_check_and_init_precision``: validate, then pick the precision plugin."""
        precision, amp = flags.get("precision", 32), self.amp_backend(flags)
        if self.version >= V19:
            precision = str(precision)
        self._validate_precision(precision, amp)
        self.trained = self._choose_precision_plugin(precision, amp, flags.get("amp_level"))

    def _validate_precision(self, precision: Value, amp: str | None) -> None:
        """``_validate_precision_choice``."""
        sixty_four, sixteen = ("64", "16") if self.version >= V19 else (64, 16)
        if self.accelerator_kind == "tpu" and precision == sixty_four:
            raise Reject(
                MISCONF,
                "`Trainer(accelerator='tpu', precision=64)` is not implemented."
                " Please, open an issue in `https://github.com/Lightning-AI/lightning/issues`"
                " requesting this feature.",
            )
        if self.accelerator_kind == "tpu" and self.precision_plugin not in ("", *TPU_PRECISION):
            # 1.6 checks the precision plugin before the strategy (found by the differential grid)
            raise Reject(
                "ValueError",
                "The `TPUAccelerator` can only be used with a `TPUPrecisionPlugin`,"
                f" found: <{self.precision_plugin} object>.",
            )
        if precision == sixteen and self.accelerator_kind == "cpu" and amp == "apex":
            raise Reject(
                MISCONF,
                "You passed `Trainer(accelerator='cpu', precision=16, amp_type='apex')`"
                " but apex AMP not supported on CPU.",
            )
        if self.version < V19 and precision == "bf16" and amp != "native":
            raise Reject(
                MISCONF,
                f"You passed `Trainer(amp_type={amp!r}, precision='bf16')` but "
                "it's not supported. Try using `amp_type='native'` instead.",
            )
        if precision in (sixteen, "bf16") and amp == "apex":
            self._check_apex(precision)

    def _choose_precision_plugin(self, value: Value, amp: str | None, level: Value) -> Precision:
        """Until 1.8 only the int forms 16/32/64 (and "bf16") match, so "32" falls through and raises;
        1.9 compares ``str(precision)``, so 32.0 ("32.0") does."""
        native = (None, "native") if self.version >= V19 else ("native",)
        p32, p64, p16 = ("32", "64", "16") if self.version >= V19 else (32, 64, 16)
        family = self.built.name if self.built else ""
        if self.precision_given is not None:  # a precision plugin in `plugins` is used as it is
            return precision.construct(self.precision_given, self.version, self.hardware)
        if self.accelerator_kind in ("ipu", "hpu"):
            return Precision(precision.unified(value))  # IPUPrecisionPlugin / HPUPrecisionPlugin(precision)
        if self.accelerator_kind == "tpu" and value == p32:
            return Precision()  # TPUPrecisionPlugin
        if self.accelerator_kind == "tpu" and value in (p16, "bf16"):
            return precision.TPU_HALF  # TPUBf16PrecisionPlugin
        if family == "colossalai" and self.version >= V18:
            return Precision(precision.unified(value))
        if family == "deepspeed":  # DeepSpeedPrecisionPlugin(precision, amp_type, amp_level)
            if amp == "apex":
                return Precision(precision.unified(value), "apex", None if level is None else str(level))
            return Precision(precision.unified(value))
        if value == p32:
            return Precision()
        if value == p64:
            return Precision("64-true")
        if value == p16 and self.accelerator == "cpu":
            value = "bf16"  # with a warning: native AMP has no float16 on CPU
        if value in (p16, "bf16") and amp in native:
            mixed = precision.mixed(value, "cpu" if self.accelerator == "cpu" else "cuda")
            # the sharded and FSDP plugins run their strategy's autocast: no device of their own
            return Precision(mixed.value) if family in SHARDED_FAMILIES else mixed
        if value in (p16, "bf16") and amp == "apex":
            if not self.has("apex"):  # ApexMixedPrecisionPlugin()
                installed = "you have not installed it" if self.version < V17 else "`apex` is not installed"
                raise Reject(
                    MISCONF,
                    f"You have asked for Apex AMP but {installed}."
                    " Install `apex` using this guide: https://github.com/NVIDIA/apex",
                )
            return precision.apex(level)
        raise Reject("RuntimeError", "No precision set")

    def _check_apex(self, precision: Value) -> None:
        if self.version >= V19 and precision == "bf16":
            raise Reject(
                MISCONF,
                "You passed `Trainer(amp_type='apex', precision='bf16')` but it's not supported."
                " Remove the `amp_type` argument.",
            )
        if self.built and self.built.name in ("fairscale_sharded", "fairscale_fsdp", "fsdp"):
            hint = "" if self.version >= V19 else ", please switch to `amp_backend='native'`"
            raise Reject(MISCONF, f"Sharded plugins are not supported with apex{hint}.")

    def lazy_init(self) -> Setup:
        assert self.built is not None
        family = self.built.name
        self._set_world_ranks()
        if self.accelerator_kind == "tpu" and family not in TPU_FAMILIES:
            raise Reject(
                "ValueError",
                "The `TPUAccelerator` can only be used with a `SingleTPUStrategy` or `TPUSpawnStrategy`,"
                f" found {self._class_name()}.",
            )
        if self.accelerator_kind == "hpu" and family not in HPU_FAMILIES:
            raise Reject(
                "ValueError",
                "The `HPUAccelerator` can only be used with a `SingleHPUStrategy` or `HPUParallelStrategy`,"
                f" found {self._class_name()}.",
            )
        if family in PARALLEL_FAMILIES:
            devices = self.parallel
        else:  # root_device of a single-device strategy; the registered "single_device" defaults to the CPU
            devices = [self.strategy.device if isinstance(self.strategy, Single) else ("cpu", 0)]
        return Setup(
            accelerator="cuda" if self.accelerator_kind == "gpu" else self.accelerator_kind,
            devices=tuple(i if kind != "cpu" else position for position, (kind, i) in enumerate(devices)),
            strategy=self.built,
            num_nodes=1 if family in NO_NUM_NODES else self.num_nodes,
            precision=self.trained,
        )

    def _set_world_ranks(self) -> None:
        """``strategy.set_world_ranks()`` asks the cluster environment for the ranks; outside its cluster an
        environment plugin finds no variables (KeyError), and 1.7's XLAEnvironment without torch_xla has no
        ``xenv`` (NameError). DataParallel, Horovod and the single-device strategies do not ask."""
        assert self.built is not None
        family, start = self.built.name, self.built.start_method
        if family not in RANKED_FAMILIES or (family == "xla" and not self.v17):
            return
        # 1.7+ TPUSpawnStrategy builds itself with an XLAEnvironment, which no environment plugin replaces
        environment = "XLAEnvironment" if family == "xla" else self.environment
        if environment == "XLAEnvironment" and not self.hardware.tpu_cores:
            raise Reject("NameError", "name 'xenv' is not defined")
        node, local, world = ENVIRONMENT_VARIABLES.get(environment, (None, None, None))
        # DDP2 asks for the node rank only; DDP for node then local rank, the spawning ones node then global
        asked = (
            (node,) if family == "ddp2" else (node, world) if start in ("spawn", "fork") else (node, local)
        )
        missing = next((variable for variable in asked if variable), None)
        if missing:
            raise Reject("KeyError", missing)

    def _class_name(self) -> str:
        if isinstance(self.strategy, (Obj, Single)):
            return self.strategy.cls
        assert self.built is not None
        popen, spawned = STRATEGY_CLASSES.get(self.built.name, ("Strategy", ""))
        return spawned if self.built.start_method in ("spawn", "fork") and spawned else popen


# Strategies whose `set_world_ranks` reads the cluster environment (TPUSpawnStrategy only from 1.7)
RANKED_FAMILIES = frozenset(PARALLEL_FAMILIES - {"dp", "horovod", "ipu"})
# ClusterEnvironment -> the variable its node_rank(), local_rank(), global_rank() read without a default
ENVIRONMENT_VARIABLES = {
    "SLURMEnvironment": ("SLURM_NODEID", "SLURM_LOCALID", "SLURM_PROCID"),
    "TorchElasticEnvironment": (None, "LOCAL_RANK", "RANK"),  # node_rank falls back to GROUP_RANK=0
    "KubeflowEnvironment": ("RANK", None, "RANK"),  # local_rank is always 0
}
# plugin kind -> the `plugins_flags_types` key the release counts it under
PLUGIN_KEYS = {
    classes.PRECISION: "PrecisionPlugin",
    classes.CHECKPOINT_IO: "CheckpointIO",
    classes.ENVIRONMENT: "ClusterEnvironment",
}
# strategy constructor keyword, plugin key, name in the message
INSTANCE_CONFLICTS = (
    ("precision_plugin", "PrecisionPlugin", "precision"),
    ("checkpoint_io", "CheckpointIO", "checkpoint_io"),
    ("cluster_environment", "ClusterEnvironment", "cluster_environment"),
)
DEVICE_FLAGS = ("num_processes", "gpus", "ipus", "tpu_cores")  # the order of the release's `or` chain
DEVICE_FLAG_ACCELERATORS = {"num_processes": "cpu", "tpu_cores": "tpu", "ipus": "ipu"}
DEVICE_FLAG_TARGETS = {"num_processes": "cpu", "gpus": "gpu", "tpu_cores": "tpu", "ipus": "ipu"}


def _device_flag_deprecation(name: str, value: Value) -> str:
    # gpus and tpu_cores are formatted with !r, num_processes and ipus with str()
    shown = repr(value) if name in ("gpus", "tpu_cores") else str(value)
    return (
        f"Setting `Trainer({name}={shown})` is deprecated in v1.7 and will be removed in v2.0."
        f" Please use `Trainer(accelerator={DEVICE_FLAG_TARGETS[name]!r}, devices={shown})` instead."
    )


def _is_zero(value: Value) -> bool:
    """``value in ([], 0, "0")`` with Python's equality (False == 0 too)."""
    return value in ([], 0, "0")


def _values(ids: list[int] | None) -> Value:
    if ids is None:
        return None
    values: list[Value] = [*ids]
    return values


def _ints(values: Value) -> list[int]:
    return [to_int(x) for x in values] if isinstance(values, (list, tuple)) else [to_int(values)]


def _parse_tpu_cores(devices: Value, version: Version) -> Value:
    check_data_type(devices, version)
    if isinstance(devices, str):
        text = devices.strip()
        devices = int(text) if text in ("1", "8") else [to_int(x.strip()) for x in text.split(",") if x]
    one_core = isinstance(devices, list) and len(devices) == 1 and 1 <= to_int(devices[0]) <= 8
    if devices not in (1, 8, None) and not one_core:
        if version >= V19:
            raise Reject("TypeError", "`devices` can only be 1, 8 or [<1-8>] for TPUs.")
        raise Reject("TypeError" if version >= V18 else MISCONF, "`tpu_cores` can only be 1, 8 or [<1-8>]")
    return devices


def _pick_multiple_gpus(count: int, available: int) -> list[int]:
    """``pick_multiple_gpus`` on a machine whose GPUs are all free: the first ``count``."""
    if count == 0:
        raise Reject(
            MISCONF,
            "auto_select_gpus=True, gpus=0 is not a valid configuration."
            " Please select a valid number of GPU resources when using auto_select_gpus.",
        )
    if count > available:
        raise Reject(MISCONF, f"You requested {count} GPUs but your machine only has {available} GPUs.")
    return list(range(available if count == -1 else count))
