"""The accelerator connector of Lightning 2.0 to 2.6 (``trainer/connectors/accelerator_connector.py``).

``connect`` follows ``_AcceleratorConnector.__init__`` step by step: validate the flags (strategy name,
accelerator name, MPS, precision, plugins, a strategy instance's own settings), resolve the accelerator, parse
the devices, choose and build the strategy, then the checks that need the built objects.

Read from the sources of 2.0.0, 2.0.1, 2.0.2, 2.0.4, 2.0.9, 2.1.0, 2.1.1, 2.2.0, 2.3.0, 2.4.0, 2.5.0 to 2.5.3,
2.5.6, 2.6.0 and 2.6.6, and checked on the grid against real Trainers of each of them (CPU/CUDA, and TPU
through the harness' torch_xla stub). Not modelled: notebooks (``_IS_INTERACTIVE``), cluster environments,
platforms without ``fork``, IPU/HPU machines and the lightning_graphcore/lightning_habana integrations.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

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
    Value,
    Version,
    v,
)

Warn = Callable[[str, str], None]

V2_0, V2_0_1, V2_0_2, V2_1, V2_1_1, V2_3 = v("2.0"), v("2.0.1"), v("2.0.2"), v("2.1"), v("2.1.1"), v("2.3")
V2_5, V2_5_2, V2_5_3, V2_6 = v("2.5"), v("2.5.2"), v("2.5.3"), v("2.6")

# ---------------------------------------------------------------------------------------------------------
# Tables


# AcceleratorRegistry names (sorted by class name, as `getmembers` registers them). IPU and HPU left core in
# 2.1 for lightning_graphcore / lightning_habana, which the model does not install.
def _accelerator_names(version: Version) -> tuple[str, ...]:
    return ("cpu", "cuda", "hpu", "ipu", "mps", "tpu") if version < V2_1 else ("cpu", "cuda", "mps", "tpu")


_ACCELERATOR_CLASSES = {
    "cpu": "CPUAccelerator",
    "cuda": "CUDAAccelerator",
    "mps": "MPSAccelerator",
    "ipu": "IPUAccelerator",
    "hpu": "HPUAccelerator",
}

# Strategies of external packages that the connector hooks in: (first release, first without, package).
# Without the package the name raises ModuleNotFoundError (the hooks went in 2.3.0, #19445).
_EXTERNAL_STRATEGIES: dict[str, tuple[Version, Version, str]] = {
    "colossalai": (V2_0, V2_3, "lightning-colossalai"),
    "bagua": (V2_0_1, V2_3, "lightning-bagua"),
}

# `_PRECISION_INPUT_STR` of lightning.fabric.connector, then the int and legacy-str spellings.
_PRECISIONS_2_0 = ("16-mixed", "bf16-mixed", "32-true", "64-true")
_PRECISIONS_2_1 = (
    "transformer-engine",
    "transformer-engine-float16",
    "16-true",
    "16-mixed",
    "bf16-true",
    "bf16-mixed",
    "32-true",
    "64-true",
)
_PRECISION_ALIASES = {"64": "64-true", "32": "32-true", "16": "16-mixed", "bf16": "bf16-mixed"}
_PLAIN_PRECISIONS = ("32-true", "64-true", "16-mixed", "bf16-mixed", "16-true", "bf16-true")

# Precision plugins a strategy family builds itself (2.1+), with what they accept and how they reject.
_HALF = ("32-true", "16-true", "bf16-true", "16-mixed", "bf16-mixed")
_FAMILY_PRECISIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "xla": (("32-true", "16-true", "bf16-true"), "`precision={p!r})` is not supported in XLA."),
    "single_xla": (("32-true", "16-true", "bf16-true"), "`precision={p!r})` is not supported in XLA."),
    "deepspeed": (_HALF, "`Trainer(strategy='deepspeed', precision={p!r})` is not supported."),
    "fsdp": (_HALF, "`precision={p!r})` is not supported in FSDP."),
}
_FAMILY_PRECISIONS_2_0 = {
    "deepspeed": (("32-true", "16-mixed", "bf16-mixed"), _FAMILY_PRECISIONS["deepspeed"][1]),
}

# The class each family builds in 2.x (for messages that name it).
_STRATEGY_CLASSES = {
    "ddp": "DDPStrategy",
    "fsdp": "FSDPStrategy",
    "deepspeed": "DeepSpeedStrategy",
    "single_device": "SingleDeviceStrategy",
    "xla": "XLAStrategy",
    "single_xla": "SingleDeviceXLAStrategy",
    "ipu": "IPUStrategy",
    "hpu_parallel": "HPUParallelStrategy",
    "hpu_single": "SingleHPUStrategy",
    "colossalai": "ColossalAIStrategy",
    "bagua": "BaguaStrategy",
}
_SINGLE_FAMILIES = frozenset({"single_device", "single_xla", "hpu_single"})  # no `num_nodes` attribute

# In 2.x these classes fix their launcher: DeepSpeed and FSDP run the script again (popen), XLAStrategy passes
# `start_method="fork"` to DDPStrategy. The registry rows leave them open (xla says spawn, the 1.x launcher).
_FIXED_START_METHODS = {"deepspeed": "popen", "fsdp": "popen", "xla": "fork"}

# Strategy constructors that raise when their backend is missing (2.0 only for IPU/HPU).
_IPU_MISSING = (
    "The IPU Accelerator requires IPU devices to run. "
    "Learn more or get started with IPUs at https://www.graphcore.ai/getstarted"
)
_HPU_MISSING = {"hpu_parallel": "HPUParallelStrategy", "hpu_single": "SingleHPUStrategy"}
_DEEPSPEED_MISSING = (
    "To use the `DeepSpeedStrategy`, you must have DeepSpeed installed."
    " Install it by running `pip install -U deepspeed`."
)
_NO_GPU_BACKEND = "No supported gpu backend found!"


# Messages name the `pytorch_lightning` namespace; `interpret` rewrites them for `lightning.pytorch`.
_STRATEGY_BASE = "pytorch_lightning.strategies.Strategy"


# ---------------------------------------------------------------------------------------------------------
# Python's str/repr of a call's values, as Lightning's f-strings print them


def _repr(value: Value) -> str:
    if isinstance(value, Obj):
        return f"<{value.cls} object>"  # an object's default repr, as harness.normalize reduces it
    if isinstance(value, list):
        return "[" + ", ".join(_repr(item) for item in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(_repr(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _str(value: Value) -> str:
    return value if isinstance(value, str) else _repr(value)


def _installed(hardware: Hardware, package: str) -> bool:
    wanted = package.replace("-", "_").lower()
    return any(name.replace("-", "_").lower() == wanted for name in hardware.installed)


def _xla_installed(hardware: Hardware) -> bool:
    return hardware.tpu_cores > 0 or _installed(hardware, "torch_xla")


def _xla_missing(version: Version) -> Reject:
    # `str(_XLA_AVAILABLE)`: a ModuleAvailableCache in 2.0, RequirementCache("torch_xla>=1.13") from 2.1
    if version < V2_1:
        message = "Module not found: 'torch_xla'. HINT: Try running `pip install -U torch_xla`"
        return Reject("ModuleNotFoundError", message)
    return _requirement_missing("torch_xla>=1.13")


def _requirement_missing(package: str) -> Reject:
    return Reject(
        "ModuleNotFoundError",
        f"Requirement '{package}' not met. HINT: Try running `pip install -U '{package}'`",
    )


# ---------------------------------------------------------------------------------------------------------
# 0. Python builds the objects of the call before Trainer runs


def _construct_objects(values: list[Value], version: Version, hardware: Hardware, warn: Warn) -> None:
    for value in values:
        if isinstance(value, (list, tuple)):
            _construct_objects(list(value), version, hardware, warn)
        elif isinstance(value, Obj) and classes.kind_of(value) == classes.STRATEGY:
            row = classes.construct(value, version)
            _check_constructible(
                row.family, value.kw(), version, hardware, warn, single_tpu=value.cls == "SingleTPUStrategy"
            )


def _check_constructible(
    family: str, kwargs: dict[str, Value], version: Version, hardware: Hardware, warn: Warn, single_tpu: bool
) -> None:
    """Raise what the strategy's ``__init__`` raises when its backend or a required argument is missing."""
    if family == "single_xla":
        if single_tpu and version >= V2_1:
            warn("strategy", "The 'single_tpu' strategy is deprecated. Use 'single_xla' instead.")
        if "device" not in kwargs:
            cls = "SingleTPUStrategy" if version < V2_1 else "SingleDeviceXLAStrategy"
            raise Reject("TypeError", f"{cls}.__init__() missing 1 required positional argument: 'device'")
    if family in ("xla", "single_xla") and not _xla_installed(hardware):
        raise _xla_missing(version)
    if family == "deepspeed" and not _installed(hardware, "deepspeed"):
        raise Reject(MISCONF, _DEEPSPEED_MISSING)
    if family == "ipu":
        raise Reject(MISCONF, _IPU_MISSING)
    if family in _HPU_MISSING:
        raise Reject(MISCONF, f"`{_HPU_MISSING[family]}` requires HPU devices to run")


