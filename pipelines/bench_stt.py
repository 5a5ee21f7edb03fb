"""`python -m voicecoach.pipelines.bench_stt`: Whisper's decoding options, latency and WER on the fixtures.

    python -m voicecoach.pipelines.bench_stt [--fixtures audio_fixtures] [--repeat 1]

Transcribes every fixture utterance (the whole WAV: the speech with its lead-in and tail of
silence, about what the VAD hands the segmented STT) with the embedded Whisper model
(`pipelines/whisper.py`: tiny.en int8, `SpeechConfig.stt` threads) under each option set of
OPTIONS, in turn per utterance so a change of load falls on all alike. Prints, per option set,
the decode time p50 / p90, the CPU time per utterance (all of Whisper's threads: what a loaded
server pays), the mean WER against the fixtures' transcripts (`voicecoach.latency.wer`) and how
many transcripts differ from the current options'. No Pipecat pipeline runs: this is the STT
stage alone.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path
from typing import Any

from voicecoach.fixtures import discover, load_audio
from voicecoach.latency import percentile, wer
from voicecoach.pack import load_pack
from voicecoach.speech import SpeechConfig

# name -> faster-whisper transcribe() options (and the encoder window's step, `window_step_s`: 30 is
# faster-whisper's fixed 30 s window); "current" is what EmbeddedWhisperSTTService decodes with.
CURRENT = "current: beam 1, no timestamps, pack-name prompt, fitted window"
OPTIONS: dict[str, dict[str, Any]] = {
    CURRENT: {"beam_size": 1, "without_timestamps": True, "prompt": True},
    "the 30 s window (faster-whisper's)": {
        "beam_size": 1,
        "without_timestamps": True,
        "prompt": True,
        "window_step_s": 30.0,
    },
    "beam 5": {"beam_size": 5, "without_timestamps": True, "prompt": True},
    "with timestamps": {"beam_size": 1, "without_timestamps": False, "prompt": True},
    "no prompt": {"beam_size": 1, "without_timestamps": True, "prompt": False},
    "hotwords instead of the prompt": {"beam_size": 1, "without_timestamps": True, "hotwords": True},
}


def main(argv: list[str] | None = None) -> int:
    from voicecoach.pipelines.speech import NO_SPEECH_PROB, whisper_model, whisper_prompt

    parser = argparse.ArgumentParser(prog="bench_stt", description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", default="audio_fixtures")
    parser.add_argument("--repeat", type=int, default=1, help="decodes per utterance and option set")
    args = parser.parse_args(argv)
    speech = SpeechConfig()
    stt = speech.stt
    model = whisper_model(speech)
    sessions, errors = discover(Path(args.fixtures))
    for error in errors:
        print(f"skipped: {error}", file=sys.stderr)
    prompt = whisper_prompt(load_pack(sessions[0].pack_id))
    names = prompt.removeprefix("Pets: ").rstrip(".")
    times: dict[str, list[float]] = {name: [] for name in OPTIONS}
    cpu: dict[str, float] = dict.fromkeys(OPTIONS, 0.0)
    wers: dict[str, list[float]] = {name: [] for name in OPTIONS}
    texts: dict[str, list[str]] = {name: [] for name in OPTIONS}
    step = model.step
    model.transcribe(load_audio(sessions[0].audio_path(sessions[0].turns[0])), language="en")  # warm up
    for session in sessions:
        for turn in session.turns:
            audio = load_audio(session.audio_path(turn))
            for name, o in OPTIONS.items():
                model.step = round(o.get("window_step_s", stt.window_step_s) * 100)
                for _ in range(args.repeat):
                    started, cpu_started = time.perf_counter(), _cpu_s()
                    segments, _info = model.transcribe(
                        audio, language="en", beam_size=o["beam_size"],
                        without_timestamps=o["without_timestamps"],
                        initial_prompt=prompt if o.get("prompt") else None,
                        hotwords=names if o.get("hotwords") else None, condition_on_previous_text=False,
                    )  # fmt: skip
                    text = "".join(f"{s.text} " for s in segments if s.no_speech_prob < NO_SPEECH_PROB)
                    times[name].append((time.perf_counter() - started) * 1000.0)
                    cpu[name] += _cpu_s() - cpu_started
                wers[name].append(wer(turn.transcript, text))
                texts[name].append(text)
    model.step = step
    print(f"{sum(len(s.turns) for s in sessions)} utterances, Whisper {stt.model_path or 'tiny.en'} "
          f"{stt.compute_type}, {stt.cpu_threads} threads\n")  # fmt: skip
    print("| options | decode p50 ms | p90 ms | CPU ms / utterance | mean WER | transcripts unlike current |")
    print("|---|---|---|---|---|---|")
    for name in OPTIONS:
        t, w = times[name], wers[name]
        differ = sum(a != b for a, b in zip(texts[name], texts[CURRENT], strict=True))
        cpu_ms = cpu[name] * 1000 / len(t)
        print(f"| {name} | {percentile(t, 50):.0f} | {percentile(t, 90):.0f} | {cpu_ms:.0f} "
              f"| {sum(w) / len(w):.3f} | {differ} / {len(w)} |")  # fmt: skip
    return 0


def _cpu_s() -> float:
    """CPU seconds of this process so far: Whisper's own threads included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    sys.exit(main())
