"""Descriptions of units ("their electric one", "my main healer", "their supports") read against
the live state: which side the words point to, and the one unit (or the few) on it that every
word describes. The words come from the pack: each unit's categorical attributes and their
vocabulary, its `epithet` field ("a **sniper** who ..."), the parts of an invented name ("the
fox" of Emberfox). Part of reading a turn in its dialogue (`voicecoach.perception.dialogue`).

Pure Python over the pack and the state: no Pipecat, no model.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from voicecoach.core.state import LiveState
from voicecoach.domain.effects import BY_NAME, option_effects
from voicecoach.domain.english import FUNCTION_WORDS, ORDINARY_MIN_COUNT, english_counts
from voicecoach.domain.entities import Mention, link_entities
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView

Side = str  # "mine", "theirs" or "any"


THEIRS = (
    "their",
    "theirs",
    "enemy",
    "enemy's",
    "enemies",
    "opponent",
    "opponent's",
    "opponents",
    "other team's",
)
MINE = ("my", "mine", "our", "ours")
_DETERMINERS = (*THEIRS, *MINE, "the", "that", "this", "his", "her", "your")
_HEADS = {
    "one",
    "guy",
    "dude",
    "girl",
    "thing",
    "unit",
    "boy",
    "lad",
    "fella",
    "bloke",
    "lady",
    "woman",
    "man",
}
_PLURAL_HEADS = {"ones", "guys", "things", "units"}
# Words that take a that-clause ("true that", "heard that", "says that").
_THAT_CLAUSE = {
    "true", "sure", "think", "thought", "say", "says", "said", "heard", "hear", "reckon", "reckons", "know",
    "knew", "mean", "believe", "claims", "claim", "told", "read", "saw", "seen", "right", "correct",
}  # fmt: skip
_FEMALE_HEADS = {"lady", "woman", "girl", "gal", "chick"}  # ("guy" is said of anyone)
_STRONGEST = {"best", "strongest", "biggest", "scariest", "most dangerous", "top", "carry", "star"}
_PLURALS = {"guys", "units", "ones", "characters", "folks"}  # and the pack's plural nouns (`_plurals`)
# Parts of the game a description word may qualify ("the mid fights"): no unit.
_SCENE_NOUNS = {
    "fight", "fights", "fighting", "game", "games", "round", "rounds", "lane", "lanes", "match", "matches",
    "matchup", "phase", "area", "areas", "zone", "zones", "push", "pushes", "angle", "angles", "game's",
}  # fmt: skip
_ASKS_WHICH = re.compile(r"\b(?:who|which|what)(?:'?s|\s+is|\s+are)?\b", re.IGNORECASE)
_SIDE_AFTER = re.compile(
    r"^\s+(?:(?:on|from|in)\s+(?P<s1>their|the enemy|the other|enemy|my|our)\s+(?:side|team)|"
    r"of\s+(?P<s2>theirs|mine|ours|them))\b",
    re.IGNORECASE,
)
# Cue verbs before a pronoun: which side the unit it stands for is on.
THEIRS_CUE = re.compile(
    r"\b(?:beat|beats|takes|take on|counter|counters|countering|against|vs|versus|handles?|deals? with|"
    r"stops?|kills?|fight|face|facing|worry about|scared of|afraid of|weak to|lose to|losing to|lost to|"
    r"punish|shut down|shutdown|outplay|survive|play around|dive|focus|target|get to|catch|reach|"
    r"keep up with|trade with|pressure|go after|hunt|match up with|match up against|"
    # "I keep losing Oakhorn to the electric guy": what the player loses to is theirs
    r"(?:lose|loses|losing|lost)\s+(?:\w+\s+){1,3}?to)\s+$",
    re.IGNORECASE,
)
# Words a player puts before a description that describe no unit ("their annoying fire one").
_FILLER_ADJECTIVES = {
    "big", "little", "small", "annoying", "stupid", "dumb", "damn", "freaking", "fat", "huge", "tiny",
    "scary", "new", "fast", "slow", "lil",
}  # fmt: skip
# Words before a description noun that pick one out by order or side, not by look ("the other cat").
_NOT_FILLER = {
    "other", "same", "first", "second", "third", "last", "next", "previous", "only", "whole", "enemy",
    "opposing", "main", "own", "real", "right", "wrong", "current", "old", "starting", "final",
}  # fmt: skip


_DIMINUTIVE = re.compile(r"^(?P<stem>[a-z]{3,}?)(?:p?y|p?ie|g?gy|g?go|t?ty|sy|o)$")


# Pet forms English does not make by an ending ("kitty" is a cat).
_PET_FORMS = {
    "kitty": "cat",
    "kitten": "cat",
    "kitteh": "cat",
    "doggy": "dog",
    "bunny": "rabbit",
    "birb": "bird",
}


def _diminutive(d: Describer, word: str) -> str:
    """A pet form of a look word the pack has ("puppy" of pup, "doggo" of dog, "birdie" of bird)."""
    if word in d.vocabulary:
        return word
    if _PET_FORMS.get(word) in d.vocabulary:
        return _PET_FORMS[word]
    m = _DIMINUTIVE.match(word)
    return m["stem"] if m is not None and m["stem"] in d.vocabulary else word


# Everyday words that are no look ("their sniper keeps one-shotting me": a verb, not "keeps one").
_NO_LOOK = {
    "keeps",
    "keep",
    "gets",
    "got",
    "goes",
    "went",
    "just",
    "always",
    "still",
    "also",
    "really",
    "literally",
}


def _filler(word: str) -> bool:
    """An everyday word before a description noun the pack knows ("the spiky cat", "their purple
    bird"): a look the data does not record, so the noun describes alone."""
    return (
        word.isalpha()
        and word not in _NOT_FILLER
        and word not in _NO_LOOK
        and word not in _STRONGEST
        and english_counts().get(word, 0) >= ORDINARY_MIN_COUNT
    )


# A description as the subject of something done to the player: "the tank keeps walling us".
_HURTS_US = re.compile(
    r"\s+(?:keeps?\s+(?:on\s+)?\w+ing|(?:is|was|'s)\s+(?:just\s+|always\s+)?(?:killing|wrecking|destroying|"
    r"beating|outspeeding|walling|diving|poking|stomping|farming|bullying|one\s*shotting))\b",
    re.IGNORECASE,
)
_COUNTERS_A = re.compile(r"\bcounter(?:s|ing)?\s+$", re.IGNORECASE)
_FIELDS_IT = re.compile(
    r"\b(?:i|we)\s+(?:\w+\s+)?(?:need|bring|use|play|pick|run|field|take)\s+$"
    r"|\b(?:swap|switch|go)\s+(?:in\s+|over\s+)?(?:to|with)\s+$",
    re.IGNORECASE,
)
# A phrasal verb around the pronoun that faces a foe: "take him on", "shut her down", "pick it off".
THEIRS_AROUND = (
    re.compile(r"\b(?:take|shut|lock|knock|pick|wipe|burst|chase|push|hold|kill|blow)\s+$", re.IGNORECASE),
    re.compile(r"^\s+(?:on|out|down|off|back)\b", re.IGNORECASE),
)


def faces_foe(before: str, after: str) -> bool:
    """Do the words around a pronoun point at the opponent's side ("beat him", "take it on")?"""
    return THEIRS_CUE.search(before) is not None or (
        THEIRS_AROUND[0].search(before) is not None and THEIRS_AROUND[1].match(after) is not None
    )


# "Briarcat is already down", "we took out their sniper": a unit told out of the fight (English cues).
_DOWN_AFTER = re.compile(
    r"^(?:'s|s)?\s+(?:(?:is|was|just|got|already|now|finally)\s+)*(?:down|dead|gone|ko'?d|knocked\s+out|"
    r"fainted|taken\s+care\s+of|out\s+of\s+the\s+(?:fight|game|round))\b",
    re.IGNORECASE,
)
_DOWN_BEFORE = re.compile(
    r"\b(?:took|taken|knocked|killed|downed|ko'?d|finished\s+off)\s+(?:out\s+|down\s+)?(?:their\s+|the\s+)?$",
    re.IGNORECASE,
)


def told_down(pack: Pack, text: str) -> list[str]:
    """The units `text` tells are out of the fight now ("Briarcat is already down")."""
    unit = pack.catalog.schema.kind("unit")
    return [
        m.id
        for m in link_entities(pack, text)
        if m.kind == unit and (_DOWN_AFTER.match(text[m.span[1] :]) or _DOWN_BEFORE.search(text[: m.span[0]]))
    ]


# --- the pack's descriptive vocabulary ----------------------------------------------------------


@dataclass(frozen=True)
class Describer:
    """Per unit id: the words that describe it (attribute values and their vocabulary words, the
    epithet's words, name parts); and the pack's whole descriptive vocabulary."""

    words: dict[str, frozenset[str]]
    vocabulary: frozenset[str]
    power: dict[str, float]
    # The words that single a unit out (its epithet, name parts, attribute values), beside the
    # role's vocabulary words every unit of the role shares ("healer" of every support).
    strong: dict[str, frozenset[str]]
    roles: frozenset[str]  # the role names and their vocabulary words ("tank", "healer")
    # The head words of the unit's own options ("shotgun" of Auto Shotgun): a description only as
    # "the shotgun guy" (before a head noun), so "my hands are tired" names no one.
    gear: frozenset[str] = frozenset()
    # The attribute values and their words ("water", "watery", "rare", "tank"): kinds of unit, not
    # a look a word before them may qualify.
    valued: frozenset[str] = frozenset()


_DESCRIBERS: dict[int, tuple[Pack, Describer]] = {}

# Everyday words players say for what a pack's text calls otherwise (English): a unit whose own
# words have one of a group has the rest that no unit's own words have ("the bomb guy" of a
# grenadier, "the cowboy" of a gunslinger; "the deer" stays the one the pack calls a deer).
_KIN = (
    frozenset({"grenade", "grenades", "grenadier", "bomb", "bombs", "bomber"}),
    frozenset({"gunslinger", "cowboy"}),
    frozenset({"revolver", "revolvers", "pistol", "pistols", "handgun"}),
    frozenset({"deer", "stag", "fawn", "elk", "reindeer"}),
    frozenset({"oak", "tree"}),
    frozenset({"horn", "horns", "horned", "antler", "antlers", "antlered"}),
    frozenset({"turtle", "tortoise"}),
    frozenset({"bug", "insect"}),
    frozenset({"critter", "mouse", "rat", "rodent", "hamster"}),
)


def _with_kin(words: frozenset[str], taken: frozenset[str]) -> frozenset[str]:
    return words.union(*(group - taken for group in _KIN if group & words))


def describer(pack: Pack) -> Describer:
    hit = _DESCRIBERS.get(id(pack))
    if hit is not None and hit[0] is pack:
        return hit[1]
    schema = pack.catalog.schema
    unit_kind = schema.kind("unit") or ""
    spec = schema.kinds[unit_kind]
    role_words = {role: [w.lower() for w in r.words] for role, r in pack.vocabulary.roles.items()}
    numeric = next((n for n, a in spec.attributes.items() if a.numeric), None)
    words: dict[str, frozenset[str]] = {}
    strong: dict[str, frozenset[str]] = {}
    power: dict[str, float] = {}
    valued: set[str] = set()
    for uid, entity in pack.catalog.entities.get(unit_kind, {}).items():
        found: set[str] = set()
        shared: set[str] = set()
        for name, attribute in spec.attributes.items():
            if attribute.numeric:
                continue
            value = entity.value(name)
            for v in value if isinstance(value, list) else [value]:
                if not isinstance(v, str):
                    continue
                found.add(v.lower())
                typed = pack.catalog.get(attribute.values, v) if isinstance(attribute.values, str) else None
                if typed is not None:
                    found.add(typed.display.lower())
                    found.update(_adjectives(v.lower()))  # a type's adjective: "their grassy cat"
                shared.update(role_words.get(v, []))
        valued.update(found | shared)
        epithet = pack.catalog.epithet_words(unit_kind, entity)
        found.update(epithet)
        found.update(part for word in epithet for part in _compound_parts(word))  # "flame" of flamethrower
        found.update(_noun_of(word) for word in epithet if _noun_of(word))  # "antler" of "antlered"
        found.update(_y_form(word) for word in epithet if _y_form(word))  # "glowy" of "glowing"
        found.update(_having(entity.value(spec.epithet) if spec.epithet else None))
        display = entity.display.lower()
        if " " not in display:
            # Name parts players say of an invented compound: "the owl" of Pyrowl, "the fox" of
            # Emberfox, and a head only when the rest is a word too ("ember"; "gun" is no part of
            # Gundra).
            english = english_counts()
            for i in range(3, len(display) - 2):
                head, tail = display[:i], display[i:]
                if tail not in FUNCTION_WORDS:
                    found.add(tail)
                if min(english.get(head, 0), english.get(tail, 0)) >= ORDINARY_MIN_COUNT:
                    found.add(head)
        words[uid] = frozenset(found | shared)
        strong[uid] = frozenset(found)
        if numeric is not None and isinstance(p := entity.value(numeric), int | float):
            power[uid] = float(p)
    vocabulary = frozenset(w for ws in words.values() for w in ws)
    roles = frozenset({*role_words, *(w for ws in role_words.values() for w in ws)})
    gear = _gear_words(pack, unit_kind)
    for uid, heads in gear.items():
        words[uid] = words.get(uid, frozenset()) | heads
        strong[uid] = strong.get(uid, frozenset()) | heads
    taken = frozenset(w for ws in words.values() for w in ws)
    for uid in strong:
        kin = _with_kin(strong[uid] - gear.get(uid, frozenset()), taken) - taken  # (a look's, not a gun's)
        # A gun's kin fits too, weakly ("pistols" of revolvers; the one whose gun is a pistol first)
        held = _with_kin(gear.get(uid, frozenset()), frozenset()) - strong[uid]
        words[uid], strong[uid] = words[uid] | kin | held, strong[uid] | kin
        vocabulary |= kin | held
    gear_words = frozenset(w for ws in gear.values() for w in ws) - vocabulary
    describer = Describer(words, vocabulary, power, strong, roles, gear_words, frozenset(valued) | roles)
    _DESCRIBERS[id(pack)] = (pack, describer)
    return describer


def _compound_parts(word: str) -> set[str]:
    """The words an English compound is made of ("flamethrower": flame, thrower), but none so common
    that players say it of anything ("drop" of dewdrop, "shot" of shotgun); none when it splits into
    no two ordinary words."""
    english = english_counts()
    for i in range(3, len(word) - 2):
        head, tail = word[:i], word[i:]
        if min(english.get(head, 0), english.get(tail, 0)) >= ORDINARY_MIN_COUNT and english.get(word, 0):
            return {part for part in (head, tail) if english[part] < _COMMON_PART}
    return set()


def _noun_of(word: str) -> str:
    """The noun of a look adjective made with -ed ("antlered": antler, "tailed": tail), if English."""
    noun = word[:-2] if word.endswith("ed") else ""
    return noun if len(noun) >= 3 and english_counts().get(noun, 0) >= ORDINARY_MIN_COUNT else ""


def _y_form(word: str) -> str:
    """What players make of a look's -ing word with -y ("a glowing deer fawn": "the glowy deer")."""
    stem = word[:-3] if word.endswith("ing") else ""
    return stem + "y" if len(stem) >= 3 else ""


_COMMON_PART = 100_000  # "flame" 13,045, "dew" 2,578; "drop" 236,371, "gun" 220,852


def _having(look: object) -> set[str]:
    """ "The horned one" of "a stag with oak horns", "the tusked boar" of "a boar with tusks": the
    English -ed adjective of what a look says the unit has (the head noun after "with", before any
    "who" clause). Only an English word, and not one as common as a verb's past ("healed", "armed")."""
    if not isinstance(look, str):
        return set()
    head_clause = re.split(r"\s(?:who|whose|that|which)\s|[,;]", f" {look.lower()} ", maxsplit=1)[0]
    english, out = english_counts(), set()
    for head in re.findall(r"\bwith\s+(?:[a-z]+\s+){0,2}?([a-z]{3,})\s*$", head_clause):
        stem = head[:-1] if head.endswith("s") and not head.endswith("ss") else head
        form = stem + ("d" if stem.endswith("e") else "ed")
        if 20 <= english.get(form, 0) < 5000:
            out.add(form)
    return out


def _adjectives(value: str) -> set[str]:
    """ "Their grassy cat", "the rocky one": the English adjectives of a one-word value (grass ->
    grassy, ice -> icy), only those English uses."""
    if " " in value:
        return set()
    forms = {value + "y", value + "ish"}
    if value.endswith("e"):
        forms.add(value[:-1] + "y")
    if value.endswith("ire"):
        forms.add(value[:-3] + "iery")  # the one English irregular of this shape worth having
    english = english_counts()
    return {f for f in forms if f and english.get(f, 0) >= ORDINARY_MIN_COUNT}


def _gear_words(pack: Pack, unit_kind: str) -> dict[str, frozenset[str]]:
    """Per unit: the last word of each of its options' names of two words or more ("Auto Shotgun":
    "shotgun"), four letters or more, not a name of the pack's."""
    schema = pack.catalog.schema
    field, option = schema.options_field(), schema.kind("option")
    if field is None or option is None:
        return {}
    names = {w for e in pack.catalog.entities.get(unit_kind, {}).values() for w in e.display.lower().split()}
    out: dict[str, frozenset[str]] = {}
    for uid, entity in pack.catalog.entities.get(unit_kind, {}).items():
        heads = set()
        for oid in entity.value(field) or []:
            opt = pack.catalog.get(option, oid)
            parts = opt.display.lower().split() if opt is not None else []
            if len(parts) == 2 and len(parts[-1]) < 4 and len(parts[0]) >= 4 and parts[0] not in names:
                heads.add(parts[0])  # "Drum Gun": "the drum gun guy" (a gun is anyone's)
            if len(parts) >= 2 and len(parts[-1]) >= 4 and parts[-1].isalpha() and parts[-1] not in names:
                heads.add(parts[-1])
                if parts[-1].endswith("s") and not parts[-1].endswith("ss"):
                    heads.add(parts[-1][:-1])  # "Dual Revolvers": "the revolver guy"
        out[uid] = frozenset(heads)
    return out


def _plurals(pack: Pack) -> set[str]:
    """Words for several units: the generic ones and the pack's ("pets", "heroes")."""
    schema = pack.catalog.schema
    spec = schema.kinds[schema.kind("unit") or ""]
    nouns = [*spec.nouns, *pack.vocabulary.creature_nouns, schema.plural(schema.kind("unit") or "")]
    return _PLURALS | {n.lower() for n in nouns if n.lower().endswith("s")}


_TELLS = re.compile(r"^\s*(?:is|'s|are|was)\b", re.IGNORECASE)


def _groups(pack: Pack) -> set[str]:
    """Words for a whole side: the generic ones and the group kind's nouns ("comp", "lineup")."""
    schema = pack.catalog.schema
    group = schema.kind("group")
    nouns = [group, *schema.kinds[group].nouns] if group else []
    return {"team", "teams", "squad", "side", "five", "trio", "group", *(n.lower() for n in nouns)}


# --- the live state: who fields whom --------------------------------------------------------------


class Sides:
    def __init__(self, pack: Pack, state: LiveState | None) -> None:
        self.view = StateView(pack, state) if state is not None else None
        self.theirs = self.view.opponent_side() if self.view else []
        self.fielded = self.view.player_side() if self.view else []
        self.owned = [o.id for o in self.view.owned()] if self.view else []

    def side_of(self, uid: str) -> Side:
        if uid in self.fielded or (uid in self.owned and uid not in self.theirs):
            return "mine"
        return "theirs" if uid in self.theirs else "any"

    def on(self, side: Side, uid: str) -> bool:
        """Could the unit be on `side`: theirs if they field it, mine if the player fields or owns
        it (a hero both sides have is either)."""
        if side == "theirs":
            return uid in self.theirs or self.side_of(uid) == "any"
        return uid in self.fielded or uid in self.owned or self.side_of(uid) == "any"

    def pools(self, side: Side) -> list[list[str]]:
        """Where a description on `side` looks, nearest first (a fielded unit before an owned one)."""
        if side == "theirs":
            return [self.theirs]
        if side == "mine":
            return [self.fielded, self.owned]
        return [self.fielded + self.theirs, self.owned]


def display(pack: Pack, kind: str, uid: str) -> str:
    entity = pack.catalog.get(kind, uid)
    return entity.display if entity is not None else uid


def side_word(word: str) -> Side:
    word = word.lower()
    if word in THEIRS or word.startswith(("the enemy", "the other", "enemy")):
        return "theirs"
    return "mine" if word in MINE else "any"


# --- 3. descriptions -------------------------------------------------------------------------------


_TOKEN = re.compile(r"[a-z]+(?:'s)?", re.IGNORECASE)


@dataclass(frozen=True)
class Unclear:
    """A description or pronoun that could be more than one unit (options: (side, id)), and the
    text with a hole (`HOLE`) where it was."""

    options: tuple[tuple[Side, str], ...]
    template: str


HOLE = "\x00"


_SWAPPED_BEFORE = re.compile(
    r"\b(?:swap|switch|sub|bench|drop|replace|take\s+out|pull|cut|sit|trade)\s+(?:out\s+|off\s+)?$", re.I
)
_SWAPPED_OR_KITTED_AFTER = re.compile(
    r"^\s+(?:out|off|for|run|use|equip|carry|be\s+running|be\s+using)\b", re.IGNORECASE
)
# "My tank" as the role, not the one fielded: where it stands and how it is played (English cue words).
_PLAYS_ROLE_AFTER = re.compile(
    r"^\s+(?:\w+\s+)?(?:go|stand|stay|position|positioned|sit|be\s+doing|do|focus|play|played)\b"
    r"(?!\s+(?:against|vs|into|with|on\s+(?:this|the)))",
    re.IGNORECASE,
)
_AMONG_THEIRS = re.compile(
    r"\b(?:which|who)\s+(?:one\s+)?of\s+(?:their\s+\w+|theirs|them)\b[^.?!]*$", re.IGNORECASE
)
_WHAT_DOES = re.compile(r"\bwhat\s+(?:does|do|did)\s+$", re.IGNORECASE)
_PLAYS_ROLE_BEFORE = re.compile(
    # ("who should be my tank": who fills the role, not the one filling it now)
    r"\b(?:where|how\s+(?:do|should|can)\s+(?:i|we)\s+play|(?:who|which\s+\w+)\s+(?:should|could|would|will|can)\s+"
    r"(?:be|play|go)(?:\s+as)?)\b[^.?!]*$",
    re.I,
)
_SLOT_NOUNS = frozenset({"slot", "slots", "spot", "spots", "role", "roles", "position"})
# What a unit has (English gamer nouns): after "their tanks", the tank's.
_THINGS_HELD = frozenset(
    "barrier shield ult ultimate kit loadout build move moves ability abilities gun weapon "
    "item items gear heal heals damage range level stats".split()
)
# Words for a set of gear: "the barrier loadout" is a kind of loadout, "the turtle heal" a verb.
_KIT_NOUNS = frozenset({"loadout", "loadouts", "build", "builds", "kit", "kits", "setup"})
_OBJECTS = frozenset("the them us him her my our your their everyone everybody allies a an it".split())


# "The support that drops the light walls", "their guy who throws the grenades": a unit said by what
# it does (English relative clause after a head word).
_DOES_CLAUSE = re.compile(
    r"\b(?P<det>the|their|my|our|that)\s+(?:(?P<adj>[a-z]+)\s+)?(?P<head>[a-z]+)\s+"
    r"(?P<mine>(?:i|we)\s+(?:have|got|own|play|run|use)\s+)?"  # "the tank I have that charges": mine
    r"(?:(?:that|who|which|whos|who's)\s+|(?P<bare>(?=[a-z]+ing\b)|with\s+(?:the\s+|a\s+|an\s+|those\s+)?))"
    r"(?P<clause>[^,.?!]+)",
    re.IGNORECASE,
)


def _unit_text(pack: Pack, uid: str) -> str:
    """Everything the pack says of a unit: its text fields and its options' descriptions."""
    schema = pack.catalog.schema
    unit, option, field = schema.kind("unit") or "", schema.kind("option"), schema.options_field()
    entity = pack.catalog.get(unit, uid)
    if entity is None:
        return ""
    said = [v for name in schema.kinds[unit].attributes if isinstance(v := entity.value(name), str)]
    said += [v for v in (entity.value(schema.kinds[unit].epithet or ""),) if isinstance(v, str)]
    for oid in entity.value(field) or [] if field else []:
        o = pack.catalog.get(option or "", oid)
        if o is not None:
            said += [o.display, str(o.value("description") or "")]
    return " ".join(said).lower()


# Words that end what a unit is said to carry and start the question about it (English).
_NOT_HELD = frozenset({"worth", "any", "good", "bad", "better", "ok", "okay", "still", "even", "really"})
_UNCOMMON = 10_000  # "grenades", "stuns" single a unit out; "kill", "light", "walls" are everyday words


_UNIT_WORDS: dict[tuple[int, str], tuple[Pack, list[str]]] = {}


def _unit_words(pack: Pack, uid: str) -> list[str]:
    """`_unit_text`'s words stemmed, once per pack and unit (the texts do not change in a session)."""
    hit = _UNIT_WORDS.get((id(pack), uid))
    if hit is None or hit[0] is not pack:
        hit = (pack, [_stem(w) for w in re.findall(r"[a-z]+", _unit_text(pack, uid))])
        _UNIT_WORDS[(id(pack), uid)] = hit
    return hit[1]


def _by_the_rest(pack: Pack, fits: list[str], rest: str) -> str | None:
    """Of the units a description fits, the one the rest of the sentence singles out by a word only
    its own text has ("keeps getting one shot by the guy with the big rifle": the sniper who wins
    lanes "with one charged shot"); None when no word, or more than one unit, does."""
    plain = {_stem(w) for w in FUNCTION_WORDS}
    said = {_stem(w) for w in re.findall(r"[a-z]+", rest.lower()) if len(w) > 3} - plain
    everyone = [set(_unit_words(pack, u)) for u in describer(pack).words]
    said = {w for w in said if sum(w in t for t in everyone) * 4 <= len(everyone)}  # a word few units have
    texts = {u: set(_unit_words(pack, u)) for u in fits}
    common = set.intersection(*(texts[u] for u in fits))
    shared = {u: said & texts[u] - common for u in fits}
    best = [u for u in fits if shared[u]]
    return best[0] if len(best) == 1 else None


def _stem(word: str) -> str:
    # "dropping" and "drops" are one word: a consonant doubled before -ing/-ed is said once
    return re.sub(r"([b-df-hj-np-tv-z])\1(?:ing|ed)$|(?:ing|ed|es|s)$", r"\1", word.lower())[:5]


def _shares(said: list[str], text: list[str], texts: list[list[str]]) -> float:
    """How much of what was said `text` says: a word few of `texts` have counts more, two words said
    together in it one more."""
    has = set(text)
    rare = sum(1 / sum(w in t for t in texts) for w in set(said) if w in has)
    pairs = set(zip(text, text[1:], strict=False))
    return rare + sum(p in pairs for p in zip(said, said[1:], strict=False))


def _by_what_it_does(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str]]:
    """ "The support that drops the light walls" -> "Bexley": the one unit whose text (summary,
    look, its options' descriptions) best shares the clause's words (a word few units have counts
    more; two words said together in its text, more), with none tied; of the role the head word
    names when it names one; the ones in play first."""
    d = describer(pack)
    unit_kind = pack.catalog.schema.kind("unit") or ""
    plain = {_stem(w) for w in FUNCTION_WORDS}
    for m in _DOES_CLAUSE.finditer(text):
        clause, end = m["clause"], m.end()
        if m["bare"] and m["bare"].lower().startswith("with"):
            # "the guy with the nailgun worth using here": what he carries, not the rest of the question
            words = list(re.finditer(r"[a-z']+", clause, re.IGNORECASE))
            held = []
            for w in words[:3]:
                if w.group(0).lower() in FUNCTION_WORDS or w.group(0).lower() in _NOT_HELD:
                    break
                held.append(w)
            if held:
                clause, end = clause[: held[-1].end()], m.start("clause") + held[-1].end()
        named = [e for e in link_entities(pack, clause) if e.kind == unit_kind]
        if (m["head"].lower() in FUNCTION_WORDS and m["head"].lower() not in _HEADS) or (
            named and not clause[: named[0].span[0]].strip()
        ):
            continue  # "the turtle is that Shellbastion": a name said, not what one does
        raw = [w for w in re.findall(r"[a-z]+", clause.lower()) if len(w) > 3]
        said = [w for w in map(_stem, raw) if w not in plain]
        uncommon = {_stem(w) for w in raw if english_counts().get(w, 0) < _UNCOMMON}
        if not said:
            continue
        head, side = m["head"].lower(), "mine" if m["mine"] else side_word(m["det"])
        if m["bare"] is not None and head not in _HEADS and head not in d.roles:
            continue  # "the one dropping the walls", "the healer with the darts"; not "the fight with X"
        if m["adj"] and f"{m['adj']} {head}".lower() in d.roles:
            head = f"{m['adj']} {head}".lower()  # "the big guy that charges": a tank's words
        if side == "any" and re.search(r"\b(?:me|us|my|our)\b", clause, re.IGNORECASE):
            side = "theirs"  # "the guy that keeps killing me": one of theirs
        for pool in [
            *(sides.pools(side) if side != "any" else [sides.fielded + sides.theirs]),
            list(d.words),
        ]:
            pool = [u for u in dict.fromkeys(pool) if head not in d.roles or head in d.words.get(u, ())]
            texts = {u: _unit_words(pack, u) for u in pool}
            scored = sorted(((_shares(said, texts[u], list(texts.values())), u) for u in pool), reverse=True)
            if not scored or (len(scored) > 1 and scored[1][0] >= scored[0][0]):
                continue
            # (or a word only its text has: "the guy who throws the grenades")
            only = any(
                w in texts[scored[0][1]] and sum(w in t for t in texts.values()) == 1 for w in uncommon
            )
            # (or one of the role the head names, the only one a word fits: "the tank that charges")
            alone = head in d.roles and (len(scored) == 1 or scored[1][0] == 0)
            if scored[0][0] >= 1.5 or ((only or alone) and scored[0][0] >= 1.0):
                name = display(pack, unit_kind, scored[0][1])
                keep = {"theirs": "their ", "mine": "my "}.get(side, "")
                said_as = text[m.start() : end]
                return text[: m.start()] + keep + name + text[end:], [f"{said_as!r} -> {name}"]
    return text, []


