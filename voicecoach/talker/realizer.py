"""The grounded realizer: W2's paragraph plan spoken from pack templates, correct by construction.

When the Talker LLM cannot be trusted to word the reply (a small model, or nothing passed the
guard by the deadline), `realize` speaks the decisions directly:

    realize(pack, state, c2, c3, tools, utterance, turn_index, intent, sub_intent,
            max_words=..., max_sentences=..., previous_reply=...) -> str

One to three short sentences (at most `MAX_WORDS` words, or the budget the narration leaves) from
`templates.json`, one paragraph type at a time (praise, apology, constraint_account, guidance,
scene_flavor), filled from c2's conflicts and plan, c3's guidance and the tool results.
What makes it correct by construction:

- a creature is named as a recommendation only if the live inventory owns it and the player did
  not exclude it; a lineup only if the player owns every member; a skill as usable only if it is
  unlocked (or known from the start) on an owned learner, else with its unlock condition;
- opponent creatures are named only after "against" / "hits" in a template, never as the player's;
- a failed tool is said plainly ("I can't read your roster right now");
- a late snapshot (older than the turn) is answered from the snapshot plus the change the player
  names, led by a hedge ("Going by my last update, ..."), never refused;
- nothing from a tool is read out raw: every value goes through a placeholder the pack validated,
  and a placeholder with no value makes the paragraph's generic sentence instead.

Deterministic: the same inputs give the same words; the variant of a template is picked by the
turn index, so consecutive turns do not sound identical.

Why one module of ~950 lines: it is one pass, `realize`, whose steps (the answer, the judgements,
guidance, the scene line, `_compose`) each add lines to or read the one `RealizerTurn` it builds,
in an order that matters. The seam: the late-snapshot projection (`CHANGE_CUES` to `context_named`,
~140 lines, functions of the pack, the state and the utterance) would move out first.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from string import Formatter
from typing import Any

from voicecoach.core.state import Inventory, LiveState
from voicecoach.domain.asked import KEEP_OR_BENCH, STAY_OR_GO, WHO_WINS
from voicecoach.domain.effects import effect_question, for_own_side, option_effects
from voicecoach.domain.english import english_counts
from voicecoach.domain.entities import Mention, context_named, link_entities
from voicecoach.domain.pack import ASIDE, OUT_OF_DOMAIN, UNHEARD, WAITING, AnswerStep, Pack, PhiEntry
from voicecoach.domain.terms import Term, asked_term
from voicecoach.domain.view import StateView
from voicecoach.grounding.kernel import GroundingControl
from voicecoach.grounding.plan import MATCH_WORDS, PRIORITY, branch_of, intent_has, phi_entry
from voicecoach.interaction.kernel import InteractionControl
from voicecoach.perception.descriptions import faces_foe, kinds_said
from voicecoach.perception.dialogue import ROUND_LOST, ROUND_WON, current_place
from voicecoach.perception.limits import Limit, asks_cap, asks_my_level, data_limit
from voicecoach.perception.prior import (
    ASKS_ADVICE,
    ASKS_STAKES,
    ASKS_WHY,
    CLAIMS_AHEAD,
    CLAIMS_BEHIND,
    FIRST_OF_THEIRS,
    SCARIER,
    SITUATION,
    TOLD_GONE,
    VENTED,
    brought_in,
    normalise,
    offered,
    remark,
    team_words,
)
from voicecoach.perception.prompt import OTHER
from voicecoach.perception.references import PICK_BEFORE, taken_out
from voicecoach.talker.conditioning import ToolOutcome
from voicecoach.talker.lines import Line, RealizerTurn, article, spoken_list
from voicecoach.talker.recipes import answer as recipe_answer
from voicecoach.talker.recipes import gate_text
from voicecoach.talker.speakable import reasons_once, unknown_names
from voicecoach.tools.builtin import multiplier, unmet_gates, value_multiplier

MAX_SENTENCES = 3
MAX_WORDS = 45

# Which sentences survive the budget, most important first.
KEEP_ORDER = ("unavailable", "answer", "account", "w3", "praise", "flavor")


# --- spoken forms -------------------------------------------------------------------------------

_FIELDS = Formatter()


# "a {rarity}" before a value that starts with a vowel sound: "an epic", not "a epic" ("a utility":
# a "u" before one consonant and a vowel sounds "you").
_A_BEFORE = re.compile(r"(?:^|(?<=\s))[Aa] $")
_VOWEL_SOUND = re.compile(r"^(?:[aeio]|u(?![^aeiou\W][aeiou]))", re.I)


def _fill(template: str, values: dict[str, Any]) -> str | None:
    """The template with its placeholders filled; None when one has no value."""
    out = []
    for literal, name, _, _ in _FIELDS.parse(template):
        out.append(literal)
        if name is None:
            continue
        value = values.get(name)
        if value is None or value == "" or value == []:
            return None
        text = str(value)
        if _VOWEL_SOUND.match(text) and _A_BEFORE.search(out[-1]):
            out[-1] = out[-1][:-1] + "n "
        out.append(text)
    return "".join(out)


def _variant(variants: Sequence[str], kind: str, turn_index: int) -> str:
    # crc32, not hash(): str hashes are salted per process, and replays must say the same words.
    return variants[(turn_index + zlib.crc32(kind.encode())) % len(variants)]


def say(pack: Pack, line: Line, turn_index: int) -> str:
    """One line in words: its template filled, or its paragraph's generic sentence."""
    if line.key.startswith("answer:"):
        variants = pack.templates.answers.get(line.key.split(":", 1)[1], [])
    else:
        variants = pack.templates.paragraphs[line.paragraph].templates.get(line.key, [])
    generic = pack.templates.paragraphs[line.paragraph].generic
    if not variants:
        return generic
    chosen = line.values.get("variant")
    template = (
        variants[chosen % len(variants)] if chosen is not None else _variant(variants, line.key, turn_index)
    )
    text = _fill(template, line.values)
    if text is None:
        # The next variant whose placeholders all have values, before the generic sentence (a
        # counter with no designer's reason still has a variant needing none).
        start = variants.index(template)
        rotated = variants[start + 1 :] + variants[:start]
        text = next((filled for v in rotated if (filled := _fill(v, line.values)) is not None), None)
    return text if text is not None else generic


# --- facts from the state and the catalog ----------------------------------------------------------


_NOT_TIPS = frozenset({"smalltalk", "meta", OTHER})


# Among English's commonest words ("down", "turn", "good"): one of them shared says nothing of a topic.
_EVERYDAY = 500_000


def _uncommon(text: str) -> str:
    """The text without its everyday words."""
    counts = english_counts()
    return " ".join(w for w in re.findall(r"[a-z]+", text.lower()) if counts.get(w, 0) < _EVERYDAY)


def _rare(pack: Pack, asked: set[str]) -> bool:
    """Is a word of the question in at most two of the pack's worded answers (a word of one tip,
    not one every tip says)?"""
    said = [_topic(v) for vs in pack.templates.answers.values() for v in vs]
    return any(sum(w in words for words in said) <= 2 for w in asked if any(w in words for words in said))


# A question anywhere in a remark ("yo coach whats ur favourite pet", "can you turn it down"):
# asked, so not an aside (English cue words).
_ASKS_ANYTHING = re.compile(
    r"\?|\b(?:what|whats|who|whos|how|hows|why|which|when|where|wheres)\b"
    r"|\b(?:can|could|would|will|do|does|did|are|is|should)\s+(?:you|u|i|we|it|they)\b",
    re.IGNORECASE,
)

# Stepping away for a moment ("brb", "one sec", "hold on") (English cue words).
_STEPS_AWAY = re.compile(
    r"\b(?:brb|afk|be\s+right\s+back|(?:one|a|1|gimme\s+a|give\s+me\s+a|just\s+a)\s+(?:sec|second|min|minute|moment)s?|"
    r"hold\s+on|hang\s+on|wait\s+up|gotta\s+(?:grab|get|check|answer)|grabbing)\b",
    re.IGNORECASE,
)


def _worded_answer(t: RealizerTurn) -> None:
    """The answer of a pair the pack words itself (templates.json `answers`: a tip, a greeting, the
    out-of-domain reply, "say that name again" for a name no catalog has): the wording of the pair's
    intent that shares the most words with the question ("how do control maps work" is the tip
    about control maps, whichever tip pair was labelled), else its first; asked again, the next one
    no recent reply said."""
    pair = "/".join(UNHEARD) if t.unheard else f"{t.intent}/{t.sub_intent}"
    aside = (
        not t.unheard
        and t.intent == OTHER
        and "/".join(ASIDE) in t.pack.templates.answers
        and _ASKS_ANYTHING.search(t.utterance) is None
    )
    if aside:
        pair = "/".join(ASIDE)  # "my cat walked on the keyboard": nothing asked, a word back
        if _STEPS_AWAY.search(t.utterance) and "/".join(WAITING) in t.pack.templates.answers:
            pair = "/".join(WAITING)  # "brb grabbing a drink"
    variants = t.pack.templates.answers.get(pair)
    if not variants:
        return
    fresh = next((i for i, v in enumerate(variants) if not any(v in r for r in t.recent)), 0)
    asked = _topic(t.utterance) | _here(t)
    if not t.unheard and not aside and t.intent != "smalltalk" and asked:
        # Off-topic as labelled, yet two words of a tip ("how does the weakness thing work, is it
        # just double"): that tip, not "outside what I can help with".
        kin = [
            (len(asked & _topic(v)), p, i)
            for p, vs in t.pack.templates.answers.items()
            if (p.split("/")[0] == t.intent if t.intent != OTHER else p.split("/")[0] not in _NOT_TIPS)
            for i, v in enumerate(vs)
            if not any(v in r for r in t.recent)
        ]
        overlap, best, index = max(kin, key=lambda k: (k[0], k[1] == pair, -k[2]), default=(0, pair, fresh))
        own = max((k for k in kin if k[1] == pair), default=(0, pair, fresh))
        # Two words shared, not one ("fight" is in many tips); another pair's tip only when the
        # labelled one's share nothing.
        if own[0] >= 2 and own[0] > len(asked & _topic(variants[fresh])):
            fresh = own[2]
        off_topic = t.intent == OTHER
        # One word shared off-topic only when it is no everyday word ("can you turn the music
        # down" shares "down" with a tip about a target going down: not a question about it).
        shared = (
            asked & _topic(t.pack.templates.answers[best][index])
            if best in t.pack.templates.answers
            else set()
        )
        telling = bool(shared & _topic(_uncommon(t.utterance)))
        if (
            best != pair
            and own[0] == 0
            and (overlap >= 2 or (off_topic and overlap == 1 and telling and _rare(t.pack, asked)))
        ):
            pair, fresh = best, index
    t.add("guidance", f"answer:{pair}", "answer", variant=fresh)


CATALOG_LISTED = 10  # a kind with more entries than this is counted, not read out


def _explain_term(t: RealizerTurn, term: Term) -> bool:
    """ "What's a tank", "what did you mean by poke", "what's an element": the pack's own words for
    the term, then what it means on the player's side now (their units of that role or style, an
    edge of their type over one of theirs). False when the pack words no such line."""
    view, match = t.view, t.state.ic.match
    ours = list(match.player_lineup) if match is not None else []
    theirs = list(match.opponent_lineup) if match is not None else []
    catalog = t.pack.catalog

    def value(uid: str, attribute: str) -> Any:
        entity = catalog.get(view.unit_kind, uid)
        return entity.value(attribute) if entity is not None else None

    names = [catalog.display_name(u) for u in ours]
    if term.kind == "catalog" and _guidance_has(t.pack, "term_catalog"):
        # "what maps are there": the list when it is short, else how many (and how many are theirs)
        listed = [e.display for e in catalog.entities.get(term.key, {}).values()]
        noun = catalog.schema.plural(term.key)
        if len(listed) <= CATALOG_LISTED:
            t.add(
                "guidance", "term_catalog", "answer", count=len(listed), noun=noun, names=spoken_list(listed)
            )
        elif term.key == view.unit_kind and view.known:
            t.add(
                "guidance",
                "term_catalog_owned",
                "answer",
                count=len(listed),
                noun=noun,
                owned=len(view.owned()),
            )
        else:
            t.add("guidance", "term_catalog_count", "answer", count=len(listed), noun=noun)
        return True
    if term.kind == "rule" and _guidance_has(t.pack, "term_rule"):
        t.add("guidance", "term_rule", "answer", description=term.key.rstrip("."))
        return True
    if term.kind == "role" and _guidance_has(t.pack, "term_role"):
        role = t.pack.vocabulary.roles[term.key]
        t.add("guidance", "term_role", "answer", role=term.key, role_summary=role.summary)
        mine = [n for u, n in zip(ours, names, strict=True) if value(u, "role") == term.key]
        owned = [catalog.display_name(o.id) for o in view.owned() if value(o.id, "role") == term.key]
        if ours and not mine and owned and _guidance_has(t.pack, "term_role_owned"):
            # "You don't field one right now, but you own Hexmoth": the one they could bring.
            t.add("guidance", "term_role_owned", "answer", units=spoken_list(owned))
        elif ours:
            t.add(
                "guidance", "term_role_yours" if mine else "term_role_none", "answer", units=spoken_list(mine)
            )
        return True
    if term.kind == "style" and _guidance_has(t.pack, "term_style"):
        style = t.pack.vocabulary.styles[term.key]
        t.add("guidance", "term_style", "answer", style=term.key, style_summary=style.summary)

        def plays(uid: str) -> bool:  # a unit's own style where the pack gives one, else its role
            own = value(uid, "style")
            return own == term.key if own is not None else value(uid, "role") in style.roles

        mine = [n for u, n in zip(ours, names, strict=True) if plays(u)]
        if mine and _guidance_has(t.pack, "term_style_yours"):
            t.add("guidance", "term_style_yours", "answer", units=spoken_list(mine))
        foes = [catalog.display_name(u) for u in theirs if plays(u)]
        if foes and _guidance_has(t.pack, "term_style_theirs"):
            t.add("guidance", "term_style_theirs", "answer", units=spoken_list(foes))
        return True
    if term.kind == "chart" and _guidance_has(t.pack, "term_type_chart"):
        # "Which one beats which": the rule, then each type with the ones it hits for more
        typed = next((m for m in t.pack.catalog.schema.matchups if m.attribute is not None), None)
        table = catalog.tables.get(typed.name, {}) if typed is not None else {}
        beats = [
            f"{a} beats {spoken_list([b for b, x in row.items() if x > (typed.default if typed else 1.0)])}"
            for a, row in table.items()
            if any(x > (typed.default if typed else 1.0) for x in row.values())
        ]
        if beats:  # (the rule itself left out: the chart alone is a long sentence to hear)
            t.add("guidance", "term_type_chart", "answer", description="; ".join(beats))
            return True
    if term.kind == "type" and _guidance_has(t.pack, "term_type"):
        t.add("guidance", "term_type", "answer")
        typed = next((m for m in t.pack.catalog.schema.matchups if m.attribute is not None), None)
        edge = next(
            (
                (u, f)
                for u in ours
                for f in theirs
                if typed and multiplier(catalog, typed, u, f) > typed.default
            ),
            None,
        )
        if typed is not None and typed.attribute is not None and edge is not None:
            u, f = edge
            t.add(
                "guidance", "term_type_example", "answer",
                **{view.unit_kind: catalog.display_name(u), typed.attribute: value(u, typed.attribute),
                   "foe": catalog.display_name(f), f"foe_{typed.attribute}": value(f, typed.attribute)},
            )  # fmt: skip
        return True
    return False


