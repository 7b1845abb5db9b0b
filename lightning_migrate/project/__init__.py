"""What a run learns across its files before judging a call: the Trainer subclasses its files define
(`subclasses`)."""