_SHORT_NAMES: dict[int, tuple[Pack, dict[str, frozenset[str]]]] = {}
_CLIPPED_RARE = 1000  # "bran" 899, "tam" 274: rare enough to be a name clipped; "hex" 1547 is a word


def short_names(pack: Pack) -> dict[str, frozenset[str]]:
    """Per unit: what a player calls it without an article or owner ("fox out", "is lumi too low"):
    the English word that ends its one-word name ("fox" of Emberfox, "hawk" of Galehawk), the one
    that starts a name of two English words ("spark" of Sparkwing), the first four or five letters
    when they are no English word ("lumi" of Lumifawn), and a pet name made of one ("sparky")."""
    hit = _SHORT_NAMES.get(id(pack))
    if hit is not None and hit[0] is pack:
        return hit[1]
    english = english_counts()
    unit_kind = pack.catalog.schema.kind("unit") or ""
    names: dict[str, frozenset[str]] = {}
    for uid, entity in pack.catalog.entities.get(unit_kind, {}).items():
        display = entity.display.lower()
        if " " in display or not display.isalpha():
            continue
        found = {
            display[i:]
            for i in range(3, len(display) - 2)
            if english.get(display[i:], 0) >= ORDINARY_MIN_COUNT and display[i:] not in FUNCTION_WORDS
        }
        # ... and its first three to five letters, when those are no common word ("bran" of Brannoc,
        # "tam" of Tamsin; not "oak" of Oakhorn, which the next rule takes as a word of the name)
        found.update(
            display[:n]
            for n in (3, 4, 5)
            if n < len(display) - 1 and english.get(display[:n], 0) < _CLIPPED_RARE
        )
        # A name made of two words is called by its first ("ember" of Emberfox, "oak" of Oakhorn)
        found.update(
            display[:i]
            for i in range(3, len(display) - 2)
            if all(
                english.get(w, 0) >= ORDINARY_MIN_COUNT and w not in FUNCTION_WORDS
                for w in (display[:i], display[i:])
            )
        )
        # ... and a pet name made of one ("sparky" of Sparkwing), when no ordinary word
        found.update(
            pet
            for short in list(found)
            if len(short) >= 4 and short[-1] not in "aeiouy"
            for pet in (f"{short}y", f"{short}ie")
            if english.get(pet, 0) < ORDINARY_MIN_COUNT
        )
        names[uid] = frozenset(found)
    _SHORT_NAMES[id(pack)] = (pack, names)
    return names


