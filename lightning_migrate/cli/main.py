"""The ``lightning-migrate`` command line: ``PATH...`` (the codemod, the default command), ``rules``,
``explain CODE`` and ``inspect CALL``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lightning_migrate import __version__
from lightning_migrate.cli.command import Behaviour, run
from lightning_migrate.cli.config import ConfigError
from lightning_migrate.cli.config import find as find_config
from lightning_migrate.cli.output import FORMATS, STATISTICS_FORMATS
from lightning_migrate.cli.settings import resolve, start_of
from lightning_migrate.semantics.model import RELEASES, Hardware, Version

# (`rules`, `explain` and `inspect` import what only they need when they run: every run pays for what the
# module imports, and most runs are `migrate`)
if TYPE_CHECKING:
    from lightning_migrate.cli.callparse import Call, Unread
    from lightning_migrate.cli.inspection import Report


class _DefaultToMigrate(click.Group):
    """``lightning-migrate PATH...`` runs ``migrate``; subcommands (``inspect``) are named explicitly."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help", "--version"):
            args = ["migrate", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultToMigrate, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lightning-migrate")
def main() -> None:
    """Move PyTorch Lightning code off the old hardware/distribution flags, safely.

    \b
    lightning-migrate PATH...           rewrite in place
    lightning-migrate --diff PATH...    print a unified diff instead
    lightning-migrate --check PATH...   only report
    lightning-migrate rules             the rules and their codes
    lightning-migrate explain CODE      one rule, with an example
    lightning-migrate inspect CALL      what each release builds from a Trainer call

    Run `lightning-migrate migrate --help` for the options of the first three.
    """


@main.command()
@click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, allow_dash=True, path_type=Path)
)
@click.option(
    "--diff",
    is_flag=True,
    help="Print a unified diff (for `git apply`) and the findings; change nothing. With --check too (black's"
    " CI idiom) it does the same: exit 1 when there is work.",
)
@click.option("--check", is_flag=True, help="Only report; change nothing.")
@click.option(
    "--target-version",
    metavar="X.Y|auto",
    help="Lightning release to migrate to (default auto: the project's pin, else the installed release,"
    " else the newest).",
)
@click.option(
    "--source-version",
    metavar="X.Y",
    help="Release the code was written for, when its behaviour differs between releases.",
)
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="Write the idiomatic modern form even where it adopts a default Lightning changed"
    " (find_unused_parameters, the DDP launcher); each such finding says what changes.",
)
@click.option(
    "--shim/--no-shim",
    default=None,
    help="Calls whose flags are only known at run time (LM101) build the runtime shim's Trainer"
    " (lightning_migrate.shim), which migrates them when the Trainer is built.",
)
@click.option("--select", multiple=True, metavar="CODES", help="Report only these codes or prefixes.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Do not report these codes or prefixes.")
@click.option(
    "--exclude",
    multiple=True,
    metavar="PATTERN",
    help="gitignore-style patterns to skip, replacing the defaults (.git, virtualenvs, .tox, build, caches);"
    " repeat the option or separate patterns with commas.",
)
@click.option("--extend-exclude", multiple=True, metavar="PATTERN", help="Patterns to skip as well.")
@click.option(
    "--extend-include",
    multiple=True,
    metavar="PATTERN",
    help="Patterns of files to take from walked folders besides Python, notebooks, YAML and shell scripts"
    " (.py, .pyi, .ipynb, .yaml, .yml, .sh, .bash, .zsh), such as '*.md,*.rst' (Markdown, reST).",
)
@click.option(
    "--force-exclude/--no-force-exclude",
    default=None,
    help="Apply the excludes to files named on the command line too (for pre-commit).",
)
@click.option(
    "--respect-gitignore/--no-respect-gitignore",
    default=None,
    help="Skip what .gitignore files ignore (default: on).",
)
@click.option("--output-format", metavar="|".join(FORMATS), help="Default: text.")
@click.option(
    "--statistics/--no-statistics",
    default=None,
    help="Print each code's count (how many are fixable or fixed, and by which flag) instead of the"
    " findings; text or json.",
)
@click.option(
    "--show-fixes/--no-show-fixes",
    default=None,
    help="List the fixes made (rewrite mode) or that the diff makes, one a line, before the summary.",
)
@click.option(
    "--show-details/--no-show-details",
    default=None,
    help="Print the evidence behind each finding (values that break, machines, releases) under it, in the"
    " text format (json and sarif always carry it).",
)
@click.option(
    "--line-length",
    type=click.IntRange(min=1),
    help="Wrap a call a rewrite makes longer than this, one argument a line (default: the project's ruff or"
    " black line-length, else 88). Calls already over several lines keep their layout.",
)
@click.option(
    "--stdin-filename",
    type=click.Path(path_type=Path),
    help="Name of the file read from `-` (standard input): for messages, configuration and excludes.",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when work is found (errors still exit 2).")
@click.option(
    "--exit-zero-even-if-changed",
    is_flag=True,
    help="Exit 0 when everything found is fixed (or would be); 1 only for findings left.",
)
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Processes to use (default: CPU count).")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the summary.")
@click.option("-v", "--verbose", is_flag=True, help="Say what happened to each file, and why.")
def migrate(
    paths: tuple[Path, ...],
    diff: bool,
    check: bool,
    stdin_filename: Path | None,
    jobs: int | None,
    quiet: bool,
    verbose: bool,
    exit_zero: bool,
    exit_zero_even_if_changed: bool,
    **given: Any,
) -> None:
    """Rewrite the deprecated Trainer flags in PATHS (files or directories; `-` reads standard input).

    \b
    Exit status: 0 nothing to do; 1 deprecated usage found, files changed or findings left; 2 error.
    Every option but -j/-q/-v may also be set in [tool.lightning-migrate] of pyproject.toml, under the
    same name (and per-file-ignores); the command line wins.
    """
    if quiet and verbose:
        raise click.UsageError("-q and -v cannot be used together")
    if Path("-") in paths and len(paths) > 1:
        raise click.UsageError("`-` (standard input) cannot be mixed with other paths")
    try:
        config = find_config(start_of(paths, stdin_filename))
        settings = resolve(config, {key.replace("_", "-"): value for key, value in given.items()})
    except ConfigError as exc:
        click.echo(f"lightning-migrate: error: {exc}", err=True)
        sys.exit(2)
    written = settings["output-format"]
    if settings["statistics"] and written not in STATISTICS_FORMATS:
        raise click.UsageError(f"--statistics is written as {' or '.join(STATISTICS_FORMATS)}, not {written}")
    how = Behaviour(jobs, quiet, verbose, exit_zero, exit_zero_even_if_changed)
    # (--check --diff is --diff: it already changes nothing and exits 1 where there is work; the diff is
    # what the pair asks for in CI, as black prints it)
    mode = "diff" if diff else "check" if check else "rewrite"
    sys.exit(run(paths, mode, settings, stdin_filename, how))


