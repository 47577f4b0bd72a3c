import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Files that need a DOM say so with a `// @vitest-environment jsdom` docblock.
    testTimeout: 20_000,
    pool: 'forks',
    // Phaser is loaded as it ships: transforming its 8.8 MB build would cost ~10 s per test file.
    server: { deps: { external: [/node_modules\/phaser\//] } },
  },
});
