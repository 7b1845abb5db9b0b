"""Calls with run-time values, generated: every rewrite keeps the call's behaviour for every value.

Hypothesis writes the source of a file with one ``pl.Trainer(...)`` call mixing literal old and new flags,
conditional expressions of literals (``a if t else b``, chains), and values only known at run time: an
option of the file's own argparse parser (``args.gpus`` with ``type=``, ``choices=``, ``default=``), a value
nothing in the file narrows (``cfg.gpus``), a parameter with or without an annotation (``gpus: int``), a
name bound to one of those, ``int(...)``/``str(...)`` of one. The codemod migrates it for a target from 1.5
to 2.6, with or without ``--source-version`` and ``--unsafe-fixes``, and the test checks, independently of
the planner:

- the result parses and is a fixed point (a second run with the same options changes nothing; with
  ``--source-version`` that is a known bug, counted apart: see the switches below);
- a call that changed keeps its behaviour for every substitution (``runtime_calls``): every run-time
  expression takes every value of the domain the generator computed from what it wrote (written into the
  file as ``# values:`` lines), every test of a conditional is True and False. For each, the old call as
  the source releases build it (the one ``--source-version`` names, else every release before the target)
  and the new one as the target builds it, on every machine of the planner's contract
  (``plan.machines``): the same setup where the old call built one, a failure where it failed on a
  machine where the rewrite must still fail (``plan.MUST_STILL_FAIL``), no deprecation warning of the
  codemod's flags except at a keyword whose run-time value the rewrite left as written (then reported as
  LM101), a test with a side effect never written more often than before, and no name the file does not
  bind;
- a call the codemod leaves unchanged and reports nothing about is no old usage for the target, in every
  run (substitution) that the target builds on some machine: every keyword it passes is one the target has,
  and one the target does not deprecate unless written literally at a value the target does not warn
  about (`gpus=None` in 1.7); the target emits no deprecation warning of the codemod's flags about a
  keyword written in the call (a literal or a conditional); and, where a source release built that run,
  no training type is passed outside ``strategy=`` by a keyword written in the call. This is what the
  codemod promises of a call it leaves alone: a call in the target's own form is left alone whatever its
  run-time values are (a value the user passes is the user's data, not old usage, so a keyword whose whole
  value is a run-time expression is judged by its keyword alone); a run that no source release built is
  new code; a run the target rejects on every machine fails loudly, at construction, so there is nothing
  silent to guard (the codemod reports such a call only when written in an older release's words). With
  ``--source-version`` the release is named, so such a call must also build, for every substitution, what
  it built there (the check above).

The domains are the generator's own: an argparse option's values are what the real ``argparse`` makes of
a set of command-line words (``WORDS``) and of no word at all; an annotation's are a sample of the values
of the kinds it names; a value nothing narrows ranges over the flag's documented domain
(``domains.DOMAINS``, the codemod's contract for "anything") and a few more values (``EXTRA``).

What the searches found is pinned below them: a fixed bug by a test, a known one by a strict xfail test
(the search steps around it by the switches after ``MAX_SUBSTITUTIONS``).

``LM_EXAMPLES`` scales the search (``LM_EXAMPLES=20`` for twenty times the examples).
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import io
from collections.abc import Iterable
from dataclasses import dataclass, field

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from runtime_calls import MACHINE_READ, HoledCall, choices, declared, evaluate, holed_calls, machine_facts
from searches import search_settings

from lightning_migrate.cli.callparse import NotLiteral, literal
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.domains import DOMAINS
from lightning_migrate.plan.planner import (
    MACHINES,
    MUST_STILL_FAIL,
    codemod_deprecations,
    comparable,
    machines,
    modernizable,
    modernized,
)
from lightning_migrate.report.findings import Finding
from lightning_migrate.semantics import Setup, Unmodelled, interpret
from lightning_migrate.semantics.model import RELEASES, Hardware, Obj, Value, Version, release
from lightning_migrate.semantics.signature import accepts, current

TARGETS = tuple(r for r in RELEASES if r >= release("1.5"))

# --- what the generator writes ------------------------------------------------------------------------------

# Literal values of each flag, old and new spellings (objects are written as source text, see OBJECTS).
LITERALS: dict[str, tuple[Value, ...]] = {
    "accelerator": ("ddp", "ddp_spawn", "dp", "ddp_cpu", "ddp2", "cpu", "gpu", "auto", "tpu", None),
    "distributed_backend": ("ddp", "dp", "ddp_spawn", "ddp_cpu"),
    "strategy": ("ddp", "ddp_spawn", "dp", "ddp_find_unused_parameters_false", "deepspeed", None),
    "plugins": ("ddp_find_unused_parameters_false", "ddp_sharded", "deepspeed_stage_2", None),
    "gpus": (0, 1, 2, 4, -1, "0,1", "1", [0, 1], [1], None),
    "num_processes": (1, 2),
    "tpu_cores": (1, 8, [5], None),
    "devices": (1, 2, -1, "auto", [0, 1], None),
    "num_nodes": (1, 2),
    "precision": (16, 32, 64, "bf16", "16-mixed"),
}
OBJECTS: dict[str, tuple[str, ...]] = {
    "plugins": (
        "DDPPlugin(find_unused_parameters=False)",
        "DDPPlugin()",
        "DDPSpawnPlugin()",
        "[DDPPlugin(find_unused_parameters=False), LightningEnvironment()]",
    ),
    "strategy": ("DDPPlugin(find_unused_parameters=False)",),
}
# The plugins values above that carry a training type (the 1.4 way of choosing one).
TRAINING_TYPE_PLUGINS = frozenset({"ddp_find_unused_parameters_false", "ddp_sharded", "deepspeed_stage_2"})
TRAINING_TYPE_CLASSES = frozenset({"DDPPlugin", "DDPSpawnPlugin"})
DEVICE_NAMES = frozenset({"cpu", "gpu", "cuda", "tpu", "ipu", "hpu", "mps", "auto"})
# The flags a value only known at run time can be ranged over at (the others are reported, as before).
RANGED = ("gpus", "num_processes", "tpu_cores", "devices", "num_nodes", "precision")

# Command-line words an argparse option may be given, and samples of the values of each annotated kind.
WORDS = (
    *("-1", "0", "1", "2", "3", "4", "8", "16", "32", "64"),
    *("0,1", "1,3", "auto", "bf16", "16-mixed", "bf16-mixed", "32-true", "None"),
)
INTS: tuple[Value, ...] = (-1, 0, 1, 2, 3, 4, 8, 16, 32, 64)
LISTS: tuple[Value, ...] = ([0], [1], [0, 1], [1, 3])
ANNOTATIONS: dict[str, tuple[Value, ...]] = {
    "int": INTS,
    "Optional[int]": (*INTS, None),
    "str": WORDS,
    "List[int]": LISTS,
    "Union[int, str]": (*INTS, *WORDS),
}
# Values beyond the documented domain that a value nothing narrows may also hold.
EXTRA: dict[str, tuple[Value, ...]] = {
    "gpus": (3, 4, "4", "1,3", [2]),
    "devices": (3, 4, "2", "4", [1]),
    "tpu_cores": (2, "2", [1, 2]),
    "num_processes": (3, 8),
    "num_nodes": (3, 8),
    "precision": ("16-true", "64-true", 8),
}
PURE_TESTS = ("args.cuda", "not args.cpu", "args.nodes > 1")
IMPURE_TESTS = ("torch.cuda.is_available()", "use_gpu()")
MAX_SUBSTITUTIONS = 1500  # the checks below are over every substitution: keep each example's count bounded

# Bugs this search found are pinned by a test below each: fixed ones by a plain test, known ones by a strict
# xfail test (when one is fixed, its test passes, fails as XPASS, and the switch here goes with it).
# Fixed, and searched again: `cfg.gpus` narrowed by an argparse option `--gpus` that `cfg` is not read from
# (test_an_attribute_of_another_object_is_not_narrowed_by_an_option); a conditional written in the place of
# another keyword's taking that one's tests (test_a_merged_conditional_keeps_its_own_tests); a silent
# training type in a branch (test_a_silent_training_type_in_a_branch_is_reported); a rewrite with no
# finding (test_every_rewrite_is_reported); a second run re-spelling the strategy the first wrote
# (test_a_second_run_keeps_the_strategy_it_wrote) or moving a value the first left
# (test_a_conditional_leaves_no_work_it_can_do) or, with --source-version, re-reading the migrated call
# as that release's code (test_a_second_run_with_the_source_version_changes_nothing); values the flags'
# domains missed though releases build them: counts below 1, core indices and counts written as strings,
# one-index device lists, `precision=None` (test_values_the_domains_once_missed_are_kept). Known, and
# stepped around:
# - `num_nodes=` below 1 or None is not in its domain on purpose: 1.6 to 2.0 build it (one node), 2.1
#   rejects it whatever the spelling (and the model judges none of it in 1.4 and 1.5), so there it is the
#   upgrade, not a rewrite (which keeps `num_nodes=` as written), that breaks it, and it must not hold up
#   the rest of a call: such substitutions are counted apart (`Tally.upgrade_breaks`), not checked;
DECOY_OPTIONS = True
MOVED_CONDITIONALS = 3
MOVED_FLAGS = (
    "accelerator",
    "distributed_backend",
    "plugins",
    "strategy",
    "gpus",
    "num_processes",
    "tpu_cores",
)
SILENT_TRAINING_TYPES: tuple[str, ...] = ()
# - a second run is not always a fixed point (`Tally.unstable`, anything else fails): it rewrites a
#   conditional the first run left as written because no source release built one of its branches there
#   (test_a_second_run_leaves_a_dead_branch_alone).


TEST_OPTIONS = {
    "cuda": 'parser.add_argument("--cuda", action="store_true")',
    "cpu": 'parser.add_argument("--cpu", action="store_true")',
    "nodes": 'parser.add_argument("--nodes", type=int, default=1)',
}


@dataclass
class Keyword:
    text: str  # `flag=expression`
    holes: list[str]  # the run-time expressions it reads
    tests: int  # the tests of its conditional


@dataclass
class Program:
    """A file being written: its argparse options, module-level names, the function's parameters (the call
    is in ``build`` when there are any), the call's keywords, and the domain of each run-time expression."""

    options: dict[str, str] = field(default_factory=dict)  # dest -> `parser.add_argument(...)` line
    bound: dict[str, str] = field(default_factory=dict)  # name -> expression (module level)
    params: dict[str, str] = field(default_factory=dict)  # name -> `name: annotation = default`
    keywords: list[Keyword] = field(default_factory=list)
    domains: dict[str, tuple[Value, ...]] = field(default_factory=dict)
    impure: set[str] = field(default_factory=set)  # side-effecting tests already written in the call
    cfg: bool = False

    def source(self) -> str:
        text = "\n".join(k.text for k in self.keywords)
        holes = {hole for k in self.keywords for hole in k.holes}
        lines = [f"# values: {expr} in {values!r}" for expr, values in self.domains.items() if expr in holes]
        arguments = "args." in text or any("args." in expr for expr in self.bound.values())
        options = [line for dest, line in self.options.items() if dest not in TEST_OPTIONS]
        options += [line for dest, line in TEST_OPTIONS.items() if f"args.{dest}" in text]
        imports = ["import argparse"] if arguments or options else []
        if "torch." in text:
            imports.append("import torch")
        typing = sorted(
            {name for name in ("List", "Optional", "Union") for p in self.params.values() if name in p}
        )
        if typing:
            imports.append(f"from typing import {', '.join(typing)}")
        lines += ["", *imports, "", "import pytorch_lightning as pl"]
        if "Plugin(" in text:
            lines.append("from pytorch_lightning.plugins import DDPPlugin, DDPSpawnPlugin")
        if "LightningEnvironment" in text:
            lines.append("from pytorch_lightning.plugins.environments import LightningEnvironment")
        lines.append("")
        if imports and imports[0] == "import argparse":
            lines += ["parser = argparse.ArgumentParser()", *options, "args = parser.parse_args()"]
        if self.cfg:
            lines.append("cfg = load_config()")
        lines += [f"{name} = {expr}" for name, expr in self.bound.items()]
        call = "pl.Trainer(\n" + "".join(f"    {k.text},\n" for k in self.keywords) + ")"
        if self.params:
            call = call.replace("\n", "\n    ")
            lines += ["", "", f"def build(*, {', '.join(self.params.values())}):", f"    return {call}"]
        else:
            lines += ["", f"trainer = {call}"]
        return "\n".join(lines) + "\n"

    def substitutions(self) -> int:
        holes = {hole for k in self.keywords for hole in k.holes}
        count = 2 ** sum(k.tests for k in self.keywords)
        for hole in holes:
            count *= len(self.domains[hole])
        return count


