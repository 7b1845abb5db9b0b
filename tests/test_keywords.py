"""The table of every Trainer keyword (``semantics.keywords``, read from the wheels), Lightning's advice for
the removed ones (``semantics.removed``) and their judge (``plan.gone``, LM007)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightning_migrate.frontends.contract import Request
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.frontends.shell.commands import migrate_commands
from lightning_migrate.frontends.yaml.frontend import migrate as migrate_yaml
from lightning_migrate.plan import gone
from lightning_migrate.plan.callsite import Run
from lightning_migrate.plan.prefilter import may_need_migration
from lightning_migrate.semantics.keywords import KEYWORDS
from lightning_migrate.semantics.model import RELEASES, release, v
from lightning_migrate.semantics.removed import ANCIENT, DEPRECATED_MODELLED, GONE
from lightning_migrate.semantics.signature import DEFAULTS, TRAINER_FLAGS, is_default


def _lines() -> list:
    return sorted({v(f"{r.major}.{r.minor}") for r in RELEASES})


@pytest.mark.parametrize("flag", sorted(TRAINER_FLAGS))
def test_the_modelled_table_agrees_with_the_wheels(flag: str) -> None:
    """``signature.TRAINER_FLAGS`` stays the source of truth for the hardware keywords: the table read from
    the releases says the same of them, and of their defaults."""
    since, until, defaults = KEYWORDS[flag]
    assert TRAINER_FLAGS[flag] == (since, until)
    assert all(is_default(flag, d) for d in defaults)
    assert len(defaults) == len(DEFAULTS[flag])


@pytest.mark.parametrize("row", [*GONE, *DEPRECATED_MODELLED], ids=lambda row: row.keyword)
def test_each_row_is_a_keyword_the_releases_had_and_lost(row) -> None:  # type: ignore[no-untyped-def]
    since, until, _ = KEYWORDS[row.keyword]
    assert row.removed is not None, "a row is a keyword (or value) some release rejects"
    assert since < row.removed
    if row.values:  # only some values go; the keyword stays
        assert until is None
    else:
        assert row.removed == until
    if row.deprecated is not None:
        assert row.deprecated < row.removed


RENAMES = [(row, rename) for row in GONE for rename in row.renames]


@pytest.mark.parametrize(("row", "rename"), RENAMES, ids=lambda x: getattr(x, "keyword", ""))
def test_each_rename_exists_where_the_old_keyword_warns_or_is_gone(row, rename) -> None:  # type: ignore[no-untyped-def]
    """The new keyword is a keyword of every release from the one that deprecates the old one on, and the
    keywords that stop a rename are keywords of the releases too."""
    first = row.deprecated or row.removed
    for line in _lines():
        if line >= first and rename.keyword is not None:
            assert gone.accepts(rename.keyword, line), (rename.keyword, line)
    assert all(k in KEYWORDS for k in rename.unless)
    assert rename.keyword in rename.unless, "a call that already passes the new keyword is left to the user"


def _judge(written: dict[str, object], target: str, opaque: bool = False) -> list[tuple[str, bool]]:
    return [(j.old, j.fixable) for j in gone.judge(written, release(target), opaque)]


def test_modern_keywords_are_never_reported() -> None:
    modern = {"enable_progress_bar": False, "enable_model_summary": False, "max_steps": -1, "max_epochs": 3}
    for target in ("1.6", "1.7", "1.9", "2.0", "2.6"):
        assert _judge(modern, target) == []
    assert _judge({"inference_mode": False, "barebones": True}, "2.6") == []
    assert _judge({"not_a_trainer_keyword": 1}, "2.6") == []  # a subclass's own


def test_a_keyword_the_target_lacks_is_reported_whatever_its_value() -> None:
    assert _judge({"resume_from_checkpoint": "x.ckpt"}, "2.0") == [("resume_from_checkpoint", False)]
    assert _judge({"resume_from_checkpoint": gone.RUN_TIME}, "2.6") == [("resume_from_checkpoint", False)]
    assert _judge({"track_grad_norm": 2}, "2.6") == [("track_grad_norm", False)]
    assert _judge({"inference_mode": False}, "1.7") == [("inference_mode", False)]  # added in 1.8


def test_a_deprecated_keyword_is_reported_unless_at_its_default() -> None:
    assert _judge({"resume_from_checkpoint": "x.ckpt"}, "1.9") == [("resume_from_checkpoint", False)]
    assert _judge({"progress_bar_refresh_rate": 0}, "1.6") == [("progress_bar_refresh_rate", True)]
    assert _judge({"weights_summary": "top"}, "1.6") == []
    assert _judge({"track_grad_norm": 2}, "1.9") == []  # 2.0 removed it without a warning first


@pytest.mark.parametrize(
    ("written", "target", "reported"),
    [
        ({"auto_select_gpus": True}, "1.9", ["auto_select_gpus"]),
        ({"amp_backend": "apex", "amp_level": "O1"}, "1.9", ["amp_backend", "amp_level"]),
        ({"amp_backend": gone.RUN_TIME}, "1.9", ["amp_backend"]),
        ({"amp_backend": "apex", "amp_level": "O1"}, "1.8", ["amp_level"]),  # (1.8 warns for the level)
        ({"auto_select_gpus": True, "amp_backend": "apex", "amp_level": "O1"}, "1.7", []),
        # an older release's defaults, as a config of every flag lists them
        ({"auto_select_gpus": False, "amp_backend": "native", "amp_level": "O2"}, "1.9", []),
        # 2.0 removed them: the planner drops or reports them with the rest of the call
        ({"auto_select_gpus": True, "amp_backend": "apex", "amp_level": "O1"}, "2.0", []),
    ],
)
def test_the_modelled_keywords_1_9_deprecates_are_reported_not_fixed(
    written: dict[str, object], target: str, reported: list[str]
) -> None:
    """1.9 warns for `auto_select_gpus=` and the apex flags (1.8 for `amp_level=`) whatever their value, and
    2.0 removes them; a 1.9 rewrite kept them as written and counted the call fixed. They are reported (LM007)
    like the keywords beside the model's that the target deprecates, never fixed."""
    assert _judge(written, target) == [(keyword, False) for keyword in reported]


