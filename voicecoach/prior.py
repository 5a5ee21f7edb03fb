"""The intent prior: a fast classifier of (intent, sub_intent) from the transcript, for W1.

On the embedded default a 135M model cannot label the player's words (W1 pair accuracy ~11 %
on CoachBench), so W1 gets an input it can trust: when the prior is confident, W1's tag stream
begins with the prior's INTENT / SUB_INTENT (see `voicecoach.w1.W1Prefill`) and the LLM only
continues from NARRATION. Below the threshold the LLM labels as before.

The model: linked catalog names are replaced by their kind ("tell me about xcreaturex", a hero
shooter's "xherox"), then
word 1-2-grams and character 3-5-grams within words are fed to a multinomial logistic regression
(scikit-learn, training only) over the Φ pairs. Its top probability is calibrated by isotonic
regression fitted on out-of-fold predictions of the training data, and the prefill threshold is
the lowest calibrated confidence at which those held-out predictions are still right at least
`TARGET_PRECISION` of the time. Nothing here ever sees CoachBench or the audio fixtures.

Training data is pack data written for the pack: each Φ entry's `example` plus the pack's
`paraphrases.json`. `python -m voicecoach.prior train --pack pet_arena` writes
`voicecoach/packs/<pack>/prior.json` (`--path FOLDER`: a pack folder's FOLDER/prior.json; sorted
inputs, fixed folds, rounded floats: the same bytes every run); `IntentPrior.load(pack)` refuses
a file that is missing or trained on other data.
Inference is numpy only: a dictionary lookup per feature and one small matrix row sum.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from voicecoach.entities import Mention, link_entities
from voicecoach.pack import OUT_OF_DOMAIN, PACKS_DIR, Pack, PhiEntry, load_pack, load_pack_from
from voicecoach.slot_rules import extract_slots

PRIOR_FILE = "prior.json"
FORMAT = "voicecoach-intent-prior/1"
WORD_NGRAMS = (1, 2)
CHAR_NGRAMS = (3, 5)
MIN_COUNT = 1  # keep every feature seen in training: rare cue words ("turtle", "blitz") are the signal
# Chosen by out-of-fold pair accuracy on the training data (docs/BENCHMARKS.md, "Intent prior").
C = 8.0  # inverse L2 strength of the logistic regression
FOLDS = 5
SEED = 0
TARGET_PRECISION = 0.9  # held-out accuracy the prefill threshold must keep
DECIMALS = 5  # floats in prior.json are rounded, so the file does not depend on the last ulp


class PriorError(ValueError):
    """A prior file that is missing, unreadable or not trained on this pack's data (names the file)."""


class Prediction(BaseModel):
    model_config = ConfigDict(frozen=True)

    intent: str
    sub_intent: str
    confidence: float  # calibrated: the estimated probability that the pair is right
    rule: str | None = None  # the session rule that chose the pair instead of the classifier


# --- features ----------------------------------------------------------------------------------


def kind_token(kind: str) -> str:
    """The word a linked mention of `kind` becomes ("xcreaturex", "xherox"): one no player says."""
    return f"x{kind}x"


def normalise(text: str) -> str:
    """Lowercase, apostrophes dropped ("what's" = "whats"), other punctuation -> space."""
    text = text.lower().replace("'", "").replace("\u2019", "")
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def abstract_entities(pack: Pack, text: str, mentions: list[Mention] | None = None) -> str:
    """Replace each linked catalog mention by its kind, so "tell me about Pyrowl" and "tell me
    about Tidefang" are one pattern; names the linker misses (misheard) stay as words.
    `mentions`: the turn's `link_entities(pack, text)` when the caller already has it (linking is
    most of the prior's cost)."""
    out, last = [], 0
    for m in link_entities(pack, text) if mentions is None else mentions:
        out += [text[last : m.span[0]], f" {kind_token(m.kind)} "]
        last = m.span[1]
    out.append(text[last:])
    return normalise("".join(out))