def _unique(values: Iterable[Value]) -> tuple[Value, ...]:
    seen: list[Value] = []
    for value in values:
        if not any(type(value) is type(s) and value == s for s in seen):
            seen.append(value)
    return tuple(seen)


def argparse_values(line: str, dest: str) -> tuple[Value, ...]:
    """What the real argparse gives ``args.<dest>`` for the option ``line``: with no word, and with each of
    ``WORDS`` (a word it refuses is a value the program never runs with)."""
    namespace: dict[str, object] = {"argparse": argparse}
    exec(f"parser = argparse.ArgumentParser()\n{line}", namespace)
    parser = namespace["parser"]
    assert isinstance(parser, argparse.ArgumentParser)
    values = []
    for argv in ([], *([f"--{dest}", word] for word in WORDS)):
        with contextlib.redirect_stderr(io.StringIO()):
            try:
                values.append(getattr(parser.parse_args(argv), dest))
            except SystemExit:
                continue
    return _unique(values)


def _converted(name: str, values: tuple[Value, ...]) -> tuple[Value, ...]:
    """What Python's ``int(x)``/``str(x)`` makes of each value (one it raises for never reaches the call)."""
    out = []
    for value in values:
        try:
            out.append(int(value) if name == "int" else str(value))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
    return _unique(out)


