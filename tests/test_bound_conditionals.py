"""Values bound to names by conditionals over the same test (issue 24 part 3): `gpus = -1 if
torch.cuda.is_available() else None` and `backend = "ddp" if torch.cuda.is_available() else None`, both
passed to one Trainer call, are judged together per outcome of the test (``ranges.RunTimeReader`` reads each
name as its conditional, ``quantify._same_tests`` rewrites them branch by branch together), never as every
pair of their values. Table by table: what the front end reads, what the planner decides, what is written."""

from __future__ import annotations

import ast

import pytest

from lightning_migrate.files.text import Text
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.ast_values import Reader
from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.knowledge import Choice, RunTime
from lightning_migrate.plan.locate import locate
from lightning_migrate.plan.planner import Refusal, Rewrite
from lightning_migrate.plan.ranges import RunTimeReader
from lightning_migrate.semantics.model import release

AVAILABLE = "torch.cuda.is_available()"


def read(source: str, keyword: str) -> RunTime | Choice | None:
    """What the planner takes ``keyword=`` of the file's one Trainer call to be."""
    tree = ast.parse(source)
    text = Text(source)
    located = locate(tree, text)
    (call,) = located.calls
    value = next(k.value for k in call.node.keywords if k.arg == keyword)
    return RunTimeReader(located, Reader(located, text), text).known(value, call.scope, keyword)


FUNCTION = """import torch
import pytorch_lightning as pl


def main(args):
{body}
    return pl.Trainer(gpus=gpus)
"""


@pytest.mark.parametrize(
    ("body", "named"),
    [
        # the machine's own test, bound once in the call's function: the conditional, read as the name
        ("    gpus = -1 if torch.cuda.is_available() else None", True),
        # a parameter: judged with what the call passes elsewhere, not the machine (not read through)
        ("    gpus = 1 if args else 0", False),
        # an attribute: any code run between the binding and the call may set it
        ("    gpus = 1 if args.cuda else 0", False),
        ("    gpus = 1 if args.cuda else 0\n    args.cuda = False", False),
        # a subscript may be written in place (`cfg["cuda"] = False`)
        ("    gpus = 1 if args['cuda'] else 0", False),
        # bound twice: not one conditional
        ("    gpus = 1 if args.cuda else 0\n    if args.more:\n        gpus = 2", False),
        # a test that calls an unknown function: not evaluated, not written again
        ("    gpus = 1 if check() else 0", False),
    ],
)
def test_a_name_is_read_as_its_conditional_only_where_its_test_holds_at_the_call(
    body: str, named: bool
) -> None:
    known = read(FUNCTION.format(body=body), "gpus")
    assert isinstance(known, Choice) == named, known
    if named:
        assert isinstance(known, Choice)
        assert known.name == "gpus"
        assert repr(known) == "gpus"


def test_a_module_level_binding_is_not_read_through_from_a_function() -> None:
    source = "import torch\nimport pytorch_lightning as pl\ngpus = 1 if torch.cuda.is_available() else 0\n"
    source += "def main():\n    return pl.Trainer(gpus=gpus)\n"
    assert not isinstance(read(source, "gpus"), Choice)


def test_an_aliased_torch_test_is_pure() -> None:
    """`import torch as t`: `t.cuda.is_available()` reads the machine as `torch.cuda.is_available()` does."""
    source = "import torch as t\nimport pytorch_lightning as pl\n\n\ndef main():\n"
    source += "    return pl.Trainer(gpus=-1 if t.cuda.is_available() else 0)\n"
    known = read(source, "gpus")
    assert isinstance(known, Choice)
    assert known.pure


