"""The runtime guard's cost per sentence: `voicecoach bench guard [FILE] [--pack NAME]`.

FILE is a text file, one reply per line (e.g. replies pulled from a `bench quality` turns.jsonl);
without it, the calibration set's replies (tests/fixtures/calibration.jsonl) are used. The
sentences are judged against the pack's example state by `voicecoach.talker.checker.check_sentence`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from voicecoach.bench.coachbench.metrics import percentile
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.core.state import load_state
from voicecoach.domain.pack import DEFAULT_PACK, Pack, load_pack
from voicecoach.talker.checker import check_sentence
from voicecoach.talker.rules import CheckContext
from voicecoach.talker.speakable import pack_example_state, split_sentences

CALIBRATION = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "calibration.jsonl"


def bench_sentences(pack: Pack, sentences: Sequence[str], ctx: CheckContext) -> dict[str, float]:
    """check_sentence's cost over `sentences` (each after the previous two), in ms: p50 / p90 / max."""
    check_sentence(pack, "warm up.", ctx, [])  # patterns and the word list load once, not per sentence
    times = []
    for i, s in enumerate(sentences):
        began = time.perf_counter()
        check_sentence(pack, s, ctx, sentences[max(0, i - 2) : i])
        times.append((time.perf_counter() - began) * 1000.0)
    return {
        "sentences": float(len(times)),
        "p50_ms": percentile(times, 50),
        "p90_ms": percentile(times, 90),
        "max_ms": max(times),
    }


def main(argv: Sequence[str] | None = None, prog: str = "python -m voicecoach.bench.checker") -> int:
    """check_sentence's cost per sentence, printed (see the module's docstring)."""
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog=prog,
        description="the runtime guard's cost per sentence (check_sentence)",
    )
    parser.add_argument("file", nargs="?", help="replies, one a line (default: the calibration set's)")
    parser.add_argument("--pack", default=DEFAULT_PACK, help=f"game pack (default {DEFAULT_PACK})")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    pack = load_pack(args.pack)
    if args.file:
        replies = Path(args.file).read_text(encoding="utf-8").splitlines()
    else:
        lines = CALIBRATION.read_text(encoding="utf-8").splitlines()
        replies = [json.loads(line)["reply"] for line in lines if line]
    sentences = [s for r in replies if isinstance(r, str) for s in split_sentences(r)]
    example = pack_example_state(pack)
    if example is None:
        raise SystemExit(f"pack {pack.pack_id} has no example_state.json to judge sentences against")
    ctx = CheckContext.live(pack, load_state(example), "what should i field against them")
    figures = bench_sentences(pack, sentences, ctx)
    print(
        f"check_sentence over {int(figures['sentences'])} sentences: p50 {figures['p50_ms']:.2f} ms, "
        f"p90 {figures['p90_ms']:.2f} ms, max {figures['max_ms']:.2f} ms (budget 5 ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