# ---------------------------------------------------------------------------------------------------------
# 1. _check_config_and_set_final_flags


def _registered(version: Version, hardware: Hardware) -> dict[str, Strategy]:
    names = dict(registry.registered(version))
    for name, (since, until, package) in _EXTERNAL_STRATEGIES.items():
        if since <= version < until and _installed(hardware, package):
            names[name] = Strategy(name)
    return names


def _check_strategy_name(strategy: Value, version: Version, hardware: Hardware) -> None:
    if isinstance(strategy, str) and strategy in _EXTERNAL_STRATEGIES:
        since, until, package = _EXTERNAL_STRATEGIES[strategy]
        if since <= version < until and not _installed(hardware, package):
            raise _requirement_missing(package)
    is_strategy = isinstance(strategy, Obj) and classes.kind_of(strategy) == classes.STRATEGY
    if (
        strategy != "auto"
        and not is_strategy
        and not (isinstance(strategy, str) and strategy in _registered(version, hardware))
    ):
        raise Reject(
            "ValueError",
            f"You selected an invalid strategy name: `strategy={_repr(strategy)}`."
            f" It must be either a string or an instance of `{_STRATEGY_BASE}`."
            " Example choices: auto, ddp, ddp_spawn, deepspeed, ..."
            " Find a complete list of options in our documentation at https://lightning.ai",
        )


