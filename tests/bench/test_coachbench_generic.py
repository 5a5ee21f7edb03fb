"""CoachBench on a pack that is not pet_arena: the generator reads the toy hero shooter's catalog
(heroes, loadout items, comps, maps: tests/toy_pack.py) by role, writes its states in the
collection layout, and draws what the toy's coachbench.json says (synth, events, slots, episodes);
a coachbench.json that names what the pack cannot do is refused, naming the entry.

The generator links entities with `_toy_linker` here, in place of `link_entities`: whole-word,
case-blind matches of the catalog's forms (`Catalog.forms`), longest first, without the runtime
linker's plurals and run-together spellings."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.toy_pack import FILES, write_pack
from voicecoach.bench.coachbench import generator
from voicecoach.bench.coachbench.generator import generate, load_benchmark, write_benchmark
from voicecoach.bench.coachbench.packdata import BenchData, _check, load_bench_data
from voicecoach.core.state import load_state
from voicecoach.domain.entities import Mention
from voicecoach.domain.pack import Pack, PackError, check_state, load_pack_from

PHI = [
    {"intent": "comp", "sub_intent": "build", "example": "build me a team", "branch": "recommend",
     "tools": [{"tool": "get_inventory", "args": {}}], "requires": []},
    {"intent": "hero", "sub_intent": "info", "example": "tell me about vanta", "branch": "knowledge-qa",
     "tools": [], "requires": []},
    {"intent": "item", "sub_intent": "unlock", "example": "can vanta use longshot", "branch": "knowledge-qa",
     "tools": [], "requires": []},
    {"intent": "match", "sub_intent": "score", "example": "what's the score", "branch": "knowledge-qa",
     "tools": [], "requires": ["ic.match"]},
    {"intent": "smalltalk", "sub_intent": "greeting", "example": "hey coach", "branch": "knowledge-qa",
     "tools": [], "requires": []},
]  # fmt: skip

BENCH: dict[str, Any] = {
    "phrases": {
        "comp/build": ["build me a comp", "who should i run against {opp}", "what do i play on {m}"],
        "hero/info": ["tell me about {c}", "is {c} any good"],
        "item/unlock": ["can {c} use {s} yet", "is {s} unlocked"],
        "match/score": ["what's the score", "how do we stand in {rnd}"],
        "smalltalk/greeting": ["hey coach"],
    },
    "repeat_cores": ["something else"],
    "cores": {"after_join": ["i just unlocked {c}, what comp now"], "after_map": ["new map, what now"],
              "after_level": ["{c} levelled up, is {s} ready"], "after_swap": ["they brought {c}, now what"],
              "exclude": ["a comp without {c}"]},
    "openers": ["hey, "], "closers": [" please"], "fillers": ["um"], "question_words": ["what", "who"],
    "opponent_phrases": ["their team"],
    "factual": {"hero/info": 2, "item/unlock": 2},
    "factual_match": {"match/score": 1},
    "recommend_pairs": ["comp/build"],
    "goals": {"climb": ["comp/build", "hero/info", "match/score"]},
    "match_goals": ["climb"],
    "goal_state_change": {"climb": "map_change"},
    "default_state_change": "map_change",
    "families": {"comp/build": "pick_owned", "hero/info": "about_focus", "item/unlock": "skill_unlock",
                 "match/score": "match_state", "smalltalk/greeting": "none"},
    "synth": {"weights": {"difficulty": {"easy": 2, "hard": 1}}, "levels": [1, 20], "owned": [1, 2],
              "modes": ["control"], "rounds": 5, "saved_group": "ranked"},
    "events": {
        "round": {"op": "next_round", "text": "round {round} began, the player {result} the last"},
        "swap": {"op": "swap_opponent", "text": "the enemy switched {out} to {new}"},
        "level": {"op": "level", "text": "{unit} hit hero level {level}", "gained": ": {options} unlocked"},
        "join": {"op": "acquire", "text": "the player unlocked {unit}"},
        "drop": {"op": "remove", "text": "{unit} left the roster"},
        "map_change": {"op": "set_context", "text": "the match moved to {context}"},
    },
    "slots": {"c": "unit", "cs": "units", "s": "option", "opp": "opponent", "rnd": "round", "m": "map"},
    "episodes": [
        {"kind": "repeat"},
        {"kind": "exclude", "then": "comp/build", "cores": "exclude"},
        {"kind": "acquire", "first": "hero/info", "event": "join", "then": "comp/build",
         "cores": "after_join"},
        {"kind": "level", "first": "hero/info", "event": "level", "then": "item/unlock",
         "cores": "after_level"},
        {"kind": "remove", "first": ["comp/build"], "event": "drop", "then": "comp/build",
         "cores": "exclude"},
        {"kind": "swap_opponent", "needs_match": True, "first": "comp/build", "event": "swap",
         "then": "comp/build", "cores": "after_swap"},
        {"kind": "set_context", "needs_match": True, "first": "comp/build", "event": "map_change",
         "then": "comp/build", "cores": "after_map"},
        {"kind": "next_round", "needs_match": True, "first": ["match/score"], "event": "round",
         "then": ["comp/build", "match/score"]},
    ],
    "drift_b_pairs": ["item/unlock"],
    "counter_pairs": ["comp/build"],
    "match_intents": ["match"],
    "open_pairs": "smalltalk/greeting",
    "close_pairs": None,
}  # fmt: skip

# More heroes than the toy's two, so that a session owns some and lacks others.
HEROES = [
    *FILES["heroes.json"],
    {"id": "skyla", "name": "Skyla", "callsign": [], "role": "striker", "difficulty": "medium",
     "power": 55, "loadout": []},
    {"id": "riptide", "name": "Riptide", "callsign": [], "role": "striker", "difficulty": "easy",
     "power": 50, "loadout": []},
]  # fmt: skip
MAPS = [*FILES["maps.json"], {"id": "dust_yard", "name": "Dust Yard"}]


def _toy_linker(pack: Pack, text: str) -> list[Mention]:
    """Whole-word, case-blind catalog forms, longest first (the generator's `link_entities` here)."""
    forms = sorted(pack.catalog.forms(), key=lambda f: -len(f[0]))
    out: list[Mention] = []
    taken: list[tuple[int, int]] = []
    for form, kind, eid in forms:
        for m in re.finditer(r"(?<!\w)" + re.escape(form.lower()) + r"(?!\w)", text.lower()):
            if all(m.end() <= a or m.start() >= b for a, b in taken):
                taken.append(m.span())
                out.append(Mention(eid, kind, text[m.start() : m.end()], m.span()))  # type: ignore[arg-type]
    return sorted(out, key=lambda x: x.span)


@pytest.fixture(autouse=True)
def _link_by_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generator, "link_entities", _toy_linker)


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Pack, Path]:
    files = {**FILES, "phi.json": PHI, "heroes.json": HEROES, "maps.json": MAPS, "coachbench.json": BENCH}
    files["paraphrases.json"] = files["narrations.json"] = []
    folder = write_pack(tmp_path_factory.mktemp("packs") / "toy_shooter", files)
    return load_pack_from(folder), folder