def _lacks(t: RealizerTurn, entry: PhiEntry) -> bool:
    """Did none of the pair's tools run because one of its decision fields (its `requires`) is
    absent from the state (W1 dispatches nothing then)? The answer is what is missing
    (`_cannot_answer`), not one the recipes could make from the rest of the state ("for the last
    slot" with no match to fill a slot in)."""
    from voicecoach.core.state import get_field

    if not entry.tools or t.results or t.failed:
        return False
    return any(get_field(t.state, path) in (None, [], {}) for path in entry.requires)


def _cannot_answer(t: RealizerTurn) -> None:
    """No tool result answered the question: say what is missing (a name, the match, the roster)."""
    from voicecoach.core.state import get_field

    entry = next((e for e in t.pack.phi if (e.intent, e.sub_intent) == (t.intent, t.sub_intent)), None)
    needs = t.pack.catalog.schema.needs  # what each decision field's absence is called
    for path in entry.requires if entry is not None else []:
        value = get_field(t.state, path)
        if value is None or value == [] or value == {}:
            key = next((k for prefix, k in needs.items() if path.startswith(prefix)), None)
            if key is not None:
                t.add("constraint_account", key, "unavailable")
                unit = t.view.unit_kind
                if key in ("no_match", f"which_{unit}") and entry is not None and entry.branch == "recommend":
                    # A pick question still gets a pick: their strongest unit (no match yet, or the
                    # unit it is about unnamed).
                    _pick_meanwhile(t, entry)
                return
    t.add("guidance", "generic", "answer")


_COMPARES = re.compile(
    r"\b(?:better|worse|stronger|weaker|harder|more damage|less damage|or|vs|versus|compared?|"
    r"difference|differ|different)\b",
    re.IGNORECASE,
)


def _guidance_has(pack: Pack, key: str) -> bool:
    return bool(pack.templates.paragraphs["guidance"].templates.get(key))


def _is_score(entry: PhiEntry) -> bool:
    return (
        entry.answer is not None and entry.answer[0].recipe == "fact" and "ic.match.round" in entry.requires
    )


def _decided(match: Any) -> bool:
    """Has a side won more than half of the match's rounds (best of N)?"""
    return (
        bool(match.rounds_total) and max(match.score_player, match.score_opponent) > match.rounds_total // 2
    )


def _told_result(utterance: str) -> bool:
    """ "We just lost that round", "they took round two": a round's result, told."""
    return bool(ROUND_WON.search(utterance)) != bool(ROUND_LOST.search(utterance))


def _stakes(t: RealizerTurn) -> None:
    """ "If I win this one, is that the match?": what the round in play means, from the score and
    the match's length (best of N: a side needs more than half)."""
    match = t.state.ic.match
    if match is None or not match.rounds_total:
        return
    need = match.rounds_total // 2 + 1
    mine, theirs, now = match.score_player, match.score_opponent, match.round
    values: dict[str, Any] = {"round": now, "rounds": match.rounds_total, "next_round": now + 1,
                              "score_player": mine, "score_opponent": theirs}  # fmt: skip
    if mine >= need and t.pack.templates.paragraphs["scene_flavor"].templates.get("stakes_won"):
        key = "stakes_won"
        t.lines = [line for line in t.lines if line.key != "match_score"]  # the score, said once
    elif max(mine, theirs) >= need:
        key = "stakes_over"
    elif mine + 1 >= need and theirs + 1 >= need:
        key = "stakes_decider"
    elif mine + 1 >= need:
        key = "stakes_clinch"
    elif theirs + 1 >= need:
        key = "stakes_must"
    else:
        key = "stakes_open"
        values |= {"count": match.rounds_total - now, "missing": need - mine}
    t.add("scene_flavor", key, "answer", **values)


def _premise(t: RealizerTurn) -> bool:
    """ "We lost round one and they're stomping us" when the player leads 1-0: the score as it is,
    said first (advice built on a score the player has wrong misleads). True when said."""
    match = t.state.ic.match
    if match is None or not _guidance_has(t.pack, "premise_ahead"):
        return False
    if any(line.key == "match_score" for line in t.lines):
        return False  # the answer says the score as it is
    text = t.utterance.lower().replace("'", "").replace("\u2019", "")  # clause breaks kept
    mine, theirs = match.score_player, match.score_opponent
    behind, ahead = CLAIMS_BEHIND.search(text), CLAIMS_AHEAD.search(text)
    # Round one was played when the match is past it: a side with no wins did not take it. A lead
    # the snapshot denies by a round or more is wrong even if a round ended since the last push.
    played = match.round > 1
    if behind and not ahead:
        lost_one = re.search(r"\b(?:lost|dropped|won|took)\b", behind.group(0)) is not None
        wrong = theirs == 0 and played if lost_one else mine > theirs
    elif ahead and not behind:
        won_one = re.search(r"\b(?:won|took|lost|dropped)\b", ahead.group(0)) is not None
        wrong = mine == 0 and played if won_one else mine < theirs
    else:
        return False
    stated = _stated_score(text)
    if not wrong and stated is not None:
        # "We're up two nil" at 1-0: the lead is right, the score is not.
        high, low = max(stated), min(stated)
        wrong = (high, low) != ((mine, theirs) if ahead else (theirs, mine))
    values = {"score_player": mine, "score_opponent": theirs}
    if not wrong:
        # "Let's go, we took round one": right, and said so, unless the answer says the score.
        if mine == theirs or any("score_player" in line.values for line in t.lines):
            return False
        key = "premise_right_ahead" if mine > theirs else "premise_right_behind"
        if not _guidance_has(t.pack, key):
            return False
        t.lines.insert(0, Line("guidance", key, values, "answer", frozenset()))
        return True
    key = "premise_ahead" if mine > theirs else "premise_behind" if mine < theirs else "premise_level"
    t.lines.insert(0, Line("guidance", key, values, "answer", frozenset()))
    return True


_NEGATED = re.compile(r"\b(?:don't|doesn't|haven't|hasn't|isn't|aren't|not|no)\b", re.IGNORECASE)


