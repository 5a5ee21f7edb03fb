"""What an option does, in the words a player asks it with: "can anything I have slow him down?",
"does Sparkwing have a heal?", "who can stop them healing?".

A pack's options (pet's skills, strike's items) carry a one-line description ("A hidden current
that slows the target's next action."). Each effect below pairs the player's words for it with the
words a description says it with; an option has the effects its description's words name. The
words are ordinary English about fights, not any pack's: a pack whose descriptions never say an
effect simply has no option with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from voicecoach.domain.pack import Pack


@dataclass(frozen=True)
class Effect:
    name: str
    asked: re.Pattern[str]  # the player's words for it
    does: re.Pattern[str]  # a description's words for it
    said: str  # what a reply says after "can": "put a target to sleep"


def _effect(name: str, asked: str, does: str, said: str = "") -> Effect:
    return Effect(name, re.compile(asked, re.IGNORECASE), re.compile(does, re.IGNORECASE), said or name)


# Order matters only for reading: every effect the player names is asked for.
EFFECTS = (
    _effect(
        "heal",
        r"\bheal(?:s|ing|er|ers)?\b|\bsustain\b|\bpatch(?:es)?\s+(?:me|us|them|him|her)\s+up\b|\bhealth\s+back\b",
        r"(?<!\bbeing\s)\bheal(?:s|ing|ed)?\b|\brestor(?:e|es|ing)\b|\bmend(?:s|ing)?\b|\bregenerat\w*|\brepairs?\b"
        r"|\bdrains?\s+health\b",
    ),
    _effect(
        "revive",
        r"\breviv\w*|\bres+urrect\w*|\brez\b|\bbring\w*\s+(?:\w+\s+){0,2}back\b",
        r"\breviv\w*|\bdowned\b|\bfallen\s+ally\b|\bbrings?\s+(?:\w+\s+){0,3}back\b",
    ),
    _effect(
        "shield",
        r"\bshield(?:s|ing)?\b|\bbarriers?\b|\bprotect(?:s|ed|ing|ion)?\b(?!\s+(?:my|our|the)\s+lead)"
        r"|\bblock(?:s|ing)?\b(?!\s+(?:the|a|their)\s+(?:lane|door))"
        r"|\b(?:make|makes|put\s+up|puts\s+up|drop|drops|build|builds)\s+(?:a\s+|any\s+)?walls?\b",
        r"(?<!\benemy\s)(?<!\bthrough\s)(?<!\bthe\s)\b(?:shield(?:s|ing)?|barriers?)\b|\bprotects?\b|\bblocks?\b"
        r"|\bcovers?\s+allies\b|\babsorbs?\b|\bdeflects?\b|(?<!\btarget's\s)\barmou?r\b|\bhalves\s+the\s+damage\b|\bsoftens\b|\breduc\w+\s+(?:\w+\s+)?damage\b"
        r"|\blowering\s+the\s+damage\b",
    ),
    _effect(
        "slow",
        r"(?<!\ba\s)\bslow(?:s|ed|ing)?\b(?!\s+(?:than|start))|\bsnare\w*|\broot\s+(?:him|her|them|it)\b",
        r"(?<!\ba\s)\bslows?\b|\bslowing\b|\blower\w*\s+(?:its\s+|their\s+)?speed\b|\broots\s+(?:the|one|an?|every)\b",
    ),
    _effect(
        "stun",
        r"\bstun\w*|\bfreez\w*|\bparaly[sz]\w*|\bdisable\w*|\binterrupt\w*"
        r"|\bstop\s+(?:\w+\s+){1,2}?(?:from\s+)?(?:moving|acting|attacking)\b|\block\s+(?:\w+\s+)?down\b",
        r"\bstun\w*|\bfreez\w*|\bparaly[sz]\w*|\bskip\w*\s+its\s+(?:next\s+)?turn\b|\bcannot\s+act\b"
        r"|\bin\s+place\b|\bstagger\w*|\boff\s+their\s+feet\b|\bpins?\b",
    ),
    _effect(
        "area",
        r"\bhit\w*\s+(?:them\s+)?all\b|\ball\s+(?:of\s+)?(?:them|their\s+\w+|the\s+enemies)\s+at\s+once\b"
        r"|\b(?:hit|hits|damage|damages)\s+(?:the|their)\s+whole\s+(?:team|line)\b|\baoe\b|\bsplash\w*"
        r"|\bmultiple\s+(?:enemies|targets)\b|\bhits?\s+every(?:one|body)\b",
        r"\bevery\s+enemy\b|\bwhole\s+enemy\b|\benemy\s+(?:team|line|front\s+line)\b|\bentire\s+enemy\b"
        r"|\bup\s+to\s+three\b|\bsplash\w*|\ball\s+enemies\b|\beveryone\s+(?:in\s+front|where|standing)\b"
        r"|\bthree\s+beams\b|\bbomblets\b",
        "hit every enemy at once",
    ),
    _effect(
        "first",
        r"\balways\s+(?:goes|go|strikes?|hits?|moves?|acts?)\s+first\b"
        r"|\b(?:that|which)\s+(?:goes|strikes?|hits?|moves?|acts?)\s+first\b|\bpriority\b|\bfirst\s+strike\b"
        # "it keeps going first", "how is it always first", "we keep getting out-sped", "is it fast"
        r"|\b(?:keeps?|kept)\s+(?:going|moving|acting|striking|hitting)\s+first\b|\balways\s+first\b"
        r"|\b(?:goes|going|went|moves?|acts?)\s+first\s+(?:every|each|again|all\s+the\s+time)\b"
        # "their Voltail goes before me every turn", "anything that lets me go first"
        r"|\b(?:goes|going|went|moves?|moving|acts?|acting|attacks?)\s+before\s+(?:me|us|mine|my\s+\w+|our\s+\w+)\b"
        r"|\b(?:let|lets|make|makes|help|helps)\s+(?:me|us|\w+)\s+(?:go|move|act|strike|attack)\s+first\b"
        r"|\bout[\s-]?sp(?:e|ee)d\w*|\b(?:is|are|it'?s|he'?s|she'?s)\s+(?:\w+\s+){0,2}?(?:so\s+|that\s+|really\s+)?fast\b",
        r"\b(?:always\s+)?(?:strikes?|goes|acts?|moves?|hits?)\s+first\b|\bbefore\s+(?:the\s+)?(?:enemy|anyone|others)\s+(?:can\s+)?act\b",
        "strike first",
    ),
    _effect(
        "speed",
        r"\bspeed\s+(?:up|boost|buff)\w*|\bspeeds?\s+(?:me|us|them|my|our)\b|\bhaste\b|\bmove\s+faster\b"
        r"|\b(?:make|makes|get|gets)\s+(?:\w+\s+){0,2}faster\b",
        r"\bspeeds?\s+up\b|\braising\s+its\s+speed\b|\bburst\s+of\s+speed\b|\bmove\s+(?:\w+\s+){0,2}faster\b"
        r"|\bact\s+again\s+sooner\b",
        "speed up your side",
    ),
    _effect(
        "buff",
        r"\bbuff\w*|\bboost\w*\s+(?:my|our|the|their|his|her)?\s*(?:damage|attack|team)\b|\bempower\w*",
        r"\braising\s+its\s+attack\b|\battack\s+boost\b|\bboosts?\b|\bextra\s+damage\b",
        "boost an ally's damage",
    ),
    _effect(
        "weaken",
        r"\bdebuff\w*|\bweaken\w*|\blower\s+(?:their|its|his|her)\s+(?:attack|damage|armou?r)\b"
        r"|\bshred\w*\s+(?:their\s+)?armou?r\b",
        r"\blowering\s+its\s+attack\b|\blowers\s+every\s+enemy's\s+accuracy\b|\bweaken\w*",
        "weaken a target",
    ),
    _effect(
        "blind",
        r"\bblind\w*|\baccuracy\b|\bmake\s+(?:them|him|her)\s+miss\b",
        r"\bblind\w*|\baccuracy\b",
        "blind a target",
    ),
    _effect(
        "reveal",
        r"\breveal\w*|\bspot(?:s|ting)?\s+(?:them|him|her|enemies)\b|\bsee\s+(?:\w+\s+)?through\s+walls\b"
        r"|\bwall\s*hack\w*|\bscout\w*|\bmark(?:s|ing)?\s+(?:them|him|her|enemies|targets)\b"
        r"|\bfind\s+(?:him|her|them)\b",
        r"\breveal\w*|\bmarks?\s+enemies\b|\bsees?\s+enemies\b",
        "reveal enemies",
    ),
    _effect(
        "stealth",
        r"\binvisib\w*|\bstealth\w*|\bcloak\w*|\bgo\s+unseen\b",
        r"\binvisib\w*|\bhides?\s+(?:her|his|its|the)\s+team\b",
        "go unseen",
    ),
    _effect(
        "pull",
        r"\bpull(?:s|ed|ing)?\b(?!\s+(?:\w+\s+){0,2}weight)|\byank\w*|\bhook\w*|\bdrag\w*|\bgroup\s+them\s+up\b",
        r"\bpull\w*|\byanks?\b|\bdrags?\b",
        "pull a target in",
    ),
    _effect(
        "knockback",
        r"\bknock\w*\s+(?:\w+\s+){0,2}(?:back|off)\b|\bpush\w*\s+(?:him|her|them|it)\b|\bknockback\b|\bdisplace\w*",
        r"\bknock\w*\s+(?:\w+\s+){0,3}(?:back|off)\b|\bknocks?\s+one\s+enemy\b",
        "knock a target back",
    ),
    _effect(
        "climb",
        r"\bget\s+up\s+(?:there|high|top)\b|\b(?:get|go|climb|reach)\s+(?:up\s+)?(?:on\s+|onto\s+|to\s+)?"
        r"(?:the\s+)?(?:high\s+ground|roofs?|ledge|perch|tower)\b",
        r"\bhigh\s+(?:leap|perch)\b|\binto\s+the\s+air\b|\bzips?\s+(?:\w+\s+)?up\b",
        "get up high",
    ),
    _effect(
        "mobility",
        r"\bdash\w*|\bteleport\w*|\bblink\w*|\bget\s+(?:out|away)\b|\bescape\w*|\bmobility\b|\bgap\s*clos\w*"
        r"|\bget\s+(?:up\s+)?high\b",
        r"\bteleport\w*|\bleap\b|\bzips?\b|\blaunch\w*\s+(?:\w+\s+){0,2}into\s+the\s+air\b|\bdash\b"
        r"|\bdodge\s+roll\b|\bpasses\s+through\s+walls\b",
        "get around fast",
    ),
    _effect(
        "dodge",
        r"\bdodg\w*|\bevad\w*|\bharder\s+to\s+hit\b|\bavoid\s+(?:getting\s+)?hit\b",
        r"\bdodge\w*|\bharder\s+to\s+hit\b",
        "dodge attacks",
    ),
    _effect(
        "burn",
        r"\bburn(?:s|ed|ing|t)?\b(?!\s+(?:them|him|her|it)\s+down)|\bdamage\s+over\s+time\b|\bdots?\b|\bpoison\w*|\bbleed\w*",
        r"\bburns?\b|\bburn\s+damage\b|\bdamage\s+(?:each|every)\s+turn\b|\bdamage\s+it\s+while\b",
        "burn a target",
    ),
    _effect("sleep", r"\b(?:a)?sleep\w*|\bdrows\w*", r"\bsleep\b|\bdrowsy\b", "put a target to sleep"),
    _effect(
        "cleanse",
        r"\bcleans\w*|\bcure\w*|\b(?:clear|remove)\w*\s+(?:a\s+|the\s+)?(?:status|debuff)\w*",
        r"\bcleans\w*|\bnegative\s+status\b",
        "cleanse an ally",
    ),
    _effect(
        "stop_healing",
        r"\banti[\s-]?heal\w*|\bstop\s+(?:them|him|her|their\s+\w+)\s+(?:from\s+)?heal\w*|\bcut\s+(?:their\s+)?heal\w*"
        # "is make my healer not heal", "so he can't heal": healing stopped, said plainly
        r"|\bmake[s]?\s+(?:\w+\s+){0,3}?(?:not|no|never|stop)\s+heal\w*|\b(?:can'?t|cannot|cant)\s+heal\b",
        r"\bfrom\s+being\s+healed\b",
        "stop enemy healing",
    ),
    _effect(
        "break_shields",
        r"\b(?:break\w*|get\s+(?:through|past)|burn\w*\s+through|cut\w*\s+through|pierc\w*|melt\w*)\s+"
        r"(?:\w+'s\s+|the\s+|their\s+|his\s+|her\s+|its\s+)?(?:shields?|barriers?|walls?|armou?r|defen[cs]es?)\b"
        r"|\bshield\s*break\w*|\bburn\w*\s+through\b|\b(?:for|against|vs|versus|through|past)\s+(?:their|the\s+enemy'?s?|enemy)\s+"
        r"(?:shields?|barriers?|walls?)\b",
        r"\bthrough\s+shields\b|\bmelts?\s+enemy\s+barriers\b|\bpierces\s+defen[cs]es\b",
        "break through shields",
    ),
    _effect(
        "silence",
        r"\bsilenc\w*|\bshut\w*\s+(?:down|off)\s+(?:their\s+)?(?:abilities|moves|powers)\b"
        r"|\bstop\s+(?:them|him|her)\s+(?:from\s+)?(?:using|casting)\b",
        r"\bsilenc\w*|\bshuts\s+off\s+enemy\s+abilities\b",
        "silence a target",
    ),
    _effect(
        "reflect",
        r"\breflect\w*|\bdamage\s+back\b|\bpunish\w*\s+(?:them|him|her)\s+for\s+hitting\b",
        r"\breflect\w*|\bpunishes\b|\bburns\s+attackers\b|\bdamage\s+back\b",
        "hurt attackers back",
    ),
    _effect(
        "taunt",
        r"\btaunt\w*|\bdraw\w*\s+(?:their\s+|the\s+)?(?:fire|aggro|attacks)\b",
        r"\btaunt\w*|\bdraws\s+enemy\s+attacks\b",
        "draw enemy attacks",
    ),
    _effect(
        "trap",
        r"\btraps?\b|\blay\s+(?:a\s+)?mines?\b|\bzon(?:e|ing)\b|\b(?:close|block|lock)\w*\s+(?:off\s+|down\s+)?"
        r"(?:a\s+|the\s+)?(?:lane|door|doorway|choke\w*)\b",
        r"\btraps?\b|\bmine\s+that\b|\bpit\b|\bcloses\s+a\s+lane\b|\bblocks\s+every\s+shot\b"
        r"|\bline\s+of\s+fire\b|\bburns\s+anyone\s+standing\b",
        "lock down an area",
    ),
)


# "Cannot be knocked back, pulled or stunned", "takes far less knockback": what the option shields its
# unit from, not what it does.
_IMMUNE = re.compile(r"\b(?:cannot|can't|never)\s+be\s+[\w\s,]+?(?=\s+while\b|[.;]|$)|\bless\s+\w+", re.I)


BY_NAME = {e.name: e for e in EFFECTS}


def asked_effects(text: str) -> list[str]:
    """The effects the player's words name, in the effects' order ("slow him down" -> ["slow"]);
    stopping one ("stop them healing", "break his shield") is not asking for it."""
    found = [e.name for e in EFFECTS if e.asked.search(text)]
    for stopper, stopped in (
        ("stop_healing", "heal"),
        ("break_shields", "shield"),
        ("break_shields", "burn"),
    ):
        if stopper in found and stopped in found:
            found.remove(stopped)
    return found


# Asked whether something does it ("can anything I have slow him down", "which of my moves heals",
# "does Sparkwing have a shield move"): a question word before the effect's words in one clause.
_ASKS = re.compile(
    r"\b(?:can|could|will|would|does|do|did|is\s+there|are\s+there|got|have|has|any(?:thing|one|body)?"
    r"|something|some(?:one|body)|who|whos|which|what|how"
    # "X doesn't heal, right?", "is it fast": a yes/no about what it does
    r"|doesn'?t|can'?t|cant|isn'?t|isnt)\b|^\W*(?:is|are)\b",
    re.IGNORECASE,
)
# "Voltail keeps going first", "something keeps putting us to sleep": trouble told, the effect just
# before; answered unless the player asks something of their own ("... what do I hit it with").
_TOLD = re.compile(r"\b(?:keeps?|kept|always)\s+(?:\w+\s+)?$", re.IGNORECASE)
# "... goes before me every single turn": trouble told by how often, after the effect.
_EVERY_TIME = re.compile(
    r"\b(?:every|each)\s+(?:single\s+)?(?:turn|time|round|fight)\b|\ball\s+the\s+time\b", re.I
)
_ASKS_MINE = re.compile(
    r"\b(?:what|who|which|how|should|can|do|could)\s+(?:(?:do|should|can|could)\s+)?(?:i|we)\b|\btips?\b|\badvice\b",
    re.IGNORECASE,
)
# ... not when the effect is a move's timing or pairing, a role ("do we need a healer"), a patch.
_NOT_ASKED = re.compile(
    r"\bwhen(?:s|\s+(?:do|does|should|can|to|is|are|would|will))\b"
    r"|\b(?:time|timing|after|save|saving|till|until|follow\w*|combo\w*|synerg\w*|goes(?!\s+(?:first|before))|go\s+well|unlock\w*|"
    r"equip\w*|healers?|buffed|nerfed|update|patch|progress\w*|level\w*|mean|means|meaning|work|works|"
    r"beats?|counters?|did)\b|\bwhat\s*(?:was|is|'s|s)\s+(?:that|this)\b",
    re.IGNORECASE,
)
# "How do I stop Mireva's hooks": a counter to the one who does it; but "how do I stop them healing"
# asks for what stops it.
_HOW_TO_STOP = re.compile(
    r"\bhow\s+(?:do|can|should|would)\s+(?:i|we)\s+(?:stop|counter|beat|deal\s+with|handle|avoid|protect|kill|"
    r"take\s+(?:down|out)|get\s+(?:past|through|rid\s+of)|break|punch\s+through|crack)\b",
    re.IGNORECASE,
)
_STOPPING = ("stop_healing", "break_shields")
_CLAUSE = re.compile(r"[,;.?!]|\b(?:but|because|cause|so)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Asked:
    """The effects a question asks for, the clause that asks (character span) and where in it the
    effect's words start: a unit named before them does it, one named after is done to."""

    effects: list[str]
    clause: tuple[int, int]
    at: int

    @property
    def main(self) -> str:
        """The effect asked for; "hits them all" only narrows it, unless it is all that is asked."""
        return next((e for e in self.effects if e != "area"), self.effects[0])

    @property
    def said(self) -> str:
        return BY_NAME[self.main].said


