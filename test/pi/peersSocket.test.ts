// PeersClient straight to an agent's Unix socket, with no gateway: the Node-only way for headless
// runs. The agent here is the simulator served over a real socket, NDJSON framed by socketLink.

import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectSocketLink, socketLink } from '../../src/node/socketLink.js';
import { PeersClient } from '../../src/pi/peersClient.js';
import { ManualClock } from '../../src/base/clock.js';
import { tempDir } from '../node/gateway/helpers.js';
import { PeersSimulator } from './peersSimulator.js';
import { failure } from './helpers.js';

const TOKEN = 'agent-secret-token-0123456789';

describe('PeersClient over an agent Unix socket', () => {
  let server: Server | undefined;
  let dir: ReturnType<typeof tempDir> | undefined;

  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    dir?.remove();
  });

  async function agentSocket(): Promise<string> {
    dir = tempDir('aicc-peers-socket-');
    const path = join(dir.path, 'agent.sock');
    const sim = new PeersSimulator({ clock: new ManualClock(), token: TOKEN });
    server = createServer((socket) => sim.serve(socketLink(socket)));
    await new Promise<void>((resolve) => server!.listen(path, resolve));
    return path;
  }

  it('says hello with the token, then reads the state and delivers', async () => {
    const path = await agentSocket();
    const client = await PeersClient.connect(await connectSocketLink(path), { token: TOKEN });
    const state = await client.getState();
    expect(state.idle).toBe(true);
    expect(state.settled).toBe(0);
    expect(await client.deliver('prompt', 'Hello from the village')).toMatchObject({ success: true });
    client.close();
  });

  it('is refused with auth_failed when the token is wrong, and the error does not repeat the token', async () => {
    const path = await agentSocket();
    const sent = 'not-the-token-at-all';
    const error = await failure(PeersClient.connect(await connectSocketLink(path), { token: sent }));
    expect(error.code).toBe('auth_failed');
    expect(`${error.message} ${JSON.stringify(error.details ?? {})}`).not.toContain(sent);
  });
});
