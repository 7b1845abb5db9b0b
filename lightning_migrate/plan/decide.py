"""The planner's one door: how to write a call's modelled flags for the target. A call whose values are all
written is planned as it is (``planner``), unless no release builds it (``rejected``); one with values known
only at run time is planned over every value they may take (``quantify``). Both plan parts of the call again
through this door, which they are handed. The answers are remembered: a project repeats its Trainer calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from lightning_migrate.plan import quantify, rejected
from lightning_migrate.plan.knowledge import Known, holes, keywords
from lightning_migrate.plan.planner import Decision, Refusal, Rewrite, _plan, token
from lightning_migrate.report.findings import UNSAFE_FIXES, written
from lightning_migrate.semantics import Unmodelled, Value, Version
from lightning_migrate.semantics.model import RELEASES


def plan(
    flags: Mapping[str, Known],
    target: Version,
    source: Version | None = None,
    unsafe: bool = False,
    since: Version = RELEASES[0],
    conditionals: bool = True,
    machine: str = "",
) -> Decision:
    """How to write ``Trainer(**flags)`` (the modelled flags only) for ``target``; without ``source``, the
    call may have been written for any release from ``since`` on. A flag whose value is only known at run
    time (``knowledge.RunTime``, ``knowledge.Choice``) is quantified over (``quantify``); without
    ``conditionals`` (a front end that cannot write a conditional expression: YAML) no rewrite splits it on
    its truth. ``machine``: the name the file imports torch as, where the front end may write a test of the
    machine's GPU count (``torch.cuda.device_count() > 1``) for a strategy 1.x chose by it."""
    # the same call is planned again and again (a project repeats its Trainer calls): remember the answers
    key = (
        tuple((k, token(value)) for k, value in flags.items()),
        target,
        source,
        unsafe,
        since,
        conditionals,
        machine,
    )
    decision = _PLANS.get(key)
    if decision is None:
        if len(_PLANS) >= 4096:
            _PLANS.clear()
        try:
            if holes(flags):
                decision = quantify.plan_over(
                    dict(flags), target, source, unsafe, since, conditionals, plan, machine
                )
            else:
                values: dict[str, Value] = dict(flags)  # type: ignore[arg-type]
                decision = rejected.everywhere(values, target, plan) or _plan(
                    values, target, source, unsafe, since
                )
                if isinstance(decision, Refusal) and decision.code == "LM103" and conditionals and machine:
                    # (`gpus=-1`: 1.x chose the strategy by the machine's GPU count)
                    split = quantify.by_machine(values, target, source, unsafe, since, plan, machine)
                    decision = split or decision
        except Unmodelled as refusal:  # the old call, or the target on it: nothing to judge a rewrite by
            value = written(repr(refusal.value))
            said = f"`{refusal.flag}={value}`: a value the model does not judge; fix it by hand"
            decision = Refusal("LM104", said, details=(f"the model only models {refusal.expected}",))
        if not unsafe and isinstance(decision, Refusal) and decision.code in UNSAFE_ADVISED:
            decision = _unsafe_advice(decision, plan(flags, target, source, True, since, conditionals))
        _PLANS[key] = decision
    return replace(decision, flags=dict(decision.flags)) if isinstance(decision, Rewrite) else decision


# The refusals that say what `--unsafe-fixes` would write, where it would: no spelling keeps the behaviour,
# but one differs only by a default Lightning changed on purpose (1.x's spawn and unused-parameter search).
UNSAFE_ADVISED = frozenset({"LM101", "LM103"})


def _unsafe_advice(refusal: Refusal, unsafe: Decision) -> Refusal:
    if not isinstance(unsafe, Rewrite) or unsafe.left or not unsafe.changes:
        return refusal
    # (the flag that would do it is said on the line; what it writes and changes is evidence)
    writes = f"`--unsafe-fixes` writes {keywords(unsafe.flags)}"
    details = (*refusal.details, writes, *(f"which changes {change}" for change in unsafe.changes))
    advice = " (or `--unsafe-fixes`)"  # (a refusal of a part of the call, planned here, may say it already)
    said = refusal.message if refusal.message.endswith(advice) else refusal.message + advice
    details = tuple(dict.fromkeys(details))
    return replace(refusal, message=said, details=details, remedy=UNSAFE_FIXES)


_PLANS: dict[object, Decision] = {}