def test_the_generator_runs_on_a_collection_pack_and_writes_valid_states(toy: tuple[Pack, Path]) -> None:
    pack, folder = toy
    data = load_bench_data(pack, folder)
    sessions = generate(7, pack, data)
    assert len(sessions) == 200 and Counter(s.stratum for s in sessions)["cross_turn"] == 60
    heroes, maps = {h["id"] for h in HEROES}, {m["id"] for m in MAPS}
    for s in sessions:
        for t in s.turns:
            state = load_state(t.state)
            check_state(pack, state)  # ids, levels and unlocked items are the catalog's
            assert state.fs.inventory is None and state.fs.collection is not None
            units = state.fs.collection.units
            assert units and {u.id for u in units} <= heroes and all(u.tier is None for u in units)
            assert set(state.fs.collection.saved_groups) == {"ranked"}
            for u in units:  # an item is unlocked exactly when its hero-level gate is met
                gated = {"longshot": 5}
                loadout = next(h["loadout"] for h in HEROES if h["id"] == u.id)
                expected = [i for i in loadout if u.level >= gated.get(i, 0)]
                assert u.unlocked == expected, (s.session_id, u)
            match = state.ic.match
            if match is not None:
                assert match.mode == "control" and match.rounds_total == 5
                assert set(match.context) == {"map"} and match.context["map"] in maps
                assert len(match.opponent_lineup) == 2  # the schema's composition size
            assert "{" not in t.utterance and "}" not in t.utterance
            ref = t.reference
            owned = {u.id for u in units}
            assert set(ref.owned_mentioned) <= owned and not set(ref.unowned_mentioned) & owned
            if match is not None and "vanta" in match.opponent_lineup and "bulwark" in owned:
                assert ref.counters == ["bulwark"]  # counters.json: bulwark beats vanta 1.5x
            elif match is not None:
                assert ref.counters == []
    # The toy's own events happen, in its own words.
    texts = [t.state_change for s in sessions for t in s.turns if t.state_change]
    assert any(x.startswith("the match moved to ") for x in texts)
    assert any(x.startswith("the enemy switched ") for x in texts)
    assert any(" hit hero level " in x for x in texts)
    assert any(x.startswith("the player unlocked ") for x in texts)
    utterances = " ".join(t.utterance.lower() for s in sessions for t in s.turns)
    assert "harbor point" in utterances or "dust yard" in utterances  # the {m} slot: a map name
    assert "longshot" in utterances or "smoke round" in utterances  # the {s} slot: an item name
    refs = [t.reference for s in sessions for t in s.turns]
    assert any(r.locked_skills == ["longshot"] for r in refs)  # below hero level 5
    assert any(r.unlocked_skills for r in refs) and any(r.unowned_mentioned for r in refs)
    assert any(r.direction.startswith("recommend owned counters (Bulwark)") for r in refs)
    assert any("recommend from owned comps (Dive) or owned heroes" in r.direction for r in refs)


