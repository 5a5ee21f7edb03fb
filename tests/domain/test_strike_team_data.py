"""strike_team's Φ table, paraphrases, narrations, W3 pools and templates, checked by the loader
and by the data rules below.

The loader reads phi.json, paraphrases.json and narrations.json as they are (tools named in the
manifest, state paths through the schema-aware `_valid_path`, every pair registered). templates.json
and w3.json load too ({reason}: the counter matchup's notes; the W3 comp candidates: the group kind's
entities). `data_problems` checks the rest as a pack designer would: paraphrase coverage per
pair, names that are the catalog's or declared mishearings, narrations that name nothing, W3 pools
of the planned sizes with valid paths, answers for the tool-less pairs, and no side-effect tool in
Φ. Each rule has a broken copy below that it must refuse.
"""

from __future__ import annotations

import copy
import difflib
import functools
import re
from pathlib import Path
from typing import Any

import pytest

from tests.domain.test_strike_team_catalog import STATE_FILE, load, pack_files
from tests.toy_pack import write_pack
from voicecoach.core.state import LiveState
from voicecoach.domain.catalog import Catalog, Schema
from voicecoach.domain.pack import (
    ASIDE,
    OUT_OF_DOMAIN,
    PARAGRAPH_TYPES,
    PLACEHOLDERS,
    UNHEARD,
    WAITING,
    Pack,
    PhiEntry,
    PhiNarrations,
    PhiParaphrases,
    Templates,
    W3Config,
    _valid_path,
    pack_problems,
    read_pack,
    recipe_placeholders,
)

# The placeholders the templates use beyond the realizer's fixed set (PLACEHOLDERS), each one a
# recipe fills for this pack's kinds (`recipe_placeholders`); any other is a typo.
NEW_PLACEHOLDERS = frozenset(
    {
        "hero",
        "epithet",
        "unlocks",
        "top",
        "mine",
        "good",
        "bad",
        "others",
        "sort",
        "foes",
        "verdict",
        "reasons",
        "other_map",
        "other_level",
        "what",
        "ranked",
        "groups",
        "heroes",
        "item",
        "items",
        "map",
        "loadouts",
        "mode",
        "slot",
        "comp",
        "range",
        "reason",
        "player_level",
        "blocker",
        "pairs",
        "out",
        "levels",
        "summary",
        "short",
        "rank",
        "other",
        "offered",  # "Neither Renzo nor Lorcan": the units the player offered to choose from
        "rule",  # "a team is always one tank, two damage and two support heroes": the quota said
    }
)
# Names written as Whisper mishears them, on purpose (the prior must cope with a name it cannot link).
MISHEARD = {"kazimir": "kasimir", "quillan": "quillon", "mareva": "mireva", "renso": "renzo",
            "lorkan": "lorcan", "wendel": "wendell", "dome projecter": "dome_projector"}  # fmt: skip
