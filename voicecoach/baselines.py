"""Prompts of the two baselines the paper compares SGC against (§7.1).

- `prompting`: one LLM call, no tools; the live state is pasted into the prompt and the
  model takes every state-dependent decision itself.
- `pe_agent`: planner → executor → reply, serially: a planning call writes tool calls (the
  same PLAN syntax W1 uses), the tools run, and a reply call words the result.

Both get the same persona, rules, state and tools as SGC, so the comparison isolates the
wrappers. The static part of each prompt is a function of the pack only (KV-cache reuse).
"""

from __future__ import annotations

import json

from voicecoach.pack import Pack
from voicecoach.state import LiveState
from voicecoach.talker import ToolOutcome, talker_system_prompt

# The pack files the baselines' prompts and tools read (persona and rules, the catalog, the tools'
# vocabulary). CoachBench pins their digest for the baseline rows: the SGC-only files (Φ, W3 pools,
# prior, templates, phrases) do not change a baseline's reply.
PACK_FILES = (
    "manifest.json",
    "creatures.json",
    "skills.json",
    "elements.json",
    "lineups.json",
    "vocabulary.json",
)


def state_brief(pack: Pack, state: LiveState) -> str:
    """The live state as compact text: what the player owns and unlocked, and the match."""
    lines = []
    inv = state.fs.inventory
    if inv is None:
        lines.append("Inventory: unknown.")
    else:
        owned = [
            f"{pack.creatures[o.creature_id].name if o.creature_id in pack.creatures else o.creature_id}"
            f" (stage {o.stage}; skills: "
            + ", ".join(pack.skills[s].name if s in pack.skills else s for s in o.unlocked_skills)
            + ")"
            for o in inv.owned
        ]
        lines.append("Player owns: " + ("; ".join(owned) or "nothing") + ".")
    m = state.ic.match
    if m is not None:

        def names(ids: list[str]) -> str:
            return ", ".join(pack.creatures[c].name if c in pack.creatures else c for c in ids) or "-"

        lines.append(
            f"Match: round {m.round}/{m.rounds_total}, score {m.score_player}-{m.score_opponent}; "
            f"player fields {names(m.player_lineup)}; opponent fields {names(m.opponent_lineup)}."
        )
    return "\n".join(lines)


def prompting_messages(pack: Pack, state: LiveState, utterance: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": talker_system_prompt(pack)},
        {"role": "user", "content": f"{state_brief(pack, state)}\nPlayer: {utterance}\nCoach:"},
    ]


def planner_system_prompt(pack: Pack) -> str:
    """The planner's tools are the pack's own (`pack_tools`: manifest order, as served), the same
    list W1's PLAN may call; for pet that is the classic registry, in its order."""
    from voicecoach.tools import pack_tools

    tools = "\n".join(
        f"- {t.name}({', '.join(t.parameters.get('properties', {}))}): {t.description}"
        for t in pack_tools(pack).values()
    )
    return (
        f"You plan tool calls for a {pack.title} coach. Tools:\n{tools}\n"
        "Answer only with tool calls, one per line, like: find_counters(opponent=[emberfox, oakhorn])\n"
        "Write none if no tool is needed."
    )


def planner_gbnf() -> str:
    """The planner's output constrained to PLAN call syntax (llama.cpp GBNF)."""
    from voicecoach.w1 import plan_gbnf_rules

    return "\n".join(["root ::= plan-calls", *plan_gbnf_rules()]) + "\n"


def planner_messages(pack: Pack, state: LiveState, utterance: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": planner_system_prompt(pack)},
        {"role": "user", "content": f"{state_brief(pack, state)}\nPlayer: {utterance}\nTool calls:"},
    ]


def pe_reply_messages(
    pack: Pack, state: LiveState, utterance: str, tools: list[ToolOutcome]
) -> list[dict[str, str]]:
    facts = [
        f"{t.tool}: {json.dumps(t.result, separators=(',', ':'), sort_keys=True)[:600]}"
        if t.ok
        else f"{t.tool} failed: {t.error}"
        for t in tools
    ]
    return [
        {"role": "system", "content": talker_system_prompt(pack)},
        {
            "role": "user",
            "content": f"{state_brief(pack, state)}\nTool results: {' '.join(facts) or 'none'}\n"
            f"Player: {utterance}\nCoach:",
        },
    ]
