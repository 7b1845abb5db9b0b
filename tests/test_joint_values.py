"""Related values judged together (``knowledge.joint``): a conditional whose test reads a run-time value the
call passes elsewhere is evaluated for each value of it, by a small evaluator over the test's ``ast``
(``RunTimeReader.condition``, ``knowledge.evaluate``), never ``eval``. Table by table: what a test gives for
a value (or that Python raises, or that the planner cannot tell), which joint values a call may take, and
what the planner decides for the calls of issue 24."""

from __future__ import annotations

import ast

import pytest

from lightning_migrate.files.text import Text
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.ast_values import Reader
from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.domains import DOMAINS
from lightning_migrate.plan.knowledge import (
    Choice,
    Expr,
    Hole,
    Raises,
    RunTime,
    Unevaluable,
    evaluate,
    joint,
    reads,
)
from lightning_migrate.plan.locate import locate
from lightning_migrate.plan.planner import Rewrite
from lightning_migrate.plan.ranges import RunTimeReader
from lightning_migrate.semantics.model import Value, release

RAISES = "raises"
UNKNOWN = "unevaluable"


def condition(test: str, prelude: str = "") -> Expr | None:
    """``test`` as the planner reads it in a module that starts with ``prelude``."""
    source = f"{prelude}\nvalue = ({test})\n"
    tree = ast.parse(source)
    text = Text(source)
    located = locate(tree, text)
    assign = tree.body[-1]
    assert isinstance(assign, ast.Assign)
    reader = RunTimeReader(located, Reader(located, text), text)
    return reader.condition(assign.value, located.scopes[0])


def outcome(expr: Expr, values: dict[str, Value]) -> object:
    try:
        return evaluate(expr, values)
    except Raises:
        return RAISES
    except Unevaluable:
        return UNKNOWN


@pytest.mark.parametrize(
    ("test", "values", "expected"),
    [
        ("n > 1", {"n": 2}, True),
        ("n > 1", {"n": -1}, False),
        ("n > 1", {"n": None}, RAISES),  # Python 3 does not order None
        ("n > 1", {"n": "2"}, RAISES),
        ("n > 1", {"n": [0, 1]}, RAISES),
        ("args.gpus and len(args.gpus) > 1", {"args.gpus": None}, None),  # `and` gives the operand
        ("args.gpus and len(args.gpus) > 1", {"args.gpus": "0,1"}, True),
        ("args.gpus and len(args.gpus) > 1", {"args.gpus": [3]}, False),
        ("args.gpus and len(args.gpus) > 1", {"args.gpus": 2}, RAISES),  # len() of an int
        ("args.gpus and len(args.gpus) > 1", {"args.gpus": 0}, 0),
        ("not cfg.cuda", {"cfg.cuda": True}, False),
        ("n is None", {"n": None}, True),
        ("n is not None and n > 1", {"n": None}, False),
        ("n is 1", {"n": 1}, UNKNOWN),  # identity of an int: CPython's cache, not the language
        ("n in (2, 4)", {"n": 4}, True),
        ("n - 1 > 0", {"n": 2}, True),
        ("0 < n <= 2", {"n": 3}, False),
        ("-n < 0", {"n": 1}, True),
        ("n % 0", {"n": 1}, RAISES),
        ("n // 2 == 1", {"n": 3}, True),
        ("n * 2 > 3", {"n": "ab"}, UNKNOWN),  # a sequence repeated: not a test of devices
        ("n * 10 ** 0 > 1", {"n": 2}, None),  # `**` is not read: the whole test is unknown (below)
        ("n > LIMIT", {"n": 2}, True),  # a module constant is its value
        ("torch.cuda.device_count() > 1", {"torch.cuda.device_count()": 4}, True),
        ("n or 1", {"n": 0}, 1),
    ],
)
def test_a_test_is_what_python_makes_of_it(test: str, values: dict[str, Value], expected: object) -> None:
    expr = condition(test, "import torch\nLIMIT = 1")
    if expected is None and "**" in test:
        assert expr is None
        return
    assert expr is not None
    assert outcome(expr, values) == expected


@pytest.mark.parametrize(
    ("test", "prelude"),
    [
        ("wants_ddp(n)", "from project import wants_ddp"),  # the project's own function
        ("len(n) > 1", "def len(x):\n    return 2"),  # not the builtin
        ("n.count() > 1", ""),  # a method: it may do anything
        ("[g for g in n]", ""),
    ],
)
def test_a_test_that_does_more_than_read_is_not_computed(test: str, prelude: str) -> None:
    assert condition(test, prelude) is None


def test_what_a_test_reads_and_how() -> None:
    """Only the truth of `cfg.cuda` decides (True and False stand for every value); `n` is compared."""
    expr = condition("cfg.cuda and not n > 1")
    assert expr is not None
    assert [(atom.key, truth) for atom, truth in reads(expr)] == [("cfg.cuda", True), ("n", False)]
    machine = condition("torch.cuda.is_available()", "import torch")
    assert machine is not None
    assert [atom.domain for atom, _ in reads(machine)] == [(False, True)]


