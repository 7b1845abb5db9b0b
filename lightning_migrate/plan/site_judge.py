"""The one decision the front ends other than Python's take for a call site whose flags they have read:
a YAML Trainer config, a command line, a set of ``PL_TRAINER_*`` variables.

A value only known at run time that ranges over its flag's domain (a YAML interpolation ``${nodes}``) is a
``knowledge.RunTime`` among the site's flags, and the planner quantifies over it. One the front end cannot
range over (a shell variable ``$GPUS``, a key shared through a YAML merge, the flags of a config the site
overrides) is put in ``CallSite.unknown``: such a site is never rewritten, and it is reported (LM101) only
where ``Run.old_api`` sees a sign of the old API, exactly as the Python front end does for ``Trainer(**cfg)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.planner import Decision, Rewrite, Unchanged
from lightning_migrate.report.findings import Finding, with_details, written


@dataclass(frozen=True)
class Unknown:
    """Why a flag's value is only known at run time, and where it is written (1-based line and column).
    ``written``: the flag as written, where the reason does not start with it (then the finding quotes it,
    and says the reason only where it is short)."""

    reason: str
    line: int
    column: int
    cls: str | None = None  # the Lightning class its value builds, where that is known
    written: str = ""

    @property
    def said(self) -> tuple[str, tuple[str, ...]]:
        """The head of a finding about it (the flag as written and what is wrong, in a few words) and the
        evidence."""
        if not self.written:
            return self.reason, ()
        quoted = f"`{written(self.written)}`"
        if len(self.reason) <= SHORT_REASON:
            return f"{quoted}{_joined(self.reason)}", ()
        first = re.split(r" \(|: |; |, | that ", self.reason, maxsplit=1)[0]  # (its first clause may say it)
        said = _joined(first) if len(first) <= SHORT_REASON else " is not migrated here"
        return quoted + said, (self.reason,)


# A reason that is a predicate follows the flag (`$GPUS` expands at run time); a sentence follows a colon.
_PREDICATES = frozenset({"is", "are", "expands", "comes", "has", "carries"})


def _joined(reason: str) -> str:
    return f" {reason}" if reason.split(" ", 1)[0] in _PREDICATES else f": {reason}"


SHORT_REASON = 45  # a reason said on the finding's line; a longer one is its first detail


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    findings: list[Finding] = field(default_factory=list)

    @property
    def rewrite(self) -> Rewrite | None:
        return self.decision if isinstance(self.decision, Rewrite) else None


def judge(run: Run, site: CallSite, unknown: dict[str, Unknown], advice: str, *details: str) -> Verdict:
    """Decide ``site`` (its known flags); where some flags are ``unknown``, report the first of them
    (LM101, with ``advice``: what the user can do, in a few words; ``details``: more evidence) when the
    site shows a sign of the old API."""
    if not unknown:
        decision, findings = run.decide(site)
        return Verdict(decision, findings)
    given = replace(site, unknown={k: u.cls for k, u in unknown.items()})
    sign = run.old_api(given)
    if sign is None:
        return Verdict(Unchanged())
    first = min(unknown.values(), key=lambda u: (u.line, u.column))
    head, evidence = first.said
    finding = Finding(first.line, first.column, "LM101", f"{head}; {advice}", False)
    return Verdict(
        Unchanged(), [replace(finding, details=(*evidence, f"a sign of old usage: {sign}", *details))]
    )


def not_fixed(findings: list[Finding], why: str, *details: str) -> list[Finding]:
    """``findings`` of a rewrite that cannot be written, each saying why in a few words (``details``: the
    evidence behind it; the fix it says is then the user's to write by hand)."""
    by_hand = (*details, "the fix is then to write by hand")
    return [
        replace(with_details(f, f" (not fixed: {why})", *by_hand), fixable=False) if f.fixable else f
        for f in findings
    ]
