// Bundles src/app.ts (+ its CSS) into dist/, which is committed: `voicecoach serve` needs no npm.
import { build } from "esbuild";

await build({
  entryPoints: { app: "src/app.ts" },
  bundle: true,
  format: "esm",
  target: ["chrome100", "firefox100", "safari15"],
  minify: true,
  sourcemap: false,
  outdir: "dist",
  legalComments: "linked", // third-party licences go to dist/app.js.LEGAL.txt
  logLevel: "info",
});
