"""bench latency's s2fa.png stays readable with many configurations (issue 30: twelve made it 3,102 px
wide with 8-point labels): no wider than 13 in at 110 dpi, panels stacked, labels at 10 points."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

from voicecoach.pipelines.bench.latency import chart


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def result(configs: int) -> dict[str, object]:
    rng = random.Random(configs)
    names = [f"config_{i}_with_a_long_name" for i in range(configs)]
    turns = [
        {
            "config": n,
            "s2fa_ms": rng.gauss(600 + 90 * i, 120),
            "first_reply_audio_ms": rng.gauss(900 + 90 * i, 150),
        }
        for i, n in enumerate(names)
        for _ in range(24)
    ]
    return {
        "configs": {n: {"s2fa_ms": {"p50": 1}} for n in names},
        "turns": turns,
        "meta": {"turns_per_config": 24},
    }


def test_the_chart_is_as_wide_as_a_page_however_many_configurations(tmp_path: Path) -> None:
    sizes = {}
    for n in (3, 12, 20):
        chart(result(n), tmp_path / f"{n}.png")
        sizes[n] = png_size(tmp_path / f"{n}.png")
    assert all(w <= 13 * 110 for w, _ in sizes.values()), sizes
    assert sizes[3][0] < sizes[12][0] == sizes[20][0], sizes  # it grows, up to the cap
    assert all(h >= 0.6 * w for w, h in sizes.values()), sizes  # stacked: not a strip


def test_labels_are_ten_points_or_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.pyplot as plt

    seen: list[float] = []
    savefig = plt.Figure.savefig

    def spy(fig: plt.Figure, *args: object, **kwargs: object) -> None:
        for ax in fig.axes:
            seen.extend(label.get_fontsize() for label in ax.get_xticklabels() + ax.get_yticklabels())
            seen.append(ax.yaxis.label.get_fontsize())
        savefig(fig, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(plt.Figure, "savefig", spy)
    chart(result(12), tmp_path / "c.png")
    assert seen and min(seen) >= 10, sorted(set(seen))
