"""Reading a turn in its dialogue: the question an utterance stands for, from what was said before.

Players talk to a coach as they talk to a friend at their shoulder: "how do I beat him?", "no
wait, I meant Oakhorn", "what about Sparkwing?", "their electric one". Every rule after W1's input
(the intent prior, the slot rules, Φ's focus fields) reads *names*, so this step rewrites such a
turn into the question it stands for, in names, before any of them runs. It decides nothing a
model guesses: the referent comes from the dialogue so far (the last exchanges, the player's and
the coach's words) and the live state (who fields whom), which is SGC's thesis applied to the
dialogue (paper §4: W1 perceives the turn in its context).

In order, each on the text the previous one left:

0. **An answer to a question asked back** - the last reply asked "Their Voltail, or your
   Sparkwing?": "theirs", a name or "the one I have" puts the unit into the question it was about.
1. **Description** - "their electric one", "my main healer", "the fire fox", "their supports"
   becomes the unit(s) on that side every word fits (`voicecoach.perception.descriptions`); one
   that fits units on both sides, or "he" with no one named yet, is asked back about (`Reading.ask`).
2. **Correction** - "no wait / sorry / actually, I meant X" re-asks the previous question with X in
   place of the entity of X's kind (and side) it named; "A - actually no, B" inside one utterance
   puts B where A was. A correction is never read as an exclusion: its cue words are removed (a
   bare "no" is not a correction: "no Hakon either" keeps Hakon out).
3. **Follow-up** - "what about X?", "and X?", "same for X" re-asks the previous question about X.
4. **Reference** - he / him / his / she / her / that guy / the other one name the unit the
   dialogue was about: of the side the verb points to ("beat him": theirs; "level him": yours),
   the player's own last named unit first, then the one the coach's answer named; "it", "that",
   "that move" follow `voicecoach.perception.references` (the words around it say which kind).

Two questions in one breath ("what does Gale Dive do, and is Galehawk ready for it?") are read one
after the other (`Reading.second`), the second's "it" being the first's.

Pure Python over the pack, the state and the dialogue: no Pipecat, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from voicecoach.core.state import LiveState
from voicecoach.domain.asked import YES_NO, shapes
from voicecoach.domain.effects import effect_question
from voicecoach.domain.entities import Mention, context_attribute_asked, link_entities
from voicecoach.domain.pack import Pack
from voicecoach.domain.terms import asked_term
from voicecoach.domain.view import StateView
from voicecoach.perception.descriptions import (
    HOLE,
    MINE,
    THEIRS,
    THEIRS_CUE,
    Side,
    Sides,
    Unclear,
    bare_names,
    describe,
    describer,
    display,
    faces_foe,
    gender_of,
    kind_asked,
    option_by_description,
    option_by_word,
    option_they_used,
    short_names,
    side_word,
    slotted,
    their_option_described,
    type_by_look,
)
from voicecoach.perception.lexicon import Lexicon, ordinary, suggest
from voicecoach.perception.prior import (
    ASK_AGAIN,
    INSTEAD,
    WHAT_NOW,
    kind_token,
    normalise,
    nothing_asked,
    offered,
    remark,
    said_back,
)
from voicecoach.perception.references import (
    DESCRIBED,
    ONE_OWNED,
    PICK_BEFORE,
    resolve_any_of,
    resolve_place,
    resolve_reference,
    resolve_which,
    taken_out,
)


@dataclass(frozen=True)
class Exchange:
    """One heard turn: what the player asked (as it was read) and what the coach answered."""

    utterance: str
    reply: str


@dataclass(frozen=True)
class Reading:
    """The utterance as the rules read it, and what was resolved to get there (for the log).
    Two questions in one breath are two readings: `text` the first, `second` the other."""

    text: str
    resolved: tuple[str, ...] = field(default_factory=tuple)
    second: str | None = None
    # Not sure whom the player means ("the electric one": theirs or yours?): the question to ask
    # back instead of answering, and the turn with a hole where the answer goes.
    ask: str | None = None
    pending: str | None = None
    # "Who's their biggest threat, and who counters it?": the second's "it" is the first's answer,
    # known only once it is realized (`refer_to_answer`).
    second_refers: bool = False
    # Said before the answer: the reading the coach chose when its question back got no answer.
    lead: str | None = None


# --- English cue words (the domain words come from the pack) ---------------------------------------

_CORRECTION_LEAD = re.compile(
    r"^\s*(?:(?:no+|nope|nah|sorry|oops|whoops|wait|hold on|hang on|actually|my bad|scratch that|"
    r"correction|i mean|i meant|i said|(?:he|she|they) (?:means?|meant)|make (?:that|it)|not that(?: one)?|"
    r"rather)\b[\s,.!;:-]*)+",
    re.IGNORECASE,
)
# A lead that is a correction by itself ("wait, what does X do" is a new question, not a correction;
# a bare "no" keeps its meaning: "no Hakon either" keeps Hakon out).
_CORRECTING = re.compile(
    r"\b(?:sorry|oops|whoops|actually|my bad|scratch that|correction|i meant|i mean|"
    r"(?:he|she|they) (?:means?|meant)|make (?:that|it)|not that|no+ wait|wait no+|or rather|"
    r"no+[\s,.!]+no+)\b",
    re.IGNORECASE,
)
_BARE_NO = re.compile(r"^\s*(?:no+|nope|nah)\s*[,.!]\s*$", re.IGNORECASE)
_INLINE_CORRECTION = re.compile(
    r"\s*[,;.!?]*\s*(?:-+|\u2014|\u2013)?\s*(?:oh\s+|uh\s+|um\s+)?"
    r"(?:(?:actually|no+|wait|sorry|i mean|i meant|or rather|"
    r"rather|scratch that|make that)\b[\s,.!;:-]*)+(?:(?:i mean|i meant)\b[\s,]*)?",
    re.IGNORECASE,
)
_WRONG_ONE = re.compile(
    r"^\s*not\s+(?:him|her|it|them|that(?:\s+one)?|this(?:\s+one)?|the\s+\w+|\w+)\s*[,;.]?\s*"
    r"(?:(?:i\s+meant|i\s+mean)\b\s*)?",
    re.IGNORECASE,
)
_NOT_X = re.compile(r"\bnot\s+(?:the\s+|my\s+|their\s+)?$", re.IGNORECASE)
# "What if I didn't have him", "and if I don't own that one" (English cue words).
_WITHOUT_IT = re.compile(
    r"^\W*(?:(?:and|but|ok|okay|so|hmm|well)\W+)*(?:what\s+)?(?:if|say|suppose|pretend)\s+(?:i|we)\s+"
    r"(?:don'?t|didn'?t|do\s+not|did\s+not|can'?t|couldn'?t)\s+(?:have|own|get|use|got)\s+(?P<rest>.+?)[\s?.!]*$",
    re.IGNORECASE,
)
_FOLLOW_UP = re.compile(
    r"^\s*(?:(?:and|so|ok|okay|alright|right|hmm|uh|um|then|nice|cool|great|sweet|gotcha|k|yeah|yep|true)\b[\s,.!]*)*"
    r"(?:(?:what|how)\s+(?:a|')?bout|what\s+of|and|same\s+(?:question\s+)?(?:for|with)|same\s+thing\s+for|"
    r"how\s+does\s+that\s+change\s+for)\s+(?:for\s+|with\s+)?(?P<rest>.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# A question word: "what's Galehawk" asks its own question, a name alone does not.
_ASKS_OWN = re.compile(r"\b(?:what|who|how|why|which|when|where|is|are|does|do|can|should)\b", re.IGNORECASE)
# "Better than Sparkwing?", "is it stronger than the bird" (English cue words).
_THAN = re.compile(
    r"^\s*(?:(?:and|so|ok|okay|but|hmm|uh|um|is\s+(?:it|he|she|that)|would\s+(?:it|he|she)\s+be)\b[\s,]*)*"
    r"(?:any\s+)?(?P<word>better|worse|stronger|weaker)\s+than\s+(?P<rest>.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# Words a short correction or follow-up may carry besides the name ("no wait, I meant the Oakhorn").
_FILLER = {
    "the", "a", "an", "my", "our", "their", "his", "her", "one", "please", "then", "instead", "i", "meant",
    "mean", "not", "that", "this", "like", "uh", "um", "oh", "s", "guy", "sorry", "yeah",
    "ok", "okay", "about", "for", "with", "of", "mine", "theirs", "side", "on", "team", "either",
    "against", "vs", "versus", "into", "though", "now",
}  # fmt: skip

_MINE_CUE = re.compile(
    r"\b(?:level|levelling|leveling|level up|train|training|upgrade|field|bring|use|"
    r"using|play|playing|swap|keep|run|running|equip|build|invest in|buy|unlock|put|main|"
    r"(?:do|did)\s+(?:i|we)\s+(?:actually\s+|even\s+|still\s+|really\s+)?(?:have|own|got)|have\s+(?:i|we)\s+got|"
    r"(?:i|we)\s+(?:don'?t|didn'?t|do\s+not|did\s+not|dont|didnt)\s+(?:have|own))\s+$",
    re.IGNORECASE,
)
_MINE_AFTER = re.compile(
    r"^\s+(?:(?:is|are)\s+)?"
    r"(?:ready|unlocked|worth|maxed|levell?ed|evolved|owned|strong enough|good enough|high enough|too low)\b",
    re.IGNORECASE,
)
_MODAL = re.compile(r"\b(?:should|could|would|can|must)\s+$", re.IGNORECASE)
_LOADOUT_VERB = re.compile(r"^\s+(?:run|equip|use|build|take|bring|level|be running|be using)\b", re.I)
_GEAR_ON = re.compile(r"\b(?:carry|equip|run|put|use|bring|slot)\b[^.?!,]*\bon\s+$", re.IGNORECASE)
_PRONOUN = re.compile(
    r"\b(?P<p>he|him|his|she|her|hers|that guy|this guy|that dude|the other one|the other guy|"
    r"that one|this one)\b(?P<poss>'s)?",
    re.IGNORECASE,
)
_SUBJECT = {"he", "she"}
_FACES_AFTER = re.compile(r"^\s+(?:\w+\s+){0,3}?(?:against|vs|versus|into)\b", re.IGNORECASE)


# --- 4. references -------------------------------------------------------------------------------


def _units(pack: Pack, text: str) -> list[str]:
    unit_kind = pack.catalog.schema.kind("unit")
    return list(dict.fromkeys(m.id for m in link_entities(pack, text) if m.kind == unit_kind))


def _put_forward(pack: Pack, exchange: Exchange) -> list[str]:
    """The units the reply names that the question did not: what the coach put forward."""
    asked = set(_units(pack, exchange.utterance))
    return [u for u in _units(pack, exchange.reply) if u not in asked]


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]


_WHY = re.compile(r"^\W*(?:(?:and|but|so|ok)\W+)*why\b", re.IGNORECASE)


def _effect_done_to(pack: Pack, text: str, at: int) -> bool:
    """ "Can anything I have slow him down", "any of mine able to hit all of them": the one the
    effect is done to; whoever he is, the answer (who of the player's does it) is the same."""
    effect = effect_question(pack, text)
    return effect is not None and at > effect.at


# Asked for a unit to put in ("who replaces him"); asked of the player's own ("do I have that one unlocked").
_REPLACES = re.compile(r"\bwho\s+(?:replaces|goes\s+in|comes\s+in|instead|should\s+replace)\b", re.I)
_OWN_ASKED = re.compile(r"\b(?:unlocked|have|own|got|levell?ed|level|ready|equip\w*)\b", re.I)


# "It" as what a team question was about: made better, fixed, rated ("this round decides it" is not).
_TEAM_IT = re.compile(
    r"\b(?:(?:make|makes|improve|fix|change|rate|upgrade|tweak|build)\s+|wrong\s+with\s+"
    r"|(?:is|was)\s+(?=it\s+(?:good|ok|okay|bad|fine|enough|strong|weak|decent|any\s+good)\b))(?P<it>it)\b",
    re.IGNORECASE,
)


_OUR_TEAMS: dict[int, tuple[Pack, re.Pattern[str]]] = {}


def _our_team(pack: Pack) -> re.Pattern[str]:
    """ "My team", "our comp": the player's side as a whole, in English or the pack's group nouns
    (built once a pack)."""
    cached = _OUR_TEAMS.get(id(pack))
    if cached is not None and cached[0] is pack:
        return cached[1]
    schema = pack.catalog.schema
    nouns = {n.lower() for k in schema.kinds_of("group") for n in schema.kinds[k].nouns} | {"team", "squad"}
    pattern = re.compile(rf"\b(?:my|our)\s+(?:{'|'.join(map(re.escape, sorted(nouns)))})\b", re.IGNORECASE)
    _OUR_TEAMS[id(pack)] = (pack, pattern)
    return pattern


def _sides_said(pack: Pack, heard: str) -> dict[str, Side]:
    """The side a question put each unit it names on, by its cue word ("their Tamsin", "my Lorcan")
    or by facing it ("how do I deal with Tamsin"); units it gives no side are left out."""
    marked: dict[str, Side] = {}
    for m in link_entities(pack, heard):
        side = side_word((heard[: m.span[0]].split() or [""])[-1])
        if side != "any":
            marked[m.id] = side
        elif faces_foe(heard[: m.span[0]], heard[m.span[1] :]):
            marked[m.id] = "theirs"
    return marked


# A person's doing, said of "he" / "she" (English cue words): the kid, the friend, not a unit.
_A_PERSON_DOES = re.compile(
    r"\b(?:he|she)\s*(?:'s|s|\s+is|\s+was|\s+gets|\s+got)?\s+(?:so\s+|really\s+|super\s+)?"
    r"(?:excited|happy|thrilled|stoked|proud|sad|upset|tired|sleepy|giggling|laughing|cheering)\b"
    r"|\b(?:he|she)\s+(?:says|said|loves\s+(?:it|this|that)|cheered|laughed|giggled|thanks\s+you)\b",
    re.IGNORECASE,
)


def _refer(
    pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]
) -> tuple[str, list[str], Unclear | None]:
    """he / him / that guy / the other one -> the unit the dialogue was about (see the module doc);
    unclear when "he" has no one to be (nothing named before, none named now)."""
    unit_kind = pack.catalog.schema.kind("unit") or ""
    earlier = _antecedent_here(pack, text)
    if earlier is not None:
        return earlier
    here = set(_units(pack, text))  # "is he a problem for Renzo": he is someone else
    # "she's so excited", "he says go team": a person the player plays with, not a unit (nothing
    # to refer to, nothing to ask back about)
    text_of_units = _A_PERSON_DOES.sub(lambda m: " " * len(m.group(0)), text)
    if text_of_units != text and not _PRONOUN.search(text_of_units):
        return text, [], None
    if not history:
        person = _PERSON.search(text)
        if person is None or here:
            return text, [], None
        if _effect_done_to(pack, text, person.start()) or remark(text) in ("good", "close"):
            return text, [], None  # ("he just got his first kill!!": cheered, whoever he is)
        return text, [], Unclear((), text[: person.start()] + HOLE + text[person.end() :])
    last = history[-1]
    said = _units(pack, last.utterance)
    answer = _first_sentence(last.reply)
    # "Swap Dumaka off for Brannoc": the unit the answer takes out is not the one it puts forward.
    out = {u for u in _units(pack, answer) if taken_out(pack, answer, u)}
    # "their Tamsin keeps beating my Lorcan" - "what should he run": the side the player gave it
    marked = _sides_said(pack, last.utterance)
    said = sorted(said, key=lambda u: u in out)
    answered = sorted(_units(pack, answer), key=lambda u: u in out)
    if _WHY.match(text):
        # "Against Quillon, play Brannoc" - "why him": the one the answer put forward, not the foe.
        picked = {m.id for m in link_entities(pack, answer) if PICK_BEFORE.search(answer[: m.span[0]])}
        answered = sorted(answered, key=lambda u: (u in out, u not in picked))
    older = [
        u
        for ex in reversed(history[:-1])
        for u in [*_units(pack, ex.utterance), *_units(pack, _first_sentence(ex.reply))]
    ]
    for match in _PRONOUN.finditer(text):
        pronoun = match["p"].lower()
        before = text[: match.start()]
        if DESCRIBED.search(before):
            continue  # "their big shield guy, what beats him": him is the one just described
        if _effect_done_to(pack, text, match.start()):
            continue
        after = text[match.end() :]
        side = (
            "theirs"
            if faces_foe(before, after) or _REACH.search(before)
            else "mine"
            if _MINE_CUE.search(before)
            else "any"
        )
        if side == "any" and _MINE_AFTER.match(after):
            side = "mine"  # "is he ready", "is he unlocked yet"
        if side == "any" and _MODAL.search(before) and _LOADOUT_VERB.match(after):
            side = "mine"  # "what should he run": only the player's own unit takes their advice
        if side == "any" and pronoun in _SUBJECT and _FACES_AFTER.match(after):
            side = "mine"  # "how does she do against the turtle": the one sent against theirs
        if side == "any" and _GEAR_ON.search(before):
            side = "mine"  # "what should I carry on him": gear goes on the player's own unit
        if side == "any" and pronoun in ("that one", "this one"):
            continue  # "won that one": a round as often as a unit; only a verb for units says which
        if pronoun in ("he", "she") and _PLAYER_DOES.match(after) and _WITH_ONE.search(after):
            continue  # "who should she go after with him": she plays him (a child the player relays for)
        if pronoun.startswith("the other") and _WHY.match(text):
            continue  # "why not the other one" after "A or B": the why of the same choice, kept whole
        if pronoun.startswith("the other") and [u for u in answered if u in said] and len(said) >= 2:
            # "Sparkwing or Tidefang?" - "Tidefang." - "the other one then": the one not picked (the
            # first of them the answer names: "Emberfox over Galehawk" names both).
            chosen = next(u for u in _units(pack, answer) if u in said)
            pool = [u for u in said if u != chosen]
        elif pronoun.startswith("the other"):
            # The one of the last exchange's two units the player did not just name.
            pool = [u for u in dict.fromkeys([*answered, *said]) if u not in said[:1]]
        else:
            pool = list(dict.fromkeys([*said, *answered, *older]))
            if _ASKS_SEND.search(last.utterance) or _REPLACES.search(last.utterance):
                # "who do I send at it" - "Lead with Oakhorn ..." - "is he high enough level": the pick
                pick = [m.id for m in link_entities(pack, answer) if PICK_BEFORE.search(answer[: m.span[0]])]
                pick = pick or [u for u in answered if u not in out]  # "swap Dumaka off for Brannoc"
                pool = [*pick[:1], *(u for u in pool if u not in pick[:1])]
            if "which" in shapes(last.utterance) and len(said) >= 2:
                # "which of theirs do I worry about most" - "Shellbastion is their biggest threat" -
                # "what do I send at it": the one the answer chose of those asked about
                pick = [u for u in _units(pack, answer) if u in said][:1]
                pool = [*pick, *(u for u in pool if u not in pick)]
            if len(offered(pack, last.utterance)) >= 2:
                # "Renzo or Lorcan here?" - "Lorcan over Renzo" - "what should he run": the one picked.
                pick = [u for u in _units(pack, answer) if u in said][:1]
                pool = [*pick, *(u for u in pool if u not in pick)]
        pool = [u for u in pool if u not in here]
        gender = _PRONOUN_GENDER.get(pronoun)
        if gender is not None:
            # "Is she unlocked" after "against Nadira, play Brannoc": not the one the pack calls "him".
            pool = [u for u in pool if gender_of(pack, u) in (None, gender)] or pool
        if not last.reply and [u for u in said if u not in here]:
            # The second of two questions in one breath: "he" is the first's ("when do I unlock
            # Nadira, and is she worth the wait"), whichever side the verb points to.
            pool = [u for u in said if u not in here]
        elif side != "any":
            pool = [u for u in pool if sides.on(side, u) and marked.get(u, side) == side] or pool
            if side == "theirs":
                # "how do I get to him" after "put Brannoc on; Brannoc counters their Quillon": not
                # the one the answer gave the player (a hero both sides may field)
                given = {m.id for m in link_entities(pack, answer) if PICK_BEFORE.search(answer[: m.span[0]])}
                pool = [u for u in pool if u not in given] or pool
        if not pool:
            continue
        name = display(pack, unit_kind, pool[0])
        possessive = pronoun in ("his", "hers") or match["poss"] is not None
        if pronoun == "her" and _possessive_her(text, match.end()):
            possessive = True
        spoken = f"{name}'s" if possessive else name
        if marked.get(pool[0]) == "theirs" and sides.on("mine", pool[0]) and side == "any" and not possessive:
            spoken = f"their {spoken}"  # on both sides: the one the player faced, not their own
        return text[: match.start()] + spoken + text[match.end() :], [f"{match.group(0)!r} -> {name}"], None
    return text, [], None


# Between a name and a later "he", what makes them one person: a new clause ("Hexmoth is level 25,
# why isn't he on my team") - not a conjunction or a verb that sets the two apart ("Renzo or him",
# "can Renzo beat him").
_NEW_CLAUSE = re.compile(
    r"[,;.?!\u2014]|\b(?:why|how|what|who|so|but|then|because|cause|since|when|if|does|do|did|is|isnt|"
    r"isn't|can|could|should|would|will|was)\b",
    re.IGNORECASE,
)
_APART = re.compile(
    r"\b(?:or|and|than|vs|versus|against|into|beat|beats|counter|counters|hit|hits|for|with|over|"
    r"instead of|replace|swap)\s+$",
    re.IGNORECASE,
)
# "keep Elowen or swap her", "bring Oakhorn and level him": a second verb on the same unit (not one
# that sets them apart: "play Tamsin and counter him" is someone else).
_SAME_OBJECT = re.compile(
    r"^\s*,?\s*(?:or|and)\s+(?:just\s+|maybe\s+|then\s+)?(?:keep|swap|bench|drop|level|play|run|use|"
    r"bring|sub|replace|switch|take|put|train|upgrade|pull|sit)\s*$",
    re.IGNORECASE,
)
_PERSONAL = {"he", "him", "his", "she", "her", "hers"}
# What the player does with a unit, after "he" / "she" (English cue words): "should she go after".
_WITH_ONE = re.compile(r"\bwith\s+(?:him|her|it|them|my\s+\w+|[A-Z]\w+)\b")
_PLAYER_DOES = re.compile(
    r"^\s+(?:go\s+after|play|pick|stop|deal\s+with|unlock|level|try|focus|target|counter|handle|beat)\b",
    re.IGNORECASE,
)
# "How do I get to him", "who can reach her": the one reached is theirs (English cue words).
# "who do I send at her", "who should go after him", "do we focus her" too.
_REACH = re.compile(
    r"\b(?:reach|get\s+to|get\s+past|catch|dive|take\s+out|kill|send\s+(?:\w+\s+)?(?:at|after|into)|"
    r"go(?:es)?\s+(?:at|after)|aim\s+at|shoot(?:\s+at)?|focus|target|hunt|punish|pressure)\s+$",
    re.IGNORECASE,
)


