"""System-comparison reports: the model (:mod:`.model`), the analyses, the builder and the renderers.

``nlpeval.report(...)`` (in :mod:`nlpeval.reports.build`) returns a :class:`~nlpeval.reports.model.Report`.
"""
