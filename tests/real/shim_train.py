"""A tiny real training run through the shim. Usage: python shim_train.py STRATEGY [ACCELERATOR DEVICES]

Every rank prints ``RESULT rank=.. world_size=.. global_step=.. loss=.. strategy=.. start_method=..`` at the
end of training; rank 0 prints ``DONE`` after ``fit`` returns. ``LM_LIGHTNING_ROOT=lightning.pytorch`` uses
the ``lightning`` package. The ``__main__`` guard matters: ``strategy="ddp"`` re-runs this script per rank.
"""

from __future__ import annotations

import math
import os
import sys
import warnings

warnings.simplefilter("ignore")  # old releases are noisy on torch 2.13; the RESULT lines are the evidence

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

if os.environ.get("LM_LIGHTNING_ROOT") == "lightning.pytorch":
    import lightning.pytorch as pl

    from lightning_migrate.shim.lightning import Trainer
else:
    import pytorch_lightning as pl

    from lightning_migrate.shim import Trainer

from lightning_migrate.semantics import Version  # noqa: E402

OLD = Version.parse(pl.__version__) < Version(1, 5)
QUIET = (
    {"checkpoint_callback": False, "weights_summary": None, "progress_bar_refresh_rate": 0}
    if OLD
    else {"enable_checkpointing": False, "enable_model_summary": False, "enable_progress_bar": False}
)


class Tiny(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.Linear(8, 1)
        self.last_loss = math.nan

    def training_step(self, batch, batch_idx):  # type: ignore[no-untyped-def]
        x, y = batch
        loss = nn.functional.mse_loss(self.layer(x), y)
        self.last_loss = float(loss.detach())
        return loss

    def configure_optimizers(self):  # type: ignore[no-untyped-def]
        return torch.optim.SGD(self.parameters(), lr=0.1)

    def train_dataloader(self):  # type: ignore[no-untyped-def]
        generator = torch.Generator().manual_seed(0)
        data = TensorDataset(torch.randn(64, 8, generator=generator), torch.randn(64, 1, generator=generator))
        return DataLoader(data, batch_size=8)

    def teardown(self, stage=None) -> None:  # type: ignore[no-untyped-def]
        # every rank, spawned ones included, leaves the process group before exiting: a rank that exits
        # while its peer's gloo threads still hold the connection can abort the peer (runtime matrix §6)
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            torch.distributed.barrier()
            torch.distributed.destroy_process_group()

    def on_train_end(self) -> None:
        trainer = self.trainer
        # 1.4/1.5 have no `strategy`; 1.8+ raise on `training_type_plugin`
        strategy = getattr(trainer, "strategy", None) or trainer.training_type_plugin
        print(
            f"RESULT rank={self.global_rank} world_size={trainer.world_size}"
            f" global_step={trainer.global_step} loss={self.last_loss:.6f} strategy={type(strategy).__name__}"
            f" start_method={getattr(strategy, '_start_method', None)}",
            flush=True,
        )


def main() -> None:
    strategy = sys.argv[1]
    accelerator = sys.argv[2] if len(sys.argv) > 2 else "cpu"
    devices = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    trainer = Trainer(
        strategy=strategy,
        accelerator=accelerator,
        devices=devices,
        max_epochs=1,
        limit_train_batches=2,
        logger=False,
        **QUIET,
    )
    trainer.fit(Tiny())
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    if trainer.global_rank == 0:
        print("DONE", flush=True)
    # skip interpreter teardown: torch's gloo/store threads can abort it ("terminate called without an active
    # exception", runtime matrix section 6) after training has succeeded
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
