"""What the CLI tests share: running the command in-process, and small training scripts."""

from __future__ import annotations

from dataclasses import dataclass

from click.testing import CliRunner

from lightning_migrate.cli.main import main

# Rewritten for 2.6 (LM001 + LM004, both fixable).
FIXABLE = 'import pytorch_lightning as pl\n\ntrainer = pl.Trainer(accelerator="ddp", gpus=2, max_epochs=3)\n'
# (wrapped: one line would pass 88 characters, black's and ruff's line length)
FIXED = (
    "import pytorch_lightning as pl\n\n"
    "trainer = pl.Trainer(\n"
    '    strategy="ddp_find_unused_parameters_true",\n'
    '    accelerator="cuda",\n'
    "    devices=2,\n"
    "    max_epochs=3,\n"
    ")\n"
)
# the same through the API, which wraps nothing unless asked (``Options.line_length``)
FIXED_ON_ONE_LINE = (
    "import pytorch_lightning as pl\n\n"
    'trainer = pl.Trainer(strategy="ddp_find_unused_parameters_true", accelerator="cuda", devices=2,'
    " max_epochs=3)\n"
)
# Reported, never rewritten (LM101: a value only known at run time).
UNFIXABLE = "import pytorch_lightning as pl\n\n\ndef build(args):\n    return pl.Trainer(gpus=args.gpus)\n"
CLEAN = 'import pytorch_lightning as pl\n\ntrainer = pl.Trainer(accelerator="cuda", devices=2)\n'
# a file the prefilter passes (it holds a Trainer call): files that cannot need a migration are not parsed
BROKEN = "import pytorch_lightning as pl\n\ndef f(:\n    pass\n\npl.Trainer(gpus=2)\n"


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str
    out_bytes: bytes


def run(*args: str, stdin: bytes | None = None) -> Outcome:
    result = CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)
    return Outcome(result.exit_code, result.stdout, result.stderr, result.stdout_bytes)
