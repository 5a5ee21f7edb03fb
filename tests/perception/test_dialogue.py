"""Reading a turn in its dialogue (voicecoach.perception.dialogue), on both real packs.

Each case is a short dialogue on the pack's example state: the exchanges heard so far, what the
player says now, and the question it must be read as (names, not pronouns or descriptions).
"""

from __future__ import annotations

import json

import pytest

from voicecoach.core.state import LiveState, load_state
from voicecoach.domain.pack import Pack, example_state_path, load_pack
from voicecoach.perception.dialogue import Exchange, read_turn, refer_to_answer


def _example(pack_id: str) -> tuple[Pack, LiveState]:
    return load_pack(pack_id), load_state(json.loads(example_state_path(pack_id).read_text()))


PET = _example(
    "pet_arena"
)  # player fields Emberfox, Oakhorn, Sparkwing; they field Briarcat, Shellbastion, Voltail
STRIKE = _example("strike_team")  # they field Brannoc, Quillon, Tamsin, Nadira, Bexley

MATCHUP = Exchange("can my emberfox take their voltail", "Against Voltail, Emberfox deals normal damage.")
COUNTER = Exchange("how do I counter quillon", "Play Kasimir into Quillon: he closes the gap.")


@pytest.mark.parametrize(
    ("packed", "history", "said", "read"),
    [
        # references: the side the verb points to, the player's own named unit first
        (PET, [MATCHUP], "ok how do i beat him", "ok how do i beat Voltail"),
        (PET, [MATCHUP], "is he worth levelling", "is Emberfox worth levelling"),
        (PET, [MATCHUP], "what are his skills", "what are Emberfox's skills"),
        (STRIKE, [COUNTER], "is he unlocked for me", "is Kasimir unlocked for me"),
        (STRIKE, [COUNTER], "what does that guy do", "what does Quillon do"),
        # corrections re-ask the last question; never an exclusion
        (PET, [MATCHUP], "no wait, I meant oakhorn", "can my Oakhorn take their voltail"),
        (PET, [MATCHUP], "sorry, their briarcat", "can my emberfox take their Briarcat"),
        (
            STRIKE,
            [],
            "what's next for osmund's loadout - actually no, kasimir's",
            "what's next for Kasimir's loadout",
        ),
        (PET, [MATCHUP], "no, what does flame burst do", "what does flame burst do"),
        # follow-ups re-ask it about another entity
        (
            PET,
            [Exchange("is galehawk ready to evolve", "Not yet.")],
            "what about hexmoth?",
            "is Hexmoth ready to evolve",
        ),
        (STRIKE, [COUNTER], "and tamsin", "how do I counter Tamsin"),
        (PET, [MATCHUP], "what about against briarcat though", "can my emberfox take their Briarcat"),
        # ... or about another place than the one the question meant by "this map" / "here"
        (
            STRIKE,
            [Exchange("who's good on this map", "On Fathom Docks, play Brannoc.")],
            "and what about for copperline yard",
            "who's good on Copperline Yard",
        ),
        (
            STRIKE,
            [Exchange("is renzo any good here", "")],
            "same for glasswater dam",
            "is renzo any good on Glasswater Dam",
        ),
        # descriptions: one unit on the side the words point to
        (PET, [], "how do i beat their electric one", "how do i beat their Voltail"),
        (PET, [], "what skills does the fire fox have", "what skills does Emberfox have"),
        (STRIKE, [], "how do I deal with their sniper", "how do I deal with their Quillon"),
        (STRIKE, [], "the shield guy on their side is annoying", "their Brannoc is annoying"),
        # a unit by its own gear, before a head noun; a possessive ends the description
        (STRIKE, [], "what's the shotgun guy's best loadout", "what's Renzo's best loadout"),
        (STRIKE, [], "is the mortar guy any good", "is Gundra any good"),
        (STRIKE, [], "my hands are tired", "my hands are tired"),
        # an option by its unit and slot: theirs from the catalog, the player's as equipped
        (STRIKE, [], "what's quillon's perk", "what's Patient Aim"),
        (STRIKE, [Exchange("what's quillon's perk", "")], "and his utility", "and Grapple Line"),
        (STRIKE, [], "is my elowen's utility any good", "is Rally Cry any good"),
        (PET, [], "what's emberfox's best move", "what's emberfox's best move"),  # skills fill no slot
        # a kind on the player's side: theirs of it, by name; not a question that asks which is best
        (PET, [], "are my grass ones any use", "are my Oakhorn any use"),
        (STRIKE, [], "who's the best tank on my team", "who's the best tank on my team"),
        # nothing to refer back to: unchanged, for the coach to ask
        (PET, [], "how do i beat him", "how do i beat him"),
        # the unit the player's question described, though the answer listed three and took it out
        (
            PET,
            [
                Exchange(
                    "my fox keeps getting one shot, what do i do",
                    "Shellbastion deals double damage to your Emberfox: water against fire. Against "
                    "Shellbastion, take Emberfox out and bring Oakhorn: grass beats water.",
                )
            ],
            "would evolving it help",
            "would evolving Emberfox help",
        ),
        # an option asked of a unit by a word for one: that unit's, in the slot
        (STRIKE, [], "what gun does nadira use", "what's nadira's Dart Rifle"),
        (PET, [], "what skills does emberfox have", "what skills does emberfox have"),
        # of one the player lacks with two of that kind: the one it starts with
        (
            STRIKE,
            [
                Exchange(
                    "who is their sniper", "Quillon is a sniper who wins long lanes with one charged shot."
                )
            ],
            "what gun does he use",
            "what's Quillon's Heron Rifle",
        ),
        # news told first: the question after it, about the one just got
        (PET, [], "i just unlocked rockram is it any good", "is rockram any good"),
        (PET, [], "got rockram finally, worth levelling?", "worth levelling rockram?"),
        (PET, [], "i just got home, what should i play", "i just got home, what should i play"),
    ],
)
def test_a_turn_is_read_as_the_question_it_stands_for(
    packed: tuple[Pack, LiveState], history: list[Exchange], said: str, read: str
) -> None:
    pack, state = packed
    assert read_turn(pack, state, said, history).text == read


def test_a_pronoun_with_no_unit_on_its_side_takes_the_topic(pet: tuple[Pack, LiveState] = PET) -> None:
    pack, state = pet
    history = [Exchange("what about galehawk", "Galehawk is a common wind striker.")]
    assert read_turn(pack, state, "how do i beat him", history).text == "how do i beat Galehawk"


def test_two_units_fitting_a_description_are_left_for_the_coach_to_ask() -> None:
    pack, state = STRIKE
    # Two supports in the player's lineup (Elowen, Wendell): "my healer" is not this step's guess.
    assert read_turn(pack, state, "is my support doing ok", []).text == "is my support doing ok"


