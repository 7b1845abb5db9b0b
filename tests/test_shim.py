"""The shim's flag translation, against the semantics model (no Lightning needed)."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import pickle
import sys
import types
import typing
from dataclasses import replace

import pytest
from grid import HARDWARE, distribution_cases
from trainer_defaults import trainer_defaults

from lightning_migrate.semantics import Hardware, Obj, Rejected, Setup, interpret
from lightning_migrate.semantics.model import MISCONF, RELEASES, Version
from lightning_migrate.semantics.removed import SHIM_TAKES
from lightning_migrate.semantics.signature import accepts
from lightning_migrate.semantics.translate import (
    ADVICE,
    REFERENCE,
    TRANSLATED,
    Translation,
    deprecated_spellings,
    given_flags,
    is_default,
    reference_value,
    translate,
)
from lightning_migrate.shim import resume
from lightning_migrate.shim.namespace import extended_signature, release_defaults

NAMESPACES = ("pytorch_lightning", "lightning.pytorch")
CPU, CUDA4, TPU8 = Hardware(), Hardware(cuda=4), Hardware(tpu_cores=8)

# The three conflict examples of the mission: the same exception and message on every release.
CONFLICTS = (
    (
        {"distributed_backend": "ddp_cpu", "strategy": "ddp_spawn"},
        "You have passed `Trainer(strategy='ddp_spawn')` but have also passed"
        " `Trainer(distributed_backend='ddp_cpu')`. HINT: Use just `Trainer(strategy='ddp_spawn')` instead.",
        ["distributed_backend"],
    ),
    (
        {"accelerator": "ddp", "strategy": "ddp_spawn"},
        "You have passed `Trainer(strategy='ddp_spawn')` but have also passed `Trainer(accelerator='ddp')`."
        " HINT: Use just `Trainer(strategy='ddp_spawn')` instead.",
        ["accelerator"],
    ),
    (
        {"plugins": "ddp_find_unused_parameters_false", "strategy": "ddp_spawn"},
        "You have passed `Trainer(strategy='ddp_spawn')` and you can only specify one training type plugin,"
        " but you have passed ddp_find_unused_parameters_false as a plugin.",
        ["plugins"],
    ),
)


def shim(flags: dict, version: str, hardware: Hardware = CPU, namespace: str = NAMESPACES[0]) -> Translation:  # type: ignore[type-arg]
    return translate(dict(flags), Version.parse(version), hardware, namespace)


@pytest.mark.parametrize("namespace", NAMESPACES)
@pytest.mark.parametrize("version", RELEASES, ids=str)
@pytest.mark.parametrize(
    ("flags", "message", "deprecated"), CONFLICTS, ids=["backend", "accelerator", "plugins"]
)
def test_conflict_examples_raise_the_same_everywhere(
    flags: dict,  # type: ignore[type-arg]
    message: str,
    deprecated: list[str],
    version: Version,
    namespace: str,
) -> None:
    result = shim(flags, str(version), namespace=namespace)
    assert result.outcome == Rejected(MISCONF, message)
    assert [d.flag for d in result.deprecated] == deprecated


def test_the_model_raises_the_two_release_checks_in_the_reference_release() -> None:
    """Only the `distributed_backend` check is the shim's own: the others are 1.5.10's, from the model."""
    for flags, message, _ in CONFLICTS[1:]:
        assert interpret(flags, REFERENCE).outcome == Rejected(MISCONF, message)
    assert interpret(CONFLICTS[0][0], REFERENCE).outcome.error == "TypeError"  # type: ignore[union-attr]


# The mission's examples: what each release is given. A release that builds the call as written, without a
# deprecation, gets it as written (its own meaning); the others get the 1.5.10 meaning in their spelling.
AS_WRITTEN: dict = {}  # type: ignore[type-arg]  # the release is given the call unchanged
DDP_PLUGIN = Obj.of("DDPPlugin", find_unused_parameters=False)
DDP_STRATEGY = Obj.of("DDPStrategy", find_unused_parameters=False)
EXAMPLES = (
    (
        {"strategy": "ddp", "accelerator": "gpu", "devices": 4},
        CUDA4,
        {
            "1.4.9": {"accelerator": "ddp", "gpus": 4},
            "1.5.10": AS_WRITTEN,
            "1.7.7": AS_WRITTEN,
            "2.6.6": AS_WRITTEN,
        },
    ),
    (
        {"strategy": "ddp_spawn", "accelerator": "cpu", "devices": 4},
        CPU,
        {
            "1.4.9": {"accelerator": "ddp_spawn", "num_processes": 4},
            "1.9.5": AS_WRITTEN,
            "2.0.9": AS_WRITTEN,
        },
    ),
    (
        {"strategy": "ddp_spawn", "accelerator": "tpu", "devices": 8},
        TPU8,
        {
            "1.4.9": {"accelerator": "tpu_spawn", "tpu_cores": 8},
            "1.5.10": AS_WRITTEN,
            "1.9.5": {"strategy": Obj.of("TPUSpawnStrategy"), "accelerator": "tpu", "devices": 8},
            "2.6.6": {"strategy": "xla", "accelerator": "tpu", "devices": 8},
        },
    ),
    (
        {"strategy": "ddp", "accelerator": "cpu", "devices": 2},
        CPU,
        {
            "1.4.9": {"accelerator": "ddp", "num_processes": 2},
            "2.4.0": AS_WRITTEN,
        },
    ),
    (  # the user's object is kept; on 1.4 it goes to `plugins`, beside the device count 1.4 understands
        {"strategy": DDP_PLUGIN, "accelerator": "gpu", "devices": 4},
        CUDA4,
        {
            "1.4.9": {"gpus": 4, "plugins": [DDP_PLUGIN]},
            "1.7.7": AS_WRITTEN,  # the release itself warns that DDPPlugin is deprecated
        },
    ),
    (
        {"strategy": DDP_STRATEGY, "accelerator": "gpu", "devices": 4},
        CUDA4,
        dict.fromkeys(("1.6.5", "1.9.5", "2.6.6"), AS_WRITTEN),
    ),
    (  # a strategy object in `plugins` moves to `strategy`
        {"plugins": [DDP_STRATEGY], "accelerator": "cpu", "devices": 2},
        CPU,
        {"2.6.6": {"strategy": DDP_STRATEGY, "accelerator": "cpu", "devices": 2}},
    ),
)


@pytest.mark.parametrize(("flags", "hardware", "expected"), EXAMPLES)
def test_examples_are_given_to_each_release_in_its_own_spelling(
    flags: dict,  # type: ignore[type-arg]
    hardware: Hardware,
    expected: dict,  # type: ignore[type-arg]
) -> None:
    for version, flags_for_version in expected.items():
        result = shim(flags, version, hardware)
        if flags_for_version is AS_WRITTEN:
            assert result.outcome == flags, version
            assert result.how.startswith("as written"), version
        else:
            assert result.outcome == flags_for_version, version
            assert result.how.startswith("built as"), version


def test_the_users_object_is_passed_on_not_a_copy() -> None:
    for version in ("1.4.9", "1.5.10", "1.6.5"):
        outcome = shim({"strategy": DDP_PLUGIN, "accelerator": "gpu", "devices": 4}, version, CUDA4).outcome
        assert isinstance(outcome, dict)
        placed = outcome.get("strategy") or outcome["plugins"][0]  # type: ignore[index]
        assert placed is DDP_PLUGIN


@pytest.mark.parametrize(
    ("flags", "version", "expected"),
    [
        # values 1.5 does not know: the installed release decides
        ({"strategy": "ddp_fork", "accelerator": "cpu", "devices": 3}, "1.6.5", None),
        ({"strategy": "xla", "accelerator": "cuda"}, "2.6.6", None),
        # 4 TPU cores: no release accepts it (1, 8 or one core [k]); the release raises its own error
        ({"strategy": "ddp_spawn", "accelerator": "tpu", "devices": 4}, "2.6.6", None),
        # a strategy object 1.5 has no class for, moved to where the release takes it
        ({"plugins": Obj.of("DDPStrategy"), "accelerator": "gpu"}, "1.4.9", {"accelerator": "gpu"}),
        # 1.4 has no `strategy` keyword: a `strategy=None` from `from_argparse_args` is dropped
        ({"strategy": None, "accelerator": "foo"}, "1.4.9", {"accelerator": "foo"}),
    ],
)
def test_calls_the_model_cannot_decide_go_to_the_real_trainer(
    flags: dict,  # type: ignore[type-arg]
    version: str,
    expected: dict | None,  # type: ignore[type-arg]
) -> None:
    result = shim(flags, version, TPU8)
    assert result.how.startswith("passed through")
    if expected is None:
        assert result.outcome == flags
    else:
        assert isinstance(result.outcome, dict)
        assert {k: v for k, v in result.outcome.items() if k in expected} == expected


@pytest.mark.parametrize(
    ("flags", "spellings"),
    [
        ({"accelerator": "ddp", "gpus": 2}, ["accelerator", "gpus"]),
        ({"distributed_backend": "ddp_spawn", "num_processes": 2}, ["distributed_backend", "num_processes"]),
        ({"accelerator": "ddp_cpu", "num_processes": 2}, ["accelerator", "num_processes"]),
        ({"plugins": [DDP_PLUGIN], "tpu_cores": 8}, ["plugins", "tpu_cores"]),
        # new spellings, and what `from_argparse_args` passes for flags nobody set
        ({"strategy": "ddp", "accelerator": "cpu", "devices": 2}, []),
        ({"accelerator": "gpu", "num_processes": 1, "gpus": None, "plugins": None}, []),
        ({"plugins": [Obj.of("LightningEnvironment")], "accelerator": "cpu"}, []),
    ],
)
def test_one_deprecation_per_deprecated_spelling(flags: dict, spellings: list[str]) -> None:  # type: ignore[type-arg]
    result = shim(flags, "2.6.6", CUDA4)
    assert [d.flag for d in result.deprecated] == spellings
    for deprecation in result.deprecated:
        assert deprecation.message.startswith(f"`Trainer({deprecation.flag}=")


def test_a_deprecation_says_what_the_installed_release_is_given() -> None:
    deprecated = shim({"accelerator": "ddp", "gpus": 2}, "1.9.5", CUDA4).deprecated
    assert len(deprecated) == 2
    for deprecation in deprecated:
        assert deprecation.message.endswith(
            "Lightning 1.9.5: Trainer(strategy='ddp', accelerator='cuda', devices=2)"
        )
    # a call passed on as written gets no suggestion: the release decides what it means
    (passed,) = shim({"accelerator": "ddp", "devices": 2}, "1.9.5", CUDA4).deprecated
    assert "Lightning 1.9.5" not in passed.message


def test_a_call_1_5_rejects_that_the_release_cannot_even_read_gets_the_1_5_reason() -> None:
    flags = {"strategy": "ddp_spawn", "accelerator": "tpu", "devices": 4}
    reason = interpret(flags, REFERENCE, TPU8).outcome
    assert shim(flags, "1.4.9", TPU8).outcome == reason  # 1.4 would only say it has no `strategy`
    assert shim(flags, "2.6.6", TPU8).outcome == flags  # 2.6 reads it and raises its own error


def test_other_keywords_are_not_the_translations_business() -> None:
    result = shim({"max_epochs": 3, "precision": "16-mixed", "strategy": "ddp_spawn"}, "2.6.6")
    assert isinstance(result.outcome, dict)
    assert set(result.outcome) <= TRANSLATED


# Every grid call, on a few installed releases and every simulated machine: what the shim gives a release
# builds what 1.5.10 builds from the call, or the shim raises 1.5.10's conflict check, or passes the call on.
INSTALLED = ("1.4.9", "1.6.5", "1.9.5", "2.6.6")
GRID = list(distribution_cases())[::7]  # a seventh of the grid keeps this under a few seconds per release
# (not the precision cases: the shim passes precision flags and plugins on as they are)


def _same_choice(built: object, meant: Setup) -> bool:
    if built == meant:
        return True
    # the release picks the TPU launcher (spawn up to 1.6, fork from 1.7)
    return (
        isinstance(built, Setup)
        and meant.strategy.name == "xla"
        and built
        == replace(meant, strategy=replace(meant.strategy, start_method=built.strategy.start_method))
    )


def _meaning(flags: dict, version: str, hardware: Hardware) -> object:  # type: ignore[type-arg]
    """1.5.10's meaning of a call: `distributed_backend` read as 1.4 did, as `accelerator`, and a later
    release's strategy object as the 1.5 class of the same strategy."""
    given = dict(flags)
    backend = given.pop("distributed_backend", None)
    if backend is not None:
        given["accelerator"] = backend
    installed = Version.parse(version)
    return interpret(
        {k: reference_value(v, installed) for k, v in given.items()}, REFERENCE, hardware
    ).outcome