def _check_accelerator_name(accelerator: Value, version: Version) -> None:
    names = _accelerator_names(version)
    if isinstance(accelerator, list) and version >= V2_5_2:
        raise Reject("TypeError", "unhashable type: 'list'")  # the names became a set in 2.5.2
    if accelerator not in names and accelerator not in ("auto", "gpu"):
        raise Reject(
            "ValueError",
            f"You selected an invalid accelerator name: `accelerator={_repr(accelerator)}`."
            f" Available names are: auto, {', '.join(names)}.",
        )


def _check_mps(strategy: Value, accelerator: Value, hardware: Hardware) -> None:
    """MPS runs single-device only: any strategy string naming ddp or deepspeed, or a parallel instance."""
    if isinstance(strategy, str):
        parallel = "ddp" in strategy or "deepspeed" in strategy
    else:
        parallel = isinstance(strategy, Obj) and _family_of(strategy) not in _SINGLE_FAMILIES
    if hardware.mps and accelerator in ("mps", "auto", "gpu", None) and parallel:
        raise Reject(
            "ValueError",
            f"You set `strategy={_str(strategy)}` but strategies from the DDP family are not supported on the"
            " MPS accelerator. Either explicitly set `accelerator='cpu'` or change the strategy.",
        )


def _family_of(obj: Obj) -> str:
    row = classes.lookup(obj.cls)
    return row.family if row else ""