@pytest.mark.parametrize(
    ("said", "first", "second"),
    [
        (
            "what does flame burst do, and can emberfox use it",
            "what does flame burst do",
            "can emberfox use Flame Burst",
        ),
        (
            "how do I beat their voltail? is sparkwing any good against it",
            "how do I beat their voltail",
            "is sparkwing any good against Voltail",
        ),
        # a statement and its question are one question
        (
            "i evolved briarcat, is bramble crush unlocked now?",
            "i evolved briarcat, is bramble crush unlocked now?",
            None,
        ),
        ("drop dewdrift too, what now?", "drop dewdrift too, what now?", None),
        # a question retracted for another in the same breath
        (
            "does tidefang know riptide ugh sorry i meant does galehawk have gale dive",
            "does galehawk have gale dive",
            None,
        ),
        ("who beats voltail, actually no wait, what about briarcat", "who beats Briarcat", None),
        # the second's "it" is the first's answer, unknown before the reply: the first, read alone
        (
            "who's my strongest creature and what can it learn",
            "who's my strongest creature",
            "what can it learn",
        ),
        ("can emberfox and oakhorn beat voltail", "can emberfox and oakhorn beat voltail", None),
        # "which of A and B do I own" asks about each; "which of A and B is better" is one choice
        ("which of hexmoth and tidefang do i own", "which of hexmoth do i own", "which of tidefang do i own"),
        ("which of hexmoth and tidefang is better", "which of hexmoth and tidefang is better", None),
        ("whats the difference between emberfox and galehawk", "what's emberfox", "what's galehawk"),
        # "A or B ...?": the same question about each; a team or a comparison stays one question
        # said first, "A or B" is a choice of one ("prior.offered"), not a question about each
        ("galehawk or granitusk against voltail", "galehawk or granitusk against voltail", None),
        (
            "what are hexmoth and tidefang each weak to",
            "what are hexmoth weak to",
            "what are tidefang weak to",
        ),
        # ... but "A or B" with a word that asks to choose is one choice: one pick among them
        (
            "would lumifawn or hexmoth do better against voltail",
            "would lumifawn or hexmoth do better against voltail",
            None,
        ),
        (
            "which is better against briarcat, emberfox or galehawk",
            "which is better against briarcat, emberfox or galehawk",
            None,
        ),
        ("should i level emberfox or galehawk", "should i level emberfox or galehawk", None),
        ("is galehawk and granitusk better here", "is galehawk and granitusk better here", None),
        ("build a team with emberfox and oakhorn", "build a team with emberfox and oakhorn", None),
        # "it" in "who's my best answer to X, and what should it open with" is the answer: the
        # second is read once the first is answered
        (
            "who's my best answer to voltail and what move should it open with",
            "who's my best answer to voltail",
            "what move should it open with",
        ),
        # numbered, announced, or after a condition: the numbers and the announcement are no part of either
        (
            "ok first is oakhorn ready for elderhorn, and second what does worldroot slam do",
            "ok is oakhorn ready for elderhorn",
            "what does worldroot slam do",
        ),
        (
            "two things: does emberfox learn kindle, and is sparkwing a support",
            "does emberfox learn kindle",
            "is sparkwing a support",
        ),
        (
            "if we lose this round is it over, and also honestly what should we change",
            "if we lose this round is it over",
            "what should we change",
        ),
        ("who goes first, emberfox or oakhorn", "who goes first, emberfox or oakhorn", None),
        (  # what was told before both is the second's subject too (it names none of its own)
            "my oakhorn keeps losing, so first is the matchup bad, and second if i swap who comes in",
            "my oakhorn keeps losing, so is the matchup bad",
            "my oakhorn keeps losing, so if i swap who comes in",
        ),
    ],
)
def test_two_questions_in_one_breath_are_read_one_after_the_other(
    said: str, first: str, second: str | None
) -> None:
    pack, state = PET
    reading = read_turn(pack, state, said, [])
    assert (reading.text, reading.second) == (first, second)
    assert reading.second_refers == ("it " in (second or ""))


def test_a_follow_up_with_a_pronoun_is_a_question_of_its_own() -> None:
    pack, state = PET
    history = [Exchange("their shellbastion is a wall", "Bring Oakhorn against Shellbastion.")]
    assert read_turn(pack, state, "and what about my galehawk against it", history).text == (
        "and what about my galehawk against Shellbastion"
    )


def test_a_second_question_about_the_first_answer_names_what_the_answer_put_forward() -> None:
    pack, _ = STRIKE
    asked = "who's their biggest threat"
    answer = "Nadira is their biggest threat: Nadira's null grenade cancels Elowen's healing."
    assert refer_to_answer(pack, "who do i counter it with", asked, answer) == "who do i counter Nadira with"
    assert refer_to_answer(pack, "what's his loadout", "who's my highest level hero", "Brannoc is your "
                           "highest-level hero, at level 13.") == "what's Brannoc's loadout"  # fmt: skip
    # the answer named nothing new: left for the coach to ask
    assert (
        refer_to_answer(pack, "what does it do", asked, "None of their five counters yours.")
        == "what does it do"
    )
    # a pronoun after a foe cue, the first question named: the two questions read as usual
    reading = read_turn(pack, STRIKE[1], "who's their sniper and how do i beat him", [])
    assert (reading.second, reading.second_refers) == ("how do i beat Quillon", False)


def test_a_question_asked_back_is_asked_once_then_the_best_reading_is_answered_and_said() -> None:
    pack, state = PET
    asked = read_turn(pack, state, "how's the electric one doing", [])
    assert asked.ask == "Your Sparkwing, or their Voltail?"
    back = [Exchange("how's the electric one doing", asked.ask)]
    guess = read_turn(pack, state, "not sure", back)
    assert (guess.text, guess.lead, guess.ask) == (
        "how's my Sparkwing doing",
        "Taking it as your Sparkwing.",
        None,
    )
    both = read_turn(pack, state, "both of them", back)
    assert (both.text, both.second) == ("how's my Sparkwing doing", "how's their Voltail doing")
    # "never mind" drops the question: nothing is guessed
    assert read_turn(pack, state, "never mind", back).text == "never mind"
    # no options to pick from, a foe cue: their team is the best reading
    pack, state = STRIKE
    who = read_turn(pack, state, "how do i stop him", [])
    assert who.ask == "Which hero do you mean?"
    guess = read_turn(pack, state, "no clue", [Exchange("how do i stop him", who.ask)])
    assert (guess.text, guess.lead) == ("how do i stop their team", "Taking it as their team.")


def test_a_description_that_fits_both_sides_is_asked_about_and_the_answer_resumes_it() -> None:
    pack, state = PET
    asked = read_turn(pack, state, "tell me about the electric one", [])
    assert asked.ask == "Your Sparkwing, or their Voltail?"
    back = [Exchange("tell me about the electric one", asked.ask)]
    assert read_turn(pack, state, "theirs", back).text == "tell me about their Voltail"
    assert read_turn(pack, state, "the one i have", back).text == "tell me about my Sparkwing"
    assert read_turn(pack, state, "sparkwing", back).text == "tell me about my Sparkwing"
    # Not an answer: the new question is read on its own, and nothing is asked again.
    new = read_turn(pack, state, "what's good against water", back)
    assert (new.text, new.ask) == ("what's good against water", None)


