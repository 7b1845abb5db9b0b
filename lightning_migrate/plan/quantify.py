"""Plan a call whose flags are partly known only at run time: quantify over every value they may take.

A *case* is one assignment of the unknown flags (``knowledge.RunTime``: each value of its domain;
``knowledge.Choice``: each branch, and each value of a branch that is itself a run-time value). For every case
the old call's behaviour is found as for a literal call (``planner._behaviour``), and a rewrite is made only
if, in every case, on every machine and for every source release, it builds what the old call built (or both
fail).

1. *Templates*: the candidates the spelling tables propose for each case, with the case's values taken back
   out. A run-time value stays as written: at its own keyword, or moved to a keyword the call does not have
   (``gpus=args.gpus`` to ``devices=args.gpus``); a candidate that needs it changed is no template.
2. The cheapest template that keeps every case wins. A run-time value left at a keyword the target
   deprecates (``gpus=`` for 1.7) is work left, reported with the values that break moving it.
3. A ``Choice`` that no template keeps as written is rewritten branch by branch: the templates of each
   branch are merged, and the keywords whose values differ take a conditional expression with the same
   tests (``strategy="ddp" if n > 1 else None``); a test is written twice only if it is ``pure``.
4. A call without one, that no template keeps, has a ``RunTime`` value split into parts by tests of its own
   expression (``knowledge.value_tests``: its truth, `n > 1`, `n == 1`, each valid for every value of the
   domain), one test then two (0, 1 and more), and is rewritten part by part the same way: each keyword
   whose values differ takes the plainest chain of those tests that picks its parts exactly
   (``gpus=n`` for 2.x: ``accelerator="cuda" if n else "cpu", devices=n or 1,
   strategy="ddp_spawn_find_unused_parameters_true" if n > 1 else "auto"``), and the judge evaluates the
   tests written. At most ``MAX_CONDITIONALS`` tests are written (`n or 1` is none), a value read more than
   once only if it is ``pure``.

The number of cases is bounded (``MAX_CASES``); a call with more is reported, as before, as LM101.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from lightning_migrate.plan import rejected
from lightning_migrate.plan.knowledge import (
    MACHINE,
    Assignment,
    Atom,
    Choice,
    Const,
    Hole,
    Known,
    Op,
    RunTime,
    ValueTest,
    holds,
    holes,
    joined_tests,
    joint,
    key_of,
    keywords,
    machine_branch,
    on_machine,
    or_form,
    reads,
    value_tests,
    values_of,
)
from lightning_migrate.plan.planner import (
    V20,
    Behaviour,
    Decision,
    Planner,
    Refusal,
    Rewrite,
    Same,
    Unchanged,
    _behaviour,
    _candidates,
    _cost,
    _deprecated_families,
    _misplaced,
    comparable,
    difference,
    differences,
    modernizable,
    modernized,
    rereads_otherwise,
    token,
)
from lightning_migrate.report.findings import MESSAGE_WIDTH, SOURCE_VERSION, WRITTEN_WIDTH, written
from lightning_migrate.semantics.model import RELEASES, Hardware, Obj, Value, Version
from lightning_migrate.semantics.signature import current

# The most cases a call is judged on: a domain has at most ~15 values, so one or two unknown flags (or a
# conditional beside one). A call with more is reported.
MAX_CASES = 300
# How a user tells the codemod fewer values: a domain narrowed is often one a rewrite keeps for every value.
NARROW = "to narrow a value: a type annotation, an argparse `type=` or `choices=`"
# The most keywords a conditional's rewrite may write as conditional expressions (each repeats the tests); a
# split value's rewrite, the most tests it writes (`n or 1` is none: it reads as a default).
MAX_CONDITIONALS = 2
# The most parts a run-time value is split into (by one or two of its tests: 0, 1 and more); each part's
# rewrites are merged with every other's.
MAX_PARTS = 3
# The rewrites judged over every case to say which comes closest, where none keeps them all.
MAX_EXPLAINED = 40
# The templates of each branch of a conditional that are tried in a merge (the cheapest ones).
MAX_BRANCH_TEMPLATES = 6


@dataclass(frozen=True)
class Case:
    """One assignment of the unknown flags, and what the old call did with it."""

    values: dict[str, Value]  # unknown flag -> the value it takes
    branches: dict[str, int]  # `Choice` flag -> the branch that gives it
    keep: Behaviour | None  # None: the source releases disagree about it (``why``)
    same: Same
    why: str = ""
    said: tuple[str, ...] = ()  # the evidence behind ``why`` (which releases built what, on which machine)
    # what the call's tests took the machine to say in this case (``torch.cuda.is_available`` -> True): it
    # is judged only on the machines that say so (``keep`` holds only those)
    facts: tuple[tuple[str, Value], ...] = ()


Template = dict[str, Known]


def plan_over(
    flags: dict[str, Known],
    target: Version,
    source: Version | None,
    unsafe: bool,
    since: Version,
    conditionals: bool,
    planner: Planner,
    machine: str = "",
) -> Decision:
    decision = _plan_over(flags, target, source, unsafe, since, conditionals, planner, machine)
    if isinstance(decision, Refusal) and not decision.flag:  # what stops it is a run-time value
        return replace(decision, flag=next(iter(holes(flags))))
    return decision


def _plan_over(
    flags: dict[str, Known],
    target: Version,
    source: Version | None,
    unsafe: bool,
    since: Version,
    conditionals: bool,
    planner: Planner,
    machine: str = "",
) -> Decision:
    found = holes(flags)
    cases = _cases(flags, found, target, source, unsafe, since, planner)
    if not isinstance(cases, list):
        return cases
    if all(case.keep is None for case in cases):  # the source releases disagree about every value
        why = cases[0]
        return Refusal(
            "LM102", why.why, details=(f"for {keywords(why.values)}", *why.said), remedy=SOURCE_VERSION
        )
    templates = _templates(flags, found, cases, target, unsafe)
    # a rewrite that leaves no deprecated keyword behind first, then the smallest edit
    # (with a source release, then one that a second run, reading it as that release's code, leaves alone)
    ranked = sorted(
        templates,
        key=lambda t: (len(_left(t, target)), source is not None and _rereads_otherwise(t, cases, source)),
    )
    winner = next((t for t in ranked if not _broken(t, cases, target, first=True)), None)
    choices = (
        _choices(flags, found, cases, target, source, unsafe, since, planner) if conditionals else iter(())
    )
    for choice, split_flags, split_cases in choices:
        if winner is not None and not _left(winner, target):
            break
        merged = _by_branch(split_flags, choice, split_cases, target, unsafe, machine)
        if merged is not None and (winner is None or len(_left(merged, target)) < len(_left(winner, target))):
            winner = merged
    if winner is None and conditionals and machine and not any(isinstance(h, Choice) for h in found.values()):
        winner = next(iter(_by_machine(flags, found, cases, target, unsafe, machine)), None)
    if winner is None:
        return _breaking(flags, found, templates, cases, (target, source, unsafe, since), planner)
    left = tuple(
        ("LM101", flag, *_why_left(flags, flag, templates, cases, target)) for flag in _left(winner, target)
    )
    left += next(filter(None, (_deprecated_families(c.keep, target) for c in cases if c.keep)), ())
    if winner == flags:
        return Refusal(left[0][0], left[0][2], left[0][1], details=left[0][3]) if left else Unchanged()
    kept = tuple(sorted({r for r in RELEASES if since <= r < target} if source is None else {source}))
    changes = _unsafe_changes(flags, winner, cases, target) if unsafe else ()
    return Rewrite(winner, kept or (since,), changes, notes=_domains_note(found), left=left)


def _unsafe_changes(
    flags: Mapping[str, Known], winner: Template, cases: list[Case], target: Version
) -> tuple[str, ...]:
    """What the `--unsafe-fixes` rewrite changes, and for which values (``find_unused_parameters True ->
    False for gpus=2, 4 or 8``)."""
    found: dict[str, list[str]] = {}
    for case in cases:
        if case.keep is None:
            continue
        fields = modernizable(substitute(flags, case), target)
        for concrete, keep in _on_machines(winner, case):
            for change in differences(concrete, keep, target, fields):
                values = found.setdefault(change, [])
                values += [f"{flag}={value!r}" for flag, value in case.values.items()]
    return tuple(f"{change} for {_joined(values, ' or ')}" for change, values in found.items())


def _rereads_otherwise(template: Template, cases: list[Case], source: Version) -> bool:
    return any(
        case.keep is not None and rereads_otherwise(concrete, keep, source, case.same)
        for case in cases
        for concrete, keep in _on_machines(template, case)
    )


def _domains_note(found: Mapping[str, Hole]) -> tuple[str, ...]:
    """What the rewrite was checked for: the values each run-time value was taken to range over."""
    ranged = [hole for hole in found.values() if isinstance(hole, RunTime)]
    ranged += [
        b
        for hole in found.values()
        if isinstance(hole, Choice)
        for b in hole.branches
        if isinstance(b, RunTime)
    ]
    if not ranged:
        return ()
    spelled = "; ".join(f"`{value!r}` in {_listed(value.domain)}" for value in ranged)
    return (f"the same for every value it may take at run time: {spelled}",)


# --- cases --------------------------------------------------------------------------------------------------


def _cases(
    flags: Mapping[str, Known],
    found: Mapping[str, Hole],
    target: Version,
    source: Version | None,
    unsafe: bool,
    since: Version,
    planner: Planner,
) -> list[Case] | Decision:
    combinations = _assignments(found)
    if len(combinations) > MAX_CASES:
        return Refusal(
            "LM101",
            _named(found, ": run-time values with too many combinations to check; use `--shim`"),
            details=(f"{len(combinations)} combinations of values, more than the {MAX_CASES} judged",),
        )
    sources = (source,) if source else tuple(r for r in RELEASES if since <= r < target) or (since,)
    cases: list[Case] = []
    for branches, given in combinations:
        values = {k: value for k, value in given.items() if not k.startswith(MACHINE)}
        facts = tuple((k[len(MACHINE) :], value) for k, value in given.items() if k.startswith(MACHINE))
        whole = substitute(flags, Case(values, branches, None, comparable))
        same = modernized(modernizable(whole, target)) if unsafe else comparable
        behaviour = _behaviour(whole, sources)
        if isinstance(behaviour, Refusal):
            if behaviour.code != "LM100":  # the releases disagree: no rewrite can keep both
                cases.append(Case(values, branches, None, same, behaviour.message, behaviour.details, facts))
            # (a value no source release builds on any machine is one the old code never ran with)
            continue
        keep = behaviour[0]
        if facts:  # (judged only where the machine says what the tests took it to say)
            keep = {m: setup for m, setup in keep.items() if on_machine(dict(facts), m.cuda)}
            if not keep:
                continue
        cases.append(Case(values, branches, keep, same, facts=facts))
    if not cases:  # the sources built no value of it: no release builds it, or it is not their code
        nowhere = _nowhere(flags, found, combinations, target, planner)
        return nowhere or _as_written(flags, found, combinations, (target, source, unsafe, since), planner)
    return cases


def _assignments(found: Mapping[str, Hole]) -> list[Assignment]:
    """Every (branch, value) the unknown flags may take together, at most ``MAX_CASES + 1`` of them: where
    a conditional's tests read a value the call passes elsewhere too, each value of it once, every keyword
    computed from it (``knowledge.joint``); else each flag's values and branches independently."""
    related = joint(found, MAX_CASES)
    if related is not None:
        return related[: MAX_CASES + 1]
    options = [list(values_of(hole)) for hole in found.values()]
    combinations = itertools.islice(itertools.product(*options), MAX_CASES + 1)
    return [
        (
            {flag: index for flag, (index, _) in zip(found, combination)},
            {flag: value for flag, (_, value) in zip(found, combination)},
        )
        for combination in combinations
    ]