def _choice(flag: str, branches: tuple[object, ...], test: str = AVAILABLE, name: str = "") -> Choice:
    source = f"import torch\nvalue = ({test})\n"
    tree = ast.parse(source)
    text = Text(source)
    located = locate(tree, text)
    node = tree.body[-1].value  # type: ignore[attr-defined]
    condition = RunTimeReader(located, Reader(located, text), text).condition(node, located.scopes[0])
    assert condition is not None
    return Choice(flag, branches, (test,), True, False, (condition,), name or None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("target", "unsafe", "expected"),
    [
        # 1.5: only the training type moves, as written
        ("1.5", False, {"gpus": ("gpus",), "strategy": ("distributed_backend",)}),
        # 1.9: the conditionals kept as written at their new keywords, the CPU said for the other branch
        (
            "1.9",
            False,
            {
                "accelerator": ("cuda", "cpu"),
                "devices": ("gpus",),
                "strategy": ("distributed_backend",),
            },
        ),
        # 2.6: one GPU or all of them with DDP (and 1.x's find_unused_parameters=True), else one CPU process
        (
            "2.6",
            False,
            {
                "accelerator": ("cuda", "cpu"),
                "devices": (-1, 1),
                "strategy": ("ddp_find_unused_parameters_true", "auto"),
            },
        ),
        ("2.6", True, {"accelerator": ("cuda", "cpu"), "devices": (-1, 1), "strategy": ("ddp", "auto")}),
    ],
)
def test_conditionals_over_the_same_test_are_rewritten_together(
    target: str, unsafe: bool, expected: dict[str, tuple[object, ...]]
) -> None:
    gpus = _choice("gpus", (-1, None), name="gpus")
    backend = _choice("distributed_backend", ("ddp", None), name="distributed_backend")
    decision = plan(
        {"gpus": gpus, "distributed_backend": backend}, release(target), release("1.4"), unsafe=unsafe
    )
    assert isinstance(decision, Rewrite), decision
    got: dict[str, tuple[object, ...]] = {}
    for key, value in decision.flags.items():
        assert isinstance(value, Choice), (key, value)
        assert value.tests == (AVAILABLE,)
        # a conditional kept as written is its name; one rewritten, its branches
        got[key] = (value.name,) if value in (gpus, backend) else value.branches
    assert got == expected


def test_every_pair_of_values_is_not_judged() -> None:
    """The same two values over different tests may go together in any pair: `gpus=None` with "ddp" is
    a call 1.4 built on the CPU, which no 2.6 conditional over one of the tests keeps."""
    gpus = _choice("gpus", (-1, None), name="gpus")
    backend = _choice("distributed_backend", ("ddp", None), "torch.cuda.device_count() > 1", "backend")
    decision = plan({"gpus": gpus, "distributed_backend": backend}, release("2.6"), release("1.4"))
    assert isinstance(decision, Refusal)


ASTEROID = """import pytorch_lightning as pl
import torch


def main(model):
    # Don't ask GPU if they are not available.
    gpus = -1 if torch.cuda.is_available() else None
    distributed_backend = "ddp" if torch.cuda.is_available() else None
    trainer = pl.Trainer(
        max_epochs=2,
        gpus=gpus,
        distributed_backend=distributed_backend,
    )
    trainer.fit(model)
"""


def test_the_assignments_read_only_by_the_call_are_rewritten_where_they_are() -> None:
    """The call keeps reading the names (no assignment left unused), their branches are rewritten in place,
    comments stay; a second run changes nothing."""
    result = migrate(ASTEROID, release("2.6"), release("1.4"))
    assert result.code == ASTEROID.replace(
        "-1 if torch.cuda.is_available() else None", "-1 if torch.cuda.is_available() else 1"
    ).replace(
        '"ddp" if torch.cuda.is_available() else None',
        '"ddp_find_unused_parameters_true" if torch.cuda.is_available() else "auto"',
    ).replace(
        "        gpus=gpus,\n        distributed_backend=distributed_backend,\n",
        '        accelerator="cuda" if torch.cuda.is_available() else "cpu",\n'
        "        devices=gpus,\n        strategy=distributed_backend,\n",
    )
    assert migrate(result.code, release("2.6")).code == result.code
    assert all(f.fixable for f in result.findings)


def test_a_name_read_again_keeps_its_assignment_and_the_call_writes_the_conditional() -> None:
    source = ASTEROID + "    return gpus\n"
    code = migrate(source, release("2.6"), release("1.4")).code
    assert "    gpus = -1 if torch.cuda.is_available() else None\n" in code
    assert "        devices=-1 if torch.cuda.is_available() else 1,\n" in code
    assert "        strategy=distributed_backend,\n" in code


# --- every GPU (`-1`): a strategy chosen by the machine's GPU count (issue 24 part 3b) ---------------------

SPAWN = "ddp_spawn_find_unused_parameters_true"