def _antecedent_here(pack: Pack, text: str) -> tuple[str, list[str], Unclear | None] | None:
    """ "The moth one is level 25, why isn't he on my team": a person pronoun after a unit named in
    an earlier clause of the same saying is that unit, whatever the dialogue said before."""
    unit_kind = pack.catalog.schema.kind("unit") or ""
    for match in _PRONOUN.finditer(text):
        if match["p"].lower() not in _PERSONAL:
            continue
        before = text[: match.start()]
        named = [m for m in link_entities(pack, before) if m.kind == unit_kind]
        gender = _PRONOUN_GENDER.get(match["p"].lower())
        fits = [m for m in named if gender_of(pack, m.id) == gender]
        if (
            named
            and len({m.id for m in fits}) == 1
            and gender_of(pack, named[-1].id) not in (None, gender)
            and all(gender_of(pack, m.id) is not None for m in named)
        ):
            # "Tamsin though, doesn't their Brannoc hard counter her": of the two named, the one
            # the pack's own words call "she" (Brannoc is "he").
            named = [fits[-1]]
        elif named and _SAME_OBJECT.match(before[named[-1].span[1] :]):
            # "keep Elowen or swap her": two verbs, one object; the sentence already names it
            return (
                text,
                [f"{match.group(0)!r} -> {display(pack, unit_kind, named[-1].id)}, named before"],
                None,
            )
        elif not named or _APART.search(before):
            continue
        gap = before[named[-1].span[1] :]
        if not _NEW_CLAUSE.search(gap) or len({m.id for m in named}) > 1:
            continue  # no clause between, or two units: which one is not the sentence's to say
        name = display(pack, unit_kind, named[-1].id)
        possessive = match["p"].lower() in ("his", "hers") or match["poss"] is not None
        if match["p"].lower() == "her" and _possessive_her(text, match.end()):
            possessive = True
        spoken = f"{name}'s" if possessive else name
        return text[: match.start()] + spoken + text[match.end() :], [f"{match.group(0)!r} -> {name}"], None
    return None


_PRONOUN_GENDER = {
    "he": "m", "him": "m", "his": "m", "she": "f", "her": "f", "hers": "f",
    "that guy": "m", "this guy": "m", "that dude": "m", "the other guy": "m",
}  # fmt: skip
# "How do I beat him?" as the first thing said: a person pronoun with no one to stand for.
_PERSON = re.compile(r"\b(?:he|him|she|her|that guy|this guy)\b", re.IGNORECASE)


def _possessive_her(text: str, end: int) -> bool:
    """ "her skills" (a possessive) rather than "beat her" or "her?"."""
    return (
        re.match(
            r"\s+(?!(?:to|the|a|an|and|or|if|with|in|on|at|now|yet|down|up|out|off|away|back|over|"
            r"first|again|too|fast|quick|quickly|early|then|there|here|before|after|from|for|by|into|so|"
            r"because|when|while|about)\b)[a-z]",
            text[end:],
            re.I,
        )
        is not None
    )


# --- 1-2. corrections and follow-ups -----------------------------------------------------------------


def _short(pack: Pack, rest: str) -> bool:
    """Is `rest` little more than names ("the Oakhorn one", "Sparkwing instead")?"""
    spans = [m.span for m in link_entities(pack, rest)]
    bare = "".join(ch if not any(a <= i < b for a, b in spans) else " " for i, ch in enumerate(rest))
    schema = pack.catalog.schema
    nouns = {n.lower() for n in schema.kinds[schema.kind("unit") or ""].nouns}
    words = [w for w in re.findall(r"[a-z]+", bare.lower()) if w not in _FILLER and w not in nouns]
    return bool(spans) and len(words) <= 1


def current_place(pack: Pack, kind: str) -> re.Pattern[str]:
    """Where a question names the current context entity without its name ("on this map", "here");
    matches nothing for a kind that is not the schema's context kind."""
    schema = pack.catalog.schema
    if kind != schema.kind("context"):
        return re.compile(r"(?!)")
    nouns = "|".join(re.escape(n.lower()) for n in schema.kinds[kind].nouns)
    this = rf"(?:this|the|our|that)\s+(?:current\s+)?(?:{nouns})\b"
    return re.compile(rf"\b(?:(?:on|at|in|for)\s+)?(?:{this}|here\b)", re.IGNORECASE)


# "What beats that", "ok so who counters this comp" (English cue words).
_BEATS_THAT = re.compile(
    r"^(?P<ask>\W*(?:(?:ok|okay|so|and|alright|right|then|hmm)\W+)*(?:what|who|which\s+\w+)\s+"
    r"(?:beats?|counters?|works?\s+against|is\s+good\s+against|stops?))\s+(?:that|this|it)"
    r"(?:\s+[a-z]+)?\W*$",  # ("what beats that comp": any word for their team after it)
    re.IGNORECASE,
)


def _their_whole_side(pack: Pack, last: Exchange) -> bool:
    """Was the last exchange about the opponent's side as a whole (a group of the pack named in the
    reply, or "their team" in the question)?"""
    groups = set(pack.catalog.schema.kinds_of("group"))
    return any(m.kind in groups for m in link_entities(pack, last.reply)) or bool(
        _their_team(pack).search(last.utterance)
        or re.search(r"\btheir\s+(?:team|five|three)\b", last.utterance, re.I)
    )


def _place_asked(pack: Pack, kind: str, text: str) -> bool:
    """Does the question name a context entity, or the current one ("this map", "here")?"""
    nouns = "|".join(re.escape(n.lower()) for n in pack.catalog.schema.kinds[kind].nouns)
    return (
        any(m.kind == kind for m in link_entities(pack, text))
        or current_place(pack, kind).search(text) is not None
        or re.search(rf"\b(?:what|which)\s+(?:{nouns})\b", text, re.IGNORECASE) is not None
    )


def _substitute(pack: Pack, sides: Sides, previous: str, new: list[Mention], drop: set[str]) -> str | None:
    """`previous` with each of `new`'s entities in place of the one of its kind (and side) it named;
    `drop`: ids the player said were wrong ("Oakhorn, not Emberfox"), replaced first."""
    earlier = link_entities(pack, previous)
    out = previous
    changed = False
    put: dict[str, str] = {}  # kind -> the name put in last
    # ("the rock boar then, like the granite one": one unit said twice takes one place)
    new = list({m.id: m for m in reversed(new)}.values())[::-1]
    for m in new:
        if any(e.id == m.id for e in earlier):
            continue  # already in the question: putting it in another's place would pit it against itself
        same = [e for e in earlier if e.kind == m.kind and e.id != m.id]
        if not same and m.kind in put:
            # "and the other two?": "Briarcat and Voltail" in the place of the one asked about
            out = out.replace(put[m.kind], f"{put[m.kind]} and {display(pack, m.kind, m.id)}", 1)
            continue
        if not same:
            # "who's good on this map" - "and Copperline Yard?": the place the question was about
            here = current_place(pack, m.kind).search(out)
            if here is not None:
                out = f"{out[: here.start()]}on {display(pack, m.kind, m.id)}{out[here.end() :]}"
                changed = True
            # "does wind do anything against their team" - "and Voltail?": one of that team
            team = _their_team(pack).search(out)
            if team is not None and m.kind == pack.catalog.schema.kind("unit") and sides.on("theirs", m.id):
                out = f"{out[: team.start()]}{display(pack, m.kind, m.id)}{out[team.end() :]}"
                changed = True
            continue
        target = next((e for e in same if e.id in drop), None)
        if target is None:
            side = sides.side_of(m.id)
            target = next((e for e in same if sides.side_of(e.id) == side), same[0])
        name = display(pack, m.kind, m.id)
        # Every mention: a turn of two questions ("A vs X, and B vs X") names X twice.
        out = re.sub(re.escape(target.surface), name, out, flags=re.IGNORECASE)
        earlier = [e for e in earlier if e is not target]
        put[m.kind] = name
        changed = True
    return out if changed else None


def _their_team(pack: Pack) -> re.Pattern[str]:
    """ "Their team", "the enemy side", and the schema's group kind by name or noun ("their comp")."""
    schema = pack.catalog.schema
    nouns = [n for name, k in schema.kinds.items() if k.role == "group" for n in (name, *k.nouns)]
    words = "|".join(map(re.escape, ["team", "side", "squad", *nouns]))
    return re.compile(rf"\b(?:their|the enemy(?:'s)?|the other|the opponent'?s?)\s+(?:{words})\b", re.I)


# "(actually nah,) keep the bird", "leave Sparkwing in", "stick with Oakhorn": a swap called off.
_KEEP_INSTEAD = re.compile(
    r"^\W*(?:i'?ll\s+|we'?ll\s+|let'?s\s+|just\s+)?(?:keep|keeping|leave|stick\s+with|stay\s+with)\b", re.I
)


# "Emberfox I have out", "the hawk one I've got on the bench": the player's own, said after the name.
_I_HAVE_AFTER = re.compile(
    r"^\s+(?:that\s+|which\s+)?(?:i|we)\s+(?:have|got|'ve\s+got|ve\s+got|own)"
    r"(?:\s+(?:out|in|on\s+the\s+(?:field|bench)|fielded|right\s+now|now))?\b",
    re.IGNORECASE,
)


# "Their other long range one, Tamsin": a description, then the name it stands for.
_BEFORE_NAME = re.compile(
    r"\b(?P<side>their|the|my|our)\s+(?:[a-z]+\s+){0,4}?(?:one|guy|girl|dude|lady|man|woman)"
    r"\s*,\s*$",
    re.IGNORECASE,
)


def _appositive(pack: Pack, text: str) -> str:
    """ "What about their other long range one, Tamsin" as "what about their Tamsin": the name says
    who is meant; the words before it only describe it."""
    unit = pack.catalog.schema.kind("unit")
    linked = link_entities(pack, text)
    for a, b in reversed(list(zip(linked, linked[1:], strict=False))):
        if a.id == b.id and a.kind == unit and re.fullmatch(r"[\s,]*", text[a.span[1] : b.span[0]]):
            text = text[: a.span[1]] + text[b.span[1] :]  # "the little water dog Tidefang": once
    for m in reversed(link_entities(pack, text)):
        before = _BEFORE_NAME.search(text[: m.span[0]])
        if m.kind == unit and before is not None:
            side = f"{before['side']} " if before["side"].lower() != "the" else ""
            text = f"{text[: before.start()]}{side}{text[m.span[0] :]}"
    return text


_AND_THEIRS = re.compile(
    r"^\W*(?:(?:and|ok|okay|so|what\s+about|how\s+about)\W+)*(?P<side>theirs|them|their\s+side|the\s+other\s+team|"
    r"mine|ours|us|my\s+side)\W*$",
    re.IGNORECASE,
)
_MINE_TO_THEIRS = (
    (r"\bmy\b", "their"), (r"\bmine\b", "theirs"), (r"\bour\b", "their"), (r"\bours\b", "theirs"),
    (r"\b(?:i|we)\s+(?:have|own|got)\b", "they have"),
)  # fmt: skip
_THEIRS_TO_MINE = ((r"\btheir\b", "my"), (r"\btheirs\b", "mine"), (r"\bthey\s+(?:have|own|got)\b", "I have"))


def _side_words(question: str, to_theirs: bool) -> str:
    """`question` asked of the other side: its "my" as "their" (or back)."""
    for pattern, word in _MINE_TO_THEIRS if to_theirs else _THEIRS_TO_MINE:
        question = re.sub(pattern, word, question, flags=re.IGNORECASE)
    return question


def _mine_said_after(pack: Pack, text: str) -> str:
    """ "Is Emberfox I have out any good" as "is my Emberfox any good": a relative clause of having
    after a unit's name is the player's side, and out of the way of the question."""
    unit = pack.catalog.schema.kind("unit")
    for m in reversed(link_entities(pack, text)):
        after = _I_HAVE_AFTER.match(text[m.span[1] :])
        if m.kind != unit or after is None:
            continue
        mine = "" if re.search(r"\bmy\s+$", text[: m.span[0]], re.IGNORECASE) else "my "
        text = f"{text[: m.span[0]]}{mine}{text[m.span[0] : m.span[1]]}{text[m.span[1] + after.end() :]}"
    return text


def _kept_instead(pack: Pack, text: str, history: Sequence[Exchange]) -> str | None:
    """The unit the player keeps ("keep the bird", "I'll stick with Oakhorn"), when the last reply
    named it (a swap of it just advised), by its name; else None."""
    keep = _KEEP_INSTEAD.match(text)
    if (
        not history
        or keep is None
        or not _short(pack, re.sub(r"\b(?:in|then|instead|on)\b", " ", text[keep.end() :]))
    ):
        return None
    unit = pack.catalog.schema.kind("unit")
    kept = [m for m in link_entities(pack, text) if m.kind == unit]
    said = {m.id for m in link_entities(pack, history[-1].reply)}
    if len(kept) != 1 or kept[0].id not in said:
        return None
    return display(pack, unit or "", kept[0].id)


def _correct(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    lead = _CORRECTION_LEAD.match(text)
    if lead is not None and _BARE_NO.match(lead.group(0)) and _OPENS_QUESTION.match(text[lead.end() :]):
        return text[lead.end() :], [f"dropped {lead.group(0).strip()!r}"]  # "no, what does X do?"
    kept = _kept_instead(pack, text[lead.end() :] if lead is not None else text, history)
    if kept is not None:
        # "Actually nah, keep the bird" after "swap Sparkwing out": the unit stays; how it does.
        return f"how does my {kept} do against their team", [f"kept {kept} (a swap called off)"]
    if lead is not None and lead.end() > 0 and _CORRECTING.search(lead.group(0)):
        rest = text[lead.end() :]
        if history:
            mentions = link_entities(pack, rest)
            drop = {m.id for m in mentions if _NOT_X.search(rest[: m.span[0]])}
            keep = [m for m in mentions if m.id not in drop]
            earlier = {m.id for m in link_entities(pack, history[-1].utterance)}
            # "no wait, I meant I'm using the stag on it, not the fox": the last question with the one
            # said wrong put right, however much of that question is said again
            put_right = bool(drop) and drop <= earlier and bool(keep)
            if _short(pack, rest) or put_right:
                redo = _substitute(pack, sides, history[-1].utterance, keep, drop)
                if redo is not None:
                    return redo, [f"correction of {history[-1].utterance!r}"]
        # A new question after "no, ..." / "sorry, ...": the cue is not an exclusion, and neither is
        # the "not him" that names what was wrong ("sorry, not him, I meant my shotgun guy").
        rest = _WRONG_ONE.sub("", rest)
        if rest.strip():
            return rest, [f"dropped {lead.group(0).strip()!r}"]
    return _inline_correction(pack, sides, text)


def _inline_correction(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str]]:
    """Inside one utterance: "what's next for Osmund - actually no, Kasimir's": the name said
    wrong put right."""
    for cue in _INLINE_CORRECTION.finditer(text):
        # ("their Tamsin. no. their Quillon": a bare "no" between two sentences corrects too)
        bare_no = re.fullmatch(r"\s*[.,;!?]+\s*no+\s*[.,;!?]+\s*", cue.group(0)) is not None
        if cue.start() == 0 or not (_CORRECTING.search(cue.group(0)) or bare_no):
            continue
        rest = text[cue.end() :]
        # The name right after the cue, or after a few words describing it ("sorry, grenade man, Fenwick").
        after = [
            m
            for m in link_entities(pack, rest)[:1]
            if m.span[0] == 0 or (len(rest[: m.span[0]].split()) <= 3 and not _ASKS.search(rest[: m.span[0]]))
        ]
        if not after:
            continue
        b = after[0]
        if b.span[0] > 0 and re.fullmatch(r"\s*(?:actually|rather)\s*", cue.group(0), re.IGNORECASE):
            continue  # an adverb, not a correction: "is Lorcan actually good into their Tamsin"
        before = link_entities(pack, text[: cue.start()])
        if len(before) > 1 and before[0].id == b.id:
            # Said again from its start ("Lorcan or Dumaka, wait no, Lorcan or Ellie"): the second saying.
            return text[: before[0].span[0]] + text[cue.end() :], [f"restated as {text[cue.end() :]!r}"]
        # The one it replaces is of its kind and, by the live state, of its side ("is Tidefang good vs
        # Voltail, sorry, I mean Granitusk": the player's own for the player's own).
        kin = [m for m in reversed(before) if m.kind == b.kind]
        a = next((m for m in kin if sides.side_of(m.id) == sides.side_of(b.id)), kin[0] if kin else None)
        if a is None:
            continue
        tail = text[cue.end() + b.span[1] :]
        tail = re.sub(r"^'s\b", "", tail)
        tail = re.sub(r"^\s*(?:ones?\s*)?(?:i\s+mean(?:t)?)?\W*$", "", tail)  # "earth ones i mean"
        name = display(pack, b.kind, b.id)
        fixed = text[: a.span[0]] + name + text[a.span[1] : cue.start()] + tail
        return fixed, [f"{a.surface!r} corrected to {name}"]
    return text, []


_EXCLUDING = re.compile(
    r"^\s*(?:without|not|no|except|minus|but\s+not|other\s+than|leave\s+out|leaving\s+out)\b", re.I
)
# "And if I'm on Dumaka", "what if I play Renzo": the player's own unit in the last question's fight.
_IF_ON = re.compile(
    r"^\W*(?:(?:and|so|ok|okay|but)\W+)*(?:what\s+)?if\s+(?:i'?m|i\s+am|i|we'?re|we)\s+"
    r"(?:on|play|playing|played|use|using|used|pick|picking|picked|run|running|ran|go|going|went|bring|bringing|"
    r"brought)\s+(?:with\s+)?"
    r"(?P<rest>.+?)[\s?.!]*$",
    re.IGNORECASE,
)


# "And Dumaka, same question", "same thing for Osmund" (English cue words).
_SAME_QUESTION = re.compile(
    r"^\W*(?:(?:and|ok|okay|so|what\s+about|how\s+about)\W+)*(?P<rest>[\w' ]+?)\W*,?\s*same\s+"
    r"(?:question|thing|deal|q|for\s+(?:him|her|it))\W*$"
    r"|^\W*(?:(?:and|ok|okay|so)\W+)*same\s+(?:question|thing|deal|q)\s+(?:for|about|with|of)\s+(?P<rest2>.+?)\W*$",
    re.IGNORECASE,
)
# "And the hammer guy, is he better": one named, weighed against the last one (English cue words).
_IS_IT_BETTER = re.compile(
    r"^\W*(?:(?:and|so|ok|okay|what\s+about|how\s+about)\W+)*(?P<rest>.+?)\W+(?:is|would|will)\s+"
    r"(?:he|she|it|that|they)\s+(?:be\s+)?(?:any\s+)?(?P<word>better|worse|stronger|weaker)\W*$",
    re.IGNORECASE,
)
_REVERSED = re.compile(
    r"^\W*(?:(?:and|ok|okay|so|what\s+about|how\s+about)\W+)*(?:the\s+)?(?:other\s+way\s+a?round|vice\s+versa|"
    r"reverse(?:d)?|the\s+reverse|flip\s+it)\W*$",
    re.IGNORECASE,
)


def _reversed(pack: Pack, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]] | None:
    """ "Does Lorcan counter Tamsin?" - "and the other way round": the last question with its two
    units swapped."""
    if not history or not _REVERSED.match(text):
        return None
    asked = history[-1].utterance
    unit = pack.catalog.schema.kind("unit")
    units = [m for m in link_entities(pack, asked) if m.kind == unit]
    if len(units) != 2 or units[0].id == units[1].id:
        return None
    a, b = units
    swapped = asked[: a.span[0]] + b.surface + asked[a.span[1] : b.span[0]] + a.surface + asked[b.span[1] :]
    return swapped, [f"the other way round: {swapped!r}"]


