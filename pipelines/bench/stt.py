"""`python -m voicecoach.pipelines.bench.stt`: Whisper's decoding options, latency and WER on the fixtures.

    python -m voicecoach.pipelines.bench.stt [--fixtures audio_fixtures] [--repeat 1] [--pieces]
    python -m voicecoach.pipelines.bench.stt --names

With `--names`: the name levers instead, per pack (each pack's fixtures on their own states): the
pack-name prompt or the live state's (`state_prompt`), each with and without the lexicon repair
(`voicecoach.perception.lexicon`, the session's last two transcripts as context), with WER and the
references' names heard right; then the repair's false rewrites over every clean phrase of the pack
and its time per utterance.

Transcribes every fixture utterance with the embedded Whisper model (`pipelines/speech/whisper.py`:
tiny.en int8, `SpeechConfig.stt` threads) under each option set of OPTIONS, in turn per utterance
so a change of load falls on all alike. By default an utterance is its whole WAV (the speech with
its lead-in and tail of silence, about what the VAD hands the segmented STT). With `--pieces` it is
what the server's STT decodes for it: the WAV goes through the real Silero VAD and the silence-onset
STT (`SilenceOnsetVADProcessor`, `EmbeddedWhisperSTTService` with `at_silence_onset`), and every
piece handed to a decode is kept: the speech so far at each silence onset (dropped when speech
resumed; the segment's transcript when the VAD then stopped) and any segment decoded after the
stop. The WER is then on the used pieces' transcripts joined as TurnGate joins them.

Prints, per option set, the decode time p50 / p90 (per piece), the CPU time per utterance (all of
Whisper's threads: what a loaded server pays; with `--pieces`, every piece's, the dropped ones
included, as an idle server runs them), the mean WER against the fixtures' transcripts
(`voicecoach.core.latency.wer`), how many utterances' transcripts differ from the current options',
and how many decodes tried a second temperature (faster-whisper's fallback; with `--pieces`, on
used / dropped pieces), then the current options' decodes that fell back with their words. No
Pipecat pipeline runs but the cutting: this is the STT stage alone.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from voicecoach.bench.fixtures import discover, load_audio
from voicecoach.coach.speech_config import SpeechConfig
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.core.latency import percentile, wer
from voicecoach.domain.pack import load_pack

if TYPE_CHECKING:
    from pipecat.frames.frames import Frame

# name -> faster-whisper transcribe() options (and the encoder window's step, `window_step_s`: 30 is
# faster-whisper's fixed 30 s window); "current" is what EmbeddedWhisperSTTService decodes with
# (`STTConfig`'s beam size and temperatures).
CURRENT = "current: beam 5, no timestamps, pack-name prompt, fitted window, temperature 0 only"
_STT = SpeechConfig().stt
_BASE = {
    "beam_size": _STT.beam_size,
    "without_timestamps": True,
    "prompt": True,
    "temperature": _STT.temperatures,
}
OPTIONS: dict[str, dict[str, Any]] = {
    CURRENT: _BASE,
    "faster-whisper's six fallback temperatures (0, 0.2 ... 1)": {
        **_BASE,
        "temperature": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
    },
    "fallback temperatures 0, 0.4": {**_BASE, "temperature": [0.0, 0.4]},
    "the 30 s window (faster-whisper's)": {**_BASE, "window_step_s": 30.0},
    "greedy (beam 1)": {**_BASE, "beam_size": 1},
    "with timestamps": {**_BASE, "without_timestamps": False},
    "no prompt": {**_BASE, "prompt": False},
    "hotwords instead of the prompt": {**_BASE, "prompt": False, "hotwords": True},
}
RATE = 16000

Pieces = list[tuple[np.ndarray, bool]]  # (float32 audio at 16 kHz, its transcript is used)


def main(argv: list[str] | None = None) -> int:
    from voicecoach.pipelines.speech.voice import (
        MAX_TOKENS_PER_S,
        NO_SPEECH_PROB,
        whisper_model,
        whisper_prompt,
    )

    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter, prog="bench_stt", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--fixtures", default="audio_fixtures")
    parser.add_argument("--repeat", type=int, default=1, help="decodes per utterance and option set")
    parser.add_argument("--pieces", action="store_true", help="the pieces the server's STT decodes")
    parser.add_argument("--names", action="store_true", help="the name levers: state prompt, lexicon repair")
    args = parser.parse_args(argv)
    if args.names:
        return names_bench()
    speech = SpeechConfig()
    stt = speech.stt
    model = whisper_model(speech)
    sessions, errors = discover(Path(args.fixtures))
    for error in errors:
        print(f"skipped: {error}", file=sys.stderr)
    prompt = whisper_prompt(load_pack(sessions[0].pack_id))
    names = prompt.removeprefix("Pets: ").rstrip(".")
    turns = [
        (turn.transcript, load_audio(session.audio_path(turn)))
        for session in sessions
        for turn in session.turns
    ]
    utterances = [
        (ref, server_pieces(audio, speech) if args.pieces else [(audio, True)]) for ref, audio in turns
    ]
    times: dict[str, list[float]] = {name: [] for name in OPTIONS}
    cpu: dict[str, float] = dict.fromkeys(OPTIONS, 0.0)
    wers: dict[str, list[float]] = {name: [] for name in OPTIONS}
    texts: dict[str, list[str]] = {name: [] for name in OPTIONS}
    # (utterance, piece used, tried a second temperature, words) per decode
    decodes: dict[str, list[tuple[int, bool, bool, str]]] = {name: [] for name in OPTIONS}
    generated = [0]  # CTranslate2 `generate` calls: one per temperature tried (one window here)
    generate = model.model.generate

    def counted(*args: Any, **kwargs: Any) -> Any:
        generated[0] += 1
        return generate(*args, **kwargs)

    model.model.generate = counted
    step = model.step
    model.transcribe(turns[0][1], language="en")  # warm up
    for i, (ref, pieces) in enumerate(utterances):
        heard: dict[str, list[str]] = {name: [] for name in OPTIONS}
        for audio, used in pieces:
            for name, o in OPTIONS.items():
                model.step = round(o.get("window_step_s", stt.window_step_s) * 100)
                for _ in range(args.repeat):
                    started, cpu_started, calls = time.perf_counter(), _cpu_s(), generated[0]
                    segments, _info = model.transcribe(
                        audio, language="en", beam_size=o["beam_size"], temperature=o["temperature"],
                        without_timestamps=o["without_timestamps"],
                        initial_prompt=prompt if o.get("prompt") else None,
                        hotwords=names if o.get("hotwords") else None, condition_on_previous_text=False,
                        max_new_tokens=int(MAX_TOKENS_PER_S * len(audio) / RATE) + 16,
                    )  # fmt: skip
                    text = "".join(f"{s.text} " for s in segments if s.no_speech_prob < NO_SPEECH_PROB)
                    times[name].append((time.perf_counter() - started) * 1000.0)
                    cpu[name] += _cpu_s() - cpu_started
                    decodes[name].append((i, used, generated[0] - calls > 1, text))
                if used:
                    heard[name].append(text)
        for name in OPTIONS:
            text = " ".join(t.strip() for t in heard[name] if t.strip())  # as TurnGate joins them
            wers[name].append(wer(ref, text))
            texts[name].append(text)
    model.step = step
    n_pieces = sum(len(p) for _, p in utterances)
    n_used = sum(used for _, p in utterances for _, used in p)
    counted_pieces = f", {n_pieces} pieces ({n_used} used)" if args.pieces else ""
    print(f"{len(utterances)} utterances{counted_pieces}, Whisper {stt.model_path or 'tiny.en'} "
          f"{stt.compute_type}, {stt.cpu_threads} threads\n")  # fmt: skip
    print("| options | decode p50 ms | p90 ms | CPU ms / utterance | mean WER | transcripts unlike current "
          f"| decodes that fell back{': used / dropped' if args.pieces else ''} |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name in OPTIONS:
        t, w = times[name], wers[name]
        differ = sum(a != b for a, b in zip(texts[name], texts[CURRENT], strict=True))
        fell_used = sum(fell and used for _, used, fell, _ in decodes[name])
        fell_dropped = sum(fell and not used for _, used, fell, _ in decodes[name])
        fell = f"{fell_used} / {fell_dropped} of {len(t)}" if args.pieces else f"{fell_used} / {len(t)}"
        cpu_ms = cpu[name] * 1000 / (len(w) * args.repeat)
        print(f"| {name} | {percentile(t, 50):.0f} | {percentile(t, 90):.0f} | {cpu_ms:.0f} "
              f"| {sum(w) / len(w):.3f} | {differ} / {len(w)} | {fell} |")  # fmt: skip
    for name in OPTIONS:
        fallbacks = [(i, used, text) for i, used, fell, text in decodes[name] if fell]
        if fallbacks:
            print(f"\n{name}: decodes that fell back (reference, piece used, words)")
        for i, used, text in fallbacks:
            print(f"- {utterances[i][0]!r}, {'used' if used else 'dropped'}: {text.strip()!r}")
    return 0


def names_bench() -> int:
    """The name levers on each pack's fixtures (`--names`): a table row per prompt and repair."""
    from voicecoach.bench.lexicon import FIXTURES, clean_phrases, fixture_sessions, names_right
    from voicecoach.domain.entities import link_entities
    from voicecoach.perception.lexicon import Lexicon, repair, suggest
    from voicecoach.pipelines.speech.voice import (
        MAX_TOKENS_PER_S,
        NO_SPEECH_PROB,
        state_prompt,
        tokens_of,
        whisper_model,
        whisper_prompt,
    )

    speech = SpeechConfig()
    stt = speech.stt
    model = whisper_model(speech)
    count = tokens_of(model)
    model_name = stt.model_path or "tiny.en"
    print(f"Whisper {model_name} {stt.compute_type}, beam {stt.beam_size}, {stt.cpu_threads} threads\n")
    print("| pack | prompt | repair | mean WER | names right | repairs | asked (right name) |")
    print("|---|---|---|---|---|---|---|")
    timing: list[str] = []
    for pack_id in FIXTURES:
        pack = load_pack(pack_id)
        lexicon = Lexicon.of(pack)
        static = whisper_prompt(pack)
        rows: dict[tuple[str, bool], list[tuple[float, int, int, int, int, int]]] = {}
        for session in fixture_sessions(pack):
            recent: dict[str, list[str]] = {"pack": [], "state": []}
            for turn, state in zip(session.turns, session.states(), strict=True):
                audio = load_audio(session.audio_path(turn))
                for prompt_name, prompt in (("pack", static), ("state", state_prompt(pack, state, count))):
                    segments, _ = model.transcribe(
                        audio, language="en", beam_size=stt.beam_size, temperature=stt.temperatures,
                        without_timestamps=True, initial_prompt=prompt, condition_on_previous_text=False,
                        max_new_tokens=int(MAX_TOKENS_PER_S * len(audio) / RATE) + 16,
                    )  # fmt: skip
                    heard = "".join(
                        f"{x.text} " for x in segments if x.no_speech_prob < NO_SPEECH_PROB
                    ).strip()
                    fixed = repair(lexicon, heard, recent[prompt_name][-2:])
                    recent[prompt_name].append(fixed.text)
                    said = {m.id for m in link_entities(pack, turn.transcript)}
                    for repaired, text in ((False, heard), (True, fixed.text)):
                        right, total = names_right(pack, turn.transcript, text)
                        changes = len(fixed.changes) if repaired else 0
                        guess = suggest(lexicon, text) if repaired else None  # "Did you mean X?"
                        hit = int(guess is not None and guess[1].id in said)
                        rows.setdefault((prompt_name, repaired), []).append(
                            (wer(turn.transcript, text), right, total, changes, int(guess is not None), hit)
                        )
        for (prompt_name, repaired), r in rows.items():
            mean = sum(x[0] for x in r) / len(r)
            right, total, changes, asked, asked_right = (sum(int(x[i]) for x in r) for i in (1, 2, 3, 4, 5))
            print(f"| {pack_id} | {prompt_name} | {'yes' if repaired else 'no'} | {mean:.3f} "
                  f"| {right} / {total} | {changes if repaired else '-'} "
                  f"| {f'{asked} ({asked_right})' if repaired else '-'} |")  # fmt: skip
        phrases = clean_phrases(pack)
        times, false, false_asks = [], 0, 0
        for _, text in phrases:
            started = time.perf_counter()
            false += bool(repair(lexicon, text).changes)
            times.append((time.perf_counter() - started) * 1000.0)
            false_asks += suggest(lexicon, text) is not None
        p50, p90 = percentile(times, 50), percentile(times, 90)
        timing.append(f"| {pack_id} | {len(phrases)} | {false} | {false_asks} | {p50:.2f} | {p90:.2f} |")
    print("\n| pack | clean phrases | false rewrites | false asks | repair p50 ms | p90 ms |")
    print("|---|---|---|---|---|---|")
    print("\n".join(timing))
    return 0