def _nowhere(
    flags: Mapping[str, Known],
    found: Mapping[str, Hole],
    combinations: Sequence[Assignment],
    target: Version,
    planner: Planner,
) -> Refusal | None:
    """Where no release builds the call with any of its values (a test of a conflict, its values listed by
    `pytest.mark.parametrize`): what the target says of the first (``rejected``); None otherwise."""
    first: tuple[dict[str, Value], Refusal] | None = None
    for branches, values in combinations:
        told = rejected.everywhere(
            substitute(flags, Case(values, branches, None, comparable)), target, planner
        )
        if told is None:
            return None
        first = first or (values, told)
    if first is None:
        return None
    values, told = first
    message = _named(found, f": {told.message}")
    return replace(
        told, message=message, details=(f"when {keywords(values)} (a value it may take)", *told.details)
    )


def _as_written(
    flags: Mapping[str, Known],
    found: Mapping[str, Hole],
    combinations: Sequence[Assignment],
    run: tuple[Version, Version | None, bool, Version],
    planner: Planner,
) -> Decision:
    """Where no source release builds the call with any of its values, yet some release does (the target's
    own form, `strategy=` for 1.5 with 1.4 its only source): each value judged as if written. Unchanged where
    each is (a value no release builds is one the code never runs with), else what is said of the first
    value that is not, naming it."""
    for branches, values in combinations:
        decision = planner(substitute(flags, Case(values, branches, None, comparable)), *run)
        if isinstance(decision, Unchanged) or (isinstance(decision, Refusal) and decision.nowhere):
            continue
        assert isinstance(decision, Refusal), "no source release builds it: nothing to keep"
        details = (f"when {keywords(values)} (a value it may take)", *decision.details)
        return replace(decision, message=_named(found, f": {decision.message}"), details=details)
    return Unchanged()