def effect_question(pack: Pack, text: str) -> Asked | None:
    """The effects the utterance asks a side's options for; None when it asks none. An option named
    in it ("Healing Rain", "Sand Trap") is a name, not an effect asked for."""
    said = _option_names(pack).sub(lambda m: " " * len(m.group(0)), text)
    if _NOT_ASKED.search(said):
        return None
    if _HOW_TO_STOP.search(said) and not set(asked_effects(said)) & set(_STOPPING):
        return None
    start = 0
    for part in [*_CLAUSE.finditer(said), None]:
        end = part.start() if part is not None else len(said)
        clause = said[start:end]
        effects = asked_effects(clause)
        if effects:
            first = min(_said_at(m) for e in EFFECTS if e.name in effects if (m := e.asked.search(clause)))
            told = (
                _TOLD.search(clause[:first]) is not None or _EVERY_TIME.search(clause[first:]) is not None
            ) and _ASKS_MINE.search(said) is None
            # ("she also make wall?": the question mark asks, whatever the grammar)
            # (not "their Voltail outspeeds Ember?": the effect said last, nothing it is done to after it)
            last = max(m.end() for e in EFFECTS if e.name in effects if (m := e.asked.search(clause)))
            marked = said[end : end + 1] == "?" and not clause[last:].strip(" ?!.")
            if (
                _ASKS.search(clause[:first]) or _ASKS.match(clause) or told or marked
            ):  # ("is it fast": the ask is the effect's)
                return Asked(effects, (start, end), start + first)
        start = part.end() if part is not None else end
    return None


