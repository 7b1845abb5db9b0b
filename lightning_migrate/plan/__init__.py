"""Call sites to decisions, with the model as judge.

A front end hands each Trainer call over as a ``callsite.CallSite`` (where it is, the flags it passes with
what is known of each value: ``knowledge``, the oldest release it can be written for); ``callsite.Run.decide``
asks ``decide.plan`` and says what the user is told. The planner (``planner``) judges every spelling the model
proposes; a value known only at run time ranges over its flag's domain (``domains``, narrowed by ``ranges``)
and the call is planned over every value (``quantify``); a call no release builds is said in the target's
words (``rejected``); keywords beside the model's are judged by ``gone``. Python is read with ``ast``:
``locate`` finds the Trainer calls by qualified name (``trainers``: which classes build one), ``ast_values``
reads their flags; the other front ends judge their sites through ``site_judge``. ``prefilter`` (with
``readings``) is the planner's cheap view of a file's text: it skips what cannot need migrating.
"""
