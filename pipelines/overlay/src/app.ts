// The in-game overlay: an arena view the player can change, the coach's voice and words, and
// the last turn's latency. It is a plain client of the coach server, built on the official
// Pipecat JS client and its websocket transport: what it does, a game's own UI can do
// (docs/PROTOCOL.md has the messages).
import { PipecatClient, type RTVIMessage, type TranscriptData } from "@pipecat-ai/client-js";
import { WavMediaManager, WebSocketTransport } from "@pipecat-ai/websocket-transport";
import "./style.css";

// --- the protocol's shapes (voicecoach/protocol.py has the models and their JSON schemas) ---

interface Owned {
  creature_id: string;
  stage: number;
  level: number;
  unlocked_skills: string[];
}
interface Match {
  round: number;
  rounds_total: number;
  score_player: number;
  score_opponent: number;
  player_lineup: string[];
  opponent_lineup: string[];
  [key: string]: unknown;
}
// A pack with a schema.json keeps the player's units here instead of in `inventory`.
interface OwnedUnit {
  id: string;
  level: number;
  tier?: number | null;
  equipped: Record<string, string>;
}
interface StateInfo {
  version: number;
  ic: { match: Match | null; [key: string]: unknown };
  fs: {
    inventory: { owned: Owned[]; saved_lineups: Record<string, string[]> } | null;
    player_level: number;
    collection?: { units: OwnedUnit[]; saved_groups: Record<string, string[]> } | null;
  };
  stale: boolean;
}
interface Creature {
  id: string;
  name: string;
  element: string;
  role: string;
}
interface Unit {
  id: string;
  name: string;
  attributes: Record<string, string>;
}
// The session event's catalog: pet_arena's creatures, or another pack's units and kinds' names.
interface PackMessage {
  creatures: Creature[];
  unit_kind?: string;
  units?: Unit[];
  kinds?: Record<string, { plural: string; names: Record<string, string> }>;
}
interface Stage {
  label: string;
  ms: number;
}
type CoachEvent =
  | { type: "session"; session_id: string; resumed: boolean; turns: number; took_over: boolean; state: StateInfo; pack: PackMessage }
  | { type: "state"; state: StateInfo }
  | {
      type: "intent";
      turn_index: number;
      t_ms: number;
      utterance: string;
      transcript: string;
      repaired: [string, string][];
      intent: string;
      sub_intent: string;
      outcome: string;
    }
  | { type: "tool-dispatch"; turn_index: number; t_ms: number; source: string; calls: { tool: string }[] }
  | {
      type: "tool-results";
      turn_index: number;
      t_ms: number;
      outcomes: { tool: string; ok: boolean; ms: number; result: { units?: { id: string; name: string }[] } | null }[];
    }
  | { type: "grounding"; turn_index: number; conflicts: { constraint: string; tier: string; satisfied: boolean }[]; plan: { type: string }[] }
  | { type: "interaction"; turn_index: number; guidance: { candidate_id: string; text: string } | null; cooling: string[] }
  | { type: "text"; turn_index: number; kind: "narration" | "reply"; text: string }
  | { type: "turn-completed"; turn_index: number; utterance: string; reply: string; tools: string[]; guidance: string | null }
  | { type: "latency"; turn_index: number; origin: string; s2fa_ms: number | null; milestones: Record<string, number>; stages: Stage[] };

// What the player is told when the connection ends and nobody said why: the server's own reason
// (its RTVI `error` notice just before the close, or the close frame's reason) is shown otherwise.
const NO_ANSWER = "could not reach the coach (no answer, or no server free); retry in a few seconds";
const closedWithoutReason = (code: number) => `the connection to the coach closed (code ${code}), no reason given`;

// --- what the page knows, exposed for tests and the curious (window.voicecoach) ----------------