def _follow_up(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    if (flipped := _reversed(pack, text, history)) is not None:
        return flipped
    than = _THAN.match(text)
    if than is not None and history:
        # "Is Hexmoth any good?" - "better than Sparkwing?": the two weighed.
        now, before = _units(pack, than["rest"]), _units(pack, history[-1].utterance)
        answer = _first_sentence(history[-1].reply)
        if _ASKS_SEND.search(history[-1].utterance):
            # "what do I send at it" - "Lead with Oakhorn ..." - "is that better than my fox": the pick
            before = [m.id for m in link_entities(pack, answer) if PICK_BEFORE.search(answer[: m.span[0]])][
                :1
            ]
        if len(now) == 1 and len(before) == 1 and now != before and _short(pack, than["rest"]):
            kind = pack.catalog.schema.kind("unit") or ""
            one, other = display(pack, kind, before[0]), display(pack, kind, now[0])
            return f"is {one} {than['word']} than {other}", [f"follow-up: {one} against {other}"]
    same = _SAME_QUESTION.match(text)
    if same is not None and history:
        # "which maps are good for Renzo" - "and Dumaka, same question": the last question, of Dumaka
        new = list(link_entities(pack, same["rest"] or same["rest2"] or ""))
        redo = _substitute(pack, sides, history[-1].utterance, new, set()) if len(new) == 1 else None
        if redo is not None:
            return redo, [f"the same question of {new[0].surface}"]
    better = _IS_IT_BETTER.match(text)
    if better is not None and history and len(now := _units(pack, better["rest"])) == 1:
        # "Tell me about Dumaka" - "and the hammer guy, is he better": better than the last one
        before = _units(pack, history[-1].utterance) + _units(pack, _first_sentence(history[-1].reply))
        kind = pack.catalog.schema.kind("unit") or ""
        last = next((u for u in before if u != now[0] and sides.side_of(u) == sides.side_of(now[0])), None)
        if last is not None and _short(pack, better["rest"]):
            one, two = display(pack, kind, now[0]), display(pack, kind, last)
            return f"is {one} {better['word']} than {two}", [f"follow-up: {one} against {two}"]
    if_on = _IF_ON.match(text)
    if if_on is not None and history and _short(pack, if_on["rest"]) and len(_units(pack, if_on["rest"])) < 2:
        # ("what if I go Yarrow instead of Elowen" names both sides of a swap: a question of its own)
        text = f"what about {if_on['rest']}"
    match = _FOLLOW_UP.match(text)
    if match is None and history and _short(pack, text) and not _ASKS_OWN.search(text):
        # "Is my bird any good against their cat?" - "the hawk one": the last question again, with
        # that unit in place of the one on its side.
        unit = pack.catalog.schema.kind("unit")
        linked = link_entities(pack, text)
        alone = [m for m in linked if m.kind == unit]
        asked = [m for m in link_entities(pack, history[-1].utterance) if m.kind == unit]
        # ("put Combat Roll on Lorcan" names more than a unit: a request of its own)
        side = sides.side_of(alone[0].id) if len(alone) == 1 == len(linked) else None
        if side is not None and any(b.id != alone[0].id and sides.side_of(b.id) == side for b in asked):
            redo = _substitute(pack, sides, history[-1].utterance, alone, set())
            if redo is not None:
                return redo, [f"a name alone: the last question about {alone[0].surface}"]
    if match is None or not history:
        return text, []
    other_end = _SUPERLATIVE.fullmatch(match["rest"].strip())
    said_end = _SUPERLATIVE_IN.search(history[-1].utterance)
    if other_end is not None and said_end is not None:
        # "What's my highest level creature" - "and the lowest?": the same question, the other end.
        asked_before = history[-1].utterance
        redo = f"{asked_before[: said_end.start()]}{other_end['word']}{asked_before[said_end.end() :]}"
        return redo, [f"follow-up: {other_end['word']} for {said_end.group(0)}"]
    # "What about Osmund, he's like level 2": the follow-up is the part before the aside (not
    # before a question: "and for the water turtle, what do I use" asks one of its own).
    head, comma, aside = match["rest"].partition(",")
    heads = (match["rest"], head) if comma and not _ASKS.search(aside) else (match["rest"],)
    rest = next((r for r in heads if _short(pack, r)), None)
    if rest is None:
        return text, []
    if _PRONOUN.search(rest) or re.search(r"\bit\b", rest, re.IGNORECASE):
        return text, []  # "what about my Sparkwing vs him": a question of its own, "him" the last one
    if len(_units(pack, rest)) >= 2 and _MATCHED.search(rest):
        return text, []  # "what about Renzo vs their Brannoc": one against the other, its own question
    if _EXCLUDING.match(rest):
        # "A good comp with Paxton" - "and without Bexley": the same question, one more left out.
        return f"{history[-1].utterance.rstrip(' ?.!')}, {rest.strip()}", ["refined the last question"]
    new = link_entities(pack, rest)
    unit = pack.catalog.schema.kind("unit")
    asked = [e for e in link_entities(pack, history[-1].utterance) if e.kind == unit]
    if (
        len(new) == 1
        and new[0].kind == unit
        and (sides.side_of(new[0].id) == "mine" or re.match(r"(?:my|our)\s", rest.strip(), re.IGNORECASE))
        and asked
        and all(sides.side_of(e.id) == "theirs" for e in asked)
        # (one the player owns too, asked about as theirs only when faced: "swap anything on Brannoc"
        # - "what about for Dumaka" is the player's Brannoc's question again)
        and not any(
            e.id in sides.owned and _sides_said(pack, history[-1].utterance).get(e.id) != "theirs"
            for e in asked
        )
    ):
        # "How do I deal with Shellbastion" - "what about with my bird": the player's own unit
        # put up against the one asked about, not a question about their own.
        mine, foe = display(pack, unit, new[0].id), display(pack, unit, asked[-1].id)
        said_my = "my " if re.match(r"(?:my|our)\s", rest.strip(), re.IGNORECASE) else ""
        return f"is {said_my}{mine} any good against {foe}", [f"follow-up: {mine} against {foe}"]
    if (
        len(new) == 1
        and new[0].kind == unit
        and new[0].id in sides.owned
        and new[0].id not in sides.fielded
        and re.search(r"\binstead\b", text, re.IGNORECASE)
        and _SWAP_ASKED.search(history[-1].utterance)
        and [e for e in asked if e.id in sides.fielded]
    ):
        # "Should I pull Emberfox?" - "what about the moth instead": that one in for the one pulled,
        # not the pull asked again about it.
        out = display(pack, unit, next(e.id for e in asked if e.id in sides.fielded))
        name = display(pack, unit, new[0].id)
        return f"should I swap {out} for {name}", [f"follow-up: {name} in for {out}"]
    going_out = [e for e in asked if e.id in sides.fielded]
    coming_in = [e for e in asked if e.id in sides.owned and e.id not in sides.fielded]
    if (
        len({m.id for m in new}) == 1
        and new[0].kind == unit
        and new[0].id in sides.owned
        and new[0].id not in sides.fielded
        and _SWAP_ASKED.search(history[-1].utterance)
        and len({e.id for e in going_out}) == 1
        and len({e.id for e in coming_in}) == 1
        and coming_in[0].id != new[0].id
    ):
        # "Should I swap Renzo out for Tamsin?" - "what about Stellan": another one in, the same one out.
        out, name = display(pack, unit, going_out[0].id), display(pack, unit, new[0].id)
        return f"should I swap {out} for {name}", [f"follow-up: {name} in for {out}"]
    redo = _substitute(pack, sides, history[-1].utterance, new, set())
    if (
        redo is None
        and len(new) == 1
        and new[0].kind == unit
        and not asked
        and new[0].id in sides.owned
        and new[0].id not in sides.theirs  # a hero both sides have: whose, the sentence does not say
        and _SWAP_ASKED.search(history[-1].utterance)
    ):
        name = display(pack, unit, new[0].id)
        if new[0].id in sides.fielded:
            # "Who should I bench?" - "what about the fire one": that one of the team, out.
            return f"should I swap {name} out", [f"follow-up: {name} out, on {history[-1].utterance!r}"]
        # "Should I swap anyone out?" - "what about Granitusk": that one of theirs on the bench, in.
        return f"should I put {name} in", [f"follow-up: {name} in, on {history[-1].utterance!r}"]
    if redo is None:
        return text, []
    for m in new:
        # "What about my Stormlynx": still the player's ("my") in the question asked again.
        name = display(pack, m.kind, m.id)
        if re.search(r"\b(?:my|our)\s+$", rest[: rest.lower().find(m.surface.lower())], re.IGNORECASE):
            redo = re.sub(rf"(?<!my )(?<!our )(?<!their )\b{re.escape(name)}\b", f"my {name}", redo, count=1)
    return redo, [f"follow-up on {history[-1].utterance!r}"]


# "And the lowest?", "what about the weakest one": the other end of a superlative just asked.
_ENDS = r"highest|lowest|strongest|weakest|best|worst|biggest|smallest|toughest|squishiest|most|least"
_SUPERLATIVE = re.compile(rf"(?:the\s+)?(?P<word>{_ENDS})(?:\s+one)?(?:\s+then)?", re.IGNORECASE)
_SUPERLATIVE_IN = re.compile(rf"\b(?:{_ENDS})\b", re.IGNORECASE)
# "Should I swap anyone out", "any changes for next round": a change of the player's side asked for.
_ASKED_START = re.compile(
    r"^(?:(?:so|ok|okay|and|but|uh|um)\s+)*(?:is|are|does|do|did|can|could|will|would|should|what|whats|who|whos|"
    r"how|hows|which|when|where|why)\b"
)
_SWAP_ASKED = re.compile(
    r"\b(?:swap|switch|change|changes|sub|bench|replace|rotate|take\s+\w+\s+out|drop|pull|sit|ditch)\b",
    re.IGNORECASE,
)


# --- two questions in one breath ----------------------------------------------------------------

_BARE_CHOICE = re.compile(r"^(?:\W*(?:or|maybe|either)\W*)+$", re.IGNORECASE)


# "Is it better than Vital Beam", "what's the difference", "which one's better" (English cue words).
_COMPARES = re.compile(
    r"\b(?:better|worse|stronger|weaker|difference|different|differ|compare|compared|vs|versus)\b",
    re.IGNORECASE,
)
_DIFFERS = re.compile(r"\b(?:difference|different|differ)\b", re.IGNORECASE)


def _options(pack: Pack, text: str) -> list[str]:
    option = pack.catalog.schema.kind("option")
    return list(dict.fromkeys(m.id for m in link_entities(pack, text) if m.kind == option))


def _compared(pack: Pack, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    """Two options weighed with one of them, or both, left to the conversation: "what does
    Boomstick do" - "is Auto Shotgun better" is Auto Shotgun against Boomstick; "what does
    Overcharge do" - "and Tailwind?" - "which one's better" is those two. The question is put
    with both names, as the comparison answers it."""
    option = pack.catalog.schema.kind("option")
    if option is None or not history or _COMPARES.search(text) is None or _units(pack, text):
        return text, []
    named = _options(pack, text)
    if len(named) > 1:
        return text, []
    earlier = [o for ex in reversed(history[-2:]) for o in _options(pack, ex.utterance) if o not in named]
    earlier = list(dict.fromkeys(earlier))
    pair = [*named, *earlier][:2]
    if len(pair) < 2 or (not named and len(_options(pack, history[-1].utterance)) == 0):
        return text, []
    a, b = (display(pack, option, o) for o in pair)
    asked = (
        f"what's the difference between {a} and {b}" if _DIFFERS.search(text) else f"is {a} better than {b}"
    )
    return asked, [f"compared with the last one: {a} and {b}"]


def _choice_of(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    """ "Lorcan or Elowen?" right after "who should I level": the last question, asked of that choice."""
    if not history or not _short_choice(pack, text):
        return text, []
    asked = history[-1].utterance
    if _units(pack, asked) or JOINT in asked:
        return text, []  # a question about units of its own: the choice is a question of its own
    return f"{asked.rstrip(' ?.!')}, {text.strip(' ?.!')}", [f"a choice for {asked!r}"]


def _short_choice(pack: Pack, text: str) -> bool:
    """Is `text` only two or more units joined by "or" ("Lorcan or Ellie?", "the fox or Galehawk")?"""
    unit = pack.catalog.schema.kind("unit")
    units = [m for m in link_entities(pack, text) if m.kind == unit]
    if len(units) < 2 or not _short(pack, re.sub(r"\bor\b", " ", text, flags=re.IGNORECASE)):
        return False
    between = [text[a.span[1] : b.span[0]] for a, b in zip(units, units[1:], strict=False)]
    return all(_BARE_CHOICE.match(g) or not g.strip(" ,") for g in between) and any(
        re.search(r"\bor\b", g, re.IGNORECASE) for g in between
    )


_QUESTION_START = (
    r"(?:what|what's|whats|which|who|who's|whos|whose|how|how's|hows|is|are|can|could|should|shall|does|"
    r"do|did|will|would|where|where's|wheres|when|why|any|have|has)\b"
)
_SECOND_QUESTION = re.compile(
    rf"(?:\?\s+|[,;]?\s+(?:and|also|plus)\s+(?:also\s+|then\s+)?"
    rf"(?:(?:uh+|um+|like|so|realistically|honestly|seriously|actually|just)\W+)*|[,;]\s+)"
    rf"(?={_QUESTION_START})",
    re.IGNORECASE,
)
# "Two things: ...", "couple questions, ...": said before two questions, not part of either.
_TWO_THINGS = re.compile(
    r"^\W*(?:(?:ok|okay|so|alright|right|hey|coach|um+|uh+)\W+)*(?:two|2|a\s+couple(?:\s+of)?|couple(?:\s+of)?)\s+"
    r"(?:things|questions|qs)\b(?:\s+(?:for\s+you|quick(?:ly)?))?\W*",
    re.IGNORECASE,
)
# "... so first should I put it in, and second what would I take out": the two, numbered.
_FIRST = re.compile(
    r"(?:^|(?<=[,;:.]\s)|(?<=\bso\s)|(?<=\bok\s)|(?<=\band\s)|(?<=\bokay\s)|(?<=\bwell\s))"
    r"first(?:ly|\s+off)?\b,?\s*",
    re.IGNORECASE,
)
_POINTS_BACK = re.compile(r"\b(?:it|its|him|his|her|them|they|that|this|he|she)\b", re.IGNORECASE)
_SECOND = re.compile(r"[,;.]?\s+(?:and\s+)?(?:then\s+)?second(?:ly)?\b,?\s*", re.IGNORECASE)


_LEAD_SENTENCE = re.compile(r"^(?P<lead>[^.!?]+?)(?:[.!]+\s+|,?\s+(?=also\b|but\b|anyway\b))", re.IGNORECASE)
_OPENS_QUESTION = re.compile(
    r"^\s*(?:(?:hey|hi|yo|ok|okay|so|and|also|uh|um|like|coach|quick question|quick one|real quick|right|"
    r"wait)\b[\s,]*)*"
    rf"(?:{_QUESTION_START}|tell\s+me\b|explain\b|describe\b)",
    re.IGNORECASE,
)


# How a turn of two questions is recorded ("A?, and B?": `Turn.said`), so it can be read again.
JOINT = ", and "


_WH_IS = re.compile(r"^(?:what'?s|who'?s|how'?s|where'?s)$", re.IGNORECASE)
_TAGGED = re.compile(r"\s(?:right|yeah|correct|innit|yes)\W*$", re.IGNORECASE)
# "If we lose this round is it over": a condition, then the question put after it.
_INVERTED = re.compile(
    r"^\W*(?:(?:so|and|but|ok|okay)\W+)*if\b.*\b(?:is|are|can|should|does|do|will|would|am)\s+"
    r"(?:it|we|i|he|she|they|that|this)\b",
    re.IGNORECASE,
)
_WH_INSIDE = re.compile(r"\b(?:who|whos|who's|what|whats|what's|which|how|why)\b", re.IGNORECASE)


def split_questions(text: str) -> tuple[str, str | None]:
    """ "What does Gale Dive do, and is Galehawk ready for it?" -> the two questions. Both parts
    must be questions: the first opens like one (or ends on "?") and has three words or more, the
    second opens like one. "I evolved Briarcat, is Bramble Crush unlocked?" is one question: the
    statement is what it asks about."""
    lead = _TWO_THINGS.match(text)
    if lead is not None and (len(text[lead.end() :].split()) >= 3 or _ASKS_WH.match(text[lead.end() :])):
        text = text[lead.end() :]
    first_at = _FIRST.search(text)
    second_at = _SECOND.search(text, first_at.end()) if first_at is not None else None
    if first_at is not None and second_at is not None:
        told = text[: first_at.start()]
        first = (told + text[first_at.end() : second_at.start()]).strip(" ,;")
        second = text[second_at.end() :].strip()
        if len(told.split()) >= 3 and not _POINTS_BACK.search(second):
            # "I'm on Renzo and getting nothing done, so first ..., and second if I swap who do I go":
            # what was told before both is what the second asks about too
            second = f"{told}{second}"
        if len(first.split()) >= 2 and len(second.split()) >= 2:
            return first, second
    for match in _SECOND_QUESTION.finditer(text):
        first, second = text[: match.start()].strip(" ,;"), text[match.end() :].strip()
        # "Renzo vs Quillon, who wins, and does the map change that": a question word inside counts.
        asks = (
            _OPENS_QUESTION.match(first) is not None
            or text[: match.end()].rstrip().endswith("?")
            or _WH_INSIDE.search(first) is not None
            or _TAGGED.search(first) is not None  # "the map is the docks right, what does it favour"
            or _INVERTED.search(first) is not None  # "if we lose this round is it over, and also ..."
        )
        words = first.split()
        short = len(words) == 2 and _WH_IS.match(words[0]) is not None  # "what's Sanctuary, and ..."
        if asks and (len(words) >= 3 or short) and len(second.split()) >= 2:
            return first, second
    return text, None


_PAIR = re.compile(r"^\s*(?:or|and)\s*$", re.IGNORECASE)
# A pair asked about together, not one question about each: a team, a comparison, a combination.
_TOGETHER = re.compile(
    r"\b(?:team|teams|together|pair|pairs|combo|synergy|synergize|around|with|vs|versus|"
    r"compare|between|both|either|neither|one of|instead|for|swap|replace|over|into|out|wins?|winner|"
    r"beats?|stronger|weaker|first|focus|target|kill|go\s+after|rate|rating|score|grade)\b",
    re.IGNORECASE,
)
# "Lumifawn and Hexmoth, which does better?" compares ("or": `prior.offered`, a choice).
_CHOOSING = re.compile(r"\b(?:better|best|than|which)\b", re.IGNORECASE)

_EACH = re.compile(r"\s+each\b", re.IGNORECASE)
_DIFFERENCE = re.compile(r"\bwhat(?:'s|s| is)\s+the\s+difference\s+between\b", re.IGNORECASE)
# "Which of Quillon and Brannoc can I play?": whether they have each (a choice would ask "better").
_WHICH_OWNED = re.compile(
    r"^\W*(?:\w+\W+){0,3}which of\b(?!.*\b(?:better|best|than|should)\b)"
    r".*\b(?:own|have|got|unlocked|play|use)\b",
    re.IGNORECASE,
)
_OWNS = re.compile(r"\b(?:own|have|got)\b", re.IGNORECASE)
_LISTED = re.compile(r"^\s*,\s*$")
_ACTING = re.compile(r"\b(?:beat|beats|handle|counter|take|stop|win|fight|deal with|hold|carry|kill)\b", re.I)


def split_pair(pack: Pack, text: str) -> tuple[str, str | None]:
    """ "Renzo or Lorcan on this map?", "what do Elowen and Wendell each bring?" -> the question
    about each: the same words asked twice, once per unit. Not a team, a comparison or a swap
    ("Elowen and Wendell together", "which is better, A or B"): those are one question."""
    if _DIFFERENCE.search(text):
        # "What's the difference between Renzo and Lorcan?": what each one is.
        first, second = split_pair(pack, _DIFFERENCE.sub("what's", text))
        return (first, second) if second is not None else (text, None)
    schema = pack.catalog.schema
    units = [m for m in link_entities(pack, text) if m.kind == schema.kind("unit")]
    groups = {n.lower() for k in schema.kinds_of("group") for n in schema.kinds[k].nouns}  # "comp"
    together = _TOGETHER.search(text) or groups & set(re.findall(r"[a-z]+", text.lower()))
    if len(units) < 2 or len(units) > 3 or (together and not _EACH.search(text)):
        return text, None
    if _OWNS.search(text) and _LISTED.match(text[units[0].span[1] : units[1].span[0]]):
        return text, None  # "which of Elowen, Wendell and Yarrow have I got": one answer names them all
    if offered(pack, text, units) and not _WHICH_OWNED.search(text):
        return text, None  # "should I level Emberfox or Galehawk": one choice, one pick among them
    # The first two names joined by "or" / "and" ("against Briarcat, Emberfox or Galehawk").
    a, b = next(
        ((x, y) for x, y in zip(units, units[1:], strict=False) if _PAIR.match(text[x.span[1] : y.span[0]])),
        (units[0], units[1]),
    )
    joined = text[a.span[1] : b.span[0]]
    option = schema.kind("option")
    if re.search(r"\bor\b", joined, re.IGNORECASE) and any(
        m.kind == option and _ON_FIRST.fullmatch(text[m.span[1] : a.span[0]])
        for m in link_entities(pack, text)
    ):
        return text, None  # "Overcharge the fox or the stag": one move, on one of the two
    compared = _ACTING.search(text) or _CHOOSING.search(text)
    acting = "and" in joined.lower() and compared and not (_EACH.search(text) or _WHICH_OWNED.search(text))
    if not _PAIR.match(joined) or acting:
        return text, None  # "can Emberfox and Oakhorn beat Voltail": the two act together
    about_a = text[: a.span[1]] + text[b.span[1] :]
    about_b = text[: a.span[0]] + text[b.span[0] :]
    return _each_one(about_a), _each_one(about_b)


_ON_FIRST = re.compile(r"\s+(?:(?:on|at)\s+)?(?:the\s+|their\s+|my\s+|your\s+)?", re.IGNORECASE)


# "Oakhorn and Galehawk, what's their level / what level are they": asked of each, "their" is its.
_THEIR_OWN = re.compile(
    r"\btheir(?=\s+(?:current\s+)?(?:levels?|stages?|tiers?|moves?|roles?|power|rarity|gear|kit|forms?)\b)",
    re.IGNORECASE,
)
_ARE_THEY = re.compile(r"\b(?:are|were)\s+they\b", re.IGNORECASE)


def _each_one(question: str) -> str:
    question = _ARE_THEY.sub(lambda m: "is it" if m.group(0)[0].islower() else "Is it", question)
    return _EACH.sub("", _THEIR_OWN.sub("its", question))


# "Who's my best answer to Voltail, and what should it open with?": "it" is the answer.
# "Who do I send at it", "which one should I bring": a pick of the player's asked for.
_ASKS_SEND = re.compile(
    r"\b(?:who|what|which(?:\s+one)?)\s+(?:do|should|can|could|would)\s+(?:i|we)\s+(?:\w+\s+)?"
    r"(?:send|bring|play|use|put|pick|field|lead|run|swap|take)\b",
    re.IGNORECASE,
)
_ASKS_WHO = re.compile(r"^\W*(?:(?:so|ok|okay|and|hey|um|uh|coach)\b\W*)*(?:who|who's|whos|which)\b", re.I)
_WHO_IS = re.compile(
    r"^\W*(?:(?:so|ok|okay|and|hey|um|uh|coach|right|wait)\b\W*)*(?:who'?s|who\s+is|who\s+are|which\s+(?:one\s+)?is|"
    r"which\s+one'?s|which\s+of\s+(?:them|those)\s+is)\s+",
    re.I,
)
# "What's the tank I have that charges", "who was the guy with the turret": a unit asked for by
# what it is or does (English cue words).
_WHAT_IS_ONE = re.compile(
    r"^\W*(?:(?:so|ok|okay|and|hey|um|uh|wait)\b\W*)*(?:what'?s|what\s+is|what\s+was|who\s+was|whats)\s+"
    r"(?:the|their|my)\s+(?:\w+\s+){0,3}?(?:(?:i|we)\s+(?:have|got|own)\s+)?(?:that|who|which|with)\b",
    re.I,
)
_IDIOMATIC_IT = re.compile(r"\b(?:worth|make|made|do|did|get|got|nail|win|lose)\s+it\b", re.IGNORECASE)
_UNRESOLVED = re.compile(r"\b(?:it|he|him|his|she|her|that one|this one)\b", re.IGNORECASE)
# A first question whose answer is a pick ("what's Briarcat weak to", "what beats Voltail"): the
# second's "that" is the pick.
_ASKS_PICK = re.compile(
    r"\bweak\s+(?:to|against)\b|\bwhat\s+(?:beats|counters|stops)\b"
    r"|\bwhat(?:'s|s| is)\s+good\s+(?:against|into)\b"
    # "what's Hexmoth's best skill": its pick
    r"|\b(?:what|which)(?:'s|s| is)?\s+(?:\w+'s\s+|my\s+|his\s+|her\s+|its\s+)?(?:best|strongest|top)\b"
    # "what's the next hero I unlock", "which one do I get next": the one coming
    r"|\bwhat(?:'s|s| is)\s+(?:the\s+|my\s+)?next\b|\b(?:what|which)\b.*\b(?:unlock|get)\s+next\b",
    re.IGNORECASE,
)
_ANSWER_PRONOUN = re.compile(r"\b(?:it|he|him|his|she|her|that one|this one|that|those)\b", re.IGNORECASE)


# --- the step --------------------------------------------------------------------------------------


_ADVERB_AFTER = re.compile(
    r"\b(?:i|we|you|he|she|they|it|do|does|did|is|are|was|should|can|could|would|will|really)\s*$",
    re.IGNORECASE,
)


_VERB_NEXT = re.compile(
    r"\s*(?:(?:do|does)\s+(?:for|to|against|in|on|anything|much|that|here|now|exactly)|work|works|help|helps|"
    r"matter|matters|hit|hits|mean|means|beat|beats|counter|counters|heal|heals|last|lasts)\b",
    re.IGNORECASE,
)


def _retracted(text: str) -> tuple[str, str] | None:
    """(retracted, question) when a correction cue retracts the question before it ("does
    Tidefang know Riptide, sorry, I meant does Galehawk have Gale Dive"; "who beats Voltail,
    actually no, what about Briarcat": the follow-up is read against the retracted one), or None."""
    for cue in _INLINE_CORRECTION.finditer(text):
        rest = text[cue.end() :]
        before = text[: cue.start()]
        unmarked = not re.match(r"\s*[,;.!?\u2014\u2013-]", cue.group(0))
        what_does = re.search(r"\bwhat\s+(?:does|do|did)\b", before, re.IGNORECASE) and re.match(
            r"\s*do\b", rest
        )
        if unmarked and (_ADVERB_AFTER.search(before) or _VERB_NEXT.match(rest) or what_does):
            # "what do I actually do this turn", "what does Overflow actually do for us", "what
            # does his roll thing actually do": an adverb in the question, not a retraction
            continue
        # not "hey, I mean ..."; a question cut short by a dash or comma is one ("which map- sorry, ...")
        cut_short = len(before.split()) >= 2 and re.match(r"\s*[,;\u2014\u2013-]", cue.group(0)) is not None
        asked = _OPENS_QUESTION.match(before) and (len(before.split()) >= 3 or cut_short)
        if (
            asked
            and _CORRECTING.search(cue.group(0))
            and _OPENS_QUESTION.match(rest)
            and len(rest.split()) >= 3
        ):
            return before, rest
    return None


# Chat shorthand typed or spoken for whole words (English; the game's own words come from the pack).
_SHORTHAND_WORDS = {
    "opp": "opponent", "opps": "opponents", "y/n": "yes or no", "thru": "through", "dmg": "damage",
    "ur": "your", "pls": "please", "plz": "please", "w/": "with", "idk": "I don't know",
}  # fmt: skip
_SHORTHAND = re.compile(r"(?<![\w/])(?:opps?|y/n|thru|dmg|ur|plz|pls|idk|w/)(?![\w/])", re.IGNORECASE)
_ON_A_SIDE = re.compile(
    r"\bthe\s+(?P<head>one|guy|girl|lady|dude|man|woman)\s+on\s+(?P<side>their|my|our)\s+(?:side|team)\b",
    re.I,
)
_OTHER_SIDE = re.compile(r"\bthe\s+other\s+(?P<what>side|team|guys)\b", re.IGNORECASE)
_HE_IS = re.compile(
    r"\b(he|she)(?:'s|s)\b(?=\s+(?:\w+ing|a|an|the|so|too|really|just|still|not|level|lvl|"
    r"good|bad|weak|strong|better|worse|ok|okay|fine|unlocked|locked|maxed|ready)\b)",
    re.I,
)


# "Is fire good against water?" - "ok, what is then?": the same question, asked of whatever fits
# (English cue words): the wh-word in the place of what the yes/no question named first.
_WH_ELLIPSIS = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|right|alright|hmm+|then|and)\W+)*(?P<wh>what|who|which(?:\s+one)?)\s+"
    r"(?P<aux>is|does|do|would|can|will|could)(?:\s+(?:then|instead|though|then\s+instead))?\W*$",
    re.IGNORECASE,
)
_YES_NO = re.compile(r"^(?:(?:ok|so|and|but)\s+)?(?P<aux>is|does|do|would|can|will|could)\s+", re.IGNORECASE)


