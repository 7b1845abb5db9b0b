"""The YAML front end beyond the golden fixtures: bytes the fixtures cannot hold (CRLF, a BOM), what is
never a Trainer config, and a Hydra group file whose rewrite cannot be composed with what it extends."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightning_migrate.frontends.yaml import words as yaml_words
from lightning_migrate.frontends.yaml.frontend import written_since
from lightning_migrate.frontends.yaml.read import load, value_of
from lightning_migrate.frontends.yaml.text import Document
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import process_file
from lightning_migrate.semantics.classes import RENAMED_STRATEGIES
from lightning_migrate.semantics.model import RELEASES, release, v

V26 = Options(v("2.6"))


def migrate(tmp_path: Path, name: str, data: bytes, options: Options = V26) -> tuple[bytes | None, list[str]]:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    result = process_file(path, options)
    assert not result.error, result.error
    return result.data, [f"{f.line}:{f.column}:{f.code}" for f in result.findings]


@pytest.mark.parametrize(("prefix", "newline"), [(b"", b"\r\n"), (b"\xef\xbb\xbf", b"\n"), (b"", b"\r")])
def test_line_ends_and_bom_are_kept(tmp_path: Path, prefix: bytes, newline: bytes) -> None:
    lines = [b"# comment", b"trainer:", b"  gpus: 2  # two", b"  max_epochs: 1", b""]
    data, findings = migrate(tmp_path, "c.yaml", prefix + newline.join(lines))
    want = [b"# comment", b"trainer:", b"  devices: 2  # two", b"  accelerator: cuda"]
    want += [b"  strategy: ddp_spawn_find_unused_parameters_true", b"  max_epochs: 1", b""]
    assert data == prefix + newline.join(want)
    assert findings == ["3:3:LM004"]


def test_a_yaml_file_that_does_not_parse_is_an_error_only_if_it_may_be_a_trainer_config(
    tmp_path: Path,
) -> None:
    template = b"spec:\n  gpus: {{ .Values.gpus }}\n  {{- if .Values.accelerator }}\n"
    assert migrate(tmp_path, "chart/templates/job.yaml", template) == (None, [])
    path = tmp_path / "broken.yaml"
    path.write_bytes(b"trainer:\n  gpus: [2\n  accelerator: ddp\n")
    result = process_file(path, V26)
    assert result.error.startswith("cannot parse YAML")
    assert result.error_line > 0


def test_a_group_file_whose_base_keeps_a_flag_the_rewrite_drops_is_reported(tmp_path: Path) -> None:
    """The sibling sets `devices`; written for 2.6 the child has none: the merge would keep the sibling's."""
    group = tmp_path / "configs" / "trainer"
    group.mkdir(parents=True)
    (group / "default.yaml").write_text("_target_: pytorch_lightning.Trainer\ngpus: 2\n")
    assert migrate(tmp_path, "configs/trainer/cpu.yaml", b"defaults:\n  - default\ngpus: 0\n")[0] is None
    result = process_file(group / "cpu.yaml", V26)
    assert [f.fixable for f in result.findings] == [False]
    assert "would have to be unset" in result.findings[0].message


def test_a_trainer_folder_without_a_lightning_trainer_is_not_read(tmp_path: Path) -> None:
    group = tmp_path / "configs" / "trainer"
    group.mkdir(parents=True)
    (group / "default.yaml").write_text("_target_: transformers.Trainer\n")
    assert migrate(tmp_path, "configs/trainer/gpu.yaml", b"defaults:\n  - default\ngpus: 2\n") == (None, [])


def test_objects_of_unknown_classes_and_interpolated_arguments_are_left(tmp_path: Path) -> None:
    text = b"strategy:\n  _target_: pytorch_lightning.plugins.DDPPlugin\n  find_unused_parameters: ${x}\n"
    data, findings = migrate(tmp_path, "s.yaml", text)
    assert data is None
    assert findings == ["2:13:LM005"]


