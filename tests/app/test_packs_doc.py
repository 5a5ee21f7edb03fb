"""docs/PACKS.md's pack check tables are the command's output on the packs as they are."""

from __future__ import annotations

from voicecoach.app import packs_doc


def test_the_pack_check_tables_in_packs_md_are_current() -> None:
    text = packs_doc.DOC.read_text(encoding="utf-8")
    part = packs_doc.generated()
    assert "| intent prior | ok |" in part and "voicecoach pack check strike_team" in part
    assert packs_doc.rewrite(text, part) == text, f"docs/PACKS.md is stale: run {packs_doc.COMMAND}"
