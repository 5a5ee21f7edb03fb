"""The intent prior: training data kept apart from the test sets, byte-for-byte retraining, the
prior file checks, calibration and the prefill decision."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from voicecoach.bench.dialogue import load_suite
from voicecoach.bench.prior import (
    coachbench_utterances,
    dumps,
    fixture_utterances,
    heldout_utterances,
    train,
    with_fillers,
)
from voicecoach.domain.pack import OUT_OF_DOMAIN, PACKS_DIR, Pack, PackError, load_pack_from
from voicecoach.perception.prior import (
    PRIOR_FILE,
    IntentPrior,
    Prediction,
    PriorError,
    abstract_entities,
    bare_pairs,
    data_hash,
    features,
    prior_path,
    remark,
    session_rule,
    training_data,
)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", "", text.lower().replace("-", " ")).split())


@pytest.fixture(scope="module")
def prior() -> IntentPrior:
    from voicecoach.domain.pack import load_pack

    return IntentPrior.load(load_pack())


# --- training data ---------------------------------------------------------------------------------


def test_every_phi_pair_has_at_least_15_paraphrases(pack: Pack) -> None:
    counts = {(p.intent, p.sub_intent): len(set(p.utterances)) for p in pack.paraphrases}
    assert set(counts) == {(e.intent, e.sub_intent) for e in pack.phi} | {OUT_OF_DOMAIN}
    assert min(counts.values()) >= 15, min(counts.items(), key=lambda kv: kv[1])
    assert sum(counts.values()) >= 800


def test_no_test_utterance_is_in_the_training_data(pack: Pack) -> None:
    """CoachBench (generated, all sessions, scored or not), the audio fixtures and the dialogue
    suites of both packs are test sets."""
    train_set = {_norm(ex.text) for ex in training_data(pack)}
    tests = [u.text for seed in (7, 11) for u in coachbench_utterances(pack, seed)]
    tests += [u.text for u in fixture_utterances()]
    tests += [u.text for u in heldout_utterances()]
    tests += [
        t.say for pid in ("pet_arena", "strike_team") for s in load_suite(pid).sessions for t in s.turns
    ]
    assert len(tests) > 1000
    leaked = sorted({t for t in tests if _norm(t) in train_set})
    assert leaked == [], leaked[:10]


def test_the_leak_check_normalises_case_and_punctuation() -> None:
    assert _norm("Who's WINNING, coach?!") == _norm("whos winning coach")
    assert _norm("who is winning") != _norm("whos winning")


def _pack_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "pet_arena"
    shutil.copytree(PACKS_DIR / "pet_arena", folder)
    return folder


def test_paraphrase_of_an_unknown_pair_names_file_and_entry(tmp_path: Path) -> None:
    folder = _pack_copy(tmp_path)
    path = folder / "paraphrases.json"
    data = json.loads(path.read_text())
    data.append({"intent": "lineup", "sub_intent": "teleport", "utterances": ["beam me up"]})
    path.write_text(json.dumps(data))
    with pytest.raises(PackError, match=r"paraphrases\.json: entry 'lineup/teleport': not a registered"):
        load_pack_from(folder)


def test_paraphrase_entry_without_utterances_names_file_and_entry(tmp_path: Path) -> None:
    folder = _pack_copy(tmp_path)
    path = folder / "paraphrases.json"
    data = json.loads(path.read_text())
    data[0]["utterances"] = []
    path.write_text(json.dumps(data))
    with pytest.raises(PackError, match=r"paraphrases\.json: entry 'lineup/build'"):
        load_pack_from(folder)


# --- features --------------------------------------------------------------------------------------


def test_linked_names_become_their_kind(pack: Pack) -> None:
    assert abstract_entities(pack, "What's Pyrowl?") == "whats xcreaturex"
    assert abstract_entities(pack, "when do i use tide slap on fire") == "when do i use xskillx on xelementx"
    # A name the linker does not know stays a word (the char n-grams still see it).
    assert abstract_entities(pack, "tell me about pie rowl") == "tell me about pie rowl"


def test_features_are_word_and_char_ngrams() -> None:
    feats = features("who beats")
    assert "w:who beats" in feats and "w:who" in feats
    assert "c: wh" in feats and "c:ats " in feats
    assert len(feats) == len(set(feats))


# --- the trained file --------------------------------------------------------------------------------


@pytest.mark.slow
def test_training_reproduces_the_committed_prior_byte_for_byte(pack: Pack) -> None:
    """Retrains from pack data (5 folds + the final fit: ~20-30 s on this 2-core machine)."""
    committed = prior_path(pack).read_bytes()
    assert dumps(train(pack)).encode() == committed


def test_missing_prior_file_names_it(tmp_path: Path, pack: Pack) -> None:
    missing = tmp_path / PRIOR_FILE
    with pytest.raises(PriorError, match=re.escape(str(missing)) + ".*missing"):
        IntentPrior.load(pack, missing)


def test_prior_from_another_pack_version_is_refused(tmp_path: Path, pack: Pack) -> None:
    doc = json.loads(prior_path(pack).read_text())
    doc["pack_version"] = "0.9.0"
    stale = tmp_path / PRIOR_FILE
    stale.write_text(json.dumps(doc))
    with pytest.raises(PriorError, match=re.escape(str(stale)) + ".*pack_version '0.9.0'"):
        IntentPrior.load(pack, stale)


def test_prior_trained_on_other_data_is_refused(tmp_path: Path) -> None:
    folder = _pack_copy(tmp_path)
    path = folder / "paraphrases.json"
    data = json.loads(path.read_text())
    data[0]["utterances"].append("a brand new way to ask for a team")
    path.write_text(json.dumps(data))
    changed = load_pack_from(folder)
    with pytest.raises(PriorError, match="data_sha256"):
        IntentPrior.load(changed)  # the committed prior.json, trained before the edit


def test_garbage_prior_file_names_it(tmp_path: Path, pack: Pack) -> None:
    bad = tmp_path / PRIOR_FILE
    bad.write_text("{not json")
    with pytest.raises(PriorError, match=re.escape(str(bad))):
        IntentPrior.load(pack, bad)


# --- predictions ------------------------------------------------------------------------------------


def test_predicts_training_phrases(prior: IntentPrior, pack: Pack) -> None:
    for entry in pack.phi:
        pred = prior.predict(entry.example)
        assert (pred.intent, pred.sub_intent) == (entry.intent, entry.sub_intent), entry.example
        assert 0.0 <= pred.confidence <= 1.0


# Requests outside the game, written for this test only (not in paraphrases.json): the prior
# labels them other/other, and the realizer says what the coach is for instead of advising.
OUTSIDE_THE_GAME = [
    "could you make the music quieter", "what's the forecast for the weekend", "crack a joke for me",
    "who painted the mona lisa", "how do i boil an egg", "switch off the alarm",
    "what's playing at the cinema", "my keyboard stopped working", "what's the date tomorrow",
    "do you like cats", "mute the sound effects", "how do i download the update on steam", "call my dad",
    "how many planets are there",
]  # fmt: skip


def test_blind_heldout_utterances_are_labelled(prior: IntentPrior, pack: Pack) -> None:
    """The blind set (4 per pair, written without seeing the training data; the 10 that turned out
    to equal a paraphrase were dropped) covers every pair and is mostly labelled right: 193 of 206
    (93.7 %) with the committed prior; the bar leaves room for a retrain, not for a prior that
    stopped generalising."""
    items = heldout_utterances()
    assert {(u.intent, u.sub_intent) for u in items} == {(e.intent, e.sub_intent) for e in pack.phi} | {
        OUT_OF_DOMAIN
    }
    wrong = [
        u.text
        for u in items
        if (p := prior.predict(u.text)).intent + "/" + p.sub_intent != f"{u.intent}/{u.sub_intent}"
    ]
    assert len(wrong) <= 0.12 * len(items), wrong


def test_requests_outside_the_game_are_labelled_other(prior: IntentPrior) -> None:
    labelled = [
        t for t in OUTSIDE_THE_GAME if (prior.predict(t).intent, prior.predict(t).sub_intent) == OUT_OF_DOMAIN
    ]
    # 10 of 14 with the committed prior: the class has ~100 examples against ~2,900 for the game's
    # 53 pairs, so short requests that share words with game questions ("call", "switch") slip.
    assert len(labelled) >= 0.6 * len(OUTSIDE_THE_GAME), sorted(set(OUTSIDE_THE_GAME) - set(labelled))


def test_game_questions_are_seldom_taken_for_requests_outside_it(prior: IntentPrior, pack: Pack) -> None:
    turns = coachbench_utterances(pack)
    outside = [u.text for u in turns if prior.predict(u.text).intent == OUT_OF_DOMAIN[0]]
    assert len(outside) <= 0.03 * len(turns), outside[:10]  # 17 of 988 (no session rules here), 1.7 %


def test_prefill_follows_the_threshold(pack: Pack) -> None:
    strict = IntentPrior.load(pack, threshold=1.01)  # nothing clears it
    loose = IntentPrior.load(pack, threshold=0.0)  # everything does
    assert strict.prefill("thanks a bunch coach") is None
    pred = loose.predict("thanks a bunch coach")
    assert loose.prefill("thanks a bunch coach") == (pred.intent, pred.sub_intent) == ("smalltalk", "thanks")


def test_confidence_is_monotone_in_the_raw_probability(prior: IntentPrior) -> None:
    """Isotonic calibration: a higher model probability never gets a lower confidence."""
    x, y = prior.calibration
    assert list(x) == sorted(x) and list(y) == sorted(y)
    assert 0.0 <= y[0] and y[-1] <= 1.0


def test_threshold_keeps_heldout_precision(prior: IntentPrior) -> None:
    held = prior.heldout
    assert held["accuracy_above_threshold"] >= 0.9
    assert 0.0 < held["coverage"] <= 1.0


def test_mentions_from_the_caller_give_the_same_prediction(prior: IntentPrior, pack: Pack) -> None:
    from voicecoach.domain.entities import link_entities

    text = "is pyrowl any good against tidefang"
    assert prior.predict(text, link_entities(pack, text)) == prior.predict(text)
    assert prior.predict(text, []) != prior.predict(text)  # the names matter: they are abstracted


# --- session rules --------------------------------------------------------------------------------


def _guess(pair: str, confidence: float = 0.5) -> Prediction:
    intent, sub_intent = pair.split("/")
    return Prediction(intent=intent, sub_intent=sub_intent, confidence=confidence)


@pytest.mark.parametrize(
    "text",
    ["got anything else?", "and a second option", "okay but what's another way", "something different",
     "a different team please"],
)  # fmt: skip
def test_asking_again_keeps_the_previous_recommendation(pack: Pack, text: str) -> None:
    chosen = session_rule(pack, text, _guess("match/opponent_analysis"), ("lineup", "counter"))
    assert chosen is not None and (chosen.intent, chosen.sub_intent, chosen.rule) == (
        "lineup", "counter", "ask_again"
    )  # fmt: skip


def test_asking_again_needs_a_previous_recommendation_and_an_unsure_classifier(pack: Pack) -> None:
    guess = _guess("match/opponent_analysis")
    assert session_rule(pack, "anything else?", guess, None) is None  # first turn
    assert session_rule(pack, "anything else?", guess, ("creature", "owned")) is None  # knowledge-qa
    assert session_rule(pack, "anything else?", guess, ("smalltalk", "thanks")) is None
    sure = _guess("creature/skills", confidence=0.99)
    assert session_rule(pack, "what else does pyrowl learn", sure, ("lineup", "counter")) is None


def test_asking_again_after_a_tip_asks_for_the_next_tip(pack: Pack) -> None:
    """ "Any other tips?" after a positioning tip: the pack words that tip three ways, so the same
    pair is asked again (it was guessed as meta/patch: "I can't see the patch notes")."""
    assert len(pack.templates.answers["teaching/positioning"]) > 1
    chosen = session_rule(pack, "anything else?", _guess("meta/patch"), ("teaching", "positioning"))
    assert chosen is not None and (chosen.intent, chosen.sub_intent, chosen.rule) == (
        "teaching", "positioning", "ask_again"
    )  # fmt: skip


def test_a_constraint_added_to_the_previous_request_keeps_its_pair(pack: Pack) -> None:
    chosen = session_rule(pack, "um and no rockram either", _guess("creature/info"), ("lineup", "build"))
    assert chosen is not None and (chosen.sub_intent, chosen.rule) == ("build", "refine")
    assert session_rule(pack, "what is rockram", _guess("creature/info"), ("lineup", "build")) is None
    back = session_rule(pack, "actually put oakhorn back in", _guess("creature/owned"), ("lineup", "build"))
    assert back is not None and (back.sub_intent, back.rule) == ("build", "refine")


def test_building_around_an_excluded_creature_is_building_without_it(pack: Pack) -> None:
    chosen = session_rule(pack, "make a team without pyrowl", _guess("lineup/build_around"), None)
    assert chosen is not None and (chosen.intent, chosen.sub_intent, chosen.rule) == (
        "lineup", "build", "anchor_excluded"
    )  # fmt: skip
    kept = session_rule(pack, "make a team around pyrowl", _guess("lineup/build_around"), None)
    assert kept is None


def test_a_session_rule_prefills_below_the_threshold(pack: Pack) -> None:
    strict = IntentPrior.load(pack, threshold=1.01)  # nothing the classifier says clears it
    assert strict.prefill("anything else", previous=None) is None
    assert strict.prefill("anything else", previous=("lineup", "counter")) == ("lineup", "counter")


def test_anchor_excluded_naming_an_unknown_pair_names_file_and_entry(tmp_path: Path) -> None:
    folder = _pack_copy(tmp_path)
    path = folder / "phi.json"
    data = json.loads(path.read_text())
    data[0]["anchor_excluded"] = "lineup/teleport"
    path.write_text(json.dumps(data))
    with pytest.raises(
        PackError, match=r"phi\.json: entry 'lineup/build': anchor_excluded 'lineup/teleport'"
    ):
        load_pack_from(folder)


def test_a_row_added_to_the_pack_leaves_the_other_rows_fillers_alone() -> None:
    # Chosen by position, one new paraphrase re-dealt every later row's fillers and moved 16
    # CoachBench labels: the fillers follow each row's own text.
    rows, pairs = ["what team should i run", "how do i level up"], ["lineup/build", "teaching/leveling"]
    before, _ = with_fillers(rows, pairs)
    after, _ = with_fillers(["any tips", *rows], ["teaching/basics", *pairs])
    assert set(before) <= set(after)
    assert len(after) == 9 and len(set(after) - set(before)) == 3


def test_a_short_why_after_a_tool_turn_keeps_its_pair_and_a_long_one_is_its_own(prior: IntentPrior) -> None:
    previous = ("lineup", "counter")
    for text in ("why?", "why that one", "how come", "ok, why not Emberfox then"):
        pred = prior.predict(text, previous=previous)
        assert (pred.intent, pred.sub_intent, pred.rule) == ("lineup", "counter", "why"), (text, pred)
    assert prior.predict("why do I keep losing to fire teams", previous=previous).rule != "why"
    assert (
        prior.predict("why?", previous=("smalltalk", "greeting")).rule != "why"
    )  # no tools: no reason to give


# --- a pack with its own kinds (tests/toy_pack.py) ------------------------------------------------


def test_a_mention_becomes_its_kinds_token_in_any_pack(toy: Pack) -> None:
    text = "is V any good with Longshot on Harbor Point, or should we run Dive"
    assert abstract_entities(toy, text) == "is xherox any good with xitemx on xmapx or should we run xcompx"


def test_a_phi_flag_says_which_pairs_learn_without_fillers(toy: Pack, pack: Pack, tmp_path: Path) -> None:
    # Default: the smalltalk pairs only; pet's data hash (and so its prior.json) is unaffected.
    assert bare_pairs(toy) == {"smalltalk/greeting"}
    assert bare_pairs(pack) == {f"{e.intent}/{e.sub_intent}" for e in pack.phi if e.intent == "smalltalk"}
    rows, pairs = ["build me a team", "hey coach"], ["lineup/build", "smalltalk/greeting"]
    assert len(with_fillers(rows, pairs)[0]) == 4
    assert len(with_fillers(rows, pairs, frozenset({"lineup/build"}))[0]) == 4  # the other way round
    assert with_fillers(rows, pairs, frozenset({"lineup/build"}))[0][2].endswith("hey coach")
    folder = tmp_path / "flagged"
    shutil.copytree(tmp_path / "toy_shooter", folder)  # where the toy fixture wrote it
    phi = json.loads((folder / "phi.json").read_text())
    phi[0]["fillers"] = False
    (folder / "phi.json").write_text(json.dumps(phi))
    flagged = load_pack_from(folder)
    assert bare_pairs(flagged) == {"lineup/build", "smalltalk/greeting"}
    assert data_hash(flagged) != data_hash(toy)  # a flag changes the training, so the hash sees it


def test_a_unit_the_player_says_is_gone_is_not_what_the_question_is_about(prior: IntentPrior) -> None:
    told = prior.predict("oakhorn is gone, i traded it, who do i run?")
    assert told.rule == "told_gone" and told.intent != "creature", told
    # asked about it outright, it still is: no question word after the news
    assert prior.predict("i traded briarcat away, do i still own it").rule is None


def test_a_greeting_before_a_question_is_not_the_request(prior: IntentPrior) -> None:
    assert prior.predict("hey coach what am i up against").intent != "smalltalk"
    assert (prior.predict("hey coach").intent, prior.predict("hello coach how are you doing").intent) == (
        "smalltalk", "smalltalk"
    )  # fmt: skip


def test_asking_for_anyone_against_a_unit_is_the_counter_question(prior: IntentPrior) -> None:
    for text in (
        "do i have anything for voltail",
        "have i got someone that beats voltail",
        "does their team have anything that beats my galehawk",  # theirs against mine: the same pair
    ):
        assert (prior.predict(text).intent, prior.predict(text).sub_intent, prior.predict(text).rule) == (
            "creature", "counters", "has_anyone"
        ), text  # fmt: skip
    assert prior.predict("do i have voltail").rule is None  # whether they own it


def test_taking_one_out_and_putting_another_in_is_the_swap_question(prior: IntentPrior) -> None:
    said = prior.predict("should i take sparkwing out and put hexmoth in")
    assert (said.intent, said.sub_intent, said.rule) == ("lineup", "swap", "out_and_in"), said


def test_one_unit_in_anothers_place_is_the_swap_question(prior: IntentPrior) -> None:
    for text in (
        "who could fill in for sparkwing",
        "if oakhorn sits out what then",
        "who would lumifawn replace",
    ):
        said = prior.predict(text)
        assert (said.intent, said.sub_intent, said.rule) == ("lineup", "swap", "replaces"), text
    assert prior.predict("when does oakhorn come out of its shell").rule is None  # no one in its place


def test_the_best_against_a_named_unit_is_its_counter_not_the_strongest(prior: IntentPrior) -> None:
    said = prior.predict("which of mine is the best bet against pyrowl")
    assert (said.intent, said.sub_intent) != ("inventory", "strongest"), said
    assert prior.predict("who is my strongest creature").rule is None


def test_one_named_unit_against_another_is_the_matchup_question(prior: IntentPrior) -> None:
    said = prior.predict("and my galehawk versus their voltail")
    assert (said.intent, said.sub_intent) == ("element", "matchup"), said
    assert prior.predict("what about galehawk").rule is None


def test_going_after_a_unit_is_the_counter_question(prior: IntentPrior) -> None:
    for text in ("how do i get to voltail", "what can catch their galehawk", "who can deal with pyrowl"):
        said = prior.predict(text)  # (the classifier may already say so: then no rule is needed)
        assert (said.intent, said.sub_intent) == ("creature", "counters"), text
    assert prior.predict("what can catch their galehawk").rule == "confront"
    # Carrying something on a unit is not fighting it.
    assert prior.predict("which skills do i take on oakhorn").rule != "confront"


def test_benching_one_for_another_is_a_swap(prior: IntentPrior) -> None:
    for text in ("benching oakhorn and playing hexmoth", "drop emberfox for lumifawn"):
        said = prior.predict(text)
        assert (said.intent, said.sub_intent, said.rule) == ("lineup", "swap", "out_and_in"), text


def test_risk_hardship_fix_and_use_now_have_their_pairs(prior: IntentPrior) -> None:
    cases = {
        "who on my side is in the most danger": ("match", "opponent_analysis", "at_risk"),
        "why does this match feel so one sided": ("match", "opponent_analysis", "why_hard"),
        # a loss told with "what is going on" asks what they do to us, not the score
        "we got absolutely farmed what is even going on": ("match", "opponent_analysis", "why_hard"),
        "we keep losing every fight, what's going on": ("match", "opponent_analysis", "why_hard"),
        # the player's connection is not the match
        "this lag is killing me": ("other", "other", "tech_trouble"),
        "brb gotta grab water": ("other", "other", "back_soon"),  # an errand's words are no question
        "my wifi is so bad": ("other", "other", "tech_trouble"),
        "any quick fix": ("lineup", "swap", "fix"),
        "fix?": ("lineup", "swap", "fix"),
        "k focus order": ("match", "opponent_analysis", "our_target"),
        "is sparkwing any good right now": ("element", "matchup", "any_use_now"),
    }
    for text, want in cases.items():
        said = prior.predict(text)
        assert (said.intent, said.sub_intent, said.rule) == want, text
    # No "here / now": still how that one does against their side, not a rating of a team of one
    # (the verdict rule of one unit, "is X any good / pulling his weight", reads it first).
    said = prior.predict("is sparkwing any good")
    assert (said.intent, said.sub_intent, said.rule) == ("element", "matchup", "is_it_good")
    assert prior.predict("is my team any good").rule is None


def test_one_unit_beaten_by_another_and_the_move_to_open_with(prior: IntentPrior) -> None:
    said = prior.predict("will my oakhorn get walled by their shellbastion")
    assert (said.intent, said.sub_intent) == ("element", "matchup"), said
    said = prior.predict("which skill should tidefang start off with")
    assert (said.intent, said.sub_intent, said.rule) == ("skill", "best", "opener"), said
    assert prior.predict("who should i lead with").rule != "opener"  # a unit to lead, not a move
    said = prior.predict("and what should oakhorn open with")  # the unit leads with one of its moves
    assert (said.intent, said.sub_intent) == ("skill", "best"), said
    assert prior.predict("should i lead with oakhorn").rule != "opener"


def test_their_best_is_their_threat_and_my_best_is_mine(prior: IntentPrior) -> None:
    said = prior.predict("what's the nastiest thing they have")
    assert (said.intent, said.sub_intent) == ("match", "opponent_analysis"), said
    assert prior.predict("whats my strongest creature").intent == "inventory"


def test_my_strongest_hero_is_not_the_meta() -> None:
    strike = IntentPrior.shared(load_pack_from(PACKS_DIR / "strike_team"), 0.0)
    said = strike.predict("so who's my most powerful hero")
    assert (said.intent, said.sub_intent) == ("progression", "level_priority"), said
    assert strike.predict("whats my strongest comp").rule != "my_best"  # a comp, not a hero


def test_what_a_unit_is_good_against_is_the_matchup_question(prior: IntentPrior) -> None:
    said = prior.predict("so what is sparkwing good against")
    assert (said.intent, said.sub_intent) == ("element", "matchup"), said


def test_keeping_the_same_team_is_about_that_team(prior: IntentPrior) -> None:
    said = prior.predict("we won that one, lets stay with the same team")
    assert (said.intent, said.sub_intent, said.rule) == ("lineup", "evaluate", "keep_same"), said
    assert prior.predict("keep hexmoth out of it").rule != "keep_same"


def test_a_units_next_move_is_what_it_unlocks_next(prior: IntentPrior) -> None:
    said = prior.predict("how long till galehawk gets its next skill")
    assert (said.intent, said.sub_intent) == ("creature", "evolve"), said


def test_tell_me_about_their_unit_is_about_that_unit(prior: IntentPrior) -> None:
    said = prior.predict("tell me more about their briarcat")
    assert (said.intent, said.sub_intent) == ("creature", "info"), said


def test_the_quickest_way_to_improve_is_a_swap(prior: IntentPrior) -> None:
    said = prior.predict("whats the easiest change that would help")
    assert (said.intent, said.sub_intent, said.rule) == ("lineup", "swap", "fix"), said


def test_a_choice_between_units_is_a_pick_among_them(prior: IntentPrior) -> None:
    """ "Should I level Emberfox or Galehawk?" picks one to level; "Lumifawn or Hexmoth against
    Voltail?" one to field: not a verdict on each, nor Hexmoth taken for the foe."""
    level = prior.predict("should i level emberfox or galehawk")
    assert (level.intent, level.sub_intent, level.rule) == ("inventory", "upgrade_priority", "choice"), level
    field = prior.predict("is sparkwing or hexmoth better against their team")
    assert (field.intent, field.sub_intent, field.rule) == ("creature", "counters", "choice"), field
    # "or" without a word that asks to choose is two questions (read apart in perception.dialogue)
    assert prior.predict("does emberfox or oakhorn know ember fang").rule != "choice"


