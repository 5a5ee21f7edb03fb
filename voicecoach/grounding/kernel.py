"""W2 Grounding: reconcile what the player asked for with what is satisfiable for them (paper §5).

One turn runs, in order (`ground`):

1. ``QuerySlots = L_slot(x, c1)``: a separate LLM call (system prompt
   `voicecoach.grounding.prompt.slot_prompt`) turns the utterance into QuerySlots (paper A.2,
   `voicecoach.grounding.slots`); `parse_query_slots` reads its JSON without ever raising. Or, on a
   small model, `voicecoach.grounding.slot_rules.extract_slots` (entity links + cue words). Either
   way `ground_slots` keeps only names the player said (the utterance, the session's earlier
   constraints, the opponent lineup): an invented name is dropped, never judged or mentioned.
2. Deterministic repairs (pure, `voicecoach.grounding.repair`): `repair_attr_level_excludes`,
   `repair_entities_misclassified_as_skills`.
3. `validate_against_catalog`: names become catalog ids; unknown names become `hint` conflicts.
4. ``Conflicts = diff(QuerySlots, σ(s_fs))`` (`voicecoach.grounding.diff`): every constraint the
   request implies, judged against the live inventory, graded hard / soft / hint.
5. ``(A, R) = Ψ(Conflicts, intent)``: eligible paragraphs A and required paragraphs R (Appendix D,
   `voicecoach.grounding.plan`).
6. `schedule`: the paragraph plan P with R ⊆ P ⊆ A, never judging one constraint both ways.

The result, `GroundingControl`, is c2. Everything after the slot LLM call is deterministic for fixed
slots, state, pack and intent; nothing here imports Pipecat or does I/O.

The pack's schema (voicecoach.domain.catalog) names the kinds: the *unit* (pet: creature), the *option*
(pet: skill), the *group* (pet: lineup). The slots' attribute names and global kinds, the detail
strings, the matchup a counter is judged by and the Φ entry's Ψ flags all come from the pack.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from voicecoach.core.state import LiveState
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import Pack
from voicecoach.grounding.diff import Conflict, diff
from voicecoach.grounding.plan import Paragraph, phi_entry, psi, schedule
from voicecoach.grounding.repair import (
    ASKS_WHETHER,
    carry_over,
    ground_slots,
    repair_attr_level_excludes,
    repair_entities_misclassified_as_skills,
    same_unit,
)
from voicecoach.grounding.slots import QuerySlots


class GroundingControl(BaseModel):
    """c2: what the Talker is told about grounding. It words these decisions; it does not make them."""

    model_config = ConfigDict(frozen=True)

    slots: QuerySlots  # after repairs, as the player's words (catalog ids live in the conflicts)
    conflicts: tuple[Conflict, ...]
    plan: tuple[Paragraph, ...]  # P
    inventory_empty: bool
    notes: tuple[str, ...] = ()  # repairs applied: for logs, not for the player
    dropped: tuple[str, ...] = ()  # slot names the player never said (`ground_slots`): for logs
    inherit: QuerySlots | None = None  # what the next turn carries over, when not `slots`

    @property
    def carried(self) -> QuerySlots:
        """The constraints the session's next turn starts from (`carry_over`)."""
        return self.inherit if self.inherit is not None else self.slots


def _two_units(pack: Pack, utterance: str) -> bool:
    """Does the utterance name two units (the one going out and the one coming in)?"""
    unit = pack.catalog.schema.kind("unit")
    return len({m.id for m in link_entities(pack, utterance) if m.kind == unit}) >= 2


def ground(
    slots: QuerySlots,
    state: LiveState,
    pack: Pack,
    intent: str,
    sub_intent: str = "",
    max_paragraphs: int = 4,
    utterance: str | None = None,
    earlier: QuerySlots | None = None,
) -> GroundingControl:
    """c2 = W2(x, s_fs, c1) after the slot call: [grounding] -> repairs -> validation + diff -> Ψ -> schedule.

    `intent` / `sub_intent` are W1's labels (c1); the pair's Φ branch tells Ψ whether the turn recommends.
    With `utterance`, slots are first kept to what the player grounded (`ground_slots`) and the
    session's `earlier` constraints carry over (`carry_over`); the dropped names are in `dropped`.
    """
    notes: list[str] = []
    dropped: list[str] = []
    if utterance is not None:
        slots, dropped = ground_slots(slots, pack, utterance, state, earlier)
        slots = carry_over(slots, earlier, pack, utterance)
    carried = earlier.excluded_entities if earlier is not None else []
    slots, applied = repair_attr_level_excludes(slots, pack, carried)
    notes += applied
    slots, applied = repair_entities_misclassified_as_skills(slots, pack)
    notes += applied
    result = diff(slots, state.fs, pack)
    entry = phi_entry(pack, intent, sub_intent)
    flags = (entry.branch, entry.coaching, entry.scene) if entry is not None else (None, None, None)
    plan = schedule(psi(result, intent, sub_intent, *flags), max_paragraphs)
    inherit = None
    if (
        sub_intent == "swap"
        and utterance is not None
        and (ASKS_WHETHER.search(utterance) or _two_units(pack, utterance))
    ):
        # "Should I pull Sparkwing out?" or "take Sparkwing out for Hexmoth" is about this match's
        # team: it keeps nothing out of later teams (and a later answer must not say "leaving
        # Sparkwing out, as you asked"). "Keep Sparkwing out" is a request, and carries.
        before = earlier.excluded_entities if earlier is not None else []
        kept = [n for n in slots.excluded_entities if any(same_unit(n, b, pack) for b in before)]
        inherit = slots.model_copy(update={"excluded_entities": kept})
    return GroundingControl(
        inherit=inherit,
        slots=slots,
        conflicts=result.conflicts,
        plan=tuple(plan),
        inventory_empty=result.inventory_empty,
        notes=tuple(notes),
        dropped=tuple(dropped),
    )