# "My daughter wants to know why ...", "she's asking which ...", "..., he's asking" (English cue words):
# a question relayed for someone else is that question.
_RELAY_LEAD = re.compile(
    r"^\W*(?:(?:hi|hey|uh|um|ok|okay|and|so|haha|lol|oh|no|sorry|wait|actually)\W+)*"
    r"(?:(?:my|our)\s+(?:\w+\s+)?(?:son|daughter|kid|kids|boy|girl|friend|buddy|brother|sister|grandson|granddaughter|"
    r"nephew|niece|wife|husband|partner|mate)|he|she|they)\s+"
    r"(?:wants?\s+to\s+know|wanted\s+to\s+know|is\s+asking|'?s\s+asking|s\s+asking|asks|asked|is\s+wondering|wonders|"
    r"'?s\s+wondering|says|said|means|meant|is\s+saying|'?s\s+saying)\s*,?\s*(?P<embedded>if|whether)?\s*",
    re.IGNORECASE,
)
# "Which one is the coolest he has": the relayer's kid plays on the player's roster (English cues).
_THEY_OWN = re.compile(r"\b(?:he|she|they)\s+(?:has|have|owns?|'?s\s+got|has\s+got|got)\b", re.IGNORECASE)
# "I haven't played in a while, what do I even have": where the player is coming from, then the
# question (English cue words; a clause that names nothing and tells nothing of the match; "I'm
# new" is kept: a new player's question is often about the basics).
# The rest of a clause, up to a question word ("... in like months what creatures do I have").
_UNTIL_ASKED = r"(?:(?!\b(?:what|whats|which|who|how|why|where|when|should|can|do|does|is|are)\b)[^,.?!;])*"
_COMING_FROM = re.compile(
    r"^\W*(?:(?:ok|okay|so|hey|hi|um|uh|alright)\W+)*(?:i\s*(?:'?m|am)\s+(?:kinda\s+|pretty\s+|totally\s+|super\s+)?"
    r"(?:back|returning|rusty)"
    rf"|i\s+(?:have\s*n'?t|haven'?t|havent|didn'?t)\s+play(?:ed)?\b{_UNTIL_ASKED}|i\s+used\s+to\s+play\b{_UNTIL_ASKED}|i\s+(?:just\s+)?(?:started|got\s+back|came\s+back|returned)"
    rf"\b{_UNTIL_ASKED}|(?:it'?s|its)\s+been\s+(?:a\s+while|ages|forever){_UNTIL_ASKED}|i\s+forgot\s+(?:everything|a\s+lot|how){_UNTIL_ASKED})"
    r"\s*(?:[,.!;]|\s+(?:and|so))\s+(?=\S)",
    re.IGNORECASE,
)
_RELAY_TAIL = re.compile(
    r"\s*,?\s*(?:(?:he|she|they)(?:'s|s|\s+is|\s+are|'re)?|my\s+\w+\s+is)\s+(?:asking|wondering)\W*$", re.I
)
_RELAYED_THANKS = re.compile(r"\b(?:he|she|they)\s+says?\s+(?P<thanks>thanks|thank\s+you)\b", re.IGNORECASE)
_EMBEDDED = re.compile(
    r"^(?P<subject>(?:\S+\s+){1,5}?)(?P<aux>can|could|will|would|should|is|are|does|do|has|have)\s+", re.I
)


_CONTRACTED = re.compile(r"(?P<who>it|he|she|that|they|we)\s*'?(?P<verb>s|re)\s+", re.IGNORECASE)


# "My kid wants to put in the hawk, is that ok": what the one relayed for wants to do, asked as the
# player's own "should I" (English cue words).
_RELAY_WANTS = re.compile(
    r"^\W*(?:(?:hi|hey|uh|um|ok|okay|and|so|oh)\W+)*(?:(?:my|our)\s+(?:\w+\s+)?(?:son|daughter|kid|kids|boy|girl|"
    r"friend|buddy|brother|sister)|he|she)\s+(?:wants|wanted|would\s+like)\s+to\s+"
    r"(?=(?:put|play|use|bring|swap|pick|try|level|run|field|send|switch|take)\b)",
    re.IGNORECASE,
)
_IS_THAT_OK = re.compile(
    r"\s*,?\s*(?:is|would)\s+(?:that|it|this)\s+(?:be\s+)?(?:ok|okay|fine|good|alright|a\s+good\s+idea|smart)\W*$",
    re.IGNORECASE,
)


_ASKS_WH = re.compile(r"(?:why|how|what|who|which)\b", re.IGNORECASE)  # "... he wants to know why not"


def _relayed(text: str) -> str:
    """The question a player relays for someone else, as asked: "she wants to know if the turtle can
    hurt our deer guy" -> "can the turtle hurt our deer guy"; "she says thank you" -> "thank you"."""
    if (thanks := _RELAYED_THANKS.search(text)) is not None:
        return text[thanks.start("thanks") :]
    if (wants := _RELAY_WANTS.match(text)) is not None:
        # "my kid wants to put in the hawk, is that ok" -> "should i put in the hawk"
        return "should i " + _IS_THAT_OK.sub("", text[wants.end() :])
    if (coming := _COMING_FROM.match(text)) is not None and len(text[coming.end() :].split()) >= 2:
        text = text[coming.end() :]  # "I'm back after ages, what do I have": the question
    lead = _RELAY_LEAD.match(text)
    if lead is not None and (len(text[lead.end() :].split()) >= 3 or _ASKS_WH.match(text[lead.end() :])):
        rest = text[lead.end() :]
        contracted = _CONTRACTED.match(rest) if lead["embedded"] else None
        embedded = _EMBEDDED.match(rest) if lead["embedded"] and contracted is None else None
        if contracted is not None:  # "if it's stronger than the fox" asks "is it stronger ..."
            aux = "are" if contracted["verb"].lower() == "re" else "is"
            rest = f"{aux} {contracted['who']} {rest[contracted.end() :]}"
        elif embedded is not None:  # "if the turtle can hurt ..." asks "can the turtle hurt ..."
            rest = f"{embedded['aux']} {embedded['subject'].strip()} {rest[embedded.end() :]}"
        return _THEY_OWN.sub("i have", rest)
    return _RELAY_TAIL.sub("", text)


# "What's even the point of fire then" (English cue words): what that type is good for.
_POINT_OF = re.compile(
    r"\bwhat(?:'?s|\s+is)\s+(?:even\s+|actually\s+)?the\s+(?:point|use)\s+of\s+(?:an?\s+)?(?P<what>[a-z]+)"
    r"(?:\s+(?:then|anyway|even|types?))*\W*$",
    re.IGNORECASE,
)


def _point_of_type(pack: Pack, text: str) -> str:
    """ "What's even the point of fire" as "what is fire good against": a type's use is what it beats."""
    said = _POINT_OF.search(text)
    if said is None:
        return text
    kinds = pack.catalog.schema.kinds
    if not any(m.kind in kinds and kinds[m.kind].role == "type" for m in link_entities(pack, said["what"])):
        return text
    return f"{text[: said.start()]}what is {said['what']} good against"


def _wh_ellipsis(pack: Pack, text: str, history: Sequence[Exchange]) -> str | None:
    """ "What is then?" after "is fire good against water?": "what is good against water"."""
    asked = _WH_ELLIPSIS.match(text.strip())
    if asked is None or not history:
        return None
    last = history[-1].utterance
    yes_no = _YES_NO.match(last)
    if yes_no is None:
        return None
    rest = last[yes_no.end() :]
    named = link_entities(pack, rest)
    if not named or not re.fullmatch(
        r"(?:(?:my|their|the|a|your)\s+)?", rest[: named[0].span[0]], re.IGNORECASE
    ):
        return None
    return f"{asked['wh']} {yes_no['aux']} {rest[named[0].span[1] :].strip()}"


# "So like half damage?", "three more levels?" (English cue words): a bit of the last answer said
# back to check it.
_SAID_BACK = re.compile(
    r"^(?:(?:so|oh|wait|hmm|ok|okay|ah)\W+)*(?:like\s+|basically\s+|you\s+mean\s+|that\s+means\s+)?"
    r"(?P<phrase>[a-z0-9' ]+?)\s*(?:,?\s*(?:right|then|yeah))?\s*\?+\s*$",
    re.IGNORECASE,
)


def _said_back(text: str, history: Sequence[Exchange]) -> str | None:
    """ "Three more levels?" after "... so 3 more levels to go": the last question again (its answer
    is what the player checks), when every word of the phrase is in the last answer's lead."""
    said = _SAID_BACK.match(text.strip())
    if said is None or not history or not history[-1].reply:
        return None
    words = [_NUMBER_WORDS.get(w, w) for w in said["phrase"].lower().split()]
    if not 2 <= len(words) <= 5 or _ASKED_START.match(said["phrase"].lower()):
        return None  # ("is it good?": a question of its own, whatever words the answer had)
    # (in the answer's lead, which asked again it says again: later lines heard are left out)
    answer = set(re.findall(r"[a-z0-9']+", _first_sentence(history[-1].reply).lower()))
    return history[-1].utterance if all(w in answer for w in words) else None


_NUMBER_WORDS = {
    w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine ten".split())
}


# "By who?", "who's doing it" after a trouble with one of the player's own (English cue words).
_BY_WHOM = re.compile(
    r"^(?:\W*(?:and|but|ok|okay|so|wait|hmm|like)\W+)*(?:by\s+(?:who|whom|what|which\s+one)|who\s+by|"
    r"who(?:'s|s|\s+is)\s+doing\s+(?:it|that|this)|which\s+one\s+of\s+theirs)\W*$",
    re.IGNORECASE,
)


# "To who?", "for who", "who instead" after a change asked about (English cue words).
_TO_WHOM = re.compile(
    r"^(?:\W*(?:and|but|ok|okay|so|wait|hmm|like)\W+)*(?:(?:to|for|with|into)\s+(?:who|whom|which\s+one|what)|"
    r"who\s+(?:to|for|instead|then))\W*$",
    re.IGNORECASE,
)


def _by_whom(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> str | None:
    """ "My moth keeps getting wrecked" - "by who": which of theirs threatens that one of the player's.
    "Should I switch off Renzo" - "to who": the change asked again (its answer names the one in)."""
    if history and _TO_WHOM.match(text.strip()) and _SWAP_ASKED.search(history[-1].utterance):
        return history[-1].utterance
    if not history or _BY_WHOM.match(text.strip()) is None:
        return None
    mine = [u for u in _units(pack, history[-1].utterance) if sides.side_of(u) == "mine"]
    if len(set(mine)) != 1:
        return None
    name = display(pack, pack.catalog.schema.kind("unit") or "", mine[0])
    return f"which of theirs is the biggest threat to my {name}"


_UNITS_SAID = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split()
)
_TENS_SAID = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
_LEVEL_SAID = re.compile(
    rf"\b(?P<word>level|lvl|lv|rank|stage)\s+(?:(?P<tens>{'|'.join(_TENS_SAID)})(?:[\s-]+(?P<unit>{'|'.join(_UNITS_SAID[1:10])}))?"
    rf"|(?P<small>{'|'.join(_UNITS_SAID)}))\b",
    re.IGNORECASE,
)


# A slip put right mid-sentence (English cue words): "the shotgun guy, no, the drum gun guy"; "the
# rocket guy, actually no I meant the laser guy"; "would Elowen, no wait she's in it, I meant would
# Wendell". The cue, then what is said instead, opening with the word the slip opened with.
_SLIP_CUE = re.compile(
    r"(?:\s*[,;]\s*(?:-+\s*)?(?:(?:no+|nope|sorry|actually|wait|i mean|i meant|or rather)\b[\s,.!;:-]*)+"
    r"|\s+(?:sorry|actually\s+no+|no+\s+wait|i meant)\b[\s,.!;:-]*)",
    re.IGNORECASE,
)
_SLIP_ASIDE = re.compile(r"^(?:[\w']+\s+){0,7}?[\w']+\s*[,;.]\s*(?:i mean|i meant)\b[\s,]*", re.IGNORECASE)
_SLIP_NOT = re.compile(
    r"^not\s+(?:the|that|my|their|our|his|her)\s+(?:[\w']+\s+){0,3}?[\w']+\s*[,;]\s*", re.I
)
_SLIP_OPENERS = {"the": 6, "my": 6, "their": 6, "our": 6, "his": 6, "her": 6, "that": 6, "on": 7,
                 "for": 7, "with": 7, "would": 10, "should": 10, "could": 10, "can": 10, "does": 10,
                 "is": 10}  # fmt: skip
_SLIP_QUESTION_WORDS = {"would", "should", "could", "can", "does", "is"}
# What a question says of the unit it names: the words a slip's fix leaves standing.
_SAID_OF = {"good", "bad", "better", "worse", "strong", "stronger", "weak", "weaker", "any", "ready", "worth",
            "viable", "ok", "okay", "fine", "still", "here", "now", "against", "vs", "into", "beat", "beats",
            "counter", "counters", "do", "does", "have", "has", "know", "knows", "learn", "use", "can", "is",
            "are", "win", "handle", "need", "needs"}  # fmt: skip
# "..., the drum gun guy sorry": the slip's fix said after the question, with the same head word.
_FIX_AFTER = re.compile(
    r"^(?P<q>.+?)\s*,\s*(?P<fix>(?P<det>the|my|their|our)\s+(?:[\w']+\s+){0,4}?(?P<head>[\w']+))"
    r"\s*,?\s+(?:sorry|my bad|i mean)\W*$",
    re.IGNORECASE,
)


def _slips_put_right(text: str) -> str:
    """`text` with a slip the player put right in the same breath taken out: the words from the
    slip's opening word (a determiner, a preposition or the question's verb said again after the
    cue) up to the cue go, the fix stays. Unchanged when nothing after a cue opens as a word before it
    did, so a "no" that is an answer or a quantity ("no healers though") is left alone."""
    for _ in range(3):  # a slip corrected twice
        fixed = _slip_once(text)
        if fixed == text:
            break
        text = fixed
    if (after := _FIX_AFTER.match(text)) is not None:
        det, head = after["det"].lower(), after["head"].lower()
        slip = re.compile(rf"\b{det}\s+(?:[\w']+\s+){{0,4}}?{re.escape(head)}\b", re.IGNORECASE)
        found = list(slip.finditer(after["q"]))
        if found and found[-1].group(0).lower() != after["fix"].lower():
            q, last = after["q"], found[-1]
            text = f"{q[: last.start()]}{after['fix']}{q[last.end() :]}"
    return text


def _slip_once(text: str) -> str:
    for cue in _SLIP_CUE.finditer(text):
        before, rest = text[: cue.start()], text[cue.end() :]
        if not before.strip() or re.search(r"[?.!]\s*$", before):
            continue
        rest = _SLIP_NOT.sub("", rest, count=1)  # "no not the little chick, the hawk one"
        if (aside := _SLIP_ASIDE.match(rest)) is not None:
            rest = rest[aside.end() :]  # "no wait she's already in it, I meant ..."
        said = [w[0].lower() for w in re.finditer(r"[\w']+", rest)]
        words = list(re.finditer(r"[\w']+", before))
        # the latest word before the cue that the fix's first or second word repeats ("can my fox
        # beat it, no, can my hawk": "my", so the question around the slip stays)
        starts = [
            (i, k) for k, word in enumerate(said[:2]) if word in _SLIP_OPENERS
            for i, w in enumerate(words) if i >= len(words) - _SLIP_OPENERS[word] and w[0].lower() == word
        ]  # fmt: skip
        if starts:
            i, k = max(starts)
            if i == 0 and said[k] in _SLIP_QUESTION_WORDS:
                continue  # the whole question retracted: `_retracted` reads the new one against it
            fix = re.sub(r"^[\w']+\W+", "", rest, count=1) if k else rest  # from the word repeated
            slip = [w[0].lower() for w in words[i:]]
            fix_words = len(re.findall(r"[\w']+", fix))
            tail = ""
            if fix_words <= 4 and not re.search(r"[,;]", fix) and len(slip) > fix_words:
                # "is the turtle good, no the cat": the fix takes the slip's words, not what it said of them
                j = next((j for j in range(fix_words, len(slip)) if slip[j] in _SAID_OF), None)
                tail = before[words[i + j].start() :] if j is not None else ""
            fixed = f"{before[: words[i].start()]}{fix.rstrip(' ?.!')}{' ' + tail if tail else ''}"
            fixed = fixed + rest[len(rest.rstrip(" ?.!")) :] if not tail else fixed
            fixed = re.sub(r"\s*,\s*that one\s*(?=,)", "", fixed, count=1, flags=re.IGNORECASE)
            return re.sub(r"[\s,]+(?:sorry|my bad)\W*$", "", fixed, flags=re.IGNORECASE)
    return text


def _types_as_they(pack: Pack, text: str) -> str:
    """ "light types, what are they good against": "they" after a type said in the plural is
    that type ("what are light types good against"), not the opponent."""
    types = set(pack.catalog.schema.kinds_of("type"))
    for m in link_entities(pack, text):
        if m.kind not in types:
            continue
        plural = re.compile(r"\s+(?:types|ones|moves|attacks|kinds)\b", re.IGNORECASE)
        said = plural.match(text, m.span[1])
        if said is None:
            continue
        name = text[m.span[0] : said.end()]
        rest = re.sub(r"\b(?:they|them)\b", name, text[said.end() :], flags=re.IGNORECASE)
        return text[: said.end()] + rest
    return text


def _level_in_digits(text: str) -> str:
    """ "What do I unlock at level eleven": the transcript's number words after a level as digits,
    as the game's data and the rest of the coach write them ("level 11")."""

    def digits(m: re.Match[str]) -> str:
        if m["small"]:
            value = _UNITS_SAID.index(m["small"].lower())
        else:
            value = _TENS_SAID[m["tens"].lower()] + (_UNITS_SAID.index(m["unit"].lower()) if m["unit"] else 0)
        return f"{m['word']} {value}"

    return _LEVEL_SAID.sub(digits, text)


# "I just unlocked Rockram, is it any good", "finally got Rockram - worth levelling?": news told
# before the question (English cue words).
_NEWS = re.compile(
    r"^\W*(?:(?:so|ok|okay|yo|hey|well|alright|coach)\W+)*(?:i\s+)?(?:just\s+|finally\s+)?"
    r"(?:got|get|unlocked|pulled|bought|caught|evolved|levell?ed\s+up)\s+",
    re.IGNORECASE,
)
_NEWS_END = re.compile(
    r"^(?:\s+(?:finally|just\s+now|today|now))?(?:\s*[,.;!-]+\s*|\s+(?:and|so)\s+|\s+(?=(?:is|are|should|"
    r"do|does|can|was|worth|how|what|who)\b))",
    re.IGNORECASE,
)
_ABOUT_IT = re.compile(r"\b(?:it|he|she|him|her|they|them)\b", re.IGNORECASE)


