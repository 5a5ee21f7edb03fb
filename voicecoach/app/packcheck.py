"""`voicecoach pack check` and `voicecoach pack new`: validate a domain pack, write a skeleton one.

    check_pack(folder, train=False) -> [Finding]   every problem of the pack, not only the first
    findings_table(folder, findings) -> str        the markdown table the command prints
    new_pack(name, parent) -> Path                 a skeleton pack folder that loads

The loader (`voicecoach.domain.pack.load_pack_from`) stops at the first problem, so a session never
starts on a broken pack. A game developer writing a pack wants the whole list instead, so the
check reads the files (`read_pack`), lists every cross-reference problem the loader would raise
(`pack_problems`), and then checks what the loader does not: the Φ tools are served and called
with their parameters, Φ binds only decision fields (s_ic / s_fs), every Φ pair has paraphrases
for the intent prior and a narration phrase, every W3 branch Φ routes to has a candidate pool,
text the skeleton left to write is written, and the prior file was trained on this pack's data
(with `train`, the prior is retrained in memory and its held-out pair accuracy reported).

Statuses: ``ok``; ``missing`` (something a complete pack has is not there yet); ``error``
(something there is wrong). Kernel module: no Pipecat.

Why one module of ~700 lines: `pack check` and `pack new` are one command (`run` dispatches both),
and the skeleton is written for the check to report on (its TODO texts, fewer paraphrases than
MIN_PARAPHRASES). About 290 lines are `pack new`'s skeleton, mostly literal JSON: that is the seam,
`skeleton`, `README` and `new_pack` into a module of their own.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from voicecoach.domain.pack import PACK_ID, Pack, PackError, pack_folder, pack_problems, pack_ref, read_pack
from voicecoach.perception.phi import decision_fields
from voicecoach.perception.prior import PRIOR_FILE, IntentPrior, PriorError, prior_labels, training_data
from voicecoach.tools.registry import tool_spec

Status = Literal["ok", "missing", "error"]

# Each Φ pair's paraphrases are the intent prior's training data; with 5 folds, 15 leave 3 per pair
# in every held-out fold, so the prior's held-out accuracy (and its prefill threshold) means something.
MIN_PARAPHRASES = 15
# The slices a game pushes: Φ may wait only on these (s_sh and s_static are the coach's own).
DECISION_SLICES = ("ic", "fs")
# Text the skeleton leaves for the pack's author: any JSON string starting with it is reported.
TODO = "TODO"


@dataclass(frozen=True)
class Finding:
    check: str
    status: Status
    detail: str


# The table's rows in this order; a loader problem goes to the row of the file it names.
CHECKS = ("files", "catalog", "Φ table", "templates", "paraphrases", "narrations", "W3 pools",
          "skeleton text", "intent prior")  # fmt: skip
_FILE_CHECK = {
    "phi.json": "Φ table",
    "templates.json": "templates",
    "paraphrases.json": "paraphrases",
    "narrations.json": "narrations",
    "w3.json": "W3 pools",
}


def resolve(path: str) -> Path:
    """A pack folder: `path` itself, or the installed pack of that id (`pet_arena`)."""
    try:
        return pack_folder(path)
    except PackError:  # neither: check_pack says it is not a pack folder
        return Path(path)


def _relative(folder: Path, message: str) -> tuple[str, str]:
    """(file, message naming the file relative to the pack folder) of a PackError's message."""
    prefix = f"{folder}/"
    if message.startswith(prefix):
        message = message[len(prefix) :]
    return message.split(":", 1)[0], message


