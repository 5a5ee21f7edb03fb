"""The intent prior's training and figures (`voicecoach.perception.prior` is the runtime side:
inference only).

    python -m voicecoach.bench.prior train --pack pet_arena   # writes voicecoach/packs/pet_arena/prior.json
    python -m voicecoach.bench.prior train --path FOLDER      # a pack folder elsewhere: FOLDER/prior.json
    python -m voicecoach.bench.prior confusions --pack ID     # out-of-fold confusions (weakest pairs first)
    python -m voicecoach.bench.prior bench --pack ID          # the figures (also `voicecoach bench prior`)

Training (scikit-learn, a dev dependency): a multinomial logistic regression over the features of
`voicecoach.perception.prior.features`, learnt on the pack's training data and their filler variants; its top
probability is calibrated by isotonic regression fitted on out-of-fold predictions, and the prefill
threshold is the lowest calibrated confidence at which those held-out predictions are still right
at least `TARGET_PRECISION` of the time. Sorted inputs, fixed folds, rounded floats: the same bytes
every run. Nothing here trains on CoachBench or the audio fixtures: they, and the blind held-out
utterances, are the test sets the figures are measured on.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voicecoach.bench.coachbench.generator import DEFAULT_SEED, generate
from voicecoach.bench.coachbench.metrics import percentile
from voicecoach.bench.fixtures import discover
from voicecoach.core.console import DefaultsHelpFormatter
from voicecoach.domain.pack import Pack, load_pack, load_pack_from, pack_folder
from voicecoach.perception.prior import (
    FILLER_PREFIXES,
    FILLER_SUFFIXES,
    FORMAT,
    MIN_COUNT,
    C,
    Example,
    IntentPrior,
    LinearModel,
    PriorError,
    abstract_entities,
    bare_pairs,
    data_hash,
    features,
    normalise,
    prior_labels,
    prior_path,
    takes_fillers,
    training_data,
)

ROOT = Path(__file__).resolve().parents[2]  # the checkout: audio_fixtures/, tests/fixtures/
FOLDS = 5
SEED = 0
TARGET_PRECISION = 0.9  # held-out accuracy the prefill threshold must keep
DECIMALS = 5  # floats in prior.json are rounded, so the file does not depend on the last ulp


# --- training ------------------------------------------------------------------------------------


def with_fillers(
    abstracted: list[str], pairs: list[str], bare: frozenset[str] | None = None
) -> tuple[list[str], list[str]]:
    """The training rows plus their filler variants, chosen by the row's own text (crc32), so a
    row added to the pack leaves every other row's fillers, and so its weights, where they were.
    `bare`: the pairs without variants (`bare_pairs`); None: smalltalk's."""
    texts, labels = list(abstracted), list(pairs)
    for text, pair in zip(abstracted, pairs, strict=True):
        k = zlib.crc32(text.encode())
        if takes_fillers(pair, bare):
            texts += [normalise(f"{FILLER_PREFIXES[k % len(FILLER_PREFIXES)]} {text}"),
                      normalise(f"{text} {FILLER_SUFFIXES[k % len(FILLER_SUFFIXES)]}")]  # fmt: skip
            labels += [pair, pair]
    return texts, labels


def _folds(examples: Sequence[Example]) -> list[int]:
    """Stratified fold per example: each pair's examples are dealt round-robin after a seeded shuffle."""
    by_pair: dict[str, list[int]] = {}
    for i, ex in enumerate(examples):
        by_pair.setdefault(ex.pair, []).append(i)
    fold = [0] * len(examples)
    rng = random.Random(SEED)
    for pair in sorted(by_pair):
        idx = by_pair[pair]
        rng.shuffle(idx)
        for k, i in enumerate(idx):
            fold[i] = k % FOLDS
    return fold


