"""The metrics, one package or module each."""