@pytest.mark.parametrize("version", INSTALLED)
def test_what_a_release_is_given_builds_the_reference_meaning(version: str) -> None:
    counts = {"built": 0, "rejected": 0, "passed": 0, "native": 0}
    for hardware in HARDWARE:
        for flags in GRID:
            result = shim(flags, version, hardware)
            if isinstance(result.outcome, Rejected):
                counts["rejected"] += 1
                # a conflict check, or a call the release cannot read (1.5.10 says why it is wrong)
                lacks = any(not accepts(k, Version.parse(version)) for k, v in flags.items() if v is not None)
                assert flags.get("strategy") is not None or lacks, flags
                continue
            if result.how.startswith("passed through"):
                counts["passed"] += 1
                continue
            if result.how.startswith("as written"):  # the release's own meaning, without a deprecation
                counts["native"] += 1
                assert result.outcome == {k: v for k, v in flags.items() if k in TRANSLATED}
                native = interpret(flags, version, hardware)
                assert isinstance(native.outcome, Setup), flags
                assert not any(d.flag in TRANSLATED for d in native.deprecations), flags
                continue
            counts["built"] += 1
            meant = _meaning(flags, version, hardware)
            assert isinstance(meant, Setup), flags
            built = interpret(result.outcome, version, hardware).outcome
            assert _same_choice(built, meant), f"{flags} on {hardware.describe()}: {built} != {meant}"
    assert all(counts.values()), counts