@main.command()
def rules() -> None:
    """List the rules: code, name, whether it is fixed automatically, the releases involved."""
    from lightning_migrate.cli.explain import rules_table

    click.echo(rules_table())


@main.command(name="explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """Explain one rule (its code, such as LM001, or its name), with a before/after example."""
    from lightning_migrate.cli.explain import explain, find_rule

    rule = find_rule(code)
    if rule is None:
        raise click.BadParameter(f"no rule {code!r}; `lightning-migrate rules` lists them", param_hint="CODE")
    click.echo(explain(rule))


def _version(_: click.Context, __: click.Parameter, value: str | None) -> Version | None:
    """A release as ``--target-version`` takes it; ``auto``: the default, the oldest that accepts the call."""
    from lightning_migrate.cli.settings import parse_release

    try:
        return parse_release(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


@main.command()
@click.argument("call", required=False)
@click.option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Inspect every Trainer call in this file instead: Python, a notebook, a YAML Trainer config"
    " (LightningCLI, Hydra), a shell script's command lines, Markdown or reST code blocks.",
)
@click.option(
    "--cuda", type=click.IntRange(min=0), default=0, show_default=True, help="CUDA GPUs on the machine."
)
@click.option("--tpu", is_flag=True, help="The machine has a TPU (8 cores).")
@click.option("--mps", is_flag=True, help="The machine is an Apple-silicon Mac (MPS).")
@click.option(
    "--source",
    callback=_version,
    metavar="X.Y[.Z]|auto",
    help="Release the call was written for (default auto: the oldest release that accepts it).",
)
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def inspect(
    call: str | None,
    path: Path | None,
    cuda: int,
    tpu: bool,
    mps: bool,
    source: Version | None,
    output_format: str,
) -> None:
    """What every Lightning release from 1.4 to 2.6 builds from a Trainer call.

    CALL is the call's arguments, e.g. 'accelerator="ddp", gpus=2', or the whole 'Trainer(...)'. For each
    release it prints the accelerator, devices and strategy (or the error raised), the deprecation
    warnings, and how to write the source release's behaviour in that release.
    """
    if (call is None) == (path is None):
        raise click.UsageError("give either a CALL or --file PATH")
    from lightning_migrate.cli.callparse import Call, parse_arguments
    from lightning_migrate.cli.inspection import inspect_call

    hardware = Hardware(cuda=cuda, tpu_cores=8 if tpu else 0, mps=mps)
    calls: list[Call | Unread]
    if path is not None:
        from lightning_migrate.cli.inspect_files import InspectError, calls_in, cannot_parse

        try:
            calls = calls_in(path, hardware)
        except InspectError as exc:
            click.echo(f"lightning-migrate: error: {cannot_parse(path, exc)}", err=True)
            sys.exit(2)
        if not calls:
            click.echo(f"{path}: no Trainer call, config or command line found", err=True)
    else:
        try:
            calls = [Call(0, call or "", parse_arguments(call or ""))]
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="CALL") from exc
    reports = [
        (item, inspect_call(item.flags, hardware, RELEASES, source))
        if isinstance(item, Call)
        else (item, None)
        for item in calls
    ]
    if output_format == "json":
        import json

        json.dump([_json(item, report) for item, report in reports], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for index, (item, report) in enumerate(reports):
            if index:
                click.echo()
            click.echo(_text(item, report, path))


def _text(item: Call | Unread, report: Report | None, path: Path | None) -> str:
    from lightning_migrate.cli.callparse import Call, Unread

    where = f"{path}:{item.where or item.line}: " if path else ""
    if report is None:
        assert isinstance(item, Unread)
        return f"{where}{item.text}\n  not inspected: {item.why}"
    note = f"\n  note: {item.note}" if isinstance(item, Call) and item.note else ""
    return f"{where}{report.title}{note}\n{report.table()}"


def _json(item: Call | Unread, report: Report | None) -> dict[str, Any]:
    from lightning_migrate.cli.callparse import Call, Unread

    place = {"line": item.line or None, **({"where": item.where} if item.where else {}), "call": item.text}
    if report is None:
        assert isinstance(item, Unread)
        return {**place, "error": item.why}
    note = {"note": item.note} if isinstance(item, Call) and item.note else {}
    return {**place, **note, **report.as_dict()}
