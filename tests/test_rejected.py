"""Calls no release builds (``plan.rejected``): reported (LM100) in the words of the release targeted, with
both calls a conflict may have meant, and left alone where the code expects the raise."""

from __future__ import annotations

import pytest

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.planner import Refusal, Unchanged
from lightning_migrate.plan.rejected import everywhere, first_sentence
from lightning_migrate.semantics import Hardware, Rejected, interpret
from lightning_migrate.semantics.model import Value, release

CONFLICT: dict[str, Value] = {"accelerator": "ddp", "strategy": "ddp_spawn"}
TITLE = "no Lightning release builds this call"
NOWHERE = "no release from 1.4.9 to 2.6.6 builds it on any machine"
KEEP = "keep `strategy='ddp_spawn'` and drop `accelerator='ddp'`"
MEANT = "write the training type you meant in `strategy=`"


def refusal(flags: dict[str, Value], target: str) -> Refusal:
    decision = plan(flags, release(target))
    assert isinstance(decision, Refusal), decision
    assert decision.code == "LM100"
    assert decision.nowhere
    return decision


def message(flags: dict[str, Value], target: str) -> str:
    """The finding's evidence, one item a line (what each release raises, both calls it may have meant)."""
    return "\n".join(refusal(flags, target).details)


@pytest.mark.parametrize(
    ("target", "said"),
    [
        (
            "1.5",
            "Lightning 1.5.10 raises MisconfigurationException: You have passed"
            " `Trainer(strategy='ddp_spawn')` but have also passed `Trainer(accelerator='ddp')`",
        ),
        (
            "1.6",
            "Lightning 1.6.5 raises MisconfigurationException: strategy ddp_spawn already set through"
            " `strategy` flag, but have also passed ddp in through the accelerator flag",
        ),
        (
            "1.7",
            "Lightning 1.7.7 raises ValueError: You selected an invalid accelerator name:"
            " `accelerator='ddp'`",
        ),
        (
            "2.6",
            "Lightning 2.6.6 raises ValueError: You selected an invalid accelerator name:"
            " `accelerator='ddp'`",
        ),
    ],
)
def test_a_conflict_is_told_in_the_targets_words(target: str, said: str) -> None:
    got = refusal(CONFLICT, target)
    assert got.message == f"{TITLE}; keep `strategy=` or the other training type"
    assert got.details[:2] == (said, NOWHERE)
    assert got.details[-2].startswith(KEEP)
    assert got.details[-1].startswith(MEANT)


def test_the_words_are_the_models() -> None:
    # (the 1.5 message goes on with a hint, which the finding leaves out)
    outcome = interpret(CONFLICT, "1.5.10", Hardware(cuda=2)).outcome
    assert isinstance(outcome, Rejected)
    assert first_sentence(outcome.message) in message(CONFLICT, "1.5")
    assert "HINT" in outcome.message
    assert "HINT" not in message(CONFLICT, "1.5")


@pytest.mark.parametrize(
    ("target", "meant"),
    [
        ("1.5", "(`accelerator='ddp'` alone is written `strategy='ddp'`)"),
        (
            "1.6",
            "(`accelerator='ddp'` alone is written `strategy='single_device'`)",
        ),  # what 1.4 built on a CPU
        ("1.7", ""),  # (1.4 and 1.6 built different things with `accelerator='ddp'` alone)
        ("2.6", ""),
    ],
)
def test_what_the_older_flag_meant_is_written_by_the_planner(target: str, meant: str) -> None:
    assert refusal(CONFLICT, target).details[-1] == f"{MEANT}{' ' + meant if meant else ''}"


def test_both_calls_are_written_for_the_target() -> None:
    said = message({**CONFLICT, "gpus": 2}, "2.6")
    assert said.startswith("Lightning 2.6.6 raises TypeError: Trainer.__init__() got an unexpected")
    assert (
        f"{KEEP} (`strategy='ddp_spawn', gpus=2` is written"
        " `strategy='ddp_spawn_find_unused_parameters_true', accelerator='cuda', devices=2`)"
    ) in said
    assert (
        f"{MEANT} (`accelerator='ddp', gpus=2` alone is written"
        " `accelerator='cuda', strategy='ddp_find_unused_parameters_true', devices=2`)"
    ) in said


def test_a_plugin_name_beside_strategy() -> None:
    said = message({"plugins": "ddp_find_unused_parameters_false", "strategy": "ddp_spawn"}, "1.7")
    assert (
        "raises MisconfigurationException: Found invalid type for plugin ddp_find_unused_parameters_false\n"
        in said
    )
    assert "keep `strategy='ddp_spawn'` and drop `plugins='ddp_find_unused_parameters_false'`" in said
    assert "alone is written `strategy='ddp_find_unused_parameters_false'`" in said


def test_distributed_backend_beside_strategy_in_each_targets_words() -> None:
    flags: dict[str, Value] = {"distributed_backend": "ddp_cpu", "strategy": "ddp_spawn"}
    # 1.4 has no `strategy=`; every later release has no `distributed_backend=`: each says so of its own
    assert "got an unexpected keyword argument 'strategy'" in message(flags, "1.4")
    for target in ("1.5", "1.6", "1.7", "2.6"):
        said = message(flags, target)
        assert "got an unexpected keyword argument 'distributed_backend'" in said
        assert "keep `strategy='ddp_spawn'` and drop `distributed_backend='ddp_cpu'`" in said
    assert message(flags, "1.6").endswith(
        "(`distributed_backend='ddp_cpu'` alone is written `strategy='ddp_spawn'`)"
    )