def test_importable_without_lightning_and_says_what_is_missing() -> None:
    if importlib.util.find_spec("pytorch_lightning") is not None:
        pytest.skip("pytorch_lightning is installed here")
    shim_module = importlib.import_module("lightning_migrate.shim")
    assert "pytorch_lightning" not in sys.modules
    with pytest.raises(ImportError, match=r"needs Lightning: `import pytorch_lightning` failed"):
        shim_module.Trainer  # noqa: B018
    with pytest.raises(ImportError, match="pip install lightning"):
        importlib.import_module("lightning_migrate.shim.lightning").install()


def test_the_signature_offers_the_flags_a_release_lacks() -> None:
    def init(self, logger=True, gpus=None, **kwargs):  # type: ignore[no-untyped-def]
        pass

    signature = extended_signature(init)
    names = list(signature.parameters)
    assert names[:3] == ["self", "logger", "gpus"]
    assert names[-1] == "kwargs"
    assert set(names) == {"self", "logger", "kwargs", *TRANSLATED, *SHIM_TAKES}
    # (1.5.10's defaults where they are not None: `from_argparse_args` passes each option, dropped there)
    assert signature.parameters["weights_summary"].default == "top"
    assert signature.parameters["process_position"].default == 0
    assert signature.parameters["stochastic_weight_avg"].default is False
    assert signature.parameters["checkpoint_callback"].default is None
    assert signature.parameters["strategy"].kind is inspect.Parameter.KEYWORD_ONLY
    # a 1.x command line's `--resume_from_checkpoint PATH` (2.x's parser reads the annotation: a str)
    assert str in typing.get_args(signature.parameters["resume_from_checkpoint"].annotation)


