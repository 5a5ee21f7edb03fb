"""Domain packs: the coaching domain as versioned data (a balance patch is a new version).

A pack is a folder of JSON files under ``voicecoach/packs/<pack_id>/``:

    manifest.json   {"pack_id", "version", "title", "persona", "domain_rules", "w1_examples"}
    phi.json        [PhiEntry, ...]    W1's Φ table
    w3.json         W3Config           branch pools, cooldowns, p_c, w_c
    vocabulary.json Vocabulary         roles and play styles with the words players use for them
    templates.json  Templates          the grounded realizer's sentences per paragraph type
    tools.json      GameTools          optional: tools the game serves over HTTP or from its MCP server
                                       (docs/PACKS.md), and builtin tool kinds instantiated over the catalog
    schema.json     Schema             the pack's kinds (voicecoach.domain.catalog): each names its file,
                                       read into `Pack.catalog` (pet: creatures.json, skills.json ...)

`load_pack` validates every file and every cross-reference, and a bad entry raises
`PackError` naming the file and the entry, so a broken patch never reaches a session.
`read_pack` + `pack_problems` give every problem instead of the first (`voicecoach pack check`).

Why one module of ~1,200 lines: a pack is one pydantic model tree (`Pack` and its files' models),
read and validated together, and the cross-reference checks read the whole tree at once (an answer
step against the templates, the tools, the schema and LiveState's paths). It would split along the
checks: `pack_problems` and the `_check_*` it runs, with `check_state`, into a module of their own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from voicecoach.core.state import Collection, LiveState, StateError
from voicecoach.domain.asked import Shape
from voicecoach.domain.catalog import Catalog, Entity, Schema
from voicecoach.domain.recipe_spec import RECIPES, TURN_PREFIX, TURN_SELECTORS, placeholders_of, role_names
from voicecoach.domain.tool_shapes import builtin_shape, resolve_shape

PACKS_DIR = Path(__file__).resolve().parents[1] / "packs"
DEFAULT_PACK = "pet_arena"
MANIFEST = "manifest.json"
EXAMPLE_STATE = "example_state.json"
PACK_ID = re.compile(r"[a-z][a-z0-9_]*")  # a pack id: also its folder's name


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_M = TypeVar("_M", bound=BaseModel)


class ToolUse(_Model):
    """One tool a Φ entry dispatches; `args` values starting with '$' are state paths."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class AnswerStep(BaseModel):
    """One step of a Φ entry's `answer`: a generic recipe (voicecoach.talker.recipes), the template keys
    it says, and its inputs (every other field: selectors, literals; voicecoach.domain.recipe_spec)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    recipe: str
    key: str = Field(min_length=1, description="the template key of the line it yields")
    none_key: str | None = Field(default=None, description="the key when nothing qualifies")
    paragraph: Literal["praise", "apology", "constraint_account", "guidance", "scene_flavor"] = "guidance"
    # When the step yields, the steps after it are tried too and what they yield follows ("No, you
    # don't own X yet." then "The Y lineup has it, ..."), up to one without `also` that yields;
    # without it the first step that yields answers alone.
    also: bool = False
    # Only said after an earlier step marked `also` yielded, never as the answer alone.
    follow: bool = False
    # Only said when no earlier step yielded: the answer of last resort ("Shellbastion learns ...").
    alone: bool = False
    # Only tried when the turn asks in one of these shapes (voicecoach.domain.asked): a verdict for
    # "can we win this", what beats them for "why do we keep losing"; None: any turn.
    asked: list[Shape] | None = None

    @property
    def inputs(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class PhiEntry(_Model):
    intent: str
    sub_intent: str
    # Shown next to the label in W1's prompt: a small model matches the player's words to a
    # phrase far better than to a bare label such as "fill_slot".
    example: str = Field(default="", description="what a player might say for this pair")
    tools: list[ToolUse]
    requires: list[str] = Field(default_factory=list, description="decision-field paths")
    branch: Literal["recommend", "teaching", "knowledge-qa"] = "knowledge-qa"
    # "Build around X" said as "build without X": a pair anchored on a creature the player names
    # becomes this pair when the player excludes every creature they name (the intent prior's rule).
    anchor_excluded: str | None = Field(default=None, description='"intent/sub_intent" taken instead')
    # The intent prior learns each paraphrase with spoken padding too ("uh ...", "... please");
    # not where the padding is the request itself ("hey coach"). None: false for smalltalk only.
    fillers: bool | None = None
    # W2's Ψ (voicecoach.grounding.plan.psi): does the pair coach (a guidance paragraph is eligible),
    # is it about
    # a match (a line of scene colour is)? None: W2's keyword rules on the labels decide.
    coaching: bool | None = None
    scene: bool | None = None
    # The generic recipes that answer the pair, tried in order (voicecoach.talker.recipes); None: the
    # pack's own words for it (templates.json `answers`), or, for a pair with tools, nothing but
    # what is missing or the generic sentence (`pack check` lists such a pair).
    answer: list[AnswerStep] | None = None
    # The pair asked at a type's level ("what beats water?"): the steps tried instead when the turn
    # names a type (pet: an element) and none of the units the pair's tools need.
    by_type: list[AnswerStep] | None = None


class W3Candidate(_Model):
    id: str
    guidance_type: str
    lineup_id: str | None = None
    text: str = ""
    cooldown: int = Field(ge=1, description="turns the candidate rests after being issued")
    p: float = Field(gt=0.0, le=1.0, description="Bernoulli leak probability p_c")
    w: float = Field(gt=0.0, description="weighted-pick weight w_c")
    # "Keep your current lineup" needs a lineup in play, "what it evolves into" a creature the
    # player named: W3's hard filter holds back a candidate whose decision fields are absent.
    requires: list[str] = Field(default_factory=list, description="decision-field paths, as in Φ")
    # "I can build a lineup around that" after "you don't own Voltail" offers what cannot be done.
    owned: list[str] = Field(
        default_factory=list, description="decision-field paths naming a unit the player must own"
    )
    # "Want me to check how that matches up against your opponent?" of one the opponent fields, or
    # "which of your heroes counter them?" of one the player fields, offers nonsense.
    not_theirs: list[str] = Field(
        default_factory=list, description="decision-field paths naming a unit the opponent must not field"
    )
    not_mine: list[str] = Field(
        default_factory=list, description="decision-field paths naming a unit the player must not field"
    )
    # "I can build a lineup around that" of a unit far behind the team on levels (just called held
    # back by them) advises against the answer.
    ready: list[str] = Field(
        default_factory=list,
        description="decision-field paths naming a unit that must not be far behind on levels",
    )
    # "Curious what it evolves into?" about a creature at its last stage offers nothing.
    advances: list[str] = Field(
        default_factory=list, description="decision-field paths naming a unit that must have a later tier"
    )
    locks: list[str] = Field(
        default_factory=list,
        description="decision-field paths naming an owned unit that must still have an option to unlock",
    )
    # "Shall I run through which elements counter it?" - "sure": the question the offer proposed.
    accept: str = Field(
        default="",
        description='the question a "yes" to this offer asks ("what counters it"; its "it" is the unit)',
    )
    keeps_current: bool = Field(
        default=False,
        description="advises keeping the current lineup: unsaid after an answer that changes it",
    )
    # "Want me to check how that matches up?" right after a matchup answer offers what was just said.
    unsaid_after: list[str] = Field(
        default_factory=list, description='"intent/sub_intent" pairs whose answer already covers it'
    )
    # A tip about training points after "who beats Voltail" is filler the player did not ask for:
    # a candidate that lists its topics is said only after a question on one of them.
    said_after: list[str] = Field(
        default_factory=list,
        description='"intent" or "intent/sub_intent" topics it is said after; empty: after any question',
    )

    def on_topic(self, pair: str) -> bool:
        """May the candidate follow an answer to `pair`?"""
        return not self.said_after or pair in self.said_after or pair.split("/")[0] in self.said_after


class W3Branch(_Model):
    pool: list[W3Candidate]


class W3Config(_Model):
    version: str
    branches: dict[Literal["recommend", "teaching", "knowledge-qa"], W3Branch]


class W1Example(_Model):
    """One worked W1 turn, sent before the player's utterance as a user / assistant exchange.

    A single example in the system prompt made small models answer with its pair whatever
    was asked; several exchanges of different pairs teach the format without one favourite.
    """

    utterance: str
    intent: str
    sub_intent: str
    narration: str
    plan: str = Field(description='PLAN as W1 writes it: tool calls, or "none"')


class StateLimits(_Model):
    """The game's bounds on a live state: a push outside them is refused, naming the field."""

    max_level: int = Field(default=100, ge=1, description="a creature's highest level")
    max_player_level: int = Field(default=100, ge=1)
    max_owned: int = Field(default=1000, ge=1, description="creatures in one inventory")
    max_lineup: int = Field(default=5, ge=1, description="creatures on one side of a match")


