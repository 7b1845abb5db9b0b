"""The command line: `lightning-migrate` and its subcommands (`main`), how a run is set up (`command`,
`settings`, `config`: pyproject/ruff-style configuration) and the `explain`, `rules` and `inspect` helpers."""
