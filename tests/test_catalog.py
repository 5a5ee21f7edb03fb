"""The catalog (voicecoach.catalog): pet_arena under the classic schema."""

from __future__ import annotations

from voicecoach.catalog import Entity
from voicecoach.entities import _forms
from voicecoach.pack import CLASSIC_SCHEMA, Pack

# --- pet_arena: the classic schema ---------------------------------------------------------------


def test_pet_arena_gets_the_classic_schema_and_its_files_agree_with_it(pack: Pack) -> None:
    catalog = pack.catalog
    assert catalog.schema is CLASSIC_SCHEMA
    assert list(catalog.schema.kinds) == ["creature", "skill", "lineup", "element"]
    roles = {"unit": "creature", "option": "skill", "group": "lineup", "type": "element", "context": None}
    assert {role: catalog.schema.kind(role) for role in roles} == roles
    vocabulary = {
        "vocabulary.roles": set(pack.vocabulary.roles),
        "vocabulary.styles": set(pack.vocabulary.styles),
    }
    assert list(catalog.problems(vocabulary)) == []
    assert catalog.tables["elements"] == pack.elements.counters
    assert len(catalog.entities["creature"]) == 48 and len(catalog.entities["skill"]) == 88


def test_the_catalog_forms_are_entity_linkings_in_its_order(pack: Pack) -> None:
    assert pack.catalog.forms() == list(dict.fromkeys(_forms(pack)))


def test_by_name_finds_what_creature_by_name_and_skill_by_name_find(pack: Pack) -> None:
    catalog = pack.catalog
    names = [n for c in pack.creatures.values() for n in (c.id, c.name)]
    names += [n for s in pack.skills.values() for n in (s.id, s.name)]
    for name in [*names, *(n.upper() for n in names), *(f"  {n} " for n in names), "nofox", ""]:
        creature, skill = pack.creature_by_name(name), pack.skill_by_name(name)
        found_c, found_s = catalog.by_name("creature", name), catalog.by_name("skill", name)
        assert (found_c.id if found_c else None) == (creature.id if creature else None), name
        assert (found_s.id if found_s else None) == (skill.id if skill else None), name
    assert catalog.by_name("lineup", "wildfire rush") == catalog.get("lineup", "T1")
    assert catalog.by_name("element", "Fire") == Entity(id="fire")


def test_display_name_is_the_name_of_the_earlier_kind_or_the_id(pack: Pack) -> None:
    catalog = pack.catalog
    assert catalog.display_name("emberfox") == "Emberfox"
    assert catalog.display_name("ember_fang") == "Ember Fang"
    assert catalog.display_name("T1") == "Wildfire Rush"
    assert catalog.display_name("fire") == "fire"  # elements have no display name but their id
    assert catalog.display_name("nofox") == "nofox"
    for cid, c in pack.creatures.items():
        assert catalog.display_name(cid) == c.name and catalog.kind_of(cid) == "creature"
