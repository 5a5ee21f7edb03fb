"""Packaging: one import namespace. The wheel holds `voicecoach` only, with the top-level folders
actors/ and pipelines/ inside it as voicecoach.actors and voicecoach.pipelines (and the overlay)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_installs_one_namespace(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path),
         str(ROOT)],
        check=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("voicecoach-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.startswith("voicecoach-")}
    assert tops == {"voicecoach"}
    assert "voicecoach/actors/talker.py" in names and "voicecoach/pipelines/server.py" in names
    assert "voicecoach/pipelines/overlay/dist/app.js" in names
    assert "voicecoach/packs/pet_arena/manifest.json" in names
