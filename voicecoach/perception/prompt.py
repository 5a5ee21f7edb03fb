"""W1's request (paper §4, A.1): system prompt, worked turns, GBNF grammars and the prior's prefill.

The prompt and grammars are pure functions of the pack (so the static prefix stays in the LLM
server's KV cache): `w1_prefix` / `w1_messages` build the messages, `w1_gbnf` restricts the
output to the four tags with (INTENT, SUB_INTENT) a registered Φ pair or "other", and
`plan_gbnf_rules` restricts PLAN to the pack's tools. When the intent prior
(`voicecoach.perception.prior`) is confident, `w1_call` prefills both labels so Φ can dispatch
before the LLM's first token, and `PrefillEcho` strips an endpoint's echo of that prefill.
"""

from __future__ import annotations

from dataclasses import dataclass

from voicecoach.domain.pack import OUT_OF_DOMAIN, Pack
from voicecoach.perception.phi import registered_labels
from voicecoach.tools.registry import ToolSpec, pack_tools

OTHER = OUT_OF_DOMAIN[0]  # the fallback label ("other"): always allowed, never in Φ, so it is a miss
# One short spoken sentence: the grammar admits at most NARRATION_MAX_WORDS words of at most
# GBNF_WORD_CHARS characters, and sentence-ending punctuation only at the end, so a small model
# that rambles or loops is cut off after ~12 words instead of talking over the answer.
NARRATION_MAX_WORDS = 12
GBNF_WORD_CHARS = 16
GBNF_NARRATION_CHARS = NARRATION_MAX_WORDS * (GBNF_WORD_CHARS + 1) + 1  # the bound this implies
GBNF_PLAN_CHARS = 600


def _tools(pack: Pack) -> dict[str, ToolSpec]:
    """The tools a prompt or grammar lists: the pack's as served (its game's tools.json included;
    for pet_arena the in-process registry, in the same order)."""
    return pack_tools(pack)


def _name_line(pack: Pack) -> str:
    """PLAN's argument hint: what a call names, by the unit and option kinds' nouns (pet: "use
    creature and skill names or ids"; a pack without an option kind: its unit's alone). A kind's
    noun is its name when the kind lists it among its nouns (pet's "creature", "skill"), else its
    first noun (a kind id "hero_unit" with nouns ["hero"]: "hero"), else the kind's name."""
    schema = pack.catalog.schema

    def noun(kind: str) -> str:
        nouns = schema.kinds[kind].nouns
        return kind if kind in nouns or not nouns else nouns[0]

    kinds = [k for k in (schema.kind("unit"), schema.kind("option")) if k is not None]
    return f"use {' and '.join(noun(k) for k in kinds)} names or ids"


def _tool_lines(pack: Pack) -> list[str]:
    lines = []
    for spec in _tools(pack).values():
        props = spec.parameters.get("properties", {})
        required = set(spec.parameters.get("required", []))
        args = ", ".join(name if name in required else f"{name}?" for name in props)
        lines.append(f"- {spec.name}({args}): {spec.description}")
    return lines


def w1_system_prompt(pack: Pack) -> str:
    """The W1 system prompt. A pure function of the pack and the tool registry, so it is
    byte-identical across turns and the LLM server can reuse its KV cache for it."""
    # One line per pair with what a player might say: on 120 CoachBench utterances SmolLM2-135M's
    # pair accuracy went 0.8 -> 10.8 % with these lines and the worked turns of `w1_messages`
    # (docs/BENCHMARKS.md, "W1 prompt").
    label_lines = [
        f"- {e.intent} {e.sub_intent}" + (f': "{e.example}"' if e.example else "") for e in pack.phi
    ]
    return "\n".join(
        [
            f"You are the listening stage of a voice coach for {pack.title}. {pack.persona}",
            "For each player utterance, output exactly these four tags, in this order, and nothing else:",
            "<INTENT>intent</INTENT><SUB_INTENT>sub_intent</SUB_INTENT>"
            "<NARRATION>short sentence</NARRATION><PLAN>tool calls</PLAN>",
            "",
            "INTENT and SUB_INTENT: one registered pair from the list below, written exactly as listed.",
            f'If the sub-intent is not listed, write "{OTHER}"; if no intent fits, write "{OTHER}" for both.',
            f"NARRATION: one short spoken sentence, at most {NARRATION_MAX_WORDS} words, that acknowledges "
            "the request (for example: Let me check your team against theirs.). Do not answer yet.",
            "PLAN: the tool calls needed to answer, one per line, as tool_name(key=value, key2=[a, b]); "
            f'{_name_line(pack)}; write "none" if no tool is needed.',
            "",
            "Registered intent and sub-intent pairs, each with what a player might say:",
            *label_lines,
            "",
            "Tools (? marks an optional argument):",
            *_tool_lines(pack),
        ]
    )