# Where a bare short name stands for a unit: a clause's start, or after a word that takes a unit.
_BARE_BEFORE = re.compile(
    r"(?:^|[,.;?!]\s*|\b(?:and|or|but|vs|versus|against|than|with|on|for|into|over|of|swap|bench|drop|bring|"
    r"play|use|field|run|put|level|is|was|tho|though|does|did|can|could|should|would|will|has|about)\s+)$",
    re.IGNORECASE,
)


# A bare word opening the sentence as its subject ("turtle keeps shielding") (English cue words).
_LOOK_OPENS = re.compile(
    r"^\W*(?P<word>[a-z]+)\s+(?=(?:keeps|just|always|is|has|hits|outspeeds|one\s*shots?|won'?t)\b)", re.I
)


def bare_names(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str]]:
    """Each short name said bare ("hexmoth in, fox out", "fox is level 14") that fits exactly one
    unit in play (the player's fielded or owned, their lineup) replaced by that unit's name. A word
    the pack's descriptions read (an element, a role) or one after an article is not this."""
    short = short_names(pack)
    said = {w.lower() for w in re.findall(r"[a-z]+", text, re.IGNORECASE)}
    if sides.view is None:
        return text, []
    opening = _LOOK_OPENS.match(text)
    if opening is not None and not link_entities(pack, opening["word"]):
        # "turtle keeps shielding": a word of one unit's look, said bare as the sentence's subject
        d = describer(pack)
        word = opening["word"].lower()
        in_play = list(dict.fromkeys([*sides.fielded, *sides.theirs]))
        fits = [u for u in in_play if word in d.strong.get(u, ())]
        if len(fits) == 1 and word not in d.valued and word not in FUNCTION_WORDS:
            name = display(pack, pack.catalog.schema.kind("unit") or "", fits[0])
            side = "their " if fits[0] in sides.theirs and fits[0] not in sides.fielded else ""
            return f"{side}{name}{text[opening.end('word') :]}", [f"{opening['word']!r} -> {name}"]
    if not any(said & words for words in short.values()):
        return text, []  # most turns say no short name: no linking for them
    d = describer(pack)
    unit_kind = pack.catalog.schema.kind("unit") or ""
    in_play = list(dict.fromkeys([*sides.fielded, *sides.theirs, *sides.owned]))
    named = [m.span for m in link_entities(pack, text)]
    out, notes, cut = [], [], 0
    for m in re.finditer(r"[a-z]+", text, re.IGNORECASE):
        word = m.group(0).lower()
        if word in d.valued or word in FUNCTION_WORDS or any(a <= m.start() < b for a, b in named):
            continue
        fits = [u for u in in_play if word in short.get(u, ())]
        if len(fits) != 1 or not _BARE_BEFORE.search(text[: m.start()]):
            continue
        if re.match(r"'s?\b|\s+(?:ones?|it|them|me|us|the|a|an|this|that)\b", text[m.end() :], re.I):
            continue  # "fox's tail", "the fox one": another reading's; "wing it": a verb
        name = display(pack, unit_kind, fits[0])
        out.append(text[cut : m.start()] + name)
        head = re.match(r"\s+(?:guy|thing|dude)\b", text[m.end() :], re.IGNORECASE)  # "volt thing"
        cut = m.end() + (head.end() if head else 0)
        notes.append(f"{m.group(0)!r} -> {name}")
    return "".join(out) + text[cut:], notes


_WITH_LOOK = re.compile(
    r"\b(?:the|their|my|our|that|this)\s+(?P<head>[a-z]+)\s+with\s+(?:the|a|an|its|that)\s+", re.IGNORECASE
)


def _with_look(pack: Pack, sides: Sides, text: str) -> str:
    """ "The fox with the fire tail": one unit described twice, the "with" phrase dropped when a word
    of it fits the one unit in play the head fits (else "the fire tail" reads as another unit)."""
    d = describer(pack)
    for m in _WITH_LOOK.finditer(text):
        pool = dict.fromkeys(u for group in sides.pools("any") for u in group)
        fits = [u for u in pool if m["head"].lower() in d.words.get(u, ())]
        words = list(re.finditer(r"[a-z]+", text[m.end() :], re.IGNORECASE))[:3]
        look = []
        for w in words:  # the look's words, up to the first that is no look ("ours", "is", "or")
            if w.group(0).lower() in FUNCTION_WORDS or w.group(0).lower() in (
                "ours",
                "theirs",
                "mine",
                "yours",
            ):
                break
            look.append(w)
        said = {w.group(0).lower() for w in look}
        if len(fits) == 1 and look and said & d.words.get(fits[0], frozenset()):
            start = text.rfind(" with ", m.start(), m.end())
            return text[:start] + text[m.end() + look[-1].end() :]
    return text


# "There's a spiky cat thing on their side", "they brought in a sniper": one unit met, said with "a".
_THEY_HAVE_A = re.compile(
    r"(?<!\bdo\s)(?<!\bdid\s)(?<!\bif\s)(?<!\bwhen\s)"  # told, not asked: "do they have a tank"
    r"\b(there'?s|theres|there\s+is|they(?:'ve|ve)?\s+(?:have|got)|they\s+brought(?:\s+in)?|they\s+put\s+in)\s+an?\s+",
    re.IGNORECASE,
)
# "The guy with the big shield", "this hero with the turret": a plain head, then what it carries.
_HEAD_WITH = re.compile(
    r"(?:\b(?P<det>the|their|my|our|that|this)|(?P<mine>\b(?:i\s+have|i\s+got|i'?ve\s+got|i\s+own)\s+an?))"
    r"\s+(?:(?P<adj>[a-z]+)\s+)?(?P<head>[a-z]+)\s+with\s+(?:(?:the|a|an|that|his|her|those|these)\s+)?"
    r"(?:(?:two|2|twin|dual|double|a\s+pair\s+of|pair\s+of)\s+)?",
    re.IGNORECASE,
)


def _carried_first(pack: Pack, text: str) -> str:
    """ "The guy with the big shield" as "the big shield guy": the words describing the unit before its
    head, as the rest of `describe` reads a description (up to three words, not a function word)."""
    heads = _HEADS | {
        n.lower() for n in pack.catalog.schema.kinds[pack.catalog.schema.kind("unit") or ""].nouns
    }
    d = describer(pack)
    carried = set().union(*_gear_words(pack, pack.catalog.schema.kind("unit") or "").values())
    looks = d.vocabulary - d.roles  # "the cat with the thorns": a unit's own word for its head too
    for m in _HEAD_WITH.finditer(text):
        head = "guy" if m["head"].lower() == "one" else m["head"]  # "the one with the turret": a unit
        looked = head.lower() not in heads
        if looked and (head.lower() not in looks or head.lower() in FUNCTION_WORDS):
            continue
        look: list[re.Match[str]] = []
        for w in re.finditer(r"[a-z]+", text[m.end() :], re.IGNORECASE):
            if w.start() != (look[-1].end() + 1 if look else 0) or w.group(0).lower() in FUNCTION_WORDS:
                break
            said = w.group(0).lower()
            if look and not ({said, said.removesuffix("s")} & (looks | carried) or _option_word(pack, said)):
                break  # "is the bird with the lightning good": the look ends where the question goes on
            look.append(w)
            if len(look) == 3:
                break
        if look and m["head"].lower() == "one" and not {w.group(0).lower() for w in look} & carried:
            continue  # "the one with the fire tail": a look, read as said (not a guy's gear)
        if look:
            said_words = [w.group(0) for w in look]
            if (
                len(said_words) >= 2
                and said_words[-2].lower() in carried
                and said_words[-1].lower() not in carried
            ):
                said_words = said_words[:-1]  # "the big drum gun": Drum Gun's own word says it
            words = " ".join(said_words)
            # ("I have a guy with a laser gun": my laser gun guy)
            det = m["det"] or f"{m['mine'].rsplit(' ', 1)[0]} my"
            # ("the cowboy guy with two pistols": the cowboy pistols guy)
            adj = f"{m['adj']} " if m["adj"] and m["adj"].lower() not in FUNCTION_WORDS else ""
            return f"{text[: m.start()]}{det} {adj}{words} {head}{text[m.end() + look[-1].end() :]}"
    return text


def _types_by_name(pack: Pack, text: str) -> str:
    """ "my little plant cat" -> "my little grass cat": a type said by one of its pack words is said
    by its name, the word descriptions know it by."""
    types = set(pack.catalog.schema.kinds_of("type"))
    for m in reversed(link_entities(pack, text)):
        if m.kind in types and m.surface.lower() != m.id.lower():
            text = text[: m.span[0]] + m.id + text[m.span[1] :]
    return text


