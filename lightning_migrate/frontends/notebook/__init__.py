"""Jupyter notebooks: JSON with positions (`jsonspan`), code cells migrated as one program."""
