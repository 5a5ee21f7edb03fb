// Runs official_page.mjs (the official Pipecat web client) in headless Chromium against a live
// coach server, for tests/pipelines/test_official_client.py.
//
//   node official_drive.mjs '<json config>'
//
// The page is bundled here with esbuild from the npm packages in node_modules (no CDN) and served
// from a port of its own, as a game's page would be. Chromium's fake microphone plays the config's WAV once. Prints one
// JSON line: the page's message log and what its callbacks saw, and every console line.
import { createServer } from "node:http";
import { build } from "esbuild";
import { chromium } from "playwright-core";

const config = JSON.parse(process.argv[2]);
const log = (...args) => console.error("[official]", ...args);

const bundle = await build({
  entryPoints: [new URL("./official_page.mjs", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  target: ["chrome100"],
  write: false,
  logLevel: "warning",
});
const script = bundle.outputFiles[0].text;
// The game's page, from its own origin (the server allows it with --allowed-origin): Chromium
// refuses a page it cannot place on the network (a intercepted request) access to loopback.
const html = `<!doctype html><html><head><meta charset="utf-8"><title>official client</title></head>
<body><script type="module" src="/app.js"></script></body></html>`;
const site = createServer((req, res) => {
  const js = req.url === "/app.js";
  res.writeHead(200, { "content-type": js ? "text/javascript" : "text/html", "cache-control": "no-store" });
  res.end(js ? script : html);
});
await new Promise((resolve) => site.listen(config.pagePort, "127.0.0.1", resolve));

const context = await chromium.launchPersistentContext(config.userDataDir, {
  executablePath: config.chromium,
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${config.wav}%noloop`,
    "--autoplay-policy=no-user-gesture-required",
  ],
  permissions: ["microphone"],
});
const result = { ok: false, console: [] };
const page = context.pages()[0] ?? (await context.newPage());
page.on("console", (msg) => result.console.push({ type: msg.type(), text: msg.text() }));
page.on("pageerror", (err) => result.console.push({ type: "pageerror", text: String(err) }));
try {
  await page.goto(`http://127.0.0.1:${config.pagePort}/`);
  await page.waitForFunction(() => window.coach !== undefined, null, { timeout: 10000 });
  // The scenario, within the config's deadline (then what the page saw so far is reported).
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no end within ${config.deadlineMs} ms`)), config.deadlineMs);
  });
  const progress = setInterval(async () => {
    const last = await page.evaluate(() => window.coach?.state?.log?.slice(-3)).catch(() => null);
    log(JSON.stringify(last));
  }, 5000);
  try {
    result.state = await Promise.race([page.evaluate((c) => window.coach.run(c), config.page), deadline]);
  } finally {
    clearTimeout(timer);
    clearInterval(progress);
  }
  result.ok = true;
} catch (err) {
  result.error = String(err);
  try {
    result.state = await page.evaluate(() => window.coach?.state);
  } catch {}
} finally {
  await context.close();
  site.close();
}
console.log(JSON.stringify(result));
