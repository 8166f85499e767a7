"""``python -m nlpeval`` runs the command line."""

import sys

from nlpeval.cli.main import main

sys.exit(main())
