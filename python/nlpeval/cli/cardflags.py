"""Write the flags the cards list of the commands other than ``score`` (``python -m nlpeval.cli.cardflags``).

The cards (a library module) do not import the command line; they read
``nlpeval/cards/data/cli/<command>.json``, which this module writes from the argument parsers:
for each command other than ``score`` (whose metric flags the cards read from the metric
registry), the flags some card names in its ``[cli]`` table (one file per command, so that
people adding different commands do not touch the same file). ``tests/test_registry.py`` fails
when the file and the parsers differ: run this module after changing such a flag or a card's
``[cli]`` table.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path


def card_flags() -> dict[str, set[str]]:
    """Command -> flags that the cards' ``[cli]`` tables name (``score`` left out), read from the card files."""
    from importlib import resources

    from nlpeval.cards.catalog import tomllib  # tomli on Python 3.10

    wanted: dict[str, set[str]] = {}
    for entry in (resources.files("nlpeval.cards") / "data").iterdir():
        if entry.name.endswith(".toml"):
            for command, flags in tomllib.loads(entry.read_text(encoding="utf-8")).get("cli", {}).items():
                if command != "score":
                    wanted.setdefault(command, set()).update(flags)
    return wanted


def command_flags(command: str) -> dict[str, tuple[str, str]]:
    """Long flag -> (default, help) of a sub-command, as its parser declares them."""
    from nlpeval.cli.main import build_parser

    parser = build_parser([command])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    flags = {}
    for action in sub._actions:
        longs = [s for s in action.option_strings if s.startswith("--")]
        if not longs or isinstance(action, argparse._HelpAction):
            continue
        help_text = " ".join((action.help or "").replace("%%", "%").split())
        if isinstance(action, argparse._StoreTrueAction):
            shown = "off"
        elif action.default is not None:
            shown = str(action.default)
        else:  # None stands for a default the command chooses; its help says which
            stated = re.search(r"\(default:? ([^)]+)\)", help_text)
            shown = stated.group(1) if stated else "none"
        flags[longs[0]] = (shown, help_text)
    return flags


def snapshot() -> dict[str, str]:
    """File name -> text of the files in ``cards/data/cli/``: (default, help) of every flag a card names."""
    files = {}
    for command, wanted in sorted(card_flags().items()):
        known = command_flags(command)
        data = {flag: known[flag] for flag in sorted(wanted) if flag in known}
        files[f"{command}.json"] = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    return files


def main() -> int:
    from nlpeval.cards.options import COMMAND_FLAGS_FOLDER

    folder = Path(__file__).resolve().parents[1] / "cards" / "data" / COMMAND_FLAGS_FOLDER
    folder.mkdir(exist_ok=True)
    files = snapshot()
    for stale in folder.glob("*.json"):
        if stale.name not in files:
            stale.unlink()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files in {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