def w1_answer(intent: str, sub_intent: str, narration: str, plan: str) -> str:
    """W1's output for one turn, in the tag format its grammar allows."""
    return (
        f"<INTENT>{intent}</INTENT><SUB_INTENT>{sub_intent}</SUB_INTENT>"
        f"<NARRATION>{narration}</NARRATION><PLAN>{plan}</PLAN>"
    )


def w1_prefix(pack: Pack) -> list[dict[str, str]]:
    """The static part of every W1 call: the system prompt, then the pack's worked turns.

    The same for every utterance, so it stays in the server's KV cache (and is built once per actor).
    """
    messages = [{"role": "system", "content": w1_system_prompt(pack)}]
    for ex in pack.w1_examples:
        messages.append({"role": "user", "content": ex.utterance})
        messages.append(
            {"role": "assistant", "content": w1_answer(ex.intent, ex.sub_intent, ex.narration, ex.plan)}
        )
    return messages


def w1_messages(pack: Pack, utterance: str) -> list[dict[str, str]]:
    """The W1 call: `w1_prefix`, then the player's utterance."""
    return [*w1_prefix(pack), {"role": "user", "content": utterance}]


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def w1_gbnf(pack: Pack) -> str:
    """llama.cpp GBNF constraining W1's output to the four tags, with (INTENT, SUB_INTENT)
    restricted to registered pairs plus the fallback "other" (a Φ miss, so PLAN decides)."""
    labels = {intent: list(subs) for intent, subs in registered_labels(pack).items()}
    labels.setdefault(OTHER, [])
    rules = ["root ::= head narration plan"]
    heads: list[str] = []
    pair_rules: list[str] = []
    for k, (intent, subs) in enumerate(labels.items()):
        name = f"pair-{k}"  # GBNF rule names allow only [a-zA-Z0-9-]; labels may hold '_'
        heads.append(name)
        alts = " | ".join(_gbnf_literal(s) for s in dict.fromkeys([*subs, OTHER]))
        pair_rules.append(
            f'{name} ::= {_gbnf_literal(f"<INTENT>{intent}</INTENT><SUB_INTENT>")} ( {alts} ) "</SUB_INTENT>"'
        )
    rules.append("head ::= " + " | ".join(heads))
    rules += pair_rules
    rules += ['narration ::= "<NARRATION>" narration-body', *_narration_and_plan_rules(pack)]
    return "\n".join(rules) + "\n"


def _narration_and_plan_rules(pack: Pack) -> list[str]:
    # Bounded repetitions: a small model that rambles is cut off instead of stalling the turn.
    # No '<' (the closing tag), no newline (one spoken line), '.!?' only at the sentence's end.
    return [
        f'narration-body ::= narration-word ( " " narration-word ){{0,{NARRATION_MAX_WORDS - 1}}} '
        '[.!?]? "</NARRATION>"',
        f"narration-word ::= [^<\\n .!?]{{1,{GBNF_WORD_CHARS}}}",
        'plan ::= "<PLAN>" plan-calls "</PLAN>"',
        *plan_gbnf_rules(pack),
    ]


def plan_gbnf_rules(pack: Pack) -> list[str]:
    """GBNF for PLAN's body: the pack's tools (`pack_tools`), each with only its own
    `key=value` arguments, or "none". Shared by W1's PLAN and the pe_agent planner, so a small
    model can only write calls `parse_plan` reads; values stay free text (validated after parsing).
    """
    tools = _tools(pack)
    rules = [
        'plan-calls ::= "none" | plan-call ( "; " plan-call ){0,3}',
        "plan-call ::= " + " | ".join(f"call-{k}" for k in range(len(tools))),
        'plan-value ::= "[" [^\\]()<;\\n]{0,120} "]" | [^,()<;\\n\\[\\]]{1,40}',
    ]
    for k, spec in enumerate(tools.values()):
        params = list(spec.parameters.get("properties", {}))
        if not params:
            rules.append(f"call-{k} ::= {_gbnf_literal(spec.name + '()')}")
            continue
        keys = " | ".join(_gbnf_literal(p + "=") for p in params)
        rules.append(
            f'call-{k} ::= {_gbnf_literal(spec.name + "(")} ( arg-{k} ( ", " arg-{k} ){{0,3}} )? ")"'
        )
        rules.append(f"arg-{k} ::= ( {keys} ) plan-value")
    return rules


