"""``python -m nlpeval`` runs the command line."""

from nlpeval.cli.main import run

run()
