"""A strategy object the user wrote is never rebuilt: every rewrite keeps each argument as written, the
constructor table says what each argument means per release, and refusals say which release raises what."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightning_migrate.codemod.plan import Refusal, Rewrite, derived, plan
from lightning_migrate.codemod.python import migrate
from lightning_migrate.semantics import Obj, constructors
from lightning_migrate.semantics.model import release, v

# Arguments a user writes on DDP-family objects; the model reads only some of them.
ARGUMENTS = {
    "find_unused_parameters": st.booleans(),
    "gradient_as_bucket_view": st.booleans(),
    "static_graph": st.booleans(),
    "bucket_cap_mb": st.sampled_from([25, 50]),
    "process_group_backend": st.sampled_from(["gloo", "nccl"]),
    "num_nodes": st.just(1),
}
CLASSES = ("DDPPlugin", "DDPSpawnPlugin", "DDPStrategy", "DDPSpawnStrategy", "DDPShardedPlugin")


@st.composite
def objects(draw: st.DrawFn) -> Obj:
    keys = draw(st.lists(st.sampled_from(sorted(ARGUMENTS)), unique=True, max_size=3))
    return Obj.of(draw(st.sampled_from(CLASSES)), **{k: draw(ARGUMENTS[k]) for k in keys})


@st.composite
def calls(draw: st.DrawFn) -> dict[str, object]:
    obj = draw(objects())
    where = draw(st.sampled_from(["plugins", "plugins_list", "strategy"]))
    flags: dict[str, object] = {"plugins": [obj]} if where == "plugins_list" else {where: obj}
    flags.update(draw(st.sampled_from([{}, {"gpus": 2}, {"gpus": 1}, {"num_processes": 2}])))
    if draw(st.booleans()):
        flags["accelerator"] = "ddp"
    return flags


def _objects(value: object) -> list[Obj]:
    items = value if isinstance(value, list) else [value]
    return [item for item in items if isinstance(item, Obj)]


@settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls(), st.sampled_from(["1.5", "1.6", "1.9", "2.0", "2.6"]))
def test_a_rewrite_keeps_every_argument_of_the_users_object(flags: dict, target: str) -> None:  # type: ignore[type-arg]
    decision = plan(flags, v(target))
    if not isinstance(decision, Rewrite):
        return
    old = [o for value in flags.values() for o in _objects(value)]
    new = [o for value in decision.flags.values() for o in _objects(value)]
    for obj in old:
        assert any(derived(obj, other) for other in new), (flags, decision.flags)


def test_an_unmodelled_argument_travels_with_the_object() -> None:
    ddp = Obj.of("DDPPlugin", find_unused_parameters=False, gradient_as_bucket_view=True)
    for target in ("1.5", "1.6", "1.9", "2.6"):
        decision = plan({"accelerator": "ddp", "gpus": 2, "plugins": [ddp]}, v(target))
        assert isinstance(decision, Rewrite), target
        strategy = decision.flags["strategy"]
        assert isinstance(strategy, Obj)
        assert strategy.kw()["gradient_as_bucket_view"] is True, target


def test_a_spawn_object_becomes_ddp_with_its_start_method_and_arguments_in_2x() -> None:
    spawn = Obj.of("DDPSpawnPlugin", gradient_as_bucket_view=True)
    decision = plan({"gpus": 2, "plugins": spawn}, v("2.6"))
    assert isinstance(decision, Rewrite)
    # 1.x gave torch DDP find_unused_parameters=True unless told otherwise; 2.0 changed that default
    assert decision.flags["strategy"] == Obj.of(
        "DDPStrategy", gradient_as_bucket_view=True, start_method="spawn", find_unused_parameters=True
    )


@pytest.mark.parametrize(
    ("cls", "keyword", "release", "role"),
    [
        ("DDPPlugin", "num_nodes", "1.4", constructors.PARAMETER),
        ("DDPPlugin", "num_nodes", "1.6", constructors.FORWARDED),  # the deprecated alias of DDPStrategy
        ("DDPStrategy", "start_method", "1.9", constructors.FORWARDED),
        ("DDPStrategy", "start_method", "2.0", constructors.PARAMETER),
        ("DeepSpeedPlugin", "num_nodes", "1.4", constructors.PARAMETER),
        ("DeepSpeedStrategy", "num_nodes", "1.6", constructors.REJECTED),
        ("DataParallelStrategy", "find_unused_parameters", "1.6", constructors.REJECTED),
    ],
)
def test_constructor_roles(cls: str, keyword: str, release: str, role: str) -> None:
    renamed = cls.replace("Plugin", "Strategy") if cls.endswith("Plugin") else ""
    assert constructors.role(cls, keyword, v(release), renamed) == role


def test_an_argument_whose_meaning_changes_is_named() -> None:
    flags = {"gpus": 2, "plugins": Obj.of("DDPPlugin", num_nodes=1)}
    decision = plan(flags, v("1.6"), source=release("1.4"))
    assert isinstance(decision, Refusal)
    assert decision.code == "LM103"
    assert "`num_nodes=`" in decision.message
    assert "1.4.9" in decision.message
    assert "torch" in decision.message


def test_a_keyword_the_class_lacks_raises_in_the_model() -> None:
    decision = plan(
        {"gpus": 2, "plugins": Obj.of("DeepSpeedPlugin", num_nodes=1)}, v("1.6"), source=release("1.4")
    )
    assert isinstance(decision, Refusal)
    assert "rejected by DeepSpeedStrategy" in decision.message


def test_a_refusal_quotes_the_releases_that_raise() -> None:
    decision = plan({"accelerator": "ddp", "gpus": 2, "precision": 17}, release("2.6"))
    assert isinstance(decision, Refusal)
    # no release builds it: the target's words (2.x's TypeError for `gpus`), then the error the oldest release
    # that takes the keywords raises, which a migrated call would still meet (``codemod.rejected``)
    assert decision.message.startswith(
        "the target release rejects this call as written: Lightning 2.6.6 raises TypeError:"
        " Trainer.__init__() got an unexpected keyword argument 'gpus'"
    )
    assert "Lightning 1.4.9, which takes its keywords, raises NotImplementedError" in decision.message


STALE = """\
from pytorch_lightning.plugins import DDPSpawnPlugin, TPUSpawnPlugin