def test_the_toy_benchmark_is_reproducible_and_loads_back(toy: tuple[Pack, Path], tmp_path: Path) -> None:
    pack, folder = toy
    data = load_bench_data(pack, folder)
    first = write_benchmark(tmp_path / "a.jsonl", 7, pack, data)
    again = write_benchmark(tmp_path / "b.jsonl", 7, pack, data)
    assert first.sha256 == again.sha256 and first.pack_id == "toy_shooter"
    assert len(load_benchmark(tmp_path / "a.jsonl", pack, data)) == 200


def _broken(pack: Pack, change: dict[str, Any]) -> None:
    raw = copy.deepcopy(BENCH)
    raw.update(change)
    _check(BenchData.model_validate(raw), pack, "coachbench.json")


def test_coachbench_json_naming_what_the_pack_cannot_do_is_refused(toy: tuple[Pack, Path]) -> None:
    pack, _ = toy
    with pytest.raises(PackError, match=r"'events/grow': op 'tier_up' needs the schema's progression"):
        _broken(pack, {"events": {**BENCH["events"], "grow": {"op": "tier_up", "text": "{unit} grew"}}})
    with pytest.raises(PackError, match=r"'slots/z': 'zone' is neither a role"):
        _broken(pack, {"slots": {**BENCH["slots"], "z": "zone"}})
    bad_episode = {"kind": "acquire", "first": "hero/info", "event": "swap", "then": "comp/build"}
    with pytest.raises(PackError, match=r"'episodes/0': event 'swap' is not an event with op 'acquire'"):
        _broken(pack, {"episodes": [bad_episode]})
    with pytest.raises(PackError, match=r"'episodes/0/nowhere': no such core table"):
        _broken(pack, {"episodes": [{"kind": "repeat", "cores": "nowhere"}]})
    with pytest.raises(PackError, match=r"'synth/weights/rarity': not an attribute of the unit kind"):
        _broken(pack, {"synth": {"weights": {"rarity": {"common": 1}}}})
    # A key left out holds pet_arena's value, and the error says so.
    raw = {k: v for k, v in BENCH.items() if k != "drift_b_pairs"}
    with pytest.raises(PackError, match=r"'drift_b_pairs/creature/owned'.*the default"):
        _check(BenchData.model_validate(raw), pack, "coachbench.json")


def test_pet_arena_needs_none_of_the_new_keys(pack: Pack) -> None:
    from voicecoach.bench.coachbench.packdata import EPISODES, EVENTS, bench_data
    from voicecoach.domain.pack import PACKS_DIR

    raw = json.loads((PACKS_DIR / pack.pack_id / "coachbench.json").read_text(encoding="utf-8"))
    new = {"synth", "events", "slots", "episodes", "drift_b_pairs", "counter_pairs", "match_intents",
           "open_pairs", "close_pairs", "cores", "default_state_change", "matchups",
           "opponent_prefixes"}  # fmt: skip
    assert not new & set(raw)
    data = bench_data(pack)
    assert data.events == EVENTS and data.episodes == EPISODES


