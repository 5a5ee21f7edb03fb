"""`voicecoach pack new DIR`: a small, complete pack in the schema layout, the start of a game's own.

    new_pack(folder) -> Path       write it (never over an existing folder)
    skeleton(pack_id) -> {file: JSON}

The pack is a toy game of three units, two abilities and one team, with every file a pack has and
each of its four Φ pairs answered end to end: its paraphrases (enough for the intent prior's
held-out folds), a narration, `answer` steps and the templates they say, W3 candidates, and the
out-of-domain pair (`other/other`) that keeps an off-topic question off the game's pairs. So
`voicecoach pack check DIR` passes once the prior is trained (`python -m voicecoach.bench.prior
train --pack DIR`), and `voicecoach chat --pack DIR` answers on its example_state.json. The
author then renames the kinds, entities and tools to the game's and grows each file, with
strike_team as the model (docs/PACKS.md). Kernel module: no Pipecat.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from voicecoach.app.packcheck import MIN_PARAPHRASES
from voicecoach.domain.pack import PACK_ID


def skeleton(pack_id: str) -> dict[str, Any]:
    """The files, by name: schema.json declares a unit kind `unit` (a role and a power, gated by the
    player's level), an option kind `ability` (gated by the unit's level), a group kind `team`, a
    counter table and a team of two with a role quota; tools.json instantiates four builtin tools
    over them; phi.json's tool-using pairs are answered by generic recipes (`answer` steps) from
    the templates their steps name, the greeting and the off-topic pair from templates.json
    `answers`."""
    title = pack_id.replace("_", " ").title()
    schema = {
        "state": "collection",
        "kinds": {
            "unit": {
                "role": "unit",
                "plural": "units",
                "file": "units.json",
                "nouns": ["unit", "units"],
                "verbs": ["play", "pick"],
                "attributes": {"role": {"values": "vocabulary.roles"}, "power": {"numeric": True}},
                "relations": {"abilities": "ability"},
                "gate": {"min_player_level": {"state": "fs.player_level", "spoken": "player level {value}"}},
            },
            "ability": {
                "role": "option",
                "plural": "abilities",
                "file": "abilities.json",
                "nouns": ["ability"],
                "verbs": ["use"],
                "gate": {"min_unit_level": {"state": "level", "spoken": "unit level {value}"}},
            },
            "team": {"role": "group", "plural": "teams", "file": "teams.json", "members": "units",
                     "nouns": ["team"]},
        },
        "matchups": [
            {"name": "counters", "between": ["unit", "unit"], "file": "counters.json",
             "words": {"1.5": "a counter to"}},
        ],
        "composition": {"size": 2, "quota": {"attribute": "role", "counts": {"attacker": 1, "defender": 1}}},
        "needs": {"ic.focus.unit": "which_unit", "ic.match": "no_match", "fs.collection": "roster_unknown"},
    }  # fmt: skip
    units = [
        {"id": "blaze", "name": "Blaze", "role": "attacker", "power": 60,
         "summary": "a fast attacker who hits hard early", "abilities": ["quick_strike", "iron_guard"],
         "unlock": None},
        {"id": "bulwark", "name": "Bulwark", "role": "defender", "power": 50,
         "summary": "a sturdy defender who holds the front", "abilities": [], "unlock": None},
        {"id": "viper", "name": "Viper", "role": "attacker", "power": 40,
         "summary": "a sneaky attacker who picks off weak targets", "abilities": [],
         "unlock": {"min_player_level": 5}},
    ]  # fmt: skip
    abilities = [
        {"id": "quick_strike", "name": "Quick Strike", "description": "a fast hit that opens a fight",
         "unlock": None},
        {"id": "iron_guard", "name": "Iron Guard", "description": "a stance that halves the damage taken",
         "unlock": {"min_unit_level": 5}},
    ]  # fmt: skip
    tools = [
        {"name": "get_collection", "builtin": "get_collection"},
        {"name": "get_unit", "builtin": "get_entity", "kind": "unit"},
        {"name": "suggest_team", "builtin": "suggest_group"},
        {"name": "unit_counters", "builtin": "rank_matchup", "matchup": "counters"},
    ]
    phi = [
        {"intent": "team", "sub_intent": "build", "example": "make me a team out of what i have",
         "tools": [{"tool": "get_collection", "args": {}}, {"tool": "suggest_team", "args": {}}],
         "requires": ["fs.collection.units"], "branch": "recommend",
         "answer": [{"recipe": "pick_pair", "key": "team", "pair_key": "team_pair", "lead_key": "team_lead",
                     "team": "suggest_team.units[*].id", "roster": "get_collection.units[*].id",
                     "score": "suggest_team.score"}]},
        {"intent": "unit", "sub_intent": "counter", "example": "who beats their team",
         "tools": [{"tool": "unit_counters", "args": {"opponent": "$ic.match.opponent_lineup"}}],
         "requires": ["ic.match.opponent_lineup", "fs.collection.units"], "branch": "recommend",
         "answer": [{"recipe": "pick_best", "key": "counter", "none_key": "counter_none",
                     "ranked": "unit_counters.ranked[*].id", "foes": "$ic.match.opponent_lineup",
                     "matchup": "counters"}]},
        {"intent": "unit", "sub_intent": "info", "example": "tell me about this one",
         "tools": [{"tool": "get_unit", "args": {"unit": "$ic.focus.unit"}}], "requires": ["ic.focus.unit"],
         "branch": "knowledge-qa",
         "answer": [{"recipe": "fact", "key": "unit_info", "entity": ["get_unit.id", "$ic.focus.unit"],
                     "kind": "unit"}]},
        {"intent": "smalltalk", "sub_intent": "greeting", "example": "hey coach", "tools": [],
         "branch": "knowledge-qa"},
    ]  # fmt: skip
    paragraphs = {
        "praise": {"generic": "That part checks out.", "templates": {
            "has": ["You do have {unit}."],
            "option": ["{unit} can use {ability} now."],
            "excludes": ["Leaving {unit} out, as you asked."],
            "excludes_still": ["Still leaving {unit} out, like you said."],
        }},
        "apology": {"generic": "Sorry, I can't do all of that with what you have right now.", "templates": {
            "roster_empty": ["Sorry, you don't have any units yet, so there's no team to build."],
            "has_missing": ["Sorry, you don't have {unit} yet."],
        }},
        "constraint_account": {"generic": "Part of that isn't possible right now.", "templates": {
            "has_missing": ["You don't have {unit} yet."],
            "option_locked": ["{ability} is still locked on {unit}: it needs {unlock}."],
            "counter_missing": ["Nothing you have counters {foe}."],
            "min_size": ["You have {count} units, so a team of {size} isn't possible yet."],
            "pick": ["You have only {count} of those, and a team needs {size}."],
            "quota_short": ["That team is short on {short}: you have none left to field."],
            "roster_unknown": ["I can't see your units right now, so I won't guess what you have."],
            "data_unavailable": ["I can't get the {data} right now, so I won't guess at it."],
            "not_in_data": ["The game data doesn't show {data}, so I won't guess."],
            "foe_unseen": ["I can't see {data}, only which units they field."],
            "which_unit": ["Which unit do you mean? I didn't catch a name."],
            "no_match": ["I can't see a match in progress right now."],
            "stale_lead": ["Going by my last update"],
            "stale_told": ["Going by my last update and what you just said"],
        }},
        "guidance": {"generic": "Play the units you know best, and swap one when a matchup goes badly.",
                     "templates": {
            "team": ["From your units, run {units}."],
            "team_pair": ["From your units, start with {leader} and {unit}."],
            "team_lead": ["From your units, start with {leader}."],
            "counter": ["Against {foe}, play {unit}."],
            "counter_none": ["Nothing you have counters {foe}, so play {unit}."],
            "unit_info": ["{unit} is {summary}."],
            "w3": ["{guidance}"],
        }},
        "scene_flavor": {"generic": "Stay sharp.", "templates": {
            "final": ["It's the last round, so make it count."],
            "stakes_decider": ["Round {round} of {rounds} decides it all; win it and the match is yours."],
            "stakes_clinch": [
                "Win round {round} and the match is yours; lose it and it goes to round {next_round}."
            ],
            "stakes_must": [
                "You need round {round}: lose it and the match is over; win it and it goes to round "
                "{next_round}."
            ],
            "stakes_open": [
                "After round {round} there are {count} more to play, and you need {missing} more wins."
            ],
            "stakes_over": ["The match is decided: {score_player} to {score_opponent}."],
            "leading": ["You're ahead {score_player} to {score_opponent}; keep the pressure on."],
            "behind": ["You're down {score_player} to {score_opponent}, but there's time to turn it."],
            "level": ["It's {score_player} all, round {round} of {rounds}."],
        }},
    }  # fmt: skip
    # How players ask, per pair: the intent prior's training data (pack check wants 15 a pair), with
    # and without names; other/other is what is outside the game.
    paraphrases = {
        "team/build": [
            "build me a team", "what team should i run", "what's my best team", "who should i put on my team",
            "give me a team from my units", "which two should i field", "pick my team for me",
            "what should my team be", "help me build a team", "best team i can make right now",
            "which of my units go together", "set up my team", "who do i bring this match",
            "what's a good team for me", "should i run blaze and bulwark together",
        ],
        "unit/counter": [
            "what counters their team", "who do i send against them", "how do i beat them",
            "what beats their units", "who should i play against them",
            "i keep losing to them, who do i pick",
            "who do i pick to beat them", "what should i use against their team", "counter pick please",
            "who's strong against viper", "how do i deal with viper", "who beats viper",
            "what counters bulwark", "how do i beat their blaze", "who wins against their team",
        ],
        "unit/info": [
            "tell me about blaze", "what does bulwark do", "who is viper", "what is blaze good at",
            "explain bulwark to me", "tell me about this unit", "what kind of unit is viper",
            "is blaze an attacker", "what's bulwark's role", "describe viper", "what do you know about blaze",
            "info on bulwark", "what's viper like", "how does blaze play", "what is this one",
        ],
        "smalltalk/greeting": [
            "hi", "hello coach", "hey", "hey coach", "good morning", "hello there", "yo coach", "hi there",
            "hey there coach", "morning coach", "what's up coach", "hello", "hiya", "greetings", "howdy",
        ],
        "other/other": [
            "what's the weather today", "tell me a joke", "what time is it", "who won the football game",
            "how do i cook pasta", "play some music", "what's the capital of france",
            "can you order me a pizza", "what's two plus two", "recommend a movie", "how old are you",
            "what's in the news today", "set an alarm for seven", "how tall is mount everest",
            "translate hello into spanish",
        ],
    }  # fmt: skip
    return {
        "manifest.json": {
            "pack_id": pack_id,
            "version": "0.1.0",
            "title": title,
            "persona": f"You are a friendly, brief coach for {title}: you help the player pick units, teams "
            "and counters from what they own.",
            "domain_rules": [
                "A team is two units: one attacker and one defender.",
                "Some units counter others: a counter wins that matchup.",
                "A unit unlocks at a player level; an ability unlocks at a unit level.",
            ],
            "tools": [t["name"] for t in tools],
            "limits": {"max_level": 100, "max_player_level": 100, "max_owned": 1000, "max_lineup": 2},
            "w1_examples": [],
        },
        "schema.json": schema,
        "units.json": units,
        "abilities.json": abilities,
        "teams.json": [{"id": "vanguard", "name": "Vanguard", "units": ["blaze", "bulwark"]}],
        "counters.json": {"bulwark": {"viper": 1.5}, "viper": {"blaze": 1.5}},
        "tools.json": {"tools": tools},
        "phi.json": phi,
        "w3.json": {
            "version": "0.1.0",
            "branches": {
                "recommend": {
                    "pool": [
                        {
                            "id": "rec_counter_first",
                            "guidance_type": "tip",
                            "cooldown": 2,
                            "p": 0.8,
                            "w": 1.0,
                            "text": "Check what counters their team before you lock yours in.",
                        },
                        {
                            "id": "rec_roles",
                            "guidance_type": "tip",
                            "cooldown": 2,
                            "p": 0.8,
                            "w": 1.0,
                            "text": "Pair an attacker with a defender: a team needs one of each.",
                        },
                    ]
                },
                "teaching": {"pool": []},
                "knowledge-qa": {
                    "pool": [
                        {
                            "id": "qa_levels",
                            "guidance_type": "tip",
                            "cooldown": 3,
                            "p": 0.6,
                            "w": 1.0,
                            "text": "Levelling a unit unlocks its abilities.",
                        },
                        {
                            "id": "qa_ask_counter",
                            "guidance_type": "followup",
                            "cooldown": 3,
                            "p": 0.5,
                            "w": 1.0,
                            "text": "Ask me who counters their team when the match starts.",
                        },
                    ]
                },
            },
        },  # fmt: skip
        "vocabulary.json": {
            "roles": {
                "attacker": {"summary": "deals the damage", "words": ["attacker", "damage dealer"]},
                "defender": {"summary": "protects the team", "words": ["defender", "tank"]},
            },
            "styles": {"balanced": {"roles": ["attacker", "defender"], "words": ["balanced"]}},
        },
        "templates.json": {
            "paragraphs": paragraphs,
            "answers": {
                "smalltalk/greeting": ["Hey! What do you want to work on?"],
                "other/other": ["That's outside what I can help with. Ask me about your units or your team."],
                "other/unheard": ["Sorry, I didn't catch that name. Could you say it again?"],
            },
            "tool_data": {
                "get_collection": "unit roster",
                "get_unit": "unit data",
                "suggest_team": "team suggestions",
                "unit_counters": "counter data",
            },
            "acknowledgements": ["Sure.", "On it."],
        },
        "paraphrases.json": [
            {"intent": pair.split("/")[0], "sub_intent": pair.split("/")[1], "utterances": texts}
            for pair, texts in paraphrases.items()
        ],
        "narrations.json": [
            {"intent": "team", "sub_intent": "build", "phrases": ["Let me put a team together."]},
            {"intent": "unit", "sub_intent": "counter", "phrases": ["Looking for a counter."]},
            {"intent": "unit", "sub_intent": "info", "phrases": ["Let me look that up."]},
            {"intent": "smalltalk", "sub_intent": "greeting", "phrases": ["Hey there."]},
        ],
        # The state a game pushes, in the schema's `collection` profile: what `voicecoach chat --pack
        # DIR` starts from (the player owns Blaze and Bulwark and faces Viper, round 1 of 3).
        "example_state.json": {
            "turn_index": 0,
            "fs": {
                "player_level": 3,
                "collection": {
                    "units": [
                        {"id": "blaze", "level": 4, "unlocked": ["quick_strike"]},
                        {"id": "bulwark", "level": 2},
                    ]
                },
            },
            "ic": {
                "match": {
                    "round": 1,
                    "rounds_total": 3,
                    "player_lineup": ["blaze", "bulwark"],
                    "opponent_lineup": ["viper"],
                }
            },
        },  # fmt: skip
    }


README = """# {title}: a VoiceCoach domain pack

