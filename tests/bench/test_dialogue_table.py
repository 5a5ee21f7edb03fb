"""`voicecoach bench dialogue`'s table: a question asked back is counted as such and carries no pair."""

from __future__ import annotations

from rich.console import Console

from voicecoach.pipelines.bench.dialogue import ASKED_BACK, table


def _row(kind: str, right: bool, label: str, intent_right: bool | None) -> dict[str, object]:
    return {"kind": kind, "right": right, "label": label, "asked_back": label == ASKED_BACK,
            "intent_right": intent_right}  # fmt: skip


def test_asked_back_turns_are_counted_and_left_out_of_intent() -> None:
    rows = [
        _row("clarification", True, ASKED_BACK, None),
        _row("clarification", True, "creature/info", True),
        _row("reference", False, "creature/counters", False),
        _row("reference", True, "creature/counters", True),
    ]
    console = Console(width=120, record=True)
    console.print(table("pet_arena", rows))
    text = console.export_text()
    all_row = next(line for line in text.splitlines() if "│ all" in line)
    cells = [c.strip() for c in all_row.split("│") if c.strip()]
    assert cells == ["all", "4", "75.0", "1", "66.7"], cells