def _fit(
    abstracted: list[str], pairs: list[str], labels: list[str], bare: frozenset[str] | None = None
) -> LinearModel:
    """Logistic regression on binary, length-normalised n-gram features (scikit-learn, training
    only), learnt on the rows and their filler variants. The vocabulary is counted on the rows
    alone, so MIN_COUNT is not met merely because a row's variants repeat its n-grams."""
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    counts = Counter(f for t in abstracted for f in features(t))
    counts.update(f for filler in FILLER_PREFIXES + FILLER_SUFFIXES for f in features(filler) * MIN_COUNT)
    vocab = sorted(f for f, n in counts.items() if n >= MIN_COUNT)
    abstracted, pairs = with_fillers(abstracted, pairs, bare)
    index = {f: i for i, f in enumerate(vocab)}
    rows = [[f for f in features(t) if f in index] for t in abstracted]
    data, ind, ptr = [], [], [0]
    for r in rows:
        ind += [index[f] for f in r]
        data += [1.0 / math.sqrt(max(len(r), 1))] * len(r)
        ptr.append(len(ind))
    x = csr_matrix((data, ind, ptr), shape=(len(rows), len(vocab)))
    y = np.array([labels.index(p) for p in pairs])
    model = LogisticRegression(C=C, max_iter=1000, tol=1e-4)
    # One BLAS thread: a multithreaded reduction may round differently from run to run (and on
    # two shared cores it is ~4x slower than one thread).
    with threadpool_limits(1):
        model.fit(x, y)
    # Every label is present in every training split (>= FOLDS examples per pair), so classes_ = labels.
    weights = np.zeros((len(vocab), len(labels)))
    weights[:, model.classes_] = model.coef_.T
    bias = np.full(len(labels), -1e3)
    bias[model.classes_] = model.intercept_
    return LinearModel(vocab, weights, bias)


def _isotonic(confidences: list[float], correct: list[bool]) -> tuple[list[float], list[float]]:
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0, increasing=True)
    iso.fit(np.array(confidences), np.array(correct, dtype=float))
    return [float(v) for v in iso.X_thresholds_], [float(v) for v in iso.y_thresholds_]


def _threshold(calibrated: list[float], correct: list[bool]) -> float:
    """The lowest calibrated confidence t such that held-out predictions at >= t are right at least
    TARGET_PRECISION of the time (so coverage is as large as the precision allows)."""
    order = sorted(zip(calibrated, correct, strict=True), key=lambda pc: -pc[0])
    best = 1.0
    hits = 0
    for k, (conf, ok) in enumerate(order, start=1):
        hits += ok
        # A threshold sits between distinct values: only accept t where the next item is lower.
        if (k == len(order) or order[k][0] < conf) and hits / k >= TARGET_PRECISION:
            best = conf
    return best


def _round(values: Any) -> Any:
    return np.round(np.asarray(values, dtype=float), DECIMALS).tolist()


def out_of_fold(
    examples: Sequence[Example],
    abstracted: list[str],
    labels: list[str],
    bare: frozenset[str] | None = None,
) -> list[tuple[str, float]]:
    """Each example's (guessed pair, top probability) from the model fitted on the other folds."""
    folds = _folds(examples)
    heldout: list[tuple[str, float]] = [("", 0.0)] * len(examples)
    for k in range(FOLDS):
        train_idx = [i for i, f in enumerate(folds) if f != k]
        model = _fit([abstracted[i] for i in train_idx], [examples[i].pair for i in train_idx], labels, bare)
        for i in (i for i, f in enumerate(folds) if f == k):
            p = model.probabilities(features(abstracted[i]))
            heldout[i] = (labels[int(p.argmax())], float(p.max()))
    return heldout


def confusions(pack: Pack, worst: int = 15) -> str:
    """Out-of-fold recall per Φ pair on the TRAINING data (weakest first) and what each weak pair is
    mistaken for, with the misread utterances: where new paraphrases or features are needed."""
    examples = training_data(pack)
    abstracted = [abstract_entities(pack, ex.text) for ex in examples]
    heldout = out_of_fold(examples, abstracted, prior_labels(pack), bare_pairs(pack))
    by_pair: dict[str, list[tuple[Example, str]]] = {}
    for ex, (guess, _) in zip(examples, heldout, strict=True):
        by_pair.setdefault(ex.pair, []).append((ex, guess))
    total = sum(ex.pair == g for rows in by_pair.values() for ex, g in rows)
    lines = [f"out-of-fold pair accuracy {100 * total / len(examples):.1f} % on {len(examples)} examples", ""]
    recall = {pair: sum(ex.pair == g for ex, g in rows) / len(rows) for pair, rows in by_pair.items()}
    for pair in sorted(recall, key=lambda p: (recall[p], p))[:worst]:
        rows = by_pair[pair]
        wrong = Counter(g for ex, g in rows if g != pair)
        taken = sum(g == pair for rows2 in by_pair.values() for ex, g in rows2 if ex.pair != pair)
        lines.append(
            f"{pair}: recall {100 * recall[pair]:.0f} % of {len(rows)}, taken for it {taken} times; "
            f"mistaken for {', '.join(f'{g} x{n}' for g, n in wrong.most_common())}"
        )
        lines += [f"    {ex.text!r} -> {g}" for ex, g in rows if g != pair]
    return "\n".join(lines)