def _option_word(pack: Pack, word: str) -> bool:
    """Is `word` a word of an option's name or a slot of options ("shield", "gun", "drone")?"""
    option = pack.catalog.schema.kind("option")
    if option is None:
        return False
    word = word.lower().removesuffix("s")
    field = pack.catalog.schema.kinds[option].slot
    return (
        any(
            word in o.display.lower().split() or (field is not None and str(o.value(field)).lower() == word)
            for o in pack.catalog.entities.get(option, {}).values()
        )
        or word in describer(pack).gear
    )


def describe(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str], Unclear | None]:
    """Replace each description of one unit by its name (keeping "their" / "my"); "their supports"
    by the names of theirs that fit; the first description that fits two is returned unclear."""
    text = _with_look(pack, sides, _types_by_name(pack, text))
    met = _THEY_HAVE_A.sub(lambda m: f"{m[1]} {'their' if m[1].lower().startswith('they') else 'the'} ", text)
    if met != text:
        found = describe(pack, sides, met)
        if found[1] or found[2] is not None:
            return found
    carried = _carried_first(pack, text)
    if carried != text:
        moved = describe(pack, sides, carried)
        if moved[1] or moved[2] is not None:
            return moved
    text, does = _by_what_it_does(pack, sides, text)
    if does:
        return text, does, None
    text, bare = bare_names(pack, sides, text)
    if bare:
        described, notes_after, unclear_after = describe(pack, sides, text)
        return described, [*bare, *notes_after], unclear_after
    if _WHICH_ARE.match(text):
        # "Which of mine is the support": the player's units of that kind, not the one fielded.
        asked, notes = _owned_kind(pack, sides, text)
        if notes:
            return asked, notes, None
    d = describer(pack)
    unit_kind = pack.catalog.schema.kind("unit") or ""
    heads = (
        _HEADS
        | {n.lower() for n in pack.catalog.schema.kinds[unit_kind].nouns}
        | set(pack.vocabulary.creature_nouns)
    )
    linked = link_entities(pack, text)
    named = [(m.span, m.kind) for m in linked]
    groups = set(pack.catalog.schema.kinds_of("group"))
    holders = _holders(pack, linked)
    option_kind = pack.catalog.schema.kind("option")
    option_nouns = {
        f"{n.lower()}{s}"
        for n in (pack.catalog.schema.kinds[option_kind].nouns if option_kind else [])
        for s in ("", "s")
    }
    tokens = list(_TOKEN.finditer(text))
    type_ids = {t for k in pack.catalog.schema.kinds_of("type") for t in pack.catalog.entities.get(k, {})}
    out, notes, cut = [], [], 0
    unclear: Unclear | None = None
    unclear_surface = ""
    i = 0
    while i < len(tokens):
        det = tokens[i].group(0).lower()
        if (
            det not in _DETERMINERS
            or (det == "that" and i and tokens[i - 1].group(0).lower() in _THAT_CLAUSE)
            or (
                # "is that shadow or light": "that" is the subject, the kind what is asked of it
                det in ("that", "this")
                and i
                and tokens[i - 1].group(0).lower() in ("is", "was", "isn't", "isnt")
                and i + 1 < len(tokens)
                and tokens[i + 1].group(0).lower() in describer(pack).valued
                and (i + 2 >= len(tokens) or tokens[i + 2].group(0).lower() not in _HEADS | _PLURAL_HEADS)
            )
        ):
            i += 1  # "is it true that shadow beats light": "that" opens a clause, not a description
            continue
        if det in ("his", "her") and i + 1 < len(tokens) and _option_word(pack, tokens[i + 1].group(0)):
            i += 1  # "what does his shield do": a unit's option, of the one "his" stands for
            continue
        words: list[str] = []
        possessive = False
        skipped = False  # an everyday word was passed over ("their big blue turtle")
        j = i + 1
        while j < len(tokens) and j - i <= 3:
            if any(a <= tokens[j].start() < b for (a, b), k in named if k in groups or k == option_kind):
                # "that long watch setup": a group's name said (a comp's), not a look; "our long
                # barrels": an option's name (an item's)
                break
            if (
                words
                and re.search(r"[,;.!?]", text[tokens[j - 1].end() : tokens[j].start()])
                and re.search(r"\bnot\s+$", text[: tokens[i].start()], re.IGNORECASE)
            ):
                break  # "not the chick, the hawk one": the one said wrong, then the one meant
            w = _diminutive(d, tokens[j].group(0).lower().removesuffix("'s"))
            then = tokens[j + 1].group(0).lower() if j + 1 < len(tokens) else ""
            if words and then in _OBJECTS and w not in heads:
                break  # "can their tank shield the team": after the head, a verb and its object
            one = _singular(d, w)
            if one is not None and (then in d.gear or then in _THINGS_HELD or then in option_nouns):
                # "their tanks barrier": a transcript's possessive without its apostrophe
                words.append(one)
                possessive, j = True, j + 1
                break
            if w in d.vocabulary or w in heads or w in _STRONGEST or _singular(d, w):
                words.append(w)
                j += 1
                if tokens[j - 1].group(0).lower().endswith("'s"):
                    break  # "the shotgun guy's best loadout": "best" is the loadout's
                continue
            next_word = _diminutive(d, tokens[j + 1].group(0).lower()) if j + 1 < len(tokens) else ""
            put_on = i > 0 and tokens[i - 1].group(0).lower() == "on"  # "put armour on the shotgun one"
            if w in d.gear and next_word.removesuffix("'s") in heads - (set() if put_on else {"one", "ones"}):
                words.append(w)  # "the shotgun guy" (but "the roar one" is the move: a thing)
                j += 1
                continue
            then_head = _diminutive(d, tokens[j + 2].group(0).lower()) if j + 2 < len(tokens) else ""
            if (
                w in d.gear
                and _option_word(pack, next_word)
                and then_head.removesuffix("'s") in heads - {"one"}
            ):
                words.append(w)  # "the drum gun guy": Drum Gun's own word, the gun anyone's
                j += 2
                continue
            # "that spiky green cat": an everyday word between two the pack knows (not a name's first
            # word: "does their turtle know Frost Bind" ends the description at "turtle")
            known_next = (next_word in d.vocabulary or next_word in heads) and not (
                j + 1 < len(tokens) and any(a <= tokens[j + 1].start() < b for (a, b), _ in named)
            )
            # "their big blue turtle": two everyday words before the look noun
            after_next = _diminutive(d, tokens[j + 2].group(0).lower()) if j + 2 < len(tokens) else ""
            known_next = known_next or (
                not words
                and next_word not in FUNCTION_WORDS
                and _filler(next_word)
                and (after_next in d.vocabulary or after_next in heads)
                and j - i < 3
            )
            middle = (bool(words) or skipped) and known_next
            if (
                (j == i + 1 or middle)
                and known_next
                and (
                    w in _FILLER_ADJECTIVES
                    # "the spiky cat": an everyday word before a look noun, after an article or owner
                    # ("that hits earth" is a clause, not a look)
                    or (
                        (det not in ("that", "this") or middle)
                        and _filler(w)
                        # (after "the" / "my" / "their" a word before a value is a look, "the fluffy
                        # light deer"; after "that" it may be a verb: "that hits earth")
                        and (next_word not in d.valued or det not in ("that", "this"))
                        and not any(a <= tokens[j].start() < b for (a, b), _ in named)  # "the Spotter Drone"
                    )
                )
            ):
                j += 1  # "their big water tank": "big" says nothing the pack knows; the rest does
                skipped = True
                continue
            break
        if words and j < len(tokens) and j - i > 3 and tokens[j].group(0).lower() in _HEADS:
            words.append(tokens[j].group(0).lower())  # "the little floaty droplet guy": its head too
            j += 1
        # A unit's own name is not a description ("my Emberfox"); a plural is a kind ("my fire ones").
        end = tokens[j - 1].end() if words else 0
        if not words or any(
            a < end and tokens[i].start() < b and kind == unit_kind for (a, b), kind in named
        ):
            i += 1
            continue
        following = tokens[j].group(0).lower() if j < len(tokens) else ""
        if following in _SLOT_NOUNS:
            i += 1
            continue  # "for the tank slot": a place on the team, not a unit
        if (
            det == "the"
            and i
            and tokens[i - 1].group(0).lower() in ("by", "from", "with", "of")
            and all(w in type_ids for w in words)
            and following not in heads
        ):
            i += 1
            continue  # "hit by the water from the turtle": the attack's type, not a unit
        if (
            det in ("the", "that", "this")
            and (following in _KIT_NOUNS or following in option_nouns)
            and not tokens[j - 1].group(0).lower().endswith("'s")
            and not possessive
        ):
            i += 1
            continue  # "Brannoc, the barrier loadout": a kind of loadout (no owner said), not a unit
        last = words[-1] if words else ""
        plural, last_at = (_singular(d, last), j - 1) if _singular(d, last) else (_singular(d, following), j)
        kind_head = following in _PLURAL_HEADS or following in _plurals(pack) or following.endswith("ies")
        side = side_word(det)
        if re.match(r"\s+(?:i|we)\s+(?:have|got|own|play|run)\b", text[end:], re.IGNORECASE):
            side = "mine"  # "the tank I have that charges": the player's own
        fits: list[str] = []
        if plural is not None:
            # "their supports", "snipers", "my damage guys": every one of them on that side, by name.
            said = [w for w in words if w not in heads and w != last] if last_at == j - 1 else words
            fits, stop = _fitting(d, sides, side, [*[w for w in said if w not in heads], plural]), last_at
            if side == "mine" and len(fits) == 1:
                # "are my healers any good": more than the one fielded, so the ones owned
                said_words = [*[w for w in said if w not in heads], plural]
                owned = [
                    u for u in dict.fromkeys(sides.owned) if all(w in d.words.get(u, ()) for w in said_words)
                ]
                fits = owned if 2 <= len(owned) <= 3 else fits
        elif kind_head and side != "any" and j < len(tokens):
            # "my grass ones", "their fire pets": the ones of that kind on the side.
            kind = [w for w in words if w not in heads and w not in _STRONGEST]
            fits, stop = (_fitting(d, sides, side, kind) if kind else []), j
        if 1 <= len(fits) <= 3:
            end = tokens[stop].end()
            keep = {"theirs": "their ", "mine": "my "}.get(side, "")
            names = " and ".join(display(pack, unit_kind, u) for u in fits)
            out.append(text[cut : tokens[i].start()] + keep + names)
            notes.append(f"{text[tokens[i].start() : end]!r} -> {names}")
            cut = end
            while i < len(tokens) and tokens[i].start() < end:
                i += 1
            continue
        if kind_head:
            i += 1  # a kind of unit that fits none or many there: not one of them
            continue
        if following in _groups(pack):
            i += 1  # "their water team": the side, not one unit of it
            continue
        after_following = tokens[j + 1].group(0).lower() if j + 1 < len(tokens) else ""
        if following in _SCENE_NOUNS and after_following not in _OBJECTS:  # ("my moth fight the cat": a verb)
            i += 1  # "we keep losing the mid fights": a part of the game, not a unit
            continue
        if _TELLS.match(text[end:]) and any(a >= end for (a, _), kind in named if kind == unit_kind):
            i += 1  # "their tank is Dumaka now": the player says who it is
            continue
        descriptors = [w for w in words if w not in heads]
        side = side_word(det)
        if re.match(r"\s+(?:i|we)\s+(?:have|got|own|play|run)\b", text[end:], re.IGNORECASE):
            side = "mine"
        # A superlative names one only with a side ("their best"), not in "who's the best tank?".
        asks_which = _ASKS_WHICH.search(text[: tokens[i].start()]) is not None
        if not descriptors or (set(descriptors) & _STRONGEST and (side == "any" or asks_which)):
            i += 1
            continue
        # "My main healer": every word (a kind noun such as "main" too) singles out one fielded unit.
        named_by = [w for w in words if w not in _HEADS]
        singled = [u for u in sides.fielded if all(w in d.strong.get(u, ()) for w in named_by)]
        plays_role = (
            _PLAYS_ROLE_AFTER.match(text[end:]) and not _WHAT_DOES.search(text[: tokens[i].start()])
        ) or _PLAYS_ROLE_BEFORE.search(text[: tokens[i].start()])
        if side == "mine" and len(singled) == 1 and (len(named_by) > 1 or not plays_role):
            # ("my healer" of two supports: the one its own words call a healer)
            descriptors = named_by
        elif (
            side == "mine"
            and all(w in d.roles or w in _STRONGEST for w in descriptors)
            and (
                # ("what does my support do": what that one does, not how the role is played)
                (_PLAYS_ROLE_AFTER.match(text[end:]) and not _WHAT_DOES.search(text[: tokens[i].start()]))
                or _PLAYS_ROLE_BEFORE.search(text[: tokens[i].start()])
                or len([u for u in sides.fielded if all(w in d.words.get(u, ()) for w in descriptors)]) != 1
            )
        ):
            # "Where should my tank go?", "how do I play my healer" ask about the role, and "our dps
            # is afk" fits two; the words say it better than a name (but "is my tank any good", "what
            # does my tank have", "can my tank hold off their sniper" ask about the one fielded).
            i += 1
            continue
        after = _SIDE_AFTER.match(text[end:])
        if after is not None:
            said_side = after["s1"] or after["s2"] or ""
            side = (
                "theirs" if said_side.lower() == "them" else side_word(said_side)
            )  # "the electric one of them"
            end += after.end()
        before = text[: tokens[i].start()]
        if side == "any" and _HURTS_US.match(text[end:]):
            side = "theirs"  # "the electric one keeps outspeeding me": the one doing it is theirs
        fields_it = side == "any" and _FIELDS_IT.search(before) is not None
        if fields_it:
            side = "mine"  # "do I need the barrier guy", "should I bring the fire one": one to field
        if side == "any" and _AMONG_THEIRS.search(before):
            side = "theirs"  # "which of their guys should we dive first, Quillon or the healer"
        if side == "any" and faces_foe(before, text[end:]) and not _COUNTERS_A.search(before):
            # "what about against the tank", "who can kill the healer": theirs ("what counters the
            # tank" may ask what threatens the player's own: asked back)
            side = "theirs"
        # "The healer": one with an option that heals, not any support (Sparkwing only speeds allies)
        everyone = list(d.words)
        doing = set(_doers(pack, descriptors, everyone))
        ruled_out = {u for u in everyone if len(doing) < len(everyone) and u not in doing}
        if any(w in _FEMALE_HEADS for w in words):
            ruled_out |= {u for u in everyone if gender_of(pack, u) == "m"}
        pick, fits = _pick(d, sides, side, descriptors, ruled_out.__contains__)
        if pick is None and not fits and fields_it:
            # "Should I play the flame girl" of one the player lacks: the one the words name.
            side = "any"
            pick, fits = _pick(d, sides, side, descriptors, ruled_out.__contains__)
        if pick is None and not fits and side == "mine":
            # "Is my flame girl any good here" of one the player lacks and they do not field: the one
            # the words name (the answer says it is not theirs yet); theirs is asked about below.
            anyone, _ = _pick(d, sides, "any", descriptors, ruled_out.__contains__)
            if anyone is not None and sides.side_of(anyone) not in ("theirs", "mine"):
                pick = anyone
        if (
            pick is None
            and not fits
            and side == "mine"
            and (len(descriptors) > 1 or skipped)  # "my cat knocked my glass over": the player's own cat
            and not all(w in d.roles for w in descriptors)
        ):
            # "What does my little plant cat do" when none of the player's is one: perhaps the
            # player misremembers whose it is; asked back ("Do you mean their Briarcat?").
            other, _ = _pick(d, sides, "any", descriptors, ruled_out.__contains__)
            if other is not None and unclear is None and not any(m.id == other for m in linked):
                unclear = Unclear(
                    ((sides.side_of(other), other),), text[: tokens[i].start()] + HOLE + text[end:]
                )
                unclear_surface = text[tokens[i].start() : end]
        # "Is the bird ready for Gale Dive?": of the birds, the one that has the option named.
        holding = [
            u for u in holders if all(w in d.words.get(u, ()) for w in descriptors if w not in _STRONGEST)
        ]
        held = [u for u in holding if sides.side_of(u) == "mine"] if len(holding) > 1 else holding
        if len(held) == 1 and side != "theirs":
            pick = held[0]
        if pick is None and 2 <= len(fits) <= 3:
            pick = _by_the_rest(pack, fits, text[: tokens[i].start()] + " " + text[end:])
        if pick is None:
            if unclear is None and 2 <= len(fits) <= 3:
                hole = text[: tokens[i].start()] + HOLE + text[end:]
                unclear = Unclear(tuple((sides.side_of(u), u) for u in fits), hole)
                unclear_surface = text[tokens[i].start() : end]
            i += 1
            continue
        keep = {"theirs": "their ", "mine": "my "}.get(side, "")
        name = display(pack, unit_kind, pick)
        out.append(
            text[cut : tokens[i].start()]
            + keep
            + name
            + ("'s" if tokens[j - 1].group(0).endswith("'s") or possessive else "")
        )
        notes.append(f"{text[tokens[i].start() : end]!r} -> {name}")
        cut = end
        while i < len(tokens) and tokens[i].start() < end:
            i += 1
    text = "".join(out) + text[cut:]
    if unclear is not None and cut:
        # Another description was resolved ("I meant the electric thing, not the turtle"): the hole
        # goes where the unclear one still stands, if it stands there once.
        surface = unclear_surface
        unclear = (
            Unclear(unclear.options, text.replace(surface, HOLE, 1)) if text.count(surface) == 1 else None
        )
    more: list[str] = []
    if not notes:
        text, more = _bare_plurals(pack, sides, text)
    if not notes and not more:
        text, more = _owned_kind(pack, sides, text)
    return text, notes + more, unclear


