"""Python source: Trainer calls (`frontend`), argparse namespaces handed to the Trainer (`namespaces`),
argument lists of string literals that are command lines (`arglists`), and pieces of Python from notebooks
and documents migrated as one program (`cells`)."""
