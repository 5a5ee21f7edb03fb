"""What each generic answer recipe takes and says: the declarations a Φ entry's `answer` is checked
against when the pack loads (`voicecoach.talker.recipes` implements them; it asserts the two agree).

A Φ entry of a pack may carry `answer`, an ordered list of steps; the first step that yields a
line answers the turn:

    {"recipe": "pick_best", "key": "counter", "none_key": "counter_none",
     "ranked": "hero_counters.ranked[*].id", "foes": "$ic.focus.hero", "matchup": "counters"}

`key` / `none_key` (and a recipe's other template-key inputs) name templates of the step's
`paragraph` (default "guidance"). `also: true`: when the step yields, the later steps are tried
too and their lines follow, up to one without `also` that yields; `follow: true`: the step runs
only after such a step ("No, you don't own X yet." then "Your strongest pick for now is Y.");
`alone: true`: only when no earlier step yielded.
Every other field is one of the recipe's inputs:

- a *select* input is a selector, or a list of selectors tried in order (the first that selects
  something): ``tool.field[*].field`` into the result of one of the entry's tools (checked against
  the tool's result shape), ``$ic.match.opponent_lineup`` into the live state (a Φ state path),
  ``turn:opponents`` / ``turn:groups`` / ``turn:why`` / ``turn:avoid`` what the turn knows (the
  opponents the player named, the groups the utterance names, the previous reply's picks on a
  "why?", what the previous reply put forward);
- a *literal* input is a value written in the step (a matchup's name, words, a team size);
- a *key* input is another template key of the step's paragraph;
- *values* (any recipe) maps placeholder names to a selector, or a list of them tried in order.

Placeholders: a recipe fills the names it declares. `@unit`, `@units`, `@option`, `@options`,
`@group`, `@context`, `@types` stand for the pack's kind of that role (and its plural; a type kind
its plural only): strike_team's `@unit` is `{hero}`, `@units` `{heroes}`; `other_@group` is
`{other_comp}`. A recipe that says a counter by an attribute matchup also fills the attribute's
value of the unit and of the foe (`{element}`, `{foe_element}`). A step's templates may use only
what its recipe fills, and the pack's templates may use PLACEHOLDERS plus every recipe's (for that
pack's kinds).

The safety contract the recipes keep (voicecoach.talker.recipes): a name in a *pick* placeholder is a unit
the player may field (owned, not kept out, not in doubt on a late snapshot); an option said to be
usable passes `option_usable`; an opponent fills only `{foe}`; `picks` says the recipe's lines
recommend the units they cover, `facts` that they state catalog facts, true whatever the player
owns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

InputType = Literal["select", "literal", "key", "values"]
ROLE_TOKENS = ("@unit", "@units", "@option", "@options", "@group", "@context", "@types")

# Selectors of what the turn itself knows, beside the state and the tool results: the opponent
# units the player named (W2's counter slots: "who beats Voltail?"), the groups the utterance names,
# on a "why?" the units the previous reply put forward, what it put forward on any turn, the
# types (pet: elements) the utterance names, and the units this reply's earlier lines are about
# (the threat just named, so the counter that follows is to it).
TURN_PREFIX = "turn:"
TURN_SELECTORS = ("turn:opponents", "turn:groups", "turn:why", "turn:avoid", "turn:types", "turn:said")


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
    # The group kind's attributes fill placeholders, as they are and with "other_" (two groups).
    group_fields: bool = False
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
                            "fielded_key": "key", "threat_key": "key", "only_key": "key",
                            "edge_key": "key", "tier_bonus": "literal", "neither_key": "key",
                            "even_key": "key", "beats_key": "key", "safe_key": "key", "idle_key": "key",
                            "fielded_first": "literal", "also_key": "key", "only_these_key": "key",
                            "low_key": "key", "locked_key": "key", "claim_key": "key",
                            "claim_wrong_key": "key", "kind_only_key": "key"},
              ("foes", "matchup"),
              ("@unit", "@units", "foe", "status", "reason", "other", "offered", "level", "first_tier",
               "unlock", "kind"),
              picks=True,
              doc="the best usable unit against the foes by a matchup, not one of `skip` (the ranking's "
                  "order, then the roster's strongest; `fielded_first`: the player's side before the "
                  "bench; also_key: another unit on the player's side that beats the foe too; "
                  "only_these_key: asked for another when every one that beats the foe was said; "
                  "low_key: the pick is under half the team's median level, {level} and {first_tier} when "
                  "at its first; "
                  "locked_key: none beats the foe and none is safer than another, the unit that would "
                  "beat it once unlocked, {unlock} its gate), "
                  "with the "
                  "matchup's reason (none_key: the safest "
                  "one; fielded_key: one already on the player's side; threat_key: the units that beat the "
                  "player's own unit, named as theirs: 'what beats my Dumaka'; only_key: asked for another, "
                  "the last pick is still the only one that beats them; {other}: the best of the rest; "
                  "kind_only_key: a kind asked for ('which support', 'not a tank') and none of it beats "
                  "them, the one that does and the best of that kind ({other}; {kind}: 'If you go "
                  "support', 'Without tank picks'); the "
                  "player's own unit named against the foe is kept when it wins, else edge_key says why "
                  "the foe wins, or even_key that neither wins, before the pick; beats_key: asked what the "
                  "one named beats ('who does Tamsin counter'), the units it counters, theirs first "
                  "({status}: the matchup's words and whom, in one phrase); of units the player "
                  "offers, \"A or B\", the pick is one "
                  "of them: neither_key when none beats a foe, {offered} and the safest of them)"),
        _spec("pick_pair", {"team": "select", "roster": "select", "style": "literal", "score": "select",
                            "size": "literal", "pair_key": "key", "lead_key": "key", "anchor": "select",
                            "foes": "select", "matchup": "literal", "available": "select",
                            "short_key": "key", "score_key": "key", "spread": "literal",
                            "tier_bonus": "literal", "low_key": "key", "edge_foes": "select",
                            "edge_pattern": "literal", "edges_key": "key"},
              ("team",), ("@units", "@unit", "leader", "style", "score", "count", "foe", "status", "reason",
                          "role", "short", "level", "first_tier", "edges"),
              picks=True,
              doc="low_key (as pick_best's) said of a member far behind on levels, instead of score_key; "
                  "a team of usable units (filled up from `roster` in the composition quota) in quota "
                  "order, or a rotating pair / lead of it; around an `anchor`; one with a counter to "
                  "`foes`; short_key when only `available` units fit; when the usable units cannot keep "
                  "the quota, constraint_account's quota_short after it ({role}: the first role short, "
                  "{short}: all of them); score_key: the suggestion's {score} after it, said as it came; "
                  "edges_key instead, when members beat some of `edge_foes` by the `matchup`: {edges}, "
                  "each such member as edge_pattern (\"{unit} hits {foe}\") says it; "
                  "`spread`: filled with units of a value of that attribute the team lacks"),
        _spec("ownership",
              {"unit": "select", "missing_only": "literal", "all_key": "key", "aside_key": "key",
               "skip_theirs": "literal", "level_words": "literal", "level_key": "key",
               "level_concern_key": "key", "level_behind_key": "key", "level_next_key": "key"}, ("unit",),
              ("@unit", "@units", "level", "tier", "unlock", "player_level", "team_level", "@option"),
              doc="does the player have the unit (key) or not (none_key, with its gate); "
                  "`missing_only`: only the not (a fallback after a recipe about an owned unit); "
                  "all_key: three or more units asked about at once, the ones they have ({@units}); "
                  "aside_key: after an answer, to a question that did not ask whether they have it "
                  "(their level, without a 'yes'; none: nothing); `skip_theirs`: nothing about a unit "
                  "only the opponent fields unless the player asks whether they have it; "
                  "level_concern_key: its level put as a worry (\"only level 4, is that a problem\"), "
                  "with the team's level ({team_level}); level_behind_key instead when it is under half "
                  "the team's level; then level_next_key: the next option it still lacks "
                  "({@option}, {unlock})"),
        _spec("option_status", {"option": "select", "unit": "select", "locked_key": "key",
                                "gated_key": "key", "unowned_key": "key", "unlearnable_key": "key",
                                "how_key": "key", "unowned_gated_key": "key", "levels_key": "key",
                                "gate_key": "key", "theirs_key": "key", "equipped_key": "key",
                                "unequipped_key": "key"},
              ("option",),
              ("@option", "@unit", "unlock", "blocker", "level", "player_level", "slot", "levels", "other"),
              doc="levels_key: locked by the unit's own level alone, with {levels} to go; usable (key; "
                  "equipped_key: the unit runs it now; unequipped_key: asked whether it runs it, and "
                  "it runs {other} in that slot; "
                  "gate_key: asked at what level or stage it unlocks, that gate {unlock} and that it is "
                  "met), "
                  "locked on an owned unit with the gates it still misses (locked_key; "
                  "how_key: the player asks how; gated_key: only account-wide ones), its unit not owned "
                  "(unowned_key; unowned_gated_key: with the gates it has on top; theirs_key: a unit of the "
                  "opponent's side has it, and not the player's), no unit named can have "
                  "it (unlearnable_key)"),
        _spec("option_best",
              {"unit": "select", "swap_key": "key", "strongest": "literal", "unowned_key": "key",
               "foe_key": "key", "kept_key": "key", "against_key": "key", "every": "literal"},
              ("unit",), ("@unit", "@options", "@option", "slot", "foe", "status"), picks=True,
              doc="an owned unit's options to run, one per slot, all usable (swap_key: one not equipped; "
                  "kept_key: every one already equipped); "
                  "`strongest`: its one strongest usable option ({option}; foe_key: against the "
                  "opponent's unit named, by the attribute matchup); unowned_key: a unit the "
                  "player does not have, its catalog's last option per slot; `every`: every "
                  "usable option, not one per slot (what the unit has unlocked)"),
        _spec("equipped", {"unit": "select", "slot": "select", "slot_key": "key", "team": "select",
                           "team_key": "key", "unused_key": "key", "unused_none_key": "key",
                           "which_key": "key"},
              (), ("@unit", "@options", "@option", "slot", "loadouts"),
              doc="what the owned unit has equipped (slot_key: in the slot asked about); no unit named "
                  "and the player asking about all of `team` (their side): each one's in one sentence "
                  "(team_key, {loadouts}), or each one's unlocked options not equipped (unused_key; "
                  "unused_none_key: none); else which_key asks which unit; a unit named and asked "
                  "what it has unlocked and does not use: its unused options"),
        _spec("list_owned", {"units": "select", "none_only": "literal", "by": "literal", "by_key": "key"}, (),
              ("count", "@units", "groups"),
              doc="a few of the player's units and how many (none_key: none; `none_only`: only that); "
                  "by_key: all of them grouped by the attribute `by` ({groups}: \"tank: A and B; ...\")"),
        _spec("groups_fieldable",
              {"groups": "select", "missing_key": "key", "missing_first": "literal", "named_key": "key"}, (),
              ("@group", "missing", "count"), picks=True,
              doc="a group the player can field (key), else the closest and what it lacks (none_key); "
                  "`missing_first`: the closest incomplete one first (missing_key, {count} incomplete)"),
        _spec("rating", {"score": "select", "breakdown": "select", "max": "select", "units": "select",
                         "context": "select", "words": "literal", "maxima": "literal", "missing": "select",
                         "missing_key": "key", "lead_key": "key", "opponent": "select", "edge": "literal",
                         "edge_key": "key"},
              ("score",), ("score", "weakest", "@units", "@unit", "@context", "missing", "status"),
              doc="a team's score and its weakest component (by `max`, else the `maxima` written in the "
                  "step); missing_key first: the units of it the player lacks; lead_key: the last reply "
                  "named the team, so only its lead ({unit}); against an `opponent`, edge_key with who has "
                  "the edge ({status}: `edge`'s words for its component above `high` / below `low`)"),
        _spec("members", {"units": "select", "absent_key": "key", "yes_key": "key", "no_key": "key",
                          "kind_yes_key": "key", "kind_no_key": "key", "bench_key": "key",
                          "theirs_yes_key": "key", "theirs_no_key": "key"},
              ("units",), ("@units", "missing", "other"), facts=True,
              doc="only when the player asks who is in their team: its units (key; yes_key: every unit "
                  "they named is in it, no_key: none is), and the units they named that are not in it "
                  "(absent_key, {missing}); a kind asked of it (\"any healers on my team\"): the members "
                  "of that kind (kind_yes_key), or none (kind_no_key, the team) and the player's strongest "
                  "of that kind on the bench (bench_key, {other}); asked of their side (\"do they have a "
                  "tank\"): theirs of that kind (theirs_yes_key) or their side (theirs_no_key)"),
        _spec("team_read", {"units": "select", "foes": "select", "matchup": "literal", "pair": "literal",
                            "verdicts": "literal", "keep_verdicts": "literal", "open_key": "key",
                            "exposed_key": "key", "trouble_only": "literal"},
              ("units", "foes", "matchup"), ("pairs", "verdict", "foes", "foe", "@units"), facts=True,
              doc="a team against the opponent's side by a unit x unit matchup: for each foe the member "
                  "that beats it ({pairs}, each by the `pair` pattern with {unit} and {foe}; {verdict}: "
                  "`verdicts`' word for good / mixed / poor; `keep_verdicts`' when asked whether to keep "
                  "the team or change it), open_key: the foes none beats ({foes}), "
                  "exposed_key: the foe that beats the most members ({foe}, {units}); `trouble_only`: "
                  "those two alone, exposed first (\"why do we keep losing\")"),
        _spec("compare", {"foes": "select", "matchup": "literal", "context": "select", "fit": "literal",
                          "beats": "literal", "beaten": "literal", "fit_pattern": "literal",
                          "even_key": "key", "caveat_key": "key"},
              ("foes", "matchup"), ("@unit", "other", "reasons", "foe", "level", "other_level"), picks=True,
              doc="two of the player's units weighed for the match (\"Tamsin or Stellan?\", \"is this one "
                  "better than that one\"): {unit} the better against the foes by the matchup (and on the "
                  "context by `fit`), {other} the other, {reasons} written by the `beats` ({unit} {foe}), "
                  "`beaten` ({unit} {foe}) and `fit_pattern` ({unit} {status} {context}) patterns; "
                  "caveat_key: the foes that beat the better one too ({foe}); even_key: even on the "
                  "matchups, the higher level first ({level}, {other_level}); nothing unless exactly "
                  "two owned units are weighed and no foe is named"),
        _spec("context_for_team", {"units": "select", "matchup": "literal", "unit_key": "key"},
              ("units", "matchup"), ("@context", "other_@context", "@units"),
              doc="asked which context suits the team (\"which map would my team be best on\"): the "
                  "context entity the team's members fit best in sum by a unit x context "
                  "matchup ({context}), the members it favours ({units}) and the worst one "
                  "({other_context}); of the units or the group the player names, if any (unit_key: "
                  "one unit)"),
        _spec("catalog_top", {"unowned_key": "key"}, (), ("@unit", "value", "what"),
              doc="asked of the whole game (\"the strongest unit in the whole game\"): the unit kind's top "
                  "by its first numeric attribute in the catalog (unowned_key: one the player lacks); "
                  "of the kind the question says (\"the best tank\", \"the strongest legendary\"), among "
                  "those ({what}: that kind, else the unit noun)"),
        _spec("sides_on_attribute", {"attribute": "literal", "ours_key": "key", "even_key": "key"},
              ("attribute",), ("foes", "top", "@units", "mine"),
              doc="asked how the sides compare on an ordered unit attribute it names (\"are we "
                  "outranged\"): theirs at their top value ({foes}, {top}) against the player's top "
                  "({units}, {mine}); ours_key / even_key the other outcomes"),
        _spec("option_target", {"option": "select", "matchup": "literal", "ally_key": "key",
                                "ally_none_key": "key", "none_key": "key", "offered_key": "key",
                                "instead_key": "key", "choice_key": "key", "choice_hits_key": "key"},
              ("option", "matchup"), ("@option", "@unit", "foe"),
              doc="asked on whom to use an option: one that only helps its own side on the player's "
                  "fielded unit their side beats most (ally_key; ally_none_key: none), any other on the "
                  "unit of theirs that beats most of the player's side (key; none_key: none does); of "
                  "theirs offered as targets, yes to the one that threatens most (offered_key), or their "
                  "bigger threat instead (instead_key); of two or more offered, the one it hits "
                  "hardest (choice_hits_key), else the one that threatens most (choice_key)"),
        _spec("unit_verdict", {"unit": "select", "bad_key": "key", "mixed_key": "key", "even_key": "key",
                               "good_no_key": "key", "bad_yes_key": "key", "bad_foe_key": "key",
                               "lean_good_key": "key", "lean_good_no_key": "key", "even_bad_key": "key",
                               "unowned_good_key": "key", "unowned_bad_key": "key",
                               "unowned_bad_foe_key": "key", "unowned_mixed_key": "key",
                               "unowned_lean_good_key": "key", "unowned_even_key": "key",
                               "unowned_covered_key": "key",
                               "unowned_only": "literal"},
              ("unit",), ("@unit", "foe", "other"),
              doc="asked for a verdict on the player's own unit (\"is Yarrow any good\"): yes (key), no "
                  "(bad_key), mixed or neither, from every unit matchup in play and its level; asked the "
                  "other way round (\"is Renzo bad here\", \"bench him?\"): no (good_no_key), yes "
                  "(bad_yes_key); bad_foe_key instead of bad_key when one of theirs beats it ({foe}); more "
                  "for than against it: lean_good_key (lean_good_no_key asked the other way), nothing "
                  "either way asked as bad: even_bad_key. Of a unit the player does not have, for this "
                  "match: the unowned_* keys, unowned_covered_key when one they have ({other}) already "
                  "beats the foe it would; unowned_only: only of such a unit"),
        _spec("team_on_context", {"units": "select", "context": "select", "matchup": "literal",
                                  "good_key": "key", "bad_key": "key"},
              ("units", "context", "matchup"), ("@context", "good", "bad", "others"),
              doc="asked how the team does on the context in play (\"is this map good for us\"): the "
                  "members it favours ({good}) and hurts ({bad}) by a unit x context matchup; only "
                  "hurt: the usable units it favours instead ({others})"),
        _spec("kind_on_context", {"context": "select", "matchup": "literal", "good_key": "key",
                                  "bad_key": "key", "even_key": "key", "good_no_key": "key",
                                  "bad_yes_key": "key", "choice_key": "key"},
              ("context", "matchup"), ("@context", "kind", "good", "bad", "others", "description", "other"),
              doc="asked how a kind of unit does on the context in play (\"are shotguns any good on this "
                  "map\", \"is it good for tanks\"): the units of the kind it favours ({good}) and hurts "
                  "({bad}) by a unit x context matchup, the context's {description} and the units it "
                  "favours instead ({others}); good_no_key / bad_yes_key: asked whether it is bad for "
                  "them; nothing when no kind is named"),
        _spec("matchup_status", {"unit": "select", "against": "select", "matchup": "literal",
                                 "hits_key": "key", "types": "select", "type_key": "key", "taken_key": "key",
                                 "safe_key": "key", "even_all_key": "key", "low_key": "key",
                                 "not_type_key": "key", "edge_key": "key", "foe_edge_key": "key",
                                 "even_key": "key", "strength_key": "key", "instead_key": "key",
                                 "why_key": "key", "even_both_key": "key"},
              ("unit", "against", "matchup"),
              ("@unit", "foe", "@context", "status", "@types", "level", "first_tier", "answer", "rank",
               "count", "other", "reason", "foes", "epithet", "description"),
              facts=True,
              doc="even_both_key: even against all of several, none hitting it harder, in one sentence; "
                  "how a unit fares against a foe or on a context, in the matchup's words (asked why of a "
                  "context: why_key, with the unit's epithet and the context's description; against several, "
                  "the one it fares best against); hits_key: no one to match it against, the values of an "
                  "attribute matchup's type it beats; type_key: a type named (`types`) against one of "
                  "theirs: \"does wind do anything against that one\"; taken_key: one of theirs attacking "
                  "one of the player's (\"could their cat one-shot my fox\"), {foe} the attacker, and "
                  "for the player's unit what the foe deals back; safe_key: against several, none of "
                  "them hits the player's unit harder than normal; even_all_key: against several, it "
                  "fares better against none of them (its best is the even one); low_key: it wins the "
                  "matchup but is under half the team's median level (as pick_best's); not_type_key: "
                  "the player says their unit keeps losing to the one foe it beats or is even with; "
                  "instead_key: taken_key's foe hits it hard and the player asks for help (\"help\", "
                  "\"what do I do\"): their usable unit that beats that foe, to bring instead ({other})"),
        _spec("fact", {"entity": "select", "kind": "literal", "values": "values", "key_by": "literal",
                       "usable_only": "literal", "level_words": "literal", "asks": "literal"}, (),
              ("role_summary",), facts=True, entity_fields=True,
              doc="a template filled from selectors and an entity's catalog fields; `key_by`: the key "
                  "<key>_<the entity's value of that attribute>; `usable_only`: only for an option the "
                  "player can use"),
        _spec("quota", {"missing": "select", "rule_key": "key", "rule_yes_key": "key"}, ("missing",),
              ("role", "count", "rule"),
              doc="the role the team lacks by the composition quota (key), or none (none_key); asked "
                  "a count of a role (\"can I run two tanks\"), the quota itself ({rule}): rule_yes_key when "
                  "the count is the quota's, rule_key otherwise"),
        _spec("pick_fit", {"ranked": "select", "context": "select", "matchup": "literal", "count": "literal",
                           "skip": "select", "worst_key": "key", "neither_key": "key", "why_key": "key"},
              ("context", "matchup"),
              ("@units", "@unit", "@context", "status", "offered", "epithet", "description"), picks=True,
              doc="the usable units a context favours by a matchup, best first (none_key: none); "
                  "worst_key: asked who is bad there, the player's units it works against; of units the "
                  "player offers (\"A or B here?\"), the one it favours most, or neither_key: none of "
                  "them ({offered}), the ones it does favour; why_key: asked why one it favours, the "
                  "unit's {epithet} and the context's {description}"),
        _spec("pick_swap", {"swaps": "select", "foes": "select", "matchup": "literal", "context": "select",
                            "fit": "literal", "context_key": "key", "plain_key": "key", "kept_key": "key",
                            "no_gain_key": "key", "worse_key": "key", "pair_key": "key",
                            "no_gain_counter_key": "key", "locked_key": "key", "reason_keys": "literal",
                            "cost_key": "key", "kept_why_key": "key", "kept_risk_key": "key",
                            "low_key": "key", "out_low_key": "key", "benched_key": "key", "only_key": "key"},
              ("swaps",),
              ("out", "@unit", "foe", "foes", "status", "reason", "@context", "score", "level", "first_tier",
               "@units"),
              picks=True,
              doc="the best single swap of the team, with why: a counter (key), the context's fit "
                  "(context_key), the score component that gained most (`reason_keys`: component -> key; "
                  "out_low_key instead when the unit going out is far behind on levels, its {level}), "
                  "else plain_key; then cost_key: the foes only the unit going out beat ({foes}); none_key: "
                  "keep the team; kept_key: the unit "
                  "the player named to swap has no better replacement ({out}; kept_why_key: with the foe "
                  "it beats, then kept_risk_key: the foe that beats it); no_gain_key: the spare unit "
                  "the player named to bring in raises the rating in no slot; worse_key: kept, because one "
                  "of the foes beats the unit they named to bring in ({out} kept, @unit the foe, {foe} the "
                  "unit), pair_key: the swap they named raises nothing (then the one of {out} that does); "
                  "no_gain_counter_key: the spare unit raises nothing but counters a foe ({foe}); "
                  "locked_key: the unit they would swap to is not theirs yet, said before the swap they "
                  "can make; only_key: asked for another swap (or one without the unit kept out) when "
                  "no other swap helps"),
        _spec("threat", {"side": "select", "against": "select", "matchup": "literal", "context": "select",
                         "fit": "literal", "context_key": "key", "named_key": "key", "named_none_key": "key",
                         "target_key": "key", "prey_key": "key", "mine_none_key": "key", "away_key": "key"},
              ("side", "against", "matchup"),
              ("foe", "@unit", "status", "reason", "@context", "count", "other"),
              doc="the opponent unit that beats most of the player's side (key), else the one the "
                  "context favours (context_key), else none_key; one of theirs the player named: what it "
                  "beats (named_key), or that it beats none of the player's (named_none_key); asked whom "
                  "to go after (target_key): that one, as the target; or, when it beats none of the "
                  "player's, the one the player's side beats (prey_key); one of the player's named "
                  "that none of theirs beats (mine_none_key, @unit); asked whom that one should go after "
                  "when their {foe} beats it (away_key): {other}, one of theirs that does not"),
        _spec("weak_side", {"side": "select", "matchup": "literal"}, ("side", "matchup"), ("pairs",),
              doc="asked what the opponent side is weak to (no unit of it named): for each of its first "
                  "three units, the player's usable unit that beats it best ({pairs}: 'A for X, B for "
                  "Y and C for Z'); nothing on any other question or when none of theirs is beaten"),
        _spec("read_side", {"side": "select", "ranked": "select", "matchup": "literal",
                            "attribute": "literal", "plain_key": "key", "fielded_key": "key"},
              ("side", "matchup"), ("style", "@group", "@unit", "foe", "status", "reason"), picks=True,
              doc="what the opponent side plays ({style}: its most common value of `attribute`), the "
                  "group it is closest to (key; plain_key: none) and the player's best answer (fielded_key: "
                  "one already on the player's side)"),
        _spec("side_style", {"side": "select", "asks": "literal", "group_key": "key"}, ("side",),
              ("style", "summary", "@units", "@group"), facts=True,
              doc="only when `asks` (a pattern) matches the utterance: the play style whose roles the "
                  "opponent side's units fill most ({style}, its {summary}, the {@units} that fill "
                  "them), and the group it shares two or more members with (group_key)"),
        _spec("fill_role", {"missing": "select", "ranked": "select", "skip": "select"}, (), ("@unit", "role"),
              picks=True,
              doc="a usable unit for the quota role the team lacks or the player names (none_key: none)"),
        _spec("option_next", {"units": "select", "gated_key": "key", "closest": "literal"}, ("units",),
              ("@unit", "@option", "level", "unlock", "blocker", "levels", "player_level"),
              doc="an owned unit's next option and its gates (gated_key: held by an account gate; "
                  "none_key: all unlocked); `closest`: the unit nearest its next one"),
        _spec("next_unit", {"at_level_key": "key", "at_level_none_key": "key"}, (),
              ("@unit", "unlock", "player_level", "level", "unlocks"),
              doc="the unit the player gets next, with its gates (none_key: they have every one); asked "
                  "of a level (\"what do I unlock at level 12\"): the units and the options of their own "
                  "units gated on that player level ({unlocks}; at_level_none_key: none, then the next)"),
        _spec("option_equip", {"option": "select", "unit": "select", "tool": "literal", "done_key": "key",
                               "failed_key": "key", "locked_key": "key", "wrong_unit_key": "key",
                               "gated_key": "key", "unowned_key": "key", "equipped_key": "key"},
              ("option", "tool"), ("@option", "@unit", "slot", "unlock", "blocker", "level", "player_level"),
              doc="equipping an option through the side-effect `tool`: already in its slot (equipped_key), "
                  "scheduled (key), done, failed; "
                  "not called but possible (none_key); locked, another unit's, its unit not owned"),
        _spec("group_for_unit", {"unit": "select", "groups": "select", "missing_key": "key",
                                 "missing_only": "literal"}, ("unit",),
              ("@unit", "@group", "missing"), picks=True,
              doc="a group with the unit the player can field (key), else the closest (missing_key); "
                  "`missing_only`: only the closest, for a unit the player cannot field"),
        _spec("progression", {"units": "select", "choose": "literal", "plain_key": "key",
                              "same_name_key": "key", "unowned_key": "key", "tier_bonus": "literal",
                              "choice_key": "key", "theirs_key": "key"},
              ("units",), ("@unit", "@options", "tier_name", "next_tier", "first_tier", "tier", "level",
                           "tiers"),
              picks=True,
              doc="a unit's next tier of the schema's progression and the options that tier unlocks "
                  "(plain_key: none; same_name_key: the next tier bears the unit's name; none_key: "
                  "fully progressed; unowned_key: not owned, {first_tier}; theirs_key: one only the opponent "
                  "fields, its whole line {tiers}); several units or `choose`: "
                  "the first or the strongest usable one that can still progress; of units the player "
                  "offers (\"A or B\"), the first of them in `units`, else the strongest (choice_key)"),
        _spec("pick_strongest", {"ranked": "select", "skip": "select", "attribute": "literal",
                                 "role_key": "key", "role_none_key": "key", "other_key": "key",
                                 "tier_bonus": "literal", "level_key": "key", "level_only": "literal",
                                 "choice_key": "key", "ranked_key": "key"}, (),
              ("@unit", "role", "tier", "level", "rank", "ranked", "sort"), picks=True,
              doc="the strongest usable unit (`ranked` first, then the roster by power; choice_key: of "
                  "two or more the player offered), not one of "
                  "`skip`; of the value of `attribute` the player names (role_key; role_none_key: none "
                  "owned, {role} the value named); other_key: another than the last reply's; level_key: "
                  "the player asks for their highest or lowest level unit ({rank}: highest / lowest; "
                  "level_only: nothing else)"),
        _spec("type_counters", {"types": "select", "matchup": "literal", "tier_bonus": "literal",
                                "beats_key": "key", "resist_key": "key", "resist_none_key": "key",
                                "theirs_key": "key", "theirs_none_key": "key"},
              ("types", "matchup"), ("@types", "@units", "status", "foes"), picks=True,
              doc="a question at a type's level (\"what beats water?\"): the values of an attribute "
                  "matchup's type that beat the first type selected, and the player's strongest usable "
                  "units of them (none_key: they own none); beats_key: asked the other way round (\"what "
                  "does shadow beat?\"), the types it beats; resist_key: \"who takes the least from "
                  "water?\", the player's units it hits softest ({status}; resist_none_key: none below "
                  "normal)"),
        _spec("type_hits", {"types": "select", "foes": "select", "matchup": "literal",
                            "tier_bonus": "literal", "unowned_key": "key", "vs_key": "key",
                            "resist_key": "key", "resist_none_key": "key", "claim_key": "key",
                            "claim_wrong_key": "key"},
              ("types", "foes", "matchup"), ("@types", "@units", "foes", "status", "back_status"), picks=True,
              doc="a type against a side (\"does wind do anything against their team?\"): the foes the first "
                  "type selected beats by an attribute matchup and the player's strongest units of it "
                  "(unowned_key: they own none of it; none_key: it beats none of them; vs_key: two types "
                  "named, the one against the other and back, {status} and {back_status}; claim_key / "
                  "claim_wrong_key: \"is that true?\" of a claim about the two, answered first); "
                  "resist_key / resist_none_key as "
                  "type_counters"),
        _spec("weak_to", {"unit": "select", "matchup": "literal", "foes": "select", "foe_key": "key"},
              ("unit", "matchup"), ("@unit", "@types", "foe"),
              doc="what beats the player's own unit by an attribute matchup (key), and the foe of that "
                  "type to watch (foe_key); nothing for a unit they do not own (the next step answers)"),
        _spec("coverage", {"units": "select", "matchup": "literal", "full_key": "key", "many_key": "key",
                           "weak_key": "key", "also_key": "key"},
              ("units", "matchup"), ("@types", "missed", "size", "count"),
              doc="the values of an attribute matchup's type the units beat and the ones none of them "
                  "does (many_key: more than three, as {count}; full_key: all; none_key: none); "
                  "weak_key: asked what the team is weak to, the types that beat the most of its {size} "
                  "units ({count}); also_key: then the types that beat fewer of them"),
        _spec("groups_compare", {"groups": "select", "even_key": "key"}, (),
              ("@group", "count", "size", "other_@group", "other_count", "other_size"), group_fields=True,
              doc="two groups the player names, by how many of each's units they own (even_key: as many)"),
        _spec("why", {"team": "select", "score": "select", "foes": "select", "matchup": "literal",
                      "team_key": "key", "back_key": "key", "level_key": "key"}, (),
              ("score", "@unit", "foe", "status", "reason", "back", "level"),
              doc="\"why that one?\": the previous reply's team's rating (team_key), else how its pick "
                  "beats one of `foes` (key; back_key: and takes less back), else its level when none "
                  "of `foes` beats it (level_key); nothing on another turn"),
        _spec("saved_group", {}, (), ("name", "@units"),
              doc="the team the player saved, by its name (none_key: none saved)"),
        _spec("option_hits", {"option": "select", "foes": "select", "matchup": "literal", "one_key": "key",
                              "even_key": "key", "locked_key": "key", "own_side_key": "key"},
              ("option", "foes", "matchup"),
              ("@option", "foe", "status", "description", "unlock", "blocker", "level", "levels",
               "player_level"),
              doc="even_key: the one named takes normal damage from it; a usable option against `foes` by "
                  "its value of an attribute matchup's attribute: the "
                  "first it beats (key), none (none_key); one_key: the one foe the player named, which it "
                  "does not beat, and how that foe takes it; own_side_key: an option that only does "
                  "something for its own side (a heal, a shield), with its {description}"),
    )
}  # fmt: skip


def role_names(kinds: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Role token -> placeholder name, from {role: (kind, plural)} (a type kind: its plural only)."""
    out: dict[str, str] = {}
    for role, (kind, plural) in kinds.items():
        if role != "type":
            out[f"@{role}"] = kind
        if role in ("unit", "option", "type"):
            out[f"@{role}s"] = plural
    return out


def role_placeholder(token: str, roles: dict[str, str]) -> str | None:
    """The pack's placeholder for a name a recipe fills: a role token (`@unit` -> "hero"), one with
    a prefix (`other_@group` -> "other_comp"), or a plain name as it is; None for a role the pack's
    schema lacks."""
    prefix, at, role = token.partition("@")
    if not at:
        return token
    return prefix + roles[at + role] if at + role in roles else None


def placeholders_of(spec: RecipeSpec, roles: dict[str, str]) -> set[str]:
    """The placeholder names a recipe fills for a pack (`roles` from `role_names`)."""
    return {name for p in spec.placeholders if (name := role_placeholder(p, roles)) is not None}
