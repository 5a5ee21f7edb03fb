"""`python -m voicecoach.pipelines.bench_stt`: Whisper's decoding options, latency and WER on the fixtures.

    python -m voicecoach.pipelines.bench_stt [--fixtures audio_fixtures] [--repeat 1]

Transcribes every fixture utterance (the whole WAV: the speech with its lead-in and tail of
silence, about what the VAD hands the segmented STT) with the embedded Whisper model
(`pipelines/speech.py`: tiny.en int8, `SpeechConfig.stt` threads) under each option set of
OPTIONS, in turn per utterance so a change of load falls on all alike. Prints, per option set,
the decode time p50 / p90 and the mean WER against the fixtures' transcripts
(`voicecoach.latency.wer`). No Pipecat pipeline runs: this is the STT stage alone.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from voicecoach.fixtures import discover, load_audio
from voicecoach.latency import percentile, wer
from voicecoach.pack import load_pack
from voicecoach.speech import SpeechConfig, whisper_model_path

# name -> faster-whisper transcribe() options; "current" is what EmbeddedWhisperSTTService decodes with.
OPTIONS: dict[str, dict[str, Any]] = {
    "current: beam 1, no timestamps, pack-name prompt": {
        "beam_size": 1,
        "without_timestamps": True,
        "prompt": True,
    },
    "beam 5": {"beam_size": 5, "without_timestamps": True, "prompt": True},
    "with timestamps": {"beam_size": 1, "without_timestamps": False, "prompt": True},
    "no prompt": {"beam_size": 1, "without_timestamps": True, "prompt": False},
    "hotwords instead of the prompt": {"beam_size": 1, "without_timestamps": True, "hotwords": True},
}


def main(argv: list[str] | None = None) -> int:
    from faster_whisper import WhisperModel

    from voicecoach.pipelines.speech import NO_SPEECH_PROB, whisper_prompt

    parser = argparse.ArgumentParser(prog="bench_stt", description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", default="audio_fixtures")
    parser.add_argument("--repeat", type=int, default=1, help="decodes per utterance and option set")
    args = parser.parse_args(argv)
    stt = SpeechConfig().stt
    model = WhisperModel(whisper_model_path(stt.model_path), device=stt.device, compute_type=stt.compute_type,
                         cpu_threads=stt.cpu_threads)  # fmt: skip
    sessions, errors = discover(Path(args.fixtures))
    for error in errors:
        print(f"skipped: {error}", file=sys.stderr)
    prompt = whisper_prompt(load_pack(sessions[0].pack_id))
    names = prompt.removeprefix("Pets: ").rstrip(".")
    times: dict[str, list[float]] = {name: [] for name in OPTIONS}
    wers: dict[str, list[float]] = {name: [] for name in OPTIONS}
    model.transcribe(load_audio(sessions[0].audio_path(sessions[0].turns[0])), language="en")  # warm up
    for session in sessions:
        for turn in session.turns:
            audio = load_audio(session.audio_path(turn))
            for name, o in OPTIONS.items():
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    segments, _info = model.transcribe(
                        audio, language="en", beam_size=o["beam_size"],
                        without_timestamps=o["without_timestamps"],
                        initial_prompt=prompt if o.get("prompt") else None,
                        hotwords=names if o.get("hotwords") else None, condition_on_previous_text=False,
                    )  # fmt: skip
                    text = "".join(f"{s.text} " for s in segments if s.no_speech_prob < NO_SPEECH_PROB)
                    times[name].append((time.perf_counter() - started) * 1000.0)
                wers[name].append(wer(turn.transcript, text))
    print(f"{sum(len(s.turns) for s in sessions)} utterances, Whisper {stt.model_path or 'tiny.en'} "
          f"{stt.compute_type}, {stt.cpu_threads} threads\n")  # fmt: skip
    print("| options | decode p50 ms | p90 ms | mean WER |\n|---|---|---|---|")
    for name in OPTIONS:
        t, w = times[name], wers[name]
        print(f"| {name} | {percentile(t, 50):.0f} | {percentile(t, 90):.0f} | {sum(w) / len(w):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