@st.composite
def _option(draw: st.DrawFn, flag: str) -> str:
    """An argparse option ``--<flag>``: its ``add_argument`` line."""
    kind = draw(st.sampled_from(["int", "str", None]))
    parts = [f'"--{flag}"']
    if kind:
        parts.append(f"type={kind}")
    if draw(st.booleans()):
        pool = [w for w in WORDS if kind != "int" or w.lstrip("-").isdigit()]
        picked = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
        parts.append(f"choices={[int(w) if kind == 'int' else w for w in picked]!r}")
    default = draw(st.sampled_from(["absent", "none", "int", "word"]))
    if default == "none":
        parts.append("default=None")
    elif default == "int":
        parts.append(f"default={draw(st.sampled_from([0, 1, 2, 8, -1]))!r}")
    elif default == "word":  # (argparse converts a string default with `type`)
        parts.append(f"default={draw(st.sampled_from(['1', '2', '0,1']))!r}")
    return f"parser.add_argument({', '.join(parts)})"


@st.composite
def _runtime(draw: st.DrawFn, flag: str, program: Program) -> str:
    """A value only known at run time, for ``flag``: its expression (its domain recorded in ``program``)."""
    form = draw(st.sampled_from(["option", "cfg", "param", "bound", "convert"]))
    anything = _unique((*DOMAINS[flag], *EXTRA[flag]))
    if not DECOY_OPTIONS and form in ("option", "cfg"):  # never both `args.<flag>` and `cfg.<flag>`
        form = "cfg" if f"cfg.{flag}" in program.domains else "option" if flag in program.options else form
    if form == "option" and flag not in program.options:
        line = draw(_option(flag))
        program.options[flag] = line
        expr, values = f"args.{flag}", argparse_values(line, flag)
    elif form == "param" and flag not in program.params:
        annotation = draw(st.sampled_from([None, *ANNOTATIONS]))
        values = ANNOTATIONS[annotation] if annotation else anything
        written = f"{flag}: {annotation}" if annotation else flag
        if draw(st.booleans()):
            default = draw(st.sampled_from(LITERALS[flag]))
            written += f" = {default!r}" if annotation else f"={default!r}"
            values = _unique((*values, default))
        program.params[flag] = written
        expr = flag
    elif form == "bound" and f"n_{flag}" not in program.bound:
        inner = draw(_runtime(flag, program))
        if inner in program.params or inner in program.bound:
            return inner
        program.bound[f"n_{flag}"] = inner
        expr, values = f"n_{flag}", program.domains[inner]
    elif form == "option":  # the option is there: read it again
        expr, values = f"args.{flag}", argparse_values(program.options[flag], flag)
    elif form == "convert":
        inner = draw(_runtime(flag, program))
        if inner.startswith(("int(", "str(")):
            return inner
        name = draw(st.sampled_from(["int", "int", "str"]))
        expr, values = f"{name}({inner})", _converted(name, program.domains[inner])
    else:
        program.cfg = True
        expr, values = f"cfg.{flag}", anything
        if DECOY_OPTIONS and draw(st.integers(0, 3)) == 0 and flag not in program.options:
            program.options[flag] = draw(_option(flag))  # an option of the same name `cfg` is not read from
    program.domains[expr] = values
    return expr


@st.composite
def _literal(draw: st.DrawFn, flag: str, objects: bool = True) -> str:
    texts = [repr(v) for v in LITERALS[flag]]
    if objects:
        texts += OBJECTS.get(flag, ())
    return draw(st.sampled_from(texts))


@st.composite
def _test(draw: st.DrawFn, program: Program) -> str:
    impure = [t for t in IMPURE_TESTS if t not in program.impure]
    test = draw(st.sampled_from([*PURE_TESTS, *impure]))
    if test in IMPURE_TESTS:  # evaluated once per occurrence: written once, one substitution is one run
        program.impure.add(test)
    return test


@st.composite
def _keyword(draw: st.DrawFn, flag: str, program: Program) -> Keyword:
    forms = ["literal", "conditional"] + (["runtime", "runtime"] if flag in RANGED else ["unranged"])
    conditionals = sum(" if " in k.text for k in program.keywords if k.text.split("=")[0] in MOVED_FLAGS)
    if flag in MOVED_FLAGS and conditionals >= MOVED_CONDITIONALS:
        forms.remove("conditional")
    form = draw(st.sampled_from(forms))
    if form == "runtime":
        expr = draw(_runtime(flag, program))
        return Keyword(f"{flag}={expr}", [expr], 0)
    if form == "unranged":  # a value the codemod knows no domain for: reported where it may be old usage
        program.cfg = True
        program.domains[f"cfg.{flag}"] = LITERALS[flag]
        return Keyword(f"{flag}=cfg.{flag}", [f"cfg.{flag}"], 0)
    if form == "literal":
        return Keyword(f"{flag}={draw(_literal(flag))}", [], 0)
    count = draw(st.sampled_from([2, 2, 2, 3]))
    branches, holes = [], []
    for _ in range(count):
        if flag in RANGED and draw(st.integers(0, 3)) == 0:
            holes.append(draw(_runtime(flag, program)))
            branches.append(holes[-1])
        else:
            literal = draw(_literal(flag, objects=False))
            branches.append("None" if literal.strip("'") in SILENT_TRAINING_TYPES else literal)
    tests = [draw(_test(program)) for _ in range(count - 1)]
    text = branches[-1]
    for branch, test in zip(reversed(branches[:-1]), reversed(tests)):
        text = f"{branch} if {test} else {text}"
    return Keyword(f"{flag}={text}", holes, count - 1)


