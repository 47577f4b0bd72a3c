import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    // Files that need a DOM say so with a `// @vitest-environment jsdom` docblock.
    testTimeout: 20_000,
    pool: 'forks',
    // Phaser is loaded as it ships: transforming its 8.8 MB build would cost ~10 s per test file.
    server: { deps: { external: [/node_modules\/phaser3?\//] } },
    projects: [
      // Everything, the Phaser adapter against Phaser 4 (the `phaser` dev dependency).
      { extends: true, test: { name: 'aicc-capsule', include: ['test/**/*.test.ts'] } },
      // The Phaser adapter again, against the oldest Phaser it supports (the `phaser3` dev
      // dependency, Phaser 3.60.0), loaded as a bundler loads it: its ES module build. The files
      // that never load Phaser (plain geometry, tool options, the meter) run once, above.
      {
        extends: true,
        test: {
          name: 'phaser 3.60',
          include: ['test/adapters/phaser/**/*.test.ts'],
          exclude: ['test/adapters/phaser/{perception,tools,meter}.test.ts'],
          env: { AICC_PHASER: 'phaser3/dist/phaser.esm.js' },
        },
      },
      // The Three.js adapter again, against the oldest three it supports (the `three150` dev
      // dependency, three 0.150.0): every import of 'three', the adapter's own included, goes there.
      {
        extends: true,
        resolve: { alias: [{ find: /^three$/, replacement: 'three150' }] },
        test: { name: 'three 0.150', include: ['test/adapters/three/**/*.test.ts'], env: { AICC_THREE: 'three150' } },
      },
    ],
  },
});
