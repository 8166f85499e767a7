"""The ``nlpeval`` command line."""
