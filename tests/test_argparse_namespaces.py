"""An argparse namespace holds every Trainer flag, each whatever the command line gives
(``frontends/python/namespaces.py``); 2.0 removed the Trainer's argparse methods (LM105, ``--shim``)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from searches import search_settings

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.frontends.python.namespaces import command_line_values, counterexample
from lightning_migrate.frontends.shell.command_line import argparse_value
from lightning_migrate.plan.planner import MACHINES, MUST_STILL_FAIL, comparable
from lightning_migrate.plan.prefilter import mentions
from lightning_migrate.report.findings import SHIM
from lightning_migrate.semantics import Setup, interpret
from lightning_migrate.semantics.model import RELEASES, release

OLD_TARGETS = ("1.5", "1.6", "1.7", "1.9")
PARSED = (
    "from argparse import ArgumentParser\n\nfrom pytorch_lightning import Trainer\n\n"
    "parser = Trainer.add_argparse_args(ArgumentParser())\nargs = parser.parse_args()\n"
)
OVERRIDES = (
    'distributed_backend="ddp"',
    'accelerator="ddp"',
    'accelerator="ddp_spawn", gpus=2',
    'distributed_backend="dp", gpus=2',
    "plugins=[DDPPlugin(find_unused_parameters=False)]",
    'accelerator="ddp_cpu", num_processes=2',
    "gpus=2",
    "num_processes=4",
)


def script(overrides: str) -> str:
    plugin = "from pytorch_lightning.plugins import DDPPlugin\n" if "DDPPlugin" in overrides else ""
    return f"{plugin}{PARSED}trainer = Trainer.from_argparse_args(args, {overrides})\n"


@pytest.mark.parametrize("target", OLD_TARGETS)
@pytest.mark.parametrize("overrides", OVERRIDES)
def test_the_flags_beside_a_namespace_are_never_rewritten(overrides: str, target: str) -> None:
    source = script(overrides)
    result = migrate(source, release(target))
    assert result.code == source
    assert not [f for f in result.findings if f.fixable]
    for finding in result.findings:  # (LM005: the class a call left as written uses keeps its name)
        assert finding.code in {"LM101", "LM005"}
        if finding.code == "LM101":
            assert "an argparse namespace holds every Trainer flag" in finding.message


def test_the_issue_example_names_the_command_line_that_breaks_the_rewrite() -> None:
    (finding,) = migrate(script('distributed_backend="ddp"'), release("1.6")).findings
    assert (finding.line, finding.code) == (7, "LM101")
    assert finding.message.startswith("`args`: an argparse namespace holds every Trainer flag; ")
    (said,) = [d for d in finding.details if "would be wrong" in d]
    assert "`strategy='single_device'` would be wrong for a run with `--gpus 1`" in said
    assert "Lightning 1.6.5 gives cuda x1, single_device instead of cuda x1, ddp(" in said


QUOTED = re.compile(r"`(?P<rewrite>[^`]*)` would be wrong for a run with `--(?P<flag>\w+) (?P<word>[^`]+)`")


@given(
    overrides=st.dictionaries(
        st.sampled_from(["accelerator", "distributed_backend", "gpus", "num_processes", "num_nodes"]),
        st.sampled_from(["ddp", "ddp_spawn", "dp", "ddp_cpu", "gpu", 1, 2, 4, None]),
        min_size=1,
        max_size=3,
    ),
    target=st.sampled_from(OLD_TARGETS),
)
@search_settings(150)
def test_a_quoted_command_line_really_breaks_the_quoted_rewrite(
    overrides: dict[str, object], target: str
) -> None:
    """Checked with the model alone: the old call with the namespace's value on some source release and
    machine builds a setup the quoted rewrite does not build on the target."""
    version = release(target)
    said = counterexample(overrides, version, None)  # type: ignore[arg-type]
    if said is None:
        return
    match = QUOTED.match(said)
    assert match is not None, said
    flag, word = match["flag"], match["word"]
    value = argparse_value(flag, word)
    rewrite = eval(f"dict({match['rewrite']})")  # the rewrite as the message writes it (reprs of values)
    old = {flag: value, **overrides}
    new = {flag: value, **rewrite}
    sources = [r for r in RELEASES if r < version]
    broken = False
    for machine in MACHINES:
        built = {comparable(o) for r in sources if isinstance(o := interpret(old, r, machine).outcome, Setup)}
        now = interpret(new, version, machine).outcome
        if len(built) == 1:
            broken |= not isinstance(now, Setup) or comparable(now) not in built
        elif not built:
            broken |= isinstance(now, Setup) and machine in MUST_STILL_FAIL
    assert broken, said


def test_a_namespace_without_old_flags_of_its_own_gets_no_finding() -> None:
    for call in ("Trainer.from_argparse_args(args)", 'Trainer.from_argparse_args(args, strategy="ddp")'):
        source = f"{PARSED}trainer = {call}\n"
        for target in ("1.6", "1.7", "1.9"):
            assert migrate(source, release(target)).findings == []


def test_each_word_is_typed_as_the_1x_parser_types_it() -> None:
    assert ("2", 2) in command_line_values("gpus")
    assert ("0,1", "0,1") in command_line_values("gpus")
    assert ("ddp", "ddp") in command_line_values("accelerator")


# --- 2.0 removed the methods --------------------------------------------------------------------------------

METHODS = (
    PARSED
    + "args = Trainer.parse_argparser(parser)\n"
    + 'trainer = Trainer.from_argparse_args(args, distributed_backend="ddp")\n'
    + "defaults = Trainer.default_attributes()\n"
)


def test_the_removed_methods_are_reported_for_2x_only() -> None:
    result = migrate(METHODS, release("2.6"))
    assert result.code == METHODS
    assert [(f.line, f.code, f.fixable) for f in result.findings] == [
        (5, "LM105", False),
        (7, "LM105", False),
        (8, "LM105", False),
        (9, "LM105", False),
    ]
    assert result.findings[0].message.endswith("; fix with `--shim`")
    assert "`--shim` writes `lightning_migrate.shim.add_argparse_args(...)`" in result.findings[0].details
    assert "inspect.signature(Trainer)" in result.findings[3].message
    assert not [f for f in migrate(METHODS, release("1.9")).findings if f.code == "LM105"]


def test_the_shim_rewrites_them_to_its_functions_and_is_a_fixed_point() -> None:
    result = migrate(METHODS, release("2.6"), shim=True)
    assert result.code == (
        "from argparse import ArgumentParser\n\nfrom pytorch_lightning import Trainer\n"
        "import lightning_migrate.shim\n\n"
        "parser = lightning_migrate.shim.add_argparse_args(ArgumentParser())\n"
        "args = parser.parse_args()\n"
        "args = lightning_migrate.shim.parse_argparser(parser)\n"
        'trainer = lightning_migrate.shim.from_argparse_args(Trainer, args, distributed_backend="ddp")\n'
        "defaults = Trainer.default_attributes()\n"
    )
    assert [f.fixable for f in result.findings] == [True, True, True, False]
    again = migrate(result.code, release("2.6"), shim=True)
    assert again.code == result.code
    assert [f.code for f in again.findings] == ["LM105"]  # default_attributes, which the shim has not


def test_a_subclass_is_named_to_the_shim() -> None:
    source = (
        "import argparse\nimport lightning.pytorch as L\n\n\nclass T(L.Trainer):\n    pass\n\n\n"
        "parser = T.add_argparse_args(argparse.ArgumentParser(), use_argument_group=False)\n"
    )
    out = migrate(source, release("2.6"), shim=True).code
    assert (
        "lightning_migrate.shim.lightning.add_argparse_args(argparse.ArgumentParser(),"
        " use_argument_group=False, trainer_class=T)"
    ) in out


def test_a_file_that_only_adds_the_trainers_options_is_read_for_2x() -> None:
    text = "from pytorch_lightning import Trainer\nTrainer.add_argparse_args(argparse.ArgumentParser())\n"
    assert mentions(text, (release("2.6"),)) is True
    assert mentions(text, (release("1.9"),)) is False


def test_a_keyword_edit_beside_a_namespace_leaves_the_calls_classes_as_written() -> None:
    """Dropping a keyword 1.6 removed is not a rewrite of the call: the strategy object it passes keeps its
    class (renamed alone, `DDPStrategy(num_nodes=...)` would raise in 1.6), as in a LoFTR training script."""
    source = (
        "from pytorch_lightning.plugins import DDPPlugin\n"
        + PARSED
        + "trainer = Trainer.from_argparse_args(\n"
        "    args, plugins=DDPPlugin(num_nodes=args.num_nodes), reload_dataloaders_every_epoch=False\n)\n"
    )
    result = migrate(source, release("1.6"))
    assert "DDPStrategy" not in result.code
    assert "reload_dataloaders_every_epoch" not in result.code
    assert {"LM101", "LM103", "LM007"} <= {f.code for f in result.findings}


def test_the_keywords_of_a_removed_from_argparse_args_call_are_judged_as_in_any_call() -> None:
    """They reach the target's Trainer through the shim's function too: the call is not fixed while it
    passes one the target rejects, and the objects it passes keep their classes where they cannot follow."""
    source = (
        "from pytorch_lightning.plugins import DDPPlugin\n"
        + PARSED
        + "trainer = Trainer.from_argparse_args(\n"
        "    args, plugins=DDPPlugin(num_nodes=2), replace_sampler_ddp=False, weights_summary='full'\n)\n"
    )
    for shim in (False, True):
        result = migrate(source, release("2.6"), shim=shim)
        codes = [(f.code, f.fixable) for f in result.findings if f.line >= 7]
        assert ("LM105", shim) in codes
        assert ("LM007", True) in codes  # replace_sampler_ddp= is use_distributed_sampler=
        # weights_summary='full' has no rename here; the shim's function takes it as 1.5 did (handed to it)
        assert (("LM007", False) in codes) is not shim
        assert "weights_summary='full'" in result.code
        assert ("LM103", False) in codes  # DDPPlugin(num_nodes=...) cannot become DDPStrategy
        assert "use_distributed_sampler=False" in result.code
        assert "DDPPlugin(num_nodes=2)" in result.code
        assert ("lightning_migrate.shim.from_argparse_args(\n    Trainer, args," in result.code) is shim


WRITTEN = """from argparse import ArgumentParser

