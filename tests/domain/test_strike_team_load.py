"""strike_team loads as an installed pack: its W3 comp candidates are the group kind's
entities, read at run time through StateView by W3's own rule (w3.py unchanged), its counter reasons
are a catalog table the counter tool's rows carry, and the Φ arguments the builtins take."""

from __future__ import annotations

import json

from voicecoach.core.state import load_state
from voicecoach.domain.pack import PACKS_DIR, load_pack
from voicecoach.interaction.kernel import recommend_violations
from voicecoach.tools.registry import run_tool, validate_args

STATE = json.loads((PACKS_DIR / "strike_team" / "example_state.json").read_text(encoding="utf-8"))


def test_the_pack_loads_and_w3_judges_its_comps_by_the_collection() -> None:
    pack = load_pack("strike_team")
    state = load_state(STATE)
    violates = recommend_violations(pack, state, excluded=set())
    comps = [c for c in pack.w3.branches["recommend"].pool if c.lineup_id is not None]
    verdicts = {c.lineup_id: violates(c) for c in comps}
    assert len(verdicts) == 10 and not any("unknown" in (v or "") for v in verdicts.values())
    owned = {u.id for u in state.fs.collection.units}  # type: ignore[union-attr]
    for comp, verdict in verdicts.items():
        fieldable = set(pack.catalog.get("comp", comp).value("heroes")) <= owned  # type: ignore[union-attr]
        assert (verdict is None) == fieldable, (comp, verdict)
    # A hero the player keeps out holds back every comp that fields it.
    kept_out = recommend_violations(pack, state, excluded={"Brannoc"})
    assert all(
        kept_out(c) is not None
        for c in comps
        if "brannoc" in pack.catalog.get("comp", c.lineup_id).value("heroes")
    )  # type: ignore[arg-type, union-attr]


def test_the_counter_rows_carry_the_designers_reason() -> None:
    pack, state = load_pack("strike_team"), load_state(STATE)
    ranked = run_tool(pack, state, "hero_counters", {"opponent": ["quillon"]})["ranked"]
    brannoc = next(r for r in ranked if r["id"] == "brannoc")
    assert brannoc["beats"] == ["quillon"]
    assert brannoc["reasons"] == {"quillon": pack.catalog.note("counters", "brannoc", "quillon")}
    assert all(set(r["reasons"]) <= set(r["beats"]) for r in ranked)


def test_the_phi_arguments_are_the_builtins_own() -> None:
    pack, state = load_pack("strike_team"), load_state(STATE)
    assert validate_args("suggest_comp", {"style": "dive", "map": "Fathom Docks"}, pack) == {
        "style": "dive", "map": "fathom_docks"
    }  # fmt: skip
    dive = run_tool(pack, state, "suggest_comp", {"style": "dive"})
    plain = run_tool(pack, state, "suggest_comp", {})
    styles = {u["id"]: pack.catalog.get("hero", u["id"]).value("style") for u in dive["units"]}  # type: ignore[union-attr]
    assert dive["matching"] == list(styles.values()).count("dive") and dive["prefer"] == {"style": "dive"}
    assert dive["quota_missing"] == {} == plain["quota_missing"]  # the preference never breaks the quota
    on_map = run_tool(
        pack, state, "score_comp", {"heroes": STATE["ic"]["match"]["player_lineup"], "map": "fathom_docks"}
    )
    assert set(on_map["breakdown"]) == {"power", "composition", "edge", "map_fit"}
    assert sum(on_map["max"].values()) == 100 and on_map["map"]["id"] == "fathom_docks"
