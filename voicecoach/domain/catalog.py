"""The catalog: a pack's entities by kind, and the schema that says what each kind is.

pet-arena's catalog is creatures, skills, lineups and elements; another game has other kinds
(heroes, loadout items, team comps, maps). A `Schema` lists a pack's kinds in link order (on a
surface-form clash the earlier kind wins), each with the *role* the kernels reason about:

    unit     owned and fielded                    pet: creature   a hero shooter: hero
    option   gated per unit                       pet: skill      loadout item
    group    a named team of units                pet: lineup     team comp
    type     a value of a matchup axis            pet: element
    context  match context                                        map

Every pack declares its schema in `schema.json` (docs/PACKS.md), each kind's entities in the file
the kind names. `Catalog` indexes the entities: `by_name(kind, name)`, `display_name(id)`.

A schema holds what describes a pack's files: kinds, roles, aliases, attributes, relations,
members, gate fields and the words a reply gives them by (CoachBench's responsive rule),
progression and the matchup tables, the words that refer to a unit or an option (`nouns`, `verbs`:
"that pet", "evolve it", "cast it"), the spoken gates ("evolution stage 2"), what each decision
field's absence is called (`needs`) and the pack's wording of W2's detail strings (`phrases`, over
the neutral `PHRASES`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from voicecoach.domain.english import FUNCTION_WORDS

Role = Literal["unit", "option", "group", "type", "context"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Attribute(_Model):
    """A categorical or numeric field of a kind's entities."""

    # The allowed values: listed, or a reference, either a kind (its ids: pet's "element") or a
    # vocabulary section ("vocabulary.roles", "vocabulary.styles"). None: any value.
    values: list[str] | str | None = None
    ordered: bool = Field(default=False, description="listed values run low to high (pet: rarity)")
    numeric: bool = False


class Gate(_Model):
    """One field of an entity's `unlock` object: what it tests, and how the coach says it."""

    state: str = Field(
        description='"tier" or "level" of the owned unit, "quest", or a state path (fs.player_level)'
    )
    spoken: str = Field(default="", description='e.g. "hero level {value}"')
    # What a reply may say to give the condition (CoachBench's responsive rule; none: `spoken`).
    # Placeholders: {value}, and {value_words}: the value with spaces for underscores.
    words: list[str] = Field(default_factory=list, description="what players say for it")


class Kind(_Model):
    role: Role
    plural: str = Field(default="", description='how several are said (default: the kind + "s")')
    file: str = Field(description="the pack file listing the entities")
    key: str | None = Field(default=None, description="the file is an object: the key of the list")
    aliases: list[str] = Field(default_factory=list, description="fields whose values are more names")
    nouns: list[str] = Field(
        default_factory=list, description='words for one entity: "that <noun>", "a 3-<noun> team"'
    )
    verbs: list[str] = Field(default_factory=list, description='verbs said of one: "evolve it"')
    epithet: str | None = Field(
        default=None,
        description='a text field whose words before "who" say what one is called ("a sniper who")',
    )
    attributes: dict[str, Attribute] = Field(default_factory=dict)
    relations: dict[str, str] = Field(default_factory=dict, description="field listing ids -> their kind")
    members: str | None = Field(default=None, description="group: the field listing its units")
    gate: dict[str, Gate] = Field(default_factory=dict, description="the fields of `unlock`")
    slot: str | None = Field(default=None, description="option: the attribute naming the slot it fills")
    state: str | None = Field(default=None, description="context: the state path holding its id")

    @model_validator(mode="after")
    def _role_fields(self) -> Kind:
        if (self.members is not None) != (self.role == "group"):
            raise ValueError("a group kind names its `members` field, and only a group kind does")
        if (self.state is not None) != (self.role == "context"):
            raise ValueError("a context kind names its `state` path, and only a context kind does")
        if self.slot is not None and (self.role != "option" or self.slot not in self.attributes):
            raise ValueError("`slot` names an attribute of an option kind")
        return self

    @property
    def number(self) -> str | None:
        """The first numeric attribute: what one of the kind is weighed by (pet: a creature's base
        power, a skill's power; strike: a hero's power)."""
        return next((a for a, spec in self.attributes.items() if spec.numeric), None)


