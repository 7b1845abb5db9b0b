"""A training script written for PyTorch Lightning 1.4, as many still are.

Try: lightning-migrate inspect --file examples/train_old.py --cuda 4
"""

import argparse

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import ModelCheckpoint
from pytorch_lightning.plugins import DDPPlugin
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Regressor(pl.LightningModule):
    def __init__(self, lr: float = 0.1):
        super().__init__()
        self.save_hyperparameters()
        self.layer = nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.layer(x), y)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)


def data():
    generator = torch.Generator().manual_seed(0)
    dataset = TensorDataset(
        torch.randn(256, 8, generator=generator), torch.randn(256, 1, generator=generator)
    )
    return DataLoader(dataset, batch_size=32)


def train_multi_gpu():
    # the classic 1.x idiom: the training type in `accelerator`, the device count in `gpus`
    trainer = pl.Trainer(
        accelerator="ddp",
        gpus=2,
        max_epochs=10,
        callbacks=[ModelCheckpoint(monitor="train_loss")],
    )
    trainer.fit(Regressor(), data())


def train_cpu_processes():
    trainer = pl.Trainer(distributed_backend="ddp_cpu", num_processes=4, max_epochs=1)
    trainer.fit(Regressor(), data())


def train_without_unused_parameter_search():
    trainer = pl.Trainer(gpus=4, plugins=DDPPlugin(find_unused_parameters=False), max_epochs=10)
    trainer.fit(Regressor(), data())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accelerator", default=None)
    parser.add_argument("--gpus", type=int, default=0)
    args = parser.parse_args()
    # values only known at run time: the codemod reports these, the runtime shim handles them
    trainer = pl.Trainer(accelerator=args.accelerator, gpus=args.gpus, max_epochs=1)
    trainer.fit(Regressor(), data())


if __name__ == "__main__":
    main()
