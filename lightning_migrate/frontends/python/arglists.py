"""Command lines written in Python: an argument list of string literals (``subprocess.run(["python",
"train.py", "--gpus", "2"])``, ``parser.parse_args(["--gpus", "2"])``, ``LightningCLI(args=[...])``) or a
string split into one (``"--fast_dev_run --gpus 1 --accelerator ddp".split()``). Their words are read as a
command line is (``command_line``); an argument list a file's own parser reads reaches the Trainer where that
file builds its parser with ``Trainer.add_argparse_args``. The rewrite is written element by element (a split
string is written again, its words joined by spaces)."""

from __future__ import annotations

import ast
import difflib
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

from lightning_migrate.files.text import Text, spliced
from lightning_migrate.frontends.shell.command_line import options, read
from lightning_migrate.frontends.shell.commands import Found, decide_site
from lightning_migrate.frontends.shell.words import Command, Word
from lightning_migrate.plan.callsite import Run

RUNNERS = frozenset({"run", "call", "check_call", "check_output", "Popen", "parse_args", "parse_known_args"})
PARSERS = frozenset({"parse_args", "parse_known_args"})


@dataclass(frozen=True)
class ArgList:
    node: ast.List | ast.Tuple | ast.Constant  # the list display, or the string that is split
    elements: tuple[ast.Constant, ...]  # the list's elements (empty for a split string)
    words: tuple[str, ...]
    parsed_here: bool  # read by this file's own parser (`parse_args`)


def arg_lists(tree: ast.Module) -> Iterator[ArgList]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name == "split" and isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
            value = node.func.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                yield ArgList(value, (), tuple(value.value.split()), False)
            continue
        candidates = []
        if name in RUNNERS and node.args:
            candidates.append(node.args[0])
        candidates += [k.value for k in node.keywords if k.arg == "args"]
        for candidate in candidates:
            constants = [e for e in getattr(candidate, "elts", ()) if isinstance(e, ast.Constant)]
            if (
                isinstance(candidate, (ast.List, ast.Tuple))
                and len(constants) == len(candidate.elts)
                and all(isinstance(e.value, str) and e.value.strip() for e in constants)
            ):
                elements = tuple(constants)
                words = tuple(str(e.value) for e in elements)
                if all(len(w.split()) == 1 for w in words):
                    yield ArgList(candidate, elements, words, name in PARSERS)
            elif isinstance(candidate, ast.Call) and name in PARSERS:
                inner = candidate.func
                if isinstance(inner, ast.Attribute) and inner.attr == "split":
                    value = inner.value
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        yield ArgList(value, (), tuple(value.value.split()), True)


def migrate_arg_lists(source: str, tree: ast.Module, run: Run) -> tuple[str, Found]:
    """``source`` with its argument lists migrated, and what was found."""
    text = Text(source)
    found = Found()
    trainer_parser = "add_argparse_args" in source
    seen: set[int] = set()
    edits: list[tuple[int, int, str]] = []
    for arg_list in arg_lists(tree):
        if id(arg_list.node) in seen:
            continue
        seen.add(id(arg_list.node))
        view = " ".join(arg_list.words)
        starts = _word_starts(arg_list.words)
        command = Command([Word(s, s + len(w), w) for s, w in zip(starts, arg_list.words)])
        sites = read(command, view, None)
        if arg_list.parsed_here:
            own = options(command.words, view, "argparse")
            own.reaches, own.script = trainer_parser, "this file's parser"
            sites += [own] if own.entries else []

        def locate(offset: int, arg_list: ArgList = arg_list, starts: list[int] = starts) -> tuple[int, int]:
            if not arg_list.elements:
                return text.position(arg_list.node)
            index = max(i for i, start in enumerate(starts) if start <= offset)
            return text.position(arg_list.elements[index])

        site_found = Found()
        for site in sites:
            decide_site(site, view, locate, run, site_found)
        found.findings += site_found.findings
        if not site_found.edits:
            continue
        new_words = tuple(shlex.split(spliced(view, site_found.edits)))
        edits += _list_edits(arg_list, new_words, text)
    return spliced(source, edits), found


def _word_starts(words: tuple[str, ...]) -> list[int]:
    starts, at = [], 0
    for word in words:
        starts.append(at)
        at += len(word) + 1
    return starts


def _literal(node: ast.Constant, text: Text, value: str) -> str:
    quote = text.segment(node)[:1]
    quote = quote if quote in ("'", '"') else '"'
    return quote + value.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote


def _list_edits(arg_list: ArgList, words: tuple[str, ...], text: Text) -> list[tuple[int, int, str]]:
    if not arg_list.elements:
        node = arg_list.node
        assert isinstance(node, ast.Constant)
        return [(text.start(node), text.end(node), _literal(node, text, " ".join(words)))]
    elements = arg_list.elements
    edits: list[tuple[int, int, str]] = []
    matcher = difflib.SequenceMatcher(a=arg_list.words, b=words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        new = [_literal(elements[max(i1 - 1, 0)], text, w) for w in words[j1:j2]]
        if i1 < i2:  # replace or delete elements i1..i2
            start = text.start(elements[i1])
            end = text.end(elements[i2 - 1])
            if not new:  # delete, with the comma before (or after, for the first element)
                if i1 > 0:
                    start = text.end(elements[i1 - 1])
                elif i2 < len(elements):
                    end = text.start(elements[i2])
            edits.append((start, end, ", ".join(new)))
        else:  # insert after element i1 - 1
            at = text.end(elements[i1 - 1]) if i1 > 0 else text.start(elements[0])
            joined = ", ".join(new)
            edits.append((at, at, f", {joined}" if i1 > 0 else f"{joined}, "))
    return edits
