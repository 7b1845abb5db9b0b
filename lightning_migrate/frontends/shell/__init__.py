"""Command lines: their words (`words`), which reach the Trainer (`command_line`), their call sites and
edits (`commands`); `frontend` for shell scripts."""
