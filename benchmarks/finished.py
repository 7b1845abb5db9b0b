#!/usr/bin/env python3
"""Whole projects finished (issue 24): rewrite a copy of each project, then count what is left.

    python benchmarks/finished.py lightning-migrate TREE --target 2.6 [--unsafe-shim] --out RESULT.json

TREE holds one folder per project (``benchmarks/projects.py`` fetches the census corpus); nothing is fetched
here, and a missing TREE is said and exits 0. The projects are copied to ``--scratch`` and never written
in place.

For each folder TREE/<project>: copy it to a scratch folder (no .git), count old Trainer forms per kind
of file, run `EXE <target flags> --extend-include '*.sh,*.md,*.rst' .` (rewrite in place, in the
copy), then `EXE --check --output-format json ...` for the findings left, count old forms again, and
check that every file that parsed before (Python, notebook JSON + its code cells, YAML) still parses.

A project is *finished* when no finding is left and no old Trainer form is left in its .py files, nor any of
LightningCLI's API the target removed (`cli`: imports of `<root>.utilities.cli`, LightningCLI keywords the
target rejects; counted apart from the Trainer's forms).

Old forms (for the target): training type in `accelerator=`/`distributed_backend=`/`plugins=` (all targets
>= 1.5), `*Plugin` training-type classes (>= 1.6), `gpus=`/`tpu_cores=`/`num_processes=`/`ipus=` (>= 1.7).
Python and notebooks: keywords of calls named `Trainer`/`from_argparse_args` (ast), except those
that build the runtime shim's Trainer (handed to the shim). YAML: such keys, except in a file whose
`_target_` is the shim's Trainer (`--shim` wrote it: its keys are handed to the shim).
Shell and docs: such command-line words (`--gpus`, `trainer.gpus=`, `--distributed_backend`, ...) and, in
docs, also `keyword=` inside code; except the words of a command line that runs a script handed to the shim
(the script, or a module of the project it imports, names `lightning_migrate.shim`: `--shim` made it build
the shim's Trainer or `from_argparse_args`), and a Hydra override (`trainer.gpus=`) of a script whose config
folder holds a Trainer config with the shim's `_target_`. What is handed to the shim is counted apart
(``handed``), not as an old form left.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

TRAINING_TYPES = {
    "dp",
    "ddp",
    "ddp2",
    "ddp_spawn",
    "ddp_cpu",
    "horovod",
    "ddp_sharded",
    "ddp_sharded_spawn",
    "deepspeed",
    "tpu_spawn",
    "single_device",
    "ddp_fully_sharded",
    "fsdp",
}
PLUGIN_CLASSES = {
    "DDPPlugin",
    "DDPSpawnPlugin",
    "DDP2Plugin",
    "DataParallelPlugin",
    "HorovodPlugin",
    "DDPShardedPlugin",
    "DDPSpawnShardedPlugin",
    "DeepSpeedPlugin",
    "TPUSpawnPlugin",
    "SingleDevicePlugin",
    "DDPFullyShardedPlugin",
    "SingleTPUPlugin",
    "FullyShardedDataParallelPlugin",
    "IPUPlugin",
}
DEVICE_FLAGS = ("gpus", "tpu_cores", "num_processes", "ipus")
SHIM = "lightning_migrate.shim"  # calls that build the shim's Trainer are handed to it
# a YAML file whose `_target_` is the shim's Trainer: its keys are handed to the shim
SHIM_TARGET = re.compile(r"""^\s*_target_\s*:\s*["']?lightning_migrate\.shim\.(lightning\.)?Trainer""", re.M)
SKIP_DIRS = {".git", ".venv", "venv", ".tox", "__pycache__", "node_modules"}


def version(target: str) -> tuple[int, int]:
    major, minor = target.split(".")[:2]
    return int(major), int(minor)


def flags_for(target: str) -> set[str]:
    flags = {"distributed_backend"}
    if version(target) >= (1, 7):
        flags |= set(DEVICE_FLAGS)
    return flags