@st.composite
def programs(draw: st.DrawFn) -> str:
    """The source of a file with one Trainer call (see the module docstring)."""
    flags = draw(st.lists(st.sampled_from(sorted(LITERALS)), min_size=1, max_size=4, unique=True))
    program = Program()
    for flag in flags:
        keyword = draw(_keyword(flag, program))
        program.keywords.append(keyword)
        if program.substitutions() > MAX_SUBSTITUTIONS:  # keep one example's checks bounded
            program.keywords.pop()
    return program.source()


# --- the checks ---------------------------------------------------------------------------------------------


def _sources(target: Version, source: Version | None) -> list[Version]:
    return [source] if source else [r for r in RELEASES if r < target]


def _is_literal(node: ast.expr, call: HoledCall) -> bool:
    try:
        literal(node, call.names)
    except NotLiteral:
        return False
    return True


def _tests(call: HoledCall) -> list[str]:
    return [
        ast.unparse(n.test)
        for node in call.keywords.values()
        for n in ast.walk(node)
        if isinstance(n, ast.IfExp)
    ]


def _left(old: HoledCall, new: HoledCall, target: Version) -> frozenset[str]:
    """The keywords the target deprecates whose run-time value the rewrite left as written."""
    return frozenset(
        flag
        for flag, node in new.keywords.items()
        if flag in old.keywords
        and ast.unparse(node) == ast.unparse(old.keywords[flag])
        and not _is_literal(node, new)
        and not current(flag, target)
    )


def assert_kept(
    old: HoledCall,
    new: HoledCall,
    domains: dict[str, tuple[Value, ...]],
    run: tuple[Version, Version | None, bool],
    findings: list[Finding],
) -> tuple[int, int, int]:
    """``new`` in the target builds, for every substitution, what ``old`` built in the source releases (see
    the module docstring); returns the number of substitutions some source release built, of those the model
    does not judge, and of those with `num_nodes=` below 1."""
    target, source, _ = run
    sources = _sources(target, source)
    left = _left(old, new, target)
    if left:  # a deprecated keyword whose value is left as written is work the user is told about
        assert any(f.code == "LM101" for f in findings), (left, findings)
    before_tests, after_tests = _tests(old), _tests(new)
    for test in set(after_tests):
        if after_tests.count(test) > before_tests.count(test):  # evaluated again: only a test that only reads
            assert all(_reads_only(n) for n in ast.walk(ast.parse(test, mode="eval").body)), test
    ran = unjudged = breaks = 0
    read = old.text + new.text
    for chosen in choices(old, new, domains):
        if MACHINE_READ.search(read):
            # what reads the machine (`torch.cuda.is_available()`) gives the machine's value: each machine
            # is judged with it, and only where the old call's tests of it were chosen as it says
            for cuda in sorted({m.cuda for m in MACHINES}):
                facts = machine_facts(read, cuda)
                if all(chosen.get(text, value) == value for text, value in facts.items()):
                    counted = _assert_kept_on(old, new, {**chosen, **facts}, run, sources, left, cuda)
                    ran, unjudged, breaks = ran + counted[0], unjudged + counted[1], breaks + counted[2]
            continue
        counted = _assert_kept_on(old, new, chosen, run, sources, left)
        ran, unjudged, breaks = ran + counted[0], unjudged + counted[1], breaks + counted[2]
    return ran, unjudged, breaks


def _assert_kept_on(
    old: HoledCall,
    new: HoledCall,
    chosen: dict[str, object],
    run: tuple[Version, Version | None, bool],
    sources: list[Version],
    left: list[str],
    cuda: int | None = None,
) -> tuple[int, int, int]:
    """``assert_kept`` for one substitution (on the machines with ``cuda`` CUDA GPUs only, where given)."""
    target, _, unsafe = run
    before, after = evaluate(old, chosen), evaluate(new, chosen)
    judged = [m for m in machines(before) if cuda is None or m.cuda == cuda]
    try:
        built = {m: _built(before, sources, m) for m in judged}
    except Unmodelled:  # (`num_nodes=-1` in 1.4): a value the model cannot judge, nor the planner
        return 0, 1, 0
    if not any(built.values()):
        return 0, 0, 0  # a value the old call never ran with
    if _upgrade_breaks(before, target):
        return 0, 0, 1
    same = modernized(modernizable(before, target) if unsafe else ())
    for machine in judged:
        where = f"{new.text}\nwith {chosen} on {machine.describe()}"
        result = interpret(after, target, machine)
        warned = [d for d in codemod_deprecations(result.deprecations) if d.flag not in left]
        assert not warned, f"{where}: {warned[0].message}"
        setups = set(built[machine].values())
        assert len(setups) <= 1, f"{where}: the source releases disagree: {built[machine]}"
        if setups:
            (setup,) = setups
            assert isinstance(result.outcome, Setup), f"{where}: {result.outcome} instead of {setup}"
            assert same(result.outcome) == same(setup), f"{where}: {result.outcome} instead of {setup}"
        elif machine in MUST_STILL_FAIL:
            assert not isinstance(result.outcome, Setup), f"{where}: builds {result.outcome}, old failed"
    return 1, 0, 0


def _upgrade_breaks(flags: dict[str, Value], target: Version) -> bool:
    """Is `num_nodes=` below 1 or None, which ``target`` rejects however the call is spelled?"""
    nodes = flags.get("num_nodes", 1)
    if type(nodes) is int and nodes >= 1:
        return False
    return not isinstance(interpret({"num_nodes": nodes}, target, Hardware()).outcome, Setup)


def _built(flags: dict[str, Value], sources: list[Version], machine: Hardware) -> dict[Version, Setup]:
    out = {}
    for release_ in sources:
        outcome = interpret(flags, release_, machine).outcome
        if isinstance(outcome, Setup):
            out[release_] = comparable(outcome)
    return out


PURE_NODES = (ast.Name, ast.Attribute, ast.Constant, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Load)
PURE_NODES += (ast.cmpop, ast.boolop, ast.unaryop)
# The calls the codemod may write again: they read the machine or convert (`domains.PURE_CALLS`, the table
# that says so, checked here by name).
PURE_CALL_NAMES = (
    "torch.cuda.is_available",
    "torch.cuda.device_count",
    "int",
    "str",
    "bool",
    "min",
    "max",
    "len",
)


