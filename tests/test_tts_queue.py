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


async def test_a_phrase_waiting_for_the_shared_piper_thread_keeps_its_audio_context_open() -> None:
    """Under load a phrase waits seconds for the one piper thread. Pipecat ends an audio context
    that gets nothing for `stop_frame_timeout_s` and tells the client "completed with no audio";
    the wait is not silence, so the context is kept open and the phrase is spoken in it."""
    from pipecat.frames.frames import (
        ErrorFrame,
        LLMFullResponseEndFrame,
        LLMFullResponseStartFrame,
        TTSAudioRawFrame,
        TTSStoppedFrame,
    )
    from pipecat.tests.utils import SleepFrame, run_test
    from pipecat.utils.text.base_text_aggregator import TextType

    from voicecoach.pipelines.speech import EmbeddedPiperTTSService, PhraseFrame

    path = piper_voice_path(None)
    executor = ThreadPoolExecutor(max_workers=1)
    busy = threading.Event()
    executor.submit(busy.wait, 10.0)  # another session's phrase holds the thread ...
    threading.Timer(1.5, busy.set).start()  # ... for 1.5 s, three times the context's timeout
    tts = EmbeddedPiperTTSService(
        path, warm=False, voice=piper_voice(path, 1), queue=FirstPhraseFirst(executor),
        stop_frame_timeout_s=0.5, sample_rate=22050,
    )  # fmt: skip
    try:
        down, up = await run_test(
            tts,
            frames_to_send=[
                LLMFullResponseStartFrame(),
                PhraseFrame("Keep the tank back.", TextType.SENTENCE),
                LLMFullResponseEndFrame(),
                SleepFrame(4.0),
            ],
        )
    finally:
        executor.shutdown(wait=True)
    errors = [f.error for f in (*down, *up) if isinstance(f, ErrorFrame)]
    assert errors == [], errors
    audio = [i for i, f in enumerate(down) if isinstance(f, TTSAudioRawFrame)]
    stops = [i for i, f in enumerate(down) if isinstance(f, TTSStoppedFrame)]
    assert audio and stops and stops[0] > audio[-1]  # one context: its stop after all its audio