# --- resume_from_checkpoint= where the release removed it (shim/resume.py) ---------------------------------


def _init_1x(self, logger=True, resume_from_checkpoint=None):  # type: ignore[no-untyped-def]
    pass


def _init_2x(self, logger=True):  # type: ignore[no-untyped-def]
    pass


def test_the_path_is_taken_only_where_the_release_lacks_the_keyword() -> None:
    kwargs = {"logger": False, "resume_from_checkpoint": "a.ckpt"}
    assert resume.taken(_init_1x, kwargs) == (kwargs, None)
    assert resume.taken(_init_2x, kwargs) == ({"logger": False}, "a.ckpt")
    assert resume.taken(_init_2x, {"logger": False}) == ({"logger": False}, None)


class _Connector:
    def __init__(self) -> None:
        self._ckpt_path: str | None = None

    def resume_end(self) -> None:
        pass


class _Trainer:
    """What the shim's `fit` uses of a 2.x Trainer: the connector's `resume_end` (1.x forgot the path there)
    and the state's `fn`; its `fit` restores ``ckpt_path`` unless ``fail`` (a fit that raises first)."""

    def __init__(self) -> None:
        self._checkpoint_connector = _Connector()
        self.state = types.SimpleNamespace(fn=None)
        self.restored: list[str | None] = []

    def fit(self, model: object, ckpt_path: str | None = None, fail: bool = False) -> None:
        self.state.fn = "fit"
        pickle.loads(pickle.dumps(self))  # a spawn launcher pickles the Trainer, the shim's hook with it
        if fail:
            raise RuntimeError("before restoring")
        self.restored.append(ckpt_path)
        self._checkpoint_connector._ckpt_path = ckpt_path
        self._checkpoint_connector.resume_end()