def test_a_style_they_play_on_us_is_countered_not_built() -> None:
    """ "They keep poking us from range": their style is to be countered; "can we poke them out"
    still asks for a team of that style (strike_team: its styles are verbs)."""
    from voicecoach.domain.pack import load_pack

    strike = IntentPrior.load(load_pack("strike_team"))
    for text in ("their flanker keeps diving our healer, what do I do", "they keep poking us from range"):
        said = strike.predict(text)
        assert (said.intent, said.sub_intent, said.rule) == ("comp", "counter", "they_play"), (text, said)
    for text in ("can we poke them out", "build me a dive comp"):
        assert strike.predict(text).rule != "they_play", text


def test_and_then_a_question_is_a_new_question_and_fix_it_is_a_swap(prior: IntentPrior) -> None:
    after = prior.predict("ok and what beats shellbastion", previous=("match", "opponent_analysis"))
    assert (after.intent, after.sub_intent) == ("creature", "counters"), after
    assert prior.predict("and no oakhorn", previous=("lineup", "build")).rule == "refine"
    fix = prior.predict("ok fix it then")
    assert (fix.intent, fix.sub_intent, fix.rule) == ("lineup", "swap", "fix"), fix


def test_a_unit_they_bring_in_is_the_counter_question(prior: IntentPrior) -> None:
    for text in ("what if they swap in galehawk", "they just brought out pyralis, help"):
        said = prior.predict(text)
        assert (said.intent, said.sub_intent, said.rule) == ("lineup", "counter", "they_bring"), text
    assert prior.predict("should i swap in galehawk").rule != "they_bring"


