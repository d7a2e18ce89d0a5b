#!/usr/bin/env python3
"""Write the CLI reference in docs/CLI.md from ``evalsieve.cli.build_parser()``.

    python3 tools/cli_reference.py            rewrite the generated part of docs/CLI.md
    python3 tools/cli_reference.py --check    exit 1 (and say so) when it differs

The reference is argparse's own help of ``evalsieve`` and of each subcommand, at a fixed
width of 100 columns, between the BEGIN/END markers below; the rest of docs/CLI.md is
written by hand. tests/py/test_docs.py fails when the file and the parser differ.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

DOC = ROOT / "docs" / "CLI.md"
BEGIN = "<!-- BEGIN GENERATED CLI REFERENCE: python3 tools/cli_reference.py -->"
END = "<!-- END GENERATED CLI REFERENCE -->"
WIDTH = 100


def _fixed_width(parser: argparse.ArgumentParser) -> None:
    """Format `parser` (and its subparsers) at WIDTH columns, whatever the terminal."""
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=WIDTH)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _fixed_width(sub)


def render() -> str:
    """The generated reference: one ``###`` section per command with its help text."""
    from evalsieve.cli import build_parser

    parser = build_parser()
    _fixed_width(parser)
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parts = [
        BEGIN,
        "",
        f"Generated from `evalsieve.cli.build_parser()` (argparse of Python "
        f"{sys.version_info.major}.{sys.version_info.minor}); do not edit by hand.",
        "",
        "### evalsieve",
        "",
        "```",
        parser.format_help().rstrip(),
        "```",
    ]
    for name, sub in subs.choices.items():
        parts += ["", f"### evalsieve {name}", "", "```", sub.format_help().rstrip(), "```"]
    parts += ["", END]
    return "\n".join(parts)


def current(text: str) -> str:
    """The generated part of docs/CLI.md's `text`, markers included.

    Raises:
        ValueError: the markers are missing or out of order.
    """
    a, b = text.find(BEGIN), text.find(END)
    if a < 0 or b < a:
        raise ValueError(f"{DOC.name} has no {BEGIN!r} ... {END!r} block")
    return text[a : b + len(END)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/CLI.md differs")
    args = ap.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    want = render()
    if current(text) == want:
        return 0
    if args.check:
        print(
            f"{DOC.relative_to(ROOT)} differs from build_parser(): run "
            "python3 tools/cli_reference.py",
            file=sys.stderr,
        )
        return 1
    DOC.write_text(text.replace(current(text), want), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
