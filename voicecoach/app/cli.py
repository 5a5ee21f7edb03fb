"""The `voicecoach` command.

    voicecoach demo   the SGC kernels on one example turn: labels + state in, c1/c2/c3 out
    voicecoach chat   the text-mode coach: type, and watch narration, tools, decisions, reply
    voicecoach serve  the live coach: a websocket for games (docs/PROTOCOL.md) and the in-game overlay
    voicecoach replay the voice coach over audio fixtures: output WAVs, timelines, S2FA per turn
    voicecoach bench  benchmarks: turn (text timings), latency (S2FA), load (many players), quality
    voicecoach pack   domain packs: `check PATH` lists every problem, `new NAME` writes a skeleton

Pipecat and the engines are imported inside the commands that need them, so `--help` and
`demo` start instantly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import textwrap
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from voicecoach.coach.config import (
    add_coach_arguments,
    add_engine_arguments,
    add_pack_argument,
    add_replay_arguments,
    add_serve_arguments,
    coach_config,
)
from voicecoach.core.console import Startup, report_console, show_defaults
from voicecoach.core.state import LiveState, StateError, load_state
from voicecoach.domain.pack import DEFAULT_PACK, PackError, example_state_path, load_pack

console = report_console()
EXAMPLE_STATE = example_state_path(DEFAULT_PACK)


def _read_state(path: Path) -> LiveState:
    try:
        return load_state(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise SystemExit(f"state file not found: {path}") from None
    except json.JSONDecodeError as err:
        raise SystemExit(f"{path}: not valid JSON ({err})") from None
    except StateError as err:
        raise SystemExit(f"{path}: {err}") from None


# --- demo ------------------------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    """Run the real kernels on one turn, with the labels W1's LLM would have produced."""
    from voicecoach.domain.entities import focus_fields, link_entities
    from voicecoach.grounding.kernel import ground
    from voicecoach.grounding.slots import parse_query_slots
    from voicecoach.interaction.kernel import interact, recommend_violations, session_seed
    from voicecoach.perception.kernel import W1Decision
    from voicecoach.perception.phi import PhiTable, tool_validator
    from voicecoach.talker.conditioning import conditioning
    from voicecoach.tools.registry import run_tool

    pack = load_pack()
    state = _read_state(Path(args.state))
    state = state.model_copy(
        update={"ic": state.ic.model_copy(update=focus_fields(link_entities(pack, args.say), pack))}
    )
    slots, errors = parse_query_slots(args.slots, pack)
    if errors:
        raise SystemExit(f"--slots: {'; '.join(errors)}")

    decision = W1Decision(PhiTable(pack.phi), validate=tool_validator(pack))
    dispatch = (
        decision.on_sub_intent(args.intent, args.sub_intent, state, state.turn_index) or decision.finish()
    )
    outcomes = []
    for call in dispatch.calls if dispatch else []:
        result = run_tool(pack, state, call.tool, call.args)
        outcomes.append((call, result))
    entry = decision.entry
    branch = entry.branch if entry else "knowledge-qa"
    c2 = ground(slots, state, pack, args.intent, args.sub_intent)
    violates = recommend_violations(pack, state, set(slots.excluded_entities))
    pair = f"{args.intent}/{args.sub_intent}"
    c3, meta = interact(
        state, pack, branch, state.turn_index, session_seed(args.session), violates, pair=pair
    )

    from voicecoach.talker.conditioning import ToolOutcome

    cond = conditioning(
        pack, c2, c3, [ToolOutcome(tool=c.tool, args=c.args, ok=True, result=r) for c, r in outcomes]
    )

    table = Table(title=f"SGC control decisions for: {args.say!r}", show_lines=True)
    table.add_column("wrapper", style="bold")
    table.add_column("decision")
    table.add_row(
        "input", f"intent={args.intent} sub_intent={args.sub_intent}\nentities={state.ic.entity_links}"
    )
    tools = ", ".join(f"{c.tool}({json.dumps(c.args)})" for c, _ in outcomes) or "none"
    table.add_row("c1 (W1)", f"outcome={decision.outcome} branch={branch}\n{decision.reason}\ntools: {tools}")
    conflicts = "\n".join(
        escape(f"[{c.tier}] {'ok' if c.satisfied else 'NO'} {c.constraint}: {c.detail}") for c in c2.conflicts
    )
    plan = ", ".join(f"{p.type}{'+' if p.polarity > 0 else '-' if p.polarity < 0 else ''}" for p in c2.plan)
    table.add_row("c2 (W2)", f"{conflicts or 'no conflicts'}\nplan: {plan or 'empty'}")
    guidance = c3.guidance.text if c3.guidance else f"none ({c3.abstain_reason})"
    table.add_row("c3 (W3)", f"branch={c3.branch} guidance: {guidance}\ncooling: {c3.cooling or 'nothing'}")
    table.add_row(
        "Talker",
        "MUST: " + " | ".join(cond.must_say) + "\nMUST NOT: " + " | ".join(cond.must_not_say or ["-"]),
    )
    console.print(table)
    console.print(f"answer.meta: {meta.model_dump_json()}")
    return 0