def test_anyone_else_and_then_who_ask_again(prior: IntentPrior) -> None:
    for text in ("anyone else", "and after that", "then who"):
        said = prior.predict(text, previous=("match", "next_move"))
        assert (said.intent, said.sub_intent) == ("match", "next_move"), (text, said)


def test_going_head_to_head_and_whom_to_kill_first() -> None:
    from voicecoach.domain.pack import load_pack

    strike = IntentPrior.load(load_pack("strike_team"))
    for text in (
        "can my tamsin outrange quillon",
        "can my tamsin pick brannoc off",
        "what can wendell do about quillon",
    ):
        said = strike.predict(text)
        assert (said.intent, said.sub_intent, said.rule) == ("hero", "counters", "confront"), (text, said)
    assert strike.predict("ok what else can i take instead of renzo").rule == "replaces"
    pet = IntentPrior.load(load_pack("pet_arena"))
    first = pet.predict("which of theirs should i kill first then")
    assert (first.intent, first.sub_intent) == ("match", "opponent_analysis"), first
    assert first.rule in ("their_best", "our_target"), first
    assert pet.predict("is lumifawn too low level", previous=("lineup", "swap")).rule != "refine"


def test_worry_acknowledgement_and_help_have_their_pairs(prior: IntentPrior) -> None:
    cases = {
        "who do i worry about most": ("match", "opponent_analysis", "worry"),
        "which one of theirs is hurting my team the most": ("match", "opponent_analysis", "worry"),
        "who is giving us the most problems": ("match", "opponent_analysis", "worry"),
        "okay whatever you say boss": ("smalltalk", "thanks", "acknowledged"),
        "lol fair": ("smalltalk", "thanks", "acknowledged"),
        "help": ("smalltalk", "greeting", "help"),
        "what can you do": ("smalltalk", "greeting", "help"),
    }
    for text, want in cases.items():
        said = prior.predict(text)
        assert (said.intent, said.sub_intent, said.rule) == want, text
    # A unit of theirs named after the cue is a question about that one, not their threat in general.
    assert prior.predict("should i worry about their voltail").rule != "worry"
    assert prior.predict("ok so who should I lead with").rule != "acknowledged"
    # The cue's alternatives stay one group when a name follows it.
    assert prior.predict("im worried about their voltail").rule != "worry"