_NUMBER = {"zero": 0, "nil": 0, "nothing": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_STATED = re.compile(
    r"\b(\d|zero|nil|one|two|three|four|five)(?:\s*[-:]\s*|\s+to\s+|\s+)(\d|zero|nil|nothing|one|two|three|four|five)\b"
)


def _stated_score(text: str) -> tuple[int, int] | None:
    """The score the player says ("two nil", "1-0", "one to one"), as two numbers, or None."""
    said = _STATED.search(text)
    if said is None:
        return None
    a, b = (int(w) if w.isdigit() else _NUMBER[w] for w in said.groups())
    return a, b


# "go Zanele", "switch to Hakon", "what about Veska", "is Mireva any good here" (English cue words).
_PLAY_BEFORE = re.compile(
    r"\b(?:play|playing|go|going|pick|picking|use|using|run|running|bring|bringing|field|fielding|try|trying|"
    r"main|switch\s+to|swap\s+to|switching\s+to|swapping\s+to|what\s+about|how\s+about|how\s+bout)\s+(?:with\s+)?$",
    re.IGNORECASE,
)
_JUDGED_AFTER = re.compile(
    r"^\s+(?:be\s+)?(?:any\s+)?(?:good|better|worth\s+it|viable|decent|ok|okay|fine)\s+(?:here|now|on\s+this|in\s+this|"
    r"into|against|vs)\b",
    re.IGNORECASE,
)


def _not_theirs_to_claim(t: RealizerTurn) -> None:
    """ "Is my Stormlynx any good against Voltail" when the roster has no Stormlynx: that first
    (an answer about "your Stormlynx" would confirm a unit the player does not have)."""
    if not t.view.known or any(line.key.startswith("owned") for line in t.lines):
        return
    theirs = set(t.view.opponent_side())
    unit = t.view.unit_kind
    # ... and "I'm gonna go Zanele", "what about Kasimir", "is Mireva any good here": a unit the
    # player lacks, proposed to play, hears that it is not theirs before how it would do.
    proposed = {
        m.id
        for m in link_entities(t.pack, t.utterance)
        if m.kind == unit
        and (
            _PLAY_BEFORE.search(t.utterance[: m.span[0]]) is not None
            or _JUDGED_AFTER.match(t.utterance[m.span[1] :]) is not None
        )
    }
    # ("what if they switch to Pyrowl": theirs, brought in)
    theirs |= set(brought_in(t.pack, t.utterance))
    units = t.pack.catalog.entities.get(unit, {})
    for uid in sorted(t.said_mine | proposed):
        if uid not in units or t.owns(uid) or uid in theirs:  # ("swap to for docks": a map, no unit)
            continue
        name = t.pack.catalog.display_name(uid)
        if any(
            name in text and _NEGATED.search(text) for text in (say(t.pack, x, t.turn_index) for x in t.lines)
        ):
            return  # "Tractor Beam is Mireva's, and you haven't unlocked Mireva yet": said already
        t.lines.insert(0, Line("constraint_account", "has_missing", {unit: name}, "answer", frozenset([uid])))
        return


# "What do the moth's moves do in normal words", "explain Lorcan's kit" (English cue words).
_EXPLAINS = re.compile(
    r"\bwhat\s+(?:do|does)\b.*\bdo\b|\bexplain\b|\bin\s+(?:normal|plain|simple)\s+(?:words|english|terms)\b",
    re.IGNORECASE,
)


def _letters(name: str) -> str:
    return re.sub(r"[\W_]+", "", name.lower())


def _stage_said(t: RealizerTurn, utterance: str) -> None:
    """ "Where'd my Emberkit go": an owned unit named by a stage it has left (one not owned, by a
    stage name alone) is that unit's stage, said first ("Emberkit is Emberfox's stage 1."), before
    what the answer says of the unit by its name now."""
    progression = t.pack.catalog.schema.progression
    if progression is None or "stage_named" not in t.pack.templates.paragraphs["guidance"].templates:
        return
    mentions = link_entities(t.pack, utterance)
    view = StateView(t.pack, t.state)
    for m in mentions:
        entity = t.pack.catalog.get(m.kind, m.id)
        value = entity.value(progression.field) if entity is not None and m.kind == progression.kind else None
        stages = [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
        said = _letters(m.surface)
        named = [i for i, s in enumerate(stages) if _letters(s) == said]
        if entity is None or not named or _letters(entity.display) == said:
            continue
        owned = view.unit(m.id)
        others = [o for o in mentions if o.id == m.id and o.span != m.span]
        if (owned is not None and (owned.tier or 0) <= named[0] + 1) or (owned is None and others):
            continue  # ("evolve Oakhorn into Elderhorn": the stage ahead, named as such)
        values = {"stage_name": stages[named[0]], progression.kind: entity.display, "stage": named[0] + 1}
        line = Line("guidance", "stage_named", values, "answer", frozenset({m.id}))
        t.lines.insert(0, line)
        return


def _options_explained(t: RealizerTurn) -> None:
    """ "What do Hexmoth's moves do": each option the answer names, with what it does (a list of
    names answers nothing asked)."""
    option = t.pack.catalog.schema.kind("option") or ""
    named = [e for line in t.lines for i in line.covers if (e := t.pack.catalog.get(option, i)) is not None]
    said = " ".join(str(v) for line in t.lines for v in line.values.values())
    explained = sorted({e.id: e for e in named}.values(), key=lambda e: (said.find(e.display), e.id))[:3]
    if len(explained) >= 2:  # a list of names: each said with what it does instead
        ids = {e.id for e in explained}
        t.lines = [line for line in t.lines if not (line.covers & ids) and line.keep != "answer"]
    for entity in explained:
        described = entity.value("description")
        if described:
            t.add(
                "guidance",
                "option_other",
                "answer",
                (entity.id,),
                other=entity.display,
                description=described,
            )


def _compare_options(t: RealizerTurn) -> None:
    """ "Is Blaze Charge better than Flame Burst": the two options side by side on the option kind's
    number (pet's power), said with the answer; options with no number, or of different kinds (an
    attack and a shield), get the second one's own description instead."""
    schema = t.pack.catalog.schema
    option = schema.kind("option") or ""
    number = schema.kinds[option].number
    first, second = (t.pack.catalog.get(option, oid) for oid in t.skills[:2])
    if first is None or second is None:
        return
    kinds = [
        a for a, spec in schema.kinds[option].attributes.items()
        if not spec.numeric and not (isinstance(spec.values, str) and spec.values in schema.kinds)
    ]  # fmt: skip
    if any(first.value(a) != second.value(a) for a in kinds):
        number = None  # a shield's power is not an attack's: not weighed on one number
    hits = _hits_harder(t, first, second) if _either(t) or _WHICH_BETTER.search(t.utterance) else None
    if number is None and hits is not None and _guidance_has(t.pack, "option_pick_hits"):
        # "Overcharge or Spark Nip this turn": the one that hits one of theirs hard, and whom
        chosen, foe, words = hits
        other = second if chosen is first else first  # (its status is no part of the pick)
        t.lines = [line for line in t.lines if line.keep != "answer" and other.id not in line.covers]
        values = {option: chosen.display, "foe": t.pack.catalog.display_name(foe), "status": words}
        t.add("guidance", "option_pick_hits", "answer", (chosen.id, foe), **values)
        return
    if number is None:
        # No number to weigh them by: said so when asked which is better, then the other one's own
        # description beside the first's profile.
        # (whose the first one is and whether it is unlocked are no part of weighing the two)
        pair = {first.id, second.id}
        t.lines = [line for line in t.lines if not (line.covers & pair and line.covers - pair)]
        leads = t.pack.templates.paragraphs["constraint_account"].templates
        if "options_unranked" in leads and _WHICH_BETTER.search(t.utterance):
            t.lines.insert(0, Line("constraint_account", "options_unranked", {}, "unavailable", frozenset()))
        described = second.value("description")
        if described:
            t.add(
                "guidance",
                "option_other",
                "answer",
                (second.id,),
                other=second.display,
                description=described,
            )
        return
    a, b = float(first.value(number) or 0), float(second.value(number) or 0)
    if _DIFFERENCE.search(t.utterance) and first.value("description") and second.value("description"):
        # "Overcharge vs Quick Circuit, what's the difference": what each one does, side by side
        t.lines = [line for line in t.lines if line.keep != "answer"]
        for one in (first, second):
            t.add("guidance", "option_other", "answer", (one.id,), other=one.display,
                  description=one.value("description"))  # fmt: skip
    if a < b:
        first, second, a, b = second, first, b, a
    key = "option_stronger" if a > b else "option_as_strong"
    either = _either(t)
    if either and a > b and _guidance_has(t.pack, "option_pick"):
        key = "option_pick"  # "Dread Whisper or Nightmare Hex": the one to use, said as a pick
    values = {option: first.display, "other": second.display, "value": f"{a:g}", "other_value": f"{b:g}"}
    if _WHICH_BETTER.search(t.utterance) or either:
        # "Gust Cutter vs Gale Dive, which one's better": the weighing is the answer, not one's card
        t.lines = [line for line in t.lines if line.keep != "answer"]
    t.add("guidance", key, "answer", (first.id, second.id), **values)


_DIFFERENCE = re.compile(r"\b(?:difference|differ|different)\b", re.IGNORECASE)


def _hits_harder(t: RealizerTurn, *options: Any) -> tuple[Any, str, str] | None:
    """Of two options offered as a choice, the one that hits one of their side for more than
    normal by the option kind's matchup attribute (pet: a move's element against a creature's), with
    that foe (the one named first) and the matchup's word for it; None when neither or both do."""
    schema = t.pack.catalog.schema
    m = next((x for x in schema.matchups if x.attribute and x.between[1] == t.view.unit_kind), None)
    theirs = t.view.opponent_side()
    if m is None or m.attribute is None or not theirs:
        return None
    named = [u for u in t.mentioned if u in theirs]
    foes = named or theirs
    best: list[tuple[float, Any, str]] = []
    for option in options:
        attacking = option.value(m.attribute)
        if attacking is None or for_own_side(t.pack, option.id):
            continue
        for foe in foes:
            entity = t.pack.catalog.get(t.view.unit_kind, foe)
            x = value_multiplier(t.pack.catalog, m, attacking, entity.value(m.attribute) if entity else None)
            if x > m.default:
                best.append((x, option, foe))
                break
    if len(best) != 1:
        return None
    x, option, foe = best[0]
    return option, foe, m.words.get(f"{x:g}", "more than normal")


def _either(t: RealizerTurn) -> bool:
    """ "Dread Whisper or Nightmare Hex on Voltail": two options offered as a choice, "or" between."""
    option = t.pack.catalog.schema.kind("option")
    said = [m for m in link_entities(t.pack, t.utterance) if m.kind == option]
    return any(
        re.fullmatch(r"\s*,?\s*or\s+", t.utterance[a.span[1] : b.span[0]])
        for a, b in zip(said, said[1:], strict=False)
    )


# "Which one's better", "should I run A or B": a choice between the two, not a description of each.
_WHICH_BETTER = re.compile(
    r"\b(?:better|best|stronger|worse|which\s+(?:one|is))\b|\bshould\s+(?:i|we)\b.*\bor\b", re.IGNORECASE
)


# "Is the fox ours or theirs", "whose is the turtle" (English cue words).
_WHOSE = re.compile(
    r"\b(?:ours|mine|yours|my\s+team|our\s+team)\s+or\s+(?:theirs|their\s+team|the\s+enemy'?s?)\b"
    r"|\b(?:theirs|their\s+team)\s+or\s+(?:ours|mine|my\s+team|our\s+team)\b|\bwhose\s+(?:is|side\s+is)\b",
    re.IGNORECASE,
)


def _whose(t: RealizerTurn, utterance: str) -> bool:
    """ "Is the fox with the fire tail ours or theirs": the side each unit named is on (fielded by
    the player, owned but not fielded, fielded by them, or by both). Whether it answered."""
    if not _WHOSE.search(utterance) or not t.mentioned or not _guidance_has(t.pack, "side_mine"):
        return False
    mine, theirs = set(t.view.player_side()), set(t.view.opponent_side())
    lines = []
    for uid in t.mentioned[:2]:
        key = (
            "side_both" if uid in mine and uid in theirs
            else "side_mine" if uid in mine
            else "side_theirs" if uid in theirs
            else "side_owned" if t.view.owns(uid)
            else "side_none"
        )  # fmt: skip
        lines.append(Line("guidance", key, {t.view.unit_kind: t.pack.catalog.display_name(uid)}, "answer",
                          frozenset((uid,))))  # fmt: skip
    t.lines = lines
    return True


def _caps_and_level(t: RealizerTurn, utterance: str) -> bool:
    """ "What's the max level a hero can reach", "is Renzo maxed", "what level am I": the caps the
    pack's manifest declares and the player's level answer the turn alone (the player's level after
    the rest's answer when they asked more: "how many do I own and what's my level"). Whether it
    did."""
    pack, view = t.pack, t.view
    cap = asks_cap(pack, utterance, len(t.mentioned))
    answered = False
    if cap is not None and _guidance_has(pack, f"cap_{cap}"):
        limits, values = pack.limits, dict[str, Any]()
        if cap == "level":
            values = {"level": limits.max_level, "count": limits.max_player_level}
        elif cap == "owned":
            values = {"count": limits.max_owned, "level": len(view.owned())}
        elif (owned := view.unit(t.mentioned[0])) is not None:
            values = {view.unit_kind: pack.catalog.display_name(t.mentioned[0]), "level": owned.level,
                      "count": limits.max_level}  # fmt: skip
        if values:
            t.lines, answered = [Line("guidance", f"cap_{cap}", values, "answer")], True
    if asks_my_level(utterance, len(t.mentioned)) and _guidance_has(pack, "my_level"):
        line = Line("guidance", "my_level", {"player_level": t.state.fs.player_level}, "answer")
        both = re.search(r"\band\b", utterance, re.IGNORECASE) is not None
        t.lines, answered = ([*t.lines, line] if both else [line]), True
    return answered


_ALL = re.compile(r"\b(?:every(?:one|body)?|all|whole|entire|team|allies|enemies)\b", re.IGNORECASE)
_THEIR_WORDS = re.compile(r"\b(?:their|they|theyve|enemy|enemys|opponents?|other\s+team)\b", re.I)
# "Can anyone heal", "does Sparkwing have a shield": yes or no; "which of mine heals": the one.
_YES_NO_ASKED = re.compile(
    r"^\W*(?:(?:so|ok|okay|and|but|hey|um|uh|well|wait|coach|yo)\W+)*(?:can|could|does|do|did|will|would|is|are|"
    r"has|have|got|any)\b",
    re.IGNORECASE,
)
# "who's doing the healing for them", "who's the one healing them": done for their side
_FOR_THEM = re.compile(r"\bfor\s+(?:them|their\s+(?:team|side))\b|\b\w+ing\s+them\b", re.IGNORECASE)
# "We keep getting out-sped", "something keeps putting us to sleep": done to the player's side.
_DONE_TO_US = re.compile(
    r"\b(?:we|i)\s+(?:keep|kept|always)\s+(?:getting|get|got)\b|\b(?:keeps?|kept)\s+\w+ing\s+(?:me|us|my|our)\b",
    re.IGNORECASE,
)
_TOLD_EFFECT = re.compile(r"^\W*(?:(?:whatever|like|just|always|still)\W+)*(?:keeps?|kept|always)\b", re.I)
_SELF = re.compile(r"\b(?:the\s+user|itself|himself|herself)\b", re.IGNORECASE)
_HE_SHE = re.compile(r"\b(?:he|she|him|her|his|it)\b", re.IGNORECASE)


def _has_effect(t: RealizerTurn, utterance: str) -> bool:
    """ "Does Sparkwing have any heals", "can anything I have slow him down", "do they have a
    revive": the options whose descriptions do the effect asked (voicecoach.domain.effects) of the
    unit asked about (named, or "he" of the one in focus, before the effect's words: "who can stun
    Voltail" asks who does it to Voltail), else of the side asked about (theirs on "they", else the
    player's roster), usable first; said alone, as the answer. Whether it answered."""
    view, pack = t.view, t.pack
    asked = effect_question(pack, utterance)
    if asked is None or view.option_kind is None or len(t.skills) > 1:
        return False
    if SCARIER.search(normalise(utterance)):
        return False  # "who's the bigger problem, Quillon or the Nadira healing them": a threat, ranked
    if not _guidance_has(pack, "effect_yes"):
        return False
    fx = option_effects(pack)
    wanted = set(asked.effects)

    def does(oid: str) -> bool:
        return asked.main in fx.get(oid, frozenset())

    everyone = _ALL.search(utterance[asked.at :]) is not None
    # "make a wall": the option whose text says the player's own word, before another that shields
    own_words = {w.rstrip("s") for w in re.findall(r"[a-z]{4,}", utterance[asked.at : asked.at + 30].lower())}

    def fit(uo: tuple[str, str]) -> tuple[int, bool, bool, bool]:
        """ "Hits them all and slows", "protects the team": the option that does all of it first, and
        one that does it for others before one that does it for its own unit ("Renzo heals a little")."""
        option = pack.catalog.get(view.option_kind or "", uo[1])
        text = str(option.value("description") or "") if option is not None else ""
        own = text.startswith(pack.catalog.display_name(uo[0])) or _SELF.search(text) is not None
        worded = bool(own_words & {w.rstrip("s") for w in re.findall(r"[a-z]{4,}", text.lower())})
        return (
            -len(wanted & fx.get(uo[1], frozenset())),
            not worded,
            not (everyone and _ALL.search(text)),
            own,
        )

    effect = asked.said
    unit, option_kind = view.unit_kind, view.option_kind
    linked = link_entities(pack, utterance)
    options = [m for m in linked if m.kind == view.option_kind]
    if t.skills and any(m.span[0] < asked.at for m in options):
        # "Does Dread Whisper put them to sleep": that option's own description says (one named
        # after the effect is done to: "anything that breaks Bexley's Barrier Drop").
        option = pack.catalog.get(option_kind, t.skills[0])
        if option is None or not _guidance_has(pack, "effect_option_yes"):
            return False
        text = str(option.value("description") or "").rstrip(".")
        text = text[:1].lower() + text[1:]  # said after a colon
        key = "effect_option_yes" if does(option.id) else "effect_option_no"
        if key == "effect_option_yes" and _ALL.search(utterance) and not _ALL.search(text):
            key = "effect_option_one"  # "does Gentle Light heal everyone": one ally, it says
        said = {option_kind: option.display, "effect": effect, "description": text}
        t.lines = [Line("guidance", key, said, "answer", frozenset((option.id,)))]
        return True
    lead, at = utterance[asked.clause[0] : asked.at], asked.at
    named = [m.id for m in linked if m.kind == unit and asked.clause[0] <= m.span[0] < at]
    if not named and t.mentioned and _HE_SHE.search(lead):
        named = t.mentioned[:1]  # "can he heal": the one in focus
    told_of = {m.id for m in linked if m.kind == unit and m.span[0] < asked.clause[0]}
    if not named and _TOLD_EFFECT.match(lead) and len(told_of) == 1 and told_of <= set(view.opponent_side()):
        # "their Voltail, whatever, keeps going first every turn": the clause has no subject of its
        # own; the one of theirs told about before it does it
        named = sorted(told_of)
    named = named[:1]
    # "anyone on their team heal", "who's doing the healing for them"
    theirs = not named and (
        _THEIR_WORDS.search(lead) is not None
        or _FOR_THEM.search(utterance) is not None
        or _DONE_TO_US.search(utterance) is not None
    )
    scope = named or (view.opponent_side() if theirs else [o.id for o in view.owned()])
    found = sorted(((u, o) for u in scope for o in view.options_of(u) if does(o)), key=fit)
    usable = [(u, o) for u, o in found if view.owns(u) and view.option_usable(o, u)]

    def values(u: str, o: str) -> dict[str, Any]:
        option = pack.catalog.get(option_kind, o)
        text = str(option.value("description") or "") if option is not None else ""
        named_first = pack.catalog.by_name(unit, text.split(" ", 1)[0]) is not None  # "Renzo heals ..."
        text = text if named_first else text[:1].lower() + text[1:]
        return {unit: pack.catalog.display_name(u), option_kind: pack.catalog.display_name(o),
                "description": text.rstrip("."), "effect": effect,
                "unlock": gate_text(pack, option_kind, o)}  # fmt: skip

    before = {m.id for m in linked if m.kind == unit and m.span[0] < at}
    choice = offered(pack, utterance[:at], [m for m in linked if m.span[0] < at])
    if len(before) >= 2 and len(choice) < 2:
        return False  # two named, and not as a choice ("does Yarrow do anything against Quillon"): not this
    if len(choice) >= 2:
        # "Elowen or Yarrow, who heals best": the data has no numbers for it; what each one has
        if not _guidance_has(pack, "effect_each"):
            return False
        each = []
        for u in choice[:3]:
            kit = sorted(
                (o for o in view.options_of(u) if does(o)),
                key=lambda o: (view.owns(u) and not view.option_usable(o, u), fit((u, o))),  # usable first
            )
            if kit:
                text = values(u, kit[0])["description"]
                each.append(f"{pack.catalog.display_name(u)}'s {pack.catalog.display_name(kit[0])}, {text}")
            else:
                each.append(f"{pack.catalog.display_name(u)} has nothing for that")
        t.lines = [
            Line("guidance", "effect_each", {"description": "; ".join(each)}, "answer", frozenset(choice))
        ]
        return True
    fielded = view.player_side()
    roles = {r: {w.lower() for w in v.words} | {r} for r, v in pack.vocabulary.roles.items()}
    words = set(re.findall(r"[a-z]+", effect))

    def role_fits(u: str) -> bool:  # "healer" of a support: the unit whose role the effect is
        entity = pack.catalog.get(unit, u)
        role = entity.value("role") if entity is not None else None
        return bool(words & {w for w in roles.get(str(role), set()) for w in re.findall(r"[a-z]+", w)})

    # the best fit, then the team on the field, and the unit whose role it is
    usable.sort(key=lambda uo: (fit(uo), uo[0] not in fielded, not role_fits(uo[0])))
    found.sort(key=lambda uo: (fit(uo), not role_fits(uo[0])))
    teams = re.compile(rf"\b(?:my|our)\s+(?:{team_words(pack)}|line\s+up|comp)\b", re.IGNORECASE)
    on_team = not named and teams.search(utterance) is not None
    if usable:
        u, o = usable[0]
        yes_no = _YES_NO_ASKED.match(utterance) is not None or not _guidance_has(pack, "effect_which")
        key = "effect_bench" if on_team and u not in fielded else "effect_yes" if yes_no else "effect_which"
        lines = [Line("guidance", key, values(u, o), "answer", frozenset((u, o)))]
    elif found:
        u, o = found[0]
        key = "effect_locked" if view.owns(u) else "effect_theirs"
        lines = [Line("guidance", key, values(u, o), "answer", frozenset((u, o)))]
    else:
        none = {unit: pack.catalog.display_name(named[0])} if named else {}
        key = "effect_none" if named else "effect_none_theirs" if theirs else "effect_none_roster"
        lines = [Line("guidance", key, none | {"effect": effect}, "answer", frozenset(named))]
        # ... and who of the player's does, if one does.
        other = [(u, o) for u in (o.id for o in view.owned()) if u not in named for o in view.options_of(u)]
        other = sorted(((u, o) for u, o in other if does(o) and view.option_usable(o, u)), key=fit)
        if (named or theirs) and other:
            lines.append(Line("guidance", "effect_other", values(*other[0]), "answer", frozenset(other[0])))
        # "Can anything I have slow him down" - no: then who has it, to get.
        elsewhere = [(u, o) for u in pack.catalog.entities.get(unit, {}) for o in view.options_of(u)]
        # (not one of theirs: "You don't own Voltail yet" about the Voltail beating them misreads whose it is)
        elsewhere = sorted(
            ((u, o) for u, o in elsewhere if does(o) and not view.owns(u) and u not in view.opponent_side()),
            key=fit,
        )
        if not named and not theirs and elsewhere and _guidance_has(pack, "effect_unowned"):
            lines.append(Line("guidance", "effect_unowned", values(*elsewhere[0]), "answer", frozenset()))
    t.lines = lines
    return True


# "Who's higher level, Hexmoth or the hawk", "is Renzo more levelled than Tamsin" (English cue words).
_LEVEL_COMPARE = re.compile(
    r"\b(?:higher|lower|more|less|bigger)[\s-]+(?:level(?:l?ed)?|lvl)\b|\blevel(?:l?ed)?\s+(?:higher|more)\b",
    re.IGNORECASE,
)


def _saved_group_said(pack: Pack, view: StateView, utterance: str) -> tuple[str, list[str]] | None:
    """The saved team the player names ("my long range group", "my main team"): its name, members."""
    said, teams = normalise(utterance), team_words(pack)
    for name, members in sorted(view.saved_groups().items()):
        spoken = re.escape(name.replace("_", " ").lower())
        if members and re.search(rf"\b{spoken}\s+(?:\w+\s+)?(?:group|{teams})s?\b", said):
            return name, members
    return None


def _saved_named(t: RealizerTurn) -> bool:
    """ "What's in my long range group", "load my main team": a team the player saved, named with a
    word for a team, said with its units (saved_named), unless a recipe answered about that team
    ("the best map for my main team"). Whether it answered."""
    if not _guidance_has(t.pack, "saved_named") or t.saved_said is None or t.saved_read:
        return False
    name, members = t.saved_said
    unit = t.view.unit_kind
    names = spoken_list([t.pack.catalog.display_name(u) for u in members])
    values = {"group_name": name.replace("_", " "), t.pack.catalog.schema.plural(unit): names}
    t.lines = [Line("guidance", "saved_named", values, "answer", frozenset(members))]
    return True


# "Don't I have a saved one", "what saved comps do I have", "what did I save" (English cue words and
# the pack's team words, `normalise`d; not "I've got training stuff saved up").
_SAVED_ASKED = r"\bsaved\s+(?:one|ones|{teams}|groups?)\b|\b(?:what|which)\b.*\b(?:i|we)\s+saved?\b"
_SAVED_ASKED_BY_PACK: dict[tuple[str, str], re.Pattern[str]] = {}


def _saved_asked_pattern(pack: Pack) -> re.Pattern[str]:
    """`_SAVED_ASKED` with the pack's team words, compiled once per pack (not per turn)."""
    key = (pack.pack_id, pack.version)
    if key not in _SAVED_ASKED_BY_PACK:
        teams = f"(?:{team_words(pack)})s?"
        _SAVED_ASKED_BY_PACK[key] = re.compile(_SAVED_ASKED.replace("{teams}", teams))
    return _SAVED_ASKED_BY_PACK[key]


def _saved_asked(t: RealizerTurn) -> bool:
    """ "Wait, don't I have a saved one for that?": the teams the player saved, each by its name
    with its units (saved_list), when no one is named and the pair's own answer is not about them.
    Whether it answered."""
    if not _guidance_has(t.pack, "saved_list") or t.saved_said is not None or t.saved_read:
        return False
    if not _saved_asked_pattern(t.pack).search(normalise(t.utterance)) or any(
        s.recipe == "saved_group"
        for e in t.pack.phi
        if (e.intent, e.sub_intent) == (t.intent, t.sub_intent)
        for s in e.answer or []
    ):
        return False
    saved = {n: m for n, m in sorted(t.view.saved_groups().items()) if m}
    if not saved:
        return False
    name = t.pack.catalog.display_name
    covers = frozenset(u for m in saved.values() for u in m)
    if len(saved) == 1:  # "Your saved main team is ..."
        (group, members), plural = next(iter(saved.items())), t.pack.catalog.schema.plural(t.view.unit_kind)
        values = {"group_name": group.replace("_", " "), plural: spoken_list([name(u) for u in members])}
        t.lines = [Line("guidance", "saved_named", values, "answer", covers)]
        return True
    groups = [f"{n.replace('_', ' ')}, with {spoken_list([name(u) for u in m])}" for n, m in saved.items()]
    t.lines = [
        Line(
            "guidance", "saved_list", {"count": len(groups), "units": "; and ".join(groups)}, "answer", covers
        )
    ]
    return True


# "What level are my heroes", "which ones are actually levelled": the roster by level (English cues).
_ROSTER_LEVELS = re.compile(
    r"\bwhat\s+levels?\s+(?:are|r)\s+(?:my|our|all\s+my)\s+\w+"
    r"|\b(?:which|what)\s+(?:ones|of\s+(?:them|those|mine|my\s+\w+)|\w+)\s+(?:are|r)\s+"
    r"(?:actually\s+|even\s+|really\s+|already\s+)?(?:levell?ed|high\s+level|maxed|strong\s+enough)\b",
    re.IGNORECASE,
)
ROSTER_LEVELS_SAID = 5  # a spoken list names the five highest, then where the rest stand


def _roster_levels(t: RealizerTurn, utterance: str) -> bool:
    """The player's units by level, highest first. Whether it answered."""
    if t.mentioned or not _ROSTER_LEVELS.search(utterance) or not _guidance_has(t.pack, "roster_levels"):
        return False
    owned = sorted(t.view.owned(), key=lambda o: (-o.level, o.id))
    if not owned:
        return False
    name = t.pack.catalog.display_name
    top, rest = owned[:ROSTER_LEVELS_SAID], owned[ROSTER_LEVELS_SAID:]
    values: dict[str, Any] = {"units": ", ".join(f"{name(o.id)} {o.level}" for o in top)}
    key = "roster_levels"
    if rest and _guidance_has(t.pack, "roster_levels_rest"):
        key, values = "roster_levels_rest", {**values, "level": rest[0].level}
    t.lines = [Line("guidance", key, values, "answer", frozenset(o.id for o in top))]
    return True


def _level_compare(t: RealizerTurn, utterance: str) -> bool:
    """Two of the player's units asked by level: both levels, the higher first. Whether it answered."""
    owned = [u for u in dict.fromkeys(t.mentioned) if t.view.unit(u) is not None]
    if len(owned) < 2 or not _LEVEL_COMPARE.search(utterance) or not _guidance_has(t.pack, "level_compare"):
        return False
    units = [o for u in owned[:2] if (o := t.view.unit(u)) is not None]
    first, second = sorted(units, key=lambda o: -o.level)
    unit = t.view.unit_kind
    key = "level_same" if first.level == second.level else "level_compare"
    values = {unit: t.pack.catalog.display_name(first.id), "other": t.pack.catalog.display_name(second.id),
              "level": first.level, "other_level": second.level}  # fmt: skip
    t.lines = [Line("guidance", key, values, "answer", frozenset((first.id, second.id)))]
    return True


def _not_in_data(t: RealizerTurn, limit: Limit) -> None:
    """ "The game data doesn't show speed": said first, before what the data does hold."""
    key = "foe_unseen" if limit.kind == "theirs" else "not_in_data"
    t.lines.insert(0, Line("constraint_account", key, {"data": limit.what}, "unavailable"))
    if limit.kind == "theirs" and limit.about is not None:
        t.lines[1:1] = _in_their_kit(t, limit.about.id)


_HAS_IT = re.compile(
    r"\b(?:have|has|got|know|knows|learn|learns|run|runs|use|uses|carry|carries|equip\w*|get)\b", re.I
)


def _in_their_kit(t: RealizerTurn, option: str) -> list[Line]:
    """ "Does Shellbastion have Mist Shroud": what they have unlocked is unseen, but whether the unit
    can have the option at all is a catalog fact (kit_has / kit_lacks); none when no unit of theirs
    is named or the option is of no unit's kit."""
    schema, catalog = t.pack.catalog.schema, t.pack.catalog
    field, unit_kind, option_kind = schema.options_field(), t.view.unit_kind, schema.kind("option")
    theirs = t.view.opponent_side()
    # ("does Inferno Roar work on Vinecoil": the player's option aimed at theirs, not theirs to have)
    said = link_entities(t.pack, t.utterance)
    unit = next(
        (
            u.id
            for u in said
            for o in said
            if u.kind == unit_kind
            and u.id in theirs
            and o.id == option
            and u.span[1] <= o.span[0]
            and _HAS_IT.search(t.utterance[u.span[1] : o.span[0]])
        ),
        None,
    )
    entity = catalog.get(unit_kind, unit) if unit is not None else None
    if (
        unit is None
        or entity is None
        or not field
        or option_kind is None
        or catalog.get(option_kind, option) is None
    ):
        return []
    has = option in (entity.value(field) or [])
    key = "kit_has" if has else "kit_lacks"
    if not _guidance_has(t.pack, key):
        return []
    values = {unit_kind: catalog.display_name(unit), option_kind: catalog.display_name(option)}
    return [Line("guidance", key, values, "answer", frozenset((unit,)), fact=True)]


def _about_theirs(t: RealizerTurn) -> None:
    """Asked of their unit: nothing about the player's own copy of it or whether they own one."""
    t.lines = [line for line in t.lines if not (line.keep == "account" or _OWNING_KEY.match(line.key))]


_OWNING_KEY = re.compile(r"^(?:has_|option_|owned|ownership|yours|your_)")


def _judgements(t: RealizerTurn, c2: GroundingControl) -> None:
    """constraint_account / apology / praise lines for the planned paragraphs' constraints: W2's
    constraints on the pack's kinds (has:<unit>, <option kind>:<option>[@<unit>], excludes:,
    counter:, attr:, global:), said with the pack's templates, whose placeholders are its kinds'
    names ({hero}, {item}, {creature}), as the recipes fill them."""
    pack = t.pack
    schema = pack.catalog.schema
    view = t.view
    units = pack.catalog.entities.get(view.unit_kind, {})
    by_id = {c.constraint: c for c in c2.conflicts}
    roster_key = next((k for p, k in schema.needs.items() if p.startswith("fs.")), "roster_unknown")
    for p in c2.plan:
        if p.type == "praise" and len(p.constraints) > 1:
            continue  # "everything you asked for is unlocked": an internal check, no coach says it
        for cid in sorted(p.constraints):
            c = by_id.get(cid)
            if c is None:
                continue
            if p.type == "apology" and cid == "state:inventory" and c2.inventory_empty:
                t.add("apology", "roster_empty", "account")
            elif c.kind == "state":
                if _needs_roster(phi_entry(pack, t.intent, t.sub_intent)):
                    t.add("constraint_account", roster_key, "unavailable")
            elif p.type in ("constraint_account", "apology") and not c.satisfied:
                _account(t, view, c.kind, cid, c.entity)
            elif p.type == "praise" and c.satisfied:
                _praise(t, view, c.kind, cid, c.entity)
    # Keeping units out is worth confirming, in one sentence however many there are: on the turn the
    # player asks for it, and later only when this answer recommends units and one kept out is the
    # player's own (it could have been picked). A "thanks", a weakness question or an evolution
    # answer (it names a unit, but picks none) needs no reminder.
    out = [c.entity for c in c2.conflicts if c.kind == "excludes" and c.satisfied and c.entity in units]
    picks = branch_of(pack, t.intent, t.sub_intent) == "recommend" and _offered(t)
    just_asked = bool(set(out) & set(t.mentioned))
    if not just_asked and not (picks and any(view.owns(u) for u in out)):
        out = []
    if just_asked and (
        t.sub_intent == "swap" or _ASKS_WHETHER.match(t.utterance) or TOLD_GONE.search(normalise(t.utterance))
    ):
        # "should I pull Sparkwing out?" asks, "I just lost Oakhorn" tells: the answer is the
        # reply, not "as you asked"
        out = []
    if branch_of(pack, t.intent, t.sub_intent) != "recommend":
        out = []  # "which round is this?": a fact names no pick, so there is nothing to keep them out of
    # "I hate that turtle" of one only the opponent fields: nothing of the player's was kept out
    out = [u for u in out if view.owns(u) or u not in view.opponent_side()]
    if out and not just_asked:
        # "Still leaving Oakhorn out" only after a reply said it was left out as asked (not after
        # "we lost Oakhorn": the player told, not asked).
        said = " ".join(t.recent)
        out = [u for u in out if pack.catalog.display_name(u) in said and " out" in said]
    if out:
        # Just asked for: confirming it matters as much as the constraint accounts.
        key, keep = ("excludes", "account") if just_asked else ("excludes_still", "praise")
        t.add(
            "praise",
            key,
            keep,
            out,
            **{view.unit_kind: spoken_list([pack.catalog.display_name(u) for u in out])},
        )


# "Should I pull Emberfox out", "do I bench Oakhorn": asked whether, not told to (English cue words).
_ASKS_WHETHER = re.compile(
    r"^\W*(?:(?:so|ok|okay|um|uh|wait|and|hmm)\W+)*(?:should|shall|do|can|would|could|must)\s+(?:i|we)\b",
    re.I,
)


def _needs_roster(entry: PhiEntry | None) -> bool:
    """Does the pair need the player's units (a decision field in fs.*; an unknown pair might)?"""
    return entry is None or any(path.startswith("fs.") for path in entry.requires)


def _unmet(t: RealizerTurn, view: StateView, option: str, oid: str, owner: str | None) -> str:
    """An option's gates still unmet on the player's `owner` (its whole gate without one): a gate
    the player has met is no reason it is locked."""
    owned = view.unit(owner) if owner is not None else None
    if owned is None:
        return gate_text(t.pack, option, oid)
    own, other, _ = unmet_gates(t.pack, t.state, option, oid, owned.level)
    return " and ".join(own + other) or gate_text(t.pack, option, oid)


def _account(t: RealizerTurn, view: StateView, kind: str, constraint: str, entity: str | None) -> None:
    pack = t.pack
    catalog, unit, option = pack.catalog, view.unit_kind, view.option_kind
    name = catalog.display_name
    units = catalog.entities.get(unit, {})
    if kind == "has" and entity in units:
        if not _answer_names(t, entity):
            t.add("constraint_account", "has_missing", "account", [entity], **{unit: name(entity)})
    elif option is not None and kind == option:
        oid, _, owner = constraint.split(":", 1)[1].partition("@")
        if catalog.get(option, oid) is None:
            return
        learners = view.learners(oid)
        said = {option: name(oid)}
        entry = phi_entry(pack, t.intent, t.sub_intent)
        theirs = set(view.opponent_side())
        # (their Shellbastion has Coral Guard in this match, whoever else learns it)
        holder = owner or next((u for u in learners if u in theirs), None) or next(iter(learners), None)
        if (
            entry is not None
            and (entry.branch == "knowledge-qa" or f"ic.focus.{option}" not in entry.requires)
            and holder in theirs
            and not view.owns(holder or "")
        ):
            # "what's Nadira's gun" of theirs, "their Nadira has Null Grenade, is my Elowen done":
            # that the player lacks her is beside the point
            return
        if owner and owner in units:
            if owner not in learners:
                holder = next(iter(learners), None)
                if holder is not None:
                    t.add(
                        "constraint_account",
                        "option_unlearnable",
                        "account",
                        [oid],
                        **said,
                        **{unit: name(holder)},
                    )
            elif not view.owns(owner):
                t.add(
                    "constraint_account",
                    "option_unowned",
                    "account",
                    [oid, owner],
                    **said,
                    **{unit: name(owner)},
                )
            else:
                t.add("constraint_account", "option_locked", "account", [oid], **said, **{unit: name(owner)},
                      unlock=_unmet(t, view, option, oid, owner))  # fmt: skip
        elif not any(view.owns(u) for u in learners) and learners:
            # Nobody the player has can run it: whose it is says why ("Quillon's, not unlocked").
            t.add(
                "constraint_account", "option_unowned", "account", [oid], **said, **{unit: name(learners[0])}
            )
        else:
            t.add(
                "constraint_account",
                "option_locked_any",
                "account",
                [oid],
                **said,
                unlock=_unmet(t, view, option, oid, next((u for u in learners if view.owns(u)), None)),
            )
    elif kind == "excludes" and entity in units:
        # (said once: "You also asked to leave Sparkwing out" again on every turn is a recording)
        notes = t.pack.templates.paragraphs["constraint_account"].templates.get("excludes_clash", [])
        noted = {text for v in notes if (text := _fill(v, {unit: name(entity)}))}
        if not any(text in reply for reply in t.recent for text in noted):
            t.add("constraint_account", "excludes_clash", "account", [entity], **{unit: name(entity)})
    elif kind == "counter" and entity in units:
        if not _needs_roster(phi_entry(pack, t.intent, t.sub_intent)):
            return  # "how long does Bexley's wall stay up": a fact of theirs, not about the player's
        earlier = next((i for i, line in enumerate(t.lines) if line.key == "counter_missing"), None)
        if earlier is None:
            t.add("constraint_account", "counter_missing", "account", [entity], foe=name(entity))
        elif entity not in t.lines[earlier].covers:
            ids = [*sorted(t.lines[earlier].covers), entity]
            foes = " or ".join([", ".join(name(c) for c in ids[:-1]), name(ids[-1])])
            t.lines[earlier] = Line(
                "constraint_account", "counter_missing", {"foe": foes}, "account", frozenset(ids)
            )
    elif constraint == "global:min_size" and view.known:
        t.add("constraint_account", "min_size", "account", count=len(view.owned()), size=t.min_size)
    elif t.only is not None and constraint == f"global:{t.only[0]}_only":
        # "Only fire, but keep Galehawk in": name the unit that breaks the rule, or say that nothing
        # the player owns has the value.
        attr, wanted = t.only
        clash = next((u for u in t.wanted if u in units and units[u].value(attr) != wanted), None)
        if clash is not None:
            t.add("constraint_account", f"{attr}_only_clash", "account", [clash],
                  **{unit: name(clash), attr: units[clash].value(attr)}, status=wanted)  # fmt: skip
        else:
            t.add("constraint_account", f"{attr}_only_none", "account", status=wanted)
    elif constraint.startswith("attr:") and "=" in constraint and "!=" not in constraint:
        # "attr:role=support@paxton" is about Paxton's catalog entry, not the roster: "none of your
        # heroes is a support" would be false while the player owns four.
        attr, _, value = constraint[5:].partition("=")
        value, _, about = value.partition("@")
        status = value if _typed(pack, unit, attr) else article(value)  # "fire", but "a support"
        if not about:
            t.add("constraint_account", "attr_missing", "account", status=status)
        elif about in units and _has_template(pack, "attr_unit_missing"):
            t.add("constraint_account", "attr_unit_missing", "account", [about], **{unit: name(about)},
                  status=status)  # fmt: skip
    else:
        t.add("constraint_account", "generic", "account")


def _typed(pack: Pack, kind: str, attr: str) -> bool:
    """Are the attribute's values a type kind's entities (pet's element), said bare ("fire")?"""
    spec = pack.catalog.schema.kinds[kind].attributes.get(attr)
    return spec is not None and isinstance(spec.values, str) and spec.values in pack.catalog.schema.kinds


def _has_template(pack: Pack, key: str) -> bool:
    """Does the pack word constraint_account's `key`? (Without it the line would be the generic
    "Part of that isn't possible ...", which says nothing true about one unit's catalog entry.)"""
    return bool(pack.templates.paragraphs["constraint_account"].templates.get(key))


def _answer_names(t: RealizerTurn, entity: str) -> bool:
    """Does an answer line already name `entity` ("Steam Engine is closest, missing Cindermaw")?"""
    said = " ".join(str(v) for line in t.lines if line.keep == "answer" for v in line.values.values())
    covered = {i for line in t.lines if line.keep == "answer" for i in line.covers}
    return entity in covered or t.pack.catalog.display_name(entity) in said


def _praise(t: RealizerTurn, view: StateView, kind: str, constraint: str, entity: str | None) -> None:
    pack = t.pack
    catalog, unit, option = pack.catalog, view.unit_kind, view.option_kind
    name = catalog.display_name
    if kind == "has" and entity is not None and view.owns(entity):
        if any(line.keep == "answer" for line in t.lines):
            return  # after an answer, "you do have Granitusk" is a verbalised check, not coaching
        # One sentence for every owned unit asked about: "You do have A and B."
        earlier = next((i for i, line in enumerate(t.lines) if line.key == "has"), None)
        if earlier is None:
            t.add("praise", "has", "praise", [entity], **{unit: name(entity)}, ids=[entity])
        elif entity not in t.lines[earlier].values["ids"]:
            ids = [*t.lines[earlier].values["ids"], entity]
            t.lines[earlier] = Line("praise", "has", {unit: spoken_list([name(u) for u in ids]), "ids": ids},
                                    "praise", frozenset(ids))  # fmt: skip
    elif option is not None and kind == option:
        oid, _, owner = constraint.split(":", 1)[1].partition("@")
        if catalog.get(option, oid) is None:
            return
        if any(line.keep == "answer" for line in t.lines) and owner in view.opponent_side():
            # "Paxton's turret keeps wrecking us, who beats him?": their Paxton's turret; that the
            # player's own Paxton can run it answers nothing asked.
            return
        if any(line.key == "option_pick_hits" and oid not in line.covers for line in t.lines):
            return  # "A or B": B picked; that A is usable is no part of the answer
        if owner and view.owns(owner):
            t.add("praise", "option", "praise", [oid], **{option: name(oid), unit: name(owner)})
        else:
            t.add("praise", "option_any", "praise", [oid], **{option: name(oid)})


_PARENS = re.compile(r"\s*\(([^()]*)\)")


def _guidance(t: RealizerTurn, c3: InteractionControl) -> None:
    """c3's guidance, spoken only if the player can act on it (a group they can field, nothing kept
    out) and it does not compete with the answer."""
    g = c3.guidance
    if g is None or not g.text or (t.why and t.lines):
        return  # "why?" asks for the reason of the last answer: a reason, not more advice
    schema = t.pack.catalog.schema
    if g.lineup_id is not None:
        # A named group (lineup_id names one of the group kind): every member fieldable, and no team
        # of the answer's own already said (a line picking two or more units): that would be a
        # second, competing team.
        members = t.view.members(g.lineup_id)
        if not members or not all(t.usable(u) for u in members):
            return
        if any(
            _picks(line) and len(line.covers) >= 2 and set(line.covers) != set(members) for line in t.lines
        ):
            return
    candidate = next((c for b in t.pack.w3.branches.values() for c in b.pool if c.id == g.candidate_id), None)
    if (
        candidate is not None
        and candidate.guidance_type in ("tip", "upgrade")
        and t.lines
        and not ASKS_ADVICE.search(t.utterance)
    ):
        # A general tip after the answer to a specific question is a stock line ("what does
        # Nightmare Hex do" ... "Level the creature you cast most"): said when the player asks for
        # advice, or when it is all there is to say.
        return
    if (
        candidate is not None
        and candidate.guidance_type == "followup"
        and sum(line.keep == "answer" for line in t.lines) >= 2
    ):
        # "Want me to check the rest of that loadout?" after a full answer is a stock tail: an offer
        # goes only where the answer left room for more.
        return
    offer_or_keep = candidate is not None and (candidate.accept or candidate.keeps_current)
    if (
        candidate is not None
        and candidate.guidance_type in ("timing", "quota")
        and not any(map(_picks, t.lines))
    ):
        # "Make the change at your next respawn", "when you swap, swap like for like" after "I'd keep
        # Wendell": how to make a change the answer does not make.
        return
    if g.lineup_id is None and not offer_or_keep and any(map(_picks, t.lines)):
        # "Swap to Brannoc against Quillon." then "Bring at least one hero who counters their
        # biggest threat.": a general tip after a pick restates it, or competes with it.
        return
    focus = t.view.focus(t.view.unit_kind)
    if (
        candidate is not None
        and candidate.guidance_type == "upgrade"
        and focus is not None
        and not t.view.owns(focus)
    ):
        # "What's their Voltail's best skill?" then "Level the creature you cast most": advice on
        # the player's own roster after an answer about a unit that is not theirs is off the point.
        return
    match = t.state.ic.match
    if candidate is not None and candidate.keeps_current and match is not None:
        if _offered(t) - set(match.player_lineup):  # "keep your lineup" after "field these instead"
            return
    # "Try the Tidal Wall lineup (defensive style)." reads ", defensive style" aloud.
    text = _PARENS.sub(lambda m: ", " + m.group(1), g.text)
    # A pack text that names a unit must name one the player can field.
    named = [m.id for m in link_entities(t.pack, text) if m.kind == t.view.unit_kind]
    if any(not t.usable(u) for u in named):
        return
    # "I can build a comp around that hero": "that <unit noun>" is the unit in focus, so the offer
    # needs one the player can field (not a locked hero just described).
    nouns = schema.kinds[t.view.unit_kind].nouns
    if focus is not None and _names_that(text, nouns) and not t.usable(focus):
        return
    t.add("guidance", "w3", "w3", named, guidance=text, lineup_id=g.lineup_id)


def _names_that(text: str, nouns: Sequence[str]) -> bool:
    """Does the text point at the unit in focus ("that hero", with the kind's own nouns)?"""
    words = "|".join(re.escape(n) for n in nouns)
    return bool(words) and re.search(rf"\bthat (?:{words})\b", text, re.I) is not None


def _group_ids(pack: Pack) -> set[str]:
    """The ids of the pack's named teams (its group kind's entities)."""
    return set(pack.catalog.entities.get(pack.catalog.schema.kind("group") or "", {}))


# "We lost that round", "we're up one": the player has just told the score, and the snapshot may not
# have it yet, so the coach does not read the state's score back at them.
_TELLS_SCORE = re.compile(
    r"\b(?:lost|won|lose|win|took|dropped|tied)\b[^.?!]*\b(?:round|game|match|one)\b"
    r"|\b(?:we're|we are|i'm|i am)\s+(?:up|down|ahead|behind|tied|level)\b",
    re.I,
)


# "Who do we go after", "which one first" (but "who's winning" asks the score; English cue words).
_ASKS_WHO = re.compile(
    r"^\W*(?:\w+\W+){0,3}?(?:who|whom|whos|who's|which)\b(?!.*\b(?:winning|ahead|leading|won|score)\b)",
    re.IGNORECASE,
)


def _scene(t: RealizerTurn) -> None:
    """The match in a line, unless one of the last few replies said it already (the match has not
    moved since: said on every turn, or every other one, it sounded like a recording), or the
    player has just said how the match stands."""
    match = t.state.ic.match
    # (a round result told is counted in the snapshot: see perception.dialogue.told_round)
    # (but a late snapshot may miss it: only a decided match is said back)
    # (nor a match the round just told has taken to its last round: "1 all, round 3 decides it")
    if match is None:
        return
    news = _told_result(t.utterance) and (_decided(match) or match.round >= match.rounds_total)
    if _TELLS_SCORE.search(t.utterance) and not news:
        return
    values: dict[str, Any] = dict(
        score_player=match.score_player,
        score_opponent=match.score_opponent,
        round=match.round,
        rounds=match.rounds_total,
    )
    templates = t.pack.templates.paragraphs["scene_flavor"].templates
    over = _decided(match) and _told_result(t.utterance)  # the round just told ended the match
    if over and templates.get("stakes_won") and match.score_player > match.score_opponent:
        key = "stakes_won"
    elif over and templates.get("stakes_lost"):
        key = "stakes_lost"
    elif (
        match.round >= match.rounds_total
        and match.score_player == match.score_opponent
        and templates.get("decider")
    ):
        key = "decider"
    elif match.round >= match.rounds_total:
        key = "final"
    elif match.score_player > match.score_opponent:
        key = "leading"
    elif match.score_player < match.score_opponent:
        key = "behind"
    else:
        key = "level"
    variants = t.pack.templates.paragraphs["scene_flavor"].templates.get(key, [])
    said = {text for v in variants if (text := _fill(v, values))}
    if any(text in reply for reply in t.recent for text in said):
        return
    t.add("scene_flavor", key, "flavor", **values)


# --- the realization ---------------------------------------------------------------------------------


# --- a late snapshot: the roster as the player says it is now -----------------------------------------

# What the player says just happened to a creature they name, read from plain English cue words.
# On a late snapshot it is the one thing the snapshot cannot know yet: the roster is projected with
# it, and a named creature whose change no cue tells stays out of every claim ("unsure").
CHANGE_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("gone", re.compile(r"\b(?:trad\w*|gave|given|gone|sold|released|lost|swapped\s+away)\b", re.I)),
    ("evolved", re.compile(r"\bevolv\w*", re.I)),
    ("levelled", re.compile(r"\blevel(?:l?ed|s|ling|ing)?\b|\blvl\b|\blv\b", re.I)),
    (
        "acquired",
        re.compile(r"\b(?:got|caught|pulled|joined|obtained|hatched|bought|won|added|new)\b", re.I),
    ),
)


# "They brought in X": a creature joined the opponent's side since the snapshot (which still shows
# their old lineup, so W2's opponent slots cannot know it).
OPPONENT_ENTERS = re.compile(
    r"\b(?:they|they've|they're|their|opponents?|enemy)\b[^.?!]*?"
    r"\b(?:swap\w*|switch\w*|brought|bring\w*|sent|send\w*|put|came|comes|coming|subbed)\b|"
    r"\b(?:came|comes|coming|subbed|swapped|switched)\s+(?:in|out)\s+(?:on|for)\s+"
    r"(?:their|the enemy|the other)\b",
    re.I,
)


def _choice(pack: Pack, state: LiveState, offered: list[str], opponents: Sequence[str]) -> list[str]:
    """The player's units among those offered as a choice: none of theirs ("is Emberfox better than
    Voltail" weighs a matchup), and no choice at all when fewer than two are left."""
    view = StateView(pack, state)
    theirs = set(view.opponent_side())
    mine = [u for u in offered if u not in opponents and (u not in theirs or view.owns(u))]
    return mine if len(mine) >= 2 else []


def _change_of(utterance: str) -> str | None:
    return next((kind for kind, cue in CHANGE_CUES if cue.search(utterance)), None)


def _skills_unlocked(pack: Pack, unit_id: str, tier: int, level: int, had: Sequence[str]) -> list[str]:
    """The options a unit has at `tier` / `level`: the ones it had, plus every one of the catalog's
    whose gates are all met (its tier and level gates; a quest or account gate is never assumed)."""
    schema = pack.catalog.schema
    option, field = schema.kind("option"), schema.options_field()
    unit = pack.catalog.get(schema.kind("unit") or "", unit_id)
    if option is None or field is None or unit is None:
        return list(had)
    gates = schema.kinds[option].gate
    have = {"tier": tier, "level": level}
    out = list(had)
    for oid in unit.value(field) or []:
        entity = pack.catalog.get(option, oid)
        unlock = entity.value("unlock") if entity is not None else None
        needs = unlock.items() if isinstance(unlock, dict) else []
        met = all(
            f in gates and gates[f].state in have and isinstance(v, int) and v <= have[gates[f].state]
            for f, v in needs
        )
        if met and oid not in out:
            out.append(oid)
    return out


def _project(
    pack: Pack, inv: Inventory, utterance: str, mentioned: Sequence[str], sub_intent: str
) -> tuple[Inventory, set[str]]:
    """The snapshot's roster with the change the player says happened to the creature they name
    (got it, evolved it, levelled it, traded it away), and the named creatures no cue explains."""
    from voicecoach.core.state import OwnedCreature

    change = _change_of(utterance)
    if change is None and sub_intent in ("build_around", "best_lineup") and mentioned:
        # "a team around X" for an X the snapshot lacks: they have it now, or they would not ask.
        change = "acquired" if not inv.owns(mentioned[0]) else None
    owned = list(inv.owned)
    unsure: set[str] = set()
    schema = pack.catalog.schema
    unit_kind, tiers_field = (
        schema.kind("unit") or "",
        schema.progression.field if schema.progression else None,
    )
    for i, cid in enumerate(mentioned):
        unit = pack.catalog.get(unit_kind, cid)
        tiers = len(unit.value(tiers_field) or []) if unit is not None and tiers_field else 1
        have = inv.get(cid)
        if i > 0 or change is None:
            unsure.add(cid)
        elif change == "gone":
            owned = [o for o in owned if o.creature_id != cid]
        elif change == "acquired" and have is None:
            owned.append(
                OwnedCreature(creature_id=cid, unlocked_skills=_skills_unlocked(pack, cid, 1, 1, []))
            )
        elif change in ("evolved", "levelled") and have is not None:
            stage = min(have.stage + 1, max(1, tiers)) if change == "evolved" else have.stage
            level = have.level + 1 if change == "levelled" else have.level
            skills = _skills_unlocked(pack, cid, stage, level, have.unlocked_skills)
            now = have.model_copy(update={"stage": stage, "level": level, "unlocked_skills": skills})
            owned = [now if o.creature_id == cid else o for o in owned]
        elif have is None:
            unsure.add(cid)  # they say it changed, but the snapshot never had it
    return inv.model_copy(update={"owned": owned}), unsure


def _snapshot_results(
    pack: Pack, state: LiveState, intent: str, sub_intent: str
) -> dict[str, dict[str, Any]]:
    """The pair's Φ tools run on the (projected) snapshot. On a late push W1 gets no fresh decision
    state, so no tool runs for the turn; these results are what the snapshot says, and the reply
    that rests on them carries the hedge."""
    from voicecoach.perception.kernel import W1Decision
    from voicecoach.perception.phi import PhiTable, tool_validator
    from voicecoach.tools.registry import ToolError, run_tool

    decision = W1Decision(PhiTable(pack.phi), validate=tool_validator(pack), max_age=state.turn_index + 10**6)
    dispatch = decision.on_sub_intent(intent, sub_intent, state, state.turn_index)
    results: dict[str, dict[str, Any]] = {}
    for call in dispatch.calls if dispatch else []:
        try:
            results[call.tool] = run_tool(pack, state, call.tool, call.args)
        except ToolError:
            continue  # the snapshot cannot answer this call: the rest of the reply goes without it
    return results


# --- the realization ---------------------------------------------------------------------------------

# The player asks how or when, not whether (plain English cue words).
ASKS_HOW = re.compile(r"\b(?:how|when|what (?:do i|does it) (?:need|take)|what unlocks)\b", re.I)
# The player asks for another option than the last one (plain English cue words).
ALTERNATIVE = re.compile(
    # (not "what else is it weak to": more of the same answer, not another pick)
    r"\b(?:else(?!\s+(?:is|are|does|do)(?:\s+\w+){1,3}?\s+(?:weak|vulnerable|resist\w*|immune|do)\b)|another|other|others|different|alternatives?|"
    r"instead|second|backup|plan\s+b|after\s+that|then\s+who|who'?s\s+next|who\s+next)\b",
    re.I,
)


def _words(text: str) -> int:
    from voicecoach.talker.speakable import words

    return len(words(text))  # counted as the checker counts the turn


def _sentences(text: str) -> int:
    from voicecoach.talker.speakable import split_sentences

    return max(1, len(split_sentences(text)))


def realize(
    pack: Pack,
    state: LiveState,
    c2: GroundingControl | None,
    c3: InteractionControl | None,
    tools: Sequence[ToolOutcome],
    utterance: str,
    turn_index: int,
    intent: str = "",
    sub_intent: str = "",
    *,
    max_words: int = MAX_WORDS,
    max_sentences: int = MAX_SENTENCES,
    previous_reply: str | None = None,
    recent_replies: Sequence[str] = (),
    scene: bool = True,
    asked_before: str | None = None,
) -> str:
    """The spoken realization of the turn's decisions: one to three short sentences.

    `intent` / `sub_intent` are c1's labels: they say which question the tool results answer.
    `max_words` / `max_sentences` are what the turn has left after W1's narration (the checker bounds
    the whole turn); the answer is always said, flavour lines go first when over budget.
    `previous_reply` is the session's last reply: its picks are not recommended again as the same
    set (two or more creatures, or a pack lineup) when an alternative exists, and when the player
    asks for something else the alternative comes first. `recent_replies`: the session's last few
    replies (`previous_reply` among them): the match line is not said again while one of them said
    it, and a pack-worded answer is the first of its variants none of them said (asked again, the
    next tip). `scene=False`: no match line (the first of two answers in one reply).
    `asked_before`: the session's last question; a bare "why" keeps its choice ("A or B?" - "why?").
    """
    mentions = link_entities(pack, utterance)
    schema = pack.catalog.schema
    unit_kind, option_kind, group_kind = (
        schema.kind("unit") or "",
        schema.kind("option"),
        schema.kind("group"),
    )

    def unit_by_name(name: str) -> Any:
        return pack.catalog.by_name(unit_kind, name)

    excluded: set[str] = set()
    if c2 is not None:
        excluded |= {c.id for n in c2.slots.excluded_entities if (c := unit_by_name(n)) is not None}
        excluded |= {c.entity for c in c2.conflicts if c.kind == "excludes" and c.entity}
    mentioned = list(dict.fromkeys(m.id for m in mentions if m.kind == unit_kind))
    opponents = [c.entity for c in c2.conflicts if c.kind == "counter" and c.entity] if c2 else []
    chatter = intent in ("smalltalk", "teaching", "meta", OTHER)
    stale = state.turn_index < turn_index and not chatter  # the game's last push is older than this turn
    inventory, unsure = state.fs.inventory, set[str]()
    told = False  # the roster was projected with a change the player told us about
    if stale and mentioned and not opponents and OPPONENT_ENTERS.search(utterance):
        opponents = [mentioned[0]]  # on their side now: the counter question is about it
    opponents = opponents or brought_in(pack, utterance, mentions)  # "what if they swap in Galehawk"
    ours = list(state.ic.match.player_lineup) if state.ic.match is not None else []
    if not opponents and mentioned and _AGAINST_US.search(utterance) and not set(mentioned) & set(ours):
        # "is the thunder rat any good against us": the one named is set against the player's side
        opponents = ours
    if not opponents and state.ic.match is not None:
        # "Build a comp that can beat Nadira": one of theirs the sentence goes up against.
        facing = set(state.ic.match.opponent_lineup)
        opponents = [
            m.id
            for m in mentions
            if m.id in facing and faces_foe(utterance[: m.span[0]].rstrip() + " ", utterance[m.span[1] :])
        ]
    if stale and inventory is not None:
        mine = [c for c in mentioned if c not in opponents and c not in excluded]
        snapshot = inventory
        inventory, unsure = _project(pack, inventory, utterance, mine, sub_intent)
        told = inventory != snapshot
        if told:
            # What the answer reads (the recipes read the state): the roster as the player says it is.
            state = state.model_copy(update={"fs": state.fs.model_copy(update={"inventory": inventory})})
    elif stale:
        # A collection is not projected with what the player says changed (_project reads the
        # inventory profile): every unit of theirs the player names is in doubt.
        unsure = {c for c in mentioned if c not in opponents and c not in excluded}
    moved = context_named(pack, state, mentions) if stale else None
    if moved is not None:
        # The snapshot's map is the one the player just said they left: answer for the named one.
        state, told = moved, True
    avoid = _put_forward(pack, previous_reply) if previous_reply else set()
    asks_why = bool(previous_reply) and ASKS_WHY.search(normalise(utterance)) is not None
    # "Why?" after "A or B?": the reason for the pick among the same choice.
    chosen_in = asked_before if asks_why and asked_before and not mentions else utterance
    alternative = bool(avoid) and ALTERNATIVE.search(utterance) is not None
    t = RealizerTurn(
        pack=pack,
        state=state,
        inventory=inventory,
        results={o.tool: o.result for o in tools if o.ok and o.result is not None},
        failed=[o.tool for o in tools if not o.ok or o.result is None],
        excluded=excluded,
        opponents=opponents,
        mentioned=mentioned,
        skills=list(dict.fromkeys(m.id for m in mentions if m.kind == option_kind)),
        lineups=list(dict.fromkeys(m.id for m in mentions if m.kind == group_kind)),
        types=list(dict.fromkeys(m.id for m in mentions if schema.kinds[m.kind].role == "type")),
        intent=intent,
        sub_intent=sub_intent,
        turn_index=turn_index,
        unsure=unsure,
        avoid=avoid,
        alternative=alternative,
        put_forward=avoid.union(*(_put_forward(pack, r) for r in recent_replies[-3:]))
        if alternative
        else set(),
        offered_before=[_put_forward(pack, r) for r in recent_replies[-3:]] if alternative else [],
        saved_said=_saved_group_said(pack, StateView(pack, state), utterance),
        asks_how=ASKS_HOW.search(utterance) is not None,
        utterance=utterance,
        unheard=(intent, sub_intent) == OUT_OF_DOMAIN
        and "/".join(UNHEARD) in pack.templates.answers
        and bool(unknown_names(pack, utterance)),
        recent=[*recent_replies, previous_reply or ""],
        why=_why_of(pack, previous_reply, avoid) if previous_reply and asks_why else [],
        wanted=[c.id for n in (c2.slots.wanted_entities if c2 else []) if (c := unit_by_name(n))],
        choice=_choice(pack, state, offered(pack, chosen_in), opponents),
        said_mine=_said_mine(pack, state, utterance, [m for m in mentions if m.kind == unit_kind]),
        faced=_faced(utterance, [m for m in mentions if m.kind == unit_kind], _only_mine(pack, state)),
        only=next(
            (
                (g.kind.removesuffix("_only"), str(g.value))
                for g in (c2.slots.global_constraints if c2 else [])
                if g.kind.endswith("_only")
            ),
            None,
        ),
    )
    if stale and not tools and inventory is not None:
        projected = state.model_copy(update={"fs": state.fs.model_copy(update={"inventory": inventory})})
        t.results = _snapshot_results(pack, projected, intent, sub_intent)
    if moved is not None:
        # The pair's tools ran on the snapshot's context: run again on the one the player named,
        # and none of the old results stays (a tool that fails now is not answered from the old map).
        entry_tools = {
            use.tool for e in pack.phi if (e.intent, e.sub_intent) == (intent, sub_intent) for use in e.tools
        }
        rerun = _snapshot_results(pack, state, intent, sub_intent)
        t.results = {k: v for k, v in t.results.items() if k not in entry_tools} | rerun
        t.failed = [f for f in t.failed if f not in rerun]
    nouns = list(dict.fromkeys(pack.templates.tool_data.get(tool, "game data") for tool in t.failed))
    if nouns:
        t.add("constraint_account", "data_unavailable", "unavailable", data=spoken_list(nouns))
    entry = next((e for e in pack.phi if (e.intent, e.sub_intent) == (intent, sub_intent)), None)
    # The schema's `needs` names the sentence, said only on a pair that needs the roster (the score
    # or a unit's role does not).
    roster_unknown = not t.view.known and _needs_roster(entry)
    roster_key = next((k for p, k in schema.needs.items() if p.startswith("fs.")), "roster_unknown")
    if roster_unknown and (c2 is None or not any(c.kind == "state" for c in c2.conflicts)):
        if not chatter and "roster" not in nouns:
            t.add("constraint_account", roster_key, "unavailable")
    term = asked_term(pack, utterance)
    if term is not None and term.kind != "catalog" and (t.mentioned or t.skills):
        term = None  # "what's a tank" names a word; "is Brannoc a tank" asks about him
    if term is not None and _explain_term(t, term):
        pass  # "what did you mean by poke": the word explained, whatever pair the question got
    elif entry is not None and entry.answer is not None:
        if not _lacks(t, entry):
            recipe_answer(t, entry.answer)  # the pack's recipes (voicecoach.talker.recipes)
        elif entry.by_type and t.types and not [u for u in t.mentioned if u not in t.excluded]:
            recipe_answer(t, entry.by_type)  # "what beats water?": the question at the type's level
    else:
        _worded_answer(t)  # a pair without tools: the pack's own wording (templates.json answers)
    if (t.why or asks_why) and not any(
        line.key.startswith("why_") or line.key.endswith("_why") for line in t.lines
    ):
        # "Why her?" after "Watch Nadira: ...", nothing else answering: the reason that reply gave;
        # also over another answer when that reply's first sentence picked the one asked about
        # ("Tamsin over Yarrow here: their Nadira counters Yarrow ..." - "why her")
        answered = any(line.keep == "answer" for line in t.lines)
        said = _ANY_REASON_AFTER.match((previous_reply or "").strip())
        head = said.group(0).split(":", 1)[0] if said is not None else ""
        picked = bool(t.why) and set(t.mentioned) <= set(t.why)
        led = picked and any(m.id == t.why[0] for m in link_entities(pack, head))
        led = led or (not t.mentioned and _BARE_WHY.match(utterance) is not None)  # "why?" of any pick
        _reason_again(t, previous_reply or "", _REASON_AFTER if answered and not led else _ANY_REASON_AFTER)
    if len(t.skills) >= 2 and _COMPARES.search(utterance):
        _compare_options(t)
    elif not t.skills and _EXPLAINS.search(utterance):
        _options_explained(t)
    _stage_said(t, utterance)
    if (
        entry is not None
        and _is_score(entry)
        and (ASKS_STAKES.search(utterance) or SITUATION.search(normalise(utterance)))
    ):
        _stakes(t)
    capped = (
        _verdict_again(t, utterance, previous_reply or "")
        or _whose(t, utterance)
        or _caps_and_level(t, utterance)
        or _has_effect(t, utterance)
        or _level_compare(t, utterance)
        or _roster_levels(t, utterance)
        or _saved_named(t)
        or _saved_asked(t)
    )
    theirs = frozenset(u for u in t.view.opponent_side() if not t.view.owns(u))
    limit = data_limit(pack, utterance, theirs) if intent != "smalltalk" else None
    if (
        limit is not None
        and intent == OTHER
        and limit.kind != "unseen"
        and not (link_entities(pack, utterance) or kinds_said(pack, utterance))
    ):
        # outside the game: said so, not as a gap in its data ("the drop rate on legendaries" is in it)
        limit = None
    if limit is not None:
        if (
            limit.kind == "unseen"
            or limit.kind == "elsewhere"
            and (entry is None or not entry.tools)
            or intent == OTHER
        ):
            # "when does the season start", "how long is left on the clock": nothing stands in for it
            t.lines = []
        _not_in_data(t, limit)
    answered = any(line.keep == "answer" for line in t.lines)
    if answered:
        # The answer came from what did come (the state, the catalog, the other tools): the tools
        # that failed are not missing from this answer, so no "I can't get ..." before it.
        t.lines = [line for line in t.lines if line.key != "data_unavailable"]
    # (A turn that already says what is unavailable needs no generic sentence.)
    if not answered and not any(line.keep == "unavailable" for line in t.lines):
        _cannot_answer(t)
    corrected = _premise(t)
    _not_theirs_to_claim(t)
    if c2 is not None:
        t.min_size = next((int(g.value) for g in c2.slots.global_constraints if g.kind == "min_size"), None)
        _judgements(t, c2)
    if t.alternative and not (_offered(t) - t.avoid) and not capped:  # ("protect the others": an effect)
        _alternative_pick(t, entry)
    if c3 is not None and intent not in ("smalltalk", OTHER) and limit is None and not capped:
        # No advice on a request outside the game, nor after "the data doesn't show that": a tip
        # there reads as the answer the data does not hold.
        _guidance(t, c3)
    if stale:
        # A named creature the snapshot may be wrong about: no claim about it either way. W2 judged
        # the named creatures and skills on the old snapshot: its verdicts on them go too (the answer
        # lines were made on the projected roster).
        named = {*t.mentioned, *t.skills}
        t.lines = [
            line
            for line in t.lines
            if (not (line.covers & t.unsure) or line.fact)
            and not (
                line.keep in ("account", "praise")
                and line.key not in ("excludes", "excludes_still")
                and line.covers & named
            )
        ]
    # The scene line only where W2's Ψ allows one (the Φ entry's `scene` flag, else its keyword
    # rule): "you're down 0 to 1" after a unit's description is noise.
    # Nor after a failed tool: "I can't get the match data" then the score from the snapshot jars.
    scene = (
        scene
        and entry is not None
        and (entry.scene if entry.scene is not None else intent_has(MATCH_WORDS, intent, sub_intent))
        and not t.failed
    )
    if (
        scene
        and intent not in ("smalltalk", OTHER)
        and not any(line.key == "match_score" for line in t.lines)
        and not corrected
        and (limit is None or limit.kind != "unseen")  # "when's the next season": not the score either
        # "who do we go after first", "Voltail or Briarcat first": a name is the answer, not the score
        and not _ASKS_WHO.match(utterance)
        and not FIRST_OF_THEIRS.search(normalise(utterance))
    ):
        _scene(t)
    if limit is not None and (
        limit.kind == "theirs" or (limit.about is not None and limit.about.id in theirs)
    ):
        _about_theirs(t)  # "you don't own Voltail" answers a question nobody asked
    if (match := t.state.ic.match) is not None and _decided(match) and _told_result(utterance):
        # "We just lost that round" and it was the match: that, not the next round's plan
        t.lines = []
        _scene(t)
    reaction = (
        remark(utterance) if not _TELLS_SCORE.search(utterance) else None
    )  # ("we won round one": the score)
    if reaction == "down" and mentions:
        reaction = None  # "ugh, that turtle again": the trouble named is answered, after the lead
    if reaction is not None and _guidance_has(pack, f"react_{reaction}"):
        # "Oakhorn just took out their turtle!": a reaction in a few words, not a matchup lecture
        t.lines = []
        _scene(t)  # "Nice one! You're ahead 1 to 0; keep the pressure on.", unless just said
        key = f"react_{reaction}_lead" if t.lines and _guidance_has(pack, f"react_{reaction}_lead") else None
        t.lines.insert(0, Line("guidance", key or f"react_{reaction}", {}, "answer"))
    lead = None
    leads = pack.templates.paragraphs["constraint_account"].templates
    if stale:
        lead = _variant(leads["stale_told" if told else "stale_lead"], "stale", turn_index)
    elif reaction != "down" and VENTED.search(normalise(utterance)) and leads.get("vent_lead"):
        # "Ugh, I hate this map": heard as said, in a few words, before the answer.
        lead = _variant(leads["vent_lead"], "vent", turn_index)
    text = _compose(t, max_words, max_sentences, lead)
    if asks_why and previous_reply and _opening(text) == _opening(previous_reply):
        # "Why?" answered by the very sentence it asks about: the reason that sentence gave, alone
        said = _ANY_REASON_AFTER.match(previous_reply.strip())
        if said is not None and _guidance_has(pack, "why_again"):
            t.lines = []
            t.add("guidance", "why_again", "answer", [], reason=said["reason"].strip())
            text = _compose(t, max_words, max_sentences, lead)
    if t.lines and t.lines[0].key == "not_in_data":
        return _not_again(text, previous_reply)  # ("how do I do that": the limit, not the last advice)
    return text


def _not_again(text: str, previous_reply: str | None) -> str:
    """`text` without the sentences the last reply said word for word, when something else is left."""
    from voicecoach.talker.speakable import split_sentences

    if not previous_reply:
        return text
    sentences = split_sentences(text)
    kept = [s for s in sentences if s.strip() not in previous_reply]
    return " ".join(s.strip() for s in kept) if kept and len(kept) < len(sentences) else text


def _opening(text: str) -> str:
    from voicecoach.talker.speakable import split_sentences

    sentences = split_sentences(text)
    return sentences[0].strip().lower() if sentences else ""


# How many of the session's last replies the match line and a pack-worded answer are checked
# against: with 3, "any tips?" four turns after the first answer got the same words again, and the
# score line came back every fourth turn.
RECENT_REPLIES = 6


def _put_forward(pack: Pack, reply: str) -> set[str]:
    """Creatures and pack lineups a reply put forward, read as the checker reads it: every one it
    names on the player's side and does not negate (a superset of what it recommended)."""
    from voicecoach.talker.claims import read_reply

    return {
        c.entity
        for c in read_reply(pack, reply)
        if c.kind_role in ("unit", "group") and not c.negated and c.role != "opponent"
    }


# "Why?", "but why is that": the last reply's reason asked for, nothing else said (English cue words).
_BARE_WHY = re.compile(
    r"^\W*(?:(?:but|and|ok|okay|so|hmm+|wait|huh)\W+)*(?:why|how\s+come)(?:\s+(?:is\s+that|that|so))?\W*$",
    re.I,
)


# "Not Yarrow: their Nadira counters Yarrow." - the clause after a verdict's colon is its reason.
# (Kept as said: it opens with a name or "their", whose case stands.)
# "Not Yarrow: their Nadira counters Yarrow." (a verdict's reason); any first sentence's ("Watch
# Nadira: Nadira is a soft counter to your Elowen.") when nothing else answers the "why".
# (the reason after a colon, or a semicolon: "Swap Renzo off for Tamsin; Tamsin is a good pick on ...")
_REASON_AFTER = re.compile(r"^(?:Not|No|Yes)\b[^.!?:;]{0,40}[:;]\s+(?P<reason>[^.!?]+)[.!?]")
_ANY_REASON_AFTER = re.compile(r"^[A-Z][^.!?:;]{0,60}[:;]\s+(?P<reason>[^.!?]+)[.!?]")


# "So that's a no?", "is that a yes or a no", "so yes or no": the last reply's verdict, asked for plainly.
_VERDICT_AGAIN = re.compile(
    r"^\W*(?:(?:so|ok|okay|wait|hmm+|uh+|um+|and|but|then|sorry)\W+)*"
    r"(?:(?:is\s+(?:that|it)|that'?s|thats|that\s+is|it'?s|its)\s+)?(?:a\s+)?"
    r"(?:yes|yeah|yep|no|nope|nah)(?:\s+or\s+(?:a\s+)?(?:no|yes|not))?"
    r"(?:\s+(?:for|on|with)\s+(?:the\s+|my\s+|your\s+|their\s+)?[\w']+)?(?:\s+then)?\W*$",
    re.IGNORECASE,
)
# The lead of a reply that gave a verdict, and which way it went.
_VERDICT_LEAD = re.compile(
    r"^(?:(?P<yes>Yes|Mostly yes|Right)|(?P<no>No|Not really|Not for this one|Not needed for this one|"
    r"Not much either way|Not useless, but no edge either|Not yet|Mostly not)"
    r"|(?P<mixed>It's mixed|Only partly)|(?P<over>[A-Z][\w']*(?:\s[A-Z][\w']*)* over ))"
    r"[^.!?:,]*[:,]?\s*",
)


def _verdict_again(t: RealizerTurn, utterance: str, previous_reply: str) -> bool:
    """ "So that's a no?" after a verdict: that verdict, said as yes or no, with its reason again
    (verdict_again). Only asked with "so" / "that" / an "or" (a bare "no" answers the coach)."""
    asked = _VERDICT_AGAIN.match(utterance.strip())
    lead = _VERDICT_LEAD.match(previous_reply.strip())
    if (
        asked is None
        or lead is None
        or not re.search(r"\b(?:or|so|that|thats|that's|it's|its)\b", utterance, re.IGNORECASE)
        or not _guidance_has(t.pack, "verdict_again")
    ):
        return False
    sentences = re.split(r"(?<=[.!?])\s+", previous_reply.strip())
    rest = sentences[0][lead.end() :].strip().rstrip(".!?")
    reason = rest if rest and lead.group(0).rstrip().endswith(":") else ""
    if not reason and len(sentences) > 1:
        reason = sentences[1].rstrip(".!?")
    if not reason:
        return False
    if lead["mixed"] and len(sentences) > 2:
        # "It's mixed" was both: what goes for it and what goes against it, one after the other
        other = sentences[2].rstrip(".!?")
        other = other if link_entities(t.pack, other.split()[0]) else other[:1].lower() + other[1:]
        reason = f"{reason}, but {other}"
    verdict = "Yes" if lead["yes"] else "No" if lead["no"] else "Half and half"
    if lead["over"]:
        # "Oakhorn over Emberfox here: ..." - "so that's a no for the fox?": no for the one passed over
        picked = [m.id for m in link_entities(t.pack, lead.group(0))]
        asked_about = [m.id for m in link_entities(t.pack, utterance)]
        if len(picked) < 2 or not asked_about or asked_about[0] not in picked:
            return False
        verdict = "Yes" if asked_about[0] == picked[0] else "No"
    if not link_entities(t.pack, reason.split()[0]):
        reason = reason[:1].lower() + reason[1:]  # "Against Briarcat, ..." goes on after the colon
    t.lines = [Line("guidance", "verdict_again", {"verdict": verdict, "reason": reason}, "answer")]
    return True


def _reason_again(t: RealizerTurn, previous_reply: str, reason_after: re.Pattern[str]) -> None:
    """ "Why not?" when no step could give a reason for the last reply's pick: the reason that reply
    gave (the clause after its first sentence's colon), not a new recommendation."""
    said = reason_after.match(previous_reply.strip())
    if said is None or not _guidance_has(t.pack, "why_again"):
        return
    reason = said["reason"].strip()
    t.lines = [line for line in t.lines if line.keep != "answer"]
    t.add("guidance", "why_again", "answer", [], reason=reason)


def _why_of(pack: Pack, reply: str, put_forward: set[str]) -> list[str]:
    """What "why?" asks the reason for: every unit the last reply put forward, the ones it picked
    first ("Shellbastion is their biggest threat: water beats your Emberfox's fire. Against
    Shellbastion, go with Oakhorn": why Oakhorn, not why Emberfox)."""
    mentions = link_entities(pack, reply)
    # ("Swap Sparkwing out for Hexmoth": why Hexmoth; Sparkwing is the one taken out)
    named = list(
        dict.fromkeys(m.id for m in mentions if m.id in put_forward and not taken_out(pack, reply, m.id))
    )
    picked = {m.id for m in mentions if PICK_BEFORE.search(reply[: m.span[0]])}
    return sorted(named, key=lambda u: u not in picked)


def _picks(line: Line) -> bool:
    """Does the line recommend what it covers (its recipe says; the realizer's own picks too)?"""
    return line.picks


def _recommends(line: Line) -> set[str]:
    """The units / group a line puts forward (its covers, for the picking templates)."""
    if _picks(line):
        return set(line.covers)
    if line.key == "w3" and line.values.get("lineup_id"):
        return {line.values["lineup_id"], *line.covers}
    return set()


def _offered(t: RealizerTurn) -> set[str]:
    return {x for line in t.lines for x in _recommends(line)}


def _ranking(pack: Pack) -> dict[str, Any]:
    """How the pack's steps rank units by power (the `tier_bonus` they give), for the realizer's own
    picks, which no step names."""
    steps = (s for e in pack.phi for s in e.answer or [])
    bonus = next((s.inputs["tier_bonus"] for s in steps if "tier_bonus" in s.inputs), None)
    return {"tier_bonus": bonus} if bonus is not None else {}


# The realizer's own picks (a pick while the match is unknown, another pick on "something else")
# are made for a pack whose roster is the classic profile's inventory, as they always were; a
# collection pack's recipes make their own alternatives (fresh_first) and say what is missing.


def _pick_meanwhile(t: RealizerTurn, entry: PhiEntry | None) -> None:
    """The strongest unit the player can field (the previous reply's pick last when they asked for
    another), for a pick question the turn cannot answer in full (the pack's `pick_meanwhile`)."""
    if t.inventory is None:
        return
    recipe_answer(t, [AnswerStep(recipe="pick_strongest", key="pick_meanwhile", **_ranking(t.pack))])


def _alternative_pick(t: RealizerTurn, entry: PhiEntry | None) -> None:
    """The player asked for something else and nothing new is on offer yet: of the units the
    previous reply did not put forward, a counter to the foes the pair's own counter step names
    (else the opponents the player named, else their side), by the pack's unit-against-unit
    matchup; else the strongest (`counter` / `other_pick`)."""
    if t.inventory is None:
        return
    schema = t.pack.catalog.schema
    unit = t.view.unit_kind
    steps_of = entry.answer if entry is not None and entry.answer is not None else []
    own = next((s for s in steps_of if s.recipe == "pick_best"), None)
    matchup = own.inputs.get("matchup") if own is not None else None
    matchup = matchup or next((m.name for m in schema.matchups if m.between == (unit, unit)), None)
    foes = own.inputs.get("foes") if own is not None else ["turn:opponents", "$ic.match.opponent_lineup"]
    ranking = _ranking(t.pack)
    steps = [AnswerStep.model_validate({"recipe": "pick_strongest", "key": "other_pick", "skip": "turn:avoid",
                                        **ranking})]  # fmt: skip
    if matchup is not None:
        counter = {
            "recipe": "pick_best",
            "key": "counter",
            "foes": foes,
            "matchup": matchup,
            "skip": "turn:avoid",
        }
        steps.insert(0, AnswerStep.model_validate({**counter, **ranking}))
    recipe_answer(t, steps)


def _rank(line: Line) -> int:
    """Where a chosen line is said: the answer, then the plan's paragraphs in the scheduler's order
    (constraint_account, apology, praise, guidance, scene_flavor)."""
    if line.keep in ("answer", "unavailable"):
        return -1
    return PRIORITY.index(line.paragraph)


def _hedged(pack: Pack, text: str, lead: str) -> str:
    """`text` led by the late-snapshot hedge: "Going by my last update, ..." (HEDGE's words)."""
    # "From what you own, lead with ..." after the hedge: the hedge already says where it comes from.
    text = re.sub(r"^From [^,.]+, ", "", text)
    # ... and an answer's own "Right," or "Sure," after "I hear you": one lead is enough
    text = re.sub(r"^(?:Right|Sure|Okay|OK|So),\s+", "", text)
    text = text[:1].upper() + text[1:]
    first = text.split(" ", 1)[0]
    names = link_entities(pack, text)
    keep_case = first in ("I", "I'm", "I'd", "I've") or any(m.span[0] == 0 for m in names)
    return f"{lead}, {text if keep_case else text[:1].lower() + text[1:]}"


_PLAIN = frozenset(
    "that this with from your their they them then than what when which while into onto over under "
    "about after before just also only more most much very will would should could have been being "
    "does done some same each every other there here where whose".split()
)
# ... and what a question says of any tip ("how does X work again", "tell me", "does it matter").
_ASKING = frozenset("these those yours work works again really even like thing things tell explain mean "
                    "matter matters good best better know anything something else".split())  # fmt: skip


def _content(text: str) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4 and w not in _PLAIN}