# English words as close to a name as a mishearing is ("stomped": Stampede).
ENGLISH = frozenset({"stomped"})
# Tools Φ must never list: the game's side-effect tool, and the read-only one PLAN alone calls.
NOT_IN_PHI = ("equip_loadout", "get_equipped")
MIN_PARAPHRASES = 20
POOL_SIZES = {"recommend": 15, "teaching": 8, "knowledge-qa": 6}
# The guidance templates each tool-using pair's answer recipe (PHI_DRAFT.md) needs.
RECIPE_KEYS: dict[str, tuple[str, ...]] = {
    "hero/info": ("hero_info",),
    "hero/owned": ("owned_yes", "owned_no", "owned_all", "hero_items_unlocked"),
    "hero/unlock": ("hero_unlock", "hero_unlock_owned", "hero_items_unlocked", "hero_unlock_free"),
    "hero/role": ("hero_role",),
    "hero/counters": ("counter", "counter_none", "only_counter", "why_counter"),
    "hero/on_map": ("on_map", "on_map_even"),
    "hero/worth_it": ("worth_yes", "worth_gated", "worth_done"),
    "item/info": ("item_info",),
    "item/unlock": ("item_usable", "item_locked", "item_locked_account", "item_unowned"),
    "item/best": ("item_best", "item_best_swap"),
    "item/equipped": ("equipped", "equipped_slot"),
    "item/equip": ("equip_ready", "equip_done", "equip_failed", "equip_locked", "equip_wrong_hero"),
    "item/next_unlock": ("next_unlock", "next_unlock_none"),
    "comp/build": ("team", "team_lead", "team_pair", "why_team", "team_score"),
    "comp/counter": ("team_counter", "counter_none"),
    "comp/evaluate": ("comp_eval", "comp_eval_range_gap"),
    "comp/quota": ("quota_ok", "quota_missing"),
    "comp/swap": ("swap", "swap_keep", "swap_no_gain"),
    "comp/fill_slot": ("fill_slot",),
    "comp/dive": ("team_style", "team_style_short"),
    "comp/poke": ("team_style", "team_style_short"),
    "comp/brawl": ("team_style", "team_style_short"),
    "comp/list": ("comp_list_field", "comp_list_none", "comp_list_missing"),
    "comp/build_around": ("comp_for_hero", "comp_for_hero_missing", "build_around"),
    "map/picks": ("map_picks", "map_picks_none", "map_worst"),
    "map/info": ("map_info",),
    "enemy/analysis": ("enemy_style",),
    "enemy/threat": ("threat",),
    "match/score": ("match_score",),
    "match/losing": ("losing",),
    "progression/next_hero": ("next_hero", "next_hero_none"),
    "progression/level_priority": ("level_priority", "level_priority_none"),
    "meta/tier_list": ("meta_comps",),
}
_FIELD = re.compile(r"\{([^{}]*)\}")
_WORD = re.compile(r"[a-z]+")


@pytest.fixture(scope="module")
def files() -> dict[str, Any]:
    return pack_files()


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory, files: dict[str, Any]) -> Pack:
    return load(tmp_path_factory.mktemp("st") / "strike_team", files)


def _pair(entry: dict[str, Any]) -> str:
    return f"{entry['intent']}/{entry['sub_intent']}"


class Linker:
    """The catalog's surface forms in text (ids, names, callsigns, map shorts; case-insensitive, on
    word boundaries, longest first), and the text left once they are cut out (`rest`), where the
    data rules look for names that are neither the catalog's nor declared mishearings."""

    def __init__(self, catalog: Catalog) -> None:
        self.kind: dict[str, tuple[str, str]] = {}
        for form, kind, eid in catalog.forms():
            self.kind.setdefault(self.key(form), (kind, eid))
        alts = [r"[\s_-]*".join(map(re.escape, k.split())) for k in sorted(self.kind, key=len, reverse=True)]
        self.pattern = re.compile(r"(?<![a-z0-9])(?:" + "|".join(alts) + r")(?:e?s)?(?![a-z0-9])", re.I)
        # Invented words a mishearing would be close to: one-word hero, comp and map forms (item
        # and comp words such as "change" or "field" are English); whole multi-word names.
        self.words = frozenset(
            k for k, (kind, _) in self.kind.items() if " " not in k and len(k) >= 4 and kind != "item"
        )
        self.names = frozenset(k for k in self.kind if " " in k)

    @staticmethod
    def key(form: str) -> str:
        return " ".join(re.split(r"[\s_-]+", form.strip().lower()))

    def links(self, text: str) -> list[tuple[str, str, str]]:
        """(surface, kind, id) of each mention."""
        out = []
        for m in self.pattern.finditer(text):
            k = self.key(m.group(0))
            hit = self.kind.get(k) or self.kind.get(k[:-1]) or self.kind[k[:-2]]
            out.append((m.group(0), *hit))
        return out

    def rest(self, text: str) -> str:
        """The text with its mentions cut out."""
        return self.pattern.sub(" ", text)