# After "my tank": a fight with another unit, so the one fielded is meant (English cue words).
_FACES_AFTER = re.compile(
    r"\b(?:beat|beats|handle|hold\s+off|deal\s+with|against|vs|versus|fight|counter|take\s+on|survive|"
    r"stop|kill|trade\s+with|match\s+up|keep\s+up\s+with)\b",
    re.IGNORECASE,
)


# "Do I own a shadow one?", "have I got any healers", "what supports have I got": a kind asked about
# the player's own units, after an ownership verb or before one.
_OWN_VERB = r"(?:own|have|has|got|unlocked)"
_INDEFINITE = re.compile(rf"\b{_OWN_VERB}\s+(?:even\s+|already\s+)?(?P<det>an?|any)\s+$", re.IGNORECASE)
_KIND_THEN_OWN = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:what|which|how\s+many)\s+(?P<kind>(?:\w+\s+){1,2}?)(?:(?:do|have|did)\s+(?:i|we)\s+"
    r"(?:got|get|have|own|unlocked)|can\s+(?:i|we)\s+(?:even\s+|actually\s+)?(?:pick|play|run|field))\b",
    re.IGNORECASE,
)


_DO_I_HAVE = re.compile(
    r"^\W*(?:(?:so|and|ok|okay|um|uh|wait|hey)\W+)*(?P<ask>(?:do|did)\s+(?:i|we)\s+(?:even\s+|still\s+)?(?:have|own)"
    r"|(?:have|has)\s+(?:i|we)\s+got)\s+$",
    re.IGNORECASE,
)


# "Which of those are tanks?", "which ones are epic", "which of my guys are supports": the same as
# "what tanks have I got" (the player's own units of that kind).
_WHICH_ARE = re.compile(
    # ("which of them is the electric one" picks one of theirs out: not a kind the player owns)
    r"^\W*(?:\w+\W+){0,2}?(?:(?:which|how\s+many)\s+(?:of\s+(?:those|these|my|our)(?:\s+\w+)?|of\s+(?:mine|ours)|ones?)"
    r"\s+(?:are|is)|which\s+of\s+them\s+are|who(?:'re|\s+are)\s+(?:all\s+)?(?:my|our))\s+(?:the\s+|an?\s+)?"
    r"(?P<kind>\w+(?:\s+\w+)?)\W*$",
    re.IGNORECASE,
)


# "Any tanks besides Duke?", "other supports apart from Elowen": the player's others of that kind.
_BESIDES = re.compile(
    r"^\W*(?:(?:so|and|ok|okay|um|uh|do\s+i\s+have|have\s+i\s+got|got)\W+)*(?:any|other|another)(?:\s+other)?\s+"
    r"(?P<kind>\w+)\s+(?:besides|other\s+than|apart\s+from|aside\s+from|except(?:\s+for)?)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)


def _owned_besides(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str]]:
    besides = _BESIDES.match(text)
    if besides is None:
        return text, []
    d = describer(pack)
    word = _singular(d, besides["kind"].lower()) or besides["kind"].lower()
    unit_kind = pack.catalog.schema.kind("unit") or ""
    named = {m.id for m in link_entities(pack, besides["rest"]) if m.kind == unit_kind}
    if word not in d.vocabulary or not named:
        return text, []
    others = [
        u for u in dict.fromkeys(sides.fielded + sides.owned) if word in d.words.get(u, ()) and u not in named
    ]
    names = [display(pack, unit_kind, u) for u in others]
    if not names:
        return text, []
    asked = f"which of {', '.join(names)} do i have" if len(names) > 1 else f"do i have {names[0]}"
    return asked, [f"{besides['kind']!r} besides {besides['rest']!r} -> {', '.join(names)}"]


def _owned_kind(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str]]:
    """A kind of unit the player asks whether they own, by the names of theirs it fits (at most
    three; none owned: the catalog's that fit, so the answer can say they have none)."""
    asked, notes = _owned_besides(pack, sides, text)
    if notes:
        return asked, notes
    which = _WHICH_ARE.match(text)
    if which is not None:
        asked, notes = _owned_kind(pack, sides, f"what {which['kind']} have i got")
        if notes:
            return asked, notes
    teams = "|".join(map(re.escape, sorted(_groups(pack))))
    if re.search(
        rf"\b(?:our|my)\s+(?:{teams})\s+(?:even\s+|still\s+)?(?:have|has|got|need|needs)\b"
        rf"|\b(?:in|on)\s+(?:our|my|their)\s+(?:current\s+)?(?:{teams})\b|\b(?:do|did)\s+they\s+(?:have|run|got)\b",
        text,
        re.I,
    ):
        return text, []  # "does our comp have a tank", "a tank in my lineup", "do they have a tank": a team's
    d = describer(pack)
    unit_kind = pack.catalog.schema.kind("unit") or ""
    # "long range heroes": an attribute's name after its value qualifies it, like a head noun
    attributes = set(pack.catalog.schema.kinds[unit_kind].attributes)
    heads = (
        _HEADS
        | _PLURAL_HEADS
        | _plurals(pack)
        | {n.lower() for n in pack.catalog.schema.kinds[unit_kind].nouns}
        | attributes
    )
    spans: list[tuple[int, int, list[str]]] = []
    kind = _KIND_THEN_OWN.match(text)
    if kind is not None:
        spans.append((kind.start("kind"), kind.end("kind"), kind["kind"].lower().split()))
    for token in _TOKEN.finditer(text):
        if _INDEFINITE.search(text[: token.start()]):
            words = [w.group(0).lower() for w in _TOKEN.finditer(text[token.start() :])][:3]
            spans.append((token.start(), token.start() + len(" ".join(words)), words))
            break
    for start, end, words in spans:
        said: list[str] = []
        for w in words:
            stem = _singular(d, w) or w
            if said and w in attributes:
                continue
            if stem in d.vocabulary and stem not in _STRONGEST:
                said.append(stem)
            elif w not in heads:
                break
        # The words up to the first that is neither a descriptor nor a head ("a sniper on my team").
        upto = words[: len(said) + sum(1 for w in words if w in heads)]
        if not said or (len(upto) > len(said) and upto[len(said)] not in heads):
            continue
        owned = [
            u
            for u in dict.fromkeys(sides.fielded + sides.owned)
            if all(w in d.words.get(u, ()) for w in said)
        ]
        fits = _doers(pack, said, owned) or _doers(pack, said, _fitting(d, sides, "any", said))
        if not 1 <= len(fits) <= 3:
            continue
        covered = text[start:end]
        cut = (
            start + len(" ".join(words[: len(upto)])) if kind is None or start != kind.start("kind") else end
        )
        said_names = [display(pack, unit_kind, u) for u in fits]
        names = " and ".join([", ".join(said_names[:-1]), said_names[-1]] if len(fits) > 1 else said_names)
        if kind is not None and start == kind.start("kind"):
            if len(fits) == 2:
                names = ", ".join(said_names)  # one question about both ("A and B": one about each)
            # "what supports have I got" -> "which of Elowen and Wendell have I got"; one: "have I
            # got Elowen"
            head = re.sub(r"\b(?:what|which|how\s+many)\s+$", "which of ", text[:start], flags=re.IGNORECASE)
            rest = text[cut:].strip()
            said_as = f"{head}{names} {rest}" if len(fits) > 1 else f"{rest} {names}"
            return said_as, [f"{covered.strip()!r} -> {names}"]
        det_start = text.rfind(" ", 0, start - 1) + 1
        asks_have = _DO_I_HAVE.match(text[:det_start])
        if len(fits) >= 2 and asks_have is not None:
            # "Do I have a healer": one question about them all ("A and B" would be one about each).
            listed = ", ".join(said_names) if len(fits) == 2 else names
            ask = re.sub(r"\bwe\b", "i", asks_have["ask"], flags=re.IGNORECASE)  # the player's roster
            return f"which of {listed} {ask}{text[cut:]}", [f"{text[det_start:cut]!r} -> {names}"]
        return f"{text[:det_start]}{names}{text[cut:]}", [f"{text[det_start:cut]!r} -> {names}"]
    return text, []


def _doers(pack: Pack, said: list[str], units: list[str]) -> list[str]:
    """ "A healer": of the units a role word fits, the ones with an option that does it (a support
    that only speeds allies up heals no one), when any has one; the effect is the agent noun's verb."""
    effects = {w[:-2] for w in said if w.endswith("er")} & set(BY_NAME)
    if not effects or not units:
        return units
    fx = option_effects(pack)
    field = pack.catalog.schema.options_field()
    kind = pack.catalog.schema.kind("unit") or ""

    def does(uid: str) -> bool:
        entity = pack.catalog.get(kind, uid)
        options = entity.value(field) or [] if entity is not None and field else []
        return any(effects & fx.get(o, frozenset()) for o in options)

    return [u for u in units if does(u)] or units


_ANY_BEFORE = re.compile(r"(?:^|\b(?:i\s+have|i\s+got|i\s+own|are|is|there)\s+)\W*any\s+$", re.IGNORECASE)
_FOR_US_AFTER = re.compile(
    r"^\s+(?:\w+\s+)?(?:worth|good|any\s+good|useful|any\s+use|help|to\s+bring|i\s+should|we\s+should)\b",
    re.IGNORECASE,
)


def _bare_plurals(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str]]:
    """ "Who counters snipers?": a plural kind word after a counter cue names the units it fits
    (theirs first, else the catalog's), when there are at most three."""
    d = describer(pack)
    unit_kind = pack.catalog.schema.kind("unit") or ""
    for token in _TOKEN.finditer(text):
        stem = _singular(d, token.group(0).lower())
        any_of_mine = _ANY_BEFORE.search(text[: token.start()]) is not None and _FOR_US_AFTER.match(
            text[token.end() :]
        )
        if stem is None or not (any_of_mine or THEIRS_CUE.search(text[: token.start()])):
            continue
        if any_of_mine:
            # "Any controllers worth bringing?": the player's own of that kind
            fits = _fitting(d, sides, "mine", [stem])
            fits = (
                [u for u in dict.fromkeys(sides.owned) if stem in d.words.get(u, ())]
                if len(fits) < 2
                else fits
            )
            if 1 <= len(fits) <= 3:
                names = " and ".join(display(pack, unit_kind, u) for u in fits)
                return text[: token.start()] + names + text[token.end() :], [f"{token.group(0)!r} -> {names}"]
            continue
        fits = _fitting(d, sides, "theirs", [stem]) or _fitting(d, sides, "any", [stem])
        if 1 <= len(fits) <= 3:
            names = " and ".join(display(pack, unit_kind, u) for u in fits)
            return text[: token.start()] + names + text[token.end() :], [f"{token.group(0)!r} -> {names}"]
    return text, []


