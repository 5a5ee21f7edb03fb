"""One coaching session: its live state, its W3 seed and history, its store, its turn clock.

The actors share a `Session` the way a game shares its state: it is where the live state
lives between turns. Decisions never go through it (they travel as frames); a turn reads
one snapshot at its start (`begin_turn`) and the session changes only when the game pushes
state (`update_state`) or a turn commits (`commit_turn`).

Freshness: the state a game pushes is its *current* state, so each turn's snapshot is
stamped with that turn's index. A game that knows part of its state is old marks it with
`"stale": true` in a push (the snapshot keeps the turn it was really taken at), and a game
that never pushed a slice leaves it missing; W1 then takes no early path.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from loguru import logger
from pydantic import BaseModel, Field

from voicecoach.coach.store import (
    FencedError,
    Lease,
    MemorySessionStore,
    SessionStore,
    StoreError,
    TurnRecord,
)
from voicecoach.core.state import AnswerMeta, LiveState, SessionHistory, StaticState, apply_patch, load_state
from voicecoach.domain.entities import (
    Mention,
    context_in_play,
    context_named,
    focus_fields,
    link_entities,
    set_aside,
    units_in_plural,
)
from voicecoach.domain.pack import DEFAULT_PACK, Pack, check_state
from voicecoach.grounding.kernel import GroundingControl
from voicecoach.grounding.slots import QuerySlots
from voicecoach.interaction.kernel import InteractionControl, session_seed
from voicecoach.llm.client import LLMConfig
from voicecoach.perception.descriptions import Sides, describe
from voicecoach.perception.dialogue import JOINT, Exchange, Reading, read_turn, refer_to_answer, told_round
from voicecoach.perception.kernel import W1Counters
from voicecoach.perception.lexicon import Lexicon, repair
from voicecoach.perception.phi import PhiTable
from voicecoach.perception.prior import ASK_AGAIN, ASKS_WHY, elliptical, normalise
from voicecoach.talker.conditioning import ReplyConditioning, ToolOutcome
from voicecoach.talker.realizer import RECENT_REPLIES

# The configurations compared in the paper (§7.1): two baselines and the cumulative SGC ablation.
Mode = Literal["prompting", "pe_agent", "sgc_w1", "sgc_w1_w2", "sgc_full"]
MODES: tuple[Mode, ...] = ("prompting", "pe_agent", "sgc_w1", "sgc_w1_w2", "sgc_full")
# The embedded default's reply path, chosen by CoachBench (docs/BENCHMARKS.md "Talker modes").
EMBEDDED_TALKER: Literal["guarded", "llm", "template"] = "template"
# A spoken question of half a minute at ~150 words a minute is ~75 words, ~450 characters.
MAX_UTTERANCE_CHARS = 600
# A player who speaks again this soon after a transcript did not hear the answer: they were still
# talking (the coach's first word starts ~5 ms after the transcript; its acknowledgement is ~0.4 s).
CONTINUES_WITHIN_S = 1.0
# Exchanges a reference may reach back over ("him" two questions later still means him).
DIALOGUE_TURNS = 3
# Earlier utterances whose names make their related names likely in the lexicon repair's second pass.
REPAIR_CONTEXT = 2
# A served session notes each turn in the store as it begins (`SessionStore.begin_turn`, with this
# failure) until its end is stored: its index is then taken for good (a worker killed mid-turn cannot
# leave it to be reused), and the next owner finds it and stores it as cut (`ORPHANED`).
IN_PROGRESS = "in progress: the turn has not ended yet"
ORPHANED = "failover: the worker serving the session stopped or lost it before the turn ended"
# A turn's end that the store did not take (Redis restarting) is tried again for this long: the player
# heard it, so it must be stored.
COMMIT_RETRY_S = 15.0


class CoachConfig(BaseModel):
    """Everything a coach run is configured by (CLI flags and environment fill it)."""

    mode: Mode = "sgc_full"
    pack_id: str = DEFAULT_PACK  # what `load_pack` takes: an installed pack's id or a pack folder
    llm: LLMConfig = Field(default_factory=LLMConfig)
    tool_latency_ms: float | dict[str, float] = 0.0  # artificial remote game-server latency
    tool_timeout_s: float = 2.0
    # Where the game serves the pack's tools.json tools (default: the endpoint tools.json names).
    tool_endpoint: str | None = None
    slot_timeout_s: float = 3.0  # W2's slot call; past it W2 grounds on empty slots
    talker_deadline_s: float = 5.0  # from end of input: the reply goes on with what it has
    reply_deadline_s: float = 4.0  # a guarded LLM reply with nothing passed by then: the realization
    max_age: int = 0  # turns a snapshot may lag and still be fresh for Φ
    w1_max_tokens: int = 120
    reply_max_tokens: int = 120
    # How much of interpreting and wording rests on the LLM (issue "the embedded coach coaches").
    # "auto" decides by the engine: a 135M embedded model labels about one intent in ten and reads
    # its notes aloud, so there the intent prior labels, rules fill the slots and the reply is the
    # grounded realization; a capable endpoint (--llm-url) keeps the LLM for all three.
    intent_prior: Literal["auto", "on", "off"] = "auto"
    slots: Literal["auto", "rules", "llm"] = "auto"
    talker: Literal["auto", "guarded", "llm", "template"] = "auto"
    # Where the narration comes from when the prior labelled the turn: the pack's phrase for the
    # pair (no W1 call at all: on a prefilled turn Φ has dispatched and PLAN is never read) or the
    # LLM's continuation of the prefill. auto: the pack's phrase on the embedded model.
    narration: Literal["auto", "pack", "llm"] = "auto"
    # With the template talker the answer exists ~150 ms after the transcript, and a narration
    # phrase is 0.7-1.8 s of audio it would wait behind. "on": a turn still waiting for tools
    # `ack_after_s` in opens with the pack's acknowledgement, and W1's narration follows only if the
    # answer is not ready `narration_hold_s` later; any other turn speaks its answer first.
    # "off": the narration first, as with an LLM talker (always, there: its reply takes seconds).
    answer_first: Literal["on", "off"] = "on"
    narration_hold_s: float = 0.3
    # ... and the acknowledgement only if the tools have not answered this soon (local tools take
    # milliseconds; an acknowledgement before a ready answer only delays it by its own length).
    ack_after_s: float = 0.15

    @property
    def embedded(self) -> bool:
        return not self.llm.base_url

    @property
    def uses_prior(self) -> bool:
        return self.intent_prior == "on" or (self.intent_prior == "auto" and self.embedded)

    @property
    def narration_source(self) -> Literal["pack", "llm"]:
        if self.narration == "auto":
            return "pack" if self.embedded else "llm"
        return self.narration

    @property
    def prior_threshold(self) -> float | None:
        """0 on the embedded model: the prior's least confident guess still beats a 135M model's
        labels (docs/BENCHMARKS.md "Intent prior"); else the threshold its file was trained with."""
        return 0.0 if self.embedded else None

    @property
    def slot_source(self) -> Literal["rules", "llm"]:
        if self.slots == "auto":
            return "rules" if self.embedded else "llm"
        return self.slots

    @property
    def answers_first(self) -> bool:
        return self.answer_first == "on" and self.talker_mode == "template"

    @property
    def talker_mode(self) -> Literal["guarded", "llm", "template"]:
        if self.talker == "auto":
            return EMBEDDED_TALKER if self.embedded else "guarded"
        return self.talker

    @property
    def llm_roles(self) -> frozenset[str]:
        """The LLM calls this configuration's turns make ("w1", "w2", "talker", "planner"): what
        decides whether an LLM server starts (`Engines.start`) and which prompts are prewarmed.

        None on the embedded default: the prior labels every turn (threshold 0) and the pack's
        phrase narrates it, so W1 calls nothing; rules fill W2's slots; the realizer words the reply."""
        if self.mode == "prompting":
            return frozenset({"talker"})
        if self.mode == "pe_agent":
            return frozenset({"planner", "talker"})
        roles: set[str] = set()
        # Below a threshold the prior leaves the labels to the LLM; only 0 labels every turn.
        if not (self.uses_prior and self.prior_threshold == 0.0 and self.narration_source == "pack"):
            roles.add("w1")
        if self.mode != "sgc_w1" and self.slot_source == "llm":
            roles.add("w2")
        if self.talker_mode != "template":
            roles.add("talker")
        return frozenset(roles)

    @property
    def needs_llm(self) -> bool:
        return bool(self.llm_roles)