def _told_news(pack: Pack, text: str) -> str | None:
    """The question after news the player tells of one unit, with its pronoun the unit ("I just
    unlocked Rockram, is it any good" -> "is Rockram any good"); None when the text is no such."""
    opening = _NEWS.match(text)
    if opening is None:
        return None
    units = _units(pack, text)
    if len(units) != 1:
        return None
    named = next(m for m in link_entities(pack, text) if m.id == units[0])
    end = _NEWS_END.match(text[named.span[1] :])
    if named.span[0] != opening.end() or end is None:
        return None
    question = text[named.span[1] + end.end() :].strip()
    if not question or not (YES_NO.match(question) or question.lower().startswith("worth")):
        return None  # "I just got Vinecoil, build a team around it": the sentence reads whole
    name = text[named.span[0] : named.span[1]]
    said, n = _ABOUT_IT.subn(name, question, count=1)
    if n:
        return said
    # "worth levelling?": of it; any other question names its own subject or none ("what now")
    return f"{question.rstrip(' ?.!')} {name}?" if question.lower().startswith("worth") else None


# "How do I deal with Null Grenade", "anything I can do about their Coral Guard" (English cue words).
_DEAL_WITH = re.compile(
    r"\b(?:deal\s+with|do\s+about|stop|counter|play\s+around|get\s+(?:past|around)|handle|dodge|survive|"
    r"beat|shut\s+down)\s+(?:their\s+|the\s+|that\s+)?$",
    re.IGNORECASE,
)


# "... keeps lighting us up", "is wrecking my healer": trouble told of it (English cue words).
_TROUBLE_AFTER = re.compile(
    r"^\s+(?:(?:is|are|keeps?|kept|just|always|literally)\s+)+\w+\s+(?:\w+\s+)?(?:us|me|my|our|everyone)\b",
    re.IGNORECASE,
)


def _answer_to_their_option(pack: Pack, sides: Sides, text: str) -> str:
    """ "How do I deal with Null Grenade" -> "how do I deal with their Nadira": an option only the
    opponent's side has, to be dealt with, is dealt with by answering the unit that has it."""
    schema = pack.catalog.schema
    option, field = schema.kind("option"), schema.options_field()
    linked, unit = link_entities(pack, text), schema.kind("unit") or ""
    options = [m for m in linked if m.kind == option]
    if option is None or field is None or len(options) != 1:
        return text
    m = options[0]
    holders = [
        u
        for u in sides.theirs
        if m.id in ((e.value(field) or []) if (e := pack.catalog.get(unit, u)) else [])
    ]
    if (
        len(holders) != 1
        or holders[0] in sides.fielded
        or any(o.id not in (m.id, holders[0]) for o in linked)
    ):
        return text
    # ("Quillon's Grapple Line": the unit named with it is the one answered)
    start = next((o.span[0] for o in linked if o.id == holders[0] and o.span[1] <= m.span[0]), m.span[0])
    if _DEAL_WITH.search(text[:start]) is None and _TROUBLE_AFTER.match(text[m.span[1] :]) is None:
        return text
    before = re.sub(r"(?:their|the|that)\s+$", "", text[:start], flags=re.IGNORECASE)
    return f"{before}their {display(pack, unit, holders[0])}{text[m.span[1] :]}"


# Said in other words, of one unit X (English cue words): whether to stay on it is whether it is
# good here; whether it threatens the player's side is whether it is dangerous.
_PLAINLY = (
    (
        # a returning player's "what happened to X", "is X still in the game": what X is now
        r"\b(?:what\s+(?:happened|happend)\s+to\s+(?:my\s+|the\s+)?X|where(?:'?d|\s+did)\s+(?:my\s+|the\s+)?X\s+go"
        r"|is\s+(?:my\s+|the\s+)?X\s+still\s+"
        r"(?:in\s+the\s+game|a\s+thing|around|there))\b.*$",
        "tell me about X",
    ),
    (
        r"^\W*(?:(?:so|ok|okay|and|but|hmm|like)\W+)*(?:should|do)\s+i\s+(?:even\s+|still\s+|really\s+)?"
        r"(?:be\s+on|stay\s+on|keep\s+(?:playing|using|running)|stick\s+with)\s+(?:my\s+)?X"
        r"(?:\s+(?:here|now|this\s+round|on\s+this\s+map))?\W*$",
        "is X good here",
    ),
    (
        r"\b(?:is\s+it|it'?s)\s+(?:even\s+|still\s+|really\s+)?worth\s+(?:playing|using|bringing|running|picking|"
        r"fielding)\s+(?:my\s+)?X(?:\s+(?:here|now|this\s+round|on\s+this\s+map))?\W*$",
        "is X good here",
    ),
    (
        # "is voltail busted or what", "hexmoth op?": how strong, said as the verdict here (of theirs:
        # how dangerous, below)
        r"^\W*(?:(?:so|ok|okay|and|but|yo|bro|ngl|like)\W+)*(?:is\s+)?(?:their\s+|my\s+|the\s+)?X\s+"
        r"(?:so\s+|even\s+|really\s+|kinda\s+|lowkey\s+)?(?:busted|op|broken|cracked|overpowered|overtuned|goated)"
        r"(?:\s+(?:or\s+what|or\s+nah|or\s+not|rn|right\s+now|here|now))?\W*$",
        "is X good here",
    ),
    (
        r"\bis\s+(?:their\s+)?X\s+(?:a\s+|much\s+of\s+a\s+|a\s+big\s+)?(?:threat|danger|problem)\s+(?:to|for)\s+"
        r"(?:my|our|me|us)\b.*$",
        "is X dangerous",
    ),
    (
        r"\bwho\s+(?:does|will|would|can)\s+(?:their\s+)?X\s+(?:hit|hurt|beat|wreck|kill)\s+(?:the\s+)?"
        r"(?:hardest|most|worst)\b.*$",
        "is X dangerous",
    ),
)


_WHY_THAT = re.compile(
    r"^\W*(?:(?:wait|but|so|ok|okay|hmm|huh|uh|and)\W+)*(?:why|how\s+come)\s+(?P<name>[\w' ]+?)"
    r"(?:\s+(?:and|but)\s+not\s+[\w' ]+|\s+over\s+[\w' ]+|\s+instead\s+of\s+[\w' ]+)?(?:\W+.*)?$",
    re.IGNORECASE,
)


# "Fox hits what", "lorcan good vs who": the question word said last (English cue words).
_WHAT_BEATS_WHAT = re.compile(
    r"\b(?:what|who|whats|what'?s|who'?s|whos)\s+(?:is\s+|s\s+)?(?:beats?|counters?|(?:strong|good|weak)\s+"
    r"(?:against|vs|to|into))\s+(?:what|who|which|whom)\b",
    re.IGNORECASE,
)
_WH_LAST = re.compile(
    r"^\W*(?:(?:so|ok|okay|and|then|k)\W+)*(?!(?:what|who|which|whats|whos|how)\b)"
    r"(?P<subject>(?:my\s+|the\s+|our\s+)?[\w']+(?:\s+[\w']+)?)\s+"
    r"(?:hits|hit|beats|beat|counters|counter|is\s+good|good|strong|great)\s*(?:vs|against|into)?\s+"
    r"(?:what|who|which(?:\s+ones?)?)\W*$",
    re.IGNORECASE,
)
# A question said as its noun alone ("opener?", "win con", "round two. target") (English cue words).
_BARE_NOUNS = {
    "what should i open with": r"opener|opening|open|lead|first\s+move",
    "how do we win this": r"win\s*con(?:dition)?|wincon|how\s+to\s+win",
    "who should i focus first": r"targets?|focus|kill\s+order|priority|first\s+target",
}
_BARE_NOUN = re.compile(
    r"^(?P<lead>(?:[^.!?]*[.!?]\s+)?)\W*(?:(?:so|ok|okay|and|then|uh|um)\W+)*(?:(?:whats|what's|what\s+is)\s+)?"
    r"(?:the\s+|my\s+|our\s+)?(?P<noun>" + "|".join(f"(?:{n})" for n in _BARE_NOUNS.values()) + r")"
    r"(?:\s+(?:then|now|here|this\s+round|pls|please))*\W*$",
    re.IGNORECASE,
)


def _bare_noun_asked(text: str) -> str:
    """ "round two. opener" -> "round two. what should i open with": the question its noun stands
    for, when nothing else is said with it."""
    said = _BARE_NOUN.match(text)
    if said is None:
        return text
    asked = next(q for q, n in _BARE_NOUNS.items() if re.fullmatch(n, said["noun"], re.IGNORECASE))
    return f"{said['lead']}{asked}"


# "Who out", "and who off": which one of the team makes room (English cue words).
_WHO_OUT = re.compile(
    r"^\W*(?:(?:and|so|ok|okay|then)\W+)*(?:who|whos|who'?s|which\s+one)\s+(?:out|off)\W*$", re.IGNORECASE
)
# "Fine. Brannoc", "ok Tamsin it is": the pick the last answer put forward, taken (English cue words).
_TAKEN = re.compile(
    r"^\W*(?:(?:fine|ok|okay|alright|sure|k|yeah|yep|right|cool|meh|ugh)\W+)+(?:then\s+)?(?P<rest>[\w' ]+?)"
    r"(?:\s+(?:it\s+is|then|i\s+guess))*\W*$",
    re.IGNORECASE,
)


def _took_the_pick(pack: Pack, text: str, history: Sequence[Exchange]) -> str:
    """ "Fine. Brannoc" after "Against Quillon, play Brannoc": "ok going with Brannoc" (the pick
    taken), not the last question asked again of Brannoc. Unchanged otherwise."""
    taken = _TAKEN.match(text)
    if taken is None or not history:
        return text
    named = link_entities(pack, taken["rest"])
    if (
        len(named) != 1
        or not _short(pack, taken["rest"])
        or named[0].id not in _put_forward(pack, history[-1])
    ):
        return text
    return f"ok going with {named[0].surface}"


# "Don't wanna play tank" after a pick: another pick, not of that kind (English cue words).
_DONT_PLAY_KIND = re.compile(
    r"^\W*(?:(?:nah|no|ugh|eh|hmm+|but|ok|okay|i\s+mean)\W+)*(?:i\s+)?(?:don'?t|dont|do\s+not)\s+(?:really\s+)?"
    r"(?:want\s+to|wanna|like\s+(?:to\s+)?|feel\s+like)\s+(?:play(?:ing)?|run(?:ning)?|be(?:ing)?|use|bring|field|go)\s+(?:an?\s+)?"
    r"(?P<kind>[a-z]+)(?:\s+(?:tho|though|rn|now|today|lol))*\W*$",
    re.IGNORECASE,
)


def _why_the_pick(pack: Pack, text: str, history: Sequence[Exchange]) -> str:
    """ "Why Nadira and not Quillon", "wait why nadira, quillon is one tapping us" after "Go after
    Nadira first: ...": why the last answer's pick, said as "why Nadira" (its reason again), not a
    question about Nadira's role."""
    found = _WHY_THAT.match(text)
    if found is None or not history:
        return text
    named = _units(pack, found["name"])
    if len(named) != 1 or named[0] not in _units(pack, history[-1].reply):
        return text
    rest = text[found.end("name") :]
    return text if not rest.strip(" ?.!") else f"why {found['name']}"


# "Why not Renzo", "nah I think the fox is better", "I'd rather run Lorcan" after a pick: the player's
# own alternative weighed against it (English cue words; X is the one they'd rather have).
_RATHER = re.compile(
    r"^\W*(?:(?:nah|no|but|eh|hmm+|ok|okay|so|and|wait|ngl|honestly|idk)\W+)*(?:"
    r"(?:why|how\s+come)\s+not\s+(?:just\s+)?(?:use\s+|bring\s+|play\s+|run\s+|my\s+|the\s+)?X"
    r"|(?:(?:i\s+(?:think|feel\s+like|reckon|bet)|i'?d\s+say|pretty\s+sure|surely|imo)\s+)?(?:my\s+|the\s+)?X\s+"
    r"(?:is|'s|would\s+be|seems|looks|feels)\s+(?:way\s+|so\s+much\s+|much\s+|a\s+lot\s+)?(?:better|stronger)"
    r"|i'?d\s+(?:rather|prefer\s+to)\s+(?:use|bring|play|run|go\s+with|have|send)\s+(?:my\s+|the\s+)?X"
    r")(?:\s+(?:there|here|though|tho|tbh|honestly|imo|for\s+that|for\s+this|instead|on\s+this\s+map|"
    r"against\s+[\w']+))*\W*$",
    re.IGNORECASE,
)


