"""Lightning's ``device_parser`` from 1.6 on (``pytorch_lightning.utilities``, then ``lightning_lite`` 1.8 and
``lightning_fabric`` 1.9+): how ``devices``/``gpus`` values become device indices, shared by the 1.6 and 2.x
connector models. (1.4/1.5 parse ``gpus`` their own way, see ``era_1_4``.)"""

from __future__ import annotations

from lightning_migrate.semantics.model import MISCONF, Obj, Reject, Value, Version, v

V17, V18, V21 = v("1.7"), v("1.8"), v("2.1")


def to_int(value: Value) -> int:
    """``int(value)``, with Python's own errors."""
    if isinstance(value, (bool, int, float)):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError as exc:
            raise Reject("ValueError", str(exc)) from None
    kind = "NoneType" if value is None else type_name(value)
    raise Reject(
        "TypeError", f"int() argument must be a string, a bytes-like object or a real number, not '{kind}'"
    )


def type_name(value: Value) -> str:
    return value.cls if isinstance(value, Obj) else type(value).__name__


def check_data_type(devices: Value, version: Version) -> None:
    """``_check_data_type``: 1.6's loose check, 1.7's per-item check, 2.1's TypeError that refuses None."""
    if devices is None:
        if version >= V21:
            raise Reject(
                "TypeError",
                "Device IDs (GPU/TPU) must be an int, a string, a sequence of ints, but you passed None",
            )
        return
    if version < V17:
        if not isinstance(devices, (int, str, list, tuple)) or isinstance(devices, bool):
            raise Reject(MISCONF, "Device ID's (GPU/TPU) must be int, string or sequence of ints or None.")
        return
    error = MISCONF if version < V21 else "TypeError"
    msg = "Device IDs (GPU/TPU) must be an int, a string, a sequence of ints"
    msg += " or None, but you passed" if version < V21 else ", but you passed"
    if isinstance(devices, (list, tuple)):
        for item in devices:
            if type(item) is not int:
                raise Reject(error, f"{msg} a sequence of {type_name(item)}.")
    elif type(devices) not in (int, str):
        raise Reject(error, f"{msg} {type_name(devices) if version < V21 else _repr(devices)}.")


def _repr(value: Value) -> str:
    return repr(value) if not isinstance(value, Obj) else f"<{value.cls} object>"


def parse_gpu_ids(devices: Value, available: list[int], version: Version) -> list[int] | None:
    """``parse_gpu_ids``: None for no GPUs, else the indices, each checked against the machine."""
    check_data_type(devices, version)
    if devices is None or (isinstance(devices, int) and devices == 0) or str(devices).strip() in ("0", "[]"):
        return None
    gpus: int | list[int]
    if isinstance(devices, str):
        gpus = _parse_gpu_string(devices)
    elif isinstance(devices, (list, tuple)):
        gpus = [to_int(item) for item in devices]  # 1.6 lets strings through its check; int() them
    else:
        gpus = to_int(devices)
    if isinstance(gpus, int):  # -1: every GPU, n: the first n
        gpus = available if gpus == -1 else list(range(gpus))
    if not gpus:
        raise Reject(MISCONF, "GPUs requested but none are available.")
    if len(gpus) != len(set(gpus)):
        raise Reject(MISCONF, "Device ID's (GPU) must be unique.")
    if any(gpu not in available for gpu in gpus):
        raise Reject(MISCONF, f"You requested gpu: {gpus}\n But your machine only has: {available}")
    return gpus


def _parse_gpu_string(text: str) -> int | list[int]:
    if text == "-1":
        return -1
    if "," in text:
        return [to_int(part.strip()) for part in text.split(",") if len(part) > 0]
    return to_int(text.strip())


def parse_cpu_cores(devices: Value, version: Version) -> int:
    if isinstance(devices, str) and devices.strip().isdigit():
        devices = int(devices)
    if not isinstance(devices, int) or devices <= 0:
        error = "TypeError" if version >= V18 else MISCONF  # lightning_lite's parser (1.8) raises TypeError
        raise Reject(error, "`devices` selected with `CPUAccelerator` should be an int > 0.")
    return devices