def test_a_1_9_rewrite_that_keeps_apex_reports_it_as_work_left() -> None:
    code = 'import pytorch_lightning as pl\n\npl.Trainer(gpus=2, accelerator="ddp", amp_backend="apex")\n'
    result = migrate(code, release("1.9"))
    assert 'strategy="ddp"' in result.code
    assert 'amp_backend="apex"' in result.code
    left = [f for f in result.findings if not f.fixable]
    assert [(f.code, f.message) for f in left] == [
        ("LM007", "`amp_backend='apex'` is deprecated in Lightning 1.9.5; change it by hand")
    ]
    assert any("apex AMP implementation has been deprecated" in d for d in left[0].details)
    config = "trainer:\n  auto_select_gpus: {}\n  max_epochs: 3\n"
    for value, codes in (("true", ["LM007"]), ("false", [])):
        migrated = migrate_yaml(config.format(value), Request(Run(release("1.9")), False, Path("c.yaml")))
        assert [f.code for f in migrated.findings] == codes


def test_renames_and_drops() -> None:
    judged = gone.judge({"progress_bar_refresh_rate": 0, "weights_summary": None}, release("2.6"))
    assert [j.edit for j in judged] == [("enable_progress_bar", False), ("enable_model_summary", False)]
    written = {"reload_dataloaders_every_epoch": True, "checkpoint_callback": False}
    judged = gone.judge(written, release("1.7"))
    assert [j.edit for j in judged] == [
        ("reload_dataloaders_every_n_epochs", 1),
        ("enable_checkpointing", False),
    ]
    assert [j.edit for j in gone.judge({"stochastic_weight_avg": False}, release("2.6"))] == [(None, None)]


def test_a_rename_that_meets_the_keywords_it_depends_on_is_left() -> None:
    assert _judge({"progress_bar_refresh_rate": 0, "callbacks": gone.RUN_TIME}, "2.6") == [
        ("progress_bar_refresh_rate", False)
    ]
    assert _judge({"checkpoint_callback": False, "enable_checkpointing": True}, "1.7") == [
        ("checkpoint_callback", False)
    ]
    assert _judge({"weights_summary": None}, "2.6", opaque=True) == [("weights_summary", False)]
    assert _judge({"stochastic_weight_avg": False}, "2.6", opaque=True) == [("stochastic_weight_avg", False)]


def test_only_some_values_of_max_steps_are_old() -> None:
    assert _judge({"max_steps": None}, "1.6") == [("max_steps", False)]
    assert _judge({"max_steps": None}, "2.6") == [("max_steps", False)]
    assert _judge({"max_steps": -1}, "2.6") == []
    assert _judge({"max_steps": gone.RUN_TIME}, "2.6") == []


def test_a_call_is_never_fixed_while_it_passes_a_keyword_the_target_rejects() -> None:
    """The hardware flags are rewritten; the keyword with no rename stays, and says so (not fixable)."""
    source = "import pytorch_lightning as pl\n\npl.Trainer(gpus=2, track_grad_norm=2)\n"
    result = migrate(source, release("2.6"))
    assert "accelerator=" in result.code
    assert "track_grad_norm=2" in result.code
    assert ("LM007", False) in [(f.code, f.fixable) for f in result.findings]