def test_he_with_no_one_named_is_asked_about_and_a_description_answers_it() -> None:
    pack, state = STRIKE
    asked = read_turn(pack, state, "how do i beat him", [])
    assert asked.ask == "Which hero do you mean?"
    back = [Exchange("how do i beat him", asked.ask)]
    assert read_turn(pack, state, "the sniper", back).text == "how do i beat their Quillon"


def test_plural_descriptions_name_every_unit_they_fit_on_their_side() -> None:
    pack, state = STRIKE
    assert read_turn(pack, state, "how do i deal with their supports", []).text == (
        "how do i deal with their Nadira and Bexley"
    )
    assert read_turn(pack, state, "who counters snipers", []).text == "who counters Quillon"
    # my own: the ones the player fields, a question about each
    mine = read_turn(pack, state, "are my healer guys doing ok", [])
    assert (mine.text, mine.second) == ("are my Elowen doing ok", "are my Wendell doing ok")
    # one: the role itself ("where should my tank go" asks about the role)
    assert read_turn(pack, state, "where should my tank stand", []).text == "where should my tank stand"


def test_a_kind_asked_about_with_an_ownership_verb_names_the_players_units_of_it() -> None:
    """ "Have I got a fire one?": the player's units of that kind, by name (the catalog's when they
    own none, so the answer can say they don't); a listed kind stays one question."""
    pack, state = STRIKE
    assert (
        read_turn(pack, state, "which tanks have i got", []).text
        == "which of Dumaka, Brannoc and Osmund have i got"
    )
    assert read_turn(pack, state, "have i got a sniper", []).text == "have i got Quillon"  # not owned
    pack, state = PET
    assert read_turn(pack, state, "do i have a light one yet", []).text == "do i have Lumifawn yet"
    assert read_turn(pack, state, "which earth pets have i got", []).text == "have i got Granitusk"
    assert read_turn(pack, state, "i have a plan", []).text == "i have a plan"  # no kind word


def test_that_one_without_a_verb_for_units_is_not_a_unit() -> None:
    pack, state = PET
    history = [Exchange("how do i beat dunecrawler", "Bring Oakhorn against Dunecrawler.")]
    assert read_turn(pack, state, "won that one, what next?", history).text == "won that one, what next?"


def test_a_description_of_a_whole_side_is_not_one_unit() -> None:
    pack, state = PET
    assert (
        read_turn(pack, state, "How do I beat their water team?", []).text
        == "How do I beat their water team?"
    )


def test_a_description_the_player_names_is_left_alone() -> None:
    pack, state = STRIKE
    said = "Their tank is Dumaka now. Who handles him?"
    # ... and "him", in the next clause, is the unit the player just named.
    assert read_turn(pack, state, said, []).text == "Their tank is Dumaka now. Who handles Dumaka?"


def test_a_pronoun_after_a_name_in_an_earlier_clause_is_that_unit() -> None:
    pack, state = PET
    history = [Exchange("who is my best guy", "Oakhorn is your heaviest hitter, at stage 2.")]
    said = "Hexmoth is level 25, why isn't he on my team"
    assert read_turn(pack, state, said, history).text == "Hexmoth is level 25, why isn't Hexmoth on my team"
    # In one clause, or set apart by "or" / a verb between them, they are two units.
    for apart in ("can Emberfox beat him", "should I play Emberfox or him"):
        assert "Emberfox" not in read_turn(pack, state, apart, history).text.split("Emberfox", 1)[1]


def test_the_wrong_one_a_correction_names_is_not_kept_out() -> None:
    pack, state = STRIKE
    history = [Exchange("is Tamsin unlocked for me", "Yes, you have Tamsin, at level 12.")]
    assert "not" not in read_turn(pack, state, "sorry, not her, i meant the sniper", history).text


def test_a_correction_of_two_questions_is_two_questions_again() -> None:
    pack, state = PET
    asked = Exchange("hexmoth against voltail, and lumifawn against voltail", "Against Voltail, ...")
    reading = read_turn(pack, state, "sorry, I meant against briarcat", [asked])
    assert (reading.text, reading.second) == ("hexmoth against Briarcat", "lumifawn against Briarcat")


def test_a_correction_in_words_the_pack_lacks_is_asked_about_and_resumed() -> None:
    pack, state = PET
    asked = Exchange("is my bird any good into voltail", "Against Voltail, go with Granitusk.")
    reading = read_turn(pack, state, "no wait, I meant my lightning guy", [asked])
    assert reading.ask == "Which creature do you mean?"
    heard = [asked, Exchange(reading.text, reading.ask)]
    assert read_turn(pack, state, "sparkwing", heard).text == "is my Sparkwing any good into voltail"
    # a new question is not the answer to ours
    new = "what does galehawk evolve into"
    assert read_turn(pack, state, new, heard).text == new


def test_a_correction_by_description_takes_the_side_of_the_one_said_wrong() -> None:
    pack, state = PET
    asked = Exchange("what beats their Shellbastion", "Against Shellbastion, go with Oakhorn.")
    # "electric" fits the player's Sparkwing and their Voltail: "not the turtle" (theirs) says which
    for said in ("no wait, I meant the electric rat thing, not the turtle", "sorry I meant the electric one"):
        assert read_turn(pack, state, said, [asked]).text == "what beats their Voltail"


def test_a_look_that_fits_none_of_the_players_is_asked_about() -> None:
    pack, state = PET  # no cat is the player's; their Briarcat is the plant cat
    reading = read_turn(pack, state, "what does my little plant cat do")
    assert reading.ask == "Do you mean their Briarcat?"
    heard = [Exchange("what does my little plant cat do", reading.ask)]
    assert read_turn(pack, state, "yeah", heard).text == "what does their Briarcat do"
    assert read_turn(pack, state, "no, my grass one", heard).text == "what does my Oakhorn do"


def test_a_unit_said_by_what_it_does_or_carries_without_a_relative_clause() -> None:
    pack, state = STRIKE
    said = "the one dropping the light walls, is she a healer or what"
    assert read_turn(pack, state, said).text.startswith("Bexley, is Bexley a healer")
    assert read_turn(pack, state, "the healer with the darts, is she good").text.startswith("Nadira")
    # "with" after a word that is no unit's head: a place or a scene, not a unit
    assert "Nadira" not in read_turn(pack, state, "we lost the fight with the darts flying").text


def test_a_pet_form_of_a_look_word_describes_as_the_word() -> None:
    pack, state = PET  # Tidefang is "a pup dog": "the water puppy" is it, not their water tank
    reading = read_turn(pack, state, "which one should I level, the fawn or the water puppy")
    assert reading.text == "which one should I level, Lumifawn or Tidefang"
    # a kind of loadout is no unit; a verb after the unit is not a thing it holds
    assert read_turn(pack, state, "does the turtle heal or is it just tanky").text.startswith(
        "does Shellbastion heal"
    )


def test_a_verb_after_a_description_ends_it() -> None:
    pack, state = STRIKE
    said = "their sniper keeps one-shotting me off the middle pier"
    assert read_turn(pack, state, said).text.startswith("their Quillon keeps one-shotting")
    assert read_turn(pack, state, "is the barrier guy a problem").text == "is Bexley a problem"
    # one to field is the player's first ("do I need the healer": their Elowen), else the one named
    assert read_turn(pack, state, "do I need the healer").text == "do I need my Elowen"