def _precision(value: Value, version: Version, warn: Warn) -> str | None:
    """``_convert_precision_to_unified_args``: None stays None (2.1+ default), aliases warn and convert."""
    if value is None and version >= V2_1:
        return None
    supported = (*(_PRECISIONS_2_0 if version < V2_1 else _PRECISIONS_2_1), 64, 32, 16, *_PRECISION_ALIASES)
    if value not in supported:
        raise Reject(
            "ValueError", f"Precision {_repr(value)} is invalid. Allowed precision values: {supported!r}"
        )
    text = str(value)
    if text in _PRECISION_ALIASES:
        if text[:2] not in ("32", "64"):
            spelled = text if version < V2_1 else f"`precision={text}`"
            warn(
                "precision",
                f"{spelled} is supported for historical reasons but its usage is discouraged. "
                f"Please set your precision to {_PRECISION_ALIASES[text]} instead!",
            )
        text = _PRECISION_ALIASES[text]
    return text


def _plugin_list(plugins: Value, version: Version) -> list[Value]:
    if plugins is None:
        return []
    if version >= V2_5:  # `isinstance(plugins, Iterable)`: a string is iterated character by character
        if isinstance(plugins, str):
            return list(plugins)
        if isinstance(plugins, (list, tuple)):
            return list(plugins)
        return [plugins]
    return list(plugins) if isinstance(plugins, list) else [plugins]


def _plugin_key(plugin: Value, version: Version, sync_batchnorm: Value) -> str:
    kind = classes.kind_of(plugin)
    if kind == classes.PRECISION:
        return "PrecisionPlugin" if version < V2_1_1 else "Precision"
    if kind == classes.CHECKPOINT_IO:
        return "CheckpointIO"
    if kind == classes.ENVIRONMENT:
        return "ClusterEnvironment"
    if kind == "layer_sync" and isinstance(plugin, Obj):
        if sync_batchnorm and plugin.cls != "TorchSyncBatchNorm":
            raise Reject(
                MISCONF,
                f"You set `Trainer(sync_batchnorm=True)` and provided a `{plugin.cls}`"
                " plugin, but this is not allowed. Choose one or the other.",
            )
        return "TorchSyncBatchNorm"
    precision = "PrecisionPlugin" if version < V2_1_1 else "Precision"
    environment = "ClusterEnviroment" if version < V2_5_2 else "ClusterEnvironment"  # sic, until 2.5.2
    raise Reject(
        MISCONF,
        f"Found invalid type for plugin {_str(plugin)}. Expected one of: {precision}, "
        f"CheckpointIO, {environment}, or LayerSync.",
    )


def _check_plugins(
    plugins: list[Value], version: Version, precision: str | None, sync_batchnorm: Value
) -> set[str]:
    """The kinds of plugin given; raises on an invalid or repeated one."""
    counts: Counter[str] = Counter()
    given: dict[str, Value] = {}
    for plugin in plugins:
        key = _plugin_key(plugin, version, sync_batchnorm)
        counts[key] += 1
        given[key] = plugin
    repeated = [key for key, count in counts.items() if count > 1]
    if repeated:
        raise Reject(
            MISCONF,
            f"Received multiple values for {', '.join(repeated)} flags in `plugins`."
            " Expected one value for each type at most.",
        )
    precision_key = "PrecisionPlugin" if version < V2_1_1 else "Precision"
    if version >= V2_1 and precision_key in counts and precision is not None:
        raise Reject(
            "ValueError",
            f"Received both `precision={precision}` and `plugins={_str(given[precision_key])}`. Choose one.",
        )
    return set(counts)


# A strategy instance's own settings: (constructor keyword, the plugin kind it competes with, message).
_INSTANCE_SETTINGS = (
    (
        "precision_plugin",
        ("PrecisionPlugin", "Precision"),
        "precision set through both strategy class and plugins",
    ),
    ("checkpoint_io", ("CheckpointIO",), "checkpoint_io set through both strategy class and plugins"),
    (
        "cluster_environment",
        ("ClusterEnvironment",),
        "cluster_environment set through both strategy class and plugins",
    ),
)


