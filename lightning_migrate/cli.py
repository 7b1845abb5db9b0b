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
from .semantics.model import RELEASES, Hardware, Version


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lightning-migrate")
def main() -> None:
    """Move PyTorch Lightning code off the old hardware/distribution flags, safely."""


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