def old_in_call(call: ast.Call, target: str) -> int:
    count = 0
    flags = flags_for(target)
    for kw in call.keywords:
        if kw.arg in flags or (
            kw.arg == "accelerator"
            and isinstance(kw.value, ast.Constant)
            and kw.value.value in TRAINING_TYPES
        ):
            count += 1
        elif kw.arg == "plugins":
            text = ast.unparse(kw.value)
            if any(re.search(rf"['\"]{t}", text) for t in TRAINING_TYPES) or (
                version(target) >= (1, 6) and any(c in text for c in PLUGIN_CLASSES)
            ):
                count += 1
    return count


def call_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def python_old(source: str, target: str) -> int | None:
    """Old forms in the file's Trainer calls; a call that builds the runtime shim's Trainer
    (``lightning_migrate.shim.Trainer(...)``, or a name imported from it) is handed to the shim, not old."""
    counted = python_counts(source, target)
    return None if counted is None else counted[0]


def python_counts(source: str, target: str) -> tuple[int, int] | None:
    """(old forms, old forms handed to the shim) in the file's Trainer calls; None: it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    shimmed = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(SHIM)
        for alias in node.names
    }
    old = handed = 0
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and call_name(n) in ("Trainer", "from_argparse_args"):
            if _shimmed(n, shimmed):
                handed += old_in_call(n, target)
            else:
                old += old_in_call(n, target)
    return old, handed


# LightningCLI's API the target removed (written apart from the codemod's tables, from the releases' source):
# `<root>.utilities.cli` (gone in 1.9), `auto_registry=` (1.9) and the keywords 2.0 no longer takes.
CLI_ROOTS = ("pytorch_lightning", "lightning.pytorch")
CLI_GONE = {
    "auto_registry": (1, 9),
    "save_config_filename": (2, 0),
    "save_config_overwrite": (2, 0),
    "save_config_multifile": (2, 0),
    "description": (2, 0),
    "env_prefix": (2, 0),
    "env_parse": (2, 0),
}


def cli_counts(source: str, target: str) -> int:
    """Old LightningCLI API in a Python file, for the target: each import of `<root>.utilities.cli` (1.9 on),
    and each keyword the target rejects in a call of Lightning's LightningCLI, of a subclass the file
    defines, or of `super().__init__` in one (a file that imports LightningCLI from Lightning)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return 0
    old_modules = {f"{root}.utilities.cli" for root in CLI_ROOTS}
    lightning = {f"{root}.{m}" for root in CLI_ROOTS for m in ("cli", "utilities.cli")}
    count = 0
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in old_modules and version(target) >= (1, 9):
            count += 1
        if isinstance(node, ast.Import) and version(target) >= (1, 9):
            count += sum(a.name in old_modules for a in node.names)
        if isinstance(node, ast.ImportFrom) and node.module in lightning:
            names |= {a.asname or a.name for a in node.names if a.name == "LightningCLI"}
    if not names:
        return count
    classes = set(names)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
            isinstance(b, ast.Name) and b.id in classes for b in node.bases
        ):
            classes.add(node.name)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        named = isinstance(func, ast.Name) and func.id in classes
        init = isinstance(func, ast.Attribute) and func.attr == "__init__" and "super" in ast.unparse(func)
        if named or init:
            count += sum(1 for k in node.keywords if k.arg in CLI_GONE and version(target) >= CLI_GONE[k.arg])
    return count


def _shimmed(call: ast.Call, names: set[str]) -> bool:
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.attr == "from_argparse_args"
    ):
        func = func.value  # `Trainer.from_argparse_args(...)` of the shim's Trainer
    return ast.unparse(func).startswith(SHIM) or (isinstance(func, ast.Name) and func.id in names)


def notebook_cells(text: str) -> list[str] | None:
    try:
        nb = json.loads(text)
    except ValueError:
        return None
    cells = nb.get("cells") or [c for ws in nb.get("worksheets", []) for c in ws.get("cells", [])]
    out = []
    for c in cells:
        if c.get("cell_type") == "code":
            src = c.get("source", c.get("input", ""))
            src = "".join(src) if isinstance(src, list) else src
            lines = [("pass" if ln.lstrip().startswith(("%", "!")) else ln) for ln in src.splitlines()]
            out.append("\n".join(lines))
    return out