class Progression(_Model):
    """Tiers a unit goes through (pet: evolution stages); the owned unit's `tier` counts them."""

    kind: str
    field: str = Field(description="the unit field naming its tiers in order")


class Matchup(_Model):
    """A multiplier table: how much `between[0]` beats `between[1]`."""

    name: str
    between: tuple[str, str]
    # id: the table's keys are the two kinds' ids; attribute: values of `attribute`, which both
    # kinds have (pet: creatures by element).
    axis: Literal["id", "attribute"] = "id"
    attribute: str | None = None
    file: str
    key: str | None = Field(default=None, description="the file is an object: the key of the table")
    default: float = 1.0
    words: dict[str, str] = Field(
        default_factory=dict, description='multiplier -> words, "1.5": "a hard counter"'
    )
    # Why each win holds, as a spoken clause ("Brannoc's barrier blocks Tamsin's lanes"): a file
    # {"a/b": reason a beats b}. rank_matchup's rows carry them, recipes say them as {reason}.
    notes: str | None = Field(default=None, description='a file of {"a/b": why a beats b}')

    @model_validator(mode="after")
    def _axis(self) -> Matchup:
        if (self.attribute is not None) != (self.axis == "attribute"):
            raise ValueError("an attribute matchup names its `attribute`, and only it does")
        return self


class Quota(_Model):
    attribute: str
    counts: dict[str, int]


class Composition(_Model):
    size: int = Field(ge=1)
    quota: Quota | None = None


# W2's detail strings (voicecoach.grounding.diff: what each judged constraint tells the Talker),
# by key, in a
# game-neutral wording. A schema's `phrases` rewords any of them with the same placeholders; the
# classic schema gives pet's own wording ("cannot learn", "the player's inventory").
PHRASES: dict[str, str] = {
    "state_unknown": "the player's collection is unavailable",
    "owns_none": "the player owns no {units} yet",
    "owns": "the player owns {name}",
    "owns_not": "the player does not own {name}",
    "exclude": "leave {name} out",
    "exclude_clash": "asked both to use and to leave out {name}",
    "pick": "pick {pick} of {pool}: the player owns {have} of them",
    "counter": "{counters} counters {foe}",
    "counter_by": "{counters} counters {foe} ({value})",  # an attribute matchup: the foe's value
    "counter_none": "nothing owned",
    "on_unit": "on {unit}",
    "option_any": "any {option}",
    "option_avoid": "swap out {option}",
    "option_usable": "{option} is unlocked",
    "option_not_on_unit": "{unit} cannot have {option}",
    "option_needs_unit": "{option} needs {unit}, which the player does not own",
    "option_locked": "{option} is not unlocked for the player{where}; it {unlock}",
    "option_holders": "(on {units})",
    "unlock_free": "available from the start",
    "unlock_gates": "unlocks with {gates}",
    "attr_is": "{subject} is {attribute} {value}",
    "attr_is_not": "{subject} is not {attribute} {value}",
    "attr_team": "an owned {unit}",
    "not_met": "not met: {wish}",
    "min_size": "team of {value}+: the player owns {count}",
    "max_size": "team of at most {value}: {count} asked for",
    "max_ordered": "nothing above {value}",
    "only": "only {value} {units}",
    "global_unmet": "{wish}: the request or roster can't",
    "style_fits": "{word} play: owned {group} {name}",
    "style_none": "no fully owned {word} {group}",
}


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