def test_renames_in_the_same_edit_as_the_hardware_flags() -> None:
    source = "import pytorch_lightning as pl\n\npl.Trainer(gpus=2, weights_summary=None, max_epochs=1)\n"
    result = migrate(source, release("2.6"))
    assert "enable_model_summary=False, max_epochs=1" in result.code
    assert migrate(result.code, release("2.6")).findings == []


def test_a_lightning_2_file_gets_nothing() -> None:
    source = (
        "import lightning.pytorch as L\n\n"
        "L.Trainer(accelerator='cuda', devices=2, enable_progress_bar=False, max_steps=-1, barebones=False)\n"
    )
    result = migrate(source, release("2.6"))
    assert result.findings == []
    assert result.code == source


def test_the_noqa_of_a_call_leaves_its_keywords() -> None:
    source = "import pytorch_lightning as pl\n\npl.Trainer(weights_summary=None)\n"
    result = migrate(source, release("2.6"), leave=frozenset({(3, 1)}))
    assert result.code == source
    assert [f.code for f in result.findings] == ["LM007"]


def test_command_line_options_are_reported_not_rewritten() -> None:
    view = "python main.py fit --trainer.progress_bar_refresh_rate 0 --trainer.enable_model_summary=false\n"
    found = migrate_commands(view, Run(release("2.6")), None)
    assert found.edits == []
    assert [(f.line, f.column, f.code, f.fixable) for f in found.findings] == [(1, 20, "LM007", False)]
    modern = "python main.py fit --trainer.enable_progress_bar false --trainer.max_steps -1\n"
    assert migrate_commands(modern, Run(release("2.6")), None).findings == []


def test_a_yaml_config_with_merged_keys_is_only_reported() -> None:
    text = "base: &base\n  weights_summary: null\ntrainer:\n  <<: *base\n  max_epochs: 1\n"
    migrated = migrate_yaml(text, Request(Run(release("2.6")), False, Path("config.yaml")))
    assert migrated.code == text
    assert [(f.code, f.fixable) for f in migrated.findings] == [("LM007", False)]


def test_the_keywords_of_0x_are_in_no_release_the_model_knows() -> None:
    """`semantics.removed.ANCIENT`: each is in no release's signature (else `plan.gone` judges it)."""
    assert not set(ANCIENT) & set(KEYWORDS)


@pytest.mark.parametrize("keyword", sorted(ANCIENT))
def test_a_keyword_of_0x_is_reported_for_every_target(keyword: str) -> None:
    """`pl.Trainer(max_nb_epochs=10)` (written for 0.7) raises TypeError on every release from 1.4, and was
    said nothing of: the prefilter skipped the call (no keyword it looked for), the codemod ignored keywords
    no release has. A keyword that is not Lightning's Trainer's is not looked at."""
    source = (
        f"import pytorch_lightning as pl\n\ntrainer = pl.Trainer({keyword}=1)\nother = dict({keyword}=1)\n"
    )
    assert may_need_migration(source)
    for target in ("1.4", "1.9", "2.6"):
        (finding,) = migrate(source, release(target)).findings
        assert (finding.line, finding.code, finding.fixable) == (3, "LM100", False)
        assert finding.message == f"`{keyword}=` is in no Lightning release from 1.4: {ANCIENT[keyword]}"


@pytest.mark.parametrize("keyword", sorted(ANCIENT))
def test_a_keyword_of_0x_is_reported_alike_in_a_yaml_config_and_a_command_line(keyword: str) -> None:
    """The Trainer config of a YAML file and LightningCLI's `--trainer.` options say what Python says (LM100,
    not fixed); the same key of another section, or another script's option, is not the Trainer's."""
    said = f"`{keyword}=` is in no Lightning release from 1.4: {ANCIENT[keyword]}"
    text = f"trainer:\n  max_epochs: 3\n  {keyword}: 1\nmodel:\n  {keyword}: 1\n"
    for target in ("1.4", "1.9", "2.6"):
        migrated = migrate_yaml(text, Request(Run(release(target)), False, Path("config.yaml")))
        assert migrated.code == text
        assert [(f.line, f.code, f.fixable, f.message) for f in migrated.findings] == [
            (3, "LM100", False, said)
        ]
        view = f"python main.py fit --trainer.{keyword} 1 --model.{keyword} 1\n"
        (found,) = migrate_commands(view, Run(release(target)), None).findings
        assert (found.line, found.column, found.code, found.fixable, found.message) == (
            1,
            20,
            "LM100",
            False,
            said,
        )
