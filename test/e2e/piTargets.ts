// The real pi installs the end-to-end tests run against. pi 0.73.1 (the dev dependency, Node 20)
// always; pi 1.x too when AICC_E2E_PI1_CLI names its dist/cli.js, with AICC_E2E_PI1_NODE naming a
// Node >= 22.19 to run it (scripts/test.mjs sets both from the dev dependencies when installed).
import { fileURLToPath } from 'node:url';

export interface PiTarget {
  name: string;
  cli: string;
  node?: string;
}

export const PI_CLI = fileURLToPath(new URL('../../node_modules/@mariozechner/pi-coding-agent/dist/cli.js', import.meta.url));

export const PI_TARGETS: PiTarget[] = [{ name: 'pi 0.73.1', cli: PI_CLI }];
if (process.env.AICC_E2E_PI1_CLI) {
  PI_TARGETS.push({ name: 'pi 1.x', cli: process.env.AICC_E2E_PI1_CLI, ...(process.env.AICC_E2E_PI1_NODE ? { node: process.env.AICC_E2E_PI1_NODE } : {}) });
}