def test_for_14_the_other_flag_is_the_targets_own() -> None:
    assert refusal(CONFLICT, "1.4").details[-1] == "drop `strategy='ddp_spawn'`"


def test_a_call_no_release_builds_for_another_reason() -> None:
    got = refusal({"accelerator": "tpu", "precision": "16-true", "strategy": "ddp"}, "2.6")
    # the TPU host's words, not a CUDA machine's missing torch_xla
    assert got.message == f"{TITLE}; fix it by hand"
    assert got.details == (
        "on TPU (8 cores), Lightning 2.6.6 raises ValueError: The `XLAAccelerator` can only be used"
        " with a `SingleDeviceXLAStrategy` or `XLAStrategy`, found DDPStrategy",
        NOWHERE,
    )


@pytest.mark.parametrize(
    "flags",
    [
        {"strategy": "ddp_spawn"},  # built
        {"accelerator": "invalid"},  # 1.6 took it
        {"accelerator": "cpu", "strategy": "fsdp"},  # 1.5 to 1.9 built it
        {"strategy": "cocofruit"},  # a name the project may register
        {"strategy": "colossalai"},  # `lightning-colossalai` registers it in 2.x
        {"accelerator": "hpu", "devices": 8},  # no judged machine has HPUs
        {"precision": "transformer-engine"},  # needs a package no judged machine has
        {"amp_backend": "apex", "precision": 16, "gpus": 1},  # 1.4 built it with apex
    ],
)
def test_not_reported_as_built_nowhere(flags: dict[str, Value]) -> None:
    for target in ("1.6", "2.6"):
        assert everywhere(flags, release(target), plan) is None


def test_modern_code_is_left_alone() -> None:
    assert isinstance(
        plan({"strategy": "ddp_spawn", "accelerator": "cpu", "devices": 2}, release("2.6")), Unchanged
    )


def test_first_sentence() -> None:
    long = "You selected an invalid accelerator name: `accelerator='x'`. Available names are: " + "a, " * 30
    assert first_sentence(long) == "You selected an invalid accelerator name: `accelerator='x'`"
    assert first_sentence("Trainer.__init__() got an unexpected keyword argument 'gpus'") == (
        "Trainer.__init__() got an unexpected keyword argument 'gpus'"
    )
    assert first_sentence("Precision '16-true' is invalid. Allowed: ['16']") == (
        "Precision '16-true' is invalid. Allowed: ['16']"  # (short: whole)
    )


RAISES = """\
import pytest
from pytorch_lightning import Trainer

def test():
    with pytest.raises(ValueError):
        Trainer(accelerator="ddp", strategy="ddp_spawn")
"""


@pytest.mark.parametrize(
    ("code", "reported"),
    [
        (RAISES, False),
        (RAISES.replace("pytest.raises", "pytest.warns"), True),  # another context manager
        (
            RAISES.replace("import pytest", "import pytest\nfrom pytest import raises as r").replace(
                "pytest.raises", "r"
            ),
            False,
        ),
        (RAISES.replace("import pytest", "import mypkg as pytest"), True),  # not pytest's
        (RAISES.replace("    with pytest.raises(ValueError):\n        ", "    "), True),  # no context
        (
            RAISES.replace("with pytest.raises(ValueError):", "with pytest.raises(ValueError), open('f'):"),
            False,
        ),
        (RAISES.replace("Trainer(", "pytest.raises(ValueError, lambda: Trainer(") + ")", False),
        (
            RAISES.replace("        Trainer(", "        def f():\n            return Trainer("),
            True,
        ),  # runs later
        (
            RAISES.replace("def test():", "class T:\n  def test(self):").replace(
                "pytest.raises(ValueError)", "self.assertRaisesRegex(ValueError, 'x')"
            ),
            False,
        ),
    ],
)
def test_where_the_code_expects_the_raise(code: str, reported: bool) -> None:
    for target in ("1.5", "2.6"):
        found = [f for f in migrate(code, release(target)).findings if f.code == "LM100"]
        assert bool(found) == reported, (code, target)


PARAMETRIZED = """\
import pytest
from pytorch_lightning import Trainer

@pytest.mark.parametrize(("accelerator", "strategy"), [("ddp", "ddp_spawn"), ("ddp_spawn", "ddp")])
def test(accelerator, strategy):
    with pytest.raises(ValueError):
        Trainer(accelerator=accelerator, strategy=strategy)
"""


def test_parametrize_rows_that_each_raise() -> None:
    for target in ("1.5", "1.6", "2.6"):
        assert migrate(PARAMETRIZED, release(target)).findings == []


def test_parametrized_values_outside_a_raise_context() -> None:
    code = PARAMETRIZED.replace('("accelerator", "strategy")', '"strategy"')
    code = code.replace('[("ddp", "ddp_spawn"), ("ddp_spawn", "ddp")]', '["ddp_spawn", "ddp_sharded_spawn"]')
    code = code.replace("accelerator=accelerator", 'accelerator="ddp"').replace(
        "accelerator, strategy", "strategy"
    )
    assert migrate(code, release("1.5")).findings == []
    bare = code.replace("    with pytest.raises(ValueError):\n    ", "")
    (finding,) = migrate(bare, release("1.5")).findings
    assert finding.code == "LM100"
    assert finding.message.startswith(f"`strategy=strategy`: {TITLE}")
    assert finding.details[0] == "when strategy='ddp_spawn' (a value it may take)"