import pytorch_lightning as pl


def get_parser():
    parser = ArgumentParser()
    parser = pl.Trainer.add_argparse_args(parser)
    parser.set_defaults(gpus=2, max_epochs=10)
    return parser


def main():
    args = get_parser().parse_args()
    if args.gpus > 1:
        args.distributed_backend = "ddp"
    setattr(args, "accelerator", "ddp")
    args.precision = 16
    trainer = pl.Trainer.from_argparse_args(args)
    args.plugins = "ddp_sharded"
    return trainer


def other(args):
    args.accelerator = "ddp"  # (another function's namespace)
    return args
"""


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("1.5", [(16, "LM002"), (17, "LM001")]),
        ("1.9", [(9, "LM004"), (16, "LM002"), (17, "LM001")]),
        ("2.6", [(8, "LM105"), (9, "LM004"), (16, "LM002"), (17, "LM001"), (19, "LM105")]),
    ],
)
def test_a_flag_written_into_the_namespace_is_reported(target: str, expected: list[tuple[int, str]]) -> None:
    """`args.distributed_backend = "ddp"` before `Trainer.from_argparse_args(args)` (paper code of 2020-21)
    reaches the Trainer whatever the command line says: it was never reported (the namespace's own flags are
    Lightning's defaults), and the call breaks on 1.5. Written in the call's function (an attribute,
    `setattr`) or as the file's parser's default, before the call; reported, never fixed (the script may
    read the option too). Not: a value that is the target's own form (`precision=16`), a write after the
    call, another function's namespace."""
    result = migrate(WRITTEN, release(target))
    assert result.code == WRITTEN
    assert [(f.line, f.code) for f in result.findings] == expected
    written = [f for f in result.findings if f.code != "LM105"]
    shim = "use `--shim` or " if target == "2.6" else ""
    said = f"reaches `pl.Trainer.from_argparse_args` (line 19); {shim}change it by hand"
    assert all(said in f.message for f in written)
    assert all(f.remedy == (SHIM if shim else "") for f in written)
    assert not any(f.fixable for f in written)


def test_a_written_flag_is_the_shims_where_it_takes_the_namespace() -> None:
    """With `--shim` at 2.x the namespace goes to the shim's `from_argparse_args`, which takes every old
    flag: nothing is said of the flags written into it."""
    result = migrate(WRITTEN, release("2.6"), shim=True)
    assert [f.code for f in result.findings] == ["LM105", "LM105"]


def test_a_flag_written_at_module_level_into_what_main_is_handed_is_reported() -> None:
    """`args.accelerator = "dp"` under `if __name__ == "__main__":`, then `main(args)`, whose
    `Trainer.from_argparse_args(args)` builds the Trainer (BioinfoMachineLearning/DeepInteract, 2022:
    inference "using Data Parallel" broke on 1.7 unsaid). Not: what another function is handed."""
    source = (
        "from argparse import ArgumentParser\n\nimport pytorch_lightning as pl\n\n\n"
        "def main(args):\n    return pl.Trainer.from_argparse_args(args)\n\n\n"
        "def other(opts):\n    return opts\n\n\n"
        'if __name__ == "__main__":\n'
        "    parser = pl.Trainer.add_argparse_args(ArgumentParser())\n"
        "    args = parser.parse_args()\n"
        '    args.accelerator = "dp"\n'
        "    main(args)\n"
        "    opts = parser.parse_args()\n"
        '    opts.distributed_backend = "ddp"\n'
        "    other(opts)\n"
    )
    findings = migrate(source, release("1.9")).findings
    assert [(f.line, f.code) for f in findings] == [(17, "LM001")]
    assert "reaches `pl.Trainer.from_argparse_args` (line 7)" in findings[0].message