_TYPE_NOUN = re.compile(r"\b(?P<word>[a-z]{3,})\s+(?:types?|ones|kinds?)\b", re.IGNORECASE)


def type_by_look(pack: Pack, text: str) -> tuple[str, list[str]]:
    """ "What beats lightning types" -> "what beats electric types": a word that describes units
    (a look word, not a type's name), said as a kind, is the type every unit it describes shares."""
    schema = pack.catalog.schema
    unit_kind = schema.kind("unit")
    types = {k for k in schema.kinds_of("type")}
    attribute = (
        next(
            (
                a
                for a, spec in schema.kinds[unit_kind].attributes.items()
                if isinstance(spec.values, str) and spec.values in types
            ),
            None,
        )
        if unit_kind
        else None
    )
    if unit_kind is None or attribute is None:
        return text, []
    d = describer(pack)
    named = {t for k in types for t in pack.catalog.entities.get(k, {})}
    for found in _TYPE_NOUN.finditer(text):
        word = found["word"].lower()
        if word in named or any(m.span[0] <= found.start() < m.span[1] for m in link_entities(pack, text)):
            continue
        units = [u for u, ws in d.strong.items() if word in ws]
        values = {str(pack.catalog.entities[unit_kind][u].value(attribute)) for u in units}
        if len(units) >= 2 and len(values) == 1:
            value = values.pop()
            return text[: found.start("word")] + value + text[found.end("word") :], [f"{word!r} -> {value}"]
    return text, []


# Before a kind of unit the player asks for ("which support", "any dps", "a healer", "play tank") or
# asks away ("not a tank", "non tank", "don't wanna play tank") (English cue words).
_ASKS_FOR_KIND = re.compile(
    r"\b(?:which|what|a|an|any|some|another|other|different|best|play|run|use|field|bring|go)\s+$",
    re.IGNORECASE,
)
_NOT_KIND = re.compile(
    r"\b(?:not|no|non|isn'?t|isnt|aren'?t|arent|without|other\s+than|besides|except|but)\W+(?:an?\s+|the\s+)?$"
    r"|\b(?:don'?t|dont|do\s+not)\s+(?:want\s+to|wanna|like\s+to|feel\s+like)\s+(?:play(?:ing)?|run(?:ning)?|"
    r"use|be|go)\s+(?:an?\s+|the\s+)?$",
    re.IGNORECASE,
)


def kind_asked(pack: Pack, text: str) -> tuple[str, list[str], bool] | None:
    """ "Which support beats Quillon", "someone else, not a tank", "don't wanna play tank": the word
    said, the units of the kind the player asks the pick to be (a role's word or an attribute's
    value, outside any name; not "their tank": a foe), and whether that kind is asked away. None
    when no kind is."""
    unit_kind = pack.catalog.schema.kind("unit") or ""
    spec = pack.catalog.schema.kinds[unit_kind]
    catalog = pack.catalog.entities.get(unit_kind, {})
    kinds: dict[str, list[str]] = {}
    for u, e in catalog.items():
        for attribute in spec.attributes:
            value = e.value(attribute)
            if isinstance(value, str) and value.isalpha():
                kinds.setdefault(value.lower(), []).append(u)
    for role, group in pack.vocabulary.roles.items():
        for word in (w.lower() for w in group.words if w.isalpha()):
            kinds.setdefault(word, kinds.get(role.lower(), []))
    blanked = text
    for m in link_entities(pack, text):
        if m.kind == unit_kind:  # (not a type's name: "which water one")
            blanked = blanked[: m.span[0]] + " " * (m.span[1] - m.span[0]) + blanked[m.span[1] :]
    for token in _TOKEN.finditer(blanked):
        word = token.group(0).lower()
        fits = kinds.get(word) or kinds.get(word.removesuffix("s")) or []
        if not fits:
            continue
        before = blanked[: token.start()]
        if _NOT_KIND.search(before):
            return word, fits, True
        if _ASKS_FOR_KIND.search(before):
            return word, fits, False
    return None


def kind_said(pack: Pack, text: str) -> tuple[str, list[str]] | None:
    """The first kind of unit the sentence names (`kinds_said`), or None."""
    kinds = kinds_said(pack, text)
    return kinds[0] if kinds else None


def kinds_said(pack: Pack, text: str) -> list[tuple[str, list[str]]]:
    """ "Are shotguns any good here", "is this map good for tanks", "snipers or close range": the
    kinds of unit the sentence names, in order (a play style's or role's phrase of the vocabulary,
    an attribute value with its attribute's name, "long range", a plural descriptor, a gear word),
    each with every unit of the catalog it fits; none when it names a unit."""
    d = describer(pack)
    unit_kind = pack.catalog.schema.kind("unit") or ""
    if any(m.kind == unit_kind for m in link_entities(pack, text)):
        return []
    spec = pack.catalog.schema.kinds[unit_kind]
    catalog = pack.catalog.entities.get(unit_kind, {})
    said = text.lower()
    found: dict[int, tuple[str, list[str]]] = {}  # start -> (the words, the units)

    def taken(at: int) -> bool:
        return any(a <= at < a + len(k) for a, (k, _) in found.items())

    tokens = list(_TOKEN.finditer(said))
    # "Tank or support here", "should I go fire or water": two values of one attribute offered as a
    # choice, each the kind of unit that has it.
    values: dict[str, dict[str, list[str]]] = {}
    for u, e in catalog.items():
        for attribute in spec.attributes:
            value = e.value(attribute)
            if isinstance(value, str) and value.isalpha():
                values.setdefault(attribute, {}).setdefault(value.lower(), []).append(u)
    for pair in re.finditer(r"\b([a-z]+)\s+or\s+(?:an?\s+)?([a-z]+)\b", said):
        one, other = pair.group(1), pair.group(2)
        shared = next((a for a, vs in values.items() if one in vs and other in vs and one != other), None)
        if shared is not None:
            found[pair.start(1)] = (one, values[shared][one])
            found[pair.start(2)] = (other, values[shared][other])
    heads_after = _HEADS | _PLURAL_HEADS  # ("is shotgun guy good": a description, not a kind)
    for token, then in zip(tokens, tokens[1:], strict=False):
        word, following = token.group(0), then.group(0)
        if following in spec.attributes and word in d.vocabulary:
            fits = [u for u, e in catalog.items() if str(e.value(following)).lower() == word]
            if fits:
                found[token.start()] = (f"{word} {following}", fits)  # "long range": range long
    # a vocabulary phrase of two words or more ("close range", "up close"): the units of that style / role
    for attribute, groups in (("style", pack.vocabulary.styles), ("role", pack.vocabulary.roles)):
        if attribute not in spec.attributes:
            continue
        for value, group in groups.items():
            for phrase in (w.lower() for w in group.words if " " in w):
                at = re.search(rf"\b{re.escape(phrase)}\b", said)
                if at is not None and not any(a <= at.start() < a + len(k) for a, (k, _) in found.items()):
                    found[at.start()] = (
                        phrase,
                        [u for u, e in catalog.items() if e.value(attribute) == value],
                    )
    for i, token in enumerate(tokens):
        word = token.group(0)
        following = tokens[i + 1].group(0) if i + 1 < len(tokens) else ""
        stem = _singular(d, word) or (word[:-1] if word.endswith("s") and word[:-1] in d.gear else None)
        if stem is None and following in _PLURAL_HEADS | _plurals(pack) and word in d.vocabulary | d.gear:
            stem = word  # "sniper heroes", "shotgun guys"
        article = tokens[i - 1].group(0) if i else ""
        if stem is None and article in ("a", "an", "any") and word in d.vocabulary:
            stem = word  # "is there a support on my team", "any healer"
        if stem is None and article in ("is", "are") and word in d.gear and following not in heads_after:
            stem = word  # "is shotgun even good on this map": the kind that carries one
        if (
            stem is None
            or stem in _STRONGEST
            or any(a <= token.start() < a + len(k) for a, (k, _) in found.items())
        ):
            continue
        fits = _doers(pack, [stem], [u for u, ws in d.words.items() if stem in ws])  # "healers": who heal
        if fits:
            found[token.start()] = (word, fits)
    return [found[at] for at in sorted(found)]


def _singular(d: Describer, word: str) -> str | None:
    """The descriptor a plural word is ("snipers" -> "sniper", "supports" -> "support"), or None."""
    endings = (word[:-1], word[:-2], word[:-3] + "y" if word.endswith("ies") else "")  # "legendaries"
    for stem in endings if word.endswith("s") and len(word) > 4 else ():
        if stem in d.vocabulary and len(stem) > 2:
            return stem
    return None


def _fitting(d: Describer, sides: Sides, side: Side, words: list[str]) -> list[str]:
    """Every unit on `side` (any: the catalog's) every word describes."""
    for pool in sides.pools(side)[:1] if side != "any" else [list(d.words)]:
        fits = [u for u in dict.fromkeys(pool) if all(w in d.words.get(u, ()) for w in words)]
        if fits:
            return fits
    return []


def _holders(pack: Pack, linked: list[Mention]) -> list[str]:
    """The units whose options include one the text names."""
    schema = pack.catalog.schema
    unit, option, field = schema.kind("unit"), schema.kind("option"), schema.options_field()
    named = {m.id for m in linked if m.kind == option}
    if not named or unit is None or field is None:
        return []
    return [
        uid for uid, e in pack.catalog.entities.get(unit, {}).items() if named & set(e.value(field) or [])
    ]


def _pick(
    d: Describer,
    sides: Sides,
    side: Side,
    descriptors: list[str],
    unfit: Callable[[str], bool] = lambda u: False,
) -> tuple[str | None, list[str]]:
    """The one unit the description names, or None and the ones it could be (`unfit`: ruled out by
    the head noun, "the shield lady" of a unit the pack calls "he")."""
    strongest = any(w in _STRONGEST for w in descriptors)
    words = [w for w in descriptors if w not in _STRONGEST]
    own_words = [u for u in d.strong if words and all(w in d.strong[u] for w in words) and not unfit(u)]
    if side == "any" and not strongest and len(own_words) == 1:
        # "the medic": a role's word for every support, but the one unit whose own words ("a combat
        # medic") say it
        return own_words[0], []
    for pool in sides.pools(side) + ([list(d.words)] if side == "any" and not strongest else []):
        fits = [
            u for u in dict.fromkeys(pool) if all(w in d.words.get(u, ()) for w in words) and not unfit(u)
        ]
        singled = [u for u in fits if all(w in d.strong.get(u, ()) for w in words)]
        if len(fits) > 1 and singled:
            fits = singled  # "the healer": the two called healers, not every support
        if strongest and fits:
            return max(fits, key=lambda u: d.power.get(u, 0.0)), []
        if len(fits) == 1:
            return fits[0], []
        if fits:
            return None, fits  # two fit: not this step's guess
    if len(words) >= 3 and not strongest:
        # "The tree horned deer" of an oak-horned stag: the one unit that fits all but one word,
        # when none fits them all
        count = {u: sum(w in d.words.get(u, ()) for w in words) for u in d.words if not unfit(u)}
        most = [u for u, n in count.items() if n == len(words) - 1]
        if len(most) == 1:
            return most[0], []
    if len(words) >= 2:
        # "The spiky cat" where the hedgehog is the spiky one: the noun names the unit, the look
        # word the data gives another is the player's own.
        return _pick(d, sides, side, [*(w for w in descriptors if w in _STRONGEST), words[-1]], unfit)
    return None, []


_GENDERS: dict[tuple[int, str], str | None] = {}


def gender_of(pack: Pack, uid: str) -> str | None:
    """ "m" or "f" when the pack's own text about the unit says "he"/"his" or "she"/"her" (and not
    both); None otherwise (a creature is "it", and players say "he" of it anyway)."""
    key = (id(pack), uid)
    if key not in _GENDERS:
        entity_kind = pack.catalog.schema.kind("unit") or ""
        entity = pack.catalog.get(entity_kind, uid)
        option = pack.catalog.schema.kind("option") or ""
        # Its own text, and its options' ("a line that zips him up to a high perch").
        mine = [
            o for o in pack.catalog.entities.get(option, {}).values() if uid in (o.model_extra or {}).values()
        ]
        texts = [entity, *mine] if entity is not None else []
        said = " ".join(str(v) for e in texts for v in (e.model_extra or {}).values())
        male = re.search(r"\b(?:he|him|his|himself)\b", said, re.IGNORECASE) is not None
        female = re.search(r"\b(?:she|her|hers|herself)\b", said, re.IGNORECASE) is not None
        if not male and not female and entity is not None:
            # The matchup notes: "Stellan's laser keeps burning Hakon through his jumps" - the name
            # nearest before a pronoun, in the same sentence, is whom it stands for.
            name = entity.display
            for notes in pack.catalog.notes.values():
                for note in notes.values():
                    for sentence in re.split(r"[.;!?]", note):
                        for p in re.finditer(
                            r"\b(he|him|his|himself|she|her|hers|herself)\b", sentence, re.I
                        ):
                            names = [e.display for e in pack.catalog.entities.get(entity_kind, {}).values()]
                            last = max(names, key=lambda n: sentence.rfind(n, 0, p.start()))
                            if last == name and sentence.rfind(name, 0, p.start()) >= 0:
                                if p.group(1).lower() in ("he", "him", "his", "himself"):
                                    male = True
                                else:
                                    female = True
        _GENDERS[key] = "m" if male and not female else "f" if female and not male else None
    return _GENDERS[key]


