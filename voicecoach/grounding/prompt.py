"""W2's slot call (paper A.2): `slot_prompt`, the system prompt of ``QuerySlots = L_slot(x, c1)``.

A function of the pack only (its schema's nouns, attribute names and values, global kinds and a
worked example built from its catalog), so it is byte-identical every turn and the LLM server
can reuse its KV cache.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from voicecoach.domain.catalog import Schema
from voicecoach.domain.pack import Pack
from voicecoach.grounding.diff import attribute_values
from voicecoach.grounding.repair import options_of
from voicecoach.grounding.slots import AttributePref, GlobalConstraint, QuerySlots, slot_names


def _noun_plural(schema: Schema, kind: str) -> str:
    """The kind's first noun, plural ("three pets max"): a plural the nouns list, else + "s"."""
    nouns = schema.kinds[kind].nouns
    noun = nouns[0] if nouns else kind
    if noun == kind:
        return schema.plural(kind)
    return next((n for n in (f"{noun}es", f"{noun}s") if n in nouns), f"{noun}s")


def _attribute_plural(schema: Schema, name: str) -> str:
    """ "Elements", "Roles", "Rarities": a kind's plural when the values are a kind's ids."""
    unit = schema.kinds[schema.kind("unit") or ""]
    ref = unit.attributes[name].values
    if isinstance(ref, str) and ref in schema.kinds:
        return schema.plural(ref).capitalize()
    return (name[:-1] + "ies" if name.endswith("y") else name + "s").capitalize()


def slot_prompt(pack: Pack) -> str:
    """Static system prompt of the slot-extraction call: a function of the pack only, so it is
    byte-identical every turn and its KV cache can be reused. The nouns, attribute names and values
    and global kinds come from the pack's schema."""
    schema = pack.catalog.schema
    names = slot_names(schema)
    unit, option = names.unit, names.option
    units = sorted(pack.catalog.entities.get(unit, {}).values(), key=lambda c: c.id)
    first = units[0]
    first_options = options_of(pack, first)
    option_entity = pack.catalog.get(option, first_options[0]) if option and first_options else None
    example = QuerySlots(
        wanted_entities=[first.display],
        attribute_prefs=(
            [AttributePref(entity=first.display, attribute=option or "", value=option_entity.display)]
            if option_entity is not None
            else []
        ),
        global_constraints=[GlobalConstraint(kind="max_size", value=3)],
    )
    styles = sorted(pack.vocabulary.styles)
    example_json = json.dumps(example.model_dump(exclude_defaults=True), separators=(",", ":"))
    attributes = "|".join(f'"{a}"' for a in names.attributes)
    kinds = "|".join(f'"{k}"' for k in names.globals)
    values = attribute_values(pack)

    def listed(attrs: Iterable[str]) -> str:
        return " ".join(
            f"{_attribute_plural(schema, a)}: {', '.join(values[a] or ())}." for a in attrs if values.get(a)
        )

    plain = [a for a in values if a not in names.ordered]
    lines = [
        f"Extract what the player asks for in {pack.title}. Reply with one JSON object only, keys:",
        f"wanted_entities, excluded_entities, opponent_entities: lists of {unit} names",
        f"nature_prefs, style_prefs: lists of words ({', '.join(styles)})",
        f'attribute_prefs: [{{"entity": {unit} or null, "attribute": {attributes}, '
        '"value": str, "op": "want"|"avoid"}]',
    ]
    if option:
        swap = f"\"swap out X's {option}\" is an avoid on X's {option}"
        lines.append(f'{swap} (entity X, value "*"), not an exclude of X')
    lines += [
        f'n_pick_k_swap_group: [{{"pool": [{unit} names], "pick": k}}]',
        f'global_constraints: [{{"kind": {kinds}, "value": ...}}]',
        "Leave out keys with nothing to say. Use names exactly as listed.",
        *(line for line in (listed(plain), *(listed([a]) for a in names.ordered)) if line),
        f"{schema.plural(unit).capitalize()}: {', '.join(c.display for c in units)}.",
    ]
    with_option = f" with {option_entity.display}" if option_entity is not None else ""
    many = _noun_plural(schema, unit)
    lines.append(f'Example: "I want {first.display}{with_option}, three {many} max" -> {example_json}')
    return "\n".join(lines)
