// Drives the overlay in headless Chromium for tests/test_browser.py.
//
//   node drive.mjs '<json config>'
//
// Chromium's fake microphone plays the config's WAV once (`%noloop`): two questions with a
// long pause between them. The script connects the page, waits for the first turn to be
// heard and answered aloud, removes a creature from the inventory on the page, waits for
// the second turn, takes a screenshot, and prints what the page saw as one JSON line.
// With `"look": true` it only connects and waits for the game state to be shown, and reports
// the page's visible text too (a pack's view; no turn is spoken).
// With `"attempts": [{token, session}, ...]` it connects the page with each token in turn (typed
// into the token field, as a player pastes one) and reports what the page then showed: ready, or
// the reason it was told, and the websocket URLs it opened; with `"takeover": {token}` a second
// page then opens the first attempt's session and the first page reports what it was told.
import { chromium } from "playwright-core";

const config = JSON.parse(process.argv[2]);
const log = (...args) => console.error("[drive]", ...args);

const args = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--use-fake-ui-for-media-stream",
  "--use-fake-device-for-media-stream",
  `--use-file-for-fake-audio-capture=${config.wav}%noloop`,
  "--autoplay-policy=no-user-gesture-required",
];

const context = await chromium.launchPersistentContext(config.userDataDir, {
  executablePath: config.chromium,
  headless: true, // playwright adds --headless
  args,
  viewport: { width: 1280, height: 860 },
  permissions: ["microphone"],
});
const result = { ok: false, steps: [] };
const page = context.pages()[0] ?? (await context.newPage());
page.on("console", (msg) => {
  if (msg.type() === "error" || msg.type() === "warning") log(`console.${msg.type()}: ${msg.text()}`);
});
page.on("pageerror", (err) => log(`page error: ${err}`));

const view = () =>
  page.evaluate(() => {
    const v = window.voicecoach;
    return {
      ready: v.ready,
      transcripts: v.transcripts,
      repairs: v.repairs,
      completed: v.completed,
      audio: v.audio,
      errors: v.errors,
      latency: v.latency,
      owned: (v.state?.fs.inventory?.owned ?? []).map((o) => o.creature_id),
      version: v.state?.version ?? null,
      turns: Object.fromEntries([...v.turns.entries()].map(([k, t]) => [k, t])),
    };
  });

async function step(name, fn) {
  const started = Date.now();
  log(`${name}…`);
  await fn();
  result.steps.push({ name, ms: Date.now() - started });
}

try {
  await step("open", () => page.goto(config.url));
  if (!config.attempts)
    await step("connect", async () => {
      await page.click("#connect");
      await page.waitForFunction(() => window.voicecoach.ready, null, { timeout: 30000 });
    });
  if (config.attempts) await attempts();
  else if (config.look) {
    await step("state shown", () =>
      page.waitForFunction(() => (window.voicecoach.state?.version ?? 0) > 0, null, { timeout: 20000 }),
    );
    await page.waitForTimeout(500); // the render after the example state
    result.text = await page.evaluate(() => document.body.innerText);
  } else await conversation();
  result.final = await view();
  result.ok = true;
} catch (err) {
  result.error = String(err);
  try {
    result.final = await view();
  } catch {}
} finally {
  try {
    await page.screenshot({ path: config.screenshot, fullPage: true });
    result.screenshot = config.screenshot;
  } catch (err) {
    log(`screenshot failed: ${err}`);
  }
  await context.close();
}
console.log(JSON.stringify(result));

// Two spoken turns with a state change made on the page between them (and with `"third": true`,
// a third question after them).
async function conversation() {
  await step("first turn heard", () =>
    page.waitForFunction((w) => window.voicecoach.transcripts.some((t) => t.toLowerCase().includes(w)), config.word, {
      timeout: 40000,
    }),
  );
  await step("first turn answered aloud", () =>
    page.waitForFunction(() => window.voicecoach.completed.length >= 1 && window.voicecoach.audio.audibleChunks > 0, null, {
      timeout: 40000,
    }),
  );
  result.first = await view();
  await step("remove creature on the page", async () => {
    await page.click(`#inventory .card[data-creature="${config.remove}"] button[data-action="remove"]`);
    await page.waitForFunction(
      (id) => !window.voicecoach.state.fs.inventory.owned.some((o) => o.creature_id === id),
      config.remove,
      { timeout: 10000 },
    );
  });
  await step("second turn", () =>
    page.waitForFunction(() => window.voicecoach.completed.length >= 2, null, { timeout: 60000 }),
  );
  if (config.third)
    await step("third turn", () =>
      page.waitForFunction(() => window.voicecoach.completed.length >= 3, null, { timeout: 60000 }),
    );
  await page.waitForTimeout(1500); // let the latency panel and the coach line settle
  result.playerLines = await page.evaluate(() =>
    [...document.querySelectorAll("#transcript .line.player")].map((l) => l.innerText),
  );
}

// One connection per attempt; what the player was shown for each.
async function attempts() {
  const sockets = [];
  context.on("page", (p) => p.on("websocket", (ws) => sockets.push(ws.url())));
  page.on("websocket", (ws) => sockets.push(ws.url()));
  const shown = (p) =>
    p.evaluate(() => ({
      ready: window.voicecoach.ready,
      closeReason: window.voicecoach.closeReason,
      closeCode: window.voicecoach.closeCode,
      status: document.getElementById("status").textContent,
      session: document.getElementById("session").value,
      hash: location.hash,
    }));
  const connect = async (p, attempt) => {
    await p.goto(config.url);
    await p.reload(); // a fresh page: the hash alone does not reload it
    await p.fill("#token", attempt.token);
    if (attempt.session !== undefined) await p.fill("#session", attempt.session);
    await p.click("#connect");
    await p.waitForFunction(() => window.voicecoach.ready || window.voicecoach.closeReason, null, { timeout: 20000 });
    return shown(p);
  };
  result.attempts = [];
  for (const attempt of config.attempts) result.attempts.push(await connect(page, attempt));
  if (config.takeover) {
    const first = result.attempts[0];
    await connect(page, config.attempts[0]);
    const other = await context.newPage();
    result.takeover = { newer: await connect(other, config.takeover) };
    await page.waitForFunction(() => window.voicecoach.closeReason, null, { timeout: 20000 });
    result.takeover.older = await shown(page);
    result.takeover.session = first.session;
  }
  result.sockets = sockets;
}
