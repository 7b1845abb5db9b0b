"""The planner for calls with values only known at run time (``plan.quantify``), table by table: what it
rewrites, what it leaves as written (and says so), and how it says why not."""

from __future__ import annotations

import pytest

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.domains import DOMAINS
from lightning_migrate.plan.knowledge import (
    Atom,
    Choice,
    Const,
    Known,
    Op,
    RunTime,
    holds,
    joined_tests,
    machine_branch,
    value_tests,
)
from lightning_migrate.plan.planner import Refusal, Rewrite, Unchanged
from lightning_migrate.semantics.model import Obj, Value, release

INTS = (0, 1, 2, 8, -1)  # what `parser.add_argument("--gpus", type=int)` gives


def gpus(domain: tuple[Value, ...] = INTS, text: str = "args.gpus") -> RunTime:
    return RunTime("gpus", text, domain, pure=True)


def test_the_known_flags_are_rewritten_and_the_run_time_value_kept() -> None:
    """Lightning's own hand migration (#9931) for 1.5, proven for every count."""
    decision = plan({"accelerator": "ddp", "gpus": gpus()}, release("1.5"))
    assert isinstance(decision, Rewrite)
    assert decision.flags == {"strategy": "ddp", "gpus": gpus()}
    assert "0, 1, 2, 8, -1" in decision.notes[0]


def test_a_value_with_one_meaning_per_truth_is_split_on_it() -> None:
    """`gpus=n` with n 0 or 1 is the CPU or one GPU: 2.x says so with a conditional on n."""
    decision = plan({"gpus": gpus((0, 1), "AVAIL_GPUS")}, release("2.6"))
    assert isinstance(decision, Rewrite)
    accelerator = decision.flags["accelerator"]
    assert isinstance(accelerator, Choice)
    assert accelerator.split
    assert accelerator.branches == ("cuda", "cpu")
    assert accelerator.tests == ("AVAIL_GPUS",)
    assert decision.flags["devices"] == 1
    assert "gpus" not in decision.flags


def test_a_conditional_is_rewritten_branch_by_branch_in_place() -> None:
    choice = Choice("accelerator", ("ddp", None), ("args.gpus > 1",), pure=True)
    decision = plan({"accelerator": choice, "gpus": gpus()}, release("1.5"))
    assert isinstance(decision, Rewrite)
    strategy = decision.flags["strategy"]
    assert isinstance(strategy, Choice)
    assert strategy.branches == ("ddp", None)
    assert strategy.tests == choice.tests
    assert "accelerator" not in decision.flags


def test_a_deprecated_keyword_that_keeps_some_value_only_as_written_is_work_left() -> None:
    """For 1.7 the strategy object must leave `plugins=` (1.7 raises), and `gpus=` only warns; but no
    spelling of a count that may be None, 0 or a string ("0" is the CPU from 1.5, yet true) keeps every value
    but `gpus=` itself."""
    anything = gpus(DOMAINS["gpus"], "gpus")
    ddp = Obj.of("DDPPlugin", find_unused_parameters=False)
    decision = plan({"plugins": ddp, "gpus": anything}, release("1.7"), release("1.5"))
    assert isinstance(decision, Rewrite)
    assert decision.flags == {
        "gpus": anything,
        "strategy": Obj.of("DDPStrategy", find_unused_parameters=False),
    }
    [(code, flag, why, said)] = decision.left
    assert (code, flag) == ("LM101", "gpus")
    assert why.startswith("`gpus=gpus`: deprecated in Lightning 1.7.7, and no rewrite keeps every value; ")
    assert any(detail.startswith("it breaks for gpus=") for detail in said)


