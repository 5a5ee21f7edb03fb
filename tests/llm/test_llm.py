"""LLMClient against the scripted OpenAI-compatible server: first-token timeouts."""

from __future__ import annotations

import pytest

from voicecoach.llm.client import LLMClient, LLMConfig, LLMError
from voicecoach.testing.scripted_llm import Script, ScriptedLLMServer

MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]


@pytest.mark.parametrize("late_headers", [False, True])
async def test_no_first_token_in_time_is_a_stall_whenever_the_headers_come(late_headers: bool) -> None:
    # llama-server sends its headers only with the first token: the wait is then inside create().
    async with ScriptedLLMServer([Script("ok", ttft_s=1.0, late_headers=late_headers)]) as server:
        llm = LLMClient(LLMConfig(base_url=server.base_url, first_token_timeout_s=0.2))
        with pytest.raises(LLMError, match=r"stalled: no token within 0\.2s"):
            await llm.complete(MESSAGES)
        await llm.close()


async def test_a_call_may_wait_longer_for_its_first_token_than_the_config_says() -> None:
    # The session-open prewarm: a cold prefix takes seconds, a turn's first token must not.
    async with ScriptedLLMServer([Script("warm", ttft_s=0.5, late_headers=True)]) as server:
        llm = LLMClient(LLMConfig(base_url=server.base_url, first_token_timeout_s=0.2))
        assert await llm.complete(MESSAGES, first_token_timeout_s=5.0) == "warm"
        await llm.close()
