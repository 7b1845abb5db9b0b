"""What a run learns across its files before judging a call: the Trainer subclasses its files define
(`subclasses`), and what a script's parser defines, across modules, and where its options go
(`script_options`)."""
