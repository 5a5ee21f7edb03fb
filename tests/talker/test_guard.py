"""The runtime guard: sentences cut from a stream, judged by the checker kernel, dropped or spoken."""

from __future__ import annotations

from voicecoach.core.state import LiveState
from voicecoach.domain.pack import Pack
from voicecoach.talker.guard import SentenceGuard
from voicecoach.talker.rules import CheckContext


def _guard(pack: Pack, state: LiveState, utterance: str = "who beats their water team?") -> SentenceGuard:
    return SentenceGuard.after_narration(pack, CheckContext.live(pack, state, utterance), "Let me look.")


def stream(guard: SentenceGuard, text: str, size: int = 3) -> list[str]:
    """Feed `text` in chunks of `size` characters, as a model streams it; return what is spoken."""
    out: list[str] = []
    for i in range(0, len(text), size):
        out += guard.feed(text[i : i + size])
    return out + guard.finish()


def test_good_sentences_pass_across_any_chunking(pack: Pack, state: LiveState) -> None:
    text = "Bring Sparkwing, it hits water hard. Keep Oakhorn in the back"
    for size in (1, 4, 100):
        guard = _guard(pack, state)
        assert stream(guard, text, size) == [
            "Bring Sparkwing, it hits water hard.",
            "Keep Oakhorn in the back",
        ]
        assert guard.dropped == [] and not guard.stopped


def test_prompt_echo_is_dropped_and_the_rest_spoken(pack: Pack, state: LiveState) -> None:
    guard = _guard(pack, state)
    spoken = stream(guard, "You must: Explain that the player does not own Aegis. Bring Sparkwing.")
    assert spoken == ["Bring Sparkwing."]
    assert "prompt_echo" in guard.drops_by_rule()


def test_loop_ends_the_reply(pack: Pack, state: LiveState) -> None:
    guard = _guard(pack, state)
    spoken = stream(guard, "No, no, no, no, no, no. Bring Sparkwing. Bring Sparkwing.")
    assert spoken == [] and guard.stopped
    assert guard.drops_by_rule() == {"loop": 1}


def test_repeating_the_narration_is_a_loop(pack: Pack, state: LiveState) -> None:
    guard = _guard(pack, state)
    assert stream(guard, "Let me look. Bring Sparkwing.") == [] and guard.stopped


def test_recommending_an_unowned_creature_is_dropped(pack: Pack, state: LiveState) -> None:
    unowned = next(c for c in pack.catalog.entities["creature"].values() if not state.fs.inventory.owns(c.id))  # type: ignore[union-attr]
    guard = _guard(pack, state)
    assert stream(guard, f"Use {unowned.name} against them. Bring Sparkwing.") == ["Bring Sparkwing."]
    assert guard.drops_by_rule() == {"unavailable_entity": 1}


def test_json_is_dropped(pack: Pack, state: LiveState) -> None:
    guard = _guard(pack, state)
    assert stream(guard, 'Facts from the game: get_creature: {"base_power":52}.') == []
    assert guard.dropped


def test_bench_guard_prints_the_cost_per_sentence(capsys) -> None:  # type: ignore[no-untyped-def]
    from voicecoach.app.cli import main

    assert main(["bench", "guard"]) == 0
    out = capsys.readouterr().out
    assert "check_sentence over" in out and "p50" in out and "p90" in out