def yaml_pattern(target: str) -> re.Pattern[str]:
    keys = "|".join(sorted(flags_for(target)))
    types = "|".join(sorted(TRAINING_TYPES))
    return re.compile(
        rf"^\s*(?:-\s+)?(?:({keys})\s*:|accelerator\s*:\s*['\"]?({types})['\"]?\s*(?:#.*)?$)", re.M
    )


def words_pattern(target: str) -> re.Pattern[str]:
    keys = "|".join(sorted(flags_for(target)))
    types = "|".join(sorted(TRAINING_TYPES))
    return re.compile(
        rf"(?:--({keys})\b|\+?trainer\.({keys})=|(?:--|\btrainer\.)accelerator[= ]['\"]?({types})\b)"
    )


# The script a command line runs: `python train.py`, `python -m pkg.train` (the first one on the line)
_SCRIPT = re.compile(r"\bpython[\d.]*\b(?:\s+-[A-Za-z]\w*)*?\s+(?:-m\s+([\w.]+)|([\w./${}-]+\.py))")
_VARIABLE = re.compile(r"^(?:\$\{?\w+\}?/)+")  # `${REPO_PATH}/tasks/train.py`: looked for as `tasks/train.py`
_HYDRA_MAIN = re.compile(r"@\s*(?:hydra\.)?main\s*\(([^)]*)\)", re.S)
_CONFIG_PATH = re.compile(r"config_path\s*=\s*[\"']([^\"']*)[\"']")
_IMPORTS = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.M)


def command_lines(text: str) -> list[str]:
    """The text's lines, a command continued with `\\` joined into one."""
    return re.sub(r"\\\r?\n", " ", text).splitlines()


def _script(line: str, here: Path, root: Path) -> Path | None:
    """The project's Python file a command line runs, looked for from the file's folder up to the root."""
    found = _SCRIPT.search(line)
    if found is None:
        return None
    name = _VARIABLE.sub("", found.group(2)) if found.group(2) else found.group(1).replace(".", "/") + ".py"
    if "$" in name:
        return None
    for folder in [here, *here.parents]:
        candidate = folder / name
        if candidate.is_file():
            return candidate
        if folder == root or root not in folder.parents:
            break
    return None


def _module_files(script: Path, text: str, root: Path) -> list[Path]:
    """The project's modules a script imports (one level), looked for from its folder and the root."""
    found = []
    for match in _IMPORTS.finditer(text):
        dotted = (match.group(1) or match.group(2)).replace(".", "/")
        for base in (script.parent, root):
            for candidate in (base / f"{dotted}.py", base / dotted / "__init__.py"):
                if candidate.is_file():
                    found.append(candidate)
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def handed_script(script: Path, root: Path, hydra: bool) -> bool:
    """Are the Trainer flags a command line gives ``script`` handed to the runtime shim? Its own text or a
    module of the project it imports names the shim; for a Hydra override (``hydra``), a Trainer config of
    its `@hydra.main` config folder has the shim's `_target_`."""
    text = _read(script)
    if hydra:
        main = _HYDRA_MAIN.search(text)
        config_path = _CONFIG_PATH.search(main.group(1)) if main else None
        if config_path is None:
            return False
        folder = (script.parent / config_path.group(1)).resolve()
        if not folder.is_dir():
            return False
        return any(
            SHIM_TARGET.search(_read(config))
            for config in folder.rglob("*")
            if config.suffix in (".yaml", ".yml")
        )
    return any(SHIM in _read(path) for path in [script, *_module_files(script, text, root)])


# A container runner's command (`docker run --gpus all IMAGE ...`, `--gpus '"device=0"'`): its own options,
# up to the script the container runs (if the line names one), are the runner's, not a Trainer's.
_CONTAINER = re.compile(r"\b(?:nvidia-docker|docker|podman)\s+(?:container\s+)?(?:run|create|exec)\b")


def trainer_part(line: str) -> str:
    """The part of a command line whose words may be a Trainer's: past a container runner's own options (the
    script the container runs and what follows it; nothing where the line names no script)."""
    runner = _CONTAINER.search(line)
    if runner is None:
        return line
    script = _SCRIPT.search(line, runner.end())
    return line[script.start() :] if script is not None else ""


