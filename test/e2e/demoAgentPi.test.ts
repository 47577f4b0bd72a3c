// `aicc demo --agent pi`: a villager driven by the REAL pi (0.73, through the gateway), its model a
// local stub scripted with tool-call blocks.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/node/cli/main.js';
import { tempDir } from '../node/gateway/helpers.js';
import { startStubModel, STUB_MODEL_ID, STUB_PROVIDER, writePiAgentDir, type StubModel } from './stubModel.js';
import { PI_CLI } from './piTargets.js';

const block = (call: object): string => `\`\`\`aicc\n${JSON.stringify(call)}\n\`\`\``;

describe('aicc demo --agent pi', () => {
  let stub: StubModel;
  let dir: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    // After its first move Cleo keeps greeting: which model call gets which reply does not matter.
    stub = await startStubModel({ fallbackReply: block({ tool: 'say', input: { text: 'Good morning, Millbrook!' } }) });
    dir = tempDir('aicc-e2e-demo-');
    writePiAgentDir(join(dir.path, 'agent'), stub.baseUrl);
  });

  afterAll(async () => {
    await stub?.close();
    dir?.remove();
  });

  it('lets pi drive Cleo among the scripted villagers', async () => {
    stub.script(block({ tool: 'go', input: { direction: 'south' } }));
    let out = '';
    let err = '';
    const code = await main(
      [
        'demo',
        '--agent',
        'pi:cleo',
        '--ticks',
        '80',
        '--pi-bin',
        PI_CLI,
        '--provider',
        STUB_PROVIDER,
        '--model',
        STUB_MODEL_ID,
        '--pi-agent-dir',
        join(dir.path, 'agent'),
      ],
      { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } },
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('Cleo is driven by a chat agent, through the pilot.');
    expect(out).toContain('Cleo walks south from the Tavern to the Market.');
    expect(out).toContain('Cleo says: "Good morning, Millbrook!"');
    expect(stub.requests.length).toBeGreaterThanOrEqual(2);
  }, 90_000);
});
