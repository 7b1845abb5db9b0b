"""Migrated calls with run-time values on the real release installed here (the target).

Old calls whose values are only known at run time (``gpus=args.gpus`` with an argparse option,
``gpus: int`` parameters, conditional expressions, ``int(args.gpus)``) are written for a source release
and migrated by the codemod for this release. The rewritten call is then built by the real Trainer with
several concrete values each: the call's keywords are evaluated with the values substituted
(``runtime_calls.evaluate``), on the simulated machines of the harness, and what the real Trainer builds
must be what the old call with the same values built in the source release: ``interpret(old, source)``.
As in ``test_migrated``, every old call with its values is a member of the differential grid, whose tests
run in the source release's own environment and prove the model equal to that release there:
real(new, target) == model(old, source) == real(old, source).

The imports the migrated file writes are executed too (they must exist in this release). A call the
codemod does not rewrite for this release (a value it cannot keep for every value: LM101, ...) is skipped
with its findings; ``test_enough_calls_are_rewritten`` makes sure a release is not passed by skipping them
all.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import harness
import pytest
from conftest import AGREEMENT
from grid import HARDWARE, PACKAGE_HARDWARE, cases, package_cases
from runtime_calls import MACHINE_READ, evaluate, holed_calls, machine_facts

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.planner import MUST_STILL_FAIL, comparable
from lightning_migrate.report.findings import Finding
from lightning_migrate.semantics import Hardware, Setup, interpret
from lightning_migrate.semantics.model import Value, Version, release
from lightning_migrate.semantics.signature import is_default

pytestmark = pytest.mark.real


@dataclass(frozen=True)
class OldCall:
    name: str
    written_for: str  # the source release
    lines: tuple[str, ...]  # the file after `import <root> as pl` (and argparse)
    substitutions: tuple[dict[str, object], ...]  # expression or test as written -> its value

    def source_file(self) -> str:
        imports = [f"import argparse\n\nimport {harness.ROOT} as pl"]
        if "Plugin(" in "".join(self.lines):
            imports.append(f"from {harness.ROOT}.plugins import DDPPlugin")
        parser = ["parser = argparse.ArgumentParser()"]
        return "\n".join([*imports, "", *parser, *self.lines]) + "\n"


def _each(expr: str, values: tuple[object, ...], **fixed: object) -> tuple[dict[str, object], ...]:
    return tuple({expr: value, **fixed} for value in values)


def _crossed(test: str, expr: str, values: tuple[object, ...]) -> tuple[dict[str, object], ...]:
    return tuple({test: flag, expr: value} for flag in (True, False) for value in values)


GPUS: tuple[object, ...] = (0, 1, 2, -1)  # every one a member of the grid beside each training type

OLD_CALLS = (
    OldCall(
        "ddp_gpus_argparse",
        "1.4",
        (
            'parser.add_argument("--gpus", type=int, default=1)',
            "args = parser.parse_args()",
            'trainer = pl.Trainer(accelerator="ddp", gpus=args.gpus)',
        ),
        _each("args.gpus", GPUS),
    ),
    OldCall(
        "dp_gpus_annotated",
        "1.4",
        ("def build(gpus: int):", '    return pl.Trainer(accelerator="dp", gpus=gpus)'),
        _each("gpus", GPUS),
    ),
    OldCall(
        "distributed_backend_gpus_annotated",
        "1.4",
        ("def build(gpus: int):", '    return pl.Trainer(distributed_backend="ddp", gpus=gpus)'),
        _each("gpus", GPUS),
    ),
    OldCall(
        "conditional_training_type",
        "1.4",
        (
            'parser.add_argument("--gpus", type=int, default=1)',
            "args = parser.parse_args()",
            'trainer = pl.Trainer(accelerator="ddp" if args.gpus > 1 else None, gpus=args.gpus)',
        ),
        _crossed("args.gpus > 1", "args.gpus", (0, 1, 2)),
    ),
    OldCall(
        "conditional_gpus",
        "1.6",
        (
            'parser.add_argument("--cuda", action="store_true")',
            "args = parser.parse_args()",
            "trainer = pl.Trainer(gpus=1 if args.cuda else 0)",
        ),
        ({"args.cuda": True}, {"args.cuda": False}),
    ),
    OldCall(
        "conditional_gpus_count",
        "1.5",
        (
            'parser.add_argument("--cuda", action="store_true")',
            "args = parser.parse_args()",
            'trainer = pl.Trainer(gpus=2 if args.cuda else 0, strategy="ddp")',
        ),
        ({"args.cuda": True}, {"args.cuda": False}),
    ),
    OldCall(
        "ddp_plugin_gpus",
        "1.5",
        (
            'parser.add_argument("--gpus", type=int, default=1)',
            "args = parser.parse_args()",
            "trainer = pl.Trainer(plugins=DDPPlugin(find_unused_parameters=False), gpus=args.gpus)",
        ),
        _each("args.gpus", GPUS),
    ),
    OldCall(
        "gpus_choices",
        "1.5",
        (
            'parser.add_argument("--gpus", type=int, choices=[1, 2], default=1)',
            "args = parser.parse_args()",
            'trainer = pl.Trainer(gpus=args.gpus, accelerator="ddp")',
        ),
        _each("args.gpus", (1, 2)),
    ),
    OldCall(
        "gpus_choices_strategy",
        "1.6",
        (
            'parser.add_argument("--gpus", type=int, choices=[1, 2], default=2)',
            "args = parser.parse_args()",
            'trainer = pl.Trainer(gpus=args.gpus, strategy="ddp")',
        ),
        _each("args.gpus", (1, 2)),
    ),
    OldCall(
        "strategy_object_gpus_choices",
        "1.6",
        (
            'parser.add_argument("--gpus", type=int, choices=[1, 2], default=2)',
            "args = parser.parse_args()",
            "trainer = pl.Trainer(strategy=DDPPlugin(find_unused_parameters=False), gpus=args.gpus)",
        ),
        _each("args.gpus", (1, 2)),
    ),
    OldCall(
        "gpus_and_nodes_choices",
        "1.6",
        (
            'parser.add_argument("--gpus", type=int, choices=[2], default=2)',
            'parser.add_argument("--nodes", type=int, choices=[1, 2], default=1)',
            "args = parser.parse_args()",
            "trainer = pl.Trainer(gpus=args.gpus, num_nodes=args.nodes)",
        ),
        _each("args.nodes", (1, 2), **{"args.gpus": 2}),
    ),
    OldCall(
        "ddp_spawn_int_gpus",
        "1.5",
        (
            'parser.add_argument("--gpus", default="2")',
            "args = parser.parse_args()",
            'trainer = pl.Trainer(accelerator="ddp_spawn", gpus=int(args.gpus))',
        ),
        _each("int(args.gpus)", GPUS),
    ),
    OldCall(
        "num_processes_choices",
        "1.6",
        (
            'parser.add_argument("--processes", type=int, choices=[2], default=2)',
            "args = parser.parse_args()",
            "trainer = pl.Trainer(num_processes=args.processes)",
        ),
        _each("args.processes", (2,)),
    ),
    OldCall(
        "tpu_cores_choices",
        "1.6",
        (
            'parser.add_argument("--cores", type=int, choices=[1, 8], default=8)',
            "args = parser.parse_args()",
            "trainer = pl.Trainer(tpu_cores=args.cores)",
        ),
        _each("args.cores", (1, 8)),
    ),
    OldCall(
        "ddp_gpus_choices_for_1_4",
        "1.4",
        (
            'parser.add_argument("--gpus", type=int, choices=[1, 2], default=2)',
            "args = parser.parse_args()",
            'trainer = pl.Trainer(accelerator="ddp", gpus=args.gpus)',
        ),
        _each("args.gpus", (1, 2)),
    ),
    OldCall(
        "conditional_training_type_choices",
        "1.5",
        (
            'parser.add_argument("--gpus", type=int, choices=[1, 2], default=1)',
            "args = parser.parse_args()",
            'trainer = pl.Trainer(accelerator="ddp" if args.gpus > 1 else None, gpus=args.gpus)',
        ),
        _crossed("args.gpus > 1", "args.gpus", (1, 2)),
    ),
    OldCall(
        "ddp_cpu_processes_choices",
        "1.4",
        (
            'parser.add_argument("--processes", type=int, choices=[2], default=2)',
            "args = parser.parse_args()",
            'trainer = pl.Trainer(accelerator="ddp_cpu", num_processes=args.processes)',
        ),
        _each("args.processes", (2,)),
    ),
    OldCall(
        "device_count_split",
        "1.5",
        ("import torch", "", "trainer = pl.Trainer(gpus=torch.cuda.device_count(), max_epochs=3)"),
        _each("torch.cuda.device_count()", (0, 1, 2)),
    ),
    OldCall(
        "bound_conditionals_same_test",
        "1.4",
        (
            "import torch",
            "",
            "def build():",
            "    gpus = -1 if torch.cuda.is_available() else None",
            '    distributed_backend = "ddp" if torch.cuda.is_available() else None',
            "    return pl.Trainer(gpus=gpus, distributed_backend=distributed_backend)",
        ),
        ({"torch.cuda.is_available()": True}, {"torch.cuda.is_available()": False}),
    ),
    OldCall(
        "all_gpus_if_available",
        "1.5",
        (
            "import torch as t",
            "",
            "def build():",
            "    gpus = -1 if t.cuda.is_available() else 0",
            "    return pl.Trainer(gpus=gpus, max_epochs=1)",
        ),
        ({"t.cuda.is_available()": True}, {"t.cuda.is_available()": False}),
    ),
    OldCall("all_gpus", "1.5", ("import torch", "", "trainer = pl.Trainer(gpus=-1)"), ({},)),
    OldCall(
        "gpus_choices_split",
        "1.5",
        (
            'parser.add_argument("--gpus", type=int, choices=[0, 1, 2])',
            "args = parser.parse_args()",
            "trainer = pl.Trainer(gpus=args.gpus)",
        ),
        _each("args.gpus", (None, 0, 1, 2)),
    ),
    OldCall(
        "num_processes_split",
        "1.5",
        (
            'parser.add_argument("--processes", type=int, default=1)',
            "args = parser.parse_args()",
            "trainer = pl.Trainer(num_processes=args.processes)",
        ),
        _each("args.processes", (1, 2)),
    ),
    OldCall(
        "trainer_argparse_args",
        "1.4",
        (
            "parser = pl.Trainer.add_argparse_args(parser)",
            "args = parser.parse_args()",
            'trainer = pl.Trainer(accelerator="ddp", gpus=args.gpus)',
        ),
        _each("args.gpus", (None, *GPUS, "0,1")),
    ),
)
GRID = list(cases()) + list(package_cases())


def _target() -> Version:
    return Version.parse(harness.release())


def _migrated(old: OldCall) -> tuple[str, list[Finding]]:
    result = migrate(old.source_file(), _target(), release(old.written_for))
    return result.code, result.findings


def _without_defaults(flags: dict[str, Value]) -> dict[str, Value]:
    """The call as the grid writes it: a keyword at its default (`accelerator=None`) left out."""
    return {k: value for k, value in flags.items() if not is_default(k, value)}


def _applies(old: OldCall) -> bool:
    if release(old.written_for) >= _target():
        return False
    return harness.ROOT == "pytorch_lightning" or "Plugin(" not in "".join(old.lines)


def test_enough_calls_are_rewritten() -> None:
    """A release is not passed by skipping every call: from 1.5 on, most are rewritten and built below."""
    applicable = [old for old in OLD_CALLS if _applies(old)]
    if not applicable:
        pytest.skip(f"no old call is written for a release before {_target()}")
    rewritten = [old.name for old in applicable if _migrated(old)[0] != old.source_file()]
    AGREEMENT.append(
        f"Lightning {_target()}: {len(rewritten)}/{len(applicable)} old calls with run-time values rewritten"
    )
    assert len(rewritten) >= 3, rewritten


@pytest.mark.parametrize("old", OLD_CALLS, ids=[old.name for old in OLD_CALLS])
def test_migrated_runtime_call_builds_what_the_old_call_built(old: OldCall) -> None:
    target = _target()
    if not _applies(old):
        pytest.skip(f"written for {old.written_for} (or with 1.x plugin classes): nothing to migrate here")
    source = release(old.written_for)
    text = old.source_file()
    new_text, findings = _migrated(old)
    if new_text == text:
        assert all(not f.fixable for f in findings), findings
        told = "; ".join(f"{f.code}: {f.message}" for f in findings)
        AGREEMENT.append(f"Lightning {target}: {old.name} left as written ({told[:160]})")
        pytest.skip(f"not rewritten for {target}: {[f.code for f in findings]}")
    _import(new_text)
    (old_call,), (new_call,) = holed_calls(text), holed_calls(new_text)
    built = 0
    read = old_call.text + new_call.text
    # a rewrite that tests the machine's GPU count is also built on one GPU, where its other branch is
    # taken (the old call's setup there is the model's: the grid has no one-GPU machine)
    one_gpu = (Hardware(cuda=1),) if MACHINE_READ.search(new_call.text) else ()
    for given in old.substitutions:
        for hardware in HARDWARE + PACKAGE_HARDWARE + one_gpu:
            # a machine reader (`torch.cuda.device_count()`) gives what the machine has: the values chosen
            # for the old call's tests of it are judged on the machines that give them
            facts = machine_facts(read, hardware.cuda)
            if any(given.get(text, value) != value for text, value in facts.items()):
                continue
            chosen = {**given, **facts}
            before, after = evaluate(old_call, chosen), evaluate(new_call, chosen)
            assert _without_defaults(before) in GRID, (
                f"keep {before} in the differential grid (see the docstring)"
            )
            expected = interpret(before, source, hardware, harness.ROOT).outcome
            real = harness.observe(after, hardware)
            where = f"{new_call.text} with {chosen} on {hardware.describe()}"
            if isinstance(expected, Setup):
                assert isinstance(real, Setup), f"{where}: {real}"
                assert comparable(real) == comparable(expected), f"{where}: {real} instead of {expected}"
                built += 1
            elif hardware in MUST_STILL_FAIL:
                assert not isinstance(real, Setup), f"{where}: builds {real}; {before} failed in {source}"
    assert built, "the old call built nothing with any of its values"
    AGREEMENT.append(
        f"Lightning {target}: {old.name} from {source} -> {new_call.text}: {len(old.substitutions)} values,"
        f" {built} setups built as the old call's"
    )


def _import(code: str) -> None:
    """Execute the imports of the migrated file: every class it names exists in this release."""
    tree = ast.parse(code)
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    exec(compile(ast.Module(body=imports, type_ignores=[]), "<migrated>", "exec"), {})
