"""Deterministic QuerySlots: entity links + cue words, for models too small to extract slots.

`extract_slots(pack, utterance, state, earlier)` produces the same QuerySlots the LLM slot call is
asked for (`voicecoach.grounding.prompt.slot_prompt`), from rules a newcomer can read in one pass:

- every unit / option / type the entity linker finds in the utterance is a candidate (pet:
  creature / skill / element; the roles are the schema's, voicecoach.domain.catalog);
- its role comes from the nearest cue word before it in its clause (or, for "keep X out" and
  "X keeps beating me", right after it): *exclude* ("without", "no", "not", "except", "besides",
  "leave X out" ...), *opponent* ("against", "their", "vs", "they have" ...) or *want* ("my",
  "with", "use" ...); a mention with no cue that directly follows another in a list ("A, B and C")
  takes the previous one's role; otherwise a creature is wanted, unless the state's context places
  it on the opponent's side only; a unit only the player fields is never the opponent's, whatever
  the cue ("can their Voltail handle my Sparkwing" said of the player's fielded Sparkwing);
- a skill becomes an attribute pref (on the creature named with it that learns it), "swap out X's
  skill" an avoid on X's skill (not an exclude of X), "only <element>" a global constraint, "no
  <element>" an element avoid, a role word with a want / exclude cue a role pref, a play-style word
  (the pack's vocabulary) a style pref, "at most / at least N" a team size, "two of A, B and C" a
  pick group;
- the session's `earlier` constraints carry over (`voicecoach.grounding.repair.carry_over`):
  excluded creatures
  stay out until the player asks for one back.

The cue words are English; the domain words (roles, styles, names, the unit's ordered attribute
such as rarity, the unit and group nouns of a team size) come from the pack. Run
``voicecoach bench slots`` (`voicecoach.bench.slot_rules`) for slot accuracy against CoachBench's
references.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from voicecoach.core.state import LiveState
from voicecoach.domain.asked import WHICH_BETTER
from voicecoach.domain.catalog import Schema
from voicecoach.domain.entities import Mention, link_entities
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView
from voicecoach.grounding.repair import carry_over
from voicecoach.grounding.slots import ANY_SKILL, AttributePref, GlobalConstraint, PickGroup, QuerySlots

Role = Literal["want", "exclude", "opponent"]


def _alternation(*phrases: str) -> str:
    alts = sorted({p.replace(" ", r"\s+") for p in phrases}, key=len, reverse=True)
    return r"(?<![\w'])(?:" + "|".join(alts) + r")(?![\w'])"


_NEGATED = (
    "don't want to", "dont want to", "do not want to", "don't wanna", "dont wanna", "rather not",
    "won't", "wont", "will not", "not going to", "not gonna", "don't feel like", "stop",
)  # fmt: skip
_WISH_VERBS = ("use", "using", "field", "play", "bring", "run", "pick", "take", "have", "keep")  # fmt: skip
EXCLUDE = re.compile(
    _alternation(
        "without", "no", "not", "never", "except", "besides", "other than", "apart from", "minus",
        "don't want", "dont want", "do not want", "don't use", "dont use", "do not use", "no more",
        "drop", "dropping", "bench", "benching", "skip", "avoid", "ditch", "exclude", "excluding",
        "leave", "leaving", "get rid of", "instead of", "rather than", "swap out", "take out", "cut",
        "sit out", "lose", "lost", "just lost", "hate", "not using", "anything but", "without using",
        # A negated wish ends on its verb, which is also a WANT cue: as long as the nearest cue,
        # "don't want to use Granitusk" is the longer one, so the exclusion wins the tie.
        *(f"{neg} {verb}" for neg in _NEGATED for verb in _WISH_VERBS),
    ),
    re.IGNORECASE,
)  # fmt: skip
OPPONENT = re.compile(
    _alternation(
        "against", "vs", "versus", "their", "theirs", "they have", "they've got", "they got", "they're",
        "they are", "they run", "they use", "they brought", "they bring", "they sent", "they swapped in",
        "they put", "they field", "they're running", "they're using", "opponent", "opponent's", "opponents",
        "enemy", "enemy's", "facing", "face", "beats", "beat", "counter", "counters", "stop", "stops",
        "deal with", "handle", "kill", "weak to", "up against", "the other team", "other guy", "lose to",
        "losing to", "lost to", "beating me",
        # a hypothetical change on their side: "what if they swap to Pyrowl", "if they go Mireva"
        "they swap to", "they switch to", "they change to", "they swap", "they switch", "they pick",
        "they picked", "they go", "they bring in", "they sub in", "they field",
    ),
    re.IGNORECASE,
)  # fmt: skip
WANT = re.compile(
    _alternation(
        "my", "mine", "i have", "i've got", "i got", "i own", "with", "use", "using", "bring", "want",
        "include", "add", "around", "field", "play", "run", "keep", "put", "pick", "take", "need",
        "get", "train", "evolve", "level", "do i own", "own",
        # the one coming in of a swap: "who do I drop for Hexmoth", "take Dumaka off for Brannoc"
        "drop for", "bench for", "cut for", "out for", "off for", "room for", "way for", "swap in",
        "bring in", "put in", "sub in", "to fit",
    ),
    re.IGNORECASE,
)  # fmt: skip
# A role or rarity word is a wish only after one of these ("i need a tank"), not in a question
# about the word itself ("what does a healer do").
ROLE_WANT = re.compile(
    _alternation("need", "want", "with", "add", "get", "bring", "use", "include", "more", "another", "extra"),
    re.IGNORECASE,
)
_WHY_NOT = re.compile(r"^\W*(?:(?:and|so|ok|okay|but|hmm|wait)\W+)*(?:why|how\s+come)\b", re.IGNORECASE)
# Cues that follow the mention: "leave Emberfox out", "Rockram keeps beating me".
EXCLUDE_AFTER = re.compile(
    r"^\W*(?:out|aside|on\s+the\s+bench|(?:sits?|stays?|goes)\s+out|is\s+out|"
    r"(?:just\s+)?(?:died|fainted|is\s+(?:down|dead)|went\s+down|got\s+(?:knocked\s+out|killed)))(?![\w'])",
    re.IGNORECASE,
)
OPPONENT_AFTER = re.compile(
    r"^\W*(?:(?:keeps?|is|are|was|has\s+been)\s+(?:\w+\s+)?(?:beating|wrecking|destroying|killing|crushing|"
    r"smashing|countering|bullying|stomping)|(?:beats|wrecks|destroys|kills|crushes|counters|stomps)\s+"
    r"(?:me|us|my|mine))(?![\w'])",
    re.IGNORECASE,
)
# "Swap out Emberfox's skill": English words for an option, plus the option kind's nouns.
_OPTION_WORDS = ("skill", "skills", "move", "moves", "attack", "ability", "abilities")
_OPTION_OF: dict[int, tuple[Schema, re.Pattern[str]]] = {}


def _option_of(schema: Schema) -> re.Pattern[str]:
    hit = _OPTION_OF.get(id(schema))
    if hit is None or hit[0] is not schema:
        option = schema.kind("option")
        nouns = schema.kinds[option].nouns if option else []
        words = "|".join(dict.fromkeys([*_OPTION_WORDS, *nouns, *(f"{n}s" for n in nouns)]))
        pattern = re.compile(rf"^(?:'s|’s|s)?\s+(?:{words})(?![\w'])", re.IGNORECASE)
        hit = _OPTION_OF[id(schema)] = (schema, pattern)
    return hit[1]


ONLY = re.compile(
    _alternation("only", "just", "all", "mono", "nothing but", "full", "pure", "purely"), re.IGNORECASE
)
ONLY_AFTER = re.compile(r"^\s+(?:\w+\s+)?(?:only|team only)(?![\w'])", re.IGNORECASE)
CLAUSE = re.compile(r"[.;!?\n]+|\s(?=(?:but|however|although|though|whereas)\b)", re.IGNORECASE)
LIST_GAP = re.compile(
    r"^(?:\s|,|&|\band\b|\bor\b|\bnor\b|\bplus\b|\beither\b|\bor\s+even\b)*$", re.IGNORECASE
)
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "a pair": 2, "a couple": 2}
_NUMBER = r"(\d|one|two|three|four|five)"
MAX_SIZE = re.compile(
    rf"(?:at\s+most|max(?:imum)?|no\s+more\s+than|up\s+to|only)\s+{_NUMBER}(?![\w'])|{_NUMBER}\s+(?:\w+\s+)?max(?:imum)?(?![\w'])",
    re.IGNORECASE,
)
# "A 3-pet team", "a team of 3": English words for a unit and a team, plus the schema's unit and
# group nouns (pet's creature nouns: pet, creature).
_UNIT_WORDS = ("man", "mon")
_TEAM_WORDS = ("team", "lineup", "squad")
_MIN_SIZE: dict[int, tuple[Schema, re.Pattern[str]]] = {}


def _min_size(schema: Schema) -> re.Pattern[str]:
    hit = _MIN_SIZE.get(id(schema))
    if hit is None or hit[0] is not schema:
        unit, group = schema.kind("unit"), schema.kind("group")
        groups = schema.kinds[group].nouns if group else []
        units = "|".join(dict.fromkeys([*(schema.kinds[unit].nouns if unit else []), *_UNIT_WORDS]))
        of = "|".join(dict.fromkeys([*_TEAM_WORDS, "party", *groups]))
        sized = "|".join(dict.fromkeys([*_TEAM_WORDS, *groups]))
        pattern = re.compile(
            rf"(?:at\s+least|min(?:imum)?)\s+{_NUMBER}(?![\w'])|{_NUMBER}\s+or\s+more(?![\w'])|"
            rf"(?:{of})\s+of\s+{_NUMBER}(?![\w'])|{_NUMBER}[\s-](?:{units})\s+(?:{sized})",
            re.IGNORECASE,
        )
        hit = _MIN_SIZE[id(schema)] = (schema, pattern)
    return hit[1]


PICK = re.compile(rf"(?<![\w']){_NUMBER}\s+of\s+(?!(?:my|them|mine|those|these|the)\b)", re.IGNORECASE)
MAX_RARITY = re.compile(
    r"(?:nothing|none|no\s+\w+)\s+(?:above|over|higher\s+than|better\s+than|rarer\s+than)\s+(\w+)|"
    r"(?:at\s+most|max(?:imum)?|up\s+to)\s+(\w+)\s+rarity",
    re.IGNORECASE,
)


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text.lower()]


def _ordered_attributes(pack: Pack) -> dict[str, list[str]]:
    """The unit's ordered attributes with their values, low to high (pet: rarity)."""
    schema = pack.catalog.schema
    unit = schema.kinds[schema.kind("unit") or ""]
    return {
        name: a.values
        for name, a in unit.attributes.items()
        if a.ordered and isinstance(a.values, list) and not a.numeric
    }


