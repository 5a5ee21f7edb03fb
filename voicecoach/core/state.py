"""Live-state model: the four slices of the paper (s_ic, s_fs, s_sh, s_static).

A `LiveState` is one snapshot of what the game told us, stamped with a `version` (bumped by
every update the game pushes) and the `turn_index` it was taken at. Kernels read slices;
they never mutate a snapshot: updates build a new one (`apply_patch`).

Decision fields (what Φ requires before the early tool path may fire) are named by dotted
paths such as ``ic.match.opponent_lineup``; `field_status` says whether one is present
and fresh, so W1 can tell "missing / stale" apart from "no Φ entry".

The field names are pet-arena's (creatures, skills, lineups): its wire format, which the protocol,
the stores and CoachBench pin. A pack with other kinds (voicecoach.domain.catalog) keeps its player's
units in `fs.collection` and its entities in the kind-keyed `ic.focus`, `ic.mentioned` and
`ic.match.context`; `voicecoach.domain.view.StateView` reads either layout. Those fields are left out of a
dump while empty, so a pet snapshot dumps byte for byte as before.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)
from pydantic.json_schema import JsonDict

SESSION_HISTORY_K = 20  # paper §3.3: s_sh covers the prior 20 turns
# The bound of every count a game sends (levels, stages, round, scores). Strict integers: JSON's
# `true` is no level, and a 400-digit score would be stored and read back on every turn.
MAX_COUNT = 1_000_000


class _Model(BaseModel):
    # extra="forbid": a typo in a game's snapshot is an error naming the field, not silence.
    model_config = ConfigDict(extra="forbid")


class _OmitsEmpty(_Model):
    """A model whose `OMIT_EMPTY` fields stay out of its dumps while None or empty."""

    OMIT_EMPTY: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_empty(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        for name in self.OMIT_EMPTY:
            if name in data and data[name] in (None, {}, []):
                del data[name]
        return data


# A dict keyed by the pack's kinds (`keys`: any kind, or only the kinds of one role): pack paths
# such as ``ic.focus.hero`` may enter it (voicecoach.domain.pack._valid_path).
BY_KIND: JsonDict = {"keys": "kind"}
BY_CONTEXT: JsonDict = {"keys": "context"}


# --- s_ic: intent context -------------------------------------------------------------


class MatchState(_OmitsEmpty):
    """The match the player is in, as of the snapshot."""

    OMIT_EMPTY = frozenset({"context"})

    mode: str = "ranked"
    round: int = Field(ge=1, le=MAX_COUNT, strict=True)
    rounds_total: int = Field(default=3, ge=1, le=MAX_COUNT, strict=True)
    score_player: int = Field(default=0, ge=0, le=MAX_COUNT, strict=True)
    score_opponent: int = Field(default=0, ge=0, le=MAX_COUNT, strict=True)
    player_lineup: list[str] = Field(default_factory=list, description="creature ids on the field")
    opponent_lineup: list[str] = Field(default_factory=list, description="creature ids")
    context: dict[str, str] = Field(
        default_factory=dict, description="context kind -> id (a map)", json_schema_extra=BY_CONTEXT
    )


class IntentContext(_OmitsEmpty):
    """s_ic: snapshot-time environment the utterance is interpreted in."""

    OMIT_EMPTY = frozenset({"focus", "mentioned"})

    match: MatchState | None = None
    patch_version: str | None = None
    # Filled per turn from the utterance by entity linking (voicecoach.domain.entities), so that
    # Φ can bind tool arguments without waiting for the LLM's PLAN.
    entity_links: list[str] = Field(default_factory=list, description="catalog ids mentioned")
    mentioned_creatures: list[str] = Field(default_factory=list, description="creature ids only")
    focus_creature: str | None = Field(default=None, description="first creature id mentioned")
    focus_skill: str | None = Field(default=None, description="first skill id mentioned")
    focus: dict[str, str] = Field(
        default_factory=dict, description="kind -> the first id of it mentioned", json_schema_extra=BY_KIND
    )
    mentioned: dict[str, list[str]] = Field(
        default_factory=dict, description="kind -> the ids of it mentioned", json_schema_extra=BY_KIND
    )


# --- s_fs: fact slots -----------------------------------------------------------------


class OwnedCreature(_Model):
    creature_id: str
    stage: int = Field(default=1, ge=1, le=MAX_COUNT, strict=True, description="evolution stage, 1-based")
    level: int = Field(default=1, ge=1, le=MAX_COUNT, strict=True)
    unlocked_skills: list[str] = Field(default_factory=list)


class Inventory(_Model):
    owned: list[OwnedCreature] = Field(default_factory=list)
    saved_lineups: dict[str, list[str]] = Field(default_factory=dict)

    def owns(self, creature_id: str) -> bool:
        return any(o.creature_id == creature_id for o in self.owned)

    def get(self, creature_id: str) -> OwnedCreature | None:
        return next((o for o in self.owned if o.creature_id == creature_id), None)

    def skill_unlocked(self, creature_id: str, skill_id: str) -> bool:
        owned = self.get(creature_id)
        return owned is not None and skill_id in owned.unlocked_skills


class OwnedEntity(_Model):
    """One unit of the player's collection (a pack whose schema state is "collection")."""

    id: str
    tier: int | None = Field(
        default=None, ge=1, le=MAX_COUNT, strict=True, description="progression tier, 1-based"
    )
    level: int = Field(default=1, ge=1, le=MAX_COUNT, strict=True)
    unlocked: list[str] = Field(default_factory=list, description="option ids")
    equipped: dict[str, str] = Field(default_factory=dict, description="slot -> option id")
    copies: int | None = Field(
        default=None, ge=1, le=MAX_COUNT, strict=True, description="for games that count copies"
    )