def test_a_thing_one_of_theirs_used_is_the_option_its_effect_names() -> None:
    pack, state = STRIKE
    said = "nadira threw something and our heals stopped working"
    assert read_turn(pack, state, said).text == "what does Nadira's Null Grenade do"
    pack, state = PET  # "they": of every one of theirs, the option the words fit
    said = "they just threw some coral shield thing on the thorny cat"
    assert read_turn(pack, state, said).text == "what does Shellbastion's Coral Guard do"
    assert read_turn(pack, state, "they threw something at me").text == "they threw something at me"


def test_a_short_name_after_a_question_verb_and_a_verb_after_a_description() -> None:
    pack, state = PET
    assert (
        read_turn(pack, state, "how many stages does lumi have").text == "how many stages does Lumifawn have"
    )
    # "fight" before its object is a verb, not "the mid fight"
    assert read_turn(pack, state, "can my moth fight the cat").text == "can my Hexmoth fight their Briarcat"
    # a follow-up naming one the question has already is not put in another's place
    asked = Exchange("can Emberfox beat their Briarcat", "Yes.")
    assert "their Emberfox" not in read_turn(pack, state, "how about fox", [asked]).text


def test_is_that_a_kind_asks_the_kind_of_the_one_named() -> None:
    pack, state = PET
    reading = read_turn(pack, state, "that ghost candle pet, is that shadow or light")
    assert reading.text == "Soulwick, is that shadow or light"
    assert read_turn(pack, state, "is that fire one any good").text == "is Emberfox any good"


def test_without_the_pick_asks_the_last_question_again_without_it() -> None:
    pack, state = PET
    asked = Exchange("who should I bring in", "Swap Sparkwing out for Hexmoth: it brings more power.")
    for said in ("what if I don't have that one", "and if I didnt have him?"):
        assert read_turn(pack, state, said, [asked]).text == "who should I bring in without Hexmoth"
    # owning it is another question when the last answer put nothing forward
    told = Exchange("how many creatures do I have", "You own 8 creatures.")
    assert "without" not in read_turn(pack, state, "what if I don't have hexmoth", [told]).text


def test_a_unit_described_before_the_pronoun_is_what_it_stands_for() -> None:
    pack, state = STRIKE
    heard = [Exchange("how do i stop nadira", "Bring Brannoc into Nadira.")]
    assert read_turn(pack, state, "their big wall guy, what beats him", heard).text.endswith("beats him")


def test_a_name_part_is_a_word_of_both_halves() -> None:
    pack, state = STRIKE
    # "gun" is no part of Gundra (Gun-dra), while "fox" is one of Emberfox (Ember-fox).
    assert read_turn(pack, state, "is his gun any good", []).text == "is his gun any good"
    pet, pet_state = PET
    fox = read_turn(pet, pet_state, "what skills does the fire fox have", [])
    assert fox.text == "what skills does Emberfox have"


def test_a_pronoun_the_player_gives_advice_about_is_one_of_theirs() -> None:
    pack, state = STRIKE
    history = [
        Exchange("how do i shut Nadira down", "Swap to Brannoc against Nadira; Brannoc is a soft counter."),
        Exchange("do i have anyone for Nadira", "Not yet: you get Nadira at account level 27."),
    ]
    assert read_turn(pack, state, "what should he run", history).text == "what should Brannoc run"
    assert read_turn(pack, state, "how do i shut her down", history[:1]).text == "how do i shut Nadira down"


def test_a_part_of_the_game_is_not_a_unit_described() -> None:
    pack, state = STRIKE
    assert read_turn(pack, state, "we keep losing the mid fights", []).text == "we keep losing the mid fights"


def test_one_owned_is_the_pick_and_it_after_a_name_and_or_is_that_name() -> None:
    pack, state = PET
    history = [
        Exchange("what beats shellbastion", "Against Shellbastion, go with Oakhorn: grass beats water.")
    ]
    assert read_turn(pack, state, "do i own one", history).text == "do i own Oakhorn"
    assert read_turn(pack, state, "should i evolve sparkwing or level it", history).text == (
        "should i evolve sparkwing or level Sparkwing"
    )


def test_any_of_them_is_what_the_coach_just_put_forward_asked_about_each() -> None:
    pack, state = STRIKE
    history = [
        Exchange("who counters Quillon", "Against Quillon, play Brannoc: his barrier soaks the shots.")
    ]
    assert read_turn(pack, state, "do i own any of them", history).text == "do i own Brannoc"
    two = [
        Exchange("who's good on this map", "On Fathom Docks, play Brannoc and Tamsin: the map favours them.")
    ]
    reading = read_turn(pack, state, "do i have either of them", two)
    assert (reading.text, reading.second) == ("do i have Brannoc", "do i have Tamsin"), reading


def test_a_new_question_is_not_taken_as_the_answer_to_one_asked_back() -> None:
    pack, state = STRIKE
    asked = [Exchange("what counters the tank", "Your Dumaka, or their Brannoc?")]
    assert read_turn(pack, state, "have i got galen yet", asked).text == "have i got galen yet"
    roles = "what's the difference between the tank and support"
    assert read_turn(pack, state, roles, []).text == roles  # roles, not units


def test_a_short_first_question_an_ownership_it_and_the_first_questions_unit() -> None:
    """ "What's Sanctuary, and ..." is two questions; "have I got it" asks about the first's thing
    ("got it" is an idiom only without the question's "have I"); the second's "she" is the first's
    unit even when the dialogue before named one of the player's own."""
    pack, state = PET
    reading = read_turn(pack, state, "whats riptide and who can learn it", [])
    assert (reading.text, reading.second) == ("whats riptide", "who can learn Riptide")
    pack, state = STRIKE
    reading = read_turn(pack, state, "what does the heron rifle do and have i got it", [])
    assert reading.second == "have i got Heron Rifle", reading
    before = [Exchange("what's brannoc's best loadout", "Your best Brannoc loadout is Bolt Driver.")]
    reading = read_turn(pack, state, "when does quillon unlock and is he worth waiting for", before)
    assert reading.second == "is Quillon worth waiting for", reading


def test_him_after_a_swap_is_the_unit_put_forward_and_keeps_the_side_the_player_gave() -> None:
    pack, state = STRIKE
    answer = "Swap Dumaka off for Brannoc: Brannoc's barrier holds."
    swap = [Exchange("who do i swap for their quillon", answer)]
    assert read_turn(pack, state, "what should that guy run", swap).text == "what should Brannoc run"
    # Tamsin is one of the player's too, but they called her theirs: "he" is their own Lorcan
    told = [Exchange("their tamsin keeps beating my lorcan", "Your Lorcan should win against Tamsin.")]
    assert read_turn(pack, state, "what should he run", told).text == "what should Lorcan run"
    pack, state = PET
    swap = [Exchange("should i swap sparkwing for hexmoth", "Swap Sparkwing out for Hexmoth; that lifts it.")]
    assert read_turn(pack, state, "what moves does it have", swap).text == "what moves does Hexmoth have"