@functools.cache
def _close(gram: str, names: frozenset[str], cutoff: float) -> bool:
    return bool(difflib.get_close_matches(gram, names, n=1, cutoff=cutoff))


def data_problems(files: dict[str, Any], catalog: Catalog) -> list[str]:
    schema = Schema.model_validate(files["schema.json"])
    manifest_tools = set(files["manifest.json"]["tools"])
    linker = Linker(catalog)
    out: list[str] = []
    phi = files["phi.json"]
    pairs = [_pair(e) for e in phi]
    # --- Φ ---------------------------------------------------------------------------------------
    if len(pairs) - sum(p.startswith("smalltalk/") for p in pairs) < 30:
        out.append(f"phi: {len(pairs)} pairs, fewer than 30 besides smalltalk")
    if len(set(pairs)) != len(pairs):
        out.append("phi: a pair defined twice")
    for entry in phi:
        label = _pair(entry)
        PhiEntry.model_validate(entry)
        paths = [*entry["requires"]]
        for use in entry["tools"]:
            if use["tool"] in NOT_IN_PHI or use["tool"] not in manifest_tools:
                out.append(f"phi {label}: tool {use['tool']!r} may not be dispatched by Φ")
            for v in use["args"].values():
                paths += [
                    a[1:].removeprefix("?")
                    for a in (v if isinstance(v, list) else [v])
                    if str(a).startswith("$")
                ]
        out += [f"phi {label}: bad state path {p!r}" for p in paths if not _valid_path(LiveState, p, schema)]
        needs = [p.split(".")[-1] for p in entry["requires"] if p.startswith("ic.focus.")]
        if not entry["tools"] and entry["branch"] == "recommend":
            out.append(f"phi {label}: a recommendation with no tool to ground it")
        for kind in needs:  # a pair bound to a named entity: its example names one
            if kind not in {k for _, k, _ in linker.links(entry["example"])}:
                out.append(f"phi {label}: the example names no {kind}")
    # --- paraphrases -------------------------------------------------------------------------------
    paraphrases = {_pair(p): p["utterances"] for p in files["paraphrases.json"]}
    for p in files["paraphrases.json"]:
        PhiParaphrases.model_validate(p)
    for label in [*pairs, "/".join(OUT_OF_DOMAIN)]:
        n = len(set(paraphrases.get(label, [])))
        if n < MIN_PARAPHRASES:
            out.append(f"paraphrases {label}: {n}, fewer than {MIN_PARAPHRASES}")
    out += [
        f"paraphrases {p}: not a Φ pair" for p in paraphrases if p not in {*pairs, "/".join(OUT_OF_DOMAIN)}
    ]
    seen: dict[str, str] = {}
    used_misheard: set[str] = set()
    for label, utterances in paraphrases.items():
        entry = next((e for e in phi if _pair(e) == label), None)
        kinds = [p.split(".")[-1] for p in (entry or {}).get("requires", []) if p.startswith("ic.focus.")]
        named = 0
        for u in utterances:
            if u.lower() in seen and seen[u.lower()] != label:
                out.append(f"paraphrases {label}: {u!r} is also {seen[u.lower()]}'s")
            seen[u.lower()] = label
            rest = linker.rest(u).lower()
            heard = [m for m in MISHEARD if re.search(rf"(?<![a-z]){m}(?![a-z])", rest)]
            used_misheard |= set(heard)
            for m in heard:
                rest = rest.replace(m, " ")
            words = _WORD.findall(rest)
            grams = [(w, linker.words, 0.8) for w in words if w not in ENGLISH]
            grams += [(" ".join(b), linker.names, 0.88) for b in zip(words, words[1:], strict=False)]
            for gram, names, cutoff in grams:
                if _close(gram, names, cutoff):
                    out.append(
                        f"paraphrases {label}: {gram!r} in {u!r} is neither a name nor a declared mishearing"
                    )
            linked = {k for _, k, _ in linker.links(u)}
            named += all(k in linked for k in kinds) or bool(heard)
        if kinds and named < 0.8 * len(utterances):
            out.append(f"paraphrases {label}: {named} of {len(utterances)} name the {'/'.join(kinds)}")
    for form, eid in MISHEARD.items():
        if linker.links(form) or eid not in {e for ents in catalog.entities.values() for e in ents}:
            out.append(f"misheard {form!r}: links, or {eid!r} is no entity")
        if form not in used_misheard:
            out.append(f"misheard {form!r}: used by no paraphrase")
    # --- narrations --------------------------------------------------------------------------------
    narrated = {_pair(n): n["phrases"] for n in files["narrations.json"]}
    for n in files["narrations.json"]:
        PhiNarrations.model_validate(n)
    if set(narrated) != set(pairs):
        out.append(f"narrations: pairs {sorted(set(narrated) ^ set(pairs))} differ from Φ's")
    for label, phrases in narrated.items():
        for phrase in phrases:
            if not 2 <= len(phrase.split()) <= 4 or linker.links(phrase):
                out.append(f"narrations {label}: {phrase!r} is not two to four words naming nothing")
    # --- W3 ----------------------------------------------------------------------------------------
    w3 = W3Config.model_validate(files["w3.json"])
    comps = set(catalog.entities["comp"])
    ids = [c.id for b in w3.branches.values() for c in b.pool]
    if len(set(ids)) != len(ids):
        out.append("w3: a candidate id twice")
    for branch, size in POOL_SIZES.items():
        pool = w3.branches[branch].pool if branch in w3.branches else []
        if len(pool) < size:
            out.append(f"w3 {branch}: {len(pool)} candidates, fewer than {size}")
        for c in pool:
            out += [
                f"w3 {c.id}: bad state path {p!r}"
                for p in c.requires
                if not _valid_path(LiveState, p, schema)
            ]
            out += [
                f"w3 {c.id}: unsaid_after {p!r} is not a Φ pair" for p in c.unsaid_after if p not in pairs
            ]
            if c.lineup_id is not None and c.lineup_id not in comps:
                out.append(f"w3 {c.id}: unknown comp {c.lineup_id!r}")
    suggested = {c.lineup_id for c in w3.branches["recommend"].pool} if "recommend" in w3.branches else set()
    out += [f"w3: comp {c} has no recommend candidate" for c in sorted(comps - suggested)]
    # --- templates ---------------------------------------------------------------------------------
    t = Templates.model_validate(files["templates.json"])
    if set(t.paragraphs) != set(PARAGRAPH_TYPES):
        out.append(f"templates: paragraphs {sorted(t.paragraphs)}")
    texts = [(f"answers/{p}", s) for p, v in t.answers.items() for s in v]
    texts += [(f"{p}/{k}", s) for p, g in t.paragraphs.items() for k, v in g.templates.items() for s in v]
    for where, text in texts:
        for name in _FIELD.findall(text):
            if name not in PLACEHOLDERS | NEW_PLACEHOLDERS:
                out.append(f"templates {where}: unknown placeholder {{{name}}}")
    out += [f"templates {p}/generic: a placeholder" for p, g in t.paragraphs.items() if "{" in g.generic]
    answerable = {*pairs, "/".join(OUT_OF_DOMAIN), "/".join(UNHEARD), "/".join(ASIDE), "/".join(WAITING)}
    out += [f"templates answers/{p}: not a Φ pair" for p in t.answers if p not in answerable]
    toolless = [_pair(e) for e in phi if not e["tools"]] + ["/".join(OUT_OF_DOMAIN), "/".join(UNHEARD)]
    out += [f"templates: no answer for {p}" for p in toolless if not t.answers.get(p)]
    guidance = t.paragraphs["guidance"].templates if "guidance" in t.paragraphs else {}
    for label, keys in RECIPE_KEYS.items():
        out += [f"templates: {label} needs guidance/{k}" for k in keys if k not in guidance]
        if label not in pairs:
            out.append(f"recipe keys: {label} is not a Φ pair")
    out += [
        f"recipe keys: tool-using pair {p} has none"
        for p in pairs
        if p not in RECIPE_KEYS and p not in toolless
    ]
    return out


