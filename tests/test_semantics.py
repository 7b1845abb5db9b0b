"""Table-driven facts about Lightning's flags (spec sections 5 to 7), checked against the model.

The differential tests prove the model against real releases on a large grid; this table states the facts
users care about most, so that a regression names the fact it breaks.
"""

from __future__ import annotations

import pytest

from lightning_migrate.semantics import Hardware, Obj, Rejected, Setup, Strategy, Value, interpret

CPU, GPU2, GPU4 = Hardware(), Hardware(cuda=2), Hardware(cuda=4)


def ddp(start: str, fup: bool) -> Strategy:
    return Strategy("ddp", start, fup)


SINGLE = Strategy("single_device")

# (release, flags, hardware, accelerator, devices, strategy)
BUILDS: list[tuple[str, dict[str, Value], Hardware, str, tuple[int, ...], Strategy]] = [
    ("1.4.9", {"accelerator": "ddp_cpu", "num_processes": 2}, CPU, "cpu", (0, 1), ddp("spawn", True)),
    ("1.6.5", {"accelerator": "ddp_cpu", "num_processes": 2}, CPU, "cpu", (0, 1), ddp("spawn", True)),
    ("1.4.9", {"accelerator": "ddp", "gpus": 2}, GPU4, "cuda", (0, 1), ddp("popen", True)),
    ("1.5.10", {"accelerator": "ddp", "gpus": 2}, GPU4, "cuda", (0, 1), ddp("popen", True)),
    ("1.4.9", {"distributed_backend": "ddp", "gpus": 2}, GPU4, "cuda", (0, 1), ddp("popen", True)),
    # more than one device and no strategy: ddp_spawn through 1.9, ddp (popen) from 2.0
    ("1.4.9", {"gpus": 2}, GPU4, "cuda", (0, 1), ddp("spawn", True)),
    ("1.9.5", {"gpus": 2}, GPU4, "cuda", (0, 1), ddp("spawn", True)),
    ("1.9.5", {"num_processes": 2}, CPU, "cpu", (0, 1), ddp("spawn", True)),
    ("2.0.9", {"accelerator": "cuda", "devices": 2}, GPU4, "cuda", (0, 1), ddp("popen", False)),
    ("2.6.6", {"accelerator": "cpu", "devices": 2}, CPU, "cpu", (0, 1), ddp("popen", False)),
    # find_unused_parameters: filled in as True until 1.9, torch's False from 2.0
    (
        "1.9.5",
        {"strategy": "ddp", "accelerator": "cpu", "devices": 2},
        CPU,
        "cpu",
        (0, 1),
        ddp("popen", True),
    ),
    (
        "2.6.6",
        {"strategy": "ddp", "accelerator": "cpu", "devices": 2},
        CPU,
        "cpu",
        (0, 1),
        ddp("popen", False),
    ),
    (
        "2.6.6",
        {"strategy": "ddp_find_unused_parameters_true", "accelerator": "cpu", "devices": 2},
        CPU,
        "cpu",
        (0, 1),
        ddp("popen", True),
    ),
    # gpus as a string: "1" is one GPU (a count) from 1.5; gpus="0,1" is a list of indices
    ("1.5.10", {"gpus": "1"}, GPU2, "cuda", (0,), SINGLE),
    ("1.6.5", {"gpus": "0,1", "strategy": "ddp"}, GPU2, "cuda", (0, 1), ddp("popen", True)),
    ("1.6.5", {"gpus": [1]}, GPU2, "cuda", (1,), SINGLE),
    # gpus=0 is the CPU
    ("1.9.5", {"gpus": 0}, GPU2, "cpu", (0,), SINGLE),
    # devices alone: N CPU processes in 1.6 to 1.9, the auto accelerator (GPUs if any) in 2.x
    ("1.6.5", {"devices": 2}, GPU4, "cpu", (0, 1), ddp("spawn", True)),
    ("2.6.6", {"devices": 2}, GPU4, "cuda", (0, 1), ddp("popen", False)),
    # Trainer(): the CPU until 1.9, every GPU from 2.0
    ("1.9.5", {}, GPU4, "cpu", (0,), SINGLE),
    ("2.6.6", {}, GPU4, "cuda", (0, 1, 2, 3), ddp("popen", False)),
    # the mission's target forms
    (
        "1.5.10",
        {"strategy": "ddp", "accelerator": "gpu", "devices": 4},
        GPU4,
        "cuda",
        (0, 1, 2, 3),
        ddp("popen", True),
    ),
    (
        "1.6.5",
        {"strategy": Obj.of("DDPStrategy", find_unused_parameters=False), "accelerator": "gpu", "devices": 4},
        GPU4,
        "cuda",
        (0, 1, 2, 3),
        ddp("popen", False),
    ),
    (
        "1.5.10",
        {"strategy": "ddp_spawn", "accelerator": "cpu", "devices": 4},
        CPU,
        "cpu",
        (0, 1, 2, 3),
        ddp("spawn", True),
    ),
    (
        "2.6.6",
        {"strategy": "ddp_spawn", "accelerator": "cpu", "devices": 4},
        CPU,
        "cpu",
        (0, 1, 2, 3),
        ddp("spawn", False),
    ),
]


