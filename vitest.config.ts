import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['runtime/**/*.test.ts', 'harness/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests spawn shells and SQLite files; two cores here.
    pool: 'forks',
  },
});