def test_what_to_field_unnamed_is_a_whole_team(prior: IntentPrior) -> None:
    for text in ("honestly just tell me what to field", "ok what do we bring this round"):
        said = prior.predict(text)
        assert (said.intent, said.sub_intent) == ("lineup", "build"), (text, said)
    assert prior.predict("i feel like going aggro, what do i run").rule != "what_to_run"  # that style's team
    said = prior.predict("ugh they are all over us, what should we field for this round")
    assert (said.intent, said.sub_intent) == ("lineup", "counter"), said
    assert prior.predict("what should i run against voltail").rule != "build_team"  # one named: its counter


def test_which_one_to_add_is_one_more_not_a_swap(prior: IntentPrior) -> None:
    assert prior.predict("ok so which one should we add").rule == "add_one"
    assert prior.predict("which one should i add instead of oakhorn").rule != "add_one"


def test_a_team_named_then_rate_it_is_rated(prior: IntentPrior) -> None:
    said = prior.predict("so im thinking sparkwing hexmoth and granitusk, grade that")
    assert (said.intent, said.sub_intent, said.rule) == ("lineup", "rate_team", "rate_named"), said


def test_two_named_then_who_goes_first_is_a_pick_between_them(prior: IntentPrior) -> None:
    for text in (
        "between sparkwing and galehawk who starts",
        "so i have galehawk and sparkwing, which one leads",
        "which of granitusk and oakhorn goes first",
    ):
        said = prior.predict(text)
        assert said.rule == "choice", (text, said)
    assert prior.predict("galehawk and sparkwing, what skills do they have").rule != "choice"


