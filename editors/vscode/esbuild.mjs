// Bundles the extension (out/extension.js) and the chat webview
// (media/chat.js, with the codicon font copied next to it) or, with
// --tests, the unit tests (out/test/*.test.js) with esbuild.
import { copyFileSync, readdirSync } from "node:fs";
import * as esbuild from "esbuild";

const tests = process.argv.includes("--tests");
const common = { bundle: true, platform: "node", target: "node20", format: "cjs", sourcemap: true, external: ["vscode"], logLevel: "warning" };
if (tests) {
  const entries = readdirSync("test").filter((f) => f.endsWith(".test.ts")).map((f) => `test/${f}`);
  await esbuild.build({ ...common, entryPoints: entries, outdir: "out/test" });
} else {
  await esbuild.build({ ...common, entryPoints: ["src/extension.ts"], outfile: "out/extension.js", minify: true });
  await esbuild.build({ bundle: true, platform: "browser", target: "es2022", format: "iife", minify: true, entryPoints: ["src/webview/chat.ts"], outfile: "media/chat.js", logLevel: "warning" });
  for (const f of ["codicon.css", "codicon.ttf"]) copyFileSync(`node_modules/@vscode/codicons/dist/${f}`, `media/${f}`);
}
