"""Session: state pushes, turn snapshots and freshness, commit and resume."""

import pytest

from tests.conftest import STATE
from voicecoach.coach.session import MAX_UTTERANCE_CHARS, Session
from voicecoach.coach.store import SQLiteSessionStore, TurnRecord
from voicecoach.core.state import AnswerMeta, StateError, field_status
from voicecoach.domain.pack import Pack
from voicecoach.perception.dialogue import Exchange


def _meta(turn: int) -> AnswerMeta:
    return AnswerMeta(
        turn_index=turn, branch="teaching", guidance_type="tip", seed=1, candidate_pool_hash="x"
    )


def test_bad_patch_names_the_field_and_keeps_the_state(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    session.update_state(snapshot=STATE)
    before = session.state
    with pytest.raises(StateError, match="fs.player_level"):
        session.update_state(patch={"fs": {"player_level": "high"}})
    assert session.state == before


def test_game_cannot_overwrite_session_history(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    session.commit_turn(TurnRecord(session_id="s", turn_index=0, meta=_meta(0)))
    session.update_state(snapshot={**STATE, "sh": {"metas": []}})
    assert [m.turn_index for m in session.state.sh.metas] == [0]


def test_turn_snapshot_links_entities_and_is_fresh(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    session.update_state(snapshot=STATE)
    turn = session.begin_turn("can emberfox beat oakhorn?")
    assert turn.snapshot.ic.mentioned_creatures == ["emberfox", "oakhorn"]
    assert field_status(turn.snapshot, "ic.match.opponent_lineup", turn.index) == "fresh"


def test_stale_push_disables_freshness(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    session.update_state(snapshot={**STATE, "turn_index": 0, "stale": True})
    session.begin_turn("hi")
    turn = session.begin_turn("what counters them?")
    assert field_status(turn.snapshot, "ic.match.opponent_lineup", turn.index) == "stale"


def test_push_mid_turn_refreshes_the_turn_snapshot(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    no_match = {k: v for k, v in STATE.items() if k != "ic"}
    session.update_state(snapshot=no_match)
    turn = session.begin_turn("what counters them?")
    assert field_status(turn.snapshot, "ic.match.opponent_lineup", turn.index) == "missing"
    session.update_state(patch={"ic": STATE["ic"]})
    assert field_status(turn.snapshot, "ic.match.opponent_lineup", turn.index) == "fresh"
    assert turn.snapshot.ic.focus_creature is None  # the turn's own links survive the refresh


def test_resume_from_store(pack: Pack, tmp_path) -> None:
    store = SQLiteSessionStore(tmp_path / "s.db")
    session = Session.open("s", store=store, pack=pack)
    session.update_state(snapshot=STATE)
    for i in range(2):
        session.begin_turn("hi")
        session.commit_turn(TurnRecord(session_id="s", turn_index=i, meta=_meta(i)))
    again = Session.open("s", store=SQLiteSessionStore(tmp_path / "s.db"), pack=pack)
    assert again.next_turn == 2
    assert [m.model_dump_json() for m in again.state.sh.metas] == [
        _meta(0).model_dump_json(),
        _meta(1).model_dump_json(),
    ]
    assert again.state.fs == session.state.fs


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"fs": {"inventory": {"owned": [{"creature_id": "nosuchpet"}]}}}, "owned.0.creature_id"),
        ({"fs": {"inventory": {"owned": [{"creature_id": "emberfox", "stage": 9}]}}}, "owned.0.stage"),
        ({"fs": {"inventory": {"owned": [{"creature_id": "emberfox", "level": 999}]}}}, "owned.0.level"),
        (
            {"fs": {"inventory": {"owned": [{"creature_id": "emberfox", "unlocked_skills": ["tide_slap"]}]}}},
            "owned.0.unlocked_skills",
        ),
        ({"fs": {"player_level": 10**400}}, "fs.player_level"),
        ({"ic": {"match": {"round": 1, "opponent_lineup": ["ghost"]}}}, "ic.match.opponent_lineup"),
        ({"ic": {"match": {"round": 4, "rounds_total": 3}}}, "ic.match.round"),
    ],
)
def test_push_checked_against_the_pack_names_the_field(pack: Pack, patch: dict, field: str) -> None:
    session = Session.open("s", pack=pack)
    session.update_state(snapshot=STATE)
    before = session.state
    with pytest.raises(StateError, match=field.replace(".", r"\.")):
        session.update_state(patch=patch)
    assert session.state == before


def test_overlong_utterance_is_cut_before_any_prompt(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    turn = session.begin_turn("which pet " * 20_000)
    assert len(turn.utterance) == MAX_UTTERANCE_CHARS


def test_the_previous_pair_is_the_last_turn_the_player_heard(pack: Pack) -> None:
    """'Anything else?' asks the previous pair again: only a reply heard to the end sets it."""
    session = Session.open("s", pack=pack)
    assert session.last_pair is None
    heard = TurnRecord(session_id="s", turn_index=0, intent="lineup", sub_intent="counter")
    session.commit_turn(heard)
    assert session.last_pair == ("lineup", "counter")
    cut = TurnRecord(session_id="s", turn_index=1, intent="creature", sub_intent="info", completed=False)
    session.commit_turn(cut)
    assert session.last_pair == ("lineup", "counter")


def test_a_resumed_session_goes_on_from_the_last_turn_the_player_heard(pack: Pack, tmp_path) -> None:
    store = SQLiteSessionStore(tmp_path / "s.db")
    session = Session.open("s", store=store, pack=pack)
    heard = TurnRecord(
        session_id="s", turn_index=0, intent="lineup", sub_intent="counter", reply="Go with Briarcat."
    )
    session.commit_turn(heard)
    cut = TurnRecord(session_id="s", turn_index=1, intent="creature", sub_intent="info", completed=False)
    session.commit_turn(cut)
    again = Session.open("s", store=SQLiteSessionStore(tmp_path / "s.db"), pack=pack)
    assert (again.last_pair, again.last_reply) == (("lineup", "counter"), "Go with Briarcat.")
    assert again.recent_replies == ["Go with Briarcat."]  # the cut reply was not heard
    assert Session.open("new", store=store, pack=pack).last_pair is None


def test_the_session_keeps_its_last_few_heard_replies(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    for i in range(8):
        session.commit_turn(TurnRecord(session_id="s", turn_index=i, reply=f"reply {i}"))
    session.commit_turn(TurnRecord(session_id="s", turn_index=8, reply="cut", completed=False))
    assert session.recent_replies == [f"reply {i}" for i in range(2, 8)]  # RECENT_REPLIES, heard ones
    assert session.last_reply == "reply 7"


def test_a_turn_reads_a_pronoun_as_what_the_last_heard_turn_named(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    session.commit_turn(TurnRecord(session_id="s", turn_index=0, utterance="what does Riptide do?"))
    turn = session.begin_turn("how do I unlock it?")
    assert turn.utterance == "how do I unlock Riptide?" and turn.links["focus_skill"] == "riptide"
    cut = TurnRecord(session_id="s", turn_index=1, utterance="what about Emberfox", completed=False)
    session.commit_turn(cut)  # not heard to the end: "it" still refers to Riptide
    assert session.begin_turn("is it locked").utterance == "is Riptide locked"


def test_speech_that_resumes_right_after_a_transcript_continues_its_utterance(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    first = session.begin_turn("We took round one.")
    resumed = session.begin_turn("Keep the same team?", speech_started=first.started + 0.4)
    assert resumed.utterance == "We took round one. Keep the same team?" and resumed.index == 1
    assert resumed.continues and not first.continues  # acknowledged once (the Talker reads it)
    later = session.begin_turn("What about Emberfox?", speech_started=resumed.started + 3.0)
    assert later.utterance == "What about Emberfox?"  # the player waited for the answer: a new question
    typed = session.begin_turn("and Tidefang?")  # text: no speech timing, never merged
    assert typed.utterance == "and Tidefang?"


def test_misheard_names_are_repaired_before_the_turn_reads_them(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    session.update_state(snapshot=STATE)
    turn = session.begin_turn("Should I use Infernal War with Ember Fox?")
    assert turn.utterance == "Should I use Inferno Roar with Ember Fox?"
    assert turn.transcript == "Should I use Infernal War with Ember Fox?"
    assert turn.repaired == (("Infernal War", "Inferno Roar"),)
    assert turn.snapshot.ic.focus_skill == "inferno_roar"  # linked from the repaired text


def test_the_repair_reads_the_sessions_last_utterances(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    session.update_state(snapshot=STATE)
    assert session.begin_turn("When should I use Gale by?").repaired == ()
    session.commit_turn(TurnRecord(session_id="s", turn_index=1, utterance="How do I evolve Galehawk?"))
    turn = session.begin_turn("When should I use Gale by?")
    assert turn.utterance == "When should I use Gale Dive?" and turn.snapshot.ic.focus_skill == "gale_dive"


def test_a_clean_utterance_is_kept_as_said(pack: Pack) -> None:
    turn = Session.open("s", pack=pack).begin_turn("do I drop them first in this round?")
    assert turn.utterance == turn.transcript == "do I drop them first in this round?"
    assert turn.repaired == ()


def test_why_is_about_what_the_last_question_named(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    session.update_state(snapshot=STATE)
    session.dialogue = [
        Exchange("can my emberfox take their briarcat", "Against Briarcat, Emberfox deals double damage.")
    ]
    turn = session.begin_turn("why?")
    assert turn.snapshot.ic.mentioned_creatures == ["emberfox", "briarcat"]
    assert session.begin_turn("what's good?").snapshot.ic.mentioned_creatures == []  # not a why


def test_a_few_words_asking_about_nothing_named_are_about_the_last_exchange(pack: Pack) -> None:
    session = Session.open("s", pack=pack)
    session.update_state(snapshot=STATE)
    # The question named a skill; its answer named the one creature that has it.
    session.dialogue = [
        Exchange("whats phoenix rite", "Phoenix Rite is a support move. Phoenix Rite needs Pyralis.")
    ]
    turn = session.begin_turn("worth grinding for?")
    assert turn.links.get("focus_creature") == "pyralis", turn.links
    assert session.begin_turn("ok cool").links.get("focus_creature") is None  # an acknowledgement
