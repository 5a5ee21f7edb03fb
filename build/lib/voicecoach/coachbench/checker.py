"""Deterministic grounding checker: does a reply mis-direct the player's live state? (paper G.3, §7.2)

The paper scores a turn PASS iff annotators agree the reply does not mis-direct s_live (eq. 1). This
is the rule-based stand-in, judged against the shared reference of the benchmark turn (its live-state
snapshot and `Reference`), the same for every configuration. A turn FAILS if the reply:

(a) `unavailable_entity` — recommends or credits a creature the player does not own, a skill that is
    not unlocked for them (on the creature named as its user, else on any owned learner), or a pack
    lineup with a creature they lack;
(b) `false_missing` — calls missing, or apologises for lacking, a creature they own or a skill they
    can use;
(c) `self_contradiction` — affirms and denies the same entity's availability in one reply;
(d) `repeated_guidance` — repeats the previous turn's guidance where W3 forbids it (no candidate in
    two consecutive turns): the same c3 guidance id recorded twice in a row, the same pack lineup
    recommended in both replies, or the same set of two or more creatures recommended again;
(e) `stale_evidence` — rests on tool results taken on a snapshot older than the turn (a late
    push), making a claim about the player's entities without flagging that the data may be out of
    date (a turn without tools that errs on the stale snapshot fails (a) or (b), attributed to A);
(f) `excluded_entity` — recommends a creature the player asked to keep out earlier in the session
    (an evolving constraint of the reference set; an addition to the five rules above);
and `no_reply` — the turn produced no reply in time (an abstention is a reply; silence is not).

How a reply is read. Catalog mentions come from `voicecoach.entities.link_entities` (names, ids,
evolution-stage names; case-insensitive). The reply is cut into clauses at sentence punctuation and
at contrastive conjunctions ("but", "however", ", so" ...), and clauses into comma segments. Each
mention gets a *role* from the nearest cue word before it in its clause: a recommendation verb ("use",
"field", "bring", "try", "go with" ...) makes it *recommended*, a possessive ("your", "you have") or
a following availability phrase ("is unlocked", "is ready") *credited*, an opponent marker ("against",
"their", "vs", "beats" ...) *opponent* (the other side's creatures are not the player's to own), and
a bare list continuation ("use A, B and C") inherits the previous mention's role. Otherwise it is
*descriptive*; a descriptive mention with praise ("great", "strong", "best" ...) of an entity the
player did not name counts as a recommendation (the coach steering towards it). Polarity is per
comma segment: a negation cue ("not", "n't", "never", "missing", "locked", "until", "unless",
"would", "you need", "unlock it first", "instead of", ...) flips it, so "Inferno Roar isn't unlocked
yet" passes where "use Inferno Roar" fails; an absence cue ("don't have", "missing", "locked",
"need to get", "if you had" ...) marks the mention as called missing. Drift attribution: (a)/(b)/(f)
are slot drift B, except on a turn whose snapshot arrived late when the stale snapshot would have
made the claim true (latency drift A); (c) coherence D; (d) fatigue C; (e) latency A.

Known blind spots (what a human annotator would catch and this does not):
- paraphrases without names ("your fire fox", "the bird"), pronouns ("use it", "it isn't unlocked"),
  and ellipsis across sentences ("Pyrowl? Great pick.") carry no mention, so they are not judged;
- sarcasm, rhetorical questions and idioms ("you can't go wrong with Pyrowl") invert polarity;
- negation is per comma segment, so "don't use Pyrowl and use Emberfox" negates both;
- "would" / conditional wording is read as hypothetical, so "Pyrowl would crush them" passes;
- "can't use X against water" (tactical) reads as calling X missing;
- a question asserts nothing, so a suggestion phrased as one ("why not use Pyrowl?") passes;
- everything the coach says counts, including "Player: ..." lines a small model role-plays, but an
  echoed instruction about speech ("do not call Voltail missing", "you must not apologize for ...")
  judges nothing;
- mechanics errors (wrong element chart, wrong unlock level) and answers to the wrong question are
  not checked: the checker judges grounding in the player's state, not helpfulness (that is what
  TGQ/DGP/CCC and the LLM judge are for);
- a role is inferred from local cue words, so unusual syntax can hide a recommendation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from voicecoach.coachbench.generator import BenchSession, BenchTurn, DriftTag
from voicecoach.entities import Mention, link_entities
from voicecoach.pack import Pack
from voicecoach.state import Inventory, load_state

RuleId = Literal[
    "unavailable_entity",
    "false_missing",
    "self_contradiction",
    "repeated_guidance",
    "stale_evidence",
    "excluded_entity",
    "no_reply",
]
RULE_LETTER: dict[str, str] = {
    "unavailable_entity": "a",
    "false_missing": "b",
    "self_contradiction": "c",
    "repeated_guidance": "d",
    "stale_evidence": "e",
    "excluded_entity": "f",
    "no_reply": "-",
}
Role = Literal["recommended", "credited", "descriptive", "opponent"]


@dataclass(frozen=True)
class ReplyEvidence:
    """What a configuration produced for one turn, as the checker needs it."""

    reply: str
    completed: bool = True
    guidance_id: str | None = None  # c3 guidance candidate recorded for the turn (SGC with W3)
    snapshot_turn: int | None = None  # turn of the snapshot the turn's tools / prompt read
    tools: tuple[str, ...] = ()


class Failure(BaseModel):
    model_config = ConfigDict(frozen=True)

    rule: RuleId
    drift: DriftTag | None
    entity: str | None = None
    evidence: str


class TurnVerdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    session_id: str
    turn_index: int
    scored: bool
    passed: bool
    failures: list[Failure]
    drifts: list[DriftTag]  # attribution of the failures, sorted, unique


# --- reading a reply ---------------------------------------------------------------------------------


def _words(*phrases: str) -> str:
    """An alternation of phrases, each on word boundaries, spaces matching any whitespace."""
    alts = sorted({p.replace(" ", r"\s+") for p in phrases}, key=len, reverse=True)
    return r"(?<![\w'])(?:" + "|".join(alts) + r")(?![\w'])"


RECOMMEND = re.compile(
    _words(
        "use", "using", "field", "fielding", "bring", "bringing", "run", "running", "play", "playing", "put",
        "lead with", "lead", "leading with", "send", "send in", "send out", "go with", "going with", "try",
        "pick", "choose", "swap in", "switch to", "include", "add", "deploy", "start with", "open with",
        "rely on", "keep", "stick with", "cast", "spam", "fire off", "pop", "slot in", "take", "recommend",
        "suggest", "team up", "pair", "build around", "go for", "throw", "bet is", "pick is", "choice is",
        "counter is", "counters are", "answer is", "switch into", "swap into",
    ),
    re.IGNORECASE,
)  # fmt: skip
CREDIT_BEFORE = re.compile(
    _words(
        "your", "you have", "you've got", "you got", "you own", "you still have", "you already have",
        "you can use", "you can field", "yours", "you unlocked", "you've unlocked",
    ),
    re.IGNORECASE,
)  # fmt: skip
CREDIT_AFTER = re.compile(
    r"^\W*(?:(?:is|are)\s+(?:now\s+|already\s+)?(?:unlocked|available|ready|yours|owned)|"
    r"(?:is\s+|are\s+)?in\s+your\s+(?:team|roster|collection|lineup|squad|inventory|line-up)|"
    r"(?:which\s+|that\s+)?you\s+(?:have|own|'ve\s+got|already\s+have|unlocked))",
    re.IGNORECASE,
)
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
ABSENCE = re.compile(
    r"(?<![\w'])(?:(?:do|does|did|have|has)\s*(?:n't|not)\s+(?:have|own|got|get)|don't\s+(?:have|own)|"
    r"doesn't\s+(?:have|own)|haven't\s+got|not\s+in\s+your|(?:not|isn't|aren't)\s+(?:yet\s+)?(?:owned|available|"
    r"unlocked)|missing|lacks?|lacking|locked|unlock\s+(?:it|them)\s+first|need\s+to\s+(?:get|obtain|catch|"
    r"unlock|buy|recruit|evolve)|you'd\s+need|you\s+would\s+need|if\s+you\s+had|once\s+you\s+(?:get|have|"
    r"unlock|obtain)|get\s+(?:it|one)\s+first|can't\s+use|cannot\s+use|can\s+not\s+use|unavailable|"
    r"no\s+longer\s+(?:have|own)|traded\s+away|gave\s+away)(?![\w'])",
    re.IGNORECASE,
)
# Only a skill can be "not usable": "you can't use Emberfox here" is tactics, not a missing creature.
SKILL_ABSENCE = re.compile(r"(?<![\w'])(?:can't|cannot|can\s+not)\s+(?:use|cast)(?![\w'])", re.IGNORECASE)
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


@dataclass(frozen=True)
class Claim:
    """One mention of a catalog entity in a reply, with how the reply treats it."""

    entity: str
    kind: str  # creature / skill / lineup
    role: Role
    negated: bool
    absent: bool  # the reply calls it missing / locked
    praise: bool
    owner: str | None  # for a skill: the creature named as its user
    owner_only: bool  # a creature named only as the owner of a skill ("Emberfox's Inferno Roar")
    text: str  # the clause, for evidence

    @property
    def affirmed(self) -> bool:
        return not self.negated and self.role in ("recommended", "credited")


def _spans(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The pieces of text[start:end] between matches of `pattern`, as absolute spans."""
    cuts = [start] + [p for m in pattern.finditer(text, start, end) for p in (m.start(), m.end())] + [end]
    return [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts), 2) if cuts[i] < cuts[i + 1]]


