import { defineConfig } from 'vitest/config';

// Timeouts are budgets for a loaded 2-core CI machine, not performance targets: an end-to-end test
// that runs bench, Python checks and SQLite can take tens of seconds there, so no test should fail
// on a fixed wall-clock deadline a slow machine misses. A test that needs more says so itself.
export default defineConfig({
  test: {
    // Integration tests spawn shells and SQLite files; two cores here.
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['runtime/**/*.test.ts', 'harness/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts'], testTimeout: 300_000, hookTimeout: 300_000 },
      },
    ],
  },
});
