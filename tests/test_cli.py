from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lightning_migrate.cli.main import main

ROOT = Path(__file__).parent.parent


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_inspect_shows_every_release_and_how_to_keep_the_behaviour() -> None:
    code, out = run("inspect", 'accelerator="ddp", gpus=2', "--cuda", "4")
    assert code == 0, out
    assert out.startswith('Trainer(accelerator="ddp", gpus=2) on 4 CUDA GPUs')
    assert (
        "1.4.9   cuda [0, 1], strategy ddp(start_method=popen, find_unused_parameters=True)  (source)" in out
    )
    assert "You selected an invalid accelerator name: `accelerator='ddp'`" in out
    assert (
        "to keep the 1.4.9 behaviour:"
        ' Trainer(strategy="ddp_find_unused_parameters_true", accelerator="cuda", devices=2)' in out
    )


def test_inspect_json() -> None:
    code, out = run("inspect", "Trainer(num_processes=2)", "--output-format", "json")
    assert code == 0, out
    (report,) = json.loads(out)
    releases = {row["release"]: row for row in report["releases"]}
    assert report["source"] == "1.4.9"
    assert releases["1.4.9"]["outcome"].startswith("cpu [0, 1], strategy ddp(start_method=spawn")
    assert releases["2.6.6"]["outcome"].startswith("error: TypeError")
    assert releases["2.6.6"]["keep_source_behaviour"] == (
        'Trainer(strategy="ddp_spawn_find_unused_parameters_true", accelerator="cpu", devices=2)'
    )


def test_inspect_a_file_reports_calls_it_cannot_read() -> None:
    code, out = run("inspect", "--file", str(ROOT / "examples" / "train_old.py"), "--cuda", "2")
    assert code == 0, out
    assert "train_old.py:" in out
    assert "not inspected: `args.accelerator` is only known at run time" in out


def test_inspect_a_file_stops_at_a_name_bound_to_itself(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text('gpus = gpus\na = b\nb = a\nTrainer(gpus=gpus)\nTrainer(gpus=a, accelerator="ddp")\n')
    code, out = run("inspect", "--file", str(path))
    assert code == 0, out
    assert "not inspected: `gpus` is only known at run time" in out
    assert "not inspected: `a` is only known at run time" in out


def test_inspect_needs_exactly_one_input() -> None:
    code, out = run("inspect")
    assert code == 2
    assert "give either a CALL or --file PATH" in out


def test_inspect_rejects_a_broken_call() -> None:
    code, out = run("inspect", "accelerator=")
    assert code == 2
    assert "not a Trainer call" in out


def test_source_release_must_parse() -> None:
    code, out = run("inspect", "gpus=2", "--source", "latest")
    assert code == 2
    assert "'latest' is not a release lightning-migrate knows" in out