@pytest.mark.parametrize(
    ("calls", "restored", "left"),
    [
        ([{}, {}], ["a.ckpt", None], None),  # the first fit resumes, then the path is forgotten
        ([{"ckpt_path": ""}], ["a.ckpt"], None),  # `ckpt_path or self.resume_from_checkpoint`
        ([{"ckpt_path": "b.ckpt"}], ["b.ckpt"], "a.ckpt"),  # another path wins and leaves it for the next
        ([{"ckpt_path": "b.ckpt"}, {}], ["b.ckpt", "a.ckpt"], None),
        ([{"ckpt_path": "a.ckpt"}, {}], ["a.ckpt", None], None),  # the same path restored: forgotten
        ([{"fail": True}], [], "a.ckpt"),  # a fit that raised before restoring: the next resumes
        ([{"fail": True}, {}], ["a.ckpt"], None),
    ],
)
def test_fit_resumes_from_the_path_as_1x_did(
    calls: list[dict[str, object]], restored: list[str | None], left: str | None
) -> None:
    trainer = _Trainer()
    setattr(trainer, resume.ATTRIBUTE, "a.ckpt")
    fit = resume.fitting("a_lightning", lambda: _Trainer.fit)
    for kwargs in calls:
        with contextlib.suppress(RuntimeError):
            fit(trainer, object(), **kwargs)
    assert trainer.restored == restored
    assert resume.pending_path(trainer) == left
    assert "resume_end" not in vars(trainer._checkpoint_connector)


def test_the_tuners_fit_does_not_read_the_path() -> None:
    """2.x's `Tuner` runs `fit`; 1.x's tuner ran `_run` in state TUNING, which never read the path."""
    trainer = _Trainer()
    setattr(trainer, resume.ATTRIBUTE, "a.ckpt")
    fit = resume.fitting("a_lightning", lambda: _Trainer.fit)
    tuner: dict[str, object] = {"__name__": "a_lightning.tuner.tuning", "fit": fit, "trainer": trainer}
    exec("def lr_find():\n    fit(trainer, None)\nlr_find()", tuner)
    assert trainer.restored == [None]
    assert resume.pending_path(trainer) == "a.ckpt"


# --- keywords at their defaults are not given ------------------------------------------------------------
# LightningCLI, `Trainer.from_argparse_args` and Hydra's `instantiate` of a full config pass every keyword of
# the (shim's) signature: the release's own defaults, and None for the keywords the shim adds.


class _EqualsAnything:
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


@pytest.mark.parametrize(
    ("value", "default", "is_it"),
    [
        (None, None, True),
        ("auto", "auto", True),
        (1, 1, True),
        ("AUTO", "auto", False),  # a value the user wrote, even if a release reads it the same
        (True, 1, False),  # `True == 1`, but not the same keyword value
        (1.0, 1, False),
        (0, None, False),  # `gpus=0`: an old spelling of "no GPU", not the keyword left out
        ([], None, False),
        (_EqualsAnything(), "auto", False),  # a user's object is never a default
        (_EqualsAnything(), None, False),
    ],
)
def test_a_value_is_a_default_only_if_it_is_the_default(value: object, default: object, is_it: bool) -> None:
    assert is_default(value, default) is is_it