class PhiParaphrases(_Model):
    """What players say for one Φ pair, written for the pack: the intent prior's training data."""

    intent: str
    sub_intent: str
    utterances: list[str] = Field(min_length=1)


# W1's label for a request outside the game (`w1.OTHER` for both tags): never a Φ pair, but the
# pack may teach the intent prior what it sounds like (paraphrases.json) and how to answer it
# (templates.json answers).
OUT_OF_DOMAIN = ("other", "other")
# An out-of-domain turn whose utterance names something no catalog has: most often a name the STT
# misheard ("Canbryrcat"), so the coach asks again instead of saying it cannot help.
UNHEARD = ("other", "unheard")
# A remark off the game that asks nothing ("brb", "my cat walked on the keyboard"): a word back,
# not "that's outside what I can help with".
ASIDE = ("other", "aside")
# An aside that steps away for a moment ("brb", "one sec"): "I'm here when you're ready", which
# would not fit a remark ("this game eats my weekend").
WAITING = ("other", "waiting")


class PhiNarrations(_Model):
    """Short spoken acknowledgements for one Φ pair, naming no entity: what the coach says when
    W1's own narration is unusable (and what can be synthesised ahead)."""

    intent: str
    sub_intent: str
    phrases: list[str] = Field(min_length=1, max_length=3)


class RoleWords(_Model):
    summary: str = Field(description="what the role does, as a spoken phrase")
    words: list[str] = Field(min_length=1, description="how players say it")


class StyleWords(_Model):
    roles: list[str] = Field(description="roles suggest_lineup rewards for this style")
    summary: str | None = Field(
        default=None,
        description='what a team of this style does, as a spoken phrase ("wears them down from range")',
    )
    words: list[str] = Field(min_length=1, description="how players say it")


# The checker's cue families a pack may add words to (docs/PACKS.md, talker/claims.py):
# a recommendation verb, "your X" before and "X is equipped" after a name, a missing unit, an
# option that cannot be used. A pack without `cues` (pet_arena) adds none.
CueFamily = Literal["recommend", "credit_before", "credit_after", "absence", "option_absence"]


class Vocabulary(_Model):
    """The domain's words: creature roles and play styles (tools, W2 and the slot rules read them)."""

    roles: dict[str, RoleWords] = Field(min_length=1)
    styles: dict[str, StyleWords] = Field(min_length=1)
    creature_nouns: list[str] = Field(default_factory=list, description='"pets", "creatures" ...')
    cues: dict[CueFamily, list[str]] = Field(
        default_factory=dict, description="phrases the pack adds to the checker's cue families"
    )

    @field_validator("cues")
    @classmethod
    def _phrases(cls, cues: dict[str, list[str]]) -> dict[str, list[str]]:
        for family, phrases in cues.items():
            if not phrases or any(not p.strip() for p in phrases):
                raise ValueError(f"cues {family!r}: a list of non-empty phrases")
        return cues


PARAGRAPH_TYPES = ("praise", "apology", "constraint_account", "guidance", "scene_flavor")
# The realizer's placeholders: a template may use only these, each filled from c2 / c3 / tools.
PLACEHOLDERS = frozenset(
    {"creature", "creatures", "skill", "skills", "unlock", "foe", "element", "foe_element",
     "role", "role_summary", "rarity", "stage", "stage_name", "next_stage", "level", "count", "score",
     "weakest", "lineup", "missing", "style", "size", "round", "rounds", "score_player",
     "score_opponent", "guidance", "data", "kind", "description", "leader", "status",
     "elements", "missed", "other_lineup", "other_style", "other_count", "other_size", "other", "value",
     "other_value", "next_round", "effect", "group_name", "units", "style_summary", "team_level",
     "noun", "names", "owned"}
)  # fmt: skip


class ParagraphTemplates(_Model):
    generic: str = Field(min_length=1, description="said when a template's placeholder has no value")
    templates: dict[str, list[str]] = Field(default_factory=dict, description="fact kind -> variants")


class Templates(_Model):
    """templates.json: sentences per paragraph type, answers of tool-less Φ pairs, tool nouns."""

    paragraphs: dict[str, ParagraphTemplates]
    answers: dict[str, list[str]] = Field(default_factory=dict, description='"intent/sub_intent" -> variants')
    tool_data: dict[str, str] = Field(default_factory=dict, description="tool -> the data it reads, spoken")
    # Said at once on a turn that waits for its tools, so the answer need not wait behind a
    # narration phrase (the Talker's answer-first hold): a word or two, cached as audio.
    acknowledgements: list[str] = Field(default_factory=list)

    @field_validator("acknowledgements")
    @classmethod
    def _short(cls, acks: list[str]) -> list[str]:
        for ack in acks:
            if not 1 <= len(ack.split()) <= 3:
                raise ValueError(f"acknowledgement {ack!r}: one to three words")
        return acks


# --- tools served by the game over HTTP or MCP (tools.json) ---------------------------------------

_IDENT = r"^[A-Za-z_][A-Za-z0-9_]*$"  # what PLAN's call syntax and its grammar can write


class ToolParamItems(_Model):
    type: Literal["string"] = "string"  # validate_args reads lists of strings only


class ToolParam(_Model):
    """One argument of a game-served tool: the JSON-schema subset `validate_args` checks."""

    type: Literal["string", "integer", "number", "boolean", "array"]
    description: str = ""
    enum: list[str] | None = None
    minimum: float | None = None
    maximum: float | None = None
    items: ToolParamItems | None = None
    minItems: int | None = Field(default=None, ge=0)  # noqa: N815 (JSON-schema spelling)
    maxItems: int | None = Field(default=None, ge=1)  # noqa: N815
    uniqueItems: bool | None = None  # noqa: N815

    @model_validator(mode="after")
    def _fits_type(self) -> ToolParam:
        numeric, array = self.type in ("integer", "number"), self.type == "array"
        if self.enum is not None and self.type != "string":
            raise ValueError("enum is for string arguments only")
        if (self.minimum is not None or self.maximum is not None) and not numeric:
            raise ValueError("minimum / maximum are for integer and number arguments only")
        if array and self.items is None:
            raise ValueError('an array argument needs "items": {"type": "string"}')
        if not array and (self.items or self.minItems is not None or self.maxItems is not None):
            raise ValueError("items / minItems / maxItems are for array arguments only")
        return self


