"""A pure-Python model of the hardware/distribution flags of every Lightning release from 1.4 to 2.6.

No libcst, torch or Lightning import here: the codemod and the runtime shim both stand on this package.
"""

from lightning_migrate.semantics.interpret import interpret
from lightning_migrate.semantics.model import (
    CPU_ONLY,
    Deprecation,
    Flags,
    Hardware,
    Interpretation,
    Obj,
    Outcome,
    Precision,
    Rejected,
    Setup,
    Strategy,
    Unmodelled,
    Value,
    Version,
)

__all__ = [
    "CPU_ONLY",
    "Deprecation",
    "Flags",
    "Hardware",
    "Interpretation",
    "Obj",
    "Outcome",
    "Precision",
    "Rejected",
    "Setup",
    "Strategy",
    "Unmodelled",
    "Value",
    "Version",
    "interpret",
]