def test_values_the_releases_read_differently_ask_for_the_source_version() -> None:
    """`gpus="2"` was GPU index 2 in 1.4 and two GPUs from 1.5: no rewrite keeps both."""
    decision = plan({"accelerator": "ddp", "gpus": gpus(("2", "0,1"), "gpus")}, release("1.6"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM101"
    assert decision.flag == "gpus"
    assert decision.message.endswith("; pass `--source-version`")
    assert "narrow" not in decision.message
    assert not any("narrow" in detail for detail in decision.details)


def test_the_refusal_names_the_values_that_break_the_closest_rewrite() -> None:
    """An unannotated parameter may be the string "0", GPU 0 in 1.4 and the CPU in 1.5."""
    decision = plan({"distributed_backend": "dp", "gpus": gpus(DOMAINS["gpus"], "gpus")}, release("1.5"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM101"
    assert "narrow it" in decision.message
    assert decision.details[0] == "the closest rewrite: `strategy='dp', no distributed_backend=`"
    assert decision.details[1].startswith("it breaks for gpus='0'")
    assert "a type annotation, an argparse `type=` or `choices=`" in decision.details[-1]


def test_a_call_no_rewrite_keeps_for_any_value_is_told_what_its_literal_twin_is() -> None:
    decision = plan({"distributed_backend": "dp", "gpus": gpus((1, 2))}, release("2.6"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM103"
    assert decision.message == "`gpus=args.gpus`: Lightning 2.6.6 has no dp strategy; move off it by hand"
    assert decision.details[0] == "when gpus=1 (a value it may take)"


@pytest.mark.parametrize(
    ("flags", "target"),
    [
        ({"strategy": "ddp", "gpus": gpus()}, "1.6"),
        ({"accelerator": "gpu", "devices": RunTime("devices", "n", (1, 2, 8), True)}, "2.6"),
    ],
)
def test_a_call_in_the_targets_form_is_left_alone_whatever_its_values(
    flags: dict[str, Known], target: str
) -> None:
    """The planner alone would keep 1.5's reading of `strategy="ddp", gpus=0` (one CPU process; DDP from
    1.6): the call is not old usage for the target, so it is not planned (``Run.judge``)."""
    assert plan(flags, release(target)) != Unchanged()
    site = CallSite(1, 1, flags)
    assert Run(release(target)).judge(site) == Unchanged()
    assert Run(release(target)).decide(site) == (Unchanged(), [])


def test_too_many_combinations_are_reported_not_judged() -> None:
    wide = tuple(range(1, 40))
    flags: dict[str, Known] = {
        "accelerator": "ddp",
        "gpus": gpus(wide),
        "num_nodes": RunTime("num_nodes", "args.nodes", wide, True),
    }
    decision = plan(flags, release("1.5"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM101"
    assert "too many combinations" in decision.message


def test_a_call_no_value_of_which_any_release_builds_is_lm100() -> None:
    strategy = RunTime("strategy", "args.strategy", ("ddp_spawn", "dp"), True)
    decision = plan({"accelerator": "ddp", "strategy": strategy}, release("1.5"))
    assert isinstance(decision, Refusal)
    assert (decision.code, decision.nowhere) == ("LM100", True)
    assert decision.message.startswith("`strategy=args.strategy`: no Lightning release builds this call; ")
    assert decision.details[0] == "when strategy='ddp_spawn' (a value it may take)"


def test_a_call_its_sources_never_built_is_judged_like_its_literal_twins() -> None:
    """`gpus=3, tpu_cores=8`: 1.4 and 1.5 raise on every machine, 1.6 to 1.9 build 3 GPUs on a machine that
    has them. For 1.5 it is no old usage (its literal twin is left alone: the target fails loudly, in its
    own words); it was LM100, "no value makes a call any release builds"."""
    flags: dict[str, Known] = {"gpus": gpus((3,)), "tpu_cores": RunTime("tpu_cores", "t", (8,), True)}
    assert plan({"gpus": 3, "tpu_cores": 8}, release("1.5")) == Unchanged()
    assert plan(flags, release("1.5")) == Unchanged()


@pytest.mark.parametrize("precision", [32, 16])
def test_a_call_its_sources_never_built_is_judged_value_by_value(precision: int) -> None:
    """A call in 1.5's own form (`strategy=`, which 1.4 lacks) is no old usage for 1.5, whatever its values:
    it was LM100, "no value makes a call any release builds", though 1.5 builds it for every GPU count (with
    apex installed at `precision=16`; then 1.5 rejects the CPU's `gpus=0`, as every release does)."""
    strategy = Choice("strategy", ("ddp", None), ("args.gpus > 1",), pure=True)
    flags: dict[str, Known] = {
        "gpus": gpus(),
        "strategy": strategy,
        "precision": precision,
        "amp_backend": "apex",
        "amp_level": "O2",
    }
    assert plan(flags, release("1.5")) == Unchanged()
    assert Run(release("1.5")).decide(CallSite(1, 1, flags)) == (Unchanged(), [])


def test_a_source_that_never_built_any_value_is_named_with_a_value() -> None:
    """With `--source-version 1.4`, a call 1.4 rejects for every value (it has no `strategy=`) is told so,
    with a value it may take, not that no release builds it (1.5 to 1.9 do)."""
    decision = plan({"strategy": "ddp", "gpus": gpus()}, release("1.9"), release("1.4"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM100"
    said = "`gpus=args.gpus`: Lightning 1.4.9 builds this call on no machine; fix it by hand"
    assert decision.message == said
    assert decision.details[0] == "when gpus=0 (a value it may take)"
    assert "unexpected keyword argument 'strategy'" in decision.details[1]


def test_only_what_the_parser_gives_is_narrowed_by_its_options() -> None:
    """`args = parser.parse_args()` holds the parser's `--gpus` (an int); `cfg` from a YAML file may hold a
    string, which 1.4 and 1.5 read differently (the same call is refused)."""
    source = (
        "import argparse\nimport pytorch_lightning as pl\nfrom omegaconf import OmegaConf\n"
        "parser = argparse.ArgumentParser()\nparser.add_argument('--gpus', type=int, default=1)\n"
        "args = parser.parse_args()\ncfg = OmegaConf.load('x.yaml')\n"
        "pl.Trainer(gpus=args.gpus, accelerator='ddp')\npl.Trainer(gpus=cfg.gpus, accelerator='ddp')\n"
    )
    result = migrate(source, release("1.5"))
    assert "pl.Trainer(gpus=args.gpus, strategy='ddp')" in result.code
    assert "pl.Trainer(gpus=cfg.gpus, accelerator='ddp')" in result.code
    assert [(f.line, f.code) for f in result.findings] == [(8, "LM001"), (9, "LM101")]


def test_an_unsafe_rewrite_says_what_it_changes_for_which_values() -> None:
    """`gpus=n` (0 to 8 GPUs): 1.x spawned with `find_unused_parameters=True` on two GPUs and more, 2.x's
    `accelerator="cuda" if n else "cpu", devices=n or 1` does not; `--unsafe-fixes` writes it and says so."""
    count = gpus((0, 1, 2, 4), "torch.cuda.device_count()")
    decision = plan({"gpus": count}, release("2.6"), unsafe=True)
    assert isinstance(decision, Rewrite)
    assert decision.changes == (
        "find_unused_parameters True -> False for gpus=2 or gpus=4",
        "start_method spawn -> popen for gpus=2 or gpus=4",
    )


def test_a_refusal_says_what_unsafe_fixes_would_write() -> None:
    """Without `--unsafe-fixes` no rewrite keeps every count (-1, all GPUs, was one device on a machine with
    one GPU and spawned on more: no test of the value tells them apart); the finding says what that flag
    would write."""
    decision = plan({"gpus": gpus((0, 1, 2, 4, -1))}, release("2.6"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM101"
    assert decision.message.endswith(" (or `--unsafe-fixes`)")
    assert decision.details[-3:] == (
        "`--unsafe-fixes` writes accelerator='cuda' if args.gpus else 'cpu', devices=args.gpus or 1",
        "which changes find_unused_parameters True -> False for gpus=2, gpus=4 or gpus=-1",
        "which changes start_method spawn -> popen for gpus=2, gpus=4 or gpus=-1",
    )


# --- a value split by tests of its own expression -----------------------------------------------------------

COUNT = "torch.cuda.device_count()"
SPAWN = "ddp_spawn_find_unused_parameters_true"


def _tests(value: Known) -> tuple[str, ...]:
    assert isinstance(value, Choice), value
    return value.tests


@pytest.mark.parametrize(
    ("domain", "text", "test"),
    [
        ((0, 1, 2, 4, 8), COUNT, f"{COUNT} > 1"),  # the machine's count
        ((0, 1, 2, 4), "args.gpus", "args.gpus > 1"),  # `type=int, choices=[0, 1, 2, 4]`
        ((None, 0, 1, 2), "args.gpus", "args.gpus is not None and args.gpus > 1"),  # no `default=`
        ((0, 1, 2), "cfg.gpus or 0", "(cfg.gpus or 0) > 1"),  # an operand of `>` is parenthesized
    ],
)
def test_a_count_no_single_spelling_keeps_is_split_by_tests_of_its_own(
    domain: tuple[Value, ...], text: str, test: str
) -> None:
    """`gpus=n` was the CPU for 0, one GPU for 1, and for more 1.x spawned one process per GPU with
    `find_unused_parameters=True`: at 2.x each keyword that differs tests n as each part needs."""
    decision = plan({"gpus": gpus(domain, text)}, release("2.6"))
    assert isinstance(decision, Rewrite)
    strategy, accelerator, devices = (decision.flags[k] for k in ("strategy", "accelerator", "devices"))
    assert isinstance(strategy, Choice)
    assert (strategy.branches, strategy.tests) == ((SPAWN, "auto"), (test,))
    assert isinstance(accelerator, Choice)
    assert (accelerator.branches, accelerator.tests) == (("cuda", "cpu"), (text,))
    assert repr(devices) == f"{text} or 1"
    assert set(decision.flags) == {"strategy", "accelerator", "devices"}


@pytest.mark.parametrize(
    ("target", "written"),
    [
        ("1.5", None),  # `gpus=` is 1.5's own form
        ("1.7", f"accelerator='cuda' if {COUNT} else 'cpu', devices={COUNT} or 1"),  # 1.7 still spawns
        ("1.9", f"accelerator='cuda' if {COUNT} else 'cpu', devices={COUNT} or 1"),
        (
            "2.0",
            f"strategy='{SPAWN}' if {COUNT} > 1 else 'auto', accelerator='cuda' if {COUNT} else 'cpu',"
            f" devices={COUNT} or 1",
        ),
    ],
)
def test_a_split_is_written_only_where_the_target_needs_it(target: str, written: str | None) -> None:
    decision = plan({"gpus": gpus((0, 1, 2, 4, 8), COUNT)}, release(target))
    if written is None:
        assert decision == Unchanged()
        return
    assert isinstance(decision, Rewrite)
    assert ", ".join(f"{k}={v!r}" for k, v in decision.flags.items()) == written


def test_the_unsafe_rewrite_is_still_the_plainest() -> None:
    """`--unsafe-fixes` lets 2.x's default strategy in: no test of `> 1`, as before."""
    decision = plan({"gpus": gpus((0, 1, 2, 4, 8), COUNT)}, release("2.6"), unsafe=True)
    assert isinstance(decision, Rewrite)
    assert "strategy" not in decision.flags
    assert _tests(decision.flags["accelerator"]) == (COUNT,)


@pytest.mark.parametrize(
    ("domain", "breaks"),
    [
        # -1 is all GPUs: one device on a machine with one, spawned on more; no test of the value tells
        ((0, 1, 2, 8, -1), "-1"),
        # GPU indices as a string spawn as a count does, and `"0,1" > 1` raises: not split by `>`
        ((None, 1, "0,1"), "'0,1'"),
    ],
)
def test_a_value_no_test_of_it_splits_is_refused(domain: tuple[Value, ...], breaks: str) -> None:
    decision = plan({"gpus": gpus(domain)}, release("2.6"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM101"
    assert breaks in decision.details[1]
    assert not any(" > 1" in detail for detail in decision.details)


def test_a_value_read_twice_only_if_it_is_pure() -> None:
    """A split that writes the value's tests twice (and the value) reads it again: only a pure expression
    (names, attributes, the calls that read the machine) gives the same value each time."""
    impure = RunTime("gpus", "next_count()", (0, 1, 2, 4))
    decision = plan({"gpus": impure}, release("2.6"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM101"


def test_cpu_processes_keep_their_count_only_above_one() -> None:
    """1.x ran one process for `num_processes=0` and `-1`, which `devices=` does not take; it spawned for
    more than one."""
    processes = RunTime("num_processes", "args.processes", (0, 1, 2, 4, -1), pure=True)
    decision = plan({"num_processes": processes}, release("2.6"))
    assert isinstance(decision, Rewrite)
    devices, strategy = decision.flags["devices"], decision.flags["strategy"]
    assert repr(devices) == "args.processes if args.processes > 1 else 1"
    assert repr(strategy) == f"'{SPAWN}' if args.processes > 1 else 'auto'"
    assert decision.flags["accelerator"] == "cpu"


@pytest.mark.parametrize(
    ("domain", "written"),
    [
        ((0, 1, 2, 8), ("n", "n > 1", "n == 1")),
        ((None, 0, 1, 2), ("n", "n is not None and n > 1", "n == 1")),
        ((None, 1, "0,1"), ("n", "n == 1")),  # `"0,1" > 1` raises, guarded or not
        (([0, 1], [1], 2), ("n", "n == 1")),
    ],
)
def test_a_value_is_only_tested_where_no_value_of_it_raises(
    domain: tuple[Value, ...], written: tuple[str, ...]
) -> None:
    tests = value_tests(RunTime("gpus", "n", domain, pure=True))
    assert tuple(test.text for test in tests) == written
    for test in tests:  # what the planner takes each to give is what Python gives
        for value in domain:
            assert holds(test.condition, value) == bool(eval(test.text, {}, {"n": value}))


def test_n_or_1_is_not_counted_among_the_tests_written() -> None:
    """At most two tests are written; `devices=n or 1` reads as a default, not a test (and reads n once):
    `distributed_backend="ddp"` with a count was ddp with `find_unused_parameters=True` on GPUs and one
    CPU process for 0."""
    decision = plan({"distributed_backend": "ddp", "gpus": gpus((0, 1, 2, 4), "n")}, release("2.6"))
    assert isinstance(decision, Rewrite)
    assert {k: repr(v) for k, v in decision.flags.items()} == {
        "strategy": "'ddp_find_unused_parameters_true' if n else 'single_device'",
        "accelerator": "'cuda' if n else 'cpu'",
        "devices": "n or 1",
    }


def test_the_unsafe_advice_is_said_once() -> None:
    """`gpus = -1 if cuda else 0; Trainer(gpus=gpus)` (Nixtla/neuralforecast, 2022): the refusal of a part
    of the call, planned through the same door, already said "(or `--unsafe-fixes`)"; the message said it
    twice, and its evidence each line twice. (torch imported in the function: the module does not import
    it, so no test of the machine's GPU count is written, ``test_bound_conditionals``.)"""
    text = (
        "import pytorch_lightning as pl\n\n\ndef f():\n    import torch\n\n"
        "    gpus = -1 if torch.cuda.is_available() else 0\n    return pl.Trainer(gpus=gpus)\n"
    )
    (finding,) = migrate(text, release("2.6")).findings
    assert finding.code == "LM103"
    assert finding.message.endswith("; change it by hand (or `--unsafe-fixes`)"), finding.message
    assert len(finding.details) == len(set(finding.details))


CONDITIONAL_ON_GPUS = """\
import argparse

from pytorch_lightning import Trainer

parser = argparse.ArgumentParser()
parser.add_argument("--gpus", type=int, default=0)
args = parser.parse_args()
trainer = Trainer(accelerator="ddp" if args.gpus > 1 else None, gpus=args.gpus)
"""


def test_a_call_some_values_of_which_have_a_rewrite_is_one_no_rewrite_keeps_for_every_value() -> None:
    """(Face-Recognition, nerf_pl, nuwave: `gpus=-1` beside `accelerator="ddp" if gpus > 1 else None`,
    which 1.x spawned on several GPUs, was told LM103 "Lightning 2.6.6 cannot build what this call built"
    as if no value could be migrated.) The value that no rewrite keeps is named in the evidence. (-1 is kept
    by a test of the machine's GPU count, written with an `import torch` the rewrite adds where the module
    may be given one: here a star import may bind `torch`.)"""
    starred = CONDITIONAL_ON_GPUS.replace("import argparse\n", "import argparse\nfrom helpers import *\n")
    (finding,) = migrate(starred, release("2.6")).findings
    assert finding.code == "LM101"
    assert "no rewrite keeps every value" in finding.message
    assert (
        "when accelerator=None, gpus=-1: Lightning 2.6.6 cannot build what this call built" in finding.details
    )
    rewritten = migrate(CONDITIONAL_ON_GPUS, release("2.6"))
    assert "from pytorch_lightning import Trainer\nimport torch\n" in rewritten.code
    assert "torch.cuda.device_count() > 1" in rewritten.code
    assert {f.code for f in rewritten.findings} == {"LM001", "LM004"}


# --- -1 (every GPU) beside counts: a test of the value joined to one of the machine ----------------------


def _at(choice: Known, value: Value, cuda: int) -> object:
    """What a conditional the planner wrote gives where the value it splits holds ``value``, on a machine
    with ``cuda`` GPUs (a test of the machine: ``machine_branch``; else the value's own tests)."""
    assert isinstance(choice, Choice)
    if choice.machine:
        index = machine_branch(choice, cuda, value)
    else:
        assert choice.conditions is not None
        index = next((i for i, c in enumerate(choice.conditions) if holds(c, value)), len(choice.conditions))
    branch = choice.branches[index]
    return value if isinstance(branch, RunTime) else branch


SPAWN = "ddp_spawn_find_unused_parameters_true"


def test_minus_one_beside_counts_is_told_apart_by_the_machine_only_where_the_value_is_neither_0_nor_1() -> (
    None
):
    """`gpus=args.gpus` (`type=int`): 1.x spawned for 2 and 8 and for -1 on several GPUs, and ran one GPU for
    1 and for -1 on one GPU. The strategy's test joins one of the value to one of the machine."""
    decision = plan({"gpus": gpus()}, release("2.6"), machine="torch")
    assert isinstance(decision, Rewrite), decision
    strategy = decision.flags["strategy"]
    assert isinstance(strategy, Choice)
    assert strategy.machine
    assert strategy.split
    assert strategy.tests == ("args.gpus and args.gpus != 1 and torch.cuda.device_count() > 1",)
    assert [_at(strategy, n, 4) for n in INTS] == ["auto", "auto", SPAWN, SPAWN, SPAWN]
    assert [_at(strategy, n, 1) for n in INTS] == ["auto"] * 5
    assert [_at(decision.flags["devices"], n, 4) for n in INTS] == [1, 1, 2, 8, -1]  # `args.gpus or 1`
    assert [_at(decision.flags["accelerator"], n, 4) for n in INTS] == ["cpu", *["cuda"] * 4]
    # without the name torch is imported as no test of the machine is written: reported, as before
    assert isinstance(plan({"gpus": gpus()}, release("2.6")), Refusal)


def test_a_written_conditionals_branch_no_spelling_keeps_is_split_by_the_values_tests() -> None:
    """`accelerator="ddp" if n > 1 else None` beside `gpus=n`: the `else` branch holds 0, 1 and -1."""
    condition = Op("compare", (Atom("args.gpus"), Const(1)), (">",))
    choice = Choice("accelerator", ("ddp", None), ("args.gpus > 1",), True, conditions=(condition,))
    decision = plan({"gpus": gpus(), "accelerator": choice}, release("2.6"), machine="torch")
    assert isinstance(decision, Rewrite), decision
    flags = decision.flags
    assert set(flags) == {"accelerator", "devices", "strategy"}
    assert [_at(flags["accelerator"], n, 2) for n in INTS] == ["cpu", "cuda", "cuda", "cuda", "cuda"]
    assert [_at(flags["devices"], n, 2) for n in INTS] == [1, 1, 2, 8, -1]
    strategy = flags["strategy"]
    assert isinstance(strategy, Choice)
    assert strategy.tests[0] == "args.gpus > 1"  # the call's test first, then the split's
    ddp = "ddp_find_unused_parameters_true"
    assert [_at(strategy, n, 2) for n in INTS] == ["auto", "auto", ddp, ddp, SPAWN]
    assert [_at(strategy, n, 1) for n in INTS] == ["auto", "auto", ddp, ddp, "auto"]
    # for 1.9 no spelling of the branch but one that keeps `gpus=` keeps it: split too, so that none is left
    older = plan({"gpus": gpus(), "accelerator": choice}, release("1.9"), machine="torch")
    assert isinstance(older, Rewrite)
    assert not older.left
    assert set(older.flags) == {"accelerator", "devices", "strategy"}


def test_a_test_of_the_value_for_a_part_may_be_a_negation_or_two_joined() -> None:
    tests = value_tests(gpus())
    joined = {t.text: [holds(t.condition, n) for n in INTS] for t in joined_tests(tests)}
    assert joined["not args.gpus"] == [True, False, False, False, False]
    assert joined["args.gpus != 1"] == [True, False, True, True, True]
    assert joined["args.gpus and args.gpus != 1"] == [False, False, True, True, True]
    assert not any(text.count("args.gpus > 1") and text.count("args.gpus <= 1") for text in joined)
    # an expression that `and` would bind into is parenthesized
    loose = value_tests(RunTime("gpus", "a or b", INTS, pure=True))
    assert any(t.text.startswith("(a or b) and ") for t in joined_tests(loose))
