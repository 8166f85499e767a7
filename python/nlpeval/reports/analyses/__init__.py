"""Analyses of the report: each module computes one section's numbers and formats nothing."""