def _instance_accelerator(strategy: Value, accelerator: Value, plugin_kinds: set[str]) -> Value:
    """A strategy instance built with its own accelerator/precision/checkpoint_io/environment."""
    if not isinstance(strategy, Obj):
        return accelerator
    kwargs = strategy.kw()
    if kwargs.get("accelerator"):
        if accelerator != "auto":
            raise Reject(
                MISCONF, "accelerator set through both strategy class and accelerator flag, choose one"
            )
        accelerator = kwargs["accelerator"]
    for keyword, kinds, message in _INSTANCE_SETTINGS:
        if kwargs.get(keyword) and plugin_kinds.intersection(kinds):
            raise Reject(MISCONF, f"{message}, choose one")
    return accelerator


# ---------------------------------------------------------------------------------------------------------
# 2. The accelerator


def _tpu_available(hardware: Hardware) -> bool:
    return _xla_installed(hardware) and hardware.tpu_cores > 0


def _available(name: str, hardware: Hardware) -> bool:
    return {
        "cpu": True,
        "cuda": hardware.cuda > 0,
        "mps": hardware.mps,
        "tpu": _tpu_available(hardware),
    }.get(name, False)  # IPU and HPU machines are not modelled


def _resolve_accelerator(accelerator: Value, version: Version, hardware: Hardware) -> Value:
    if accelerator == "auto":  # tpu > (ipu > hpu: never available here) > mps > cuda > cpu
        return next(name for name in ("tpu", "mps", "cuda", "cpu") if _available(name, hardware))
    if accelerator == "gpu":
        if hardware.mps:
            return "mps"
        if hardware.cuda:
            return "cuda"
        raise Reject(MISCONF, _NO_GPU_BACKEND)
    return accelerator


def _init_accelerator(accelerator: str, version: Version, hardware: Hardware) -> None:
    if accelerator == "tpu" and not _xla_installed(hardware):
        raise _xla_missing(version)  # TPUAccelerator()/XLAAccelerator() need torch_xla
    if not _available(accelerator, hardware):
        cls = _ACCELERATOR_CLASSES.get(accelerator) or (
            "TPUAccelerator" if version < V2_1 else "XLAAccelerator"
        )
        names = [name for name in _accelerator_names(version) if _available(name, hardware)]
        raise Reject(
            MISCONF,
            f"`{cls}` can not run on your system since the accelerator is not available. The following"
            " accelerator(s) is available and can be passed into `accelerator` argument of"
            f" `Trainer`: {names!r}.",
        )


def _num_nodes(value: Value, version: Version) -> int:
    if version >= V2_1:
        if not isinstance(value, int) or value < 1:
            raise Reject("ValueError", f"`num_nodes` must be a positive integer, but got {_str(value)}.")
        return int(value)
    if value is None:
        return 1
    return to_int(value)


# ---------------------------------------------------------------------------------------------------------
# 3. The devices: each accelerator's parse_devices + get_parallel_devices, as indices


def _auto_device_count(accelerator: str, version: Version, hardware: Hardware) -> int:
    if accelerator == "cuda":
        return hardware.cuda
    if accelerator == "tpu":
        return 8 if version < V2_1 else hardware.tpu_cores  # 2.0 assumed a v2/v3 pod slice
    return 1


def _parallel_devices(accelerator: str, devices: Value, version: Version, hardware: Hardware) -> list[int]:
    if devices == "auto":
        devices = _auto_device_count(accelerator, version, hardware)
    if accelerator == "cpu":
        return list(range(parse_cpu_cores(devices, version)))
    if accelerator == "tpu":
        return _parse_tpu_devices(devices, version, hardware)
    available = list(range(hardware.cuda)) if accelerator == "cuda" else [0]
    gpus = parse_gpu_ids(devices, available, version)
    if gpus is None:  # "[]" or " 0 " as a string slip through the connector's check
        raise Reject("TypeError", "'NoneType' object is not iterable")
    return gpus