class ToolParameters(_Model):
    """A tool's arguments as a JSON-schema object, OpenAI function-calling style."""

    type: Literal["object"] = "object"
    properties: dict[str, ToolParam] = Field(default_factory=dict)
    required: list[str] = Field(default_factory=list)
    additionalProperties: Literal[False] = False  # noqa: N815 (a call with an unknown argument is refused)

    @model_validator(mode="after")
    def _names(self) -> ToolParameters:
        bad = [k for k in self.properties if not re.fullmatch(_IDENT, k)]
        if bad:
            raise ValueError(f"argument names must be identifiers: {bad}")
        unknown = [k for k in self.required if k not in self.properties]
        if unknown:
            raise ValueError(f"required names no property: {unknown}")
        return self


class GameTool(_Model):
    """What the pack declares of a tool its game serves, whichever way: the arguments (validated,
    display names resolved to ids for `entities`, before anything is sent), the LiveState fields
    sent along, its timeout and whether it changes the game."""

    name: str = Field(pattern=_IDENT)
    description: str = Field(min_length=1)
    parameters: ToolParameters = Field(default_factory=ToolParameters)
    entities: dict[str, str] = Field(
        default_factory=dict, description="arguments that name entities of a kind (resolved to ids)"
    )
    state: list[str] = Field(default_factory=list, description="LiveState paths sent with each call")
    timeout_s: float = Field(default=1.0, gt=0.0, le=30.0, description="past it the call fails")
    # A side effect changes the game (equip a loadout): such a call never fires before its turn
    # is committed, so Φ may not list it (W1's early dispatch is for read-only tools only).
    side_effect: bool = False

    @model_validator(mode="after")
    def _entities_are_arguments(self) -> GameTool:
        for arg in self.entities:
            param = self.parameters.properties.get(arg)
            if param is None or param.type not in ("string", "array"):
                raise ValueError(f"entities: {arg!r} is not a string or array argument")
        return self


class HttpTool(GameTool):
    """One tool the game's backend serves: POST {endpoint}/{name}, JSON in, one JSON object out.

    The request body is {"tool", "args", "session_id", "state"}: `args` validated (display names
    resolved to ids for `entities`), `state` only the LiveState fields listed in `state`.
    """


class McpTool(GameTool):
    """One tool the game's MCP server serves (tools.json's `mcp`), under the same name: a
    tools/call with the validated arguments; the session id and the `state` fields go in the
    request's `_meta`. Its parameters are declared here all the same (copied from the server's
    tools/list), because W1's prompt and PLAN grammar are built from the pack before any server
    is reached."""

    mcp: Literal[True]  # the marker of an entry the MCP server serves


class McpSource(_Model):
    """tools.json's `mcp`: the game's MCP server, over streamable HTTP (`url`) or stdio (`command`,
    a process the coach starts and talks to on its stdin/stdout, one per session)."""

    url: str | None = Field(
        default=None, pattern=r"^https?://[^\s/]+", description="e.g. http://127.0.0.1:8000/mcp"
    )
    command: list[str] | None = Field(
        default=None, min_length=1, description="argv, e.g. [python, server.py]"
    )

    @model_validator(mode="after")
    def _one_transport(self) -> McpSource:
        if (self.url is None) == (self.command is None):
            raise ValueError('an MCP server needs either "url" (streamable HTTP) or "command" (stdio)')
        return self

    def where(self) -> str:
        return self.url or " ".join(self.command or [])


# The builtin tool kinds (voicecoach.tools.builtin implements each): a pack with its own kinds
# instantiates them in tools.json, {"name": "hero_counters", "builtin": "rank_matchup", ...}.
BuiltinKind = Literal[
    "get_collection", "get_entity", "rank_matchup", "context_fit", "score_group", "suggest_group",
    "list_groups", "get_match_state",
]  # fmt: skip


class BuiltinTool(_Model):
    """One instance of a builtin tool kind, computed in-process over the pack's catalog and the
    live state (voicecoach.tools.builtin): the tools a schema pack needs no game server for."""

    name: str = Field(pattern=_IDENT)
    builtin: BuiltinKind
    description: str = Field(default="", description="default: the builtin's own")
    kind: str | None = Field(default=None, description="get_entity: the kind it describes")
    matchup: str | None = Field(default=None, description="rank_matchup / context_fit: the table")
    power: str | None = Field(
        default=None,
        description="score_group / suggest_group: the numeric unit attribute (default: the first)",
    )
    tier_bonus: float = Field(
        default=0.0,
        ge=0.0,
        description="score_group / suggest_group: each tier the player's unit has past the first adds "
        "this share of its power (0.15: 15% a tier)",
    )
    spread: str | None = Field(
        default=None,
        description="score_group / suggest_group without a quota: the unit attribute whose distinct "
        "values on a team make its composition (a role: every role covered scores full)",
    )
    power_full: float | None = Field(
        default=None,
        gt=0,
        description="score_group / suggest_group: the mean power that earns the full power component "
        "(default: the catalog's strongest unit's)",
    )
    coverage: str | None = Field(
        default=None,
        description="score_group / suggest_group without a match context: a matchup whose defenders "
        "the team beats are scored too (the share of them; power 40, composition, edge and coverage 20)",
    )
    style: str | None = Field(
        default=None,
        description="suggest_group: the unit attribute a vocabulary style's roles are values of; the "
        "tool then takes a `style` argument that leans the team to those roles",
    )


class GameTools(_Model):
    """tools.json's header: where the game serves its tools (a run may override it)."""

    endpoint: str = Field(
        default="", pattern=r"^https?://[^\s/]+", description="base URL, e.g. http://127.0.0.1:8080/tools"
    )
    mcp: McpSource | None = Field(default=None, description="the game's MCP server, for `mcp` entries")
    tools: list[Any] = Field(min_length=1)


class Manifest(_Model):
    pack_id: str
    version: str
    title: str = ""
    persona: str = ""
    domain_rules: list[str] = Field(default_factory=list)
    tools: list[str] = Field(min_length=1, description="the tools the game serves; Φ names only these")
    limits: StateLimits = Field(default_factory=StateLimits)
    w1_examples: list[W1Example] = Field(default_factory=list)


class Pack(_Model):
    pack_id: str
    version: str
    title: str
    persona: str
    domain_rules: list[str]
    phi: list[PhiEntry]
    w3: W3Config
    tools: tuple[str, ...]
    limits: StateLimits = Field(default_factory=StateLimits)
    w1_examples: list[W1Example] = Field(default_factory=list)
    paraphrases: list[PhiParaphrases] = Field(default_factory=list)
    narrations: list[PhiNarrations] = Field(default_factory=list)
    vocabulary: Vocabulary
    templates: Templates
    # Tools the game serves over HTTP (tools.json), by name; the rest of `tools` run in-process.
    http_tools: dict[str, HttpTool] = Field(default_factory=dict)
    tool_endpoint: str = ""  # tools.json's endpoint ("" without game-served tools)
    # Tools the game's MCP server serves (tools.json `"mcp": true` entries), and that server.
    mcp_tools: dict[str, McpTool] = Field(default_factory=dict)
    mcp_server: McpSource | None = None
    builtin_tools: dict[str, BuiltinTool] = Field(default_factory=dict)  # tools.json's builtin entries
    catalog: Catalog  # schema.json with its kinds' entities and matchup tables
    # The folder it was read from: its prior.json and example_state.json sit next to its files.
    # None for a pack built in memory (tests), which stands for the installed pack of its id.
    folder: Path | None = None

    @property
    def home(self) -> Path:
        """The pack's folder (`folder`, else the installed pack's)."""
        return self.folder if self.folder is not None else PACKS_DIR / self.pack_id

    def game_tool(self, name: str) -> HttpTool | McpTool | None:
        """The declaration of tool `name` when the game serves it (over HTTP or MCP), else None."""
        return self.http_tools.get(name) or self.mcp_tools.get(name)