def _kinds_of(pack: Pack) -> dict[str, str]:
    """kind -> role of the kinds whose mentions become slots: the unit, the option, and the types a
    unit attribute takes its values from (W2's `<attribute>_only`)."""
    schema = pack.catalog.schema
    typed = set(_type_attributes(schema))
    return {
        kind: spec.role
        for kind, spec in schema.kinds.items()
        if spec.role in ("unit", "option") or (spec.role == "type" and kind in typed)
    }


def _type_attributes(schema: Schema) -> dict[str, str]:
    """type kind -> the unit attribute whose values are its ids (pet: element -> element)."""
    unit = schema.kinds[schema.kind("unit") or ""]
    out: dict[str, str] = {}
    for name, a in unit.attributes.items():
        if isinstance(a.values, str) and a.values in schema.kinds and schema.kinds[a.values].role == "type":
            out.setdefault(a.values, name)
    return out


@dataclass(frozen=True)
class _Word:
    """A domain word found in the utterance: a role or play-style phrase, or the value of an
    ordered unit attribute (pet: a rarity); `kind` is "role", "style" or that attribute."""

    kind: str
    value: str
    span: tuple[int, int]


def _vocabulary_words(pack: Pack, text: str) -> list[_Word]:
    forms: list[tuple[str, str, str]] = []
    for role, role_words in pack.vocabulary.roles.items():
        forms += [(w, "role", role) for w in role_words.words]
    for style, words in pack.vocabulary.styles.items():
        forms += [(w, "style", style) for w in words.words]
    for attribute, values in _ordered_attributes(pack).items():
        forms += [(v, attribute, v) for v in values]
    forms.sort(key=lambda f: -len(f[0]))
    found: list[_Word] = []
    taken: list[tuple[int, int]] = []
    for form, kind, value in forms:
        pattern = r"(?<![\w'])" + r"[\s-]+".join(map(re.escape, form.split())) + r"(?:e?s)?(?![\w'])"
        for m in re.finditer(pattern, text, re.IGNORECASE):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue  # "damage dealer" already claimed these words
            taken.append(m.span())
            found.append(_Word(kind, value, m.span()))
    return sorted(found, key=lambda w: w.span)