def _rather_than_the_pick(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> str:
    """ "Why not Emberfox" / "nah I think the fox is better" after "Against Voltail, go with
    Granitusk: ...": "is Emberfox better than Granitusk against Voltail", the player's alternative
    weighed against the pick (not the last question again, nor a new one about the alternative)."""
    if not history:
        return text
    named_now = _units(pack, text)
    units = [u for u in named_now if sides.side_of(u) != "theirs"]
    if len(units) != 1 or len(named_now) > 2:
        return text
    name = display(pack, pack.catalog.schema.kind("unit") or "", units[0])
    said = re.sub(r"\b(?:my|the)\s+" + re.escape(name), name, text, flags=re.IGNORECASE)
    found = None
    for m in link_entities(pack, said):
        if m.id == units[0]:
            found = _RATHER.match(said[: m.span[0]] + "X" + said[m.span[1] :])
            break
    if found is None:
        return text
    answer = _first_sentence(history[-1].reply)
    named = [u for u in _units(pack, answer) if u != units[0]]
    # (a hero both sides have: the one the answer put forward is the player's)
    mine = [u for u in named if u in sides.fielded or u in sides.owned]
    pick = next((u for u in mine if not taken_out(pack, answer, u)), None)
    foe = next((u for u in named_now if u != units[0]), None) or next(
        (u for u in named if u in sides.theirs and u != pick), None
    )
    if pick is None:
        return text
    unit_kind = pack.catalog.schema.kind("unit") or ""
    against = f"against {display(pack, unit_kind, foe)}" if foe is not None else "here"
    return f"is {name} better than {display(pack, unit_kind, pick)} {against}"


# "Can I evolve him to the third one yet": the stage said by its number (English cue words).
_STAGE_WORDS = {"second": "2", "2nd": "2", "third": "3", "3rd": "3"}
_STAGE_SAID = re.compile(
    r"(?P<verb>\bevolv\w*\s+(?:\w+\s+){0,2}?(?:to|into)\s+)(?:the\s+|its\s+|his\s+|her\s+)?(?P<which>second|2nd|third|3rd)"
    r"\s+(?:one|form|stage|evolution)\b",
    re.IGNORECASE,
)
# "Is it worth levelling the moth or should I focus the fox": which of two to grow, said plainly
# (English cue words).
_GROW = (
    r"(?:level(?:l?ing)?|train(?:ing)?|invest(?:ing)?\s+in|evolv(?:e|ing)|upgrad(?:e|ing)|grind(?:ing)?|"
    r"focus(?:ing)?(?:\s+on)?)"
)
_WHICH_TO_GROW = re.compile(
    rf"^\W*(?:(?:so|ok|okay|and|but|hmm+|uh+|um+)\W+)*(?:is\s+it|would\s+it\s+be|its)\s+(?:even\s+)?worth\s+{_GROW}\s+"
    rf"(?P<a>(?:\w+\s+){{0,2}}?\w+)\s+or\s+(?:should\s+(?:i|we)\s+(?:just\s+)?{_GROW}\s+|(?:just\s+)?{_GROW}\s+)?"
    r"(?P<b>(?:\w+\s+){0,2}?\w+)\W*$",
    re.IGNORECASE,
)
_KEEP_ALL = re.compile(
    r"^\W*(?:(?:so|ok|okay|and|but)\W+)*(?:what\s+if|and\s+if|if)\s+(?:i|we)\s+(?:don'?t|do\s+not)\s+"
    r"(?:swap|change|switch|sub)(?:\s+(?:anything|anyone|anybody|at\s+all|out))*\W*$",
    re.IGNORECASE,
)


# "Bran for Duke or for Ren", "one swap: for Renzo, not Duke": which one a unit goes in for, said
# tersely (English cue words).
_OPENS_PLAINLY = re.compile(r"^\W*(?:(?:so|ok|okay|and|then|hmm+|uh+|um+|one\s+swap|swap|sub)\W+)*$", re.I)
_IN_FOR = re.compile(r"^\s+(?:in\s+)?(?:for|instead\s+of)\s+$", re.IGNORECASE)
_OR_FOR = re.compile(r"^\s+or\s+(?:for\s+|instead\s+of\s+)?$", re.IGNORECASE)
_SWAP_FOR = re.compile(
    r"^\W*(?:(?:so|ok|okay|then)\W+)*(?:one\s+|a\s+)?(?:swap|sub|change)\W+(?:for|on)\s+$", re.IGNORECASE
)
_NOT_THIS = re.compile(r"^\W+not\s+(?:for\s+)?$", re.IGNORECASE)


# "k and ember just farms the briar cat then", "the tree guy should go smack the turtle": one unit
# said to beat another, in gamer words (English cue words).
_BEATS_SAID = re.compile(
    r"^\s+(?:(?:just|should|can|could|will|would|gonna|go|to|and|easily|totally|basically|probably|then)\s+)*"
    r"(?:farms?|eats?|wrecks?|smacks?|stomps?|destroys?|deletes?|beats?|handles?|clears?|kills?|shreds?|melts?|"
    r"bull(?:y|ies)|outtrades?|hard\s+counters?|counters?|takes?\s+out|dumps?\s+on|clowns?|farm|eat|smack|"
    r"wreck|stomp|destroy|beat|handle|kill|shred|melt|hit|hits)\s+(?:the\s+|their\s+|that\s+|this\s+)?$",
    re.IGNORECASE,
)
_NOTHING_AFTER = re.compile(
    r"\W*(?:(?:then|right|too|easily|no\s+problem|yeah|yes|ya|lol|huh|or\s+not)\W*)*", re.I
)
_ASKS_OTHER = re.compile(r"\b(?:what|who|which|why|how|when|where|or)\b", re.IGNORECASE)


# "Turtle keeps shielding", "their healer is always healing them" (English cue words).
_KEEPS_DOING = re.compile(
    r"^\s+(?:just\s+)?(?:keeps|keep|kept|is\s+always|always|won'?t\s+stop|wont\s+stop)\s+\w+(?:ing|s)\b", re.I
)


def _beats_said(sides: Sides, text: str, units: Sequence[Mention]) -> str | None:
    """ "k and Emberfox just farms Briarcat then" -> "can Emberfox beat their Briarcat": one of the
    player's said to beat one of theirs, asked as whether it does. None otherwise."""
    mine, foe = units
    if sides.side_of(mine.id) != "mine" or not sides.on("theirs", foe.id) or _ASKS_OTHER.search(text):
        return None
    if not _BEATS_SAID.match(text[mine.span[1] : foe.span[0]]) or not _NOTHING_AFTER.fullmatch(
        text[foe.span[1] :]
    ):
        return None  # ("does Oakhorn hit Shellbastion through the coral thing": more asked than that)
    return f"can {mine.surface} beat their {foe.surface}"


def _which_replaced(text: str, units: Sequence[Mention]) -> str | None:
    """ "Bran for Duke or for Ren" -> "should Bran replace Duke or Ren"; "one swap. for Renzo not
    Duke" -> "who should replace Renzo"; None when `text` is no such shorthand."""
    a, b = units[0], units[1]
    before, between = text[: a.span[0]], text[a.span[1] : b.span[0]]
    if len(units) >= 3 and _OPENS_PLAINLY.match(before) and _IN_FOR.match(between):
        c = units[2]
        if _OR_FOR.match(text[b.span[1] : c.span[0]]):
            return f"should {a.surface} replace {b.surface} or {c.surface}{text[c.span[1] :]}"
    if _SWAP_FOR.match(before) and (len(units) == 2 and _NOT_THIS.match(between)):
        return f"who should replace {a.surface}{text[b.span[1] :]}"
    return None


def _asked_plainly(pack: Pack, text: str, sides: Sides | None = None) -> str:
    """ "so should I even be on Dumaka" -> "is Dumaka good here", "is Voltail a threat to my
    team" -> "is Voltail dangerous": a unit's question said in other words, said as the pair
    that answers it (staying on it is a verdict on it here, not a progression question)."""
    text = _STAGE_SAID.sub(lambda m: f"{m['verb']}stage {_STAGE_WORDS[m['which'].lower()]}", text)
    if (grow := _WHICH_TO_GROW.match(text)) is not None:
        return f"should i level {grow['a']} or {grow['b']}"
    if _KEEP_ALL.match(text):
        return "what if i keep the same team"  # "what if I don't swap at all": the team as it is
    units = [m for m in link_entities(pack, text) if m.kind == pack.catalog.schema.kind("unit")]
    if len(units) >= 2 and (replaces := _which_replaced(text, units)) is not None:
        return replaces
    if len(units) == 2 and sides is not None and (beats := _beats_said(sides, text, units)) is not None:
        return beats
    if len({m.id for m in units}) != 1:  # ("where'd my Emberkit go, it says Emberfox now": one unit)
        return text
    name = units[0].surface
    for pattern, plain in _PLAINLY:
        found = re.search(pattern.replace("X", re.escape(name)), text, re.IGNORECASE)
        if found is not None:
            if plain == "is X good here" and sides is not None and sides.side_of(units[0].id) == "theirs":
                plain = "is X dangerous"  # how good one of theirs is: how much of a threat
            if plain == "tell me about X":
                return plain.replace("X", name)  # ("I remember a healer called Galen, is he still around")
            return text[: found.start()] + plain.replace("X", name)
    return text


_VS = re.compile(r"^\s+(?:vs\.?|versus)\s+$", re.IGNORECASE)


def _weighed_three(pack: Pack, text: str) -> str:
    """ "Dumaka vs Brannoc vs Osmund for tank" -> "Dumaka, Brannoc or Osmund for tank": three or
    more weighed against each other is a choice among them (no fight has three sides)."""
    units = [m for m in link_entities(pack, text) if m.kind == pack.catalog.schema.kind("unit")]
    for i in range(len(units) - 2):
        run = units[i : i + 3]
        if all(_VS.match(text[a.span[1] : b.span[0]]) for a, b in zip(run, run[1:], strict=False)):
            a, b, c = run
            return f"{text[: a.span[1]]}, {b.surface} or {text[c.span[0] :]}"
    return text


def read_turn(pack: Pack, state: LiveState | None, text: str, history: Sequence[Exchange] = ()) -> Reading:
    """`text` as the question it stands for in the dialogue `history` (oldest first, heard turns
    only) and the live `state`; two questions in it are read one after the other (the second's
    "it" is the first's). Unchanged when nothing in it refers back, describes or asks twice."""
    text = _HE_IS.sub(lambda m: f"{m[1]} is", text)  # "hes level 2": the transcript's "he's", a verb
    text = _SHORTHAND.sub(lambda m: _SHORTHAND_WORDS[m[0].lower()], text)  # "opp comp??", "y/n"
    text = _OTHER_SIDE.sub(r"their \g<what>", text)  # "what's the other side got": theirs
    text = _ON_A_SIDE.sub(r"\g<side> \g<head>", text)  # "the one on their side with the rifle": theirs
    text = _level_in_digits(_slips_put_right(text))
    if (term := asked_term(pack, text)) is not None and term.kind == "catalog":
        return Reading(text)  # "list the comps": the game's whole list, nothing to describe or refer to
    if context_attribute_asked(pack, text) is not None and not _units(pack, text):
        return Reading(text)  # "is it control or escort": the map in play, not a unit the dialogue named
    text = _weighed_three(pack, text)
    text = _asked_plainly(pack, text, Sides(pack, state) if state is not None else None)
    text = _why_the_pick(pack, text, history)
    text = _WHO_OUT.sub("who comes out", text)
    if _WHAT_BEATS_WHAT.search(text) and not _units(pack, text):
        # "how do I even know what's strong against what": the chart of matchups, not one unit's
        has_types = any(k.role == "type" for k in pack.catalog.schema.kinds.values())
        text = "how does the type chart work" if has_types else "how do counters work"
    text = _WH_LAST.sub(lambda m: f"what is {m['subject']} good against", text)  # "fox hits what"
    text = _bare_noun_asked(text)  # "opener?", "win con"
    if (taken := _took_the_pick(pack, text, history)) != text:
        return Reading(taken, ("the last pick, taken",))
    if history and (not_kind := _DONT_PLAY_KIND.match(text)) and kind_asked(pack, text) is not None:
        text = f"someone else, not a {not_kind['kind']}"  # "dont wanna play tank"
    text = _types_as_they(pack, type_by_look(pack, text)[0])
    if state is not None:
        # "ember into their turtle": a short name of a unit in play, not a misheard name to ask about
        text = bare_names(pack, Sides(pack, state), text)[0]
        text = their_option_described(pack, Sides(pack, state), text)[0]
        text = _answer_to_their_option(pack, Sides(pack, state), text)
    text = _wh_ellipsis(pack, text, history) or text
    if state is not None:
        text = _by_whom(pack, Sides(pack, state), text, history) or text
    if (again := _said_back(text, history)) is not None:
        return Reading(again, ("said back from the last answer: asked again",))
    text = _point_of_type(pack, _relayed(text))
    text = _without_asides(pack, text)
    news = _told_news(pack, text)
    if news is not None:
        # "I just unlocked Rockram, is it any good": the question, about the one just got
        reading = read_turn(pack, state, news, history)
        return Reading(reading.text, ("told news first", *reading.resolved), reading.second, reading.ask,
                       reading.pending)  # fmt: skip
    meant = _did_you_mean(pack, text)
    if meant is not None and _resume(pack, state, text, history) is None:
        return Reading(text, (f"no name placed for {meant.raw!r}",), ask=meant.ask, pending=meant.pending)
    retracted = _retracted(text)
    if retracted is not None:
        first, rest = retracted
        # "should I flank with Lorcan or, no wait, should he stay grouped": the follow-up and the
        # pronoun are read against the retracted question (what it named is still the topic).
        refers = _FOLLOW_UP.match(rest) or _UNRESOLVED.search(rest)
        context = [*history, Exchange(first, "")] if refers else history
        reading = read_turn(pack, state, rest, context)
        notes = ("retracted the first question", *reading.resolved)
        return Reading(reading.text, notes, reading.second, reading.ask, reading.pending)
    if _DIFFERENCE.search(text) and not _units(pack, text):
        return Reading(text)  # "what's the difference between the tank and support": roles, not units
    first, second = split_questions(text)
    sentences = re.split(r"(?<=[.!])\s+", text.strip())
    if second is None and len(sentences) > 1 and not link_entities(pack, " ".join(sentences[:-1])):
        # "I haven't played in a year. Do I still have my moth, and is it any good?": the two
        # questions after a sentence of news that names nothing
        last_first, last_second = split_questions(sentences[-1])
        if last_second is not None:
            text, first, second = sentences[-1], last_first, last_second
    topic = _FOLLOW_UP.match(first) if second is not None else None
    if (
        topic is not None
        and second is not None
        and _short(pack, topic["rest"])
        and _UNRESOLVED.search(second)
    ):
        # "What about Bex, can I get her soon": the name is the topic of the question after it, not
        # the last question asked again.
        reading = _read_one(pack, state, second, [*history, Exchange(topic["rest"], "")])
        return Reading(reading.text, (f"topic first: {topic['rest']}", *reading.resolved), ask=reading.ask,
                       pending=reading.pending)  # fmt: skip
    if second is None and not (
        history and _short_choice(pack, _correct(pack, Sides(pack, state), text, history)[0])
    ):
        first, second = split_pair(pack, text)
    if second is None:
        reading = _read_one(pack, state, text, history)
        several = any(" and " in note.partition(" -> ")[2] for note in reading.resolved)  # "my damage guys"
        if (
            reading.ask is None
            and (_WHICH_OWNED.search(reading.text) or " or " in reading.text or several)
            and reading.text != text
            and not _TARGET_CHOICE.search(reading.text)
            and not any(note.startswith("a choice for") for note in reading.resolved)
        ):
            # "which of those can I play" read as "which of Quillon and Brannoc ...", "do I own any
            # of them" as "... Brannoc or Osmund": each
            first, second = split_pair(pack, reading.text)
            if second is not None:
                return Reading(first, (*reading.resolved, "two questions"), second)
        if reading.ask is None and JOINT in reading.text and BOTH_NOTE in reading.resolved:
            first, _, second = reading.text.partition(JOINT)
            return Reading(first, (*reading.resolved, "two questions"), second)
        if reading.ask is None and reading.text != text and history:
            # A correction of two questions is two questions again ("no, against Briarcat").
            first, joint, second = reading.text.partition(JOINT)
            if joint and history[-1].utterance.count(JOINT) == 1:
                return Reading(first, (*reading.resolved, "two questions"), second)
        return reading
    one = _read_one(pack, state, first, history)
    where = pack.catalog.schema.kind("context")
    named = _units(pack, first)
    about_place = where is not None and current_place(pack, where).search(second) is not None
    if where and about_place and 1 <= len(named) <= 2 and not _units(pack, second):
        # "Lorcan into Tamsin, who wins, and does the map matter": the map for the ones just named.
        noun = pack.catalog.schema.kinds[where].nouns[0].lower()
        who = " or ".join(display(pack, pack.catalog.schema.kind("unit") or "", u) for u in named)
        second = f"does this {noun} favour {who}"
    if where and not named and _place_asked(pack, where, first) and re.search(r"\bit\b", second, re.I):
        # "What map is this, and who's good on it": "it" is the place the first asked about.
        noun = pack.catalog.schema.kinds[where].nouns[0].lower()
        second = re.sub(r"\bit\b", f"this {noun}", second, count=1, flags=re.IGNORECASE)
    opener = _OPEN_WITH.search(second)
    if opener is not None and len(named) == 1 and not link_entities(pack, second):
        # "what moves does Hexmoth have, and which should I open with": Hexmoth's opener
        who = display(pack, pack.catalog.schema.kind("unit") or "", named[0])
        second = f"{second[: opener.start('who')]}{who}{second[opener.end('who') :]}"
    two = _read_one(pack, state, second, [*history, Exchange(one.text, "")])
    if _SAME_AS_DESCRIBED.match(second) and not link_entities(pack, two.text):
        # "Who's Lorcan again, is that the cowboy guy": a check of a description nothing in the pack
        # fits; the first answer says who it is.
        return _read_one(pack, state, first, history)
    pronoun = _UNRESOLVED.search(second)
    asks_pick = _ASKS_PICK.search(first) is not None
    if (asks_pick or _ASKS_WHO.match(first)) and pronoun is None:
        # "what's Briarcat weak to, and have I got that", "who do I focus first, and who's best at that"
        pronoun = _ANSWER_PRONOUN.search(second)
    foe_named = (
        pronoun is not None
        and not _UNRESOLVED.search(two.text)
        and THEIRS_CUE.search(second[: pronoun.start()])
    )
    if (_ASKS_WHO.match(first) or asks_pick) and pronoun is not None and not foe_named:
        # "Who's my strongest, and what can it learn?": "it" is the first answer's, which W1
        # cannot know before the reply: the second is read once the first is (`refer_to_answer`).
        alone = _read_one(pack, state, first, history)
        notes = (*alone.resolved, "two questions, the second about the first's answer")
        return Reading(alone.text, notes, second.strip(" ,?.!"), second_refers=True)
    if _UNRESOLVED.search(_IDIOMATIC_IT.sub("", two.text)):
        # A pronoun neither the first question nor its answer settles: the first half alone (the
        # second's words would mislead the labels). ("is Stellan even worth it": no pronoun)
        return _read_one(pack, state, first, history)
    notes = (*one.resolved, *two.resolved, "two questions")
    return Reading(text=one.text, resolved=notes, second=two.text)


# "Nightmare Hex on the turtle or the cat": one move, on one of two; a choice, not two questions.
_TARGET_CHOICE = re.compile(r"\b(?:on|at)\s+(?:their\s+|the\s+|his\s+|her\s+)?[A-Z]\w+\s+or\b")
# "which should I open with", "what do I start with": the move a unit opens with (English cues).
_OPEN_WITH = re.compile(
    r"\b(?:which|what)\b.*?\b(?:should|do|can|would)\s+(?P<who>i|we)\s+(?:open|start|lead\s+off)\s+with\b",
    re.IGNORECASE,
)
_SAME_AS_DESCRIBED = re.compile(
    r"^\W*(?:(?:and|so|like)\W+)*(?:is\s+(?:that|he|she|it|this)|that'?s|thats)\s+(?:the|a|an|that)\s+[a-z]+",
    re.I,
)
_SUBJECT_WORD = re.compile(r"\b(?:i|we|they|he|she|you|it|im|i'm|we're|were|they're|theyre)\b", re.IGNORECASE)


def _without_asides(pack: Pack, text: str) -> str:
    """ "Dead. Respawn. Swap Renzo?": the question without the words said on the way to it (a
    fragment of one or two words that names nothing and has no subject; "We lost." is news)."""
    parts = re.split(r"(?<=[.!])\s+", text.strip())
    while (
        len(parts) > 1
        and len(parts[0].split()) <= 2
        and not _SUBJECT_WORD.search(parts[0])
        and not re.search(r"\d|\b(?:their|my|our)\b", parts[0], re.IGNORECASE)  # "their sniper. how"
        and not link_entities(pack, parts[0])
    ):
        parts = parts[1:]
    return " ".join(parts) if len(parts) < len(re.split(r"(?<=[.!])\s+", text.strip())) else text


def refer_to_answer(pack: Pack, question: str, asked: str, answer: str) -> str:
    """The second question of "who's their biggest threat, and who counters it?" with its pronoun
    as the first unit the answer put forward (one the first question did not name); of "what's
    Hexmoth's best skill, and when do I use it", the option the answer opens with."""
    schema = pack.catalog.schema
    option = schema.kind("option")
    named = {m.id for m in link_entities(pack, asked)}
    opens = next((m for m in link_entities(pack, answer) if m.id not in named), None)
    pronoun = _ANSWER_PRONOUN.search(question)
    if opens is not None and opens.kind == option and pronoun is not None and _asks_option(pack, asked):
        name = display(pack, opens.kind, opens.id)
        return f"{question[: pronoun.start()]}{name}{question[pronoun.end() :]}"
    picks = _put_forward(pack, Exchange(asked, answer))
    if not picks or pronoun is None:
        return question
    name = display(pack, schema.kind("unit") or "", picks[0])
    if pronoun.group(0).lower() == "his":
        name += "'s"
    return _in_place(question, pronoun, name)


def _in_place(question: str, pronoun: re.Match[str], name: str) -> str:
    """The question with `name` in the pronoun's place; "who's best at that" (that: taking on the
    one named) is who is best against it."""
    at = re.search(r"\b(?:best|good|better)\s+(?:at|for)\s+$", question[: pronoun.start()], re.IGNORECASE)
    if at is not None and pronoun.group(0).lower() == "that":
        return f"{question[: at.start()]}best against {name}{question[pronoun.end() :]}"
    return f"{question[: pronoun.start()]}{name}{question[pronoun.end() :]}"


def _asks_option(pack: Pack, question: str) -> bool:
    """Does the question ask for one of the option kind ("what's Hexmoth's best skill")?"""
    schema = pack.catalog.schema
    option = schema.kind("option")
    nouns = [n.lower() for n in schema.kinds[option].nouns] if option else []
    return (
        bool(nouns) and re.search(rf"\b(?:{'|'.join(map(re.escape, nouns))})s?\b", question, re.I) is not None
    )


def labelled_as_named(pack: Pack, question: str, first: str = "") -> str:
    """What the prior labels a second question about the first's answer by, before the answer is
    known: its pronoun as the token a named unit becomes ("what should xherox run"), or an option
    when the first asked for one (`first`)."""
    pronoun = _ANSWER_PRONOUN.search(question)
    if pronoun is None:
        return question
    schema = pack.catalog.schema
    kind = schema.kind("option") if first and _asks_option(pack, first) else schema.kind("unit")
    return _in_place(question, pronoun, kind_token(kind or ""))


def _ask(pack: Pack, unclear: Unclear) -> str:
    """ "Their Voltail, or your Sparkwing?"; with no options, which unit the player means."""
    if not unclear.options:
        return f"Which {pack.catalog.schema.kind('unit')} do you mean?"
    unit_kind = pack.catalog.schema.kind("unit") or ""
    said = [
        f"{({'theirs': 'their ', 'mine': 'your '}).get(side, '')}{display(pack, unit_kind, uid)}"
        for side, uid in unclear.options
    ]
    if len(said) == 1:
        return f"Do you mean {said[0]}?"  # the one it fits is not where the player put it
    question = ", or ".join([", ".join(said[:-1]), said[-1]] if len(said) > 2 else said)
    return question[:1].upper() + question[1:] + "?"


def _resume(
    pack: Pack, state: LiveState | None, text: str, history: Sequence[Exchange]
) -> tuple[str, list[str]] | None:
    """The question the coach asked back about, with the player's answer in its hole ("theirs",
    "the fire one", a name); None when the last reply asked nothing, or this does not answer it."""
    if not history:
        return None
    last = history[-1]
    meant = _did_you_mean(pack, last.utterance)
    if meant is not None and last.reply.strip() == meant.ask:
        return _confirmed(pack, text, meant)
    before = _read_one(pack, state, last.utterance, history[:-1], resume=False)
    if before.ask is None or before.pending is None or last.reply.strip() != before.ask:
        return None
    if _OPENS_QUESTION.match(text) and len(text.split()) > 3:
        return None  # a new question ("what's Wendell got on?"), not the answer to ours
    sides = Sides(pack, state)
    options = [uid for _, uid in options_of(pack, sides, before)]
    named = [u for u in _units(pack, text) if not options or u in options]
    if not named and _units(pack, text):
        return None  # "have I got Galen yet?": another unit, so a new question
    words = {w.lower() for w in re.findall(r"[a-z']+", text.lower())}
    chosen = named[0] if named else None
    if len(options) == 1 and chosen is None:
        # "Do you mean their Briarcat?": "yes" is it; "no, my grass one" says another.
        if _YES.match(text):
            chosen = options[0]
        elif _NO.match(text):
            options = []
    if chosen is None and options:
        mine = {*MINE, "your", "yours", "i", "me", "i've"}
        side = "theirs" if words & set(THEIRS) else "mine" if words & mine else None
        on_side = [u for u in options if sides.side_of(u) == side]
        d = describer(pack)
        described = [u for u in options if words & d.words.get(u, frozenset())]
        for fits in (on_side, described):
            if len(fits) == 1:
                chosen = fits[0]
                break
    if chosen is None:
        text, _, _ = describe(pack, sides, text)  # "the sniper": a description of its own
        chosen = next(iter(_units(pack, text)), None)
    if chosen is None and len(options) >= 2 and words & _BOTH:
        # "Both": the question about each, one after the other.
        names = [_side_name(pack, sides, u) for u in options[:2]]
        asked = JOINT.join(before.pending.replace(HOLE, n).rstrip(" ?.!") for n in names)
        return asked, [BOTH_NOTE]
    # "how do I shut <him> down": the cue read as if the hole were not there
    cue = " ".join(before.pending.replace(HOLE, " ").split()) + " "
    if chosen is None and not options and len(words) <= 4 and THEIRS_CUE.search(cue):
        # "How do I beat him?" "No idea.": the best reading of a foe nobody named is their team.
        return before.pending.replace(HOLE, THEIR_TEAM), [f"{ASSUMED}{THEIR_TEAM}"]
    assumed = chosen is None and bool(options) and len(words) <= 4 and not _DROPPED.search(text)
    if assumed:
        # No usable answer ("dunno", "either"): the question was asked once, so the first reading,
        # and the reply says which (never a second question back).
        chosen = options[0]
    if chosen is None:
        return None
    name = _side_name(pack, sides, chosen)
    if assumed:
        return before.pending.replace(HOLE, name), [f"{ASSUMED}{name.replace('my ', 'your ', 1)}"]
    return before.pending.replace(HOLE, name), [f"answer to {before.ask!r}: {name}"]


@dataclass(frozen=True)
class _Meant:
    """A name STT may have misheard, asked about: "Did you mean Hexmoth?"."""

    raw: str  # as heard
    name: str  # the name asked about
    pending: str  # the question with a hole where the name goes

    @property
    def ask(self) -> str:
        return f"Did you mean {self.name}?"


def _did_you_mean(pack: Pack, text: str) -> _Meant | None:
    """A span near a name but not near enough to put it back (`lexicon.suggest`): the question is
    asked about it rather than answered without it (the answer would be about nothing, or guessed)."""
    guess = suggest(Lexicon.of(pack), text)
    if guess is None:
        return _remembered(pack, text)
    raw, name = guess
    at = text.find(raw)
    return _Meant(raw, name.text, text[:at] + HOLE + text[at + len(raw) :])


_SOMETHING = re.compile(r"\b(?P<word>[a-z]{3,})\s+(?:or\s+)?(?:something|whatever|whatshisname)\b", re.I)


def _remembered(pack: Pack, text: str) -> _Meant | None:
    """ "What happened to Emberwolf", "is Galebird any good": a made-up word of one unit's name part
    and an everyday word, as a player half remembers a name: asked whether they mean that unit."""
    if link_entities(pack, text):
        return None
    names = short_names(pack)
    unit = pack.catalog.schema.kind("unit") or ""
    for vague in _SOMETHING.finditer(text):
        # "a healer called doc something": the first word of one unit's two-word name ("Doc Galen")
        first = vague["word"].lower()
        fits = {
            uid
            for form, kind, uid in pack.catalog.forms()
            if kind == unit and " " in form and form.lower().split()[0] == first
        }
        if len(fits) == 1:
            meant = display(pack, unit, fits.pop())
            return _Meant(vague.group(0), meant, text[: vague.start()] + HOLE + text[vague.end() :])
    for word in re.finditer(r"[a-z]{6,}", text, re.IGNORECASE):
        said = word.group(0).lower()
        if ordinary(said):
            continue
        fits = {
            uid
            for i in range(3, len(said) - 2)
            for part, rest in ((said[:i], said[i:]), (said[i:], said[:i]))
            if ordinary(rest) and len(part) >= 3
            for uid, parts in names.items()
            if part in parts
        }
        if len(fits) == 1:
            meant = display(pack, unit, fits.pop())
            at = word.start()
            return _Meant(word.group(0), meant, text[:at] + HOLE + text[word.end() :])
    return None


_YES = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|yea|ya|sure|right|correct|exactly|uh[ -]?huh|mhm|aye|"
    r"that'?s (?:it|right|the one)|that one|you got it)\b",
    re.IGNORECASE,
)
_NO = re.compile(r"^\W*(?:no+|nope|nah|neither|wrong|not that)\b", re.IGNORECASE)
SHORT_ANSWER_WORDS = 6


def _confirmed(pack: Pack, text: str, meant: _Meant) -> tuple[str, list[str]] | None:
    """The question asked about, with the player's answer to "Did you mean X?" in its hole: X on
    "yes", the name they say instead ("no, Hexmonarch"), or what they first said on a bare "no"
    (then the question is answered as heard: generally, or by asking which one). None when the
    reply is a new question."""
    if len(text.split()) > SHORT_ANSWER_WORDS or (_OPENS_QUESTION.match(text) and len(text.split()) > 3):
        return None
    names = [m for m in link_entities(pack, text) if m.kind in Lexicon.of(pack).kinds]
    if names:
        return meant.pending.replace(HOLE, names[0].surface), [f"answer to {meant.ask!r}: {names[0].surface}"]
    if _YES.match(text):
        return meant.pending.replace(HOLE, meant.name), [f"answer to {meant.ask!r}: yes"]
    if _NO.match(text):
        return meant.pending.replace(HOLE, meant.raw), [f"answer to {meant.ask!r}: no"]
    return None


_PLEASE = re.compile(
    r"^\W*(?:(?:ok|okay|alright|go on|go ahead|do it|please|why not|i guess|sure thing|go for it|"
    r"sounds good|yes please|let'?s hear it|let'?s do it)\b\W*)+$",
    re.IGNORECASE,
)


def _accepted(pack: Pack, text: str, last: Exchange) -> str | None:
    """A "yes" to the offer the last reply ended with (W3's "Shall I run through which elements
    counter it?"): the question it offered (`W3Candidate.accept`), its "it" the last exchange's unit."""
    if len(text.split()) > SHORT_ANSWER_WORDS or _NO.match(text) or link_entities(pack, text):
        return None
    if not (_YES.match(text) or _PLEASE.match(text)):
        return None
    reply = last.reply.rstrip()
    offers = (c for b in pack.w3.branches.values() for c in b.pool if c.accept and c.text)
    return next((c.accept for c in offers if reply.endswith(c.text)), None)