def test_bench_quality_takes_the_pack_and_regenerates_a_benchmark_of_another(
    pack: Pack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse

    from voicecoach.bench.coachbench.generator import manifest_path
    from voicecoach.pipelines.bench import quality as bench_quality

    parser = argparse.ArgumentParser()
    bench_quality.add_arguments(parser)
    monkeypatch.delenv("VOICECOACH_PACK", raising=False)
    assert bench_quality.options_from_args(parser.parse_args([])).pack_id == "pet_arena"
    opts = bench_quality.options_from_args(
        parser.parse_args(["--pack", "toy_shooter", "--out", str(tmp_path)])
    )
    assert opts.pack_id == "toy_shooter"
    monkeypatch.setenv("VOICECOACH_PACK", "from_env")
    assert bench_quality.options_from_args(parser.parse_args([])).pack_id == "from_env"
    # A benchmark left in --out by another pack is not reused for this one.
    path = tmp_path / "coachbench.jsonl"
    write_benchmark(path, 7, pack)
    manifest = json.loads(manifest_path(path).read_text())
    manifest_path(path).write_text(json.dumps({**manifest, "pack_id": "toy_shooter"}))
    opts = bench_quality.QualityOptions(out=tmp_path, seed=7, limit=1)
    _, sessions, digest = bench_quality._bench(opts, pack)
    assert json.loads(manifest_path(path).read_text())["pack_id"] == "pet_arena"
    assert len(sessions) == 1 and digest == manifest["sha256"]


def test_a_pair_can_take_its_counters_from_the_map(toy: tuple[Pack, Path]) -> None:
    pack, _ = toy
    data = BenchData.model_validate({**BENCH, "matchups": {"comp/build": "map_fit"}})
    _check(data, pack, "coachbench.json")
    seen = 0
    for s in generate(7, pack, data)[:60]:
        for t in s.turns:
            state, ref = load_state(t.state), t.reference
            if ref.intent != "comp" or state.ic.match is None:
                continue
            owned = {u.id for u in state.fs.collection.units} if state.fs.collection else set()
            on_harbor = state.ic.match.context["map"] == "harbor_point"
            # map_fit.json: Vanta fits Harbor Point 1.5x; the opponent side no longer counts.
            assert ref.counters == (["vanta"] if on_harbor and "vanta" in owned else [])
            seen += bool(ref.counters)
    assert seen
    with pytest.raises(PackError, match=r"'matchups/comp/build': 'nope' is not a matchup"):
        _broken(pack, {"matchups": {"comp/build": "nope"}})


def _toy_state(level: int, heroes: tuple[str, ...] = ("vanta",)) -> dict[str, Any]:
    units = [{"id": h, "level": level, "unlocked": ["smoke_round"] if h == "vanta" else []} for h in heroes]
    return {"fs": {"player_level": 12, "collection": {"units": units}}}


def test_responsive_expectations_take_the_toy_packs_words(toy: tuple[Pack, Path]) -> None:
    from voicecoach.bench.coachbench.responsive import build_expectation

    pack, _ = toy

    def expect(family: str, state: dict[str, Any], mentioned: list[str]) -> Any:
        return build_expectation(pack, state, family, mentioned, [], [], [], False)

    # Longshot needs hero level 5: the gate's spoken form is the condition (the toy lists no words).
    for family in ("skill_unlock", "option_unlock"):
        locked = expect(family, _toy_state(3), ["vanta", "longshot"])
        assert (locked.yes, locked.unlock) == (False, ["hero level 5"])
    assert expect("option_unlock", _toy_state(3), ["vanta", "smoke_round"]).yes is True
    # Nobody the player owns carries it: the hero to get is the answer.
    unowned = expect("option_unlock", _toy_state(3, ("bulwark",)), ["longshot"])
    assert (unowned.yes, unowned.unlock) == (False, ["Vanta"])
    assert expect("ownership", _toy_state(3), ["vanta"]).yes is True
    assert expect("ownership", _toy_state(3), ["skyla"]).yes is False
    # A hero's properties: its items and callsign; an item's: the hero it belongs to.
    assert expect("about_focus", _toy_state(3), ["vanta"]).properties == ["Longshot", "Smoke Round", "V"]
    assert expect("about_focus", _toy_state(3), ["longshot"]).properties == ["Vanta"]
    picks = expect("pick_owned", _toy_state(3, ("vanta", "bulwark")), [])
    assert picks.direction == ["vanta", "bulwark"]
