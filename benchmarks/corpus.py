"""Generate a reproducible corpus of Python files for the speed benchmark.

    python benchmarks/corpus.py --files 2000 --seed 0 OUT_DIR

A few percent of the files are training scripts with a deprecated Trainer call (several forms: the training
type in ``accelerator=``, ``distributed_backend=``, ``plugins=DDPPlugin(...)``, ``gpus=``, constants,
``functools.partial``, values only known at run time); about a fifth are already-migrated Lightning code
(modules, data modules, callbacks, and training scripts with ``strategy=``-style calls); a few use another
library's ``Trainer``; the rest is Lightning-free Python of varied size (functions, classes, dataclasses,
comments, docstrings). The same seed gives the same files, byte for byte.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

_PROSE = (
    "alpha beta gamma delta batch cache config data epoch feature grid index item key label layer loader"
    " metric model node offset path query record result sample score shard size state step stream table"
    " token total value vector weight window worker buffer chunk count field frame group limit queue"
    " rate"
)
WORDS = tuple(_PROSE.split())
STDLIB = ("os", "sys", "json", "re", "math", "itertools", "logging", "functools", "collections", "typing")

DEPRECATED_CALLS = (  # (imports the call needs, the call); `{n}` is a device count
    ("", 'pl.Trainer(accelerator="ddp", gpus={n}, max_epochs=10)'),
    ("", 'pl.Trainer(distributed_backend="ddp", gpus={n})'),
    (
        "from pytorch_lightning.plugins import DDPPlugin\n",
        "pl.Trainer(gpus={n}, plugins=DDPPlugin(find_unused_parameters=False))",
    ),
    ("", "pl.Trainer(gpus={n}, max_epochs=5, logger=False)"),
    ("", 'pl.Trainer(accelerator="ddp_cpu", num_processes={n})'),
    ("", 'pl.Trainer(tpu_cores=8, precision="bf16")'),
    (
        "",
        'pl.Trainer(\n        accelerator="ddp_spawn",\n        gpus=[0, 1],  # two cards\n    )',
    ),
    ("", "pl.Trainer(gpus=GPUS, accelerator=BACKEND)"),
    ("import functools\n", 'functools.partial(pl.Trainer, accelerator="ddp", gpus={n})'),
    ("", "pl.Trainer(accelerator=args.accelerator, gpus=args.gpus)"),
    ("", "pl.Trainer.from_argparse_args(args, gpus={n})"),
)
MIGRATED_CALLS = (
    'pl.Trainer(accelerator="gpu", devices={n}, strategy="ddp", max_epochs=10)',
    'pl.Trainer(accelerator="cuda", devices={n}, strategy="ddp_spawn", precision="16-mixed")',
    'pl.Trainer(accelerator="cpu", devices=1, max_epochs=3, logger=False)',
    'pl.Trainer(\n        accelerator="gpu",\n        devices={n},\n        num_nodes=2,\n    )',
    "pl.Trainer(max_epochs=20, callbacks=[pl.callbacks.ModelCheckpoint()])",
    'pl.Trainer(accelerator="auto", devices="auto", strategy="auto", precision="bf16-mixed")',
)


class Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def name(self, parts: int = 2) -> str:
        return "_".join(self.rng.choice(WORDS) for _ in range(parts))

    def cls(self) -> str:
        return "".join(word.title() for word in self.name(2).split("_"))

    def comment(self, indent: str) -> str:
        return f"{indent}# {' '.join(self.rng.choice(WORDS) for _ in range(self.rng.randint(3, 9)))}\n"

    def statement(self, indent: str, depth: int = 0) -> str:
        rng, a, b = self.rng, self.name(1), self.name(1)
        kind = rng.randrange(9 if depth < 2 else 5)
        if kind == 0:
            return f"{indent}{a} = {b} * {rng.randint(2, 99)} + len({self.name(1)})\n"
        if kind == 1:
            return f'{indent}{a} = f"{{{b}}}-{rng.choice(WORDS)}-{{{rng.randint(0, 9)}}}"\n'
        if kind == 2:
            return (
                f"{indent}{a} = [{b} for {b} in range({rng.randint(2, 50)}) if {b} % {rng.randint(2, 7)}]\n"
            )
        if kind == 3:
            return f"{indent}{a} = {{{rng.choice(WORDS)!r}: {b}, {rng.choice(WORDS)!r}: None}}\n"
        if kind == 4:
            return self.comment(indent) + f"{indent}{a}.update({b}={rng.random():.3f})\n"
        body = "".join(self.statement(indent + "    ", depth + 1) for _ in range(rng.randint(1, 3)))
        if kind == 5:
            return f"{indent}for {a} in {b}:\n{body}"
        if kind == 6:
            other = self.statement(indent + "    ", depth + 1)
            return f"{indent}if {a} > {rng.randint(0, 9)}:\n{body}{indent}else:\n{other}"
        if kind == 7:
            handler = (
                f"{indent}except (KeyError, ValueError) as error:\n{indent}    raise RuntimeError({a!r})\n"
            )
            return f"{indent}try:\n{body}{handler}"
        return f"{indent}with open({a}) as {b}:\n{body}"

    def function(self, indent: str = "") -> str:
        args = ", ".join(f"{self.name(1)}: int = {i}" for i in range(self.rng.randint(0, 4)))
        doc = f'{indent}    """{self.name(3).replace("_", " ").capitalize()}."""\n'
        body = "".join(self.statement(indent + "    ") for _ in range(self.rng.randint(2, 12)))
        head = f"{indent}def {self.name()}({'self, ' if indent else ''}{args}) -> object:\n"
        return f"{head}{doc}{body}{indent}    return {self.name(1)}\n\n"

    def klass(self, base: str = "") -> str:
        methods = "".join(self.function("    ") for _ in range(self.rng.randint(1, 5)))
        return (
            f"class {self.cls()}({base}):\n    {self.name(1)}: int = {self.rng.randint(0, 9)}\n\n{methods}\n"
        )

    def plain(self, chunks: int) -> str:
        rng = self.rng
        imports = "".join(f"import {m}\n" for m in sorted(rng.sample(STDLIB, rng.randint(1, 5))))
        parts = [f'"""{self.name(4).replace("_", " ").capitalize()}."""\n\n', imports, "\n"]
        parts += [f"{self.name(1).upper()} = {rng.randint(0, 999)}\n" for _ in range(rng.randint(0, 4))]
        parts.append("\n\n")
        for _ in range(chunks):
            parts.append(self.klass() if rng.random() < 0.3 else self.function())
            if rng.random() < 0.3:
                parts.append(self.comment(""))
        return "".join(parts)

    def lightning_module(self, namespace: str) -> str:
        steps = "".join(
            f"    def {hook}(self, batch, batch_idx):\n        x, y = batch\n"
            f"        loss = torch.nn.functional.mse_loss(self.layer(x), y)\n"
            f'        self.log("{hook}_loss", loss)\n        return loss\n\n'
            for hook in ("training_step", "validation_step")
        )
        module = (
            f"class {self.cls()}(pl.LightningModule):\n    def __init__(self, lr: float = 0.1):\n"
            "        super().__init__()\n        self.save_hyperparameters()\n"
            "        self.layer = torch.nn.Linear(8, 1)\n\n" + steps
        )
        return f"import {namespace} as pl\nimport torch\n\n\n{module}\n"

    def script(self, call: str, imports: str, namespace: str = "pytorch_lightning") -> str:
        n = self.rng.choice((2, 4, 8))
        header = f"{self.lightning_module(namespace)}\nGPUS = {n}\nBACKEND = 'ddp'\n{imports}\n\n"
        body = self.plain(self.rng.randint(1, 6)).split("\n", 2)[2]
        main = f"def main(args):\n    trainer = {call.format(n=n)}\n    return trainer\n"
        return header + body + "\n\n" + main


def generate(out: Path, files: int, seed: int, deprecated: float = 0.03) -> dict[str, int]:
    """Write the corpus under ``out``; return how many files of each kind."""
    rng = random.Random(seed)
    writer = Writer(rng)
    counts: dict[str, int] = {}
    for index in range(files):
        roll = rng.random()
        chunks = int(rng.lognormvariate(0.4, 0.9)) + 1  # most files small, a few large
        if roll < deprecated:
            kind, (imports, call) = "deprecated", rng.choice(DEPRECATED_CALLS)
            text = writer.script(call, imports)
        elif roll < deprecated + 0.05:
            kind = "migrated-trainer"
            text = writer.script(
                rng.choice(MIGRATED_CALLS), "", rng.choice(("lightning.pytorch", "pytorch_lightning"))
            )
        elif roll < deprecated + 0.20:
            kind = "migrated-module"
            text = (
                writer.lightning_module(rng.choice(("lightning.pytorch", "pytorch_lightning")))
                + writer.plain(chunks).split("\n", 2)[2]
            )
        elif roll < deprecated + 0.22:
            kind = "other-trainer"
            text = (
                "from transformers import Trainer, TrainingArguments\n\n"
                + writer.plain(chunks)
                + ('\n\ntrainer = Trainer(args=TrainingArguments("out", per_device_train_batch_size=8))\n')
            )
        else:
            kind, text = "plain", writer.plain(chunks)
        counts[kind] = counts.get(kind, 0) + 1
        path = out / f"pkg_{index % 20:02d}" / f"{kind.replace('-', '_')}_{index:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--deprecated", type=float, default=0.03, help="share of files with a deprecated call"
    )
    args = parser.parse_args()
    counts = generate(args.out, args.files, args.seed, args.deprecated)
    size = sum(p.stat().st_size for p in args.out.rglob("*.py"))
    print(f"{args.files} files, {size / 1e6:.1f} MB in {args.out}: {counts}")


if __name__ == "__main__":
    main()