# --- an option by its unit and slot --------------------------------------------------------------


_OWNER = re.compile(r"\b(?:my|our|their|your)\s+$", re.IGNORECASE)


def slotted(
    pack: Pack, state: LiveState | None, text: str, last_unit: str | None = None
) -> tuple[str, list[str]]:
    """ "What's Quillon's perk?" -> "What's Patient Aim?": the option a unit has in a slot (the
    option kind's `slot` attribute), the one the player has equipped on their own unit, else the
    unit's first of that slot in its catalog entry (its starting one); "the perk" / "his perk" is
    `last_unit`'s (the one unit the last question named). Unchanged for a pack whose options fill
    no slots."""
    schema, catalog = pack.catalog.schema, pack.catalog
    unit, option = schema.kind("unit"), schema.kind("option")
    slot = schema.kinds[option].slot if option is not None else None
    if unit is None or option is None or slot is None:
        return text, []
    options = catalog.entities.get(option, {})
    slots = {str(e.value(slot)) for e in options.values() if e.value(slot)}
    bare = re.search(rf"\b(?:the|his|her|its)\s+(?=(?:{'|'.join(map(re.escape, slots))})\b)", text, re.I)
    if (
        last_unit is not None
        and bare is not None
        and not any(m.kind == unit for m in link_entities(pack, text))
    ):
        text = f"{text[: bare.start()]}{display(pack, unit, last_unit)}'s {text[bare.end() :]}"
    after = re.compile(
        rf"^(?:'s|s)?\s+(?:current\s+|equipped\s+)?(?P<slot>{'|'.join(map(re.escape, slots))})\b", re.I
    )
    relations = [field for field, kind in schema.kinds[unit].relations.items() if kind == option]
    equipped = {o.id: o.equipped for o in StateView(pack, state).owned()} if state is not None else {}
    for m in reversed([m for m in link_entities(pack, text) if m.kind == unit]):
        match = after.match(text[m.span[1] :])
        entity = catalog.get(unit, m.id)
        if match is None or entity is None:
            continue
        name = match["slot"].lower()
        mine = equipped.get(m.id, {}).get(name)
        own = [i for field in relations for i in entity.value(field) or [] if i in options]
        pick = mine or next((i for i in own if str(options[i].value(slot)).lower() == name), None)
        if pick is None:
            continue
        end = m.span[1] + match.end()
        owner = _OWNER.search(text[: m.span[0]])
        start = owner.start() if owner is not None else m.span[0]
        text = f"{text[:start]}{display(pack, option, pick)}{text[end:]}"
        return text, [f"{m.surface}'s {name} -> {display(pack, option, pick)}"]
    return text, []


def option_by_word(pack: Pack, text: str, state: LiveState | None = None) -> tuple[str, list[str]]:
    """ "Galehawk's dive" -> "Galehawk's Gale Dive": a word of the name of one of the unit's own
    options, after the unit's possessive, is that option (when exactly one of them has the word).
    With the live state, "Tamsin's drone" / "Lorcan's other gun" / "Wendell's locked gun": of the
    unit's options the word names (by name, or by the slot the pack's options of that name fill:
    "gun" is a primary where guns are primaries), the equipped one, the other one, the locked one."""
    schema = pack.catalog.schema
    unit_kind, option_kind, field = schema.kind("unit"), schema.kind("option"), schema.options_field()
    if unit_kind is None or option_kind is None or field is None:
        return text, []
    text, asked = _asked_as_possessive(pack, text)
    linked = link_entities(pack, text)
    types = {t for k in schema.kinds_of("type") for t in pack.catalog.entities.get(k, {})}
    for m in linked:
        after = re.match(
            rf"(?:'s|s)?\s+(?:(?P<mod>{_WHICH_OPTION})\s+)?([a-z]{{3,}})\b", text[m.span[1] :], re.I
        )
        if m.kind != unit_kind or after is None:
            continue
        if not after.group(0).startswith(("'s", "s")) and state is None:
            continue  # "Galehawk dive" without the possessive: only where the state picks among them
        start, end = m.span[1] + after.start(2 if after["mod"] is None else "mod"), m.span[1] + after.end(2)
        if any(o.span[0] <= m.span[1] + after.start(2) < o.span[1] for o in linked):
            continue  # "Galehawk's Gale Dive": named already
        word = after.group(2).lower()
        if word in types:
            continue  # "Hexmoth's shadow attacks": its type, not a move of that name
        entity = pack.catalog.get(unit_kind, m.id)
        own = [oid for oid in (entity.value(field) or [] if entity is not None else [])]
        named = {oid: o.display for oid in own if (o := pack.catalog.get(option_kind, oid)) is not None}
        hits = [
            i
            for i, n in named.items()
            if word in n.lower().split() or word.removesuffix("s") in n.lower().split()
        ]
        theirs = re.search(r"\b(?:their|the\s+enemy'?s?|enemy)\s+$", text[: m.span[0]], re.IGNORECASE)
        if state is not None and theirs is None and (len(hits) != 1 or after["mod"]):
            # "Wendell's locked gun": of his guns (by name and by slot), the locked one.
            # (By slot only after a possessive: "Bexley quick?" is no perk of hers.)
            possessive = after.group(0).startswith(("'s", "s"))
            kin = list(dict.fromkeys([*hits, *(_in_slot_named(pack, own, word) if possessive else [])]))
            hits = _option_meant(pack, state, m.id, kin, after["mod"])
            if len(hits) > 1 and after["mod"] is None and StateView(pack, state).unit(m.id) is None:
                hits = hits[:1]  # "Quillon's gun" of one the player lacks: the one it starts with
        if len(hits) == 1:
            said = named.get(hits[0]) or display(pack, option_kind, hits[0])
            rest, notes = text[end:], [f"{text[m.span[0] : end]!r} -> {said}"]
            other = re.match(r"\s+or\s+(?:the\s+|his\s+|her\s+|its\s+)?([a-z]{3,})\b", rest, re.IGNORECASE)
            word = other.group(1).lower() if other is not None else ""
            also = [
                i for i, n in named.items() if i != hits[0] and word.removesuffix("s") in n.lower().split()
            ]
            if other is not None and len(also) == 1 and word not in types:
                # "Pax mines or turret": the other of the unit's options the word names, offered beside it
                rest = rest[: other.start(1)] + named[also[0]] + rest[other.end(1) :]
                notes.append(f"{word!r} -> {named[also[0]]}")
            return text[:start] + said + rest, asked + notes
    units = {m.id for m in linked if m.kind == unit_kind}
    if len(units) == 1 and not any(m.kind == option_kind for m in linked):
        # "Can Brannoc get the dome yet": a word of one of that unit's options' names, after "the".
        entity = pack.catalog.get(unit_kind, next(iter(units)))
        names = [
            o.display
            for oid in (entity.value(field) or [] if entity is not None else [])
            if (o := pack.catalog.get(option_kind, oid)) is not None
        ]
        # (also a bare word after a verb of using: "can I use dome on my Brannoc")
        for the in re.finditer(
            r"\b(?:(?:the|his|her|its)|(?<=use )|(?<=equip )|(?<=run ))\s*([a-z]{4,})\b"
            r"(?!\s+(?:lady|guy|girl|dude|man|woman|one)\b)",
            text,
            re.IGNORECASE,
        ):
            if any(o.span[0] <= the.start(1) < o.span[1] for o in linked):
                continue  # "the spark wing": a word of a name said whole (Sparkwing), not a move
            # ("the shield lady": a person described, not her Shield Pistol)
            word = the.group(1).lower()
            hits = [n for n in names if word in n.lower().split()]
            if len(hits) == 1 and word not in types and word not in FUNCTION_WORDS:
                return text[: the.start()] + hits[0] + text[the.end() :], [
                    *asked,
                    f"{the.group(0)!r} -> {hits[0]}",
                ]
    if not any(m.kind == option_kind for m in linked):
        # "Through the coral thing": a thing is no unit; the one option whose name has the word.
        every = [o.display for o in pack.catalog.entities.get(option_kind, {}).values()]
        for the in re.finditer(r"\b(?:the|that|this|its|his|her)\s+([a-z]{4,})\s+things?\b", text, re.I):
            hits = [n for n in every if the.group(1).lower() in n.lower().split()]
            if len(hits) > 1:  # "that drone thing their Tamsin throws": of the units named, theirs
                held = {
                    display(pack, option_kind, o)
                    for m in linked
                    if m.kind == unit_kind and (e := pack.catalog.get(unit_kind, m.id)) is not None
                    for o in e.value(field) or []
                }
                hits = [n for n in hits if n in held]
            holders = list(
                dict.fromkeys(
                    m.id
                    for m in linked
                    if m.kind == unit_kind
                    and (e := pack.catalog.get(unit_kind, m.id)) is not None
                    and {display(pack, option_kind, o) for o in e.value(field) or []} & set(hits)
                )
            )
            if len(hits) > 1 and state is not None and len(holders) == 1:
                # both of hers: the one she runs, else the one she starts with (her loadout's first)
                e = pack.catalog.get(unit_kind, holders[0])
                kin = [
                    o for o in (e.value(field) or [] if e else []) if display(pack, option_kind, o) in hits
                ]
                hits = [
                    display(pack, option_kind, o)
                    for o in _option_meant(pack, state, holders[0], kin, None)[:1]
                ]
            if len(hits) == 1 and the.group(1).lower() not in types:
                return text[: the.start()] + hits[0] + text[the.end() :], [
                    *asked,
                    f"{the.group(0)!r} -> {hits[0]}",
                ]
    if not units and not any(m.kind == option_kind for m in linked):
        # "What about the roar one": a word of exactly one option's name, before "one" or a noun
        # for options, is that option ("the fire one" is a type: a unit's description).
        nouns = "|".join(re.escape(n.lower()) for n in [*schema.kinds[option_kind].nouns, "one", "thing"])
        names = [o.display for o in pack.catalog.entities.get(option_kind, {}).values()]
        d = describer(pack)
        described = {w for ws in d.strong.values() for w in ws} - d.gear  # "the shell one": a unit's look
        for the in re.finditer(
            rf"(?<!\bon\s)\b(?:the|that|this)\s+([a-z]{{4,}})\s+(?:{nouns})s?\b", text, re.IGNORECASE
        ):
            # ("put armour on the shotgun one": what an option goes on is a unit)
            word = the.group(1).lower()
            hits = [n for n in names if word in n.lower().split()]
            # ("the wall one": a role's word too, but asked as a move when unlocked or used)
            moved = word in d.roles and _OPTION_VERB.search(text) is not None
            if len(hits) == 1 and word not in types and (word not in described or moved):
                return text[: the.start()] + hits[0] + text[the.end() :], [
                    *asked,
                    f"{the.group(0)!r} -> {hits[0]}",
                ]
        # "Then the whisper, but on whom", "is the roar worth it": the last word of exactly one
        # option's name, after "the", is that option (not a look, a role or a type: "the shell").
        # ("this hero with the turret": a unit, by what it carries)
        for the in re.finditer(
            # ("does that soak it": a verb, its object after it)
            r"(?<!with )\b(?:the|that|this)\s+([a-z]{4,})\b"
            r"(?!\s+(?:one|thing|guy|girl|lady|it|him|her|them|me|us)\b)",
            text,
            re.I,
        ):
            word = the.group(1).lower()
            hits = [n for n in names if n.lower().split()[-1] == word]
            moved = word in d.roles and _OPTION_VERB.search(text) is not None
            if (
                len(hits) == 1
                and word not in types
                and word not in FUNCTION_WORDS
                and (word not in described or moved)
            ):
                return text[: the.start()] + hits[0] + text[the.end() :], [
                    *asked,
                    f"{the.group(0)!r} -> {hits[0]}",
                ]
    return text, asked


_OPTION_VERB = re.compile(r"\b(?:unlock\w*|use|using|pop|cast|learn\w*|equip\w*)\b", re.IGNORECASE)
# "What gun does Nadira use": the word for an option asked of a unit (English cue words).
_WHAT_OPTION = re.compile(
    r"\b(?:what|which)\s+(?P<word>[a-z]{3,})\s+(?:does|do|did|will|is|can)\s+(?:their\s+|my\s+|the\s+)?$",
    re.I,
)
_WHAT_OPTION_SAID = re.compile(r"\b(?:what|which)\s+[a-z]{3,}\s+(?:does|do|did|will|is|can)\b", re.I)
_USES = re.compile(r"^\s+(?:use|uses|using|have|has|run|running|carry|bring|equip|got|rock|get)\b", re.I)


def _asked_as_possessive(pack: Pack, text: str) -> tuple[str, list[str]]:
    """ "What gun does Nadira use" -> "what's Nadira's gun": asked by a word for one option (a slot,
    the last word of an option's name), so the possessive reading below finds which one."""
    schema = pack.catalog.schema
    unit_kind, option_kind = schema.kind("unit"), schema.kind("option")
    if unit_kind is None or option_kind is None or not _WHAT_OPTION_SAID.search(text):
        return text, []  # (most turns: no "what ... does" at all, nothing to link again)
    kind = schema.kinds[option_kind]
    options = pack.catalog.entities.get(option_kind, {}).values()
    # One option's word, not the kind's ("what skills does Emberfox have" asks for all of them).
    words = {o.display.lower().split()[-1] for o in options}
    if kind.slot:
        words |= {str(o.value(kind.slot)).lower() for o in options if o.value(kind.slot)}
    for m in link_entities(pack, text):
        before = _WHAT_OPTION.search(text[: m.span[0]])
        uses = _USES.match(text[m.span[1] :])
        if m.kind != unit_kind or before is None or uses is None:
            continue
        if before["word"].lower() not in words:
            continue
        said = f"what's {text[m.span[0] : m.span[1]]}'s {before['word']}"
        new = text[: before.start()] + said + text[m.span[1] + uses.end() :]
        return new, [f"{text[before.start() : m.span[1] + uses.end()]!r} -> {said!r}"]
    return text, []