const view = {
  ready: false,
  sessionId: "",
  state: null as StateInfo | null,
  creatures: new Map<string, Creature>(),
  units: new Map<string, Unit>(), // empty for a classic pack (pet_arena): its arena view is shown
  names: new Map<string, string>(), // any catalog id -> its display name (a map, an item)
  unitPlural: "",
  transcripts: [] as string[],
  repairs: [] as { turn: number; heard: string; read: string; names: [string, string][] }[],
  turns: new Map<number, { utterance: string; narration: string; reply: string; done: boolean }>(),
  completed: [] as number[],
  latency: [] as Extract<CoachEvent, { type: "latency" }>[],
  events: [] as CoachEvent[],
  errors: [] as string[],
  audio: { chunks: 0, samples: 0, audibleChunks: 0, peak: 0 },
  mode: "hands-free" as "hands-free" | "ptt",
  talking: false,
  closeReason: "",
  closeCode: 0,
};
(window as unknown as { voicecoach: typeof view }).voicecoach = view;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

// --- audio: the stock media manager, metered ---------------------------------------------------

const RECORDER_RATE = 16000; // what the coach listens at
const RECORDER_CHUNK_BYTES = 640; // 20 ms per message: the VAD hears the end of speech promptly
const AUDIBLE = 328; // int16 magnitude of -40 dBFS, as the server's S2FA counts audible

class MeteredMediaManager extends WavMediaManager {
  constructor() {
    super(RECORDER_CHUNK_BYTES, RECORDER_RATE);
  }
  setUserAudioCallback(send: (data: ArrayBuffer) => void): void {
    super.setUserAudioCallback((data: ArrayBuffer) => {
      meter("mic-level", peakOf(new Int16Array(data)) / 32768);
      send(data);
    });
  }
  bufferBotAudio(data: ArrayBuffer | Int16Array, id?: string): Int16Array {
    const pcm = data instanceof Int16Array ? data : new Int16Array(data);
    const peak = peakOf(pcm);
    view.audio.chunks += 1;
    view.audio.samples += pcm.length;
    view.audio.peak = Math.max(view.audio.peak, peak);
    if (peak > AUDIBLE) view.audio.audibleChunks += 1;
    meter("coach-level", peak / 32768);
    return super.bufferBotAudio(data, id);
  }
}

function peakOf(pcm: Int16Array): number {
  let peak = 0;
  for (let i = 0; i < pcm.length; i++) peak = Math.max(peak, Math.abs(pcm[i]));
  return peak;
}

function meter(id: string, level: number): void {
  $(id).style.width = `${Math.min(100, Math.round(Math.sqrt(level) * 100))}%`;
}

// --- connection --------------------------------------------------------------------------------

// The server's own subprotocol, and the token as a second one (voicecoach/pipelines/server.py,
// presented_token): a header no proxy logs, where Pipecat's transport would put `?token=` in the URL
// that every access log keeps. The server accepts `voicecoach` and never echoes the token back.
const SUBPROTOCOL = "voicecoach";
const TOKEN_SUBPROTOCOL_PREFIX = "voicecoach.token.";
// What a subprotocol may hold (RFC 6455: an HTTP token): a JWT's or a generated token's characters.
const SUBPROTOCOL_CHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

class TokenTransport extends WebSocketTransport {
  lastClose: { code: number; reason: string } | null = null;

  constructor(private readonly token: string) {
    super({ mediaManager: new MeteredMediaManager(), recorderSampleRate: RECORDER_RATE });
  }

  initializeWebsocket(): ReturnType<WebSocketTransport["initializeWebsocket"]> {
    const ws = super.initializeWebsocket();
    ws._protocols = [SUBPROTOCOL, `${TOKEN_SUBPROTOCOL_PREFIX}${this.token}`];
    // The close frame's reason, which the transport drops (it reports the code only).
    ws.on("close", (code: number, reason: string) => (this.lastClose = { code, reason }));
    return ws;
  }
}

let client: PipecatClient | null = null;
let transport: TokenTransport | null = null;

// A signed token (a JWT: three base64url parts) names its session in its `sid` claim.
function signedSession(token: string): string | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  try {
    const claims = JSON.parse(atob(parts[1].replace(/-/g, "+").replace(/_/g, "/")));
    return typeof claims.sid === "string" ? claims.sid : null;
  } catch {
    return null;
  }
}