def _here(t: RealizerTurn) -> set[str]:
    """ "How do we play the point on this map": the current context's own words (its mode,
    "control"), so the tip chosen is the one about this place."""
    kind = t.pack.catalog.schema.kind("context")
    if kind is None or not current_place(t.pack, kind).search(t.utterance):
        return set()
    entity = t.pack.catalog.get(kind, t.view.context(kind) or "")
    spec = t.pack.catalog.schema.kinds[kind]
    values = [entity.value(a) for a in spec.attributes] if entity is not None else []
    return _topic(" ".join(v for v in values if isinstance(v, str)))


def _topic(text: str) -> set[str]:
    """What a question or a tip is about: its content words, stemmed ("weakness" and "weak" alike)."""
    words = re.findall(r"[a-z]+", text.lower())
    return {
        re.sub(r"(?:ness|ing|ed|es|s|er|ly)$", "", w)[:5]
        for w in words
        if len(w) >= 4 and w not in _PLAIN and w not in _ASKING
    }


def _restates(tip: str, said: Sequence[str]) -> bool:
    """Does `tip` mostly repeat what is already said (half its content words or more)?"""
    words = _content(tip)
    return len(words) >= 3 and len(words & _content(" ".join(said))) * 2 >= len(words)


def _heard(
    t: RealizerTurn, ranked: Sequence[tuple[int, Line]], texts: dict[int, str], answer: int | None
) -> set[int]:
    """The lines the player heard in one of the last replies, to leave out: said again, a caveat,
    a reminder or the score is a stock line. Not a pick (`t.avoid` judges those), not what the coach
    cannot see, and not the answer's lead unless it is a description ("what does Nightmare Hex do",
    then "which of mine can use it": who can, without the move described again). When every answer
    line was heard the question was asked again: the descriptions go if something is left, else
    nothing does."""

    def described(line: Line) -> bool:
        return "description" in line.values or "summary" in line.values

    said = {
        position
        for position, line in ranked
        if not _recommends(line)
        and line.keep != "unavailable"
        and any(texts[position] in r or _score_said(line, r) for r in t.recent[-3:] if r)
    }
    heard = {position for position in said if position != answer or described(t.lines[position])}
    if not any(line.keep == "answer" and i not in heard for i, line in ranked):
        heard = {position for position in said if described(t.lines[position])}
    if not any(line.keep == "answer" and i not in heard for i, line in ranked):
        heard = set()
    return heard


