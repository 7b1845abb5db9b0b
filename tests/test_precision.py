"""Precision in the model: what each release trains with, the precision plugins' constructors, and that the
same training compares equal across releases (the real releases are the judge in tests/real); and what the
planner says where precision stops a rewrite."""

from __future__ import annotations

import pytest

from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.planner import Refusal
from lightning_migrate.semantics import Hardware, Obj, Precision, Rejected, Setup, interpret
from lightning_migrate.semantics.model import Value, release
from lightning_migrate.semantics.render import render

GPUS = Hardware(cuda=2)
NATIVE = Obj.of("NativeMixedPrecisionPlugin")
NATIVE_15 = Obj.of("NativeMixedPrecisionPlugin", precision=16, device="cuda")
FP16_CUDA = Precision("16-mixed", device="cuda")


def precision(flags: dict, version: str, hardware: Hardware = GPUS) -> Precision | Rejected:  # type: ignore[type-arg]
    outcome = interpret(flags, version, hardware).outcome
    return outcome.precision if isinstance(outcome, Setup) else outcome


@pytest.mark.parametrize(
    ("flags", "version"),
    [
        ({"gpus": 2, "precision": 16}, "1.4"),
        ({"gpus": 2, "precision": 16}, "1.9"),
        ({"accelerator": "cuda", "devices": 2, "precision": "16-mixed"}, "2.6"),
        ({"accelerator": "cuda", "devices": 2, "precision": 16}, "2.0"),
        ({"gpus": 2, "plugins": [NATIVE]}, "1.4"),
        ({"gpus": 2, "plugins": [NATIVE_15]}, "1.5"),
        (
            {
                "accelerator": "cuda",
                "devices": 2,
                "plugins": [Obj.of("MixedPrecision", precision="16-mixed", device="cuda")],
            },
            "2.6",
        ),
    ],
)
def test_float16_amp_on_cuda_is_the_same_precision_in_every_spelling(flags: dict, version: str) -> None:  # type: ignore[type-arg]
    assert precision(flags, version) == FP16_CUDA


def test_the_defaults() -> None:
    assert precision({}, "1.4") == Precision() == precision({}, "2.6")
    # 1.5+ turns float16 AMP on the CPU into bfloat16 (1.4 raises)
    assert precision({"precision": 16}, "1.5") == Precision("bf16-mixed", device="cpu")
    assert isinstance(precision({"precision": 16}, "1.4"), Rejected)
    # apex: 1.4 defaults amp_level to "O2", 1.5+ sets "O2" when none is given
    apex = Hardware(cuda=2, installed=frozenset({"apex"}))
    for version in ("1.4", "1.5", "1.9"):
        assert precision({"gpus": 1, "precision": 16, "amp_backend": "apex"}, version, apex) == Precision(
            "16-mixed", "apex", "O2"
        )
    # a TPU's half precision is bfloat16 everywhere (XLA_USE_BF16)
    tpu = Hardware(tpu_cores=8)
    assert precision({"tpu_cores": 8, "precision": 16}, "1.4", tpu) == Precision("bf16-true")
    assert precision({"accelerator": "tpu", "devices": 8, "precision": "bf16-true"}, "2.6", tpu) == Precision(
        "bf16-true"
    )


def test_native_mixed_precision_plugin_takes_no_argument_in_1_4_only() -> None:
    assert precision({"gpus": 2, "plugins": [NATIVE]}, "1.4") == FP16_CUDA
    missing = "missing 2 required positional arguments: 'precision' and 'device'"
    assert precision({"gpus": 2, "plugins": [NATIVE]}, "1.5") == Rejected(
        "TypeError", f"NativeMixedPrecisionPlugin.__init__() {missing}"
    )
    # 1.9's deprecated subclass forwards to MixedPrecisionPlugin, 2.6's graveyard alias to MixedPrecision
    assert precision({"gpus": 2, "plugins": [NATIVE]}, "1.9") == Rejected(
        "TypeError", f"MixedPrecisionPlugin.__init__() {missing}"
    )
    alias = Obj.of("MixedPrecisionPlugin")
    assert precision({"plugins": [alias]}, "2.6") == Rejected(
        "TypeError", f"MixedPrecision.__init__() {missing}"
    )
    assert precision({"gpus": 2, "plugins": [NATIVE_15]}, "1.4") == Rejected(
        "TypeError", "NativeMixedPrecisionPlugin.__init__() got an unexpected keyword argument 'device'"
    )
    assert precision({"plugins": [NATIVE]}, "2.0") == Rejected(
        "ImportError", "cannot import name 'NativeMixedPrecisionPlugin'"
    )


def test_a_given_precision_plugin_skips_the_1_4_selection_and_its_checks() -> None:
    # precision=16 on the CPU raises in 1.4, unless a precision plugin says what to do
    assert precision({"precision": 16, "plugins": [NATIVE]}, "1.4", Hardware()) == FP16_CUDA
    # 1.5: the amp_level check is part of the selection too
    assert precision({"amp_level": "O1", "plugins": [Obj.of("DoublePrecisionPlugin")]}, "1.5") == Precision(
        "64-true"
    )


