"""Precision per release: the precision plugin classes, their constructors, and what they train with.

A call says its precision two ways: the ``precision=``/``amp_backend=``/``amp_level=`` flags, from which the
release selects a plugin (the era modules follow each release's selection), or a precision plugin object in
``plugins=``, which the release uses as it is and which skips the selection (and its checks) entirely. Both
are read into the release-independent ``Precision`` of the Setup, so that ``precision=16`` in 1.9 and
``precision="16-mixed"`` in 2.6, or ``NativeMixedPrecisionPlugin()`` in 1.4 and
``MixedPrecision("16-mixed", "cuda")`` in 2.6, compare equal exactly when they train the same.

The classes were renamed twice: ``NativeMixedPrecisionPlugin`` (no arguments in 1.4, ``(precision, device,
scaler=None)`` from 1.5) became ``MixedPrecisionPlugin`` in 1.9 (the old name a deprecated subclass until
2.0), and every ``*PrecisionPlugin`` became ``*Precision`` at 2.1.1 (the old names deprecated aliases built by
``_graveyard/precision.py``, whose ``__init__(*args, **kwargs)`` forwards to the new class).
"""

from __future__ import annotations

from dataclasses import dataclass

from lightning_migrate.semantics.model import MISCONF, Hardware, Obj, Precision, Reject, Value, Version, v

V14, V15, V17, V19, V20, V2_1, V2_1_1 = (v(x) for x in ("1.4", "1.5", "1.7", "1.9", "2.0", "2.1", "2.1.1"))

# What a class does with its arguments: plain 32-bit, double, torch AMP, NVIDIA Apex AMP, half (2.1+).
PLAIN, DOUBLE, MIXED, APEX, HALF = "plain", "double", "mixed", "apex", "half"


@dataclass(frozen=True)
class Constructor:
    """The ``__init__`` that runs when a class is called: its owner (named in Python's TypeErrors; None for
    ``object.__init__``) and its parameters in order, each with whether it is required."""

    owner: str | None
    params: tuple[tuple[str, bool], ...] = ()


_AMP_PARAMS = (("precision", True), ("device", True), ("scaler", False))


@dataclass(frozen=True)
class PrecisionClass:
    name: str
    kind: str
    since: Version
    until: Version | None  # first release where importing it fails
    constructors: tuple[tuple[Version, Constructor], ...]  # newest first
    deprecated: tuple[Version, str] | None = None  # (from, the warning its constructor gives)

    def exists_in(self, version: Version) -> bool:
        return self.since <= version and (self.until is None or version < self.until)

    def constructor(self, version: Version) -> Constructor:
        return next(c for since, c in self.constructors if version >= since)


def _graveyard(old: str, new: str) -> tuple[Version, str]:
    return V2_1_1, f"The `{old}` is deprecated. Use `pytorch_lightning.plugins.precision.{new}` instead."


# Exported from `<root>.plugins` (checked by tests/real/test_registry.py; the constructors by
# tests/real/test_plugins_real.py with inspect.signature).
CLASSES: tuple[PrecisionClass, ...] = (
    PrecisionClass(
        "PrecisionPlugin",
        PLAIN,
        V14,
        None,
        ((V14, Constructor(None)),),  # no __init__ of its own
        _graveyard("PrecisionPlugin", "Precision"),
    ),
    PrecisionClass(
        "DoublePrecisionPlugin",
        DOUBLE,
        V14,
        None,
        ((V14, Constructor(None)),),  # no __init__ of its own
        _graveyard("DoublePrecisionPlugin", "DoublePrecision"),
    ),
    PrecisionClass(
        "NativeMixedPrecisionPlugin",
        MIXED,
        V14,
        V20,
        (
            (V19, Constructor("MixedPrecisionPlugin", _AMP_PARAMS)),  # a subclass that warns and forwards
            (V15, Constructor("NativeMixedPrecisionPlugin", _AMP_PARAMS)),
            (V14, Constructor("NativeMixedPrecisionPlugin")),  # fp16 on CUDA, nothing to choose
        ),
        (
            V19,
            "The `NativeMixedPrecisionPlugin` class has been renamed in v1.9.0 and will be removed in v2.0.0."
            " Please use `pytorch_lightning.plugins.MixedPrecisionPlugin` instead.",
        ),
    ),
    PrecisionClass(
        "MixedPrecisionPlugin",
        MIXED,
        V19,
        None,
        (
            (V2_1_1, Constructor("MixedPrecision", _AMP_PARAMS)),
            (V19, Constructor("MixedPrecisionPlugin", _AMP_PARAMS)),
        ),
        _graveyard("MixedPrecisionPlugin", "MixedPrecision"),
    ),
    PrecisionClass(
        "ApexMixedPrecisionPlugin",
        APEX,
        V14,
        V20,
        ((V14, Constructor("ApexMixedPrecisionPlugin", (("amp_level", False),))),),
    ),
    PrecisionClass("Precision", PLAIN, V2_1_1, None, ((V2_1_1, Constructor(None)),)),
    PrecisionClass("DoublePrecision", DOUBLE, V2_1_1, None, ((V2_1_1, Constructor(None)),)),
    PrecisionClass(
        "MixedPrecision", MIXED, V2_1_1, None, ((V2_1_1, Constructor("MixedPrecision", _AMP_PARAMS)),)
    ),
)

