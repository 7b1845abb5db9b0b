"""The vocabulary of the model: what goes into a Trainer call and what comes out of it.

Everything here is plain, hashable data so that setups can be compared across releases: a migration is
correct exactly when ``interpret(new, target) == interpret(old, source)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, Union

# A keyword value as it can be written in a Trainer call: literals, lists of them, and Lightning objects.
Value = Union[None, bool, int, float, str, "Obj", tuple["Value", ...], list["Value"]]
Flags = Mapping[str, Value]


@dataclass(frozen=True)
class Obj:
    """A Lightning object written in a call, e.g. ``DDPPlugin(find_unused_parameters=False)``.

    ``cls`` is the class name as Lightning exports it; ``kwargs`` are the constructor keywords, sorted.
    Positional arguments are not representable on purpose: their meaning changed between releases.
    """

    cls: str
    kwargs: tuple[tuple[str, Value], ...] = ()

    def __post_init__(self) -> None:
        # an argument written as a list (`parallel_devices=[0, 1]`) is held as a tuple: objects end up in
        # setups, which are compared and hashed
        if any(isinstance(value, (list, tuple)) for _, value in self.kwargs):
            object.__setattr__(self, "kwargs", tuple((k, _frozen(value)) for k, value in self.kwargs))

    @staticmethod
    def of(name: str, **kwargs: Value) -> Obj:
        return Obj(name, tuple(sorted(kwargs.items())))

    def kw(self) -> dict[str, Value]:
        return dict(self.kwargs)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs)
        return f"{self.cls}({args})"


def _frozen(value: Value) -> Value:
    return tuple(_frozen(item) for item in value) if isinstance(value, (list, tuple)) else value


class Version(NamedTuple):
    """A Lightning release. (A named tuple: the planner compares and hashes releases by the million, and a
    tuple does both in C.)"""

    major: int
    minor: int
    patch: int = 0

    @staticmethod
    def parse(text: str) -> Version:
        """Parse '1.9', '1.9.5', '1.5.10.post0' or '2.6.6+cpu' (suffixes never change flag behaviour)."""
        match = re.match(r"\s*v?(\d+)\.(\d+)(?:\.(\d+))?", text)
        if not match:
            raise ValueError(f"not a Lightning version: {text!r}")
        major, minor, patch = match.groups()
        return Version(int(major), int(minor), int(patch or 0))

    @property
    def minor_line(self) -> str:
        return f"{self.major}.{self.minor}"

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


def v(text: str) -> Version:
    return Version.parse(text)


@dataclass(frozen=True)
class Hardware:
    """What the machine offers; several Lightning defaults depend on it."""

    cuda: int = 0
    tpu_cores: int = 0
    mps: bool = False
    # Optional packages some strategies need (deepspeed, fairscale, horovod): absent ones raise.
    installed: frozenset[str] = frozenset()

    def describe(self) -> str:
        parts = []
        if self.cuda:
            parts.append(f"{self.cuda} CUDA GPU{'s' if self.cuda != 1 else ''}")
        if self.tpu_cores:
            parts.append(f"TPU ({self.tpu_cores} cores)")
        if self.mps:
            parts.append("Apple MPS")
        machine = " + ".join(parts) or "CPU only"
        return f"{machine} with {', '.join(sorted(self.installed))}" if self.installed else machine


CPU_ONLY = Hardware()
# The optional packages whose strategies the model judges by `Hardware.installed`.
OPTIONAL_PACKAGES = frozenset({"deepspeed", "fairscale", "horovod"})


@dataclass(frozen=True)
class Strategy:
    """A training strategy reduced to what changes behaviour.

    ``name`` is a family that is stable across releases (``ddp`` is DDPPlugin in 1.4 and DDPStrategy in 2.6;
    ``fairscale_fsdp`` and ``fsdp`` are different things even though both were spelled ``"fsdp"``).
    """

    name: str
    start_method: str | None = None  # ddp family: "popen" (re-runs the script), "spawn" or "fork"
    find_unused_parameters: bool | None = None  # ddp family: the value torch DDP will get
    options: tuple[tuple[str, Value], ...] = ()  # other behaviour-changing options, sorted

    def option(self, key: str) -> Value:
        return dict(self.options).get(key)

    def __str__(self) -> str:
        parts = []
        if self.start_method:
            parts.append(f"start_method={self.start_method}")
        if self.find_unused_parameters is not None:
            parts.append(f"find_unused_parameters={self.find_unused_parameters}")
        parts.extend(f"{k}={v!r}" for k, v in self.options)
        return f"{self.name}({', '.join(parts)})" if parts else self.name


@dataclass(frozen=True)
class Precision:
    """What a Trainer trains with, in a form that is stable across releases.

    ``value`` is 2.x's spelling of the effective precision (``"32-true"``, ``"64-true"``, ``"16-mixed"``,
    ``"bf16-mixed"``, ``"16-true"``, ``"bf16-true"``, ``"transformer-engine"``, ...): 1.x ``precision=16``
    with native AMP is ``"16-mixed"``, and 1.x TPU half precision (``XLA_USE_BF16``) is ``"bf16-true"``.
    ``backend`` is the mixed-precision implementation (torch's ``"native"`` AMP or NVIDIA ``"apex"``, with its
    ``amp_level``); ``device`` is the device type torch's autocast runs on (native mixed precision only).
    Which plugin class carries it follows from the strategy (DeepSpeed, FSDP, sharded and XLA strategies
    have their own), so it is not repeated here.
    """

    value: str = "32-true"
    backend: str = "native"
    amp_level: str | None = None
    device: str | None = None

    def __str__(self) -> str:
        parts = [self.value]
        if self.backend != "native":
            parts.append(f"{self.backend} {self.amp_level}" if self.amp_level else self.backend)
        if self.device:
            parts.append(f"on {self.device}")
        return " ".join(parts)


FULL_PRECISION = Precision()


@dataclass(frozen=True)
class Setup:
    """What a Trainer ends up with."""

    accelerator: str  # cpu | cuda | tpu | mps | ipu | hpu
    devices: tuple[int, ...]  # device indices used by this node (CPU: one entry per process)
    strategy: Strategy
    num_nodes: int = 1
    plugins: tuple[Obj, ...] = ()  # checkpoint-IO, environment and other plugins, as given
    precision: Precision = FULL_PRECISION  # the precision plugin's effect (a given one is read into it)

    @property
    def num_devices(self) -> int:
        return len(self.devices)

    @property
    def world_size(self) -> int:
        return self.num_devices * self.num_nodes


@dataclass(frozen=True)
class Rejected:
    """The exception a release raises for a call (class name and message)."""

    error: str
    message: str

    def __str__(self) -> str:
        return f"{self.error}: {self.message}"


Outcome = Union[Setup, Rejected]


@dataclass(frozen=True)
class Deprecation:
    flag: str
    message: str


@dataclass
class Interpretation:
    """``interpret``'s full answer: the outcome plus the deprecation warnings the release emits."""

    outcome: Outcome
    deprecations: list[Deprecation] = field(default_factory=list)