# --- chat ------------------------------------------------------------------------------------

HELP = """commands: /state FILE (reload a snapshot)  /patch JSON (merge a patch)  /show  /quit"""


def _printer() -> Any:
    """What `chat` shows of each of a turn's frames, by the milestone it marks."""
    from voicecoach.actors.frames import NarrationTextFrame, ReplyTextFrame, turn_milestone
    from voicecoach.core.latency import Milestone

    def tools(frame: Any) -> str:
        calls = ", ".join(c.tool for c in frame.calls) or "no tools"
        return f"tools fired ({frame.source}): {calls}"

    def results(frame: Any) -> str:
        done = ", ".join(f"{o.tool} {'ok' if o.ok else 'FAILED'} {o.ms:.0f} ms" for o in frame.outcomes)
        return f"tool results: {done or '-'}"

    def c2(frame: Any) -> str | None:
        if frame.control is None:
            return None
        plan = ", ".join(p.type for p in frame.control.plan) or "-"
        hard = [c.constraint for c in frame.control.conflicts if c.tier == "hard" and not c.satisfied]
        return f"c2 plan: {plan}; hard conflicts: {hard or 'none'}"

    def c3(frame: Any) -> str | None:
        if frame.control is None:
            return None
        g = frame.control.guidance
        return f"c3 guidance: {g.candidate_id if g else 'none'}"

    lines = {
        Milestone.C1: lambda f: f"c1 {f.intent}/{f.sub_intent} → {f.outcome} ({f.branch})",
        Milestone.TOOL_DISPATCH: tools,
        Milestone.TOOL_RESULTS: results,
        Milestone.C2: c2,
        Milestone.C3: c3,
    }

    def on_frame(frame: Any, ms: float) -> None:
        milestone = turn_milestone(frame)
        if isinstance(frame, NarrationTextFrame | ReplyTextFrame):
            console.print(frame.text, end="", style="cyan" if isinstance(frame, NarrationTextFrame) else None)
        elif milestone is Milestone.NARRATION_END:
            console.print()
        elif milestone is Milestone.TURN_COMPLETED:
            console.print(f"\n[dim]{ms:7.0f} ms  turn done[/]")
        elif milestone in lines and (line := lines[milestone](frame)) is not None:
            console.print(f"[dim]{ms:7.0f} ms  {line}[/]")

    return on_frame


async def _chat(args: argparse.Namespace) -> int:
    from voicecoach.coach.engines import Engines, describe_llm, load_coach_pack
    from voicecoach.coach.session import Session
    from voicecoach.coach.store import open_store
    from voicecoach.llm.client import LLMError

    config = coach_config(args)
    startup = Startup(console)
    try:
        with startup.step(f"pack {config.pack_id}"):
            pack = load_coach_pack(config)
    except PackError as err:
        raise SystemExit(str(err)) from None
    # The coach's own lines are what a player reads: DEBUG lines would interleave with the prompt.
    log_level("DEBUG" if args.verbose else "WARNING")
    state = _read_state(Path(args.state) if args.state else example_state_path(pack))
    try:
        with startup.step(describe_llm(config)):
            engines = await asyncio.to_thread(Engines.start, config)
    except LLMError as err:  # an endpoint that does not answer, the LLM extra not installed
        raise SystemExit(str(err)) from None
    with startup.step("Pipecat and the coach's actors"):
        from voicecoach.pipelines.text import TextCoach
    store = open_store(args.store)
    session = Session.open(args.session, store=store, state=state, pack=pack)
    coach = TextCoach(session, config, engines, on_frame=_printer())
    try:
        with startup.step(
            "the coach's pipeline" + (", its LLM prompts prewarmed" if config.needs_llm else "")
        ):
            await coach.start()
        startup.ready(f"session {args.session!r}, turn {session.next_turn}. {HELP}")
        await _chat_loop(coach)
    finally:
        await coach.stop()
        await engines.close()
        store.close()
    return 0