def test_that_after_a_question_whose_answer_is_a_pick_is_the_pick() -> None:
    """ "What's their grass one weak to, and have I got that?": "that" is what the answer puts
    forward (read once it is known), not Briarcat."""
    pack, state = PET
    reading = read_turn(pack, state, "what is their briarcat weak to and do i own that", [])
    assert (reading.second, reading.second_refers) == ("do i own that", True), reading
    answer = "Against Briarcat, go with Emberfox: fire beats grass."
    asked = "what is their briarcat weak to"
    assert refer_to_answer(pack, "do i own that", asked, answer) == "do i own Emberfox"


def test_that_after_a_foe_verb_is_theirs_not_the_pick_the_answer_brought() -> None:
    """Brannoc is on both sides: after "Bring Brannoc: his barrier soaks Quillon's shots", "how do we
    break that" is Quillon, not the hero the coach just told them to bring."""
    pack, state = STRIKE
    history = [
        Exchange(
            "whats their plan",
            "Their five plays poke. Bring Brannoc: Brannoc's barrier soaks Quillon's charged shots.",
        )
    ]
    assert read_turn(pack, state, "how do we break that", history).text == "how do we break Quillon"


def test_a_name_heard_almost_is_asked_about_and_yes_no_or_a_name_resumes_the_question() -> None:
    """Issue 28: "Did you mean Hexmoth?" rather than an answer about nothing; "yes" puts the name
    in, another name goes in its place, a bare "no" leaves the question as heard (answered as
    such: the coach asks which one), and a new question is read on its own."""
    pack, state = PET
    asked = read_turn(pack, state, "tell me about hexmoff", [])
    assert asked.ask == "Did you mean Hexmoth?"
    back = [Exchange(asked.text, asked.ask)]
    assert read_turn(pack, state, "yeah", back).text == "tell me about Hexmoth"
    assert read_turn(pack, state, "no, Hexmonarch", back).text == "tell me about Hexmonarch"
    no = read_turn(pack, state, "nope", back)
    assert (no.text, no.ask) == ("tell me about hexmoff", None)
    new = read_turn(pack, state, "what does galehawk evolve into", back)
    assert (new.text, new.ask) == ("what does galehawk evolve into", None)
    # Only after the coach asked: the same "yes" after an answer is not a confirmation.
    answered = [Exchange(asked.text, "Which creature do you mean? I didn't catch a name.")]
    assert read_turn(pack, state, "yeah", answered).text == "yeah"


def test_a_unit_on_both_sides_that_the_player_faced_stays_theirs_for_her() -> None:
    # strike's example state has Tamsin on both sides: "deal with Tamsin" faced theirs.
    pack, state = STRIKE
    heard = [Exchange("how do I deal with Tamsin", "Against Tamsin, play Brannoc.")]
    assert read_turn(pack, state, "what do I bring for her", heard).text == "what do I bring for their Tamsin"


def test_a_description_doing_something_to_the_player_is_theirs_and_a_loose_adjective_is_skipped() -> None:
    pack, state = PET
    assert read_turn(pack, state, "the electric one keeps outspeeding me", []).text == (
        "their Voltail keeps outspeeding me"
    )
    assert read_turn(pack, state, "their big water tank is just walling everything", []).text.startswith(
        "their Shellbastion"
    )


def test_a_word_of_one_of_the_units_own_options_names_it() -> None:
    pack, state = PET
    assert (
        read_turn(pack, state, "what does galehawk's dive do", []).text == "what does galehawk's Gale Dive do"
    )
    assert read_turn(pack, state, "what are galehawk's skills", []).text == "what are galehawk's skills"
    strike, now = STRIKE
    # Tamsin has two drones: the player's Tamsin has Spotter Drone equipped; of theirs, no guess
    assert (
        read_turn(strike, now, "what does tamsin's drone do", []).text
        == "what does tamsin's Spotter Drone do"
    )
    said = "what does their tamsin's drone do"
    assert read_turn(strike, now, said, []).text == said
    assert read_turn(strike, now, "and tamsin's other drone", []).text == "and tamsin's Buzzsaw Drone"


def test_someone_else_not_x_asks_the_last_role_question_again() -> None:
    pack, state = STRIKE
    heard = [Exchange("who else can tank for us", "For tank, go Brannoc.")]
    reading = read_turn(pack, state, "someone else, not brannoc", heard)
    assert reading.text == "who else can tank for us, someone else, not brannoc", reading


def test_gear_put_on_him_is_for_the_players_own_unit() -> None:
    pack, state = STRIKE
    heard = [
        Exchange(
            "who can get to Nadira", "Against Nadira, play Brannoc: Brannoc's barrier blocks Nadira's darts."
        )
    ]
    assert read_turn(pack, state, "ok and what should I carry on him", heard).text == (
        "ok and what should I carry on Brannoc"
    )


def test_a_bare_choice_asks_the_last_question_of_it_and_a_restated_one_is_the_second_saying() -> None:
    pack, state = STRIKE
    level = [Exchange("who should i level next", "Spend your next games levelling Elowen.")]
    assert (
        read_turn(pack, state, "lorcan or ellie?", level).text == "who should i level next, lorcan or ellie"
    )
    restated = read_turn(pack, state, "lorcan or dumaka, wait no, lorcan or ellie", level)
    assert restated.text == "who should i level next, lorcan or ellie"
    # After a question about a unit, "A or B" is a question of its own, not a choice for it.
    about = [Exchange("is lorcan any good", "Lorcan is an even pick on Fathom Docks.")]
    assert "is lorcan any good" not in read_turn(pack, state, "lorcan or ellie?", about).text


def test_a_yes_to_the_coachs_offer_asks_what_it_offered_about_the_unit_it_was_about() -> None:
    pack, state = PET
    offer = Exchange(
        "do i have rockram",
        "No, Rockram isn't in your roster yet. Shall I run through which elements counter it?",
    )
    assert read_turn(pack, state, "sure", [offer]).text == "what is Rockram weak to"
    assert read_turn(pack, state, "yeah go on", [offer]).text == "what is Rockram weak to"
    assert read_turn(pack, state, "no thanks", [offer]).text == "no thanks"  # declined: nothing asked
    plain = Exchange("do i have oakhorn", "Yes, you have Oakhorn, at level 19.")
    assert read_turn(pack, state, "sure", [plain]).text == "sure"  # no offer: nothing to accept


def test_a_round_the_player_says_just_ended_is_counted_once_until_the_game_pushes() -> None:
    pack, state = PET  # round 2 of 3, 1 to 0
    from voicecoach.coach.session import Session

    session = Session.open("told-round", state=state, pack=pack)
    lost = session.begin_turn("we just dropped that round").snapshot.ic.match
    assert lost is not None and (lost.round, lost.score_player, lost.score_opponent) == (3, 1, 1)
    kept = session.begin_turn("so what do i do now").snapshot.ic.match
    assert kept is not None and (kept.round, kept.score_player, kept.score_opponent) == (3, 1, 1)
    session.update_state(patch={"ic": {"match": {"round": 3, "score_player": 2, "score_opponent": 0}}})
    pushed = session.begin_turn("we just dropped that round").snapshot.ic.match  # the game's word stands
    assert pushed is not None and (pushed.round, pushed.score_player, pushed.score_opponent) == (3, 2, 0)