def _score_said(line: Line, reply: str) -> bool:
    """Does `reply` already give the score this line gives ("you're ahead 1 to 0")? (Not a line of
    what the round means: "win round 2 and the match is yours" is news after the score.)"""
    if line.key.startswith("stakes_"):
        return False
    mine, theirs = line.values.get("score_player"), line.values.get("score_opponent")
    return mine is not None and theirs is not None and f"{mine} to {theirs}" in reply


def _compose(t: RealizerTurn, max_words: int, max_sentences: int, lead: str | None) -> str:
    """Choose lines by importance (KEEP_ORDER) within the budget, then say them in `_rank` order.
    The first answer line is said whatever the budget; on a late snapshot it carries the hedge
    `lead`."""
    covered: set[str] = set()
    chosen: list[tuple[int, int, str]] = []  # (rank, position, text)
    sentences = 0
    words = _words(lead) if lead else 0  # the hedge leads the first sentence
    ranked = sorted(enumerate(t.lines), key=lambda il: (KEEP_ORDER.index(il[1].keep), il[0]))
    answer = next((position for position, line in ranked if line.keep == "answer"), None)
    texts = {position: say(t.pack, line, t.turn_index) for position, line in ranked}
    heard = _heard(t, ranked, texts, answer)
    lineups_said: set[str] = set()
    groups = _group_ids(t.pack)
    theirs = set(t.view.opponent_side())
    for position, line in ranked:
        if line.covers and line.covers <= covered and line.keep not in ("answer", "unavailable"):
            continue  # an earlier line already judges these entities
        picks = _recommends(line)
        ours = picks - theirs  # a counter line covers its foe too: the foe is not recommended
        repeat = t.avoid and picks and ((len(ours) >= 2 and ours <= t.avoid) or (picks & t.avoid & groups))
        if chosen and repeat:
            continue  # the previous reply's set again: repeated guidance
        if picks & lineups_said & groups:
            continue
        text = texts[position]
        if any(text == c[2] for c in chosen):
            continue
        if line.keep in ("w3", "praise", "flavor") and not picks and any(text in r for r in t.recent):
            continue  # a tip or a reminder the player heard in one of the last replies is not news
        if position in heard:
            continue  # the player just heard it (or its score): said again, it is a stock line
        if line.keep == "w3" and not picks and _restates(text, [c[2] for c in chosen]):
            continue  # W3's tip says again what the answer just said, in other words
        n, w = _sentences(text), _words(text)
        if chosen and position != answer and (sentences + n > max_sentences or words + w > max_words):
            continue
        chosen.append((_rank(line), position, text))
        covered |= line.covers
        lineups_said |= picks
        sentences, words = sentences + n, words + w
    if not chosen:
        text = t.pack.templates.paragraphs["guidance"].generic
        return _hedged(t.pack, text, lead) if lead else text
    spoken = reasons_once([text for _, _, text in sorted(chosen)])
    spoken[0] = _standing(t, _verdict_for(t.utterance, spoken[0]))
    if _asks_what(t.utterance):
        # "What's the difference between Pyrowl and Emberfox": "Pyrowl isn't in your roster yet"
        # within the answer, not "No, ..." (no yes or no was asked)
        spoken[1:] = [_without_verdict(text) for text in spoken[1:]]
    if lead:
        spoken[0] = _hedged(t.pack, spoken[0], lead)
    return " ".join(spoken)