class Schema(_Model):
    """schema.json: the pack's kinds in link order, and what relates them."""

    # Where the player's entities sit in the live state: fs.inventory (classic) or fs.collection.
    state: Literal["classic", "collection"] = "collection"
    kinds: dict[str, Kind] = Field(min_length=1)
    progression: Progression | None = None
    matchups: list[Matchup] = Field(default_factory=list)
    composition: Composition | None = None
    needs: dict[str, str] = Field(
        default_factory=dict, description='decision field -> "which_x" template key'
    )
    phrases: dict[str, str] = Field(default_factory=dict, description="rewordings of PHRASES, by key")

    @model_validator(mode="after")
    def _phrases(self) -> Schema:
        for key, text in self.phrases.items():
            if key not in PHRASES:
                raise ValueError(f"phrases: unknown key {key!r}, one of {sorted(PHRASES)}")
            extra = _fields(text) - _fields(PHRASES[key])
            if extra:
                raise ValueError(f"phrases {key!r}: unknown placeholders {sorted(extra)}")
        return self

    def phrase(self, key: str, **values: object) -> str:
        """W2's detail string `key` in this schema's wording (PHRASES), filled with `values`."""
        return (self.phrases.get(key) or PHRASES[key]).format(**values)

    @model_validator(mode="after")
    def _roles(self) -> Schema:
        # The kernels reason about one owned kind, and at most one gated kind and one team kind.
        roles: tuple[Role, ...] = ("unit", "option", "group")
        for role in roles:
            n = len(self.kinds_of(role))
            if n > 1 or (role == "unit" and n == 0):
                need = "exactly" if role == "unit" else "at most"
                raise ValueError(f"kinds: {n} kinds have role {role!r}, a pack has {need} one")
        return self

    def kinds_of(self, role: Role) -> list[str]:
        return [name for name, kind in self.kinds.items() if kind.role == role]

    def kind(self, role: Role) -> str | None:
        """The pack's kind of a role (the first declared), or None."""
        return next(iter(self.kinds_of(role)), None)

    def plural(self, kind: str) -> str:
        return self.kinds[kind].plural or f"{kind}s"

    def noun(self, kind: str) -> str:
        """How one entity of `kind` is said ("the Dive comp"): its first noun, else the kind's name
        (pet's lineup has no nouns: "lineup")."""
        return next(iter(self.kinds[kind].nouns), kind)

    def collection_noun(self) -> str:
        """What the player's units are called as a whole: the state profile's field (classic:
        fs.inventory, "inventory"; collection: fs.collection, "collection")."""
        return "inventory" if self.state == "classic" else "collection"

    def context_matchup(self) -> Matchup | None:
        """The matchup of the unit kind against a context kind (a hero's fit on a map), or None."""
        unit = self.kind("unit")
        contexts = set(self.kinds_of("context"))
        return next((m for m in self.matchups if m.between[0] == unit and m.between[1] in contexts), None)

    def options_field(self) -> str | None:
        """The unit field listing the options each unit can have (pet: a creature's skills)."""
        unit, option = self.kind("unit"), self.kind("option")
        relations = self.kinds[unit].relations if unit else {}
        return next((field for field, target in relations.items() if target == option), None)


class Entity(BaseModel):
    """One catalog entry: an id, a display name and the kind's other fields as they are in the file."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = Field(min_length=1)
    name: str = ""  # "" in a file: the id is the name (pet's elements)

    def value(self, field: str) -> Any:
        """The entity's `field` as the file has it; None when absent."""
        if field in Entity.model_fields:
            return getattr(self, field)
        return (self.model_extra or {}).get(field)

    @property
    def display(self) -> str:
        return self.name or self.id