def test_a_look_names_a_creature_and_the_option_named_picks_among_those_it_fits() -> None:
    pack, state = PET  # the pack's `look` epithets: "a glowing deer fawn", "a hawk bird", "a bird chick"
    assert (
        read_turn(pack, state, "is granitusk better than the deer").text
        == "is granitusk better than Lumifawn"
    )
    assert read_turn(pack, state, "ok what about the little water dog").text == "ok what about Tidefang"
    # Galehawk and Sparkwing are both the player's birds; only Galehawk has Gale Dive.
    assert read_turn(pack, state, "is the bird ready for gale dive").text == "is Galehawk ready for gale dive"


def test_a_follow_up_description_fitting_both_sides_takes_the_side_of_the_unit_it_replaces() -> None:
    pack, state = PET
    matchup = [
        Exchange("could Galehawk beat their Briarcat", "Against Briarcat, Galehawk deals double damage.")
    ]
    assert read_turn(pack, state, "and the electric one", matchup).text == "could Galehawk beat their Voltail"


def test_that_spot_is_the_spot_of_the_unit_the_last_question_named() -> None:
    pack, state = STRIKE
    loadout = [Exchange("what should dell run", "Run Spanner Gun, Armour Pack and Toolbelt on your Wendell.")]
    said = read_turn(pack, state, "who else could i put in that spot", loadout).text
    assert said == "who else could i put in Wendell's spot", said
    assert read_turn(pack, state, "can lorcan 1v1 their drone lady").text == "can lorcan 1v1 their Tamsin"


def test_a_pronoun_with_a_level_is_the_unit_at_that_level() -> None:
    pack, state = PET  # Sparkwing is level 10, Lumifawn level 5
    healers = [
        Exchange(
            "do i have a healer", "Yes, you have Sparkwing, at level 10. Yes, you have Lumifawn, at level 5."
        )
    ]
    assert (
        read_turn(pack, state, "is she any good at level 5 tho", healers).text
        == "is Lumifawn any good at level 5 tho"
    )


def test_a_follow_up_setting_two_units_against_each_other_is_a_question_of_its_own() -> None:
    pack, state = STRIKE
    reach = [Exchange("how do I get to Nadira", "Swap to Brannoc against Nadira.")]
    said = read_turn(pack, state, "what about ren vs their tank", reach).text
    assert "Nadira" not in said and "Brannoc" in said, said


def test_a_correction_may_describe_the_unit_before_naming_it() -> None:
    pack, state = STRIKE
    said = read_turn(pack, state, "i take the turret man— sorry, grenade man, fenwick. is good?").text
    assert "Fenwick" in said and "Paxton" not in said, said


def test_a_subject_pronoun_sent_against_theirs_is_the_players_pick() -> None:
    pack, state = PET
    pick = [Exchange("which of my guys is best against their Voltail", "Against Voltail, go with Granitusk.")]
    said = read_turn(pack, state, "and how does she do against the turtle", pick).text
    assert "Granitusk" in said and "Voltail" not in said, said


def test_an_option_described_by_what_it_does_is_that_option_of_the_unit_named() -> None:
    pack, state = PET
    history = [Exchange("how do i make tidefang strong", "Your Tidefang is at stage 1.")]
    assert read_turn(pack, state, "when does he get the giant wave move", history).text == (
        "when does Tidefang get Tsunami Crash"
    )
    assert "Worldroot Slam" in read_turn(pack, state, "what's oakhorn's big hit everyone move", []).text
    # Words that fit none of its options, or a type every one of them has: left as said.
    for said in ("does sparkwing have a heal skill", "can emberfox use its fire attack now"):
        assert read_turn(pack, state, said, []).text == said


def test_a_doubled_no_inside_a_saying_corrects_the_name_before_it() -> None:
    pack, state = PET
    said = "i want to put Joltusk, no no, Granitusk, against their Voltail"
    assert read_turn(pack, state, said, []).text == "i want to put Granitusk, against their Voltail"


def test_a_follow_up_naming_my_unit_after_a_question_about_theirs_puts_it_against_theirs() -> None:
    pack, state = STRIKE
    history = [Exchange("how do i shut Nadira down", "Swap to Brannoc against Nadira.")]
    for said in ("and if i'm on dumaka", "what about dumaka"):
        assert read_turn(pack, state, said, history).text == "is Dumaka any good against Nadira", said


def test_a_follow_up_leaving_one_out_refines_the_last_question() -> None:
    pack, state = STRIKE
    history = [Exchange("what's a good comp with paxton in it", "Build around Paxton with Dumaka.")]
    assert read_turn(pack, state, "and without bexley", history).text == (
        "what's a good comp with paxton in it, without bexley"
    )


def test_asking_for_a_pick_after_a_matchup_is_the_counter_to_their_unit() -> None:
    pack, state = PET
    history = [
        Exchange("is my Emberfox any good vs Shellbastion", "Against Shellbastion, Emberfox deals half.")
    ]
    assert read_turn(pack, state, "fine, what would you bring instead", history).text == (
        "what should i bring against Shellbastion"
    )


def test_the_slot_of_the_unit_the_last_exchange_was_about() -> None:
    pack, state = STRIKE
    history = [Exchange("is Auto Shotgun unlocked for me", "Yes, Auto Shotgun is unlocked on your Renzo.")]
    assert read_turn(pack, state, "whats the perk do", history).text == "whats Adrenaline do"


def test_the_second_question_about_the_firsts_option_takes_the_option_the_answer_named() -> None:
    from voicecoach.perception.dialogue import labelled_as_named

    pack, state = PET
    said = "what's hexmoth's best skill and when do i use it"
    reading = read_turn(pack, state, said, [])
    assert reading.second_refers and reading.second is not None
    answer = "Nightmare Hex is the strongest move your Hexmoth can use right now."
    assert refer_to_answer(pack, reading.second, reading.text, answer) == "when do i use Nightmare Hex"
    assert "xskillx" in labelled_as_named(pack, reading.second, reading.text)


def test_what_now_after_a_complaint_about_one_of_theirs_is_about_that_one() -> None:
    pack, state = PET
    history = [Exchange("their Briarcat keeps killing my Sparkwing", "Against Briarcat, go with Emberfox.")]
    assert read_turn(pack, state, "what do i do", history).text == "their Briarcat keeps killing my Sparkwing"
    assert read_turn(pack, state, "what do i do", []).text == "what do i do"


def test_a_types_adjective_describes_its_units() -> None:
    pack, state = PET
    assert read_turn(pack, state, "who beats their watery turtle", []).text == "who beats their Shellbastion"


def test_she_is_not_the_one_the_pack_calls_him() -> None:
    pack, state = STRIKE
    history = [
        Exchange(
            "whos good against their Nadira", "Against Nadira, play Brannoc: his barrier blocks her darts."
        )
    ]
    assert read_turn(pack, state, "is she unlocked", history).text == "is Nadira unlocked"
    assert read_turn(pack, state, "is he unlocked", history).text == "is Brannoc unlocked"
    # "Who's good against their healer" names the healer, it does not ask who the healer is.
    assert (
        read_turn(pack, state, "whos good against their healer", []).text == "whos good against their Nadira"
    )


