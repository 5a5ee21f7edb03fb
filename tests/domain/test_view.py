"""StateView (voicecoach.domain.view): on pet_arena it answers what the pet code answers today; on a
collection-profile pack (the toy hero shooter) the same questions in that pack's kinds."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import STATE
from tests.toy_pack import FILES, write_pack
from voicecoach.core.state import Inventory, LiveState, load_state
from voicecoach.domain.pack import Pack, load_pack_from
from voicecoach.domain.view import StateView


def _skill_usable(pack: Pack, inv: Inventory, cid: str, sid: str) -> bool:
    """What W2's `skill_usable` answered on the typed models before it read StateView (kept as the
    reference): unlocked in the snapshot, or known from the start on an owned creature that has it."""
    if inv.skill_unlocked(cid, sid):
        return True
    creature, skill = pack.catalog.entities["creature"][cid], pack.catalog.entities["skill"][sid]
    return inv.owns(cid) and skill.value("unlock") is None and sid in creature.value("skills")


def _skill_usable_on_any_learner(pack: Pack, inv: Inventory, skill: str) -> bool:
    """What the checker's `skill_usable` answered before it read StateView (kept as the reference):
    unlocked on some learner, or known from the start on an owned learner."""
    creatures = pack.catalog.entities["creature"]
    return any(_skill_usable(pack, inv, c, skill) for c in creatures if skill in creatures[c].value("skills"))


def test_on_pet_the_view_answers_what_the_inventory_and_the_kernels_answer(pack: Pack) -> None:
    state = load_state(STATE)
    inv = state.fs.inventory
    assert inv is not None
    view = StateView(pack, state)
    creatures, skills = pack.catalog.entities["creature"], pack.catalog.entities["skill"]
    assert view.known and [o.id for o in view.owned()] == [o.creature_id for o in inv.owned]
    for cid in creatures:
        assert view.owns(cid) is inv.owns(cid)
        owned, unit = inv.get(cid), view.unit(cid)
        assert (owned is None) is (unit is None)
        if owned is not None and unit is not None:
            assert (unit.tier, unit.level, list(unit.unlocked)) == (
                owned.stage,
                owned.level,
                owned.unlocked_skills,
            )
        for sid in skills:
            assert view.option_usable(sid, cid) is _skill_usable(pack, inv, cid, sid), (cid, sid)
    for sid in skills:
        assert view.option_usable(sid) is _skill_usable_on_any_learner(pack, inv, sid), sid
        assert view.learners(sid) == [c for c in creatures if sid in creatures[c].value("skills")]
    for lid, lineup in pack.catalog.entities["lineup"].items():
        assert view.members(lid) == lineup.value("creatures")
        assert view.fieldable(lid) is all(inv.owns(c) for c in lineup.value("creatures"))
    assert view.saved_groups() == inv.saved_lineups
    assert view.player_side() == ["emberfox", "oakhorn", "sparkwing"]
    assert view.opponent_side() == ["briarcat", "shellbastion", "voltail"]


def test_on_pet_focus_reads_the_legacy_fields(pack: Pack) -> None:
    ic = {
        "focus_creature": "emberfox",
        "focus_skill": "ember_fang",
        "mentioned_creatures": ["emberfox", "pyrowl"],
    }
    view = StateView(pack, load_state({"ic": ic}))
    assert (view.focus("creature"), view.focus("skill"), view.focus("lineup")) == (
        "emberfox",
        "ember_fang",
        None,
    )
    assert view.mentioned("creature") == ["emberfox", "pyrowl"] and view.mentioned("skill") == []
    assert view.context("map") is None


def test_without_an_inventory_nothing_is_owned_or_usable(pack: Pack) -> None:
    view = StateView(pack, LiveState())
    assert not view.known and view.owned() == [] and view.saved_groups() == {}
    assert not view.owns("emberfox") and not view.option_usable("ember_fang") and not view.fieldable("T1")


def test_on_a_collection_pack_the_view_reads_fs_collection_and_the_kind_keyed_fields(tmp_path: Path) -> None:
    toy = load_pack_from(write_pack(tmp_path / "toy_shooter", FILES))
    state = load_state({
        "fs": {"collection": {"units": [{"id": "vanta", "level": 6, "unlocked": ["longshot"],
                                         "equipped": {"primary": "longshot"}}],
                              "saved_groups": {"ranked": ["vanta", "bulwark"]}}},
        "ic": {"focus": {"hero": "vanta"}, "mentioned": {"hero": ["vanta", "bulwark"]},
               "match": {"round": 1, "player_lineup": ["vanta"], "context": {"map": "harbor_point"}}},
    })  # fmt: skip
    view = StateView(toy, state)
    assert view.known and view.owns("vanta") and not view.owns("bulwark")
    assert view.unit("vanta").equipped == {"primary": "longshot"}  # type: ignore[union-attr]
    assert view.option_usable("longshot", "vanta")  # unlocked
    assert view.option_usable("smoke_round")  # gate-free, on an owned hero that has it
    assert view.learners("longshot") == ["vanta"]
    assert view.members("dive") == ["vanta", "bulwark"] and not view.fieldable("dive")
    assert view.saved_groups() == {"ranked": ["vanta", "bulwark"]}
    assert (view.focus("hero"), view.focus("item"), view.context("map")) == ("vanta", None, "harbor_point")
    assert view.mentioned("hero") == ["vanta", "bulwark"] and view.player_side() == ["vanta"]
    locked = load_state({"fs": {"collection": {"units": [{"id": "vanta"}]}}})
    assert not StateView(toy, locked).option_usable("longshot")  # gated and not unlocked


def test_a_unit_is_far_behind_under_half_the_median_level_of_the_team_it_would_join(pack: Pack) -> None:
    # The example: fielded Emberfox 14, Oakhorn 19, Sparkwing 10; Lumifawn 5 on the bench.
    doc = {
        "ic": {
            "match": {
                "round": 1,
                "player_lineup": ["emberfox", "oakhorn", "sparkwing"],
                "opponent_lineup": ["voltail"],
            }
        },
        "fs": {
            "inventory": {
                "owned": [
                    {"creature_id": cid, "stage": 1, "level": level, "unlocked_skills": []}
                    for cid, level in (("emberfox", 14), ("oakhorn", 19), ("sparkwing", 10), ("lumifawn", 5))
                ]
            }
        },
    }
    view = StateView(pack, load_state(doc))
    assert view.level_norm("lumifawn") == 14  # the fielded three's median
    assert view.level_norm("sparkwing") == 19  # the other two's (upper) median: itself left out
    assert view.far_behind("lumifawn") and not view.far_behind("sparkwing")
    assert not view.far_behind("voltail")  # not the player's: nothing to judge
    alone = StateView(pack, load_state({"fs": doc["fs"]}))  # no match: the roster's median
    assert alone.level_norm("lumifawn") == 14 and alone.far_behind("lumifawn")