def named_roles(pack: Pack, text: str) -> list[str]:
    """The unit roles the text names, in order ("who's my best striker": ["striker"])."""
    return list(dict.fromkeys(w.value for w in _vocabulary_words(pack, text) if w.kind == "role"))


def _clause_start(text: str, at: int) -> int:
    starts = [m.end() for m in CLAUSE.finditer(text, 0, at)]
    return starts[-1] if starts else 0


def _cue_before(gap: str) -> Role | None:
    """The role the nearest cue in `gap` gives; on a tie the longer cue ("they have" > "have")."""
    found = [
        (m.end(), m.end() - m.start(), role)
        for pattern, role in ((EXCLUDE, "exclude"), (OPPONENT, "opponent"), (WANT, "want"))
        for m in pattern.finditer(gap)
        # "like not a ton, and I was thinking of Lumifawn": a bare "no"/"not" far before the name
        # negates something else
        if not (role == "exclude" and m.group(0).lower() in ("no", "not") and len(gap[m.end() :].split()) > 3)
        # "so that's a no for the fox": an answer asked for, not the fox left out
        and not (role == "exclude" and m.group(0).lower() == "no" and re.search(r"\ba\s+$", gap[: m.start()]))
    ]
    return max(found)[2] if found else None  # type: ignore[return-value]


