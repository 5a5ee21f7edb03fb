"""The shared piper threads: a turn's first phrase on a lane of its own, the later phrases on
another at a lower CPU priority, each on one onnxruntime thread."""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from voicecoach.coach.speech_config import SpeechConfig, piper_voice_path
from voicecoach.pipelines.speech.voice import LATER_PHRASES_NICE, TTSLanes, piper_voice


async def test_a_first_phrase_never_waits_behind_a_later_one_and_cancelled_jobs_never_run() -> None:
    lanes = TTSLanes.start()
    release, ran = threading.Event(), []
    try:
        busy = asyncio.create_task(lanes.run(False, release.wait))  # a later phrase holds its lane
        await asyncio.sleep(0.05)
        waiting = asyncio.create_task(lanes.run(False, ran.append, "later"))
        gone = asyncio.create_task(lanes.run(False, ran.append, "cancelled"))
        async with asyncio.timeout(2):  # while the later lane is held
            await lanes.run(True, ran.append, "first")
        await asyncio.sleep(0.05)
        gone.cancel()
        # The cancel reaches the executor's queue through the loop: let it run before the lane
        # frees (under CPU load the worker thread could otherwise take the job first).
        await asyncio.sleep(0.05)
        release.set()
        await asyncio.gather(busy, waiting)
        assert ran == ["first", "later"]
        assert gone.cancelled()
    finally:
        release.set()
        lanes.shutdown()


async def test_the_later_phrases_run_at_a_lower_cpu_priority_than_the_first() -> None:
    lanes = TTSLanes.start()

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    try:
        first, later = await lanes.run(True, nice), await lanes.run(False, nice)
        assert later == min(first + LATER_PHRASES_NICE, 19)
    finally:
        lanes.shutdown()


def test_two_threads_sharing_the_voice_say_what_one_says() -> None:
    """The lanes' two threads synthesise with one voice at once: espeak-ng's global state is
    behind a lock, onnxruntime's session is safe. Piper samples noise (its output differs a
    little from run to run), so the same phonemes and about the same length of speech."""
    voice = piper_voice(piper_voice_path(None), 1)
    texts = [f"Lead with your strongest counter, number {i}, and keep the tank back." for i in range(6)]

    def say(text: str) -> tuple[list[list[str]], int]:
        return voice.phonemize(text), sum(len(c.audio_int16_bytes) for c in voice.synthesize(text))

    alone = [say(t) for t in texts]
    with ThreadPoolExecutor(max_workers=2) as pool:
        together = list(pool.map(say, texts))
    assert [p for p, _ in together] == [p for p, _ in alone]
    for (_, n), (_, m) in zip(together, alone, strict=True):
        assert abs(n - m) < 0.1 * m, (n, m)


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

    from voicecoach.pipelines.speech.voice import EmbeddedPiperTTSService, PhraseFrame

    path = piper_voice_path(None)
    lanes = TTSLanes.start()
    busy = threading.Event()
    lanes.first.submit(busy.wait, 10.0)  # another session's first phrase holds the lane ...
    threading.Timer(1.5, busy.set).start()  # ... for 1.5 s, three times the context's timeout
    tts = EmbeddedPiperTTSService(
        path, warm=False, voice=piper_voice(path, 1), lanes=lanes,
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
        lanes.shutdown()
    errors = [f.error for f in (*down, *up) if isinstance(f, ErrorFrame)]
    assert errors == [], errors
    audio = [i for i, f in enumerate(down) if isinstance(f, TTSAudioRawFrame)]
    stops = [i for i, f in enumerate(down) if isinstance(f, TTSStoppedFrame)]
    assert audio and stops and stops[0] > audio[-1]  # one context: its stop after all its audio
