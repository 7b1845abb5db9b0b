"""What the shim hands the installed Trainer: pure flag translation with the semantics model, no Lightning.

A call the installed release builds without a deprecation warning keeps that release's meaning: it goes to
the Trainer as written. Any other call (an old spelling, a flag the release lacks, a value it rejects) gets
its *new-style meaning*: what Lightning 1.5.10 builds from it (``REFERENCE``): the first release
with ``strategy=``, the one whose connector holds the conflict checks the shim promises everywhere, and the
last one where ``strategy="ddp_spawn", accelerator="tpu"`` means the TPU spawn strategy. The shim takes that
``Setup`` from ``interpret`` and asks ``render`` for the flags the installed release needs to build it, so
the rules live in the model only. Where the model has no answer (a value 1.5 did not know, a setup the
installed release cannot build) the call goes to the real Trainer as given: it decides, the shim does
not guess.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from lightning_migrate.semantics import Hardware, Obj, Rejected, Setup, Value, Version, interpret
from lightning_migrate.semantics.classes import CLASSES, STRATEGY, kind_of, strategy_of
from lightning_migrate.semantics.model import MISCONF, Reject, Unmodelled
from lightning_migrate.semantics.registry import DISTRIBUTED_TYPES, registered
from lightning_migrate.semantics.render import Inexpressible, render
from lightning_migrate.semantics.signature import DEFAULTS, accepts
from lightning_migrate.semantics.signature import equals_default as is_default

REFERENCE = Version(1, 5, 10)
V15 = Version(1, 5)

# The hardware/distribution keywords the shim translates; every other Trainer keyword passes untouched.
TRANSLATED = frozenset(
    (
        "accelerator",
        "strategy",
        "distributed_backend",
        "plugins",
        "devices",
        "num_nodes",
        "gpus",
        "tpu_cores",
        "ipus",
        "num_processes",
    )
)

# Strategy families whose launcher the release picks, not the user (TPU spawn: xmp.spawn with "spawn" up to
# 1.6, "fork" from 1.7): any start method the installed release uses for them is the same choice.
LAUNCHER_CHOSEN_BY_RELEASE = frozenset({"xla"})
START_METHODS = ("popen", "spawn", "fork")

# The shim's deprecated spellings: flag -> what to write instead. A value in ``NOT_A_SPELLING`` is what
# `Trainer.from_argparse_args` passes for a flag nobody set, so it is no use of the flag.
ADVICE = {
    "distributed_backend": "pass the strategy as `strategy=` and the hardware as `accelerator=`/`devices=`",
    "accelerator": "pass the strategy as `strategy=`; `accelerator=` names the hardware",
    "plugins": "pass the strategy as `strategy=`",
    "gpus": "use `accelerator='gpu', devices=...`",
    "tpu_cores": "use `accelerator='tpu', devices=...`",
    "ipus": "use `accelerator='ipu', devices=...`",
    "num_processes": "use `accelerator='cpu', devices=...`",
}
NOT_A_SPELLING: dict[str, tuple[Value, ...]] = {"num_processes": (None, 1)}

Flags = dict[str, Value]


@dataclass(frozen=True)
class Deprecated:
    """One deprecated spelling in a call, with the warning the shim gives for it."""

    flag: str
    value: Value
    message: str


@dataclass
class Translation:
    """The shim's answer: the translated flags for the installed Trainer (``Obj`` values stand for the
    user's own objects), or the exception to raise; plus the deprecated spellings and how it decided."""

    outcome: Flags | Rejected
    deprecated: list[Deprecated] = field(default_factory=list)
    how: str = ""
    meaning: Setup | None = None  # what Lightning 1.5.10 builds from the call, where the shim asked it


