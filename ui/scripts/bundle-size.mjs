// Prints what a first visit loads (the scripts and stylesheets index.html
// names, and the modules they preload) and what loads on demand, gzipped,
// and fails the build when the first load's JavaScript passes 500 KB gzipped.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const LIMIT_KB = 500;
const dist = join(import.meta.dirname, "..", "dist");
const index = readFileSync(join(dist, "index.html"), "utf8");
const firstLoad = new Set([...index.matchAll(/(?:src|href)="\/ui\/(assets\/[^"]+)"/g)].map((match) => match[1]));

const kb = (bytes) => (bytes / 1024).toFixed(1);
const gzipped = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;

let firstJs = 0;
let firstCss = 0;
let onDemand = 0;
const rows = [];
for (const name of readdirSync(join(dist, "assets")).sort()) {
  const file = `assets/${name}`;
  const size = gzipped(file);
  const first = firstLoad.has(file);
  if (first && name.endsWith(".js")) firstJs += size;
  else if (first && name.endsWith(".css")) firstCss += size;
  else onDemand += size;
  rows.push(`  ${first ? "first load" : "on demand "}  ${kb(size).padStart(8)} KB  ${file}`);
}
console.log("console bundle (gzipped):");
console.log(rows.join("\n"));
console.log(`first load: ${kb(firstJs)} KB of JavaScript, ${kb(firstCss)} KB of CSS (limit ${LIMIT_KB} KB of JavaScript)`);
console.log(`on demand:  ${kb(onDemand)} KB`);
if (firstJs > LIMIT_KB * 1024) {
  console.error(`the first load's JavaScript is ${kb(firstJs)} KB gzipped, over ${LIMIT_KB} KB`);
  process.exit(1);
}
