"""The files a run reads: discovery with excludes and .gitignore (`discovery`), source bytes with their
encoding, line ends and final newline (`sourcefile`), a text addressed the way `ast` addresses it (`text`),
a Python tree refused where it is nested too deep (`depth`), the raw-text lexer the prefilter finds
calls with (`scan`), and a run's temporary folder (`scratch`)."""