class Collection(_Model):
    """The player's units and saved groups, by the pack's own kinds."""

    units: list[OwnedEntity] = Field(default_factory=list)
    saved_groups: dict[str, list[str]] = Field(default_factory=dict, description="name -> unit ids")


class FactSlots(_OmitsEmpty):
    """s_fs: what is satisfiable for this player right now."""

    OMIT_EMPTY = frozenset({"collection"})

    inventory: Inventory | None = None
    player_level: int = Field(default=1, ge=1, le=MAX_COUNT, strict=True)
    collection: Collection | None = None


# --- s_sh: session history ------------------------------------------------------------


class AnswerMeta(_Model):
    """Paper A.3: the per-turn record W3 writes back and reads on later turns."""

    turn_index: int = Field(ge=0)
    branch: str
    guidance_type: str  # candidate kind issued, or "none"
    candidate_id: str | None = None
    lineup_id: str | None = None
    cooldown_writeback: dict[str, int] = Field(
        default_factory=dict, description="candidate id -> last turn index it is still cooling"
    )
    seed: int
    candidate_pool_hash: str


class SessionHistory(_Model):
    """s_sh: answer.meta of the prior K turns (oldest first)."""

    metas: list[AnswerMeta] = Field(default_factory=list)

    def last(self, k: int = SESSION_HISTORY_K) -> list[AnswerMeta]:
        return self.metas[-k:]


# --- s_static ---------------------------------------------------------------------------


class StaticState(_Model):
    """Fixed for a session: persona and domain rules that open every prompt."""

    persona: str = "You are a concise, friendly coach for the pet-arena game."
    domain_rules: list[str] = Field(default_factory=list)
    pack_id: str = "pet_arena"
    pack_version: str = ""


# --- the snapshot -------------------------------------------------------------------------


class LiveState(_Model):
    version: int = Field(default=0, ge=0, description="bumped on every state update")
    turn_index: int = Field(default=0, ge=0, description="turn the snapshot was taken at")
    ic: IntentContext = Field(default_factory=IntentContext)
    fs: FactSlots = Field(default_factory=FactSlots)
    sh: SessionHistory = Field(default_factory=SessionHistory)
    static: StaticState = Field(default_factory=StaticState)


class StateError(ValueError):
    """A snapshot or patch that does not validate; the message names the field."""


def _describe(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "<root>"
        parts.append(f"{loc}: {e['msg']}")
    return "; ".join(parts)


def load_state(data: dict[str, Any]) -> LiveState:
    """Validate a full snapshot; raise StateError naming every bad field."""
    try:
        return LiveState.model_validate(data)
    except ValidationError as err:
        raise StateError(f"invalid state snapshot: {_describe(err)}") from None


def merge_patch(base: Any, patch: Any) -> Any:
    """JSON merge patch (RFC 7386): dicts merge, None deletes, anything else replaces."""
    if not isinstance(patch, dict) or not isinstance(base, dict):
        return patch
    out = dict(base)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def apply_patch(state: LiveState, patch: dict[str, Any]) -> LiveState:
    """Return a new snapshot with `patch` merged in and the version bumped.

    On a bad patch the caller keeps `state` untouched: we raise before building anything.
    """
    merged = merge_patch(state.model_dump(), patch)
    if "version" not in patch:
        merged["version"] = state.version + 1
    return load_state(merged)


FieldStatus = Literal["fresh", "missing", "stale"]


def get_field(state: LiveState, path: str) -> Any:
    """Resolve a dotted decision-field path (``ic.match.round``); None when absent."""
    node: Any = state
    for part in path.split("."):
        if node is None:
            return None
        node = node.get(part) if isinstance(node, dict) else getattr(node, part, None)
    return node


def field_status(state: LiveState, path: str, turn_index: int, max_age: int = 0) -> FieldStatus:
    """Is decision field `path` usable for the early path at `turn_index`?

    A value that is present but was snapshotted more than `max_age` turns ago is stale:
    a cached value alone does not establish freshness (paper A.5).
    """
    value = get_field(state, path)
    if value is None or value == [] or value == {}:
        return "missing"
    if turn_index - state.turn_index > max_age:
        return "stale"
    return "fresh"