def _said_at(m: re.Match[str]) -> int:
    """Where the effect is said: "is Voltail fast" says it in its last word, after its subject."""
    if re.match(r"(?:is|are|it'?s|he'?s|she'?s)\b", m.group(0), re.IGNORECASE):
        return m.start() + m.group(0).rstrip().rfind(" ") + 1
    kept = re.match(r"(?:keeps?|kept)\s+", m.group(0), re.IGNORECASE)  # "keeps going first": told as trouble
    return m.start() + (kept.end() if kept else 0)


_NAMES: dict[int, tuple[Pack, re.Pattern[str]]] = {}


def _option_names(pack: Pack) -> re.Pattern[str]:
    hit = _NAMES.get(id(pack))
    if hit is not None and hit[0] is pack:
        return hit[1]
    kind = pack.catalog.schema.kind("option") or ""
    names = sorted((o.display for o in pack.catalog.entities.get(kind, {}).values()), key=len, reverse=True)
    alternatives = "|".join(re.escape(n) for n in names)
    pattern = re.compile(rf"\b(?:{alternatives})\b" if names else r"(?!)", re.IGNORECASE)
    _NAMES[id(pack)] = (pack, pattern)
    return pattern


_BY_PACK: dict[int, tuple[Pack, dict[str, frozenset[str]]]] = {}