def substitute(
    template: Mapping[str, Known], case: Case, hardware: Hardware | None = None
) -> dict[str, Value]:
    """``template`` with the case's values in place of the unknown ones (on ``hardware``: a test of the
    machine the planner wrote, ``Choice.machine``, takes that machine's branch)."""
    out: dict[str, Value] = {}
    for key, value in template.items():
        if isinstance(value, RunTime):
            out[key] = case.values[value.flag]
        elif isinstance(value, Choice) and value.machine:
            assert hardware is not None, "a test of the machine is judged machine by machine"
            given = case.values.get(value.flag) if value.split else None  # (a split value's part, tested too)
            out[key] = value.branches[machine_branch(value, hardware.cuda, given)]  # type: ignore[assignment]
        elif isinstance(value, Choice):
            branch = value.branches[_branch(value, case)]
            out[key] = case.values[value.flag] if isinstance(branch, RunTime) else branch
        else:
            out[key] = value
    return out


def _on_machines(template: Mapping[str, Known], case: Case) -> list[tuple[dict[str, Value], Behaviour]]:
    """``template`` with the case's values, and the machines of ``case.keep`` on which it is that call: one
    call for all of them, or one per machine where the template tests the machine (``Choice.machine``)."""
    assert case.keep is not None
    if not any(isinstance(v, Choice) and v.machine for v in template.values()):
        return [(substitute(template, case), case.keep)]
    groups: dict[str, tuple[dict[str, Value], Behaviour]] = {}
    for machine, setup in case.keep.items():
        concrete = substitute(template, case, machine)
        key = repr(sorted(concrete.items(), key=str))
        groups.setdefault(key, (concrete, {}))[1][machine] = setup
    return list(groups.values())


def _branch(choice: Choice, case: Case) -> int:
    """The branch of ``choice`` the case takes: a conditional the planner wrote over a split value
    (``_written``) as its tests evaluate with the case's value; else the case's own."""
    if not (choice.split and choice.conditions):
        return case.branches[choice.flag]
    value = case.values[choice.flag]
    return next((i for i, c in enumerate(choice.conditions) if holds(c, value)), len(choice.conditions))


# --- templates ----------------------------------------------------------------------------------------------


def _templates(
    flags: Mapping[str, Known],
    found: Mapping[str, Hole],
    cases: Sequence[Case],
    target: Version,
    unsafe: bool,
    read: frozenset[str] = frozenset(),
) -> list[Template]:
    """Every candidate of every case with the unknown values taken back out, cheapest first (a value in
    ``read`` is read elsewhere, a split conditional's test: a template need not keep it)."""
    templates: dict[object, Template] = {}
    for case in cases:
        if case.keep is None:
            continue
        for candidate in _candidates(substitute(flags, case), case.keep, target, unsafe):
            for template in _abstract(candidate, flags, found, case, read):
                templates.setdefault(tuple((k, token(val)) for k, val in template.items()), template)
    return sorted(templates.values(), key=lambda template: _cost(flags, template))  # type: ignore[arg-type]


def _abstract(
    candidate: Mapping[str, Value],
    flags: Mapping[str, Known],
    found: Mapping[str, Hole],
    case: Case,
    read: frozenset[str],
) -> Iterator[Template]:
    """``candidate`` (a rewrite of the call with ``case``'s values) with every unknown value as written, at
    its own keyword or at one the call does not have; nothing when the candidate changes one. A value in
    ``read`` may also stay the candidate's literal, or go."""
    templates: list[Template] = [dict(candidate)]
    for flag, hole in found.items():
        value = case.values[flag]
        if flag in candidate and _same(candidate[flag], value):
            where: str | None = flag
        else:
            moved = [k for k, val in candidate.items() if k not in flags and _same(val, value)]
            where = None if flag in candidate or not moved else moved[0]
        if where is None and flag not in read:
            return
        if where is not None:
            kept = [{**template, where: hole} for template in templates]
            templates = kept + templates if flag in read else kept
    yield from templates


def _same(a: Value, b: Value) -> bool:
    return type(a) is type(b) and a == b


def _broken(
    template: Mapping[str, Known],
    cases: Sequence[Case],
    target: Version,
    first: bool = False,
    most: int | None = None,
) -> list[tuple[Case, str]]:
    """The cases ``template`` does not keep, each with what goes wrong (only the first with ``first``, at
    most ``most``: enough to tell it breaks no fewer than another template)."""
    most = 1 if first else most
    tolerated = frozenset(_left(template, target))
    broken: list[tuple[Case, str]] = []
    for case in cases:
        if len(broken) == most:
            break
        why = case.why
        if case.keep is not None:
            for concrete, keep in _on_machines(template, case):
                found = difference(concrete, keep, target, case.same, tolerated)
                verb = "" if found is None or found[1].startswith("raises ") else "gives "
                why = f"on {found[0].describe()}, Lightning {target} {verb}{found[1]}" if found else ""
                if not why and _misplaced(concrete, target):
                    why = f"the training type stays outside `strategy=`, never Lightning {target}'s form"
                if why:
                    break
        if why:
            broken.append((case, why))
    return broken


def _left(template: Mapping[str, Known], target: Version) -> list[str]:
    """The unknown values left as written at a keyword ``target`` deprecates: work for the user (its
    warning is not held against the rewrite, which keeps the value where it was)."""
    return [
        k
        for k, val in template.items()
        if isinstance(val, (RunTime, Choice)) and val.flag == k and not current(k, target)
    ]


def _choices(
    flags: dict[str, Known],
    found: Mapping[str, Hole],
    cases: list[Case],
    target: Version,
    source: Version | None,
    unsafe: bool,
    since: Version,
    planner: Planner,
) -> Iterator[tuple[Choice, dict[str, Known], list[Case]]]:
    """The conditionals a call may be rewritten branch by branch on: the one it has, or else one made of a
    run-time value split into parts by its tests (``gpus=n`` is the CPU for 0 and None, GPUs otherwise:
    ``accelerator="cuda" if n else "cpu"``; and 1.x spawned with `find_unused_parameters=True` for n > 1),
    plainest first, each with the call and its cases in its terms."""
    written = next((hole for hole in found.values() if isinstance(hole, Choice)), None)
    if written is not None:
        yield written, flags, cases
        return
    for flag, hole in found.items():
        assert isinstance(hole, RunTime)
        for parts in _partitions(hole, value_tests(hole)):
            choice = Choice(flag, parts, (hole.text,), hole.pure, split=True)
            split = {**flags, flag: choice}
            split_cases = _cases(split, holes(split), target, source, unsafe, since, planner)
            if isinstance(split_cases, list):
                yield choice, split, split_cases