Written by `voicecoach pack new`. A toy game (three units, two abilities, one team) whose every file
works, so the coach answers from it at once; rename and grow it into your game. JSON holds no
comments, so this file says what each one is; docs/PACKS.md explains every field, with strike_team
(voicecoach/packs/strike_team/) as the worked example of a full game.

    python -m voicecoach.bench.prior train --pack {folder}   # the intent prior (needs scikit-learn)
    voicecoach pack check {folder}                           # every check passes
    voicecoach chat --pack {folder}                          # ask "who beats viper?"

- manifest.json: pack id and version (a balance patch is a new version), persona, domain rules,
  the tools the coach may call (every one declared in tools.json), state limits, W1's worked examples
- schema.json: the game's kinds, each with its role (unit: owned and fielded; option: gated per
  unit; group: a named team; type: a matchup value; context: the match context, a map), its file,
  attributes, gates and the words players use; the matchup tables, the team's composition, and
  what to ask when a decision field is missing (`needs`). Rename the kinds to the game's (a hero,
  an item, a comp), and with them what carries their names: the template placeholders ({{unit}},
  {{units}}, {{ability}}), the state paths (ic.focus.unit) and get_entity's argument (`unit`)
- units.json, abilities.json, teams.json: the catalog, each kind's entities (their ids are what the
  game's live state sends; their names what players say)