def test_better_than_is_a_choice_and_a_versus_without_a_status_pair_is_a_counter() -> None:
    from voicecoach.domain.pack import load_pack

    strike = IntentPrior.load(load_pack("strike_team"))
    said = strike.predict("is paxton better than stellan")
    assert said.rule == "choice", said
    assert strike.predict("what about renzo vs their brannoc").rule == "versus"
    assert (strike.predict("i just died what do i swap to").rule) == "swap_to"


def test_a_setup_is_the_loadout_and_are_you_sure_asks_why() -> None:
    from voicecoach.domain.pack import load_pack
    from voicecoach.perception.prior import ASKS_WHY, normalise

    strike = IntentPrior.load(load_pack("strike_team"))
    assert strike.predict("whats Paxton's setup").rule == "setup"
    assert strike.predict("who else could i put in Wendell's spot").rule == "replaces"
    assert ASKS_WHY.search(normalise("are you sure? water on water?"))
    assert not ASKS_WHY.search(normalise("are you sure everyone says the boomstick is way better now"))


def test_what_now_is_the_matchs_next_step(prior: IntentPrior) -> None:
    from voicecoach.domain.pack import load_pack

    strike = IntentPrior.load(load_pack("strike_team"))
    said = strike.predict("what now")
    assert said.rule == "what_now" and said.intent == "match", said
    assert prior.predict("what now").intent == "match"