function params(): { session: string; token: string } {
  const hash = new URLSearchParams(location.hash.slice(1));
  return { session: hash.get("session") || "player", token: hash.get("token") || "" };
}

function setStatus(text: string, kind: "off" | "wait" | "on" | "error"): void {
  $("status").textContent = text;
  $("status-dot").className = `dot ${kind}`;
}

function toast(text: string): void {
  const el = $("toast");
  el.textContent = text;
  el.hidden = false;
  window.setTimeout(() => (el.hidden = true), 6000);
}

async function connect(): Promise<void> {
  const token = ($("token") as HTMLInputElement).value.trim();
  // A signed token opens its own session only: connect to that one.
  const session = signedSession(token) ?? (($("session") as HTMLInputElement).value.trim() || "player");
  ($("session") as HTMLInputElement).value = session;
  // The session stays in the address bar; the token does not (history and bookmarks keep URLs).
  history.replaceState(null, "", `#session=${encodeURIComponent(session)}`);
  view.closeReason = "";
  view.closeCode = 0;
  if (!SUBPROTOCOL_CHARS.test(token)) {
    const text = token
      ? "this token has characters a websocket subprotocol cannot carry"
      : "a token is needed: paste the one the game's backend (or voicecoach token mint) gave";
    view.errors.push(text);
    setStatus(text, "error");
    return;
  }
  setStatus("connecting…", "wait");
  transport = new TokenTransport(token);
  client = new PipecatClient({
    transport,
    enableMic: view.mode === "hands-free",
    enableCam: false,
    callbacks: {
      onBotReady: () => setStatus("ready", "on"),
      onServerMessage: (data: CoachEvent) => onEvent(data),
      onUserTranscript: (data: TranscriptData) => data.final && onTranscript(data.text),
      onUserStartedSpeaking: () => document.body.classList.add("user-speaking"),
      onUserStoppedSpeaking: () => document.body.classList.remove("user-speaking"),
      onBotStartedSpeaking: () => document.body.classList.add("coach-speaking"),
      onBotStoppedSpeaking: () => document.body.classList.remove("coach-speaking"),
      onError: (message: RTVIMessage) => onError(message),
      onDisconnected: () => {
        view.ready = false;
        setStatus(view.closeReason || "disconnected", view.closeReason ? "error" : "off");
        ($("ptt") as HTMLButtonElement).disabled = true;
      },
    },
  });
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  try {
    // No `token` here: the transport would add it to the URL's query. TokenTransport sends it.
    await client.connect({ wsUrl: `${scheme}://${location.host}/ws?session=${encodeURIComponent(session)}` });
  } catch (err) {
    // Refused before the websocket opened (no worker free behind a load balancer, the server
    // down): a browser is told nothing more than that.
    if (!view.closeReason) closed(transport.lastClose?.code ?? 1006, NO_ANSWER);
    console.warn(String(err));
  }
}

// The player is told why the connection ended in the server's words (its RTVI `error` notice
// `closed: <code> <reason>`, or the close frame's reason), a generic line only when none came.
function closed(code: number, text: string): void {
  if (view.closeReason) return; // the server already said why
  view.closeCode = code;
  view.closeReason = text;
  view.errors.push(text);
  toast(text);
  setStatus(text, "error");
}

function onError(message: RTVIMessage): void {
  const data = message.data as { error?: string; message?: string } | undefined;
  const text = data?.error ?? data?.message ?? "";
  const notice = /^closed: (\d+) ([^]+)$/.exec(text);
  if (notice) return closed(Number(notice[1]), notice[2]);
  const socketClosed = /^websocket connection closed\. Code: (\d+)/.exec(text);
  if (socketClosed) {
    // The transport's own report, which drops the close frame's reason: it is read once the
    // transport's close listeners have all run (TokenTransport.lastClose).
    const code = Number(socketClosed[1]);
    window.setTimeout(() => {
      const reason = transport?.lastClose?.code === code ? transport.lastClose.reason : "";
      closed(code, reason || (code === 1006 ? NO_ANSWER : closedWithoutReason(code)));
    }, 0);
    return;
  }
  const shown = text || "the coach reported an error";
  view.errors.push(shown);
  toast(shown);
}