def features(abstracted: str) -> list[str]:
    """Word n-grams ('w:') and character n-grams inside space-padded words ('c:'), deduplicated."""
    words = abstracted.split()
    feats: list[str] = []
    for n in range(WORD_NGRAMS[0], WORD_NGRAMS[1] + 1):
        feats += ["w:" + " ".join(words[i : i + n]) for i in range(len(words) - n + 1)]
    for word in words:
        padded = f" {word} "
        for n in range(CHAR_NGRAMS[0], CHAR_NGRAMS[1] + 1):
            feats += ["c:" + padded[i : i + n] for i in range(len(padded) - n + 1)]
    return list(dict.fromkeys(feats))


# --- training data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    text: str
    pair: str  # "intent/sub_intent"


def training_data(pack: Pack) -> list[Example]:
    """Φ examples plus paraphrases.json, deduplicated, sorted (the order never depends on files)."""
    rows = {(e.example, f"{e.intent}/{e.sub_intent}") for e in pack.phi if e.example}
    for para in pack.paraphrases:
        rows |= {(u, f"{para.intent}/{para.sub_intent}") for u in para.utterances}
    return [Example(text, pair) for text, pair in sorted(rows)]


# Spoken padding around a request. Each training utterance (but smalltalk's, where "coach" or "hey"
# is the request: a Φ entry says so with `fillers`) is also learnt with one prefix and one suffix,
# chosen by its text, so a filler carries no weight of its own. Written for the prior; raised
# out-of-fold accuracy 76.8 -> 78.4 %.
FILLER_PREFIXES = ("uh", "um", "okay so", "so like", "coach", "quick question", "alright", "hmm",
                   "wait", "yo", "hey so", "right so")  # fmt: skip
FILLER_SUFFIXES = ("please", "coach", "right now", "real quick", "any ideas", "you think")


def _padded(pair: str, bare: frozenset[str] | None) -> bool:
    return not pair.startswith("smalltalk/") if bare is None else pair not in bare


def bare_pairs(pack: Pack) -> frozenset[str]:
    """The pairs learnt without filler variants: each Φ entry's `fillers`, by default false for the
    intent "smalltalk" only."""
    return frozenset(
        f"{e.intent}/{e.sub_intent}"
        for e in pack.phi
        if not (e.fillers if e.fillers is not None else e.intent != "smalltalk")
    )


def with_fillers(
    abstracted: list[str], pairs: list[str], bare: frozenset[str] | None = None
) -> tuple[list[str], list[str]]:
    """The training rows plus their filler variants, chosen by the row's own text (crc32), so a
    row added to the pack leaves every other row's fillers, and so its weights, where they were.
    `bare`: the pairs without variants (`bare_pairs`); None: smalltalk's."""
    texts, labels = list(abstracted), list(pairs)
    for text, pair in zip(abstracted, pairs, strict=True):
        k = zlib.crc32(text.encode())
        if _padded(pair, bare):
            texts += [normalise(f"{FILLER_PREFIXES[k % len(FILLER_PREFIXES)]} {text}"),
                      normalise(f"{text} {FILLER_SUFFIXES[k % len(FILLER_SUFFIXES)]}")]  # fmt: skip
            labels += [pair, pair]
    return texts, labels


def data_hash(pack: Pack) -> str:
    """sha256 of the training data and the feature settings: a prior trained on anything else is stale."""
    payload = {
        "data": [[ex.text, ex.pair] for ex in training_data(pack)],
        "word_ngrams": WORD_NGRAMS,
        "char_ngrams": CHAR_NGRAMS,
        "min_count": MIN_COUNT,
        "fillers": [FILLER_PREFIXES, FILLER_SUFFIXES, "crc32"],
        "c": C,
    }
    # Only a pack whose Φ flags differ from the default hashes them: pet's prior.json stays valid.
    bare = bare_pairs(pack)
    if bare != {p for p in prior_labels(pack) if not _padded(p, None)}:
        payload["bare"] = sorted(bare)
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


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


