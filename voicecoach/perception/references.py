""" "How do I unlock it?", "whose is that?", "what would that new move do?": a pronoun that stands
for a thing the dialogue named (a skill, an item, a comp, a creature).

A player asks about the last answer the way they would ask a friend: "who has it", "put it on",
"how far am I from that". Every rule after W1's input reads names, so the pronoun is replaced by
the name of the entity the last exchange was about:

- **Which kind.** The words around the pronoun say it when they can: a kind's own nouns ("that
  move", "that comp") and verbs ("evolve it": a creature; "equip it": an item), from the pack's
  schema; a kind's noun elsewhere in the sentence rules that kind out ("what *moves* does it
  have": not a skill). Otherwise the option kind first (a skill, an item: what answers are about),
  then the unit, then the rest.
- **Which entity.** Of that kind, the one the player's last question named, then the coach's
  answer (its first sentence before the rest), never one this sentence names itself ("can
  Emberfox use it": the skill).
- **Not a reference.** "It" in idioms ("close it out", "keep it up", "worth it", "got it"), a
  dummy subject ("is it worth levelling Hexmoth?"), "that" as a conjunction or after a noun ("if
  that makes sense", "a pet that hits hard"), and "this" without a noun ("this round" is now).

People's units ("he", "him", "the other one") are `voicecoach.perception.dialogue`'s: they need the
side the sentence points to. Pure Python over the pack's schema and names: no Pipecat, no model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from voicecoach.domain.catalog import Role, Schema
from voicecoach.domain.entities import EntityKind, Mention, link_entities
from voicecoach.domain.pack import Pack
from voicecoach.perception.descriptions import display, faces_foe

# English cue words by role (a kind's own words come from the schema: pet's "skill", "evolve" ...).
_ROLE_VERBS: dict[Role, tuple[str, ...]] = {
    "unit": ("level", "levelling", "leveling", "train", "training", "field", "bring", "swap", "buy",
             "with", "against", "counter", "counters", "beat", "beats", "replace", "replaces",
             "around", "fit", "slot"),
    "option": ("unlock", "unlocks", "equip", "equipped", "learn", "learns", "cast"),
}  # fmt: skip
_ROLE_NOUNS: dict[Role, tuple[str, ...]] = {"unit": ("guy",)}

# "That" stands for a thing when the sentence ends after it, or a verb or preposition of a question
# about it follows ("what does that do", "is that good", "any of that on my team").
_THAT_BEFORE = (
    r"(?:[\s?.!,]*$|\s+(?:do|does|did|replace|replaces|cost|costs|need|needs|is|was|on|in|for|to|"
    r"with|at|against|from|yet|now|already|still|really|first|next|work|works|unlock|unlocks|good|"
    r"better|worth|any|mean|come|comes|require|requires|down|out|off)\b)"
)  # "shut that down", "take that out", "pick that off": a phrasal verb's object
# ... and not after a word that makes it a conjunction or a relative ("so that", "a pet that").
_THAT_NOT_AFTER = re.compile(
    r"\b(?:so|such|now|sure|think|know|say|said|mean|guess|hope|except|something|anything|someone|"
    r"anyone|one|ones|team|teams|guy|guys|who|coach|thing|things|fix|fixes|solve|solves|change|changes|"
    r"explain|explains|means|after)\s*$",  # "and after that": then, not a thing
    re.IGNORECASE,
)
# "It" that stands for nothing the dialogue named.
_IDIOM = re.compile(
    r"\b(?:turn(?:ed|ing|s)? it around|keep(?:ing)? it up|appreciate it|close(?:d|s)? it out|"
    # ("make it" ends the clause or goes on "to round 3": "how do I make it stronger" is a thing)
    r"ma(?:ke|de|king) it(?=\s*(?:$|[,.!?;]|\s(?:to|through|back|out|in\s+time|there)\b))|"
    r"nail(?:ed)? it|w[io]n(?:ning)? it|los(?:e|t|ing) it|decid(?:e|es|ed) it|"
    r"trad(?:e|ed|ing) it|worth it|(?<!have i )(?<!have we )(?<!ve )got it|"
    r"(?<!can )(?<!could )(?<!when )(?<!how )(?<!do )(?<!where )(?<!will )(?<!should )"
    r"(?:i|we|you) get it|"
    r"go(?:ing)? for it|pull(?:ed)? it off|"
    r"wing it|mix it up|play(?:ing)? it (?:safe|cool|slow)|take it (?:easy|slow)|"
    r"(?:do|doing|done|did) it|fix(?:ed)? it|(?:that|this) it|how(?:'s| is) it go(?:ing)?|"
    # ("should it go after their fox": a unit that goes somewhere)
    r"it (?:go(?:es|ing)?(?!\s+(?:after|against|for|into|in|first|with|on|up\s+against)\b)|depends|seems|"
    r"looks like|feels like|turns out)|"
    # the match, not a unit: "what round is it", "is it over", "is it still round two"
    r"(?:what|which)\s+round\s+is\s+it|(?:is|was)\s+it\s+(?:over|done|still\s+round|round|the\s+(?:last|final))|"
    r"it(?:'s|\s+is)\s+over)\b",
    re.IGNORECASE,
)
_ONE_AFTER = re.compile(
    r"\b(?:use|using|get|getting|about|does|is|worth|unlock|equip|learn|run|cast|for|have|own|got|bring|pick|"
    r"with|level|train|keep|drop|bench|play|field|upgrade|than)\s+$",
    re.IGNORECASE,
)
# Between a name and a pronoun, a new clause: the name is what the pronoun stands for.
_CLAUSE = re.compile(
    r"[,;.?!]|\b(?:how|what|who|which|so|and|but|then|should|can|or|is|isnt|does|doesnt|did|will|would|could)\b"
    r"|\bdo\s+(?:i|we|you)\b",  # "Thicket Wall do I have it" (not "how does Oakhorn do against it")
    re.IGNORECASE,
)
_SUBJECT_VERB = re.compile(r"^\s*(?:should|can|could|will|would|does|did|is)\b", re.IGNORECASE)
# Words before a pronoun that stands for a foe ("beat that", "what comes out for it").
_FOE_BEFORE = re.compile(
    r"\b(?:beat|beats|counter|counters|against|vs|versus|into|handle|deal with|stop|for|break|crack|reach|"
    r"get\s+to|get\s+past|kill|catch|dive|take\s+out|"
    # "who do I send at her", "who goes after him", "should we focus her"
    r"send\s+(?:\w+\s+)?(?:at|after|into)|go(?:es)?\s+(?:at|after)|aim\s+at|shoot(?:\s+at)?|focus|target|fight|"
    r"face|facing|hunt|jump|punish|pressure)\s+$",
    re.IGNORECASE,
)
PICK_BEFORE = re.compile(
    r"\b(?:bring|play|go with|swap to|use|run|field|lead with|put)\s+(?:your\s+)?$", re.IGNORECASE
)
_OWN_BEFORE = re.compile(r"\b(?:own|have|got|get|unlock(?:ed)?)\s+$", re.IGNORECASE)
# "Do I own one?" after a pick: one of what was just named (only at the end: "one of them" is a choice).
ONE_OWNED = re.compile(r"\b(own|have|got|get)\s+one\b(?=\W*(?:yet|already|too|now)?\W*$)", re.IGNORECASE)
# A unit described earlier in the sentence ("their plant one, ...", "my bird, is it ..."); names
# are `voicecoach.perception.descriptions`' when it can place them.
DESCRIBED = re.compile(
    r"\b(?:their|my|your|the)\s+(?:\w+\s+){0,2}\w+(?:\s+(?:one|guy|dude|girl))?\s*[,;]",
    re.IGNORECASE,
)
# A dummy subject: "is it worth putting time into Hexmoth", "would it be better to ...".
_DUMMY = re.compile(
    r"\b(?:is|was|would|will|does|did)\s+it\s+(?:be\s+)?(?:worth|better|best|smart|wise|ok|okay|"
    r"possible|a good idea|a bad idea|too late|time|fine|true|normal|bad|matter|help|make sense)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Kinds:
    """A schema's referring kinds and their words, in the order a bare "it" tries them."""

    order: list[EntityKind]
    words: dict[EntityKind, frozenset[str]]
    nouns: dict[EntityKind, frozenset[str]]
    pattern: re.Pattern[str]
    unit: EntityKind | None  # the kind a foe cue wants ("how do I beat it")
    about: dict[EntityKind, frozenset[str]]  # words anywhere in the sentence that say the kind
    groups: frozenset[EntityKind] = frozenset()  # teams: beaten, countered and faced as units are