def test_an_ownership_guess_about_a_unit_only_they_field_is_its_counter(prior: IntentPrior) -> None:
    theirs = frozenset({"voltail", "shellbastion", "dewdrift"})
    assert prior.prefill("gale gets chunked by voltail tho no", theirs=theirs) == ("creature", "counters")
    # Asked whether the player has it, or about its skills: that question stands.
    assert prior.prefill("do i have voltail", theirs=theirs) == ("creature", "owned")
    assert prior.prefill("Is Dewdrift in my collection?", theirs=theirs) == ("creature", "owned")
    assert prior.prefill("what skills does dewdrift have", theirs=theirs) == ("creature", "skills")


def test_an_ownership_guess_about_their_unit_against_mine_is_the_matchup(prior: IntentPrior) -> None:
    theirs = frozenset({"briarcat", "voltail"})
    assert prior.prefill("could briarcat one shot my emberfox", theirs=theirs) == ("element", "matchup")


def test_which_of_mine_against_a_foe_is_its_counter_not_my_strongest(prior: IntentPrior) -> None:
    assert prior.predict("which of my guys is best against their Voltail").rule != "which_of_mine"
    assert prior.predict("which of my guys is the tankiest").rule == "which_of_mine"


def test_no_word_of_having_is_not_an_ownership_question(prior: IntentPrior) -> None:
    ownership = {("creature", "owned")}
    for said in ("my little tidefang is sooo weak", "could briarcat one shot my emberfox"):
        assert IntentPrior.load(prior.pack, threshold=0.0).prefill(said) not in ownership, said
    for said in ("got oakhorn?", "is petalwisp one of mine", "do i have voltail", "did i unlock galehawk"):
        assert IntentPrior.load(prior.pack, threshold=0.0).prefill(said) == ("creature", "owned"), said