def words_counts(text: str, target: str, path: Path, root: Path) -> tuple[int, int]:
    """(old command-line words, those handed to the shim) of a shell script or document."""
    old = handed = 0
    pattern = words_pattern(target)
    for line in command_lines(text):
        words = pattern.findall(trainer_part(line))
        if not words:
            continue
        script = _script(line, path.parent, root)
        for word in words:
            hydra = bool(word[1])  # `trainer.gpus=`
            if script is not None and handed_script(script, root, hydra):
                handed += 1
            else:
                old += 1
    return old, handed


def docs_code_pattern(target: str) -> re.Pattern[str]:
    keys = "|".join(sorted(flags_for(target)))
    return re.compile(rf"\b(?:{keys})\s*=\s*[^=\s]")


def kind_of(path: Path) -> str | None:
    suffix = path.suffix.lower()
    return {
        ".py": "py",
        ".ipynb": "ipynb",
        ".yaml": "yaml",
        ".yml": "yaml",
        ".sh": "sh",
        ".md": "md",
        ".rst": "md",
    }.get(suffix)


def count_file(path: Path, target: str, root: Path | None = None) -> tuple[str, int, int, bool] | None:
    """(kind, old forms, old forms handed to the shim, parses) for one file of the project at ``root``;
    None for other files."""
    kind = kind_of(path)
    if kind is None:
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if kind == "py":
        counted = python_counts(text, target)
        return kind, *(counted or (0, 0)), counted is not None
    if kind == "ipynb":
        cells = notebook_cells(text)
        if cells is None:
            return kind, 0, 0, False
        counts = [python_counts(c, target) or (0, 0) for c in cells]
        return kind, sum(c[0] for c in counts), sum(c[1] for c in counts), True
    if kind == "yaml":
        n = len(yaml_pattern(target).findall(text))
        return (
            (kind, 0, n, yaml_parses(text)) if SHIM_TARGET.search(text) else (kind, n, 0, yaml_parses(text))
        )
    n, handed = words_counts(text, target, path, root or path.parent)
    if kind == "md":
        code = docs_code_pattern(target)
        runners = [line[: len(line) - len(trainer_part(line))] for line in command_lines(text)]
        n += len(code.findall(text)) - sum(len(code.findall(runner)) for runner in runners)
    return kind, n, handed, True


def yaml_parses(text: str) -> bool:
    from ruamel.yaml import YAML  # (a dependency of lightning-migrate)

    try:
        list(YAML(typ="safe", pure=True).load_all(text))
        return True
    except Exception:  # any error means "does not parse"
        return False


def walk(folder: Path):
    for path in sorted(folder.rglob("*")):
        if any(part in SKIP_DIRS for part in path.relative_to(folder).parts):
            continue
        if path.is_file() and not path.is_symlink():
            yield path


def census(folder: Path, target: str) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for path in walk(folder):
        got = count_file(path, target, folder)
        if got is not None:
            kind, n, handed, ok = got
            out[str(path.relative_to(folder))] = {"kind": kind, "old": n, "handed": handed, "parses": ok}
            if (
                kind == "py"
            ):  # (LightningCLI's API apart: not a Trainer form, but a file that fails as surely)
                old = cli_counts(path.read_text(encoding="utf-8", errors="replace"), target)
                out[f"{path.relative_to(folder)}#cli"] = {
                    "kind": "cli",
                    "old": old,
                    "handed": 0,
                    "parses": True,
                }
    return out


