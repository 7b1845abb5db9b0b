"""Bounded memory and time on a tree of old projects (issue 23): the word test decides which notebooks are
parsed, results come in path order as soon as they can, --check keeps no texts, JSON streamed as
``json.dumps`` writes it, and the JSON reader's strings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import BROKEN, CLEAN, FIXABLE, UNFIXABLE, run
from hypothesis import given
from hypothesis import strategies as st

from lightning_migrate.cli.output import Stream
from lightning_migrate.cli.summary import summary
from lightning_migrate.files import word_test
from lightning_migrate.frontends.notebook import frontend as notebook
from lightning_migrate.frontends.notebook import jsonspan
from lightning_migrate.plan.callsite import Run
from lightning_migrate.plan.prefilter import FLAG_WORDS
from lightning_migrate.run import file_kinds as kinds
from lightning_migrate.run import runner
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import FileResult, _InOrder
from lightning_migrate.semantics.model import Version

TARGET = ("--target-version", "2.6")
OPTIONS = Options(Version.parse("2.6"))


def _notebook(
    code: list[str], markdown: str = "# Title\n", outputs: str = "", language: str = "python"
) -> str:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [markdown]}]
    cells += [
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "outputs": [{"output_type": "stream", "name": "stdout", "text": [outputs]}],
            "source": [source],
        }
        for source in code
    ]
    metadata = {"kernelspec": {"display_name": "k", "language": language, "name": "k"}}
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the notebooks read by the JSON reader with positions (the expensive reading)."""
    calls: list[int] = []

    def counted(text: str) -> jsonspan.Node:
        calls.append(len(text))
        return jsonspan.parse(text)

    monkeypatch.setattr(notebook, "parse", counted)
    return calls


# --- which notebooks are parsed -----------------------------------------------------------------------------

WORDS_OUTSIDE_CODE = _notebook(
    ["import torch\nx = torch.ones(2)\n"],
    markdown="Set `gpus=2` and `strategy='ddp'` on the Trainer.\n",
    outputs="GPU available: True, used: True\nprecision=16, devices=2\n",
)


def test_a_notebook_with_flag_words_only_outside_its_code_is_not_parsed(
    tmp_path: Path, parses: list[int]
) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text(WORDS_OUTSIDE_CODE)
    assert kinds.BY_SUFFIX[".ipynb"].candidate(WORDS_OUTSIDE_CODE)  # (the raw text passes the words)
    result = runner.process_file(path, OPTIONS)
    assert (result.findings, result.error, result.changed) == ([], "", False)
    assert parses == []


@pytest.mark.parametrize(
    "text",
    [
        _notebook(["import pytorch_lightning as pl\ntrainer = pl.Trainer(gpus=1)\n"]),
        _notebook(["!python train.py --gpus 2\n"]),
        # an unused suppression is reported (LM900): the words are elsewhere, the noqa in the code
        _notebook(["x = 1  # noqa: LM001\n"], markdown="gpus=2\n"),
        # what the prefilter passes without a flag word: a removed Trainer method, a ** dict
        _notebook(
            ["import pytorch_lightning as pl\npl.Trainer.from_argparse_args(args)\n"], markdown="gpus\n"
        ),
        _notebook(["import pytorch_lightning as pl\npl.Trainer(**cfg)\n"], markdown="gpus\n"),
    ],
)
def test_a_notebook_whose_code_may_hold_something_is_parsed(
    tmp_path: Path, parses: list[int], text: str
) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text(text)
    runner.process_file(path, OPTIONS)
    assert len(parses) == 1


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            json.dumps({"cells": ["gpus=2"], "metadata": {}, "nbformat": 4}),
            "malformed notebook: cell 1 is not a JSON object",
        ),
        (
            json.dumps(
                {"cells": [{"cell_type": "code", "source": 3}], "metadata": {"x": "gpus"}, "nbformat": 4}
            ),
            "malformed notebook: cell 1's `source` is neither text nor a list of lines",
        ),
        ('{"cells": [], "metadata": {"gpus": NaN}}', "cannot parse the notebook's JSON"),
        ('{"cells": [], "gpus": 1', "cannot parse the notebook's JSON"),
        (json.dumps({"cells": [], "metadata": {"x": "gpus"}}), "unsupported notebook format: no `nbformat`"),
        (
            json.dumps({"nbformat": 3, "worksheets": [{"cells": [5]}], "metadata": {"x": "gpus"}}),
            "malformed notebook: cell 1 is not a JSON object",
        ),
    ],
)
def test_a_notebook_the_plain_reading_cannot_vouch_for_is_parsed_and_reported(
    tmp_path: Path, parses: list[int], text: str, error: str
) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text(text)
    result = runner.process_file(path, OPTIONS)
    assert result.error.startswith(error)
    assert len(parses) == 1