def train(pack: Pack) -> dict[str, Any]:
    """Train the prior on the pack's data; the JSON document `IntentPrior` loads (deterministic)."""
    examples = training_data(pack)
    if not examples:
        raise PriorError(f"pack {pack.pack_id}: no training data (phi.json examples, paraphrases.json)")
    labels = prior_labels(pack)
    abstracted = [abstract_entities(pack, ex.text) for ex in examples]
    pairs = [ex.pair for ex in examples]
    heldout = out_of_fold(examples, abstracted, labels, bare_pairs(pack))
    oof_conf = [conf for _, conf in heldout]
    oof_ok = [guess == ex.pair for (guess, _), ex in zip(heldout, examples, strict=True)]
    iso_x, iso_y = _isotonic(oof_conf, oof_ok)
    calibrated = [float(np.interp(c, iso_x, iso_y)) for c in oof_conf]
    threshold = _threshold(calibrated, oof_ok)
    above = [ok for c, ok in zip(calibrated, oof_ok, strict=True) if c >= threshold]
    final = _fit(abstracted, pairs, labels, bare_pairs(pack))
    vocab = sorted(final.index, key=final.index.__getitem__)
    return {
        "format": FORMAT,
        "pack_id": pack.pack_id,
        "pack_version": pack.version,
        "data_sha256": data_hash(pack),
        "examples": len(examples),
        "heldout": {
            "folds": FOLDS,
            "pair_accuracy": round(sum(oof_ok) / len(oof_ok), 4),
            "coverage": round(len(above) / len(oof_ok), 4),
            "accuracy_above_threshold": round(sum(above) / len(above), 4) if above else None,
        },
        "threshold": round(threshold, DECIMALS),
        "calibration": {"x": _round(iso_x), "y": _round(iso_y)},
        "labels": labels,
        "vocab": vocab,
        "bias": _round(final.bias),
        "weights": _round(final.weights),
    }


def dumps(doc: dict[str, Any]) -> str:
    """Deterministic serialisation: key order fixed, one weight row per line (diffs stay readable)."""
    head = {k: v for k, v in doc.items() if k != "weights"}
    text = json.dumps(head, sort_keys=True, separators=(",", ":"))[:-1]
    rows = ",\n".join(json.dumps(row, separators=(",", ":")) for row in doc["weights"])
    return text + ',"weights":[\n' + rows + "\n]}\n"


def write_prior(pack: Pack, path: Path | None = None) -> Path:
    path = path or prior_path(pack)
    path.write_text(dumps(train(pack)), encoding="utf-8")
    return path


# --- test sets and figures ----------------------------------------------------------------------


@dataclass(frozen=True)
class Labelled:
    text: str
    intent: str
    sub_intent: str
    session: str = ""  # turns of one session in order: the session rules read the previous turn
    scored: bool = True  # unscored turns (set-up) still give the next turn its previous pair


def coachbench_utterances(pack: Pack, seed: int | None = None) -> list[Labelled]:
    """CoachBench's turns (all sessions of `seed`, default the benchmark's): the TEST set, never
    training data."""
    return [
        Labelled(t.utterance, t.reference.intent, t.reference.sub_intent, s.session_id, t.scored)
        for s in generate(DEFAULT_SEED if seed is None else seed, pack=pack)
        for t in s.turns
    ]


def fixture_utterances(folder: Path | None = None) -> list[Labelled]:
    """The audio fixtures' transcripts with their expected pairs (a TEST set too)."""
    folder = folder or ROOT / "audio_fixtures"
    sessions, errors = discover(folder)
    if errors:
        raise PriorError("; ".join(errors))
    return [
        Labelled(t.transcript, t.expect_intent, t.expect_sub_intent, s.session_id)
        for s in sessions
        for t in s.turns
    ]


