"""The LLM engines a coach runs on, and the session-open prewarm of their prompts.

No Pipecat here: the text coach, the voice pipelines and the benchmarks all start their engines
with `Engines.start(config)`, and every assembly prewarms with `prewarm`. Both follow
`CoachConfig.llm_roles`: a configuration that makes no LLM call (the embedded default) starts no
server and warms nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from loguru import logger

from voicecoach.coach.session import CoachConfig
from voicecoach.domain.pack import Pack, PackError, load_pack
from voicecoach.grounding.prompt import slot_prompt
from voicecoach.llm.client import SLOTS, EmbeddedLlamaServer, LLMClient, LLMError, NoLLM, check_endpoint
from voicecoach.perception.prior import IntentPrior, PriorError
from voicecoach.perception.prompt import w1_messages
from voicecoach.talker.baselines import planner_system_prompt
from voicecoach.talker.conditioning import talker_system_prompt


def load_coach_pack(config: CoachConfig) -> Pack:
    """The pack `config` runs on (`pack_id`: a pack folder or an installed pack's id), with what its
    sessions will read from that folder: its intent prior, when the configuration uses one. So a
    missing or stale prior.json is one PackError at start naming the file and the command that
    retrains it, not a traceback when the first session opens."""
    pack = load_pack(config.pack_id)
    if config.uses_prior:
        try:
            IntentPrior.shared(pack, config.prior_threshold)
        except PriorError as err:
            raise PackError(str(err)) from None
    return pack


# A cold prefix on one CPU thread takes seconds (W1's ~1.7k tokens ~10 s); the prewarm waits for it.
PREWARM_TIMEOUT_S = 60.0


@dataclass
class Engines:
    """The LLM the coach talks to, and the embedded server(s) behind it if we started them.

    `lead` (when the embedded model is split) serves each turn's first call: W1, the planner, or
    prompting's one reply, on its own server with its own threads, so it never shares a decode
    batch with the previous turn's W2 and Talker, and they never wait for W1's stream. Each server
    gets half the threads: two busy llama.cpp processes with more threads than cores wait for
    each other at every token. Measured on llama-cpp-python's one-slot server (W1's first token
    484 -> 126 ms, docs/BENCHMARKS.md); llama-server keeps a KV slot per role, so part of that
    gain (W1's prefix no longer evicted) no longer needs the split, which is not re-measured.
    """

    llm: LLMClient
    server: EmbeddedLlamaServer | None = None
    lead: LLMClient | None = None
    lead_server: EmbeddedLlamaServer | None = None

    @property
    def first(self) -> LLMClient:
        """The client for the turn's first call."""
        return self.lead or self.llm

    @classmethod
    def start(cls, config: CoachConfig, need_llm: bool | None = None) -> Engines:
        """The LLM `config` calls: none when it makes no LLM call (`CoachConfig.llm_roles`), the
        endpoint when one is configured, else the embedded llama.cpp server(s).

        `need_llm` overrides the configuration's answer, for a caller that runs several
        configurations on one LLM (a benchmark) or calls it itself (the stock cascade)."""
        llm = config.llm
        if not (config.needs_llm if need_llm is None else need_llm):
            return cls(NoLLM(llm))
        if llm.base_url:
            check_endpoint(llm.base_url)
            return cls(LLMClient(llm))
        split = llm.embedded_split_lead
        threads = max(1, llm.embedded_threads // 2) if split else llm.embedded_threads

        def server(ram_cache: bool, slots: int) -> EmbeddedLlamaServer:
            return EmbeddedLlamaServer(
                llm.model_path,
                n_ctx=llm.n_ctx,
                ram_cache=ram_cache,
                threads=threads,
                chat_template=llm.embedded_chat_template,
                slots=slots,
            )

        shared = server(llm.embedded_ram_cache, SLOTS)
        engines = cls(LLMClient(llm, shared.start()), shared)
        if split:
            # One role per lead server: its prefix stays in its one KV slot, no RAM cache needed.
            engines.lead_server = server(ram_cache=False, slots=1)
            try:
                engines.lead = LLMClient(llm, engines.lead_server.start())
            except Exception:
                shared.stop()
                raise
        return engines

    async def close(self) -> None:
        for client in (self.llm, self.lead):
            if client is not None:
                await client.close()
        for server in (self.server, self.lead_server):
            if server is not None:
                server.stop()


def describe_llm(config: CoachConfig) -> str:
    """What `Engines.start(config)` starts, in words (the start-up lines of `chat` and `serve`)."""
    llm = config.llm
    if not config.needs_llm:
        return "LLM: none (this configuration makes no LLM call)"
    if llm.base_url:
        return f"LLM: {llm.model} at {llm.base_url}"
    servers = "two llama.cpp servers" if llm.embedded_split_lead else "one llama.cpp server"
    model = Path(llm.model_path).name if llm.model_path else "SmolLM2-135M"
    return f"LLM: {servers} on {model} (for {', '.join(sorted(config.llm_roles))})"


async def prewarm(
    engines: Engines,
    pack: Pack,
    configs: Iterable[CoachConfig],
    first_token_timeout_s: float = PREWARM_TIMEOUT_S,
) -> None:
    """Session-open prewarm (paper A.5): put each LLM role's static prefix in the KV cache,
    so the player's first turn does not pay the cold prompt (~1.7k tokens for W1).

    One call per role the `configs` call (`CoachConfig.llm_roles`; a benchmark that runs every
    configuration warms them all at once); `first_token_timeout_s` is that call's patience, since
    a cold prefix is slow."""
    first, rest = engines.first, engines.llm

    def system(prompt: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": prompt}, {"role": "user", "content": "hi"}]

    prompts: dict[str, Callable[[], list[dict[str, str]]]] = {
        "w1": lambda: w1_messages(pack, "hi"),
        "planner": lambda: system(planner_system_prompt(pack)),
        "w2": lambda: system(slot_prompt(pack)),
        "talker": lambda: system(talker_system_prompt(pack)),
    }
    calls: list[tuple[LLMClient, str, list[dict[str, str]]]] = []
    for config in configs:
        for role in (r for r in prompts if r in config.llm_roles):
            # The turn's first call goes to `first`: W1, the planner, or prompting's one reply.
            lead = role in ("w1", "planner") or config.mode == "prompting"
            calls.append((first if lead else rest, role, prompts[role]()))
    warmed: set[tuple[int, str]] = set()
    for llm, role, messages in calls:
        key = (id(llm), messages[0]["content"])
        if key in warmed:  # a role shared by two modes on the same server is warm already
            continue
        warmed.add(key)
        try:
            await llm.complete(messages, max_tokens=1, first_token_timeout_s=first_token_timeout_s, role=role)
        except LLMError as err:  # a cold first turn is slower, not broken
            logger.warning(f"prewarm failed: {err}")
