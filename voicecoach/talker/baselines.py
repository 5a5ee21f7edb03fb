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

from voicecoach.core.state import LiveState
from voicecoach.domain.pack import Pack
from voicecoach.domain.view import Owned, StateView
from voicecoach.talker.conditioning import ToolOutcome, talker_system_prompt


def baseline_files(pack: Pack) -> tuple[str, ...]:
    """The pack files the baselines' prompts and tools read: the manifest (persona and rules), the
    schema, each kind's and each matchup's file, the vocabulary and tools.json (the planner lists its
    tools). CoachBench pins their digest for the baseline rows: the SGC-only files (Φ, W3 pools,
    prior, templates, phrases) do not change a baseline's reply."""
    schema = pack.catalog.schema
    files = ["manifest.json", "schema.json", *(k.file for k in schema.kinds.values())]
    files += [m.file for m in schema.matchups] + ["vocabulary.json"]
    files += ["tools.json"] if pack.builtin_tools or pack.http_tools or pack.mcp_tools else []
    return tuple(dict.fromkeys(files))


def state_brief(pack: Pack, state: LiveState) -> str:
    """The live state as compact text: what the player owns and unlocked, and the match (read
    through StateView, so either profile; pet's classic snapshot reads as it always has)."""
    view, catalog = StateView(pack, state), pack.catalog
    lines = []
    if not view.known:
        lines.append(f"{'Inventory' if view.classic else 'Collection'}: unknown.")
    else:
        option = view.option_kind

        def name(kind: str | None, entity_id: str) -> str:
            entity = catalog.get(kind, entity_id) if kind is not None else None
            return entity.display if entity is not None else entity_id

        def standing(o: Owned) -> str:
            # The classic snapshot's progress is the evolution stage; a collection's, the level.
            if view.classic:
                return f"stage {o.tier}"
            return f"level {o.level}" + (f", tier {o.tier}" if o.tier is not None else "")

        options = catalog.schema.plural(option) if option else "options"
        owned = [
            f"{name(view.unit_kind, o.id)} ({standing(o)}; {options}: "
            + ", ".join(name(option, s) for s in o.unlocked)
            + ")"
            for o in view.owned()
        ]
        lines.append("Player owns: " + ("; ".join(owned) or "nothing") + ".")
    m = state.ic.match
    if m is not None:

        def names(ids: list[str]) -> str:
            return (
                ", ".join(e.display if (e := catalog.get(view.unit_kind, c)) is not None else c for c in ids)
                or "-"
            )

        where = "".join(f"; {kind} {catalog.display_name(v)}" for kind, v in sorted(m.context.items()))
        lines.append(
            f"Match: round {m.round}/{m.rounds_total}, score {m.score_player}-{m.score_opponent}; "
            f"player fields {names(m.player_lineup)}; opponent fields {names(m.opponent_lineup)}{where}."
        )
    return "\n".join(lines)


def prompting_messages(pack: Pack, state: LiveState, utterance: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": talker_system_prompt(pack)},
        {"role": "user", "content": f"{state_brief(pack, state)}\nPlayer: {utterance}\nCoach:"},
    ]


def planner_system_prompt(pack: Pack) -> str:
    """The planner's tools are the pack's own (`pack_tools`: manifest order, as served), the same
    list W1's PLAN may call."""
    from voicecoach.tools.registry import pack_tools

    tools = "\n".join(
        f"- {t.name}({', '.join(t.parameters.get('properties', {}))}): {t.description}"
        for t in pack_tools(pack).values()
    )
    return (
        f"You plan tool calls for a {pack.title} coach. Tools:\n{tools}\n"
        "Answer only with tool calls, one per line, like: find_counters(opponent=[emberfox, oakhorn])\n"
        "Write none if no tool is needed."
    )


def planner_gbnf(pack: Pack) -> str:
    """The planner's output constrained to PLAN call syntax (llama.cpp GBNF), over the pack's tools
    (`pack_tools`, as its prompt lists them)."""
    from voicecoach.perception.prompt import plan_gbnf_rules

    rules = plan_gbnf_rules(pack)
    return "\n".join(["root ::= plan-calls", *rules]) + "\n"


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
