"""docs/cli.md's flag tables are the parsers' (regenerate: python -m libscale.cli._docs docs/cli.md)."""

from __future__ import annotations

from conftest import ROOT
from libscale import cli
from libscale.cli import _docs


def test_docs_cli_md_is_up_to_date() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert _docs.render(text) == text, "run: python -m libscale.cli._docs docs/cli.md"


def test_docs_cli_md_covers_every_command_and_exit_status() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command in cli.COMMANDS:
        name = cli.command_name(command)
        assert f"## {name}\n" in text and f"<!-- flags: {name} -->" in text
    for status in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |"):
        assert status in text
