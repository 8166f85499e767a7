"""Registry entries: one module per metric family, each with a module-level ``ENTRIES`` tuple.

Every module here whose name does not start with ``_`` is read by :mod:`nlpeval.metrics.registry`
(no list to edit). An entry module imports only :mod:`nlpeval.metrics.registry` (and ``_shared``)
at module level: its factories import the metric inside the function, so that building the
command line imports no metric code. See ARCHITECTURE.md, "Adding a metric".
"""