class Catalog(BaseModel):
    """A pack's entities by kind (in file order) and its matchup tables, indexed for lookups."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_: Schema = Field(alias="schema")  # `schema` is a BaseModel method's name
    entities: dict[str, dict[str, Entity]]
    tables: dict[str, dict[str, dict[str, float]]] = Field(
        default_factory=dict, description="matchup name -> {a: {b: multiplier}}"
    )
    notes: dict[str, dict[str, str]] = Field(
        default_factory=dict, description='matchup name -> {"a/b": why a beats b} (its `notes` file)'
    )

    @property
    def schema(self) -> Schema:  # type: ignore[override]
        return self.schema_

    @cached_property
    def _index(self) -> tuple[dict[str, dict[str, Entity]], dict[str, str]]:
        names: dict[str, dict[str, Entity]] = {}
        kind_of: dict[str, str] = {}
        for kind in self.schema.kinds:
            by_name = names.setdefault(kind, {})
            for e in self.entities.get(kind, {}).values():
                # The first entity whose id or name matches wins a clash.
                by_name.setdefault(e.id.lower(), e)
                by_name.setdefault(e.display.lower(), e)
                kind_of.setdefault(e.id, kind)
        return names, kind_of

    @cached_property
    def _maxima(self) -> dict[tuple[str, str], float]:
        return {}  # filled by `max_value`, once per (kind, attribute)

    @cached_property
    def memo(self) -> dict[Any, Any]:
        """Values derived from the (immutable) catalog alone, by their readers' keys (the builtin
        tools' matchup multipliers): read once per catalog, not once per team a search tries."""
        return {}

    def max_value(self, kind: str, attribute: str) -> float:
        """The largest value of a numeric attribute over the kind's entities (0 when none has it):
        a score's scale, read on every team a search tries, so computed once."""
        key = (kind, attribute)
        if key not in self._maxima:
            values = [float(e.value(attribute) or 0) for e in self.entities.get(kind, {}).values()]
            self._maxima[key] = max(values, default=0.0)
        return self._maxima[key]

    def get(self, kind: str, entity_id: str) -> Entity | None:
        return self.entities.get(kind, {}).get(entity_id)

    def by_name(self, kind: str, name: str) -> Entity | None:
        """The entity of `kind` whose id or display name is `name` (case and outer spaces ignored)."""
        return self._index[0].get(kind, {}).get(name.strip().lower())

    def kind_of(self, entity_id: str) -> str | None:
        """The kind of an id; an id two kinds share belongs to the earlier declared."""
        return self._index[1].get(entity_id)

    def note(self, matchup: str, a: str, b: str) -> str | None:
        """The matchup's reason `a` beats `b` (its notes file), or None."""
        return self.notes.get(matchup, {}).get(f"{a}/{b}")

    def display_name(self, entity_id: str) -> str:
        """What the coach calls an id: its entity's name (the earlier kind's), else the id itself."""
        kind = self.kind_of(entity_id)
        entity = self.get(kind, entity_id) if kind is not None else None
        return entity.display if entity is not None else entity_id

    def epithet_words(self, kind: str, entity: Entity) -> list[str]:
        """What players call one by its `epithet` field: the words before "who" / "whose" ("a
        **shield tank** whose barrier ..."), articles and short words left out."""
        spec = self.schema.kinds[kind]
        text = entity.value(spec.epithet) if spec.epithet else None
        if not isinstance(text, str):
            return []
        head = re.split(r"\s(?:who|whose|that|which|with)\s|[,;]", f" {text} ", maxsplit=1)[0]
        return [w for w in re.findall(r"[a-z]+", head.lower()) if w not in FUNCTION_WORDS and len(w) > 2]

    def forms(self) -> list[tuple[str, str, str]]:
        """(surface form, kind, id) of every id, name and alias, kinds in link order."""
        out: list[tuple[str, str, str]] = []
        for kind, spec in self.schema.kinds.items():
            for e in self.entities.get(kind, {}).values():
                aliases = [a for field in spec.aliases for a in e.value(field) or []]
                out += [(form, kind, e.id) for form in dict.fromkeys((e.id, e.display, *aliases))]
        return out

    # --- validation: what schema.json and the kinds' files must agree on --------------------------

    def values(self, ref: list[str] | str | None, vocabulary: dict[str, set[str]]) -> set[str] | None:
        """The values an attribute allows (None: any): listed, a kind's ids, or a vocabulary section."""
        if ref is None or isinstance(ref, list):
            return None if ref is None else set(ref)
        return vocabulary[ref] if ref in vocabulary else set(self.entities.get(ref, {}))

    def problems(self, vocabulary: dict[str, set[str]]) -> Iterator[tuple[str, str, str]]:
        """(file, entry, problem) for every reference that does not resolve; `vocabulary`: the
        vocabulary sections attributes may name ("vocabulary.roles" -> its keys)."""
        yield from self._schema_problems(vocabulary)
        for kind in self.schema.kinds:
            for e in self.entities.get(kind, {}).values():
                yield from self._entity_problems(kind, e, vocabulary)
        yield from self._matchup_problems(vocabulary)

    def _schema_problems(self, vocabulary: dict[str, set[str]]) -> Iterator[tuple[str, str, str]]:
        kinds = self.schema.kinds
        for name, kind in kinds.items():
            entry = f"kinds/{name}"
            for attr, spec in kind.attributes.items():
                ref = spec.values
                if isinstance(ref, str) and ref not in kinds and ref not in vocabulary:
                    yield "schema.json", entry, f"attribute {attr!r}: unknown values {ref!r}"
                if spec.ordered and not isinstance(ref, list):
                    yield "schema.json", entry, f"attribute {attr!r}: ordered values must be listed"
            for field, target in kind.relations.items():
                if target not in kinds:
                    yield "schema.json", entry, f"relation {field!r}: unknown kind {target!r}"
        progression = self.schema.progression
        if progression is not None and progression.kind not in kinds:
            yield "schema.json", "progression", f"unknown kind {progression.kind!r}"
        composition = self.schema.composition
        quota = composition.quota if composition is not None else None
        if composition is not None and quota is not None:
            unit = kinds[self.schema.kind("unit") or ""]
            counted = unit.attributes.get(quota.attribute)
            allowed = self.values(counted.values, vocabulary) if counted is not None else None
            if counted is None:
                yield "schema.json", "composition", f"quota: {quota.attribute!r} is not a unit attribute"
            elif allowed is not None and set(quota.counts) - allowed:
                unknown = sorted(set(quota.counts) - allowed)
                yield "schema.json", "composition", f"quota: unknown {quota.attribute} {unknown}"
            if sum(quota.counts.values()) > composition.size:
                yield "schema.json", "composition", f"quota counts exceed the size {composition.size}"

    def _entity_problems(
        self, kind: str, e: Entity, vocabulary: dict[str, set[str]]
    ) -> Iterator[tuple[str, str, str]]:
        spec = self.schema.kinds[kind]
        for attr, a in spec.attributes.items():
            value, allowed = e.value(attr), self.values(a.values, vocabulary)
            if value is None:
                continue
            if a.numeric and not isinstance(value, int | float):
                yield spec.file, e.id, f"{attr} {value!r} is not a number"
            elif allowed is not None and value not in allowed:
                yield spec.file, e.id, f"unknown {attr} {value!r}"
        links = dict(spec.relations)
        if spec.members is not None:
            links[spec.members] = self.schema.kind("unit") or ""
        for field, target in links.items():
            for ref in e.value(field) or []:
                if ref not in self.entities.get(target, {}):
                    yield spec.file, e.id, f"{field}: unknown {target} {ref!r}"
        unlock = e.value("unlock") or {}
        for gate in unlock if isinstance(unlock, dict) else ["unlock"]:
            if gate not in spec.gate:
                yield spec.file, e.id, f"unlock: {gate!r} is not one of the kind's gate fields"

    def _matchup_problems(self, vocabulary: dict[str, set[str]]) -> Iterator[tuple[str, str, str]]:
        kinds = self.schema.kinds
        for m in self.schema.matchups:
            if any(k not in kinds for k in m.between):
                yield "schema.json", f"matchups/{m.name}", f"between: unknown kind in {list(m.between)}"
                continue
            if m.attribute is not None and any(m.attribute not in kinds[k].attributes for k in m.between):
                yield (
                    "schema.json",
                    f"matchups/{m.name}",
                    f"{m.attribute!r} is not an attribute of both kinds",
                )
                continue
            sides = [
                self.values(kinds[k].attributes[m.attribute].values, vocabulary)
                if m.attribute is not None
                else set(self.entities.get(k, {}))
                for k in m.between
            ]
            table = self.tables.get(m.name, {})
            for a, row in table.items():
                for b in row:
                    if any(s is not None and x not in s for s, x in zip(sides, (a, b), strict=True)):
                        yield m.file, f"{a}/{b}", f"not a {m.between[0]} / {m.between[1]} pair"
            for key in self.notes.get(m.name, {}):
                a, sep, b = key.partition("/")
                if not sep or any(s is not None and x not in s for s, x in zip(sides, (a, b), strict=True)):
                    yield m.notes or "", key, f'not an "a/b" key of a {m.between[0]} / {m.between[1]} pair'
                elif table.get(a, {}).get(b, m.default) <= m.default:
                    # A reason for a win the table does not have would be said as a false claim.
                    yield m.notes or "", key, f"{m.file} has no win of {a} over {b}"
