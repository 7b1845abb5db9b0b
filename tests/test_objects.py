"""A strategy object the user wrote is never rebuilt: every rewrite keeps each argument as written, the
constructor table says what each argument means per release, and refusals say which release raises what."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.planner import Refusal, Rewrite, derived
from lightning_migrate.semantics import Obj, constructors
from lightning_migrate.semantics.classes import positional_names
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
    assert decision.message.startswith(
        "`num_nodes=` of `DDPPlugin(...)` means something else in Lightning 1.6.0"
    )
    assert "1.4.9" in decision.details[0]
    assert "torch" in decision.details[0]
    assert "pass it to the Trainer as `num_nodes=`" in decision.details[0]


def test_a_keyword_the_class_lacks_raises_in_the_model() -> None:
    decision = plan(
        {"gpus": 2, "plugins": Obj.of("DeepSpeedPlugin", num_nodes=1)}, v("1.6"), source=release("1.4")
    )
    assert isinstance(decision, Refusal)
    assert "rejected by DeepSpeedStrategy" in decision.details[0]


def test_a_refusal_quotes_the_releases_that_raise() -> None:
    decision = plan({"accelerator": "ddp", "gpus": 2, "precision": 17}, release("2.6"))
    assert isinstance(decision, Refusal)
    # no release builds it: the target's words (2.x's TypeError for `gpus`), then the error the oldest release
    # that takes the keywords raises, which a migrated call would still meet (``plan.rejected``)
    assert decision.message == "no Lightning release builds this call; fix it by hand"
    assert decision.details[0] == (
        "Lightning 2.6.6 raises TypeError: Trainer.__init__() got an unexpected keyword argument 'gpus'"
    )
    assert any(
        "Lightning 1.4.9, which takes its keywords, raises NotImplementedError" in d for d in decision.details
    )


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


HELPER = """\
from pytorch_lightning import Trainer
from pytorch_lightning.plugins import DDPPlugin

