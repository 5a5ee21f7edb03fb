"""Packaging: one import namespace. The wheel holds `voicecoach` only, with the top-level folders
actors/ and pipelines/ inside it as voicecoach.actors and voicecoach.pipelines (and the overlay)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_installs_one_namespace(tmp_path: Path) -> None:
    # Built from a copy: setuptools writes build/ next to the sources it builds.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for name in ("voicecoach", "actors", "pipelines"):
        shutil.copytree(ROOT / name, src / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(src)], check=True
    )
    (wheel,) = tmp_path.glob("voicecoach-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.startswith("voicecoach-")}
    assert tops == {"voicecoach"}
    assert "voicecoach/actors/talker.py" in names and "voicecoach/pipelines/server.py" in names
    assert "voicecoach/pipelines/overlay/dist/app.js" in names
    assert "voicecoach/packs/pet_arena/manifest.json" in names