def test_another_kernels_notebook_is_not_parsed(tmp_path: Path, parses: list[int]) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text(_notebook(["trainer = Trainer(gpus=2)\n"], language="julia"))
    assert runner.process_file(path, OPTIONS).findings == []
    assert parses == []


def test_deeply_nested_json_is_left_to_the_reader_with_positions() -> None:
    deep = {"cells": [], "metadata": {"gpus": [[[[0]]]]}, "nbformat": 4}
    value: object = 0
    for _ in range(notebook.PLAIN_JSON_DEPTH + 1):
        value = [value]
    run26 = Run(Version.parse("2.6"))
    assert notebook.nothing_to_find(json.dumps(deep), run26)
    assert not notebook.nothing_to_find(json.dumps({"cells": [], "outputs": value, "nbformat": 4}), run26)


# --- the word test's shortcut -------------------------------------------------------------------------------


def test_the_words_are_found_where_a_case_blind_search_finds_them() -> None:
    kind = kinds.BY_SUFFIX[".yaml"]
    assert kind.words is not None
    filler = "lorem ipsum dolor " * 20_000
    for text in (
        filler,
        filler + "GPUS: 2",
        filler + "Trainer:\n  Num_Nodes: 2",
        "num_node\u017f: 2",  # a long s: the case-blind search takes it for an s
        "\u212aeep: gpu\u017f",
        "max_steps : null",
        "max_steps: 10",
        filler + "\u0130 precision",
        "",
    ):
        assert kind.candidate(text) == (kind.words.search(text) is not None), text[-30:]


def test_every_alternative_starts_with_a_word_the_shortcut_looks_for() -> None:
    stems = word_test._stems(FLAG_WORDS)
    assert stems is not None
    assert {"gpus", "plugin", "pl_trainer_", "max_steps", "reload_dataloaders_every_epoch"} <= set(stems)
    assert "null" not in stems  # (a nested group's alternative does not start a match)
    assert word_test._stems(re.compile(r"(?:ab|c(?:d|e))x|\s+y", re.I)) is None  # no word: no shortcut
    assert word_test._stems(re.compile(r"(?:ab|c(?:d|e))x|z\|w|q[|(]y", re.I)) == ("ab", "c", "q", "z")
    assert word_test.first_start(re.compile(r"\s+y", re.I), "no y here") == 0


@pytest.mark.parametrize(
    "text",
    [
        "x gpus y plugins z",  # the later word is found first in the stems' order
        "plugins gpus",
        "gpu gpus",  # a word that is another's start, at the bound
        "ab gpusgpus",
        "gpu",  # a word cut short at the end of the text
        "nothing here " * 1000,
        "Max_Steps then GPUS",
        "l\u00e9 gpus",  # not ASCII, no special character
        "\u017f gpus",  # a special character: 0, the search decides
        # not ASCII: found in the UTF-8 bytes, told in characters
        "\u00e9\u00e9 \u4e2d\u6587 GPUS \U0001f600 plugins",
        "\U0001f600" * 50 + " Accelerator " + "\u00df" * 3 + " gpus",
        "\u00c9T\u00c9 PLUGIN",  # upper-case letters beyond ASCII lowered apart
        "\u4e2d\u6587 nothing here",
        "\udcff\udc80 gpus",  # undecodable bytes read with surrogateescape
        "gp\u00fcs plugin\u00e9",  # a word broken by a letter beyond ASCII
        "\u0130 gpus",  # capital I with a dot, in UTF-8 bytes C4 B0
        "\u212a gpus",  # the Kelvin sign, E2 84 AA
    ],
)
def test_the_first_start_is_the_earliest_word_of_all(text: str) -> None:
    """``first_start`` looks for each word only before the earliest found so far: the answer is the earliest
    of all the words, wherever each one is."""
    stems = word_test._stems(FLAG_WORDS)
    assert stems is not None
    found = [at for at in (text.lower().find(stem) for stem in stems) if at >= 0]
    special = word_test._CASE_SPECIAL.search(text) is not None
    assert word_test.first_start(FLAG_WORDS, text) == (0 if special else min(found, default=None))