def option_effects(pack: Pack) -> dict[str, frozenset[str]]:
    """Option id -> the effects its description names (options without any are left out)."""
    hit = _BY_PACK.get(id(pack))
    if hit is not None and hit[0] is pack:
        return hit[1]
    kind = pack.catalog.schema.kind("option")
    out: dict[str, frozenset[str]] = {}
    for oid, option in pack.catalog.entities.get(kind or "", {}).items():
        text = _IMMUNE.sub("", str(option.value("description") or ""))
        found = frozenset(e.name for e in EFFECTS if e.does.search(text))
        if found:
            out[oid] = found
    _BY_PACK[id(pack)] = (pack, out)
    return out


# What an option does for its own side; an option that does only these hits no one.
ALLY_EFFECTS = frozenset(
    {"heal", "revive", "shield", "speed", "buff", "cleanse", "dodge", "taunt", "stealth"}
)
_HITS = re.compile(r"\b(?:enem(?:y|ies)|target|foes?|opponents?|attackers?)\b", re.IGNORECASE)


def for_own_side(pack: Pack, option_id: str) -> bool:
    """ "Does Gentle Light do anything against them": no, it heals an ally. True when the option's
    description says only what it does for its own side, and names no one it hits."""
    kind = pack.catalog.schema.kind("option") or ""
    option = pack.catalog.get(kind, option_id)
    effects = option_effects(pack).get(option_id, frozenset())
    text = str(option.value("description") or "") if option is not None else ""
    return bool(effects) and effects <= ALLY_EFFECTS and _HITS.search(text) is None