# --- the pack as it is -------------------------------------------------------------------------------


def test_the_loader_reads_phi_paraphrases_and_narrations(pack: Pack) -> None:
    assert len(pack.phi) == 41 and len(pack.narrations) == 41
    assert {(p.intent, p.sub_intent) for p in pack.paraphrases} == {
        (e.intent, e.sub_intent) for e in pack.phi
    } | {OUT_OF_DOMAIN}
    anchored = next(e for e in pack.phi if (e.intent, e.sub_intent) == ("comp", "build_around"))
    assert anchored.anchor_excluded == "comp/build"


def test_every_rule_of_the_data_holds(pack: Pack, files: dict[str, Any]) -> None:
    assert data_problems(files, pack.catalog) == []


def test_the_pack_loads_with_its_own_templates_and_w3_pools(tmp_path: Path, files: dict[str, Any]) -> None:
    # {reason} is the counter matchup's notes (schema.json `notes`, filled by pick_best), and the W3
    # candidates' lineup_id names comps: the group kind's entities.
    own = {name: doc for name, doc in files.items() if name != STATE_FILE}
    folder = write_pack(tmp_path / "strike_team", own)
    assert [str(p) for p in pack_problems(read_pack(folder), folder)] == []
    assert "reason" in recipe_placeholders(read_pack(folder))