def _partitions(hole: RunTime, tests: Sequence[ValueTest]) -> Iterator[tuple[RunTime, ...]]:
    """The parts ``hole``'s domain falls into by what one of its ``tests`` gives, then by what two give
    together (its truth and `n > 1`: 0, 1 and more): 2 to ``MAX_PARTS`` parts, each partition once, the
    values a test holds for first."""
    seen: set[frozenset[str]] = set()
    for size in (1, 2):
        for chosen in itertools.combinations(tests, size):
            classes: dict[tuple[bool, ...], list[Value]] = {}
            for value in hole.domain:
                classes.setdefault(tuple(holds(t.condition, value) for t in chosen), []).append(value)
            parts = [tuple(classes[key]) for key in sorted(classes, reverse=True)]
            spelled = frozenset(repr(part) for part in parts)
            if 2 <= len(parts) <= MAX_PARTS and spelled not in seen:
                seen.add(spelled)
                yield tuple(replace(hole, domain=part) for part in parts)


# --- a conditional, branch by branch ------------------------------------------------------------------------


def _by_branch(
    flags: Mapping[str, Known],
    choice: Choice,
    cases: Sequence[Case],
    target: Version,
    unsafe: bool,
    machine: str = "",
) -> Template | None:
    """The cheapest merge of rewrites of each branch of ``choice`` that keeps every case, if any."""
    per_branch: list[list[Template]] = []
    group = _same_tests(choice, flags)
    linked = _linked_value(choice, flags)
    by_branch: list[list[Value]] = []  # the values of ``linked`` in each branch
    for index, branch in enumerate(choice.branches):
        sub = {**flags, choice.flag: branch, **{other.flag: other.branches[index] for other in group}}
        mine = [case for case in cases if case.branches[choice.flag] == index]
        templates = _templates(sub, holes(sub), mine, target, unsafe, _split_reads(choice))
        ranked = sorted(templates, key=lambda t: len(_left(t, target)))
        passing = [t for t in ranked if not _broken(t, mine, target, first=True)][:MAX_BRANCH_TEMPLATES]
        if not passing and machine:
            passing = _by_machine(sub, holes(sub), mine, target, unsafe, machine, _split_reads(choice))
        if linked is not None and all(_left(t, target) for t in passing):  # (none, or none but old keywords)
            nested = _split_branch(sub, linked, mine, target, unsafe, machine) or _without(
                sub, linked, mine, target, unsafe
            )
            passing = [nested, *passing] if nested is not None else passing
        if not passing:
            return None
        per_branch.append(passing)
        if linked is not None:
            seen = {token(case.values[linked]) for case in mine}
            domain = flags[linked].domain  # type: ignore[union-attr]
            by_branch.append([value for value in domain if token(value) in seen])
    tests = value_tests(_whole(choice)) if choice.split else ()
    lifted = (linked, by_branch) if linked is not None else None
    merges = [
        merged
        for combination in itertools.product(*per_branch)
        for merged in _merges(choice, combination, target, tests, group, lifted)
    ]
    # no deprecated keyword left first, then the fewest tests written, then the fewest branches left at a
    # default (`devices=n or 1` says more than `devices=n or None`), then the smallest edit
    for merged in sorted(merges, key=lambda m: _rank(m, flags, target)):
        if not _broken(merged, cases, target, first=True):
            return merged
    return None


def _linked_value(choice: Choice, flags: Mapping[str, Known]) -> str | None:
    """The keyword whose run-time value a conditional the call wrote tests, and tests alone (`gpus=n,
    accelerator="ddp" if n > 1 else None`: ``joint`` took each value of `n` once, with the branch it
    gives), where a branch may be split by that value's own tests (``_split_branch``); None otherwise."""
    if choice.split or choice.machine or not choice.pure or choice.conditions is None:
        return None
    read = {atom.key for condition in choice.conditions for atom, _ in reads(condition)}
    if len(read) != 1:
        return None
    key = next(iter(read))
    return next(
        (
            flag
            for flag, value in flags.items()
            if isinstance(value, RunTime) and value.pure and key_of(value.text) == key and flag != choice.flag
        ),
        None,
    )


def _split_branch(
    sub: Mapping[str, Known], flag: str, cases: Sequence[Case], target: Version, unsafe: bool, machine: str
) -> Template | None:
    """A branch of a conditional the call wrote that no template keeps, where the conditional tests the
    run-time value at ``flag`` alone: that value split by its own tests among the values the branch has
    (`accelerator="ddp" if n > 1 else None` with `gpus=n`: the `else` branch has 0, 1 and -1), and the
    branch rewritten part by part (``_by_branch``); None where no split keeps it."""
    hole = sub[flag]
    assert isinstance(hole, RunTime)
    seen = {token(case.values[flag]) for case in cases}
    narrowed = replace(hole, domain=tuple(value for value in hole.domain if token(value) in seen))
    for parts in _partitions(narrowed, value_tests(narrowed)):
        split = Choice(flag, parts, (hole.text,), hole.pure, split=True)
        split_cases = [
            replace(case, branches={**case.branches, flag: _part_of(parts, case.values[flag])})
            for case in cases
        ]
        merged = _by_branch({**sub, flag: split}, split, split_cases, target, unsafe, machine)
        if merged is not None:
            return merged
    return None


def _without(
    sub: Mapping[str, Known], flag: str, cases: Sequence[Case], target: Version, unsafe: bool
) -> Template | None:
    """A branch of a conditional the call wrote over the run-time value at ``flag`` alone, rewritten with
    that value's literal where the branch holds no value of it that needs it read (`precision=16 if n > 0
    else 32` beside `gpus=n`: the `else` branch is n = 0, `accelerator="cpu", devices=1`); the cheapest
    template that keeps the branch and leaves no keyword the target deprecates, if any."""
    templates = _templates(sub, holes(sub), cases, target, unsafe, frozenset({flag}))
    kept = (t for t in templates if not _left(t, target) and not isinstance(t.get(flag), RunTime))
    return next((t for t in kept if not _broken(t, cases, target, first=True)), None)


def _part_of(parts: Sequence[RunTime], value: Value) -> int:
    return next(i for i, part in enumerate(parts) if any(token(v) == token(value) for v in part.domain))


