"""One front end per kind of file (`python`, `yaml`, `notebook`, `docs`, `shell`): each turns a file into
call sites, asks the planner, and writes the decided edits back as text (`contract`: what it is asked and
gives back)."""
