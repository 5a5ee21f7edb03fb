"""The reply checker's reading of a reply (paper G.3): `read_reply` turns text into `Claim`s.

Each catalog mention of a reply becomes a claim with a role (recommended, credited, descriptive,
opponent) and a polarity; the grounding rules (`voicecoach.talker.checker.grounding_failures`)
judge those claims against the live state. Its own module because reading is a self-contained
step with its own cue patterns (`cue_patterns`, the pack's added cue words in `Reading`).

How a reply is read (`read_reply`). Catalog mentions come from `voicecoach.domain.entities.link_entities`
(names, ids, the kinds' aliases such as evolution-stage names; case-insensitive). An option's
user is the nearest earlier unit that can have it (the schema's unit -> options relation). The
cue words below are an English base list; a pack adds its own to five families in
vocabulary.json `cues` (recommend, credit_before, credit_after, absence, option_absence: "lock
in", "is equipped", "can't equip"); pet_arena adds none and reads with the base patterns
themselves. The reply is cut into clauses at sentence
punctuation and at contrastive conjunctions ("but", "however", ", so" ...), and clauses into comma
segments. Each mention gets a *role* from the nearest cue word before it in its clause: a
recommendation verb ("use", "field", "bring", "try", "go with" ...) makes it *recommended*, a
possessive ("your", "you have") or a following availability phrase ("is unlocked", "is ready")
*credited*, an opponent marker ("against", "their", "vs", "beats" ...) *opponent*, and a bare list
continuation ("use A, B and C") inherits the previous mention's role. Otherwise it is *descriptive*;
a descriptive mention with praise ("great", "strong", "best" ...) of an entity the player did not
name counts as a recommendation. Polarity is per comma segment: a negation cue ("not", "n't",
"never", "missing", "locked", "until", "would", "you need", "instead of", ...) flips it; an absence
cue ("don't have", "missing", "locked", "need to get", "if you had" ...) marks it called missing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from voicecoach.domain.catalog import Role as KindRole
from voicecoach.domain.entities import Mention, link_entities
from voicecoach.domain.pack import Pack
from voicecoach.talker.rules import Role


def _words(*phrases: str) -> str:
    """An alternation of phrases, each on word boundaries, spaces matching any whitespace."""
    alts = sorted({p.replace(" ", r"\s+") for p in phrases}, key=len, reverse=True)
    return r"(?<![\w'])(?:" + "|".join(alts) + r")(?![\w'])"


RECOMMEND_WORDS = (
        "use", "using", "field", "fielding", "bring", "bringing", "run", "running", "play", "playing", "put",
        "lead with", "lead", "leading with", "send", "send in", "send out", "go with", "going with", "try",
        "pick", "choose", "swap in", "switch to", "include", "add", "deploy", "start with", "open with",
        "rely on", "keep", "stick with", "cast", "spam", "fire off", "pop", "slot in", "take", "recommend",
        "suggest", "team up", "pair", "build around", "go for", "throw", "bet is", "pick is", "choice is",
        "counter is", "counters are", "answer is", "switch into", "swap into",
)  # fmt: skip
RECOMMEND = re.compile(_words(*RECOMMEND_WORDS), re.IGNORECASE)
CREDIT_BEFORE_WORDS = (
        "your", "you have", "you've got", "you got", "you own", "you still have", "you already have",
        "you can use", "you can field", "yours", "you unlocked", "you've unlocked",
)  # fmt: skip
CREDIT_BEFORE = re.compile(_words(*CREDIT_BEFORE_WORDS), re.IGNORECASE)
CREDIT_AFTER_BODY = (
    r"(?:is|are)\s+(?:now\s+|already\s+)?(?:unlocked|available|ready|yours|owned)|"
    r"(?:is\s+|are\s+)?in\s+your\s+(?:team|roster|collection|lineup|squad|inventory|line-up)|"
    r"(?:which\s+|that\s+)?you\s+(?:have|own|'ve\s+got|already\s+have|unlocked)"
)
CREDIT_AFTER = re.compile(r"^\W*(?:" + CREDIT_AFTER_BODY + ")", re.IGNORECASE)
OPPONENT = re.compile(
    _words(
        "against", "vs", "versus", "their", "opponent", "opponent's", "opponents", "enemy", "enemy's", "them",
        "facing", "beat", "beats", "beating", "counter", "counters", "countering", "into", "over", "handle",
        "kill", "take down", "deal with", "hit", "hits", "hurt", "hurts", "weak to", "resists", "outspeeds",
        "they", "theirs", "on",
    ),
    re.IGNORECASE,
)  # fmt: skip
LIST_GAP = re.compile(r"^(?:\s|,|&|\band\b|\bor\b|\bnor\b|\bplus\b|\bwith\b|\bthe\b)*$", re.IGNORECASE)
NEGATION = re.compile(
    _words(
        "not", "no", "never", "cannot", "can't", "cant", "don't", "dont", "doesn't", "doesnt", "isn't",
        "isnt", "aren't", "arent", "won't", "wont", "haven't", "havent", "hasn't", "hasnt", "didn't", "didnt",
        "wasn't", "shouldn't", "without", "missing", "lack", "lacks", "lacking", "locked", "unavailable",
        "until", "unless", "would", "need", "needs", "needed", "require", "requires", "required",
        "instead of", "rather than", "swap out", "bench", "avoid", "skip", "once you", "after you",
        "if you had", "if you get", "if you got", "unlocks at", "unlocks when", "unlocks after",
        "unlocks once", "unlock it first", "get it", "get one", "obtain", "catch", "recruit", "acquire",
        "buy", "traded", "no longer", "none",
    ),
    re.IGNORECASE,
)  # fmt: skip
ABSENCE_BODY = (
    r"(?:do|does|did|have|has)\s*(?:n't|not)\s+(?:have|own|got|get)|don't\s+(?:have|own)|"
    r"doesn't\s+(?:have|own)|haven't\s+got|not\s+in\s+your|(?:not|isn't|aren't)\s+(?:yet\s+)?(?:owned|available|"
    r"unlocked)|missing|lacks?|lacking|locked|unlock\s+(?:it|them)\s+first|need\s+to\s+(?:get|obtain|catch|"
    r"unlock|buy|recruit|evolve)|you'd\s+need|you\s+would\s+need|if\s+you\s+had|once\s+you\s+(?:get|have|"
    r"unlock|obtain)|get\s+(?:it|one)\s+first|can't\s+use|cannot\s+use|can\s+not\s+use|unavailable|"
    r"no\s+longer\s+(?:have|own)|traded\s+away|gave\s+away"
)
ABSENCE = re.compile(r"(?<![\w'])(?:" + ABSENCE_BODY + r")(?![\w'])", re.IGNORECASE)
# Only an option (pet: a skill) can be "not usable": "you can't use Emberfox here" is tactics, not
# a missing unit.
OPTION_ABSENCE_BODY = r"(?:can't|cannot|can\s+not)\s+(?:use|cast)"
SKILL_ABSENCE = re.compile(r"(?<![\w'])" + OPTION_ABSENCE_BODY + r"(?![\w'])", re.IGNORECASE)
SPEECH = re.compile(
    r"(?<![\w'])(?:(?:do|must|should)\s+not|don't|mustn't|shouldn't|never)\s+"
    r"(?:say|call|claim|imply|apologi[sz]e|mention|recommend)(?![\w'])",
    re.IGNORECASE,
)
POSSESSIVE = re.compile(r"^'s?\s*$")
WITH = re.compile(r"(?<![\w'])with(?![\w'])", re.IGNORECASE)
PRAISE = re.compile(
    _words(
        "great", "strong", "stronger", "strongest", "best", "good", "perfect", "ideal", "solid", "excellent",
        "top", "powerful", "works well", "shines", "favourite", "favorite", "star", "carry", "ace", "go-to",
        "must-have", "amazing", "awesome",
    ),
    re.IGNORECASE,
)  # fmt: skip
HEDGE = re.compile(
    _words(
        "out of date", "outdated", "not updated", "hasn't updated", "not up to date", "still loading",
        "stale", "last round", "last turn", "earlier", "previous", "a moment ago", "might have changed",
        "may have changed", "double-check", "double check", "refresh", "not sure", "can't see", "unavailable",
        "latest", "lagging", "catching up", "older data", "last update", "last i saw",
    ),
    re.IGNORECASE,
)  # fmt: skip
CLAUSE = re.compile(
    r"[.!?;\n]+|\s[-–—]\s|:\s|,\s*(?=(?:and|but|so|then|or|because|since|instead|yet|while|though|although)\b)"
    r"|\s(?=(?:but|however|although|though|whereas|instead)\b)",
    re.IGNORECASE,
)
COMMA = re.compile(r",")


# --- what a pack adds: its cue words and its kinds' roles ------------------------------------------


def _phrase(phrase: str) -> str:
    """A pack's cue phrase as a regex: its words literal, spaces matching any whitespace."""
    return r"\s+".join(re.escape(w) for w in phrase.split())


