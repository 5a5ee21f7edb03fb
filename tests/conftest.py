"""Shared fixtures: the real pet_arena pack and a realistic mid-match LiveState."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import free_port, required_binary
from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.pack import Pack, load_pack, load_pack_from


@pytest.fixture
def pack() -> Pack:
    return load_pack()


@pytest.fixture
def toy(tmp_path: Path) -> Pack:
    """The toy hero shooter with a schema.json (tests/toy_pack.py)."""
    from tests.toy_pack import FILES, write_pack

    return load_pack_from(write_pack(tmp_path / "toy_shooter", FILES))


# The player owns 8 creatures (id: stage, level; locked skills in brackets):
#   emberfox   fire      striker     stage 2, lv 14  [inferno_roar: needs stage 3]
#   galehawk   wind      striker     stage 2, lv 16  [tempest_fury: needs stage 3]
#   granitusk  earth     tank        stage 1, lv 12  [granite_bulwark: needs level 20]
#   hexmoth    shadow    controller  stage 3, lv 25  all skills unlocked
#   lumifawn   light     support     stage 1, lv 5   [sanctuary: needs stage 2]
#   oakhorn    grass     tank        stage 2, lv 19  [worldroot_slam: needs stage 3]
#   sparkwing  electric  support     stage 2, lv 10  all skills unlocked
#   tidefang   water     striker     stage 1, lv 6   [riptide: stage 2, tsunami_crash: stage 3]
# It is round 2 of 3 (player leads 1-0), emberfox/oakhorn/sparkwing against
# briarcat (grass) / shellbastion (water) / voltail (electric).
STATE = {
    "version": 5,
    "turn_index": 3,
    "ic": {
        "patch_version": "1.0.0",
        "match": {
            "mode": "ranked",
            "round": 2,
            "rounds_total": 3,
            "score_player": 1,
            "score_opponent": 0,
            "player_lineup": ["emberfox", "oakhorn", "sparkwing"],
            "opponent_lineup": ["briarcat", "shellbastion", "voltail"],
        },
    },
    "fs": {
        "player_level": 18,
        "inventory": {
            "owned": [
                {
                    "creature_id": "emberfox",
                    "stage": 2,
                    "level": 14,
                    "unlocked_skills": ["ember_fang", "flame_burst", "blaze_charge"],
                },
                {
                    "creature_id": "galehawk",
                    "stage": 2,
                    "level": 16,
                    "unlocked_skills": ["gust_cutter", "cyclone_spin", "gale_dive"],
                },
                {
                    "creature_id": "granitusk",
                    "stage": 1,
                    "level": 12,
                    "unlocked_skills": ["stone_skin", "quake_stomp"],
                },
                {
                    "creature_id": "hexmoth",
                    "stage": 3,
                    "level": 25,
                    "unlocked_skills": ["dread_whisper", "nightmare_hex", "shade_bite"],
                },
                {
                    "creature_id": "lumifawn",
                    "stage": 1,
                    "level": 5,
                    "unlocked_skills": ["gentle_light", "radiant_peck"],
                },
                {
                    "creature_id": "oakhorn",
                    "stage": 2,
                    "level": 19,
                    "unlocked_skills": ["bark_skin", "thicket_wall", "bramble_crush"],
                },
                {
                    "creature_id": "sparkwing",
                    "stage": 2,
                    "level": 10,
                    "unlocked_skills": ["overcharge", "quick_circuit", "spark_nip"],
                },
                {
                    "creature_id": "tidefang",
                    "stage": 1,
                    "level": 6,
                    "unlocked_skills": ["tide_slap", "bubble_jet"],
                },
            ],
            "saved_lineups": {"main": ["emberfox", "oakhorn", "sparkwing"]},
        },
    },
    "static": {"pack_id": "pet_arena", "pack_version": "1.0.0"},
}


@pytest.fixture
def state() -> LiveState:
    return load_state(STATE)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real redis-server (Debian's), started for the test session on a free loopback port.

    .ci/run installs it and sets VOICECOACH_REQUIRE_REDIS=1, so there a missing server fails
    instead of skipping the Redis tests.
    """
    binary = required_binary("redis-server", "VOICECOACH_REQUIRE_REDIS")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail(f"redis-server did not start on port {port}")
            time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def haproxy() -> str:
    """Debian's haproxy binary (the deploy and chaos tests put workers behind it): fails, not
    skips, when VOICECOACH_REQUIRE_HAPROXY is set, as in CI."""
    return required_binary("haproxy", "VOICECOACH_REQUIRE_HAPROXY")
