import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Files that need a DOM say so with a `// @vitest-environment jsdom` docblock.
    testTimeout: 20_000,
    pool: 'forks',
  },
});
