"""YAML Trainer configs: what the text says before parsing (`words`), which mappings are Trainer configs
and their values (`read`), the edits (`write`) spliced into the text (`text`); `frontend` drives them."""
