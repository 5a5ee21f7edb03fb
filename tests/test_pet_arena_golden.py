"""pet_arena's outputs, pinned so that a change of pet's behaviour is always on purpose.

Every generalisation of the kernels must leave pet_arena byte-identical. Each pin below is
computed by the helper the benchmarks and tools already use, and compared with
tests/fixtures/pet_arena_golden.json; a change anywhere upstream fails here, naming the pin (and,
for the per-session pins, the sessions or records that changed):

- `prompts`: bench quality's run.json prompt digests (`prompt_digests`: W1 prefix, slot prompt,
  Talker system prompt, planner prompt), and the grammars and JSON schema the LLM calls decode
  under (W1, W1 after a prefill, the planner, QuerySlots);
- `coachbench`: the benchmark JSONL's sha256 for seeds 7 and 11 (run.json's `bench_sha256`);
- `pack_files`: run.json's `pack_sha256` over the pack folder (the SGC rows) and over the files the
  baselines read: the folder itself must stay byte for byte as it is;
- `realize`: per seed-7 session, the grounded realization of every turn (`realize_session`,
  narrated as `bench realizer` runs it: pair, tools, guidance id, narration, reply);
- `reply_prompt`: per seed-7 session, the Talker's per-turn prompt (`render_reply_prompt`: both
  messages and the conditioning) on the very c2, c3 and tool outcomes `realize_session` realizes
  each turn from, with the turn's narration;
- `slots`: per seed-7 session, entity linking, the turn as read in its dialogue
  (`perception.dialogue.read_turn`, the previous utterance as the dialogue) and the rule slots of every
  utterance (earlier slots carried as `bench slots` carries them);
- `prior`: per seed-7 session, the intent prior's prediction of every utterance, the session rules
  reading the previous prediction (as `bench prior` scores it);
- `calibration`: the checker's verdict on every calibration.jsonl reply (pass, or the rules it
  fails), and one digest of the failures with their evidence;
- `check_state`: the example state passes, and each broken copy of it fails with its message;
- `state_dump`: `LiveState.model_dump_json` of the example state and of an empty one (a new
  optional field must stay out of pet's dumps);
- `pack_check`: the rows `voicecoach pack check pet_arena` prints (without retraining the prior).

Regenerate (only for an intended change of pet_arena's behaviour, said in the commit):
    python -m tests.test_pet_arena_golden > tests/fixtures/pet_arena_golden.json
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from voicecoach.core.state import LiveState, StateError, load_state
from voicecoach.domain.pack import PACKS_DIR, Pack, check_state, example_state_path, load_pack

EXPECTED = Path(__file__).parent / "fixtures" / "pet_arena_golden.json"
CALIBRATION = Path(__file__).parent / "fixtures" / "calibration.jsonl"

# Broken copies of the example state, one field each: check_state must refuse every one, naming it.
BROKEN_STATES: tuple[tuple[str, Any], ...] = (
    ("fs.player_level", 101),
    ("fs.inventory.owned.0.creature_id", "nofox"),
    ("fs.inventory.owned.0.stage", 4),
    ("fs.inventory.owned.0.level", 101),
    ("fs.inventory.owned.0.unlocked_skills", ["gust_cutter"]),
    ("fs.inventory.saved_lineups.main", ["emberfox", "nofox"]),
    ("ic.match.player_lineup", ["nofox"]),
    ("ic.match.opponent_lineup", ["briarcat"] * 6),
    ("ic.match.round", 4),
)


def _sha(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _short(value: Any) -> str:
    # Per-session pins: 16 hex digits say which session changed without a 64-digit line each.
    return _sha(value)[:16]


def _prompts(pack: Pack) -> dict[str, str]:
    from voicecoach.grounding.slots import query_slots_json_schema
    from voicecoach.perception.prompt import w1_continuation_gbnf, w1_gbnf
    from voicecoach.pipelines.bench.quality import prompt_digests
    from voicecoach.talker.baselines import planner_gbnf

    return {
        **prompt_digests(pack),
        "w1_gbnf": _sha(w1_gbnf(pack)),
        "w1_continuation_gbnf": _sha(w1_continuation_gbnf(pack)),
        "planner_gbnf": _sha(planner_gbnf(pack)),
        "query_slots_json_schema": _sha(query_slots_json_schema(pack)),
    }


def _coachbench(pack: Pack) -> dict[str, str]:
    from voicecoach.bench.coachbench.generator import write_benchmark

    with tempfile.TemporaryDirectory() as tmp:
        return {
            f"seed_{seed}": write_benchmark(Path(tmp) / f"s{seed}.jsonl", seed, pack).sha256
            for seed in (7, 11)
        }


def _pack_files(pack: Pack) -> dict[str, str]:
    from voicecoach.pipelines.bench.quality import pack_digest
    from voicecoach.talker.baselines import baseline_files

    return {
        "pack_sha256": pack_digest(pack),
        "pack_sha256_baselines": pack_digest(pack, baseline_files(pack)),
    }


def _realize(pack: Pack, sessions: list[Any]) -> tuple[dict[str, str], dict[str, str]]:
    """The `realize` and `reply_prompt` pins from one `realize_session` pass: `realize` is spied on,
    so the Talker prompt is rendered from exactly what each turn's realization is given."""
    from unittest import mock

    from voicecoach.bench import realizer
    from voicecoach.talker.conditioning import render_reply_prompt

    realize = realizer.realize
    seen: list[tuple[Any, ...]] = []

    def spy(*args: Any, **kwargs: Any) -> str:
        seen.append(args)
        return realize(*args, **kwargs)

    replies, prompts = {}, {}
    for s in sessions:
        seen.clear()
        with mock.patch.object(realizer, "realize", spy):
            turns = realizer.realize_session(pack, s, narrate=True)
        rows = [[r.pair, r.tools, r.guidance_id, r.narration, r.reply] for r in turns]
        replies[s.session_id] = _short(rows)
        rendered = []
        for r, (p, _state, c2, c3, outcomes, utterance, *_rest) in zip(turns, seen, strict=True):
            messages, cond = render_reply_prompt(p, utterance, r.narration, c2, c3, list(outcomes))
            rendered.append([messages, cond.model_dump(mode="json")])
        prompts[s.session_id] = _short(rendered)
    return replies, prompts


