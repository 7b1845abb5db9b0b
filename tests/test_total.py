"""The model is total: for any value of any keyword it reads, on every release, ``interpret`` answers (a setup
or the release's own error) or refuses with ``Unmodelled``; it never fails with an error of its own. The
planner and the shim inherit that: a refusal is a finding, and the shim hands such a call to the real
Trainer as written."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from searches import search_settings

from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.planner import MACHINES, PACKAGE_MACHINES, Refusal, Rewrite
from lightning_migrate.semantics import Obj, Unmodelled, constructors, interpret
from lightning_migrate.semantics.classes import CLASSES
from lightning_migrate.semantics.model import RELEASES, Hardware, Version
from lightning_migrate.semantics.registry import DISTRIBUTED_TYPES, registered
from lightning_migrate.semantics.signature import TRAINER_FLAGS, accepts
from lightning_migrate.semantics.translate import translate

# Every string the model gives a meaning to somewhere, and some it does not.
WORDS = sorted(
    {
        *DISTRIBUTED_TYPES,
        *(name for release in RELEASES for name in registered(release)),
        *("cpu", "gpu", "cuda", "tpu", "ipu", "hpu", "mps", "auto", "ddp_cpu", "horovod"),
        *("16", "32", "64", "bf16", "16-mixed", "bf16-mixed", "16-true", "bf16-true", "32-true", "mixed"),
        *("native", "apex", "O1", "O2", "popen", "spawn", "fork", "forkserver"),
        *("", " ", "0", "1", "2", "-1", "0,", "1,", "0,1", "3, 5", "[0]", "x", "DDP", "Auto", "None"),
    }
)
CLASS_NAMES = sorted({row.name for row in CLASSES} | {"MyStrategy", "TrainingTypePlugin"})
KEYWORDS = sorted(
    {name for rows in constructors.SIGNATURES.values() for row in rows for name in row.names}
    | {"find_unused_parameters", "start_method", "stage", "offload_optimizer", "precision", "device"}
)

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 9),
    st.sampled_from([10**6, 2**63, -(10**9)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=4),
)


def _objects(arguments: st.SearchStrategy[object]) -> st.SearchStrategy[Obj]:
    kwargs = st.dictionaries(st.sampled_from(KEYWORDS), arguments, max_size=3)
    return st.builds(
        lambda cls, kw: Obj(cls, tuple(sorted(kw.items()))), st.sampled_from(CLASS_NAMES), kwargs
    )


values = st.recursive(
    leaves | _objects(leaves),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner) | st.tuples(inner, inner) | _objects(inner),
    max_leaves=6,
)
MACHINE = st.sampled_from(MACHINES + PACKAGE_MACHINES + (Hardware(cuda=3, tpu_cores=8, mps=True),))


def _calls(release: Version) -> st.SearchStrategy[dict[str, object]]:
    """Calls over the whole hardware/distribution signature of ``release``, and some keywords it lacks."""
    own = sorted(flag for flag in TRAINER_FLAGS if accepts(flag, release))
    others = sorted(set(TRAINER_FLAGS) - set(own))
    keys = st.lists(st.sampled_from(own), unique=True, max_size=5) | st.lists(
        st.sampled_from(own + others), unique=True, max_size=3
    )
    return keys.flatmap(lambda names: st.fixed_dictionaries(dict.fromkeys(names, values)))


def _answers(flags: dict[str, object], release: Version, machine: Hardware) -> None:
    refusal: Unmodelled | None = None
    try:
        interpret(flags, release, machine)  # type: ignore[arg-type]
    except Unmodelled as exc:
        refusal = exc
    if refusal is not None:  # a refusal names a keyword of the call and says why
        assert refusal.flag in flags
        assert str(refusal).startswith(f"the model does not judge `{refusal.flag}=")


@pytest.mark.parametrize("release", RELEASES, ids=str)
def test_interpret_answers_every_value_of_every_keyword(release: Version) -> None:
    @search_settings(250)
    @given(_calls(release), MACHINE)
    def check(flags: dict[str, object], machine: Hardware) -> None:
        _answers(flags, release, machine)

    check()


@pytest.mark.parametrize(
    "flags",
    [
        {"num_nodes": None},
        {"num_nodes": "2"},
        {"num_nodes": [2]},
        {"strategy": True},
        {"strategy": 0},
        {"num_processes": 10**12},
        {"gpus": 10**12},
        {"devices": 10**12, "accelerator": "cpu"},
    ],
    ids=repr,
)
@pytest.mark.parametrize("release", RELEASES, ids=str)
def test_values_found_unmodelled_are_answered(flags: dict[str, object], release: Version) -> None:
    for machine in MACHINES:
        _answers(flags, release, machine)


@search_settings(400)
@given(_calls(RELEASES[0]), st.sampled_from(["1.5", "1.9", "2.6"]))
def test_the_planner_refuses_what_the_model_does_not_judge(flags: dict[str, object], target: str) -> None:
    decision = plan(flags, Version.parse(target))  # type: ignore[arg-type]
    if isinstance(decision, Refusal):
        assert decision.code.startswith("LM1")
        assert decision.message


def test_an_unmodelled_value_is_refused_with_its_reason() -> None:
    decision = plan({"accelerator": "ddp", "gpus": 2, "num_nodes": None}, Version.parse("2.6"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM104"
    assert "num_nodes=None" in decision.message


@search_settings(300)
@given(_calls(RELEASES[0]), st.sampled_from(RELEASES), MACHINE)
def test_the_shim_hands_what_the_model_does_not_judge_to_the_trainer(
    flags: dict[str, object], installed: Version, machine: Hardware
) -> None:
    translate(flags, installed, machine, "pytorch_lightning")  # type: ignore[arg-type]


def test_the_shim_passes_an_unmodelled_value_through_as_written() -> None:
    flags = {"accelerator": "ddp", "gpus": 2, "num_nodes": None}
    result = translate(dict(flags), Version.parse("2.6.6"), Hardware(cuda=2), "pytorch_lightning")
    assert result.outcome == flags
    assert result.how.startswith("passed through")
    assert "num_nodes=None" in result.how
    assert [d.flag for d in result.deprecated] == ["accelerator", "gpus"]


@pytest.mark.parametrize("target", ["1.5", "1.9", "2.6"])
def test_an_object_holding_a_list_is_planned(target: str) -> None:
    """Setups are hashed: a user's object with a list argument (found by the search above) is held frozen."""
    obj = Obj.of("DDPPlugin", parallel_devices=[0, 1], find_unused_parameters=False)
    assert obj.kw()["parallel_devices"] == (0, 1)
    decision = plan({"accelerator": "ddp", "gpus": 2, "plugins": [obj]}, Version.parse(target))  # type: ignore[dict-item]
    assert isinstance(decision, (Refusal, Rewrite))