@dataclass
class Turn:
    """What one turn starts from: its index, its clock and the snapshot it reads."""

    index: int
    utterance: str
    started: float  # time.monotonic() at the end of the player's input
    snapshot: LiveState  # refreshed when the game pushes state mid-turn
    links: dict[str, Any] = field(default_factory=dict)  # the utterance's entity links (s_ic)
    continues: bool = False  # the rest of the previous turn's utterance (cut at a pause)
    # A second question in the same breath ("..., and is Galehawk ready for it?"): answered after
    # the first in the same reply, on its own snapshot (its own entity links).
    second: str | None = None
    second_snapshot: LiveState | None = None
    second_refers: bool = False  # its "it" is the first question's answer (`Session.refer_back`)
    lead: str | None = None  # said before the answer: a reading chosen for the player (`Reading.lead`)
    # Not sure whom the player means: this question is the whole reply ("Their Voltail, or your
    # Sparkwing?"), and the next turn's answer resumes the question (`perception.dialogue`).
    ask: str | None = None
    # The lexicon repair of the transcript (`perception.lexicon`): what STT wrote, and each misheard
    # span with the name put in its place, for the overlay and the record.
    transcript: str = ""
    repaired: tuple[tuple[str, str], ...] = ()
    typed: bool = False  # typed, not spoken: never merged with the next question

    @property
    def said(self) -> str:
        """The whole of what the turn asks, as the record keeps it."""
        return f"{self.utterance.rstrip(' ?.!,')}{JOINT}{self.second}" if self.second else self.utterance

    def ms(self, now: float | None = None) -> float:
        return round(((now if now is not None else time.monotonic()) - self.started) * 1000.0, 1)


