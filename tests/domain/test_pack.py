"""The real pet_arena pack is complete and consistent; broken packs fail loudly."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from voicecoach.domain.pack import PACKS_DIR, Pack, PackError, load_pack_from


def test_real_pack_counts(pack: Pack) -> None:
    creatures, skills, lineups = (pack.catalog.entities[k] for k in ("creature", "skill", "lineup"))
    assert pack.pack_id == "pet_arena"
    assert len(creatures) >= 40
    assert len(skills) >= 80
    assert list(lineups) == [f"T{i}" for i in range(1, 17)]
    assert all(3 <= len(lu.value("creatures")) <= 5 for lu in lineups.values())
    assert 4 <= len(pack.domain_rules) <= 6 and pack.persona


def test_every_referenced_skill_exists_and_is_used(pack: Pack) -> None:
    skills = pack.catalog.entities["skill"]
    used = {s for c in pack.catalog.entities["creature"].values() for s in c.value("skills")}
    assert used <= set(skills)
    assert set(skills) <= used, "a skill no creature has can never be unlocked"


def test_names_are_unique_and_never_shared_between_creatures_and_skills(pack: Pack) -> None:
    creature_names = [c.name.lower() for c in pack.catalog.entities["creature"].values()]
    skill_names = [s.name.lower() for s in pack.catalog.entities["skill"].values()]
    assert len(set(creature_names)) == len(creature_names)
    assert len(set(skill_names)) == len(skill_names)
    assert not set(creature_names) & set(skill_names)


def test_each_element_has_five_or_six_creatures_covering_all_roles(pack: Pack) -> None:
    creatures = pack.catalog.entities["creature"].values()
    per_element = Counter(c.value("element") for c in creatures)
    assert set(per_element) == set(pack.catalog.entities["element"])
    assert all(5 <= n <= 6 for n in per_element.values())
    for element in pack.catalog.entities["element"]:
        roles = {c.value("role") for c in creatures if c.value("element") == element}
        assert roles == {"striker", "tank", "support", "controller"}, element


def test_counter_chart_is_a_full_matrix_where_every_element_has_answers(pack: Pack) -> None:
    elements, counters = list(pack.catalog.entities["element"]), pack.catalog.tables["elements"]
    assert len(elements) == 8
    assert set(counters) == set(elements)
    for attacker in elements:
        row = counters[attacker]
        assert set(row) == set(elements)
        assert set(row.values()) <= {0.5, 1.0, 2.0}
        assert list(row.values()).count(2.0) == 2, attacker
    for defender in elements:  # every element can be countered by two others
        assert sum(counters[a][defender] == 2.0 for a in elements) == 2, defender


def test_about_forty_percent_of_skills_are_locked_and_reachable(pack: Pack) -> None:
    skills = pack.catalog.entities["skill"]
    locked = [s for s in skills.values() if s.value("unlock") is not None]
    assert 0.3 <= len(locked) / len(skills) <= 0.5
    for c in pack.catalog.entities["creature"].values():
        for sid in c.value("skills"):
            unlock = skills[sid].value("unlock")
            if unlock is not None and unlock.get("min_stage") is not None:
                assert unlock["min_stage"] <= len(c.value("stages")), f"{c.id} can never unlock {sid}"


# --- broken packs -------------------------------------------------------------------------


def _broken(tmp_path: Path, file: str, edit: Callable[[Any], Any]) -> Path:
    """A copy of the real pack with `file` replaced by `edit(parsed file)`."""
    folder = tmp_path / "pet_arena"
    shutil.copytree(PACKS_DIR / "pet_arena", folder)
    path = folder / file
    path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    return folder


def _with(data: list[dict[str, Any]], index: int, **changes: Any) -> list[dict[str, Any]]:
    data[index] = {**data[index], **changes}
    return data


def test_copied_pack_loads_unchanged(tmp_path: Path, pack: Pack) -> None:
    folder = _broken(tmp_path, "skills.json", lambda d: d)
    copy = load_pack_from(folder)
    assert copy.home == folder.resolve() != pack.home  # read from its own folder (prior, example state)
    assert copy.model_copy(update={"folder": pack.folder}) == pack  # and nothing else differs


def test_creature_with_unknown_skill_names_file_and_entry(tmp_path: Path) -> None:
    folder = _broken(tmp_path, "creatures.json", lambda d: _with(d, 0, skills=["ember_fang", "moon_punch"]))
    with pytest.raises(
        PackError, match=r"creatures\.json: entry 'emberfox': skills: unknown skill 'moon_punch'"
    ):
        load_pack_from(folder)


def test_lineup_with_unknown_creature_names_file_and_entry(tmp_path: Path) -> None:
    folder = _broken(
        tmp_path, "lineups.json", lambda d: _with(d, 2, creatures=["oakhorn", "ghostcat", "vinecoil"])
    )
    with pytest.raises(PackError, match=r"lineups\.json: entry 'T3': creatures: unknown creature 'ghostcat'"):
        load_pack_from(folder)


def test_duplicate_id_names_file_and_entry(tmp_path: Path) -> None:
    folder = _broken(tmp_path, "skills.json", lambda d: [*d, {**d[0], "name": "Ember Fang Two"}])
    with pytest.raises(PackError, match=r"skills\.json: entry 'ember_fang' defined twice"):
        load_pack_from(folder)


def _phi(**entry: Any) -> Callable[[Any], Any]:
    return lambda _: [{"intent": "recommend", "sub_intent": "counter", **entry}]


def test_vocabulary_cues_add_phrases_to_the_checkers_families(tmp_path: Path, pack: Pack) -> None:
    assert pack.vocabulary.cues == {}  # pet_arena adds none
    cues = {"recommend": ["swap to", "lock in"], "option_absence": ["can't equip"]}
    folder = _broken(tmp_path, "vocabulary.json", lambda d: {**d, "cues": cues})
    assert load_pack_from(folder).vocabulary.cues == cues


@pytest.mark.parametrize(
    ("cues", "message"),
    [
        ({"praise": ["nice"]}, r"vocabulary\.json: Input should be 'recommend', .* at cues\.praise"),
        ({"recommend": []}, r"vocabulary\.json: .*cues 'recommend': a list of non-empty phrases"),
        ({"absence": ["  "]}, r"vocabulary\.json: .*cues 'absence': a list of non-empty phrases"),
    ],
)
def test_a_cue_outside_the_checkers_families_names_the_file(
    tmp_path: Path, cues: dict[str, list[str]], message: str
) -> None:
    folder = _broken(tmp_path, "vocabulary.json", lambda d: {**d, "cues": cues})
    with pytest.raises(PackError, match=message):
        load_pack_from(folder)


def test_phi_entry_with_unknown_tool_names_file_and_entry(tmp_path: Path) -> None:
    folder = _broken(tmp_path, "phi.json", _phi(tools=[{"tool": "teleport"}]))
    with pytest.raises(PackError, match=r"phi\.json: entry 'recommend/counter': unknown tool 'teleport'"):
        load_pack_from(folder)


@pytest.mark.parametrize(
    "entry",
    [
        {"tools": [{"tool": "find_counters", "args": {"opponent": "$ic.match.enemy_team"}}]},
        {"tools": [{"tool": "find_counters"}], "requires": ["fs.inventory.pets"]},
    ],
)
def test_phi_entry_with_unknown_state_field_names_file_and_entry(
    tmp_path: Path, entry: dict[str, Any]
) -> None:
    folder = _broken(tmp_path, "phi.json", _phi(**entry))
    with pytest.raises(PackError, match=r"phi\.json: entry 'recommend/counter': unknown state field"):
        load_pack_from(folder)


def test_valid_phi_entry_loads(tmp_path: Path) -> None:
    entry = {"tools": [{"tool": "find_counters", "args": {"opponent": "$ic.match.opponent_lineup"}}]}
    folder = _broken(tmp_path, "phi.json", _phi(**entry, requires=["ic.match.opponent_lineup"]))
    manifest = folder / "manifest.json"  # the worked W1 turns name pairs this one-entry Φ lacks
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "w1_examples": []}))
    for per_pair in ("paraphrases.json", "narrations.json"):  # optional files, also per Φ pair
        (folder / per_pair).unlink()
    templates = folder / "templates.json"  # and so do the realizer's answers
    templates.write_text(json.dumps({**json.loads(templates.read_text()), "answers": {}}))
    w3 = folder / "w3.json"  # and W3's candidates held back or said after a pair
    pools = json.loads(w3.read_text())
    for cfg in pools["branches"].values():
        for cand in cfg["pool"]:
            cand.pop("unsaid_after", None)
            cand.pop("said_after", None)
    w3.write_text(json.dumps(pools))
    loaded = load_pack_from(folder)
    assert loaded.phi[0].tools[0].tool == "find_counters"


def test_malformed_json_names_the_file(tmp_path: Path) -> None:
    folder = _broken(tmp_path, "lineups.json", lambda d: d)
    (folder / "lineups.json").write_text('[{"id": "T1", ')
    with pytest.raises(PackError, match=r"lineups\.json: not valid JSON"):
        load_pack_from(folder)


def test_w1_example_with_unregistered_pair_names_file_and_example(tmp_path: Path) -> None:
    bad = {"utterance": "sing me a song", "intent": "music", "sub_intent": "sing", "narration": "Sure.",
           "plan": "none"}  # fmt: skip
    folder = _broken(tmp_path, "manifest.json", lambda d: {**d, "w1_examples": [*d["w1_examples"], bad]})
    with pytest.raises(PackError, match=r"manifest\.json: entry 'sing me a song': .*music/sing"):
        load_pack_from(folder)


def test_every_phi_pair_has_a_player_phrase_and_the_w1_examples_vary(pack: Pack) -> None:
    assert all(e.example.strip() for e in pack.phi)
    assert len({e.example for e in pack.phi}) == len(pack.phi)
    pairs = [(ex.intent, ex.sub_intent) for ex in pack.w1_examples]
    # One worked turn made small models answer with its pair: several, all different intents.
    assert len(pairs) >= 3 and len({intent for intent, _ in pairs}) == len(pairs)


def test_a_follow_up_held_back_after_an_unknown_pair_is_refused(tmp_path: Path) -> None:
    def typo(w3: dict[str, Any]) -> dict[str, Any]:
        w3["branches"]["knowledge-qa"]["pool"][0]["unsaid_after"] = ["element/matchups"]
        return w3

    with pytest.raises(PackError, match=r"w3\.json: entry 'knowledge-qa/.*unsaid_after: 'element/matchups'"):
        load_pack_from(_broken(tmp_path, "w3.json", typo))


def test_a_tip_said_after_an_unknown_topic_is_refused(tmp_path: Path) -> None:
    def typo(w3: dict[str, Any]) -> dict[str, Any]:
        w3["branches"]["recommend"]["pool"][0]["said_after"] = ["lineups"]
        return w3

    with pytest.raises(PackError, match=r"w3\.json: entry 'recommend/.*said_after: 'lineups' is no intent"):
        load_pack_from(_broken(tmp_path, "w3.json", typo))


def _strike_with(tmp_path: Path, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> Path:
    folder = tmp_path / "strike_team"
    shutil.copytree(PACKS_DIR / "strike_team", folder)
    path = folder / "heroes.json"
    path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    return folder


def test_an_alias_that_names_two_entities_is_refused_naming_file_and_entry(tmp_path: Path) -> None:
    # Osmund's callsign "Bran" would also be Brannoc's: "Bran" must name one hero.
    folder = _strike_with(
        tmp_path, lambda d: [{**h, "callsign": ["Bran"]} if h["id"] == "osmund" else h for h in d]
    )
    with pytest.raises(PackError, match=r"heroes\.json: entry 'brannoc': alias 'Bran' also names osmund"):
        load_pack_from(folder)


def test_a_description_word_that_is_a_pack_name_is_refused(tmp_path: Path) -> None:
    # "their quillon one" could then be Quillon or the hero Quillon's name describes.
    summary = "a quillon hunter who stalks snipers"
    folder = _strike_with(
        tmp_path, lambda d: [{**h, "summary": summary} if h["id"] == "kasimir" else h for h in d]
    )
    with pytest.raises(
        PackError, match=r"heroes\.json: entry 'kasimir': summary word 'quillon' is also the name of quillon"
    ):
        load_pack_from(folder)