def test_precision_plugins_are_not_kept_plugins_but_environments_are() -> None:
    env = Obj.of("LightningEnvironment")
    outcome = interpret({"gpus": 2, "precision": 16, "plugins": [NATIVE, env]}, "1.4", GPUS).outcome
    assert isinstance(outcome, Setup)
    assert outcome.plugins == (env,)
    assert outcome.precision == FP16_CUDA


def test_renamed_precision_classes_warn_under_precision() -> None:
    result = interpret({"plugins": [Obj.of("PrecisionPlugin")]}, "2.6")
    assert [d.flag for d in result.deprecations] == ["precision"]
    assert interpret({"plugins": [Obj.of("Precision")]}, "2.6").deprecations == []


def test_environment_constructors() -> None:
    slurm = Obj.of("SLURMEnvironment", auto_requeue=False)
    assert precision({"plugins": [slurm]}, "1.5") == Rejected(
        "TypeError", "SLURMEnvironment() takes no arguments"
    )
    assert not isinstance(interpret({"plugins": [slurm]}, "2.6").outcome, Rejected)


@pytest.mark.parametrize(
    ("setup_flags", "version", "target", "spelled"),
    [
        ({"gpus": 2, "precision": 16}, "1.4", "2.6", {"precision": "16-mixed"}),
        ({"gpus": 2, "precision": 16}, "1.4", "1.9", {"precision": 16}),
        ({"gpus": 1, "precision": 64}, "1.4", "2.6", {"precision": "64-true"}),
    ],
)
def test_render_spells_the_precision_as_the_target_recommends(
    setup_flags: dict,
    version: str,
    target: str,
    spelled: dict,  # type: ignore[type-arg]
) -> None:
    setup = interpret(setup_flags, version, GPUS).outcome
    assert isinstance(setup, Setup)
    flags = render(setup, target)
    assert isinstance(flags, dict)
    assert {k: flags[k] for k in spelled} == spelled
    assert interpret(flags, target, GPUS).outcome == setup


@pytest.mark.parametrize(
    ("flags", "version"),
    [
        ({"accelerator": "ddp_sharded", "gpus": 2, "precision": 16}, "1.4"),
        ({"strategy": "ddp_sharded", "gpus": 2, "precision": 16}, "1.5"),
        ({"strategy": "ddp_sharded", "accelerator": "gpu", "devices": 2, "precision": 16}, "1.9"),
    ],
)
def test_sharded_amp_runs_the_strategys_autocast(flags: dict, version: str) -> None:  # type: ignore[type-arg]
    # (Sharded/FullySharded)NativeMixedPrecisionPlugin: no autocast device of its own
    fairscale = Hardware(cuda=2, installed=frozenset({"fairscale"}))
    assert precision(flags, version, fairscale) == Precision("16-mixed")


def test_a_refusal_names_the_machine_where_the_closest_rewrite_breaks() -> None:
    """`accelerator="gpu", precision=16` autocast on "cuda" on an Apple GPU in 1.7-1.9 (so not at all), on
    the GPU itself in 2.x: no 2.x spelling keeps it, and the refusal says so of that machine, not of a CUDA
    one where `use_distributed_sampler=False` keeps everything."""
    flags: dict[str, Value] = {"devices": 1, "accelerator": "gpu", "precision": 16}
    flags["replace_sampler_ddp"] = False
    decision = plan(flags, release("2.6"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM103"
    assert decision.message == "Lightning 2.6.6 cannot build what this call built; change it by hand"
    built = decision.details[0]
    assert built.startswith("on Apple MPS, this call builds ")
    assert built.endswith("precision 16-mixed (autocast on cuda)")


APEX = {"gpus": 1, "precision": 16, "amp_backend": "apex", "amp_level": "O2"}


def test_an_apex_call_is_judged_where_apex_is_installed() -> None:
    """1.x raised for `amp_backend="apex"` without apex, and those who wrote it had it: judged only on bare
    machines, the call was "built by no release" (LM100 at 2.x, and silent at 1.9 although `gpus=` is
    deprecated there). With apex it is apex AMP: 1.9 keeps it, beside the new device flags; 2.x has none."""
    at_19 = plan(APEX, release("1.9"))
    assert not isinstance(at_19, Refusal), at_19
    assert {k: at_19.flags[k] for k in ("accelerator", "devices", "amp_backend")} == {  # type: ignore[union-attr]
        "accelerator": "cuda",
        "devices": 1,
        "amp_backend": "apex",
    }
    at_26 = plan(APEX, release("2.6"))
    assert isinstance(at_26, Refusal)
    assert at_26.code == "LM103", at_26
    assert any("with apex AMP O2" in detail for detail in at_26.details), at_26.details