def run(cmd: list[str], cwd: Path, timeout: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=False, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def measure(exe: str, src: Path, scratch: Path, target: str, extra: list[str], timeout: int) -> dict:
    work = scratch / src.name
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(src, work, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    before = census(work, target)
    flags = [
        "--target-version",
        target,
        "--extend-include",
        "*.sh",
        "--extend-include",
        "*.md",
        "--extend-include",
        "*.rst",
        *extra,
    ]
    t0 = time.time()
    rewrite = run([exe, *flags, "."], work, timeout)
    seconds = time.time() - t0
    check = run([exe, "--check", "--output-format", "json", *flags, "."], work, timeout)
    after = census(work, target)
    try:
        findings = json.loads(check.stdout or "[]")
    except ValueError:
        findings = [{"code": "UNPARSED", "path": "", "message": check.stdout[:200]}]
    broken = [p for p, b in before.items() if b["parses"] and not after.get(p, {"parses": False})["parses"]]
    per_kind_before = collections.Counter()
    per_kind_after = collections.Counter()
    for counted in before.values():
        per_kind_before[counted["kind"]] += counted["old"]
    handed = collections.Counter()
    for counted in after.values():
        per_kind_after[counted["kind"]] += counted["old"]
        handed[counted["kind"]] += counted["handed"]
    shutil.rmtree(work)
    return {
        "project": src.name,
        "rewrite_rc": rewrite.returncode,
        "check_rc": check.returncode,
        "stderr": (rewrite.stderr + check.stderr)[-400:],
        "seconds": round(seconds, 2),
        # (a file the tool could not process is an entry with `error` and no `code`: counted as ERROR)
        "findings": dict(collections.Counter(f.get("code", "ERROR") for f in findings)),
        "left": [
            [
                f.get("path", ""),
                f.get("line", 0),
                f.get("code", "ERROR"),
                (f.get("message") or f.get("error", ""))[:300],
            ]
            for f in findings
        ],
        "before": dict(per_kind_before),
        "after": dict(per_kind_after),
        "handed": dict(handed),  # old forms after the run that the runtime shim takes (not left)
        "left_files": sorted(p for p, counted in after.items() if counted["old"]),
        "broken": broken,
        "finished": not findings and per_kind_after["py"] == 0 and per_kind_after["cli"] == 0,
    }


def summary(results: list[dict]) -> str:
    kinds = ("py", "yaml", "ipynb", "md", "sh", "cli")
    before = collections.Counter()
    after = collections.Counter()
    codes = collections.Counter()
    handed = collections.Counter()
    for r in results:
        before.update(r["before"])
        after.update(r["after"])
        handed.update(r.get("handed", {}))
        codes.update(r["findings"])
    lines = [
        f"projects: {len(results)}; finished: {sum(r['finished'] for r in results)}; "
        f"files broken: {sum(len(r['broken']) for r in results)}; "
        f"runs exiting 2: {sum(r['rewrite_rc'] == 2 or r['check_rc'] == 2 for r in results)}",
        "old forms before -> after: " + ", ".join(f"{k} {before[k]} -> {after[k]}" for k in kinds),
        "handed to the runtime shim after: " + ", ".join(f"{k} {handed[k]}" for k in kinds),
        "findings left by code: " + ", ".join(f"{c} {n}" for c, n in sorted(codes.items())),
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("exe")
    ap.add_argument("root", type=Path)
    ap.add_argument("--target", default="2.6")
    ap.add_argument("--unsafe-shim", action="store_true")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/finish_scratch"))
    args = ap.parse_args()
    if not args.root.is_dir():
        print(f"no tree of projects at {args.root}: nothing measured", file=sys.stderr)
        return
    extra = ["--unsafe-fixes", "--shim"] if args.unsafe_shim else []
    args.scratch.mkdir(parents=True, exist_ok=True)
    projects = sorted(p for p in args.root.iterdir() if p.is_dir() and (not args.only or p.name in args.only))
    results = []
    for project in projects:
        try:
            results.append(measure(args.exe, project, args.scratch, args.target, extra, args.timeout))
        except subprocess.TimeoutExpired:
            results.append(
                {
                    "project": project.name,
                    "rewrite_rc": "timeout",
                    "check_rc": "timeout",
                    "stderr": "",
                    "seconds": args.timeout,
                    "findings": {"TIMEOUT": 1},
                    "before": {},
                    "after": {},
                    "handed": {},
                    "broken": [],
                    "finished": False,
                }
            )
        r = results[-1]
        print(
            f"{r['project']}: finished={r['finished']} findings={r['findings']} "
            f"before={r['before']} after={r['after']} broken={r['broken']}",
            file=sys.stderr,
            flush=True,
        )
    args.out.write_text(json.dumps(results, indent=1))
    text = summary(results)
    args.out.with_suffix(".txt").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