def test_the_word_of_one_of_the_units_options_is_that_option() -> None:
    pack, state = STRIKE
    said = read_turn(pack, state, "can Brannoc get the dome yet", []).text
    assert said == "can Brannoc get Dome Projector yet"
    assert read_turn(pack, state, "is the team good for Renzo", []).text == "is the team good for Renzo"


@pytest.mark.parametrize(
    ("asked", "then", "read"),
    [
        ("is fire good against water", "ok what is then", "what is good against water"),
        ("does oakhorn beat voltail", "who does then", "who does beat voltail"),
        ("can sparkwing learn gale dive", "ok who can then", "who can learn gale dive"),
        ("whats the score", "ok what is then", "ok what is then"),  # no yes/no question to re-ask
    ],
)
def test_what_is_then_asks_the_last_yes_no_question_of_whatever_fits(
    asked: str, then: str, read: str
) -> None:
    pack, state = PET
    assert read_turn(pack, state, then, [Exchange(asked, "No.")]).text == read


def test_a_contracted_wh_word_opens_a_second_question() -> None:
    pack, state = PET
    reading = read_turn(pack, state, "hows my emberfox doing level wise and can it use inferno roar", [])
    assert reading.text == "hows my emberfox doing level wise"
    assert reading.second == "can Emberfox use inferno roar"


def test_it_is_the_type_the_last_question_asked_about_when_no_unit_was_named() -> None:
    pack, state = PET
    history = [Exchange("does electric beat grass", "Against grass, electric attacks deal normal damage.")]
    assert read_turn(pack, state, "so what does beat it then", history).text == "so what does beat grass then"


def test_a_units_possessive_names_its_option_by_a_word_of_it() -> None:
    from voicecoach.perception.descriptions import option_by_description

    pack, _ = STRIKE
    assert (
        option_by_description(pack, "what does nadiras grenade do")[0] == "what does nadiras Null Grenade do"
    )
    assert option_by_description(pack, "what does lorcan counter")[0] == "what does lorcan counter"


def test_oh_wait_i_meant_leaves_no_oh_behind() -> None:
    pack, state = STRIKE
    assert (
        read_turn(pack, state, "what does dumaka run rn oh wait i meant renzo", []).text
        == "what does Renzo run rn"
    )


def test_actually_inside_a_question_is_an_adverb_not_a_retraction() -> None:
    pack, state = PET
    said = "ok what do i actually do this turn"
    assert read_turn(pack, state, said, []).text == said
    retracted = read_turn(pack, state, "who beats voltail actually no what about briarcat", [])
    assert retracted.text == "who beats Briarcat"


@pytest.mark.parametrize(
    ("said", "kind", "some", "not_in"),
    [
        ("are shotguns any good on this map", "shotguns", "renzo", "quillon"),
        ("is Fathom Docks a long range map", "long range", "quillon", "brannoc"),  # range, not poke style
        ("is this map good for close range", "close range", "dumaka", "quillon"),  # the brawl style's words
        ("is this map good for tanks", "tanks", "brannoc", "elowen"),
        ("are sniper guys any good", "sniper", "quillon", "renzo"),
    ],
)
def test_a_kind_of_unit_is_every_unit_it_fits(said: str, kind: str, some: str, not_in: str) -> None:
    from voicecoach.perception.descriptions import kind_said

    got = kind_said(load_pack("strike_team"), said)
    assert got is not None and got[0] == kind and some in got[1] and not_in not in got[1]


def test_a_named_unit_is_not_a_kind() -> None:
    from voicecoach.perception.descriptions import kind_said

    assert kind_said(load_pack("strike_team"), "is Renzo any good on this map") is None
    assert kind_said(load_pack("strike_team"), "what should I do now") is None


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("hexmoth in, fox out?", "hexmoth in, Emberfox out?"),  # the end of a name, said bare
        ("fox or hawk for this", "Emberfox or Galehawk for this"),
        ("is lumi too low to bring", "is Lumifawn too low to bring"),  # the start of a name, no word
        # the first word of a name of two (not a misheard name to ask about: "Did you mean Emberkit?")
        ("ember into their turtle is bad right", "Emberfox into their Shellbastion is bad right"),
        ("what if i swap spark for galehawk", "what if i swap Sparkwing for galehawk"),
        ("volt thing. is it fast", "Voltail. is it fast"),  # "thing" said after it is the name's
    ],
)
def test_a_short_name_said_bare_is_the_one_unit_in_play_it_fits(said: str, read: str) -> None:
    pack, state = PET
    assert read_turn(pack, state, said).text == read


@pytest.mark.parametrize(
    "said", ["wing it and see", "what does Emberfox's tail do", "i want to spark a comeback"]
)
def test_a_short_name_used_as_a_verb_or_a_part_of_something_is_left_alone(said: str) -> None:
    pack, state = PET
    assert read_turn(pack, state, said).text == said


def test_a_question_ending_on_its_verb_is_retracted_by_a_cue_after_a_comma() -> None:
    pack, state = STRIKE
    reading = read_turn(pack, state, "what does kasimir do, no wait, what does renzo do")
    assert reading.text == "what does renzo do" and reading.second is None


def test_a_pronoun_after_a_retraction_is_the_unit_the_retracted_question_named() -> None:
    pack, state = STRIKE
    said = "should i flank with lorcan or, no wait, should he stay grouped with the team"
    reading = read_turn(pack, state, said)
    assert reading.text == "should Lorcan stay grouped with the team" and reading.ask is None


def test_what_the_player_keeps_losing_to_is_theirs() -> None:
    pack, state = PET  # Sparkwing (the player's) and Voltail (theirs) are both electric
    reading = read_turn(pack, state, "i keep losing oakhorn to the electric guy")
    assert "Voltail" in reading.text and reading.ask is None


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("what do i unlock at level eleven", "what do i unlock at level 11"),
        ("is renzo level twenty-two yet", "is renzo level 22 yet"),
        ("at lvl thirty what happens", "at lvl 30 what happens"),
    ],
)
def test_a_level_said_in_words_is_read_in_digits(said: str, read: str) -> None:
    pack, state = STRIKE
    assert read_turn(pack, state, said).text == read


@pytest.mark.parametrize(
    ("said", "history", "first", "second"),
    [
        # the player's team less the one just named, each asked about
        (
            "and the other two do what",
            [Exchange("which one is mine again, the fox thing?", "Yes, you have Emberfox, at level 14.")],
            "and Oakhorn do what",
            "and Sparkwing do what",
        ),
        # their side: the follow-up asks the last question of both
        (
            "and the other two?",
            [Exchange("whats their Shellbastion weak to", "Shellbastion is water.")],
            "whats their Briarcat weak to",
            "whats their Voltail weak to",
        ),
    ],
)
def test_the_other_two_are_the_rest_of_the_team_just_named(
    said: str, history: list[Exchange], first: str, second: str
) -> None:
    pack, state = PET
    reading = read_turn(pack, state, said, history)
    assert (reading.text, reading.second) == (first, second), reading


