"""The lexicon repair's harness: every clean phrase the project has, and names right on transcripts.

A clean phrase is text written as the player would say it with the names spelled right, so the
repair (`voicecoach.perception.lexicon`) must change nothing in it: each pack's paraphrases
(the prior's training data), its Φ examples, the CoachBench sessions drawn for the default seed,
its dialogue suite's turns and the audio fixtures' reference transcripts. Some paraphrases spell a
name as Whisper mishears it, on purpose (MISHEARD: "pie rowl", "kazimir"): those are no clean
phrases, and the repair should put the name back in them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from voicecoach.bench.coachbench.generator import generate
from voicecoach.bench.dialogue import load_suite
from voicecoach.bench.fixtures import FixtureSession, discover
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import PACKS_DIR, Pack

REPO = Path(__file__).resolve().parents[2]
# Names the packs' paraphrases write as Whisper mishears them, on purpose (the prior must cope with
# a name it cannot link; strike_team's are also tests/domain/test_strike_team_data.py's MISHEARD).
MISHEARD: dict[str, dict[str, str]] = {
    "pet_arena": {"pie rowl": "pyrowl", "volt tail": "voltail"},
    "strike_team": {"kazimir": "kasimir", "quillan": "quillon", "mareva": "mireva", "renso": "renzo",
                    "lorkan": "lorcan", "wendel": "wendell", "dome projecter": "dome_projector"},
}  # fmt: skip
FIXTURES = {"pet_arena": REPO / "audio_fixtures", "strike_team": REPO / "audio_fixtures" / "strike_team"}


def fixture_sessions(pack: Pack) -> list[FixtureSession]:
    """The pack's audio fixture sessions ([] when the pack has none)."""
    folder = FIXTURES.get(pack.pack_id)
    if folder is None or not folder.is_dir():
        return []
    sessions, _ = discover(folder, pack.pack_id)
    return sessions


def phrases(pack: Pack) -> Iterator[tuple[str, str]]:
    """(source, phrase) for every phrase of `pack`'s data and fixtures, spoken variants included."""
    folder = PACKS_DIR / pack.pack_id
    for entry in json.loads((folder / "paraphrases.json").read_text()):
        for text in entry["utterances"]:
            yield "paraphrases", text
    for entry in json.loads((folder / "phi.json").read_text()):
        if entry.get("example"):
            yield "phi", entry["example"]
    for session in generate(pack=pack):
        for turn in session.turns:
            yield "coachbench", turn.utterance
    for dialogue in load_suite(pack.pack_id).sessions:
        for step in dialogue.turns:
            yield "dialogue_suite", step.say
    for fixture in fixture_sessions(pack):
        for fturn in fixture.turns:
            yield "fixtures", fturn.transcript


def names(pack: Pack, text: str) -> Counter[str]:
    """The names `text` says, as the linker finds them: every kind but the matchup types (pet's
    elements are ordinary words)."""
    types = set(pack.catalog.schema.kinds_of("type"))
    return Counter(m.id for m in link_entities(pack, text) if m.kind not in types)


def names_right(pack: Pack, reference: str, heard: str) -> tuple[int, int]:
    """(names of `reference` that `heard` says too, names of `reference`)."""
    said = names(pack, reference)
    return sum((said & names(pack, heard)).values()), sum(said.values())


def clean_phrases(pack: Pack) -> list[tuple[str, str]]:
    """(source, phrase) for every clean phrase of `pack`: `phrases` but those with a MISHEARD form."""
    misheard = MISHEARD.get(pack.pack_id, {})
    return [(source, text) for source, text in phrases(pack) if not _misheard_in(text, misheard)]


def misheard_phrases(pack: Pack) -> list[tuple[str, str, str]]:
    """(phrase, misheard form, the id it stands for) for the pack's phrases with a MISHEARD form."""
    misheard = MISHEARD.get(pack.pack_id, {})
    found = ((text, _misheard_in(text, misheard)) for _, text in phrases(pack))
    return [(text, form, misheard[form]) for text, forms in found for form in forms]


def _misheard_in(text: str, misheard: dict[str, str]) -> list[str]:
    return [form for form in misheard if re.search(rf"(?<![a-z]){form}(?![a-z])", text.lower())]
