"""Shared pieces of the neural metrics (BERTScore, COMET, MetricX): optional heavy imports,
local-only model resolution, checkpoint fingerprints and owned tokenisation.

Nothing here imports torch or transformers at import time; nothing here touches the network.
"""
