"""`voicecoach chat` as a player talks, on both packs: references, a correction, two questions in
one breath, an element- or role-level question, and asking back.

Each session runs through the text pipeline on the embedded default's decisions (the intent prior
labels, rules fill the slots, the realization words the reply). That path makes no LLM call; the
engines point at a ScriptedLLMServer with nothing queued, and the test asserts it was never asked.
"""

from __future__ import annotations

import json

import pytest

from voicecoach.coach.engines import Engines
from voicecoach.coach.session import CoachConfig, Session
from voicecoach.core.state import load_state
from voicecoach.domain.pack import example_state_path, load_pack
from voicecoach.llm.client import LLMClient, LLMConfig
from voicecoach.pipelines.text import TextCoach
from voicecoach.testing.scripted_llm import ScriptedLLMServer

# pack -> kind -> turns: (what the player says, words the reply must have, words it must not)
SESSIONS: dict[str, dict[str, list[tuple[str, list[str], list[str]]]]] = {
    "pet_arena": {
        "no_ask_after_answer": [  # the first of two questions answered: the second asks nothing back
            (
                "what's overcharge, is that like a good move or",
                ["Overcharge is a support move"],
                ["Which skill"],
            ),
        ],
        "pet_name": [  # a pet name made of a short name ("sparky") is that unit: a swap, not a lineup
            ("hm what if i put hexmoth in for sparky", ["Sparkwing out for Hexmoth"], ["Eclipse Court"]),
        ],
        "premade_teams": [  # the game's known teams the player could build, not "other players"
            ("are there any premade teams i could build outta what i have", ["known lineups"], ["players"]),
        ],
        "besides_one": [  # a unit set aside ("besides X") is left out of a type-level answer, not its subject
            (
                "do i have anything that hits water hard besides sparkwing",
                ["Oakhorn"],
                ["Sparkwing", "Which"],
            ),
        ],
        "go_with_yours": [  # the coach's suggestion taken: acknowledged, not a skill to name
            ("give me an aggro team", ["Emberfox"], []),
            ("fine whatever go with yours", [], ["Which skill", "Which creature"]),
        ],
        "what_theyre_running": [  # their lineup asked again: named first
            ("remind me what they're running", ["You're facing Briarcat, Shellbastion and Voltail"], []),
        ],
        "how_many_of_kind": [  # how many of a kind the player has: theirs of it, not the whole roster
            ("how many electric pets have i got", ["Sparkwing"], ["Controller"]),
        ],
        "score_checked": [  # a score said back is confirmed; what the round means is news after it
            ("im up one nothing right? just making sure", ["1 to 0"], ["Against Shellbastion"]),
            ("so if i take this round it's over?", ["the match is yours"], []),
        ],
        "by_whom": [  # "by who" after a trouble with one's own: which of theirs threatens it
            ("my moth keeps getting wrecked", [], []),
            ("by who", ["Hexmoth"], ["Train Emberfox"]),
        ],
        "they_switch_to": [  # a unit they might bring in is theirs: its counter, not "you don't have it"
            ("what if they switch to pyrowl", ["Against Pyrowl"], ["You don't have"]),
        ],
        "bench_what_about": [  # "what about X" after "who should I bench": X out, not X's card
            ("who should i bench", ["Swap Sparkwing out"], []),
            ("what about the fire one", ["Emberfox in"], ["common fire striker"]),
        ],
        "announced": [  # a question announced, none asked yet: the coach invites it (not a slot filled)
            ("yo coach quick one", ["Hey!"], ["Fill the last slot"]),
            ("hey, got a sec?", ["need for this match"], ["outside what I can help with"]),
        ],
        "go_after_named": [  # whether to go after the one of theirs named
            ("can i kill shellbastion first", ["Go after Shellbastion first"], []),
        ],
        "type_both_ways": [  # a type said in the plural is "they": what it beats and what beats it
            (
                "light types what are they good against and what are they scared of",
                ["Against electric and shadow, light attacks deal double damage", "Against light, you want"],
                ["Shellbastion"],
            ),
            (
                "what are water types afraid of",
                ["Against water", "grass and electric"],
                ["biggest threat"],
            ),
        ],
        "their_skill_in_play": [  # a move their fielded unit has: not "needs Coralynx, you don't own one"
            (
                "walk me through it, bramble crush into shellbastion is double right, "
                "and does coral guard change that",
                ["Bramble Crush hits Shellbastion for double damage"],
                ["Coralynx"],
            ),
        ],
        "does_to": [  # what one does to another: the two matched up, not the first described again
            ("tell me about hexmoth", ["shadow controller"], []),
            (
                "ok and what does it do to the turtle",
                ["Against Shellbastion, Hexmoth deals normal damage"],
                [],
            ),
        ],
        "score_once": [  # the score is news once: not tacked on again two turns later
            (
                "im up one nil and still feel like im getting destroyed, who is actually their best guy",
                ["1 to 0", "Shellbastion is their biggest threat"],
                [],
            ),
            ("ok", [], []),
            ("the thorny cat keeps thorn volleying my whole team", ["Briarcat"], ["1 to 0"]),
        ],
        "slip_put_right": [  # the slip before the cue goes, the fix after it is the question
            ("can my fox beat the turtle, no sorry the cat", ["Emberfox", "Briarcat"], ["Shellbastion"]),
        ],
        "stage_named": [  # a returning player's old stage name: that stage of which unit, then the unit
            (
                "hey I haven't played in like a year where'd my emberkit go it just says emberfox now",
                ["Emberkit is Emberfox's stage 1", "level 14"],
                ["Build around"],
            ),
        ],
        "their_description_alone": [("their big hitter", ["their biggest threat"], ["Their Briarcat, or"])],
        "name_half_remembered": [  # a name part and an everyday word: asked whether they mean that one
            ("is galebird any good", ["Did you mean Galehawk"], []),
        ],
        "what_happened_to": [("what happened to emberfox", ["fire striker"], ["takes double damage"])],
        "relayed_why": [
            ("he says can the fire fox beat the turtle", ["Shellbastion has the edge"], []),
            ("ok and he wants to know why not", ["half damage"], ["Play to your elements"]),
        ],
        "used_to_play": [
            ("i used to play this like a year ago, is ember fox still good", ["mixed"], ["striker"])
        ],
        "what_am_i_supposed_to_do": [("what am i supposed to do", ["Oakhorn"], ["known lineups"])],
        "options_explained": [
            ("what do the moths moves do in normal words", ["Dread Whisper: ", "Shade Bite: "], [])
        ],
        "chart_asked": [
            ("wait how do i even know whats strong against what", ["fire beats grass"], ["Which creature"])
        ],
        "another_in_instead": [
            ("who do i bench", ["Swap Sparkwing out for Hexmoth"], []),
            ("hawk instead", ["Not Galehawk"], ["Keep Oakhorn in"]),
        ],
        "beats_said_in_gamer_words": [
            ("k and ember just farms the briar cat then", ["edge on Briarcat"], ["can't field"]),
        ],
        "wh_said_last": [("fox hits what", ["double damage to grass"], ["takes double damage from water"])],
        "bare_noun_asked": [("round two. opener", ["go with Oakhorn"], ["whenever you want"])],
        "bare_look_as_subject": [("turtle keeps shielding", ["Coral Guard", "Oakhorn"], ["Thicket Wall"])],
        "kind_asked_for": [  # an element asked for: the best of it, and who does beat them
            ("which water creature beats briarcat", ["Tidefang", "bring Emberfox"], ["Nothing you own"]),
        ],
        "whom_she_goes_at_first": [  # "who would she curse first": whom she goes after, not whom to train
            ("is hexmoth worth putting in this round instead of the bird", ["Hexmoth"], []),
            ("and who would she curse first", ["Hexmoth"], ["Train"]),
        ],
        "said_back_lines": [  # a decision said back, after an aside or about the roster, is taken in
            ("fair enough lol ill stick with what i have", ["Good luck"], ["You own"]),
        ],
        "best_three_from_box": [
            ("next ladder game opp unknown, best 3 from my box", ["Run"], ["here when you're ready"])
        ],
        "told_then_asked_with_marks": [  # a statement with a question mark is no effect asked of a side
            (
                "their voltale outspeeds ember? overcharge fix that?",
                ["Overcharge"],
                ["Volt Dash can strike first"],
            ),
        ],
        "description_checked": [
            ("the turtle is that shellbastion", ["Yes, that's their Shellbastion"], ["Aegiscarab"])
        ],
        "one_of_them": [  # "of them": theirs, not a question back; "which of them is X" picks one out
            ("the electric one of them, he is dangerous for me?", ["Voltail"], ["Your Sparkwing, or"]),
            ("which of them is the electric one", ["Voltail"], ["have Sparkwing"]),
        ],
        "what_resists_a_type": [("and what resists grass", ["fire and wind hold up best"], [])],
        "attack_type_not_a_unit": [  # "hit by the water from the turtle": the water is its attack
            (
                "my fox keeps getting hit by the water from the turtle",
                ["watch their Shellbastion"],
                ["from Shellbastion"],
            ),
        ],
        "will_do_taken_in": [("ok i will do the wall one", ["Good luck"], ["double damage"])],
        "good_to_level": [  # non-native "is good to level him": worth levelling, not whether it is owned
            ("i have the little water dog tidefang, is good to level him?", ["Yes"], ["you have Tidefang"]),
        ],
        "best_three_owned": [
            ("whats the best three i own against this lineup", ["Run"], ["Against Shellbastion, go"])
        ],
        "head_with_look": [  # "the cat with the thorns" is one description: no second creature
            ("can the moth fight the cat with the thorns", ["Briarcat"], ["Thornback"]),
        ],
        "a_thing_is_an_option": [  # "the coral thing" is Shellbastion's move, not Coralynx
            (
                "does oakhorn hit shellbastion through the coral thing",
                ["Oakhorn deals double damage"],
                ["Coralynx", "can't see which skills"],
            ),
        ],
        "verb_not_option": [("i lead with oakhorn and bark skin up, does that soak it", [], ["Sun Soak"])],
        "kill_it_shielded": [  # how to beat one, told shielding: a counter, not who can shield
            (
                "how do i kill the turtle its just sitting there with shields up",
                ["Oakhorn"],
                ["Coral Guard can"],
            ),
        ],
        "kept_with_thanks": [
            ("ok fine keep the fox. and thanks for carrying me", ["Good luck"], ["together"])
        ],
        "exclusion_noted_once": [  # the exclusion is noted once, not again on every turn
            ("chat is saying bench the bird chick, is sparkwing actually bad here", ["Sparkwing"], []),
            ("lmao ok what should i overcharge the fox or the deer", ["Overcharge on"], ["You also asked"]),
        ],
        "relayed_wants_to": [  # "my kid wants to put in the hawk, is that ok": should I field it
            (
                "my kid wants to put in the hawk, the bird with the wind moves, is that ok",
                ["Galehawk in"],
                [],
            ),
        ],
        "down_what_should_it_do": [  # one of theirs down; the unit named goes at one it is not beaten by
            (
                "ok their briarcat's down so now it's just the turtle and the lightning rat,"
                " what should emberfox do",
                ["Send your Emberfox at Voltail, not Shellbastion"],
                ["Briarcat"],
            ),
        ],
        "weak_to_all_foes": [("granitusk weak to what", ["watch their Briarcat and Shellbastion"], [])],
        "move_who": [("spark wing overcharge who", ["Put Overcharge on"], [])],
        "hunt_with": [  # the one of theirs that unit beats, not their threat to it
            ("who should i go after with emberfox", ["Go after Briarcat"], ["Go after Shellbastion"]),
        ],
        "stage_how": [("elderhorn how", ["evolve Oakhorn into Elderhorn"], ["takes double damage"])],
        "back_two_questions": [  # where the player comes from, then two questions: both answered
            (
                "hey i havent played in like months what creatures do i even have"
                " and which ones are actually leveled",
                ["You own 8 creatures", "Hexmoth 25"],
                [],
            ),
        ],
        "inline_type_correction": [  # "water ones, actually no, earth ones I mean": the earth one
            ("do i have any water ones, actually no earth ones i mean", ["Granitusk"], ["Tidefang"]),
        ],
        "news_then_thanks": [  # news told, then thanks: thanked, not a lecture
            ("ok he did it and the turtle is almost gone he's so happy thank you", ["Any time"], ["go with"]),
        ],
        "mine_than_theirs": [  # one of mine "stronger than" one of theirs: that matchup, not my weakness
            ("which one is the strongest one i got", ["Oakhorn"], []),
            ("is it stronger than the lightning mouse", ["Against Voltail, Oakhorn deals"], ["takes double"]),
        ],
        "theirs_mean": [("the blue shell guy is mean", ["Against Shellbastion, go with"], ["It learns"])],
        "bare_why_option": [  # "why?" after a pick between two moves: the reason given, not a move's profile
            ("whats better, flame burst or blaze charge", ["Blaze Charge"], []),
            ("why", ["Because it has more power"], ["A burst of flame"]),
        ],
        "what_beats_mine_it": [  # "what beats that" of my own unit: its weakness, not a pick
            ("what type is hexmoth again", ["shadow"], []),
            ("and what beats that", ["takes double damage from fire and light"], ["Bring Emberfox"]),
        ],
        "down_next": [  # one of theirs told down: the next target among the rest
            ("briarcat is already down, who next", ["Go after"], ["Briarcat"]),
        ],
        "levelled_enough_it": [  # "levelled enough" is a level worry: its level against the team's
            ("should i use oakhorn", ["Oakhorn"], []),
            ("is it levelled enough", ["Oakhorn is level 19", "isn't holding it back"], ["Not much"]),
        ],
        "threat_to_mine": [  # the threat to the one of the player's named, said of it
            ("which one is most dangerous for my hexmoth", ["None of theirs hits your Hexmoth"], []),
        ],
        "oh_no": [("oh no", ["I hear you"], ["Nice playing"])],  # a groan, not a goodbye
        "relayed_target": [  # "one of their guys" is theirs to choose from; "he means" relays a correction
            ("hi my son is asking what the creepy moth can do", ["Hexmoth"], []),
            ("he wants to know if it's stronger than the fox", ["Hexmoth"], []),
            ("and which one of their guys should it go after", ["Hexmoth"], ["Which creature"]),
            ("no sorry he means which one is most dangerous for it", ["Hexmoth"], ["strongest move"]),
        ],
        "tree_horned_deer": [  # the words of a look, said in everyday kin words: the one most of them fit
            ("is the tree horned deer any good against their team", ["Oakhorn"], ["Lumifawn"]),
        ],
        "lost_round_decider": [  # a round told lost at 1-0: the match is 1 all and the next round decides
            ("we just lost that round", ["1 all, so round 3 decides it"], []),
        ],
        "relayed_if_its": [  # "he wants to know if it's stronger than the fox": is it, of the one just said
            ("my son is asking what the creepy moth can do", ["Hexmoth"], []),
            ("he wants to know if it's stronger than the fox", ["Hexmoth", "Emberfox"], ["strongest move"]),
        ],
        "the_other_one_of_theirs": [  # two of theirs asked about: "the other one" is the third
            ("can granitusk take a hit from the turtle", ["Shellbastion"], []),
            ("what about the cat", ["Briarcat"], []),
            ("and the other one", ["Voltail"], ["Granitusk together"]),
        ],
        "who_fills_a_role": [  # "who should be my tank": the strongest of that role; "and for X": another
            ("who should be my tank", ["Oakhorn", "tank"], ["Train"]),
            ("ok and for striker", ["Emberfox", "striker"], ["last slot"]),
        ],
        "relayed_for_a_kid_on_my_roster": [  # "he has": the kid plays the player's roster; "he says": relayed
            ("my daughter wants to know which one is the strongest she has", ["Oakhorn"], ["Which creature"]),
            ("she says what about the moth", ["Hexmoth"], ["Which creature"]),
        ],
        "back_after_a_while": [  # where the player comes from, then the question
            ("havent played in ages, what do i even have again", ["You own 8"], ["Field three"]),
        ],
        "their_plan_read": [  # their plan: the style their roles make, known lineup or not, then the threat
            ("so whats their gameplan with that team", ["looks aggressive", "Shellbastion"], []),
        ],
        "how_to_do_what_was_advised": [  # "how do I do that": how to evolve it, not the move it unlocks
            ("which one should i evolve first", ["Oakhorn"], []),
            ("ok how do i do that", ["what makes a creature evolve"], ["attack move", "Elderhorn next"]),
        ],
        "two_of_theirs_named_together": [  # each one named gets its pick, in two wordings
            (
                "ok what do i send at the cat and the turtle",
                ["Emberfox", "Briarcat", "Oakhorn", "Shellbastion"],
                [],
            ),
        ],
        "a_won_round_that_ends_the_match": [  # told at 1-0 in round 2 of 3: the match is won
            ("yesss we won round two", ["you won it 2 to 0"], ["Oakhorn"]),
        ],
        "that_one_after_a_verb": [  # "bother with that one": the unit the last answer named
            ("whos my lowest level one", ["Lumifawn"], []),
            ("is it worth bothering with that one", ["Lumifawn"], ["Which creature"]),
        ],
        "which_of_two_to_grow": [  # "is it worth levelling A or should I focus B": which of the two
            ("is it even worth training the moth or should i just focus the fox", ["Train"], ["last stage"]),
        ],
        "whose_move_it_is": [  # "who has X": whose it is in this match, after what it does when asked too
            ("which of them has coral guard", ["Shellbastion"], ["defense move"]),
            ("what does thorn volley do and who uses it", ["thorns", "Briarcat"], []),
        ],
        "any_of_those_named": [  # "any of those" after the types' picks: those picks, not the asked type
            ("what beats electric", ["Granitusk"], []),
            ("got any of those", ["Granitusk", "Lumifawn"], ["Sparkwing"]),
        ],
        "praise_is_thanks_taken": [  # the coach praised: thanks taken, not a greeting or the match again
            ("what do i open with this round", ["Oakhorn"], []),
            ("big w coach that worked", [], ["Hey", "Against", "Oakhorn"]),
        ],
        "venting_heard_in_a_few_words": [  # nothing asked: heard and the match in a line, no lecture
            ("honestly this game is so hard", ["ahead 1 to 0"], ["Against", "best of three"]),
        ],
        "the_players_alternative_weighed": [  # "I'd rather X": X against that foe, beside the pick
            ("who do i send at voltail", ["Granitusk"], []),
            (
                "id rather send the fox honestly",
                ["Emberfox deals normal", "Granitusk deals double"],
                ["Which"],
            ),
        ],
        "doubt_gets_the_reason": [  # "that doesn't sound right": the reason for the last answer
            ("what beats their turtle", ["Oakhorn"], []),
            ("hmm that doesnt sound right", ["grass"], ["defensive"]),
        ],
        "type_claim": [  # a claim put to the coach: its verdict, then the chart both ways
            (
                "a friend reckons fire is weak to earth, right?",
                ["Yes, that's right", "double damage back"],
                [],
            ),
            ("wait does grass beat water or the other way", ["double damage", "half damage back"], []),
        ],
        "team_size": [("how many pets can i bring into a fight", ["three to five"], ["Which creature"])],
        "remarks": [  # a remark on the moment gets a reaction, not a matchup lecture
            ("haha yes our fox just knocked out the thorny cat", ["Nice one"], ["Briarcat", "Shellbastion"]),
            ("phew that was a close one", ["close one"], ["Oakhorn"]),
        ],
        "goes_first_told": [  # their unit told about before a subjectless "keeps going first": its move
            (
                "ugh their zappy voltail, whatever, keeps going first every turn",
                ["Voltail's Volt Dash"],
                ["don't own"],
            ),
        ],
        "nice_what_about": [  # a follow-up after a word of thanks: the last question about the new one
            ("is their thorny cat a problem for my fox", ["Emberfox has the edge"], []),
            ("nice and what about for the stag", ["Oakhorn deals normal damage"], ["epic grass tank"]),
        ],
        "hate_theirs": [  # one of theirs hated is not one of the player's kept out
            (
                "ugh ranked keeps putting me against water teams i hate that turtle so much",
                ["I hear you"],
                ["as you asked"],
            ),
        ],
        "type_chart": [  # the whole chart asked for: each element and what it beats
            (
                "so which one beats which, is there like a chart",
                ["fire beats grass and shadow"],
                ["Which creature"],
            ),
            ("whats even the point of fire then", ["grass and shadow"], ["Field three"]),
        ],
        "met_with_a": [  # "there's a spiky cat thing on their side": theirs, both halves answered
            (
                "theres a spiky cat thing on their side, what attacks does it have and does it hurt my fox",
                ["Briarcat learns", "half damage to your Emberfox"],
                ["biggest threat"],
            ),
        ],
        "left_to_unlock": [  # what it has and what is still locked, not "yes, you have it"
            (
                "does the stag even have anything left to unlock",
                ["Worldroot Slam is still locked"],
                ["Yes, you have"],
            ),
        ],
        "use_it_when": [  # timing asked of a move, not its damage on the one named
            ("what does thicket wall do", ["protects the whole team"], []),
            (
                "oh nice so i use it right when voltail is about to do his big hit?",
                ["just before"],
                ["element"],
            ),
        ],
        "one_for_another": [  # "Hexmoth for Oakhorn": a swap of the player's own, not a fight between them
            ("hex moth for oakhorn", ["Keep Oakhorn in"], ["Eclipse Court"]),
            ("hexmoth for emberfox then", ["Keep Emberfox in"], ["Against Emberfox"]),
        ],
        "scarier": [  # which of theirs is the threat, not a counter to the first named
            ("whos scarier their voltail or their shellbastion or the briar cat", ["biggest threat"], []),
        ],
        "keep_it": [("k keep it", ["Good luck"], ["worth it"])],
        "beaten_by_told": [  # a fight told, then "what happened": that fight, not the rounds unseen
            (
                "ok so my fire fox went in and got absolutely deleted by the turtle, what happened there",
                ["Shellbastion deals double damage to your Emberfox"],
                ["doesn't show"],
            ),
        ],
        "got_the_cat": [  # a knockout cheered; "I got this one with ..." is no round won
            ("yes we got the cat", ["Nice one"], ["don't own", "roster"]),
        ],
        "chart_of_mine": [  # the chart "for my team": what the player's own hit, not the whole chart
            (
                "how does the type chart work for my team, what are my three strong and weak against",
                ["Emberfox"],
                ["beats two"],
            ),
        ],
        "relayed": [  # a question asked for someone else is that question
            (
                "hi uh my son wants to know why the fire fox does like nothing to the turtle one",
                ["half damage"],
                [],
            ),
            ("she wants to know if the turtle can hurt our deer guy a lot", ["Lumifawn"], ["Emberfox"]),
            ("haha ok he says thank you coach", ["Any time"], ["Emberfox"]),
        ],
        "and_theirs": [  # the last question of the other side
            ("whos my strongest", ["Oakhorn"], []),
            ("and theirs?", ["Shellbastion"], ["Your top hitter"]),
        ],
        "said_to_win": [  # "isn't electric supposed to wreck wind": yes when theirs wins
            (
                "galehawk versus voltail though, isnt electric supposed to wreck wind",
                ["Yes, Voltail has the edge"],
                [],
            ),
            ("does my galehawk beat voltail", ["No, Voltail has the edge"], []),
        ],
        "swap_corrected_to_one_of_mine": [  # "no, for the fox": that one's swap or why to keep it
            ("is my bird chick any use against them", ["Sparkwing"], []),
            ("ok and who should i bring instead", ["Swap Sparkwing out for Hexmoth"], []),
            ("nah i meant for the fox not the bird", ["Keep Emberfox in"], []),
            ("something else", [], ["Keep Emberfox in"]),
        ],
        "hits_us_hardest": [  # which of theirs hurts the player's team most: their threat, then "that one"
            (
                "hey, which of their pets hits my team the hardest",
                ["Shellbastion is their biggest threat"],
                [],
            ),
            ("how do i deal with that one", ["Oakhorn"], ["Emberfox is fire"]),
        ],
        "put_right": [  # "no wait, I meant X, not Y": the last question again with the one meant
            ("i am using the fox on shell bastian", ["Emberfox deals half damage"], []),
            (
                "no wait sorry i meant im using the stag on it not the fox",
                ["Oakhorn deals double damage"],
                ["Inferno"],
            ),
        ],
        "said_wrong_then_meant": [  # "not the chick, the hawk one": two descriptions, not one
            ("is my little bird chick thing any good against them", ["Sparkwing"], []),
            ("wait no not the chick, the hawk one", ["Galehawk"], []),
        ],
        "keep_away": [  # asked as a danger: yes when theirs has the edge
            ("should i keep my fox away from their turtle", ["Yes, Shellbastion has the edge"], []),
        ],
        "in_its_place": [  # the swap asked for, not a question out of the game
            ("ugh fine what would you even put in instead", ["Swap Sparkwing out for Hexmoth"], ["outside"]),
            ("who do i take out for granitusk", ["Granitusk"], ["Hexmoth"]),
        ],
        "stepping_away_last": [  # a remark, then away for a moment: no matchup lecture
            (
                "haha ok my friend wins this time. gonna grab a snack brb",
                ["here when you're ready"],
                ["Oakhorn"],
            ),
            ("ok so oakhorn on the turtle and fox on the cat, got it", ["Good luck"], ["Oakhorn"]),
        ],
        "verdict_again": [  # "so that's a no?": the last verdict said plainly, with its reason
            ("would granitusk be any good against them", ["Not really"], []),
            ("so thats a no", ["No:", "Briarcat"], ["Field three"]),
        ],
        "their_kit": [  # what they have unlocked is unseen; whether the unit can have it at all is not
            ("does their turtle know frost bind", ["isn't one of Shellbastion's moves"], ["Frostfin"]),
            ("does shellbastion have mist shroud", ["Shellbastion does learn Mist Shroud"], []),
        ],
        "verdict_leans": [  # more of theirs beat it than it beats: a no with the reason, not "mixed"
            ("would granitusk be any good against them", ["Not really", "Briarcat"], ["mixed"]),
            ("is hexmoth useless", ["Not useless", "no edge"], []),
        ],
        "worth_getting_verdict": [  # a creature the player lacks: a verdict for this match, then the facts
            ("is the water droplet one worth getting", ["Not for this one", "Briarcat"], []),
            ("what about raijura", ["Not needed for this one", "Shellbastion"], []),
        ],
        "trouble_told": [  # the trouble told gets the fix after the fact
            ("ugh my fox keeps getting destroyed by their turtle", ["double damage", "bring Oakhorn"], []),
        ],
        "trouble_no_edge": [  # none of theirs hits it hard: no swap out of a matchup it does not lose
            ("my sparkwing keeps getting killed every round", ["harder than normal"], ["take Sparkwing out"]),
        ],
        "it_after_why": [  # "why" names nothing: "it" is the subject of the reply, not lost in its list
            ("is the shadow moth worth fielding against them", ["Hexmoth"], []),
            ("how come", ["Hexmoth"], []),
            ("could evolving it change that", ["Hexmoth"], ["Oakhorn"]),
        ],
        "only_swap": [  # asked for another swap when no other one helps: said, not a pick of another kind
            ("who should I bring in", ["Swap Sparkwing out for Hexmoth"], []),
            ("who else could come in?", ["None of your other swaps"], ["Swap Sparkwing out for Hexmoth"]),
        ],
        "level_worry": [  # a level put as a worry: the verdict against the team, and what it still lacks
            (
                "is lumifawn too low level to use",
                ["Lumifawn is behind", "Sanctuary still needs"],
                ["built around"],
            ),
            ("whats good against voltail", ["Granitusk"], []),
            ("he's only level 12 though", ["Granitusk is level 12", "isn't holding it back"], []),
        ],
        "option_on_foe": [  # a move's damage on one of theirs: its multiplier, not the move's description
            ("would inferno roar hit shellbastion for normal or half", ["half damage"], ["A roar that"]),
        ],
        "tell_me_moves": [  # "tell me" owns nothing: no "you don't own it" before their unit's moves
            ("can you tell me what moves briarcat has", ["Vine Lash"], ["roster"]),
        ],
        "why_bad_here": [("why is emberfox bad here", ["Shellbastion deals double damage"], ["common fire"])],
        "wall_move": [("is the wall one unlocked", ["Thicket Wall"], ["in your roster"])],
        "focus_or_ignore": [("do I focus the turtle or just ignore it", ["Go after Shellbastion first"], [])],
        "round_told_then_asked": [  # told the round, asked what it means: the match, won
            (
                "ok we took that round, so that's the match right?",
                ["That's the match: you won it 2 to 0"],
                ["round 3"],
            ),
        ],
        "shrugs_off": [  # their unit unhurt by the player's: how that one fares against it
            (
                "that turtle of theirs just ate two of my fox's fire attacks and barely flinched",
                ["half damage"],
                ["learns"],
            ),
        ],
        "made_faster": [("can sparkwing get me faster than that", ["Overcharge"], ["doesn't show speed"])],
        "and_uh_second": [  # a filler after "and" still opens the second question
            (
                "whats their lightning guy weak to and uh do I even have anything for it",
                ["Granitusk", "you have"],
                [],
            ),
        ],
        "term_after_lead": [  # a lead before the term, "even" inside it; one owned though none is fielded
            (
                "i just started, what even is a controller",
                ["A controller disables", "you own Hexmoth"],
                ["Strikers"],
            ),
            ("do i have one", ["Hexmoth"], ["Which creature"]),
        ],
        "why_the_swap": [  # why a swap: the one brought in, not the one taken out
            ("what do i change", ["Swap Sparkwing out for Hexmoth"], []),
            ("why", ["Hexmoth"], ["Sparkwing hits"]),
        ],
        "if_i_used": [  # "and if I used X instead": the last fight with X in it
            ("can galehawk beat their briarcat", ["Galehawk"], []),
            ("and if i used granitusk instead", ["Granitusk", "Briarcat"], ["coverage"]),
        ],
        "attack_aimed_where_it_hurts": [  # corrected to the cat; never "save it for" the one it bounces off
            (
                "should i blaze charge the turtle, no wait, the cat",
                ["Blaze Charge on Briarcat"],
                ["for Shellbastion"],
            ),
        ],
        "it_learns": [  # "it" learns: the creature just asked about, not a type the reply named
            ("is the glowing fawn worth using yet", ["Lumifawn"], []),
            ("what does it get at stage 2", ["Sanctuary"], ["Which creature", "electric"]),
        ],
        "who_leads": [("ok who should go first for us", ["go with"], ["Train", "up front"])],
        "rate_named": [  # three named and rated: one rating of them together, not one per pair
            (
                "rate sparkwing hexmoth and granitusk",
                ["Sparkwing, Hexmoth and Granitusk"],
                ["Sparkwing and Hexmoth"],
            ),
        ],
        "who_wins": [  # the winner named (or even), no "Yes" before it
            (
                "my galehawk vs their voltail, who would win",
                ["Voltail has the edge on your Galehawk"],
                ["Yes", "No,"],
            ),
            ("oakhorn against voltail, who wins", ["even fight"], []),
        ],
        "aside": [  # a remark that asks nothing gets a word back, not "outside what I can help with"
            ("hang on the doorbell just rang", ["I'm here when you're ready"], ["outside", "Ask me about"]),
            ("afk", ["take your time"], ["good luck next time", "See you next time"]),  # said differently
            ("can you order me a pizza", ["outside what I can help with"], []),  # asked: the deflection
        ],
        "options_compared": [  # one option named, the other the conversation's: the two weighed
            ("what does vine lash do", ["Vine Lash"], []),
            ("and thorn volley", ["Thorn Volley"], []),
            ("which of those is better", ["Thorn Volley has more power than Vine Lash"], ["lineup"]),
        ],
        "game_words": [  # a word explained from the pack, then what it means on the player's side now
            (
                "hold on, what are elements exactly",
                ["double damage", "Emberfox is fire"],
                ["Bring", "Against"],
            ),
            ("what do you mean by controller", ["disables the enemy", "don't field one"], []),
        ],
        "keeps_losing": [  # the elements favour the player: the cause is what the data does not show
            ("my emberfox keeps losing against their briarcat why", ["isn't the elements"], []),
        ],
        "focus_first": [  # the side's target is their threat, named as the one to go after; no score
            ("so who do we hit first", ["Go after Shellbastion first"], ["You're ahead", "Train"]),
        ],
        "my_role": [  # "my tank" is the one fielded when one fits, judged as asked
            ("is my tank doing ok here", ["Yes, Oakhorn works well"], ["Strikers deal damage"]),
            ("where should my tank stand", ["front"], ["Oakhorn"]),
        ],
        "any_of_a_kind": [("got any controllers worth using", ["Hexmoth"], ["Strikers deal damage"])],
        "tagged_claim": [  # "..., right": a yes or no first
            ("their turtle, what is that", ["Shellbastion"], []),
            ("my fox is in trouble against it, right", ["Yes, Shellbastion has the edge"], []),
        ],
        "out_unit_after": [  # the unit to take out said alone after a question that brought one in
            ("should i play galehawk", ["Galehawk"], []),
            ("instead of oakhorn?", ["Not Galehawk", "Keep Oakhorn in"], []),
        ],
        "off_topic_everyday_word": [  # an everyday word shared with a tip ("down") is no topic
            ("can you turn music down?", ["outside what I can help with"], ["Controllers"]),
        ],
        "tip_by_words": [  # the tip that shares the question's words
            (
                "so how does hitting a weak element work exactly",
                ["double damage"],
                ["outside what I can"],
            ),
        ],
        "died_fast": [("why did my emberfox die so early", ["Shellbastion deals double damage"], [])],
        "why_not_the_same": [  # "why" of an answer that would come again word for word: its reason
            ("should i level hexmoth or galehawk", ["Galehawk"], []),
            ("why", ["Because it still has an evolution ahead"], ["train Galehawk"]),
        ],
        "which_one_is": [("ok ok which one is the cat", ["Briarcat is a common grass striker"], ["roster"])],
        "their_side_alone": [("their team", ["You're facing Briarcat, Shellbastion and Voltail"], [])],
        "asked_bad_edge": [("is emberfox bad against shellbastion", ["Yes, Shellbastion has the edge"], [])],
        "look_with_y": [  # "glowy" of a glowing deer; "make it evolve" is no idiom
            ("my little glowy deer is level 5 is it worth using", ["Lumifawn"], ["Which creature"]),
            ("how do i make it evolve", ["Lumifawn"], ["Oakhorn"]),
        ],
        "two_after_news": [  # a sentence of news, then two questions: both answered, no stray "No"
            (
                "I haven't played in about a year. Do I still have that dark moth creature, and is it any "
                "good?",
                ["Yes, you have Hexmoth", "Not much either way"],
                ["No, you have"],
            ),
        ],
        "misheard_name_word": [("whats nightmare hacks", ["Nightmare Hex is a control move"], ["outside"])],
        "news_first": [  # news told before the question: the question, about the one just got
            (
                "i just unlocked rockram is it any good",
                ["Rockram deals double damage"],
                ["isn't in your roster"],
            ),
        ],
        "no_no_within": [  # no "No," inside an answer to a what question
            ("whats the difference between pyrowl and emberfox", ["Pyrowl isn't in your roster"], ["No,"]),
        ],
        "claim_bad": [("tidefang sucks doesnt it", ["Yes, Tidefang has it rough"], [])],  # tagged: yes or no
        "every_move_known": [  # nothing left to learn: said so, after the moves it has
            ("can hexmoth learn anything new soon", ["every move Hexmoth learns"], []),
        ],
        "what_gets_no_yes": [  # a question that asks what gets no leading yes or no
            ("what moves does pyrowl have", ["Pyrowl isn't in your roster", "Inferno Roar"], ["No,"]),
        ],
        "how_good_against": [  # the matchup asked, not the unit's place on the roster
            ("how good is emberfox against briarcat", ["double damage"], ["highest"]),
        ],
        "how_strong_theirs": [  # one of theirs sized up against the player's side
            ("how strong is their electric guy", ["Voltail", "Emberfox, Oakhorn and Sparkwing"], ["go with"]),
        ],
        "against_us": [  # one named against the player's side: how it does against theirs, not ours
            ("would pyrowl be scary against my team", ["Against Oakhorn, Pyrowl deals double damage"], []),
        ],
        "on_whom": [  # a helping option on the ally their side hits hardest, any other on their threat
            ("who should i put overcharge on", ["Put Overcharge on your Emberfox"], ["right after"]),
            ("and who do i use nightmare hex on", ["Use Nightmare Hex on Shellbastion"], []),
        ],
        "use_on_theirs": [  # one of theirs offered as the option's target: yes, or the bigger threat instead
            ("nightmare hex on shellbastion, good call?", ["Yes,", "Shellbastion"], ["Cast support"]),
            ("what about dread whisper on voltail, good idea?", ["save Dread Whisper for Shellbastion"], []),
        ],
        "field_not_option": [  # "X's element" is the unit's, not a move whose text says "again"
            ("what's galehawk's element again", ["Galehawk is wind"], ["Gale Dive is"]),
            ("so it beats their cat?", ["Yes, your Galehawk has the edge on Briarcat"], []),
        ],
        "strikes_first": [("does voltail have anything that goes first", ["Volt Dash"], ["Granitusk"])],
        "fielded_now": [("who do we have out", ["Your lineup right now"], ["You own"])],
        "if_i_had": [("if i had pyralis would that help", ["Pyralis deals double damage"], ["together"])],
        "their_plans": [("are they gonna change their team after this", ["what the other side will do"], [])],
        "short_name_bare": [  # "fox" said bare is the player's Emberfox: the swap asked, not another
            ("hexmoth in, fox out?", ["Emberfox"], ["Sparkwing"]),
        ],
        "team_of_a_size": [  # a team of a size asked about: the game's rule, not a team built
            ("can i bring four pets", ["three to five"], ["field Granitusk"]),
            ("is it worth bringing five or does that make it worse", ["three to five"], []),
        ],
        "spam_it_on": [  # a move of mine "spammed" on the one of theirs just named: how it hits that one
            ("what even is shellbastions deal, it never dies", ["Shellbastion"], []),
            (
                "so just spam bramble crush on it?",
                ["Bramble Crush hits Shellbastion for double damage"],
                ["learn"],
            ),
        ],
        "one_shot_mine": [  # an attack on the player's unit said as a complaint: what hits it hard
            ("bro they just one shot my hawk", ["Voltail deals double damage to your Galehawk"], ["Fill"]),
        ],
        "can_we_win": [  # a yes / no on the match: a read of the sides first, then the change
            ("im getting destroyed, can i still win this", ["winnable", "Watch Shellbastion"], []),
        ],
        "run_it_back": [  # keep the team or change it: said as that
            ("we took the first one, same team again or change it up?", ["Mostly keep it"], []),
        ],
        "which_of_theirs_first": [  # two of theirs named: the one to go after, and why
            ("voltail or briarcat, who do i take out first", ["Go after Briarcat first"], ["You're ahead"]),
        ],
        "type_of_theirs": [  # a type, not a unit: what of mine beats it
            ("if they switch to an electric one what do i bring", ["Against electric", "Granitusk"], []),
            ("which of my guys are good against grass", ["Against grass"], ["You own 8"]),
        ],
        "gate_asked": [
            ("at what stage does galehawk get gale dive", ["unlocks at evolution stage 2"], ["Yes,"])
        ],
        "target": [  # the one of theirs it beats, and the one that beats it
            (
                "who should my fox go after",
                ["Against Briarcat, Emberfox deals double damage", "Shellbastion deals double damage"],
                [],
            ),
        ],
        "ready_for_fight": [
            ("is the little deer ready for this fight", ["Against Voltail", "only level 5"], [])
        ],
        "level_checked": [
            ("is oakhorn lvl 19 or 21", ["level 19"], ["worth"]),
            ("Spark wing level?", ["level 10"], []),
        ],
        "other_end": [
            ("what's my highest level creature", ["Hexmoth"], []),
            ("and the lowest?", ["Lumifawn", "level 5"], ["Hexmoth"]),
        ],
        # Lumifawn at level 5, the rest at 10 to 25: not in the team
        "team_on_levels": [("make me a team for this fight", ["Emberfox hits their Briarcat"], ["Lumifawn"])],
        "unit_down": [  # out of this fight: a pick among the rest, and no "as you asked"
            ("ugh my sparkwing just went down, who do I use now", ["go with"], ["Sparkwing", "as you asked"]),
        ],
        "their_weakness": [  # theirs: its weakness, then the pick against it
            (
                "whats the turtle weak to",
                ["takes double damage from grass and electric", "go with Oakhorn"],
                [],
            ),
        ],
        "option_theirs": [("thorn volley is theirs right", ["one of their Briarcat's moves"], ["don't own"])],
        "clock": [("how much time have we got left", ["doesn't show"], ["outside what I can help"])],
        "team_read": [  # the team against theirs by the element table, no made-up rating
            (
                "is my team good enough for this match",
                ["Emberfox hits Briarcat", "Watch Shellbastion"],
                ["out of 100"],
            ),
            ("should i swap anyone", ["Swap Sparkwing out for Hexmoth"], ["out of 100"]),
        ],
        "members": [("is sparkwing in my lineup", ["Yes", "Emberfox, Oakhorn and Sparkwing"], ["rate"])],
        "resists": [
            (
                "which of mine takes the least damage from fire",
                ["hold up best", "take only half damage"],
                ["you want"],
            )
        ],
        "ellipsis": [
            ("is fire good against water", ["half damage"], []),
            ("ok what is then", ["grass and electric"], []),
        ],
        "type_pronoun": [
            ("does electric beat grass", ["normal damage"], []),
            ("so what does beat it then", ["fire and wind"], ["Which creature"]),
        ],
        "swap_called_off": [
            ("should i swap anyone", ["Swap Sparkwing out"], []),
            ("actually nah keep the bird", ["Sparkwing deals double damage"], ["Swap Sparkwing out"]),
        ],
        "group_info": [
            ("whats steam engine about", ["Steam Engine is a balanced lineup"], ["rankings"]),
            ("can i field it", ["Steam Engine needs Cindermaw"], []),
        ],
        "is_he_fast": [
            ("what should i throw at their lightning guy", ["Against Voltail"], []),
            ("and is he fast", ["doesn't show speed"], []),
        ],
        "usable_now": [  # its best matchup and the one of theirs that hits it hard
            (
                "is tide fang usable at all right now",
                ["Tidefang deals half damage", "double damage to your Tidefang"],
                [],
            ),
        ],
        "evolve_how_then": [
            ("use inferno roar with emberfox", ["Inferno Roar"], []),
            (
                "ugh fine how do i get it to stage three then",
                ["doesn't show what makes a creature evolve"],
                [],
            ),
        ],
        "evolve_how": [
            (
                "how do i get emberfox to stage three",
                ["doesn't show what makes a creature evolve"],
                ["new creatures"],
            )
        ],
        "their_best_move": [
            ("whats their shellbastions strongest move", ["Tide Slap"], ["don't own", "roster"])
        ],
        "data_limit": [  # what the data does not hold, said; then what it does
            ("does overcharge stack", ["doesn't show whether effects stack", "Overcharge"], []),
            ("can voltail do chain lightning on us", ["can't see", "Chain Lightning"], ["you don't own"]),
            ("how close is tide fang to evolving", ["doesn't show the level", "Tidefang"], []),
        ],
        "stakes": [  # what the round in play means for the match (1-0 up in round 2 of 3)
            (
                "so if i win this one is that the whole match",
                ["1 to 0", "Win round 2 and the match is yours"],
                [],
            ),
        ],
        "swap_follow_up": [  # "what about X" after a swap question: X (benched) coming in
            ("should i swap anyone out for the next round", ["Swap"], []),
            ("what about granitusk", ["Granitusk in"], ["rare earth tank"]),
        ],
        "their_line": [  # one of theirs: its evolution line, not "you don't own one"
            ("oh one more thing does briarcat evolve", ["Briarpanther", "Briarkit"], ["don't own"]),
        ],
        "stay_away": [  # "it" is the one asked about before, not the sentence's own subject
            ("whats the turtle weak to", ["Shellbastion"], []),
            ("so emberfox should just stay away from it huh", ["Emberfox deals half damage"], []),
        ],
        "my_level": [("what level am i", ["player level 18"], ["Level the creatures"])],
        "bring_second": [  # the second question's state rules: one of theirs on the bench is a swap
            ("what does hexmoth do and should i bring it", ["shadow controller", "for Hexmoth"], []),
        ],
        "mine_versus": [  # the player's unit against theirs: how it does, not what beats it
            ("should i bring galehawk against briarcat", ["Galehawk deals double damage"], ["watch"]),
        ],
        "compare_options": [  # "that" is the kind it is compared with; the two side by side
            ("what does blaze charge do", ["Blaze Charge"], []),
            (
                "is that better than flame burst",
                ["Blaze Charge has more power than Flame Burst"],
                ["Emberfox better"],
            ),
        ],
        "option_by_word": [  # a word of one move's name is that move; a unit's look is the unit
            ("what about the roar one, when do i get it", ["Inferno Roar", "stage 3"], ["Which"]),
            ("what does the shell one do", ["Shellbastion"], ["Mirror Shell"]),
        ],
        "reference": [
            ("can my emberfox take their voltail?", ["Voltail"], []),
            ("ok how do i beat him", ["against Voltail", "Granitusk"], ["Which creature"]),
        ],
        "correction": [
            ("is emberfox worth levelling", ["Emberfox"], []),
            ("no wait, I meant oakhorn", ["Oakhorn"], ["leaving", "Emberfox"]),
        ],
        "two_part": [
            ("what does flame burst do, and can emberfox use it", ["A burst of flame", "Emberfox"], []),
        ],
        "element": [
            ("what's good against water", ["grass", "electric", "Oakhorn"], ["Which creature"]),
        ],
        "ask_back": [
            ("tell me about the electric one", ["Sparkwing", "Voltail", "?"], []),
            ("theirs", ["Voltail"], ["Sparkwing"]),
        ],
        "kind_owned": [  # a kind with an ownership verb: the player's units of it
            ("have i got a light one", ["Lumifawn"], ["Which creature"]),
        ],
        "ask_back_unanswered": [  # asked once; then the best reading, said as one
            ("is the electric one any good", ["Sparkwing", "Voltail", "?"], []),
            ("hmm dunno", ["Taking it as your Sparkwing.", "Sparkwing"], ["?"]),
        ],
        "bring_in": [  # the spare unit they name is the one coming in
            ("thinking of putting hexmoth in, who comes out", ["Hexmoth", "out"], ["Lumifawn"]),
        ],
        "swap_worse": [  # the unit they'd bring in loses to one of theirs: kept, and why
            ("thinking of benching emberfox and using tidefang", ["Keep Emberfox", "Briarcat"], []),
        ],
        "swap_pair_no_gain": [  # the swap they name raises nothing: why not, then the one that does
            ("ok put galehawk in for sparkwing", ["Not Galehawk", "Voltail", "Hexmoth"], []),
        ],
        "another_again": [  # a team offered two asks ago is not "another" either
            ("make me a team", ["Oakhorn"], []),
            ("hmm something else", ["Granitusk"], []),
            ("another one please", ["Emberfox"], ["Oakhorn"]),
        ],
        "next_move": [  # the next one it unlocks, not its best now
            ("what can hexmoth use", ["Hexmoth"], []),
            ("so how far off is lumifawn's next move", ["Sanctuary"], ["strongest"]),
        ],
        "good_against": [  # what it beats, not what beats it
            ("what's sparkwing actually good against", ["Sparkwing", "water"], []),
        ],
        "type_against_one": [  # "and X?" after a type against their team: the type against X
            ("is wind any use into their lineup", ["wind"], []),
            ("and voltail?", ["Against Voltail", "half"], ["Which creature"]),
        ],
        "both_ways": [  # what it deals and what it takes; against their whole side, that no one hits it hard
            (
                "what does emberfox do against their tank",
                ["half damage", "double damage to your Emberfox"],
                [],
            ),
            (
                "is my oakhorn a problem for them",
                ["Oakhorn deals double", "None of theirs hits"],
                ["Lumifawn"],
            ),
        ],
        "their_is_its": [  # "their level" of two of the player's own named just before
            ("oakhorn and galehawk, whats their level", ["level 19", "level 16"], ["Voltail"]),
        ],
        "weighed": [  # two of the player's weighed for this match, with the reason and the catch
            ("is hexmoth better than emberfox", ["Little between Hexmoth and Emberfox", "25 to 14"], []),
            (
                "compare oakhorn and galehawk",
                ["Oakhorn over Galehawk", "Voltail hits Galehawk"],
                ["coverage"],
            ),
        ],
        "the_other_one": [  # the one of the two the answer did not pick
            ("compare oakhorn and galehawk", ["Oakhorn over Galehawk"], []),
            (
                "ok what about the other one against voltail",
                ["Voltail deals double damage to your Galehawk"],
                [],
            ),
        ],
        "weighed_against_one": [  # a foe named: the counter among the two, not a weighing
            ("galehawk or granitusk against voltail", ["Granitusk"], ["over Galehawk"]),
        ],
        "correction_same_side": [  # the name corrected is the one of the same side, by the state
            ("is tidefang good vs voltail, sorry i mean granitusk", ["Granitusk deals double"], ["Tidefang"]),
        ],
        "theirs_attacks": [  # theirs as the attacker of the player's, without "my"
            (
                "i think voltail is gonna wreck sparkwing",
                ["Voltail deals normal damage to your Sparkwing"],
                [],
            ),
        ],
        "outspeed": [  # speed is not in the data; no "you don't own it" about theirs
            ("can anything of mine outspeed voltail", ["doesn't show speed"], ["isn't in your roster"]),
        ],
        "tell_me_and": [  # an imperative and a question: both answered
            ("tell me about emberfox and what it evolves into", ["fire striker", "Infernofox"], []),
        ],
        "weakest": [  # the opposite of the strongest, by level
            ("whats the strongest thing i own", ["Oakhorn"], []),
            ("and the weakest", ["Lumifawn is your lowest-level creature"], ["Oakhorn"]),
        ],
        "hits_mine_hard": [  # one of the player's benched units against their side, by the state
            (
                "do they have anything that hits hexmoth hard",
                ["Nothing of theirs hits your Hexmoth"],
                ["go with"],
            ),
        ],
        "level_order": [
            ("whos the lowest level out of them", ["Lumifawn is your lowest-level creature"], []),
            ("rank my pets by level real quick", ["Hexmoth 25", "Lumifawn 5"], []),
        ],
        # a healer heals: the support whose moves do (Lumifawn), not Sparkwing (it speeds allies up)
        "healer": [("do i have a healer", ["you have Lumifawn"], ["Sparkwing"])],
        "build_against": [  # a whole team, built against their side
            ("build me the best team against these guys from what i have", ["Run ", "Oakhorn"], ["go with"]),
        ],
        "last_stage_offer": [("tell me about the moth", ["Hexmoth"], ["evolves into"])],
        "kind_of_mine": [  # the player's units of a kind, all at once; no "it" offered after two
            ("which of mine are tanks", ["You have Oakhorn and Granitusk"], ["compare it", "counter it"]),
            ("who are my strikers", ["Emberfox", "Galehawk", "Tidefang"], ["Strikers deal damage"]),
        ],
        "hit_hard_by_them": [  # every one of theirs that hits the player's unit hard, not its best matchup
            (
                "does anything of theirs hit my tidefang hard",
                ["Briarcat deals double", "Voltail deals double"],
                ["Against Shellbastion"],
            ),
        ],
        "attack_on_mine": [
            (
                "will shellbastion destroy emberfox",
                ["Shellbastion deals double damage to your Emberfox"],
                ["go with"],
            ),
        ],
        "look_word": [  # "spiky" is the hedgehog's look; "cat" names theirs
            ("would the spiky cat beat my sparkwing", ["Briarcat deals normal damage to your Sparkwing"], []),
        ],
        "levelled_enough": [("is emberfox levelled enough", ["level 14"], ["Emberfox is a common"])],
        "which_round": [("what round is this", ["round 2 of 3"], ["go with"])],
        "taking_hits": [
            ("why does my galehawk keep dying", ["Voltail deals double damage to your Galehawk"], [])
        ],
        "wont_die": [("their turtle just wont die", ["Against Shellbastion"], ["levelling"])],
        "bare_name_again": [  # a name alone after a question: the question again, about it
            ("is my sparkwing any good against their briarcat", [], []),
            ("galehawk", ["Galehawk deals double damage"], ["learns"]),
        ],
        "even_with_all": [
            (
                "is hexmoth good right now",
                ["normal damage to Briarcat, Shellbastion and Voltail"],
                ["Against Briarcat"],
            )
        ],
        "resisted": [("is tidefang any good", ["half damage"], ["normal damage"])],
        "who_against": [("who are we facing", ["You're facing Briarcat, Shellbastion and Voltail"], [])],
        "their_side": [("whats on the enemy side", ["You're facing Briarcat, Shellbastion and Voltail"], [])],
        "take_off": [  # one of the team, taken off: kept, with what it does there and what to avoid
            (
                "should i pull emberfox",
                ["Keep Emberfox in", "Briarcat", "away from Shellbastion"],
                ["investing"],
            )
        ],
        "underlevelled_pick": [
            ("is lumifawn any good here", ["double damage", "only level 5"], []),
            ("build me a team", ["Emberfox"], ["Lumifawn", "best mix"]),  # not a level 5 among level 14s
        ],
        "maxed": [("is hexmoth maxed out", ["Hexmoth is fully evolved"], ["Hexmonarch"])],
        "having_adjective": [("tell me about my horned guy", ["Oakhorn"], ["biggest threat"])],
        "play_fielded": [("should i play sparkwing", ["Sparkwing deals double damage"], ["investing"])],
        "tank_it": [("can oakhorn tank voltail", ["Voltail deals normal damage to your Oakhorn"], [])],
        "effect_named": [
            ("does sparkwing have any heals", ["none of Sparkwing's skills can heal", "Gentle Light"], [])
        ],
        "effect_team": [("can anyone on my team heal", ["Nobody in your lineup can heal", "Lumifawn"], [])],
        "effect_of_option": [
            (
                "will dread whisper make them fall asleep",
                ["No, Dread Whisper doesn't put a target to sleep"],
                [],
            ),
            ("does gentle light heal my whole team", ["not everyone at once"], []),
        ],
        "effect_of_roster": [  # an effect asked of the roster, by the options' descriptions
            # "him" is the one slowed: whoever he is, the answer is the same (no "which creature")
            (
                "can anything i have slow him down",
                ["None of your creatures", "Undertow", "don't own"],
                ["Which"],
            ),
            ("does oakhorn have anything that protects the team", ["Thicket Wall"], ["Bark Skin"]),
            ("do they have any heals", ["None of their creatures", "Gentle Light"], ["ahead"]),
            ("any of mine able to hit all of them at once", ["Quake Stomp"], []),
        ],
        "run_against_corrected": [  # "run" a move against the corrected foe: theirs is the target
            (
                "what should galehawk run against the cat, wait no, against the turtle",
                ["Against Shellbastion", "Galehawk"],
                ["can't see their skills"],
            ),
        ],
        "not_in_the_data": [  # said as such, with no stand-in pick after it
            ("how much does voltail weigh", ["doesn't show size, weight or age"], ["go with"]),
            ("when's the next season start", ["season dates"], ["go with", "ahead 1 to 0"]),
            ("gg", [], ["outside what I can help with"]),
        ],
        "drop_rate": [("what's the drop rate on legendaries", ["doesn't show drop rates"], ["outside"])],
        "five_in_team": [("can I put five in my team instead of three", ["three to five"], [])],
        "better_tank_than": [("is Granitusk a better tank than Oakhorn", ["Oakhorn"], ["is a tank"])],
        "kind_on_their_side": [  # a kind asked of their side: theirs of that kind, not the roster's
            ("do they have a tank", ["Yes, they're fielding Shellbastion"], ["Oakhorn"]),
            ("do they have a healer", ["No:", "none of them is one"], ["Lumifawn"]),
        ],
        "their_levels": [("which of theirs is the lowest level", ["can't see the levels"], [])],
        "have_for": [("what do i have for shellbastion", ["go with Oakhorn"], ["isn't in your roster"])],
        "kind_in_team": [  # a kind asked of the lineup: its members of that kind, not the roster
            ("any healers on my team", ["No:", "Lumifawn on your bench"], ["Yes"]),  # Sparkwing heals no one
            ("do i have a tank in my lineup", ["Yes, you're fielding Oakhorn"], ["Granitusk"]),
            ("is there a support on my team", ["Sparkwing"], []),
        ],
        "name_then_it": [("the shadow moth, is it any use this round", ["Hexmoth"], ["go with Oakhorn"])],
        "which_move_better": [
            ("gust cutter vs gale dive, which one's better", ["Gale Dive has more power"], ["blade"])
        ],
        "evolve_which": [
            ("should I evolve Galehawk or Hexmoth first", ["Galehawk first"], ["Little between"])
        ],
        "or_drop_him": [  # "or should I drop him" is the other side of the same question: no exclusion
            ("is Tidefang worth it or should I drop him", ["Tidefang"], ["leave Tidefang out", "Swap"]),
        ],
        "dying_help": [  # "keeps dying to X, help": why, and what to do about it
            ("my fox keeps dying to the water turtle, help", ["double damage", "bring Oakhorn"], []),
            ("my emberfox keeps dying to shellbastion, why", ["double damage"], ["bring Oakhorn"]),
        ],
        "bramble_against_cat": [  # the cat it is used against learns it too: not its holder
            ("is bramble crush good against the cat", ["Briarcat takes"], ["you don't own"]),
        ],
        "own_side_move": [  # a heal or a shield hits no one: its element is not the answer
            ("does gentle light do anything against them", ["doesn't attack", "heals an ally"], ["double"]),
            ("is thicket wall worth using against voltail", ["protects the whole team"], ["normal damage"]),
        ],
        "split_name_not_a_move": [  # "the spark wing": Sparkwing said in two words, not Spark Nip
            ("is sparkwing decent into shellbastion", [], []),
            ("how hard does the spark wing hit it", ["Sparkwing deals double damage"], ["Spark Nip"]),
        ],
        "pronoun_object": [  # "does that hit it": "that" the one named, "it" the other
            ("what should i send at shellbastion", [], []),
            ("and the emberfox, how much does that hurt it", ["Emberfox deals half damage"], []),
        ],
        "situation": [("ok catch me up", ["1 to 0 in round 2 of 3", "the match is yours"], [])],
        "instead_after_pull": [  # the bench unit named "instead" comes in for the one pulled
            ("do i bench oakhorn", [], []),
            ("how about hexmoth instead", ["Swapping Oakhorn for Hexmoth"], ["already at its last stage"]),
        ],
        "option_aimed_at": [  # "it" is the move, aimed at theirs: how that one takes it
            ("what does gust cutter do", [], []),
            ("worth firing it at their voltail?", ["Voltail takes half damage"], ["can't see their skills"]),
        ],
        "option_even": [
            ("is blaze charge any good at their voltail", ["no bonus", "normal damage"], ["Not really"])
        ],
        "their_edge_first": [  # the player's unit named as losing: why, before whom to send
            (
                "their shellbastion keeps tanking all my emberfox stuff",
                ["has the edge on your Emberfox", "Oakhorn"],
                [],
            )
        ],
        "sleeping_is_a_condition": [
            ("can nightmare hex make them sleep", ["doesn't put a target to sleep"], [])
        ],
        "type_on_type": [
            ("remind me how earth vs fire works", ["Against fire, earth attacks deal double"], [])
        ],
        "levels_to_go": [
            ("is granite bulwark ready on granitusk", [], []),
            ("how many more levels until it is", ["8 more levels"], []),
        ],
        "level_compare": [
            ("who is more levelled, galehawk or oakhorn", ["Oakhorn is higher, at level 19"], [])
        ],
        "not_owned_proposed": [("how about cindermaw against them", ["You don't have Cindermaw"], [])],
        "outside_the_match": [
            (
                "when does the new season drop",
                ["doesn't show rewards or season dates"],
                ["Save your strongest"],
            )
        ],
        "their_intent": [
            ("who is briarcat likely to target", ["doesn't show what the other side will do"], [])
        ],
        "this_turn": [("what do i do this turn", ["Oakhorn"], ["Lumifawn"])],
        "the_other_noun": [  # of the units that word fits on that side, the one not named yet
            ("is the bird on my team any good vs voltail", ["Sparkwing"], []),
            ("and the other bird", ["Galehawk"], ["Which creature"]),
        ],
        "asked_whether": [
            ("should i pull emberfox out, their turtle keeps wrecking him", [], ["as you asked"])
        ],
        "option_on_theirs": [  # a skill against the one of theirs named, as that one takes it
            ("is blaze charge any good against their turtle", ["Shellbastion takes half damage from it"], []),
            ("is gust cutter worth using on briarcat", ["Gust Cutter hits Briarcat for double damage"], []),
        ],
        "even_both_ways": [
            ("voltail or my sparkwing, who wins", ["Voltail deals normal damage to your Sparkwing"], [])
        ],
        "choice_to_level": [("should i level tidefang or like focus galehawk", ["Galehawk"], ["Yes:"])],
        "worth_time": [("is it worth putting time into tidefang", ["Riptide"], ["deals"])],
        "what_it_does": [
            ("what does their electric critter do", ["Voltail is a common electric striker"], ["Not much"])
        ],
        "worth_fielding": [
            ("is tidefang worth putting in", ["deals double damage to your Tidefang"], ["unlocks"])
        ],
        "bare_highest": [
            ("how many pets do i have", [], []),
            ("which one of mine is the highest", ["Hexmoth is your highest-level"], ["hitter"]),
        ],
        "only_level": [("lumifawn is only level 5 right", ["level 5"], ["unlocks Sanctuary"])],
        "add_one": [("should i add another one", ["slot"], ["Swap"])],
        "weak_to_mine": [  # more of the same answer, no counter to the player's own unit
            ("what is galehawk weak to", ["electric"], []),
            ("what else is it weak to", ["electric"], ["against Galehawk", "For a different option"]),
        ],
        "round_told_right": [("nice we won round one", ["Right, you're ahead 1 to 0"], [])],
        "not_a_unit": [  # "this"/"it" that stand for the match, not a creature of the catalog
            ("are we losing this, its like zero one", ["Actually, you're ahead 1 to 0"], ["Pyralis"]),
            ("what round is it now", ["round 2 of 3"], ["Pyralis", "Voltail"]),
        ],
        "my_unowned": [
            ("anything good against briarcat", [], []),
            ("what about my pyrowl", ["Pyrowl isn't in your roster"], []),
        ],
        "my_unowned_again": [  # "my" kept when the last question is asked again about it
            ("is it worth bringing tidefang in", [], []),
            ("what about my pyrowl", ["Pyrowl isn't in your roster"], []),
        ],
        "how_bout": [("do i own stormlynx", [], []), ("how bout pyrowl", ["Pyrowl"], ["deals"])],
        "better_than": [
            ("is oakhorn any good", [], []),
            ("stronger than galehawk?", ["Oakhorn", "Galehawk"], ["Which creature"]),
        ],
        "instead_of_benched": [("who should i bring instead of galehawk", ["Swap"], ["don't have Galehawk"])],
        "wrong_score": [  # round one was the player's: said before the advice
            ("we lost round one and theyre stomping us", ["Actually, you're ahead 1 to 0"], []),
        ],
        "why_the_pick": [  # "why?" after a threat and its counter: the counter's reason
            ("which of theirs is the biggest threat", ["go with Oakhorn"], []),
            (
                "why that one",
                ["Because Oakhorn hits Shellbastion", "half damage back"],
                ["Emberfox", "Watch"],
            ),
        ],
        "why_no_edge": [  # a pick that beats none of theirs: its level, and no stock tip after
            ("who should I pick", ["Hexmoth"], []),
            ("why?", ["level 25", "none of theirs"], ["Bring at least", "For the last slot"]),
        ],
        "team_against": [("give me a team that can handle voltail", ["Granitusk"], ["isn't in your roster"])],
        "bench_benched": [("should I bench lumifawn", ["isn't in your lineup"], ["Swap"])],
        "threat_verdict": [("is shellbastion a threat to oakhorn", ["No, your Oakhorn has the edge"], [])],
        "stat_superlative": [("who's the fastest pet I have", ["doesn't show speed"], [])],
        "my_move_against": [  # the player's best move against theirs, not their unit's own moves
            ("which move should I use against voltail", ["Quake Stomp on your Granitusk"], ["Thunderclap"]),
            (
                "which of my moves hits water the hardest",
                ["Bramble Crush on your Oakhorn"],
                ["Which creature"],
            ),
        ],
        "teams_compared": [("is their team better than mine", ["Against their team as a whole"], [])],
        "called_useless": [("my sparkwing is kinda useless isn't it", ["Sparkwing deals double damage"], [])],
        "like_that": [  # the types the last answer named, of the player's own
            ("what's voltail weak to", ["earth and light"], []),
            ("do I have anything like that", ["Granitusk and Lumifawn"], ["Sparkwing", "don't own Voltail"]),
        ],
        "type_in_general": [
            ("how do I beat a water team in general", ["Oakhorn and Sparkwing"], ["outside"])
        ],
        "doomed_verdict": [  # a threat asked as doom: yes when theirs has the edge
            ("is the fox done for against that turtle thing", ["Yes, Shellbastion has the edge"], []),
            ("will my fox lose to briarcat", ["No, your Emberfox has the edge"], ["isn't the elements"]),
        ],
        "unit_verdict": [  # a verdict first, then the facts; a named foe keeps its own yes / no
            ("is sparkwing any good right now", ["Yes, Sparkwing works well here"], []),
            ("is lumifawn good against voltail", ["Yes, your Lumifawn has the edge"], ["mixed"]),
        ],
        "vent_no_question": [
            ("this game is rigged", ["I hear you", "ahead 1 to 0"], ["Field three to five", "Against"])
        ],
        "said_to_coach": [
            ("are you a bot", ["Ask me about"], ["outside"]),
            ("brb", ["I'm here"], ["outside", "See you"]),  # back soon: not a goodbye
        ],
        "claim_that_clause": [("is it true that shadow beats light", ["Yes, that's right"], ["Hexmoth"])],
        "team_checked_back": [
            ("my team is emberfox oakhorn sparkwing right", ["Yes: your lineup right now"], [])
        ],
        "move_against_foe": [  # that move on that foe, locked or not
            ("is Blaze Charge worth using against the turtle", ["Not really", "half damage"], []),
            (
                "is Worldroot Slam any good against the water guy",
                ["would hit Shellbastion for double damage"],
                [],
            ),
        ],
        "resists_type": [
            ("do I own anything that resists grass", ["Emberfox and Galehawk", "half damage"], ["You own 8"])
        ],
        "worth_levelling": [
            ("is Lumifawn worth leveling or is she just dead weight at level 5", ["Sanctuary"], [])
        ],
        "no_weather": [("what's the weather like in the arena", ["doesn't show the weather"], ["outside"])],
        "how_strong": [("how strong is the shadow moth", ["level 25, the highest of your 8"], [])],
        "win_condition": [("what's our win condition", ["go with Oakhorn"], ["outside"])],
        "weak_on_their_side": [("who's weak to fire on their side", ["fire hits Briarcat"], ["shadow"])],
        "top_in_game": [("strongest creature in the whole game?", ["Raijura", "you don't have one"], [])],
        "two_options": [  # the difference: what each does; "A or B": a pick
            (
                "overcharge vs quick circuit whats the difference",
                ["Overcharge: Supercharges", "Quick Circuit: Lets"],
                [],
            ),
            ("dread whisper or nightmare hex on voltail", ["Go with Nightmare Hex"], ["is a control move"]),
        ],
        "described_in_second_half": [  # the second question's description, read as the first's
            (
                "whats my best hitter and does it beat the turtle",
                ["Shellbastion has the edge on your Emberfox"],
                [],
            ),
        ],
        "look_noun": [  # "antler" of an "antlered stag"
            ("the antler guy, can he take a hit from their cat", ["Oakhorn"], ["go with Emberfox"]),
        ],
        "the_healer": [  # a healer is one that heals: Lumifawn, not the fielded support Sparkwing
            ("is the healer ready", ["Lumifawn"], ["Sparkwing"]),
        ],
        "negative_claim": [  # "I don't have X, right?": the no and the right as a person says them
            ("i dont have any water guys right", ["No, you have Tidefang"], ["Yes,"]),
            ("i dont have pyrowl right", ["Right,", "Pyrowl"], ["No,"]),
        ],
        "negative_claim_of_a_unit": [  # said of a unit by its short name: a yes/no about what it does
            ("spark doesnt heal at all right", ["Right: none of Sparkwing's skills can heal"], ["No:"]),
        ],
        "move_on_foe": [("quick which move on the cat", ["your best move", "Emberfox"], ["Worldroot Slam"])],
        "goes_first": [  # out-sped: theirs that strike first, not "the data doesn't show speed"
            ("we keep getting out-sped every turn", ["Voltail's Volt Dash"], ["None of your"]),
        ],
        "option_or_option": [  # a support or an attack: the one that hits one of theirs hard, and whom
            (
                "overcharge or spark nip this turn",
                ["Go with Spark Nip", "Shellbastion for double"],
                ["Overcharge"],
            ),
        ],
        "whose": [  # a unit described twice ("the fox with the fire tail"), asked whose it is
            ("is the fox with the fire tail ours or theirs", ["Emberfox is yours"], ["Voltail"]),
            ("and the turtle", ["Shellbastion is theirs"], []),
        ],
        "standing": [("um are we winning", ["Yes, you're 1 to 0"], [])],  # a yes or no on the score
        "short_name": [  # the first word of a two-word name, said bare: the unit in play, not a question back
            ("ember into their turtle is bad right", ["Emberfox", "half damage"], ["Did you mean"]),
        ],
        "should_i_get": [  # "should I get X": whether it is worth having
            (
                "should i get dunecrawler for this fight",
                ["Dunecrawler deals double", "don't have Dunecrawler"],
                ["Keep"],
            ),
        ],
        "worth_getting": [  # worth it, of one they don't own: how it would do here, then that they lack it
            (
                "cindermaw, is that good, should i try to get one",
                ["Cindermaw deals double", "don't have"],
                ["levelling"],
            ),
            ("should i get pyrowl", ["Against Briarcat, Pyrowl", "don't have Pyrowl"], ["No, Pyrowl"]),
        ],
        "weighed_vs": [  # "A vs B, which is better": a pick between them, not a fight with B
            (
                "emberfox vs pyrowl which is better",
                ["go with Emberfox", "don't have Pyrowl"],
                ["takes double"],
            ),
        ],
        "cut_short": [  # a question cut short by a dash, then "sorry": the second is the question
            ("which map- sorry, which skill should oakhorn open with", ["Bramble Crush"], ["defensive play"]),
        ],
        "described_at_length": [  # everyday words between the look words: the noun still names it
            ("whats that spiky green cat they got", ["Briarcat"], ["Thornback"]),
            ("is their big blue turtle a problem for me", ["Shellbastion"], ["Which creature"]),
        ],
        "whom_it_hits": [  # "who should X be hitting": the one of theirs it beats
            ("who should the fox be hitting first", ["Against Briarcat, Emberfox deals double"], ["Train"]),
        ],
        "keep_or_bench": [  # a verdict on one the player fields, asked as keep / bench / bad
            ("keep sparkwing or not", ["Yes, Sparkwing works well here"], ["last stage"]),
            ("is sparkwing worth keeping in", ["Sparkwing works well here"], ["levelling"]),
            ("is oakhorn bad here", ["No, Oakhorn works well here"], ["Yes, Oakhorn"]),
            ("galehawk, yes or no", ["mixed for Galehawk"], ["striker"]),
        ],
        "got_it_right": [  # "and he's got Blaze Charge, right": a check that he has it
            ("whats emberfox got", ["Emberfox"], []),
            (
                "bet and he's got blaze charge right thats the big one",
                ["Yes", "Blaze Charge"],
                ["Save Blaze"],
            ),
        ],
        "fresh46_dev": [  # read from a dev set after its blind judgement, in new words
            ("can i evolve emberfox to the third one yet", ["Infernofox"], ["slot"]),
            ("like whats the chart thing", ["Each element beats two others"], ["outside what"]),
            ("which of mine does the most damage to their water turtle", ["Oakhorn"], ["strongest move is"]),
            ("does anything on my team hit voltail for double", ["Voltail"], ["hits their team"]),
        ],
        "option_by_what_it_does": [  # "the speed one", "the curse one": the move in play it describes
            ("so should i use the speed one on the fox or the deer", ["Overcharge on your Emberfox"], []),
            ("and whats the curse one do", ["Nightmare Hex"], []),
        ],
        "remarks_heard": [  # a word of thanks, a sigh: taken in, not answered with a lecture
            ("ok that helps a lot actually", ["Any time"], ["Field three"]),
        ],
        "their_option_described": [  # "the coral shield": the one of their moves its words describe
            ("what does the coral shield do", ["Coral Guard", "shields an ally"], []),
        ],
        "what_my_role_does": [  # "what does my support do": the one fielded, not the role explained
            ("what does my support do", ["Sparkwing"], ["Strikers deal damage"]),
        ],
        "second_about_the_first": [  # the second half asks of the first's unit or of its answer
            ("what moves does hexmoth have and which should i open with", ["Shade Bite", "strongest"], []),
            ("whats the next skill oakhorn gets and is it any good", ["Worldroot Slam", "double damage"], []),
        ],
        "type_in_other_words": [  # "plant types", "lightning types": the element, asked at its level
            ("what beats lightning types", ["Against electric"], ["Which creature"]),
            ("and plant ones, what beats those", ["Against grass"], ["Which creature"]),
        ],
        "who_it_is_then_verdict": [  # described, asked who it is and whether it is good: the verdict here
            (
                "ok im new, what is the orange fox thing i have out is it any good",
                ["Emberfox", "Briarcat"],
                [],
            ),
            ("and the turtle looking guy on their side what does he do", ["tank", "Coral Guard"], ["Watch"]),
        ],
        "reason_once": [  # two answers sharing a reason say it once
            ("which of their guys should i be scared of and who do i hit first", ["first"], []),
        ],
        "option_on_either": [  # one move, on one of two named: which, not whether either learns it
            (
                "nightmare hex on the turtle or the cat",
                ["Use Nightmare Hex on Shellbastion"],
                ["can't learn"],
            ),
            ("blaze charge on the cat or the lightning thing", ["on Briarcat", "double"], ["can't learn"]),
            ("overcharge the fox or the stag", ["Overcharge on your"], ["can't learn"]),
        ],
        "keep_all": [  # not swapping at all: the team as it is, rated
            ("what if i dont swap at all", ["keep"], ["aggressive"]),
        ],
        "team_without_one": [  # "build a team and drop X": a team without it, not a rating
            ("build a team and drop oakhorn", ["Run", "Leaving Oakhorn out"], ["thinnest"]),
        ],
        "slang_verdict": [  # "busted", "op": how strong it is here; of theirs, how dangerous
            ("is voltail busted or what", ["Voltail", "your team"], ["learns"]),
            ("hexmoth op?", ["Hexmoth", "normal damage"], []),
        ],
        "threat_to_us": [  # whether one of theirs threatens the player's side: an analysis
            ("is voltail a threat to my team", ["Voltail"], ["roster", "built around"]),
            ("who does shellbastion hit hardest on my team", ["Emberfox"], ["roster", "built around"]),
        ],
        "deal_with_their_option": [  # a move only theirs has, to be dealt with: answer the one with it
            ("how do i deal with volt dash", ["Against Voltail"], ["don't own"]),
        ],
        "option_by_last_word": [  # "the whisper": the one move whose name ends so; "it" after it is it
            ("what does nightmare hex do", ["Nightmare Hex"], []),
            ("then perhaps the whisper, but on whom", ["Dread Whisper on"], ["I'm here"]),
            ("thicket wall do i have it and what does it do", ["whole team", "Oakhorn"], ["can't learn"]),
        ],
    },
    "strike_team": {
        "item_not_a_look": [  # an item's name is no description of a hero ("our long" is not Tamsin)
            ("our long barrels unlocked for me yet", ["Long Barrels"], ["Tamsin"]),
        ],
        "that_thing": [  # "that thing" is "it": the item the last answer was about, not the hero's loadout
            ("what does bexley's shelter field do", ["Shelter Field"], []),
            ("how long does that thing even last", ["Shelter Field"], ["Shield Pistol"]),
        ],
        "score_mine": [  # the player's comp scored against theirs: judged, not a counter pick
            ("score my comp against theirs", ["Against their five"], ["Bring Osmund", "Against Brannoc"]),
        ],
        "map_mode": [  # the map's mode asked of "it": the map in play, not a hero the last answer named
            ("wait what map is this again", ["Fathom Docks"], []),
            ("is it control or escort", ["played as control"], ["Brannoc plays"]),
        ],
        "weakest_link": [  # the weak link of the player's own five: the one to take off, not their threat
            ("who's the weakest link on my team right now", ["Take Dumaka off"], ["Watch Nadira"]),
        ],
        "how_many_of_kind": [  # how many of a kind the player has: theirs of it, not the role explained
            ("how many heroes do i own", ["12 heroes"], []),
            ("how many of those are supports", ["Elowen, Wendell and Yarrow"], ["supports heal"]),
        ],
        "said_back": [  # a bit of the last answer said back to check it: that answer again
            ("when can lorcan use long barrels", ["3 more levels"], []),
            ("so like three more levels?", ["3 more levels"], ["Which"]),
        ],
        "send_at_her": [  # "send at her": the one of theirs, not the player's own named just before
            ("what does nadira's grenade do", ["Null Grenade"], []),
            ("does it stop elowen healing", [], []),
            ("who do i send at her", ["Nadira"], ["Elowen counters"]),
        ],
        "swap_for_the_map": [  # the map said with a swap is no hero to unlock
            ("so who should i swap to for docks", ["Brannoc"], ["unlocked Fathom Docks"]),
        ],
        "to_whom": [  # "to who" after a change asked about: the change again, the one to bring in
            ("should i switch off renzo", ["Tamsin"], []),
            ("to who", ["Swap Renzo off for Tamsin"], ["Not much"]),
        ],
        "by_whom": [  # "by who?" after a trouble with one's own: which of theirs threatens her
            ("my elowen keeps dying", [], []),
            ("by who?", ["Nadira"], []),
        ],
        "they_swap_to": [  # their hypothetical swap: the counter to the one coming in, not a swap of mine
            ("what if they swap to nadira", ["Against Nadira"], ["Take Dumaka off", "haven't unlocked"]),
        ],
        "which_of_them_worry": [  # "them" after their team was listed: which of theirs is the threat
            ("who's on their team", ["You're facing"], []),
            ("which one of them should i worry about", ["biggest threat"], ["Bring Brannoc", "Swap to"]),
        ],
        "many_after_one": [  # the kind in the plural asks about the roster, not the hero just talked about
            ("who is lorcan", ["gunslinger"], []),
            ("how many heroes have i got", ["You have 12 heroes"], ["Lorcan is unlocked"]),
        ],
        "dive_her": [  # whether to go after the one of theirs named: a target, not her loadout or a dive comp
            ("their healer, should i dive her", ["Go after Nadira"], ["Dart Rifle", "dive five"]),
            ("should i kill tamsin first", ["Go after Tamsin first"], []),
        ],
        "catalog_listed": [  # the game's whole list of a kind: listed when short, else counted
            ("did they add new maps, i only remember the docks", ["There are 8 maps", "Tannery Lanes"], []),
            ("how many heroes are there", ["24 heroes", "you have 12"], []),
            ("list the comps", ["There are 10 comps", "Anvil Front"], ["Galen"]),
        ],
        "name_something": [  # the first word of one hero's two-word name, then "something": asked whether
            ("there was a medic called doc something right", ["Did you mean Galen?"], []),
        ],
        "grenade_effect": [  # what their item does, not "I can't see which items they have unlocked"
            (
                "does nadira's grenade stop our heals",
                ["stops enemies it hits from being healed"],
                ["can't see"],
            ),
        ],
        "new_gun": [("can the cowboy guy get a new gun", ["Long Barrels", "hero level 10"], [])],
        "info_with_where_it_stands": [  # who a hero is, then the player's own level or when it comes
            ("who's osmund again", ["hammer tank", "Yours is at level 2"], ["Want the best loadout"]),
            ("and jovan", ["rocket jumper", "You don't have Jovan yet", "account level 32"], []),
        ],
        "slip_put_right": [
            (
                "sweet and what about the rocket guy jovan, actually no I meant the laser guy",
                ["Stellan"],
                ["Jovan"],
            ),
        ],
        "one_on_their_side_with": [  # "on their side" between the head and what it carries: still theirs
            ("who's the one on their side with the heron rifle", ["Quillon"], ["Nadira"]),
            ("what do i put against him", ["Brannoc", "Quillon"], []),
        ],
        "a_person_not_a_unit": [  # the kid's "she" / "he": nobody to ask back about
            ("thank you she's so excited", ["Glad it helped"], ["Which hero"]),
            ("ok bedtime after this round he says go team", [], ["Which hero"]),
        ],
        "actually_as_adverb": [
            ("should i keep lorcan", ["Lorcan"], []),
            ("what does his roll thing actually do i always forget", ["dodge roll"], ["outside"]),
        ],
        "what_am_i_supposed_to_do": [("what can i even do", ["Brannoc"], ["A tank takes space"])],
        "options_explained": [
            ("what does lorcans kit do", ["Combat Roll: A dodge roll", "Quick Hands: "], [])
        ],
        "another_in_instead": [
            ("who should replace renzo", ["Swap Renzo off for Tamsin"], []),
            ("paxton instead?", ["Swapping Renzo for Paxton"], ["who should replace Paxton"]),
        ],
        "their_trouble_told": [("nadira keeps healing them", ["Dart Rifle can heal", "Against Nadira"], [])],
        "bare_noun_asked": [("opener", ["Brannoc"], ["whenever you want"])],
        "kind_asked_for": [  # a role asked for: the best of it, and who does counter them
            (
                "which damage hero is best against quillon",
                ["If you go damage", "Brannoc"],
                ["Nothing you've"],
            ),
        ],
        "terse_counter_then_not_that_kind": [
            ("their sniper. how", ["Brannoc"], ["A team is five"]),
            ("dont wanna play tank", ["Without tank picks"], ["takes space"]),
            ("fine. brannoc", ["Good luck"], ["Osmund"]),
            ("who out", ["Dumaka"], []),
        ],
        "swap_said_tersely": [  # callsigns, "X for Y or for Z": which one X goes in for
            ("bran for duke or for ren", ["Brannoc"], ["Pick for the enemy"]),
        ],
        "swap_for_one_not_other": [
            ("one swap. for renzo not duke", ["Renzo off"], ["Leaving Dumaka out"]),
            ("why her", ["Because Tamsin"], ["Brannoc"]),
        ],
        "locked_item_described": [  # what it does, and that it is still locked
            ("what does plate cutter do", ["melts", "hero level 10"], []),
            ("splash canister lvl req", ["hero level 12"], []),
        ],
        "remarks_and_waits": [
            ("ha ok youve convinced me", ["Good luck"], ["when you're ready"]),
            ("sweet, honestly this game eats my whole weekend", ["whenever you want"], ["when you're ready"]),
            ("brb", ["when you're ready"], []),
            ("meh. spotter then", [], ["whenever you want a hand"]),
        ],
        "same_question_of_another": [  # "and Dumaka, same question": the last question, of Dumaka
            ("which maps are good for renzo, cause docks clearly isnt", ["Renzo fits"], []),
            ("and dumaka same question", ["Dumaka"], ["Of your heroes, Fathom Docks suits"]),
        ],
        "pick_said_after_aside": [
            ("lol my tea went cold while i was thinking, alright going tamsin", ["Good luck"], ["respawn"]),
        ],
        "the_one_hurting_me": [  # "is he the one one-shotting me", "someone better against him": counters
            (
                "theres a guy on their team who keeps zipping up to high spots with like a rope",
                ["Quillon"],
                [],
            ),
            ("is he the one one-shotting me", ["Quillon"], ["account level 25"]),
            ("should i play someone else whos better against him", ["Brannoc"], ["account level 25"]),
        ],
        "bare_no_corrects": [("their tamsin. no. their quillon. who kills", ["Quillon"], ["Against Tamsin"])],
        "score_groan": [("0-1. ugh", ["0 to 1"], ["good luck next time"])],
        "healing_them": [("whos the one healing them from super far away", ["Nadira"], ["Elowen"])],
        "description_checked": [  # "is that X": yes or no (and which), not a pick or a role line
            ("and the one with the drone is that tamson", ["Yes, that's their Tamsin"], []),
            ("is the sniper tamsin", ["No, that's their Quillon, not Tamsin"], []),
        ],
        "why_it_loses": [  # "why does he lose to Nadira": the matchup's reason, not a counter to him
            ("tell me about osmund", ["Osmund"], []),
            ("why does he lose to nadira though", ["Nadira has the edge on your Osmund", "null grenade"], []),
        ],
        "relayed_correction": [  # "she means the pistol one, Lorcan": the name said, the question kept
            ("she wants to put armour on the shotgun one is that good", ["Renzo"], ["Auto Shotgun belongs"]),
            ("wait no she means the pistol one, lorcan", ["Lorcan"], ["Bexley"]),
        ],
        "other_gun_then_better": [  # his other gun is his next item; "is he better": him against the last
            ("uh what's the tank i have that charges into people", ["Dumaka"], []),
            ("does he have any other gun", ["Slugger"], ["keep levelling"]),
            ("and the hammer guy is he better", ["Osmund over Dumaka"], ["tank hero"]),
        ],
        "heals_stopped_plainly": [
            (
                "her nadira's grenade is make my healer not heal?",
                ["Yes", "stop enemy healing"],
                ["doesn't heal"],
            ),
        ],
        "chat_words_not_names": [
            ("ok no pressure lmao. one swap whats the one swap", ["Take"], ["Did you mean"])
        ],
        "go_around_their_wall": [  # getting around a unit's wall is a counter, not a team built around it
            (
                "the enemy tank with big shield, his wall is block all my shoot. how i go around",
                ["Brannoc"],
                ["Build around"],
            ),
            ("and the other support, bexley, she also make wall?", ["Barrier Drop"], ["counters Bexley"]),
        ],
        "level_told_then_asked": [
            ("my player level is ten. which hero i can unlock soon", ["Bexley"], []),
        ],
        "gear_described_then_picked": [  # "the big drum gun": Drum Gun's holder; a pick said back is taken in
            ("the guy with the big drum gun is he good here", ["Dumaka"], ["Which hero"]),
            ("what about the big shield guy i have", ["Brannoc is a good pick"], []),
            ("cool i picked him", ["Good luck"], ["Osmund"]),
        ],
        "their_option_trouble": [  # a decision said back first; their option, then the trouble it makes
            (
                "lol ok wendell stays. also whats that drone thing their tamsin keeps throwing up",
                ["Spotter Drone is Tamsin's"],
                ["Wendell into"],
            ),
            ("ugh it keeps lighting us up every single fight", ["against Tamsin"], ["equip Spotter Drone"]),
        ],
        "fielded_is_no_foe": [  # the player's own hero, not the opponent's, is never one to counter
            ("is lorcan actually good into their tamsin", ["should win against Tamsin"], ["damage hero"]),
            (
                "ok but lorcans level seven, does level change the matchup",
                ["your Lorcan"],
                ["against Lorcan"],
            ),
        ],
        "not_this_but_that": [  # "don't play X and go Y": Y in for X
            ("what if i dont play wendell and go yarrow instead", ["Yarrow", "Wendell"], ["Which item"]),
        ],
        "weakest_here": [("who on my team is weakest here", ["hard going for your"], ["play Brannoc"])],
        "kept_said_back": [  # a decision said back is taken in, not a new question
            ("should i swap wendell", ["keep Wendell"], []),
            ("fine keep wendell", ["Good luck"], ["levelling"]),
        ],
        "role_choice": [("tank or support here", ["Go tank over support"], ["takes space"])],
        "hunt_away": [("who should i go after with elowen", ["Send your Elowen at", "not Nadira"], [])],
        "about_one_to_level": [  # "what about X, since ..." after a levelling question: is X worth it
            ("what should i level next", ["Elowen"], []),
            ("what about brannoc since he was good today", ["Dome Projector"], ["shield tank whose"]),
        ],
        "relayed_target": [  # "she" plays "him": the child and the hero, a target for the hero
            ("my daughter wants to know what the cowboy guy does", ["Lorcan"], []),
            ("who should she go after with him", ["Go after Tamsin"], ["into Lorcan"]),
        ],
        "rest_of_sentence": [  # three of theirs carry a rifle; "one shot" is the sniper's own words
            (
                "my son keeps getting one shot by the guy with the big rifle on the other team who is that",
                ["Quillon"],
                ["Their Quillon, their Tamsin"],
            ),
        ],
        "worth_it_second": [  # "is Stellan even worth it" is a second question (no pronoun in "worth it")
            (
                "ok so what should i level next and is stellan even worth it",
                ["Elowen", "Stellan is level 4"],
                [],
            ),
        ],
        "roster_levels": [("what level are my heroes", ["Brannoc 13", "level 9 or lower"], [])],
        "other_gun": [
            ("whats dumaka", ["Dumaka"], []),
            ("does he have any other gun", ["Slugger"], ["charging brute"]),
        ],
        "tied_it": [("we tied it 1-1 lets gooo", ["1 all, so round 3 decides it"], ["down 0 to 1"])],
        "relayed_look": [  # a look of two words and what he carries, relayed
            (
                "my daughter wants to know what the cowboy guy with two pistols does",
                ["Lorcan is"],
                ["Bexley"],
            ),
        ],
        "one_with_gear": [("who was the one with the turret", ["Paxton"], ["Nadira"])],
        "tank_i_have": [  # "the tank I have that charges": the player's own, by what it does
            (
                "uh what's the tank i have that charges into people",
                ["Dumaka is a charging brute"],
                ["Brannoc"],
            ),
        ],
        "bare_why_item": [  # "why?" after a long first sentence: its reason, not the same reply again
            ("what should renzo run", ["Auto Shotgun"], []),
            ("why", ["Because it's the most advanced primary"], ["swap your primary"]),
        ],
        "which_hero_best": [  # a hero asked for, none named: a pick, not "which hero do you mean?"
            ("which hero is best for me now please", ["play Brannoc"], ["Which hero"]),
        ],
        "hammer_guy": [("the big guy with hammer is he good", ["Osmund"], ["Which hero"])],
        "why_map_pick": [  # "why him" after the map's picks: the map's and the hero's own words
            ("who should i play on this map", ["Brannoc"], []),
            ("why him", ["Fathom Docks is three piers", "Brannoc is a shield tank"], ["Because the map"]),
        ],
        "told_then_mine": [  # theirs and its item told, then a verdict asked of the player's: that matchup
            (
                "nadeera null grenade. elowen useless?",
                ["Nadira has the edge on your Elowen"],
                ["haven't unlocked"],
            ),
            ("wendell instead", ["Wendell"], ["haven't unlocked Nadira"]),
        ],
        "their_item_mine": [
            (
                "their nadira has null grenade, is my elowen useless now",
                ["Nadira has the edge"],
                ["unlocked"],
            ),
        ],
        "counter_said_once": [  # the verdict names the counter; the matchup line does not say it again
            (
                "is my healer good here",
                ["their Nadira counters your Elowen"],
                ["soft counter to your Elowen"],
            ),
        ],
        "whats_their_grenade": [  # what it does, not that their unlocks are unseen
            ("whats nadiras grenade do", ["stops enemies it hits from being healed"], ["can't see"]),
        ],
        "kin_words": [  # "bomb" of a grenadier, "cowboy" of a gunslinger
            ("should i get the bomb guy", ["Fenwick"], ["Nadira"]),
            ("the cowboy with two pistols, is he any good", ["Lorcan"], ["Which hero"]),
        ],
        "down_next": [("quillon is down, who next", ["Go after"], ["Quillon"])],
        "grudging_ok_mid_match": [  # "hmm ok fine" takes the answer in; it is no goodbye
            ("who counters their sniper", ["Brannoc"], []),
            ("hmm ok fine", [], ["good luck next time", "Brannoc"]),
        ],
        "the_map_is_the_worst": [  # heard, then what the map does to the player's five
            ("this map is literally the worst", ["Fathom Docks", "Dumaka"], ["three piers"]),
        ],
        "another_role_on_this_map": [  # "and for damage" after a pick for this map: damage on this map
            ("brannoc or dumaka on this map", ["Brannoc"], []),
            ("and for damage", ["Tamsin"], ["Which hero"]),
        ],
        "my_strongest_of_a_role": [  # "my strongest tank": the player's, of that role, not the meta
            ("whos my strongest tank", ["highest-level tank"], ["known comp"]),
        ],
        "actually_as_an_adverb": [  # "what does X actually do": asked, not a question retracted
            ("what does overflow actually do for us", ["Overflow"], ["I'm here when you're ready"]),
        ],
        "the_map_matters_to_us": [  # what the map does to the player's five, not a tip about counters
            ("why does the map even matter that much", ["Fathom Docks", "Dumaka"], ["Counters are hero"]),
        ],
        "how_long_it_lasts": [  # a duration the item's words do not give is said to be unknown, not guessed
            ("how long does the armour pack last", ["doesn't show how long"], []),
            ("and how long does bexleys barrier drop stay up", ["four seconds"], ["doesn't show"]),
        ],
        "not_theirs_to_run": [  # an item of another hero: whose it is, not a yes about that hero
            ("can lorcan use the auto shotgun", ["Renzo's"], ["Yes"]),
        ],
        "two_of_theirs_named_together": [
            ("who do i use on their sniper and their healer", ["Quillon", "Nadira"], []),
        ],
        "a_lost_round_that_ends_the_match": [  # told at 0-1 in round 2 of 3: the match is over
            ("ugh they took round two", ["match to them, 0 to 2"], ["respawn", "Brannoc"]),
        ],
        "my_healer_by_its_own_words": [  # "my healer" of two supports: the one its summary calls a healer
            ("does my healer have anything better to equip", ["Elowen"], ["Which hero", "Wendell"]),
        ],
        "level_for_the_next_thing": [  # the level the next unlock needs, not the hero's level now
            ("what level does elowen need for her next thing", ["Next for your Elowen"], ["is at level"]),
        ],
        "whose_item_it_is": [  # "who runs X": whose it is, and no offer to check a loadout of no one
            ("who runs the null grenade", ["Nadira"], ["loadout"]),
        ],
        "the_players_alternative_weighed": [  # "why not X": X against that foe, then the pick again
            ("who do i put on quillon", ["Brannoc"], []),
            ("why not just play lorcan", ["Lorcan and Quillon", "Brannoc"], ["Which"]),
        ],
        "venting_heard_in_a_few_words": [  # nothing asked: heard and the match in a line, no lecture
            ("this is so frustrating", ["0 to 1"], ["A team is five", "Against"]),
        ],
        "rule_term": [("whats a perk", ["one perk at a time"], ["outside"])],  # the game's rule that says it
        "map_verdict": [  # asked of the map: the map's verdict, not "not really" beside "even pick"
            ("is elowen good on this map", ["even pick on Fathom Docks"], ["Not really"]),
        ],
        "aside": [("ugh my roommate is vacuuming right next to me", ["I'm here whenever"], ["outside"])],
        "level_worry": [  # "Oz is level two lol": the verdict against the five, and the next item it lacks
            ("Oz is level two lol", ["Osmund is behind", "Iron Lungs still needs hero level 6"], []),
        ],
        "healer_with_darts": [  # a unit said by what it carries, and a fight with it: counters, not unlocks
            ("the healer with the darts, can I kill her from far", ["Against Nadira"], ["account level"]),
        ],
        "breaks_the_shield": [
            ("is there a hero that just breaks the shield", ["Against Brannoc"], ["shield tank whose"])
        ],
        "verdict_reason": [  # a "not really" carries its reason: it never stands alone beside "even pick"
            (
                "is Ellie still ok here and what's that grenade thing their healer keeps throwing",
                ["their Nadira counters your Elowen"],
                [],
            ),
        ],
        "keep_or_swap_after_news": [  # news, then "do I keep him or still swap": the verdict on him here
            (
                "yo Ren just got a triple on the point, do I keep him or still swap",
                ["Renzo has it rough here"],
                ["every item"],
            ),
        ],
        "beats_that_comp": [  # "that" after an answer that read their side: their team
            ("is their team like a known comp or just randoms", ["Long Watch"], []),
            ("ok what beats that", ["Against their five, run"], []),
        ],
        "map_for_sides": [  # the map for us or them: how it suits the player's five, not the score
            (
                "cool and the map, does it help us or them",
                ["Fathom Docks doesn't suit your Dumaka"],
                ["At 0 to 1"],
            ),
        ],
        "doing_wrong": [("what are we doing wrong", ["Their five plays poke"], ["You're 0 to 1"])],
        "whats_she_got": [
            ("whats tamsin got", ["Burst Rifle, Spotter Drone and Keen Eye"], ["drone marksman"])
        ],
        "he_after_a_choice": [  # "he" after "A or B?" answered: the one picked; a correction names the other
            ("should i play renzo or lorcan here", ["Lorcan over Renzo"], []),
            ("ok and what should he run", ["Lorcan"], ["Renzo"]),
            ("wait no i meant for renzo", ["Renzo"], []),
        ],
        "own_that_guy": [  # "do I actually own that guy" after a pick: the player's pick, not the foe
            ("how do i beat nadira", ["Brannoc"], []),
            ("and do i actually own that guy", ["Brannoc"], ["Nadira"]),
        ],
        "saved_asked": [  # the comps the player saved, by name, not the whole roster
            (
                "wait don't I have a saved one for that",
                ["saved comps", "long range, with Brannoc"],
                ["12 heroes"],
            ),
        ],
        "less_bad": [  # two of the player's weighed: a pick, not a fight between them
            ("fenwick vs stellan for this, which is less bad", ["holds up best"], ["Fenwick into Stellan"]),
        ],
        "go_ahead_after_aside": [
            ("switch me to brannoc, the barrier loadout", ["Brannoc"], ["Bexley"]),
            ("ok I'm dead anyway, do it", ["Brannoc"], ["good luck next time"]),
        ],
        "why_bad_on_map": [
            (
                "why does the game keep saying renzo's bad here, he's my best guy",
                ["poor pick on Fathom Docks"],
                [],
            ),
        ],
        "topic_first": [  # "what about X, <question about her>": the question, about X
            ("is paxton any good here", ["Paxton"], []),
            ("ok and what about bexley, when do i unlock her", ["account level 11"], ["Paxton"]),
        ],
        "situation": [("so whats our situation", ["0 to 1"], ["outside"])],
        "closest_comp": [  # one hero short: the one unlocking soonest (Bexley at 11, not Galen at 21)
            (
                "any of the known comps i can field yet",
                ["all 10", "Steady Fire is closest, missing Bexley"],
                [],
            ),
        ],
        "fielded_countered": [  # one the player fields, by a nickname or bare, asked as the one countered
            ("is ellie getting countered", ["Nadira", "your Elowen"], ["against Elowen"]),
            ("what beats dumaka", ["your Dumaka"], ["against Dumaka"]),
        ],
        "unlocked_items": [  # every item the hero has unlocked, not one per slot
            ("what has paxton got unlocked", ["Nailgun, Sentry Turret, Salvage and Tripwire Mine"], ["Yes"]),
        ],
        "options_compared": [  # "is it better than X": the last item against X, each described
            ("tell me about the buzzsaw drone", ["chases one enemy"], []),
            ("is it any better than the spotter drone", ["marks enemies", "chases one enemy"], []),
        ],
        "game_words": [  # the style the reply named, explained: whose it is, not a five to run
            ("what does brawl mean", ["wins up close", "Dumaka"], ["run", "Bring"]),
            ("and what's a healer", ["heals and protects", "Elowen and Wendell"], []),
        ],
        "versus_and_map": [  # two questions in one breath: the matchup, then the map for the two
            (
                "elowen vs nadira who comes out on top and does the map change anything",
                ["Nadira has the edge on your Elowen", "Fathom Docks"],
                ["I'd keep"],
            ),
        ],
        "vented": [  # heard as said before the answer; a close round is no complaint
            ("ugh I hate this map", ["I hear you", "Fathom Docks"], []),
            ("man that first round was close lol", [], ["I hear you"]),
        ],
        "saved_by_name": [  # the player's own saved five by its name, not a poke five of the coach's
            ("what's in my long range group", ["Brannoc, Tamsin, Stellan, Elowen and Yarrow"], ["Fenwick"]),
        ],
        "legal_team": [
            ("wait is that even a legal team, roles and all", ["every role it needs"], ["Which hero"])
        ],
        "next_life": [("just tell me what to do next life", ["Brannoc"], ["Which hero"])],
        "beating_me": [
            ("their sniper is killing me every time i peek", ["Against Quillon, play"], ["Pick for"])
        ],
        "what_went_wrong": [  # the rounds played are not in the data; what the round in play means is
            (
                "yo we lost the first round, what went wrong",
                ["doesn't show what happened", "You need round 2"],
                [],
            ),
        ],
        "counter_claim": [
            ("someone said jovan hard counters quillon, is that right", ["No, that's not right"], ["Yes"]),
            ("quillon beats jovan right?", ["Yes, that's right", "hard counter to Jovan"], []),
        ],
        "three_named": [  # a spoken list "duke bran or oz" is a choice of three, none of them the foe
            ("honestly which tank should I be on, duke bran or oz", ["Brannoc"], ["counters Dumaka"]),
        ],
        "its_over": [("if we lose this its over isnt it", ["lose it and the match is over"], ["Brannoc"])],
        "team_kits": [  # the whole side's loadouts, not "which hero do you mean?"
            ("what's everybody got equipped", ["Wendell: Spanner Gun"], ["Which hero"]),
            ("anything unlocked that no one is running", ["Renzo has Auto Shotgun unlocked"], []),
        ],
        "unit_unused": [
            ("is Renzo sitting on any unlocked gear he isn't using", ["Auto Shotgun"], ["Boomstick"])
        ],
        "roster": [  # every hero the player has, by role; then a role of them
            ("what heroes do i even have", ["Tank: Brannoc, Dumaka and Osmund", "support:"], ["Which hero"]),
            ("which of those are tanks", ["Dumaka, Brannoc and Osmund"], ["Glad"]),
        ],
        "who_wins": [("nadira vs elowen who wins", ["Nadira has the edge on your Elowen"], ["Dumaka"])],
        "unit_level": [("uh what level is my lorcan", ["Your Lorcan is at level 7"], ["gunslinger"])],
        "big_deal": [  # how much one of theirs threatens, not its role
            ("who is their healer", ["Nadira"], []),
            ("is she a big deal", ["Nadira is their biggest threat"], ["plays support"]),
        ],
        "how_far_off": [  # a measure asked of what the last exchange named
            ("when does dumaka get slugger", ["Slugger", "hero level 12"], []),
            ("how many levels off am i", ["Slugger", "level 9"], ["Which hero"]),
        ],
        "group_info": [  # a named comp described from its data; whether the player can run it
            ("whats the wolfpack comp", ["Wolfpack is a dive comp", "Hakon lands on the back line"], []),
            ("could we run steady fire", ["Steady Fire needs Bexley"], ["Anvil Front"]),
        ],
        "swap_called_off": [  # the unit kept; none of theirs counters it (not the catalog's counters)
            ("who should i swap off", ["Take Dumaka off"], []),
            ("nah ill stick with dumaka", ["None of their five counters your Dumaka"], ["Gundra", "around"]),
        ],
        "members": [("whos on my team right now", ["Your five right now is"], ["Watch"])],
        "roster_who": [("who do i have", ["You have 12 heroes"], ["play Brannoc"])],
        "loadout_corrected": [  # a hero the player lacks: what it runs fully unlocked
            ("whats osmunds loadout, actually no, kasimirs", ["Fully unlocked, Kasimir runs"], ["Pick for"]),
        ],
        "their_loadout": [  # theirs: not visible, said first
            ("who counters quillon", ["Brannoc"], []),
            ("and him what does he run", ["can't see their items"], []),
        ],
        "useful_vs_them": [  # a hero of the player's against their side: what it does to them
            ("is wendell even useful vs them", ["Not much: Wendell counters none of their five"], []),
            ("fenwick vs their team any good", ["Bexley can shut down your Fenwick"], ["Elowen"]),
        ],
        "level_for": [("what level do i need for bexley", ["account level 11"], ["counters"])],
        "beat_the_comp": [  # "it" after a comp named: the comp
            ("whats long watch", ["poke comp"], []),
            ("how do you beat it", ["Brannoc"], ["outside what I can help"]),
        ],
        "one_on_one": [("dumaka or brannoc 1v1 who wins", ["even"], ["over Dumaka"])],
        "should_worry": [  # one of theirs named: how much it threatens, not whether to unlock it
            ("should i worry about bexley", ["Not much", "counters none of your five"], ["account level"]),
            ("is their quillon a big deal", ["Quillon is a great pick on Fathom Docks"], ["Not much"]),
        ],
        "mine_into_them": [  # the player's fielded hero against their side, without "my"
            ("is lorcan good into them", ["Lorcan is a soft counter to their Tamsin"], ["Against Lorcan"]),
        ],
        "plan": [("whats the plan", ["0 to 1", "Brannoc"], ["outside what I can help"])],
        "score_and_map": [  # the map in play answers the second question
            ("whats the score and what map is this", ["0 to 1", "Fathom Docks is"], ["Pick for the enemy"]),
        ],
        "wrong_lead": [("we're ahead, how do we keep it", ["Actually, you're down 0 to 1"], [])],
        "rated_here": [
            ("is my shotgun guy any use here", ["Renzo is a poor pick on Fathom Docks"], ["you have"])
        ],
        "also_fielded": [  # asked for another after both were said: they are all
            (
                "who counters their tamsin",
                ["play Brannoc", "Your Lorcan on the field counters Tamsin too"],
                [],
            ),
            ("anyone else", ["Brannoc and Lorcan are your only counters to Tamsin"], ["still the only one"]),
        ],
        "beats_what": [
            ("whats fenwick good against", ["Fenwick is a hard counter to Paxton"], ["win against Fenwick"])
        ],
        "option_when": [("when does dumaka get slugger", ["Slugger", "hero level 12"], ["already have"])],
        "besides": [("any tanks besides dumaka", ["Brannoc", "Osmund"], ["Dumaka plays"])],
        "levels_left": [
            ("when do i get tamsin's buzzsaw drone", ["account level 12"], []),
            ("ok so how many more levels", ["account level 12"], ["0 to 1"]),
        ],
        "worth_it_this_game": [
            ("is wendell worth it this match", ["Wendell counters none of their five"], ["Fenwick"])
        ],
        "counters_anyone": [
            ("does renzo counter anyone on their team", ["Renzo counters none of their five"], [])
        ],
        "get_off": [("how do i get quillon off the high ground", ["Brannoc"], ["account level"])],
        "known_group": [("is their team a known comp", ["Long Watch"], ["dive five"])],
        "the_other_healer": [
            ("how do i beat their healer", ["Nadira"], []),
            ("and the other healer", ["Bexley"], ["Which hero"]),
        ],
        "who_against": [("who are we up against", ["You're facing Brannoc, Quillon"], ["Which hero"])],
        "their_side": [("whats their lineup", ["You're facing Brannoc, Quillon"], [])],
        "no_counter_owned": [("who counters bexley", ["Zanele", "account level 17"], ["safest"])],
        "underlevelled_pick": [("is osmund good into brannoc", ["Osmund", "only level 2"], [])],
        "play_fielded": [("should i play elowen", ["Fathom Docks", "Nadira"], ["Yes:"])],
        "effect_roster": [("does anyone i have heal", ["Elowen's Vital Beam can heal"], [])],
        "effect_theirs": [("who on their team can heal", ["Nadira's Dart Rifle"], [])],
        "whole_side": [("what works into their whole comp", ["Run ", "into them"], ["Which hero"])],
        "matters_most": [("so whats the main thing this round", ["switch to Brannoc"], [])],
        "small_talk": [("hey coach how are you doing", ["Hey!"], ["outside what I can help"])],
        "female_head_noun": [  # "lady" is never the one the pack calls "he" (Brannoc has the shield)
            ("how do i beat their shield lady", [], ["Against Brannoc"])
        ],
        "her_of_two_named": [  # of two named, the one the pack's own words call "she"
            ("who replaces renzo", [], []),
            ("tamsin maybe, but does their brannoc counter her", ["Brannoc is a soft counter to Tamsin"], []),
        ],
        "quota_asked": [
            (
                "could we play three supports",
                ["No: a team is always one tank, two damage and two support"],
                [],
            ),
            ("so two damage is right", ["Yes: a team is always"], []),
        ],
        "locked_proposed": [("think ill switch to hakon", ["You haven't unlocked Hakon"], [])],
        "what_instead": [
            ("dumaka is doing nothing on this map", [], []),
            ("what should i run instead", ["Dumaka"], ["Which hero"]),
        ],
        "positions": [("where should we hold on this map", ["doesn't show where anyone is on the map"], [])],
        "no_offer_when_all_unlocked": [
            ("tell me about nadiras null grenade", ["Null Grenade"], ["unlocks next"])
        ],
        "of_those": [
            ("which heroes are good on this map", [], []),
            ("which of them do i have", ["You have"], ["12 heroes"]),
        ],
        "item_by_word": [  # an item by a word of its name or its slot's, picked by the state
            ("what does tamsin's drone do", ["Spotter Drone"], []),
            ("and her other drone", ["Buzzsaw Drone"], []),
            ("what does wendell's locked gun do", ["Plate Cutter"], ["Spanner"]),
        ],
        "instead": [  # the hero the last answer was about, replaced
            ("is renzo good on this map", ["Renzo is a poor pick"], []),
            ("who do i put in instead", ["Swap Renzo off"], ["Dumaka"]),
        ],
        "live": [  # what no state field holds, said before the match's next step
            ("our dps is afk what do we do", ["doesn't show what your teammates are doing", "Brannoc"], []),
            ("how long is the respawn", ["doesn't show respawn timers"], []),
        ],
        "team_map": [  # which map suits the player's five, and the worst
            ("which map would my team be best on", ["fit Lantern Bazaar best", "Fathom Docks is"], []),
        ],
        "runs_now": [("what does renzo run right now", ["Boomstick"], ["shotgunner"])],
        "map_team": [  # a team for this map and this opponent, read against theirs
            ("give me a team comp for this map", ["Brannoc", "Tamsin", "counters their Quillon"], ["Renzo"]),
        ],
        "weighed": [  # the map fit is a reason too
            ("so tamsin over renzo then", ["Tamsin over Renzo", "poor pick on Fathom Docks"], ["drone"]),
        ],
        "stakes": [  # 0-1 down in round 2 of 3; a round asked about is not news of another
            ("we lost the first one didn't we", ["0 to 1", "You need round 2"], ["0 to 2"]),
        ],
        "role_count": [("can i run two tanks", ["No:", "one tank", "two support"], ["Which item"])],
        "play_instead": [("should i play brannoc instead of dumaka", ["Dumaka", "Brannoc on"], ["Leaving"])],
        "effect_of_roster": [  # an effect asked of a side or a described unit
            # a heal for the team before one that heals its own hero ("Renzo heals a little")
            ("can anyone on my team heal", ["Elowen"], ["Adrenaline"]),
            # "shield" is what the tank does, not a word of the description "their tank"
            ("can their tank shield the team", ["Brannoc"], []),
            ("which hero can speed us up", ["Tobin", "Speed Surge", "haven't unlocked"], []),
        ],
        "doing_ok": [("am I doing ok", ["0 to 1", "round 2"], ["Nice playing"])],  # not a goodbye
        "best_at_that": [  # "that" is taking on the one the first answer named: who beats them
            (
                "who do I focus first, and who on my team is best at that",
                ["Against Nadira, play"],
                ["unlocked"],
            ),
        ],
        "burn_through": [("can anything of mine burn through that barrier", ["Plate Cutter"], ["a target"])],
        "effect_choice": [  # "A or B, who heals best": no numbers; what each one has, usable first
            (
                "Ellie or Dell or Yar, who heals best",
                ["no numbers", "Vital Beam", "Herbal Sling"],
                ["Meadow"],
            ),
        ],
        "good_against": [
            ("is tamsin good against bexley", ["Tamsin into Bexley is even"], ["Nothing you've"])
        ],
        "something_else": [("change lorcan's gun to something else", ["Long Barrels", "hero level 10"], [])],
        "versus_who_wins": [("Kasimir vs Quillon, who wins", ["Kasimir is a hard counter to Quillon"], [])],
        "my_tank_out": [("take out my tank and put in Brannoc", ["Take Dumaka off and put Brannoc on"], [])],
        "my_worst": [("what's my worst hero right now", ["Osmund"], ["next hero"])],
        "pulling_weight": [
            ("is Wendell pulling his weight", ["Not much either way", "Wendell"], ["support hero"])
        ],
        "kind_in_five": [
            ("any healers on my team", ["Elowen and Wendell"], []),
            ("is there a sniper in my five", ["No:", "none of them is one"], []),
        ],
        "other_players": [("who is the best player in the world", ["other players"], ["closest"])],
        "why_threat": [  # "why her" after a threat named: the reason it gave, not the generic tip
            ("which of their heroes should I worry about most", ["Nadira"], []),
            ("why her", ["Because Nadira"], ["Pick for the enemy"]),
        ],
        "healing_for_them": [("who's doing the healing for them", ["Nadira"], ["Elowen"])],  # their side
        "worth_over": [  # "worth bringing in over X": that swap, and no tip on how to make a change not made
            (
                "is the turret dude worth bringing in over Wendell",
                ["Swapping Wendell for Paxton"],
                ["respawn"],
            ),
        ],
        "next_unlock": [("what do I unlock next", ["Bexley", "account level 11"], ["Which hero"])],
        "revolver_guy": [
            ("what should the revolver guy run", ["Lorcan"], ["Which hero"])
        ],  # "Dual Revolvers"
        "high_ground": [  # getting up high is its own effect: a dodge roll does not climb
            ("their sniper is on the high ground, who can get up there", ["Jump Jets"], ["Combat Roll"]),
        ],
        "choice_first": [  # the choice said first is the question, whatever follows it
            ("Lorcan or Renzo into their comp", ["Lorcan over Renzo"], ["Run Brannoc"]),
            # "the tank slot" is a place on the team, not a description of a tank to ask about
            ("Brannoc or Dumaka for the tank slot", ["over"], ["or their Brannoc"]),
        ],
        "kind_on_map": [  # a kind of hero on the map in play, not the map's general picks
            ("are shotguns any good on this map", ["Not really", "long sightlines", "Renzo"], []),
            ("is this map good for tanks", ["suits Brannoc", "hard going for Dumaka"], []),
            # (the map's own line, once: no "not much either way" before it)
            ("are my healers ok on this map", ["neither helps nor hurts"], ["suits", "either way"]),
            # asked the other way round: "bad for shotguns" is a yes; no stock counter tip after it
            ("is this map bad for shotguns", ["Yes:", "hard going for Renzo"], ["Not really", "Bring"]),
        ],
        "options_described": [  # two options without a number: each one's own words
            ("which one heals everyone, rally cry or overflow", ["heals everyone", "Overflow:"], ["comp"]),
        ],
        "other_way_round": [  # the last question with its two heroes swapped; a yes/no matchup
            ("does lorcan counter tamsin", ["Lorcan"], []),
            ("and the other way round", ["Tamsin is a little weak into Lorcan"], ["Which hero"]),
            ("does renzo beat brannoc", ["even"], []),
        ],
        "he_is": [  # "hes level 2": he is, of the one just talked about
            ("what about osmund", ["Osmund"], []),
            ("yeah but hes level 2 does that matter", ["Osmund"], ["Which hero"]),
        ],
        "has_on": [("what does renzo have", ["Boomstick", "equipped"], ["shotgunner"])],
        "good_for": [("whats dell good for in this fight", ["Wendell"], ["Against Wendell"])],
        "two_part_level": [  # a filler opening, then two questions: the level is not lost
            ("quick one how many heroes do i own and whats my level", ["account level 10"], []),
        ],
        "caps": [  # the caps strike's manifest declares
            ("whats the max level a hero can get to", ["level 30"], ["Bexley"]),
            ("is renzo maxed out", ["level 12", "30"], []),
        ],
        "map_in_play": [  # "this map" is the match's map
            ("what map is this", ["Fathom Docks", "control"], ["Pick for"]),
        ],
        "beats": [  # whom the named hero beats, not who beats them
            ("who does renzo counter", ["Renzo is a hard counter to Kasimir"], ["Against Renzo"]),
            ("what's brannoc strong against", ["Brannoc is a hard counter to Quillon"], ["Osmund"]),
            ("and who beats tamsin", ["Brannoc", "Tamsin"], ["Tamsin is"]),
        ],
        "data_limit": [  # what the data does not hold, said; then what it does
            ("how fast is renzo", ["doesn't show speed", "Renzo"], []),
            ("what level is quillon at", ["can't see", "Quillon"], ["Your Quillon"]),
        ],
        "reference": [
            ("how do i deal with their quillon", ["Quillon"], []),
            ("what does that guy do", ["Quillon", "sniper"], ["Which hero"]),
        ],
        "correction": [
            ("what's next for osmund's loadout", ["Osmund"], []),
            ("sorry, I meant kasimir", ["Kasimir"], ["leaving", "Osmund"]),
        ],
        "two_part": [
            ("what does quillon do and is he unlocked", ["sniper", "account level 25"], []),
        ],
        "element": [  # strike's kinds are roles: "snipers" is the kind asked about
            ("who counters snipers", ["Quillon", "Brannoc"], ["Counters are hero against hero"]),
        ],
        "ask_back": [
            ("what's the healer weak to", ["Elowen", "Nadira", "?"], []),
            ("mine", ["your Elowen"], ["Which hero"]),  # what beats the player's own Elowen
        ],
        "kind_owned": [
            ("which tanks do i have", ["Dumaka, Brannoc and Osmund"], ["Which hero", "Counters are"]),
        ],
        "ask_back_unanswered": [
            ("how do i shut him down", ["Which hero"], []),
            ("no idea", ["Taking it as their team.", "Brannoc"], ["?"]),
        ],
        "two_part_about_the_answer": [  # "it" is the first answer's unit; no match line between
            (
                "who's their biggest threat and what beats it",
                ["Nadira", "Brannoc"],
                ["You're down", "Which hero"],
            ),
        ],
        "swap_named_is_not_kept_out": [  # a one-off swap keeps nothing out of later answers
            ("pull lorcan out for paxton", ["Lorcan"], []),
            ("and swap dumaka for brannoc", ["Brannoc"], ["leaving Lorcan out"]),
        ],
        "map_role": [  # the role named in a follow-up filters the map's picks
            ("who's strong on this map", ["Brannoc"], []),
            ("and damage heroes", ["Tamsin"], ["Brannoc"]),
        ],
        "swap_to_locked": [  # a locked hero first, then the swap they can make
            ("would switching to mireva help", ["You haven't unlocked Mireva yet.", "Brannoc"], []),
            ("ok bench renzo for hakon then", ["You haven't unlocked Hakon yet."], []),
        ],
        "who_is_described": [  # "who's their X" names who it is, and what they do
            ("who is their sniper", ["Quillon", "sniper"], ["Against Quillon"]),
        ],
        "head_to_head": [  # their hero against the player's own: who wins, then the counter
            ("is my elowen going to lose to their nadira", ["Nadira has the edge on your Elowen"], []),
            ("then how do i get to her", ["Nadira"], ["Elowen", "Which hero"]),
        ],
        "unlocked": [  # an owned hero's unlocks: its level, what it runs, what comes next
            (
                "what has yarrow got unlocked so far",
                ["level 3", "next"],
                ["You already have Yarrow unlocked."],
            ),
        ],
        "map_for_us": [
            ("is fathom docks good for us", ["doesn't suit your Dumaka and Renzo"], ["Which hero"])
        ],
        "why_counter": [
            ("who counters nadira", ["Brannoc"], []),
            ("why him", ["Because Brannoc is a soft counter to Nadira"], ["Quillon"]),
        ],
        "level_by_role": [("who is my highest level damage hero", ["Renzo", "level 12"], ["Brannoc"])],
        "our_tank": [("can our tank hold off their sniper", ["Dumaka", "Quillon"], [])],
        "brings_to_side": [("what's Bex bring to their side", ["barrier support"], ["counters Bexley"])],
        "focus_carried": [  # a question that needs a hero and names none: the one just asked about
            ("tell me about lorcan", ["gunslinger"], []),
            ("what should I unlock next", ["Long Barrels"], ["Which hero"]),
        ],
        "map_tips": [("i hate this map, any tips", ["Fathom Docks"], ["a team is five heroes"])],
        "play_for_role": [("what should I play for support", ["support"], ["takes space"])],
        "long_range_owned": [("do I have any long range heroes", ["Tamsin"], ["Nadira"])],
        "items_unranked": [  # no numbers to rank items by: said first, then what each does
            (
                "is the auto shotgun better than the boomstick",
                ["no damage numbers", "hardest point blank"],
                [],
            ),
        ],
        "corrected_verdict": [  # the corrected unit, asked "any use", gets its verdict first
            (
                "is renzo any use here, actually scratch that, what about lorcan",
                ["Yes, Lorcan works well"],
                [],
            ),
        ],
        "hero_verdict": [
            ("is renzo good on this map", ["Not really, Renzo has it rough here", "poor pick"], [])
        ],
        "outranged": [("are we outranged", ["Yes: Quillon, Tamsin and Nadira fight at long range"], [])],
        "weakness_of": [("what's quillon's weakness", ["play Brannoc"], ["a sniper who"])],
        "team_has_role": [("does our comp have a tank", ["one tank"], ["Brannoc and Osmund"])],
        "worth_playing": [
            (
                "is Osmund worth playing, he's only level 2",  # (countered and far behind: more against)
                ["Not really", "hard counter to their Brannoc"],
                [],
            )
        ],
        "bugs_and_settings": [
            (
                "is the sniper bugged, that was not a headshot",
                ["whether something is bugged"],
                ["damage hero"],
            )
        ],
        "switch_to_on_respawn": [
            ("I'm on Renzo, what do I switch to on respawn", ["Swap Renzo off"], ["only at spawn"])
        ],
        "fight_not_round": [
            ("ok we lost the fight again and they're holding the point", ["0 to 1"], ["0 to 2"])
        ],
        "better_of_two": [
            ("whos better for us paxton or stellan", ["Paxton over Stellan"], ["wouldn't lift"])
        ],
        "items_either_or": [
            (
                "should i go for the auto shotgun or stick with boomstick",
                ["no damage numbers", "point blank"],
                ["Yes,"],
            ),
        ],
        "map_then_it": [  # "it" in the second question is the map the first asked about
            (
                "what map is this and who's good on it",
                ["three piers", "the map favours them"],
                ["Want to know"],
            ),
        ],
        "why_not": [  # the reason the last reply gave, not a new swap
            ("should I swap elowen for yarrow", ["Not Yarrow"], []),
            ("why not", ["Because their Nadira counters Yarrow"], ["Swap", "Dumaka"]),
        ],
        "focus_first": [("who should we kill first", ["Go after Nadira first"], ["You're down"])],
        "nickname_beats": [  # whom the one named beats, by its nickname
            ("who's bran good against", ["Brannoc is a hard counter to Quillon"], ["Against Brannoc"]),
        ],
        "tagged_then_asked": [  # a claim with its tag, then the question about it
            ("this map is fathom docks yeah, who does it favour", ["Brannoc and Tamsin"], []),
        ],
        "tip_by_words": [("how do you win on escort maps", ["payload"], [])],
        "tip_for_here": [  # "this map": the tip about the current map's mode (control)
            ("how do we actually play the point on this map", ["hold the zone"], ["A team is five"]),
        ],
        "both_of_a_role": [  # two units named as examples of a role: the quota, not ownership
            ("brannoc and dumaka are both tanks, can i run both", ["No", "one tank"], ["at level"]),
        ],
        "level_in_words": [  # "level eleven" is level 11; a second half it places nowhere follows the first
            (
                "what do i unlock at level eleven and how close am i",
                ["Bexley", "account level 10"],
                ["outside"],
            ),
        ],
        "yes_or_no": [("renzo on this map, yes or no", ["Not really"], [])],  # the verdict first
        "best_of_a_kind": [  # the strongest of the kind asked, not of the whole game
            ("whats the best tank in the game", ["strongest tank hero in the game is Dumaka"], ["Quillon"]),
        ],
        "best_damage": [  # a role that is no noun, said with the kind's noun
            ("whos the best damage hero in the game", ["strongest damage hero in the game is Quillon"], []),
        ],
        "when_to_use": [  # when to use what the player has: what it does, not that it is unlocked
            ("when should i use rally cry", ["heals everyone"], ["can equip"]),
        ],
        "dive_him": [  # one of mine doing an attack verb to the one just named: how the two match up
            ("their sniper keeps one tapping me off the pier", ["Quillon"], []),
            ("can lorcan just dive him", ["Lorcan and Quillon"], ["dive five"]),
        ],
        "losing_asked": [  # the same losing match asked three ways: whether, why, and what to change
            ("are we cooked or what", ["It's winnable", "Watch their Nadira"], ["Yes"]),
            (
                "why do we lose every fight on the middle pier",
                ["Watch their Nadira", "Brannoc against their Quillon"],
                [],
            ),
            ("ok so what do we change", ["Brannoc"], ["winnable", "Watch their"]),
        ],
        "keep_playing": [("should i keep playing renzo here", ["Not really", "poor pick"], [])],
        "on_whom": [("who should i use bull rush on", ["Use Bull Rush on Nadira"], [])],
        "premade": [("is their team a premade", ["doesn't show other players"], ["Brannoc"])],
        "item_of_theirs_told": [  # what one of theirs' item does: no target advice
            ("how long does bexley's wall last", ["Bexley drops a wall of light"], ["Keep Barrier Drop"]),
        ],
        "by_what_it_does": [  # a unit said by what it does: the one whose text says it
            ("who counters the support that drops the light walls", ["Bexley"], ["Which hero"]),
            ("and their guy who throws the grenades", ["Brannoc against Nadira"], ["Which hero"]),
        ],
        "best_five": [  # a team by its size, for this map
            (
                "what's the best 5 we can run on this map",
                ["Run Brannoc, Lorcan, Tamsin, Elowen and Wendell"],
                [],
            ),
        ],
        "two_of_his": [  # two of one hero's items by a word each: both described
            ("paxtons mines or turret", ["Tripwire Mine", "Sentry Turret"], ["Which item"]),
        ],
        "possessive_unsaid": [  # "their tanks barrier": the tank's, an apostrophe the transcript lost
            ("their tanks barrier, what does it block", ["Brannoc's Bulkhead"], ["Bexley"]),
        ],
        "own_word": [  # a role's word that one unit's own summary uses names that unit
            ("what about the medic with the defib", ["Galen"], ["Nadira", "Which hero"]),
        ],
        "weak_link": [  # the one of theirs not pulling their weight: the one to take off
            ("who on my team isnt pulling their weight", ["Dumaka"], ["Against Tamsin", "pull a target"]),
            ("who on my team is pulling the least weight", ["Dumaka"], ["pull a target"]),
        ],
        "unlocks_at_level": [  # what an account level brings: heroes, and items of theirs it gates
            ("what do i unlock at level 12", ["At account level 12", "Buzzsaw Drone"], ["Which hero"]),
            ("what do i unlock at level 16", ["Nothing new", "Bexley is next"], []),
        ],
        "best_place": [  # the maps ranked for the one named, the team or a saved group
            ("whats a good map for renzo", ["Renzo fits Lantern Bazaar best", "Fathom Docks"], ["poor pick"]),
            ("which map is best for us", ["Your five fit Lantern Bazaar best"], ["Which hero"]),
            ("whats the best map for my main team", ["Lantern Bazaar best"], ["Your saved main group"]),
        ],
        "worth_getting": [  # worth unlocking: whom it counters, then when it comes
            (
                "is kasimir worth unlocking",
                ["hard counter to their Quillon", "account level 23"],
                ["Not yet"],
            ),
        ],
        "compound_look": [  # a part of an English compound in the hero's summary names them
            ("yo should i play the flame girl", ["Zanele"], ["outside what I can help"]),
        ],
        "misheard_alone": [  # a rare word alone that sounds like a name is the name
            ("is nadia unlockable for me yet, she seems op", ["Nadira", "account level 27"], ["Which hero"]),
        ],
        "said_once": [  # two questions with one answer: the fact said once
            ("dukes mid range gun, slugger? do i have it", ["Slugger"], ["Not yet: Slugger"]),
        ],
        "keep_or_bench": [  # a verdict on one the player fields, asked as keep / bad / yes or no
            ("is renzo just bad on this map", ["Yes, Renzo has it rough here"], ["Not really"]),
            ("should i keep playing paxton", ["either way for Paxton"], ["every item", "counters none"]),
            ("keep elowen or swap her", ["Elowen has it rough here"], ["Dumaka should win"]),
        ],
        "can_mine_take_on": [  # one the player owns, asked whether it can take one of theirs on
            ("can brannoc handle nadira", ["Brannoc", "Nadira"], ["Against Brannoc", "Osmund"]),
            ("whos their biggest threat and can brannoc handle him", ["Nadira", "Brannoc"], ["Osmund"]),
        ],
        "playing_as": [
            ("so what do i do as ellie", ["Elowen is a main healer"], ["should win against Elowen"])
        ],
        "what_place": [
            ("hey im new, what even is this map", ["three piers over open water"], ["play Brannoc"])
        ],
        "better_on_which_place": [
            (
                "which map would my main team be better on then",
                ["Lantern Bazaar best"],
                ["saved main group is"],
            ),
        ],
        "get_past_theirs": [  # reaching one of theirs is countering it
            (
                "their big shield guy blocks everything, how do i get past",
                ["Against Brannoc"],
                ["You already have"],
            ),
        ],
        "use_option_word": [  # "use dome on my Brannoc": his Dome Projector
            (
                "can i use dome on my brannock",
                ["Dome Projector", "account level 15"],
                ["Yes, you have Brannoc"],
            ),
        ],
        "best_of_mine_here": [  # the player's best on the map is the map's fit, not their strongest
            ("which of my heroes is best on this map", ["On Fathom Docks", "Brannoc"], ["Against Quillon"]),
        ],
        "why_the_pick": [  # "why (her)" of a pick the last reply gave with its reason: that reason
            ("tamsin or yarrow for this fight", ["Tamsin"], []),
            ("why her", ["Because", "Nadira counters Yarrow"], ["against Tamsin", "Neither"]),
        ],
        "remark_him": [  # "he" in a cheer needs no name: no "which hero do you mean"
            ("he just got his first kill!!", ["Nice one"], ["Which hero"]),
        ],
        "their_kit_items": [
            ("does quillon have the dome projector", ["isn't one of Quillon's items"], []),
        ],
        "why_map_fit": [  # why a hero fits the map or not: the hero and the map, as the data says them
            ("how come renzo is so bad on this map", ["long sightlines", "point blank"], []),
        ],
        "worth_unlocking": [  # a hero the player lacks: a verdict for this match, then when it unlocks
            ("is zanele worth grinding for", ["in this match", "account level 17"], []),
            ("pax here, good or not", ["Not much either way"], []),
        ],
        "stay_or_go": [  # an either-or verdict: no yes or no before it
            ("should elowen stay or go", ["Elowen has it rough here"], ["Not really", "Vital Beam"]),
        ],
        "what_it_does_short": [
            ("whats their healer do", ["Nadira is a long-range healer"], ["play Brannoc"])
        ],
        "style_no_unit": [  # a play style asked about with no hero named: that style's team
            ("is it worth going dive this game", ["dive"], ["Which hero"]),
        ],
        "own_level_said": [  # "I'm level 10": where the player is, not the level asked about
            (
                "ok so im level 10, whats the next hero i unlock and is it worth it",
                ["Bexley, at account level 11"],
                ["Auto Shotgun"],
            ),
        ],
        "kills_her": [("so who actually kills nadira", ["Brannoc"], ["long-range healer"])],
        "underperforms": [  # the player's own doing nothing: why, here
            ("and my renzo does zero damage why even", ["poor pick on Fathom Docks"], ["Win the objective"]),
        ],
        # "swap them both, to what", "keep Renzo, swap Lorcan instead": swaps, not the spawn rule
        "swap_keep_one": [
            ("we keep losing the point, dumaka charges in and just melts every time", ["Brannoc"], []),
            ("ok swap them both then, to what", ["Brannoc"], ["at spawn"]),
            ("actually keep renzo, swap lorcan instead", ["Lorcan"], ["Swap Renzo off", "at spawn"]),
        ],
        "worst_map": [
            ("this map is actually the worst map in the game", ["I hear you"], ["A team is five heroes"])
        ],
        "described_then_named": [  # "their other long range one, the drone girl": the name meant
            ("what beats quillon", ["Brannoc"], []),
            (
                "ok and what about their other long range one, the drone girl",
                ["Tamsin"],
                ["fight at long range"],
            ),
            ("sorry i meant the healer one not the drone", ["Nadira"], ["fight at long range"]),
        ],
        "who_again": [  # a check of a description nothing fits: the first answer, no question back
            ("whos lorkin again, is that the cowboy guy", ["gunslinger"], ["Which hero"]),
        ],
        "after_that": [  # "and after that" of the next one: the one after those said
            ("ok so im level 10, whats the next hero i unlock", ["Bexley"], []),
            ("and after that", ["Gundra"], ["Which hero"]),
        ],
        "away_after_thanks": [  # a step away after thanks: no answer about "that one"
            ("whats the plan with their team", ["Long Watch"], []),
            (
                "sick thanks man. my dog is barking gotta deal with that one sec",
                ["Glad it helped"],
                ["Nadira"],
            ),
        ],
        "out_then_in": [  # "Renzo out, Tamsin in": that swap, not who Renzo is
            ("renzo out tamsin in", ["Swap Renzo off for Tamsin"], ["shotgunner"]),
        ],
        "bigger_problem": [  # a threat ranked, not what heals among them
            (
                "whos the bigger problem their quillan or tamsin or the nadira healing them",
                ["Watch"],
                ["no numbers"],
            ),
        ],
        "swapping_now": [("nice ok swapping now", ["Good luck"], ["at spawn"])],
        "carried_first": [  # "the guy with the big shield": the unit carrying it, on the side said
            ("the guy with the big shield on their side, how do i get past him", ["Brannoc"], ["Which hero"]),
            ("i got this hero with the turret, is he good on this map", ["Paxton"], ["Which hero"]),
        ],
        "swap_for_named": [  # "who do I drop for X": X comes in, even one they field too
            ("who comes off for brannoc", ["put Brannoc on"], ["Against Brannoc"]),
        ],
        "option_asked_of_unit": [  # "what gun does X use": X's option of that kind; theirs, not locked
            ("what gun does nadira use", ["Dart Rifle"], ["haven't unlocked", "long-range healer"]),
            ("what perk does renzo have", ["Adrenaline"], []),
        ],
        "already_equipped": [  # what runs in the slot now: no "equip it at your next spawn" for it
            ("overflow on?", ["already", "Overflow"], ["next spawn", "respawn"]),
            ("is renzo running the auto shotgun", ["No", "Boomstick"], ["Yes"]),
            ("put combat roll on lorcan", ["already"], ["next spawn", "respawn"]),
        ],
        "best_here_then_owned": [  # "my best pick on this map": the map's, then "is he unlocked" of it
            (
                "whats my best pick on this map and is he unlocked",
                ["Fathom Docks", "Brannoc"],
                ["highest-level"],
            ),
        ],
        "keep_one_swap_another": [  # "keep Renzo, who do I swap": a swap with Renzo kept, not a counter
            ("keep renzo, who do i swap", ["off", "on"], ["against Renzo", "win against Renzo"]),
        ],
        "his_option": [  # "his shield" after a hero: one of that hero's items, not the hero again
            ("what does brannoc do", ["Brannoc"], []),
            ("what does his shield do", ["shield"], ["shield tank whose"]),
        ],
        "told_then_weighed": [  # "I have Tamsin too, is she better than Lorcan": the two weighed
            (
                "wait i have tamsin too is she better than lorcan for me rn",
                ["Lorcan over Tamsin"],
                ["can run"],
            ),
        ],
        "best_answer": [  # "the best answer I can field": a five against theirs, not out of scope
            ("whats the best answer i can actually field at level 10", ["Run", "Brannoc"], ["outside what"]),
        ],
        "told_then_verdict": [  # "I have a guy with a laser gun at level 4, is he any good": Stellan, judged
            (
                "i have a guy with a laser gun at level 4 is he any good",
                ["Stellan", "Not really"],
                ["Which hero"],
            ),
        ],
        "reach_him": [  # "how do I get to him": theirs, not the hero the answer gave the player
            ("theres someone way out on a pier who keeps one shotting me what even is that", ["Quillon"], []),
            ("how do i get to him without dying", ["Quillon"], ["against Brannoc"]),
        ],
        "their_option_described": [  # "the light wall": their unit's option its words describe
            ("how long does the light wall last", ["Barrier Drop", "four seconds"], ["outside what"]),
        ],
        "among_theirs": [  # "which of their guys ... the healer": theirs, not asked which side
            (
                "which of their guys should we dive first the quillon or the healer",
                ["Nadira"],
                ["Your Elowen, or"],
            ),
        ],
        "why_x_and_not_y": [  # "why X and not Y" of the pick just given: its reason again
            ("who do we focus", ["Nadira"], []),
            ("why nadira and not quillon", ["Because"], ["plays support"]),
        ],
        "a_kind_said_singular": [  # "is shotgun good here": the heroes that carry one, on this map
            ("is shotgun even good on this map", ["Renzo"], ["Which hero"]),
        ],
        "a_comp_named_with_that": [  # "that long watch setup": their comp by name, not a look to ask about
            (
                "if they stay on that long watch setup whats my best five",
                ["Brannoc"],
                ["Their Quillon, their"],
            ),
        ],
        "asked_plainly": [  # staying on a hero is a verdict on it here, not progression or its foe
            (
                "so should i even be on dumaka",
                ["Dumaka", "Fathom Docks"],
                ["best you have", "Against Dumaka"],
            ),
            ("is it worth playing lorcan here", ["Lorcan"], ["Against Lorcan"]),
        ],
        "weighed_three": [  # three weighed with "vs" is a choice among them, not fights
            ("dumaka vs brannoc vs osmund for tank on docks", ["Brannoc"], ["Dumaka into Brannoc"]),
        ],
        "deal_with_their_option": [  # dealing with an option only theirs has: answer the unit with it
            ("how do i deal with null grenade", ["Against Nadira"], ["haven't unlocked"]),
            ("how do i play around quillons grapple line", ["Against Quillon"], ["haven't unlocked"]),
        ],
        "their_option_fact": [  # a fact of their item: no check of the player's roster, no loadout offer
            ("how long does bexleys wall stay up", ["four seconds"], ["can't see", "counters", "loadout"]),
        ],
    },
}
CASES = [(pack, kind) for pack, kinds in SESSIONS.items() for kind in kinds]


@pytest.mark.parametrize(("pack_id", "kind"), CASES)
async def test_a_player_session_reads_as_a_coach_would_answer_it(pack_id: str, kind: str) -> None:
    pack = load_pack(pack_id)
    state = load_state(json.loads(example_state_path(pack_id).read_text()))
    config = CoachConfig(pack_id=pack_id)  # the embedded default's decisions
    async with ScriptedLLMServer() as server:
        engines = Engines(llm=LLMClient(LLMConfig(base_url=server.base_url)))
        coach = TextCoach(Session.open(f"chat-{kind}", state=state, pack=pack), config, engines)
        await coach.start(warm=False)
        try:
            for said, must, must_not in SESSIONS[pack_id][kind]:
                result = await coach.ask(said, timeout_s=20)
                reply = f"{result.narration} {result.reply}"
                assert result.completed, said
                for words in must:
                    assert words.lower() in reply.lower(), f"{said!r} -> {reply!r}: no {words!r}"
                for words in must_not:
                    assert words.lower() not in reply.lower(), f"{said!r} -> {reply!r}: says {words!r}"
        finally:
            await coach.stop()
            await engines.close()
        assert server.requests == []  # the embedded default's turn makes no LLM call
