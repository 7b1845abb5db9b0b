"""A call handed to the runtime shim (`--shim`) still has to import on the target: the old `*Plugin` strategy
objects written in it are rebuilt as the target's class that builds the same strategy
(``frontends.python.objects``), or left as written with the reason (LM103). Golden fixtures:
``fixtures/shim/<case>.py`` and ``<case>.2.6.expected.py``, migrated with `--shim --unsafe-fixes`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.frontends.python.objects import same_strategy
from lightning_migrate.semantics.classes import RENAMED_STRATEGIES, strategy_of
from lightning_migrate.semantics.model import RELEASES, Obj, release

FIXTURES = Path(__file__).parent.parent / "fixtures" / "shim"
TARGET = release("2.6")
CASES = sorted(p for p in FIXTURES.glob("*.py") if ".expected" not in p.name)


def old_classes(code: str) -> set[str]:
    """The old `*Plugin` training-type classes the code names (imports included)."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add(node.name)
    return names & RENAMED_STRATEGIES


def test_there_are_fixtures() -> None:
    assert len(CASES) >= 2


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_fixture(case: Path) -> None:
    result = migrate(case.read_text(), TARGET, shim=True, unsafe=True)
    assert result.code == (FIXTURES / f"{case.stem}.2.6.expected.py").read_text()
    again = migrate(result.code, TARGET, shim=True, unsafe=True)
    assert again.code == result.code  # a fixed point
    left = [f for f in again.findings if f.code in ("LM005", "LM103")]
    if old_classes(result.code):  # an old class left in the file: a finding says why, each run
        assert any(f.code == "LM103" and "means something else" in f.message for f in left)
    else:
        assert not left
        assert "lightning_migrate.shim" in result.code


def test_each_object_rebuilt_is_reported_as_fixed() -> None:
    result = migrate((FIXTURES / "objects_in_shimmed_calls.py").read_text(), TARGET, shim=True, unsafe=True)
    said = [(f.line, f.message) for f in result.findings if f.code == "LM005"]
    assert said == [
        (10, "`DDPPlugin` is renamed `DDPStrategy`; fix: `DDPStrategy(find_unused_parameters=Fals…`"),
        (15, "`DDPPlugin` is renamed `DDPStrategy`; fix: `DDPStrategy(find_unused_parameters=True)`"),
        (21, "`DDPSpawnPlugin` becomes `DDPStrategy`; fix: `DDPStrategy(find_unused_parameters=Fals…`"),
        (26, "`DDPPlugin` is renamed `DDPStrategy`; fix: `DDPStrategy(find_unused_parameters=Fals…`"),
        (30, "`DDPPlugin` is renamed `DDPStrategy`; fix: `DDPStrategy`"),
    ]
    assert all(f.fixable for f in result.findings if f.code == "LM005")


def test_without_shim_nothing_is_rebuilt_for_a_call_left_as_written() -> None:
    text = (FIXTURES / "objects_in_shimmed_calls.py").read_text()
    result = migrate(text, TARGET)
    assert "DDPPlugin(find_unused_parameters=False), **config" in result.code


@pytest.mark.parametrize(
    ("old", "target", "new"),
    [
        (Obj.of("DDPPlugin"), "2.6", Obj.of("DDPStrategy", find_unused_parameters=True)),
        (Obj.of("DDPPlugin"), "1.9", Obj.of("DDPStrategy")),
        (
            Obj.of("DDPPlugin", find_unused_parameters=False),
            "2.6",
            Obj.of("DDPStrategy", find_unused_parameters=False),
        ),
        (
            Obj.of("DDPSpawnPlugin"),
            "2.6",
            Obj.of("DDPStrategy", find_unused_parameters=True, start_method="spawn"),
        ),
        (Obj.of("DDPSpawnPlugin"), "1.9", Obj.of("DDPSpawnStrategy")),
        (
            Obj.of("DeepSpeedPlugin", stage=3),
            "2.6",
            Obj.of("DeepSpeedStrategy", stage=3, remote_device="cpu"),  # 2.x's default is None
        ),
        (Obj.of("DDPPlugin", num_nodes=2), "2.6", None),  # a parameter in 1.4, torch DDP's TypeError in 2.x
        (Obj.of("HorovodPlugin"), "2.6", None),  # 2.0 has no Horovod
        (Obj.of("DDPShardedPlugin"), "2.6", None),  # ... nor fairscale
    ],
)
def test_the_same_strategy_on_the_target(old: Obj, target: str, new: Obj | None) -> None:
    version = release(target)
    sources = [r for r in RELEASES if r < version]
    found = same_strategy(old, sources, version)
    assert found == new
    if found is not None:  # the same strategy as on every release that built the old object
        built = {strategy_of(old, r) for r in sources if r < release("1.8")}
        assert built == {strategy_of(found, version)}