// --- state: what the game (here, the player) changes -------------------------------------------

async function pushState(update: { snapshot?: unknown; patch?: unknown }): Promise<void> {
  if (!client) return;
  try {
    const state = (await client.sendClientRequest("state-update", update)) as StateInfo;
    setState(state);
  } catch (err) {
    const text = (err as RTVIMessage)?.data ? JSON.stringify((err as RTVIMessage).data) : String(err);
    view.errors.push(text);
    toast(`state refused: ${text}`);
  }
}

function setState(state: StateInfo): void {
  view.state = state;
  renderArena();
}

function owned(): Owned[] {
  return view.state?.fs.inventory?.owned ?? [];
}

function playerLineup(): string[] {
  return view.state?.ic.match?.player_lineup ?? [];
}

export function removeCreature(id: string): Promise<void> {
  const patch: Record<string, unknown> = {
    fs: { inventory: { owned: owned().filter((o) => o.creature_id !== id) } },
  };
  if (playerLineup().includes(id)) patch.ic = { match: { player_lineup: playerLineup().filter((c) => c !== id) } };
  return pushState({ patch });
}

export function addCreature(id: string): Promise<void> {
  if (owned().some((o) => o.creature_id === id)) return Promise.resolve();
  const entry: Owned = { creature_id: id, stage: 1, level: 1, unlocked_skills: [] };
  return pushState({ patch: { fs: { inventory: { owned: [...owned(), entry] } } } });
}

function setLineup(lineup: string[]): Promise<void> {
  return pushState({ patch: { ic: { match: { player_lineup: lineup } } } });
}

// --- events from the coach ---------------------------------------------------------------------

function onEvent(event: CoachEvent): void {
  view.events.push(event);
  switch (event.type) {
    case "session":
      view.sessionId = event.session_id;
      view.creatures = new Map(event.pack.creatures.map((c) => [c.id, c]));
      setPack(event.pack);
      setState(event.state);
      view.ready = true;
      ($("ptt") as HTMLButtonElement).disabled = view.mode !== "ptt";
      setStatus(`ready · ${event.resumed ? `resumed, ${event.turns} turns` : "new session"}`, "on");
      if (!event.state.fs.inventory && !event.state.fs.collection) void loadExampleState();
      break;
    case "state":
      setState(event.state);
      break;
    case "intent":
      turn(event.turn_index).utterance = event.utterance;
      chip(event.turn_index, "intent", `${event.intent} / ${event.sub_intent} · ${event.outcome}`);
      if (event.repaired?.length) showRepair(event);
      break;
    case "tool-dispatch":
      chip(event.turn_index, "tools", `${event.calls.map((c) => c.tool).join(", ") || "none"} (${event.source}, ${event.t_ms} ms)`);
      break;
    case "tool-results": {
      chip(event.turn_index, "results", event.outcomes.map((o) => `${o.tool} ${o.ok ? "✓" : "✗"} ${o.ms} ms`).join(" · "));
      // A suggest_group builtin's team (pet's suggest_lineup, strike_team's suggest_comp).
      const lineup = event.outcomes.find((o) => o.tool.startsWith("suggest_") && o.ok)?.result?.units;
      if (lineup) chip(event.turn_index, "suggested", lineup.map((c) => c.name).join(", "));
      break;
    }
    case "grounding": {
      const open = event.conflicts.filter((c) => !c.satisfied).map((c) => `${c.constraint} (${c.tier})`);
      chip(event.turn_index, "grounding", `${open.join(", ") || "no conflict"} → ${event.plan.map((p) => p.type).join(", ")}`);
      break;
    }
    case "interaction":
      chip(event.turn_index, "guidance", event.guidance ? `${event.guidance.candidate_id}: ${event.guidance.text}` : "none this turn");
      break;
    case "text": {
      const t = turn(event.turn_index);
      t[event.kind] += event.text;
      renderCoachLine(event.turn_index);
      break;
    }
    case "turn-completed":
      turn(event.turn_index).done = true;
      view.completed.push(event.turn_index);
      renderCoachLine(event.turn_index);
      break;
    case "latency":
      view.latency.push(event);
      renderLatency(event);
      break;
  }
}

