"""What the game data cannot tell: questions the coach answers with "the data doesn't show that".

Players ask a coach what it would know from playing: how fast a unit is, its cooldowns, whether an
effect stacks, what level the opponent's unit is, when theirs evolves, how to get a new one. A pack
holds only part of that (its schema's attributes and gates, the state's fields for the player's own
side), and an answer made from the rest answers another question fluently ("how fast is X" gets
X's profile as if that were its speed; "what level is their Y" gets the player's own Y). This step
finds the part the data lacks, so the realizer says so first (paper §5: W2 grounds the answer in
what the state holds, and what it does not hold is a grounded answer too), and the prior answers
the nearest thing the data does hold: the unit's or the option's profile.

The cue words are generic English; each one the pack's own schema or vocabulary uses (a pack with
a "range" attribute knows range) is not a limit. Pure Python over the pack: no Pipecat, no model.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from voicecoach.domain.entities import Mention, link_entities
from voicecoach.domain.pack import Pack
from voicecoach.perception.descriptions import side_word

_CAP = "a level cap"
# Stats and mechanics games have that a pack may not carry: the words, and how the reply names them.
_STATS: tuple[tuple[str, str], ...] = (
    (
        r"speed|how fast|how quick|quickness|fastest|quickest|slowest|faster than|slower than"
        r"|out[\s-]?speed\w*"
        r"|(?:is|are)\s+(?:\w+\s+)?(?:fast|faster|slow|slower|quick)\b",
        "speed",
    ),
    (r"hp|health|hit points|health points", "health points"),
    (r"cooldowns?|cds?", "cooldowns"),
    (r"crit|crits|critical(?: hit)?(?: chance| rate)?", "critical hits"),
    (r"accuracy|hit chance|miss chance", "accuracy"),
    (r"evasion|dodge(?: chance)?", "evasion"),
    (r"mana|energy|stamina", "energy or mana"),
    (r"ammo|magazine|mag size|reload(?: time| speed)?", "ammo or reload figures"),
    (r"price|prices|how much does \w+(?: \w+)? cost", "prices"),
    (r"drop rates?|spawn rates?", "drop rates"),
    (r"win ?rates?|pick ?rates?|ban ?rates?", "win or pick rates"),
    (r"k ?d|kda|kill counts?|death counts?|how many (?:kills|deaths|assists)", "kill counts"),
    (r"elo|mmr|rank points|rank|ranks|ranking", "ranked ratings"),
    (r"cast time|wind ?up", "cast times"),
    (r"weigh|weighs|height|how tall|how heavy|how old", "size, weight or age"),
    (r"range", "range"),
    (
        r"how\s+long\s+(?:does|do|will|would|can|is)\b(?:\s+\w+){0,5}?\s+(?:last|stay|stays|go\s+on|up|active)"
        r"|duration|how\s+many\s+(?:seconds|turns)",
        _DURATIONS := "how long effects last",
    ),
    (r"cap|level cap|max(?:imum)? level|level limit", _CAP),
)
# A time said in an option's own description ("blocks shots for four seconds"): its duration is known.
_TIME_SAID = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a)\s+(?:seconds?|turns?|rounds?)\b", re.I
)
# Figures of the game as a whole, asked of no unit: still figures the data does not have.
_OF_THE_GAME = frozenset({"prices", "drop rates", "win or pick rates", "kill counts"})
_POSITIONS = "where anyone is on the map"
# What happens live in the match that no state field holds (asked or told, with or without a unit).
_ROUNDS_PLAYED = "what happened in the rounds played"
_LIVE: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\brespawn\s+(?:time|timer|timers|wave|waves)\b|\bhow\s+long\s+(?:is|until|till|before|for)\s+"
            r"(?:the\s+|a\s+|my\s+|our\s+|i\s+|we\s+)?respawn",
            re.IGNORECASE,
        ),
        "respawn timers",
    ),
    (
        re.compile(r"\bafk\b|\bdisconnected\b|\bleft\s+the\s+(?:game|match)\b|\bnot\s+moving\b", re.I),
        "what your teammates are doing",
    ),
    (
        re.compile(
            r"\b(?:heal(?:ing)?|damage|dps|hps)\s+(?:numbers|output|per\s+second|stats)\b|\bout[\s-]?heal\w*"
            r"|\bhow\s+much\s+(?:damage|healing)\b",
            re.IGNORECASE,
        ),
        "healing or damage numbers",
    ),
    (
        re.compile(
            r"\bwhere\s+(?:should|do|can|could|would)\s+(?:i|we)\s+(?:\w+\s+)?(?:stand|be\s+standing|hide|sit|hold)\b"
            r"|\bwhere\s+(?:is|are|s)\s+(?:he|she|they|their\s+\w+)\s*(?:at|hiding|standing|now)?\s*\??$"
            r"|\b(?:up\s+high|on\s+high\s+ground|on\s+the\s+roof)\b.*\?*|\bcallouts?\b",
            re.IGNORECASE,
        ),
        _POSITIONS,
    ),
    (
        re.compile(
            r"\b(?:what|who)\s+(?:are|is|will|would|do|does)\s+(?:they|their\s+\w+|it|he|she|(?!i\b|we\b|you\b)\w+)\s+"
            r"(?:gonna\s+|going\s+to\s+|about\s+to\s+|likely\s+to\s+)?(?:open\s+with|lead\s+with|start\s+with|"
            r"go\s+after|target|focus)\b|\bwho\s+(?:does|will|would)\s+(?:it|he|she|they)\s+go\s+after\b"
            # "do you think they'll switch it up", "will they adapt"
            r"|\b(?:will|would)\s+they\s+(?:\w+\s+)?(?:switch|swap|change|adapt)\w*"
            r"|\bthey(?:'ll|ll|\s+will|\s+gonna|'re\s+gonna|re\s+gonna|\s+are\s+going\s+to)\s+(?:\w+\s+)?"
            r"(?:switch|swap|change|adapt)\w*",
            re.IGNORECASE,
        ),
        "what the other side will do",
    ),
    (
        re.compile(
            r"\bwhat\s+(?:went\s+wrong|did\s+(?:we|i)\s+do\s+wrong)\b|\bwhy\s+did\s+(?:we|i)\s+lose\b"
            r"|\bwhat\s+happened\s+(?:there|(?:in|to|with)\s+(?:that|the|this|our|my)\s+(?:\w+\s+)?"
            r"(?:round|fight|game|match|teamfight))\b"
            r"|\bhow\s+did\s+(?:we|i)\s+lose\b",
            re.IGNORECASE,
        ),
        _ROUNDS_PLAYED,
    ),
)
# What the moment of the fight holds and no state field does (the clock, who the player controls,
# health): said as such, with no stand-in answer after it.
_UNSEEN: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:round|match|game)\s+(?:timer|clock)\b|\bon\s+the\s+clock\b|\btime\s+(?:is\s+)?left\b"
            r"|\bhow\s+(?:long|much\s+time)\s+(?:is\s+|s\s+|do\s+we\s+have\s+|have\s+we\s+got\s+)?left\b",
            re.IGNORECASE,
        ),
        "the round's clock",
    ),
    (
        re.compile(
            r"\bwhich\s+(?:\w+\s+)?am\s+i\s+(?:on|playing|using|as)\b|\bwho\s+am\s+i\s+(?:playing|on)\b"
            r"|\bwhat\s+am\s+i\s+playing\b",
            re.IGNORECASE,
        ),
        "which one you're playing right now",
    ),
    (
        re.compile(
            r"\b(?:ult|ultimate|ulti)\s+(?:charge|ready|up)\b"
            r"|\b(?:health|hp)\s+(?:is|are)\s+(?:he|she|it|they)\s+on\b|\bis\s+(?:he|she|it)\s+low\b",
            re.IGNORECASE,
        ),
        "health or charge in the fight",
    ),
    # ... nor the game's client, its bugs, the weather or the next map: nothing stands in for them
    (
        re.compile(
            r"\b(?:bugged|buggy|a\s+bug|glitched|glitchy|hitbox\w*)\b",
            re.IGNORECASE,
        ),
        "whether something is bugged",
    ),
    (
        re.compile(r"\b(?:what|which)\s+(?:map|stage)\s+(?:is\s+)?(?:next|comes\s+next)\b", re.I),
        "which map comes next",
    ),
    (re.compile(r"\bweather\b.*\b(?:arena|map|match|fight|damage)\b", re.IGNORECASE), "the weather"),
    # ... nor the season's calendar or other players: no move in this match stands in for them either
    (
        re.compile(
            r"\bwhen\s+(?:does|is|will|do)\s+(?:the\s+)?(?:next\s+|new\s+)?season\b|\bseason\s+(?:end|ends|reset|resets)\b"
            r"|\bwhen(?:'?s|\s+is)\s+(?:the\s+)?(?:next|new)\s+season\b",
            re.IGNORECASE,
        ),
        "rewards or season dates",
    ),
    (
        re.compile(
            r"\b(?:best|pro)\s+players?\s+(?:in|of)\s+the\s+(?:world|game)\b|\bpro\s+players?\b|\bleaderboards?\b"
            # ("premade teams I could build": the game's known teams, not a party of players)
            r"|\b(?:a\s+)?pre-?made\b(?!\s+(?:teams?|comps?|builds?)\b)|\b(?:on\s+)?(?:voice\s+)?comms\b"
            r"|\bqueued\s+together\b",
            re.IGNORECASE,
        ),
        "other players or leaderboards",
    ),
)
# What the game keeps outside a match (rewards, season dates, quests' places): no state field, and no
# move in the match answers it.
_ELSEWHERE: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\bwhat\s+(?:rewards?|prizes?)\s+(?:do|will|would|can|could)\b"
            r"|\bwhat\s+(?:rank|rewards?)\s+(?:do|will|would|can)\s+(?:i|we)\s+(?:get|reach|hit|earn)\b",
            re.IGNORECASE,
        ),
        "rewards or season dates",
    ),
    (
        re.compile(
            r"\bwhere\s+(?:do|can|is|s|does)\s+(?:i\s+|we\s+)?(?:\w+\s+){0,2}?quests?\b", re.IGNORECASE
        ),
        "where quests take place",
    ),
)
# "the speed buff", "an hp boost": an effect a move has, not a stat asked for.
_EFFECT_AFTER = re.compile(
    r"^\s+(?:buff|boost|debuff|bonus|up|down|increase|drop|steal|heal|one|move|thing)\w*\b", re.I
)
# "Can the bird make me faster", "get my deer faster": an effect asked for, not a stat to look up.
_EFFECT_BEFORE = re.compile(r"\b(?:make|makes|making|get|gets|getting)\s+(?:\w+\s+){0,2}$", re.I)
_STACKS = re.compile(r"\bstack(?:s|ing)?\b(?!\s+up\b)", re.IGNORECASE)  # "stack up against": a matchup
_QUESTION = re.compile(
    r"\?|^\W*(?:(?:so|and|ok|okay|hey|yo|um|uh|also|but|then|ugh|fine|alright|right|well|wait|hmm+|man|bro|dude|lol)\W+)*"
    r"(?:what|whats|what's|how|hows|how's|does|do|did|is|isn't|are|can|could|will|would|which|who|"
    r"when|where|tell me|any idea|know|got)\b",
    re.IGNORECASE,
)
# The state's fields of a unit (the player's own only): asked of theirs, not known.
_STATE_FIELD = re.compile(r"\b(?:level|levels|lvl|stage|evolved|evolution|unlocked)\b", re.IGNORECASE)
_LOADOUT = re.compile(r"\b(?:equipped|loadout|running|using|build|run|runs|carry|carries|carrying)\b", re.I)
_LOADOUT_ON = re.compile(
    r"\b(?:equipped|running)\s+(?:on|by)\b|\busing\s+by\b|\b(?:whats|what's|what\s+is|what\s+s)\s+\w+\s+(?:running|using)\b"
    r"|\bwhat\s+(?:does|do|is)\s+(?:\w+\s+)?(?:run|running|carry|carrying)\b",
    re.I,
)
# "Does Shellbastion have Mist Shroud", "can their Voltail use Volt Dash yet": whether they have it;
# not "does Nadira's grenade stop her heals" (what it does) (English cue words).
_HAS_OPTION = re.compile(
    r"\b(?:has|have|got|owns?|unlocked|equipped|running|carry|carries|knows?|learned|learnt)\b"
    r"|\b(?:can|could|does|do)\b.*\b(?:use|run|equip|get|learn|know|cast)\b|\b(?:can|could)\s+(?:\w+\s+){1,2}do\b",
    re.IGNORECASE,
)
# "What does Nadira's Null Grenade do", "how long does Bexley's wall stay up": what it does, not
# whether they have it.
_WHAT_IT_DOES = re.compile(
    r"\bwhat(?:\s+(?:does|do|did|will)|'?s|\s+is)\b.*\bdo\W*$|\bhow\s+(?:long|much|far|big|often|hard|fast)\s+(?:does|do|is|can)\b",
    re.IGNORECASE,
)
# The opponent's side named as a whole (English cue words); the realizer reads it too.
THEIR_SIDE = re.compile(
    r"\b(?:their|they|them|theirs|the\s+other\s+(?:team|side)|the\s+enemy|enem(?:y|ies)|opponents?)\b", re.I
)
# Something set against their side ("vs them", "against their team", "do they have anything that
# hits X"), not put on it ("they swap in X"); the prior and the recipes read it.
AGAINST_THEM = re.compile(
    r"\b(?:vs|versus|against|into)\s+(?:them|these\s+guys|those\s+guys|their)\b|\bdo\s+they\s+have\b"
    r"|\b(?:anything|anyone|any)\s+of\s+theirs\b|\b(?:any(?:one|body|thing)?|some(?:one|body)|any\s+of\s+them)\s+on\s+their\s+(?:team|side)\b"
    r"|\b(?:in\s+|for\s+)?(?:this|these)\s+(?:game|match|guys)\b",
    re.IGNORECASE,
)
_SIDE_LOADOUT = re.compile(r"\b(?:loadouts?|equipped|gear)\b", re.IGNORECASE)
_SIDE_LEVEL = re.compile(
    r"\b(?:what|which)\s+(?:level|stage)s?\s+(?:is|are)\b|\btheir\s+(?:\w+\s+)?(?:levels|stages)\b"
    r"|\b(?:are|is)\s+(?:they|their\s+\w+)\s+(?:evolved|maxed|levell?ed)\b"
    r"|\b(?:lowest|highest|lower|higher|low|high)[\s-]+level\w*\b",  # "which of theirs is the lowest level"
    re.IGNORECASE,
)
_MINE_WORD = re.compile(r"\b(?:my|our|mine|ours|i|me|we)\b", re.IGNORECASE)
_THEY_HAVE = re.compile(
    r"^\s+(?:they|them|the enemy)\b|^\s+(?:on|of|from)\s+(?:their|the enemy|the other)\b"
    r"|^\s+(?:of\s+)?theirs\b",
    re.IGNORECASE,
)
_WHEN = (
    r"(?:when\s+(?:does|do|will|would|is|can|could)|(?:at\s+)?what\s+level|how\s+close|"
    r"how\s+(?:far|long)\s+(?:is|are|until|till|away|off|before|from)|how\s+many\s+(?:more\s+)?levels|how\s+soon|"
    r"until|till)"
)
_ACQUIRE = re.compile(
    r"\b(?:how\s+(?:do|can|would|could|should)\s+(?:i|we|you|one)|how\s+to|where\s+(?:do|can)\s+(?:i|we|you))\s+"
    r"(?:\w+\s+)?(?:get|obtain|catch|find|buy|earn|recruit|tame|collect|pick up)\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[,;.?!]|\b(?:and|but|because|cause|so)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Limit:
    """A part of the question the data cannot answer: `what` names it for the reply ("speed", "their
    levels"); `about` is the mention the rest of the answer is about (its profile), if any; `kind`
    says which rule found it ("stat", "stacking", "theirs", "threshold", "acquire", "live": what happens
    in the match that no state field holds, "position": where anyone stands in it, "unseen": the
    fight's moment (the clock, health), "elsewhere": what the game keeps outside the match)."""

    kind: str
    what: str
    about: Mention | None = None


def _known(pack: Pack) -> frozenset[str]:
    """Every word and phrase the pack's schema and vocabulary use: cue words it has data for."""
    schema = pack.catalog.schema
    words: set[str] = set()
    for name, spec in schema.kinds.items():
        words |= {name, *spec.nouns, *spec.verbs}
        for attr, attr_spec in spec.attributes.items():
            words |= {attr, attr.replace("_", " ")}
            values = getattr(attr_spec, "values", None)
            if isinstance(values, list):
                words |= {str(v) for v in values}
    vocabulary = pack.vocabulary
    words |= {w for role in vocabulary.roles.values() for w in role.words}
    words |= {w for style in vocabulary.styles.values() for w in style.words}
    return frozenset(w.lower() for w in words)


_PATTERNS: dict[tuple[str, str], tuple[tuple[re.Pattern[str], str], ...]] = {}


def _stat_patterns(pack: Pack) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The stat cue words the pack has no data for, compiled once per pack."""
    key = (pack.pack_id, pack.version)
    if key not in _PATTERNS:
        _PATTERNS[key] = _compile_stats(_known(pack))
    return _PATTERNS[key]


def _compile_stats(known: frozenset[str]) -> tuple[tuple[re.Pattern[str], str], ...]:
    out = []
    for words, spoken in _STATS:
        kept = [w for w in words.split("|") if w.replace("?", "") not in known]
        if spoken in known or not kept:
            continue
        out.append((re.compile(rf"\b(?:{'|'.join(kept)})\b", re.IGNORECASE), spoken))
    return tuple(out)


def _unit_noun(pack: Pack, plural: bool = False) -> str:
    schema = pack.catalog.schema
    unit = schema.kind("unit") or ""
    return pack.catalog.schema.plural(unit) if plural else unit


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _clause_of(text: str, mention: Mention) -> str:
    """The clause of `text` the mention stands in (between clause breaks)."""
    start = max((m.end() for m in _CLAUSE.finditer(text, 0, mention.span[0])), default=0)
    after = _CLAUSE.search(text, mention.span[1])
    return text[start : after.start() if after else len(text)]


# "My fox got absolutely deleted by the turtle" (English cue words): what happened, told.
_TOLD_HIT = re.compile(
    r"\b(?:got|was|were|been|gets|get)\s+(?:\w+\s+)?(?:deleted|destroyed|killed|wrecked|one\s*-?\s*shot|smoked|melted|"
    r"knocked\s+out|shredded|flattened|bodied)\s+(?:\w+\s+){0,2}?by\b",
    re.IGNORECASE,
)


def data_limit(pack: Pack, text: str, theirs: Collection[str] = ()) -> Limit | None:
    """The part of `text` the pack's data cannot answer, or None. `theirs`: the units only the
    opponent fields (the state holds no levels, stages or loadouts of theirs)."""
    for pattern, spoken in _LIVE:
        if spoken == _ROUNDS_PLAYED and _TOLD_HIT.search(text):
            continue  # "my fox got deleted by the turtle, what happened there": told, asked why
        if pattern.search(text):
            # "our dps is afk": not something the coach can see ("where should I stand": a place)
            return Limit("position" if spoken == _POSITIONS else "live", spoken)
    for pattern, spoken in _UNSEEN:
        if pattern.search(text):
            return Limit("unseen", spoken)  # "how long is left on the clock"
    for pattern, spoken in _ELSEWHERE:
        if pattern.search(text):
            return Limit("elsewhere", spoken)  # "what rank do I get": kept by the game, not the match
    mentions = link_entities(pack, text)
    # "And Quillon, what does he run": a name said first, then the question.
    lead = mentions[0] if mentions and len(text[: mentions[0].span[0]].split()) <= 1 else None
    named_first = lead is not None and _QUESTION.search(text[lead.span[1] :].lstrip(" ,")) is not None
    if not _QUESTION.search(text) and not named_first:
        return None
    schema = pack.catalog.schema
    unit, option = schema.kind("unit"), schema.kind("option")
    units = [m for m in mentions if m.kind == unit]
    options = [m for m in mentions if m.kind == option]
    about = options[0] if options else units[0] if units else None
    # When a unit evolves, where the pack's progression has no levels to it.
    progression = schema.progression
    if (
        progression is not None
        and schema.kinds[progression.kind].verbs
        and not schema.kinds[progression.kind].gate
    ):
        verbs = [re.escape(v) for v in schema.kinds[progression.kind].verbs]
        stems = "|".join(sorted({v[:-1] if v.endswith("e") else v for v in verbs}, key=len, reverse=True))
        asks_when = re.search(rf"\b{_WHEN}\b(?:\s+\w+){{0,6}}?\s+(?:{stems})\w*\b", text, re.IGNORECASE)
        verb = schema.kinds[progression.kind].verbs[0] if schema.kinds[progression.kind].verbs else "advance"
        if asks_when and not re.search(r"\bshould\b", text, re.IGNORECASE):
            what = f"the level a {_unit_noun(pack)} {verb}s at"
            return Limit("threshold", what, units[0] if units else None)
        # "How do I evolve Galehawk?", "how do I get Emberfox to stage three?": what triggers the step.
        step = re.escape(progression.field.lower().removesuffix("s"))
        asks_how = re.search(
            rf"\bhow\s+(?:do|can|would|could|should|to)\s+(?:i\s+|we\s+)?(?:\w+\s+){{0,3}}?(?:{stems})\w*\b"
            rf"|\bhow\s+(?:do|can)\s+(?:i|we)\s+get\s+(?:\w+\s+){{1,3}}?to\s+(?:the\s+)?(?:next\s+|final\s+|last\s+)?{step}"
            rf"|\bwhat\s+(?:does|do|will)\s+(?:\w+\s+){{1,2}}?need\s+to\s+(?:{stems})\w*\b",
            text,
            re.IGNORECASE,
        )
        if asks_how:
            return Limit("threshold", f"what makes a {_unit_noun(pack)} {verb}", units[0] if units else None)
    # Theirs: a field the state holds only for the player's own units, asked of one of theirs.
    for m in units:
        limit = _theirs(pack, text, m, theirs, options)
        if limit is not None:
            return limit
    if not units and THEIR_SIDE.search(text):
        # "What rank is the other team", "their sniper's loadout": asked of their side as a whole.
        if re.search(r"\brank(?:s|ing)?\b|\belo\b|\bmmr\b", text, re.IGNORECASE):
            return Limit("theirs", "their ranks")
        if option is not None and _SIDE_LOADOUT.search(text):
            return Limit("theirs", f"their {pack.catalog.schema.plural(option)}")
        if _SIDE_LEVEL.search(text) and not options:
            return Limit("theirs", f"the levels and unlocks of their {_unit_noun(pack, plural=True)}")
    # How to get a unit, where the pack has no unlock for units.
    if units and not options and unit is not None and not schema.kinds[unit].gate and _ACQUIRE.search(text):
        named = pack.catalog.get(unit, units[0].id)
        # "How do I get Tsunafang": a later stage's name, reached by evolving (the progression's answer).
        if named is not None and _squash(units[0].surface) == _squash(named.display):
            return Limit("acquire", f"how to get new {_unit_noun(pack, plural=True)}", units[0])
    if about is None:
        # "Which team has the most hp": a stat asked of no one is a strategy question, but a cap is not,
        # nor a unit picked by it ("who on their team is the fastest").
        cap = next((p for p, spoken in _stat_patterns(pack) if spoken == _CAP), None)
        known = "max_level" in pack.limits.model_fields_set  # the pack says its caps (asks_cap)
        if cap is not None and cap.search(text) and not known:
            return Limit("stat", _CAP)
        by_stat = [
            spoken for pattern, spoken in _stat_patterns(pack) if spoken != _CAP and pattern.search(text)
        ]
        if by_stat and by_stat[0] in _OF_THE_GAME:
            return Limit("stat", by_stat[0])  # "what's the drop rate on legendaries": no unit needed
        return Limit("stat", by_stat[0]) if by_stat and _WHO_BY.search(text) else None
    if _STACKS.search(text):
        return Limit("stacking", "whether effects stack", about)
    # Each name masked, so a stat word inside one is not asked ("is Quick Circuit worth it").
    masked = text
    for m in sorted(mentions, key=lambda m: -m.span[0]):
        masked = masked[: m.span[0]] + "X" + masked[m.span[1] :]
    # Every stat asked, said at once: "how much hp has it got left and is it faster than my deer".
    asked = [
        spoken
        for pattern, spoken in _stat_patterns(pack)
        if any(
            not _EFFECT_AFTER.match(masked[m.end() :]) and not _EFFECT_BEFORE.search(masked[: m.start()])
            for m in pattern.finditer(masked)
        )
    ]
    if _DURATIONS in asked and about is not None and about.kind == option and _times_said(pack, about.id):
        asked.remove(_DURATIONS)  # "how long does Bexley's wall stay up": its description says
    return Limit("stat", " or ".join(dict.fromkeys(asked)), about) if asked else None


def _times_said(pack: Pack, option_id: str) -> bool:
    kind = pack.catalog.schema.kind("option") or ""
    entity = pack.catalog.get(kind, option_id)
    return entity is not None and bool(_TIME_SAID.search(str(entity.value("description") or "")))


# One unit picked by a stat ("who on their team is the fastest", "which of mine has the most hp").
_WHO_BY = re.compile(
    r"\b(?:who|which\s+(?:one|of))\b.*\b(?:the|is|are|s)\s+(?:\w+est|most|least)\b"
    r"|\bthe\s+(?:\w+est|most|least)\b.*\b(?:i|we)\s+(?:have|own|got)\b",
    re.IGNORECASE,
)


# "What level is Voltail", "is Voltail evolved": a state field asked as a fact about the unit now.
_ASKS_FIELD = re.compile(
    r"\b(?:what|which)\s+(?:level|lvl|stage)\s+(?:is|are|'s|s)\b|\b(?:is|are|has|have)\b[^,.?]*\b"
    r"(?:evolved|levell?ed|unlocked)\b|\b(?:level|lvl|stage)\s+(?:is|are)\b|\bhow\s+(?:high|far)\s+"
    r"(?:level|levell?ed|evolved)\b",
    re.IGNORECASE,
)


_USED_ON = re.compile(
    r"\b(?:use|using|throw|throwing|cast|casting|fire|firing|hit|hitting|send|sending|aim|aiming|work|works|"
    r"working|land|lands)\s+(?:it\s+)?"
    r"(?:at|on|against|into)\s+(?:their\s+|the\s+)?$",
    re.IGNORECASE,
)


def _theirs(
    pack: Pack, text: str, m: Mention, theirs: Collection[str], options: list[Mention]
) -> Limit | None:
    """A level, stage, unlock or loadout asked of a unit on the opponent's side: marked as theirs
    ("their Voltail", "the Voltail they have"), or one only they field, asked as a fact about now."""
    option = pack.catalog.schema.kind("option")
    before = text[: m.span[0]].split()
    cue = side_word(before[-1]) if before else "any"
    marked = cue == "theirs" or _THEY_HAVE.match(text[m.span[1] :]) is not None
    if cue == "mine" or not (marked or m.id in theirs):
        return None
    clause = _clause_of(text, m)
    if options and _USED_ON.search(text[: m.span[0]]):
        return None  # "is Flame Burst worth using at their Shellbastion": the player's move, aimed at it
    if _SET_AGAINST.search(text[: m.span[0]]):
        return None  # "what should Galehawk run against their Shellbastion": theirs is the target
    if pack.catalog.schema.kinds[m.kind].gate and re.search(r"\bunlock", clause, re.IGNORECASE):
        return None  # "is he unlocked": a unit the player unlocks, asked of the player's own
    if _MINE_WORD.search(clause):
        return None  # "is my Emberfox a higher level than their Voltail": the player's own too
    if options and option is not None and _HAS_OPTION.search(clause) and not _WHAT_IT_DOES.search(clause):
        return Limit("theirs", f"which {pack.catalog.schema.plural(option)} they have unlocked", options[0])
    if not marked and not _ASKS_FIELD.search(clause) and not _LOADOUT_ON.search(clause):
        return None  # "how many levels until Bexley": when the player unlocks theirs, not theirs
    if option is not None and _LOADOUT.search(clause):
        return Limit("theirs", f"their {pack.catalog.schema.plural(option)}", m)
    if _STATE_FIELD.search(clause):
        return Limit("theirs", f"the levels and unlocks of their {_unit_noun(pack, plural=True)}", m)
    return None


_SET_AGAINST = re.compile(r"\b(?:against|vs|versus|into)\s+(?:their\s+|the\s+)?$", re.IGNORECASE)
_CAP_WORDS = re.compile(
    r"\b(?:level\s+cap|max(?:imum)?\s+(?:\w+\s+)?level|level\s+limit|cap)\b"  # ("the max hero level")
    # "the highest level a hero can reach", not "my highest level hero"
    r"|\bhighest\s+level\s+(?:a|an|any|you|one|it|they|i)\s+(?:\w+\s+)?(?:can|could)\b",
    re.IGNORECASE,
)


def asks_cap(pack: Pack, text: str, units: int = 0) -> str | None:
    """ "What's the max level a hero can get to", "how many heroes can I have", "is Renzo maxed":
    a cap the pack's manifest declares (its `limits`): "level", "owned" or, of the one unit named
    (`units`: how many the text names), "unit". None when not asked, or not declared."""
    declared = pack.limits.model_fields_set
    if not _QUESTION.search(text) or "max_level" not in declared:
        return None
    if units == 1 and re.search(r"\bmax(?:ed)?(?:\s+out)?\b|\bfully\s+levell?ed\b", text, re.IGNORECASE):
        return "unit"
    if units:
        return None
    if _CAP_WORDS.search(text):
        return "level"
    plural = _unit_noun(pack, plural=True)
    nouns = f"{re.escape(plural)}|{re.escape(_unit_noun(pack))}s?"
    # (not "how many can I bring": a team's size, not the collection's)
    owned = (
        rf"\bhow\s+many\s+(?:{nouns})\s+(?:can|could|may)\s+(?:i|we|you)\b"
        r"(?!\s+(?:\w+\s+)?(?:take|bring|field|run|play|put|pick|use)\b)"
    )
    if "max_owned" in declared and re.search(owned, text, re.IGNORECASE):
        return "owned"
    return None


# "What level am I", "what's my account level": the player's own level, a state field.
_MY_LEVEL = re.compile(
    r"\bwhat\s+level\s+(?:am\s+i|are\s+we)\b|\bwhat(?:'s|s|\s+is)\s+(?:my|our)\s+(?:player\s+|account\s+)?level\b"
    # ("my player level is ten, which hero ...": told, not asked)
    r"|\b(?:my|our)\s+(?:player|account)\s+level\b(?!\s+(?:is|was|'s|s|at|now)\s+(?:now\s+)?(?:\d|[a-z]+teen\b|ten\b|"
    r"eleven\b|twelve\b|twenty|thirty|one\b|two\b|three\b|four\b|five\b|six\b|seven\b|eight\b|nine\b))",
    re.IGNORECASE,
)


def asks_my_level(text: str, units: int = 0) -> bool:
    """Does `text` ask the player's own level (and name no unit: "what level is my Emberfox" is its)?"""
    return units == 0 and _MY_LEVEL.search(text) is not None
