"""The accelerator connector of Lightning 1.4 (placeholder until modelled)."""

from __future__ import annotations

from typing import Callable

from .model import Hardware, Reject, Setup, Value, Version


def connect(
    flags: dict[str, Value], version: Version, hardware: Hardware, warn: Callable[[str, str], None]
) -> Setup:
    raise Reject("NotModelled", "")
