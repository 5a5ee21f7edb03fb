"""Talker conditioning: c1, c2, c3 and the tool results rendered into the reply prompt.

The Talker words decisions it does not make. This module turns the wrappers' outputs into
three explicit lists — what the reply MUST say, MAY say and MUST NOT say — plus the tool
facts it may draw on. The system message is the static prefix (persona + domain rules +
format), byte-identical across turns so llama.cpp reuses its KV cache; everything that
changes per turn goes in the user message.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from voicecoach.domain.pack import Pack
from voicecoach.grounding.kernel import GroundingControl
from voicecoach.grounding.plan import Paragraph
from voicecoach.interaction.kernel import InteractionControl


class ToolOutcome(BaseModel):
    """One tool call's result, or why there is none."""

    model_config = ConfigDict(frozen=True)

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    result: dict[str, Any] | None = None
    error: str | None = None
    ms: float = 0.0


class ReplyConditioning(BaseModel):
    """The decisions in the form the reply prompt states them (also shown in logs and UIs)."""

    must_say: list[str]
    may_say: list[str]
    must_not_say: list[str]
    facts: list[str]
    missing: list[str]


_PARAGRAPH_ASK = {
    "praise": "Confirm that {detail}.",
    "apology": "Say briefly, without over-apologising, that {detail}.",
    "constraint_account": "Explain that {detail}, and what the player can do instead.",
    "guidance": "Give the guidance below.",
    "scene_flavor": "Tie the advice to the current match in one short phrase.",
}


def _paragraph_line(p: Paragraph) -> str:
    return _PARAGRAPH_ASK[p.type].format(detail=p.detail or ", ".join(sorted(p.constraints)))


def _name(pack: Pack, entity: str) -> str:
    """Display name of a catalog id (of the earliest kind that has it: pet's creatures, then
    skills); the id itself when unknown."""
    return pack.catalog.display_name(entity)


def _compact(result: dict[str, Any], limit: int = 600) -> str:
    text = json.dumps(result, separators=(",", ":"), sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def conditioning(
    pack: Pack,
    c2: GroundingControl | None,
    c3: InteractionControl | None,
    tools: list[ToolOutcome],
    missing: list[str] | None = None,
) -> ReplyConditioning:
    """What the reply must say, may say and must not say, from the wrappers' decisions."""
    must: list[str] = []
    may: list[str] = []
    never: list[str] = []
    missing = list(missing or [])
    schema = pack.catalog.schema
    option_kind, group_kind = schema.kind("option"), schema.kind("group")

    if c2 is not None:
        required = set(c2.plan)  # the scheduler already holds R inside P; each planned paragraph is asked for
        for p in c2.plan:
            (must if p in required else may).append(_paragraph_line(p))
        for c in c2.conflicts:
            if c.tier == "hard" and not c.satisfied:
                if c.kind == "state":
                    never.append(
                        "Do not claim what the player owns: "
                        f"their {schema.collection_noun()} is unknown right now."
                    )
                elif option_kind is not None and c.kind == option_kind:  # <option kind>:<id>[@<unit>]
                    option_id, _, owner = c.constraint.split(":", 1)[1].partition("@")
                    on = f" on {_name(pack, owner)}" if owner else ""
                    never.append(f"Do not say or imply the player can use {_name(pack, option_id)}{on} now.")
                else:
                    name = _name(pack, c.entity) if c.entity else c.constraint
                    never.append(f"Do not say or imply the player has or can use {name} now.")
            elif c.kind == "has" and c.satisfied and c.entity:
                never.append(
                    f"Do not apologise for or call missing {_name(pack, c.entity)}: the player owns it."
                )
            # unknown_* hints stay in c2 for the logs: a name the catalog does not know is most
            # often one the slot call invented, so the Talker is never told to say it.
    if c3 is not None:
        if c3.guidance is not None:
            must.append(f"Guidance to give ({c3.guidance.guidance_type}): {c3.guidance.text}")
        else:
            never.append("Do not give a new recommendation this turn; answer the question only.")
        # lineup_id (the stored field name) holds a group id of the pack's group kind.
        group_noun = schema.noun(group_kind) if group_kind is not None else ""
        for group_id in c3.cooling_lineups:
            group = pack.catalog.get(group_kind, group_id) if group_kind is not None else None
            if group is not None and (c3.guidance is None or c3.guidance.lineup_id != group_id):
                never.append(f"Do not recommend the {group.display} {group_noun} again yet.")

    facts: list[str] = []
    for t in tools:
        if t.ok and t.result is not None:
            facts.append(f"{t.tool}: {_compact(t.result)}")
        else:
            missing.append(f"tool {t.tool} failed ({t.error or 'no result'})")
    if missing:
        must.append(
            f"Say plainly that some live game data is unavailable ({'; '.join(missing)}); do not guess it."
        )
    return ReplyConditioning(must_say=must, may_say=may, must_not_say=never, facts=facts, missing=missing)


def talker_system_prompt(pack: Pack) -> str:
    """Static prefix of every reply: a function of the pack only (KV-cache friendly)."""
    rules = "\n".join(f"- {r}" for r in pack.domain_rules)
    return (
        f"{pack.persona}\n"
        f"Game rules:\n{rules}\n"
        "You speak to a player mid-match: reply in one to three short spoken sentences, "
        "no lists, no markdown. Do what the notes say you must, never what they say you must not, "
        "and use only the facts given."
    )


def render_reply_prompt(
    pack: Pack,
    utterance: str,
    narration: str,
    c2: GroundingControl | None,
    c3: InteractionControl | None,
    tools: list[ToolOutcome],
    missing: list[str] | None = None,
) -> tuple[list[dict[str, str]], ReplyConditioning]:
    """The reply call's messages (static system prefix + per-turn user message)."""
    cond = conditioning(pack, c2, c3, tools, missing)

    # Compact "coach notes": small models echo headed forms back, and empty sections invite
    # invention, so only non-empty sections are written and the prompt ends on "Coach:".
    sections = [
        ("Facts from the game", cond.facts),
        ("You must", cond.must_say),
        ("You may", cond.may_say),
        ("You must not", cond.must_not_say),
    ]
    lines = [f"Player: {utterance}", f"You already said: {narration.strip() or '(nothing)'}"]
    lines += [f"{title}: " + " ".join(items) for title, items in sections if items]
    lines.append("Continue the reply without repeating what you already said.\nCoach:")
    user = "\n".join(lines)
    messages = [
        {"role": "system", "content": talker_system_prompt(pack)},
        {"role": "user", "content": user},
    ]
    return messages, cond