def _reads_only(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        return ast.unparse(node.func) in PURE_CALL_NAMES
    return isinstance(node, PURE_NODES)


def _carries_training_type(flag: str, value: Value) -> bool:
    """A training type written outside ``strategy=`` (the old API from 1.5 on)."""
    if flag == "distributed_backend":
        return value is not None
    if flag == "accelerator":
        return isinstance(value, str) and value.lower() not in DEVICE_NAMES
    if flag == "plugins":
        items = value if isinstance(value, list) else [value]
        return any(
            (isinstance(i, str) and i in TRAINING_TYPE_PLUGINS)
            or (isinstance(i, Obj) and i.cls in TRAINING_TYPE_CLASSES)
            for i in items
        )
    return False


def assert_no_old_api(
    call: HoledCall, domains: dict[str, tuple[Value, ...]], target: Version, source: Version | None
) -> int:
    """A call left alone without a finding is no old usage in any run the target builds (see the module
    docstring); returns the number of substitutions the target builds."""
    sources = _sources(target, source)
    written = {flag for flag, node in call.keywords.items() if not _runtime_only(node, call)}
    runs = 0
    for chosen in choices(call, call, domains):
        flags = evaluate(call, chosen)
        try:
            results = {m: interpret(flags, target, m) for m in machines(flags)}
        except Unmodelled:
            continue
        built = [r for r in results.values() if isinstance(r.outcome, Setup)]
        if not built:
            continue  # this run fails in the target on every machine, loudly: nothing silent to guard
        runs += 1
        where = f"{call.text}\nwith {chosen}"
        for flag in flags:  # (a deprecated keyword at its default warns in no release: see below)
            assert accepts(flag, target), f"{where}: Lightning {target} has no `{flag}=`"
            assert current(flag, target) or flag in written, f"{where}: {target} deprecates `{flag}=`"
        for result in built:
            warned = [d for d in codemod_deprecations(result.deprecations) if d.flag in written]
            assert not warned, f"{where}: {warned[0].message}"
        if _ran_before(flags, sources):  # (a run no source release built is new code)
            for flag in written:
                assert not _carries_training_type(flag, flags[flag]), f"{where}: a training type in `{flag}=`"
    return runs


def _ran_before(flags: dict[str, Value], sources: list[Version]) -> bool:
    """Did a source release build the call on some machine (a value it does not judge: say it did)?"""
    try:
        return any(_built(flags, sources, m) for m in machines(flags))
    except Unmodelled:
        return True


def _runtime_only(node: ast.expr, call: HoledCall) -> bool:
    """Is the keyword's value a run-time expression (not a literal, nor a conditional)? Its value is the
    user's data: the codemod leaves a call in the target's form alone whatever that value is."""
    return not isinstance(node, ast.IfExp) and not _is_literal(node, call)


def _known_instability(old: HoledCall, first: HoledCall, second: HoledCall) -> bool:
    """Does the second run only rewrite a conditional the first left as written?"""
    written = {flag: ast.unparse(node) for flag, node in old.keywords.items()}
    once = {flag: ast.unparse(node) for flag, node in first.keywords.items()}
    twice = {flag: ast.unparse(node) for flag, node in second.keywords.items()}
    changed = {k for k in {*once, *twice} if once.get(k) != twice.get(k)}
    left = {k for k in once if isinstance(first.keywords[k], ast.IfExp) and written.get(k) == once[k]}
    return bool(changed) and changed <= left | (set(twice) - set(once))


def _bound_names(tree: ast.Module) -> set[str]:
    names = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    return names


def _names_read(text: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(text.strip(), mode="eval")) if isinstance(n, ast.Name)}


@dataclass
class Tally:
    """What a search saw (printed with ``-s``; asserted so that no search passes by checking nothing)."""

    examples: int = 0
    rewritten: int = 0
    substitutions: int = 0
    left_alone: int = 0
    target_runs: int = 0
    unjudged: int = 0
    upgrade_breaks: int = 0
    unstable: int = 0

    def count(self, kept: tuple[int, int, int]) -> None:
        self.substitutions += kept[0]
        self.unjudged += kept[1]
        self.upgrade_breaks += kept[2]

    reported: int = 0


def check(text: str, target: Version, source: Version | None, unsafe: bool, tally: Tally) -> None:
    """Migrate ``text`` and check the result (see the module docstring)."""
    result = migrate(text, target, source, unsafe)
    new = result.code
    tree = ast.parse(new)
    ((old_call, new_call),) = zip(holed_calls(text), holed_calls(new))
    again = migrate(new, target, source, unsafe).code
    if again != new:  # known bugs (see the switches above): counted apart, anything else fails
        assert _known_instability(old_call, new_call, holed_calls(again)[0]), "not a fixed point"
        tally.unstable += 1
    tally.examples += 1
    run = (target, source, unsafe)
    if old_call.text != new_call.text:
        tally.rewritten += 1
        assert any(f.fixable for f in result.findings), f"a rewrite with no finding: {new_call.text}"
        unbound = _names_read(new_call.text) - _bound_names(tree) - _names_read(old_call.text)
        assert not unbound, f"the rewrite reads {unbound}, which the file does not bind"
        tally.count(assert_kept(old_call, new_call, declared(text), run, result.findings))
    elif result.findings:
        tally.reported += 1
    else:
        tally.left_alone += 1
        tally.target_runs += assert_no_old_api(old_call, declared(text), target, source)
        if source is not None:  # the release is named: left alone, the call must build what it built there
            tally.count(assert_kept(old_call, new_call, declared(text), run, result.findings))


# --- the searches -------------------------------------------------------------------------------------------


SOURCES = st.sampled_from([None, None, *RELEASES[:-1]])


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_every_rewrite_keeps_the_call_for_every_value(unsafe: bool) -> None:
    tally = Tally()

    @search_settings(1000)
    @given(programs(), st.sampled_from(TARGETS), SOURCES)
    def search(text: str, target: Version, source: Version | None) -> None:
        note(text)
        check(text, target, source if source is None or source < target else None, unsafe, tally)

    search()
    print(f"\n{'unsafe' if unsafe else 'safe'}: {tally}")
    assert tally.rewritten >= tally.examples // 10, tally
    assert tally.substitutions > 0, tally
    assert tally.left_alone > 0, tally
    assert tally.reported > 0, tally


# --- what the searches found ----------------------------------------------------------------------------


def _file(*lines: str) -> str:
    return "\n".join(["import argparse", "", "import pytorch_lightning as pl", "", *lines]) + "\n"


def test_an_option_with_choices_and_no_default_may_be_none() -> None:
    """argparse gives an option it was not given its default, None unless written, whatever its `choices=`:
    `accelerator="cuda", devices=args.gpus` would raise where `gpus=None` trained DDP on the CPU."""
    text = _file(
        "parser = argparse.ArgumentParser()",
        'parser.add_argument("--gpus", type=int, choices=[1, 2, 4])',
        "args = parser.parse_args()",
        'trainer = pl.Trainer(gpus=args.gpus, accelerator="ddp")',
    )
    assert argparse_values('parser.add_argument("--gpus", type=int, choices=[1, 2, 4])', "gpus") == (
        None,
        1,
        2,
        4,
    )
    for target in TARGETS:
        check(f"# values: args.gpus in (None, 1, 2, 4)\n{text}", target, None, False, Tally())