_KINDS: dict[int, tuple[Schema, _Kinds]] = {}


def _kinds(schema: Schema) -> _Kinds:
    hit = _KINDS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    roles = [schema.kind("option"), schema.kind("unit")]
    order = [k for k in roles if k is not None]
    order += [k for k in schema.kinds if k not in order and (schema.kinds[k].nouns or schema.kinds[k].verbs)]
    order += [k for k in schema.kinds if k not in order and schema.kinds[k].role == "group"]
    # Last: a type ("does electric beat grass?" - "so what beats it?"), when nothing else was named.
    order += [k for k in schema.kinds if k not in order and schema.kinds[k].role == "type"]
    words: dict[EntityKind, frozenset[str]] = {}
    nouns: dict[EntityKind, frozenset[str]] = {}
    for kind in order:
        spec = schema.kinds[kind]
        k_nouns = {w.lower() for w in (*_ROLE_NOUNS.get(spec.role, ()), *spec.nouns)}
        k_verbs = {w.lower() for w in (*_ROLE_VERBS.get(spec.role, ()), *spec.verbs)}
        nouns[kind] = frozenset(k_nouns)
        words[kind] = frozenset(k_nouns | k_verbs)
    all_nouns = sorted({n for ns in nouns.values() for n in ns}, key=len, reverse=True)
    noun = "|".join(map(re.escape, all_nouns))
    # "That move" names the last one; "this map", "this comp" are the ones in play now.
    named = rf"|that\s+(?:new\s+|other\s+|same\s+|last\s+)?(?P<noun>{noun})" if all_nouns else ""
    it, that = r"(?P<it>it)(?!')", rf"(?P<that>that)(?={_THAT_BEFORE})"
    # "what about its skills": the unit's; "its over", "its gonna be close": "it's" as speech
    # recognisers spell it, no one's
    its = (
        r"(?P<its>its)(?=\s+[a-z])(?!\s+(?:over|done|fine|ok|okay|gonna|going|not|been|a|an|the|all|just|so|"
        r"too|only|still|probably|really|like|pretty|better|worse|good|bad|true|time|lost|won|close|tied|my|our|"
        r"your|their|on|in|up|down|now)\b)"
    )
    pattern = re.compile(rf"\b(?:{its}|{it}|{that}|(?:that|this) one{named})\b", re.IGNORECASE)
    # "What stage is it": anywhere in the sentence, the progression's field (pet's "stages") is
    # the unit's.
    about = (
        {schema.progression.kind: frozenset({schema.progression.field.lower().removesuffix("s")})}
        if schema.progression is not None
        else {}
    )
    groups = frozenset(k for k in schema.kinds if schema.kinds[k].role == "group")
    kinds = _Kinds(order, words, nouns, pattern, schema.kind("unit"), about, groups)
    _KINDS[id(schema)] = (schema, kinds)
    return kinds