# --- each rule refuses a broken copy -----------------------------------------------------------------


def _entry(f: dict[str, Any], name: str, pair: str) -> dict[str, Any]:
    return next(e for e in f[name] if _pair(e) == pair)


def _equip_in_phi(f: dict[str, Any]) -> None:
    _entry(f, "phi.json", "item/equip")["tools"].append({"tool": "equip_loadout", "args": {}})


def _bad_phi_path(f: dict[str, Any]) -> None:
    _entry(f, "phi.json", "hero/info")["requires"] = ["ic.focus.heroes"]


def _arg_path(f: dict[str, Any]) -> None:
    _entry(f, "phi.json", "map/info")["tools"][0]["args"]["map"] = "$ic.match.context.hero"


def _example_unnamed(f: dict[str, Any]) -> None:
    _entry(f, "phi.json", "hero/role")["example"] = "is that one a tank"


def _toolless_recommend(f: dict[str, Any]) -> None:
    entry = _entry(f, "phi.json", "comp/dive")
    entry["tools"] = []
    f["templates.json"]["answers"]["comp/dive"] = ["Dive."]


def _few_paraphrases(f: dict[str, Any]) -> None:
    entry = _entry(f, "paraphrases.json", "hero/info")
    entry["utterances"] = entry["utterances"][:19]


def _stray_paraphrase_pair(f: dict[str, Any]) -> None:
    f["paraphrases.json"].append({"intent": "hero", "sub_intent": "dance", "utterances": ["dance"]})


def _shared_paraphrase(f: dict[str, Any]) -> None:
    _entry(f, "paraphrases.json", "comp/swap")["utterances"].append("who's winning")


def _undeclared_mishearing(f: dict[str, Any]) -> None:
    _entry(f, "paraphrases.json", "hero/counters")["utterances"].append("who counters kassimer")


def _unnamed_paraphrases(f: dict[str, Any]) -> None:
    entry = _entry(f, "paraphrases.json", "hero/info")
    entry["utterances"] = [f"what does that one do number {i}" for i in range(25)]


def _unused_mishearing(f: dict[str, Any]) -> None:
    entry = _entry(f, "paraphrases.json", "hero/unlock")
    entry["utterances"] = [u for u in entry["utterances"] if "mareva" not in u]


def _narration_names(f: dict[str, Any]) -> None:
    _entry(f, "narrations.json", "hero/counters")["phrases"] = ["Countering Quillon now."]


def _long_narration(f: dict[str, Any]) -> None:
    _entry(f, "narrations.json", "comp/build")["phrases"] = ["Okay, let me build you a team."]