def test_a_list_written_in_another_keywords_place_is_written_whole() -> None:
    """`devices=[0, 1]` (from `gpus=`) took the place of `tpu_cores=[5]` and was written as what is left of
    that list, `devices=[]`, which raises where the old call trained DDP on GPUs 0 and 1."""
    text = _file("trainer = pl.Trainer(accelerator='ddp', tpu_cores=[5], gpus=[0, 1])")
    result = migrate(text, release("1.7"))
    assert "devices=[0, 1]" in result.code
    check(text, release("1.7"), None, False, Tally())


def test_an_attribute_of_another_object_is_not_narrowed_by_an_option() -> None:
    """`cfg.gpus` is not `args.gpus`: an option `--gpus` says nothing of it. (For 2.6 the codemod writes
    `accelerator="cuda", devices=cfg.gpus`, which raises where `cfg.gpus == 0` trained DDP on the CPU.)"""
    text = _file(
        f"# values: cfg.gpus in {DOMAINS['gpus']!r}",
        "parser = argparse.ArgumentParser()",
        'parser.add_argument("--gpus", type=int, choices=[1, 2, 4], default=1)',
        "args = parser.parse_args()",
        "cfg = load_config()",
        'trainer = pl.Trainer(gpus=cfg.gpus, accelerator="ddp")',
    )
    check(text, release("2.6"), release("1.5"), False, Tally())


_PARSER_FUNCTION = (
    "def get_args():",
    "    parser = argparse.ArgumentParser()",
    '    parser.add_argument("--gpus", type=int, choices=[0, 1], default=1)',
    "    return parser.parse_args()",
    "",
)
_READ = ("args = get_args()", "trainer = pl.Trainer(gpus=args.gpus)")


def test_a_parser_function_of_the_file_narrows_its_options() -> None:
    """`args = get_args()`, a function of the file that returns what its parser parsed, holds the file's
    options as `parser.parse_args()` in place does (seen in pykale and torchmd-net: `args.gpus` was taken
    for any value, and the call reported as LM101 where the options allow a rewrite)."""
    text = _file(*_PARSER_FUNCTION, *_READ)
    result = migrate(text, release("2.6"))
    assert 'pl.Trainer(accelerator="cuda" if args.gpus else "cpu", devices=1)' in result.code
    check(f"# values: args.gpus in (0, 1)\n{text}", release("2.6"), None, False, Tally())


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(("get_args = load_namespace",), id="rebound"),
        pytest.param(("def get_args():", "    return load_namespace()"), id="defined-twice"),
    ],
)
def test_a_parser_function_bound_twice_narrows_nothing(other: tuple[str, ...]) -> None:
    """Which binding of `get_args` a call sees is not known where the file binds the name twice: its
    options say nothing of the result."""
    text = _file(*_PARSER_FUNCTION, *other, "", *_READ)
    result = migrate(text, release("2.6"))
    assert "pl.Trainer(gpus=args.gpus)" in result.code
    assert [f.code for f in result.findings] == ["LM101"]


_OPTION = (
    "parser = argparse.ArgumentParser()",
    'parser.add_argument("--gpus", type=int, choices=[1, 2], default=1)',
    "args = parser.parse_args()",
)


@pytest.mark.parametrize(
    "write",
    [
        pytest.param('args.gpus = [int(i) for i in args.ids.split(",")]', id="computed"),
        pytest.param("args.gpus += 1", id="augmented"),
        pytest.param("vars(args).update(config)", id="vars"),
        pytest.param("args.__dict__.update(config)", id="dict"),
    ],
)
def test_an_option_the_file_writes_holds_what_it_writes(write: str) -> None:
    """`args.gpus` holds what the file writes into it too, not only what its option parses: with the
    option's `choices=[1, 2]` alone, 2.6 got `strategy=... if args.gpus > 1 else "auto", devices=args.gpus`,
    which raises TypeError for a list the script wrote (`[0, 1] > 1`) where 1.x trained on GPUs 0 and 1. A
    value not written out may be any value of the flag."""
    text = _file(*_OPTION, "if args.ids:", f"    {write}", "trainer = pl.Trainer(gpus=args.gpus)")
    for target in ("1.7", "2.6"):
        result = migrate(text, release(target))
        assert "pl.Trainer(gpus=args.gpus)" in result.code, target
        assert [f.code for f in result.findings] == ["LM101"], target


@pytest.mark.parametrize("read", ["model = build(**args.__dict__)", "model = build(**vars(args))"])
def test_reading_the_namespace_as_a_mapping_writes_nothing(read: str) -> None:
    """`SAC(**hparams.__dict__)` reads the namespace (lightning-bolts' tests): it writes no option, and the
    call is rewritten for the option's values as before."""
    text = _file(*_OPTION, read, "trainer = pl.Trainer(gpus=args.gpus)")
    assert 'pl.Trainer(accelerator="cuda", devices=args.gpus)' in migrate(text, release("1.7")).code


@pytest.mark.parametrize(
    "write",
    [
        pytest.param("args.gpus = [0, 1]", id="assigned"),
        pytest.param("args.gpus, args.nodes = [0, 1], 2", id="tuple"),
        pytest.param('setattr(args, "gpus", [0, 1])', id="setattr"),
    ],
)
def test_a_literal_the_file_writes_is_one_more_value(write: str) -> None:
    """A literal written into the option is one more value the rewrite must keep: for 1.7,
    `accelerator="cuda", devices=args.gpus` keeps 1, 2 and [0, 1]; for 2.6 the strategy is chosen by a test
    that a list passes too (`== 1`, not `> 1`)."""
    text = _file(*_OPTION, "if args.ids:", f"    {write}", "trainer = pl.Trainer(gpus=args.gpus)")
    assert 'pl.Trainer(accelerator="cuda", devices=args.gpus)' in migrate(text, release("1.7")).code
    assert "args.gpus > 1" not in migrate(text, release("2.6")).code
    for target in ("1.7", "2.6"):
        check(f"# values: args.gpus in (1, 2, [0, 1])\n{text}", release(target), None, False, Tally())


def test_a_written_value_among_the_options_keeps_the_rewrite() -> None:
    """A literal the file writes that the option could give anyway narrows nothing away: the call is still
    rewritten for the option's values (`args.gpus = 1`, as mvsnerf writes before its Trainer)."""
    text = _file(*_OPTION, "if args.debug:", "    args.gpus = 1", "trainer = pl.Trainer(gpus=args.gpus)")
    result = migrate(text, release("1.7"))
    assert 'pl.Trainer(accelerator="cuda", devices=args.gpus)' in result.code
    check(f"# values: args.gpus in (1, 2)\n{text}", release("1.7"), None, False, Tally())