def test_a_flag_from_a_merged_mapping_that_the_rewrite_keeps_stays_shared(tmp_path: Path) -> None:
    text = b"base: &base\n  num_nodes: 1\ntrainer:\n  <<: *base\n  gpus: 1\n"
    data, findings = migrate(tmp_path, "c.yaml", text)
    assert data == b"base: &base\n  num_nodes: 1\ntrainer:\n  <<: *base\n  devices: 1\n  accelerator: cuda\n"
    assert findings == ["5:3:LM004"]


def test_a_config_whose_only_old_flag_is_a_removed_keyword_is_read(tmp_path: Path) -> None:
    """The word test that lets a YAML file through names every keyword the model reads: a config with
    `replace_sampler_ddp:` alone (2.x rejects it) was skipped unread."""
    data, findings = migrate(tmp_path, "c.yaml", b"trainer:\n  replace_sampler_ddp: false\n  max_epochs: 1\n")
    # (1.x built the CPU Trainer for no device flag at all; 2.x would pick a GPU: the rewrite says `cpu`)
    assert data == b"trainer:\n  use_distributed_sampler: false\n  accelerator: cpu\n  max_epochs: 1\n"
    assert findings == ["2:3:LM007"]


# Every way ruamel.yaml fails to read a file: a duplicate key, syntax, a tab, a tag its constructors cannot
# build, a YAML version it does not know, lists nested deeper than Python recurses.
UNREADABLE = {
    "duplicate key": b"plugins:\n  - search\nplugins:\n  - tags\n",
    "syntax": b"devices: [1, 2\n",
    "tab": b"devices:\n\t- 1\n",
    "bad int": b"devices: !!int abc\n",
    "bad timestamp": b"devices: !!timestamp 2020-99-99\n",
    "bad bool": b"devices: !!bool maybe\n",
    "version": b"%YAML 1.3\n---\ndevices: 1\n",
    "undefined alias": b"devices: *gpus\n",
    "deep": b"devices: " + b"[" * 3000 + b"]" * 3000 + b"\n",
    "control character": b"devices: \x07\n",
}


