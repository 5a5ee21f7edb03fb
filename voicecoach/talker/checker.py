"""The reply checker kernel: is what the player hears speakable, and grounded in the live state?

One implementation, two users: CoachBench's judge (`voicecoach.bench.coachbench.checker`, which adds the
benchmark-only rules) and the runtime guard between the Talker and TTS. Rules are judged against a
`CheckContext` (the live inventory, what the player named, what they excluded, the opponent, the
previous reply), never against a benchmark record. Two entry points:

- `check_reply(pack, text, ctx)`: a whole turn (narration + reply);
- `check_sentence(pack, sentence, ctx, spoken)`: one sentence of a reply streaming to TTS, given
  the sentences already spoken (a repeat of one of them, a loop inside it, the budget running out).

The parts: the rule ids, `Failure` and `CheckContext` in `voicecoach.talker.rules`; how a reply is
read into claims in `voicecoach.talker.claims`; the speakable rules in `voicecoach.talker.speakable`;
here the grounding rules and the two entry points.

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

from collections.abc import Iterable, Sequence

from voicecoach.domain.pack import Pack
from voicecoach.domain.view import StateView
from voicecoach.talker.claims import Claim, read_reply, reading, recommended_sets
from voicecoach.talker.rules import CheckContext, DriftTag, Failure, fail
from voicecoach.talker.speakable import (
    echo_failure,
    loop_in,
    markup_failure,
    same_sentence,
    speakable_failures,
    speakable_patterns,
    split_sentences,
    too_long_failure,
    unknown_name_failures,
    words,
)


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
                    fail("unavailable_entity", drift_for(seen_ok), f"{why}: {claim.text!r}", claim.entity)
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
                    fail("excluded_entity", "B", f"the player excluded {names}: {claim.text!r}", claim.entity)
                )
        if claim.absent and ok and claim.kind_role != "group" and not claim.owner_only:
            seen_ok = available(pack, seen_view, claim)[0] if seen_view is not None else True
            failures.append(
                fail(
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
                fail("self_contradiction", "D", f"affirms {yes.text!r} and denies {no.text!r}", entity)
            )

    if ctx.previous_reply:
        groups, units = recommended_sets(claims)
        prev_groups, prev_units = recommended_sets(read_reply(pack, ctx.previous_reply))
        for group_id in sorted(groups & prev_groups):
            failures.append(
                fail(
                    "repeated_guidance",
                    "C",
                    f"{r.group_kind} {_display(pack, r.group_kind, group_id)} recommended again",
                    group_id,
                )
            )
        if len(units) >= 2 and units == prev_units:
            names = ", ".join(sorted(name(c) for c in units))
            failures.append(
                fail("repeated_guidance", "C", f"the same {r.units_plural} recommended again: {names}")
            )
    return failures


def _no_reply(text: object) -> Failure | None:
    if not isinstance(text, str):
        return fail("no_reply", None, f"the reply is not text ({type(text).__name__})")
    if not text.strip():
        return fail("no_reply", None, "no reply")
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
    found = [echo_failure(p, sentence), markup_failure(sentence)]
    why = loop_in(words(sentence))
    if why is None and spoken and words(sentence) and words(sentence) == words(spoken[-1]):
        why = f"the sentence {sentence.strip()!r} said twice in a row"
    if why is None and same_sentence(sentence, spoken):
        why = f"the sentence {sentence.strip()!r} was already said"
    if why is not None:
        found.append(fail("loop", None, f"loops: {why}"))
    n_words = sum(len(words(s)) for s in spoken) + len(words(sentence))
    found.append(too_long_failure(n_words, len(spoken) + len(split_sentences(sentence))))
    failures = [f for f in found if f is not None] + unknown_name_failures(pack, p, sentence)
    failures += grounding_failures(pack, read_reply(pack, sentence), ctx)
    return list(dict.fromkeys(failures))
