// A game's page built on the official Pipecat web client, as docs/PROTOCOL.md's example is:
// `@pipecat-ai/client-js` + `@pipecat-ai/websocket-transport` from npm, bundled by
// official_drive.mjs (esbuild) and served to Chromium by it; nothing here knows the coach's code.
//
// window.coach.run(config) plays the scenario tests/pipelines/test_official_client.py checks:
//   1. a wrong token: the refusal's reason must reach onError (not only "Code: 4401");
//   2. connect, push the pack's example state, let the fake microphone ask its question, wait for
//      the spoken answer;
//   3. a typed question, and a second one typed while the coach speaks (a barge-in by typing);
//   4. a second client takes the session over: the first must be told why it was closed.
// Every RTVI message each client receives is logged in order (`log`), with what its callbacks saw.
import { PipecatClient } from "@pipecat-ai/client-js";
import { WavMediaManager, WebSocketTransport } from "@pipecat-ai/websocket-transport";

const started = performance.now();
const now = () => Math.round(performance.now() - started);

// The coach's voice as the transport hands it to the player: chunks and their loudest sample.
class MeteredMediaManager extends WavMediaManager {
  constructor(audio) {
    super(640, 16000); // 20 ms frames at 16 kHz, as PROTOCOL.md's example
    this.audio = audio;
  }
  bufferBotAudio(data, id) {
    const pcm = data instanceof Int16Array ? data : new Int16Array(data);
    let peak = 0;
    for (let i = 0; i < pcm.length; i++) peak = Math.max(peak, Math.abs(pcm[i]));
    this.audio.chunks += 1;
    this.audio.peak = Math.max(this.audio.peak, peak);
    if (peak > 328) this.audio.audible += 1; // above -40 dBFS
    return super.bufferBotAudio(data, id);
  }
}

// The client as it is, with every message it handles written down first.
class RecordingClient extends PipecatClient {
  constructor(name, options, log) {
    super(options);
    this.name = name;
    this.log = log;
  }
  handleMessage(ev) {
    const entry = { client: this.name, t: now(), type: ev.type };
    const data = ev.data ?? {};
    if (ev.type === "server-message") Object.assign(entry, { event: data.type, turn: data.turn_index });
    if (ev.type === "server-message" && data.type === "turn-completed") entry.reply = data.reply;
    if (ev.type === "server-message" && data.type === "text") entry.text = data.text;
    if (ev.type === "user-transcription") Object.assign(entry, { text: data.text, final: data.final });
    if (ev.type === "bot-llm-text") entry.text = data.text;
    if (ev.type === "error") Object.assign(entry, { error: data.error, fatal: data.fatal });
    this.log.push(entry);
    super.handleMessage(ev);
  }
}

function makeClient(name, state) {
  const seen = { errors: [], transcripts: [], llm: [], disconnected: false, audio: { chunks: 0, audible: 0, peak: 0 } };
  const note = (what, extra = {}) => state.callbacks.push({ client: name, t: now(), what, ...extra });
  const client = new RecordingClient(
    name,
    {
      transport: new WebSocketTransport({ mediaManager: new MeteredMediaManager(seen.audio), recorderSampleRate: 16000 }),
      enableMic: name === "player",
      enableCam: false,
      callbacks: {
        onBotReady: () => note("bot-ready"),
        onUserStartedSpeaking: () => note("user-started-speaking"),
        onUserStoppedSpeaking: () => note("user-stopped-speaking"),
        onUserTranscript: (t) => {
          seen.transcripts.push(t);
          note("user-transcript", { text: t.text, final: t.final });
        },
        onBotLlmStarted: () => note("bot-llm-started"),
        onBotLlmText: (d) => note("bot-llm-text", { text: d.text }),
        onBotLlmStopped: () => note("bot-llm-stopped"),
        onBotStartedSpeaking: () => note("bot-started-speaking"),
        onBotStoppedSpeaking: () => note("bot-stopped-speaking"),
        onServerMessage: (m) => note("server-message", { event: m.type, turn: m.turn_index }),
        onError: (m) => {
          const text = m?.data?.error ?? m?.data?.message ?? JSON.stringify(m?.data);
          seen.errors.push(text);
          note("error", { text });
        },
        onDisconnected: () => {
          seen.disconnected = true;
          note("disconnected");
        },
      },
    },
    state.log,
  );
  return { client, seen };
}