async def _chat_loop(coach: Any) -> None:
    """Read the player's lines until /quit or end of input. A typo in a command (a /state file
    that is missing or not a state, a /patch that is not JSON or is refused) is said, and the
    session goes on with its previous state."""
    while True:
        try:
            line = (await asyncio.to_thread(input, "\nyou> ")).strip()
        except EOFError:
            break
        if not line:
            continue
        if line in ("/quit", "/exit"):
            break
        if line == "/show":
            console.print_json(coach.session.state.model_dump_json(exclude={"sh", "static"}))
        elif line.startswith(("/state ", "/patch ")):
            try:
                if line.startswith("/state "):
                    path = Path(line[7:].strip()).expanduser()
                    await coach.push_state(snapshot=_json_object(path.read_text(encoding="utf-8")))
                else:
                    await coach.push_state(patch=_json_object(line[7:]))
            except (OSError, ValueError) as err:  # not found, not UTF-8, not JSON, a StateError
                what = "state file" if line.startswith("/state ") else "patch"
                why = (
                    str(err) if isinstance(err, OSError) or what == "patch" else f"{line[7:].strip()}: {err}"
                )
                console.print(f"[red]{what} refused, the previous state is kept: {escape(why)}[/]")
            else:
                console.print(f"[dim]state updated (version {coach.session.state.version})[/]")
        elif line.startswith("/"):
            console.print(HELP)
        else:
            console.print("[bold]coach>[/] ", end="")
            result = await coach.ask(line)
            if not result.completed:
                console.print("[red]the turn did not complete in time[/]")


def _json_object(text: str) -> dict[str, Any]:
    """A state or a patch: a JSON object ("5" or "[]" would reach the session as one and fail there)."""
    value = json.loads(text)
    if not isinstance(value, dict):
        kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
        raise StateError(f"a JSON object {{...}} is needed, this is {kinds.get(type(value), 'a number')}")
    return value


def log_level(level: str) -> None:
    """loguru (ours and Pipecat's) to stderr from `level` up. Set before Pipecat is imported: its
    import logs a banner at INFO."""
    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level=level.upper())


def cmd_chat(args: argparse.Namespace) -> int:
    return asyncio.run(_chat(args))


def cmd_serve(args: argparse.Namespace) -> int:
    log_level(args.log_level)
    from voicecoach.pipelines.server import run

    return run(args)


def cmd_replay(args: argparse.Namespace) -> int:
    from voicecoach.pipelines.replay import run

    return asyncio.run(run(args))


def cmd_bench_latency(args: argparse.Namespace) -> int:
    from voicecoach.pipelines.bench.latency import run

    return asyncio.run(run(args))


def cmd_bench_load(args: argparse.Namespace) -> int:
    from voicecoach.pipelines.bench.load import run

    return asyncio.run(run(args))


def cmd_bench_turn(args: argparse.Namespace) -> int:
    from voicecoach.pipelines.bench import turn as bench_turn

    config = coach_config(args)
    modes = args.modes.split(",") if args.modes else None
    return bench_turn.main(modes, args.limit, config, Path(args.out) if args.out else None)


def cmd_token(args: argparse.Namespace) -> int:
    """`voicecoach token mint`: what a game's backend does per player session, for development."""
    import os

    from voicecoach.coach.tokens import SIGNING_KEY_ENV, TokenError, mint, parse_ttl

    key = os.environ.get(SIGNING_KEY_ENV)
    if not key:
        raise SystemExit(f"set {SIGNING_KEY_ENV} (the key the workers verify tokens with)")
    try:
        print(mint(key, args.session, parse_ttl(args.ttl)))
    except TokenError as err:
        raise SystemExit(str(err)) from None
    return 0