def _parse_tpu_devices(devices: Value, version: Version, hardware: Hardware) -> list[int]:
    """1-based core choice 1..8 in 2.0 (``_parse_tpu_devices``); 0-based index of the TPU's cores from 2.1."""
    check_data_type(devices, version)
    parsed: Value = devices
    if isinstance(devices, str):
        parsed = _parse_tpu_string(devices.strip(), version)
    count = 8 if version < V2_1 else hardware.tpu_cores
    low, high = (1, 8) if version < V2_1 else (0, count - 1)
    if isinstance(parsed, int) and parsed in {1, count}:
        return list(range(parsed))
    if (
        isinstance(parsed, (list, tuple))
        and len(parsed) == 1
        and isinstance(parsed[0], int)
        and low <= parsed[0] <= high
    ):
        return [parsed[0]]
    if version < V2_1:
        raise Reject("TypeError", "`devices` can only be 1, 8 or [<1-8>] for TPUs.")
    raise Reject(
        "ValueError",
        f"`devices` can only be 'auto', 1, {count} or [<0-{count - 1}>] for TPUs. Got {_repr(parsed)}",
    )


def _parse_tpu_string(text: str, version: Version) -> Value:
    try:
        if version < V2_1:  # "1" and "8" are counts, anything else a list of indices (int() errors escape)
            return int(text) if text in ("1", "8") else _int_list(text)
    except ValueError as exc:
        raise Reject("ValueError", str(exc)) from None
    try:
        return int(text)
    except ValueError:
        try:
            return _int_list(text)
        except ValueError:
            raise Reject("ValueError", f"Could not parse the selected TPU devices: {text!r}") from None


def _int_list(text: str) -> list[Value]:
    return [int(part.strip()) for part in text.split(",") if len(part) > 0]


# ---------------------------------------------------------------------------------------------------------
# 4. The strategy


@dataclass(frozen=True)
class _Built:
    strategy: Strategy
    cls: str  # the class Lightning instantiated
    root: int | None = None  # single-device strategies: the index of the device they hold


def _choose_strategy(accelerator: str, devices: list[int], num_nodes: int, version: Version) -> str | _Built:
    if accelerator == "tpu":
        if len(devices) > 1:
            return "xla"
        cls = "SingleTPUStrategy" if version < V2_1 else "SingleDeviceXLAStrategy"
        return _Built(Strategy("single_xla"), cls, devices[0])  # an XLA ordinal (see interpret)
    if num_nodes > 1:
        return "ddp"
    if len(devices) <= 1:  # the root GPU for cuda/mps, else the CPU
        return _Built(
            Strategy("single_device"),
            "SingleDeviceStrategy",
            devices[0] if accelerator in ("cuda", "mps") else 0,
        )
    return "ddp"  # `ddp_fork` in a notebook


def _check_fsdp(strategy: Value | _Built, accelerator: str, version: Version) -> None:
    if isinstance(strategy, str):
        fsdp = registry.registered(version).get(strategy, Strategy("")).name == "fsdp"
    else:
        fsdp = isinstance(strategy, Obj) and strategy.cls == "FSDPStrategy"
    if not fsdp or accelerator in ("cuda", "gpu"):
        return
    if version < V2_3:
        raise Reject(MISCONF, "You selected strategy to be `fsdp`, but GPU accelerator is not used.")
    if version < V2_5_3:
        raise Reject("ValueError", f"The strategy `fsdp` requires a GPU accelerator, but got: {accelerator}")
    raise Reject(
        "ValueError",
        f"The strategy `fsdp` requires a GPU accelerator, but received `accelerator={accelerator!r}`."
        " Please set `accelerator='cuda'`, `accelerator='gpu'`, or pass a `CUDAAccelerator()` instance"
        " to use FSDP.",
    )