def _lift(
    choice: Choice, values: Sequence[Known], flag: str, by_branch: Sequence[Sequence[Value]]
) -> Choice | None:
    """A keyword's ``values`` in the branches of a conditional the call wrote that tests the run-time value
    at ``flag`` alone, where some branch was split by that value's own tests (``_split_branch``): the split
    conditional alone where it gives every other branch's value for each of the branch's values
    (`accelerator="cuda" if n else "cpu"`, `devices=n or 1`); else the call's tests, then the split's, in
    one chain (`"ddp" if n > 1 else "ddp_spawn" if n and n != 1 and torch.cuda.device_count() > 1 else
    "auto"`). None where another value is unknown too."""
    if any(isinstance(v, RunTime) and v.flag != flag for v in values):
        return None
    splits = [v for v in values if isinstance(v, Choice)]
    if not splits:
        return _or_default(values, by_branch)
    if any(not (v.split and v.flag == flag) for v in splits):
        return None
    first = splits[0]
    if all(token(v) == token(first) for v in splits) and all(
        isinstance(v, Choice) or _gives(first, v, by_branch[index]) for index, v in enumerate(values)
    ):
        return first
    last = values[-1]
    if not isinstance(last, Choice) or len(splits) != 1 or first.conditions is None:
        return None
    assert choice.conditions is not None
    return Choice(
        flag,
        (*values[:-1], *last.branches),  # type: ignore[arg-type]
        (*choice.tests, *last.tests),
        choice.pure and last.pure,
        True,
        (*choice.conditions, *first.conditions),
        machine=last.machine,
    )


def _or_default(values: Sequence[Known], by_branch: Sequence[Sequence[Value]]) -> Choice | None:
    """The value itself in some branches, one literal in the others (`devices=n` for `n > 1`, `devices=1`
    for 0 and 1): `n or 1` where that gives each branch's value for each of its values; None otherwise."""
    held = [v for v in values if isinstance(v, RunTime)]
    literals = [v for v in values if not isinstance(v, (RunTime, Choice))]
    if not held or not literals or any(token(v) != token(literals[0]) for v in literals):
        return None
    value, default = held[0], literals[0]
    either = Choice(
        value.flag, (value, default), (value.text,), value.pure, True, (Atom(key_of(value.text)),)
    )
    if all(_gives(either, v, by_branch[index]) for index, v in enumerate(values)):
        return either
    return None


def _gives(split: Choice, value: Known, domain: Sequence[Value]) -> bool:
    """Does ``split`` (a split value's conditional) give ``value`` (a literal, or the value itself) for each
    value of ``domain``?"""
    if split.machine or split.conditions is None:
        return False
    for held in domain:
        index = next((i for i, c in enumerate(split.conditions) if holds(c, held)), len(split.conditions))
        branch = split.branches[index]
        got = held if isinstance(branch, RunTime) else branch
        want = held if isinstance(value, RunTime) else value
        if type(got) is not type(want) or token(got) != token(want):
            return False
    return True


def _same_tests(choice: Choice, flags: Mapping[str, Known]) -> tuple[Choice, ...]:
    """The other conditionals of the call chosen by the very tests of ``choice`` (``gpus=gpus,
    distributed_backend=backend`` after ``gpus = -1 if torch.cuda.is_available() else None`` and ``backend
    = "ddp" if torch.cuda.is_available() else None``): one outcome of the tests picks the same branch of
    each, so they are rewritten together, branch by branch. Only tests that read values alone (``pure``)
    and that the planner evaluates (``joint`` then took the branches together)."""
    if choice.split or not choice.pure or choice.conditions is None:
        return ()
    keys = tuple(map(key_of, choice.tests))
    return tuple(
        other
        for flag, other in flags.items()
        if isinstance(other, Choice)
        and flag != choice.flag
        and other.pure
        and not other.split
        and other.conditions is not None
        and len(other.branches) == len(choice.branches)
        and tuple(map(key_of, other.tests)) == keys
    )


def _merges(
    choice: Choice,
    templates: Sequence[Template],
    target: Version,
    tests: Sequence[ValueTest] = (),
    group: Sequence[Choice] = (),
    lifted: tuple[str, Sequence[Sequence[Value]]] | None = None,
) -> Iterator[Template]:
    """Templates whose keywords take, branch by branch, the values of ``templates`` (one per branch of
    ``choice``): equal values once, different ones as a conditional expression, with ``choice``'s tests
    (one the call wrote) or with ``tests`` of the value split (``_written``). A keyword a branch leaves out
    takes its default there. A conditional of ``group`` (chosen by the same tests) whose branches a keyword
    keeps is kept as written."""
    keys = list(dict.fromkeys(k for template in templates for k in template))
    merged: Template = {}
    kept = 0
    # a split value's parts that test the machine, each with the value's part tested too (`_machine_parts`),
    # where the machine's test alone is also tried
    joined: Template = {}
    owned: set[str] = set()  # the keywords that keep a conditional of ``group`` as written
    for key in keys:
        values = [template.get(key, _absent(key, target)) for template in templates]
        if any(value is _NO_DEFAULT for value in values):
            return
        own = _written_as(key, values, (choice, *group) if group else (), merged)
        tested = _machine_tested(values)
        parts = _machine_parts(choice, values, tests) if choice.split else None
        if tested is not None:
            merged[key] = tested
            if parts is not None:
                joined[key] = parts
        elif parts is not None:
            merged[key] = parts
        elif own is not None:
            merged[key] = own
            kept += 1
            owned.add(key)
        elif all(token(value) == token(values[0]) for value in values):
            merged[key] = values[0]
        elif all(isinstance(v, RunTime) and v.text == values[0].text for v in values):  # type: ignore[union-attr]
            # the same expression in each branch (a split value's parts): as written, with all its values
            domain = tuple(d for v in values for d in v.domain)  # type: ignore[union-attr]
            merged[key] = replace(values[0], domain=domain)  # type: ignore[type-var]
        elif lifted is not None and (one := _lift(choice, values, *lifted)) is not None:
            merged[key] = one  # (a branch split by the value the call's tests read)
        elif any(isinstance(v, (Choice, RunTime)) and v.flag != choice.flag for v in values):
            return  # another unknown value would be written twice
        elif choice.split:
            written = _written(choice, values, tests)
            if written is None:
                return
            merged[key] = written
        else:
            merged[key] = choice.with_branches(tuple(values))  # type: ignore[arg-type]
    if choice.split:
        # each test is written with the value's expression, evaluated once more for each (and for each branch
        # that is the value itself); `n or 1` is one read, and reads as a default rather than a test
        for candidate in (merged, {**merged, **joined}) if joined else (merged,):
            ifs = sum(
                len(v.tests)
                for k, v in candidate.items()
                if isinstance(v, Choice)
                and not or_form(v)
                and (not v.machine or v.split)
                and not _untouched(k, v, choice)
            )
            if ifs <= MAX_CONDITIONALS and (choice.pure or _read(candidate, choice) <= 1):
                yield candidate
        return
    # one conditional evaluates the tests once, as the call did; more write them again (and read worse):
    # at most one more than the call wrote (a conditional of ``group`` is one it wrote)
    # (a test of the machine is no repetition of the call's)
    # (nor is a conditional the call wrote at another keyword, kept as it is, nor `n or 1`)
    count = (
        sum(
            isinstance(value, Choice)
            and (not value.machine or value.split)
            and not (value.split and or_form(value))
            and (key in owned or not _untouched(key, value, choice))
            for key, value in merged.items()
        )
        - kept
    )
    # (a conditional bound to a name is written again where it is bound, if only the call reads it)
    limit = MAX_CONDITIONALS + len(group) + (choice.name is not None) - kept
    if count <= 1 or (choice.pure and count <= limit):
        yield merged