_BY_NAME = {row.name: row for row in CLASSES}


def lookup(name: str) -> PrecisionClass | None:
    return _BY_NAME.get(name)


def deprecation(obj: Obj, version: Version) -> str | None:
    row = lookup(obj.cls)
    if row is None or row.deprecated is None or not row.exists_in(version) or version < row.deprecated[0]:
        return None
    return row.deprecated[1]


def construct(obj: Obj, version: Version, hardware: Hardware) -> Precision:
    """Build ``obj`` as ``version`` does (Python's argument binding, then the ``__init__`` body) and say what
    it trains with. The caller has checked that ``version`` exports the class."""
    row = _BY_NAME[obj.cls]
    kwargs = obj.kw()
    _bind(row, obj, version)
    if row.kind == PLAIN:
        return Precision()
    if row.kind == DOUBLE:
        return Precision("64-true")
    if row.kind == APEX:
        if version >= V15 and "apex" not in hardware.installed:
            installed = "you have not installed it" if version < V17 else "`apex` is not installed"
            raise Reject(
                MISCONF,
                f"You have asked for Apex AMP but {installed}."
                " Install `apex` using this guide: https://github.com/NVIDIA/apex",
            )
        return Precision("16-mixed", "apex", str(kwargs.get("amp_level", "O2")))
    if version < V15:  # 1.4: torch.cuda.amp with float16
        return Precision("16-mixed", device="cuda")
    precision = kwargs["precision"]
    if version >= V20 and precision not in ("16-mixed", "bf16-mixed"):
        raise Reject(
            "ValueError",
            f"`Passed `{obj.cls}(precision={_repr(precision)})`."
            " Precision must be '16-mixed' or 'bf16-mixed'.",
        )
    return mixed(precision, str(kwargs["device"]))


def _bind(row: PrecisionClass, obj: Obj, version: Version) -> None:
    # a graveyard alias calls object.__init__ with the arguments itself
    alias = row.deprecated is not None and version >= row.deprecated[0]
    bind(row.constructor(version), obj, alias)


def bind(constructor: Constructor, obj: Obj, alias: bool = False) -> None:
    """The TypeError Python raises when ``obj``'s keywords do not fit the constructor (``alias``: the class
    is a forwarding alias whose ``__init__`` hands the arguments on)."""
    names = [name for name, _ in constructor.params]
    for key, _ in obj.kwargs:
        if key not in names:
            if constructor.owner is None:
                message = (
                    "object.__init__() takes exactly one argument (the instance to initialize)"
                    if alias
                    else f"{obj.cls}() takes no arguments"
                )
                raise Reject("TypeError", message)
            raise Reject(
                "TypeError", f"{constructor.owner}.__init__() got an unexpected keyword argument {key!r}"
            )
    missing = [name for name, required in constructor.params if required and name not in obj.kw()]
    if missing:
        quoted = [repr(name) for name in missing]
        listed = (
            quoted[0]
            if len(quoted) == 1
            else f"{', '.join(quoted[:-1])}{',' if len(quoted) > 2 else ''} and {quoted[-1]}"
        )
        plural = "s" if len(missing) > 1 else ""
        raise Reject(
            "TypeError",
            f"{constructor.owner}.__init__() missing {len(missing)} required positional"
            f" argument{plural}: {listed}",
        )


def _repr(value: Value) -> str:
    return f"<{value.cls} object>" if isinstance(value, Obj) else repr(value)


# --- what the flags select ---------------------------------------------------------------------------------

# 1.x `precision=` values in 2.x's words (`_convert_precision_to_unified_args`); "mixed" is 1.4/1.5's
# MixedPrecisionPlugin.precision, float16 AMP.
_UNIFIED = {"32": "32-true", "64": "64-true", "16": "16-mixed", "bf16": "bf16-mixed", "mixed": "16-mixed"}


def unified(precision: Value) -> str:
    text = str(precision)
    return _UNIFIED.get(text, text)


def mixed(precision: Value, device: str) -> Precision:
    """torch AMP: float16 unless bfloat16 is asked for (the dtype ``autocast_context_manager`` picks)."""
    value = "bf16-mixed" if str(precision).startswith("bf16") else "16-mixed"
    return Precision(value, device=device)


def apex(level: Value) -> Precision:
    return Precision("16-mixed", "apex", str(level or "O2"))


# 1.x TPU half precision is XLA_USE_BF16=1: every float tensor in bfloat16, 2.1's "bf16-true".
TPU_HALF = Precision("bf16-true")


def of_flag(value: str) -> Precision:
    """A precision plugin built from a 2.x precision value that is not native AMP."""
    return Precision(value)
