"""strike_team's CoachBench data (voicecoach/packs/strike_team/coachbench.json).

- It validates against the pack (every pair registered, every Φ pair with a family, the events,
  slots and episodes resolve);
- its utterance cores are not the intent prior's training data: no core is a paraphrase or a Φ
  example, even with the catalog names taken out (pet_arena's file shares 39 of its 238 cores with
  its paraphrases that way, 5 word for word; the prior would be scored on what it was trained on);
- its player's roster is the one the game's rules give (`synth.roster` "by_gate"): a hero is owned
  exactly when the account level meets the hero's gate, and an unlock event raises the account
  level to the hero's gate, unlocking every hero gated on the way; and each hero has one of its
  unlocked items on in every slot it has one for (`synth.equip`), as a game's snapshot would say.
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from typing import Any

import pytest

from voicecoach.bench.coachbench.generator import BenchSession, _Pack, generate
from voicecoach.bench.coachbench.packdata import BenchData, _check, load_bench_data
from voicecoach.core.state import load_state
from voicecoach.domain.pack import PACKS_DIR, Pack, PackError, check_state, load_pack

FOLDER = PACKS_DIR / "strike_team"


def _pack() -> Pack:
    return load_pack("strike_team")


@cache
def _data() -> BenchData:
    return load_bench_data(_pack(), FOLDER)


@cache
def _sessions() -> list[BenchSession]:
    return generate(7, _pack(), _data())


def _raw() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((FOLDER / "coachbench.json").read_text(encoding="utf-8"))
    return doc


def test_coachbench_json_validates_against_the_pack() -> None:
    data = _data()
    assert set(data.families) == {f"{e.intent}/{e.sub_intent}" for e in _pack().phi}
    assert data.synth.roster == "by_gate" and "remove" not in {e.op for e in data.events.values()}


def _template(pack: Pack, text: str) -> str:
    """The text with catalog names and slot placeholders as {x}, lowercase, without punctuation."""
    names = sorted({form.lower() for form, _, _ in pack.catalog.forms()}, key=len, reverse=True)
    text = re.sub(r"(?<!\w)(" + "|".join(map(re.escape, names)) + r")(?!\w)", "{x}", text.lower())
    text = re.sub(r"\{[a-z0-9]+\}", "{x}", text)
    return " ".join(re.sub(r"[^\w{}' ]", " ", text).split())


def test_no_utterance_core_is_the_priors_training_data() -> None:
    pack, data = _pack(), _data()
    training = {_template(pack, u) for p in pack.paraphrases for u in p.utterances}
    training |= {_template(pack, e.example) for e in pack.phi}
    cores = [c for table in data.phrases.values() for c in table] + data.repeat_cores
    cores += [c for table in data.cores.values() for c in table]
    assert len(cores) > 200 and len(training) > 1000
    assert [c for c in cores if _template(pack, c) in training] == []
    # The check can fail: a paraphrase with another hero's name is found.
    para = next(u for p in pack.paraphrases for u in p.utterances if _template(pack, u) != u.lower())
    assert _template(pack, para) in training


def test_every_generated_roster_is_the_account_levels() -> None:
    p = _Pack(_pack(), _data())
    unlocks = 0
    for s in _sessions():
        for t in s.turns:
            fs = t.state["fs"]
            check_state(_pack(), load_state(t.state))  # ids, levels, unlocked and equipped items
            owned = [u["id"] for u in fs["collection"]["units"]]
            assert owned == p.roster_at(fs["player_level"]), (s.session_id, t.turn_index)
            for u in fs["collection"]["units"]:  # an item is unlocked exactly when its gates are met
                have = {"level": u["level"], "fs.player_level": fs["player_level"]}
                expected = [
                    o for o in p.options_of(u["id"])
                    if all(v <= have[p.gates[g].state] for g, v in p.unlock(o).items() if v is not None)
                ]  # fmt: skip
                assert u["unlocked"] == expected, (s.session_id, u)
                slots = {p.options[o].value("slot") for o in u["unlocked"]}
                assert set(u["equipped"]) == slots and set(u["equipped"].values()) <= set(expected)
        for before, after in zip(s.turns, s.turns[1:], strict=False):
            change = after.state_change or ""
            if "the account reached level" in change:
                unlocks += 1
                level = int(re.search(r"level (\d+)", change).group(1))  # type: ignore[union-attr]
                assert after.state["fs"]["player_level"] == level > before.state["fs"]["player_level"]
            elif "reached hero level" in change:  # a hero's level is its own
                assert after.state["fs"]["player_level"] == before.state["fs"]["player_level"]
    assert unlocks >= 10
    levels = [s.turns[0].state["fs"]["player_level"] for s in _sessions()]
    assert min(levels) >= 3 and max(levels) <= 30 and len(set(levels)) > 20


def test_no_turn_asks_for_the_match_when_there_is_none() -> None:
    # A pair whose Φ entry needs the match (comp/fill_slot: ic.match.player_lineup) is asked mid-match
    # only: without one, the coach can only say it sees no match, and the turn tests nothing else.
    needs = {
        f"{e.intent}/{e.sub_intent}" for e in _pack().phi if any(r.startswith("ic.match") for r in e.requires)
    }
    asked = [
        (s.session_id, t.turn_index, f"{t.reference.intent}/{t.reference.sub_intent}")
        for s in _sessions()
        for t in s.turns
        if t.state["ic"].get("match") is None and f"{t.reference.intent}/{t.reference.sub_intent}" in needs
    ]
    assert len(needs) >= 10 and asked == []


def test_a_by_gate_roster_is_refused_where_the_game_does_not_have_one() -> None:
    raw = _raw()
    with_remove = copy.deepcopy(raw)
    with_remove["events"]["leave"] = {"op": "remove", "text": "{unit} left"}
    with pytest.raises(PackError, match=r"entry 'events/leave': a 'by_gate' roster only grows"):
        _check(BenchData.model_validate(with_remove), _pack(), "coachbench.json")
    # pet_arena's creatures have no account-level gate.
    pet = load_pack()
    pet_raw = json.loads((PACKS_DIR / "pet_arena" / "coachbench.json").read_text(encoding="utf-8"))
    pet_raw["synth"] = {"roster": "by_gate"}
    with pytest.raises(PackError, match=r"entry 'synth/roster': 'by_gate' needs a gate of the creature"):
        _check(BenchData.model_validate(pet_raw), pet, "coachbench.json")
