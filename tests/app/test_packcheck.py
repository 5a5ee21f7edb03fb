"""`voicecoach pack check` / `pack new`: the real pack passes, broken copies are reported in full
(file and entry named, non-zero exit, no traceback), and the skeleton loads and lists its to-dos."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from voicecoach.app.cli import main as cli_main
from voicecoach.app.packcheck import CHECKS, MIN_PARAPHRASES, Finding, check_pack
from voicecoach.app.packnew import new_pack
from voicecoach.bench import prior
from voicecoach.core.state import load_state
from voicecoach.domain.entities import link_entities
from voicecoach.domain.pack import PACKS_DIR, load_pack_from

PET_ARENA = PACKS_DIR / "pet_arena"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "pet_arena"
    shutil.copytree(PET_ARENA, folder)
    return folder


def _edit(folder: Path, file: str, edit: Callable[[Any], None]) -> None:
    path = folder / file
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _bad(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.status != "ok"]


def _entry(data: list[dict[str, Any]], pair: str) -> dict[str, Any]:
    return next(e for e in data if f"{e['intent']}/{e['sub_intent']}" == pair)


def test_pet_arena_passes_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    findings = check_pack(PET_ARENA)
    assert _bad(findings) == []
    assert [f.check for f in findings] == list(CHECKS)  # one ok row per check
    assert cli_main(["pack", "check", "pet_arena"]) == 0  # an installed pack by id
    out = capsys.readouterr().out
    assert "| check | status | detail |" in out and "| intent prior | ok |" in out
    assert "The pack passes every check." in out


def test_a_broken_copy_is_reported_in_full_naming_file_and_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(tmp_path)

    def phi(data: list[dict[str, Any]]) -> None:
        _entry(data, "lineup/build")["tools"].append({"tool": "summon_dragon", "args": {}})
        _entry(data, "lineup/build").pop("answer")  # and nothing says how it is answered
        _entry(data, "creature/info")["tools"][0]["args"] = {}  # get_creature's `creature` left unbound
        _entry(data, "meta/patch")["requires"] = ["static.persona"]  # a real path, not a decision field

    def paraphrases(data: list[dict[str, Any]]) -> None:
        _entry(data, "smalltalk/thanks")["utterances"] = ["thanks", "cheers", "ty"]

    def templates(data: dict[str, Any]) -> None:
        data["paragraphs"]["guidance"]["templates"]["counter"][0] += " Spend {mana} first."

    def w3(data: dict[str, Any]) -> None:
        data["branches"]["teaching"]["pool"] = []
        data["branches"]["knowledge-qa"]["pool"][0]["requires"] = ["ic.match.oponent_lineup"]  # a typo
        data["branches"]["knowledge-qa"]["pool"][1]["requires"] = ["sh.metas"]  # the coach's own slice

    _edit(folder, "phi.json", phi)
    _edit(folder, "paraphrases.json", paraphrases)  # also makes prior.json stale
    _edit(folder, "templates.json", templates)
    _edit(folder, "w3.json", w3)

    bad = {(f.check, f.status, f.detail) for f in _bad(check_pack(folder))}
    assert ("Φ table", "error", "phi.json: entry 'lineup/build': unknown tool 'summon_dragon'") in bad
    assert (
        "Φ table",
        "error",
        "phi.json: entry 'creature/info': get_creature needs 'creature', Φ does not bind it",
    ) in bad
    assert (
        "Φ table",
        "error",
        "phi.json: entry 'meta/patch': 'static.persona' is not a decision field (ic.* or fs.*)",
    ) in bad
    assert (
        "paraphrases",
        "missing",
        f"paraphrases.json: entry 'smalltalk/thanks': 3 paraphrases, at least {MIN_PARAPHRASES} needed",
    ) in bad
    assert (
        "templates",
        "error",
        "templates.json: entry 'guidance/counter[0]': unknown placeholder {mana}",
    ) in bad
    assert any(c == "W3 pools" and d.startswith("w3.json: entry 'teaching': empty pool") for c, _, d in bad)
    qa = json.loads((folder / "w3.json").read_text(encoding="utf-8"))["branches"]["knowledge-qa"]["pool"]
    assert (
        "W3 pools",
        "error",
        f"w3.json: entry 'knowledge-qa/{qa[0]['id']}': unknown state field 'ic.match.oponent_lineup'",
    ) in bad
    assert (
        "W3 pools",
        "error",
        f"w3.json: entry 'knowledge-qa/{qa[1]['id']}': 'sh.metas' is not a decision field (ic.* or fs.*)",
    ) in bad
    stale = [d for c, s, d in bad if c == "intent prior" and s == "error"]
    assert len(stale) == 1 and stale[0].startswith("prior.json: trained for data_sha256")
    assert f"--pack {folder.resolve()}" in stale[0]  # a copy outside voicecoach/packs: by its folder
    # Its answer steps gone, the tool-using pair has no answer at all.
    assert (
        "templates",
        "missing",
        "phi.json: entry 'lineup/build': uses tools and has no answer steps",
    ) in bad
    # ... and each answer step that says that template: its recipe does not fill {mana} either.
    steps = {(c, s, d) for c, s, d in bad if "(pick_best): template guidance/counter uses {mana}" in d}
    assert ("Φ table", "error", "phi.json: entry 'creature/counters': answer[3] (pick_best): template "
            "guidance/counter uses {mana}, which pick_best does not fill") in steps  # fmt: skip
    assert len(bad - steps) == 10  # and nothing else: the untouched checks still pass

    assert cli_main(["pack", "check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "unknown tool 'summon_dragon'" in out and f"{len(bad)} problem(s)" in out
    assert "Traceback" not in out


def test_a_stale_prior_alone_fails_the_check(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    # Same pairs and counts, one utterance reworded: the prior no longer matches its training data.
    _edit(
        folder, "paraphrases.json", lambda d: _entry(d, "smalltalk/thanks")["utterances"].__setitem__(0, "ta")
    )
    bad = _bad(check_pack(folder))
    assert [(f.check, f.status) for f in bad] == [("intent prior", "error")]
    assert "trained for data_sha256" in bad[0].detail


def test_a_prior_without_a_new_pair_is_stale_although_its_data_hash_matches(tmp_path: Path) -> None:
    # A Φ pair with no example and no paraphrases adds no training data (the hash is unchanged),
    # yet the prior cannot predict it.
    folder = _copy(tmp_path)
    new = {"intent": "meta", "sub_intent": "events", "tools": [], "branch": "knowledge-qa"}
    _edit(folder, "phi.json", lambda d: d.append(new))
    bad = {(f.check, f.status, f.detail.split(";")[0]) for f in _bad(check_pack(folder))}
    assert (
        "intent prior",
        "error",
        "prior.json: trained on other Φ pairs (cannot predict meta/events)",
    ) in bad
    assert ("narrations", "missing", "narrations.json: entry 'meta/events': no narration phrase") in bad
    assert any(c == "paraphrases" and "'meta/events': 0 paraphrases" in d for c, _, d in bad)


def test_a_missing_prior_is_missing_not_an_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "prior.json").unlink()
    bad = _bad(check_pack(folder))
    assert [(f.check, f.status) for f in bad] == [("intent prior", "missing")]
    assert f"python -m voicecoach.bench.prior train --pack {folder.resolve()}" in bad[0].detail


def test_a_file_that_does_not_read_is_one_failed_check_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(tmp_path)
    (folder / "w3.json").write_text('{"version": "1", "branches": ', encoding="utf-8")
    findings = check_pack(folder)
    assert [(f.check, f.status) for f in findings] == [("files", "error")]
    assert findings[0].detail.startswith("w3.json: not valid JSON")
    (folder / "w3.json").unlink()
    assert check_pack(folder)[0].status == "missing"
    assert cli_main(["pack", "check", str(tmp_path / "no_such_pack")]) == 1
    assert "not a pack folder" in capsys.readouterr().out


def test_pack_new_writes_a_pack_that_passes_once_its_prior_is_trained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "card_duel"
    assert cli_main(["pack", "new", str(folder)]) == 0
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# Card Duel")
    pack = load_pack_from(folder)  # a valid pack
    assert pack.pack_id == "card_duel"

    # The schema layout: schema.json names the kinds and their files, tools.json instantiates
    # builtins, every tool-using Φ pair has answer steps; none of pet_arena's classic files.
    written = {p.name for p in folder.iterdir()}
    assert {"schema.json", "units.json", "abilities.json", "teams.json", "counters.json", "tools.json",
            "example_state.json"} <= written  # fmt: skip
    assert not written & {"elements.json", "skills.json", "creatures.json", "lineups.json"}
    schema = pack.catalog.schema
    assert schema.state == "collection"
    assert {role: schema.kind(role) for role in ("unit", "option", "group")} == {
        "unit": "unit", "option": "ability", "group": "team"
    }  # fmt: skip
    assert [m.name for m in schema.matchups] == ["counters"]
    assert set(pack.tools) == set(pack.builtin_tools)  # every tool a builtin: no game server needed
    assert all(e.answer for e in pack.phi if e.tools)
    for name in written - {"README.md"}:
        assert name in readme  # the README says what each file is

    # Before the prior is trained, that is all pack check asks for.
    bad = _bad(check_pack(folder))
    assert [(f.check, f.status) for f in bad] == [("intent prior", "missing")]
    assert f"train --pack {folder.resolve()}" in bad[0].detail
    capsys.readouterr()
    assert cli_main(["pack", "check", str(folder)]) == 1
    assert "Traceback" not in capsys.readouterr().out

    # Trained for the folder (by its path, as --pack takes it), every check passes.
    assert prior.main(["train", "--pack", str(folder)]) == 0
    assert (folder / "prior.json").is_file()
    findings = check_pack(folder)
    assert _bad(findings) == [] and [f.check for f in findings] == list(CHECKS)
    assert cli_main(["pack", "check", str(folder)]) == 0
    assert "The pack passes every check." in capsys.readouterr().out


def test_the_new_pack_answers_its_pairs_with_the_generic_recipes(tmp_path: Path) -> None:
    """Every pair of a fresh `pack new` is answered on a small state through the realizer's whole path
    (Φ's early dispatch, the builtin tools, W2, W3, the realization): the team build names units the
    player owns, not the generic sentence."""
    from tests.talker.test_realize_every_pair import realize_one
    from voicecoach.domain.pack import check_state

    pack = load_pack_from(new_pack(tmp_path / "card_duel"))
    units = pack.catalog.entities["unit"]
    owned = ["blaze", "bulwark", "viper"]  # two attackers (Blaze the stronger) and a defender
    state = load_state({
        "fs": {"player_level": 6, "collection": {"units": [{"id": u, "level": 4} for u in owned]}},
        "ic": {"match": {"round": 1, "player_lineup": ["blaze", "bulwark"], "opponent_lineup": ["viper"]}},
    })  # fmt: skip
    check_state(pack, state)  # a state the game may push
    entry = {f"{e.intent}/{e.sub_intent}": e for e in pack.phi}
    generic = pack.templates.paragraphs["guidance"].generic

    team = realize_one(pack, state, entry["team/build"], entry["team/build"].example)
    assert team.tools == ("get_collection", "suggest_team") and team.failures == ()
    named = {m.id for m in link_entities(pack, team.reply) if m.kind == "unit"}
    # A team of two in the quota (an attacker and a defender): Bulwark, and Blaze, the stronger attacker.
    assert named == {"blaze", "bulwark"}, team.reply
    assert generic not in team.reply and team.reply.startswith("From your units, run"), team.reply

    counter = realize_one(pack, state, entry["unit/counter"], "who do i send against them")
    # counters.json: Bulwark counters Viper, whom the opponent fields.
    assert counter.reply.startswith(f"Against {units['viper'].name}, play {units['bulwark'].name}."), (
        counter.reply
    )

    name = units["blaze"].name
    info = realize_one(pack, state, entry["unit/info"], f"tell me about {name}")
    assert info.reply.startswith(f"{name} is {units['blaze'].value('summary')}"), info.reply

    hello = realize_one(pack, state, entry["smalltalk/greeting"], "hey coach")
    assert hello.reply in pack.templates.answers["smalltalk/greeting"]

    # Speakable and grounded on the skeleton's own example state too, with the tools run or failed.
    example = load_state(json.loads((tmp_path / "card_duel" / "example_state.json").read_text("utf-8")))
    check_state(pack, example)
    for fail in (False, True):
        for e in pack.phi:
            said = realize_one(pack, example, e, e.example, fail)
            assert said.reply.strip() and said.failures == (), (said.pair, said.reply, said.failures)


def test_pack_new_refuses_an_existing_folder_and_a_bad_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = new_pack(tmp_path / "card_duel")
    (folder / "phi.json").write_text("[]", encoding="utf-8")  # the author's work so far
    assert cli_main(["pack", "new", str(folder)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (folder / "phi.json").read_text(encoding="utf-8") == "[]"  # untouched
    with pytest.raises(ValueError, match="lowercase letters"):
        new_pack(tmp_path / "Card Duel!")
    assert not (tmp_path / "Card Duel!").exists()


def test_a_prior_with_the_right_stamps_but_a_broken_body_is_an_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit(folder, "prior.json", lambda d: d.pop("vocab"))
    bad = _bad(check_pack(folder))
    assert [(f.check, f.status) for f in bad] == [("intent prior", "error")]
    assert bad[0].detail.startswith("prior.json: not a valid prior (KeyError('vocab'))")


def test_chat_and_serve_name_an_unknown_pack_before_starting_anything() -> None:
    for command in (["chat", "--pack", "no_such_game"], ["serve", "--pack", "no_such_game", "--port", "0"]):
        with pytest.raises(
            SystemExit, match=r"no pack 'no_such_game': not a pack folder, nor an installed pack"
        ):
            cli_main(command)


# --- a pack that cannot answer fails; a prefill threshold of 0 is a warning --------------------


def _new(tmp_path: Path) -> Path:
    folder = new_pack(tmp_path / "card_duel")
    assert prior.main(["train", "--pack", str(folder)]) == 0
    assert _bad(check_pack(folder)) == []
    return folder


def test_a_pair_with_no_sentence_to_say_fails_the_check(tmp_path: Path) -> None:
    folder = _new(tmp_path)

    def templates(data: dict[str, Any]) -> None:
        data["paragraphs"]["guidance"]["templates"]["counter"] = [" "]  # the counter answer: blank
        data["answers"]["smalltalk/greeting"] = [" "]  # a blank one is none

    _edit(folder, "templates.json", templates)
    bad = {(f.check, f.status, f.detail) for f in _bad(check_pack(folder))}
    assert bad == {
        ("templates", "error", "phi.json: entry 'unit/counter': answer[0] (pick_best): template "
         "guidance/counter has no sentence"),
        ("templates", "error", "templates.json: answers 'smalltalk/greeting': no sentence, the pair cannot "
         "be answered"),
    }  # fmt: skip

    # A tool-less pair nothing words at all: no answer steps, no answers entry.
    _edit(folder, "templates.json", lambda d: d["answers"].pop("smalltalk/greeting"))
    details = {f.detail for f in _bad(check_pack(folder))}
    assert (
        "phi.json: entry 'smalltalk/greeting': no tools, no answer steps and no templates.json answers: "
        "it cannot be answered" in details
    )
    assert cli_main(["pack", "check", str(folder)]) == 1


def test_a_pack_without_the_out_of_domain_pair_fails_the_check(tmp_path: Path) -> None:
    folder = _new(tmp_path)
    _edit(folder, "paraphrases.json", lambda d: d.remove(_entry(d, "other/other")))
    _edit(folder, "templates.json", lambda d: d["answers"].pop("other/other"))
    bad = {(f.check, f.status, f.detail) for f in _bad(check_pack(folder))}
    assert ("paraphrases", "error", f"paraphrases.json: entry 'other/other': 0 off-topic utterances, at "
            f"least {MIN_PARAPHRASES} needed: without them an off-topic question is answered as one of the "
            "game's pairs") in bad  # fmt: skip
    assert ("templates", "error", "templates.json: answers 'other/other': no sentence for an off-topic "
            "question") in bad  # fmt: skip
    # (and the prior, trained with other/other, no longer matches the data)
    assert {c for c, _, _ in bad} == {"paraphrases", "templates", "intent prior"}


def test_a_prefill_threshold_of_zero_is_a_warning_and_the_pack_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _new(tmp_path)
    _edit(folder, "prior.json", lambda d: d.__setitem__("threshold", 0.0))  # stamps unchanged: still valid
    findings = check_pack(folder)
    warned = [f for f in findings if f.status == "warning"]
    assert [(f.check, f.detail.split(":")[0]) for f in warned] == [("intent prior", "prior.json")]
    assert "prefill threshold 0.000" in warned[0].detail
    capsys.readouterr()
    assert cli_main(["pack", "check", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "| intent prior | warning |" in out and "The pack passes every check (1 warning(s))." in out