class Reject(Exception):
    """Raised inside the model where the release raises; turned into ``Rejected`` at the boundary."""

    def __init__(self, error: str, message: str) -> None:
        super().__init__(message)
        self.rejected = Rejected(error, message)


class Unmodelled(Exception):
    """A value the model does not judge (``num_nodes=None``, ``strategy=True``, a billion processes): a
    refusal, never a guess. ``interpret`` raises it instead of answering; the codemod reports it (LM104) and
    the shim hands the call to the real Trainer as written, which then does what it does with it."""

    def __init__(self, flag: str, value: Value, expected: str) -> None:
        super().__init__(f"the model does not judge `{flag}={value!r}`: it only models {expected}")
        self.flag, self.value, self.expected = flag, value, expected


MISCONF = "MisconfigurationException"


# The last patch release of every minor line the model covers: what `inspect` shows, newest last.
RELEASES: tuple[Version, ...] = tuple(
    Version.parse(text)
    for text in (
        "1.4.9",
        "1.5.10",
        "1.6.5",
        "1.7.7",
        "1.8.6",
        "1.9.5",
        "2.0.9",
        "2.1.4",
        "2.2.5",
        "2.3.3",
        "2.4.0",
        "2.5.6",
        "2.6.6",
    )
)


def release(text: str | Version) -> Version:
    """A version as the model should read it: a bare minor line ('2.6') means its last patch release."""
    version = Version.parse(text) if isinstance(text, str) else text
    explicit_patch = isinstance(text, Version) or text.count(".") >= 2
    if explicit_patch:
        return version
    return next((r for r in RELEASES if (r.major, r.minor) == (version.major, version.minor)), version)
