import { defineConfig } from "vitest/config";

// The broker serves the build at /ui/; `npm run dev` proxies the API to a
// broker (SINDRI_BROKER, default http://127.0.0.1:8080).
export default defineConfig({
  base: "/ui/",
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: { "/api": process.env.SINDRI_BROKER ?? "http://127.0.0.1:8080" },
  },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    environment: "jsdom",
  },
});