def check_state(pack: Pack, state: LiveState) -> None:
    """Refuse a live state that names what the pack does not have or breaks the game's bounds.

    The state model checks types; this checks meaning (an unknown creature id, stage 9, level 999),
    so a game's bad push is an error naming the field instead of advice about nothing.
    """
    limits, catalog = pack.limits, pack.catalog
    unit = catalog.schema.kind("unit") or ""

    def bad(field: str, msg: str) -> StateError:
        return StateError(f"invalid state snapshot: {field}: {msg}")

    fs = state.fs
    if fs.player_level > limits.max_player_level:
        raise bad("fs.player_level", f"{fs.player_level} is above the game's {limits.max_player_level}")
    inv = fs.inventory
    # Each pack keeps the player's units in one place: fs.inventory (classic) or fs.collection.
    classic = catalog.schema.state == "classic"
    if classic and fs.collection is not None:
        raise bad(
            "fs.collection", f"this pack keeps the player's {catalog.schema.plural(unit)} in fs.inventory"
        )
    if not classic and inv is not None:
        raise bad(
            "fs.inventory", f"this pack keeps the player's {catalog.schema.plural(unit)} in fs.collection"
        )
    if fs.collection is not None:
        _check_collection(pack, fs.collection, bad)
    _check_kind_keyed(pack, state, bad)
    if inv is not None:
        if len(inv.owned) > limits.max_owned:
            raise bad(
                "fs.inventory.owned",
                f"{len(inv.owned)} {catalog.schema.plural(unit)}, the game allows {limits.max_owned}",
            )
        progression, options_field = catalog.schema.progression, catalog.schema.options_field()
        for i, owned in enumerate(inv.owned):
            at = f"fs.inventory.owned.{i}"
            entity = catalog.get(unit, owned.creature_id)
            if entity is None:
                raise bad(f"{at}.creature_id", f"unknown {unit} {owned.creature_id!r}")
            if progression is not None:
                stages = len(entity.value(progression.field) or [])
                if owned.stage > stages:
                    raise bad(
                        f"{at}.stage", f"{entity.display} has {stages} {progression.field}, not {owned.stage}"
                    )
            if owned.level > limits.max_level:
                raise bad(f"{at}.level", f"{owned.level} is above the game's {limits.max_level}")
            related = set(entity.value(options_field) or []) if options_field else set()
            for skill in owned.unlocked_skills:
                if skill not in related:
                    raise bad(f"{at}.unlocked_skills", f"{entity.display} does not learn {skill!r}")
        for name, lineup in inv.saved_lineups.items():
            for cid in lineup:
                if catalog.get(unit, cid) is None:
                    raise bad(f"fs.inventory.saved_lineups.{name}", f"unknown {unit} {cid!r}")
    match = state.ic.match
    if match is not None:
        for side in ("player_lineup", "opponent_lineup"):
            ids = getattr(match, side)
            if len(ids) > limits.max_lineup:
                many = catalog.schema.plural(unit)
                raise bad(f"ic.match.{side}", f"{len(ids)} {many}, a side has at most {limits.max_lineup}")
            for uid in ids:
                if catalog.get(unit, uid) is None:
                    raise bad(f"ic.match.{side}", f"unknown {unit} {uid!r}")
        if match.round > match.rounds_total:
            raise bad("ic.match.round", f"round {match.round} of {match.rounds_total}")


def _check_collection(pack: Pack, collection: Collection, bad: Callable[[str, str], StateError]) -> None:
    """fs.collection against the catalog: known units, tiers, levels, unlocked and equipped options."""
    limits, catalog = pack.limits, pack.catalog
    schema = catalog.schema
    unit, option = schema.kind("unit") or "", schema.kind("option")
    if len(collection.units) > limits.max_owned:
        raise bad(
            "fs.collection.units",
            f"{len(collection.units)} {schema.plural(unit)}, the game allows {limits.max_owned}",
        )
    options_field = schema.options_field()
    slot = schema.kinds[option].slot if option else None
    for i, owned in enumerate(collection.units):
        at = f"fs.collection.units.{i}"
        entity = catalog.get(unit, owned.id)
        if entity is None:
            raise bad(f"{at}.id", f"unknown {unit} {owned.id!r}")
        if owned.tier is not None:
            progression = schema.progression
            tiers = (entity.value(progression.field) or []) if progression else []
            if owned.tier > len(tiers):
                raise bad(f"{at}.tier", f"{entity.display} has {len(tiers)} tiers, not {owned.tier}")
        if owned.level > limits.max_level:
            raise bad(f"{at}.level", f"{owned.level} is above the game's {limits.max_level}")
        related = set(entity.value(options_field) or []) if options_field else set()
        for oid in owned.unlocked:
            if oid not in related:
                raise bad(f"{at}.unlocked", f"{entity.display} has no {option} {oid!r}")
        for where, oid in owned.equipped.items():
            item = catalog.get(option, oid) if option else None
            usable = oid in owned.unlocked or (
                oid in related and item is not None and not item.value("unlock")
            )
            if item is None or not usable:
                raise bad(f"{at}.equipped.{where}", f"{entity.display} has not unlocked {oid!r}")
            if slot is not None and item.value(slot) != where:
                raise bad(f"{at}.equipped.{where}", f"{item.display} goes in the {item.value(slot)} slot")
    for name, members in collection.saved_groups.items():
        for uid in members:
            if catalog.get(unit, uid) is None:
                raise bad(f"fs.collection.saved_groups.{name}", f"unknown {unit} {uid!r}")


def _check_kind_keyed(pack: Pack, state: LiveState, bad: Callable[[str, str], StateError]) -> None:
    """ic.focus, ic.mentioned and ic.match.context: keys are the pack's kinds, values their ids."""
    catalog = pack.catalog
    kinds = catalog.schema.kinds
    match = state.ic.match
    fields: list[tuple[str, dict[str, Any], str]] = [
        ("ic.focus", {k: [v] for k, v in state.ic.focus.items()}, "kind"),
        ("ic.mentioned", dict(state.ic.mentioned), "kind"),
        ("ic.match.context", {k: [v] for k, v in match.context.items()} if match else {}, "context"),
    ]
    for path, by_kind, role in fields:
        for kind, ids in by_kind.items():
            if kind not in kinds or role not in ("kind", kinds[kind].role):
                raise bad(f"{path}.{kind}", f"not a {'' if role == 'kind' else role + ' '}kind of this pack")
            for eid in ids:
                if catalog.get(kind, eid) is None:
                    raise bad(f"{path}.{kind}", f"unknown {kind} {eid!r}")


class PackError(ValueError):
    """A pack file or entry that does not validate; the message names file and entry."""


def _read(folder: Path, name: str) -> Any:
    path = folder / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PackError(f"{path}: file missing from pack") from None
    except json.JSONDecodeError as err:
        raise PackError(f"{path}: not valid JSON ({err})") from None


