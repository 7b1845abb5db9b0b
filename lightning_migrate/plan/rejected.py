"""Calls no release builds: a bug the check names, in the words of the release the user targets.

A Trainer call that every release from 1.4 to 2.6 rejects on every machine is no old usage to migrate:
``Trainer(accelerator="ddp", strategy="ddp_spawn")`` raises in each (1.4 has no `strategy=`, 1.5 and 1.6 see a
conflict, 1.7 on know no "ddp" accelerator). It is reported (LM100) with what the target raises, shortened to
its first sentence, and, where the call gives a training type both in `strategy=` and in a flag that took one
before (`accelerator=`, `distributed_backend=`, `plugins=`), the two calls it may have meant, each as the
planner writes it for the target: which flag the user meant, no finding can know. Only where the code expects
the raise (``CallSite.expects_raise``: inside ``pytest.raises``, ``assertRaises``) is it left alone.

"No release builds it" is trusted only where the model judges every value: a name no release's tables know
may be one the project registers itself (``StrategyRegistry.register``); no judged machine has IPUs, HPUs,
Bagua or ColossalAI, so a call that names one is not judged here; and a call whose outcome depends on apex
or Transformer Engine, which no judged machine installs either, may build where they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from lightning_migrate.plan.knowledge import keywords
from lightning_migrate.plan.planner import (
    _NAMED_FLAGS,
    _REMOVED,
    Planner,
    Refusal,
    Rewrite,
    Unchanged,
    _apply,
    _built,
    _documented,
    _rejects,
    _training_type,
    _unmodelled_hardware,
    _without_strategy,
    interpret,
    interpreter,
    machines,
    reported_on,
    strategy_in,
)
from lightning_migrate.semantics import Rejected, Setup, Unmodelled, Value, Version
from lightning_migrate.semantics.classes import lookup
from lightning_migrate.semantics.era_1_6 import REQUIREMENTS, XLA
from lightning_migrate.semantics.model import OPTIONAL_PACKAGES, RELEASES, Obj
from lightning_migrate.semantics.registry import DISTRIBUTED_TYPES, registered
from lightning_migrate.semantics.signature import accepts

JUDGED_PACKAGES = OPTIONAL_PACKAGES | {XLA}  # what the judged machines install (the TPU host has XLA)
# The strategy families a package or device needs that no judged machine has: Bagua, ColossalAI, IPUs, HPUs.
# Lightning 2.x builds some of them through extension packages (`lightning-colossalai`, `lightning-habana`).
UNJUDGED_FAMILIES = frozenset(
    family
    for family, requirements in REQUIREMENTS.items()
    if any(r.package not in JUDGED_PACKAGES for r in requirements)
)
_UNJUDGED_NAMES = frozenset(
    name.lower()
    for names in (DISTRIBUTED_TYPES, *(registered(r) for r in RELEASES))
    for name, strategy in names.items()
    if strategy.name in UNJUDGED_FAMILIES
)
_UNEXPECTED = "unexpected keyword argument"  # (a release's TypeError for a keyword it lacks)
# Longer error messages are quoted to the end of their first sentence (the rest is a hint or a list of names).
LONG = 100
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z])")
# The packages the model asks a machine for that no judged machine installs (apex AMP, NVIDIA's Transformer
# Engine; Bagua's and ColossalAI's are left out with their strategies' names).
UNJUDGED_PACKAGES = frozenset({"apex", "transformer_engine"})
# How Lightning names a package it needs and lacks (`Requirement 'torch_xla>=1.13' not met`): a finding
# quotes a machine where the error is another (a TPU call is told what the TPU host says).
_MISSING = re.compile(r"(?:Requirement|Module not found:) '([A-Za-z0-9_.-]+)")


def everywhere(flags: Mapping[str, Value], target: Version, planner: Planner) -> Refusal | None:
    """LM100 for a call that no release builds on any machine, in ``target``'s words and with what to keep
    (as ``planner`` writes it); None for any other call (or one the model cannot judge)."""
    try:
        if not _rejects(flags, target) or not _judged(flags) or _built_somewhere(flags):
            return None
        if _wants_package(flags):
            return None
        details = (
            _raised(flags, target),
            f"no release from {RELEASES[0]} to {RELEASES[-1]} builds it on any machine",
            *_where_known(flags, target),
        )
        advice = _advice(flags, target, planner)
    except Unmodelled:
        return None
    # (the choice between the two training types is the user's: each is written out in the details)
    what = "keep `strategy=` or the other training type" if advice else "fix it by hand"
    said = f"no Lightning release builds this call; {what}"
    return Refusal("LM100", said, nowhere=True, details=(*details, *advice))


def _judged(flags: Mapping[str, Value]) -> bool:
    """Does the model judge every value of the call: each name a strategy or device flag gives is one some
    release's tables know, each object's class is a Lightning class it reads, and none needs hardware or a
    package no judged machine has?"""
    if _unmodelled_hardware(flags):
        return False
    for flag, value in flags.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Obj):
                row = lookup(item.cls)
                if row is None or row.family in UNJUDGED_FAMILIES:
                    return False
            elif (
                isinstance(item, str)
                and flag in _NAMED_FLAGS
                and (not _documented(item) or item.lower() in _UNJUDGED_NAMES)
            ):
                return False
    return True


def _built_somewhere(flags: Mapping[str, Value]) -> bool:
    """Does some release build the call on some machine (or can the model not say for one)?"""
    ask = interpreter(flags)
    for release in RELEASES:
        for machine in machines(flags):
            try:
                if isinstance(ask(release, machine).outcome, Setup):
                    return True
            except Unmodelled:
                return True
    return False


def _wants_package(flags: Mapping[str, Value]) -> bool:
    """Does what a release does with the call on some machine depend on the packages no judged machine
    installs (``UNJUDGED_PACKAGES``)? Then "no release builds it" only means "not without them"."""
    ask = interpreter(flags)
    for machine in machines(flags):
        equipped = replace(machine, installed=machine.installed | UNJUDGED_PACKAGES)
        for release in RELEASES:
            if interpret(flags, release, equipped).outcome != ask(release, machine).outcome:
                return True
    return False


def _raised(flags: Mapping[str, Value], target: Version) -> str:
    """What ``target`` raises for the call, where the machines differ on the machine refusals quote (or the
    first whose error is not a missing package: a TPU call is told what the TPU host says)."""
    ask = interpreter(flags)
    judged = machines(flags)
    quoted = [reported_on(flags), *judged]
    machine = next((m for m in quoted if not _MISSING.search(str(ask(target, m).outcome))), quoted[0])
    error = ask(target, machine).outcome
    assert isinstance(error, Rejected)
    raised = f"Lightning {target} raises {error.error}: {first_sentence(error.message)}"
    if len({str(ask(target, m).outcome) for m in judged}) == 1:
        return raised
    return f"on {machine.describe()}, {raised}"


def _where_known(flags: Mapping[str, Value], target: Version) -> tuple[str, ...]:
    """Where ``target`` lacks a keyword of the call: what the oldest release that takes them all raises (the
    error a migrated call would still meet: `precision=17` beside `gpus=2`), if one does."""
    ask = interpreter(flags)
    machine = reported_on(flags)
    if _UNEXPECTED not in str(ask(target, machine).outcome):
        return ()
    for release in RELEASES:
        error = ask(release, machine).outcome
        if isinstance(error, Rejected) and _UNEXPECTED not in error.message:
            said = f"Lightning {release}, which takes its keywords, raises {error.error}: "
            said += first_sentence(error.message)
            same = len({str(ask(release, m).outcome) for m in machines(flags)}) == 1
            return (said if same else f"on {machine.describe()}, {said}",)
    return ()


def first_sentence(message: str) -> str:
    """A long message to the end of its first sentence (without the full stop, as the finding goes on)."""
    end = _SENTENCE_END.search(message) if len(message) > LONG else None
    return message[: end.start()] if end else message.rstrip(".")


def _advice(flags: Mapping[str, Value], target: Version, planner: Planner) -> list[str]:
    """For a call that gives a training type both in `strategy=` and in an older flag: keep `strategy=` and
    drop the other, or keep what the other meant, each written as the planner writes it for ``target``
    (where ``target`` builds it). Empty for any other call, or where ``target`` builds neither."""
    carriers, _ = _training_type(flags)
    strategy = flags.get("strategy")
    if not carriers or strategy is None:
        return []
    dropped = ", ".join(_carried(flags, carrier) for carrier in carriers)
    kept = _apply(flags, {f: _without_strategy(flags[f]) if f == "plugins" else _REMOVED for f in carriers})
    meant = _apply(flags, {"strategy": _REMOVED})
    keep, mean = _written(kept, target, planner), _written(meant, target, planner)
    said = []
    if keep is not None:
        said.append(f"keep `strategy={strategy!r}` and drop {dropped}{_as(kept, keep)}")
    if mean is not None and not accepts("strategy", target):  # (1.4: the older flag is the target's own)
        said.append(f"drop `strategy={strategy!r}`{_as(meant, mean)}")
    elif mean is not None or keep is not None:
        said.append(f"write the training type you meant in `strategy=`{_as(meant, mean, ' alone')}")
    return said


def _as(flags: dict[str, Value], written: dict[str, Value] | None, alone: str = "") -> str:
    """How the planner writes ``flags`` for the target, where it writes them otherwise."""
    if written is None or written == flags:
        return ""
    return f" (`{keywords(flags)}`{alone} is written `{keywords(written)}`)"


def _carried(flags: Mapping[str, Value], carrier: str) -> str:
    """The training type ``carrier`` gives, as written: `accelerator='ddp'`, or the entry of `plugins=`."""
    value = flags[carrier]
    if carrier == "plugins" and isinstance(value, list) and len(value) > 1:
        return f"`{strategy_in(value)!r}` from `plugins=`"
    return f"`{carrier}={value!r}`"


def _written(flags: dict[str, Value], target: Version, planner: Planner) -> dict[str, Value] | None:
    """``flags`` as the planner writes them for ``target``, where ``target`` builds them; None where it
    does not, or no rewrite keeps what they built."""
    decision = planner(flags, target)
    if isinstance(decision, Rewrite):
        return decision.values
    if isinstance(decision, Unchanged) and _built(flags, [target]):
        return flags
    return None