def check_pack(folder: Path, train: bool = False) -> list[Finding]:
    """Every finding on the pack in `folder` (ok rows summarise a check that found nothing)."""
    if not folder.is_dir():
        return [Finding("files", "error", f"{folder}: not a pack folder")]
    try:
        pack = read_pack(folder)
    except PackError as err:
        _, detail = _relative(folder, str(err))
        later = "the other checks need every file to read"
        return [Finding("files", "missing" if "file missing" in detail else "error", f"{detail} ({later})")]
    found: dict[str, list[Finding]] = {name: [] for name in CHECKS}
    problems: list[PackError] = []
    try:
        problems += pack_problems(pack, folder)
    except PackError as err:  # a check that raises rather than yields still names its problem
        problems.append(err)
    for problem in problems:
        file, detail = _relative(folder, str(problem))
        check = _FILE_CHECK.get(file, "catalog")
        found[check].append(Finding(check, "error", detail))
    for check, run in _CHECKS.items():
        found[check] += run(pack, folder)
    found["intent prior"] += _prior(pack, folder, train)
    summary = _summaries(pack)
    rows = [Finding("files", "ok", summary["files"])]
    for check in CHECKS[1:]:
        rows += found[check] or [Finding(check, "ok", summary.get(check, ""))]
    return rows


def failed(findings: list[Finding]) -> bool:
    return any(f.status != "ok" for f in findings)


# --- the checks the loader does not make ---------------------------------------------------------


def _phi(pack: Pack, folder: Path) -> Iterator[Finding]:
    """Each Φ pair's tools are served and called with their parameters; Φ waits on decision fields."""
    for e in pack.phi:
        where = f"phi.json: entry {e.intent + '/' + e.sub_intent!r}"
        for use in e.tools:
            spec = tool_spec(pack, use.tool)
            if spec is None:
                if use.tool in pack.tools:  # (an undeclared tool is the loader's finding)
                    yield Finding(
                        "Φ table", "missing", f"{where}: tool {use.tool!r} is declared but not served"
                    )
                continue
            params = spec.parameters["properties"]
            for arg in sorted(set(use.args) - set(params)):
                yield Finding("Φ table", "error", f"{where}: {use.tool} has no parameter {arg!r}")
            for arg in spec.parameters["required"]:
                if arg not in use.args:
                    # W1 validates Φ's calls before the early dispatch: this one would always be refused.
                    yield Finding(
                        "Φ table", "error", f"{where}: {use.tool} needs {arg!r}, Φ does not bind it"
                    )
        for path in decision_fields(e):
            if path.split(".", 1)[0] not in DECISION_SLICES:
                yield Finding("Φ table", "error", f"{where}: {path!r} is not a decision field (ic.* or fs.*)")
    for tool in pack.tools:
        if tool_spec(pack, tool) is None:
            yield Finding("Φ table", "missing", f"manifest.json: entry 'tools': {tool!r} is not served")


def _paraphrases(pack: Pack, folder: Path) -> Iterator[Finding]:
    counts = {(p.intent, p.sub_intent): len(set(p.utterances)) for p in pack.paraphrases}
    for e in pack.phi:
        n = counts.get((e.intent, e.sub_intent), 0)
        if n < MIN_PARAPHRASES:
            yield Finding(
                "paraphrases",
                "missing",
                f"paraphrases.json: entry {e.intent + '/' + e.sub_intent!r}: {n} paraphrases, "
                f"at least {MIN_PARAPHRASES} needed",
            )


def _narrations(pack: Pack, folder: Path) -> Iterator[Finding]:
    have = {(n.intent, n.sub_intent) for n in pack.narrations}
    for e in pack.phi:
        if (e.intent, e.sub_intent) not in have:
            pair = e.intent + "/" + e.sub_intent
            yield Finding("narrations", "missing", f"narrations.json: entry {pair!r}: no narration phrase")