@pytest.mark.parametrize(("release", "flags", "hardware", "accelerator", "devices", "strategy"), BUILDS)
def test_builds(
    release: str,
    flags: dict[str, Value],
    hardware: Hardware,
    accelerator: str,
    devices: tuple[int, ...],
    strategy: Strategy,
) -> None:
    outcome = interpret(flags, release, hardware).outcome
    assert outcome == Setup(accelerator, devices, strategy)


# (release, flags, exception class, message)
REJECTS: list[tuple[str, dict[str, Value], str, str]] = [
    # the strategy flag's conflict checks, as 1.5 raises them
    (
        "1.5.10",
        {"accelerator": "ddp", "strategy": "ddp_spawn"},
        "MisconfigurationException",
        "You have passed `Trainer(strategy='ddp_spawn')` but have also passed `Trainer(accelerator='ddp')`."
        " HINT: Use just `Trainer(strategy='ddp_spawn')` instead.",
    ),
    (
        "1.5.10",
        {"plugins": "ddp_find_unused_parameters_false", "strategy": "ddp_spawn"},
        "MisconfigurationException",
        "You have passed `Trainer(strategy='ddp_spawn')` and you can only specify one training type plugin,"
        " but you have passed ddp_find_unused_parameters_false as a plugin.",
    ),
    # distributed_backend was removed outright in 1.5: a TypeError, not a conflict check
    (
        "1.5.10",
        {"distributed_backend": "ddp_cpu", "strategy": "ddp_spawn"},
        "TypeError",
        "Trainer.__init__() got an unexpected keyword argument 'distributed_backend'",
    ),
    (
        "1.6.5",
        {"accelerator": "ddp", "strategy": "ddp_spawn"},
        "MisconfigurationException",
        "strategy ddp_spawn already set through `strategy` flag, but have also passed ddp in through the"
        " accelerator flag.",
    ),
    (
        "1.6.5",
        {"plugins": "ddp_find_unused_parameters_false", "strategy": "ddp_spawn"},
        "MisconfigurationException",
        "You have passed `Trainer(strategy=ddp_spawn)` and you can only specify one strategy, but you have"
        " passed ddp_find_unused_parameters_false as a plugin.",
    ),
    (
        "1.7.7",
        {"accelerator": "ddp", "strategy": "ddp_spawn"},
        "ValueError",
        "You selected an invalid accelerator name: `accelerator='ddp'`."
        " Available names are: cpu, cuda, hpu, ipu, mps, tpu.",
    ),
    (
        "1.5.10",
        {"strategy": "tpu_spawn"},
        "MisconfigurationException",
        "`Trainer(strategy='tpu_spawn')` is not a valid strategy, you can use `Trainer(strategy='ddp_spawn',"
        " accelerator='tpu')` instead.",
    ),
    (
        "2.0.9",
        {"num_processes": 2},
        "TypeError",
        "Trainer.__init__() got an unexpected keyword argument 'num_processes'",
    ),
    (
        "1.9.5",
        {"strategy": Obj.of("DDPPlugin")},
        "NotImplementedError",
        "The `pl.plugins.DDPPlugin` class was deprecated in v1.6 and is no longer supported as of v1.8."
        " Use `pl.strategies.DDPStrategy` instead.",
    ),
]


@pytest.mark.parametrize(("release", "flags", "error", "message"), REJECTS)
def test_rejects(release: str, flags: dict[str, Value], error: str, message: str) -> None:
    assert interpret(flags, release, CPU).outcome == Rejected(error, message)


@pytest.mark.parametrize(
    ("release", "flag"),
    [("1.4.9", "distributed_backend"), ("1.5.10", "accelerator"), ("1.6.5", "plugins"), ("1.7.7", "gpus")],
)
def test_deprecated_spellings_warn(release: str, flag: str) -> None:
    flags: dict[str, Value] = {
        "distributed_backend": {"distributed_backend": "ddp", "num_processes": 2},
        "accelerator": {"accelerator": "ddp", "num_processes": 2},
        "plugins": {"plugins": "ddp_find_unused_parameters_false"},
        "gpus": {"gpus": 2},
    }[flag]
    result = interpret(flags, release, GPU2)
    assert isinstance(result.outcome, Setup)
    assert [d.flag for d in result.deprecations] == [flag]