def test_the_special_characters_are_every_one_a_case_blind_search_takes_for_an_ascii_letter() -> None:
    letter = re.compile("[a-z]", re.IGNORECASE)
    found = {
        chr(code)
        for code in range(128, 0x110000)
        if not 0xD800 <= code <= 0xDFFF
        and (letter.fullmatch(chr(code)) or len(chr(code).lower()) != 1 or chr(code).lower().isascii())
    }
    assert found == set("\u0130\u0131\u017f\u212a")
    assert all(word_test._CASE_SPECIAL.fullmatch(char) for char in found)


# --- the JSON reader's strings ------------------------------------------------------------------------------

_OLD_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


@given(st.text(alphabet='"\\ab\n\u00e9', max_size=40))
def test_strings_match_as_they_did(text: str) -> None:
    for at in range(len(text)):
        old, new = _OLD_STRING.match(text, at), jsonspan._STRING.match(text, at)
        assert (old and old.span()) == (new and new.span())


@given(st.recursive(st.text() | st.integers() | st.none(), lambda inner: st.lists(inner, max_size=4)))
def test_the_reader_reads_what_json_writes(value: object) -> None:
    assert jsonspan.parse(json.dumps(value)).value == value


# --- results in order, as soon as they can be ---------------------------------------------------------------


def test_results_are_given_as_soon_as_those_before_them_are() -> None:
    a, b, c = Path("a.py"), Path("b.py"), Path("c.py")
    ordered = _InOrder([a, b, c, a])
    ordered.add(FileResult(c))
    assert list(ordered.ready()) == []
    ordered.add(FileResult(a))
    assert [r.path for r in ordered.ready()] == [a]
    ordered.add(FileResult(b))
    assert [r.path for r in ordered.ready()] == [b, c, a]  # (a path named twice: its result twice)


def test_a_run_gives_each_result_before_it_migrates_the_next_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [tmp_path / f"m{index}.py" for index in range(4)]
    for path in paths:
        path.write_text(FIXABLE)
    migrated: list[Path] = []

    def counted(
        path: Path, options: Options, data: bytes | None = None, cleared: bool | None = None
    ) -> FileResult:
        migrated.append(path)
        return _PROCESS_FILE(path, options, data, cleared)

    monkeypatch.setattr(runner, "process_file", counted)
    for index, result in enumerate(runner.process_each(paths, OPTIONS, jobs=1)):
        assert result.path == paths[index]
        assert migrated == paths[: index + 1]


_PROCESS_FILE = runner.process_file


@pytest.mark.parametrize("args", [("--check", "--output-format", "json"), ("--diff",), ("--check",)])
def test_several_workers_give_the_output_of_one_in_its_order(tmp_path: Path, args: tuple[str, ...]) -> None:
    for index in range(16):
        source = (FIXABLE, UNFIXABLE, CLEAN, BROKEN)[index % 4]
        (tmp_path / f"m{index:02}.py").write_text(source * (1 + index % 3))
    (tmp_path / "n.ipynb").write_text(_notebook(["import pytorch_lightning as pl\npl.Trainer(gpus=1)\n"]))
    serial = run(*args, *TARGET, "-j", "1", str(tmp_path))
    pooled = run(*args, *TARGET, "-j", "3", str(tmp_path))
    assert (pooled.code, pooled.out, pooled.err) == (serial.code, serial.out, serial.err)
    assert "m15.py" in serial.out + serial.err


