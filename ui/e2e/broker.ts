// Global setup: one real broker (`sindri serve`, SQLite in a scratch
// directory, serving ui/dist at /ui/) for the whole run. Its address and
// admin PAK reach the tests through the environment; the returned function
// stops it.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, seconds = 30): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`the broker did not start: no ${what} after ${seconds} s`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

export default async function startBroker() {
  const binary = process.env.SINDRI_BIN ?? resolve(ROOT, "../build/bin/sindri");
  if (!existsSync(binary)) throw new Error(`no broker binary at ${binary}: build it, or set SINDRI_BIN`);
  const dist = resolve(ROOT, "dist");
  if (!existsSync(join(dist, "index.html"))) throw new Error(`no console build in ${dist}: run npm run build`);
  const scratch = mkdtempSync(join(tmpdir(), "sindri-console-e2e-"));
  const addressFile = join(scratch, "address");
  const broker = spawn(
    binary,
    [
      "serve",
      "--listen", "127.0.0.1:0",
      "--address-file", addressFile,
      "--database", `sqlite://${join(scratch, "sindri.db")}`,
      "--admin-pak-file", join(scratch, "admin.pak"),
      "--ui-directory", dist,
      "--log-level", "warn",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  let exited = false;
  broker.on("exit", () => (exited = true));
  const address = await waitFor("address file", () => {
    if (exited) throw new Error("the broker exited at start");
    if (!existsSync(addressFile)) return undefined;
    const text = readFileSync(addressFile, "utf8").trim();
    return text || undefined;
  });
  const base = `http://${address}`;
  process.env.SINDRI_BROKER_URL = base;
  process.env.SINDRI_CONSOLE_URL = `${base}/ui/`;
  process.env.SINDRI_ADMIN_PAK = readFileSync(join(scratch, "admin.pak"), "utf8").trim();
  return async () => {
    broker.kill("SIGTERM");
    await waitFor("exit", () => (exited ? true : undefined), 15);
    rmSync(scratch, { recursive: true, force: true });
  };
}
