"""The fixes of removed Trainer keywords that move a value into ``callbacks=`` or hold only with another
keyword (``plan.gone``'s ``_FIXES``): each case is a call as written, the target, whether
``--unsafe-fixes`` is given, and the call it becomes (None: left as written, its LM007 finding not
fixable). Every rewrite is checked to be a fixed point: read again, it gives no finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightning_migrate.frontends.contract import Request
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.frontends.yaml.frontend import migrate as migrate_yaml
from lightning_migrate.plan import gone
from lightning_migrate.plan.callsite import Run
from lightning_migrate.report.findings import Result
from lightning_migrate.semantics.model import release

HEAD = (
    "import pytorch_lightning as pl\n"
    "from pytorch_lightning.callbacks import ModelCheckpoint, TQDMProgressBar\n"
)
CKPT = "ckpt = ModelCheckpoint(monitor='val_loss')\n"

# (case, code before the call, the call, target, unsafe, the call it becomes or None)
CASES: list[tuple[str, str, str, str, bool, str | None]] = [
    # 1. progress_bar_refresh_rate=N: TQDMProgressBar(refresh_rate=N) in `callbacks=`
    (
        "rate alone",
        "",
        "pl.Trainer(progress_bar_refresh_rate=20)",
        "2.6",
        False,
        "pl.Trainer(callbacks=[TQDMProgressBar(refresh_rate=20)])",
    ),
    (
        "rate at 1.6, deprecated there",
        "",
        "pl.Trainer(progress_bar_refresh_rate=20)",
        "1.6",
        False,
        "pl.Trainer(callbacks=[TQDMProgressBar(refresh_rate=20)])",
    ),
    (
        "rate beside a list of Lightning callbacks",
        CKPT,
        "pl.Trainer(callbacks=[ckpt, ModelCheckpoint()], progress_bar_refresh_rate=5)",
        "2.6",
        False,
        "pl.Trainer(callbacks=[ckpt, ModelCheckpoint(), TQDMProgressBar(refresh_rate=5)])",
    ),
    (
        "rate beside one callback object",
        CKPT,
        "pl.Trainer(callbacks=ckpt, progress_bar_refresh_rate=5)",
        "2.6",
        False,
        "pl.Trainer(callbacks=[ckpt, TQDMProgressBar(refresh_rate=5)])",
    ),
    (
        "rate beside callbacks=None",
        "",
        "pl.Trainer(callbacks=None, progress_bar_refresh_rate=5)",
        "2.6",
        False,
        "pl.Trainer(callbacks=[TQDMProgressBar(refresh_rate=5)])",
    ),
    (
        "rate beside a progress bar: 1.4-1.6 ignored the rate",
        "",
        "pl.Trainer(callbacks=[TQDMProgressBar(refresh_rate=3)], progress_bar_refresh_rate=5)",
        "2.6",
        False,
        "pl.Trainer(callbacks=[TQDMProgressBar(refresh_rate=3)])",
    ),
    (
        "rate beside a user's callback",
        "",
        "pl.Trainer(callbacks=[Mine()], progress_bar_refresh_rate=5)",
        "2.6",
        False,
        None,
    ),
    (
        "rate beside a user's callback, unsafe",
        "",
        "pl.Trainer(callbacks=[Mine()], progress_bar_refresh_rate=5)",
        "2.6",
        True,
        "pl.Trainer(callbacks=[Mine(), TQDMProgressBar(refresh_rate=5)])",
    ),
    (
        "rate beside a run-time list",
        "",
        "pl.Trainer(callbacks=cbs, progress_bar_refresh_rate=5)",
        "2.6",
        False,
        None,
    ),
    (
        "rate beside a run-time list, unsafe",
        "",
        "pl.Trainer(callbacks=cbs, progress_bar_refresh_rate=5)",
        "2.6",
        True,
        "pl.Trainer(callbacks=[*cbs, TQDMProgressBar(refresh_rate=5)])",
    ),
    ("a run-time rate", "", "pl.Trainer(progress_bar_refresh_rate=args.rate)", "2.6", False, None),
    (
        "a run-time rate, unsafe",
        "",
        "pl.Trainer(progress_bar_refresh_rate=args.rate)",
        "2.6",
        True,
        "pl.Trainer(callbacks=[TQDMProgressBar(refresh_rate=args.rate)])",
    ),
    (
        "rate with process_position",
        "",
        "pl.Trainer(progress_bar_refresh_rate=5, process_position=1)",
        "2.6",
        True,
        None,
    ),
    (
        "rate with enable_progress_bar",
        "",
        "pl.Trainer(progress_bar_refresh_rate=5, enable_progress_bar=False)",
        "1.6",
        True,
        None,
    ),
    ("rate beside **kwargs", "", "pl.Trainer(progress_bar_refresh_rate=5, **kw)", "2.6", True, None),
    (
        "rate 0 beside Lightning callbacks",
        CKPT,
        "pl.Trainer(callbacks=[ckpt], progress_bar_refresh_rate=0)",
        "2.6",
        False,
        "pl.Trainer(callbacks=[ckpt], enable_progress_bar=False)",
    ),
    # 2. checkpoint_callback= a ModelCheckpoint (1.3's form), or a run-time bool
    ("a checkpoint object", CKPT, "pl.Trainer(checkpoint_callback=ckpt)", "2.6", False, None),
    (
        "a checkpoint object, unsafe",
        CKPT,
        "pl.Trainer(checkpoint_callback=ckpt, callbacks=[TQDMProgressBar()])",
        "2.6",
        True,
        "pl.Trainer(callbacks=[TQDMProgressBar(), ckpt])",
    ),
    ("a run-time checkpoint flag", "", "pl.Trainer(checkpoint_callback=args.save)", "2.6", False, None),
    (
        "a run-time checkpoint flag, unsafe",
        "",
        "pl.Trainer(checkpoint_callback=args.save)",
        "2.6",
        True,
        "pl.Trainer(enable_checkpointing=args.save)",
    ),
    (
        "a run-time checkpoint flag with enable_checkpointing",
        "",
        "pl.Trainer(checkpoint_callback=a, enable_checkpointing=b)",
        "1.6",
        True,
        None,
    ),
    # 4. max_steps=None: -1 where max_epochs is given
    (
        "max_steps=None with max_epochs",
        "",
        "pl.Trainer(max_steps=None, max_epochs=3)",
        "2.6",
        False,
        "pl.Trainer(max_steps=-1, max_epochs=3)",
    ),
    ("max_steps=None alone", "", "pl.Trainer(max_steps=None)", "2.6", False, None),
    (
        "max_steps=None with max_epochs=None",
        "",
        "pl.Trainer(max_steps=None, max_epochs=None)",
        "2.6",
        False,
        None,
    ),
    (
        "max_steps=None with run-time max_epochs",
        "",
        "pl.Trainer(max_steps=None, max_epochs=n)",
        "2.6",
        False,
        None,
    ),
    (
        "max_steps=None alone, unsafe",
        "",
        "pl.Trainer(max_steps=None)",
        "2.6",
        True,
        "pl.Trainer(max_steps=-1)",
    ),
    # 5. weights_summary="full": ModelSummary(max_depth=-1)
    (
        "full summary",
        "",
        'pl.Trainer(weights_summary="full")',
        "2.6",
        False,
        "pl.Trainer(callbacks=[ModelSummary(max_depth=-1)])",
    ),
    (
        "full summary beside callbacks",
        CKPT,
        'pl.Trainer(weights_summary="full", callbacks=[ckpt])',
        "2.6",
        False,
        None,
    ),
    ("top summary, the default", "", 'pl.Trainer(weights_summary="top")', "2.6", False, "pl.Trainer()"),
]


def _call(code: str) -> str:
    return code.splitlines()[-1].partition(" = ")[2]


@pytest.mark.parametrize(
    ("case", "before", "call", "target", "unsafe", "after"), CASES, ids=[c[0] for c in CASES]
)
def test_removed_keyword_fixes(
    case: str, before: str, call: str, target: str, unsafe: bool, after: str | None
) -> None:
    source = f"{HEAD}{before}trainer = {call}\n"
    result = migrate(source, release(target), unsafe=unsafe)
    lm007 = [f for f in result.findings if f.code == gone.CODE]
    assert lm007, case
    if after is None:
        assert result.code == source
        assert not any(f.fixable for f in lm007)
        if unsafe is False and "fixable with `--unsafe-fixes`" in lm007[0].message:
            assert migrate(source, release(target), unsafe=True).code != source
        return
    assert _call(result.code) == after
    assert all(f.fixable for f in lm007)
    assert "--unsafe-fixes" not in lm007[0].message or unsafe
    assert migrate(result.code, release(target), unsafe=unsafe).findings == []  # a fixed point


def test_the_callbacks_a_fix_builds_are_imported_from_the_files_package() -> None:
    call = 'pl.Trainer(progress_bar_refresh_rate=2, weights_summary="full")'
    source = f"import lightning.pytorch as pl\ntrainer = {call}\n"
    code = migrate(source, release("2.6")).code
    assert "from lightning.pytorch.callbacks import ModelSummary, TQDMProgressBar\n" in code
    assert "callbacks=[TQDMProgressBar(refresh_rate=2), ModelSummary(max_depth=-1)]" in code


def test_the_fixes_that_need_unsafe_say_so() -> None:
    source = f"{HEAD}trainer = pl.Trainer(callbacks=cbs, progress_bar_refresh_rate=5)\n"
    (finding,) = migrate(source, release("2.6")).findings
    assert finding.message.endswith("; fixable with `--unsafe-fixes`")
    assert (
        "`--unsafe-fixes` writes: `TQDMProgressBar(refresh_rate=...)` appended to `callbacks=`"
        in finding.details
    )
    assert any(d.startswith("only right if `callbacks=` is a list") for d in finding.details)
    (finding,) = migrate(source, release("2.6"), unsafe=True).findings
    assert finding.fixable
    # (the callback in full would take the message past the width: it is in the evidence)
    assert finding.message.endswith("; unsafe fix: `TQDMProgressBar` appended to `callbacks=`")
    assert "the fix appends `TQDMProgressBar(refresh_rate=...)` to `callbacks=`" in finding.details
    assert any(d.startswith("only right if `callbacks=` is a list") for d in finding.details)
    full = f"{HEAD}trainer = pl.Trainer(callbacks=[], weights_summary='full')\n"
    (finding,) = migrate(full, release("2.6"), unsafe=True).findings  # (where it fits: said in full)
    assert finding.message.endswith("; unsafe fix: `ModelSummary(max_depth=-1)` appended to `callbacks=`")


def test_a_multi_line_list_keeps_its_layout() -> None:
    call = "pl.Trainer(\n    callbacks=[\n        ckpt,\n    ],\n    progress_bar_refresh_rate=5,\n)\n"
    source = f"{HEAD}{CKPT}trainer = {call}"
    code = migrate(source, release("2.6")).code
    assert code.endswith(
        "trainer = pl.Trainer(\n    callbacks=[\n        ckpt,\n"
        "        TQDMProgressBar(refresh_rate=5),\n    ],\n)\n"
    )


def test_the_fixes_are_made_only_where_the_front_end_asks() -> None:
    """Only the Python front end can write a callback (``callbacks``), and command lines get none of these
    fixes (``fixes``): there these keywords are reported as before."""
    rate = {"progress_bar_refresh_rate": 5}
    assert not any(j.fixable for j in gone.judge(rate, release("2.6"), fixes=True))
    assert gone.judge(rate, release("2.6"), callbacks=gone.Callbacks.ABSENT, fixes=True)[0].fixable
    written = {"max_steps": None, "max_epochs": 3}
    assert not any(j.fixable for j in gone.judge(written, release("2.6")))
    assert gone.judge(written, release("2.6"), fixes=True)[0].fixable


# 3. resume_from_checkpoint=X: `ckpt_path=X` of the one `.fit(` call (each case: a function's body, and
# whether the fix is made)
RESUMES: list[tuple[str, str, bool]] = [
    ("one fit", "t = pl.Trainer(resume_from_checkpoint=args.ckpt)\nt.fit(model, dm)\nt.test(model)", True),
    ("a literal path", "t = pl.Trainer(resume_from_checkpoint='last.ckpt')\nt.fit(model)", True),
    (
        "two fits: 1.5 resumed the first",
        "t = pl.Trainer(resume_from_checkpoint=p)\nt.fit(a)\nt.fit(b)",
        False,
    ),
    ("a fit in a loop", "t = pl.Trainer(resume_from_checkpoint=p)\nfor m in ms:\n    t.fit(m)", False),
    (
        "built and fit in a loop",
        "for m in ms:\n    t = pl.Trainer(resume_from_checkpoint=p)\n    t.fit(m)",
        True,
    ),
    ("the trainer passed on", "t = pl.Trainer(resume_from_checkpoint=p)\nrun(t, model)", False),
    ("tune runs fit", "t = pl.Trainer(resume_from_checkpoint=p)\nt.tune(model)\nt.fit(model)", False),
    ("no fit: see below", "t = pl.Trainer(resume_from_checkpoint=p)\nt.test(model)\nt.fit", False),
    ("fit already given one", "t = pl.Trainer(resume_from_checkpoint=p)\nt.fit(model, ckpt_path=q)", False),
    ("a path computed again", "t = pl.Trainer(resume_from_checkpoint=find(p))\nt.fit(model)", False),
    ("bound twice, before", "q = 1\nq = p\nt = pl.Trainer(resume_from_checkpoint=q)\nt.fit(model)", True),
    (
        "bound in a branch, before",
        "q = None\nif a:\n    q = p\nt = pl.Trainer(resume_from_checkpoint=q)\nt.fit(m)",
        True,
    ),
    ("bound after too", "q = p\nt = pl.Trainer(resume_from_checkpoint=q)\nq = None\nt.fit(model)", False),
    (
        "bound by a loop after",
        "q = p\nt = pl.Trainer(resume_from_checkpoint=q)\nfor q in ms:\n    pass\nt.fit(m)",
        False,
    ),
    ("a local bound after the call", "t = pl.Trainer(resume_from_checkpoint=q)\nq = p\nt.fit(m)", False),
    ("deleted", "q = p\nt = pl.Trainer(resume_from_checkpoint=q)\ndel q\nt.fit(model)", False),
    ("a global", "global q\nq = p\nt = pl.Trainer(resume_from_checkpoint=q)\nt.fit(model)", False),
    ("fit in a nested function", "t = pl.Trainer(resume_from_checkpoint=p)\ndef go():\n    t.fit(m)", False),
    ("the name rebound", "t = pl.Trainer(resume_from_checkpoint=p)\nt = pl.Trainer()\nt.fit(m)", False),
    ("fit with **kwargs", "t = pl.Trainer(resume_from_checkpoint=p)\nt.fit(model, **kw)", False),
]


@pytest.mark.parametrize(("case", "body", "fixed"), RESUMES, ids=[c[0] for c in RESUMES])
def test_resume_from_checkpoint_moves_to_the_one_fit(case: str, body: str, fixed: bool) -> None:
    result = _resumed(body, "args, model, dm, p, a, b, ms, m", fixed, case)
    if result is None:
        return
    assert "fit(" in result.code.split("ckpt_path=")[0].splitlines()[-1]
    assert migrate(result.code, release("2.6")).findings == []


# ... and where the Trainer never runs `fit` (1.4-1.9 read the path in `fit` alone), it goes
NEVER_FITS: list[tuple[str, str, bool]] = [
    ("test only", "t = pl.Trainer(resume_from_checkpoint=args.ckpt)\nt.test(model)", True),
    ("validate and predict", "t = pl.Trainer(resume_from_checkpoint=p)\nt.validate(m)\nt.predict(m)", True),
    ("an unused Trainer", "t = pl.Trainer(resume_from_checkpoint='last.ckpt')", True),
    ("returned", "t = pl.Trainer(resume_from_checkpoint=p)\nreturn t", False),
    ("fit not called", "t = pl.Trainer(resume_from_checkpoint=p)\nf = t.fit\nf(m)", False),
    ("tuned", "t = pl.Trainer(resume_from_checkpoint=p)\nt.tuner.lr_find(m)", False),
    ("a private attribute", "t = pl.Trainer(resume_from_checkpoint=p)\nt._run(m)", False),
    (
        "the path read back",
        "t = pl.Trainer(resume_from_checkpoint=p)\nprint(t.resume_from_checkpoint)",
        False,
    ),
    ("a path with effects", "t = pl.Trainer(resume_from_checkpoint=find(p))\nt.test(m)", False),
    ("a local bound after", "t = pl.Trainer(resume_from_checkpoint=q)\nq = p\nt.test(m)", False),
    ("fit in a nested function", "t = pl.Trainer(resume_from_checkpoint=p)\ndef go():\n    t.fit(m)", False),
]


@pytest.mark.parametrize(("case", "body", "fixed"), NEVER_FITS, ids=[c[0] for c in NEVER_FITS])
def test_resume_from_checkpoint_goes_where_nothing_fits(case: str, body: str, fixed: bool) -> None:
    result = _resumed(body, "args, model, p, m", fixed, case)
    if result is None:
        return
    assert "ckpt_path" not in result.code
    (finding,) = [f for f in result.findings if f.code == gone.CODE]
    assert "the Trainer never runs `fit`" in finding.message
    assert migrate(result.code, release("2.6")).findings == []


def test_a_module_level_trainer_may_be_fit_elsewhere() -> None:
    source = (
        "import pytorch_lightning as pl\n\nt = pl.Trainer(resume_from_checkpoint='last.ckpt')\nt.test(m)\n"
    )
    result = migrate(source, release("2.6"))
    assert result.code == source
    assert [f.fixable for f in result.findings] == [False]


@pytest.mark.parametrize(
    ("config", "unsafe", "after"),
    [
        (
            "trainer:\n  max_epochs: 5\n  max_steps: null\n",
            False,
            "trainer:\n  max_epochs: 5\n  max_steps: -1\n",
        ),
        ("trainer:\n  max_steps: null\n", False, None),
        ("trainer:\n  max_steps: null\n", True, "trainer:\n  max_steps: -1\n"),
        ("trainer:\n  max_epochs: null\n  max_steps: null\n", False, None),
        ("trainer:\n  progress_bar_refresh_rate: 5\n", True, None),  # (no callback is written in a config)
        # refresh rate 1 is the target's default bar, but a `RichProgressBar` where `rich` is installed
        ("trainer:\n  max_epochs: 5\n  progress_bar_refresh_rate: 1\n", False, None),
        ("trainer:\n  max_epochs: 5\n  progress_bar_refresh_rate: 1\n", True, "trainer:\n  max_epochs: 5\n"),
        ("trainer:\n  progress_bar_refresh_rate: 1\n  process_position: 1\n", True, None),
        (
            "trainer:\n  progress_bar_refresh_rate: 1\n  enable_progress_bar: true\n",
            True,
            "trainer:\n  enable_progress_bar: true\n",
        ),
        # `weights_summary: null` added no summary whatever `enable_model_summary` said (1.5/1.6)
        (
            "trainer:\n  enable_model_summary: true\n  weights_summary: null\n",
            False,
            "trainer:\n  enable_model_summary: false\n",
        ),
        (
            "trainer:\n  weights_summary:\n  enable_model_summary: false\n",
            False,
            "trainer:\n  enable_model_summary: false\n",
        ),
        ("trainer:\n  weights_summary: full\n", True, None),
    ],
)
def test_yaml_configs_get_the_fixes_that_need_no_callback(
    config: str, unsafe: bool, after: str | None
) -> None:
    migrated = migrate_yaml(config, Request(Run(release("2.6"), unsafe=unsafe), False, Path("config.yaml")))
    assert migrated.code == (after or config)
    assert [f.fixable for f in migrated.findings if f.message.split("`")[1] != "process_position=1"] == [
        after is not None
    ]
    said = " ".join(d for f in migrated.findings for d in f.details)
    if "refresh_rate: 5" in config or "full" in config:
        assert "a trainer config cannot append a callback" in said
    if "refresh_rate: 1" in config and "process_position" not in config:
        assert "`RichProgressBar`" in said


@pytest.mark.parametrize(
    ("parameter", "fixed"),
    [("save: bool = True", True), ("save: bool", True), ("save", False), ("save: bool = None", False)],
)
def test_a_checkpoint_flag_narrowed_to_a_bool_is_renamed(parameter: str, fixed: bool) -> None:
    """`checkpoint_callback=save` is `enable_checkpointing=save` where `save` is a bool on every run (1.5/1.6:
    `enable_checkpointing = checkpoint_callback and True`); otherwise only with `--unsafe-fixes`."""
    body = "    return pl.Trainer(checkpoint_callback=save)\n"
    source = f"import pytorch_lightning as pl\n\n\ndef build({parameter}):\n{body}"
    result = migrate(source, release("2.6"))
    assert [f.fixable for f in result.findings] == [fixed]
    assert ("enable_checkpointing=save" in result.code) is fixed
    assert "enable_checkpointing=save" in migrate(source, release("2.6"), unsafe=True).code


def _resumed(body: str, parameters: str, fixed: bool, case: str) -> Result | None:
    """``body`` in a function of ``parameters`` migrated for 2.6: its `resume_from_checkpoint=` finding is
    fixable as ``fixed`` says; the result where it is fixed (the keyword gone), else None (unchanged)."""
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    source = f"import pytorch_lightning as pl\n\n\ndef main({parameters}):\n{indented}"
    result = migrate(source, release("2.6"))
    (finding,) = [f for f in result.findings if f.code == gone.CODE]
    assert finding.fixable is fixed, case
    if not fixed:
        assert result.code == source
        return None
    assert "resume_from_checkpoint" not in result.code
    return result
