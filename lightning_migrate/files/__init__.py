"""The files a run reads: discovery with excludes and .gitignore (`files`), source bytes with their encoding,
line ends and final newline (`sourcefile`), and the cheap text test that skips files with nothing to do
(`prefilter`)."""
