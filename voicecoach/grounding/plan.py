"""W2's paragraph plan (paper §5, Appendix D): Ψ and the paragraph schedule.

``(A, R) = Ψ(Conflicts, intent)`` (`psi`): the eligible paragraphs A and the required paragraphs R,
with the Φ entry's flags (branch, coaching, scene) deciding whether the turn recommends, coaches
and is about a match. `schedule` then picks the plan P with R ⊆ P ⊆ A, never judging one constraint
both ways (no drift D). Deterministic for fixed conflicts and labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from voicecoach.domain.pack import Pack, PhiEntry
from voicecoach.grounding.diff import Diff
from voicecoach.grounding.repair import dedupe

ParagraphType = Literal["praise", "apology", "constraint_account", "guidance", "scene_flavor"]
Polarity = Literal[-1, 0, 1]

# Fill order after R. Explaining an unmet constraint beats apologising for it, which beats praise;
# guidance and flavour are only worth the airtime once the judgements are said.
PRIORITY: tuple[ParagraphType, ...] = ("constraint_account", "apology", "praise", "guidance", "scene_flavor")


class Paragraph(BaseModel):
    """One paragraph of the reply plan and the judgement it makes about its constraints."""

    model_config = ConfigDict(frozen=True)

    type: ParagraphType
    constraints: frozenset[str] = frozenset()
    polarity: Polarity = 0  # +1 affirms the constraints, -1 denies them, 0 judges nothing
    detail: str = ""

    def clashes(self, other: Paragraph) -> bool:
        """Opposite judgements of a shared constraint: drift D."""
        return self.polarity * other.polarity == -1 and bool(self.constraints & other.constraints)


class Eligibility(BaseModel):
    """Ψ's output: eligible candidates A and required paragraphs R (R ⊆ A)."""

    model_config = ConfigDict(frozen=True)

    candidates: tuple[Paragraph, ...]  # A
    required: tuple[Paragraph, ...]  # R


# Intent labels come from W1's LLM. Whether a turn recommends is the Φ entry's branch when the
# (intent, sub_intent) pair is registered; otherwise keywords decide, so unregistered labels still fit.
# Whether it coaches and whether it is about a match: the Φ entry's `coaching` / `scene` flags when
# it sets them, else these keyword rules.
NON_COACHING_INTENTS = frozenset({"smalltalk", "small_talk", "chitchat", "greeting", "farewell", "thanks"})
_RECOMMEND_WORDS = ("recommend", "lineup", "team", "build", "swap", "pick", "suggest")
MATCH_WORDS = ("match", "battle", "opponent", "counter", "round", "fight", "tactic", "strategy")


def intent_has(words: Sequence[str], *labels: str) -> bool:
    key = " ".join(labels).strip().lower()
    return any(w in key for w in words)


def phi_entry(pack: Pack, intent: str, sub_intent: str) -> PhiEntry | None:
    """The Φ entry of (intent, sub_intent), None when the pair is unregistered."""
    return next((e for e in pack.phi if (e.intent, e.sub_intent) == (intent, sub_intent)), None)


def branch_of(pack: Pack, intent: str, sub_intent: str) -> str | None:
    """The reply branch Φ registers for (intent, sub_intent), None when the pair is unregistered."""
    entry = phi_entry(pack, intent, sub_intent)
    return entry.branch if entry is not None else None


AGGREGATE_DETAIL = "everything required is available"