_THERE = re.compile(
    # (not "how many heroes are there": that "there" is no place)
    r"(?:\b(?:on|at|in)\s+)?(?<!\bare\s)(?<!\bis\s)(?<!\bwere\s)\bthere"
    r"(?=\s*(?:[?.!,]|$|though\b|too\b|then\b|right now\b))",
    re.IGNORECASE,
)


def resolve_place(pack: Pack, text: str, previous: Sequence[str]) -> str:
    """ "Who's bad there?" after a map was named: "there" is that place (the schema's context kind,
    a strike map; a pack without one has no place to refer to). "There's" and "there is" are not."""
    schema = pack.catalog.schema
    place = schema.kind("context")
    match = _THERE.search(text)
    if place is None or match is None or any(m.kind == place for m in link_entities(pack, text)):
        return text
    named = next((m for source in previous for m in link_entities(pack, source) if m.kind == place), None)
    if named is None:
        return text
    return f"{text[: match.start()]}on {display(pack, place, named.id)}{text[match.end() :]}"


_WHICH = re.compile(
    # "which one of their guys": a choice among the group it names, not among the last exchange's
    r"\bwhich\s+(?:(?:one|ones)(?:\s+of\s+(?:them|those|these|em)\b)?(?!\s+of\s+(?:their|your|my|our|his|her|the\s+enemy)\b)"
    r"|of\s+(?:them|those|these|the\s+two|the\s+three))\b"
    # "which is the best one", "which hits hardest": "which" alone, a verb after it
    r"|\bwhich(?=\s+(?:is|are|s|'s|hits|does|do|would|should|works?)\b)",
    re.IGNORECASE,
)