@dataclass(frozen=True)
class Cues:
    """The cue patterns a pack's replies are read with: the English base list above plus the pack's
    `vocabulary.cues` additions (voicecoach.domain.pack `Vocabulary.cues`). A pack that adds none reads
    with the module's own patterns (pet_arena: RECOMMEND, CREDIT_BEFORE ... are these objects)."""

    recommend: re.Pattern[str] = RECOMMEND
    credit_before: re.Pattern[str] = CREDIT_BEFORE
    credit_after: re.Pattern[str] = CREDIT_AFTER
    absence: re.Pattern[str] = ABSENCE
    option_absence: re.Pattern[str] = SKILL_ABSENCE


def cue_patterns(added: Mapping[str, Sequence[str]]) -> Cues:
    """The cue patterns with `added` phrases (family -> phrases) joined to the base families; a
    family without additions keeps the base pattern object."""
    base = Cues()

    def extra(family: str) -> list[str]:
        return [_phrase(p) for p in added.get(family, ())]

    def word_list(family: str, words_: Sequence[str], kept: re.Pattern[str]) -> re.Pattern[str]:
        # _words joins the words of a phrase on whitespace itself: hand it each word escaped.
        phrases = [" ".join(map(re.escape, p.split())) for p in added.get(family, ())]
        return re.compile(_words(*words_, *phrases), re.IGNORECASE) if phrases else kept

    def bounded(family: str, body: str, kept: re.Pattern[str]) -> re.Pattern[str]:
        alts = extra(family)
        if not alts:
            return kept
        return re.compile(r"(?<![\w'])(?:" + "|".join([body, *alts]) + r")(?![\w'])", re.IGNORECASE)

    after = [a + r"(?![\w'])" for a in extra("credit_after")]
    return Cues(
        recommend=word_list("recommend", RECOMMEND_WORDS, base.recommend),
        credit_before=word_list("credit_before", CREDIT_BEFORE_WORDS, base.credit_before),
        credit_after=re.compile(r"^\W*(?:" + "|".join([CREDIT_AFTER_BODY, *after]) + ")", re.IGNORECASE)
        if after
        else base.credit_after,
        absence=bounded("absence", ABSENCE_BODY, base.absence),
        option_absence=bounded("option_absence", OPTION_ABSENCE_BODY, base.option_absence),
    )