# "We just dropped that round", "gg we won round 2": a round the game has not pushed yet (English cues).
ROUND_WON = re.compile(
    # ("I got this hero with the turret", "we got the cat": no round)
    r"\b(?:we|i)\s+(?:just\s+)?(?:won|took|got|grabbed|stole)\s+(?:(?:that|the|this)\s+(?:one|round|game|match)\b|"
    r"round\b|game\b|(?:that|this|it)(?=\W*$|\s*[,.!;]|\s+chat\b))"
    r"(?!\s+(?:fight|teamfight|duel|trade|push|point)\b)(?:\s+(?:one|round))?"
    r"|\bthey\s+(?:just\s+)?(?:lost|dropped|threw)\s+(?:(?:that|the|this)\s+(?:one|round)|round)\b"
    r"|\b(?:we|i)\s+(?:just\s+)?(?:tied|equali[sz]ed|levell?ed)\s+(?:it|it\s+up|the\s+(?:game|match|series|score))\b",
    re.I,
)
ROUND_LOST = re.compile(
    r"\b(?:we|i)\s+(?:just\s+)?(?:lost|dropped|threw|blew|choked)\s+(?:that|the|this|round|game)\b"
    r"(?!\s+(?:fight|teamfight|duel|trade|push)\b)"  # "we lost the fight again": a fight, not a round
    r"|\bthey\s+(?:just\s+)?(?:won|took)\s+(?:(?:that|the|this)\s+(?:one|round)|round)\b",
    re.I,
)


# "We lost the first one, didn't we?": a round the score already has, asked about, not news.
_ASKED_BACK = re.compile(
    r"\b(?:the\s+)?(?:first|second|third|opening|1st|2nd|3rd)\s+(?:one|round|game)\b|\bround\s+(?:one|two|1|2)\b"
    r"|\b(?:didn'?t|did|have|haven'?t)\s+(?:we|i)\b|\bright\s*\??\s*$|\?\s*$|\bif\s+(?:we|i)\b",
    re.IGNORECASE,
)


def told_round(state: LiveState, utterance: str) -> LiveState | None:
    """The snapshot's match with the round the player says just ended (won or lost) counted, for a
    turn the game pushed nothing before: the next round is on, so the answer and the match line
    agree with what the player just said. None when they said no result."""
    match = state.ic.match
    won, lost = ROUND_WON.search(utterance), ROUND_LOST.search(utterance)
    said = won or lost
    # (asked back only in the clause that says it: "we took that round, so that's the match right?"
    # tells the round, then asks what it means)
    start = max(utterance.rfind(p, 0, said.start()) for p in ",.;") + 1 if said else 0
    ends = [i for p in ",.;" if (i := utterance.find(p, said.end() if said else 0)) >= 0]
    clause = utterance[start : min(ends, default=len(utterance))]
    if match is not None:
        # "we just lost round two" in round two: the round in play, told (an earlier one is asked back)
        now = {1: r"one|1|first", 2: r"two|2|second", 3: r"three|3|third"}.get(match.round, r"$^")
        clause = re.sub(rf"\bround\s+(?:{now})\b|\b(?:{now})\s+round\b", "round", clause, flags=re.IGNORECASE)
    if match is None or bool(won) == bool(lost) or _ASKED_BACK.search(clause):
        return None
    update = {"score_player": match.score_player + 1} if won else {"score_opponent": match.score_opponent + 1}
    if max(update.values()) <= match.rounds_total // 2:  # a decided match plays no next round
        update["round"] = min(match.round + 1, match.rounds_total)
    ic = state.ic.model_copy(update={"match": match.model_copy(update=update)})
    return state.model_copy(update={"ic": ic})


_AT_LEVEL = re.compile(r"\b(?:at\s+)?(?:level|lvl|lv)\s+(\d+)\b", re.IGNORECASE)
_ONE_PRONOUN = re.compile(r"\b(?:he|him|she|her|it)\b", re.IGNORECASE)


def _by_level(
    pack: Pack, state: LiveState | None, text: str, history: Sequence[Exchange]
) -> tuple[str, list[str]]:
    """ "Is she any good at level 5?" after a reply naming two of the player's units: the one at
    level 5 (a pronoun the level the player says singles out)."""
    level, pronoun = _AT_LEVEL.search(text), _ONE_PRONOUN.search(text)
    if level is None or pronoun is None or not history or state is None or _units(pack, text):
        return text, []
    view = StateView(pack, state)
    last = history[-1]
    named = dict.fromkeys([*_units(pack, last.utterance), *_units(pack, last.reply)])
    at = [u for u in named if (o := view.unit(u)) is not None and o.level == int(level[1])]
    if len(named) < 2 or len(at) != 1:
        return text, []
    name = display(pack, pack.catalog.schema.kind("unit") or "", at[0])
    return f"{text[: pronoun.start()]}{name}{text[pronoun.end() :]}", [
        f"{pronoun[0]!r} -> {name}, at level {level[1]}"
    ]


_MATCHED = re.compile(r"\b(?:vs|versus|against|into|on)\b", re.IGNORECASE)
_ASKS = re.compile(
    r"\b(?:what|who|how|which|why|when|where|should|can|could|is|are|does|do)\b", re.IGNORECASE
)
_THAT_SPOT = re.compile(r"\b(?:that|this|his|her|its)\s+(spot|slot|place)\b", re.IGNORECASE)