def _w3(pack: Pack, folder: Path) -> Iterator[Finding]:
    """A branch Φ routes to with no candidate makes W3 abstain on every such turn; a candidate
    waits, as Φ does, only on decision fields."""
    for branch, cfg in pack.w3.branches.items():
        for cand in cfg.pool:
            for path in cand.requires:
                if path.split(".", 1)[0] not in DECISION_SLICES:
                    where = f"w3.json: entry {branch + '/' + cand.id!r}"
                    yield Finding(
                        "W3 pools", "error", f"{where}: {path!r} is not a decision field (ic.* or fs.*)"
                    )
    for branch in sorted({e.branch for e in pack.phi}):
        routed = pack.w3.branches.get(branch)
        if routed is None or not routed.pool:
            users = sum(e.branch == branch for e in pack.phi)
            yield Finding(
                "W3 pools",
                "missing",
                f"w3.json: entry {branch!r}: empty pool, W3 abstains on the branch's {users} Φ pair(s)",
            )


def _todo(pack: Pack, folder: Path) -> Iterator[Finding]:
    """JSON strings the skeleton left for the author (they start with TODO)."""

    def walk(node: Any, at: str) -> Iterator[str]:
        if isinstance(node, str) and node.startswith(TODO):
            yield at
        elif isinstance(node, dict):
            for key, value in node.items():
                yield from walk(value, f"{at}.{key}" if at else str(key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                # A catalog entry is named by its id, as the loader names entries.
                label = value.get("id", i) if isinstance(value, dict) else i
                yield from walk(value, f"{at}[{label!r}]" if isinstance(label, str) else f"{at}[{i}]")

    for path in sorted(folder.glob("*.json")):
        if path.name == PRIOR_FILE:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:  # a file read_pack does not read
            yield Finding("skeleton text", "error", f"{path.name}: not valid JSON ({err})")
            continue
        for at in walk(data, ""):
            yield Finding("skeleton text", "missing", f"{path.name}: {at}: still {TODO}")


def _answers(pack: Pack, folder: Path) -> Iterator[Finding]:
    """Every tool-using Φ pair says how it is answered (`answer` steps): without steps the realizer
    has no answer for it and says the generic sentence. (A pair templates.json `answers` words is
    answered by those words, with or without tools.)"""
    for e in pack.phi:
        pair = f"{e.intent}/{e.sub_intent}"
        if e.tools and e.answer is None and pair not in pack.templates.answers:
            yield Finding(
                "templates", "missing", f"phi.json: entry {pair!r}: uses tools and has no answer steps"
            )


_CHECKS: dict[str, Callable[[Pack, Path], Iterator[Finding]]] = {
    "Φ table": _phi,
    "templates": _answers,
    "paraphrases": _paraphrases,
    "narrations": _narrations,
    "W3 pools": _w3,
    "skeleton text": _todo,
}


def _prior(pack: Pack, folder: Path, train: bool) -> list[Finding]:
    """The prior file was trained on this pack's data; with `train`, retrain it in memory."""
    out = []
    path = folder / PRIOR_FILE
    how = f"--pack {pack_ref(pack)}"
    retrain = f"python -m voicecoach.bench.prior train {how}"
    if not path.exists():
        out.append(Finding("intent prior", "missing", f"{PRIOR_FILE}: not trained yet ({retrain})"))
    else:
        try:
            prior = IntentPrior.load(pack, path)
        except PriorError as err:
            _, detail = _relative(folder, str(err))
            out.append(Finding("intent prior", "error", detail))
        except (KeyError, TypeError, ValueError) as err:  # the right stamps, a body edited by hand
            out.append(
                Finding("intent prior", "error", f"{PRIOR_FILE}: not a valid prior ({err!r}); {retrain}")
            )
        else:
            pairs = prior_labels(pack)  # Φ's pairs, and other/other when the paraphrases teach it
            labels = sorted(f"{a}/{b}" for a, b in prior.labels)
            if labels != pairs:
                gone = sorted(set(pairs) - set(labels))
                unknown = ", ".join(gone) or "-"
                detail = f"{PRIOR_FILE}: trained on other Φ pairs (cannot predict {unknown}); {retrain}"
                out.append(Finding("intent prior", "error", detail))
            else:
                acc = prior.heldout.get("pair_accuracy")
                held = (
                    f"held-out pair accuracy {100 * acc:.1f} %" if acc is not None else "no held-out figures"
                )
                out.append(
                    Finding(
                        "intent prior",
                        "ok",
                        f"{PRIOR_FILE} matches the pack data ({held}, "
                        f"prefill threshold {prior.threshold:.3f})",
                    )  # fmt: skip
                )
    if train:
        out.append(_retrain(pack))
    return out


def _retrain(pack: Pack) -> Finding:
    from voicecoach.bench.prior import train

    try:
        doc = train(pack)
    except ImportError as err:
        return Finding("intent prior", "error", f"--train needs scikit-learn (the dev extra): {err}")
    except (PriorError, ValueError) as err:
        return Finding("intent prior", "error", f"retraining failed: {err}")
    held = doc["heldout"]
    return Finding(
        "intent prior",
        "ok",
        f"retrained in memory on {doc['examples']} examples: held-out pair accuracy "
        f"{100 * held['pair_accuracy']:.1f} % ({held['folds']} folds), coverage above the threshold "
        f"{100 * held['coverage']:.1f} %",
    )


def _summaries(pack: Pack) -> dict[str, str]:
    counts = [n for n in (len(set(p.utterances)) for p in pack.paraphrases)] or [0]
    pools = ", ".join(f"{b} {len(c.pool)}" for b, c in pack.w3.branches.items())
    sentences = sum(len(v) for g in pack.templates.paragraphs.values() for v in g.templates.values())
    catalog, schema = pack.catalog, pack.catalog.schema
    # The units, options and groups by the pack's own kinds (pet: creatures, skills, lineups).
    kinds = [k for role in ("unit", "option", "group") if (k := schema.kind(role)) is not None]
    entities = ", ".join(f"{len(catalog.entities.get(k, {}))} {schema.plural(k)}" for k in kinds)
    return {
        "files": f"{pack.pack_id} {pack.version}: {len(pack.phi)} Φ pairs, {entities}, "
        f"{len(pack.tools)} tools",
        "catalog": f"every {', '.join(schema.kinds)}, role and style reference resolves",
        "Φ table": f"{len(pack.phi)} pairs: tools declared and served, arguments bound, decision "
        "fields known",
        "templates": f"{sentences} sentences and {len(pack.templates.answers)} answers, every placeholder "
        "one the realizer fills",
        "paraphrases": f"{len(training_data(pack))} training utterances, {min(counts)}-{max(counts)} "
        "paraphrases per pair",
        "narrations": f"{sum(len(n.phrases) for n in pack.narrations)} phrases, every pair has one",
        "W3 pools": f"candidates per branch: {pools}",
        "skeleton text": f"no {TODO} left",
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def findings_table(folder: Path, findings: list[Finding]) -> str:
    """The markdown table `pack check` prints, and a closing line."""
    lines = [f"Pack check: {folder}", "", "| check | status | detail |", "|---|---|---|"]
    lines += [f"| {f.check} | {f.status} | {_cell(f.detail)} |" for f in findings]
    bad = [f for f in findings if f.status != "ok"]
    lines += ["", f"{len(bad)} problem(s): the pack is not ready." if bad else "The pack passes every check."]
    return "\n".join(lines)


# --- pack new ------------------------------------------------------------------------------------


def skeleton(pack_id: str) -> dict[str, Any]:
    """The skeleton's files, in the schema layout: minimal but valid entries that show each file's
    shape. schema.json declares a unit kind `unit` (a role and a power, gated by the player's
    level), an option kind `ability` (gated by the unit's level), a group kind `team`, a counter
    table and a team of two with a role quota; tools.json instantiates four builtin tools over them;
    phi.json's tool-using pairs are answered by generic recipes (`answer` steps) from the templates
    their steps name, the greeting from templates.json `answers`. Texts for the author to write
    start with TODO (pack check lists them); the W3 pools are empty and the paraphrases too few on
    purpose, so pack check's table is the to-do list."""
    title = pack_id.replace("_", " ").title()

    def named(what: str) -> str:
        return f"{TODO} {what}"

    def summary(what: str) -> str:  # said after the name: "<name> is <summary>."
        return f"{TODO} {what}, said after its name"

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
        {"id": "unit_a", "name": named("Unit A"), "role": "attacker", "power": 60,
         "summary": summary("what unit A does"), "abilities": ["ability_a", "ability_b"], "unlock": None},
        {"id": "unit_b", "name": named("Unit B"), "role": "defender", "power": 50,
         "summary": summary("what unit B does"), "abilities": [], "unlock": None},
        {"id": "unit_c", "name": named("Unit C"), "role": "attacker", "power": 40,
         "summary": summary("what unit C does"), "abilities": [], "unlock": {"min_player_level": 5}},
    ]  # fmt: skip
    abilities = [
        {"id": "ability_a", "name": named("Ability A"), "description": summary("what the ability does"),
         "unlock": None},
        {"id": "ability_b", "name": named("Ability B"), "description": summary("what the ability does"),
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
            "which_unit": ["Which unit do you mean? I didn't catch a name."],
            "no_match": ["I can't see a match in progress right now."],
            "stale_lead": ["Going by my last update"],
            "stale_told": ["Going by my last update and what you just said"],
        }},
        "guidance": {"generic": f"{TODO}: one safe piece of advice for any turn.", "templates": {
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
            "leading": ["You're ahead {score_player} to {score_opponent}; keep the pressure on."],
            "behind": ["You're down {score_player} to {score_opponent}, but there's time to turn it."],
            "level": ["It's {score_player} all, round {round} of {rounds}."],
        }},
    }  # fmt: skip
    return {
        "manifest.json": {
            "pack_id": pack_id,
            "version": "0.1.0",
            "title": title,
            "persona": f"{TODO}: who the coach is, in one sentence (the system prompt opens with it).",
            "domain_rules": [f"{TODO}: one rule of {title} per line (what a team is, what beats what)."],
            "tools": [t["name"] for t in tools],
            "limits": {"max_level": 100, "max_player_level": 100, "max_owned": 1000, "max_lineup": 2},
            "w1_examples": [],
        },
        "schema.json": schema,
        "units.json": units,
        "abilities.json": abilities,
        "teams.json": [{"id": "team_ab", "name": named("Team"), "units": ["unit_a", "unit_b"]}],
        "counters.json": {"unit_b": {"unit_c": 1.5}, "unit_c": {"unit_a": 1.5}},
        "tools.json": {"tools": tools},
        "phi.json": phi,
        "w3.json": {
            "version": "0.1.0",
            "branches": {b: {"pool": []} for b in ("recommend", "teaching", "knowledge-qa")},
        },
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
            {
                "intent": "team",
                "sub_intent": "build",
                "utterances": ["build me a team", "what team should i run"],
            },
            {
                "intent": "unit",
                "sub_intent": "counter",
                "utterances": ["what counters their team", "who do i send against them"],
            },
            {
                "intent": "unit",
                "sub_intent": "info",
                "utterances": ["what does this unit do", "tell me about it"],
            },
            {"intent": "smalltalk", "sub_intent": "greeting", "utterances": ["hi", "hello coach"]},
        ],
        "narrations.json": [
            {"intent": "team", "sub_intent": "build", "phrases": ["Let me put a team together."]},
            {"intent": "unit", "sub_intent": "counter", "phrases": ["Looking for a counter."]},
            {"intent": "unit", "sub_intent": "info", "phrases": ["Let me look that up."]},
            {"intent": "smalltalk", "sub_intent": "greeting", "phrases": ["Hey there."]},
        ],
        # The state a game pushes, in the schema's `collection` profile: what `voicecoach chat` and
        # the demos start from (the player owns units A and B and faces unit C in round 1 of 3).
        "example_state.json": {
            "turn_index": 0,
            "fs": {
                "player_level": 3,
                "collection": {
                    "units": [
                        {"id": "unit_a", "level": 4, "unlocked": ["ability_a"]},
                        {"id": "unit_b", "level": 2},
                    ]
                },
            },
            "ic": {
                "match": {
                    "round": 1,
                    "rounds_total": 3,
                    "player_lineup": ["unit_a", "unit_b"],
                    "opponent_lineup": ["unit_c"],
                }
            },
        },  # fmt: skip
    }