def _whole(folder: Path, name: str, model: type[_M]) -> _M:
    try:
        return model.model_validate(_read(folder, name))
    except ValidationError as err:
        first = err.errors()[0]
        raise PackError(f"{folder / name}: {first['msg']} at {'.'.join(map(str, first['loc']))}") from None


def _entries(folder: Path, name: str, model: type[BaseModel], raw: list[Any]) -> list[Any]:
    out = []
    for i, item in enumerate(raw):
        if isinstance(item, dict):
            label = item.get("id") or item.get("name") or f"{item.get('intent')}/{item.get('sub_intent')}"
        else:
            label = str(i)
        try:
            out.append(model.model_validate(item))
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(map(str, first["loc"]))
            raise PackError(f"{folder / name}: entry {label!r}: {first['msg']} at {where}") from None
    return out


def _unique(folder: Path, name: str, items: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if item.id in out:
            raise PackError(f"{folder / name}: entry {item.id!r} defined twice")
        out[item.id] = item
    return out


# Tool names are checked against the tools the manifest declares (the tool runner checks that it
# serves them), and state paths are resolved against the LiveState model.
def _check_refs(pack: Pack, folder: Path) -> Iterator[PackError]:
    def bad(file: str, entry: str, msg: str) -> PackError:
        return PackError(f"{folder / file}: entry {entry!r}: {msg}")

    seen: set[tuple[str, str]] = set()
    for e in pack.phi:
        label = f"{e.intent}/{e.sub_intent}"
        if (e.intent, e.sub_intent) in seen:
            yield bad("phi.json", label, "pair defined twice")
        seen.add((e.intent, e.sub_intent))
        for use in e.tools:
            if use.tool not in pack.tools:
                yield bad("phi.json", label, f"unknown tool {use.tool!r}")
            served = pack.game_tool(use.tool)
            if served is not None and served.side_effect:
                yield bad(
                    "phi.json", label,
                    f"tool {use.tool!r} has side effects (tools.json) and Φ dispatches before the turn "
                    "is committed; only read-only tools may be listed here (let PLAN call it)",
                )  # fmt: skip
            for v in use.args.values():
                for item in v if isinstance(v, list) else [v]:
                    if (
                        isinstance(item, str)
                        and item.startswith("$")
                        and not _valid_path(LiveState, item[1:].removeprefix("?"), pack.catalog.schema)
                    ):
                        yield bad("phi.json", label, f"unknown state field {item[1:]!r}")
        for path in e.requires:
            if not _valid_path(LiveState, path, pack.catalog.schema):
                yield bad("phi.json", label, f"unknown state field {path!r}")
    for ex in pack.w1_examples:
        if (ex.intent, ex.sub_intent) not in seen:
            yield bad(
                "manifest.json", ex.utterance, f"w1_examples: {ex.intent}/{ex.sub_intent} is not in phi.json"
            )
    # Cooldowns are keyed by candidate id, so an id must be unique across all branches.
    seen_ids: set[str] = set()
    phi_pairs = {f"{e.intent}/{e.sub_intent}" for e in pack.phi}
    group = pack.catalog.schema.kind("group")
    for branch, cfg in pack.w3.branches.items():
        for cand in cfg.pool:
            if cand.id in seen_ids:
                yield bad("w3.json", f"{branch}/{cand.id}", "candidate id defined twice")
            seen_ids.add(cand.id)
            # `lineup_id` (the stored field name) names a group of the pack's group kind (pet: a
            # lineup, a schema pack: its own, e.g. a comp), as W3 and the Talker read it.
            if cand.lineup_id is not None and (
                group is None or pack.catalog.get(group, cand.lineup_id) is None
            ):
                yield bad("w3.json", f"{branch}/{cand.id}", f"unknown {group or 'group'} {cand.lineup_id!r}")
            for path in [*cand.requires, *cand.owned]:  # a typo would hold it back on every turn
                if not _valid_path(LiveState, path, pack.catalog.schema):
                    yield bad("w3.json", f"{branch}/{cand.id}", f"unknown state field {path!r}")
            for pair in cand.unsaid_after:
                if pair not in phi_pairs:
                    yield bad("w3.json", f"{branch}/{cand.id}", f"unsaid_after: {pair!r} is not in phi.json")
            intents = {pair.split("/")[0] for pair in phi_pairs}
            for topic in cand.said_after:
                if topic not in phi_pairs and topic not in intents:
                    yield bad(
                        "w3.json",
                        f"{branch}/{cand.id}",
                        f"said_after: {topic!r} is no intent or pair of phi.json",
                    )


def _check_schema(pack: Pack, folder: Path) -> Iterator[PackError]:
    """schema.json's references (voicecoach.domain.catalog `Catalog.problems`) and its state paths."""
    declared = pack.catalog
    vocabulary = {
        "vocabulary.roles": set(pack.vocabulary.roles),
        "vocabulary.styles": set(pack.vocabulary.styles),
    }
    for file, entry, msg in declared.problems(vocabulary):
        yield PackError(f"{folder / file}: entry {entry!r}: {msg}")
    schema = declared.schema
    paths = [(f"kinds/{n}", k.state) for n, k in schema.kinds.items() if k.state] + [
        ("needs", p) for p in schema.needs
    ]
    for entry, path in paths:
        if not _valid_path(LiveState, path, schema):
            yield PackError(f"{folder / 'schema.json'}: entry {entry!r}: unknown state field {path!r}")


def _check_names(pack: Pack, folder: Path) -> Iterator[PackError]:
    """An alias names one entity, and a word an epithet gives ("sniper") is no entity's name: the
    linker and the dialogue reading would otherwise pick one of two at random."""
    catalog = pack.catalog

    def key(form: str) -> str:
        return re.sub(r"[\s_-]+", "", form.lower())

    names: dict[str, set[str]] = {}
    for form, _, entity_id in catalog.forms():
        names.setdefault(key(form), set()).add(entity_id)
    for kind, spec in catalog.schema.kinds.items():
        for e in catalog.entities.get(kind, {}).values():
            where = f"{folder / spec.file}: entry {e.id!r}"
            for alias in (a for field in spec.aliases for a in e.value(field) or []):
                others = names.get(key(alias), set()) - {e.id}
                if others:
                    yield PackError(f"{where}: alias {alias!r} also names {', '.join(sorted(others))}")
            for word in catalog.epithet_words(kind, e):
                if key(word) in names:
                    named = ", ".join(sorted(names[key(word)]))
                    yield PackError(f"{where}: {spec.epithet} word {word!r} is also the name of {named}")


def _check_vocabulary(pack: Pack, folder: Path) -> Iterator[PackError]:
    """The styles' roles; the entities' roles and styles are the catalog's (`_check_schema`)."""
    roles = pack.vocabulary.roles
    for name, style in pack.vocabulary.styles.items():
        for role in style.roles:
            if role not in roles:
                yield PackError(f"{folder / 'vocabulary.json'}: entry 'styles/{name}': unknown role {role!r}")


_FIELD = re.compile(r"\{([^{}]*)\}")


def _check_templates(pack: Pack, folder: Path) -> Iterator[PackError]:
    """Every paragraph type known, every placeholder one the realizer fills, every answer a Φ pair:
    a template the realizer could not fill must fail here, not in front of the player."""
    file = folder / "templates.json"
    t = pack.templates
    allowed = PLACEHOLDERS | recipe_placeholders(pack)

    def check_text(entry: str, text: str, allow: bool = True) -> Iterator[PackError]:
        if text.count("{") != text.count("}"):
            yield PackError(f"{file}: entry {entry!r}: unbalanced braces in {text!r}")
            return
        for name in _FIELD.findall(text):
            if not allow or name not in allowed:
                what = "a generic sentence takes no placeholder" if not allow else "unknown placeholder"
                yield PackError(f"{file}: entry {entry!r}: {what} {{{name}}}")

    for ptype, group in t.paragraphs.items():
        if ptype not in PARAGRAPH_TYPES:
            yield PackError(
                f"{file}: entry {ptype!r}: unknown paragraph type (known: {', '.join(PARAGRAPH_TYPES)})"
            )
        yield from check_text(f"{ptype}/generic", group.generic, allow=False)
        for kind, variants in group.templates.items():
            if not variants:
                yield PackError(f"{file}: entry {ptype + '/' + kind!r}: no sentences")
            for i, text in enumerate(variants):
                yield from check_text(f"{ptype}/{kind}[{i}]", text)
    missing = [p for p in PARAGRAPH_TYPES if p not in t.paragraphs]
    if missing:
        yield PackError(f"{file}: entry 'paragraphs': missing paragraph type(s) {', '.join(missing)}")
    pairs = {f"{e.intent}/{e.sub_intent}" for e in pack.phi} | {
        "/".join(OUT_OF_DOMAIN),
        "/".join(UNHEARD),
        "/".join(ASIDE),
        "/".join(WAITING),
    }
    for pair, variants in t.answers.items():
        if pair not in pairs:
            yield PackError(f"{file}: entry {'answers/' + pair!r}: not a Φ pair in phi.json")
        for i, text in enumerate(variants):
            yield from check_text(f"answers/{pair}[{i}]", text)
    for tool in t.tool_data:
        if tool not in pack.tools:
            yield PackError(f"{file}: entry {'tool_data/' + tool!r}: unknown tool")


def pack_roles(pack: Pack) -> dict[str, str]:
    """Recipe role token -> the pack's placeholder name (`@unit` -> "hero", `@units` -> "heroes")."""
    schema = pack.catalog.schema
    kinds = {
        role: (kind, schema.plural(kind))
        for role in ("unit", "option", "group", "context", "type")
        if (kind := schema.kind(role)) is not None
    }
    return role_names(kinds)


def recipe_placeholders(pack: Pack) -> frozenset[str]:
    """Every placeholder a recipe fills for this pack's kinds (joins PLACEHOLDERS for templates).
    The `fact` recipe's entity fields and `values` names are the pack's own: every attribute and
    field of the catalog's entities."""
    roles = pack_roles(pack)
    names = {p for spec in RECIPES.values() for p in placeholders_of(spec, roles)}
    for e in pack.phi:
        for step in e.answer or []:
            values = step.inputs.get("values")
            if isinstance(values, dict):
                names |= set(values)
    catalog = pack.catalog
    for kind in catalog.schema.kinds:
        names |= _entity_fields(pack, kind)
    for m in catalog.schema.matchups:
        names |= _matchup_fields(catalog.schema, m.name)
    names |= _group_fields(catalog.schema)
    return frozenset(names)


def _group_fields(schema: Schema) -> set[str]:
    """The group kind's attributes, as they are and with "other_" (two groups compared)."""
    group = schema.kind("group")
    attributes = schema.kinds[group].attributes if group is not None else {}
    return {*attributes, *(f"other_{a}" for a in attributes)}


def _matchup_fields(schema: Schema, matchup: Any) -> set[str]:
    """What a recipe that says a counter by an attribute matchup fills besides its own names: the
    attribute's value of the unit and of the foe (pet's {element} and {foe_element})."""
    m = next((x for x in schema.matchups if x.name == matchup), None)
    return {m.attribute, f"foe_{m.attribute}"} if m is not None and m.attribute else set()


def _entity_fields(pack: Pack, kind: str) -> set[str]:
    """The placeholders a `fact` step about `kind` may fill: the kind's name, its attributes and
    every field of its entities (a field naming a kind is said as that entity's name)."""
    catalog = pack.catalog
    spec = catalog.schema.kinds.get(kind)
    if spec is None:
        return set()
    fields = {kind, *spec.attributes}
    for entity in catalog.entities.get(kind, {}).values():
        fields |= set(entity.model_dump(exclude={"id"}))
    return fields


def _check_answers(pack: Pack, folder: Path) -> Iterator[PackError]:
    """Every Φ entry's `answer` steps: a known recipe, its inputs and only those, every selector
    resolvable (a state path, or a field of the result of one of the entry's own tools, by its
    declared result shape), every template key in templates.json, and those templates using only
    the placeholders the recipe fills."""
    roles = pack_roles(pack)
    paragraphs = pack.templates.paragraphs
    shapes: dict[str, dict[str, Any]] = {}
    schema = pack.catalog.schema
    for name, tool in pack.builtin_tools.items():
        shapes[name] = builtin_shape(schema, tool.builtin, tool.matchup)
    for e in pack.phi:
        label = f"{e.intent}/{e.sub_intent}"
        tools = {use.tool for use in e.tools}
        steps = [("answer", i, s) for i, s in enumerate(e.answer or [])]
        steps += [("by_type", i, s) for i, s in enumerate(e.by_type or [])]
        for field_name, i, step in steps:
            where = f"{folder / 'phi.json'}: entry {label!r}: {field_name}[{i}] ({step.recipe})"

            def bad(msg: str, where: str = where) -> PackError:
                return PackError(f"{where}: {msg}")

            spec = RECIPES.get(step.recipe)
            if spec is None:
                yield bad(f"unknown recipe (known: {', '.join(RECIPES)})")
                continue
            inputs = step.inputs
            for name in inputs:
                if name not in spec.inputs:
                    yield bad(f"unknown input {name!r} (the recipe takes {', '.join(spec.inputs)})")
            for name in spec.required:
                if name not in inputs:
                    yield bad(f"missing input {name!r}")
            fills = placeholders_of(spec, roles) | _matchup_fields(schema, inputs.get("matchup"))
            keys = [step.key, *([step.none_key] if step.none_key else [])]
            for name, value in inputs.items():
                kind = spec.inputs.get(name)
                if kind == "key":
                    if isinstance(value, str):
                        keys.append(value)
                    else:
                        yield bad(f"input {name!r} is a template key: a string")
                elif kind == "select":
                    for sel in value if isinstance(value, list) else [value]:
                        problem = _selector_problem(sel, tools, shapes, schema)
                        if problem:
                            yield bad(f"input {name!r}: {problem}")
                elif kind == "values":
                    if not isinstance(value, dict):
                        yield bad(f"input {name!r}: placeholder -> selector")
                        continue
                    fills |= set(value)
                    for placeholder, sels in value.items():  # a selector, or selectors tried in order
                        for sel in sels if isinstance(sels, list) else [sels]:
                            problem = _selector_problem(sel, tools, shapes, schema)
                            if problem:
                                yield bad(f"values {placeholder!r}: {problem}")
            if spec.entity_fields:
                kind_name = inputs.get("kind")
                if kind_name is not None and kind_name not in schema.kinds:
                    yield bad(f"kind {kind_name!r} is not a kind of this pack")
                elif kind_name is not None:
                    fills |= _entity_fields(pack, kind_name)
                    by = inputs.get("key_by")
                    if by is not None:  # one template per value of the attribute: <key>_<value>
                        values = {e.value(by) for e in pack.catalog.entities.get(kind_name, {}).values()}
                        keys.remove(step.key)
                        keys += sorted(f"{step.key}_{v}" for v in values if v is not None)
            if spec.group_fields:
                fills |= _group_fields(schema)
            for name in ("matchup", "fit"):  # a matchup the recipe needs, or one the step names
                if name in spec.inputs and (name in spec.required or name in inputs):
                    if inputs.get(name) not in {m.name for m in schema.matchups}:
                        yield bad(f"{name} {inputs.get(name)!r} is not in the schema")
            if "tool" in spec.inputs and "tool" in inputs and inputs["tool"] not in pack.tools:
                yield bad(f"tool {inputs['tool']!r} is not one of manifest.json's tools")
            group = paragraphs.get(step.paragraph)
            for key in keys:
                variants = group.templates.get(key) if group is not None else None
                if not variants:
                    yield bad(f"no template {step.paragraph + '/' + key!r} in templates.json")
                    continue
                for text in variants:
                    extra = sorted(set(_FIELD.findall(text)) - fills)
                    if extra:
                        fields = ", ".join("{" + f + "}" for f in extra)
                        used = f"template {step.paragraph}/{key} uses {fields}"
                        yield bad(f"{used}, which {step.recipe} does not fill")


def _selector_problem(
    selector: Any, tools: set[str], shapes: dict[str, dict[str, Any]], schema: Schema
) -> str | None:
    """Why a selector cannot select anything, or None."""
    if not isinstance(selector, str) or not selector:
        return f"selector {selector!r}: a string, '$state.path' or 'tool.field'"
    if selector.startswith("$"):
        return (
            None if _valid_path(LiveState, selector[1:], schema) else f"unknown state field {selector[1:]!r}"
        )
    if selector.startswith(TURN_PREFIX):
        known = ", ".join(TURN_SELECTORS)
        return None if selector in TURN_SELECTORS else f"selector {selector!r}: not a turn value ({known})"
    tool, _, path = selector.partition(".")
    if tool not in tools:
        return f"selector {selector!r}: {tool!r} is not one of the entry's tools"
    shape = shapes.get(tool)
    if shape is None:
        return f"selector {selector!r}: tool {tool!r} declares no result shape (only builtins do)"
    if not path:
        return None
    problem = resolve_shape(shape, path)
    return f"selector {selector!r}: {problem}" if problem else None


def _valid_path(model: type[BaseModel], path: str, schema: Schema) -> bool:
    """Does the dotted path name a field of the (nested) pydantic model?

    A dict field keyed by kind (`json_schema_extra={"keys": "kind"}`, or a role such as "context")
    takes one of the schema's kinds (of that role) as its next part: ``ic.focus.hero``."""
    import typing

    current: Any = model
    parts = iter(path.split("."))
    for part in parts:
        fields = getattr(current, "model_fields", None)
        if fields is None or part not in fields:
            return False
        info = fields[part]
        ann = info.annotation
        # unwrap Optional[X] / X | None to X
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        current = args[0] if args and typing.get_origin(ann) not in (list, dict) else ann
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        keys = extra.get("keys")
        if keys is not None:
            key = next(parts, None)
            if key is None:
                return True
            kind = schema.kinds.get(key)
            if kind is None or keys not in ("kind", kind.role):
                return False
            current = typing.get_args(current)[-1]  # the dict's value type
    return True


def load_pack_from(folder: Path) -> Pack:
    """Load and validate the pack in `folder`. Raises PackError naming file and entry."""
    pack = read_pack(folder)
    for problem in pack_problems(pack, folder):
        raise problem  # the first one: a session never starts on a broken pack
    return pack


def pack_problems(pack: Pack, folder: Path) -> Iterator[PackError]:
    """Every cross-reference problem of a pack `read_pack` read, in the loader's order
    (`voicecoach pack check` lists them all; the loader stops at the first)."""
    yield from _check_schema(pack, folder)
    yield from _check_names(pack, folder)
    yield from _check_refs(pack, folder)
    yield from _check_phi_pairs(pack, folder)
    yield from _check_vocabulary(pack, folder)
    yield from _check_templates(pack, folder)
    yield from _check_answers(pack, folder)


def read_pack(folder: Path) -> Pack:
    """Read every file of the pack in `folder`, each validated on its own, no cross-reference
    checked yet (`load_pack_from` checks them). Raises PackError naming file and entry."""
    manifest = _whole(folder, "manifest.json", Manifest)
    catalog = _catalog(folder)
    return Pack(
        pack_id=manifest.pack_id,
        version=manifest.version,
        title=manifest.title or manifest.pack_id,
        persona=manifest.persona,
        domain_rules=manifest.domain_rules,
        phi=_entries(folder, "phi.json", PhiEntry, _read(folder, "phi.json")),
        w3=_whole(folder, "w3.json", W3Config),
        tools=tuple(manifest.tools),
        limits=manifest.limits,
        w1_examples=manifest.w1_examples,
        paraphrases=_optional_entries(folder, "paraphrases.json", PhiParaphrases),
        narrations=_optional_entries(folder, "narrations.json", PhiNarrations),
        vocabulary=_whole(folder, "vocabulary.json", Vocabulary),
        templates=_whole(folder, "templates.json", Templates),
        **_game_tools(folder, manifest, catalog.schema),
        catalog=catalog,
        folder=folder.resolve(),
    )


def _catalog(folder: Path) -> Catalog:
    """schema.json, with each kind's entities and each matchup's table from its file."""
    schema = _whole(folder, "schema.json", Schema)

    def listed(file: str, key: str | None) -> Any:
        raw = _read(folder, file)
        if key is None:
            return raw
        return raw.get(key) if isinstance(raw, dict) else None

    entities: dict[str, dict[str, Entity]] = {}
    for name, kind in schema.kinds.items():
        raw = listed(kind.file, kind.key)
        if not isinstance(raw, list):
            under = f" under {kind.key!r}" if kind.key else ""
            raise PackError(f"{folder / kind.file}: expected a list of {name} entries{under}")
        # A type kind may list bare ids, as pet's elements.json does.
        items = [{"id": item} if isinstance(item, str) else item for item in raw]
        entities[name] = _unique(folder, kind.file, _entries(folder, kind.file, Entity, items))
    tables: dict[str, Any] = {m.name: listed(m.file, m.key) for m in schema.matchups}
    notes: dict[str, Any] = {m.name: _read(folder, m.notes) for m in schema.matchups if m.notes}
    try:
        return Catalog(schema=schema, entities=entities, tables=tables, notes=notes)
    except ValidationError as err:  # only a table or notes can fail here: the rest is validated above
        first = err.errors()[0]
        field, name = str(first["loc"][0]), str(first["loc"][1])
        m = next(m for m in schema.matchups if m.name == name)
        where = ".".join(map(str, first["loc"][2:]))
        shape = "rows {a: {b: multiplier}}" if field == "tables" else '{"a/b": "why a beats b"}'
        file = m.file if field == "tables" else m.notes or m.file
        raise PackError(f"{folder / file}: entry {where!r}: {first['msg']} ({shape})") from None


def _game_tools(folder: Path, manifest: Manifest, schema: Schema) -> dict[str, Any]:
    """tools.json (optional): the tools the game serves over HTTP or from its MCP server, and the
    builtin tool kinds the pack instantiates; each one of manifest.json's tools."""
    name = "tools.json"
    if not (folder / name).exists():
        return {}
    header = _whole(folder, name, GameTools)

    def marked(entry: Any) -> str:  # an entry's kind: what its marker key says, HTTP without one
        return next((k for k in ("builtin", "mcp") if isinstance(entry, dict) and k in entry), "http")

    entries: list[Any] = []
    for kind, model in (("http", HttpTool), ("mcp", McpTool), ("builtin", BuiltinTool)):
        entries += _entries(folder, name, model, [t for t in header.tools if marked(t) == kind])
    tools: dict[str, HttpTool] = {}
    mcp: dict[str, McpTool] = {}
    builtin: dict[str, BuiltinTool] = {}

    def bad(tool: str, msg: str) -> PackError:
        return PackError(f"{folder / name}: entry {tool!r}: {msg}")

    for tool in entries:
        if tool.name in tools or tool.name in mcp or tool.name in builtin:
            raise PackError(f"{folder / name}: entry {tool.name!r} defined twice")
        if tool.name not in manifest.tools:
            raise bad(tool.name, "not one of manifest.json's tools")
        if isinstance(tool, BuiltinTool):
            problem = _builtin_problem(tool, schema)
            if problem:
                raise bad(tool.name, problem)
            builtin[tool.name] = tool
            continue
        for path in tool.state:
            if not _valid_path(LiveState, path, schema):
                raise bad(tool.name, f"unknown state field {path!r}")
        for arg, kind in tool.entities.items():
            if kind not in schema.kinds:
                raise bad(tool.name, f"entities: {arg!r} names {kind!r}, not a kind of this pack")
        if isinstance(tool, McpTool):
            if header.mcp is None:
                raise bad(tool.name, 'an MCP tool, but tools.json names no MCP server ("mcp": {"url": ...})')
            mcp[tool.name] = tool
        else:
            tools[tool.name] = tool
    if tools and not header.endpoint:
        raise PackError(f"{folder / name}: the game serves {sorted(tools)}: an endpoint is needed")
    out: dict[str, Any] = {"builtin_tools": builtin} if builtin else {}
    if tools:
        out |= {"http_tools": tools, "tool_endpoint": header.endpoint}
    if mcp:
        out |= {"mcp_tools": mcp, "mcp_server": header.mcp}
    return out


def _builtin_problem(tool: BuiltinTool, schema: Schema) -> str | None:
    """What a builtin instance names that the schema lacks, or None."""
    unit = schema.kind("unit")
    if tool.builtin == "get_entity" and tool.kind not in schema.kinds:
        return f"get_entity: kind {tool.kind!r} is not a kind of this pack"
    if tool.builtin in ("rank_matchup", "context_fit"):
        matchup = next((m for m in schema.matchups if m.name == tool.matchup), None)
        if matchup is None:
            return f"{tool.builtin}: matchup {tool.matchup!r} is not in schema.json"
        if matchup.between[0] != unit:
            return f"{tool.builtin}: matchup {matchup.name!r} does not rank the {unit} kind"
        other = schema.kinds.get(matchup.between[1])
        if tool.builtin == "context_fit" and (other is None or other.role != "context"):
            return f"context_fit: matchup {matchup.name!r} is not against a context kind"
    if tool.coverage is not None and not any(m.name == tool.coverage for m in schema.matchups):
        return f"{tool.builtin}: coverage matchup {tool.coverage!r} is not in schema.json"
    attributes = schema.kinds[unit].attributes if unit is not None else {}
    for field, attr in (("spread", tool.spread), ("style", tool.style)):
        if attr is not None and attr not in attributes:
            return f"{tool.builtin}: {field} {attr!r} is not an attribute of the {unit} kind"
    if tool.builtin in ("score_group", "suggest_group") and unit is not None:
        numeric = [a for a, spec in schema.kinds[unit].attributes.items() if spec.numeric]
        if (tool.power or (numeric[0] if numeric else None)) not in numeric:
            return f"{tool.builtin}: power {tool.power!r} is not a numeric {unit} attribute"
    return None


def _optional_entries(folder: Path, name: str, model: type[_Model]) -> list[Any]:
    """Entries of an optional per-Φ-pair file (absent: none)."""
    if not (folder / name).exists():
        return []
    raw = _read(folder, name)
    if not isinstance(raw, list):
        raise PackError(f"{folder / name}: expected a list of entries")
    return _entries(folder, name, model, raw)


def _check_phi_pairs(pack: Pack, folder: Path) -> Iterator[PackError]:
    """paraphrases.json and narrations.json: every entry names a registered Φ pair, once; so does
    every Φ entry's `anchor_excluded`."""
    pairs = {(e.intent, e.sub_intent) for e in pack.phi}
    for e in pack.phi:
        if e.anchor_excluded is not None and tuple(e.anchor_excluded.split("/", 1)) not in pairs:
            yield PackError(
                f"{folder / 'phi.json'}: entry {e.intent + '/' + e.sub_intent!r}: anchor_excluded "
                f"{e.anchor_excluded!r} is not a registered Φ pair"
            )
    for name, items in (("paraphrases.json", pack.paraphrases), ("narrations.json", pack.narrations)):
        seen: set[tuple[str, str]] = set()
        for item in items:
            pair = (item.intent, item.sub_intent)
            label = f"{item.intent}/{item.sub_intent}"
            if pair not in pairs and not (name == "paraphrases.json" and pair == OUT_OF_DOMAIN):
                yield PackError(f"{folder / name}: entry {label!r}: not a registered Φ pair in phi.json")
            if pair in seen:
                yield PackError(f"{folder / name}: entry {label!r}: pair defined twice")
            seen.add(pair)
            texts = item.utterances if isinstance(item, PhiParaphrases) else item.phrases
            for text in texts:
                if not text.strip():
                    yield PackError(f"{folder / name}: entry {label!r}: empty text")


def pack_folder(ref: str | Path) -> Path:
    """The folder a pack reference names: a path to a pack folder, or an installed pack's id (a
    folder under voicecoach/packs). What `--pack` and `pack check` take."""
    folder = Path(ref).expanduser()
    if (folder / MANIFEST).is_file():
        return folder.resolve()
    if PACK_ID.fullmatch(str(ref)) and (PACKS_DIR / str(ref)).is_dir():
        return PACKS_DIR / str(ref)
    if not folder.is_dir() and PACK_ID.fullmatch(str(ref)):
        installed = ", ".join(installed_packs())
        raise PackError(f"no pack {str(ref)!r}: not a pack folder, nor an installed pack ({installed})")
    return folder  # a folder without a manifest: the loader names the missing file


def installed_packs() -> list[str]:
    """The ids of the packs under voicecoach/packs."""
    return sorted(p.name for p in PACKS_DIR.iterdir() if (p / MANIFEST).is_file())


def pack_ref(pack: Pack) -> str:
    """What `--pack` takes to name `pack` again: its id when it is the installed pack, else its folder."""
    installed = (PACKS_DIR / pack.pack_id).resolve()
    return pack.pack_id if pack.home.resolve() == installed else str(pack.home)


def example_state_path(pack: Pack | str | Path = DEFAULT_PACK) -> Path:
    """The pack's example live state (optional: demos, chat, the overlay, fixtures), next to its files."""
    return (pack.home if isinstance(pack, Pack) else pack_folder(pack)) / EXAMPLE_STATE


def load_pack(ref: str | Path = DEFAULT_PACK) -> Pack:
    """The pack `ref` names, a folder or an installed pack's id (cached by folder: packs are
    immutable once loaded)."""
    return _load_folder(pack_folder(ref))


@cache
def _load_folder(folder: Path) -> Pack:
    return load_pack_from(folder)
