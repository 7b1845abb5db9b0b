"""The codemod, one pipeline per file (driven by `runner`, one file per worker):

1. front end (`python`): `locate` finds the Trainer calls, their names and imports with `ast`
   (`text` addresses the file the way `ast` does); `values` reads each flag into the model's values;
2. call sites and the planner: a front end hands each call over as a `callsite.CallSite` (where it is, the
   flags it passes, the oldest release it can be written for); `callsite.Run.decide` asks `plan` (the model
   judges every candidate spelling) and says what the user is told, whatever kind of file the call is in;
3. applier: `edit` turns a decision into the smallest LibCST edit of the call, `splice` gives LibCST only
   the expressions and statements that change and puts them back into the text, `imports` makes the
   imports follow.

`callparse` reads a single call written as text (for `inspect`).
"""
