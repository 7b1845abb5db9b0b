"""The ``lightning-migrate`` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from . import __version__
from .callparse import Call, parse_arguments, trainer_calls
from .inspection import Report, inspect_call
from .reporting import report
from .runner import auto_target, migrate_file, python_files
from .semantics.model import RELEASES, Hardware, Version, release


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
    lightning-migrate inspect CALL      what each release builds from a Trainer call
    """


def _release(_: click.Context, __: click.Parameter, value: str | None) -> Version | None:
    if value is None or value == "auto":
        return None
    try:
        version = release(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    if not RELEASES[0] <= version <= RELEASES[-1]:
        raise click.BadParameter(f"{value}: lightning-migrate knows releases {RELEASES[0]} to {RELEASES[-1]}")
    return version


@main.command(hidden=True)
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--diff", "mode", flag_value="diff", help="Print a unified diff (for `git apply`); change nothing."
)
@click.option("--check", "mode", flag_value="check", help="Only report; change nothing.")
@click.option(
    "--target-version",
    callback=_release,
    default="auto",
    show_default=True,
    metavar="X.Y|auto",
    help="Lightning release to migrate to (auto: the project's pin, else the installed one, else newest).",
)
@click.option(
    "--source-version",
    callback=_release,
    default=None,
    metavar="X.Y",
    help="Release the code was written for, when its behaviour differs between releases.",
)
@click.option(
    "--unsafe-fixes",
    is_flag=True,
    help="Write the idiomatic modern form even where it adopts a default Lightning changed"
    " (find_unused_parameters, the DDP launcher); each such finding says what changes.",
)
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def migrate(
    paths: tuple[Path, ...],
    mode: str | None,
    target_version: Version | None,
    source_version: Version | None,
    unsafe_fixes: bool,
    output_format: str,
) -> None:
    """Rewrite the deprecated Trainer flags in PATHS (files or directories)."""
    if target_version is None:
        target_version, why = auto_target(paths[0])
        click.echo(f"lightning-migrate: target Lightning {target_version} ({why})", err=True)
    else:
        click.echo(f"lightning-migrate: target Lightning {target_version}", err=True)
    results = [
        migrate_file(path, target_version, source_version, unsafe_fixes) for path in python_files(paths)
    ]
    for result in results:
        if result.changed and mode is None:
            result.path.write_text(result.new, encoding="utf-8")
        elif result.changed and mode == "diff":
            click.echo(result.diff(), nl=False)
    report(results, output_format, to_stderr=mode == "diff")
    errors = any(r.error for r in results)
    work = any(r.findings or r.changed for r in results)
    sys.exit(2 if errors else 1 if work else 0)


def _version(_: click.Context, __: click.Parameter, value: str | None) -> Version | None:
    if value is None:
        return None
    try:
        return Version.parse(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


@main.command()
@click.argument("call", required=False)
@click.option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Inspect every Trainer(...) call in this Python file instead.",
)
@click.option(
    "--cuda", type=click.IntRange(min=0), default=0, show_default=True, help="CUDA GPUs on the machine."
)
@click.option("--tpu", is_flag=True, help="The machine has a TPU (8 cores).")
@click.option("--mps", is_flag=True, help="The machine is an Apple-silicon Mac (MPS).")
@click.option(
    "--source",
    callback=_version,
    metavar="X.Y[.Z]",
    help="Release the call was written for (default: the oldest release that accepts it).",
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
    hardware = Hardware(cuda=cuda, tpu_cores=8 if tpu else 0, mps=mps)
    calls: list[Call | tuple[int, str, str]]
    if path is not None:
        calls = list(trainer_calls(path.read_text(encoding="utf-8")))
        if not calls:
            click.echo(f"{path}: no Trainer(...) call found", err=True)
    else:
        try:
            calls = [Call(0, call or "", parse_arguments(call or ""))]
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="CALL") from exc
    reports: list[Any] = []
    for item in calls:
        if isinstance(item, Call):
            report = inspect_call(item.flags, hardware, RELEASES, source)
            reports.append((item, report))
        else:
            reports.append(item)
    if output_format == "json":
        json.dump([_json(item) for item in reports], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for index, item in enumerate(reports):
            if index:
                click.echo()
            click.echo(_text(item, path))


def _text(item: Any, path: Path | None) -> str:
    if not isinstance(item[0], Call):
        line, text, why = item
        return f"{path}:{line}: {text}\n  not inspected: {why}"
    call, report = item
    where = f"{path}:{call.line}: " if path else ""
    return f"{where}{report.title}\n{report.table()}"


def _json(item: Any) -> dict[str, Any]:
    if not isinstance(item[0], Call):
        line, text, why = item
        return {"line": line, "call": text, "error": why}
    call, report = item
    assert isinstance(report, Report)
    return {"line": call.line or None, "call": call.text, **report.as_dict()}