_MY = re.compile(r"\b(?:my|our)\s+$", re.IGNORECASE)
_AGAINST_US = re.compile(
    r"\b(?:against|vs|versus|into)\s+(?:us|me|(?:my|our)\s+(?:team|side|squad|guys|group))\b",
    re.IGNORECASE,
)
# "Can Brannoc handle Nadira": the one asked whether it can take on another (English cue words).
_CAN_IT = re.compile(r"\b(?:can|could|would|will|does|do|might)\s+$", re.IGNORECASE)
_TAKE_ON = re.compile(
    r"^\s+(?:\w+\s+)?(?:handle|beat|take|deal\s+with|counter|stop|fight|win\s+against|hold\s+off|shut\s+down|"
    r"kill|outplay|match|keep\s+up\s+with|stand\s+up\s+to|survive)\b",
    re.IGNORECASE,
)


def _said_mine(pack: Pack, state: LiveState, utterance: str, units: list[Mention]) -> set[str]:
    """The units the player speaks of as their own: "my Brannoc", or one they own asked whether it
    can take on another ("can Brannoc handle Nadira" when both are theirs in the match and the
    player owns a Brannoc too: the player's is the one asked about)."""
    view = StateView(pack, state)
    mine = {m.id for m in units if _MY.search(utterance[: m.span[0]])}
    for m, other in zip(units, units[1:], strict=False):
        if (
            m.id != other.id
            and view.owns(m.id)
            and _CAN_IT.search(utterance[: m.span[0]])
            and _TAKE_ON.match(utterance[m.span[1] : other.span[0]])
        ):
            mine.add(m.id)
    return mine