def server_pieces(audio: np.ndarray, speech: SpeechConfig) -> Pieces:
    """What the server's STT hands Whisper for one utterance (`audio`, float32, then a second of
    silence as the microphone goes on): every piece `EmbeddedWhisperSTTService._decode` is given
    behind the real VAD, and whether its transcript is the one a segment reports."""
    import asyncio
    import threading

    from pipecat.frames.frames import InputAudioRawFrame
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.services.settings import STTSettings
    from pipecat.tests.utils import SleepFrame, run_test
    from pipecat.transcriptions.language import Language

    from voicecoach.pipelines.speech.voice import (
        EmbeddedWhisperSTTService,
        SilenceOnsetVADProcessor,
        vad_analyzer,
    )

    class Recording(EmbeddedWhisperSTTService):
        """Notes the pieces it is asked to decode and decodes none: the bench decodes them after."""

        def __init__(self) -> None:
            super().__init__(
                None,
                warm=False,
                at_silence_onset=True,
                settings=STTSettings(model=None, language=Language.EN),
            )
            self.decoded: list[bytes] = []
            self.used: list[bytes] = []

        def _decode(self, pcm: bytes, abandon: threading.Event | None = None) -> asyncio.Future[str]:
            self.decoded.append(pcm)
            future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
            future.set_result("")
            return future

        async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame, None]:
            self.used.append(audio)  # the onset's piece itself when the VAD stopped after it
            async for frame in super().run_stt(audio):
                yield frame

    pcm = np.concatenate([np.clip(audio, -1.0, 1.0) * 32767, np.zeros(RATE)]).astype(np.int16)
    chunk = RATE // 50  # the microphone's 20 ms frames
    frames = [
        InputAudioRawFrame(audio=pcm[i : i + chunk].tobytes(), sample_rate=RATE, num_channels=1)
        for i in range(0, len(pcm) - chunk + 1, chunk)
    ]
    stt = Recording()
    vad = SilenceOnsetVADProcessor(vad_analyzer=vad_analyzer(speech))
    asyncio.run(run_test(Pipeline([vad, stt]), frames_to_send=[*frames, SleepFrame(0.2)]))
    return [
        (np.frombuffer(p, dtype=np.int16).astype(np.float32) / 32768.0, any(p is u for u in stt.used))
        for p in stt.decoded
    ]


def _cpu_s() -> float:
    """CPU seconds of this process so far: Whisper's own threads included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    sys.exit(main())