@pytest.mark.parametrize(
    ("lines", "target", "source"),
    [
        pytest.param(
            (
                '    distributed_backend="dp" if a else "ddp_spawn",',
                '    plugins="ddp_sharded" if b else "deepspeed_stage_2",',
            ),
            "1.6",
            None,
            id="wrong-tests",
        ),
        pytest.param(
            ("    gpus=1 if a else 2 if b else 0,", "    num_processes=2 if c else 1,"),
            "1.7",
            "1.6",
            id="crash",
        ),
    ],
)
def test_a_merged_conditional_keeps_its_own_tests(
    lines: tuple[str, ...], target: str, source: str | None
) -> None:
    """`edit._distance` takes any conditional for the one it replaces and `_branches` rewrites that one's
    branches in place. The plan `strategy="ddp_sharded" if b else "deepspeed_stage_2"` (in 1.4 the
    plugin's training type wins) is written with `distributed_backend=`'s test `a`: with a=True, b=False
    the call trains FairScale's sharded DDP instead of DeepSpeed. The plan `accelerator="cpu",
    devices=2 if c else 1` (1.6: `num_processes=` wins over `gpus=`) is written into `gpus=`'s three-branch
    conditional: IndexError, the file left unchanged as an internal error."""
    text = _file("trainer = pl.Trainer(", *lines, ")")
    check(text, release(target), release(source) if source else None, False, Tally())


@pytest.mark.parametrize(
    ("text", "target", "source", "gap"),
    [
        pytest.param(
            "def build(num_processes: int):\n    return pl.Trainer(num_processes=num_processes)",
            "1.7",
            None,
            0,
            id="num_processes<1",  # 1.6: one CPU process; rewritten for 1.7: `devices=0` or `-1` raises
        ),
        pytest.param(
            "parser = argparse.ArgumentParser()\n"
            'parser.add_argument("--tpu_cores", type=str, default="8")\n'
            "args = parser.parse_args()\n"
            "trainer = pl.Trainer(tpu_cores=args.tpu_cores)",
            "1.7",
            "1.5",
            "5",
            id="tpu_cores='5'",  # 1.5: TPU core 5 alone; rewritten for 1.7: spawned on every core
        ),
        pytest.param(
            "cfg = load_config()\n"
            'trainer = pl.Trainer(accelerator="gpu", devices=cfg.devices, plugins="ddp_sharded")',
            "1.7",
            None,
            "2",
            id="devices='2'",  # 1.4: GPU 2 (absent on 2 GPUs), 1.5+: two GPUs; rewritten for 1.7 anyway
        ),
        pytest.param(
            'cfg = load_config()\ntrainer = pl.Trainer(accelerator="tpu", devices=cfg.devices)',
            "2.1",
            "2.0",
            [1],
            # 2.0: TPU core 0 (ordinals from 1); 2.1: core 1. Left alone and unreported, where the literal
            # `devices=[1]` is reported (LM103)
            id="devices=[1]",
        ),
    ],
)
def test_values_the_domains_once_missed_are_kept(
    text: str, target: str, source: str | None, gap: Value
) -> None:
    """Each call was rewritten though the rewrite breaks for ``gap``, a value its source builds that the
    flag's domain (`domains.DOMAINS`) lacked; now in it, the rewrite is refused (or keeps that value too)."""
    holed = holed_calls(_file(text))[0]
    flag, node = next((f, n) for f, n in holed.keywords.items() if not _is_literal(n, holed))
    values = LISTS if isinstance(gap, list) else INTS if flag == "num_processes" else (*INTS, *WORDS)
    text = _file(f"# values: {ast.unparse(node)} in {values!r}", text)
    check(text, release(target), release(source) if source else None, False, Tally())


def test_a_silent_training_type_in_a_branch_is_reported() -> None:
    """`accelerator="ddp_cpu"` is rewritten for 1.5 and 1.6 (LM001: it never warned, and broke in 1.7), but
    `accelerator="ddp_cpu" if args.cuda else "cpu"` is left alone with no finding: the template equal to
    the call (from the "cpu" branch) keeps every case's behaviour and warns about nothing."""
    text = _file(
        "parser = argparse.ArgumentParser()",
        'parser.add_argument("--cuda", action="store_true")',
        "args = parser.parse_args()",
        'trainer = pl.Trainer(accelerator="ddp_cpu" if args.cuda else "cpu", num_processes=2)',
    )
    check(text, release("1.6"), None, False, Tally())


def test_a_second_run_with_the_source_version_changes_nothing() -> None:
    """`accelerator="ddp_cpu"` for 1.5 became `strategy="ddp_spawn"` for 1.6; read again as 1.5 code (one
    CPU process: 1.5's single-device strategy), it became `strategy="single_device"`: a pre-commit hook
    run with `--source-version 1.5` changed the training type on its second run. Now the rewrite that means
    the same in 1.5 too is preferred: `strategy="ddp_spawn", accelerator="cpu"`."""
    text = "import pytorch_lightning as pl\n\ntrainer = pl.Trainer(accelerator='ddp_cpu')\n"
    once = migrate(text, release("1.6"), release("1.5")).code
    assert "strategy='ddp_spawn', accelerator='cpu'" in once
    assert migrate(once, release("1.6"), release("1.5")).code == once


@pytest.mark.parametrize(
    ("call", "target", "source", "written"),
    [
        # 1.5 spawned on one core; 1.6 needs the strategy said
        ("tpu_cores=1", "1.6", "1.5", "strategy=TPUSpawnStrategy()"),
        # 1.x: one CPU process; 2.0 rejects None (rewrite_findings skips a keyword written at its default)
        ("accelerator=None, devices=1", "2.0", None, 'accelerator="cpu"'),
        # 1.5's AMP on the CPU: 2.0's words, and the CPU said (rewrite_findings leaves precision to notes)
        ("precision=16", "2.0", "1.5", 'accelerator="cpu"'),
    ],
    ids=["added", "default", "precision"],
)
def test_every_rewrite_is_reported(call: str, target: str, source: str | None, written: str) -> None:
    """A rewrite with no finding: the CLI changes the file and says "No deprecated Trainer flags"."""
    text = f"import pytorch_lightning as pl\n\ntrainer = pl.Trainer({call})\n"
    result = migrate(text, release(target), release(source) if source else None)
    assert written in result.code
    assert any(f.fixable for f in result.findings)