HELDOUT_FILE = ROOT / "tests" / "fixtures" / "heldout_utterances.json"


def heldout_utterances(path: Path = HELDOUT_FILE) -> list[Labelled]:
    """A blind TEST set: 4 utterances per Φ pair (and other/other), written from phi.json and the
    catalog by someone who never saw the paraphrases, CoachBench or the fixtures; one per session
    (no session rules apply)."""
    rows = json.loads(path.read_text())
    return [Labelled(r["text"], r["intent"], r["sub_intent"], session=f"h{i}") for i, r in enumerate(rows)]


@dataclass(frozen=True)
class Scores:
    n: int
    pair_accuracy: float
    intent_accuracy: float
    coverage: float  # share of utterances at or above the threshold
    accuracy_above: float | None  # pair accuracy on those
    latency_ms: list[float]


def evaluate(
    classify: Any, threshold: float, items: Sequence[Labelled], session_rules: bool = True
) -> Scores:
    """`classify(text, previous=pair) -> Prediction` over the scored items, timed per utterance
    (perf_counter). With `session_rules`, `previous` is the prediction for the session's previous
    turn (as W1 would have labelled it, right or wrong); otherwise None."""
    pair_ok, intent_ok, above, lat = [], [], [], []
    previous: tuple[str, str] | None = None
    session = None
    for item in items:
        if item.session != session:
            previous, session = None, item.session
        t0 = time.perf_counter()
        pred = classify(item.text, previous=previous if session_rules else None)
        lat.append(1000 * (time.perf_counter() - t0))
        previous = (pred.intent, pred.sub_intent)
        if not item.scored:
            continue
        ok = (pred.intent, pred.sub_intent) == (item.intent, item.sub_intent)
        pair_ok.append(ok)
        intent_ok.append(pred.intent == item.intent)
        if pred.confidence >= threshold or pred.rule is not None:
            above.append(ok)
    n = len(pair_ok)
    return Scores(
        n,
        100 * sum(pair_ok) / n,
        100 * sum(intent_ok) / n,
        100 * len(above) / n,
        100 * sum(above) / len(above) if above else None,
        lat,
    )


def reliability_table(prior: IntentPrior, items: Sequence[Labelled], bins: int = 5) -> list[str]:
    """Calibrated confidence vs observed pair accuracy, in equal-width bins (markdown rows)."""
    rows = []
    preds = [(prior.predict(i.text), i) for i in items if i.scored]
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [
            (p, i) for p, i in preds if lo <= p.confidence < hi or (b == bins - 1 and p.confidence == 1)
        ]
        if inside:
            acc = (
                100
                * sum((p.intent, p.sub_intent) == (i.intent, i.sub_intent) for p, i in inside)
                / len(inside)
            )
            mean = sum(p.confidence for p, _ in inside) / len(inside)
            rows.append(f"| {lo:.1f}-{hi:.1f} | {len(inside)} | {mean:.2f} | {acc:.1f} % |")
    return rows


