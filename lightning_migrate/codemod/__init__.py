"""The codemod, one pipeline per file (driven by `runner`, one file per worker):

1. front end (`python`): `locate` finds the Trainer calls, their names and imports with `ast`
   (`text` addresses the file the way `ast` does); `values` reads each flag into the model's values;
2. planner (`plan`): the model judges every candidate spelling and picks a rewrite, or says why not;
3. applier: `edit` turns a decision into the smallest LibCST edit of the call, `splice` gives LibCST only
   the expressions and statements that change and puts them back into the text, `imports` makes the
   imports follow.

`callparse` reads a single call written as text (for `inspect`).
"""