function setPack(pack: PackMessage): void {
  view.units = new Map((pack.units ?? []).map((u) => [u.id, u]));
  // The unit kind goes last so that its names win should another kind reuse an id.
  const kinds = Object.entries(pack.kinds ?? {}).sort(([a], [b]) => Number(a === pack.unit_kind) - Number(b === pack.unit_kind));
  view.names = new Map(kinds.flatMap(([, k]) => Object.entries(k.names)));
  for (const u of view.units.values()) view.names.set(u.id, u.name);
  const plural = (pack.unit_kind && pack.kinds?.[pack.unit_kind]?.plural) || `${pack.unit_kind ?? "unit"}s`;
  view.unitPlural = plural.charAt(0).toUpperCase() + plural.slice(1);
  const generic = view.units.size > 0;
  $("arena").hidden = generic;
  $("units").hidden = !generic;
}

function turn(index: number) {
  let t = view.turns.get(index);
  if (!t) {
    t = { utterance: "", narration: "", reply: "", done: false };
    view.turns.set(index, t);
    $("decisions").replaceChildren();
    $("decisions").dataset.turn = String(index);
  }
  return t;
}

async function loadExampleState(): Promise<void> {
  const example = await (await fetch("/api/example-state")).json();
  await pushState({ snapshot: { ic: example.ic, fs: example.fs } });
}

let lastTranscript = { text: "", at: 0 };

function onTranscript(raw: string): void {
  // Pipecat reports the STT's transcript and then the turn's joined one: show each utterance once.
  const text = raw.trim();
  const now = performance.now();
  if (!text || (text === lastTranscript.text && now - lastTranscript.at < 3000)) return;
  lastTranscript = { text, at: now };
  view.transcripts.push(text);
  line("player", text);
}

// A misheard name the coach put back: the player reads what the coach understood, and what
// speech-to-text wrote under it, so a wrong answer to a misheard name is not a mystery.
function showRepair(event: Extract<CoachEvent, { type: "intent" }>): void {
  view.repairs.push({ turn: event.turn_index, heard: event.transcript, read: event.utterance, names: event.repaired });
  chip(event.turn_index, "heard", event.repaired.map(([span, name]) => `“${span}” → ${name}`).join(" · "));
  const lines = [...$("transcript").querySelectorAll<HTMLElement>(".line.player")];
  const el = lines.reverse().find((l) => l.dataset.heard === undefined && l.textContent === event.transcript.trim());
  if (!el) return;
  el.dataset.heard = event.transcript;
  el.innerHTML = "<span></span><small></small>";
  el.querySelector("span")!.textContent = event.utterance;
  el.querySelector("small")!.textContent = `heard: ${event.transcript}`;
}

// --- rendering ---------------------------------------------------------------------------------

const ELEMENT_COLORS: Record<string, string> = {
  fire: "#e4572e", water: "#2e86de", grass: "#3fa34d", earth: "#a47148",
  electric: "#f2c14e", wind: "#7fc8a9", light: "#f5e6a8", shadow: "#6c4f8c",
};

function name(id: string): string {
  return view.creatures.get(id)?.name ?? id;
}

function card(id: string, detail: string, actions: [string, string, () => void][]): HTMLElement {
  const c = view.creatures.get(id);
  const el = document.createElement("div");
  el.className = "card";
  el.dataset.creature = id;
  el.style.setProperty("--element", ELEMENT_COLORS[c?.element ?? ""] ?? "#888");
  el.innerHTML = `<div class="name"></div><div class="meta"></div><div class="actions"></div>`;
  el.querySelector(".name")!.textContent = name(id);
  el.querySelector(".meta")!.textContent = [c?.element, c?.role, detail].filter(Boolean).join(" · ");
  for (const [label, action, run] of actions) {
    const b = document.createElement("button");
    b.textContent = label;
    b.dataset.action = action;
    b.title = action;
    b.onclick = run;
    el.querySelector(".actions")!.append(b);
  }
  return el;
}