def _roles(text: str, mentions: Sequence[Mention | _Word]) -> list[Role | None]:
    """Each mention's role from its cues; None: no cue at all (the caller picks the default)."""
    roles: list[Role | None] = []
    prev_end, prev_role = 0, None
    for i, m in enumerate(mentions):
        start, end = m.span
        clause = _clause_start(text, start)
        same_clause = i > 0 and prev_end >= clause
        gap = text[prev_end if same_clause else clause : start]
        after = text[end : mentions[i + 1].span[0] if i + 1 < len(mentions) else len(text)]
        role: Role | None
        if EXCLUDE_AFTER.match(after):
            role = "exclude"
        elif OPPONENT_AFTER.match(after):
            role = "opponent"
        else:
            role = _cue_before(gap)
            if role is None and same_clause and LIST_GAP.match(gap):
                role = prev_role
        roles.append(role)
        prev_end, prev_role = end, role
    return roles


def extract_slots(
    pack: Pack, utterance: str, state: LiveState | None = None, earlier: QuerySlots | None = None
) -> QuerySlots:
    """QuerySlots for `utterance` by rules (see the module docstring); `earlier` carries over."""
    text = utterance.replace("’", "'")
    catalog, role_of = pack.catalog, _kinds_of(pack)
    mentions = [m for m in link_entities(pack, text) if m.kind in role_of]
    words = _vocabulary_words(pack, text)
    # Words inside a linked name ("Stormtank") are not vocabulary.
    words = [w for w in words if not any(m.span[0] <= w.span[0] < m.span[1] for m in mentions)]
    roles = _roles(text, mentions)
    if _WHY_NOT.match(text):
        # "Why them and not the fox", "why not Hexmoth": asks why it was not picked; it stays a choice.
        roles = [None if r == "exclude" else r for r in roles]
    match = state.ic.match if state is not None else None
    view = StateView(pack, state) if state is not None else None
    opponent_side = set(match.opponent_lineup) - set(match.player_lineup) if match else set()
    player_side = set(match.player_lineup) - set(match.opponent_lineup) if match else set()

    wanted: list[str] = []
    excluded: list[str] = []
    opponent: list[str] = []
    prefs: list[AttributePref] = []
    globals_: list[GlobalConstraint] = []
    groups: list[PickGroup] = []
    creatures = [(m, r) for m, r in zip(mentions, roles, strict=True) if role_of[m.kind] == "unit"]

    def name(m: Mention) -> str:
        entity = catalog.get(m.kind, m.id)
        return entity.display if entity is not None else m.surface

    # "two of A, B and C": the pool is every creature after the cue in its clause.
    in_group: set[int] = set()
    for pm in PICK.finditer(text):
        clause_end = next((c.start() for c in CLAUSE.finditer(text, pm.end())), len(text))
        pool = [m for m, _ in creatures if pm.end() <= m.span[0] < clause_end]
        if len(pool) >= 2:
            groups.append(PickGroup(pool=[name(m) for m in pool], pick=_number(pm.group(1))))
            in_group.update(m.span[0] for m in pool)

    option_attribute = catalog.schema.kind("option")
    typed = _type_attributes(catalog.schema)
    for m, role in creatures:
        unit = name(m)
        if m.span[0] in in_group:
            continue
        after = text[m.span[1] :]
        if role == "exclude" and option_attribute and _option_of(catalog.schema).match(after):
            # "swap out Emberfox's skill": change the skill, keep the creature.
            prefs.append(AttributePref(entity=unit, attribute=option_attribute, value=ANY_SKILL, op="avoid"))
            wanted.append(unit)
            continue
        if role is None:
            owned = view is not None and view.owns(m.id)
            role = "opponent" if m.id in opponent_side and not owned else "want"
        elif role == "opponent" and m.id in player_side:
            role = "want"  # the state says whose it is: the player's own fielded unit is never the foe
        elif role == "opponent" and WHICH_BETTER.search(after) and m.id not in opponent_side:
            role = "want"  # "Emberfox vs Pyrowl, which is better": weighed against, not fought
        elif (
            role == "want"
            and m.id in opponent_side
            and view is not None
            and view.known
            and not view.owns(m.id)
        ):
            role = "opponent"  # "who comes out for Briarcat": theirs, and not one the player could field
        {"want": wanted, "exclude": excluded, "opponent": opponent}[role].append(unit)

    for m, role in zip(mentions, roles, strict=True):
        if role_of[m.kind] == "option" and option_attribute:
            owner = _option_owner(pack, mentions, m, text)
            op: Literal["want", "avoid"] = "avoid" if role == "exclude" else "want"
            prefs.append(AttributePref(entity=owner, attribute=option_attribute, value=name(m), op=op))
        elif role_of[m.kind] == "type":
            # "only fire", "no fire": a constraint on the whole team by the type's own attribute.
            before = text[_clause_start(text, m.span[0]) : m.span[0]]
            only_before = ONLY.search(before[-12:]) is not None
            if only_before or ONLY_AFTER.match(text[m.span[1] :]):
                globals_.append(GlobalConstraint(kind=f"{typed[m.kind]}_only", value=m.id))
            elif role == "exclude":
                prefs.append(AttributePref(attribute=typed[m.kind], value=m.id, op="avoid"))

    word_roles = _roles(text, words)
    styles: list[str] = []
    for w, role in zip(words, word_roles, strict=True):
        if w.kind == "style" and role != "exclude":
            styles.append(w.value)
        elif w.kind != "style":
            # "is Rockram a tank": the wish is about the unit just named.
            about = _unit_before(pack, mentions, text, w.span[0])
            before = text[_clause_start(text, w.span[0]) : w.span[0]]
            if role == "exclude":
                prefs.append(AttributePref(entity=about, attribute=w.kind, value=w.value, op="avoid"))
            elif about is not None or ROLE_WANT.search(before):
                prefs.append(AttributePref(entity=about, attribute=w.kind, value=w.value, op="want"))

    for pattern, kind in ((MAX_SIZE, "max_size"), (_min_size(catalog.schema), "min_size")):
        for sm in pattern.finditer(text):
            number = next(g for g in sm.groups() if g)
            globals_.append(GlobalConstraint(kind=kind, value=_number(number)))
    ordered = _ordered_attributes(pack)
    for rm in MAX_RARITY.finditer(text):
        value = next(g for g in rm.groups() if g).lower().rstrip("s")
        attribute = next((a for a, values in ordered.items() if value in values), None)
        if attribute is not None:
            globals_.append(GlobalConstraint(kind=f"max_{attribute}", value=value))

    slots = QuerySlots(
        wanted_entities=_unique(wanted),
        excluded_entities=_unique(excluded),
        opponent_entities=_unique(opponent),
        attribute_prefs=list(dict.fromkeys(prefs)),
        style_prefs=_unique(styles),
        n_pick_k_swap_group=groups,
        global_constraints=list(dict.fromkeys(globals_)),
    )
    return carry_over(slots, earlier, pack, utterance)


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _unit_name(pack: Pack, unit_id: str) -> str:
    entity = pack.catalog.get(pack.catalog.schema.kind("unit") or "", unit_id)
    return entity.display if entity is not None else unit_id