# --- the model -----------------------------------------------------------------------------------


class _Linear:
    """Vocabulary + weights: score = W[features].sum / sqrt(n) + b, softmax over pairs."""

    def __init__(self, vocab: list[str], weights: np.ndarray, bias: np.ndarray) -> None:
        self.index = {f: i for i, f in enumerate(vocab)}
        self.weights = weights
        self.bias = bias

    def probabilities(self, feats: list[str]) -> np.ndarray:
        idx = [self.index[f] for f in feats if f in self.index]
        z = self.bias.copy()
        if idx:
            z += self.weights[idx].sum(axis=0) / math.sqrt(len(idx))
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()


def _fit(
    abstracted: list[str], pairs: list[str], labels: list[str], bare: frozenset[str] | None = None
) -> _Linear:
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
    return _Linear(vocab, weights, bias)


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


def prior_labels(pack: Pack) -> list[str]:
    """Φ's pairs, and "other/other" when the pack's paraphrases teach what is outside the game."""
    taught = {f"{p.intent}/{p.sub_intent}" for p in pack.paraphrases}
    return sorted({f"{e.intent}/{e.sub_intent}" for e in pack.phi} | (taught & {"/".join(OUT_OF_DOMAIN)}))


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


def prior_path(pack: Pack) -> Path:
    return PACKS_DIR / pack.pack_id / PRIOR_FILE


def write_prior(pack: Pack, path: Path | None = None) -> Path:
    path = path or prior_path(pack)
    path.write_text(dumps(train(pack)), encoding="utf-8")
    return path


_SHARED: dict[tuple[str, str, float | None], IntentPrior] = {}