class MySpawn(DDPSpawnPlugin):
    pass
"""


def test_a_plugin_import_without_a_call_follows_the_rename_or_is_reported() -> None:
    """No Trainer call in the file: the imports of renamed classes still matter (2.x lacks the old names)."""
    for_16 = migrate(STALE, v("1.6"))
    assert "from pytorch_lightning.strategies import DDPSpawnStrategy" in for_16.code
    assert "class MySpawn(DDPSpawnStrategy):" in for_16.code
    assert "TPUSpawnPlugin" in for_16.code  # unused: reported, never removed (it may be re-exported)
    assert [(f.line, f.code, f.fixable) for f in for_16.findings] == [(1, "LM005", False), (4, "LM005", True)]
    for_26 = migrate(STALE, v("2.6"))
    assert for_26.code == STALE  # 2.x has neither DDPSpawnPlugin nor DDPSpawnStrategy: by hand
    assert {(f.line, f.fixable) for f in for_26.findings} == {(1, False), (4, False)}
    assert "neither it nor `DDPSpawnStrategy`" in next(f.message for f in for_26.findings if f.line == 4)
    assert migrate(STALE, v("1.5")).findings == []


def test_an_import_that_goes_from_a_block_of_its_own_leaves_a_pass() -> None:
    """The renamed class is already imported above: its old import goes, and the `else:` it was alone in
    keeps a `pass` (found on lightning-flash, which imports each name per release)."""
    source = (
        "import sys\n"
        "import pytorch_lightning as pl\n"
        "if sys.version_info > (3,):\n"
        "    from pytorch_lightning.strategies import DDPStrategy\n"
        "else:\n"
        "    from pytorch_lightning.plugins import DDPPlugin\n"
        "\n"
        "pl.Trainer(plugins=DDPPlugin(), gpus=2)\n"
    )
    out = migrate(source, v("1.7")).code
    assert "else:\n    pass\n" in out
    assert "pl.Trainer(strategy=DDPStrategy()" in out
    ast.parse(out)
