"""The pipeline's middle: a Trainer call as any front end found it, and the one decision taken for it.

A front end (the Python one today; YAML, notebooks and command lines to come) turns what it reads into
``CallSite``s: where the call is (how its findings are addressed), the modelled flags it passes with their
values, and the oldest release it can have been written for. ``decide`` plans each with the model and says
what the user is told: the rewrite's findings (one per rule the call breaks, the fix said once), or why there
is none. How a rewrite is written back is the front end's own business (``edit`` and ``splice`` for Python).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.knowledge import Choice, Known, RunTime, holes, keywords, written_values
from lightning_migrate.plan.planner import (
    DEVICE_FLAGS,
    DEVICE_NAMES,
    V16,
    Decision,
    Refusal,
    Rewrite,
    Unchanged,
    strategy_in,
    token,
)
from lightning_migrate.report.findings import WRITTEN_WIDTH, Finding, written
from lightning_migrate.report.rules import BY_CODE, FLAG_RULES
from lightning_migrate.semantics import Setup, interpret
from lightning_migrate.semantics.classes import RENAMED_STRATEGIES, lookup
from lightning_migrate.semantics.model import RELEASES, Hardware, Obj, Value, Version, v
from lightning_migrate.semantics.signature import accepts, current, is_default

# The unified `lightning` package (its `lightning.pytorch` namespace) first shipped with 1.8: a call written
# with it can only have been written for 1.8 or later.
LIGHTNING_PACKAGE = v("1.8")

UNPACKED = "**"  # the key in ``CallSite.unknown`` of flags passed in a `**dict` or `*args` nobody can read
# The key of the flags an argparse namespace passes (``Trainer.from_argparse_args(args, ...)``): every flag of
# the Trainer's parser, each any value the command line gives. Unlike a `**dict`, it is no sign of old usage
# by itself: what the command line says is the launch script's business (the command-line front end's).
NAMESPACE = "*namespace*"
# Before `strategy=` split it off, these keywords took the training type: a name each took (1.4 to 1.6).
TRAINING_TYPE_PROBES: dict[str, Value] = {"accelerator": "ddp", "plugins": "ddp_sharded"}
# A call that uses one of these is written for the `strategy=` API: its unknown `accelerator=` is hardware.
NEW_API = frozenset({"strategy", "devices"})


@dataclass(frozen=True)
class CallSite:
    line: int
    column: int  # 1-based, in characters
    # the modelled flags whose values are known, as the model reads them, or known to be one of a domain or
    # of a conditional's branches (``knowledge``)
    flags: Mapping[str, Known]
    since: Version = RELEASES[0]  # the oldest release the call can have been written for
    # the modelled flags whose values are only known at run time (``UNPACKED``: what a `**dict` holds), each
    # with the Lightning class its value builds where that is known (`DDPPlugin(find_unused_parameters=x)`)
    unknown: Mapping[str, str | None] = field(default_factory=dict)
    # where each flag's value is written (line, column), for findings about one value; default: the call's
    places: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    conditionals: bool = True  # the front end can write a conditional expression (Python; not YAML)
    # the name under which the file imports torch where the call is: the front end may write a test of the
    # machine's GPU count with it (``torch.cuda.device_count() > 1``); "" where it may not
    machine: str = ""
    # the values the file writes for ``unknown`` flags whose domain the codemod lacks: a parameter's default
    # (``strategy: Optional[str] = None``), the value whenever the caller leaves it out
    defaults: Mapping[str, Value] = field(default_factory=dict)
    # the code expects the call to raise (inside `pytest.raises(...)`, `self.assertRaises(...)`): a call no
    # release builds is a test of that error, not a bug to report
    expects_raise: bool = False
    # the oldest release the project requires (``Run.floor``), where the front end found nothing older in
    # what fills the call's `**dict` (``frontends.python.dict_keys``): its code runs there
    floor: Version = RELEASES[0]

    def place(self, flag: str) -> tuple[int, int]:
        return self.places.get(flag, (self.line, self.column))


@dataclass(frozen=True)
class Run:
    """What a run asks of every call: the target, the release the code was written for (None: any), the
    idiomatic form even where it adopts a changed default (``unsafe``), and the calls to leave as they are
    (``# noqa``, by position)."""

    target: Version
    source: Version | None = None
    unsafe: bool = False
    leave: frozenset[tuple[int, int]] = frozenset()
    # the oldest release the project requires (its pin's lower bound), for a front end to grant a call whose
    # `**dict` shows no older usage (``CallSite.floor``): it then holds no training type where every release
    # from there on rejects one. Known flags are judged as ever: this only narrows what a `**dict` may hold
    floor: Version = RELEASES[0]
    # the source is the project's pin of one release line, not the user's word: it settles what a call
    # built, but is no sign by itself that a call with values only known at run time is old usage (a
    # `**dict` of a project pinning 1.7 holds no training type: ``old_api``)
    pinned: bool = False

    def plan(self, site: CallSite) -> Decision:
        decision = plan(
            site.flags, self.target, self.source, self.unsafe, site.since, site.conditionals, site.machine
        )
        if self.pinned and (isinstance(decision, Unchanged) or getattr(decision, "code", "") == "LM100"):
            # the pinned release never built the call (`DDPStrategy` in a project pinning 1.4): the pin does
            # not say what this code runs on, and it is judged as if there were none (a call the pin built
            # is never left unchanged while it is old usage: the call as written keeps nothing it warns for)
            decision = plan(
                site.flags, self.target, None, self.unsafe, site.since, site.conditionals, site.machine
            )
        if isinstance(decision, Refusal) and decision.code == "LM100" and site.since != RELEASES[0]:
            # written with `lightning` imports but old flags no `lightning` release took: an import rename
            # done before the flags; keep what the call did where it last ran
            decision = plan(
                site.flags,
                self.target,
                self.source,
                self.unsafe,
                conditionals=site.conditionals,
                machine=site.machine,
            )
        return decision

    def judge(self, site: CallSite) -> Decision:
        """``plan``, where a call with values only known at run time is planned only if it shows a sign of
        the old API: in the target's own form it is left alone whatever those values are. A call no release
        builds is left alone where the code expects it to raise."""
        if holes(site.flags) and self.old_api(site) is None:
            return Unchanged()
        decision = self.plan(site)
        if site.expects_raise and isinstance(decision, Refusal) and decision.nowhere:
            return Unchanged()  # the test of an error every release raises
        return decision

    def old_api(self, site: CallSite) -> str | None:
        """For a call with values only known at run time: the sign that it may be old usage for the target,
        in words, or None when it is written in the target's own form and so gets no finding whatever those
        values are. The signs: ``--source-version`` names an older release; a keyword the target lacks or
        deprecates; a Lightning class it renamed or lacks; a known value that is old usage on its own
        (`accelerator="ddp"`); or, in a call with neither `strategy=` nor `devices=`, an unknown
        `accelerator=`/`plugins=` (or `**dict`) where a release the call may be written for (from the
        project's required release where the front end granted it: ``CallSite.floor``) took a training
        type."""
        target = self.target
        if self.source is not None and self.source < target and not self.pinned:  # (what changed may matter)
            return f"the call is for Lightning {self.source}, and {target} may build it differently"
        # (a value is old usage on its own by its spelling: a pin's defaults are not the call's, whose other
        # flags are only known at run time)
        judge_alone = replace(self, source=None, pinned=False) if self.pinned else self
        for flag in [*site.flags, *site.unknown]:
            if flag not in (UNPACKED, NAMESPACE) and not current(flag, target):
                return f"Lightning {target} {'deprecates' if accepts(flag, target) else 'has no'} `{flag}=`"
        for cls in filter(None, site.unknown.values()):
            row = lookup(cls)
            if row is not None and (not row.exists_in(target) or (row.renamed_to and target >= V16)):
                gone = "gone from" if not row.exists_in(target) else "renamed in"
                return f"`{cls}` is {gone} Lightning {target}"
        for flag, value in site.flags.items():
            for alone in written_values(value):
                decision = judge_alone.plan(CallSite(site.line, site.column, {flag: alone}, site.since))
                # (a value the target rejects in a newer release's words, `devices=-1` for 1.6, is not old)
                if not isinstance(decision, Unchanged) and getattr(decision, "code", "") != "LM100":
                    return f"`{flag}={alone!r}` is old usage for Lightning {target}"
        for flag, default in site.defaults.items():
            decision = judge_alone.plan(CallSite(site.line, site.column, {flag: default}, site.since))
            if not isinstance(decision, Unchanged) and getattr(decision, "code", "") != "LM100":
                outcome = interpret({flag: default}, target, Hardware()).outcome
                if isinstance(outcome, Setup):
                    return f"its default, `{flag}={default!r}`, is old usage for Lightning {target}"
                return f"with its default, `{flag}={default!r}`, Lightning {target} raises {outcome}"
        if NEW_API.isdisjoint([*site.flags, *site.unknown]):
            for flag in site.unknown:
                for carrier in TRAINING_TYPE_PROBES if flag == UNPACKED else [flag]:
                    took = _took_training_type(carrier, max(site.since, site.floor), target)
                    if took is None:
                        continue
                    # (where the target itself takes that training type there, 1.4's `accelerator="ddp"`,
                    # it is the target's own form: no sign)
                    probe = {carrier: TRAINING_TYPE_PROBES[carrier]}
                    if not isinstance(
                        judge_alone.plan(CallSite(site.line, site.column, probe, site.since)), Unchanged
                    ):
                        where = "a `**` dict" if flag == UNPACKED else f"`{carrier}=`"
                        return (
                            f"up to Lightning {took}, {where} could hold a training type, and the call has"
                            " neither `strategy=` nor `devices=`"
                        )
        return None

    def decide(self, site: CallSite) -> tuple[Decision, list[Finding]]:
        """The decision for ``site`` (``judge``) and its findings; a rewrite of a call to leave is reported,
        not made."""
        decision = self.judge(site)
        if isinstance(decision, Refusal):
            where = site.place(decision.flag)
            said, details, remedy = decision.message, decision.details, decision.remedy
            finding = Finding(*where, decision.code, said, False, details=details, remedy=remedy)
            return decision, [finding]
        if not isinstance(decision, Rewrite):
            return decision, []
        findings = rewrite_findings(site, decision)
        return (Unchanged() if (site.line, site.column) in self.leave else decision), findings


@functools.cache
def _took_training_type(flag: str, since: Version, target: Version) -> Version | None:
    """The last release from ``since`` to ``target`` whose ``flag=`` took a training type, if any."""
    probe = TRAINING_TYPE_PROBES.get(flag)
    if probe is None:
        return None
    took = [
        release
        for release in RELEASES
        if since <= release <= target
        and isinstance(interpret({flag: probe}, release, Hardware(cuda=2)).outcome, Setup)
    ]
    return took[-1] if took else None


# What is wrong with an old flag, in a few words, by the rule it breaks (the rule's title and dates go to the
# finding's details); the device-count flags say their own keyword.
_WRONG = {
    "LM001": "is a training type",
    "LM002": "is gone",
    "LM003": "holds a strategy",
    "LM004": "is replaced",  # (by what: the fix says, and the details)
    "LM005": "is renamed",  # (to what: the fix says)
    "LM006": "is spelled differently in the target",
    "LM007": "is not taken by the target",
}
# The first detail of a rule's finding, where the rule's title says more than this flag (LM004's names every
# count flag, LM007's every removed keyword): by (rule, the flag is a device-count flag).
_TITLES = {
    ("LM004", True): "`{}=` was replaced by `accelerator=` + `devices=`",
    ("LM004", False): "`{}=` is written otherwise in the target, with the device flags",
    ("LM007", False): "`{}=` is not a keyword of the target's Trainer: the fix renames or drops it",
}
# the device flags that are not device counts say their own problem
_WRONG_FLAG = {
    "auto_select_gpus": "goes with the device-count flags",
    "devices": "is numbered differently in the target",
    "accelerator": "is spelled differently in the target",
}
# `devices=None` (or a run-time value the file writes None for): every 1.x release's default, a `TypeError`
# from 2.0
_DEVICES_NONE = (
    "`devices=None`, 1.x's default, took every device of the accelerator (one CPU process); 2.0 raises"
    " `TypeError` for it, and its default is `'auto'`"
)


def rewrite_findings(site: CallSite, rewrite: Rewrite) -> list[Finding]:
    """One finding per rule the old flags break (each code stays selectable and suppressible on its own);
    the first says the fix (only the keywords it changes), the others point to it. Each names the flag as
    written; the rule's dates, the notes and what an unsafe fix changes are its details."""
    old, new = site.flags, rewrite.flags
    rules: dict[str, str] = {}
    for key, value in old.items():
        if (new.get(key) == value and key in new) or key == "precision":
            continue  # a re-spelled precision is a note of the rewrite, not a rule of its own (unless alone)
        if key in new and is_default(key, value):
            continue  # `accelerator=None` given a device: part of the rewrite another rule asks for
        rule = FLAG_RULES.get(key, "LM006")
        if key == "accelerator" and isinstance(value, str) and value.lower() in DEVICE_NAMES:
            rule = "LM004"
        if key == "plugins" and not isinstance(value, (RunTime, Choice)) and strategy_in(value) is None:
            rule = "LM006"  # (a precision plugin re-spelled, an environment: no strategy in `plugins=`)
        if key == "devices" and None in written_values(value):
            rule = "LM006"  # 1.x's default, which 2.0 rejects: a default that changed, not a count
        rules.setdefault(rule, key)
    kept = {value.cls for value in flat(new.values()) if isinstance(value, Obj)}
    renamed = [o.cls for o in flat(old.values()) if isinstance(o, Obj) and o.cls in RENAMED_STRATEGIES]
    renamed = [cls for cls in dict.fromkeys(renamed) if cls not in kept]
    if renamed:
        rules.setdefault("LM005", "")  # a `*Plugin` class the rewrite renamed
    if not rules and old.get("devices", 0) is None and new.get("devices", 0) is not None:
        rules["LM006"] = "devices"  # (written out: `devices=-1`, `devices=1, accelerator="cpu"`)
    if not rules and new != old:
        # only defaults written out or keywords added, where the target's default differs (`tpu_cores=1`
        # spawned one process until 1.5: `strategy=` says so; 2.0 picks the accelerator itself): LM006
        rules["LM006"] = ""
    findings = []
    first = min(rules, default="")
    for rule, key in sorted(rules.items()):
        info = BY_CODE[rule]
        wrong = _WRONG_FLAG.get(key, _WRONG["LM004"]) if rule == "LM004" else _WRONG[rule]
        lead = f" {wrong}; {'unsafe fix' if rewrite.changes else 'fix'}: " if rule == first else ""
        head = _written_flag(old, key, len(lead)) if key else ", ".join(f"`{cls}`" for cls in renamed)
        none = key == "devices" and None in written_values(old[key])
        if none:
            wrong = (
                "is 1.x's default, which 2.0 rejects"
                if old[key] is None
                else "may be None, which 2.0 rejects"
            )
        said = f"{head} {wrong}" if head else "defaults the target changed, written out"
        title = _TITLES.get((rule, key in DEVICE_FLAGS), info.title).format(key)
        details = [f"{title} ({info.dates()})" if info.dates() else title, *([_DEVICES_NONE] if none else [])]
        if rule == first:
            said += f"; {'unsafe fix' if rewrite.changes else 'fix'}: {_fix(old, new)}"
            details += [*rewrite.notes, *(f"changes behaviour: {change}" for change in rewrite.changes)]
        else:
            said += f" (see {first})"
        findings.append(Finding(site.line, site.column, rule, said, True, details=tuple(details)))
    findings += [
        Finding(*site.place(flag), code, why, False, details=said) for code, flag, why, said in rewrite.left
    ]
    return findings


def _written_flag(flags: Mapping[str, Known], key: str, lead: int) -> str:
    """``gpus=args.gpus`` as a message quotes it (a long value cut; shorter beside the fix, which writes
    the same value in full where it moves it: ``lead`` is the length of the words between them, and all
    before the fix fits ``BEFORE_FIX``)."""
    if not lead:
        return f"`{key}={written(repr(flags[key]), WRITTEN_WIDTH)}`"
    room = BEFORE_FIX - lead - len(f"`{key}=`")
    return f"`{key}={written(repr(flags[key]), max(MIN_FIXED_WIDTH, min(FIXED_WIDTH, room)))}`"


FIXED_WIDTH = 30
MIN_FIXED_WIDTH = 16
# A message that says a fix is at most this long before the fix (which is said in full).
BEFORE_FIX = 70


def _fix(old: Mapping[str, Known], new: Mapping[str, Known]) -> str:
    """The keywords a rewrite writes that the call did not pass as they are (the old keywords it drops go
    without saying, unless dropping is all it does)."""
    changed = {k: value for k, value in new.items() if k not in old or token(old[k]) != token(value)}
    if changed:
        return keywords(changed)
    return "remove " + ", ".join(f"`{k}=`" for k in old if k not in new)


def flat(values: Iterable[Known]) -> list[Known]:
    """The values, with lists (``plugins=[...]``) opened."""
    out: list[Known] = []
    for value in values:
        if isinstance(value, list):
            out.extend(flat(value))
        else:
            out.append(value)
    return out