@dataclass
class Session:
    session_id: str
    pack: Pack
    store: SessionStore = field(default_factory=MemorySessionStore)
    state: LiveState = field(default_factory=LiveState)
    seed: int = 0
    counters: W1Counters = field(default_factory=W1Counters)
    next_turn: int = 0
    stale: bool = False  # the game said its last push is old
    constraints: QuerySlots | None = None  # the player's constraints so far (W2 carries them over)
    # The last few heard replies, newest last: repetition is judged on the last one (`last_reply`),
    # the match line on all of them (said every other turn, it still sounds like a recording).
    recent_replies: list[str] = field(default_factory=list)
    # ... and its (intent, sub_intent): "anything else?" asks that pair again (`prior.session_rule`)
    last_pair: tuple[str, str] | None = None
    # The last few heard exchanges, oldest first: "how do I beat him?", "no wait, I meant Oakhorn"
    # and "what about Sparkwing?" are read against them (`perception.dialogue.read_turn`). Rebuilt
    # from the store on open, so a reconnect or another worker reads the same dialogue.
    dialogue: list[Exchange] = field(default_factory=list)
    phi: PhiTable = field(init=False)
    turns: dict[int, Turn] = field(default_factory=dict)
    # State updates and turn commits both rewrite `state`; the server runs them in threads
    # (they validate and store: slow work, off the event loop), so one at a time.
    _writing: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)
    # The state version the last question was asked on: a round the player says just ended is
    # counted only when the game has pushed nothing since (`perception.dialogue.told_round`).
    _version_asked: int = field(default=-1, init=False, repr=False, compare=False)
    _told: LiveState | None = field(default=None, init=False, repr=False, compare=False)
    # The connection's ownership (`SessionStore.acquire`); every write is made with it, so one that
    # lands after another connection took the session over is refused (FencedError).
    lease: Lease | None = None
    # Called (from a store thread) when a write was refused because the session was taken over.
    on_lost: Callable[[], object] | None = field(default=None, repr=False, compare=False)
    # Turns stored as in progress and not ended yet -> their record so far; what the player heard
    # of each (the playback reports it), for storing it as cut when the connection ends.
    pending: dict[int, TurnRecord] = field(default_factory=dict, repr=False, compare=False)
    heard: dict[int, str] = field(default_factory=dict, repr=False, compare=False)
    # The recent turns' store writes that take their index (`index_stored`).
    reservations: dict[int, Future[None]] = field(default_factory=dict, repr=False, compare=False)
    # Turns an older owner began and never ended, stored as cut when this connection opened: its
    # player may have heard one to the end (the worker stopped before storing it), so the client is
    # told, as it would have been had that owner closed the connection itself.
    orphaned: list[TurnRecord] = field(default_factory=list, repr=False, compare=False)
    # A leased session's writes, in order, on one thread: a turn's in-progress record always lands
    # before its end, and no write waits on the event loop.
    _writer: ThreadPoolExecutor | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._version_asked = self.state.version
        self.phi = PhiTable(self.pack.phi)
        Lexicon.of(self.pack)  # built at open (its English word list takes ~130 ms), not on the first turn

    @property
    def last_reply(self) -> str | None:
        """The previous heard turn's reply (repetition is judged on it)."""
        return self.recent_replies[-1] if self.recent_replies else None

    @property
    def last_question(self) -> str | None:
        """The previous heard turn's question, as it was read."""
        return self.dialogue[-1].utterance if self.dialogue else None

    @classmethod
    def open(
        cls,
        session_id: str,
        store: SessionStore | None = None,
        state: LiveState | None = None,
        *,
        pack: Pack,
        seed: int | None = None,
        lease: Lease | None = None,
    ) -> Session:
        """Open or resume `session_id`: history, last state and turn index come from the store.

        `lease`: the connection owns the session (acquired just before, so nothing an older owner
        writes can land after these reads); turns an older owner left in progress are stored as cut."""
        store = store if store is not None else MemorySessionStore()
        saved = store.load_state(session_id)
        if state is not None:
            check_state(pack, state)
        base = state or saved or LiveState()
        history = SessionHistory(metas=store.load_history(session_id))
        static = StaticState(
            persona=pack.persona,
            domain_rules=pack.domain_rules,
            pack_id=pack.pack_id,
            pack_version=pack.version,
        )
        # A resumed session goes on from the last turn the player heard: "anything else?" asks
        # its pair again, and its picks are not repeated.
        orphaned = []
        if lease is not None:
            # Begun by an older owner that never ended them (killed, or stopped and taken over).
            for orphan in store.turns_in_progress(session_id):
                cut = orphan.model_copy(update={"failure": ORPHANED, "heard": ""})
                store.save_turn(session_id, cut, lease)
                orphaned.append(cut)
        last_turns = store.load_turns(session_id, limit=20)
        heard_turns = [r for r in last_turns if r.completed]
        heard = heard_turns[-1] if heard_turns else None
        return cls(
            session_id=session_id,
            pack=pack,
            store=store,
            state=base.model_copy(update={"sh": history, "static": static}),
            seed=seed if seed is not None else session_seed(session_id),
            next_turn=store.next_turn_index(session_id),
            recent_replies=[r.reply for r in heard_turns[-RECENT_REPLIES:]],
            last_pair=(heard.intent, heard.sub_intent) if heard and heard.sub_intent else None,
            dialogue=[Exchange(r.utterance, r.reply) for r in heard_turns[-DIALOGUE_TURNS:]],
            lease=lease,
            orphaned=orphaned,
        )

    def _write(self, write: Callable[[], None], retry: bool = False) -> Future[None]:
        """Run a store write on the session's writer thread (inline without a lease), in order.

        `retry`: a store that does not answer is tried again for COMMIT_RETRY_S. A write refused
        because another connection took the session over calls `on_lost` and raises FencedError."""

        def run() -> None:
            deadline = time.monotonic() + COMMIT_RETRY_S
            pause = 0.1
            while True:
                try:
                    return write()
                except FencedError:
                    if self.on_lost is not None:
                        self.on_lost()
                    raise
                except StoreError as err:
                    if not retry or err.code != "unavailable" or time.monotonic() + pause > deadline:
                        raise
                    logger.warning(f"session {self.session_id}: store unavailable, retrying: {err}")
                    time.sleep(pause)
                    # Short: a store back from a restart has the turns heard meanwhile written at
                    # once; each one waiting is a turn a second fault would leave stored as cut.
                    pause = min(pause * 2, 0.25)

        if self.lease is None:
            done: Future[None] = Future()
            try:
                run()
                done.set_result(None)
            except BaseException as err:
                done.set_exception(err)
            return done
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix=f"store-{self.session_id[:16]}")
        return self._writer.submit(run)

    def close(self) -> None:
        """Wait for the session's writes to land (or fail) and stop its writer thread."""
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None

    def note_reply(self, record: TurnRecord) -> None:
        """The turn's reply was made and is playing: if the connection ends before it is heard to
        the end, the turn is stored as cut with all of it (`finish_turns`), not just its question."""
        if record.turn_index in self.pending:
            self.pending[record.turn_index] = record

    def finish_turns(self, reason: str) -> list[TurnRecord]:
        """Store every turn still in progress as cut (`reason`, what the player heard of it): the
        connection ends (the client went, a takeover, a shutdown). The cut records, for turn-failed
        events; a store that refuses them (taken over, down) leaves them to the next owner."""
        cut = []
        for index, record in sorted(self.pending.items()):
            record = record.model_copy(
                update={"completed": False, "failure": reason, "heard": self.heard.get(index, "")}
            )
            try:
                self.commit_turn(record, retry=False)  # a shutdown waits for no store
            except StoreError as err:
                logger.warning(f"session {self.session_id}: cut turn {index} not stored ({err.code}): {err}")
                continue
            cut.append(record)
        return cut

    def update_state(
        self, snapshot: dict[str, Any] | None = None, patch: dict[str, Any] | None = None
    ) -> None:
        """Apply a game push. Raises StateError naming the field; the previous state is kept.

        Safe from any thread (the server calls it off the event loop)."""
        with self._writing:
            self._update_state(snapshot, patch)

    def _update_state(self, snapshot: dict[str, Any] | None, patch: dict[str, Any] | None) -> None:
        data = dict(snapshot if snapshot is not None else patch or {})
        stale = bool(data.pop("stale", False))
        # The game owns s_ic and s_fs; s_sh and s_static belong to the session.
        for owned in ("sh", "static"):
            data.pop(owned, None)
        if snapshot is not None:
            new = load_state(
                {**data, "sh": self.state.sh.model_dump(), "static": self.state.static.model_dump()}
            )
        else:
            new = apply_patch(self.state, data)
        check_state(self.pack, new)
        new = new.model_copy(update={"version": self.state.version + 1})
        # Stored first: a store that refuses it (StoreError) leaves the session answering from the
        # state it has stored, the one a resumed session would find.
        self._write(lambda: self.store.save_state(self.session_id, new, self.lease)).result()
        self.state = new
        self.stale = stale
        for turn in self.turns.values():  # a turn in flight reads the new state from here on
            turn.snapshot = self._snapshot(turn.index, turn.links, link_entities(self.pack, turn.utterance))

    def begin_turn(self, utterance: str, speech_started: float | None = None, typed: bool = False) -> Turn:
        """Start a turn: repair misheard names, link the utterance's entities into s_ic and stamp
        the snapshot.

        `speech_started` (time.monotonic(), speech only): when the player began saying it. Speech
        that began within CONTINUES_WITHIN_S of the previous turn's transcript is the rest of
        that utterance, cut at a pause ("We took round one." ... "Keep the same team?"): the turn
        is asked as the whole of it. An utterance longer than any spoken question is cut to
        MAX_UTTERANCE_CHARS before it reaches a prompt (a pasted 200k-character text would
        otherwise fill three LLM calls). `typed`: a typed question, never merged with another one
        (each was sent whole); a merge too long keeps the newest words, and cuts the older ones.
        """
        previous = self.turns.get(self.next_turn - 1)
        continues = (
            speech_started is not None
            and not typed
            and previous is not None
            and not previous.typed
            and speech_started - previous.started < CONTINUES_WITHIN_S
        )
        if continues and previous is not None:
            # What players say is logged at DEBUG only (INFO logs go to operators' log stores).
            logger.info(f"turn {self.next_turn}: continues turn {self.next_turn - 1}")
            logger.debug(f"turn {self.next_turn}: {utterance!r} continues {previous.utterance!r}")
            room = MAX_UTTERANCE_CHARS - len(utterance) - 1
            if room > 0:
                utterance = f"{previous.utterance[-room:]} {utterance}"
        if len(utterance) > MAX_UTTERANCE_CHARS:
            logger.warning(f"utterance of {len(utterance)} characters cut to {MAX_UTTERANCE_CHARS}")
            utterance = utterance[:MAX_UTTERANCE_CHARS]
        index = self.next_turn
        self.next_turn += 1
        transcript = utterance
        fixed = repair(
            Lexicon.of(self.pack), utterance, [e.utterance for e in self.dialogue[-REPAIR_CONTEXT:]]
        )
        if fixed.changes:
            logger.debug(f"turn {index}: {utterance!r} repaired to {fixed.text!r}")
            utterance = fixed.text
        try:
            reading = read_turn(self.pack, self.state, utterance, self.dialogue)
        except Exception:  # a defect in the reading must not leave the player in silence: as said
            logger.exception(f"turn {index}: the dialogue reading failed; answering the words as said")
            reading = Reading(utterance)
        if reading.text != utterance:
            logger.debug(
                f"turn {index}: {utterance!r} read as {reading.text!r} ({'; '.join(reading.resolved)})"
            )
            utterance = reading.text
        # ("anything that hits water besides Sparkwing": about water, Sparkwing left out by W2)
        mentions = set_aside(utterance, link_entities(self.pack, utterance))
        unit = self.pack.catalog.schema.kind("unit")
        if (
            not any(m.kind == unit for m in mentions)
            and self.dialogue
            and ASKS_WHY.search(normalise(utterance))
        ):
            # "Why?", "are you sure? water on water?": asked of the last answer, so about what the
            # last question named.
            mentions = link_entities(self.pack, self.dialogue[-1].utterance)
        elif not mentions and self.dialogue and elliptical(utterance):
            # "Worth grinding for?" right after "Phoenix Rite needs Pyralis": what the last
            # exchange was about (its question's names, and the first unit its answer named).
            last = self.dialogue[-1]
            mentions = link_entities(self.pack, last.utterance)
            if not any(m.kind == unit for m in mentions):
                mentions += [m for m in link_entities(self.pack, last.reply) if m.kind == unit][:1]
        elif (
            not mentions
            and self.dialogue
            and not ASK_AGAIN.search(normalise(utterance))
            and not units_in_plural(self.pack, utterance)
        ):
            # "Tell me about Lorcan" - "what should I unlock next": a question that needs a unit and
            # names nothing is about the one the last question named alone (its focus carries over;
            # "can I use Granite Bulwark yet" names the skill, whose own learner it is about; "a
            # different team please" asks for something else, about no one; "how many heroes have I
            # got" asks about several).
            said = {m.id: m for m in link_entities(self.pack, self.dialogue[-1].utterance) if m.kind == unit}
            if len(said) == 1:
                mentions = [*mentions, *said.values()]
        links = context_in_play(self.pack, self.state, utterance, focus_fields(mentions, self.pack))
        snapshot = self._snapshot(index, links, mentions)
        if self.state.version != self._version_asked:
            self._told = None  # the game pushed since the last question: its match stands
        elif (counted := told_round(self._told or snapshot, utterance)) is not None:
            # "We just dropped that round" and the game pushed nothing since the last question.
            self._told = counted
        if self._told is not None:
            snapshot = snapshot.model_copy(
                update={"ic": snapshot.ic.model_copy(update={"match": self._told.ic.match})}
            )
        self._version_asked = self.state.version
        turn = Turn(
            index=index, utterance=utterance, started=time.monotonic(), snapshot=snapshot, links=links,
            continues=continues, second=reading.second, ask=reading.ask, transcript=transcript,
            repaired=tuple(fixed.changes), second_refers=reading.second_refers, lead=reading.lead,
            typed=typed,
        )  # fmt: skip
        if reading.second is not None:
            second = link_entities(self.pack, reading.second)
            fields = context_in_play(self.pack, self.state, reading.second, focus_fields(second, self.pack))
            turn.second_snapshot = self._snapshot(index, fields, second)
        self.turns = {index: turn}  # only the current turn's clock is needed
        if (lease := self.lease) is not None:
            # Its index taken in the store now (off the loop, not waited for: the writer keeps order).
            reserved = TurnRecord(
                session_id=self.session_id, turn_index=index, utterance=turn.said, completed=False,
                failure=IN_PROGRESS, heard="", fence=lease.fence,
            )  # fmt: skip
            self.pending[index] = reserved
            # Retried as a turn's end is: an index not taken before a kill would be given again.
            taken = self._write(lambda: self.store.begin_turn(self.session_id, reserved, lease), retry=True)
            taken.add_done_callback(self._reserved)
            self.reservations = {i: f for i, f in self.reservations.items() if i > index - 8} | {index: taken}
        return turn

    def index_stored(self, index: int) -> Future[None] | None:
        """The write that takes turn `index` in the store (None without a lease). The client is
        told a turn completed only once it landed: a worker killed before it would have the index
        given again by the next owner, and a client must never see one index completed twice."""
        return self.reservations.get(index)

    def _reserved(self, done: Future[None]) -> None:
        if (err := done.exception()) is not None:
            logger.warning(f"session {self.session_id}: a turn's index not reserved: {err}")

    def _snapshot(self, index: int, links: dict[str, Any], mentions: list[Mention]) -> LiveState:
        """The state the turn is answered from: its links, and the map (a context entity) it
        names in place of the match's ("who's good on Copperline Yard")."""
        stamp = self.state.turn_index if self.stale else index
        ic = self.state.ic.model_copy(update=links)
        state = self.state.model_copy(update={"turn_index": stamp, "ic": ic})
        return state if self.stale else context_named(self.pack, state, mentions) or state

    def refer_back(self, index: int, question: str, asked: str, answer: str) -> tuple[str, LiveState]:
        """A second question about the first's answer ("..., and who counters it?"), read now that
        the answer is known: its text and the snapshot its entities link into."""
        question = refer_to_answer(self.pack, question, asked, answer)
        # "..., and does it beat the turtle": its descriptions read as the first question's were
        question = describe(self.pack, Sides(self.pack, self.state), question)[0]
        mentions = link_entities(self.pack, question)
        fields = context_in_play(self.pack, self.state, question, focus_fields(mentions, self.pack))
        return question, self._snapshot(index, fields, mentions)

    def turn(self, index: int) -> Turn | None:
        return self.turns.get(index)

    def commit_turn(self, record: TurnRecord, retry: bool = True) -> None:
        """A finished turn: persist it; if the player heard it to the end, append its answer.meta
        to s_sh (guidance of a failed, cut or interrupted reply was not delivered: no cooldown).
        Callable from any thread; `retry`: a store that does not answer is retried (COMMIT_RETRY_S).
        """
        if self.lease is not None:
            pending = self.pending.get(record.turn_index)
            update: dict[str, object] = {"fence": self.lease.fence}
            if pending is not None and not record.utterance:
                update["utterance"] = pending.utterance
            record = record.model_copy(update=update)
        with self._writing:
            self._write(lambda: self.store.save_turn(self.session_id, record, self.lease), retry).result()
            self.pending.pop(record.turn_index, None)
            self.heard.pop(record.turn_index, None)
            if record.completed:
                self.recent_replies = [*self.recent_replies, record.reply][-RECENT_REPLIES:]
                self.last_pair = (record.intent, record.sub_intent) if record.sub_intent else None
                self.dialogue = [*self.dialogue, Exchange(record.utterance, record.reply)][-DIALOGUE_TURNS:]
            if record.completed and record.meta is not None:
                metas = [*self.state.sh.metas, record.meta]
                self.state = self.state.model_copy(update={"sh": SessionHistory(metas=metas)})