const until = async (what, test, timeoutMs) => {
  const end = performance.now() + timeoutMs;
  while (!test()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const events = (state, client, event) => state.log.filter((e) => e.client === client && e.event === event);

async function run(config) {
  const state = { log: [], callbacks: [], phases: {}, ok: false };
  window.coach.state = state;
  const wsUrl = (session) => `${config.server}/ws?session=${encodeURIComponent(session)}`;
  const snapshot = config.snapshot; // what a game pushes: the match and the player's facts

  // 1. A refused connection: the client must learn why, not only the close code.
  const intruder = makeClient("intruder", state);
  state.phases.refused = { start: now() };
  // Not awaited: client-js 1.13's connect() never settles when the socket closes before bot-ready.
  intruder.client.connect({ wsUrl: wsUrl(config.session), token: "not-the-token" }).catch((err) => {
    state.phases.refused.rejected = String(err?.data?.error ?? err?.message ?? err);
  });
  await until("the refusal", () => intruder.seen.disconnected, 10000);
  await new Promise((r) => setTimeout(r, 300));
  state.phases.refused.errors = intruder.seen.errors;

  // 2. The player: connect, the state first, then the fake microphone's question.
  const player = makeClient("player", state);
  state.player = player.seen;
  state.phases.spoken = { start: now() };
  await player.client.connect({ wsUrl: wsUrl(config.session), token: config.token });
  await until("the session event", () => events(state, "player", "session").length > 0, 10000);
  const info = await player.client.sendClientRequest("state-update", { snapshot });
  state.phases.spoken.stateVersion = info?.version;
  await until("the spoken turn's answer", () => events(state, "player", "turn-completed").length > 0, config.turnTimeoutMs);
  await until(
    "the spoken answer's end",
    () => state.log.some((e) => e.client === "player" && e.type === "bot-stopped-speaking"),
    config.turnTimeoutMs,
  );
  await new Promise((r) => setTimeout(r, 500)); // the latency event follows the audio
  state.phases.spoken.end = now();

  // 3. Typed questions: the first answered in full, the second cut by a third typed while the
  // coach speaks it (a barge-in by typing).
  const mine = (type) => state.log.filter((e) => e.client === "player" && e.type === type);
  // The coach spoke an answer that began after `t0`, to its end.
  const spokeSince = (t0) => {
    const began = mine("bot-started-speaking").find((e) => e.t > t0);
    return began !== undefined && mine("bot-stopped-speaking").some((e) => e.t > began.t);
  };
  const completedSince = (t0) => events(state, "player", "turn-completed").some((e) => e.t > t0);
  state.phases.typed = { start: now() };
  await player.client.sendText(config.typed);
  await until("the typed turn", () => completedSince(state.phases.typed.start) && spokeSince(state.phases.typed.start), config.turnTimeoutMs);
  state.phases.typed.end = now();
  state.phases.bargeIn = { start: now() };
  await player.client.sendText(config.typed);
  await until(
    "the coach speaking again",
    () => mine("bot-started-speaking").some((e) => e.t > state.phases.bargeIn.start),
    config.turnTimeoutMs,
  );
  state.phases.bargeIn.cut = now();
  await player.client.sendText(config.typed);
  await until("the barge-in's answer", () => spokeSince(state.phases.bargeIn.cut), config.turnTimeoutMs);
  await new Promise((r) => setTimeout(r, 500));
  state.phases.bargeIn.end = now();

  // 4. A second connection takes the session over: the first is closed and must be told why.
  const second = makeClient("second", state);
  state.phases.takeover = { start: now() };
  await second.client.connect({ wsUrl: wsUrl(config.session), token: config.token });
  await until("the takeover's notice", () => player.seen.disconnected, 10000).catch(() => {});
  await new Promise((r) => setTimeout(r, 300));
  state.phases.takeover.errors = player.seen.errors.slice();
  state.phases.takeover.end = now();
  await second.client.disconnect();
  state.ok = true;
  return state;
}

window.coach = { run, state: null };