# The roles whose mentions a reply makes claims with; a `type` (pet's element) is a value of a
# matchup axis, said of things ("a fire pet"), never a thing the player has or is steered to.
CLAIM_ROLES: frozenset[str] = frozenset({"unit", "option", "group", "context"})
# The roles whose availability the rules judge: a context (a map) is where the match is played,
# nothing the player owns or unlocks.
JUDGED_ROLES: frozenset[str] = frozenset({"unit", "option", "group"})


@dataclass(frozen=True)
class Reading:
    """What reading a reply needs of one pack, built once per pack object (`reading`)."""

    cues: Cues
    roles: dict[str, KindRole]  # kind -> its role, claim kinds only
    options: dict[str, frozenset[str]]  # unit id -> the options it can have (the schema relation)
    unit_kind: str
    group_kind: str | None
    units_plural: str  # "creatures": how the evidence names several units


_READINGS: dict[int, tuple[Pack, Reading]] = {}


def reading(pack: Pack) -> Reading:
    """The pack's cue patterns, claim kinds and unit -> options relation (cached per pack object)."""
    hit = _READINGS.get(id(pack))
    if hit is not None and hit[0] is pack:
        return hit[1]
    catalog = pack.catalog
    schema = catalog.schema
    unit = schema.kind("unit") or ""
    field_ = schema.options_field()
    options = {
        uid: frozenset(e.value(field_) or []) if field_ is not None else frozenset()
        for uid, e in catalog.entities.get(unit, {}).items()
    }
    result = Reading(
        cues=cue_patterns({str(family): phrases for family, phrases in pack.vocabulary.cues.items()}),
        roles={k: spec.role for k, spec in schema.kinds.items() if spec.role in CLAIM_ROLES},
        options=options,
        unit_kind=unit,
        group_kind=schema.kind("group"),
        units_plural=schema.plural(unit),
    )
    _READINGS[id(pack)] = (pack, result)
    return result


@dataclass(frozen=True)
class Claim:
    """One mention of a catalog entity in a reply, with how the reply treats it."""

    entity: str
    kind: str  # the pack's kind (pet: creature / skill / lineup)
    kind_role: KindRole  # the kind's role in the schema: unit / option / group / context
    role: Role
    negated: bool
    absent: bool  # the reply calls it missing / locked
    praise: bool
    owner: str | None  # for an option (a skill): the unit named as its user
    owner_only: bool  # a unit named only as the owner of an option ("Emberfox's Inferno Roar")
    text: str  # the clause, for evidence

    @property
    def affirmed(self) -> bool:
        return not self.negated and self.role in ("recommended", "credited")

    @property
    def judged(self) -> bool:
        """Is the entity's availability judged (a unit, option or group; never a context)?"""
        return self.kind_role in JUDGED_ROLES