def _slots(pack: Pack) -> dict[str, str]:
    from voicecoach.bench.slot_rules import bench_cases
    from voicecoach.domain.entities import focus_fields, link_entities
    from voicecoach.grounding.slot_rules import extract_slots
    from voicecoach.grounding.slots import QuerySlots
    from voicecoach.perception.dialogue import Exchange, read_turn

    out = {}
    for cases in bench_cases(pack):
        earlier: QuerySlots | None = None
        previous: str | None = None
        turns = []
        for case in cases:
            mentions = link_entities(pack, case.utterance)
            slots = extract_slots(pack, case.utterance, case.state, earlier)
            turns.append(
                [
                    [[m.id, m.kind, m.surface, m.span] for m in mentions],
                    focus_fields(mentions, pack),
                    read_turn(
                        pack, case.state, case.utterance, [Exchange(previous, "")] if previous else []
                    ).text,
                    slots.model_dump(mode="json"),
                ]
            )
            earlier, previous = slots, case.utterance
        out[cases[0].session_id] = _short(turns)
    return out


def _prior(pack: Pack) -> dict[str, str]:
    from voicecoach.bench.prior import coachbench_utterances
    from voicecoach.perception.prior import IntentPrior

    prior = IntentPrior.load(pack)
    by_session: dict[str, list[Any]] = {}
    previous: tuple[str, str] | None = None
    for item in coachbench_utterances(pack, 7):
        turns = by_session.setdefault(item.session, [])
        pred = prior.predict(item.text, previous=previous if turns else None)
        turns.append(pred.model_dump(mode="json"))
        previous = (pred.intent, pred.sub_intent)
    return {sid: _short(turns) for sid, turns in by_session.items()}