_FACED = re.compile(
    r"\b(?:against|into|vs|versus|for|about|beat|beats|counter|counters|face|facing)\s+(?:their\s+|the\s+)?$",
    re.I,
)


_LISTED_ON = re.compile(r"^\s*(?:,|and|or|,\s*and|,\s*or)\s*(?:their\s+|the\s+)?$", re.IGNORECASE)


def _faced(utterance: str, units: list[Mention], only_mine: frozenset[str] = frozenset()) -> list[str]:
    """The units named after a facing word, with the ones listed on from them ("against their
    Voltail and Galehawk"); of the player's own that the opponent does not field, only after a word
    that sets it against another ("swap Sparkwing for Lumifawn" brings Lumifawn in)."""
    out: list[str] = []
    for i, m in enumerate(units):
        listed = (
            i > 0 and units[i - 1].id in out and _LISTED_ON.match(utterance[units[i - 1].span[1] : m.span[0]])
        )
        cue = _FACED.search(utterance[: m.span[0]])
        if m.id in only_mine and cue is not None and cue.group(0).split()[0].lower() in ("for", "about"):
            cue = None
        if cue or listed:
            out.append(m.id)
    return out


def _only_mine(pack: Pack, state: LiveState) -> frozenset[str]:
    """The player's own units (owned or fielded) that the opponent does not field."""
    view = StateView(pack, state)
    theirs = set(view.opponent_side())
    return frozenset(u for u in [*view.player_side(), *(o.id for o in view.owned())] if u not in theirs)