README = """# {title}: a VoiceCoach domain pack (skeleton)

Written by `voicecoach pack new {pack_id}`. JSON holds no comments, so this file says what each one is;
docs/PACKS.md explains every field, with strike_team (voicecoach/packs/strike_team/) as the worked example.

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
  the schema's `needs` name; answers of tool-less pairs; what each tool's data is called
- paraphrases.json: what players say for each Φ pair (at least {min_paraphrases} each), the intent
  prior's training data
- narrations.json: 1-3 short acknowledgements per Φ pair, naming no entity
- example_state.json: a live-state snapshot (fs.collection: the player's units, their levels and
  unlocked abilities; ic.match), for `voicecoach chat` and the demos
- prior.json: the trained intent prior, `python -m voicecoach.bench.prior train --path <this folder>`
  (not written yet)

Optional: `coachbench.json` (CoachBench's phrase tables for this pack).

Texts starting with {todo} are yours to write; the W3 pools are empty and the paraphrases too few on purpose.
`voicecoach pack check <this folder>` lists everything still missing; the pack is ready when it passes.
"""


def new_pack(pack_id: str, parent: Path) -> Path:
    """Write the skeleton pack `parent/pack_id`; refuses an existing path or a bad id (ValueError)."""
    if not PACK_ID.fullmatch(pack_id):
        raise ValueError(
            f"pack id {pack_id!r}: use lowercase letters, digits and underscores, starting with a letter"
        )
    folder = parent / pack_id
    if folder.exists():
        raise ValueError(f"{folder} already exists; pack new never overwrites (choose another name or --dir)")
    folder.mkdir(parents=True)
    for name, data in skeleton(pack_id).items():
        (folder / name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    text = README.format(
        title=pack_id.replace("_", " ").title(), pack_id=pack_id, min_paraphrases=MIN_PARAPHRASES, todo=TODO
    )
    (folder / "README.md").write_text(text, encoding="utf-8")
    return folder


# --- entry points (the CLI's `pack` command calls these) -------------------------------------------


def run_check(path: str, train: bool = False) -> int:
    folder = resolve(path)
    findings = check_pack(folder, train=train)
    print(findings_table(folder, findings))
    return 1 if failed(findings) else 0


def run_new(pack_id: str, parent: str) -> int:
    try:
        folder = new_pack(pack_id, Path(parent))
    except ValueError as err:
        print(f"pack new: {err}", file=sys.stderr)
        return 2
    print(f"wrote the skeleton pack {folder} (see its README.md); next: voicecoach pack check {folder}")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="pack_command", required=True, metavar="ACTION")
    check = sub.add_parser(
        "check", help="validate a pack folder (or installed pack id): a table of what is missing"
    )
    check.add_argument("path", help="the pack folder, or the id of an installed pack (pet_arena)")
    check.add_argument("--train", action="store_true", help="also retrain the intent prior in memory (~30 s)")
    new = sub.add_parser("new", help="write a skeleton pack folder (never overwrites)")
    new.add_argument("name", help="the pack id (lowercase letters, digits, underscores)")
    new.add_argument("--dir", default=".", help="folder to create the pack in (default: the current one)")


def run(args: argparse.Namespace) -> int:
    if args.pack_command == "check":
        return run_check(args.path, train=args.train)
    return run_new(args.name, args.dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m voicecoach.app.packcheck", description=__doc__.split("\n")[0]
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