def _untouched(key: str, value: Choice, choice: Choice) -> bool:
    """Is ``value`` a conditional the call wrote at ``key``, of another keyword than ``choice``'s, kept as
    it is (`precision=16 if args.amp else 32` beside the `gpus=` split): no test the rewrite writes."""
    return value.flag == key != choice.flag and not value.split and not value.machine


def _machine_tested(values: Sequence[Known]) -> Choice | None:
    """Where some branches test the machine for a keyword (``Choice.machine``, all alike) and the others
    take one of that test's values: the test alone, for every branch (the judge says whether the machines
    of the other branches take that value)."""
    tested = [v for v in values if isinstance(v, Choice) and v.machine]
    if not tested or any(token(v) != token(tested[0]) for v in tested):
        return None
    spelled = {token(b) for b in tested[0].branches}
    others = [v for v in values if not (isinstance(v, Choice) and v.machine)]
    return tested[0] if all(token(v) in spelled for v in others) else None


def _machine_parts(choice: Choice, values: Sequence[Known], tests: Sequence[ValueTest]) -> Choice | None:
    """A keyword's ``values`` in each part of a split value (``choice``) where some parts test the machine
    (``_by_machine``: `"ddp_spawn" if torch.cuda.device_count() > 1 else "auto"`, all alike) and every other
    part takes that test's last branch: one conditional whose test is a test of the value that holds for
    exactly the parts that test the machine, joined to the machine's (`gpus=-1` is every GPU, one or several
    by the machine, where `gpus=2` is several on every machine that runs it: `"ddp_spawn" if n and n != 1
    and torch.cuda.device_count() > 1 else "auto"`). None otherwise."""
    tested = [v for v in values if isinstance(v, Choice) and v.machine]
    if not tested or any(token(v) != token(tested[0]) for v in tested):
        return None
    machine = tested[0]
    if machine.split or len(machine.branches) != 2 or machine.conditions is None:
        return None
    rest = machine.branches[-1]
    if any(not (isinstance(v, Choice) and v.machine) and token(v) != token(rest) for v in values):
        return None
    inside = {i for i, v in enumerate(values) if isinstance(v, Choice) and v.machine}
    domain = [(i, value) for i, part in enumerate(choice.branches) for value in part.domain]  # type: ignore[union-attr]
    test = next(
        (
            t
            for t in (*tests, *joined_tests(tests))
            if all(holds(t.condition, value) == (i in inside) for i, value in domain)
        ),
        None,
    )
    if test is None:
        return None
    text = f"{test.text} and {machine.tests[0]}"
    condition = Op("and", (test.condition, machine.conditions[0]))
    return Choice(choice.flag, machine.branches, (text,), choice.pure, True, (condition,), machine=True)


def _written_as(
    key: str, values: Sequence[Known], conditionals: Sequence[Choice], merged: Mapping[str, Known]
) -> Choice | None:
    """The conditional the call wrote (one of ``conditionals``, chosen by the same tests) whose branches are
    ``values``, kept as written at ``key`` (its own keyword first; at most one keyword each)."""
    matching = [
        c
        for c in conditionals
        if all(token(v) == token(b) for v, b in zip(values, c.branches))
        and not any(m is c for m in merged.values())
    ]
    return next((c for c in matching if c.flag == key), matching[0] if matching else None)


def _whole(choice: Choice) -> RunTime:
    """The run-time value a split ``choice`` was made of, with all its values."""
    parts = [part for part in choice.branches if isinstance(part, RunTime)]
    return replace(parts[0], domain=tuple(value for part in parts for value in part.domain))


def _written(choice: Choice, values: Sequence[Known], tests: Sequence[ValueTest]) -> Choice | None:
    """A keyword's ``values`` in each part of a value split (``choice``), as one conditional expression over
    the value's own expression: tests of ``tests`` that pick exactly the parts of each branch, for every
    value of the domain (the last branch takes the rest); the fewest tests, then the plainest. None where no
    chain of fewer than ``MAX_PARTS`` tests does."""
    groups: dict[object, list[int]] = {}
    for index, value in enumerate(values):
        groups.setdefault(_same_part(value, choice), []).append(index)
    best: tuple[tuple[int, ...], list[list[int]], list[ValueTest]] | None = None
    for order in itertools.permutations(groups.values()):
        chain = _chain(choice, list(order), tests)
        if chain is not None:
            rank = (len(chain), *sorted(tests.index(test) for test in chain))
            if best is None or rank < best[0]:
                best = (rank, list(order), chain)
    if best is None:
        return None
    _, ordered, chain = best
    branches = []
    for indices in ordered:
        value = values[indices[0]]
        if isinstance(value, RunTime):  # the value itself, in each of these parts: all their values
            value = replace(value, domain=tuple(d for i in indices for d in choice.branches[i].domain))  # type: ignore[union-attr]
        branches.append(value)
    conditions = tuple(test.condition for test in chain)
    texts = tuple(test.text for test in chain)
    return Choice(choice.flag, tuple(branches), texts, choice.pure, split=True, conditions=conditions)  # type: ignore[arg-type]


def _same_part(value: Known, choice: Choice) -> object:
    """What tells a keyword's values apart across a split value's parts: the value itself is one, whichever
    part holds it."""
    if isinstance(value, RunTime) and value.flag == choice.flag:
        return ("the value itself", value.text)
    return token(value)


def _chain(choice: Choice, order: list[list[int]], tests: Sequence[ValueTest]) -> list[ValueTest] | None:
    """Tests that pick, one after another, each group of ``choice``'s parts in ``order`` but the last
    (which takes the rest): each the first of ``tests`` that holds for exactly the values of its group
    among those left."""
    left = [(index, value) for index, part in enumerate(choice.branches) for value in part.domain]  # type: ignore[union-attr]
    chain: list[ValueTest] = []
    for group in order[:-1]:
        test = next(
            (t for t in tests if all(holds(t.condition, value) == (i in group) for i, value in left)), None
        )
        if test is None:
            return None
        chain.append(test)
        left = [(i, value) for i, value in left if i not in group]
    return chain