def test_putting_in_a_benched_unit_of_mine_is_the_swap(prior: IntentPrior) -> None:
    benched = frozenset({"hexmoth", "granitusk"})
    for said in ("can i put hexmoth in right now", "why isnt hexmoth on my team"):
        assert prior.prefill(said, benched=benched) == ("lineup", "swap"), said
    # Fielded already, or put in against someone: not this rule.
    assert prior.predict("can i put emberfox in").rule != "field_it"
    assert prior.prefill("why isnt hexmoth on my team", benched=frozenset()) != ("lineup", "swap")


def test_making_a_unit_stronger_is_what_it_gains_next(prior: IntentPrior) -> None:
    assert prior.predict("how do i make tidefang stronger").rule == "improve"
    assert prior.predict("how can i improve emberfox").sub_intent in ("worth_it", "evolve")
    assert prior.predict("who beats tidefang").rule != "improve"


def test_a_choice_against_a_foe_is_the_counter_and_a_short_follow_up_keeps_the_pair(
    prior: IntentPrior,
) -> None:
    said = "who's better against voltail, my granitusk or my lumifawn"
    assert (prior.predict(said).intent, prior.predict(said).sub_intent) == ("creature", "counters")
    again = prior.predict("how long will that take", previous=("creature", "worth_it"))
    assert again.rule == "elliptical" and again.sub_intent == "worth_it"


def test_an_option_status_pair_needs_an_option(prior: IntentPrior) -> None:
    zero = IntentPrior.load(prior.pack, threshold=0.0)
    assert zero.prefill("and can i get Sunmane") not in zero.option_status_pairs
    assert zero.prefill("can galehawk use tempest fury") in zero.option_status_pairs


@pytest.mark.parametrize(
    "asked",
    ["is sparkwing in my lineup", "whos in my lineup right now", "are those both in my team right now"],
)
def test_who_is_in_my_team_is_the_team_itself(prior: IntentPrior, asked: str) -> None:
    said = prior.predict(asked)
    assert (said.intent, said.sub_intent, said.rule) == ("lineup", "evaluate", "members"), said
    assert prior.predict("should i put hexmoth in my team").rule != "members"


def test_worth_it_against_a_foe_is_how_one_fares_against_the_other(prior: IntentPrior) -> None:
    said = prior.predict("is lumifawn worth putting in against voltail though")
    assert (said.intent, said.sub_intent, said.rule) == ("element", "matchup", "worth_against"), said
    assert prior.predict("is lumifawn worth evolving").rule != "worth_against"


def test_what_a_unit_beats_and_where_it_stands_have_their_pairs(prior: IntentPrior) -> None:
    said = prior.predict("what does their briarcat counter")
    assert (said.intent, said.sub_intent, said.rule) == ("element", "matchup", "beats_what"), said
    assert prior.predict("what counters their briarcat").rule != "beats_what"
    said = prior.predict("hows my emberfox doing level wise")
    assert (said.intent, said.sub_intent, said.rule) == ("creature", "info", "unit_level"), said


@pytest.mark.parametrize(
    "asked", ["what pets do i even have", "list my creatures", "which creatures have i got"]
)
def test_the_roster_asked_for_is_listed(prior: IntentPrior, asked: str) -> None:
    said = prior.predict(asked)
    assert (said.intent, said.sub_intent) == ("inventory", "list"), (asked, said)
    assert prior.predict("do i have emberfox").rule != "roster"