class IntentPrior:
    """The trained prior of one pack: `predict` gives the calibrated best pair, `prefill` the pair
    W1's stream may begin with (None below the threshold: the LLM labels the turn)."""

    def __init__(self, pack: Pack, doc: dict[str, Any], threshold: float | None = None) -> None:
        self.pack = pack
        self.labels = [(a, b) for a, b in (lab.split("/", 1) for lab in doc["labels"])]
        self.model = _Linear(doc["vocab"], np.array(doc["weights"]), np.array(doc["bias"]))
        self.calibration = (np.array(doc["calibration"]["x"]), np.array(doc["calibration"]["y"]))
        self.threshold = float(doc["threshold"]) if threshold is None else threshold
        self.heldout: dict[str, Any] = doc.get("heldout", {})

    @classmethod
    def load(cls, pack: Pack, path: Path | None = None, threshold: float | None = None) -> IntentPrior:
        """Load the pack's prior file; PriorError naming the file if it is missing, unreadable, or
        trained for another pack, pack version or training data (retrain: `python -m voicecoach.prior
        train --pack ID`)."""
        path = path or prior_path(pack)
        retrain = f"retrain with: python -m voicecoach.prior train --pack {pack.pack_id}"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise PriorError(f"{path}: intent prior file missing; {retrain}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise PriorError(f"{path}: not a valid prior file ({err}); {retrain}") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise PriorError(f"{path}: not a {FORMAT} file; {retrain}")
        for key, want in (
            ("pack_id", pack.pack_id),
            ("pack_version", pack.version),
            ("data_sha256", data_hash(pack)),
        ):
            if doc.get(key) != want:
                raise PriorError(
                    f"{path}: trained for {key} {doc.get(key)!r}, this pack has {want!r}; {retrain}"
                )
        return cls(pack, doc, threshold)

    @classmethod
    def shared(cls, pack: Pack, threshold: float | None = None) -> IntentPrior:
        """The pack's prior, loaded once per process (every session of a server shares it)."""
        key = (pack.pack_id, pack.version, threshold)
        if key not in _SHARED:
            _SHARED[key] = cls.load(pack, threshold=threshold)
        return _SHARED[key]

    def predict(
        self, text: str, mentions: list[Mention] | None = None, previous: tuple[str, str] | None = None
    ) -> Prediction:
        """The calibrated best pair; `mentions` as in `abstract_entities`; `previous`: the pair of
        the session's last delivered turn, which the session rules (`session_rule`) may keep."""
        p = self.model.probabilities(features(abstract_entities(self.pack, text, mentions)))
        best = int(p.argmax())
        intent, sub_intent = self.labels[best]
        confidence = float(np.interp(p[best], *self.calibration))
        pred = Prediction(intent=intent, sub_intent=sub_intent, confidence=round(confidence, 4))
        return session_rule(self.pack, text, pred, previous) or pred

    def prefill(
        self, text: str, mentions: list[Mention] | None = None, previous: tuple[str, str] | None = None
    ) -> tuple[str, str] | None:
        """(intent, sub_intent) to prefill W1 with, or None when the prior is not confident enough
        (a session rule's pair is always prefilled: it is a decision, not a guess)."""
        pred = self.predict(text, mentions, previous)
        ok = pred.rule is not None or pred.confidence >= self.threshold
        return (pred.intent, pred.sub_intent) if ok else None


# --- session rules: what the transcript alone does not say ----------------------------------------

# "Anything else?" names no pair: it asks the previous turn's recommendation again, and W3 then
# gives another direction. English cue words; which pairs recommend is the pack's Φ (branch).
ASK_AGAIN = re.compile(
    r"\b(?:(?:something|anything|what|who|where) else|another|any other|plan b|alternatives?|"
    r"(?:second|other|different|next|backup|alternative) (?:option|idea|pick|choice|one|way|team|"
    r"lineup|plan|answer)s?|more (?:options|ideas|picks))\b"
)
# "And no Pyrowl either", "only fire, but keep Galehawk in": a constraint added to the previous
# request, not a new one.
_FILLERS = (
    r"(?:(?:uh|um|okay|ok|so|hey|yo|wait|listen|alright|hmm|coach|like|basically|actually|oh|well)\s+)*"
)
REFINE = re.compile(
    rf"^{_FILLERS}(?:but|and|also|plus|only)\b|\b(?:too|either|as well|instead)\b"
    r"|\b(?:put|bring|add)\b.*\bback\b|\bback in\b"  # "actually put Oakhorn back in"
)
# "Why?", "why that one", "how come": the reason for the previous answer, so its pair again (the
# realizer then gives the reason, not another pick). Short on purpose: "why do I keep losing" is a
# question of its own.
ASKS_WHY = re.compile(
    rf"^{_FILLERS}(?:but\s+|and\s+)?(?:why|how come|explain why|what makes (?:it|that|them|him|her) "
    r"(?:so )?(?:good|better|the pick))(?:\s+[\w']+){0,3}\W*$",
    re.IGNORECASE,
)
# Below this the classifier's own pair yields to the rule: a confident "what else does Pyrowl
# learn?" (creature/skills) keeps its pair.
RULE_CONFIDENCE = 0.95


def _asks_again(pack: Pack, prev: PhiEntry) -> bool:
    """Whether "anything else?" after `prev` asks `prev` again: after a recommendation (W3 gives
    another direction), or after a tip the pack words itself with more than one variant (the
    realizer says the next one); not after a fact, whose second telling is the same fact."""
    tips = pack.templates.answers.get(f"{prev.intent}/{prev.sub_intent}", [])
    return prev.branch == "recommend" or (prev.branch == "teaching" and len(tips) > 1)


def session_rule(
    pack: Pack, text: str, pred: Prediction, previous: tuple[str, str] | None
) -> Prediction | None:
    """The pair the session's rules choose over the classifier's `pred`, or None:

    - *why*: a short why-question (ASKS_WHY) after a turn that used tools: the previous pair;
    - *ask again* / *refine*: the utterance asks for another option (ASK_AGAIN) or adds a
      constraint (REFINE) after a turn whose Φ pair recommends or teaches (`_asks_again`), and the
      classifier is not sure (< RULE_CONFIDENCE): the previous pair;
    - *anchor excluded*: the pair is anchored on a creature ("build around X") but the player
      excludes every creature they name ("build without X"): the Φ entry's `anchor_excluded` pair.
    """
    entries = {(e.intent, e.sub_intent): e for e in pack.phi}
    prev = entries.get(previous) if previous is not None else None
    if (
        prev is not None
        and prev.tools
        and pred.confidence < RULE_CONFIDENCE
        and ASKS_WHY.search(normalise(text))
    ):
        return pred.model_copy(update={"intent": prev.intent, "sub_intent": prev.sub_intent, "rule": "why"})
    if prev is not None and _asks_again(pack, prev) and pred.confidence < RULE_CONFIDENCE:
        words = normalise(text)
        rule = "ask_again" if ASK_AGAIN.search(words) else "refine" if REFINE.search(words) else None
        if rule is not None:
            return pred.model_copy(
                update={"intent": prev.intent, "sub_intent": prev.sub_intent, "rule": rule}
            )
    entry = entries.get((pred.intent, pred.sub_intent))
    if entry is not None and entry.anchor_excluded is not None:
        slots = extract_slots(pack, text)
        named = {*slots.wanted_entities, *slots.excluded_entities}
        if slots.excluded_entities and named <= set(slots.excluded_entities):
            intent, sub_intent = entry.anchor_excluded.split("/", 1)
            return pred.model_copy(
                update={"intent": intent, "sub_intent": sub_intent, "rule": "anchor_excluded"}
            )
    return None


# --- benchmark -----------------------------------------------------------------------------------


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
    from voicecoach.coachbench.generator import DEFAULT_SEED, generate

    return [
        Labelled(t.utterance, t.reference.intent, t.reference.sub_intent, s.session_id, t.scored)
        for s in generate(DEFAULT_SEED if seed is None else seed, pack=pack)
        for t in s.turns
    ]


def fixture_utterances(folder: Path | None = None) -> list[Labelled]:
    """The audio fixtures' transcripts with their expected pairs (a TEST set too)."""
    from voicecoach.fixtures import discover

    folder = folder or Path(__file__).resolve().parent.parent / "audio_fixtures"
    sessions, errors = discover(folder)
    if errors:
        raise PriorError("; ".join(errors))
    return [
        Labelled(t.transcript, t.expect_intent, t.expect_sub_intent, s.session_id)
        for s in sessions
        for t in s.turns
    ]


HELDOUT_FILE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "heldout_utterances.json"


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
    from voicecoach.coachbench.metrics import percentile

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m voicecoach.prior", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_ in (
        ("train", "train and write packs/<pack>/prior.json"),
        ("bench", "print the figures"),
        ("confusions", "out-of-fold confusions on the training data (weakest pairs first)"),
    ):
        p = sub.add_parser(name, help=help_)
        p.add_argument("--pack", default="pet_arena")
        if name != "bench":
            p.add_argument(
                "--path", default=None, help="a pack folder outside voicecoach/packs (instead of --pack)"
            )
    args = parser.parse_args(argv)
    if args.command == "train":
        t0 = time.perf_counter()
        if args.path:  # a pack being written (voicecoach pack new): its prior goes next to its files
            path = write_prior(load_pack_from(Path(args.path)), Path(args.path) / PRIOR_FILE)
        else:
            path = write_prior(load_pack(args.pack))
        print(f"wrote {path} in {time.perf_counter() - t0:.1f} s")
    elif args.command == "confusions":
        print(confusions(load_pack_from(Path(args.path)) if args.path else load_pack(args.pack)))
    else:
        print(bench_prior(args.pack))
    return 0


if __name__ == "__main__":
    sys.exit(main())