def test_the_other_two_of_a_team_of_three_others_is_not_read() -> None:
    pack, state = STRIKE  # five a side: "the other two" fits no team less the one named
    reading = read_turn(pack, state, "and the other two?", [Exchange("is Brannoc good here", "Yes.")])
    assert "Quillon" not in reading.text and reading.text == "and the other two?"


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("dead. respawn. swap renzo?", "swap renzo?"),  # words said on the way to the question
        ("we lost. what now", "we lost. what now"),  # news, with its subject: kept
        ("Bexley. is she good here", "Bexley. is Bexley good here"),  # a name: the topic, kept
    ],
)
def test_a_fragment_before_the_question_that_names_nothing_is_left_out(said: str, read: str) -> None:
    pack, state = STRIKE
    assert read_turn(pack, state, said).text == read


def test_he_after_a_pick_asked_for_is_the_one_picked() -> None:
    """ "Who do I send at it" - "Bring Oakhorn against Shellbastion" - "is he ready": Oakhorn, not
    the foe the question named."""
    pack, state = PET
    asked = Exchange(
        "ok so who do i send at Shellbastion",
        "Bring Oakhorn against Shellbastion: its grass attacks deal double damage to water.",
    )
    assert read_turn(pack, state, "is he high enough level for that", [asked]).text.startswith("is Oakhorn")


def test_chat_shorthand_is_read_as_the_words_it_stands_for() -> None:
    pack, state = PET
    assert read_turn(pack, state, "galehawk in for sparkwing y/n").text.endswith("yes or no")
    assert read_turn(pack, state, "opp comp??").text.startswith("opponent comp")
    assert read_turn(pack, state, "what's an oppo").text == "what's an oppo"  # a whole word only


def test_a_unit_described_twice_with_with_is_one_unit() -> None:
    """ "The fox with the fire tail": not the fox and another tailed one."""
    pack, state = PET
    assert (
        read_turn(pack, state, "is the fox with the fire tail ours or theirs").text
        == "is Emberfox ours or theirs"
    )


def test_what_a_unit_carries_ends_before_the_question_about_it() -> None:
    """ "Is the guy with the nailgun worth using here": Paxton, and the question stays."""
    pack, state = STRIKE
    assert (
        read_turn(pack, state, "is the guy with the nailgun worth using here").text
        == "is Paxton worth using here"
    )


def test_a_pet_form_english_makes_without_an_ending_is_its_animal() -> None:
    pack, state = PET  # "kitty" is a cat: their Briarcat, not "the spiky" one alone
    assert read_turn(pack, state, "tell me about the spiky green kitty they have").text.startswith(
        "tell me about Briarcat"
    )


def test_the_other_side_is_theirs() -> None:
    pack, state = PET
    assert (
        read_turn(pack, state, "what's the other side got this time").text
        == "what's their side got this time"
    )


def test_which_alone_after_a_list_of_moves_is_among_those_moves() -> None:
    pack, state = PET
    listed = Exchange(
        "what moves does lumifawn have", "Your Lumifawn can use Gentle Light and Radiant Peck now."
    )
    assert (
        read_turn(pack, state, "which is the best one", [listed]).text
        == "which skill of Lumifawn is the best one"
    )


def test_a_look_word_before_a_value_is_part_of_the_description() -> None:
    pack, state = PET
    assert (
        read_turn(pack, state, "my kid wants the fluffy light deer thing", []).text == "my kid wants Lumifawn"
    )


def test_what_if_naming_both_sides_of_a_swap_is_its_own_question() -> None:
    pack, state = STRIKE
    before = Exchange("how do i play around her", "Which hero do you mean?")
    said = "what if i go yarrow instead of elowen"
    assert read_turn(pack, state, said, [before]).text == said


def test_a_unit_on_both_sides_asked_about_without_facing_it_is_the_players() -> None:
    pack, state = STRIKE
    gear = Exchange("should i swap anything on Brannoc", "Your Brannoc already runs the best you have.")
    assert read_turn(pack, state, "what about for dumaka", [gear]).text == "should i swap anything on Dumaka"
    swap = Exchange(
        "ok who replaces Dumaka", "Swap Dumaka off for Brannoc: Brannoc's barrier soaks the shots."
    )
    assert read_turn(pack, state, "nah i dont have that one unlocked do i", [swap]).text == (
        "nah i dont have Brannoc unlocked do i"
    )


def test_it_after_a_question_about_the_team_is_the_team() -> None:
    pack, state = PET
    rated = Exchange("is my team ok for that", "Mostly: Oakhorn hits Shellbastion for double damage.")
    assert (
        read_turn(pack, state, "what would make it better", [rated]).text == "what would make my team better"
    )
    assert read_turn(pack, state, "ok do it", [rated]).text == "ok do it"  # the advice taken


@pytest.mark.parametrize(
    ("pack_id", "said", "read"),
    [
        ("pet_arena", "can my fox beat the turtle, no sorry the cat", "can Emberfox beat their Briarcat"),
        (
            "pet_arena",
            "should my hawk, no wait my moth go in for the stag",
            "should my Hexmoth go in for Oakhorn",
        ),
        (
            "pet_arena",
            "what does the bird, no not the chick, the moth learn next",
            "what does Hexmoth learn next",
        ),
        ("strike_team", "is their sniper, sorry, their healer the one to focus", "is their Nadira to focus"),
        (
            "strike_team",
            "can the shotgun guy get a new gun, the cowboy guy I mean",
            "can Lorcan get a new gun",
        ),
    ],
)
def test_a_slip_put_right_in_the_same_breath_is_read_as_the_fix(pack_id: str, said: str, read: str) -> None:
    pack, state = PET if pack_id == "pet_arena" else STRIKE
    reading = read_turn(pack, state, said)
    assert reading.text == read and reading.ask is None


@pytest.mark.parametrize(
    "said",
    ["i have the fox, no healers though", "is emberfox good, no?", "who beats voltail, no idea honestly"],
)
def test_a_no_that_puts_nothing_right_is_left_alone(said: str) -> None:
    from voicecoach.perception.dialogue import _slips_put_right

    assert _slips_put_right(said) == said


def test_a_returning_players_question_about_a_unit_is_about_that_unit_alone() -> None:
    pack, state = STRIKE
    said = "I remember there being a healer called galen is galen still around"
    assert read_turn(pack, state, said).text == "tell me about galen"


def test_one_unit_described_twice_in_a_follow_up_takes_one_place() -> None:
    pack, state = PET
    asked = "should i swap emberfox out for galehawk"
    reading = read_turn(
        pack, state, "hmm what about the rock boar then like the granite one", [Exchange(asked, "")]
    )
    assert reading.text.count("Granitusk") == 1, reading.text


def test_what_about_another_after_a_swap_puts_that_one_in_for_the_same_one_out() -> None:
    pack, state = STRIKE
    reading = read_turn(
        pack, state, "what about stellan", [Exchange("should i swap renzo out for tamsin", "")]
    )
    assert reading.text == "should I swap Renzo for Stellan"