def psi(
    diff: Diff,
    intent: str,
    sub_intent: str = "",
    branch: str | None = None,
    coaching: bool | None = None,
    scene: bool | None = None,
) -> Eligibility:
    """(A, R) = Ψ(Conflicts, intent).

    - satisfied constraint (hard or soft) -> praise(+1) eligible
    - unsatisfied hard -> apology(-1) and constraint_account(-1) eligible, constraint_account required;
      no praise of it (a hard conflict blocks praise of the violated constraint)
    - aggregate praise over every hard constraint (2+) -> eligible only if all of them are satisfied
    - unsatisfied soft -> constraint_account(-1) eligible
    - hint -> annotation only: stays in the conflict list, makes no paragraph
    - guidance eligible for coaching intents (`coaching`; None: the intent is not smalltalk-like),
      required for recommend-like ones (`branch` "recommend", or recommend keywords when the branch
      is unknown) when the inventory is known and not empty; an empty inventory requires an apology
      and forbids guidance (R6)
    - scene_flavor eligible when the intent is about a match (`scene`; None: match keywords)
    """
    candidates: list[Paragraph] = []
    required: list[Paragraph] = []
    judged = [c for c in diff.conflicts if c.tier != "hint"]
    blocked = {c.constraint for c in judged if c.tier == "hard" and not c.satisfied}
    for c in judged:
        ids = frozenset({c.constraint})
        if c.satisfied and c.constraint not in blocked:
            candidates.append(Paragraph(type="praise", constraints=ids, polarity=1, detail=c.detail))
        elif not c.satisfied and c.tier == "hard":
            account = Paragraph(type="constraint_account", constraints=ids, polarity=-1, detail=c.detail)
            candidates += [Paragraph(type="apology", constraints=ids, polarity=-1, detail=c.detail), account]
            required.append(account)
        elif not c.satisfied:
            candidates.append(
                Paragraph(type="constraint_account", constraints=ids, polarity=-1, detail=c.detail)
            )

    # Drift D's example: "all required pets are available" only when no required one is missing.
    # With a single hard constraint its own praise already says as much.
    hard = frozenset(c.constraint for c in judged if c.tier == "hard")
    if len(hard) > 1 and not blocked:
        candidates.append(Paragraph(type="praise", constraints=hard, polarity=1, detail=AGGREGATE_DETAIL))

    if diff.inventory_empty:
        sorry = Paragraph(
            type="apology",
            constraints=frozenset({"state:inventory"}),
            polarity=-1,
            detail=diff.empty_detail,
        )
        candidates.append(sorry)
        required.append(sorry)
    elif coaching if coaching is not None else intent.strip().lower() not in NON_COACHING_INTENTS:
        topic = f"{intent}/{sub_intent}" if sub_intent else intent
        guidance = Paragraph(type="guidance", detail=f"coach the player on: {topic}")
        candidates.append(guidance)
        recommends = branch == "recommend" if branch else intent_has(_RECOMMEND_WORDS, intent, sub_intent)
        if diff.inventory_known and recommends:
            required.append(guidance)
    if scene if scene is not None else intent_has(MATCH_WORDS, intent, sub_intent):
        candidates.append(Paragraph(type="scene_flavor", detail="a line of colour about the match"))
    return Eligibility(candidates=tuple(dedupe(candidates)), required=tuple(dedupe(required)))


# --- paragraph scheduler: R ⊆ P ⊆ A -------------------------------------------------------------


def _fill_key(p: Paragraph) -> tuple[int, int, tuple[str, ...], int, str]:
    # Total order over paragraphs, so P does not depend on the order Ψ listed A in.
    # Among praises, the broader one (the aggregate) comes first.
    return (PRIORITY.index(p.type), -len(p.constraints), tuple(sorted(p.constraints)), p.polarity, p.detail)


def schedule(eligibility: Eligibility, max_paragraphs: int = 4) -> list[Paragraph]:
    """The paragraph plan P: all of R, then A by PRIORITY while under `max_paragraphs`, skipping any
    paragraph that would judge a constraint opposite to one already planned. R is never cut."""
    plan = dedupe(eligibility.required)
    for p in sorted(set(eligibility.candidates) - set(plan), key=_fill_key):
        if len(plan) >= max_paragraphs:
            break
        if not any(p.clashes(q) for q in plan):
            plan.append(p)
    return sorted(plan, key=_fill_key)