- counters.json: the `counters` matchup, {{a: {{b: multiplier}}}}: how much unit a beats unit b
- tools.json: the tools, each a builtin kind over the catalog and the live state (get_collection,
  get_entity, rank_matchup, suggest_group; also context_fit, score_group, list_groups,
  get_match_state) under the pack's own name, or a tool the game serves over HTTP or MCP
- phi.json: Φ, per (intent, sub_intent) pair the tools W1 fires early, the decision fields they
  wait on, the W3 branch, and the `answer` steps (generic recipes: pick_pair, pick_best, fact...)
  that say the answer from the tools' results
- w3.json: W3's candidate pools per branch (recommend, teaching, knowledge-qa): cooldown, p_c, w_c
- vocabulary.json: roles and play styles, with the words players use for them
- templates.json: the realizer's sentences per paragraph type, under the keys the answer steps and
  the schema's `needs` name; answers of tool-less pairs and of other/other (off-topic); what each
  tool's data is called
- paraphrases.json: what players say for each Φ pair (at least {min_paraphrases} each) and for
  other/other, the intent prior's training data
- narrations.json: 1-3 short acknowledgements per Φ pair, naming no entity
- example_state.json: a live-state snapshot (fs.collection: the player's units, their levels and
  unlocked abilities; ic.match), what `voicecoach chat --pack` starts from
- prior.json: the trained intent prior, written by `python -m voicecoach.bench.prior train --pack
  <this folder>` (retrain after every change to phi.json or paraphrases.json)

Optional: `coachbench.json` (CoachBench's phrase tables for this pack).
"""


def new_pack(folder: Path) -> Path:
    """Write the pack in `folder` (its name is the pack id); refuses an existing path or a bad id
    (ValueError)."""
    pack_id = folder.name
    if not PACK_ID.fullmatch(pack_id):
        raise ValueError(
            f"pack id {pack_id!r} (the folder's name): use lowercase letters, digits and underscores, "
            "starting with a letter"
        )
    if folder.exists():
        raise ValueError(f"{folder} already exists; pack new never overwrites (choose another folder)")
    folder.mkdir(parents=True)
    for name, data in skeleton(pack_id).items():
        (folder / name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    text = README.format(
        title=pack_id.replace("_", " ").title(), folder=folder, min_paraphrases=MIN_PARAPHRASES
    )
    (folder / "README.md").write_text(text, encoding="utf-8")
    return folder