def test_a_second_run_keeps_the_strategy_it_wrote() -> None:
    """For 1.6, `devices=n if a else -1, accelerator="ddp_cpu"` becomes `strategy="ddp_spawn"` (what
    1.4/1.5 built: processes spawned on the CPU); a second run reads that as 1.5 code, where it was the
    single-device strategy, and writes `strategy="single_device"` (LM006)."""
    call = "pl.Trainer(devices=n if a else -1, accelerator='ddp_cpu')"
    text = f"import pytorch_lightning as pl\n\ntrainer = {call}\n"
    once = migrate(text, release("1.6")).code
    assert "strategy='ddp_spawn'" in once
    assert migrate(once, release("1.6")).code == once


def test_a_conditional_leaves_no_work_it_can_do() -> None:
    """For 1.7, `accelerator="ddp", tpu_cores=args.tpu_cores` (1 or 8) becomes `strategy=TPUSpawnStrategy(),
    accelerator="tpu", devices=args.tpu_cores`; written `accelerator="ddp" if c else "ddp"` it kept
    `tpu_cores=args.tpu_cores` and reported LM101 (no spelling keeps every value), which a second run then
    moved: the branch merges are ranked by conditionals and cost, not by the deprecated keywords left."""
    text = _file(
        "parser = argparse.ArgumentParser()",
        'parser.add_argument("--tpu_cores", type=int, choices=[1, 8], default=8)',
        "args = parser.parse_args()",
        "trainer = pl.Trainer(accelerator='ddp' if c else 'ddp', tpu_cores=args.tpu_cores)",
    )
    result = migrate(text, release("1.7"))
    assert "devices=args.tpu_cores" in result.code, [f.code for f in result.findings]
    assert migrate(result.code, release("1.7")).code == result.code


def test_a_rewrite_for_1_5_that_1_4_never_built_is_left_alone_by_a_second_run() -> None:
    """nuwave2: `accelerator="ddp" if args.gpus > 1 else None` beside apex AMP became `strategy=...` for 1.5;
    1.4, the only release before 1.5, has no `strategy=`, and a second run reported LM100 ("no value makes a
    call any release builds") though 1.5 builds the call for every value: the target's own form."""
    text = _file(
        "parser = argparse.ArgumentParser()",
        'parser.add_argument("--gpus", type=int, default=1)',
        "args = parser.parse_args()",
        "trainer = pl.Trainer(gpus=args.gpus, accelerator='ddp' if args.gpus > 1 else None,"
        " amp_backend='apex', amp_level='O2')",
    )
    once = migrate(text, release("1.5"))
    assert "strategy='ddp' if args.gpus > 1 else None" in once.code
    again = migrate(once.code, release("1.5"))
    assert (again.code, again.findings) == (once.code, [])


@pytest.mark.xfail(strict=True, reason="known bug: a branch no source built is kept, then rewritten")
def test_a_second_run_leaves_a_dead_branch_alone() -> None:
    """For 1.7, `tpu_cores=8, plugins="ddp_sharded" if c else None, devices=1, gpus=0` becomes
    `accelerator="tpu", devices=8, plugins="ddp_sharded" if c else None`: the `ddp_sharded` branch (which no
    release before 1.7 built beside `tpu_cores=8, devices=1, gpus=0`) is kept as written; a second run
    finds 1.6 building it beside the rewritten keywords and writes `plugins=None` (LM003)."""
    call = "pl.Trainer(tpu_cores=8, plugins='ddp_sharded' if c else None, devices=1, gpus=0)"
    once = migrate(f"import pytorch_lightning as pl\n\ntrainer = {call}\n", release("1.7")).code
    assert "plugins='ddp_sharded' if c else None" in once
    assert migrate(once, release("1.7")).code == once


STRATEGY_PARAMETER = """\
from typing import Optional

import lightning.pytorch as pl


def build(devices: int = 1, strategy: Optional[str] = {default}):
    return pl.Trainer(accelerator="gpu", devices=devices, strategy=strategy)
"""


@pytest.mark.parametrize("target", ["2.0", "2.2", "2.3", "2.6"])
def test_a_strategy_parameter_defaulting_to_none_is_reported_where_the_target_rejects_none(
    target: str,
) -> None:
    source = STRATEGY_PARAMETER.format(default="None")
    result = migrate(source, release(target))
    assert result.code == source
    assert [(f.code, f.line, f.column) for f in result.findings] == [("LM101", 7, 59)]
    assert result.findings[0].message.startswith("`strategy=strategy`: run-time value, may be old usage; ")
    assert any("with its default, `strategy=None`" in detail for detail in result.findings[0].details)


def test_a_parameter_default_the_target_takes_is_quiet() -> None:
    assert migrate(STRATEGY_PARAMETER.format(default="None"), release("1.9")).findings == []
    assert migrate(STRATEGY_PARAMETER.format(default="'auto'"), release("2.6")).findings == []


RENAMED_IN_A_BRANCH = """\
import argparse

from pytorch_lightning import Trainer
from pytorch_lightning.plugins import DDPPlugin

parser = argparse.ArgumentParser()
parser.add_argument("--num_gpus", type=int, default=1)
hparams = parser.parse_args()

trainer = Trainer(
    accelerator="gpu",
    devices=hparams.num_gpus,
    strategy={strategy} if hparams.num_gpus > 1 else None,
)
"""


@pytest.mark.parametrize("target", ["1.9", "2.6"])
def test_a_renamed_class_in_a_branch_of_a_conditional_is_a_sign_of_old_usage(target: str) -> None:
    """(ngp_pl: `strategy=DDPPlugin(find_unused_parameters=False) if n > 1 else None` beside
    `devices=hparams.num_gpus` was left without a finding, only its import was reported.)"""
    source = RENAMED_IN_A_BRANCH.format(strategy="DDPPlugin(find_unused_parameters=False)")
    result = migrate(source, release(target))
    assert result.code == source
    found = [(f.code, f.line) for f in result.findings]
    assert ("LM101", 13) in found
    said = next(f.message for f in result.findings if f.line == 13)
    assert said.startswith("`strategy=DDPPlugin(find_unused_paramete…`: run-time value, may be old usage")


def test_a_conditional_between_target_objects_is_no_sign_of_old_usage() -> None:
    source = RENAMED_IN_A_BRANCH.format(strategy="DDPStrategy(find_unused_parameters=False)").replace(
        "plugins import DDPPlugin", "strategies import DDPStrategy"
    )
    source = source.replace("else None", 'else "auto"')
    result = migrate(source, release("2.6"))
    assert (result.code, result.findings) == (source, [])
    # at 1.5 `DDPPlugin` is no old usage either
    old = RENAMED_IN_A_BRANCH.format(strategy="DDPPlugin(find_unused_parameters=False)")
    assert migrate(old, release("1.5")).findings == []
