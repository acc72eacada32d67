import { defineConfig } from "@playwright/test";

// Debian's chromium (scripts/setup.sh installs it); Playwright never
// downloads a browser here. e2e/broker.ts starts a real broker on SQLite
// serving ui/dist; SINDRI_BIN names its binary.
export default defineConfig({
  testDir: "e2e",
  testMatch: "*.spec.ts",
  globalSetup: "./e2e/broker.ts",
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  outputDir: "test-results",
  reporter: [["list"]],
  use: {
    baseURL: process.env.SINDRI_CONSOLE_URL,
    screenshot: "only-on-failure",
    trace: "off",
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