ddp = DDPPlugin(num_nodes=2)
trainer = Trainer(gpus=2, plugins=[DDPPlugin(find_unused_parameters=False)])
helper(ddp)
"""


def test_an_object_a_call_does_not_use_is_not_renamed_into_a_type_error() -> None:
    """`DDPPlugin(num_nodes=2)` passed to a helper: renamed `DDPStrategy`, torch DDP would get `num_nodes`.
    The call's own object is rewritten; the helper's keeps the old class, and its import with it."""
    for target in ("1.6", "1.7"):
        result = migrate(HELPER, v(target))
        assert "ddp = DDPPlugin(num_nodes=2)\n" in result.code
        assert "from pytorch_lightning.plugins import DDPPlugin\n" in result.code
        assert "strategy=DDPStrategy(find_unused_parameters=False)" in result.code
        refusal = next(f for f in result.findings if f.code == "LM103")
        assert (refusal.line, refusal.fixable) == (4, False)
        assert refusal.message.startswith(
            "`DDPPlugin(...)` not renamed: an argument means something else in "
        )
        assert "pass it to the Trainer as `num_nodes=`" in refusal.details[0]
        assert not any(f.fixable and f.line == 4 for f in result.findings)
    assert migrate(HELPER, v("1.5")).code.count("DDPPlugin(") == 2  # 1.5 has the class: nothing to rename


def test_a_bound_object_with_a_run_time_argument_is_checked_by_its_keywords() -> None:
    source = (
        "from pytorch_lightning import Trainer\n"
        "from pytorch_lightning.plugins import DDPPlugin\n"
        "\n"
        "def main(args):\n"
        "    ddp_plugin = DDPPlugin(find_unused_parameters=False, num_nodes=args.num_nodes)\n"
        "    return Trainer(gpus=2, plugins=[ddp_plugin])\n"
    )
    for target in ("1.6", "2.6"):
        result = migrate(source, v(target))
        assert result.code == source
        assert [f.line for f in result.findings if f.code == "LM103"] == [5]
    # written for 1.6, `num_nodes` already reached torch: the rename keeps what the object did
    assert "DDPStrategy(" in migrate(source, v("1.7"), release("1.6")).code


def test_positional_arguments_of_a_renamed_class_are_not_renamed() -> None:
    source = "from pytorch_lightning.plugins import DDPPlugin\n\nplugin = DDPPlugin([0, 1])\n"
    result = migrate(source, v("1.6"))
    assert result.code == source
    assert [(f.code, f.line) for f in result.findings] == [("LM005", 1), ("LM103", 3)]
    assert "positional" in next(f.message for f in result.findings if f.code == "LM103")
    # an object whose every keyword keeps its meaning follows the rename
    plain = "from pytorch_lightning.plugins import DDPPlugin\n\nplugin = DDPPlugin(static_graph=True)\n"
    assert "plugin = DDPStrategy(static_graph=True)" in migrate(plain, v("1.6")).code


@pytest.mark.parametrize(
    ("cls", "count", "names"),
    [
        ("NativeMixedPrecisionPlugin", 2, ("precision", "device")),  # 1.4 takes none: TypeError both ways
        ("NativeMixedPrecisionPlugin", 3, ("precision", "device", "scaler")),
        ("NativeMixedPrecisionPlugin", 4, None),  # more than any release takes
        ("MixedPrecision", 2, ("precision", "device")),
        ("SLURMEnvironment", 1, ("auto_requeue",)),
        ("SingleDevicePlugin", 1, ("device",)),  # `device` first before and after 1.6
        ("DDPPlugin", 1, None),  # 1.6 put `accelerator` first
        ("DDPStrategy", 1, ("accelerator",)),
        ("DDPSpawnPlugin", 2, None),
        ("LightningEnvironment", 1, None),  # no release takes one
        ("HorovodPlugin", 1, None),  # its constructor is not tabled
    ],
)
def test_positional_arguments_bind_where_every_release_binds_them_alike(
    cls: str, count: int, names: tuple[str, ...] | None
) -> None:
    assert positional_names(cls, count) == names


def test_positional_precision_plugin_arguments_are_read_as_their_keywords() -> None:
    """`NativeMixedPrecisionPlugin(16, "cuda")` is `(precision=16, device="cuda")` in every release that
    takes arguments: judged as the keyword form is, not as a value only known at run time."""
    call = "pl.Trainer(gpus=1, plugins=[NativeMixedPrecisionPlugin({}), DDPPlugin()])\n"
    head = "import pytorch_lightning as pl\n"
    head += "from pytorch_lightning.plugins import DDPPlugin, NativeMixedPrecisionPlugin\n"
    positional = migrate(head + call.format('16, "cuda"'), v("2.6"), release("1.5"))
    keywords = migrate(head + call.format('precision=16, device="cuda"'), v("2.6"), release("1.5"))
    assert "LM101" not in {f.code for f in positional.findings}
    assert positional.code == keywords.code
    assert 'MixedPrecision(device="cuda", precision="16-mixed")' in positional.code
    # a run-time argument is still a run-time value
    assert "LM101" in {f.code for f in migrate(head + call.format("16, d"), v("2.6")).findings}


def test_a_renamed_class_with_positional_arguments_every_release_binds_alike_is_renamed() -> None:
    source = (
        "from pytorch_lightning.plugins import SingleDevicePlugin\n\nplugin = SingleDevicePlugin('cuda:0')\n"
    )
    result = migrate(source, v("1.7"))
    assert "plugin = SingleDeviceStrategy('cuda:0')" in result.code
    assert "LM103" not in {f.code for f in result.findings}
    starred = source.replace("'cuda:0'", "*args")
    assert "LM103" in {f.code for f in migrate(starred, v("1.7")).findings}


def test_a_try_import_falling_back_to_the_same_class_follows_the_rename() -> None:
    source = (
        "try:\n"
        "    from pytorch_lightning.plugins import DDPPlugin\n"
        "except (ImportError, ModuleNotFoundError):\n"
        "    from pytorch_lightning.plugins.training_type import DDPPlugin\n"
        "\n"
        "plugin = DDPPlugin(static_graph=True)\n"
    )
    out = migrate(source, v("1.6")).code
    assert "DDPPlugin" not in out
    # the second import of the same new name goes; its handler keeps a `pass`
    assert (
        "from pytorch_lightning.strategies import DDPStrategy\n"
        "except (ImportError, ModuleNotFoundError):\n    pass\n" in out
    )
    assert "plugin = DDPStrategy(static_graph=True)" in out


@pytest.mark.parametrize(
    "guard",
    [
        "try:\n    {old}\nexcept ImportError:\n    {new}\n",  # the handler imports the new class
        "try:\n    {old}\nexcept KeyError:\n    DDPPlugin = None\n",  # not an import's fallback
        "if PL_16:\n    {new}\nelse:\n    {old}\n",  # the version guard of code for several releases
    ],
)
def test_compatibility_imports_are_left_alone(guard: str) -> None:
    old = "from pytorch_lightning.plugins import DDPPlugin"
    new = "from pytorch_lightning.strategies import DDPStrategy as DDPPlugin"
    source = guard.format(old=old, new=new) + "\ndef is_ddp(p):\n    return isinstance(p, DDPPlugin)\n"
    result = migrate(source, v("1.6"))
    assert (result.code, result.findings) == (source, [])


def test_a_call_of_a_class_imported_under_two_names_is_reported_not_guessed() -> None:
    source = (
        "from pytorch_lightning import Trainer\n"
        "try:\n"
        "    from pytorch_lightning.plugins import DDPPlugin\n"
        "except ImportError:\n"
        "    from pytorch_lightning.strategies import DDPStrategy as DDPPlugin\n"
        "trainer = Trainer(gpus=2, plugins=[DDPPlugin(find_unused_parameters=False)])\n"
    )
    for target in ("1.6", "2.6"):
        result = migrate(source, v(target))
        assert result.code == source
        assert [f.code for f in result.findings] == ["LM101"]
        assert result.findings[0].message.endswith("; use `--shim` or pass the flags literally")
        assert (
            "`DDPStrategy` or `DDPPlugin`, whichever the installed release has"
            in result.findings[0].details[0]
        )


def test_one_old_import_of_several_classes_stays_one_import() -> None:
    """`from pytorch_lightning.plugins.training_type import DeepSpeedPlugin, DDPPlugin` (openfold, 2022)
    became one `from pytorch_lightning.strategies import ...` line per class; the classes of one module
    stay in one statement, in their order, beside a name that is kept in the old one."""
    source = (
        "import pytorch_lightning as pl\n"
        "from pytorch_lightning.plugins import DeepSpeedPlugin, DDPPlugin as D, PrecisionPlugin\n\n"
        "s = D(find_unused_parameters=False) if pl else DeepSpeedPlugin(stage=2)\n"
        "p = PrecisionPlugin()\n"
    )
    code = migrate(source, release("1.9")).code
    assert code.splitlines()[1:3] == [
        "from pytorch_lightning.plugins import PrecisionPlugin",
        "from pytorch_lightning.strategies import DeepSpeedStrategy, DDPStrategy as D",
    ], code
    ast.parse(code)


LEFT_IN_PLUGINS = """\
import pytorch_lightning as pl
from pytorch_lightning.plugins import DDPPlugin, NativeMixedPrecisionPlugin