def _calibration(pack: Pack, sessions: list[Any]) -> dict[str, str]:
    from voicecoach.bench.coachbench.calibration import judge, load_calibration

    by_id = {s.session_id: s for s in sessions}
    out, failures = {}, []
    for record in load_calibration(CALIBRATION):
        verdict = judge(pack, by_id, record)
        out[record.id] = "pass" if verdict.passed else "fail: " + ", ".join(f.rule for f in verdict.failures)
        failures.append([record.id, [f.model_dump(mode="json") for f in verdict.failures]])
    return {**out, "failures_with_evidence": _sha(failures)}


def _set(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    *parents, last = path.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[int(last) if isinstance(node, list) else last] = value
    return data


def _check_state(pack: Pack, example: dict[str, Any]) -> dict[str, str]:
    def verdict(data: dict[str, Any]) -> str:
        try:
            check_state(pack, load_state(data))
        except StateError as err:
            return str(err)
        return "ok"

    return {"example": verdict(example)} | {
        f"{path}={json.dumps(value)}": verdict(_set(example, path, value)) for path, value in BROKEN_STATES
    }


def _pack_check() -> dict[str, str]:
    from voicecoach.app.packcheck import check_pack

    return {
        f"{i:02d} {f.check}": f"{f.status}: {f.detail}"
        for i, f in enumerate(check_pack(PACKS_DIR / "pet_arena"))
    }


@cache
def golden() -> dict[str, dict[str, str]]:
    """Every pin, by group (computed once per process: about 8 s)."""
    from voicecoach.bench.coachbench.generator import generate

    pack = load_pack()
    sessions = generate(7, pack)
    example = json.loads(example_state_path().read_text(encoding="utf-8"))
    realized, reply_prompts = _realize(pack, sessions)
    return {
        "prompts": _prompts(pack),
        "coachbench": _coachbench(pack),
        "pack_files": _pack_files(pack),
        "realize": realized,
        "reply_prompt": reply_prompts,
        "slots": _slots(pack),
        "prior": _prior(pack),
        "calibration": _calibration(pack, sessions),
        "check_state": _check_state(pack, example),
        "state_dump": {
            "example": _sha(load_state(example).model_dump_json()),
            "empty": _sha(LiveState().model_dump_json()),
        },
        "pack_check": _pack_check(),
    }


def _expected() -> dict[str, dict[str, str]]:
    return json.loads(EXPECTED.read_text(encoding="utf-8"))


GROUPS = ("prompts", "coachbench", "pack_files", "realize", "reply_prompt", "slots", "prior", "calibration",
          "check_state", "state_dump", "pack_check")  # fmt: skip


@pytest.mark.parametrize("group", GROUPS)
def test_pet_arena_output_is_what_was_pinned(group: str) -> None:
    want, have = _expected().get(group, {}), golden()[group]
    changed = sorted(k for k in want.keys() | have.keys() if want.get(k) != have.get(k))
    detail = "; ".join(f"{k}: {want.get(k)!r} -> {have.get(k)!r}" for k in changed[:5])
    assert not changed, f"{group}: {len(changed)} of {len(want)} pins changed: {detail}"


def test_the_record_has_every_group() -> None:
    assert sorted(_expected()) == sorted(GROUPS) == sorted(golden())


def test_every_broken_state_is_refused_and_the_example_passes() -> None:
    verdicts = dict(golden()["check_state"])
    assert verdicts.pop("example") == "ok"
    assert all(v.startswith("invalid state snapshot: ") for v in verdicts.values()), verdicts


if __name__ == "__main__":
    json.dump(golden(), sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
    sys.stdout.write("\n")
