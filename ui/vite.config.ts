import { defineConfig } from "vitest/config";

// The broker serves the build at /ui/; `npm run dev` proxies the API to a
// broker (SINDRI_BROKER, default http://127.0.0.1:8080).
export default defineConfig({
  base: "/ui/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // rjsf marks its modules "use client" for React Server Components,
      // which a single-page application has no use for.
      onwarn(warning, warn) {
        if (warning.code === "MODULE_LEVEL_DIRECTIVE" && warning.message.includes('"use client"')) return;
        warn(warning);
      },
    },
  },
  server: {
    proxy: { "/api": process.env.SINDRI_BROKER ?? "http://127.0.0.1:8080" },
  },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    environment: "jsdom",
  },
});