_NUMBERS = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4}
_COUNT = re.compile(r"\s+(two|three|four|2|3|4)\b", re.IGNORECASE)


def resolve_which(
    pack: Pack, text: str, previous: Sequence[str], foe: Callable[[str], bool] | None = None
) -> str:
    """ "Which one hits hardest?" after the coach listed Oakhorn's skills: the choice is among
    what the last exchange listed - "which skill of Oakhorn" (the option kind, with the unit it
    was about), or "which of Tidefang and Granitusk" (two or more units of one side; `foe` tells
    theirs). "Them" is what the player's own question listed, never the coach's answer."""
    match = _WHICH.search(text)
    if match is None or link_entities(pack, text):
        return text
    schema = pack.catalog.schema
    option, unit = schema.kind("option"), schema.kind("unit")
    if "them" in match.group(0).lower():
        previous = previous[:1]  # "which of them should we focus": theirs, unless the player listed some
    said = [link_entities(pack, source) for source in previous]
    owner = next((m.id for mentions in said for m in mentions if m.kind == unit), None)
    count = _COUNT.match(text[match.end() :])
    for mentions in said:
        for kind in dict.fromkeys(m.kind for m in mentions if m.kind in (option, unit)):
            ids = list(dict.fromkeys(m.id for m in mentions if m.kind == kind))
            if len(ids) < 2 or (kind == unit and foe is not None and len({foe(i) for i in ids}) > 1):
                continue  # one named, or units of both sides ("against Shellbastion, go with Oakhorn")
            if count is not None and _NUMBERS[count.group(1).lower()] != len(ids):
                continue  # "which of those two" is not a list of four
            names = [display(pack, kind, i) for i in ids]
            if kind == option and owner is not None:
                choice = f"which {schema.noun(kind)} of {display(pack, unit or '', owner)}"
            else:
                choice = f"which of {', '.join(names[:-1])} and {names[-1]}"
            return text[: match.start()] + choice + text[match.end() :]
    return text


# (not "which one of them": a choice, `resolve_which`)
_ANY_OF = re.compile(
    r"(?<!which\s)\b(?:any|either|both|one|all)\s+of\s+(?:them|those|these|em)\b", re.IGNORECASE
)


def resolve_any_of(pack: Pack, text: str, previous: Sequence[str]) -> str:
    """ "Do I own any of them?" after "who counters snipers" was answered: the units the coach's
    answer named that the question did not (its picks), else the ones the player listed (`previous`:
    the player's question first, then the answer), joined with "or" (asked about each,
    `dialogue.read_turn`)."""
    match = _ANY_OF.search(text)
    unit = pack.catalog.schema.kind("unit")
    if match is None or unit is None or link_entities(pack, text) or not previous:
        return text
    asked = list(dict.fromkeys(m.id for m in link_entities(pack, previous[0]) if m.kind == unit))
    answered = [m.id for source in previous[1:] for m in link_entities(pack, source) if m.kind == unit]
    picks = [u for u in dict.fromkeys(answered) if u not in asked]
    ids = picks or asked
    if not ids:
        return text
    names = [display(pack, unit, i) for i in ids[:3]]
    said = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return text[: match.start()] + said + text[match.end() :]


_OUT_BEFORE = re.compile(r"\b(?:swap|take|drop|bench|pull|sub|sit)\s+(?:your\s+)?$", re.IGNORECASE)
_OUT_AFTER = re.compile(r"^\s+(?:off|out)\b", re.IGNORECASE)


def taken_out(pack: Pack, answer: str, uid: str) -> bool:
    """Does `answer` take this unit off the team ("swap Dumaka off", "take Renzo out")?"""
    for m in link_entities(pack, answer):
        if m.id == uid and (_OUT_BEFORE.search(answer[: m.span[0]]) or _OUT_AFTER.match(answer[m.span[1] :])):
            return True
    return False