def _unnarrated(f: dict[str, Any]) -> None:
    f["narrations.json"] = [n for n in f["narrations.json"] if _pair(n) != "map/info"]


def _small_pool(f: dict[str, Any]) -> None:
    f["w3.json"]["branches"]["teaching"]["pool"] = f["w3.json"]["branches"]["teaching"]["pool"][:7]


def _bad_w3_path(f: dict[str, Any]) -> None:
    f["w3.json"]["branches"]["knowledge-qa"]["pool"][0]["requires"] = ["ic.focus.creature"]


def _bad_unsaid(f: dict[str, Any]) -> None:
    f["w3.json"]["branches"]["recommend"]["pool"][-1]["unsaid_after"] = ["lineup/counter"]


def _unknown_comp(f: dict[str, Any]) -> None:
    f["w3.json"]["branches"]["recommend"]["pool"][0]["lineup_id"] = "T1"


def _placeholder_typo(f: dict[str, Any]) -> None:
    f["templates.json"]["paragraphs"]["guidance"]["templates"]["counter"][0] = "Play {heroo}."


def _no_answer(f: dict[str, Any]) -> None:
    del f["templates.json"]["answers"]["teaching/respawn"]


def _missing_recipe_key(f: dict[str, Any]) -> None:
    del f["templates.json"]["paragraphs"]["guidance"]["templates"]["quota_missing"]


def _answer_for_no_pair(f: dict[str, Any]) -> None:
    f["templates.json"]["answers"]["teaching/maps"] = ["Maps."]


BROKEN = [
    (_equip_in_phi, "phi item/equip: tool 'equip_loadout' may not be dispatched"),
    (_bad_phi_path, "phi hero/info: bad state path 'ic.focus.heroes'"),
    (_arg_path, "phi map/info: bad state path 'ic.match.context.hero'"),
    (_example_unnamed, "phi hero/role: the example names no hero"),
    (_toolless_recommend, "phi comp/dive: a recommendation with no tool"),
    (_few_paraphrases, "paraphrases hero/info: 19, fewer than 20"),
    (_stray_paraphrase_pair, "paraphrases hero/dance: not a Φ pair"),
    (_shared_paraphrase, "paraphrases match/score: \"who's winning\" is also comp/swap's"),
    (_undeclared_mishearing, "paraphrases hero/counters: 'kassimer'"),
    (_unnamed_paraphrases, "paraphrases hero/info: 0 of 25 name the hero"),
    (_unused_mishearing, "misheard 'mareva': used by no paraphrase"),
    (_narration_names, "narrations hero/counters: 'Countering Quillon now.'"),
    (_long_narration, "narrations comp/build: 'Okay, let me build you a team.'"),
    (_unnarrated, "narrations: pairs ['map/info'] differ"),
    (_small_pool, "w3 teaching: 7 candidates, fewer than 8"),
    (_bad_w3_path, "w3 fu_check_counters: bad state path 'ic.focus.creature'"),
    (_bad_unsaid, "w3 rec_keep_current: unsaid_after 'lineup/counter' is not a Φ pair"),
    (_unknown_comp, "w3 rec_wolfpack: unknown comp 'T1'"),
    (_placeholder_typo, "templates guidance/counter: unknown placeholder {heroo}"),
    (_no_answer, "templates: no answer for teaching/respawn"),
    (_missing_recipe_key, "templates: comp/quota needs guidance/quota_missing"),
    (_answer_for_no_pair, "templates answers/teaching/maps: not a Φ pair"),
]


@pytest.mark.parametrize(("change", "message"), BROKEN, ids=[c.__name__.strip("_") for c, _ in BROKEN])
def test_each_rule_refuses_a_broken_copy(
    pack: Pack, files: dict[str, Any], change: Any, message: str
) -> None:
    broken = copy.deepcopy(files)
    change(broken)
    found = data_problems(broken, pack.catalog)
    assert any(p.startswith(message) for p in found), found