@pytest.mark.parametrize("body", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_a_yaml_file_without_a_trainer_config_that_cannot_be_read_is_no_error(
    tmp_path: Path, body: bytes
) -> None:
    """(`mkdocs.yml` of a Lightning project: its name says lightning, its nav says Trainer.)"""
    assert migrate(
        tmp_path, "mkdocs.yml", b"site_name: lightning-thing\nnav:\n  - Trainer: t.md\n" + body
    ) == (
        None,
        [],
    )


@pytest.mark.parametrize("body", UNREADABLE.values(), ids=UNREADABLE.keys())
@pytest.mark.parametrize(
    "head",
    [b"trainer:\n  max_epochs: 1\n", b"model:\n  _target_: pytorch_lightning.plugins.DDPPlugin\n"],
    ids=["trainer config", "plugin object"],
)
def test_a_yaml_file_with_a_trainer_config_that_cannot_be_read_is_an_error(
    tmp_path: Path, head: bytes, body: bytes
) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(head + body)
    assert process_file(path, V26).error.startswith("cannot parse YAML")


# PyYAML's `safe_load` reads a duplicate key (the last value wins): graphium's configs, read so, repeat a
# data loader's option beside a `trainer:` section, and every one of them was an error (a modern project).
DUPLICATES_APART = {
    "in a section": b"data:\n  workers: 1\n  workers: 2\n",
    "a section beside the trainer's": b"architecture:\n  a: 1\narchitecture:\n  b: 2\n",
    "in a list": b"tasks:\n  - name: a\n    name: b\n",
}


@pytest.mark.parametrize("body", DUPLICATES_APART.values(), ids=DUPLICATES_APART.keys())
def test_a_duplicate_key_apart_from_the_trainer_config_is_read(tmp_path: Path, body: bytes) -> None:
    data, findings = migrate(tmp_path, "config.yaml", b"trainer:\n  gpus: 0\n" + body)
    assert data == b"trainer:\n  accelerator: cpu\n" + body
    assert findings == ["2:3:LM004"]
    assert migrate(tmp_path, "modern.yaml", b"trainer:\n  accelerator: cpu\n" + body) == (None, [])


# where the first value and the last may differ for the Trainer, the file is an error as before
DUPLICATES_NEAR = {
    "a flag": b"trainer:\n  gpus: 2\n  gpus: 1\n",
    "any key of the trainer's": b"trainer:\n  gpus: 1\n  max_epochs: 1\n  max_epochs: 2\n",
    "the trainer section": b"trainer:\n  max_epochs: 1\ntrainer:\n  gpus: 1\n",
    "a section holding it": b"model:\n  trainer:\n    gpus: 1\nmodel:\n  x: 1\n",
    "a class's": b"trainer:\n  gpus: 1\nx:\n  _target_: a.B\n  y: 1\n  y: 2\n",
    "a root without a trainer section": b"_target_: pytorch_lightning.Trainer\ngpus: 1\nx: 1\nx: 2\n",
}


@pytest.mark.parametrize("body", DUPLICATES_NEAR.values(), ids=DUPLICATES_NEAR.keys())
def test_a_duplicate_key_that_may_matter_to_the_trainer_is_an_error(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(body)
    assert process_file(path, V26).error.startswith("cannot parse YAML: found duplicate key")


def test_a_yaml_file_in_another_encoding_is_an_error_only_if_it_holds_a_trainer_config(
    tmp_path: Path,
) -> None:
    assert migrate(tmp_path, "docs/mkdocs.yml", b"site_name: caf\xe9\nplugins:\n  - search\n") == (None, [])
    path = tmp_path / "config.yaml"
    path.write_bytes(b"trainer:\n  gpus: 2\n  name: caf\xe9\n")
    assert process_file(path, V26).error.startswith("cannot decode")


def test_a_trainer_group_file_is_judged_by_its_siblings_even_unread(tmp_path: Path) -> None:
    group = tmp_path / "configs" / "trainer"
    group.mkdir(parents=True)
    (group / "default.yaml").write_text("_target_: pytorch_lightning.Trainer\ngpus: 0\n")
    (group / "gpu.yaml").write_bytes(b"defaults:\n  - default\ngpus: 1\ngpus: 2\n")
    assert process_file(group / "gpu.yaml", V26).error.startswith("cannot parse YAML")


def test_a_file_that_cannot_hold_a_trainer_config_is_not_parsed(tmp_path: Path) -> None:
    """No `trainer`, `Trainer`, `*Plugin` or trainer group: nothing the front end reads can be in it."""
    assert not yaml_words.may_hold("devices: [1, 2\n", Path("c.yaml"))
    assert yaml_words.may_hold("gpus: 2\n", Path("configs/trainer/c.yaml"))
    assert all(name.endswith(yaml_words.PLUGIN_ENDING) for name in RENAMED_STRATEGIES)


def test_unknown_tags_in_a_trainer_config_are_values_known_only_at_run_time(tmp_path: Path) -> None:
    text = b"trainer:\n  accelerator: !Ref Accelerator\n  gpus: 2\n  plugins: !Custom {a: 1}\n"
    data, findings = migrate(tmp_path, "c.yaml", text)
    assert (data, findings) == (None, ["2:3:LM101"])
    result = process_file(tmp_path / "c.yaml", V26)
    assert "`accelerator: !Ref Accelerator` carries a tag" in result.findings[0].message
    # `!!str` is YAML's own: the string, as PyYAML reads it
    assert value_of(load("devices: !!str 2\n")[0]["devices"]) == "2"


@pytest.mark.parametrize(
    ("trainer", "findings"),
    [
        ("precision: 16-mixed", []),  # 2.0's spelling: merged into any trainer config, not a 1.x config
        ("precision: 16", ["5:3:LM101"]),  # 1.x's too: the trainer config may hold `accelerator: ddp`
        ("gpus: 4", ["5:3:LM101"]),
    ],
)
def test_an_experiment_is_for_the_releases_that_build_its_own_flags(
    tmp_path: Path, trainer: str, findings: list[str]
) -> None:
    """No trainer group to tell which package the project builds its Trainer from: its own flags tell."""
    text = f"# @package _global_\ndefaults:\n  - override /model: mnist\ntrainer:\n  {trainer}\n"
    assert migrate(tmp_path, "configs/experiment/e.yaml", text.encode()) == (None, findings)


def test_written_since() -> None:
    assert written_since({"precision": "16-mixed", "max_epochs": 1}) == release("2.0")
    assert written_since({"precision": 16}) == RELEASES[0]  # (on GPUs: the merged config may choose them)
    assert written_since({"strategy": "ddp"}) == release("1.5")


def test_a_comment_moves_with_the_flag_that_takes_its_place_in_a_crlf_file(tmp_path: Path) -> None:
    text = b"trainer:\r\n  # DDP\r\n  accelerator: ddp  # multi gpu\r\n  gpus: 2\r\n  plugins:\r\n"
    text += b"  - class_path: pytorch_lightning.plugins.DDPPlugin\r\n"
    text += b"    init_args: {find_unused_parameters: true}\r\n"
    data, _ = migrate(tmp_path, "c.yaml", text, Options(v("1.6")))
    want = b"trainer:\r\n  gpus: 2\r\n  # DDP\r\n  strategy:  # multi gpu\r\n"
    want += b"    class_path: pytorch_lightning.strategies.DDPStrategy\r\n"
    want += b"    init_args: {find_unused_parameters: true}\r\n"
    assert data == want


def test_a_file_header_stays_and_a_dropped_flag_takes_its_own_lines(tmp_path: Path) -> None:
    """`# @package` opens the file: it introduces no entry. `auto_select_gpus` goes with nothing in its
    place: its line goes whole, the comment line above it stays."""
    text = b"# @package _global_\naccelerator: ddp  # multi\n_target_: pytorch_lightning.Trainer\n"
    text += b"gpus: 2\nplugins:\n- _target_: pytorch_lightning.plugins.DDPPlugin\n"
    data, _ = migrate(tmp_path, "c.yaml", text, Options(v("1.6")))
    assert data == (
        b"# @package _global_\n_target_: pytorch_lightning.Trainer\ngpus: 2\nstrategy:  # multi\n"
        b"  _target_: pytorch_lightning.strategies.DDPStrategy\n"
    )
    text = b"trainer:\n  # pick free GPUs\n  auto_select_gpus: false  # pick\n  gpus: 0\n  max_epochs: 1\n"
    data, _ = migrate(tmp_path, "d.yaml", text)
    assert data == b"trainer:\n  # pick free GPUs\n  accelerator: cpu\n  max_epochs: 1\n"


def test_a_comment_inside_a_value_that_goes_is_not_lost(tmp_path: Path) -> None:
    text = b"trainer:\n  gpus: 2\n  accelerator: ddp\n  plugins:\n"
    text += b"    # sharded\n    - ddp_sharded  # fairscale\n"
    data, _ = migrate(tmp_path, "c.yaml", text, Options(v("1.6")))
    assert data == b"trainer:\n  gpus: 2\n  # sharded\n  # fairscale\n  strategy: ddp_sharded\n"
    quoted = b"trainer:\n  gpus: 2\n  accelerator: ddp\n  plugins:\n    - 'ddp_sharded'  # fairscale\n"
    assert migrate(tmp_path, "d.yaml", quoted, Options(v("1.6")))[0] is None


@pytest.mark.parametrize(
    ("text", "indent"),
    [
        ("trainer:\n  a: 1\n", 2),
        ("trainer:\n    a: 1\n    b:\n    - x: 1\n      init_args:\n          c: 1\n", 4),
        ("a: 1\n", 2),
        ("- init_args:  # args\n     c: 1\n", 3),
    ],
)
def test_the_indent_of_a_file(text: str, indent: int) -> None:
    assert Document(text).indent() == indent