def turn_record(
    session_id: str,
    turn_index: int,
    utterance: str,
    reply: str,
    outcomes: list[ToolOutcome],
    latency: dict[str, float | None],
    *,
    intent: str = "",
    sub_intent: str | None = None,
    narration: str = "",
    c2: GroundingControl | None = None,
    conditioning: ReplyConditioning | None = None,
    c3: InteractionControl | None = None,
    meta: AnswerMeta | None = None,
    labelled_by: str = "",
    reply_source: str = "",
    guard_drops: dict[str, int] | None = None,
    repaired: tuple[tuple[str, str], ...] = (),
) -> TurnRecord:
    """A completed turn as the store keeps it: the one place a TurnRecord is assembled.

    The SGC chain's Talker passes its decisions and the reply's conditioning; a baseline passes
    none of them (no c1 labels, no c2, no conditioning: its c2 / c3 summaries stay empty).
    `latency` is milestone -> ms since end of input; milestones that did not happen are None.
    """
    return TurnRecord(
        session_id=session_id,
        turn_index=turn_index,
        utterance=utterance,
        intent=intent,
        sub_intent=sub_intent,
        narration=narration,
        reply=reply,
        tools=[{"tool": o.tool, "args": o.args, "ok": o.ok, "ms": o.ms} for o in outcomes],
        c2={
            "plan": [p.type for p in c2.plan],
            "conflicts": [c.constraint for c in c2.conflicts if not c.satisfied],
        }
        if c2
        else {},  # fmt: skip
        c3={
            "guidance": c3.guidance.candidate_id if c3 and c3.guidance else None,
            "must_not": conditioning.must_not_say,
        }
        if conditioning is not None
        else {},  # fmt: skip
        meta=meta,
        latency={str(name): ms for name, ms in latency.items() if ms is not None},
        labelled_by=labelled_by,
        reply_source=reply_source,
        guard_drops=guard_drops or {},
        repaired=[list(change) for change in repaired],
    )