def _last_cue(gap: str) -> Role | None:
    """The role the nearest cue before a mention gives it; on a tie the longer cue ("rely on" > "on")."""
    cues: list[tuple[re.Pattern[str], Role]] = [
        (RECOMMEND, "recommended"),
        (CREDIT_BEFORE, "credited"),
        (OPPONENT, "opponent"),
        (WITH, "recommended"),  # "hit them with Ember Fang", "pair it with Hexmoth"
    ]
    found = [(m.end(), m.end() - m.start(), role) for pattern, role in cues for m in pattern.finditer(gap)]
    return max(found)[2] if found else None


def read_reply(pack: Pack, reply: str) -> list[Claim]:
    """Every catalog creature / skill / lineup mention of `reply`, with role and polarity."""
    text = reply.replace("’", "'").replace("‘", "'")
    mentions = [m for m in link_entities(pack, text) if m.kind in ("creature", "skill", "lineup")]
    claims: list[Claim] = []
    for c_start, c_end in _spans(CLAUSE, text, 0, len(text)):
        inside = [m for m in mentions if c_start <= m.span[0] < c_end]
        segments = _spans(re.compile(r","), text, c_start, c_end)
        # A question asserts nothing ("can it use Granite Bulwark now?" echoed back is no advice).
        question = text[c_end : c_end + 1] == "?"
        prev: Claim | None = None
        prev_end = c_start
        for i, m in enumerate(inside):
            gap = text[prev_end : m.span[0]]
            seg = next(((a, b) for a, b in segments if a <= m.span[0] < b), (c_start, c_end))
            seg_text = text[seg[0] : seg[1]]
            after_end = inside[i + 1].span[0] if i + 1 < len(inside) else c_end
            role: Role | None = _last_cue(gap)
            # "use A, B and C" and "Emberfox's Inferno Roar": the mention continues the previous one.
            listed = prev is not None and (
                LIST_GAP.match(gap) is not None or POSSESSIVE.match(gap) is not None
            )
            if role is None and listed and prev is not None:
                role = prev.role
            if role is None:
                role = "credited" if CREDIT_AFTER.match(text[m.span[1] : after_end]) else "descriptive"
            # "Do not call Voltail missing" talks about speech, not about what the player has.
            meta = SPEECH.search(seg_text) is not None
            negated = (
                question
                or meta
                or NEGATION.search(seg_text) is not None
                or (listed and prev is not None and prev.negated)
            )
            absent = not meta and (
                ABSENCE.search(seg_text) is not None or (listed and prev is not None and prev.absent)
            )
            if m.kind == "skill" and not meta and SKILL_ABSENCE.search(seg_text):
                absent = True
            # A creature named with one of its skills in the same segment is that skill's user:
            # "Emberfox doesn't have Inferno Roar yet" judges the skill, not Emberfox.
            same_segment = [x for x in inside if seg[0] <= x.span[0] < seg[1]]
            owner = _owner(pack, inside[:i], m) if m.kind == "skill" else None
            owner_only = m.kind == "creature" and any(
                x.kind == "skill" and x.id in pack.creatures[m.id].skills for x in same_segment
            )
            claim = Claim(
                entity=m.id,
                kind=m.kind,
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


def _owner(pack: Pack, before: list[Mention], skill: Mention) -> str | None:
    """The creature the clause names as the skill's user: the nearest earlier one that learns it."""
    for m in reversed(before):
        if m.kind == "creature" and skill.id in pack.creatures[m.id].skills:
            return m.id
    return None


# --- the rules -----------------------------------------------------------------------------------


def _skill_usable(pack: Pack, inv: Inventory | None, skill: str, owner: str | None) -> bool:
    """W2's notion (`w2._usable`): unlocked in the snapshot, or known from the start on an owned learner."""
    if inv is None:
        return False
    learners = [owner] if owner else [c for c in pack.creatures if skill in pack.creatures[c].skills]
    for cid in learners:
        if inv.skill_unlocked(cid, skill):
            return True
        if inv.owns(cid) and pack.skills[skill].unlock is None and skill in pack.creatures[cid].skills:
            return True
    return False


def _available(pack: Pack, inv: Inventory | None, claim: Claim) -> tuple[bool, str]:
    """Is the claimed entity available to the player, and if not, why (for the evidence)."""
    if claim.kind == "creature":
        ok = inv is not None and inv.owns(claim.entity)
        return ok, f"{pack.creatures[claim.entity].name} is not owned"
    if claim.kind == "skill":
        ok = _skill_usable(pack, inv, claim.entity, claim.owner)
        on = f" on {pack.creatures[claim.owner].name}" if claim.owner else ""
        return ok, f"{pack.skills[claim.entity].name} is not unlocked{on}"
    lineup = pack.lineups[claim.entity]
    missing = [c for c in lineup.creatures if inv is None or not inv.owns(c)]
    names = ", ".join(pack.creatures[c].name for c in missing)
    return not missing, f"lineup {lineup.name} needs {names}, not owned"


def _recommends(claim: Claim, named_by_player: set[str]) -> bool:
    """Does the reply steer the player towards this entity?"""
    if claim.negated or claim.role == "opponent":
        return False
    if claim.role in ("recommended", "credited"):
        return True
    return claim.praise and claim.entity not in named_by_player


def _fail(rule: RuleId, drift: DriftTag | None, evidence: str, entity: str | None = None) -> Failure:
    return Failure(rule=rule, drift=drift, entity=entity, evidence=evidence)


def recommended_sets(claims: Sequence[Claim]) -> tuple[set[str], frozenset[str]]:
    """(pack lineups, creatures) a reply recommends: what rule (d) compares across turns."""
    lineups = {c.entity for c in claims if c.kind == "lineup" and not c.negated and c.role != "opponent"
               and (c.affirmed or c.praise)}  # fmt: skip
    creatures = frozenset(c.entity for c in claims if c.kind == "creature" and c.affirmed)
    return lineups, creatures


def check_turn(
    pack: Pack,
    turn: BenchTurn,
    evidence: ReplyEvidence,
    previous: ReplyEvidence | None = None,
    seen_state: dict[str, Any] | None = None,
    session_id: str = "",
) -> TurnVerdict:
    """Judge one reply against the turn's reference.

    `previous` is the same configuration's evidence for the turn before (rule d); `seen_state` the
    snapshot the coach actually read when it differs from the turn's (a late push), for attribution.
    """
    ref = turn.reference
    inv = load_state(turn.state).fs.inventory
    seen_inv = load_state(seen_state).fs.inventory if seen_state is not None else None
    failures: list[Failure] = []

    if not evidence.completed or not evidence.reply.strip():
        failures.append(_fail("no_reply", None, "no reply within the turn's time budget"))
    claims = read_reply(pack, evidence.reply)
    named = set(ref.mentioned)

    def drift_for(claim: Claim, available_when_seen: bool) -> DriftTag:
        # The claim was true of the snapshot the coach saw but not of the live state: latency drift.
        return "A" if seen_inv is not None and available_when_seen else "B"

    for claim in claims:
        ok, why = _available(pack, inv, claim)
        # (a) recommending / crediting what the player cannot use.
        if _recommends(claim, named) and not ok:
            if not (
                claim.kind == "creature" and claim.role == "descriptive" and _opponent_has(turn, claim.entity)
            ):
                seen_ok = _available(pack, seen_inv, claim)[0] if seen_inv is not None else False
                failures.append(
                    _fail(
                        "unavailable_entity",
                        drift_for(claim, seen_ok),
                        f"{why}: {claim.text!r}",
                        claim.entity,
                    )
                )
        # (f) recommending what the player asked to keep out.
        if claim.kind in ("creature", "lineup") and _recommends(claim, named):
            members = [claim.entity] if claim.kind == "creature" else pack.lineups[claim.entity].creatures
            banned = [c for c in members if c in ref.excluded]
            if banned:
                names = ", ".join(pack.creatures[c].name for c in banned)
                failures.append(
                    _fail(
                        "excluded_entity", "B", f"the player excluded {names}: {claim.text!r}", claim.entity
                    )
                )
        # (b) calling missing what the player has.
        if claim.absent and ok and claim.kind != "lineup" and not claim.owner_only:
            seen_ok = _available(pack, seen_inv, claim)[0] if seen_inv is not None else True
            failures.append(
                _fail(
                    "false_missing",
                    drift_for(claim, not seen_ok),
                    f"called missing but available: {claim.text!r}",
                    claim.entity,
                )
            )

    # (c) one entity affirmed and denied in the same reply.
    for entity in dict.fromkeys(c.entity for c in claims):
        mine = [c for c in claims if c.entity == entity and not c.owner_only and c.role != "opponent"]
        yes = next((c for c in mine if c.affirmed and not c.absent), None)
        no = next((c for c in mine if c.absent), None)
        if yes is not None and no is not None:
            failures.append(
                _fail("self_contradiction", "D", f"affirms {yes.text!r} and denies {no.text!r}", entity)
            )

    # (d) the previous turn's guidance again.
    if previous is not None:
        if evidence.guidance_id is not None and evidence.guidance_id == previous.guidance_id:
            failures.append(
                _fail(
                    "repeated_guidance",
                    "C",
                    f"c3 guidance {evidence.guidance_id} issued in consecutive turns",
                )
            )
        lineups, creatures = recommended_sets(claims)
        prev_lineups, prev_creatures = recommended_sets(read_reply(pack, previous.reply))
        for lineup_id in sorted(lineups & prev_lineups):
            failures.append(
                _fail(
                    "repeated_guidance",
                    "C",
                    f"lineup {pack.lineups[lineup_id].name} recommended again",
                    lineup_id,
                )
            )
        if len(creatures) >= 2 and creatures == prev_creatures:
            names = ", ".join(sorted(pack.creatures[c].name for c in creatures))
            failures.append(_fail("repeated_guidance", "C", f"the same creatures recommended again: {names}"))

    # (e) claims about the player's entities resting on an old snapshot, unflagged.
    snap = evidence.snapshot_turn
    stale_tools = evidence.tools and snap is not None and snap < turn.turn_index
    if stale_tools and not HEDGE.search(evidence.reply):
        stateful = [c for c in claims if c.role != "opponent" and (c.affirmed or c.absent)]
        if stateful:
            tools = ", ".join(evidence.tools)
            failures.append(
                _fail(
                    "stale_evidence",
                    "A",
                    f"{tools} read turn {snap}'s snapshot at turn {turn.turn_index}: {stateful[0].text!r}",
                )
            )

    unique = list(dict.fromkeys(failures))
    drifts = sorted({f.drift for f in unique if f.drift is not None})
    return TurnVerdict(
        session_id=session_id,
        turn_index=turn.turn_index,
        scored=turn.scored,
        passed=not unique,
        failures=unique,
        drifts=drifts,
    )


def _opponent_has(turn: BenchTurn, creature: str) -> bool:
    match = turn.state.get("ic", {}).get("match") or {}
    return creature in match.get("opponent_lineup", [])


def check_session(pack: Pack, session: BenchSession, evidence: Sequence[ReplyEvidence]) -> list[TurnVerdict]:
    """Verdicts for every turn of `session` (scored or not), given one configuration's evidence."""
    if len(evidence) != len(session.turns):
        raise ValueError(
            f"session {session.session_id}: {len(evidence)} replies for {len(session.turns)} turns"
        )
    verdicts = []
    for i, (turn, ev) in enumerate(zip(session.turns, evidence, strict=True)):
        seen = session.turns[i - 1].state if turn.push == "late" else None
        previous = evidence[i - 1] if i > 0 else None
        verdicts.append(check_turn(pack, turn, ev, previous, seen, session.session_id))
    return verdicts