def _word_before(text: str) -> str:
    words = re.findall(r"[a-z']+", text.lower())
    return words[-1] if words else ""


def _word_after(text: str) -> str:
    match = re.match(r"\s*([a-z']+)", text.lower())
    return match.group(1) if match else ""


def resolve_reference(
    pack: Pack,
    text: str,
    previous: str | Sequence[str] | None,
    foe: Callable[[str], bool] | None = None,
    mine: Callable[[str], bool] | None = None,
) -> str:
    """`text` with its first pronoun that refers back replaced by the name of the entity the last
    exchange named (`previous`: the texts it said, most salient first: the player's question, then
    the coach's answer; `foe`: is a unit on the opponent's side, from the live state; `mine`: is
    it only the player's, then said as "my Hexmoth" where the words make it a foe, so "what beats
    it" stays about the player's own). Unchanged when nothing in `text` refers back or nothing fits."""
    if not previous:
        return text
    sources = [previous] if isinstance(previous, str) else list(previous)
    text = _THAT_THING.sub("it", text)  # "how long does that thing even last": it
    types = {k for k, spec in pack.catalog.schema.kinds.items() if spec.role == "type"}
    said = [link_entities(pack, source) for source in sources]
    kinds = _kinds(pack.catalog.schema)
    linked = link_entities(pack, text)
    here = {m.id for m in linked}
    for match in kinds.pattern.finditer(text):
        before, after = text[: match.start()], text[match.end() :]
        if match["that"] and _THAT_NOT_AFTER.search(before):
            continue
        # "the spark wing, how hard does that hit it": "that" is the one named, "it" another (the
        # object of a verb whose subject is a pronoun of its own).
        other = match["it"] is not None and _PRONOUN_SUBJECT.search(before) is not None
        if DESCRIBED.search(before) and not other:
            continue  # "their plant one, what is it weak to": the description is what it stands for
        if match["it"] and any(i.start() <= match.start() < i.end() for i in _IDIOM.finditer(text)):
            continue
        if match["its"] and any(m.span[1] <= match.start() for m in linked):
            continue  # "does Oakhorn have its last stage yet": the one this sentence named
        if match["it"] and _DUMMY.search(text[max(0, match.start() - 12) :]) and _subject_named(text, linked):
            continue  # "is it worth putting time into Hexmoth": Hexmoth is the subject
        if match["it"] and re.search(r"\b(?:in|on)\s+$", before) and _team_noun(pack).search(before):
            continue  # "a comp with Paxton in it": the team the sentence is about
        if match.group(0).lower() in ("that one", "this one") and (
            not _ONE_AFTER.search(before) or re.match(r"\s*(?:sec|second|min|minute|moment)s?\b", after, re.I)
        ):
            # "won that one", "like that one": a round, a manner; only a verb says a thing ("deal
            # with that one sec": a moment)
            continue
        wanted = _wanted(kinds, match, before, after, text, {m.kind for m in linked})
        earlier = [m for m in linked if m.kind in wanted and m.span[1] <= match.start()]
        if not earlier and match["it"]:
            # "Thicket Wall, do I have it": the one this sentence opened with, whatever its kind,
            # before one the last exchange named.
            earlier = [m for m in linked if m.span[1] <= match.start()]
        # "Emberfox should stay away from it": the unit is the subject of the verb "it" is the object
        # of (a modal right after it): not an earlier clause's. "Prismite came in, how do I beat that?"
        gap = _SUBJECT_VERB.sub("", text[earlier[-1].span[1] : match.start()], count=1) if earlier else ""
        if earlier and _CLAUSE.search(gap) and not other:
            # "Prismite just came in, how do I beat that?": the one this sentence named.
            name = display(pack, earlier[-1].kind, earlier[-1].id)
            owner = "'s" if match["its"] else ""
            return f"{before}{name}{owner}{after}"
        if not other and any(
            m.kind in wanted
            and _CLAUSE.search(_SUBJECT_VERB.sub("", text[m.span[1] : match.start()], count=1))
            for m in linked
        ):
            continue  # named after it in a clause of its own: not the one it stands for
        # A list the coach said ("it learns A, B, C and D") is no one thing "it" can stand for.
        # (its subject is not: "Hexmoth deals normal damage to Briarcat, Shellbastion and Voltail")
        listed = {
            m.id
            for ms in said[1:]
            for k in {m.kind for m in ms}
            if len({m.id for m in ms if m.kind == k}) >= 3
            for m in ms
            if m.kind == k and m.span[0] > 0
        }
        # Of the types the question named, the last: "does electric beat grass" - "what beats it".
        # (what the player's own question named stays, listed or not: "my fox keeps getting one
        # shot" - "take Emberfox out and bring Oakhorn ..." - "would evolving it help": the fox)
        candidates = [
            m
            for kind in wanted
            for i, ms in enumerate(said)
            for m in (ms[::-1] if kind in types else ms)
            if m.kind == kind and m.id not in here | (listed if i else set())
        ]
        # "Swap Sparkwing out for Hexmoth" - "what moves does it have": the one put forward.
        gone = {
            m.id
            for source in sources[1:]
            for m in link_entities(pack, source)
            if taken_out(pack, source, m.id)
        }
        candidates.sort(key=lambda m: (wanted.index(m.kind), m.id in gone))  # within its kind
        if foe is not None and (_FOE_BEFORE.search(before) or faces_foe(before, after)):
            # "who comes out for that", "how do I beat that": one of theirs before one of the player's,
            # and not the one the answer told them to bring (a hero both sides may field)
            picked = {m.id for source in sources[1:] for m in link_entities(pack, source)
                      if PICK_BEFORE.search(source[: m.span[0]])}  # fmt: skip
            candidates.sort(key=lambda m: (not foe(m.id), m.id in picked))
        elif foe is not None and _OWN_BEFORE.search(before):
            # "do I own it" after "lead with Oakhorn against Shellbastion": the pick, not the foe
            candidates.sort(key=lambda m: foe(m.id))
        if candidates:
            name = display(pack, candidates[0].kind, candidates[0].id)
            owner = "'s" if match["its"] else ""
            if (
                mine is not None
                and mine(candidates[0].id)
                and not _OWNER_SAID.search(before)
                and (_FOE_BEFORE.search(before) or faces_foe(before, after))
            ):
                name = f"my {name}"  # "what beats it" of the player's own: still theirs, not a foe
            return f"{before}{name}{owner}{after}"
    return text