def full_call(flags: dict, version: Version) -> dict:  # type: ignore[type-arg]
    """``flags`` as LightningCLI passes them to the shim: every translated keyword of the shim's signature,
    at the release's default (None for the keywords it lacks) unless ``flags`` sets it."""
    return {**dict.fromkeys(TRANSLATED), **trainer_defaults(version), "max_epochs": 3, **flags}


@pytest.mark.parametrize("version", RELEASES, ids=str)
def test_a_full_call_gives_only_the_flags_that_differ_from_the_defaults(version: Version) -> None:
    flags = {"accelerator": "ddp_cpu", "num_processes": 2, "max_epochs": 3}
    assert given_flags(full_call(flags, version), trainer_defaults(version)) == {
        "accelerator": "ddp_cpu",
        "num_processes": 2,
    }
    assert given_flags(full_call({}, version), trainer_defaults(version)) == {}


# Old configs as LightningCLI passes them: what 1.5.10 builds from the config alone, on every release.
OLD_CONFIGS = (
    ({"accelerator": "ddp_cpu", "num_processes": 2}, CPU),
    ({"distributed_backend": "ddp_spawn", "num_processes": 2}, CPU),
    ({"gpus": 2}, CUDA4),
    ({"accelerator": "ddp", "gpus": 2}, CUDA4),
    ({"tpu_cores": 8}, TPU8),
)


@pytest.mark.parametrize("version", RELEASES, ids=str)
@pytest.mark.parametrize(("flags", "hardware"), OLD_CONFIGS, ids=lambda x: str(x)[:40])
def test_an_old_config_passed_in_full_builds_what_1_5_built(
    flags: dict,  # type: ignore[type-arg]
    hardware: Hardware,
    version: Version,
) -> None:
    given = given_flags(full_call(flags, version), trainer_defaults(version))
    result = translate(given, version, hardware, NAMESPACES[0])
    assert result.how.startswith("built as"), result
    assert [d.flag for d in result.deprecated] == sorted(flags, key=list(ADVICE).index)
    assert isinstance(result.outcome, dict)
    built = interpret(result.outcome, version, hardware).outcome
    meant = _meaning(flags, str(version), hardware)
    assert isinstance(meant, Setup)
    assert _same_choice(built, meant), f"{built} != {meant}"


# Every grid call the installed release builds without a deprecation (its own or the shim's), passed in
# full: given to the release as written, without the keywords at their defaults, and it builds the same.
@pytest.mark.parametrize("version", INSTALLED)
def test_a_modern_call_passed_in_full_is_given_as_written(version: str) -> None:
    installed = Version.parse(version)
    defaults = trainer_defaults(installed)
    native = 0
    for hardware in HARDWARE:
        for flags in GRID:
            if any(not accepts(k, installed) for k in flags) or deprecated_spellings(flags):
                continue
            meaning = interpret(flags, installed, hardware)
            if not isinstance(meaning.outcome, Setup) or any(
                d.flag in TRANSLATED for d in meaning.deprecations
            ):
                continue
            native += 1
            given = given_flags(full_call(flags, installed), defaults)
            result = translate(given, installed, hardware, NAMESPACES[0])
            assert result.how.startswith("as written"), (flags, result)
            assert result.outcome == given == given_flags(flags, defaults)
            assert interpret(given, installed, hardware).outcome == meaning.outcome, flags
    assert native, version


def test_the_defaults_are_read_from_the_signature() -> None:
    def init(self, logger=True, accelerator="auto", devices="auto", num_nodes=1, gpus=None, **kwargs):  # type: ignore[no-untyped-def]
        pass

    assert release_defaults(init) == {"accelerator": "auto", "devices": "auto", "num_nodes": 1, "gpus": None}


def test_the_added_keywords_have_the_types_argparse_and_jsonargparse_read() -> None:
    """`Trainer.add_argparse_args` (1.x) skips a keyword whose type is not str/int/bool."""

    def init(self, logger=True, **kwargs):  # type: ignore[no-untyped-def]
        pass

    parameters = extended_signature(init).parameters
    lacking = {name for name in TRANSLATED for version in RELEASES if not accepts(name, version)}
    assert lacking == {"strategy", "distributed_backend", "gpus", "tpu_cores", "ipus", "num_processes"}
    for name in lacking:
        assert {str, int} & set(typing.get_args(parameters[name].annotation)), name
