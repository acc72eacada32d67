import base from "./playwright.config";
import { defineConfig } from "@playwright/test";

// `npm run screenshots`: the two pictures the README shows, remade from a
// real broker (e2e/docs.shots.ts), written under docs/.
export default defineConfig({
  ...base,
  testMatch: "*.shots.ts",
  use: { ...base.use, viewport: { width: 1280, height: 760 }, colorScheme: "light" },
});
