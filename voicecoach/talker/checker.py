"""The reply checker kernel: is what the player hears speakable, and grounded in the live state?

One implementation, two users: CoachBench's judge (`voicecoach.bench.coachbench.checker`, which adds the
benchmark-only rules) and the runtime guard between the Talker and TTS. Rules are judged against a
`CheckContext` (the live inventory, what the player named, what they excluded, the opponent, the
previous reply), never against a benchmark record. Two entry points:

- `check_reply(pack, text, ctx)`: a whole turn (narration + reply);
- `check_sentence(pack, sentence, ctx, spoken)`: one sentence of a reply streaming to TTS, given
  the sentences already spoken (a repeat of one of them, a loop inside it, the budget running out).

Speakable rules (drift None: a task failure, not a drift):
- `no_reply`: empty, whitespace, or not text at all (None, bytes);
- `prompt_echo`: the coach reads its conditioning aloud. The patterns are DERIVED, never retyped:
  the prompt renderers themselves (`talker.render_reply_prompt`, `talker_system_prompt`, the
  baselines' prompts) are run on sentinel inputs, and what they write around the sentinels becomes
  the pattern set — every "Heading:" a prompt line opens with ("You must:", "Facts from the game:",
  "Player:", "Coach:", "Player owns:" ...), every five-word run of instruction text ("and what the
  player can do instead"), instruction openers ending in "that" at a sentence start ("Explain
  that ..."), W1's tag names (`w1.SECTIONS`, as tags or as capitalised words) and the pack's tool
  names (manifest `tools`). A prompt change therefore moves the patterns with it;
- `markup`: JSON, brackets / braces / angle tags, markdown emphasis, bullets, headings, code
  ticks, snake_case identifiers, URLs — nothing a voice should read out;
- `loop`: a three-word run said three times or more, a phrase said twice back to back ("I'm sorry,
  I'm sorry"; one word: three times, "no, no, no"), or the same sentence (three words or more) twice;
- `too_long`: more than MAX_WORDS words or MAX_SENTENCES sentences;
- `unknown_name`: a capitalised name that is no catalog entry, no word of the pack's own text
  (persona, rules, and every string field of every catalog entity: names, ids, aliases, attribute
  values, descriptions, unlock quests) and no ordinary English word (the
  frequency list bundled with `pyspellchecker`, MIT: a word is ordinary when it occurs at least
  ORDINARY_MIN_COUNT times there); words under four letters ("GG", "Heh") and interjections of
  at most two distinct letters ("Hmmm") are never names. Catches invented creatures ("Cyclo-Aerathos").

Grounding rules (paper G.3; a reply that mis-directs the live state). They are stated in the
roles of the pack's schema (voicecoach.domain.catalog: pet's creature is its *unit*, skill its *option*,
lineup its *group*; a hero shooter's hero, loadout item, comp), and the player's side is read
through `StateView` (voicecoach.domain.view), in either state profile:
- `unavailable_entity`: recommends or credits a unit the player does not own, an option not
  usable (on the unit named as its user, else on any owned unit that can have it), or a pack
  group with a unit they lack;
- `false_missing`: calls missing, or apologises for lacking, something they have;
- `self_contradiction`: affirms and denies the same entity's availability in one reply;
- `excluded_entity`: recommends a unit the player asked to keep out this session;
- `repeated_guidance` (by reply text): the previous reply's pack group recommended again, or the
  same set of two or more units again.
A *context* mention (a map: where the match is played) is read like any other, but never judged
for availability; a *type* (pet's element) is a matchup value and makes no claim at all.
Drift attribution: unavailable / false_missing / excluded are slot drift B, except when the claim
was true of the snapshot the coach actually read (`ctx.seen_state`, a late push): latency A;
contradiction is coherence D; repetition fatigue C.

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

The length bound: MAX_WORDS = 45 words is about 18 s of speech at ~150 words per minute, already
long for a player mid-match; the Talker is asked for one to three short sentences and W1's
narration adds one, so MAX_SENTENCES = 4 for a whole turn.

Known blind spots (what a listener would catch and this does not):
- paraphrases without names ("your fire fox"), pronouns ("use it") and ellipsis across sentences
  carry no mention, so they are not judged; sarcasm, rhetorical questions and idioms invert
  polarity; negation is per comma segment ("don't use Pyrowl and use Emberfox" negates both);
  "would" reads as hypothetical ("Pyrowl would crush them" passes); "can't use X against water"
  (tactics) reads as calling X missing; a question asserts nothing ("why not use Pyrowl?" passes);
- an echoed instruction about speech ("do not call Voltail missing") judges nothing for the
  grounding rules (it is a `prompt_echo` when it matches the prompt's words);
- echo: a paraphrased instruction ("I have to explain that ...") or an echo shorter than five
  words outside the openers and headings passes;
- unknown names: common English words and first names used as names ("Storm", "John") pass, a
  lowercase invented name passes, and a sentence-initial rare English word ("Aegis") is flagged;
- a recommendation without a cue verb ("Fire Tempest Fury now", "Hexmoth on Halowing") reads as
  descriptive, so it is not judged as a recommendation;
- a reply cut off mid-sentence by the token budget is not flagged;
- mechanics errors (wrong element chart, wrong unlock level) are not checked here;
- `check_sentence` sees one sentence: a contradiction across sentences of a streamed reply is
  only caught by `check_reply` on the whole turn.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from voicecoach.core.state import FactSlots, Inventory, LiveState
from voicecoach.domain.catalog import Role as KindRole
from voicecoach.domain.entities import Mention, link_entities
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView

DriftTag = Literal["A", "B", "C", "D"]
RuleId = Literal[
    # speakable
    "no_reply",
    "prompt_echo",
    "markup",
    "loop",
    "too_long",
    "unknown_name",
    # grounded
    "unavailable_entity",
    "false_missing",
    "self_contradiction",
    "repeated_guidance",
    "stale_evidence",
    "excluded_entity",
    # responsive (CoachBench only: it needs the reference)
    "unresponsive",
]
SPEAKABLE_RULES: frozenset[str] = frozenset(
    {"no_reply", "prompt_echo", "markup", "loop", "too_long", "unknown_name"}
)
GROUNDING_RULES: frozenset[str] = frozenset(
    {
        "unavailable_entity",
        "false_missing",
        "self_contradiction",
        "repeated_guidance",
        "stale_evidence",
        "excluded_entity",
    }
)
RESPONSIVE_RULES: frozenset[str] = frozenset({"unresponsive"})
RULES: frozenset[str] = SPEAKABLE_RULES | GROUNDING_RULES | RESPONSIVE_RULES
Role = Literal["recommended", "credited", "descriptive", "opponent"]

MAX_WORDS = 45
MAX_SENTENCES = 4
ORDINARY_MIN_COUNT = 200
ECHO_NGRAM = 5


class Failure(BaseModel):
    model_config = ConfigDict(frozen=True)

    rule: RuleId
    drift: DriftTag | None
    entity: str | None = None
    evidence: str


@dataclass(frozen=True)
class CheckContext:
    """What the rules judge a reply against: the live state as the coach should have it.

    The player's units are read through `StateView` (voicecoach.domain.view), in the pack's own profile:
    `state` is the live snapshot (any pack), `seen_state` the one the coach read when older. A
    classic pack may give just the inventory instead (`inventory` / `seen_inventory`, pet's
    fs.inventory); `state` wins when both are given.
    """

    inventory: Inventory | None = None  # classic profile: fs.inventory, when no `state` is given
    mentioned: frozenset[str] = frozenset()  # catalog ids the player's utterance names
    excluded: frozenset[str] = frozenset()  # units the player asked to keep out this session
    opponent: frozenset[str] = frozenset()  # the opponent side (their units are not ours)
    previous_reply: str | None = None  # the coach's previous turn, for repetition
    seen_inventory: Inventory | None = None  # the snapshot the coach read, when older than live
    state: LiveState | None = None  # the live snapshot (any profile)
    seen_state: LiveState | None = None  # the snapshot the coach read, when older than live
    _views: dict[int, tuple[Pack, StateView, StateView | None]] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def views(self, pack: Pack) -> tuple[StateView, StateView | None]:
        """(live, seen) as `pack` reads them; seen is None when the coach read the live snapshot
        (or an older one that had no units at all). Built once per context and pack."""
        hit = self._views.get(id(pack))
        if hit is None or hit[0] is not pack:
            live = self.state if self.state is not None else LiveState(fs=FactSlots(inventory=self.inventory))
            seen = self.seen_state
            if seen is None and self.seen_inventory is not None:
                seen = LiveState(fs=FactSlots(inventory=self.seen_inventory))
            seen_view = StateView(pack, seen) if seen is not None else None
            hit = (
                pack,
                StateView(pack, live),
                seen_view if seen_view is not None and seen_view.known else None,
            )
            self._views[id(pack)] = hit
        return hit[1], hit[2]

    @classmethod
    def live(
        cls,
        pack: Pack,
        state: LiveState,
        utterance: str = "",
        excluded: Iterable[str] = (),
        previous_reply: str | None = None,
    ) -> CheckContext:
        """The context of a live turn (the runtime guard's way in)."""
        match = state.ic.match
        return cls(
            mentioned=frozenset(m.id for m in link_entities(pack, utterance)),
            excluded=frozenset(excluded),
            opponent=frozenset(match.opponent_lineup) if match else frozenset(),
            previous_reply=previous_reply,
            state=state,
        )


def _fail(rule: RuleId, drift: DriftTag | None, evidence: str, entity: str | None = None) -> Failure:
    return Failure(rule=rule, drift=drift, entity=entity, evidence=evidence)


# --- reading a reply ---------------------------------------------------------------------------------


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


def _spans(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[tuple[int, int]]:
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


def _normalise_quotes(text: str) -> str:
    return text.replace("’", "'").replace("‘", "'")


def read_reply(pack: Pack, reply: str) -> list[Claim]:
    """Every catalog mention of `reply` of a claim kind (unit / option / group / context: pet's
    creatures, skills and lineups), with role and polarity."""
    r = reading(pack)
    text = _normalise_quotes(reply)
    mentions = [m for m in link_entities(pack, text) if m.kind in r.roles]
    claims: list[Claim] = []
    for c_start, c_end in _spans(CLAUSE, text, 0, len(text)):
        inside = [m for m in mentions if c_start <= m.span[0] < c_end]
        if not inside:
            continue
        segments = _spans(COMMA, text, c_start, c_end)
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


# --- grounding rules ---------------------------------------------------------------------------------


def _display(pack: Pack, kind: str | None, entity_id: str) -> str:
    """What the evidence calls an entity of `kind`: its display name, else the id."""
    entity = pack.catalog.get(kind, entity_id) if kind is not None else None
    return entity.display if entity is not None else entity_id


def available(pack: Pack, view: StateView, claim: Claim) -> tuple[bool, str]:
    """Is the claimed entity available to the player (read through the view), and if not, why (for
    the evidence). A unit is owned, an option usable (on the unit named as its user, else on any
    owned unit that can have it), a group has every member owned; a context is never judged."""
    own = _display(pack, claim.kind, claim.entity)
    if claim.kind_role == "unit":
        return view.owns(claim.entity), f"{own} is not owned"
    if claim.kind_role == "option":
        ok = view.option_usable(claim.entity, claim.owner)
        on = f" on {_display(pack, view.unit_kind, claim.owner)}" if claim.owner else ""
        return ok, f"{own} is not unlocked{on}"
    if claim.kind_role == "group":
        missing = [c for c in view.members(claim.entity) if not view.owns(c)]
        names = ", ".join(_display(pack, view.unit_kind, c) for c in missing)
        return not missing, f"{claim.kind} {own} needs {names}, not owned"
    return True, ""


def recommends(claim: Claim, named_by_player: Iterable[str]) -> bool:
    """Does the reply steer the player towards this entity?"""
    if claim.negated or claim.role == "opponent":
        return False
    if claim.role in ("recommended", "credited"):
        return True
    return claim.praise and claim.entity not in set(named_by_player)


def grounding_failures(pack: Pack, claims: Sequence[Claim], ctx: CheckContext) -> list[Failure]:
    """Rules (a) unavailable, (b) false missing, (c) contradiction, (f) excluded, (d) by reply text."""
    view, seen_view = ctx.views(pack)
    r = reading(pack)
    failures: list[Failure] = []

    def name(unit_id: str) -> str:
        return _display(pack, r.unit_kind, unit_id)

    def drift_for(available_when_seen: bool) -> DriftTag:
        # The claim was true of the snapshot the coach saw but not of the live state: latency drift.
        return "A" if seen_view is not None and available_when_seen else "B"

    for claim in claims:
        if not claim.judged:  # a map is where the match is played: nothing to have, steer to or lack
            continue
        ok, why = available(pack, view, claim)
        steers = recommends(claim, ctx.mentioned)
        if steers and not ok:
            # Describing the opponent's own unit ("Voltail is strong") credits nothing to us.
            if not (
                claim.kind_role == "unit" and claim.role == "descriptive" and claim.entity in ctx.opponent
            ):
                seen_ok = available(pack, seen_view, claim)[0] if seen_view is not None else False
                failures.append(
                    _fail("unavailable_entity", drift_for(seen_ok), f"{why}: {claim.text!r}", claim.entity)
                )
        # Saying the player has a unit they keep out ("yes, Prismite is in your roster") is
        # no recommendation; "use your Prismite" is (its nearest cue is the possessive).
        pushes = steers and (claim.role != "credited" or r.cues.recommend.search(claim.text) is not None)
        if claim.kind_role in ("unit", "group") and pushes:
            members = [claim.entity] if claim.kind_role == "unit" else view.members(claim.entity)
            banned = [c for c in members if c in ctx.excluded]
            if banned:
                names = ", ".join(name(c) for c in banned)
                failures.append(
                    _fail(
                        "excluded_entity", "B", f"the player excluded {names}: {claim.text!r}", claim.entity
                    )
                )
        if claim.absent and ok and claim.kind_role != "group" and not claim.owner_only:
            seen_ok = available(pack, seen_view, claim)[0] if seen_view is not None else True
            failures.append(
                _fail(
                    "false_missing",
                    drift_for(not seen_ok),
                    f"called missing but available: {claim.text!r}",
                    claim.entity,
                )
            )

    for entity in dict.fromkeys(c.entity for c in claims):
        mine = [
            c for c in claims if c.entity == entity and c.judged and not c.owner_only and c.role != "opponent"
        ]
        yes = next((c for c in mine if c.affirmed and not c.absent), None)
        no = next((c for c in mine if c.absent), None)
        if yes is not None and no is not None:
            failures.append(
                _fail("self_contradiction", "D", f"affirms {yes.text!r} and denies {no.text!r}", entity)
            )

    if ctx.previous_reply:
        groups, units = recommended_sets(claims)
        prev_groups, prev_units = recommended_sets(read_reply(pack, ctx.previous_reply))
        for group_id in sorted(groups & prev_groups):
            failures.append(
                _fail(
                    "repeated_guidance",
                    "C",
                    f"{r.group_kind} {_display(pack, r.group_kind, group_id)} recommended again",
                    group_id,
                )
            )
        if len(units) >= 2 and units == prev_units:
            names = ", ".join(sorted(name(c) for c in units))
            failures.append(
                _fail("repeated_guidance", "C", f"the same {r.units_plural} recommended again: {names}")
            )
    return failures


# --- speakable rules ---------------------------------------------------------------------------------

SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
SENTINEL = "Zqx"  # a filler no prompt, pack or reply contains: the prompts are rendered around it
MARKUP = re.compile(
    r"[{}\[\]<>`|\\]"  # JSON, brackets, tags, code, tables
    r"|\*\*|__|(?:^|\n)\s*(?:[-*•]|#+|\d+[.)])\s"  # markdown emphasis, bullets, headings, numbered lists
    r"|\"\w+\"\s*:"  # "key": a JSON field
    r"|\b[a-z]+(?:_[a-z0-9]+)+\b"  # snake_case identifiers (tool names, labels, ids)
    r"|https?://|www\.",
)
NAME = re.compile(r"(?<![A-Za-z0-9_-])[A-Z][A-Za-z]*(?:['-][A-Za-z]+)*")
HEADING_START = re.compile(r"^(?:[A-Za-z][A-Za-z' ]{0,30}?:\s*)+")
HEADING_LINE = re.compile(r"(?:^|\n|[(;]\s*)([A-Za-z][A-Za-z' ]{0,30}?):(?:\s|$)")


def split_sentences(text: str) -> list[str]:
    """Sentences as TTS would speak them: cut after . ! ? and at line breaks."""
    return [s.strip() for s in SENTENCE.split(text) if s.strip()]


def words(text: str) -> list[str]:
    return WORD.findall(_normalise_quotes(text).lower())


def _echo_words(text: str) -> list[str]:
    # The prompts spell British ("apologise"), small models echo them American ("apologize").
    return [re.sub(r"iz(e|es|ed|ing)$", r"is\1", w) for w in words(text)]


@dataclass(frozen=True)
class Speakable:
    """The per-pack patterns of the speakable rules (built once per pack, see `speakable_patterns`)."""

    headings: re.Pattern[str]  # "You must:", "Player:" ... anywhere
    openers: re.Pattern[str]  # "Explain that" at a sentence start
    tags: re.Pattern[str]  # W1's tags and tool names
    echo_ngrams: frozenset[tuple[str, ...]]  # five-word runs of instruction text
    vocabulary: frozenset[str]  # lowercased words of the pack's own text
    sources: tuple[str, ...] = field(default=())  # the rendered prompts the patterns came from


def _rendered_prompts(pack: Pack) -> list[str]:
    """Every prompt whose words may reach the player, rendered on sentinel inputs.

    Each renderer is the production one, so a new heading or instruction shows up here by itself.
    """
    from voicecoach.core.state import load_state
    from voicecoach.grounding.diff import Conflict
    from voicecoach.grounding.kernel import GroundingControl
    from voicecoach.grounding.plan import Paragraph
    from voicecoach.grounding.slots import QuerySlots
    from voicecoach.interaction.kernel import Guidance, InteractionControl
    from voicecoach.talker.baselines import pe_reply_messages, planner_messages, prompting_messages
    from voicecoach.talker.conditioning import ToolOutcome, render_reply_prompt

    s = SENTINEL
    schema = pack.catalog.schema
    option = schema.kind("option")
    example = pack_example_state(pack)
    state = load_state(example) if example is not None else None
    paragraphs = tuple(Paragraph(type=t, detail=s) for t in ("praise", "apology", "constraint_account",
                                                              "guidance", "scene_flavor"))  # fmt: skip
    # An option conflict's id is "<option kind>:<option>@<unit>" (pet: skill:inferno_roar@emberfox).
    option_conflict = (
        [Conflict(constraint=f"{option}:{s}@{s}", kind=option, tier="hard", satisfied=False, detail=s)]
        if option
        else []
    )
    conflicts = (
        Conflict(constraint="state", kind="state", tier="hard", satisfied=False, detail=s),
        *option_conflict,
        Conflict(constraint=f"has:{s}", kind="has", tier="hard", satisfied=False, entity=s, detail=s),
        Conflict(constraint=f"has:{s}", kind="has", tier="hard", satisfied=True, entity=s, detail=s),
        Conflict(constraint=f"unknown_entity:{s}", kind="unknown_entity", tier="hint", satisfied=False,
                 entity=s, detail=s),
    )  # fmt: skip
    c2 = GroundingControl(slots=QuerySlots(), conflicts=conflicts, plan=paragraphs, inventory_empty=False)
    group = schema.kind("group")
    lineup = sorted(pack.catalog.entities.get(group, {}) if group else ())[:1]
    tools = [
        ToolOutcome(tool=pack.tools[0], ok=True, result={s: s}),
        ToolOutcome(tool=pack.tools[0], ok=False, error=s),
    ]
    texts: list[str] = []
    for guidance in (Guidance(guidance_type=s, candidate_id=s, text=s), None):
        c3 = InteractionControl(branch=s, turn_index=0, guidance=guidance, cooling=[], cooling_lineups=lineup)
        messages, _ = render_reply_prompt(pack, s, s, c2, c3, tools, [s])
        texts += [m["content"] for m in messages]
    if state is not None:  # the baselines paste the state: their headings need one to render
        for messages in (
            prompting_messages(pack, state, s),
            pe_reply_messages(pack, state, s, tools),
            planner_messages(pack, state, s),
        ):
            texts += [m["content"] for m in messages]
    return texts


def pack_example_state(pack: Pack) -> dict[str, Any] | None:
    """The pack's example state (example_state.json), to render the state-dependent prompts."""
    import json

    from voicecoach.domain.pack import example_state_path

    path = example_state_path(pack.pack_id)
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (lists and objects walked; keys are field names, not text)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _pack_words(pack: Pack) -> set[str]:
    """Every word of the pack's own text: persona, rules, and every string field of every catalog
    entity of every kind (names, ids, aliases, attribute values, descriptions, unlock quests ...)."""
    texts = [pack.title, pack.persona, *pack.domain_rules]
    for entities in pack.catalog.entities.values():
        for e in entities.values():
            texts += _strings(e.model_dump())
    return {w.lower() for t in texts for w in re.findall(r"[A-Za-z]+", t)}


def _known_words(pack: Pack, prompts: Sequence[str]) -> set[str]:
    """Words a name may be made of without being invented: the catalog's, the pack's, the prompts'."""
    return _pack_words(pack) | {w.lower() for t in prompts for w in re.findall(r"[A-Za-z]+", t)}


def _instruction_fragments(pack: Pack, texts: Sequence[str]) -> list[str]:
    """The prompts' own wording: the text between sentinels and pack data, line by line."""
    rules = set(pack.domain_rules)  # facts the coach may teach, not instructions
    sentinel = re.compile(re.escape(SENTINEL))
    fragments: list[str] = []
    for text in texts:
        for line in text.split("\n"):
            line = line.lstrip("- ").strip()
            if not line or line in rules:
                continue
            for body in split_sentences(HEADING_START.sub("", line)):
                # Catalog names and the sentinel inputs are not instruction text: cut the line there.
                cuts = [m.span for m in link_entities(pack, body)]
                for a, b in _spans(sentinel, body, 0, len(body)):
                    piece = body[a:b]
                    inner = [(x - a, y - a) for x, y in cuts if a <= x < b]
                    fragments += [piece[x:y] for x, y in _complement(inner, len(piece))]
    return fragments


def _complement(spans: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    out, at = [], 0
    for a, b in sorted(spans):
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if at < length:
        out.append((at, length))
    return out


@cache
def _english() -> dict[str, int]:
    """Word -> count in pyspellchecker's bundled English frequency list (lowercase)."""
    from spellchecker import SpellChecker

    frequency = SpellChecker(language="en", distance=1).word_frequency
    return dict(frequency.dictionary)


_PATTERNS: dict[int, tuple[Pack, Speakable]] = {}


def speakable_patterns(pack: Pack) -> Speakable:
    """The speakable rules' patterns for `pack`, derived from the prompts (cached per pack object)."""
    hit = _PATTERNS.get(id(pack))
    if hit is not None and hit[0] is pack:
        return hit[1]
    from voicecoach.perception.tags import SECTIONS

    texts = _rendered_prompts(pack)
    headings = sorted(
        {m.group(1).strip() for t in texts for m in HEADING_LINE.finditer(t) if SENTINEL not in m.group(1)},
        key=len,
        reverse=True,
    )
    heading_re = re.compile(
        r"(?<![\w'])(?:" + "|".join(re.escape(h).replace(r"\ ", r"\s+") for h in headings) + r")\s*:",
        re.IGNORECASE,
    )
    fragments = _instruction_fragments(pack, texts)
    ngrams: set[tuple[str, ...]] = set()
    openers: set[str] = set()
    for frag in fragments:
        ws = _echo_words(frag)
        for i in range(len(ws) - ECHO_NGRAM + 1):
            ngrams.add(tuple(ws[i : i + ECHO_NGRAM]))
        # "Explain that ...", "Say plainly that ...": an imperative opening a clause about "that".
        if "that" in ws[1:6] and ws[0] not in ("that", "and", "the"):
            opener = ws[: ws.index("that", 1) + 1]
            if len(opener) >= 2:
                openers.add(r"\W*".join(map(re.escape, opener)))
    tag_names = [re.escape(s) for s in SECTIONS]
    tags = re.compile(
        r"</?\s*(?:" + "|".join(tag_names) + r")\s*>"
        r"|(?<![\w])(?:" + "|".join(tag_names) + r")(?![\w])"  # case-sensitive: "PLAN", not "plan"
        r"|(?i:(?<![\w])(?:" + "|".join(re.escape(t) for t in pack.tools) + r")(?![\w]))"
    )
    opener_re = re.compile(r"(?:^|[.!?:]\s*)(?:" + "|".join(sorted(openers)) + r")(?![\w])", re.IGNORECASE)
    patterns = Speakable(
        headings=heading_re,
        openers=opener_re,
        tags=tags,
        echo_ngrams=frozenset(ngrams),
        vocabulary=frozenset(_known_words(pack, texts)),
        sources=tuple(texts),
    )
    _PATTERNS[id(pack)] = (pack, patterns)
    return patterns


def _echo(p: Speakable, text: str) -> Failure | None:
    for pattern in (p.headings, p.tags, p.openers):
        m = pattern.search(text)
        if m:
            return _fail("prompt_echo", None, f"reads its prompt aloud: {m.group(0).strip()!r}")
    ws = _echo_words(text)
    for i in range(len(ws) - ECHO_NGRAM + 1):
        gram = tuple(ws[i : i + ECHO_NGRAM])
        if gram in p.echo_ngrams:
            return _fail("prompt_echo", None, f"reads its instructions aloud: {' '.join(gram)!r}")
    return None


def _markup(text: str) -> Failure | None:
    m = MARKUP.search(text)
    return _fail("markup", None, f"not speech: {m.group(0).strip()!r}") if m else None


def _loop_in(ws: Sequence[str]) -> str | None:
    """A loop inside one run of words: a trigram three times, or a phrase repeated back to back."""
    trigrams = Counter(tuple(ws[i : i + 3]) for i in range(len(ws) - 2))
    if trigrams:
        gram, n = trigrams.most_common(1)[0]
        if n >= 3:
            return f"{' '.join(gram)!r} said {n} times"
    for size in (1, 2, 3, 4):
        times = 3 if size == 1 else 2
        for i in range(len(ws) - size * times + 1):
            unit = ws[i : i + size]
            if all(ws[i + k * size : i + (k + 1) * size] == unit for k in range(1, times)):
                return f"{' '.join(unit)!r} repeated back to back"
    return None


def _same_sentence(sentence: str, earlier: Iterable[str]) -> bool:
    ws = words(sentence)
    return len(ws) >= 3 and any(words(e) == ws for e in earlier)


def _loop(text: str) -> Failure | None:
    """A loop in a whole turn. A phrase repeated back to back counts inside a sentence, or as a whole
    sentence said again at once ("I'm sorry. I'm sorry."); across a boundary it is how people speak
    ("Let me find your strongest pet. Your strongest pet is Skylancer.")."""
    ws, sentences = words(text), split_sentences(text)
    trigrams = Counter(tuple(ws[i : i + 3]) for i in range(len(ws) - 2))
    gram, n = trigrams.most_common(1)[0] if trigrams else ((), 0)
    why = f"{' '.join(gram)!r} said {n} times" if n >= 3 else None
    for i, s in enumerate(sentences):
        if why is not None:
            break
        why = _loop_in(words(s))
        if why is None and i > 0 and words(s) and words(s) == words(sentences[i - 1]):
            why = f"the sentence {s!r} said twice in a row"
        elif why is None and _same_sentence(s, sentences[:i]):
            why = f"the sentence {s!r} said twice"
    return _fail("loop", None, f"loops: {why}") if why else None


def _too_long(n_words: int, n_sentences: int) -> Failure | None:
    if n_words > MAX_WORDS or n_sentences > MAX_SENTENCES:
        return _fail(
            "too_long",
            None,
            f"{n_words} words in {n_sentences} sentences (a spoken turn: <= {MAX_WORDS} words, "
            f"<= {MAX_SENTENCES} sentences)",
        )
    return None


def _unknown_names(pack: Pack, p: Speakable, text: str) -> list[Failure]:
    known = [(m.span[0], m.span[1]) for m in link_entities(pack, text)]
    english = _english()
    out: list[Failure] = []
    for m in NAME.finditer(text):
        if any(a <= m.start() < b for a, b in known):
            continue
        # "You've", "Emberfox's": a contraction or possessive ending is no part of a name.
        parts = [
            re.sub(r"'(?:s|ve|ll|re|d|t|m)$", "", w, flags=re.IGNORECASE).lower()
            for w in m.group(0).split("-")
        ]
        parts = [w for part in parts for w in part.split("'") if w]
        if all(w in p.vocabulary or english.get(w, 0) >= ORDINARY_MIN_COUNT or _not_a_name(w) for w in parts):
            continue
        out.append(_fail("unknown_name", None, f"{m.group(0)!r} is no catalog name", m.group(0)))
    return out


def unknown_names(pack: Pack, text: str) -> list[str]:
    """The capitalised words of `text` that are neither catalog names nor ordinary words ("Useworld")."""
    return [f.entity for f in _unknown_names(pack, speakable_patterns(pack), text) if f.entity]


def _not_a_name(word: str) -> bool:
    """Too short to be an invented name ("GG", "Heh", "Hmm"), or an interjection ("Hmmm", "Ooooh")."""
    return len(word) < 4 or len(set(word)) <= 2


def speakable_failures(pack: Pack, text: str) -> list[Failure]:
    """The speakable rules on a whole turn's text (narration + reply)."""
    p = speakable_patterns(pack)
    found = [_echo(p, text), _markup(text), _loop(text)]
    found.append(_too_long(len(words(text)), len(split_sentences(text))))
    out = [f for f in found if f is not None]
    return out + _unknown_names(pack, p, text)


def _no_reply(text: object) -> Failure | None:
    if not isinstance(text, str):
        return _fail("no_reply", None, f"the reply is not text ({type(text).__name__})")
    if not text.strip():
        return _fail("no_reply", None, "no reply")
    return None


def check_reply(pack: Pack, text: object, ctx: CheckContext) -> list[Failure]:
    """Every speakable and grounding failure of a whole turn's text; [] when it may be spoken."""
    missing = _no_reply(text)
    if missing is not None or not isinstance(text, str):
        return [missing] if missing else []
    failures = speakable_failures(pack, text)
    failures += grounding_failures(pack, read_reply(pack, text), ctx)
    return list(dict.fromkeys(failures))


def check_sentence(pack: Pack, sentence: object, ctx: CheckContext, spoken: Sequence[str]) -> list[Failure]:
    """The failures of one sentence about to be spoken, after the sentences in `spoken`.

    A `loop` here means the reply should end (it repeats an earlier sentence or loops inside this
    one); `too_long` that the word / sentence budget of a turn runs out with this sentence.
    Grounding is judged on this sentence's own claims, against the same context.
    """
    missing = _no_reply(sentence)
    if missing is not None or not isinstance(sentence, str):
        return [missing] if missing else []
    p = speakable_patterns(pack)
    found = [_echo(p, sentence), _markup(sentence)]
    why = _loop_in(words(sentence))
    if why is None and spoken and words(sentence) and words(sentence) == words(spoken[-1]):
        why = f"the sentence {sentence.strip()!r} said twice in a row"
    if why is None and _same_sentence(sentence, spoken):
        why = f"the sentence {sentence.strip()!r} was already said"
    if why is not None:
        found.append(_fail("loop", None, f"loops: {why}"))
    n_words = sum(len(words(s)) for s in spoken) + len(words(sentence))
    found.append(_too_long(n_words, len(spoken) + len(split_sentences(sentence))))
    failures = [f for f in found if f is not None] + _unknown_names(pack, p, sentence)
    failures += grounding_failures(pack, read_reply(pack, sentence), ctx)
    return list(dict.fromkeys(failures))