# --- prefill: the intent prior's labels start W1's stream ------------------------------------------


def w1_prefill(intent: str, sub_intent: str) -> str:
    """The start of W1's answer when the intent prior is confident: both labels and the open
    NARRATION tag. Fed to the parser first (SUB_INTENT closes, Φ dispatches before the LLM's first
    token); the LLM continues the narration from there."""
    return f"<INTENT>{intent}</INTENT><SUB_INTENT>{sub_intent}</SUB_INTENT><NARRATION>"


def w1_prefill_messages(prefix: list[dict[str, str]], utterance: str, prefill: str) -> list[dict[str, str]]:
    """`w1_prefix` + the utterance + a final assistant message holding the prefill, which
    llama-server continues (the static prefix stays KV-cached as in `w1_messages`)."""
    return [*prefix, {"role": "user", "content": utterance}, {"role": "assistant", "content": prefill}]


def w1_continuation_gbnf(pack: Pack) -> str:
    """GBNF for the LLM's part after a prefill: narration body, </NARRATION>, then PLAN. The same
    for every pair (the labels are already written), so an actor builds it once."""
    return "\n".join(["root ::= narration-body plan", *_narration_and_plan_rules(pack)]) + "\n"


class PrefillEcho:
    """Strips the prefilled prefix from a continuation's streamed deltas, if the endpoint echoes it.

    llama-server's returned content repeats a prefilled assistant message before the continuation;
    other endpoints return only the continuation. Text is held back only while it is still a
    prefix of the prefill (so the echo may arrive split across any chunks); once it is known
    whether the echo is there, everything after it passes through unchanged.
    """

    def __init__(self, prefill: str) -> None:
        self.prefill = prefill
        self._held = ""
        self._decided = not prefill
        self.echoed = False

    def feed(self, delta: str) -> str:
        if self._decided:
            return delta
        self._held += delta
        if self._held.startswith(self.prefill):
            self._decided = self.echoed = True
            return self._held[len(self.prefill) :]
        if self.prefill.startswith(self._held):
            return ""  # still possibly the echo: wait for more
        self._decided = True  # no echo: the endpoint sent only the continuation
        return self._held

    def finish(self) -> str:
        """End of stream: a partial echo that never completed is continuation text after all."""
        held, self._held = ("" if self._decided else self._held), ""
        self._decided = True
        return held


@dataclass(frozen=True)
class W1Call:
    """One W1 request as an actor sends it: messages, grammar, and the prefill the parser is fed first.
    An actor's turn::

        call = w1_call(prefix, grammars, utterance, prior.prefill(utterance, previous=last_pair))
        step = turn.feed(call.prefill)  # labels -> SUB_INTENT closes -> Φ may dispatch now
        echo = call.echo()
        async for delta in llm.stream(call.messages, grammar=call.grammar):
            step = turn.feed(echo.feed(delta))
        step = turn.feed(echo.finish())
        step = turn.finish()
    """

    messages: list[dict[str, str]]
    grammar: str
    prefill: str = ""  # "" when the LLM labels the turn itself

    def echo(self) -> PrefillEcho:
        return PrefillEcho(self.prefill)


@dataclass(frozen=True)
class W1Grammars:
    """Both W1 grammars of a pack, built once per actor."""

    full: str  # labels + narration + plan (the LLM labels the turn)
    continuation: str  # narration + plan (after a prefill)

    @classmethod
    def of(cls, pack: Pack) -> W1Grammars:
        return cls(w1_gbnf(pack), w1_continuation_gbnf(pack))


def w1_call(
    prefix: list[dict[str, str]], grammars: W1Grammars, utterance: str, pair: tuple[str, str] | None
) -> W1Call:
    """The W1 request for `utterance`: prefilled with `pair` (the intent prior's confident labels),
    or without (pair None: the LLM labels as before)."""
    if pair is None:
        return W1Call([*prefix, {"role": "user", "content": utterance}], grammars.full)
    prefill = w1_prefill(*pair)
    return W1Call(w1_prefill_messages(prefix, utterance, prefill), grammars.continuation, prefill)
