"""lightning-migrate: move PyTorch Lightning code off the old hardware/distribution flags."""

__version__ = "0.1.0"