_AGAINST_BEFORE = re.compile(r"\b(?:against|vs|versus|into)\s+(?:their\s+|the\s+|that\s+)?$", re.IGNORECASE)


def _option_owner(pack: Pack, mentions: Sequence[Mention], option: Mention, text: str) -> str | None:
    """The unit named with the option that can have it (pet: the creature that learns the skill):
    the nearest before it, else after it; not one it is set against ("is Bramble Crush good against
    Briarcat": Briarcat learns it too, but takes it here)."""
    catalog = pack.catalog
    unit, field = catalog.schema.kind("unit"), catalog.schema.options_field()

    def has(m: Mention) -> bool:
        entity = catalog.get(m.kind, m.id)
        return entity is not None and field is not None and option.id in (entity.value(field) or [])

    learners = [
        m for m in mentions if m.kind == unit and has(m) and not _AGAINST_BEFORE.search(text[: m.span[0]])
    ]
    before = [m for m in learners if m.span[0] < option.span[0]]
    chosen = before[-1] if before else (learners[0] if learners else None)
    return _unit_name(pack, chosen.id) if chosen else None


def _unit_before(pack: Pack, mentions: Sequence[Mention], text: str, at: int) -> str | None:
    """The unit a role / rarity word describes: "is Rockram a tank", "Rockram as a tank"."""
    clause = _clause_start(text, at)
    unit = pack.catalog.schema.kind("unit")
    before = [m for m in mentions if m.kind == unit and clause <= m.span[0] < at]
    if before and re.fullmatch(r"\s+(?:is|as|a|an|be|\s)+", text[before[-1].span[1] : at] + " "):
        return _unit_name(pack, before[-1].id)
    return None