function renderArena(): void {
  if (view.units.size > 0) return renderUnits();
  const state = view.state;
  const match = state?.ic.match;
  $("round").textContent = match ? `round ${match.round}/${match.rounds_total} · ${match.score_player}–${match.score_opponent}` : "";
  $("opponent").replaceChildren(...(match?.opponent_lineup ?? []).map((id) => card(id, "", [])));
  const lineup = playerLineup();
  $("lineup").replaceChildren(
    ...lineup.map((id) => card(id, levelOf(id), [["bench", "bench", () => void setLineup(lineup.filter((c) => c !== id))]])),
  );
  $("inventory").replaceChildren(
    ...owned().map((o) => {
      const actions: [string, string, () => void][] = [];
      if (!lineup.includes(o.creature_id) && lineup.length < 3)
        actions.push(["field", "field", () => void setLineup([...lineup, o.creature_id])]);
      actions.push(["✕", "remove", () => void removeCreature(o.creature_id)]);
      return card(o.creature_id, `stage ${o.stage} · lv ${o.level}`, actions);
    }),
  );
  $("owned-count").textContent = state ? `(${owned().length} owned · v${state.version})` : "";
  const select = $("add-select") as HTMLSelectElement;
  const have = new Set(owned().map((o) => o.creature_id));
  select.replaceChildren(
    ...[...view.creatures.values()].filter((c) => !have.has(c.id)).map((c) => new Option(`${c.name} (${c.element})`, c.id)),
  );
}

// --- a pack with its own unit kind: read-only, every id by name ----------------------------------

function label(id: string): string {
  return view.names.get(id) ?? id;
}

function hue(text: string): string {
  // A stable colour per attribute value (a hero's role), as pet's cards are coloured by element.
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return `hsl(${h} 55% 55%)`;
}

function unitCard(id: string, detail: string): HTMLElement {
  const attrs = Object.values(view.units.get(id)?.attributes ?? {});
  const el = document.createElement("div");
  el.className = "card";
  el.dataset.unit = id;
  el.style.setProperty("--element", attrs.length ? hue(attrs[0]) : "#888");
  el.innerHTML = `<div class="name"></div><div class="meta"></div>`;
  el.querySelector(".name")!.textContent = label(id);
  el.querySelector(".meta")!.textContent = [...attrs.slice(0, 2), detail].filter(Boolean).join(" · ");
  return el;
}

function renderUnits(): void {
  const state = view.state;
  const match = state?.ic.match;
  const units = state?.fs.collection?.units ?? [];
  const level = (id: string) => {
    const u = units.find((x) => x.id === id);
    return u ? `lv ${u.level}` : "not owned";
  };
  $("u-round").textContent = match ? `round ${match.round}/${match.rounds_total} · ${match.score_player}–${match.score_opponent}` : "";
  const context = (match?.context ?? {}) as Record<string, unknown>;
  $("u-context").replaceChildren(
    ...Object.entries(context)
      .filter(([, v]) => typeof v === "string")
      .map(([k, v]) => {
        const el = document.createElement("div");
        el.innerHTML = "<b></b> <span></span>";
        el.querySelector("b")!.textContent = k;
        el.querySelector("span")!.textContent = label(v as string);
        return el;
      }),
  );
  $("u-opponent").replaceChildren(...(match?.opponent_lineup ?? []).map((id) => unitCard(id, "")));
  $("u-lineup").replaceChildren(...(match?.player_lineup ?? []).map((id) => unitCard(id, level(id))));
  $("u-plural").textContent = view.unitPlural;
  $("u-collection").replaceChildren(
    ...[...units].sort((a, b) => label(a.id).localeCompare(label(b.id))).map((u) => {
      const el = unitCard(u.id, `lv ${u.level}`);
      el.title = Object.entries(u.equipped).map(([slot, item]) => `${slot}: ${label(item)}`).join("\n");
      return el;
    }),
  );
  $("u-count").textContent = state ? `(${units.length} owned of ${view.units.size} · v${state.version})` : "";
}