ok = pl.Trainer(gpus=2, plugins=[DDPPlugin(find_unused_parameters=False), NativeMixedPrecisionPlugin(16, d)])
rewritten = pl.Trainer(gpus=2, plugins=[DDPPlugin(find_unused_parameters=False)])
"""


@pytest.mark.parametrize(("target", "counted_fixed"), [("1.6", True), ("1.7", False), ("2.6", False)])
def test_a_class_renamed_in_a_call_left_is_fixed_only_where_plugins_still_takes_it(
    target: str, counted_fixed: bool
) -> None:
    """The rewritten call renames the import, so the call left (LM101: a positional precision plugin) has
    its `DDPPlugin` renamed too, or it would not import; but from 1.7 `plugins=` takes no strategy, so that
    rename fixes nothing there (issue 24: a class renamed, counted fixed, left under `plugins=`)."""
    result = migrate(LEFT_IN_PLUGINS, release(target))
    assert "ok = pl.Trainer(gpus=2, plugins=[DDPStrategy(" in result.code
    (renamed,) = [f for f in result.findings if f.code == "LM005" and f.line == 4]
    assert renamed.fixable is counted_fixed, renamed
    if not counted_fixed:
        assert "still in `plugins=`: move it to `strategy=` with the call" in renamed.message


def test_a_precision_plugin_respelled_is_no_strategy_in_plugins_nor_a_training_type_rename() -> None:
    """`plugins=[NativeMixedPrecisionPlugin(...)]` for 2.x was said to hold a strategy (LM003) and its class
    to be a renamed training type (LM005): it is a precision plugin spelled otherwise (LM006). Beside a
    `DDPPlugin` in `plugins=`, LM003 and LM005 are that one's."""
    head = "import pytorch_lightning as pl\nfrom pytorch_lightning.plugins import DDPPlugin"
    head += ", NativeMixedPrecisionPlugin\n"
    call = 'pl.Trainer(gpus=1, plugins=[NativeMixedPrecisionPlugin(16, "cuda")])\n'
    alone = migrate(head.replace("DDPPlugin, ", "") + call, v("2.6"))
    assert sorted(f.code for f in alone.findings) == ["LM004", "LM006"]
    both = head + "pl.Trainer(gpus=2, plugins=[DDPPlugin(), NativeMixedPrecisionPlugin(16, 'cuda')])\n"
    found = migrate(both, v("2.6"), release("1.5")).findings
    assert sorted(f.code for f in found) == ["LM003", "LM004", "LM005"]
    assert "`DDPPlugin` is renamed" in next(f.message for f in found if f.code == "LM005")
