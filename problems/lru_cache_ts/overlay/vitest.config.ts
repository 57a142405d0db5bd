// The vitest settings this problem trusts (a submission's own vitest.config.* or vite.config.*
// is removed from the run's copy). The harness still decides which files run, the reporters,
// snapshots and caches.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "node",
    typecheck: { tsconfig: "./tsconfig.json" },
  },
});