def gpus(text: str = "n", domain: tuple[Value, ...] = DOMAINS["gpus"]) -> RunTime:
    return RunTime("gpus", text, domain, pure=True)


def choice(flag: str, branches: tuple[Value, ...], test: str, prelude: str = "") -> Choice:
    found = condition(test, prelude)
    return Choice(flag, branches, (test,), True, False, None if found is None else (found,))


def pairs(found: dict[str, Hole]) -> set[tuple[str, ...]] | None:
    assignments = joint(found, 300)
    if assignments is None:
        return None
    return {tuple(repr(values[flag]) for flag in found) for _, values in assignments}


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        # each count once, never `gpus=None, accelerator="ddp"`; the strings and lists raise at `> 1`
        (
            {"gpus": gpus(), "accelerator": choice("accelerator", ("ddp", None), "n > 1")},
            {("0", "None"), ("1", "None"), ("2", "'ddp'"), ("8", "'ddp'"), ("-1", "None")},
        ),
        # a list of ids: DDP for more than one; None and [] are false (no `len`)
        (
            {
                "gpus": gpus("args.gpus", (None, [0], [0, 1])),
                "distributed_backend": choice(
                    "distributed_backend", ("ddp", None), "args.gpus and len(args.gpus) > 1"
                ),
            },
            {("None", "None"), ("[0]", "None"), ("[0, 1]", "'ddp'")},
        ),
        # two conditionals on one truth: two runs, not four
        (
            {
                "gpus": choice("gpus", (1, 0), "cfg.cuda"),
                "precision": choice("precision", (16, 32), "cfg.cuda"),
            },
            {("1", "16"), ("0", "32")},
        ),
        # a machine reader tested, beside a literal: its values are known on their own
        (
            {
                "accelerator": choice(
                    "accelerator", ("ddp", None), "torch.cuda.device_count() > 1", "import torch"
                )
            },
            {("'ddp'",), ("None",)},
        ),
        # unrelated: nothing is read twice, each value independently (None: the planner's product)
        ({"gpus": gpus(), "num_nodes": RunTime("num_nodes", "nodes", (1, 2), pure=True)}, None),
        # a test of a value compared, that no keyword passes: its values are not known
        ({"accelerator": choice("accelerator", ("ddp", None), "args.n_gpu > 1")}, None),
        # an unknown function decides: each branch is possible, as before
        ({"gpus": gpus(), "accelerator": choice("accelerator", ("ddp", None), "pick(n)")}, None),
        # every value raises: the call is never reached with any, so nothing is assumed of it
        (
            {"gpus": gpus("n", (None, "0")), "accelerator": choice("accelerator", ("ddp", None), "n > 1")},
            None,
        ),
    ],
)
def test_related_values_are_taken_together(
    found: dict[str, Hole], expected: set[tuple[str, ...]] | None
) -> None:
    assert pairs(found) == expected


def test_a_run_time_value_outside_a_keywords_domain_is_no_run() -> None:
    """`n` passed at two keywords holds only values both may take."""
    found: dict[str, Hole] = {
        "gpus": gpus("n", (0, 1, 2)),
        "devices": RunTime("devices", "n", (1, 2, 4), pure=True),
        "accelerator": choice("accelerator", ("ddp", None), "n > 1"),
    }
    assert pairs(found) == {("1", "1", "None"), ("2", "2", "'ddp'")}


@pytest.mark.parametrize(
    ("source", "target", "rewritten"),
    [
        ("Trainer(gpus=n, accelerator='ddp' if n > 1 else None)", "1.5", "strategy='ddp' if n > 1 else None"),
        ("Trainer(gpus=n, accelerator='ddp' if wants(n) else None)", "1.5", None),  # as before: refused
        (
            "Trainer(gpus=n, distributed_backend='ddp' if n and len(n) > 1 else None)",
            "1.5",
            None,  # the strings "0", "1", "2" have one character: 1.4 and 1.5 read them differently
        ),
        ("Trainer(gpus=1 if cfg.cuda else 0, precision=16 if cfg.cuda else 32)", "2.6", "devices=1"),
    ],
)
def test_the_calls_of_the_issue(source: str, target: str, rewritten: str | None) -> None:
    head = "from pytorch_lightning import Trainer\nfrom project import wants\n\n\ndef build(n, cfg):\n"
    code = f"{head}    return {source}\n"
    result = migrate(code, release(target))
    if rewritten is None:
        assert result.code == code
        assert [f.code for f in result.findings] == ["LM101"]
    else:
        assert rewritten in result.code


def test_the_plan_is_remembered_by_its_tests_as_evaluated() -> None:
    """Two calls with the same text and different meanings of the test are planned apart."""
    computed = choice("accelerator", ("ddp", None), "n > 1")
    opaque = Choice("accelerator", ("ddp", None), ("n > 1",), True)
    assert isinstance(plan({"gpus": gpus(), "accelerator": computed}, release("1.5")), Rewrite)
    assert not isinstance(plan({"gpus": gpus(), "accelerator": opaque}, release("1.5")), Rewrite)