# Which of a unit's options a word before the noun picks ("his other gun", "the locked one").
_WHICH_OPTION = r"other|locked|new|second|current|equipped|main"


def _in_slot_named(pack: Pack, own: list[str], word: str) -> list[str]:
    """The unit's options (`own`) in the slot the pack's options named with `word` all fill ("gun":
    Drum Gun and Spanner Gun are primaries); none when the word names no slot of one kind."""
    option_kind = pack.catalog.schema.kind("option")
    slot = pack.catalog.schema.kinds[option_kind].slot if option_kind else None
    if option_kind is None or slot is None:
        return []
    options = pack.catalog.entities.get(option_kind, {}).values()
    # The head noun of a name ("Drum Gun": gun), not any word of it ("Quick Hands": not quick).
    slots = {
        o.value(slot)
        for o in options
        if word.removesuffix("s") == o.display.lower().split()[-1].removesuffix("s")
    }
    if len(slots) != 1:
        return []
    (value,) = slots
    return [i for i in own if (o := pack.catalog.get(option_kind, i)) is not None and o.value(slot) == value]


def _option_meant(pack: Pack, state: LiveState, uid: str, options: list[str], which: str | None) -> list[str]:
    """Of the unit's `options`, the one `which` picks: the other (not equipped), the locked one (not
    usable), else the equipped one; all of them when that does not single one out."""
    view = StateView(pack, state)
    owned = view.unit(uid)
    equipped = set(owned.equipped.values()) if owned is not None else set()
    which = (which or "").lower()
    if which in ("other", "second", "new"):
        picked = [o for o in options if o not in equipped]
    elif which == "locked":
        picked = [o for o in options if not view.option_usable(o, uid)]
    else:
        picked = [o for o in options if o in equipped]
    return picked if len(picked) == 1 else options


# Words a player uses for what an option does, and the words its text says it with (English).
_DOES = (
    frozenset({"everyone", "everybody", "all", "whole", "entire", "every", "aoe", "team"}),
    frozenset({"heal", "heals", "healing", "restore", "restores", "mend", "mends", "health"}),
    frozenset({"shield", "shields", "barrier", "guard", "protect", "protects", "wall", "block"}),
    frozenset({"first", "fast", "quick", "quickly", "priority"}),
    frozenset({"stun", "stuns", "freeze", "freezes", "paralyze", "skip", "sleep"}),
    frozenset({"slow", "slows", "snare", "lock", "locks"}),
)
_SIZE = frozenset({"big", "biggest", "giant", "huge", "ultimate", "ult", "nuke"})  # "best": usable now
# What players ask of a unit itself (English words), not of one of its options.
_UNIT_FIELDS = frozenset({"type", "role", "level", "stage", "rarity", "class", "stat", "name"})
_NOT_CONTENT = frozenset({"new", "one", "thing", "that", "this", "the", "its", "his", "her", "their", "a",
                          "an", "of", "my", "little", "cool", "special", "hit", "hits", "s", "again", "now",
                          "then", "exactly"})  # fmt: skip


def _stems(words: list[str]) -> set[str]:
    out: set[str] = set()
    for word in words:
        out.add(word[:5] if len(word) > 5 else word)
        out |= {f"={i}" for i, group in enumerate(_DOES) if word in group}
    return out


_OWNED_THING = re.compile(
    r"^(?P<s>'?s)?\s+(?P<words>(?:[a-z-]+\s+){0,2}?[a-z-]+)(?=\s+(?:do|does|work|works|doing|for|good)\b|\W*$)",
    re.IGNORECASE,
)


# "Nadira threw something", "they just put some coral shield thing on": one of theirs used an option
# the player cannot name (English cue words).
_USED_SOMETHING = re.compile(
    r"\b(?:threw|throws|throwing|used|uses|using|cast|casts|dropped|drops|put|puts|popped|pops|fired|fires|"
    r"placed|places|shot)\s+(?:(?:some|a|an|that|this|the)\s+)?(?P<words>(?:[a-z]+\s+){0,3}?)"
    r"(?:something|thing|stuff)\b",
    re.IGNORECASE,
)


def option_they_used(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str]]:
    """ "Nadira threw something and our heals stopped" -> "what does Nadira's Null Grenade do":
    of the options of the unit of theirs said before the verb (or of every one of theirs after
    "they"), the one whose name and description share most of the turn's words, when one does."""
    schema, catalog = pack.catalog.schema, pack.catalog
    unit_kind, option_kind, field = schema.kind("unit"), schema.kind("option"), schema.options_field()
    used = _USED_SOMETHING.search(text)
    if used is None or unit_kind is None or option_kind is None or field is None or not sides.theirs:
        return text, []
    linked = link_entities(pack, text)
    if any(m.kind == option_kind for m in linked):
        return text, []
    before = [m.id for m in linked if m.kind == unit_kind and m.span[1] <= used.start()]
    if before and before[-1] not in sides.theirs:
        return text, []  # "my Sparkwing used something": the player's own, asked another way
    if not before and not re.search(r"\b(?:they|their|the\s+enemy)\b", text[: used.start()], re.IGNORECASE):
        return text, []
    owners = before[-1:] or list(sides.theirs)
    names = {w for m in linked for w in re.findall(r"[a-z]+", m.surface.lower())}  # not what it shares
    said = {
        _stem(w)
        for w in re.findall(r"[a-z]+", text.lower())
        if w not in FUNCTION_WORDS and w not in _NOT_CONTENT and w not in names
    }
    scored = []
    for uid in owners:
        unit = catalog.get(unit_kind, uid)
        for oid in (unit.value(field) or []) if unit is not None else []:
            option = catalog.get(option_kind, oid)
            if option is None:
                continue
            words = re.findall(r"[a-z]+", f"{option.display} {option.value('description') or ''}".lower())
            scored.append(
                (len(said & {_stem(w) for w in words if w not in FUNCTION_WORDS}), uid, option.display)
            )
    scored.sort(reverse=True)
    if not scored or scored[0][0] < 1 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return text, []
    _, uid, name = scored[0]
    asked = f"what does {display(pack, unit_kind, uid)}'s {name} do"
    return asked, [f"{used.group(0)!r} -> {name} (one of theirs used it)"]


_THEIR_THING = re.compile(
    r"\b(?:the|that|their|those)\s+(?P<words>[a-z]{3,}(?:\s+[a-z]{3,}){1,2})\b", re.IGNORECASE
)


def their_option_described(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str]]:
    """ "How long does the light wall last" -> "how long does Barrier Drop last": two or three
    words that all describe one option of a unit their side fields or the player fields (its
    name's and description's words), and no other option as well, are that option; so is "the
    speed one" (one word and a noun for an option). Only with no unit or option named."""
    schema, catalog = pack.catalog.schema, pack.catalog
    unit_kind, option_kind, field = schema.kind("unit"), schema.kind("option"), schema.options_field()
    if unit_kind is None or option_kind is None or field is None or link_entities(pack, text):
        return text, []
    heads = _HEADS | _PLURAL_HEADS
    options = []
    for uid in dict.fromkeys([*sides.theirs, *sides.fielded, *sides.owned]):
        unit = catalog.get(unit_kind, uid)
        for oid in (unit.value(field) or []) if unit is not None else []:
            option = catalog.get(option_kind, oid)
            if option is not None:
                words = re.findall(r"[a-z]+", f"{option.display} {option.value('description') or ''}".lower())
                options.append((option.display, _stems([w for w in words if w not in FUNCTION_WORDS])))
    types = {t for k in schema.kinds_of("type") for t in catalog.entities.get(k, {})}
    d = describer(pack)
    # "the speed one", "the curse move": one word, then a noun for an option (the pack's own nouns)
    nouns = "|".join(
        re.escape(n.lower()) for n in [*schema.kinds[option_kind].nouns, "one", "thing", "ability"]
    )
    for one in re.finditer(rf"\b(?:the|that)\s+(?P<word>[a-z]{{4,}})\s+(?:{nouns})\b", text, re.IGNORECASE):
        # "should I use the speed one on the fox": the one option in play its word describes (not a
        # unit's look or a type: "the fire one", "the shell one")
        word = one["word"].lower()
        if word in types or word in d.vocabulary or word in FUNCTION_WORDS or word in _NOT_CONTENT:
            continue
        fits = {name for name, stems in options if _stems([word]) & stems}
        if len(fits) == 1:
            name = fits.pop()
            return text[: one.start()] + name + text[one.end() :], [f"{one.group(0)!r} -> {name}"]
    for phrase in _THEIR_THING.finditer(text):
        said = phrase["words"].lower().split()
        for words in (said, said[:2]) if len(said) == 3 else (said,):  # "the light wall last"
            if words[-1] in heads or any(w in FUNCTION_WORDS or w in _NOT_CONTENT for w in words):
                continue  # "the big shield guy": a unit described, not one of its options
            wanted = [_stems([w]) for w in words]
            fits = {name for name, stems in options if all(w & stems for w in wanted)}
            if len(fits) == 1:
                end = phrase.start("words") + len(" ".join(words))
                name = fits.pop()
                return text[: phrase.start()] + name + text[end:], [
                    f"{text[phrase.start() : end]!r} -> {name}"
                ]
    return text, []


def option_by_description(pack: Pack, text: str) -> tuple[str, list[str]]:
    """ "When does Tidefang get the giant wave move" -> "... get Tsunami Crash": an option the
    player describes by what it does (its name's and description's words, "heal", "everyone"),
    among the options of the unit the sentence names; a size word ("big", "giant") prefers the
    strongest. Unchanged when no one option fits better than the rest."""
    schema, catalog = pack.catalog.schema, pack.catalog
    unit_kind, option_kind, field = schema.kind("unit"), schema.kind("option"), schema.options_field()
    if unit_kind is None or option_kind is None:
        return text, []
    linked = link_entities(pack, text)
    if any(m.kind == option_kind for m in linked):
        return text, []
    # "that giant wave thing": a thing the unit does, when its words fit one of its options
    nouns = "|".join(re.escape(n.lower()) for n in [*schema.kinds[option_kind].nouns, "thing"])
    phrases = re.finditer(
        rf"(?:\b(?:the|its|his|her|their|that|this|a)\s+|(?P<pos>'s)\s+)(?P<words>(?:[a-z-]+\s+){{1,4}}?)(?:{nouns})s?\b",
        text,
        re.IGNORECASE,
    )
    units = [m.id for m in linked if m.kind == unit_kind]
    # "what's the ...": not a unit's
    ends = {m.span[1] for m in linked}
    phrase = next((p for p in phrases if not p["pos"] or p.start() in ends), None)
    if len(set(units)) != 1:
        return text, []
    if phrase is not None:
        said_words, start, end = (
            phrase["words"],
            phrase.start("words") if phrase["pos"] else phrase.start(),
            phrase.end(),
        )
    else:
        # "what does nadiras grenade do": the unit's possessive, then what it names (no option noun).
        owner = next(m for m in linked if m.kind == unit_kind)
        tail = _OWNED_THING.match(text[owner.span[1] :])
        # a possessive: "Nadira's", or STT's "nadiras" (the linker took the "s" in with the name)
        name_s = owner.surface.lower().endswith("s") and not display(
            pack, unit_kind, owner.id
        ).lower().endswith("s")
        if tail is None or not (tail["s"] or name_s):
            return text, []
        said_words, start, end = (
            tail["words"],
            owner.span[1] + tail.start("words"),
            owner.span[1] + tail.end("words"),
        )
    types = {t for k in schema.kinds_of("type") for t in catalog.entities.get(k, {})}
    words = [w for w in re.split(r"[\s-]+", said_words.lower()) if w and w not in types]
    # "Sparkwing's element again", "Oakhorn's level": a field of the unit, not one of its options
    fields = {n.lower() for n in schema.kinds[unit_kind].attributes} | {
        n.lower() for k in schema.kinds_of("type") for n in (k, *schema.kinds[k].nouns)
    }
    if words and words[0].removesuffix("s") in fields | _UNIT_FIELDS:
        return text, []
    sized = any(w in _SIZE for w in words)
    wanted = _stems([w for w in words if w not in _SIZE and w not in _NOT_CONTENT])
    entity = catalog.get(unit_kind, units[0])
    owner_fields = [f for f, a in schema.kinds[option_kind].attributes.items() if a.values == unit_kind]
    own = entity.value(field) or [] if entity is not None and field else []
    # The unit's own options: its relation field (pet's skills), or the options that name it (an item's hero)
    options = [catalog.get(option_kind, oid) for oid in own] or [
        o
        for o in catalog.entities.get(option_kind, {}).values()
        if any(o.value(f) == units[0] for f in owner_fields)
    ]
    power = next((f for f, a in schema.kinds[option_kind].attributes.items() if a.numeric), None)
    scored: list[tuple[int, int, float, int, str]] = []
    for index, option in enumerate(options):
        if option is None:
            continue
        oid = option.id
        said = " ".join(str(v) for v in (option.display, option.value("description")) if v)
        score = len(wanted & _stems(re.findall(r"[a-z]+", said.lower())))
        # What the option is (its name, its description's opening words: "A wide barrier ...")
        # before what it mentions ("... while the barrier is up")
        head = " ".join([option.display, *str(option.value("description") or "").split()[:4]])
        headed = len(wanted & _stems(re.findall(r"[a-z]+", head.lower())))
        strength = float(option.value(power) or 0) if power and sized else 0.0
        scored.append((score, headed, strength, -index, oid))
    scored.sort(reverse=True)
    if not scored or (not wanted and not sized) or (wanted and scored[0][0] == 0):
        return text, []
    if len(scored) > 1 and scored[0][:3] == scored[1][:3]:
        return text, []  # two fit as well: not the sentence's to say
    name = display(pack, option_kind, scored[0][4])  # "Oakhorn's Worldroot Slam"
    return text[:start] + name + text[end:], [f"{text[start:end]!r} -> {name}"]
