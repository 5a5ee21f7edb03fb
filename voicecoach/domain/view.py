"""StateView: the live state as the kernels read it, in the pack's own kinds.

A pet-arena snapshot keeps the player's creatures in `fs.inventory` (creature_id, stage,
unlocked_skills) and names the utterance's entities in `ic.focus_creature` / `focus_skill`; a pack
with a schema.json keeps its units in `fs.collection` (id, tier, unlocked, equipped) and its
entities in `ic.focus[kind]` (voicecoach.core.state). `StateView(pack, state)` answers the questions
the kernels ask (does the player own this unit, can they use this option, can they field this
group, what is in focus) the same way for both, chosen by the schema's `state` profile, so a
kernel written against the view runs on any pack.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from voicecoach.core.state import LiveState
from voicecoach.domain.pack import Pack


@dataclass(frozen=True)
class Owned:
    """One unit the player has, in either profile's terms."""

    id: str
    tier: int | None  # pet: the evolution stage
    level: int
    unlocked: tuple[str, ...]  # option ids (pet: unlocked skills)
    equipped: dict[str, str] = field(default_factory=dict)  # slot -> option id (classic: none)


class StateView:
    def __init__(self, pack: Pack, state: LiveState) -> None:
        self.pack, self.state = pack, state
        self.catalog = pack.catalog
        schema = self.catalog.schema
        self.unit_kind = schema.kind("unit") or ""
        self.option_kind = schema.kind("option")
        self.group_kind = schema.kind("group")
        self.classic = schema.state == "classic"
        self._options_field = schema.options_field()
        self._units = self._read_owned()
        self._owned: dict[str, Owned] = {}
        self._norms: dict[str, int | None] = {}  # unit -> its level_norm
        for o in self._units:
            self._owned.setdefault(o.id, o)  # a unit listed twice: the first, as Inventory.get finds it

    def _read_owned(self) -> list[Owned]:
        fs = self.state.fs
        if self.classic:
            owned = fs.inventory.owned if fs.inventory is not None else []
            return [Owned(o.creature_id, o.stage, o.level, tuple(o.unlocked_skills)) for o in owned]
        units = fs.collection.units if fs.collection is not None else []
        return [Owned(u.id, u.tier, u.level, tuple(u.unlocked), dict(u.equipped)) for u in units]

    # --- the player's units ----------------------------------------------------------------------

    @property
    def known(self) -> bool:
        """Did the game send the player's units at all (None: nothing can be verified)?"""
        fs = self.state.fs
        return (fs.inventory if self.classic else fs.collection) is not None

    def owned(self) -> list[Owned]:
        """The player's units, in the snapshot's order."""
        return list(self._units)

    def owns(self, unit_id: str) -> bool:
        return unit_id in self._owned

    def unit(self, unit_id: str) -> Owned | None:
        return self._owned.get(unit_id)

    def level_norm(self, unit_id: str) -> int | None:
        """The level a unit is judged against: the median of the player's fielded units (else of
        their roster), the unit itself left out; None with nothing to compare."""
        if unit_id not in self._norms:  # once per unit: a team search asks it for every team tried
            fielded = [u for u in (self.unit(v) for v in self.player_side()) if u is not None]
            levels = sorted(u.level for u in fielded or self.owned() if u.id != unit_id)
            self._norms[unit_id] = levels[len(levels) // 2] if levels else None
        return self._norms[unit_id]

    def far_behind(self, unit_id: str) -> bool:
        """Under half the level of the player's others (`level_norm`): a unit that will lose on
        levels whatever its matchup, so it is neither picked first nor recommended as ready."""
        unit, norm = self.unit(unit_id), self.level_norm(unit_id)
        return unit is not None and norm is not None and unit.level * 2 < norm

    def tiers(self, unit_id: str) -> list[str]:
        """The unit's tiers in order (the schema's progression field: pet's evolution stages); []
        for a pack without one."""
        prog = self.catalog.schema.progression
        entity = self.catalog.get(prog.kind, unit_id) if prog is not None else None
        value = entity.value(prog.field) if entity is not None and prog is not None else None
        return [str(x) for x in value] if isinstance(value, list) else []

    def saved_groups(self) -> dict[str, list[str]]:
        fs = self.state.fs
        if self.classic:
            return dict(fs.inventory.saved_lineups) if fs.inventory is not None else {}
        return dict(fs.collection.saved_groups) if fs.collection is not None else {}

    # --- options and groups ------------------------------------------------------------------------

    def options_of(self, unit_id: str) -> list[str]:
        """The options a unit can have (its catalog relation: pet's skills), starter to gated."""
        unit = self.catalog.get(self.unit_kind, unit_id)
        if unit is None or self._options_field is None:
            return []
        return list(unit.value(self._options_field) or [])

    def learners(self, option_id: str) -> list[str]:
        """The units that can have the option (pet: the creatures that learn a skill), catalog order."""
        units = self.catalog.entities.get(self.unit_kind, {})
        return [uid for uid in units if option_id in self.options_of(uid)]

    def option_usable(self, option_id: str, unit_id: str | None = None) -> bool:
        """Can the player use the option now, on `unit_id` or on any unit that can have it? Unlocked
        in the snapshot, or gate-free on an owned unit that has it: a snapshot that omits an option
        known from the start must not make the coach apologise for it."""
        option = self.catalog.get(self.option_kind, option_id) if self.option_kind else None
        for uid in [unit_id] if unit_id else self.learners(option_id):
            owned = self._owned.get(uid)
            if owned is None:
                continue
            if option_id in owned.unlocked:
                return True
            if option is not None and not option.value("unlock") and option_id in self.options_of(uid):
                return True
        return False

    def members(self, group_id: str) -> list[str]:
        group = self.catalog.get(self.group_kind, group_id) if self.group_kind else None
        members = self.catalog.schema.kinds[self.group_kind].members if self.group_kind else None
        return list(group.value(members) or []) if group is not None and members else []

    def fieldable(self, group_id: str) -> bool:
        """Does the player own every unit of the group?"""
        members = self.members(group_id)
        return bool(members) and all(self.owns(m) for m in members)

    # --- the match and the utterance ----------------------------------------------------------------

    def player_side(self) -> list[str]:
        match = self.state.ic.match
        return list(match.player_lineup) if match is not None else []

    def opponent_side(self) -> list[str]:
        match = self.state.ic.match
        return list(match.opponent_lineup) if match is not None else []

    def context(self, kind: str) -> str | None:
        """The match's entity of a context kind (a map), or None."""
        match = self.state.ic.match
        return match.context.get(kind) if match is not None else None

    def focus(self, kind: str) -> str | None:
        """The first entity of `kind` the utterance named (pet: ic.focus_creature / focus_skill)."""
        ic = self.state.ic
        if kind in ic.focus:
            return ic.focus[kind]
        if kind == self.unit_kind:
            return ic.focus_creature
        if kind == self.option_kind:
            return ic.focus_skill
        return None

    def mentioned(self, kind: str) -> list[str]:
        """Every entity of `kind` the utterance named (pet's units: ic.mentioned_creatures)."""
        ic = self.state.ic
        if kind in ic.mentioned:
            return list(ic.mentioned[kind])
        return list(ic.mentioned_creatures) if kind == self.unit_kind else []