def cmd_client(args: argparse.Namespace) -> int:
    log_level("WARNING")  # before the client's import of Pipecat, whose banner (INFO) would open the output
    from voicecoach.app import client

    return client.run(args)


def cmd_pack(args: argparse.Namespace) -> int:
    from voicecoach.app import packcheck

    return packcheck.run(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="voicecoach", description="Realtime voice coach for games (SGC).")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="run the SGC kernels on one example turn and show c1/c2/c3")
    demo.add_argument("--state", default=str(EXAMPLE_STATE), help="live-state snapshot (JSON)")
    demo.add_argument(
        "--say",
        default="what should I field against their team? I want to use Emberfox",
        help="what the player says",
    )
    demo.add_argument("--intent", default="match", help="the intent W1 would label")
    demo.add_argument("--sub-intent", default="opponent_analysis", help="its sub-intent")
    demo.add_argument(
        "--slots",
        default='{"wanted_entities": ["Emberfox"]}',
        help="QuerySlots JSON (what W2's call extracts)",
    )
    demo.add_argument("--session", default="demo", help="session id (seeds W3)")
    demo.set_defaults(fn=cmd_demo)

    chat = sub.add_parser("chat", help="text-mode coach on the embedded engines (or --llm-url)")
    chat.add_argument(
        "--state", default=None, help="live-state snapshot (JSON; default: the pack's example_state.json)"
    )
    chat.add_argument("--session", default="chat", help="session id; an existing one is resumed")
    chat.add_argument(
        "--store", default=None, help="sqlite:///path, a path, or memory: (default ~/.local/state)"
    )
    add_engine_arguments(chat)
    add_coach_arguments(chat)
    add_pack_argument(chat)
    chat.add_argument("--tool-latency-ms", type=float, default=0.0, help="artificial game-server latency")
    chat.add_argument("-v", "--verbose", action="store_true", help="log every level (default: warnings up)")
    chat.set_defaults(fn=cmd_chat)

    serve = sub.add_parser("serve", help="live coach server: websocket for games + in-game overlay")
    add_serve_arguments(serve)
    serve.set_defaults(fn=cmd_serve)

    token = sub.add_parser(
        "token", help="per-session tokens: mint one (the game backend's part, for development)"
    )
    tokens = token.add_subparsers(dest="token", required=True, metavar="ACTION")
    token_mint = tokens.add_parser(
        "mint", help="print a token that opens one session ($VOICECOACH_SIGNING_KEY)"
    )
    token_mint.add_argument("--session", required=True, help="the session id the token opens")
    token_mint.add_argument("--ttl", default="1h", help="how long it is valid: 90s, 30m, 1h, 7d (default 1h)")
    token_mint.set_defaults(fn=cmd_token)

    from voicecoach.app import client_args

    client = sub.add_parser(
        "client", help="ask a running server with recorded questions: S2FA, --save-audio the replies"
    )
    client.description = client_args.CLIENT_DESCRIPTION
    client_args.add_arguments(client)
    client.set_defaults(fn=cmd_client)

    from voicecoach.pipelines.bench import latency as bench_latency
    from voicecoach.pipelines.bench import load as bench_load
    from voicecoach.pipelines.bench import quality as quality_runner

    replay_cmd = sub.add_parser(
        "replay", help="replay audio fixtures through the voice coach (S2FA per turn)"
    )
    add_replay_arguments(replay_cmd)
    replay_cmd.set_defaults(fn=cmd_replay)

    bench = sub.add_parser("bench", help="benchmarks: turn timings, latency, quality")
    benches = bench.add_subparsers(dest="bench", required=True, metavar="BENCH")
    turn = benches.add_parser("turn", help="text-mode turn timings per configuration (p50/p90)")
    turn.add_argument("--modes", default=None, help="comma-separated (default: all five)")
    turn.add_argument("--limit", type=int, default=12, help="utterances per configuration")
    add_engine_arguments(turn)
    turn.add_argument("--tool-latency-ms", type=float, default=150.0, help="artificial game-server latency")
    turn.add_argument("--out", default=None, help="write the figures as JSON here")
    turn.set_defaults(fn=cmd_bench_turn)
    latency = benches.add_parser("latency", help="S2FA and first reply audio per configuration and lever")
    bench_latency.add_arguments(latency)
    latency.set_defaults(fn=cmd_bench_latency)
    load = benches.add_parser("load", help="many sessions on one server: Poisson arrivals, a burst, a soak")
    bench_load.add_arguments(load)
    load.set_defaults(fn=cmd_bench_load)
    quality = benches.add_parser("quality", help="CoachBench: TGA / SGA / drift incidence (paper Table 3)")
    quality_runner.add_arguments(quality)
    quality.set_defaults(fn=quality_runner.cmd_quality)
    # These print their own tables and parse their own options (after the name).
    for name, entry, help_ in ARGV_BENCHES:
        kernel = benches.add_parser(name, help=help_, add_help=False)
        kernel.add_argument("rest", nargs=argparse.REMAINDER)
        kernel.set_defaults(fn=_kernel_bench(entry, name))

    from voicecoach.app import packcheck

    pack = sub.add_parser(
        "pack", help="domain packs: check one (a table of what is missing), write a skeleton"
    )
    packcheck.add_arguments(pack)
    pack.set_defaults(fn=cmd_pack)
    show_run_times(parser)
    return show_defaults(parser)


