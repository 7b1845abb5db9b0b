"""Text edits shared by the front ends: a decision made into the call's new arguments (`call`), where new
flags go among old keys (`slots`), the imports a rewrite needs (`imports`, `import_edits`), and LibCST given
only the expressions that change, spliced back into the text (`splice`, `apply`)."""