def _spot_of(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    """ "Who else could I put in that spot?" after a question about Wendell: Wendell's spot (a
    spot on the player's own team: the unit is theirs)."""
    spot = _THAT_SPOT.search(text)
    if spot is None or not history or _units(pack, text):
        return text, []
    last = history[-1]
    named = _units(pack, last.utterance) or _units(pack, _first_sentence(last.reply))
    named = [u for u in named if sides.side_of(u) == "mine"]
    if not named:
        return text, []
    name = display(pack, pack.catalog.schema.kind("unit") or "", named[0])
    return f"{text[: spot.start()]}{name}'s {spot[1]}{text[spot.end() :]}", [f"{spot[0]!r} -> {name}'s"]


_THE_OTHER = re.compile(r"\b(?P<det>the|my|our|their)\s+other\s+(?P<noun>[a-z]+)\b", re.IGNORECASE)


def _the_other(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    """ "Is the bird on my team any good vs Voltail?" - "and the other bird": of the units that
    word describes on that side, the one the last exchange did not name (when exactly one is left)."""
    other = _THE_OTHER.search(text)
    if other is None or not history:
        return text, []
    if _units(pack, text[other.end() :][:40]) and re.match(r"\s*,", text[other.end() :]):
        return text, []  # "the other support, Bexley, ...": named right after (an appositive)
    d = describer(pack)
    noun = other["noun"].lower()
    if noun in ("one", "guy", "girl", "thing") and other["det"].lower() in ("the", "their"):
        return _the_other_of_theirs(pack, sides, text, history, other)
    if noun not in d.vocabulary:
        return text, []
    last = history[-1]
    named = _units(pack, last.utterance) + _units(pack, _first_sentence(last.reply))
    said = side_word(other["det"])
    side = (
        said
        if said != "any"
        else next((sides.side_of(u) for u in named if noun in d.words.get(u, ())), "any")
    )
    pool = list(dict.fromkeys(u for group in sides.pools(side) for u in group))
    fitting = [u for u in pool if noun in d.words.get(u, ())]
    if not any(u in named for u in fitting):
        return text, []
    rest = [u for u in fitting if u not in named]
    if len(rest) != 1:
        return text, []
    keep = {"theirs": "their ", "mine": "my "}.get(said, "")
    name = display(pack, pack.catalog.schema.kind("unit") or "", rest[0])
    return f"{text[: other.start()]}{keep}{name}{text[other.end() :]}", [f"{other.group(0)!r} -> {name}"]


def _the_other_of_theirs(
    pack: Pack, sides: Sides, text: str, history: Sequence[Exchange], other: re.Match[str]
) -> tuple[str, list[str]]:
    """ "Can Granitusk take the turtle?" - "what about the cat" - "and the other one": the one of
    theirs the last two exchanges have not named (when the questions were about theirs, one left)."""
    recent = history[-2:]
    # (asked about in the questions: an answer that weighs two of the player's names theirs too)
    named = [u for e in recent for u in _units(pack, describe(pack, sides, e.utterance)[0])]
    theirs_named = {u for u in named if u in sides.theirs}
    rest = [u for u in sides.theirs if u not in theirs_named]
    if len(theirs_named) < 2 or len(rest) != 1:
        return text, []
    name = display(pack, pack.catalog.schema.kind("unit") or "", rest[0])
    return f"{text[: other.start()]}their {name}{text[other.end() :]}", [f"{other.group(0)!r} -> {name}"]


# "And the other two do what", "what about the rest of my team": a team less the ones just named.
_THE_OTHERS = re.compile(
    r"\b(?:the\s+other\s+(?P<count>two|three|four|\d)(?:\s+(?:ones|guys|of\s+them|\w+s))?"
    r"|the\s+others|the\s+other\s+ones|the\s+other\s+guys|the\s+rest(?:\s+of\s+(?P<det>my|our|their)\s+\w+)?)\b",
    re.IGNORECASE,
)
_COUNTS = {"two": 2, "three": 3, "four": 4}


def _the_others(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    """ "Which one is mine, the fox?" - "and the other two do what": the side the last exchange's
    unit is on, less that unit (the count said must fit)."""
    others = _THE_OTHERS.search(text)
    if others is None or not history or sides.view is None:
        return text, []
    if re.search(
        r"\b(?:over|than|from|vs|versus|instead\s+of|like|of)\s+$", text[: others.start()], re.IGNORECASE
    ):
        return text, []  # "why that one over the others": the choices set against it, not a team
    last = history[-1]
    named = list(dict.fromkeys(_units(pack, last.utterance) + _units(pack, _first_sentence(last.reply))))
    said = side_word(others["det"]) if others["det"] else "any"
    on = said if said != "any" else next((sides.side_of(u) for u in named), "any")
    team = {"mine": sides.fielded, "theirs": sides.theirs}.get(on, [])
    rest = [u for u in team if u not in named]
    count = others["count"]
    wanted = _COUNTS.get(count.lower(), int(count) if count and count.isdigit() else 0) if count else 0
    if not rest or len(rest) == len(team) or (wanted and wanted != len(rest)):
        return text, []
    unit = pack.catalog.schema.kind("unit") or ""
    names = " and ".join(display(pack, unit, u) for u in rest)
    return f"{text[: others.start()]}{names}{text[others.end() :]}", [f"{others.group(0)!r} -> {names}"]


# "Of those, who do I actually have", "which of them have I got": the last answer's units, owned.
_OF_THOSE = re.compile(
    r"^\W*(?:(?:ok|okay|so|and|um|uh)\W+)*(?:(?:out\s+)?of\s+(?:those|them|these)\W+(?:who|which)"
    r"|(?:who|which)(?:\s+ones?)?\s+of\s+(?:those|them|these))\b.*\b(?:have|own|got|unlocked)\b",
    re.IGNORECASE,
)


def _of_those(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    """ "Who is good on Docks" - "of those, who do I actually have": which of the units the last
    answer named the player owns."""
    if not history or not _OF_THOSE.match(text) or _units(pack, text):
        return text, []
    named = _units(pack, history[-1].reply)
    if len(named) < 2:
        return text, []
    unit = pack.catalog.schema.kind("unit") or ""
    names = ", ".join(display(pack, unit, u) for u in named)
    return f"which of {names} do i have", [f"'of those' -> {names}"]


_LIKE_THAT = re.compile(
    r"\b(?:have|own|got)\s+(?:i\s+got\s+)?(?:any(?:thing|one)?|some(?:thing|one)?)\s+(?:like\s+(?:that|those|them)|"
    r"of\s+(?:those|them|that\s+type|those\s+types))\b",
    re.IGNORECASE,
)


def _of_those_types(
    pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]
) -> tuple[str, list[str]]:
    """ "What's Voltail weak to" - "earth and light" - "do I have anything like that": which of the
    player's units are of the types (values of the matchup's attribute) the last answer named."""
    if not history or not _LIKE_THAT.search(text) or _units(pack, text):
        return text, []
    schema = pack.catalog.schema
    attribute = next((m.attribute for m in schema.matchups if m.attribute), None)
    unit = schema.kind("unit") or ""
    if attribute is None:
        return text, []
    # (the first sentence's types, but the named unit's own: "Voltail is electric, so ... earth")
    said = link_entities(pack, _first_sentence(history[-1].reply))
    own = {str(e.value(attribute)) for m in said if m.kind == unit and (e := pack.catalog.get(unit, m.id))}
    # (nor the type the question was about: "what's good against electric" - "Against electric, ...")
    asked = {m.id for m in link_entities(pack, history[-1].utterance) if schema.kinds[m.kind].role == "type"}
    types = [m.id for m in said if schema.kinds[m.kind].role == "type" and m.id not in own | asked]
    if not types:
        return text, []
    mine = [
        u
        for u in sides.owned
        if (e := pack.catalog.get(unit, u)) is not None and str(e.value(attribute)) in types
    ]
    if not mine:
        return text, []
    names = ", ".join(display(pack, unit, u) for u in mine)
    return f"which of {names} do i have", [f"'like that' -> {names}"]


_WHAT_INSTEAD = re.compile(r"\bwhat\s+(?:\w+\s+){0,4}?instead\b(?!\s+of\b)")


def _instead_of(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    """ "Who do I put in instead?" after "Renzo is a poor pick on Fathom Docks": instead of Renzo
    (the player's unit the last exchange was about: its question's, else its answer's first)."""
    if not history or _units(pack, text):
        return text, []
    last = history[-1]
    # "What do I go instead": the same, unless the last question set one of theirs against it (then
    # it asks a counter to theirs: "is Emberfox good vs Shellbastion" - "what would you bring instead").
    faced = any(sides.side_of(u) == "theirs" for u in _units(pack, last.utterance))
    if INSTEAD.search(normalise(text)) is None and (faced or not _WHAT_INSTEAD.search(normalise(text))):
        return text, []
    named = _units(pack, last.utterance) or _units(pack, _first_sentence(last.reply))
    named = [u for u in named if sides.side_of(u) == "mine"]
    if len(named) != 1:
        return text, []
    name = display(pack, pack.catalog.schema.kind("unit") or "", named[0])
    at = re.search(r"\binstead\b", text, re.IGNORECASE)
    if at is None:
        return text, []
    return f"{text[: at.end()]} of {name}{text[at.end() :]}", [f"'instead' -> instead of {name}"]


# "Over the fox, I mean", "instead of Sparkwing?", "for Dumaka": only the unit to take out, said
# after a question that brought one in (English cue words).
_OUT_FRAGMENT = re.compile(
    r"^\W*(?:(?:no\s+|sorry\s+)?i\s+mean\W+|like\W+|and\W+)?(?:over|instead\s+of|in\s+place\s+of|for|replacing)\s+"
    r"(?P<rest>.+?)(?:\W+(?:i\s+mean|then|instead|i\s+meant))?\W*$",
    re.IGNORECASE,
)
_BROUGHT_IN = re.compile(
    r"\b(?:bring|brings|throw|put|play|run|use|field|go|sub|swap|switch|start)\b", re.IGNORECASE
)


def _out_unit(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> tuple[str, list[str]]:
    """ "Should I throw Galehawk in?" - "over the fox, I mean": the last question again, with the
    player's own unit named here as the one to take out."""
    fragment = _OUT_FRAGMENT.match(text)
    if not history or fragment is None:
        return text, []
    out = _units(pack, fragment["rest"])
    last = history[-1].utterance
    brought = _units(pack, last)
    if (
        len(out) != 1
        or not _short(pack, fragment["rest"])
        or sides.side_of(out[0]) != "mine"
        or len(brought) != 1
        or brought[0] == out[0]
        or not _BROUGHT_IN.search(last)
        or re.search(r"\b(?:instead|over|replac\w*)\b", last, re.IGNORECASE)
    ):
        return text, []
    name = display(pack, pack.catalog.schema.kind("unit") or "", out[0])
    asked = f"{last.rstrip(' ?.!')} instead of {name}"
    return asked, [f"{text!r} -> {asked!r}"]


def _side_name(pack: Pack, sides: Sides, uid: str) -> str:
    """ "their Voltail", "my Sparkwing": a unit named with the side it is on."""
    side = {"theirs": "their ", "mine": "my "}.get(sides.side_of(uid), "")
    return side + display(pack, pack.catalog.schema.kind("unit") or "", uid)


ASSUMED = "no usable answer, so taking it as "
THEIR_TEAM = "their team"
_BOTH = {"both", "each", "either", "all"}
BOTH_NOTE = "answered both"
# "Never mind": the question asked back is dropped, not answered with a guess.
_DROPPED = re.compile(r"\b(?:never\s?mind|forget (?:it|that)|cancel|skip it|no thanks)\b", re.IGNORECASE)


# "Not Brannoc", "anyone but Renzo": a unit named to be left out of the answer (English cue words).
_KEEP_OUT = re.compile(
    r"\b(?:not|no|without|except|but|besides|other than)\s+(?:my\s+|the\s+)?$", re.IGNORECASE
)

_BARE_DESCRIPTION = re.compile(r"^\W*(?:my|their|your|the)\s+(?:\w+\s+){0,2}\w+[\s?.!]*$", re.IGNORECASE)


def _unplaced(pack: Pack, sides: Sides, text: str, history: Sequence[Exchange]) -> Unclear | None:
    """ "(No wait, I meant) my lightning guy": a unit described in words the pack does not have,
    in place of the one the last question named on that side. Rather than read it as a new question
    (it is none), ask which unit it is; the answer goes where that unit was."""
    if not history or not _BARE_DESCRIPTION.match(text) or link_entities(pack, text):
        return None
    side = side_word(text.split()[0] if text.split() else "")
    previous = history[-1].utterance
    unit_kind = pack.catalog.schema.kind("unit")
    named = [m for m in link_entities(pack, previous) if m.kind == unit_kind]
    unit = next((m for m in named if side == "any" or sides.on(side, m.id)), None)
    if unit is not None:
        return Unclear((), previous[: unit.span[0]] + HOLE + previous[unit.span[1] :])
    # The last question described it too ("is my bird any good"): the description's place.
    words = {"mine": r"my|your", "theirs": r"their"}.get(side)
    phrase = re.search(rf"\b(?:{words})\s+\w+", previous, re.IGNORECASE) if words else None
    if phrase is None:
        return None
    return Unclear((), previous[: phrase.start()] + HOLE + previous[phrase.end() :])


def options_of(pack: Pack, sides: Sides, reading: Reading) -> list[tuple[Side, str]]:
    unit_kind = pack.catalog.schema.kind("unit") or ""
    return [
        (sides.side_of(e.id), e.id)
        for part in (reading.ask or "").replace("?", "").removeprefix("Do you mean ").split(", or ")
        for e in [pack.catalog.by_name(unit_kind, part.lower().removeprefix("their ").removeprefix("your "))]
        if e is not None
    ]


_ASKS_PICK_NOW = re.compile(
    r"^\W*(?:(?:ok|okay|fine|so|then|alright|right|hmm|and)\W+)*(?:who|what|which(?:\s+one)?)\b"
    r"(?:\s+\w+){0,3}?\s+(?:bring|use|play|pick|run|take|field|send|go\s+with|put\s+in)\b"
    r"(?:\s+(?:instead|then|there|now|for\s+(?:it|that|him|her)))*\W*$",
    re.IGNORECASE,
)


_THERE_FOE = re.compile(r"\b(?:in\s+|out\s+)?there\b(?=\s*(?:[?.!,]|$|though\b|too\b|then\b))", re.I)
# "What should I evolve first" - "Evolve Oakhorn into Elderhorn next ..." - "how do I do that": how
# to do what the answer said to do (English cue words; the verbs are the pack's progression verbs
# and the ordinary ones for levels and unlocks).
_HOW_DO_THAT = re.compile(
    r"^\W*(?:(?:ok|okay|so|and|but|alright|cool|wait)\W+)*how\s+(?:do|can|would|should)\s+(?:i|we)\s+"
    r"(?:do|pull\s+off|manage|get)\s+(?:that|it|this)(?:\s+(?:then|exactly|though))?\W*$",
    re.IGNORECASE,
)


def _how_to_do_that(pack: Pack, text: str, last: Exchange) -> str | None:
    """ "How do I do that" after an answer that said to evolve, level or unlock one: how to do that
    to that one (not what the last name in the answer is)."""
    if not _HOW_DO_THAT.match(text):
        return None
    schema = pack.catalog.schema
    verbs = [v for k in schema.kinds.values() for v in (k.verbs or [])] + ["level", "unlock", "equip"]
    stems = "|".join(
        sorted({re.escape(v[:-1] if v.endswith("e") else v) for v in verbs}, key=len, reverse=True)
    )
    answer = _first_sentence(last.reply)
    for m in link_entities(pack, answer):
        said = re.search(rf"\b({stems})\w*\s+(?:up\s+)?(?:your\s+)?$", answer[: m.span[0]], re.IGNORECASE)
        if said is not None and schema.kinds[m.kind].role in ("unit", "option"):
            verb = next(v for v in verbs if v.lower().startswith(said[1].lower()))
            return f"how do i {verb} {m.surface}"
    return None


# "Dumaka or Brannoc for this map" - "and for damage", "ok and the second damage slot": the same
# question of another role (English cue words; the role words are the pack's).
_ROLE_FOLLOW = re.compile(
    r"^\W*(?:(?:ok|okay|so|alright|cool|right)\W+)*(?:and|what\s+about|how\s+about)\s+(?:for\s+)?(?:the\s+|my\s+|our\s+)?"
    r"(?:(?:second|2nd|first|last|next)\s+)?(?P<role>[a-z]+(?:\s+[a-z]+)??)(?:\s+(?:slot|spot|role|position|pick))?"
    r"(?:\s+(?:then|now))?\W*$",
    re.IGNORECASE,
)


def _role_follow_up(pack: Pack, text: str, last: Exchange) -> str | None:
    """ "And for damage" after a pick asked for a place or a slot: who plays that role there."""
    found = _ROLE_FOLLOW.match(text)
    if found is None or link_entities(pack, text):
        return None
    said = found["role"].lower().rstrip("s")
    role = next(
        (
            r
            for r, words in pack.vocabulary.roles.items()
            if said == r or said in (w.lower() for w in words.words)
        ),
        None,
    )
    if role is None:
        return None
    context = [
        m for m in link_entities(pack, last.utterance) if pack.catalog.schema.kinds[m.kind].role == "context"
    ]
    if context or re.search(r"\b(?:this|the)\s+(?:map|place|arena|stage)\b|\bhere\b", last.utterance, re.I):
        return (
            f"who should play {role} on this map"
            if not context
            else f"who should play {role} on {context[0].surface}"
        )
    return f"who should be my {role}"


_GO_AHEAD = re.compile(
    # (after a short aside that asks nothing: "ok I'm dead anyway, do it")
    r"^(?:[^,.!?]{1,40}(?<!\?)[,.!]\s+(?=(?:\w+\W+){0,2}(?:do|go)\b))?"
    r"\W*(?:(?:ok|okay|yes|yeah|yep|sure|then|alright|fine)\W+)*(?:just\s+)?(?:do\s+it|go\s+ahead|"
    r"make\s+it\s+so|equip\s+it|put\s+it\s+on|set\s+it\s+up|do\s+that)(?:\s+(?:then|please|now))*\W*$",
    re.IGNORECASE,
)


_LEVELLING = re.compile(
    r"\b(?:level|levell?ing|train|training|upgrade|upgrading|invest|grind)\w*\b", re.IGNORECASE
)
_A_REASON = re.compile(r"\s*,?\s*\b(?:since|because|cause|cuz|coz)\b.*$", re.IGNORECASE)


def _about_one_to_level(pack: Pack, text: str, last: Exchange) -> str | None:
    """ "What should I level next" - "what about Brannoc, since he was good today": whether that
    one is worth levelling (the last question named no unit to put this one in place of)."""
    topic = _FOLLOW_UP.match(text)
    if topic is None or _units(pack, last.utterance) or not _LEVELLING.search(last.utterance):
        return None
    rest = _A_REASON.sub("", topic["rest"])
    named = _units(pack, rest)
    if len(named) != 1 or not _short(pack, rest):
        return None
    return f"is {display(pack, pack.catalog.schema.kind('unit') or '', named[0])} worth levelling"


# "Hawk instead?", "could I put Galehawk in instead" after "Swap Sparkwing out for Hexmoth" (English
# cue words).
_IN_INSTEAD = re.compile(
    r"^\W*(?:(?:ok|okay|so|and|but|hmm+|or|nah|what\s+about|how\s+about|(?:could|can|should)\s+i\s+"
    r"(?:put|use|play|run|bring|swap\s+in|go)|what\s+if\s+i\s+(?:put|use|play|run|bring))\W+)*"
    r"(?:my\s+|the\s+)?(?P<rest>[\w' ]+?)(?:\s+in)?\s+instead\W*$",
    re.IGNORECASE,
)


def _in_instead(pack: Pack, sides: Sides, text: str, last: Exchange) -> str | None:
    """ "Swap Sparkwing out for Hexmoth" - "hawk instead?": "should I swap Sparkwing out for
    Galehawk" (the same one out, another in). None otherwise."""
    said = _IN_INSTEAD.match(text)
    if said is None or len(named := _units(pack, said["rest"])) != 1 or not _short(pack, said["rest"]):
        return None
    put = _units(pack, last.reply)
    out = [u for u in put if u in sides.fielded]
    came_in = [u for u in _put_forward(pack, last) if u not in sides.fielded]
    if len(out) != 1 or len(came_in) != 1 or named[0] in (*out, *came_in) or named[0] in sides.fielded:
        return None
    unit = pack.catalog.schema.kind("unit") or ""
    return f"should i swap {display(pack, unit, out[0])} out for {display(pack, unit, named[0])}"


def _pick_instead(pack: Pack, sides: Sides, text: str, last: Exchange) -> str | None:
    """ "Is my Emberfox any good vs Shellbastion?" - "fine, what would you bring instead": the
    pick against that foe in place of the player's unit (the last question put one of theirs
    against one of the player's), not a team from scratch."""
    if _units(pack, text) or not _ASKS_PICK_NOW.match(text):
        return None
    asked = _units(pack, last.utterance)
    mine = [u for u in asked if sides.side_of(u) == "mine"]
    foes = [u for u in asked if sides.side_of(u) == "theirs"]
    if len(mine) != 1 or len(foes) != 1:
        return None
    unit = pack.catalog.schema.kind("unit") or ""
    # Their unit's counter (which is not the one the player asked about).
    return f"what should i bring against {display(pack, unit, foes[0])}"


_OR_DROP_IT = re.compile(
    r",?\s+or\s+(?:should|do)\s+(?:i|we)\s+(?:just\s+)?(?:drop|bench|cut|ditch|sell|scrap|get\s+rid\s+of)\s+"
    r"(?:him|her|it|them)\s*\W*$",
    re.IGNORECASE,
)


# "What if I don't play Lorcan and go Paxton instead": one the player fields out, another in.
_PLAY = r"(?:play|run|use|bring|pick|take|field|go)(?:ing)?"
_NOT_THIS_BUT_THAT = re.compile(
    rf"^\W*(?:(?:and|so|ok|okay|but|then)\W+)*(?:what\s+if\s+|if\s+)?(?:i|we)\s+(?:don'?t|do\s+not|dont|stop)\s+"
    rf"{_PLAY}\s+(?P<out>[\w' ]+?)\s+(?:and|but)\s+(?:instead\s+)?(?:i\s+|we\s+)?{_PLAY}\s+(?:with\s+)?"
    r"(?P<in>[\w' ]+?)(?:\s+instead)?\W*$",
    re.IGNORECASE,
)


def _not_this_but_that(pack: Pack, sides: Sides, text: str) -> tuple[str, list[str]]:
    said = _NOT_THIS_BUT_THAT.match(text)
    if said is None:
        return text, []
    out, into = _units(pack, said["out"]), _units(pack, said["in"])
    if len(out) != 1 or len(into) != 1 or out == into or out[0] not in sides.fielded:
        return text, []
    kind = pack.catalog.schema.kind("unit") or ""
    one, other = display(pack, kind, into[0]), display(pack, kind, out[0])
    return f"what if I play {one} instead of {other}", [f"{other} out, {one} in"]


# "The one with the drone, is that Tamsin?", "is the sniper Quillon": a description checked against a
# name (English cue words).
_IS_THAT = re.compile(
    r"^\W*(?:(?:and|so|ok|okay|wait|hmm|uh|um)\W+)*(?P<desc>(?:the|their|that|this|my)(?:\s+[\w']+){1,5}?)\s*,?\s+"
    r"(?:is\s+that|that'?s|thats|is\s+it|is\s+he|is\s+she|is\s+this)\s+(?P<name>[\w']+(?:\s+[\w']+)?)\W*$"
    r"|^\W*(?:(?:and|so|ok|okay)\W+)*is\s+(?P<desc2>(?:the|their)(?:\s+[\w']+){1,2}?)\s+(?P<name2>[\w']+)\W*$",
    re.IGNORECASE,
)


def _checked_name(pack: Pack, sides: Sides, text: str) -> Reading | None:
    """Whether the unit a description fits is the one the player names: yes (or no, and which it
    is), then that unit told about."""
    said = _IS_THAT.match(text)
    if said is None:
        return None
    desc, name = (said["desc"], said["name"]) if said["desc"] else (said["desc2"], said["name2"])
    named, described = _units(pack, name), _units(pack, describe(pack, sides, desc)[0])
    if len(named) != 1 or len(described) != 1 or _units(pack, desc):
        return None
    kind = pack.catalog.schema.kind("unit") or ""
    one = _side_name(pack, sides, described[0]).replace("my ", "your ", 1)
    lead = (
        f"Yes, that's {one}."
        if described == named
        else f"No, that's {one}, not {display(pack, kind, named[0])}."
    )
    return Reading(
        text=f"tell me about {_side_name(pack, sides, described[0])}",
        resolved=(f"checked: {lead}",),
        lead=lead,
    )


# A description of theirs said alone, nothing asked of it ("their big hitter?", "and their carry").
_ONLY_THEIRS = re.compile(
    rf"\W*(?:(?:and|so|ok|okay|what\s+about|who'?s|whos|who\s+is|which\s+is)\W+)*(?:their\s+)?{HOLE}\W*", re.I
)


def _read_one(
    pack: Pack, state: LiveState | None, text: str, history: Sequence[Exchange], resume: bool = True
) -> Reading:
    notes: list[str] = []
    if resume and (resumed := _resume(pack, state, text, history)) is not None:
        text, notes = resumed
        history = history[:-1]  # the question asked back and its answer are one turn
    if history and (accepted := _accepted(pack, text, history[-1])) is not None:
        text, notes = accepted, [f"yes to {history[-1].reply.rsplit('. ', 1)[-1]!r}"]
    sides = Sides(pack, state)
    checked = _checked_name(pack, sides, text)
    if checked is not None:
        return checked
    taken = _LEAD_SENTENCE.match(text)
    if taken is not None and said_back(pack, taken["lead"]) and _OPENS_QUESTION.match(text[taken.end() :]):
        # "lol ok Wendell stays. also what's that drone thing": the decision taken, then the question
        text, notes = text[taken.end() :], [*notes, f"said back first: {taken['lead']!r}"]
    if history and (how := _how_to_do_that(pack, text, history[-1])) is not None:
        text, notes = how, [*notes, "how to do what the last answer said"]
    if history and (role := _role_follow_up(pack, text, history[-1])) is not None:
        text, notes = role, [*notes, "the last question, of another role"]
    if (dropped := _OR_DROP_IT.search(text)) is not None and _units(pack, text[: dropped.start()]):
        # "Is Tidefang worth it or should I drop him": the other side of the same yes-or-no question
        text, notes = text[: dropped.start()], [*notes, "'or should I drop it': the same question"]
    # "Any water ones, actually no, earth ones I mean": put right before a description is read
    text, fixed = _inline_correction(pack, sides, text)
    notes += fixed
    text, other = _the_other(pack, sides, text, history)  # "and the other bird": the one not named
    notes += other
    text, others = _the_others(pack, sides, text, history)  # "and the other two": the rest of that team
    notes += others
    text, named = option_by_word(pack, text, state)  # "Galehawk's dive": its Gale Dive
    notes += named
    text, named = option_they_used(pack, sides, text)  # "Nadira threw something": her Null Grenade
    notes += named
    text = _appositive(pack, text)  # "the pistol one, Lorcan": the name, not a guess at the words
    described, said, unclear = describe(pack, sides, text)
    opening = _CORRECTION_LEAD.match(text)
    correcting = opening is not None and _CORRECTING.search(opening.group(0)) is not None
    if unclear is not None and history and len(unclear.options) == 1:
        if unclear.options[0][1] in _units(pack, history[-1].utterance):
            unclear = None  # "is my bird any good into Voltail" - "I meant my lightning guy": not Voltail
    if unclear is not None and history and (_FOLLOW_UP.match(text) or correcting):
        # "Could Galehawk beat their Briarcat?" - "and the electric one?": the one on the side of
        # the unit the last question named last (the one a follow-up puts another in place of);
        # "no wait, I meant the electric one, not the turtle": of the side of the one said wrong.
        wrong = [m.id for m in link_entities(pack, described) if _NOT_X.search(described[: m.span[0]])]
        replaced = wrong[:1] or _units(pack, history[-1].utterance)[-1:]
        on_side = [u for side, u in unclear.options if replaced and side == sides.side_of(replaced[0])]
        if len(on_side) == 1:
            described = unclear.template.replace(HOLE, _side_name(pack, sides, on_side[0]))
            said, unclear = [f"the one on the side of {replaced[0]}: {on_side[0]}"], None
    if unclear is not None and said:
        # Another description resolved ("the sniper and the rifle girl"): no question back about
        # the one left (the answer is about the rest; a correction's side was settled above).
        unclear = None
    who_is = _WHO_IS.match(text)
    if (
        said
        and who_is is not None
        and len(_units(pack, described)) == 1
        and not _units(pack, text)
        and re.match(r"(?:their|my|the|our|your|that|this)\b", text[who_is.end() :], re.IGNORECASE)
    ):
        # "Who's their healer?" asks who fits the description: the answer is that unit itself.
        who = _WHO_IS.match(described)  # (the description read: its own length, not the text's)
        described = f"tell me about {described[who.end() if who else 0 :]}".rstrip(" ?.!")
    elif said and len(_units(pack, described)) == 1 and not _units(pack, text) and _WHAT_IS_ONE.match(text):
        # "What's the tank I have that charges into people": that unit, by what it does
        one = next(m for m in link_entities(pack, described) if m.kind == pack.catalog.schema.kind("unit"))
        owner = re.search(r"\b(?:my|their)\s+$", described[: one.span[0]], re.IGNORECASE)
        described = f"tell me about {owner.group(0) if owner else ''}{described[one.span[0] : one.span[1]]}"
    text = _appositive(pack, _mine_said_after(pack, described))
    notes += said
    units = [m for m in link_entities(pack, text) if m.kind == pack.catalog.schema.kind("unit")]
    if len(units) == 2 and (beats := _beats_said(sides, text, units)) is not None:
        text, notes = beats, [*notes, "one said to beat another: whether it does"]
    if (
        len(units) == 1
        and sides.side_of(units[0].id) == "theirs"
        and _KEEPS_DOING.match(text[units[0].span[1] :])
    ):
        if not _ASKS_OTHER.search(text) and "?" not in text:
            # "turtle keeps shielding": trouble told, asked as what beats the one doing it
            # (two questions: what it does, then what beats it)
            text = f"{text.rstrip(' .!')}{JOINT}how do i beat {units[0].surface}"
            notes = [*notes, "trouble told: what it does, and what beats it", BOTH_NOTE]
    if history and (swapped := _in_instead(pack, sides, text, history[-1])) is not None:
        text, notes = swapped, [*notes, "another one in, in place of the last pick"]
    for step in (_out_unit, _correct, _follow_up, _choice_of):
        text, said = step(pack, sides, text, history)
        notes += said
        if said and not said[0].startswith(("dropped", "restated")):
            break
    text, said = _compared(pack, text, history)
    notes += said
    text, said = _spot_of(pack, sides, text, history)
    notes += said
    text, said = _instead_of(pack, sides, text, history)
    notes += said
    text, said = _of_those(pack, sides, text, history)
    notes += said
    text, said = _of_those_types(pack, sides, text, history)
    notes += said
    text, said = _by_level(pack, state, text, history)
    notes += said
    text, said, unsure = _refer(pack, sides, text, history)
    notes += said
    text, said = _not_this_but_that(pack, sides, text)
    notes += said
    unclear = unclear or unsure or _unplaced(pack, sides, text, history)
    if (
        unclear is not None
        and all(side == "theirs" for side, _ in unclear.options)
        and _ONLY_THEIRS.fullmatch(unclear.template)
    ):
        # "their big hitter" and it fits two of theirs: which of theirs matters most is the answer
        return Reading("who is their biggest threat", (*notes, "one of theirs, said alone: their threat"))
    if unclear is not None:
        return Reading(text=text, resolved=tuple(notes), ask=_ask(pack, unclear), pending=unclear.template)
    if history and _BEATS_THAT.match(text) and _their_whole_side(pack, history[-1]):
        # "Their five plays poke, like the Long Watch comp" - "ok what beats that": their team.
        text = _BEATS_THAT.sub(lambda m: f"{m['ask']} their team", text)
        notes.append("'that' -> their team (the last answer read their side)")
    if history and not nothing_asked(text):  # ("ok do it", "gotta deal with that one sec": nothing asked)
        last = history[-1]
        first = _first_sentence(last.reply)
        # The last question as it was read: "my fox keeps getting one shot" named Emberfox.
        asked = describe(pack, sides, last.utterance)[0]
        sources = [asked, first, last.reply[len(first) :]]
        if (
            "which" in shapes(asked)
            and len(set(_units(pack, asked))) >= 2
            and set(_units(pack, first)) & set(_units(pack, asked))
        ):
            # "which of theirs do I worry about" - "Shellbastion is their biggest threat" - "what do
            # I send at it": the one the answer chose (of those asked about) is what "it" is now
            chosen = next(u for u in _units(pack, first) if u in _units(pack, asked))
            sources = [display(pack, pack.catalog.schema.kind("unit") or "", chosen), *sources]
        if (_ASKS_SEND.search(asked) or _REPLACES.search(asked)) and (
            _COMPARES.search(text) or _OWN_ASKED.search(text)
        ):
            # "what do I send at it" - "Lead with Oakhorn ..." - "is that better than my fox": the pick
            picked = [m.id for m in link_entities(pack, first) if PICK_BEFORE.search(first[: m.span[0]])] or [
                u
                for u in _units(pack, first)
                if not taken_out(pack, first, u)  # "take Dumaka off, put Brannoc on"
            ]
            if picked:
                sources = [display(pack, pack.catalog.schema.kind("unit") or "", picked[0]), *sources]
        foe = sides.theirs.__contains__
        # (what an effect is done to, "hit all of them", is left as said: see _effect_done_to)
        effect = effect_question(pack, text)
        head, tail = (text[: effect.at], text[effect.at :]) if effect is not None else (text, "")
        it_at = _TEAM_IT.search(head)
        if (
            it_at is not None
            and _our_team(pack).search(asked)
            and not _units(pack, asked)
            and not _units(pack, head)
        ):
            # "is my team ok for that" - "Mostly: ..." - "what would make it better": the team, not a
            # unit the answer named
            head = head[: it_at.start("it")] + "my team" + head[it_at.end("it") :]
            notes.append("'it' -> the team the last question was about")

        def mine(uid: str) -> bool:
            return sides.side_of(uid) == "mine" and uid not in sides.theirs

        it = resolve_reference(pack, ONE_OWNED.sub(r"\1 it", head), sources, foe, mine)
        it = resolve_which(pack, resolve_place(pack, it, sources), sources, foe)
        it = resolve_any_of(pack, it, sources) + tail
        if it != text:
            notes.append("'it' -> the last exchange's entity")
            text = it
            if (theirs := _answer_to_their_option(pack, sides, text)) != text:
                # "it keeps lighting us up" of their Spotter Drone: their Tamsin is the trouble
                text, notes = theirs, [*notes, "their option: the one who has it"]
    there = _THERE_FOE.search(text)
    if history and there is not None and not [u for u in _units(pack, text) if sides.side_of(u) == "theirs"]:
        foes = [u for u in _units(pack, history[-1].utterance) if sides.side_of(u) == "theirs"]
        if len(foes) == 1 and link_entities(pack, text):
            # "Galehawk or Granitusk against Voltail?" - "is Galehawk just bad there": against Voltail.
            name = display(pack, pack.catalog.schema.kind("unit") or "", foes[0])
            text = f"{text[: there.start()]}against {name}{text[there.end() :]}"
            notes.append(f"'there' -> against {name}")
    if history and _GO_AHEAD.match(text) and _units(pack, history[-1].utterance):
        # "Can I equip the Dome Projector on Brannoc?" - "do it": that request, made.
        text = history[-1].utterance
        notes.append("go ahead: the last request")
    if history and WHAT_NOW.match(normalise(text)):
        foes = [u for u in _units(pack, history[-1].utterance) if sides.side_of(u) == "theirs"]
        if foes and not _ASKED_START.match(normalise(history[-1].utterance)):  # a trouble told, not asked
            # "Their grassy cat keeps killing my bird" - "what do I do": about that, not the match.
            text = history[-1].utterance
            notes.append("what now: the last question's trouble")
    if history and (level_it := _about_one_to_level(pack, text, history[-1])) is not None:
        text = level_it
        notes.append("the last levelling question, of this one")
    if history and (instead := _pick_instead(pack, sides, text, history[-1])) is not None:
        text = instead
        notes.append("a pick in place of the last one")
    if history and (rather := _rather_than_the_pick(pack, sides, text, history)) != text:
        text = rather
        notes.append("the player's alternative weighed against the last pick")
    if history and (other_side := _AND_THEIRS.match(text)) is not None:
        # "Who's my strongest?" - "and theirs?": the same question of the other side
        to_theirs = other_side["side"].lower() in ("theirs", "them", "their side", "the other team")
        swapped = _side_words(history[-1].utterance, to_theirs)
        if swapped != history[-1].utterance:
            text = swapped
            notes.append("the last question, of the other side")
    if history and (without := _WITHOUT_IT.match(text)) is not None:
        gone = [u for u in _units(pack, without["rest"]) if u in _put_forward(pack, history[-1])]
        if gone and _short(pack, without["rest"]):
            # "Swap Sparkwing out for Hexmoth" - "what if I don't have that one": the same question
            # with the pick kept out (not whether the player owns it).
            names = " or ".join(display(pack, pack.catalog.schema.kind("unit") or "", u) for u in gone)
            text = f"{history[-1].utterance.rstrip(' ?.!')} without {names}"
            notes.append("without the last pick: the last question")
    kept_out = {m.id for m in link_entities(pack, text) if _KEEP_OUT.search(text[: m.span[0]])}
    if (
        ASK_AGAIN.search(text.lower())
        and not [u for u in _units(pack, text) if u not in kept_out]  # "someone else, not Brannoc"
        and history
        and _put_forward(pack, Exchange(history[-1].utterance.partition(JOINT)[0], history[-1].reply))
    ):
        # "Another option?" after "who counters Paxton?" answered with a pick: another answer to that
        # question (after an answer that put nothing forward, W3's next direction answers it).
        asked = history[-1].utterance
        role_words = set(re.findall(r"[a-z]+", asked.lower())) & describer(pack).vocabulary  # "who can tank"
        # (or a question whose answer is a pick: "what's the next hero I unlock" - "and after that",
        # also when a second question was asked with it)
        if JOINT in asked and _ASKS_PICK.search(asked.partition(JOINT)[0]):
            asked = asked.partition(JOINT)[0]
        if (_units(pack, asked) or role_words or _ASKS_PICK.search(asked)) and JOINT not in asked:
            # Asked again already ("who counters Paxton, another option?"): the question it asked.
            cuts = [i for i, ch in enumerate(asked) if ch == "," and _units(pack, asked[:i])]
            asked = next((asked[:i] for i in cuts if ASK_AGAIN.search(asked[i:].lower())), asked)
            again = re.sub(r"^(?:and|so|ok|okay)\W+", "", text.strip(), flags=re.IGNORECASE)  # (not a JOINT)
            text = f"{asked.rstrip(' ?.!')}, {again}"
            notes.append("asked again: the last question")
    last_units = (
        (_units(pack, history[-1].utterance) or _units(pack, _first_sentence(history[-1].reply)))
        if history
        else []
    )
    text, said = slotted(pack, state, text, last_units[0] if len(last_units) == 1 else None)
    text, named = option_by_word(pack, text, state)  # "his other gun", now "Lorcan's other gun"
    said += named
    text, named = option_by_description(pack, text)  # "Tidefang's giant wave move": Tsunami Crash
    said += named
    # A guess at what a question asked back meant is said as one ("Taking it as your Sparkwing.").
    lead = next((f"Taking it as {n.removeprefix(ASSUMED)}." for n in notes if n.startswith(ASSUMED)), None)
    return Reading(text=text, resolved=(*notes, *said), lead=lead)
