"""The baselines' state brief and pack files: pet's as before, a schema pack's from its kinds."""

from __future__ import annotations

from pathlib import Path

from tests.tools.test_tools_generic import BUILTINS, STATE, _files
from tests.toy_pack import write_pack
from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.pack import Pack, load_pack_from
from voicecoach.talker.baselines import baseline_files, state_brief


def _classic_brief(pack: Pack, state: LiveState) -> str:
    """state_brief as it read fs.inventory before StateView : pet's must not move."""
    lines = []
    creatures, skills = pack.catalog.entities["creature"], pack.catalog.entities["skill"]
    inv = state.fs.inventory
    if inv is None:
        lines.append("Inventory: unknown.")
    else:
        owned = [
            f"{creatures[o.creature_id].name if o.creature_id in creatures else o.creature_id}"
            f" (stage {o.stage}; skills: "
            + ", ".join(skills[s].name if s in skills else s for s in o.unlocked_skills)
            + ")"
            for o in inv.owned
        ]
        lines.append("Player owns: " + ("; ".join(owned) or "nothing") + ".")
    m = state.ic.match
    if m is not None:

        def names(ids: list[str]) -> str:
            return ", ".join(creatures[c].name if c in creatures else c for c in ids) or "-"

        lines.append(
            f"Match: round {m.round}/{m.rounds_total}, score {m.score_player}-{m.score_opponent}; "
            f"player fields {names(m.player_lineup)}; opponent fields {names(m.opponent_lineup)}."
        )
    return "\n".join(lines)


def test_pets_brief_is_what_it_was_on_every_coachbench_state(pack: Pack) -> None:
    from voicecoach.bench.coachbench.generator import generate

    states = [load_state(t.state) for s in generate(7, pack) for t in s.turns]
    assert len(states) > 900 and any(s.fs.inventory is None for s in states + [LiveState()])
    for state in [*states, LiveState()]:
        assert state_brief(pack, state) == _classic_brief(pack, state)
    assert baseline_files(pack) == (
        "manifest.json", "schema.json", "creatures.json", "skills.json", "lineups.json", "elements.json",
        "vocabulary.json", "tools.json",
    )  # fmt: skip


def test_a_collection_packs_brief_and_files_come_from_its_kinds(tmp_path: Path) -> None:
    shooter = load_pack_from(write_pack(tmp_path / "shooter", _files(BUILTINS)))
    brief = state_brief(shooter, load_state(STATE))
    assert brief == (
        "Player owns: Vanta (level 6; items: Longshot); Bulwark (level 3; items: ).\n"
        "Match: round 2/3, score 0-0; player fields Vanta; opponent fields Vanta, Bulwark; map Harbor Point."
    )
    assert state_brief(shooter, LiveState()) == "Collection: unknown."
    assert baseline_files(shooter) == (
        "manifest.json", "schema.json", "heroes.json", "loadouts.json", "comps.json", "maps.json",
        "counters.json", "map_fit.json", "vocabulary.json", "tools.json",
    )  # fmt: skip
