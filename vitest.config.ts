import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Timeouts are budgets for a loaded 2-core CI machine, not performance targets: an end-to-end test
// that runs bench, Python checks and SQLite can take tens of seconds there, so no test should fail
// on a fixed wall-clock deadline a slow machine misses. A test that needs more says so itself.
// .ci/run sets VITEST_TIMINGS to a file path to get per-file timings (JSON) beside the usual output.
const timings = process.env.VITEST_TIMINGS;

export default defineConfig({
  test: {
    // Integration tests spawn shells and SQLite files; two cores here.
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine, though most
    // integration time is spent waiting on child processes (shells, Python checks, sandboxes). Two
    // overlap that wait: the whole suite passed this way at load average 20-39 (2,714 s wall for
    // 4,598 s of test time).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: timings ? ['default', ['json', { outputFile: timings }]] : ['default'],
    projects: [
      {
        extends: true,
        // The unit tests leave no global state behind, so one module graph per worker serves them all
        // (a fresh graph per file was about half of their wall time).
        test: { name: 'unit', isolate: false, include: ['runtime/**/*.test.ts', 'harness/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts'], testTimeout: 300_000, hookTimeout: 300_000 },
      },
    ],
  },
});