# "Should I stop playing Elowen?" asks the opposite of "is Elowen worth it" (English cue words).
_GIVE_UP = re.compile(
    r"\b(?:should|do|can)\s+(?:i|we)\s+(?:just\s+)?(?:stop|quit|give up on|drop|ditch|abandon)\b",
    re.IGNORECASE,
)


# "Are we winning", "am I behind": a yes or no on the score (English cue words).
_ASKS_STANDING = re.compile(
    r"^\W*(?:(?:so|ok|okay|um+|uh+|and|but|wait|hey|yo|coach)\W+)*(?:are|am|were)\s+(?:we|i)\s+"
    r"(?:even\s+|still\s+|actually\s+)?(?P<how>winning|ahead|up|leading|in\s+the\s+lead|losing|behind|down)\b",
    re.IGNORECASE,
)


def _standing(t: RealizerTurn, first: str) -> str:
    """The score line after "are we winning": led by its yes or no ("Yes, you're 1 to 0 ...")."""
    asked, match = _ASKS_STANDING.match(t.utterance), t.state.ic.match
    if asked is None or match is None or not first.startswith("You're ") or " or " in t.utterance:
        return first  # ("are we down one or two": the score is the answer)
    ahead = match.score_player - match.score_opponent
    said = first[0].lower() + first[1:]
    if ahead == 0:
        return f"Not yet, {said}"
    winning = asked["how"].split()[0] in ("winning", "ahead", "up", "leading", "in")
    return f"{'Yes' if (ahead > 0) == winning else 'No'}, {said}"


def _verdict_for(utterance: str, first: str) -> str:
    """The answer's leading "Yes" / "No" as the question was put: "Yes: keep investing in Elowen"
    answers "should I stop playing Elowen?" with "No"."""
    verdict = re.match(r"(Yes|No)\b", first)
    # (the claim is the question's own sentence: "I haven't played in a year. Do I still have it?"
    # asks plainly)
    asked = re.split(r"(?<=[.!?])\s+", utterance.strip())[-1]
    if verdict is not None and _NEGATIVE_CLAIM.search(asked):
        # "I don't have any water guys, right?" - "No, you have Tidefang"; "- Right, you don't ..."
        return {"Yes": "No", "No": "Right"}[verdict[1]] + first[verdict.end() :]
    either = STAY_OR_GO.search(utterance) or (KEEP_OR_BENCH.search(utterance) and _OR_OUT.search(utterance))
    lead = re.match(r"(?:Yes|No|Not really)\b", first) if either else verdict
    if lead is not None and (either or _asks_what(utterance)):
        # "What moves does Pyrowl have" - "Pyrowl isn't in your roster yet", not "No, ...": a
        # question that asks what gets no yes or no; nor does "should Elowen stay or go"
        return _unled(first, lead)
    if verdict is None or not _GIVE_UP.search(utterance):
        return first
    return {"Yes": "No", "No": "Yes"}[verdict[1]] + first[verdict.end() :]


def _without_verdict(text: str) -> str:
    verdict = re.match(r"(?:Yes|No),", text)
    return _unled(text, verdict) if verdict is not None else text


def _unled(text: str, lead: re.Match[str]) -> str:
    """`text` without its leading yes / no (`lead`), the rest capitalised."""
    rest = text[lead.end() :].lstrip(" ,:;")
    return rest[:1].upper() + rest[1:] if rest else text


# A question that asks what, who, which, where or how ("so what moves does it have"), and a part of it
# that asks yes or no after all ("what do you think, is Oakhorn good", "which is better, or is neither").
_ASKS_WHAT = re.compile(
    # (after a thing named first: "Bexley's barrier, what does it block", not "is it good, or what")
    r"^\W*(?:(?!(?:is|are|can|could|will|would|does|do|did|should|am|was|were|have|has)\b)[^,?.!]{1,60}[,.!]\s+)?"
    r"(?:(?:so|ok|okay|and|but|wait|um|uh|hey|yo)\W+)*"
    r"(?:(?:what|whats|which|who|whos|whose|where|how|hows|why)\b(?!\s+(?:about|if)\b)"
    r"|(?:tell\s+me|describe|explain|show\s+me|walk\s+me\s+through)\b)",  # asked for: "tell me about Pyrowl"
    re.IGNORECASE,
)
_OR_OUT = re.compile(r"\bor\s+(?:swap|bench|drop|sit|take|pull|replace)\b", re.IGNORECASE)


def _asks_what(utterance: str) -> bool:
    """A question that asks what / which / who ("Emberfox vs Briarcat, who wins") and no yes or no
    beside it: its answer opens with no "Yes," or "No,"."""
    return (
        _ASKS_WHAT.match(utterance) is not None or WHO_WINS.search(utterance) is not None
    ) and _ALSO_YES_NO.search(utterance) is None


_ALSO_YES_NO = re.compile(
    r"[,;?]\s*(?:and\s+|but\s+|or\s+)?(?:is|are|can|could|will|would|does|do|did|should|am|was|were|have|has)\b"
    r"|\b(?:right|yes\s+or\s+no|or\s+not)\W*$",
    re.IGNORECASE,
)


# A negative claim put as a question: "I don't have any healers, right?", "we've got no tank, do we",
# "Sparkwing doesn't heal at all, right?", "hexmoth isn't weak to any of them?".
_NEGATIVE_CLAIM = re.compile(
    r"^\W*(?:(?:so|ok|okay|and|but|wait|um|uh|nah|no|yeah|hmm+)\W+)*"
    r"(?:i|we|(?:my\s+|our\s+|their\s+|the\s+)?(?!(?:why|how|what|who|which|where|when|whats|hows)\b)[a-z]+)\s+"
    r"(?:do\s*n'?t|dont|does\s*n'?t|doesnt|is\s*n'?t|isnt|are\s*n'?t|arent|ca\s*n'?t|cant|can\s+not|has\s+no|"
    r"have\s+no|got\s+no|have\s*n'?t|havent|ha(?:ve|s)\s*n'?t\s+got|'?ve\s+got\s+no)\b.*"
    r"(?:\b(?:right|correct|yeah|do\s+i|do\s+we|have\s+i|have\s+we|does\s+(?:it|he|she)|is\s+(?:it|he|she)|huh)\W*"
    r"|\?\s*)$",
    re.IGNORECASE,
)
