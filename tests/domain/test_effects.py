"""What an option does, read from its description, and when a player asks for it (effects.py)."""

from __future__ import annotations

import pytest

from voicecoach.domain.effects import effect_question, option_effects
from voicecoach.domain.pack import load_pack


def test_an_option_has_the_effects_its_description_says() -> None:
    pet, strike = option_effects(load_pack("pet_arena")), option_effects(load_pack("strike_team"))
    assert pet["undertow"] == {"slow"}  # "slows the target's next action"
    assert "heal" in pet["healing_rain"] and "shield" in pet["thicket_wall"]
    assert "area" in pet["quake_stomp"] and "area" not in pet["thicket_wall"]  # the enemy line, not allies
    assert strike["tether_hook"] == {"pull"} and "revive" in strike["defibrillator"]
    # what an option guards its own unit from is not what it does
    assert "dense_core" not in strike and "bedrock_stance" not in pet
    # stopping the enemy's healing is not healing; burning through shields is not a shield
    assert strike["null_grenade"] == {"stop_healing"} and "shield" not in strike["blowtorch"]
    # "a slow cannon" is slow itself; it does not slow anyone
    assert "slow" not in strike.get("bombard", set())


@pytest.mark.parametrize(
    ("said", "effects"),
    [
        ("can anything I have slow him down", ["slow"]),
        ("which of my pets can heal", ["heal"]),
        ("does Sparkwing have a shield move", ["shield"]),
        ("do I have anything that hits all of them at once", ["area"]),
        ("their Voltail is so fast, can anything I have slow him down", ["slow"]),
        ("any way to stop them healing", ["stop_healing"]),
        ("is there anything that breaks their barrier", ["break_shields"]),
        ("does Healing Rain heal everyone", ["heal"]),  # a named option is a name, not an ask
        ("Sparkwing doesnt heal at all right", ["heal"]),  # a yes/no asked as a statement to confirm
        ("is there a shield on Oakhorn", ["shield"]),
        # going first, told as trouble or asked as "fast": the options that strike first
        ("voltail keeps going first every single turn wtf", ["first"]),
        ("is Voltail fast", ["first"]),
        ("their voltail goes before me every turn and idk why", ["first"]),
        ("is there anything I have that lets me go first", ["first"]),
    ],
)
def test_a_question_for_an_effect_is_heard(said: str, effects: list[str]) -> None:
    asked = effect_question(load_pack("pet_arena"), said)
    assert asked is not None and asked.effects == effects


@pytest.mark.parametrize(
    "said",
    [
        "when should I use a heal",  # timing
        "we need a healer, who do I play",  # a role
        "how do I protect my lead",
        "what beats barriers",  # a matchup
        "what team would just burn them down",
        "my internet is slow",  # no question
        "what goes nicely with Sand Trap",
        "what's the square root of 144",
        "who's not pulling their weight",
    ],
)
def test_other_questions_ask_no_effect(said: str) -> None:
    assert effect_question(load_pack("strike_team"), said) is None


def test_an_option_for_its_own_side_hits_no_one() -> None:
    from voicecoach.domain.effects import for_own_side

    pet = load_pack("pet_arena")
    assert for_own_side(pet, "gentle_light") and for_own_side(pet, "thicket_wall")
    # a drain hits an enemy to heal an ally; a cloak that burns attackers hits them
    assert not for_own_side(pet, "soul_siphon") and not for_own_side(pet, "cinder_veil")
    assert not for_own_side(pet, "flame_burst")  # no effect named at all: an attack
