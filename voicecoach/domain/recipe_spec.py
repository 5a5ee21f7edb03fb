"""What each generic answer recipe takes and says: the declarations a Φ entry's `answer` is checked
against when the pack loads (`voicecoach.talker.recipes` implements them; it asserts the two agree).

A Φ entry of a pack may carry `answer`, an ordered list of steps; the first step that yields a
line answers the turn:

    {"recipe": "pick_best", "key": "counter", "none_key": "counter_none",
     "ranked": "hero_counters.ranked[*].id", "foes": "$ic.focus.hero", "matchup": "counters"}

`key` / `none_key` (and a recipe's other template-key inputs) name templates of the step's
`paragraph` (default "guidance"). Every other field is one of the recipe's inputs:

- a *select* input is a selector, or a list of selectors tried in order (the first that selects
  something): ``tool.field[*].field`` into the result of one of the entry's tools (checked against
  the tool's result shape), ``$ic.match.opponent_lineup`` into the live state (a Φ state path);
- a *literal* input is a value written in the step (a matchup's name, words, a team size);
- a *key* input is another template key of the step's paragraph;
- *values* (any recipe) maps placeholder names to a selector, or a list of them tried in order.

Placeholders: a recipe fills the names it declares. `@unit`, `@units`, `@option`, `@options`,
`@group`, `@context` stand for the pack's kind of that role (and its plural): strike_team's
`@unit` is `{hero}`, `@units` `{heroes}`. A step's templates may use only what its recipe fills,
and the pack's templates may use pet's PLACEHOLDERS plus every recipe's (for that pack's kinds).

The safety contract the recipes keep (voicecoach.talker.recipes): a name in a *pick* placeholder is a unit
the player may field (owned, not kept out, not in doubt on a late snapshot); an option said to be
usable passes `option_usable`; an opponent fills only `{foe}`; `picks` says the recipe's lines
recommend the units they cover (the classic PICK_KEYS), `facts` that they state catalog facts,
true whatever the player owns (the classic CATALOG_KEYS).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

InputType = Literal["select", "literal", "key", "values"]
ROLE_TOKENS = ("@unit", "@units", "@option", "@options", "@group", "@context")


@dataclass(frozen=True)
class RecipeSpec:
    name: str
    inputs: dict[str, InputType]
    required: tuple[str, ...]
    placeholders: tuple[str, ...]  # names and role tokens its lines fill
    picks: bool = False
    facts: bool = False
    # The entity fields of a `kind` literal input fill placeholders too (the `fact` recipe).
    entity_fields: bool = False
    doc: str = field(default="", compare=False)


def _spec(name: str, inputs: dict[str, InputType], required: tuple[str, ...], placeholders: tuple[str, ...],
          **kw: object) -> RecipeSpec:  # fmt: skip
    # Every recipe takes `values` too: more placeholders filled from selectors ("You're {score_player}
    # to {score_opponent}; swap to {hero}"), the recipe's own values first.
    return RecipeSpec(name, {**inputs, "values": "values"}, required, placeholders, **kw)  # type: ignore[arg-type]


RECIPES: dict[str, RecipeSpec] = {
    s.name: s
    for s in (
        _spec("pick_best", {"ranked": "select", "foes": "select", "matchup": "literal", "skip": "select",
                            "fielded_key": "key"},
              ("ranked", "foes", "matchup"), ("@unit", "foe", "status", "reason"), picks=True,
              doc="the best usable unit against the foes by a matchup, not one of `skip`, with the "
                  "matchup's reason (none_key: the safest one; fielded_key: one already on the "
                  "player's side)"),
        _spec("pick_pair", {"team": "select", "roster": "select", "style": "literal", "score": "select",
                            "size": "literal", "pair_key": "key", "lead_key": "key", "anchor": "select",
                            "foes": "select", "matchup": "literal", "available": "select",
                            "short_key": "key"},
              ("team",), ("@units", "@unit", "leader", "style", "score", "count", "foe", "status", "reason",
                          "role", "short"),
              picks=True,
              doc="a team of usable units (filled up from `roster` in the composition quota) in quota "
                  "order, or a rotating pair / lead of it; around an `anchor`; one with a counter to "
                  "`foes`; short_key when only `available` units fit; when the usable units cannot keep "
                  "the quota, constraint_account's quota_short after it ({role}: the first role short, "
                  "{short}: all of them)"),
        _spec("ownership", {"unit": "select", "missing_only": "literal"}, ("unit",),
              ("@unit", "level", "tier", "unlock", "player_level"),
              doc="does the player have the unit (key) or not (none_key, with its gate); "
                  "`missing_only`: only the not (a fallback after a recipe about an owned unit)"),
        _spec("option_status", {"option": "select", "unit": "select", "locked_key": "key",
                                "gated_key": "key", "unowned_key": "key"},
              ("option",), ("@option", "@unit", "unlock", "blocker", "level", "player_level", "slot"),
              doc="usable (key), locked on an owned unit with the gates it still misses (locked_key; "
                  "gated_key: only account-wide ones), its unit not owned"),
        _spec("option_best", {"unit": "select", "swap_key": "key"}, ("unit",),
              ("@unit", "@options", "@option", "slot"), picks=True,
              doc="an owned unit's options to run, one per slot, all usable (swap_key: one not equipped)"),
        _spec("equipped", {"unit": "select", "slot": "select", "slot_key": "key"}, ("unit",),
              ("@unit", "@options", "@option", "slot"),
              doc="what the owned unit has equipped (slot_key: in the slot asked about)"),
        _spec("list_owned", {"units": "select"}, (), ("count", "@units"),
              doc="a few of the player's units and how many (none_key: none)"),
        _spec("groups_fieldable", {"groups": "select", "missing_key": "key"}, (),
              ("@group", "missing", "count"), picks=True,
              doc="a group the player can field (key), else the closest and what it lacks (none_key)"),
        _spec("rating", {"score": "select", "breakdown": "select", "max": "select", "units": "select",
                         "context": "select", "words": "literal"},
              ("score",), ("score", "weakest", "@units", "@context"),
              doc="a team's score and its weakest component"),
        _spec("matchup_status", {"unit": "select", "against": "select", "matchup": "literal"},
              ("unit", "against", "matchup"), ("@unit", "foe", "@context", "status"), facts=True,
              doc="how a unit fares against a foe or on a context, in the matchup's words"),
        _spec("fact", {"entity": "select", "kind": "literal", "values": "values"}, (),
              ("role_summary",), facts=True, entity_fields=True,
              doc="a template filled from selectors and an entity's catalog fields"),
        _spec("quota", {"missing": "select"}, ("missing",), ("role", "count"),
              doc="the role the team lacks by the composition quota (key), or none (none_key)"),
        _spec("pick_fit", {"ranked": "select", "context": "select", "matchup": "literal", "count": "literal",
                           "skip": "select"},
              ("context", "matchup"), ("@units", "@unit", "@context", "status"), picks=True,
              doc="the usable units a context favours by a matchup, best first (none_key: none)"),
        _spec("pick_swap", {"swaps": "select", "foes": "select", "matchup": "literal", "context": "select",
                            "fit": "literal", "context_key": "key", "plain_key": "key"},
              ("swaps",), ("out", "@unit", "foe", "status", "reason", "@context", "score"), picks=True,
              doc="the best single swap of the team, with why: a counter (key), the context's fit "
                  "(context_key), the rating (plain_key); none_key: keep the team"),
        _spec("threat", {"side": "select", "against": "select", "matchup": "literal", "context": "select",
                         "fit": "literal", "context_key": "key"},
              ("side", "against", "matchup"), ("foe", "@unit", "status", "reason", "@context", "count"),
              doc="the opponent unit that beats most of the player's side (key), else the one the "
                  "context favours (context_key), else none_key"),
        _spec("read_side", {"side": "select", "ranked": "select", "matchup": "literal",
                            "attribute": "literal", "plain_key": "key", "fielded_key": "key"},
              ("side", "matchup"), ("style", "@group", "@unit", "foe", "status", "reason"), picks=True,
              doc="what the opponent side plays ({style}: its most common value of `attribute`), the "
                  "group it is closest to (key; plain_key: none) and the player's best answer (fielded_key: "
                  "one already on the player's side)"),
        _spec("fill_role", {"missing": "select", "ranked": "select", "skip": "select"}, (), ("@unit", "role"),
              picks=True,
              doc="a usable unit for the quota role the team lacks or the player names (none_key: none)"),
        _spec("option_next", {"units": "select", "gated_key": "key", "closest": "literal"}, ("units",),
              ("@unit", "@option", "level", "unlock", "blocker", "levels", "player_level"),
              doc="an owned unit's next option and its gates (gated_key: held by an account gate; "
                  "none_key: all unlocked); `closest`: the unit nearest its next one"),
        _spec("next_unit", {}, (), ("@unit", "unlock", "player_level"),
              doc="the unit the player gets next, with its gates (none_key: they have every one)"),
        _spec("option_equip", {"option": "select", "unit": "select", "tool": "literal", "done_key": "key",
                               "failed_key": "key", "locked_key": "key", "wrong_unit_key": "key",
                               "gated_key": "key", "unowned_key": "key"},
              ("option", "tool"), ("@option", "@unit", "slot", "unlock", "blocker", "level", "player_level"),
              doc="equipping an option through the side-effect `tool`: scheduled (key), done, failed; "
                  "not called but possible (none_key); locked, another unit's, its unit not owned"),
        _spec("group_for_unit", {"unit": "select", "groups": "select", "missing_key": "key"}, ("unit",),
              ("@unit", "@group", "missing"), picks=True,
              doc="a group with the unit the player can field (key), else the closest (missing_key)"),
    )
}  # fmt: skip


def role_names(kinds: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Role token -> placeholder name, from {role: (kind, plural)}."""
    out: dict[str, str] = {}
    for role, (kind, plural) in kinds.items():
        out[f"@{role}"] = kind
        if role in ("unit", "option"):
            out[f"@{role}s"] = plural
    return out


def placeholders_of(spec: RecipeSpec, roles: dict[str, str]) -> set[str]:
    """The placeholder names a recipe fills for a pack (`roles` from `role_names`)."""
    return {roles.get(p, p) for p in spec.placeholders if not p.startswith("@") or p in roles}