function levelOf(id: string): string {
  const o = owned().find((x) => x.creature_id === id);
  return o ? `lv ${o.level}` : "not owned!";
}

function line(who: "player" | "coach", text: string, turnIndex?: number): HTMLElement {
  const el = document.createElement("div");
  el.className = `line ${who}`;
  if (turnIndex !== undefined) el.dataset.turn = String(turnIndex);
  el.textContent = text;
  $("transcript").append(el);
  $("transcript").scrollTop = $("transcript").scrollHeight;
  return el;
}

function renderCoachLine(index: number): void {
  const t = view.turns.get(index)!;
  let el = $("transcript").querySelector<HTMLElement>(`.line.coach[data-turn="${index}"]`);
  if (!el) el = line("coach", "", index);
  el.innerHTML = "<i></i> <span></span>";
  el.querySelector("i")!.textContent = t.narration.trim();
  el.querySelector("span")!.textContent = t.reply.trim();
  el.classList.toggle("done", t.done);
}

function chip(index: number, label: string, text: string): void {
  turn(index);
  const el = document.createElement("div");
  el.className = "chip";
  el.innerHTML = "<b></b> <span></span>";
  el.querySelector("b")!.textContent = label;
  el.querySelector("span")!.textContent = text;
  $("decisions").append(el);
}

function renderLatency(event: Extract<CoachEvent, { type: "latency" }>): void {
  $("s2fa").textContent = event.s2fa_ms === null ? "–" : `${Math.round(event.s2fa_ms)} ms`;
  const total = event.stages.reduce((sum, s) => sum + s.ms, 0) || 1;
  $("stages").replaceChildren(
    ...event.stages.map((s, i) => {
      const el = document.createElement("div");
      el.className = `stage s${i % 8}`;
      el.style.flex = `${Math.max(s.ms, 1) / total} 1 0px`; // widths in proportion to the time
      el.title = `${s.label}: ${Math.round(s.ms)} ms`;
      el.textContent = `${s.label} ${Math.round(s.ms)}`;
      return el;
    }),
  );
  $("milestones").textContent = Object.entries(event.milestones)
    .sort((a, b) => a[1] - b[1])
    .map(([k, v]) => `${k} ${Math.round(v)}`)
    .join(" · ");
}

// --- talking -----------------------------------------------------------------------------------

function talk(on: boolean): void {
  if (!client || view.mode !== "ptt" || on === view.talking) return;
  view.talking = on;
  $("ptt").classList.toggle("held", on);
  client.enableMic(on);
  // Released: the coach ends the turn now instead of waiting for the VAD's silence.
  if (!on) void client.sendClientRequest("ptt", { talking: false }).catch(() => undefined);
}

function setMode(mode: "hands-free" | "ptt"): void {
  view.mode = mode;
  ($("ptt") as HTMLButtonElement).disabled = mode !== "ptt" || !view.ready;
  if (client?.connected) client.enableMic(mode === "hands-free");
}

function init(): void {
  const p = params();
  ($("session") as HTMLInputElement).value = p.session;
  ($("token") as HTMLInputElement).value = p.token;
  $("connect").onclick = () => void connect();
  document.querySelectorAll<HTMLInputElement>("input[name=mode]").forEach((r) => {
    r.onchange = () => r.checked && setMode(r.value as "hands-free" | "ptt");
  });
  const ptt = $("ptt");
  ptt.onpointerdown = () => talk(true);
  ptt.onpointerup = ptt.onpointerleave = () => talk(false);
  window.addEventListener("keydown", (e) => {
    if (e.code === "Space" && !e.repeat && !(e.target instanceof HTMLInputElement)) {
      e.preventDefault();
      talk(true);
    }
  });
  window.addEventListener("keyup", (e) => e.code === "Space" && talk(false));
  $("add-button").onclick = () => void addCreature(($("add-select") as HTMLSelectElement).value);
  setStatus("not connected", "off");
}

init();