@pytest.mark.parametrize(
    ("target", "unsafe", "machine", "expected"),
    [
        # 1.x ran several GPUs with ddp_spawn (find_unused_parameters=True), one GPU alone: 2.x's own
        # choice differs, so the strategy is the machine's GPU count's, tested with the file's torch
        ("2.6", False, "torch", {"accelerator": "cuda", "devices": -1, "strategy": (SPAWN, "auto")}),
        ("2.6", False, "t", {"accelerator": "cuda", "devices": -1, "strategy": (SPAWN, "auto")}),
        # 2.x's own choice is what --unsafe-fixes takes
        ("2.6", True, "torch", {"accelerator": "cuda", "devices": -1}),
        # 1.7-1.9 chose as 1.x did: no test
        ("1.9", False, "torch", {"accelerator": "cuda", "devices": -1}),
        # no torch imported where the call is: no test is written, the call is reported
        ("2.6", False, "", None),
    ],
)
def test_every_gpu_gets_a_strategy_by_the_machine(
    target: str, unsafe: bool, machine: str, expected: dict[str, object] | None
) -> None:
    decision = plan({"gpus": -1}, release(target), unsafe=unsafe, machine=machine)
    if expected is None:
        assert isinstance(decision, Refusal)
        assert decision.code == "LM103"
        return
    assert isinstance(decision, Rewrite), decision
    got: dict[str, object] = {}
    for key, value in decision.flags.items():
        if isinstance(value, Choice):
            assert value.machine
            assert value.tests == (f"{machine}.cuda.device_count() > 1",)
            got[key] = value.branches
        else:
            got[key] = value
    assert got == expected


def test_a_test_of_the_machine_holds_only_on_the_machines_that_give_it() -> None:
    """`gpus=-1 if t.cuda.is_available() else 0`: the CPU branch is judged on machines without CUDA only,
    where `t.cuda.device_count() > 1` is false; the GPU branch on those with CUDA."""
    source = "import torch as t\nvalue = (t.cuda.is_available())\n"
    tree = ast.parse(source)
    text = Text(source)
    located = locate(tree, text)
    node = tree.body[-1].value  # type: ignore[attr-defined]
    condition = RunTimeReader(located, Reader(located, text), text).condition(node, located.scopes[0])
    assert condition is not None
    gpus = Choice("gpus", (-1, 0), ("t.cuda.is_available()",), True, False, (condition,))
    decision = plan({"gpus": gpus}, release("2.6"), machine="t")
    assert isinstance(decision, Rewrite), decision
    strategy = decision.flags["strategy"]
    assert isinstance(strategy, Choice)
    assert strategy.machine
    assert strategy.branches == (SPAWN, "auto")
    # without the machine's facts (a test the planner cannot tie to it) the CPU branch on a machine with
    # GPUs would take the DDP branch: no such rewrite
    blind = Choice("gpus", (-1, 0), ("check()",), True)
    assert not isinstance(plan({"gpus": blind}, release("2.6"), machine="t"), Rewrite)


@pytest.mark.parametrize(
    ("source", "written"),
    [
        ("import torch\nimport pytorch_lightning as pl\n\ntrainer = pl.Trainer(gpus=-1)\n", True),
        # imported twice (a notebook's cells): the same module
        ("import torch as t\nimport torch as t\nimport pytorch_lightning as pl\npl.Trainer(gpus=-1)\n", True),
        # imported after the call (a later cell): not there when the call runs
        ("import pytorch_lightning as pl\n\ntrainer = pl.Trainer(gpus=-1)\nimport torch\n", False),
        # the name also bound to something else
        ("import torch\nimport pytorch_lightning as pl\ntorch = None\npl.Trainer(gpus=-1)\n", False),
        # torch imported in a function only
        (
            "import pytorch_lightning as pl\n\n\ndef f():\n"
            "    import torch\n    return pl.Trainer(gpus=-1)\n",
            False,
        ),
    ],
)
def test_a_test_of_the_machine_is_written_only_with_torch_imported_before_the_call(
    source: str, written: bool
) -> None:
    result = migrate(source, release("2.6"))
    assert (".cuda.device_count() > 1" in result.code) == written, result.code
    if not written:
        assert [f.code for f in result.findings] == ["LM103"]


@pytest.mark.parametrize(
    "call",
    [
        'pl.Trainer(accelerator="dp", gpus=2)',  # 2.x has no dp: no strategy by the machine keeps it
        'pl.Trainer(gpus=1, accelerator="gpu", precision=16)',  # (lightning-flash's learn2learn example)
    ],
)
def test_a_call_no_test_of_the_machine_keeps_is_reported_as_before(call: str) -> None:
    """The machine split is asked only where no spelling keeps a call with its values all written; where
    it finds nothing either, the call's finding is the one it had (once an internal error)."""
    source = f"import torch\nimport pytorch_lightning as pl\n\ntrainer = {call}\n"
    result = migrate(source, release("2.6"))
    assert result.code == source
    assert [f.code for f in result.findings] == ["LM103"]