def _build(strategy: Value | _Built, version: Version, hardware: Hardware, warn: Warn) -> _Built:
    if isinstance(strategy, _Built):
        return strategy
    if isinstance(strategy, Obj):
        built = classes.strategy_of(strategy, version)
        if built.name not in _SINGLE_FAMILIES:
            return _Built(_fixed_start(built), strategy.cls)
        # the `device` it holds is Setup.devices, not an option
        options = tuple((key, value) for key, value in built.options if key != "device")
        device = _device_index(strategy.kw().get("device", "cpu"))
        return _Built(Strategy(built.name, options=options), strategy.cls, device)
    name = str(strategy)
    built = registry.resolve(_registered(version, hardware)[name], version)
    _check_constructible(built.name, {}, version, hardware, warn, single_tpu=name == "single_tpu")
    cpu = 0 if built.name == "single_device" else None  # SingleDeviceStrategy() holds "cpu"
    return _Built(_fixed_start(built), _STRATEGY_CLASSES.get(built.name, ""), cpu)


def _fixed_start(strategy: Strategy) -> Strategy:
    start = _FIXED_START_METHODS.get(strategy.name, strategy.start_method)
    return Strategy(strategy.name, start, strategy.find_unused_parameters, strategy.options)


def _device_index(device: Value) -> int:
    """The index a ``device=`` argument ends up at: ``"cuda:1"`` -> 1, ``"cpu"`` -> 0, an int as is."""
    if isinstance(device, int):
        return device
    if isinstance(device, str) and ":" in device:
        return to_int(device.split(":", 1)[1])
    return 0


# ---------------------------------------------------------------------------------------------------------
# 5. Precision and the checks on the built objects


def _check_precision(
    built: _Built,
    accelerator: str,
    value: str,
    given: Obj | None,
    version: Version,
    hardware: Hardware,
) -> Precision:
    """``_check_and_init_precision``: the precision plugin chosen, raising where it raises."""
    if version < V2_1 and accelerator == "tpu" and value == "64-true":
        raise Reject(
            MISCONF,
            "`Trainer(accelerator='tpu', precision='64-true')` is not implemented."
            " Please, open an issue in `https://github.com/Lightning-AI/lightning/issues`"
            " requesting this feature.",
        )
    if version < V2_1 and accelerator == "tpu" and given is not None:  # none of the modelled classes is TPU's
        raise Reject(
            "ValueError",
            "The `TPUAccelerator` can only be used with a `TPUPrecisionPlugin`,"
            f" found: <{given.cls} object>.",
        )
    if given is not None:
        return precision.construct(given, version, hardware)  # a precision plugin in `plugins`, used as is
    if version < V2_1 and accelerator == "tpu" and value in ("32-true", "16-mixed", "bf16-mixed"):
        return Precision() if value == "32-true" else precision.TPU_HALF  # TPU(Bf16)PrecisionPlugin
    table = _FAMILY_PRECISIONS if version >= V2_1 else _FAMILY_PRECISIONS_2_0
    if built.strategy.name in table:
        supported, message = table[built.strategy.name]
        if value not in supported:
            raise Reject(
                "ValueError", f"{message.format(p=value)} `precision` must be one of: {supported!r}."
            )
        return Precision(value)  # XLAPrecision / DeepSpeedPrecision / FSDPPrecision(precision)
    if value.startswith("transformer-engine") and not _installed(hardware, "transformer_engine"):
        raise _requirement_missing("transformer_engine>=0.11.0")
    if value not in _PLAIN_PRECISIONS:
        raise Reject("RuntimeError", "No precision set")
    if value == "16-mixed" and accelerator == "cpu":
        value = "bf16-mixed"  # "AMP with fp16 is not supported on CPU. Using `precision='bf16-mixed'`"
    if value.endswith("-mixed"):
        if built.strategy.name == "fsdp":  # 2.0's FSDPMixedPrecisionPlugin: FSDP's own autocast
            return Precision(value)
        # the autocast device: MPS only from 2.6 (#21209), before that every accelerator but the CPU is CUDA
        own = ("cpu", "mps") if version >= V2_6 else ("cpu",)
        return precision.mixed(value, accelerator if accelerator in own else "cuda")
    return Precision(value)


