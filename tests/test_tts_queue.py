"""The shared piper thread runs a turn's first phrase before the other phrases waiting for it."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from voicecoach.pipelines.speech import FirstPhraseFirst


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
