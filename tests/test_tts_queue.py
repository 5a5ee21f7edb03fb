"""The shared piper thread runs a turn's first phrase before the other phrases waiting for it,
on one onnxruntime thread."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from voicecoach.pipelines.speech import FirstPhraseFirst, piper_voice
from voicecoach.speech import SpeechConfig, piper_voice_path


async def test_a_first_phrase_goes_ahead_of_the_phrases_waiting_and_cancelled_ones_are_skipped() -> None:
    executor = ThreadPoolExecutor(max_workers=1)
    queue = FirstPhraseFirst(executor)
    release, ran = threading.Event(), []
    try:
        busy = asyncio.create_task(queue.run(False, release.wait))  # the job running: never cut
        await asyncio.sleep(0.05)
        later = [asyncio.create_task(queue.run(False, ran.append, f"later-{i}")) for i in range(2)]
        gone = asyncio.create_task(queue.run(False, ran.append, "cancelled"))
        await asyncio.sleep(0.05)
        first = asyncio.create_task(queue.run(True, ran.append, "first"))
        await asyncio.sleep(0.05)
        gone.cancel()
        release.set()
        await asyncio.gather(busy, first, *later)
        assert ran == ["first", "later-0", "later-1"]
        assert gone.cancelled()
        assert await queue.run(True, sum, [1, 2]) == 3  # the queue is free again
    finally:
        release.set()
        executor.shutdown(wait=True)


def test_the_servers_piper_voice_runs_on_one_thread_and_says_the_same() -> None:
    """SpeechEngines' piper on one onnxruntime thread (TTSConfig.threads): piper's own loader
    takes one per core. The audio is the same, sample for sample."""
    path = piper_voice_path(None)
    own, shared = piper_voice(path), piper_voice(path, SpeechConfig().tts.threads)
    assert shared.session.get_session_options().intra_op_num_threads == 1
    assert own.session.get_session_options().intra_op_num_threads == 0  # onnxruntime's default
    text = "Lead with your strongest counter and keep the tank back."
    assert b"".join(c.audio_int16_bytes for c in shared.synthesize(text)) == b"".join(
        c.audio_int16_bytes for c in own.synthesize(text)
    )