def test_streamed_json_is_what_json_dumps_writes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(FIXABLE)
    (tmp_path / "b.py").write_text(BROKEN)
    (tmp_path / "c.ipynb").write_text(_notebook(["import pytorch_lightning as pl\npl.Trainer(gpus=1)\n"]))
    (tmp_path / "d.py").write_text(UNFIXABLE)
    out = run("--check", "--output-format", "json", *TARGET, str(tmp_path)).out
    rows = json.loads(out)
    assert out == json.dumps(rows, indent=2) + "\n"
    assert [row.get("error", "") != "" for row in rows][-1]  # (errors after the findings)
    assert any("cell" in row for row in rows)
    assert run("--check", "--output-format", "json", *TARGET, str(tmp_path / "b.py")).out.startswith("[\n")
    (tmp_path / "e.py").write_text(CLEAN)
    assert run("--check", "--output-format", "json", *TARGET, str(tmp_path / "e.py")).out == "[]\n"


def test_check_keeps_no_texts_but_knows_what_would_change(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    kept = runner.process_file(path, OPTIONS)
    told = runner.process_file(path, Options(Version.parse("2.6"), texts=False))
    assert (kept.changed, kept.data is not None, kept.new != "") == (True, True, True)
    assert (told.changed, told.data, told.before, told.new) == (True, None, b"", "")
    assert told.findings == kept.findings
    let_go = kept.let_go()
    assert (let_go.changed, let_go.data, let_go.new) == (True, None, "")


def test_the_report_keeps_only_the_results_that_say_something(tmp_path: Path) -> None:
    """Clean files are counted, not held to the end (the parent's memory does not grow with them); -v, which
    says each file's fate, keeps them."""
    results = [FileResult(tmp_path / f"clean{index}.py") for index in range(3)]
    results.append(FileResult(tmp_path / "broken.py", error="cannot parse"))
    results.append(FileResult(tmp_path / "noqa.py", suppressed=1))
    stream = Stream("text", "check", to_stderr=False, live=False)
    for result in results:
        stream.add(result)
    assert [r.path.name for r in stream.results] == ["broken.py", "noqa.py"]
    assert stream.plain == 3
    assert summary(stream.results, "check", stream.plain) == summary(results, "check")
    assert "in 5 files" in summary(results, "check")
    kept = Stream("text", "check", to_stderr=False, live=False, keep_plain=True)
    for result in results:
        kept.add(result)
    assert (kept.results, kept.plain) == (results, 0)


def test_a_run_counts_the_clean_files_it_does_not_keep(tmp_path: Path) -> None:
    for index in range(4):
        (tmp_path / f"clean{index}.py").write_text(CLEAN if index % 2 else "x = 1\n")
    outcome = run("--check", *TARGET, str(tmp_path))
    assert (outcome.code, outcome.out) == (0, "")
    assert "No deprecated Trainer flags in 4 files." in outcome.err
    verbose = run("--check", "-v", *TARGET, str(tmp_path))
    assert sum(f"clean{index}.py: " in verbose.err for index in range(4)) == 4, verbose.err


# --- the walk's .gitignore answers, the planner's memory ---------------------------------------------------

_IGNORES = [
    "*.pyc",
    "build/",
    "/dist",
    "!keep.py",
    "docs/**/x",
    "foo/*.txt",
    "# a comment",
    "",
    "[ab]?.py",
    "\\#hash",
    "logs/**",
    "!logs/keep/",
    "*.P?",
    "(?P<ps_d>x",  # a pattern that looks like pathspec's own group, escaped by it
]
_ENTRIES = [
    "a.py",
    "a.pyc",
    "x/b.pyc",
    "build/",
    "build",
    "src/build/",
    "dist",
    "src/dist",
    "keep.py",
    "x/keep.py",
    "docs/a/b/x",
    "docs/x",
    "foo/a.txt",
    "foo/b/a.txt",
    "ab.py",
    "a1.py",
    "#hash",
    "logs/a/b.py",
    "logs/keep/",
    "logs/keep/x.py",
    "m.PY",
    "(?P<ps_d>x",
    "",
]


@pytest.mark.parametrize("lines", [_IGNORES, [], ["# only a comment"], ["*"], ["!*.py", "*.py"]])
def test_a_spec_answers_as_pathspec_does_before_and_after_its_patterns_are_joined(lines: list[str]) -> None:
    import pathspec

    from lightning_migrate.files import discovery

    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    quick = discovery._Spec(spec)
    for _ in range(2):  # (the second time round, the patterns are joined)
        for entry in _ENTRIES * (discovery.QUICK_AFTER // len(_ENTRIES) + 1):
            assert quick.decision(entry) == spec.check_file(entry).include, entry
    assert quick.any is not None


def test_the_closest_template_is_the_first_that_breaks_fewest() -> None:
    """``quantify._closest`` stops judging a template once it breaks as many cases as the best so far: the
    same template and cases as judging each one whole."""
    from lightning_migrate.plan import quantify
    from lightning_migrate.plan.knowledge import RunTime

    target = Version.parse("2.6")
    gpus = RunTime("gpus", "args.gpus", (None, 0, 1, 2, "1", [0, 1]))
    flags = {"gpus": gpus, "accelerator": "ddp"}
    cases = quantify._cases(flags, {"gpus": gpus}, target, None, False, Version.parse("1.4"), _no_planner)
    assert not isinstance(cases, quantify.Refusal)
    templates = quantify._templates(flags, {"gpus": gpus}, cases, target, False)
    judged = [(t, quantify._broken(t, cases, target)) for t in templates]
    assert len(judged) > 3
    assert len({len(broken) for _, broken in judged}) > 1  # (the templates break different numbers)
    assert quantify._closest(templates, cases, target) == min(judged, key=lambda pair: len(pair[1]))
    assert quantify._closest([], cases, target) is None


def _no_planner(*args: object, **kwargs: object) -> object:
    raise AssertionError("not asked")


def test_remembered_answers_are_the_answers() -> None:
    """The planner's memory of behaviours and candidates gives what working them out again gives, and a
    list of candidates of the caller's own."""
    from lightning_migrate.plan import planner

    sources = tuple(r for r in planner.RELEASES if r < Version.parse("2.6"))
    for flags in ({"gpus": 2, "accelerator": "ddp"}, {"gpus": True}, {"gpus": 1.0}, {"gpus": 1}):
        behaviour = planner._behaviour(flags, sources)
        assert behaviour == planner._behaviour_of(flags, sources)
        if isinstance(behaviour, planner.Refusal):  # (`gpus=True`: no release builds it)
            continue
        first = planner._candidates(dict(flags), behaviour[0], Version.parse("2.6"))
        assert first == planner._candidates_of(dict(flags), behaviour[0], Version.parse("2.6"), False)
        first.clear()
        assert planner._candidates(dict(flags), behaviour[0], Version.parse("2.6"))
    # `1`, `True` and `1.0` are equal in Python, not to Lightning: each is its own question
    keys = [k for k in planner._BEHAVIOURS if k[0][0][0] == "gpus" and len(k[0]) == 1]
    assert {k[0][0][1] for k in keys} >= {"True", "1.0", "1"}


def test_a_diff_keeps_only_the_diff(tmp_path: Path) -> None:
    """--diff: a changed file's result carries its diff, not its texts (it may wait in the main process for
    the results of every path before it); the diff is the one the texts give."""
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    kept = runner.process_file(path, OPTIONS)
    only = runner.process_file(path, Options(Version.parse("2.6"), only_diffs=True))
    assert (only.changed, only.data, only.before, only.new) == (True, None, b"", "")
    assert only.patch is not None
    assert only.diff() == kept.diff() != b""
    assert only.findings == kept.findings
    assert only.let_go().patch is None
    assert only.changed
    path.write_text(CLEAN)
    assert runner.process_file(path, Options(Version.parse("2.6"), only_diffs=True)).patch is None