def _read(merged: Template, choice: Choice) -> int:
    """How many times the rewrite evaluates the value split (``choice``)."""
    count = 0
    for value in merged.values():
        if isinstance(value, RunTime) and value.flag == choice.flag:
            count += 1
        elif isinstance(value, Choice) and value.flag == choice.flag:
            atoms = sum(1 for c in value.conditions or () for atom, _ in reads(c) if not atom.machine)
            itself = sum(isinstance(branch, RunTime) for branch in value.branches)
            count += 1 if or_form(value) else atoms + itself
    return count


def _split_reads(choice: Choice) -> frozenset[str]:
    """The value a split conditional reads in its test: its branches need not keep it."""
    return frozenset({choice.flag}) if choice.split else frozenset()


def _rank(merged: Template, flags: Mapping[str, Known], target: Version) -> tuple[int, ...]:
    """Branches that read badly cost: a default (`devices=n or None`; but not a strategy's, which says
    Lightning's own choice for one device: `"ddp_spawn" if n > 1 else "auto"`), the value tested written
    again other than as `n or ...` (`"cpu" if n else n`, where `else None` says what n is), an object built
    from scratch (`DDPSpawnPlugin(...) if n else "ddp_spawn"`)."""
    unclear = sum(
        _unclear(index, branch, key)
        for key, value in merged.items()
        if isinstance(value, Choice)
        for index, branch in enumerate(value.branches)
    )
    return len(_left(merged, target)), _conditionals(merged), unclear, _cost(flags, merged)  # type: ignore[arg-type]


def _unclear(index: int, branch: Value | RunTime, key: str) -> int:
    if branch is None or branch == "auto":
        return int(key != "strategy")
    if index and isinstance(branch, RunTime):
        return 2
    return 3 if isinstance(branch, Obj) else 0


def _conditionals(template: Mapping[str, Known]) -> int:
    """The tests ``template`` writes (a conditional of two tests, `a if n > 1 else b if n else c`, two)."""
    return sum(len(value.tests) for value in template.values() if isinstance(value, Choice))


_NO_DEFAULT = object()
# The keywords a branch may leave out where another branch sets them: left out, they are at their default.
_FILLED = frozenset({"strategy", "accelerator", "devices", "plugins"})


def _absent(flag: str, target: Version) -> Known:
    """What leaving ``flag`` out means in ``target``, written out; ``_NO_DEFAULT`` for a flag not filled."""
    if flag not in _FILLED:
        return _NO_DEFAULT  # type: ignore[return-value]
    return "auto" if target >= V20 and flag != "plugins" else None


# --- a test of the machine ----------------------------------------------------------------------------------
#
# 1.x chose the strategy by the number of GPUs a call used (`ddp_spawn` for several, with
# find_unused_parameters=True; one GPU alone), 2.x by its own rules: `gpus=-1` ("every GPU") cannot be
# told one GPU from several by any value the call holds. The machine can: where no template keeps a call (or a
# branch of it), its strategy may be written as a test of the machine's GPU count, with the name the file
# imports torch as (``torch.cuda.device_count() > 1``), judged machine by machine.


def _by_machine(
    flags: Mapping[str, Known],
    found: Mapping[str, Hole],
    cases: Sequence[Case],
    target: Version,
    unsafe: bool,
    machine: str,
    read: frozenset[str] = frozenset(),
) -> list[Template]:
    """Templates that keep ``cases`` with a strategy chosen by the machine's GPU count: one template kept on
    the machines with several CUDA GPUs, another on the rest, that differ only in ``strategy=``."""
    halves: list[list[Template]] = []
    for many_gpus in (True, False):
        part = [
            replace(case, keep={m: s for m, s in case.keep.items() if (m.cuda > 1) == many_gpus})
            for case in cases
            if case.keep is not None
        ]
        part = [case for case in part if case.keep]
        templates = _templates(flags, found, part, target, unsafe, read)
        ranked = sorted(templates, key=lambda t: len(_left(t, target)))
        halves.append([t for t in ranked if not _broken(t, part, target, first=True)][:MAX_BRANCH_TEMPLATES])
    test = f"{machine}.cuda.device_count() > 1"
    atom = Atom(key_of(f"{machine}.cuda.device_count()"), machine="torch.cuda.device_count")
    condition = Op("compare", (atom, Const(1)), (">",))
    out: list[Template] = []
    for many, few in itertools.product(*halves):
        keys = list(dict.fromkeys([*many, *few]))
        if "strategy" not in keys:
            continue
        given = [(many.get(k, _absent(k, target)), few.get(k, _absent(k, target))) for k in keys]
        if any(a is _NO_DEFAULT or b is _NO_DEFAULT for a, b in given):
            continue
        if any(token(a) != token(b) for k, (a, b) in zip(keys, given) if k != "strategy"):
            continue
        several, one = given[keys.index("strategy")]
        if (
            token(several) == token(one)
            or isinstance(several, (Choice, RunTime))
            or isinstance(one, (Choice, RunTime))
        ):
            continue
        strategy = Choice("strategy", (several, one), (test,), True, conditions=(condition,), machine=True)
        merged = {k: (strategy if k == "strategy" else a) for k, (a, _) in zip(keys, given)}
        if merged not in out and not _broken(merged, cases, target, first=True):
            out.append(merged)
    return sorted(out, key=lambda t: _cost(flags, t))  # type: ignore[arg-type]


def by_machine(
    flags: dict[str, Value],
    target: Version,
    source: Version | None,
    unsafe: bool,
    since: Version,
    planner: Planner,
    machine: str,
) -> Rewrite | None:
    """A call whose values are all written (``Trainer(gpus=-1)``) that no spelling keeps, rewritten with a
    strategy chosen by the machine's GPU count where that keeps it (``_by_machine``); None otherwise."""
    known: dict[str, Known] = dict(flags)
    cases = _cases(known, {}, target, source, unsafe, since, planner)
    if not isinstance(cases, list) or any(case.keep is None for case in cases):
        return None
    winner = next(iter(_by_machine(known, {}, cases, target, unsafe, machine)), None)
    if winner is None or _left(winner, target):
        return None
    kept = tuple(sorted({r for r in RELEASES if since <= r < target} if source is None else {source}))
    changes = _unsafe_changes(known, winner, cases, target) if unsafe else ()
    left = next(filter(None, (_deprecated_families(c.keep, target) for c in cases if c.keep)), ())
    return Rewrite(winner, kept or (since,), changes, left=left)


# --- what the user is told ----------------------------------------------------------------------------------