# How long a command takes on this kind of machine (2 cores) where that is more than a second or two:
# (said in the parent's list of commands, said atop the command's own --help). Measured 2026-12-05 on
# the 2-core VM shared with other work (load 1-4), small runs scaled; docs/BENCHMARKS.md has each
# benchmark's own figures. The benches with their own parser (ARGV_BENCHES) say the second in their
# own --help too. tests/app/test_cli_help.py names the quick commands; every other one must be here.
RUN_TIMES: dict[str, tuple[str, str]] = {
    "chat": ("ready in ~3 s", "ready in 1.5-3 s, then ~0.1 s a turn on the embedded default"),
    "serve": ("ready in ~4 s", "ready in ~4 s on the embedded default (the speech models ~2 s of it)"),
    "client": (
        "~11 s a question",
        "~11 s a spoken question (its ~3 s of audio, --tail, then the reply played out, ~7 s here), after"
        " --settle",
    ),
    "replay": (
        "~15 s a fixture turn",
        "~15 s a fixture turn, played in real time (the question, then the reply): session s01's four"
        " turns 60 s, all 48 fixture turns ~12 min",
    ),
    "bench": ("seconds to hours", "from seconds (prior, realizer) to hours (quality, latency as default)"),
    "bench turn": (
        "~70 s",
        "72 s for the default (12 utterances x 5 modes, with starting the embedded LLM); pe_agent's"
        " turns ~1.5 s, the others' ~0.2 s",
    ),
    "bench latency": (
        "~13 s a turn per configuration",
        "~13 s per fixture turn and configuration, played in real time: 5 configurations x 24 turns"
        " took 29 min, so the default (15 configurations x 48 turns) ~2.7 h; --limit and --configs"
        " cut it",
    ),
    "bench load": (
        "~4 min",
        "~4 min with the defaults: ~15 s to start the server, ~10 s a single-session question, then"
        " the Poisson phase's --duration and the burst; a soak lasts its --duration",
    ),
    "bench quality": (
        "~20 s for sgc_full, ~1 h for all five",
        "sgc_full's 200 sessions (976 turns) 19 s; an LLM baseline ~2 s a turn (pe_agent: 13 turns"
        " in 29 s), so ~30 min each for 200 sessions and ~1 h for the default five; a rerun skips"
        " the turns cached in --out",
    ),
    "bench prior": ("~5 s", "~5 s"),
    "bench slots": ("~2 s, --llm ~2 s a turn", "~2 s for the rules; --llm N adds ~2 s a turn"),
    "bench realizer": ("~8 s", "~8 s for the default 200 sessions"),
    "bench endpoint": (
        "~8 min per configuration",
        "~8 min per configuration (the fixtures play in real time): ~1 h for the default eight",
    ),
    "bench dialogue": ("~50 s", "~50 s for both packs' suites (218 turns)"),
    "pack check": ("~1 s, --train ~1 min", "~1 s; --train 40-60 s for pet_arena, ~2 s for a new pack's"),
}


