"""Whisper's prompt from the live state: the likeliest names first, cut to the prompt window,
rebuilt only when the state's version changes."""

from __future__ import annotations

from voicecoach.bench.fixtures import discover
from voicecoach.bench.lexicon import FIXTURES
from voicecoach.domain.pack import load_pack
from voicecoach.perception.lexicon import likely_names
from voicecoach.pipelines.speech.voice import PROMPT_TOKENS, StatePrompt, state_prompt, whisper_prompt


def _first_state(pack_id: str):  # type: ignore[no-untyped-def]
    sessions, _ = discover(FIXTURES[pack_id], pack_id)
    return sessions[0].states()[0]


def test_the_rosters_names_and_skills_come_first_and_the_prompt_fits_the_window() -> None:
    pack, state = load_pack("pet_arena"), _first_state("pet_arena")
    names = likely_names(pack, state)
    lineup = [pack.catalog.display_name(i) for i in state.ic.match.player_lineup]
    assert names[0] == lineup[0] and set(lineup) <= set(names[: 2 * len(lineup)])  # with their next stages
    assert (
        names.index("Shellbastion") < names.index("Gale Dive") < names.index("Oakhorn")
    )  # foe, skill, other
    assert len(names) == len(set(names))
    words = lambda text: len(text.split())  # noqa: E731 - a stand-in tokenizer: one token a word
    prompt = state_prompt(pack, state, words)
    assert words(prompt) <= PROMPT_TOKENS < words(", ".join(names) + ".")
    assert prompt.startswith(lineup[0]) and "Gale Dive" in prompt
    assert "Gale Dive" not in whisper_prompt(pack)  # the pack prompt has the creatures only


def test_strike_teams_prompt_has_its_map_and_items() -> None:
    pack, state = load_pack("strike_team"), _first_state("strike_team")
    prompt = state_prompt(pack, state)
    assert "Fathom Docks" in prompt and "Bolt Driver" in prompt
    assert len(prompt) / 2.5 <= PROMPT_TOKENS  # the conservative estimate without a tokenizer


def test_the_prompt_is_rebuilt_only_when_the_state_version_changes() -> None:
    pack, state = load_pack("pet_arena"), _first_state("pet_arena")
    built: list[int] = []
    current = [state]

    def counting(text: str) -> int:
        built.append(1)
        return len(text.split())

    prompt = StatePrompt(pack, lambda: current[0], counting)
    first = prompt()
    calls = len(built)
    assert prompt() == first and len(built) == calls  # a lookup
    current[0] = state.model_copy(
        update={"version": state.version + 1, "ic": state.ic.model_copy(update={"match": None})}
    )
    assert prompt() != first and len(built) > calls