def match_spans(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The pieces of text[start:end] between matches of `pattern`, as absolute spans."""
    cuts = [start] + [p for m in pattern.finditer(text, start, end) for p in (m.start(), m.end())] + [end]
    return [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts), 2) if cuts[i] < cuts[i + 1]]


def _last_cue(gap: str, given: Cues) -> Role | None:
    """The role the nearest cue before a mention gives it; on a tie the longer cue ("rely on" > "on")."""
    cues: list[tuple[re.Pattern[str], Role]] = [
        (given.recommend, "recommended"),
        (given.credit_before, "credited"),
        (OPPONENT, "opponent"),
        (WITH, "recommended"),  # "hit them with Ember Fang", "pair it with Hexmoth"
    ]
    found = [(m.end(), m.end() - m.start(), role) for pattern, role in cues for m in pattern.finditer(gap)]
    return max(found)[2] if found else None


def normalise_quotes(text: str) -> str:
    return text.replace("’", "'").replace("‘", "'")


def read_reply(pack: Pack, reply: str) -> list[Claim]:
    """Every catalog mention of `reply` of a claim kind (unit / option / group / context: pet's
    creatures, skills and lineups), with role and polarity."""
    r = reading(pack)
    text = normalise_quotes(reply)
    mentions = [m for m in link_entities(pack, text) if m.kind in r.roles]
    claims: list[Claim] = []
    for c_start, c_end in match_spans(CLAUSE, text, 0, len(text)):
        inside = [m for m in mentions if c_start <= m.span[0] < c_end]
        if not inside:
            continue
        segments = match_spans(COMMA, text, c_start, c_end)
        # A question asserts nothing ("can it use Granite Bulwark now?" echoed back is no advice).
        question = text[c_end : c_end + 1] == "?"
        prev: Claim | None = None
        prev_end = c_start
        for i, m in enumerate(inside):
            gap = text[prev_end : m.span[0]]
            seg = next(((a, b) for a, b in segments if a <= m.span[0] < b), (c_start, c_end))
            seg_text = text[seg[0] : seg[1]]
            after_end = inside[i + 1].span[0] if i + 1 < len(inside) else c_end
            role: Role | None = _last_cue(gap, r.cues)
            # "use A, B and C" and "Emberfox's Inferno Roar": the mention continues the previous one.
            listed = prev is not None and (
                LIST_GAP.match(gap) is not None or POSSESSIVE.match(gap) is not None
            )
            if role is None and listed and prev is not None:
                role = prev.role
            if role is None:
                role = "credited" if r.cues.credit_after.match(text[m.span[1] : after_end]) else "descriptive"
            # "Do not call Voltail missing" talks about speech, not about what the player has.
            meta = SPEECH.search(seg_text) is not None
            negated = (
                question
                or meta
                or NEGATION.search(seg_text) is not None
                or (listed and prev is not None and prev.negated)
            )
            absent = not meta and (
                r.cues.absence.search(seg_text) is not None or (listed and prev is not None and prev.absent)
            )
            kind_role = r.roles[m.kind]
            if kind_role == "option" and not meta and r.cues.option_absence.search(seg_text):
                absent = True
            # A unit named with one of its options in the same segment is that option's user:
            # "Emberfox doesn't have Inferno Roar yet" judges the skill, not Emberfox.
            same_segment = [x for x in inside if seg[0] <= x.span[0] < seg[1]]
            owner = _owner(r, inside[:i], m) if kind_role == "option" else None
            owner_only = kind_role == "unit" and any(
                r.roles[x.kind] == "option" and x.id in r.options.get(m.id, ()) for x in same_segment
            )
            claim = Claim(
                entity=m.id,
                kind=m.kind,
                kind_role=kind_role,
                role=role,
                negated=negated,
                absent=absent and role != "opponent",
                praise=PRAISE.search(text[c_start:c_end]) is not None,
                owner=owner,
                owner_only=owner_only,
                text=" ".join(text[c_start:c_end].split()),
            )
            claims.append(claim)
            prev, prev_end = claim, m.span[1]
    return claims


def _owner(r: Reading, before: list[Mention], option: Mention) -> str | None:
    """The unit the clause names as the option's user: the nearest earlier one that can have it
    (the schema's unit -> options relation; pet: the creature that learns the skill)."""
    for m in reversed(before):
        if m.kind == r.unit_kind and option.id in r.options.get(m.id, ()):
            return m.id
    return None


def recommended_sets(claims: Sequence[Claim]) -> tuple[set[str], frozenset[str]]:
    """(pack groups, units) a reply recommends: what repetition compares across turns (pet: lineups,
    creatures)."""
    groups = {c.entity for c in claims if c.kind_role == "group" and not c.negated and c.role != "opponent"
              and (c.affirmed or c.praise)}  # fmt: skip
    units = frozenset(c.entity for c in claims if c.kind_role == "unit" and c.affirmed)
    return groups, units