def show_run_times(parser: argparse.ArgumentParser, path: str = "") -> None:
    """Each command of RUN_TIMES says its run time: in its parent's list and atop its own --help."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        listed = {choice.dest: choice for choice in action._choices_actions}
        for name, sub in action.choices.items():
            key = f"{path} {name}".strip()
            if key in RUN_TIMES:
                short, full = RUN_TIMES[key]
                said = textwrap.fill(f"Run time on 2 cores: {full}.", 100)
                sub.description = f"{sub.description}\n\n{said}" if sub.description else said
                listed[name].help = f"{listed[name].help} [{short}]"
            show_run_times(sub, key)


ARGV_BENCHES = (
    (
        "prior",
        "voicecoach.bench.prior:bench_main",
        "the intent prior: accuracy on CoachBench and the fixtures, p50/p90 ms",
    ),
    (
        "slots",
        "voicecoach.bench.slot_rules:main",
        "QuerySlots by rules (and --llm N turns by the slot call) vs CoachBench",
    ),
    (
        "realizer",
        "voicecoach.bench.realizer:main",
        "the grounded realization of CoachBench turns, scored by the checker",
    ),
    (
        "guard",
        "voicecoach.bench.checker:main",
        "the runtime guard's cost per sentence (check_sentence p50/p90 ms)",
    ),
    (
        "endpoint",
        "voicecoach.pipelines.bench.endpoint:main",
        "what ends the player's turn: split utterances, merged question pairs, the wait (listening only)",
    ),
    (
        "dialogue",
        "voicecoach.pipelines.bench.dialogue:main",
        "CoachBench's dialogue suite: references, corrections, descriptions ... right %% per kind",
    ),
)


def _kernel_bench(entry: str, name: str) -> Any:
    """`voicecoach bench NAME ...`: the harness's entry point, given the options after NAME and
    `voicecoach bench NAME` as its program name (for its usage and --help)."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        # Before the module's import: Pipecat's banner (INFO) would come before the usage or the table.
        # The benches that log set their own sinks.
        log_level("WARNING")
        module, function = entry.split(":")
        main = getattr(importlib.import_module(module), function)
        return int(main(args.rest, prog=f"voicecoach bench {name}") or 0)

    return run


def _stop_like_ctrl_c(signum: int, frame: Any) -> None:
    # Re-sent as SIGINT: inside asyncio.run that cancels the main task (its `finally`s run) rather
    # than raising KeyboardInterrupt wherever the loop happens to be.
    signal.raise_signal(signal.SIGINT)


def one_blas_thread() -> None:
    """numpy's OpenBLAS to one thread in every voicecoach process.

    By default it starts a thread per core, which spins for a while after each matrix product
    (OpenBLAS's busy-wait): nothing we run multiplies matrices large enough to gain from it, and
    under a load of 20 sessions that spinning thread took 15 % of a core, from Whisper, piper and
    the event loop, which size their own threads (docs/BENCHMARKS.md, "Load")."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    one_blas_thread()
    kernel = {name: entry for name, entry, _ in ARGV_BENCHES}
    if len(argv) >= 2 and argv[0] == "bench" and argv[1] in kernel:
        # The kernel's own parser takes its options (argparse's REMAINDER would refuse "--quiet").
        return int(_kernel_bench(kernel[argv[1]], argv[1])(argparse.Namespace(rest=argv[2:])))
    args = build_parser().parse_args(argv)
    # `kill` stops a command as Ctrl-C does: its cleanup runs (engines stopped, a benchmark's cache and
    # running time written), where the default SIGTERM ends the process on the spot.
    signal.signal(signal.SIGTERM, _stop_like_ctrl_c)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # A background job (`cmd &` from a script) starts with SIGINT ignored: asyncio.run would then
        # install no handler and the re-sent SIGINT would be lost.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    from voicecoach.coach.store import StoreError

    try:
        return int(args.fn(args))
    except StoreError as err:  # a bad --store path, Redis down: one line, not a traceback
        raise SystemExit(f"session store: {err}") from None


if __name__ == "__main__":
    sys.exit(main())
