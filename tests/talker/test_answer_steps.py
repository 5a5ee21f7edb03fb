"""A Φ entry's `answer` steps are checked when the pack loads: the recipe, its inputs, every
selector against the entry's own tools' result shapes (or the state), the template keys and the
placeholders the recipe fills. A bad step is refused naming file and entry."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from tests.recipe_pack import PHI, recipe_files
from tests.toy_pack import write_pack
from voicecoach.domain.pack import PLACEHOLDERS, PackError, load_pack, load_pack_from, recipe_placeholders
from voicecoach.domain.tool_shapes import resolve_shape, select


def _load(tmp_path: Path, phi: list[dict[str, Any]] | None = None, **templates: list[str]) -> Any:
    files = recipe_files(phi)
    files["templates.json"]["paragraphs"]["guidance"]["templates"] |= templates
    tmp_path.mkdir(parents=True, exist_ok=True)
    return load_pack_from(write_pack(tmp_path / "toy", files))


def _with(pair: str, **step: Any) -> list[dict[str, Any]]:
    """PHI with the first answer step of `pair` changed (a value None drops the field)."""
    phi = copy.deepcopy(PHI)
    entry = next(e for e in phi if f"{e['intent']}/{e['sub_intent']}" == pair)
    first = entry["answer"][0]
    for k, v in step.items():
        if v is None:
            first.pop(k, None)
        else:
            first[k] = v
    return phi


def test_the_toy_packs_answer_steps_load(tmp_path: Path) -> None:
    pack = _load(tmp_path)
    counters = next(e for e in pack.phi if e.sub_intent == "counters")
    assert counters.answer is not None and counters.answer[0].recipe == "pick_best"
    assert counters.answer[0].inputs["ranked"] == "hero_counters.ranked[*].id"
    assert next(e for e in pack.phi if e.intent == "smalltalk").answer is None


@pytest.mark.parametrize(
    ("pair", "step", "message"),
    [
        ("hero/counters", {"recipe": "pick_worst"}, r"answer\[0\] \(pick_worst\): unknown recipe"),
        ("hero/counters", {"ranked": "hero_counters.ranking[*].id"}, r"no field 'ranking' in the result"),
        ("hero/counters", {"ranked": "hero_counters.ranked.id"}, r"'ranked' is a list: write ranked\[\*\]"),
        (
            "hero/counters",
            {"ranked": "suggest_comp.units[*].id"},
            r"'suggest_comp' is not one of the entry's",
        ),
        ("hero/counters", {"foes": "$ic.focus.spaceship"}, r"unknown state field 'ic.focus.spaceship'"),
        ("hero/counters", {"matchup": "elements"}, r"matchup 'elements' is not in the schema"),
        ("hero/counters", {"matchup": None}, r"missing input 'matchup'"),
        ("hero/counters", {"colour": "red"}, r"unknown input 'colour'"),
        ("hero/counters", {"none_key": "counter_never"}, r"no template 'guidance/counter_never'"),
        (
            "hero/owned",
            {"key": "counter"},
            r"template guidance/counter uses \{foe\}, which ownership does not",
        ),
        ("comp/build", {"pair_key": "team_trio"}, r"no template 'guidance/team_trio'"),
        ("hero/info", {"kind": "spaceship"}, r"kind 'spaceship' is not a kind of this pack"),
        ("hero/counters", {"foes": "turn:spaceships"}, r"selector 'turn:spaceships': not a turn value"),
        ("hero/info", {"key_by": "role", "key": "hero_blurb"}, r"no template 'guidance/hero_blurb_"),
    ],
)
def test_a_bad_answer_step_is_refused_naming_file_and_entry(
    tmp_path: Path, pair: str, step: dict[str, Any], message: str
) -> None:
    with pytest.raises(PackError, match=message) as err:
        _load(tmp_path, _with(pair, **step))
    assert re.search(rf"phi\.json: entry '{re.escape(pair)}': answer\[0\]", str(err.value)), str(err.value)


def test_a_template_may_use_what_a_recipe_fills_for_the_packs_kinds_and_no_more(tmp_path: Path) -> None:
    # {heroes} is @units for this pack; {spaceships} nothing fills.
    _load(tmp_path / "a", other_pick=["Or try {hero} with {heroes}."])
    with pytest.raises(
        PackError, match=r"templates\.json: entry 'guidance/other_pick\[0\]': unknown .*spaceships"
    ):
        _load(tmp_path / "b", other_pick=["Or take your {spaceships}."])
    # pet_arena's recipes fill its own kinds' names ({creature}, {skills}), never another pack's.
    pet = recipe_placeholders(load_pack())
    assert {"creature", "creatures", "skill", "skills", "lineup", "foe_element"} <= pet
    assert "hero" not in PLACEHOLDERS | pet


def test_selectors_read_the_result_shapes_and_the_results() -> None:
    shape = {"type": "object", "properties": {"ranked": {"type": "array", "items": {
        "type": "object", "properties": {"id": {"type": "string"}, "beats": {"type": "array"}}}},
        "breakdown": {"type": "object"}}}  # fmt: skip
    assert resolve_shape(shape, "ranked[*].beats[*]") is None
    assert resolve_shape(shape, "breakdown.power") is None  # an object whose keys are data
    assert "no field 'name'" in (resolve_shape(shape, "ranked[*].name") or "")
    assert "malformed" in (resolve_shape(shape, "ranked[0]") or "")
    result = {"ranked": [{"id": "a", "beats": ["x"]}, {"id": "b", "beats": ["y", "z"]}], "n": 0}
    assert select(result, "ranked[*].id") == ["a", "b"]
    assert select(result, "ranked[*].beats[*]") == ["x", "y", "z"]
    assert select(result, "n") == 0 and select(result, "missing.field") is None


def test_pack_check_lists_a_schema_packs_tool_using_pair_without_answer_steps(tmp_path: Path) -> None:
    from voicecoach.app.packcheck import check_pack

    bare = _with("hero/owned")
    next(e for e in bare if e["sub_intent"] == "owned").pop("answer")
    folder = write_pack(tmp_path / "toy", recipe_files(bare))
    # (The toy words no greeting and no off-topic pair: pack check's rows on those are not this test's.)
    rows = [f for f in check_pack(folder) if f.check == "templates" and "uses tools" in f.detail]
    assert [(f.status, f.detail) for f in rows] == [
        ("missing", "phi.json: entry 'hero/owned': uses tools and has no answer steps")
    ]
    ok = [f for f in check_pack(write_pack(tmp_path / "toy2", recipe_files())) if f.check == "templates"]
    assert not [f for f in ok if "uses tools and has no answer steps" in f.detail]


def test_turn_selectors_and_the_also_flag_load(tmp_path: Path) -> None:
    phi = _with("hero/counters", foes=["turn:opponents", "$ic.focus.hero"], also=True)
    counters = next(e for e in _load(tmp_path, phi).phi if e.sub_intent == "counters").answer
    assert counters is not None and counters[0].also and not counters[0].follow
    assert "also" not in counters[0].inputs and counters[0].inputs["foes"][0] == "turn:opponents"