# "How long does that thing last", "what does this thing do" (English cue words): "it", said as a
# thing; not "that thing their healer throws" (a description).
_THAT_THING = re.compile(
    r"\b(?:that|this)\s+thing\b(?=\s*(?:[?.!,]|$|(?:even\s+|actually\s+|really\s+)?(?:last|lasts|do|does|work|works|"
    r"cost|costs|hit|hits|stack|stacks|need|needs|take|takes)\b))",
    re.IGNORECASE,
)


_OWNER_SAID = re.compile(r"\b(?:my|our|their|your|his|her|the)\s+$", re.IGNORECASE)


# "does that hit it", "can he beat it": a pronoun subject before the verb "it" is the object of.
_PRONOUN_SUBJECT = re.compile(
    r"\b(?:does|do|did|can|could|will|would|should)\s+(?:that|this|he|she|they)\s+(?:\w+\s+){0,2}$", re.I
)


# Putting a unit into the match: "put it in", "bring it", "worth playing", "send it in".
_FIELDING = re.compile(
    r"\b(?:put(?:ting)?\s+(?:\w+\s+)?in|bring(?:ing)?|field(?:ing)?|play(?:ing)?|send(?:ing)?\s+(?:\w+\s+)?in|"
    r"swap(?:ping)?\s+(?:\w+\s+)?in|bench(?:ing)?|sit(?:ting)?\s+(?:\w+\s+)?out)\b",
    re.IGNORECASE,
)
_FACED = re.compile(r"\b(?:against|vs|versus|on|at|facing)\s+(?:their\s+|the\s+|that\s+)?$", re.IGNORECASE)


def _subject_named(text: str, linked: Sequence[Mention]) -> bool:
    """Is a named unit what a dummy "it" stands for ("is it worth putting time into Hexmoth")? Not
    one named as what is faced: "is it worth putting in against Voltail" asks about the last one."""
    return any(not _FACED.search(text[: m.span[0]]) for m in linked)