def _check_xla_plugins(built: _Built, plugins: list[Value], version: Version) -> None:
    """2.1+ XLA strategies' ``precision_plugin`` and ``checkpoint_io`` setters (``_lazy_init_strategy``) take
    only their XLA classes, which the model does not build: any other given one raises."""
    if version < V2_1 or built.strategy.name not in ("xla", "single_xla"):
        return
    xla = {classes.PRECISION: "XLAPrecision" if version >= V2_1_1 else "XLAPrecisionPlugin"}
    xla[classes.CHECKPOINT_IO] = "XLACheckpointIO"
    for kind in (classes.PRECISION, classes.CHECKPOINT_IO):
        given = next((p for p in plugins if isinstance(p, Obj) and classes.kind_of(p) == kind), None)
        if given is not None:
            raise Reject(
                "TypeError",
                f"The XLA strategy can only work with the `{xla[kind]}` plugin, found <{given.cls} object>",
            )


def _check_tpu_strategy(built: _Built, accelerator: str, version: Version) -> None:
    if accelerator == "tpu" and built.strategy.name not in ("xla", "single_xla"):
        if version < V2_1:
            expected = "The `TPUAccelerator` can only be used with a `SingleTPUStrategy` or `XLAStrategy`,"
        else:
            expected = (
                "The `XLAAccelerator` can only be used with a `SingleDeviceXLAStrategy` or `XLAStrategy`,"
            )
        raise Reject("ValueError", f"{expected} found {built.cls}.")


# ---------------------------------------------------------------------------------------------------------


def connect(flags: dict[str, Value], version: Version, hardware: Hardware, warn: Warn) -> Setup:
    _construct_objects(list(flags.values()), version, hardware, warn)
    strategy = flags.get("strategy", "auto")
    strategy = strategy.lower() if isinstance(strategy, str) else strategy
    accelerator = flags.get("accelerator", "auto")
    plugins = _plugin_list(flags.get("plugins"), version)
    _check_strategy_name(strategy, version, hardware)
    _check_accelerator_name(accelerator, version)
    _check_mps(strategy, accelerator, hardware)
    precision = _precision(flags.get("precision", "32-true" if version < V2_1 else None), version, warn)
    kinds = (
        _check_plugins(plugins, version, precision, flags.get("sync_batchnorm", False)) if plugins else set()
    )
    accelerator = _instance_accelerator(strategy, accelerator, kinds)
    resolved = _str(_resolve_accelerator(accelerator, version, hardware))
    num_nodes = _num_nodes(flags.get("num_nodes", 1), version)
    devices_flag = flags.get("devices", "auto")
    if devices_flag in ([], 0, "0"):
        raise Reject(
            MISCONF,
            f"`Trainer(devices={_repr(devices_flag)})` value is not a valid input"
            f" using {resolved} accelerator.",
        )
    _init_accelerator(resolved, version, hardware)
    devices = _parallel_devices(resolved, devices_flag, version, hardware)
    chosen = _choose_strategy(resolved, devices, num_nodes, version) if strategy == "auto" else strategy
    _check_fsdp(chosen, resolved, version)
    built = _build(chosen, version, hardware, warn)
    given = next((p for p in plugins if isinstance(p, Obj) and classes.kind_of(p) == classes.PRECISION), None)
    trained = _check_precision(built, resolved, precision or "32-true", given, version, hardware)
    _check_xla_plugins(built, plugins, version)
    _check_tpu_strategy(built, resolved, version)
    if built.root is not None:
        return Setup(resolved, (built.root,), built.strategy, precision=trained)
    if built.strategy.name == "fsdp" and version < V2_0_2:
        # 2.0.0/2.0.1 set `strategy._num_nodes`, which FSDPStrategy (a plain `num_nodes = 1`) never reads
        num_nodes = 1
    return Setup(resolved, tuple(devices), built.strategy, num_nodes=num_nodes, precision=trained)
