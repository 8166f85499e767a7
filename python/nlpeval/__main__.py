"""``python -m nlpeval`` runs the command line."""

import sys

try:
    from nlpeval.cli.main import run
except KeyboardInterrupt:  # Ctrl-C while the command line is still being imported
    sys.stderr.write("nlpeval: interrupted\n")
    raise SystemExit(130) from None

run()