def _team_noun(pack: Pack) -> re.Pattern[str]:
    """A team's words: "team", "squad", and the schema's group kinds and their nouns ("comp")."""
    schema = pack.catalog.schema
    groups = [w for n, k in schema.kinds.items() if k.role == "group" for w in (n, *k.nouns)]
    words = ["team", "squad", *groups]
    return re.compile(rf"\b(?:{'|'.join(map(re.escape, words))})s?\b", re.IGNORECASE)


_COMPARED = re.compile(
    r"^\s+(?:\w+\s+)?(?:(?:any\s+)?(?:better|worse|stronger|weaker|more\s+\w+|less\s+\w+)\s+than|vs|versus|"
    r"compared\s+(?:to|with)|or)\s",
    re.IGNORECASE,
)


# Verbs a unit does to its options, with "it" as their subject ("it learns", "it gets").
_UNIT_DOES = frozenset({"learn", "learns", "cast", "casts", "get", "gets"})


def _wanted(
    kinds: _Kinds, match: re.Match[str], before: str, after: str, text: str, named: set[EntityKind]
) -> list[EntityKind]:
    """The kinds this pronoun may stand for, most likely first (see the module doc)."""
    noun = match.groupdict().get("noun")
    if noun:
        return [k for k in kinds.order if noun.lower() in kinds.nouns[k]]
    if match.group(0).lower() in ("that one", "this one"):
        return list(kinds.order)
    if kinds.unit is not None and _word_after(after) in _UNIT_DOES and match["it"]:
        # "what does it learn at stage 2": "it" learns, casts, gets: the unit, not an option
        return [kinds.unit, *(k for k in kinds.order if k != kinds.unit)]
    cues = {_word_before(before), _word_after(after)}
    two = " ".join(re.findall(r"[a-z']+", before.lower())[-2:])
    cues.add(two)
    said = [k for k in kinds.order if cues & kinds.words[k]]
    if said:
        # "so what beats it": a unit's verb, and a team or a type when the last exchange named no
        # unit ("what's Long Watch" - "how do you beat it").
        rest = [k for k in kinds.order if k not in said and k != kinds.unit]
        teams = [k for k in rest if k in kinds.groups] if _FOE_BEFORE.search(before) else []
        return [*said, *teams, *(k for k in rest if not kinds.words[k])]
    spoken = {w.rstrip("s") for w in re.findall(r"[a-z]+", text.lower())}
    about = [k for k in kinds.order if spoken & kinds.about.get(k, frozenset())]
    if about:
        return [*about, *(k for k in kinds.order if k not in about)]
    if kinds.unit is not None and _FIELDING.search(text):
        # "is it worth putting in against Voltail": what is put in, brought or played is a unit
        return [kinds.unit, *(k for k in kinds.order if k != kinds.unit)]
    foe_cue = (_FOE_BEFORE.search(before) and _word_before(before) != "for") or faces_foe(before, after)
    if kinds.unit is not None and foe_cue:
        # "what do I pick into that", "how do I beat it": a unit to face, not an option
        return [kinds.unit, *(k for k in kinds.order if k != kinds.unit)]
    if named and (_COMPARED.match(after) or re.search(r"\bthan\s+$", before, re.IGNORECASE)):
        # "is that better than Flame Burst", "is my fox faster than it": two of one kind compared;
        # the kind named with it.
        return [*(k for k in kinds.order if k in named), *(k for k in kinds.order if k not in named)]
    # A kind's noun elsewhere in the sentence is not what the pronoun stands for ("what moves does
    # it have": the creature).
    # (not a group it is picked against: "which of their guys should it go after": a unit too)
    chosen_from = re.sub(r"\bof\s+(?:their|your|my|our|the)\s+(?:\w+\s+)?\w+s\b", " ", text.lower())
    spoken = {w.rstrip("s") for w in re.findall(r"[a-z]+", chosen_from)}
    others = [k for k in kinds.order if not {n.rstrip("s") for n in kinds.nouns[k]} & spoken] or kinds.order
    # So is a kind the sentence names ("can it use Tempest Fury": the creature; "can Emberfox use
    # it": the skill): such a kind comes last.
    # A kind with no words of its own (a group, a type: "does electric beat grass" - "what beats
    # it") only when nothing else fits.
    return sorted(others, key=lambda k: (not kinds.words[k] and k != kinds.unit, k in named))