def bench_prior(pack_id: str = "pet_arena") -> str:
    """The prior's figures as markdown: accuracy on CoachBench (scored turns, default seed, all
    sessions) and on the fixtures' transcripts, coverage above the threshold, p50/p90 latency,
    model size and load time. Kernel-level: no Pipecat, no LLM."""
    pack = load_pack(pack_id)
    t0 = time.perf_counter()
    prior = IntentPrior.load(pack)
    load_ms = 1000 * (time.perf_counter() - t0)
    size_kb = prior_path(pack).stat().st_size / 1024
    prior.predict("warm up")
    bench = coachbench_utterances(pack)
    fixtures = fixture_utterances()
    lines = [
        f"Intent prior {FORMAT} for {pack.pack_id} {pack.version}: {len(prior.model.index)} features, "
        f"{len(prior.labels)} pairs, file {size_kb:.0f} KiB, load {load_ms:.0f} ms, "
        f"threshold {prior.threshold:.3f} (held-out training folds: {prior.heldout}).",
        "",
        "| test set | n | pair acc | intent acc | coverage | pair acc above threshold | p50 ms | p90 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    test_sets = (
        ("CoachBench (scored turns)", bench),
        ("CoachBench seed 11", coachbench_utterances(pack, seed=11)),
        ("audio fixtures (transcripts)", fixtures),
        ("blind held-out utterances", heldout_utterances()),
    )
    for name, items in test_sets:
        for rules in (True, False) if name != "blind held-out utterances" else (True,):
            s = evaluate(prior.predict, prior.threshold, items, session_rules=rules)
            above = f"{s.accuracy_above:.1f} %" if s.accuracy_above is not None else "-"
            lines.append(
                f"| {name}{'' if rules else ', no session rules'} | {s.n} | {s.pair_accuracy:.1f} % "
                f"| {s.intent_accuracy:.1f} % | {s.coverage:.1f} % | {above} "
                f"| {percentile(s.latency_ms, 50):.2f} | {percentile(s.latency_ms, 90):.2f} |"
            )
    lines += [
        "",
        "Coverage / pair accuracy above other thresholds on CoachBench (reported, not tuned on):",
        "",
        "| threshold | coverage | pair acc above |",
        "|---|---|---|",
    ]
    for t in (prior.threshold, 0.5, 0.3, 0.0):
        s = evaluate(prior.predict, t, bench)
        above = f"{s.accuracy_above:.1f} %" if s.accuracy_above is not None else "-"
        lines.append(f"| {t:.3f} | {s.coverage:.1f} % | {above} |")
    lines += [
        "",
        "Reliability on CoachBench (calibrated confidence bin, n, mean confidence, pair accuracy):",
        "",
    ]
    lines += [
        "| confidence | n | mean conf | pair acc |",
        "|---|---|---|---|",
        *reliability_table(prior, bench),
    ]
    return "\n".join(lines)


def bench_main(argv: Sequence[str] | None = None, prog: str = "voicecoach bench prior") -> int:
    """`voicecoach bench prior [--pack ID]`: the figures of `bench_prior`."""
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter,
        prog=prog,
        description="the intent prior's figures (bench_prior).\n\nRun time on 2 cores: ~5 s.",
    )
    parser.add_argument("--pack", default="pet_arena", help="an installed pack's id, or a pack folder")
    args = parser.parse_args(argv)
    print(bench_prior(args.pack))
    return 0


# Measured on 2 cores shared with other work (load 2-4): pet_arena 39-50 s, strike_team 31 s, the pack
# `voicecoach pack new` writes 1.4 s.
TRAIN_TIME = "~30-50 s for the shipped packs (thousands of examples), ~2 s for a new pack's"
CONFUSIONS_TIME = "~30 s for pet_arena (five trainings, one per fold)"


def main(argv: Sequence[str] | None = None, prog: str = "python -m voicecoach.bench.prior") -> int:
    parser = argparse.ArgumentParser(
        formatter_class=DefaultsHelpFormatter, prog=prog, description="the intent prior: training and figures"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_, took in (
        ("train", "train and write the pack's prior.json (next to its other files)", TRAIN_TIME),
        ("bench", "print the figures", "~5 s"),
        ("confusions", "out-of-fold confusions on the training data (weakest pairs first)", CONFUSIONS_TIME),
    ):
        p = sub.add_parser(
            name,
            help=f"{help_} [{took}]",
            description=f"{help_}.\n\nRun time on 2 cores: {took}.",
            formatter_class=DefaultsHelpFormatter,
        )
        p.add_argument(
            "--pack", default="pet_arena", help="an installed pack's id or a pack folder (default pet_arena)"
        )
        if name != "bench":  # the older spelling of --pack FOLDER
            p.add_argument("--path", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    ref = getattr(args, "path", None) or args.pack
    if args.command == "train":
        t0 = time.perf_counter()
        try:
            path = write_prior(load_pack_from(pack_folder(ref)))  # not the cached pack: it may have changed
        except ImportError as err:  # scikit-learn is a dev dependency: inference needs numpy alone
            print(f"training needs scikit-learn ({err}): .venv/bin/pip install scikit-learn", file=sys.stderr)
            return 2
        print(f"wrote {path} in {time.perf_counter() - t0:.1f} s")
    elif args.command == "confusions":
        print(confusions(load_pack(ref)))
    else:
        print(bench_prior(args.pack))
    return 0


if __name__ == "__main__":
    sys.exit(main())