def test_a_tilted_player_gets_the_call_that_turns_the_match_and_needs_for_is_the_unlock(
    prior: IntentPrior,
) -> None:
    said = prior.predict("man im so tilted right now")
    assert (said.intent, said.sub_intent, said.rule) == ("match", "losing", "tilted"), said
    said = prior.predict("what does emberfox need for inferno roar")
    assert (said.intent, said.sub_intent) == ("skill", "unlock"), said


def test_whether_a_unit_has_an_option_is_its_status() -> None:
    """ "Does he have Dome Projector": whether it is his now (unlocked), not what it does."""
    from voicecoach.domain.pack import load_pack

    prior = IntentPrior.load(load_pack("strike_team"))
    said = prior.predict("does he have Dome Projector")
    assert said.rule == "has_option" and said.sub_intent == "unlock", said
    assert prior.predict("what does Dome Projector do").rule != "has_option"


def test_one_of_mine_going_in_is_a_swap(prior: IntentPrior) -> None:
    for text in ("so my galehawk should go in?", "sub tidefang?", "galehawk in for sparkwing yes or no"):
        said = prior.predict(text)
        assert (said.intent, said.sub_intent, said.rule) == ("lineup", "swap", "goes_in"), text
    assert prior.predict("should i go in now").rule != "goes_in"  # the player, not a unit


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        ("yes! oakhorn just took out their turtle", "good"),
        ("lets gooo we took the point", "good"),
        ("he just got his first kill!!", "good"),
        ("lol that was close", "close"),
        ("they knocked out my fox", None),  # news against the player: trouble told
        ("nice, oakhorn just flattened it", "good"),
        ("briarcat just flattened my fox", None),
        ("ugh my fox keeps getting destroyed by their turtle", None),
        ("we won, should i keep the same team", None),  # asked
        ("that was close, what now", None),
        ("is that close", None),
        ("honestly this game is so hard", "down"),  # venting, nothing named: heard, not a lecture
        ("ugh their sniper again", None),  # the trouble named is answered
        ("big w coach", "praise"),
        ("good call, that actually worked", "praise"),
        ("was that a good call", None),
    ],
)
def test_a_remark_on_the_moment_is_told_from_a_question(said: str, kind: str | None) -> None:
    assert remark(said) == kind


def test_growing_the_roster_over_time_is_whom_to_level_first(prior: IntentPrior) -> None:
    for text in ("ok how do i get my team stronger long term", "long term who should i invest in"):
        said = prior.predict(text)
        assert (said.intent, said.sub_intent, said.rule) == ("inventory", "upgrade_priority", "long_term"), (
            text
        )
    assert prior.predict("long term, is oakhorn good this round").rule != "long_term"  # this match


def test_the_worst_of_their_side_is_the_threat_and_the_plan_is_not_the_score() -> None:
    from voicecoach.domain.pack import load_pack

    strike = IntentPrior.load(load_pack("strike_team"))
    assert strike.predict("who on their team is scariest").rule == "who_worst"
    assert strike.predict("whos on their team").rule == "who_against"
    assert strike.predict("whats the plan this round").rule == "what_now"
    assert strike.predict("what are we up against").rule == "who_against"
    assert strike.predict("ok do it").rule == "acknowledged"


def test_a_question_after_a_vent_is_that_question_and_a_bare_vent_is_the_losing_call(
    prior: IntentPrior,
) -> None:
    from voicecoach.domain.pack import load_pack

    strike = IntentPrior.load(load_pack("strike_team"))
    said = strike.predict("we're down one nil and getting farmed, who do i swap right now")
    assert (said.intent, said.sub_intent, said.rule) == ("comp", "swap", "asked_after_vent")
    said = prior.predict("i keep getting destroyed, who is actually their best one")
    assert (said.intent, said.sub_intent, said.rule) == ("match", "opponent_analysis", "asked_after_vent")
    assert prior.predict("we're getting farmed what do we do").rule == "tilted"  # what to do is the call
    assert prior.predict("man im so tilted").rule == "tilted"


def test_a_new_option_asked_for_is_what_the_unit_unlocks_next() -> None:
    from voicecoach.domain.pack import load_pack

    strike = IntentPrior.load(load_pack("strike_team"))
    assert strike.predict("does renzo get any new guns").rule == "next_option"  # was who Renzo is
    for said in ("does renzo get any new guns", "can wendell unlock a better weapon"):
        asked = strike.predict(said)
        assert (asked.intent, asked.sub_intent) in strike.next_pairs, said


def test_what_one_unit_does_to_another_is_their_matchup(prior: IntentPrior) -> None:
    for said in (
        "ok and what does Hexmoth do to Shellbastion",
        "how would my Galehawk fare against their Briarcat",
    ):
        asked = prior.predict(said)
        assert (asked.intent, asked.sub_intent, asked.rule) == ("element", "matchup", "does_to"), said
    assert prior.predict("what does Hexmoth do").rule != "does_to"


def test_what_a_type_fears_is_what_beats_it(prior: IntentPrior) -> None:
    for said in ("what are light types scared of", "what is water weak against"):
        asked = prior.predict(said)
        assert (asked.intent, asked.sub_intent) == ("element", "weakness"), said
    assert prior.predict("who should i be scared of").rule != "type_fears"