def _breaking(
    flags: Mapping[str, Known],
    found: Mapping[str, Hole],
    templates: Sequence[Template],
    cases: Sequence[Case],
    run: tuple[Version, Version | None, bool, Version],
    planner: Planner,
) -> Refusal:
    """Why no rewrite keeps the call for every run-time value: where no rewrite keeps it for any value,
    what the call with the first of them is told; else (LM101) the rewrite that holds for the most values,
    the values that break it and what it does with the first of them."""
    target = run[0]
    best = _closest(_changed(flags, templates), cases, target)
    accepted = [case for case in cases if case.keep is not None]
    refused: list[str] = []  # what the call is told with a value no rewrite keeps even alone
    if accepted and (best is None or len(best[1]) == len(cases)):
        told = [(case, planner(substitute(flags, case), *run)) for case in accepted]
        refusals = [(case, t) for case, t in told if isinstance(t, Refusal)]
        # no value has a rewrite, or only written values (a conditional's branches, nothing to narrow): what
        # the first is told
        ranged = any(isinstance(hole, RunTime) for hole in found.values())
        if refusals and (len(refusals) == len(told) or not ranged):
            case, first = refusals[0]
            return Refusal(
                first.code,
                _named(found, f": {first.message}"),
                details=(f"when {keywords(case.values)} (a value it may take)", *first.details),
            )
        # (where some values of a range have one, the call is one no rewrite keeps for every value: gpus=-1
        # beside accelerator="ddp" if gpus > 1 else None, which 1.x spawned on several GPUs, was told
        # "Lightning 2.6.6 cannot build what this call built" as if no value could be migrated)
        refused = [f"when {keywords(case.values)}: {t.message.partition(';')[0]}" for case, t in refusals[:1]]
    if best is None or refused:
        return Refusal(
            "LM101",
            _named(found, f": no rewrite keeps every value; {_advice(found)}"),
            details=(
                f"no spelling of Lightning {target} keeps this call's behaviour for the values it may take",
                *refused,
                *_narrowing(found),
            ),
        )
    template, broken = best
    # (where the releases disagree about the values, what to do is --source-version)
    disagree = all(case.keep is None for case, _ in broken)
    advice = "pass `--source-version`" if disagree else _advice(found)
    return Refusal(
        "LM101",
        _named(found, f": no rewrite keeps every value; {advice}"),
        details=(
            f"the closest rewrite: `{_spelled(flags, template)}`",
            *_breaks(broken),
            *(() if disagree else _narrowing(found)),
        ),
    )


def _narrowing(found: Mapping[str, Hole]) -> tuple[str, ...]:
    return () if "narrow" not in _advice(found) else (NARROW,)


def _advice(found: Mapping[str, Hole]) -> str:
    """What a user can do about run-time values no rewrite keeps: narrow them (where the file does not
    already say each value), write them literally, or hand the call to the runtime shim."""
    told = all(isinstance(hole, RunTime) and hole.told for hole in found.values())
    return "pass it literally or use `--shim`" if told else "narrow it, pass it literally or `--shim`"


def _why_left(
    flags: Mapping[str, Known],
    flag: str,
    templates: Sequence[Template],
    cases: Sequence[Case],
    target: Version,
) -> tuple[str, tuple[str, ...]]:
    """Why the run-time value at ``flag`` (a keyword ``target`` deprecates) is left as written, and the
    evidence."""
    hole = flags[flag]
    moving = [t for t in templates if token(t.get(flag)) != token(hole)]  # the value moved elsewhere
    closest = _closest(moving[:8], cases, target)
    head = (
        f"`{flag}={written(repr(hole))}`: deprecated in Lightning {target}, and no rewrite keeps every value"
    )
    if closest is None:
        return f"{head}; change it by hand", ()
    template, broken = closest
    assert broken, "a template that moves the value and keeps every case would have been chosen"
    narrow = "" if isinstance(hole, RunTime) and hole.told else "narrow it or "
    return f"{head}; {narrow}change it by hand", (
        f"the closest rewrite: `{_spelled(flags, template)}`",
        *_breaks(broken),
    )


def _closest(
    templates: Iterable[Template], cases: Sequence[Case], target: Version
) -> tuple[Template, list[tuple[Case, str]]] | None:
    """The first of ``templates`` that breaks the fewest cases, with the cases it breaks (None: no template).
    A template is judged only until it breaks as many as the best so far (it cannot come first then): each
    case judged is the model asked on every machine."""
    best: tuple[Template, list[tuple[Case, str]]] | None = None
    for template in templates:
        broken = _broken(template, cases, target, most=None if best is None else len(best[1]))
        if best is None or len(broken) < len(best[1]):
            best = (template, broken)
    return best


def _changed(flags: Mapping[str, Known], templates: Sequence[Template]) -> Iterator[Template]:
    for template in templates[:MAX_EXPLAINED]:
        if template != flags:
            yield template


def _spelled(flags: Mapping[str, Known], template: Mapping[str, Known]) -> str:
    written = [
        f"{k}={val!r}" for k, val in template.items() if k not in flags or token(flags[k]) != token(val)
    ]
    return ", ".join(written + [f"no {k}=" for k in flags if k not in template])


def _breaks(broken: Sequence[tuple[Case, str]]) -> tuple[str, str]:
    """``it breaks for gpus=0 or None``, ``gpus=0: on CPU only, ...``."""
    flags = list(broken[0][0].values)
    if len(flags) == 1:
        which = f"{flags[0]}={_listed([case.values[flags[0]] for case, _ in broken], ' or ')}"
    else:
        which = " or ".join(keywords(case.values) for case, _ in broken[:3]) + (
            " or others" if len(broken) > 3 else ""
        )
    first, why = broken[0]
    values = keywords(first.values)
    return f"it breaks for {which}", f"{values}: {why}"


def _named(found: Mapping[str, Hole], tail: str = "") -> str:
    """The run-time values as a message quotes them, then ``tail`` (the rest of the message): the first, cut
    where long (shorter where the message would not fit the width else), and how many more."""
    key, hole = next(iter(found.items()))
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    room = MESSAGE_WIDTH - len(f"`{key}=`{more}{tail}")
    return f"`{key}={written(repr(hole), max(MIN_WRITTEN, min(WRITTEN_WIDTH, room)))}`{more}{tail}"


MIN_WRITTEN = 16  # a run-time value is never cut shorter than this in a message


def _listed(values: Sequence[Value], last: str = ", ") -> str:
    return _joined([repr(val) for val in values], last)


def _joined(spelled: Sequence[str], last: str) -> str:
    """``a``, ``a, b``, ``a, b, c, d, e, 3 more`` (``last`` before the last one), each once."""
    spelled = list(dict.fromkeys(spelled))
    if len(spelled) > 6:
        spelled = [*spelled[:5], f"{len(spelled) - 5} more"]
    return spelled[0] if len(spelled) == 1 else ", ".join(spelled[:-1]) + last + spelled[-1]