def given_flags(kwargs: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The ``TRANSLATED`` keywords a call really gives: those not at their default. ``defaults`` are the
    installed release's own (``devices="auto"`` on 2.x); a keyword it lacks defaults to None, as in the
    shim's signature (``gpus=None`` on 2.x). Dropping a keyword at its default changes nothing for the
    release, and keeps ``devices="auto"`` from reading as a device count beside ``num_processes=2``."""
    return {k: val for k, val in kwargs.items() if k in TRANSLATED and not is_default(val, defaults.get(k))}


def translate(flags: Flags, installed: Version, hardware: Hardware, namespace: str) -> Translation:
    """Translate the ``TRANSLATED`` keywords of a call for Lightning ``installed`` on ``hardware``."""
    given = {k: val for k, val in flags.items() if k in TRANSLATED}
    spellings = deprecated_spellings(given)
    try:
        result = _translate(dict(given), installed, hardware, namespace)
    except Unmodelled as refusal:  # the model has no answer: the real Trainer decides, as for any user
        result = passthrough(given, installed, str(refusal))
    built = not isinstance(result.outcome, Rejected) and result.how.startswith("built")
    suggestion = f" Lightning {installed}: {call(result)}" if built else ""
    result.deprecated = [
        Deprecated(flag, val, f"`Trainer({flag}={val!r})` is deprecated: {ADVICE[flag]}.{suggestion}")
        for flag, val in spellings
    ]
    return result


@dataclass(frozen=True)
class Unbuilt:
    """A call whose setup Lightning 1.5.10 builds on a machine, and the shim's Trainer does not on the
    release it runs on: what 1.5.10 builds, and what the shim's Trainer raises there (its own check, or the
    release's rejection of the flags the shim hands it as written)."""

    meaning: Setup
    raised: Rejected
    hardware: Hardware


def unbuilt(flags: Flags, installed: Version, hardware: Hardware, namespace: str) -> Unbuilt | None:
    """Whether the shim's Trainer fails on Lightning ``installed`` (the codemod's target) on ``hardware`` for
    a call that gives the ``TRANSLATED`` keywords of ``flags`` (model values, each at a default of no
    release's left out as the shim leaves it: ``given_flags``), where Lightning 1.5.10 builds it: the
    shim's own answer (``translate``), then what ``installed`` does with the flags it hands on. None where
    it builds, where 1.5.10 does not either (the call fails before any migration) or where the model has
    no answer."""
    given = {k: val for k, val in flags.items() if k in TRANSLATED and not _at_default(k, val)}
    try:
        result = translate(given, installed, hardware, namespace)
        if result.meaning is None:
            return None
        handed = result.outcome
        built = handed if isinstance(handed, Rejected) else interpret(handed, installed, hardware, namespace)
    except (Unmodelled, ValueError):
        return None
    raised = built if isinstance(built, Rejected) else built.outcome
    return Unbuilt(result.meaning, raised, hardware) if isinstance(raised, Rejected) else None


def _at_default(flag: str, value: Value) -> bool:
    """``value`` is the installed release's default of ``flag`` (for the shim, which reads the installed
    signature): None for the keywords 2.x lacks, and every default a release has had, as far as the shim
    is concerned (``given_flags``)."""
    return is_default(value, None) or any(is_default(value, d) for d in DEFAULTS.get(flag, ()))


def call(result: Translation) -> str:
    outcome = result.outcome
    assert not isinstance(outcome, Rejected)
    return "Trainer(" + ", ".join(f"{k}={val!r}" for k, val in outcome.items()) + ")"


def _translate(given: Flags, installed: Version, hardware: Hardware, namespace: str) -> Translation:
    if _native(given, installed, hardware, namespace):
        return Translation(
            dict(given), how=f"as written: Lightning {installed} builds it without a deprecation"
        )
    if "distributed_backend" in given:
        backend = given.pop("distributed_backend")
        strategy = given.get("strategy")
        if backend is not None and strategy is not None:
            return Translation(Rejected(MISCONF, backend_conflict(strategy, backend)), how="conflict check")
        if backend is not None:  # what 1.4 did with it: the training type, beating `accelerator`
            given["accelerator"] = backend
    try:
        reference_flags = {k: reference_value(val, installed) for k, val in given.items()}
    except Reject:
        return passthrough(given, installed, "an object Lightning 1.5 has no counterpart for")
    meaning = interpret(reference_flags, REFERENCE, hardware, namespace).outcome
    if isinstance(meaning, Rejected):
        if mixes_strategy_with_old_spelling(given):
            return Translation(meaning, how="conflict check")
        unknown = [k for k, val in given.items() if val is not None and not accepts(k, installed)]
        if unknown:  # the release would only say it has no such keyword: 1.5.10's reason is the better one
            return Translation(meaning, how=f"Lightning {REFERENCE} rejects it; {installed} lacks {unknown}")
        return passthrough(given, installed, f"Lightning {REFERENCE} rejects it ({meaning.error})")
    return replace(_built(given, meaning, installed, hardware, namespace), meaning=meaning)


def _built(
    given: Flags, meaning: Setup, installed: Version, hardware: Hardware, namespace: str
) -> Translation:
    """The flags for ``installed`` that build ``meaning``, what 1.5.10 builds from ``given``."""
    if not _modelled(installed):
        return passthrough(given, installed, f"Lightning {installed} is outside the model")
    for setup in _same_choice(meaning):
        rendered = render(setup, installed)
        if isinstance(rendered, Inexpressible):
            continue
        placed = _keep_user_object(rendered, _strategy_object(given), setup, installed, hardware)
        if placed is not None:
            return Translation(placed, how=f"built as Lightning {REFERENCE} builds it")
    return passthrough(given, installed, f"Lightning {installed} cannot build {meaning.strategy}")


def _native(given: Flags, installed: Version, hardware: Hardware, namespace: str) -> bool:
    """Code already written for the installed release keeps that release's own meaning (its defaults, such
    as 2.0's ``find_unused_parameters=False``): the shim only translates what the release deprecates,
    removed or rejects."""
    if deprecated_spellings(given) or "distributed_backend" in given or not _modelled(installed):
        return False
    result = interpret(given, installed, hardware, namespace)
    return isinstance(result.outcome, Setup) and not any(d.flag in TRANSLATED for d in result.deprecations)


def backend_conflict(strategy: Value, backend: Value) -> str:
    """The check 1.5 planned for `distributed_backend` (it removed the flag instead): the wording of its
    `accelerator` check."""
    return (
        f"You have passed `Trainer(strategy={strategy!r})` but have also passed"
        f" `Trainer(distributed_backend={backend!r})`."
        f" HINT: Use just `Trainer(strategy={strategy!r})` instead."
    )


def deprecated_spellings(given: Flags) -> list[tuple[str, Value]]:
    found = []
    for flag in ADVICE:
        value = given.get(flag)
        if value in NOT_A_SPELLING.get(flag, (None,)):
            continue
        if flag == "accelerator" and not is_training_type(value):
            continue
        if flag == "plugins" and not any(is_training_type(item) for item in as_list(value)):
            continue
        found.append((flag, value))
    return found


def is_training_type(value: Value) -> bool:
    """A strategy written where 1.4 put it: a training-type name or a strategy object."""
    if isinstance(value, str):
        name = value.lower()
        return name in DISTRIBUTED_TYPES or name == "ddp_cpu" or name in registered(REFERENCE)
    return isinstance(value, Obj) and kind_of(value) == STRATEGY


def mixes_strategy_with_old_spelling(given: Flags) -> bool:
    """`strategy=` beside a training type in `accelerator=`/`plugins=`: what the conflict checks are for."""
    if given.get("strategy") is None:
        return False
    return is_training_type(given.get("accelerator")) or any(
        is_training_type(item) for item in as_list(given.get("plugins"))
    )


def passthrough(given: Flags, installed: Version, why: str) -> Translation:
    """The call as written for the real Trainer to decide, with a strategy object moved to where the
    installed release takes it (`strategy=` from 1.5, `plugins=` in 1.4)."""
    flags = dict(given)
    obj = _strategy_object(flags)
    if obj is not None and installed >= V15 and flags.get("strategy") is None:
        flags["plugins"] = _without(flags.get("plugins"), obj)
        flags["strategy"] = obj
    elif obj is not None and installed < V15 and flags.get("strategy") is obj:
        del flags["strategy"]
        flags["plugins"] = [obj, *as_list(flags.get("plugins"))]
    # `from_argparse_args` passes every flag of the shim's signature, `strategy=None` on 1.4 too
    unknown_none = [k for k, val in flags.items() if val is None and not accepts(k, installed)]
    for k in unknown_none:
        del flags[k]
    return Translation(flags, how=f"passed through: {why}")


def _modelled(version: Version) -> bool:
    try:
        interpret({}, version)
    except ValueError:
        return False
    return True


def _same_choice(setup: Setup) -> Iterator[Setup]:
    """The setup, then the same choice with another launcher where the release picks the launcher."""
    yield setup
    strategy = setup.strategy
    if strategy.name in LAUNCHER_CHOSEN_BY_RELEASE:
        for start in START_METHODS:
            if start != strategy.start_method:
                yield replace(setup, strategy=replace(strategy, start_method=start))


def reference_value(value: Value, installed: Version) -> Value:
    """A value as Lightning 1.5 can read it: a strategy object of a later release becomes the 1.5 class
    that builds the same strategy (`DDPStrategy(start_method="spawn")` of 2.x is 1.5's `DDPSpawnPlugin`)."""
    if isinstance(value, list):
        return [reference_value(item, installed) for item in value]
    if not isinstance(value, Obj) or kind_of(value) != STRATEGY:
        return value
    strategy = strategy_of(value, installed)
    for row in CLASSES:
        same = row.family == strategy.name and row.start_method == strategy.start_method
        if row.kind == STRATEGY and same and row.exists_in(REFERENCE):
            kwargs = dict(strategy.options)
            if strategy.find_unused_parameters is not None and "find_unused_parameters" in value.kw():
                kwargs["find_unused_parameters"] = strategy.find_unused_parameters
            return Obj.of(row.name, **kwargs)
    raise Reject("ImportError", f"Lightning {REFERENCE} has no {strategy}")


def _keep_user_object(
    rendered: Flags, obj: Obj | None, setup: Setup, installed: Version, hardware: Hardware
) -> Flags | None:
    """The rendered flags with the user's strategy object in place of the rendered strategy spelling, if
    the installed release builds the same setup with it (else None: the object is never replaced)."""
    if obj is None:
        return rendered
    flags = dict(rendered)
    if installed >= V15:
        flags["strategy"] = obj
    else:
        if is_training_type(flags.get("accelerator")):
            del flags["accelerator"]
        others = [item for item in as_list(flags.get("plugins")) if not is_training_type(item)]
        flags["plugins"] = [obj, *others]
    built = interpret(flags, installed, hardware).outcome
    return flags if built == setup else None


def _strategy_object(flags: Flags) -> Obj | None:
    for value in (flags.get("strategy"), *as_list(flags.get("plugins"))):
        if isinstance(value, Obj) and kind_of(value) == STRATEGY:
            return value
    return None


def as_list(value: Any) -> list[Any]:
    """A flag value as the list of its items (``plugins=x`` is ``[x]``; None is no item)."""
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _without(plugins: Value, obj: Obj) -> Value:
    rest = [item for item in as_list(plugins) if item is not obj]
    return rest or None
