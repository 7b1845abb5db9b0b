"""The keys of a dict a Trainer call unpacks (``Trainer(**params)``) are judged as its keywords
(``_Migrator._unpacked_gone``): the same findings as the keyword written in the call (LM007, LM100), for
every target; renamed inside the dict only where the run rewrites that dict anyway, else reported. Each case:
the code, the target, the (line, code) findings of the keys, and the dict as the rewrite leaves it."""

from __future__ import annotations

import pytest

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan import gone
from lightning_migrate.plan.prefilter import may_need_migration
from lightning_migrate.semantics.model import release

HEAD = "import pytorch_lightning as pl\n\n\ndef main(fast):\n"

# (case, body of `main`, target, the (line, code) of the LM007/LM100 findings, the text the rewrite holds)
CASES: list[tuple[str, str, str, list[tuple[int, str]], str | None]] = [
    (
        "inline display",
        "    return pl.Trainer(**{'max_epochs': 1, 'progress_bar_refresh_rate': 10})\n",
        "2.6",
        [(5, "LM007")],
        None,
    ),
    (
        "inline display, deprecated at 1.5",
        "    return pl.Trainer(**{'max_epochs': 1, 'progress_bar_refresh_rate': 10})\n",
        "1.5",
        [(5, "LM007")],
        None,
    ),
    (
        "a key only 1.7 added, at 1.5",
        "    return pl.Trainer(**{'max_epochs': 1, 'enable_progress_bar': False})\n",
        "1.5",
        [],
        None,
    ),
    (
        "named dict used once, beside gpus: gpus rewritten, the key reported",
        '    params = {"gpus": 2, "progress_bar_refresh_rate": 10}\n    return pl.Trainer(**params)\n',
        "1.9",
        [(5, "LM007")],
        '{"accelerator": "cuda", "devices": 2, "progress_bar_refresh_rate": 10}',
    ),
    (
        "named dict rewritten anyway: the rename made in it",
        '    params = {"gpus": 2, "weights_summary": None}\n    return pl.Trainer(**params)\n',
        "1.9",
        [(5, "LM007")],
        '{"accelerator": "cuda", "devices": 2, "enable_model_summary": False}',
    ),
    (
        "a rename blocked by the call's own keyword",
        "    params = {'gpus': 2, 'weights_summary': None}\n"
        "    return pl.Trainer(enable_model_summary=True, **params)\n",
        "1.9",
        [(5, "LM007")],
        None,
    ),
    (
        "dict not rewritten: a rename is reported only",
        "    return pl.Trainer(**dict(max_epochs=1, checkpoint_callback=False))\n",
        "2.6",
        [(5, "LM007")],
        None,
    ),
    (
        "a key set in a branch",
        "    kw = {'max_epochs': 1}\n    if fast:\n        kw['resume_from_checkpoint'] = 'a.ckpt'\n"
        "    return pl.Trainer(**kw)\n",
        "2.6",
        [(7, "LM007")],
        None,
    ),
    (
        "a key set by update",
        "    kw = {'max_epochs': 1}\n    kw.update(track_grad_norm=2)\n    return pl.Trainer(**kw)\n",
        "2.0",
        [(6, "LM007")],
        None,
    ),
    (
        "a dict bound twice, one per Trainer: each key reported once",
        "    kw = {'max_epochs': 1, 'weights_save_path': 'x'}\n    a = pl.Trainer(**kw)\n"
        "    kw = {'max_epochs': 2}\n    return a, pl.Trainer(**kw)\n",
        "2.6",
        [(5, "LM007")],
        None,
    ),
    (
        "a module-level dict read in the function",
        "    return pl.Trainer(**CONFIG)\n\n\nCONFIG = {'log_gpu_memory': 'all'}\n",
        "2.6",
        [(8, "LM007")],
        None,
    ),
    (
        "a key of Lightning 0.x",
        "    return pl.Trainer(**{'max_epochs': 1, 'row_log_interval': 10})\n",
        "1.5",
        [(5, "LM100")],
        None,
    ),
    # negatives
    (
        "a dict of the same name in another function",
        "    params = {'max_epochs': 1}\n    return pl.Trainer(**params)\n\n\n"
        "def other():\n    params = {'progress_bar_refresh_rate': 1}\n    return params\n",
        "2.6",
        [],
        None,
    ),
    (
        "a key only read",
        "    kw = {'max_epochs': 1}\n    print(kw.get('progress_bar_refresh_rate'))\n"
        "    return pl.Trainer(**kw)\n",
        "2.6",
        [],
        None,
    ),
    (
        "modern keys",
        "    kw = dict(max_epochs=1, enable_progress_bar=False, devices=1, accelerator='gpu')\n"
        "    return pl.Trainer(**kw)\n",
        "2.6",
        [],
        None,
    ),
    (
        "a deprecated keyword at its default",
        "    return pl.Trainer(**{'max_epochs': 1, 'weights_summary': 'top'})\n",
        "1.5",
        [],
        None,
    ),
]


@pytest.mark.parametrize(("case", "body", "target", "found", "holds"), CASES, ids=[c[0] for c in CASES])
def test_unpacked_keys(
    case: str, body: str, target: str, found: list[tuple[int, str]], holds: str | None
) -> None:
    source = HEAD + body
    result = migrate(source, release(target))
    keys = [(f.line, f.code) for f in result.findings if f.code in (gone.CODE, gone.ANCIENT_CODE)]
    assert keys == found, case
    if found:
        assert may_need_migration(source, [release(target)], [None])
    if holds is None:
        assert not any(f.fixable for f in result.findings if f.code in (gone.CODE, gone.ANCIENT_CODE))
        return
    assert holds in result.code
    again = migrate(result.code, release(target))
    left = [(f.line, f.code) for f in result.findings if not f.fixable]
    assert [(f.line, f.code) for f in again.findings] == left  # what was fixed gives no finding again


def test_the_same_finding_as_the_keyword_written() -> None:
    """A key gets the message of the keyword written in the call (less the fix where it is not made)."""
    for target in ("1.5", "1.9", "2.6"):
        keyword = migrate(f"{HEAD}    return pl.Trainer(max_epochs=1, track_grad_norm=2)\n", release(target))
        key = migrate(
            f"{HEAD}    return pl.Trainer(**{{'max_epochs': 1, 'track_grad_norm': 2}})\n", release(target)
        )
        said = [(f.code, f.message) for f in keyword.findings]
        assert said == [(f.code, f.message) for f in key.findings], target


def test_the_keys_of_a_removed_from_argparse_args_call() -> None:
    """`from_argparse_args(args, **dict)`, which 2.0 removed: the dict's keys still reach the target's
    Trainer (the shim's too, which takes `resume_from_checkpoint=` on every release)."""
    source = (
        f"{HEAD}    return pl.Trainer.from_argparse_args(\n"
        "        fast, **{'max_epochs': 1, 'resume_from_checkpoint': 'x', 'track_grad_norm': 2}\n    )\n"
    )
    for shim, found in ((False, ["resume_from_checkpoint", "track_grad_norm"]), (True, ["track_grad_norm"])):
        result = migrate(source, release("2.6"), shim=shim)
        said = [f.message.split("=")[0].strip("`") for f in result.findings if f.code == gone.CODE]
        assert said == found, shim
