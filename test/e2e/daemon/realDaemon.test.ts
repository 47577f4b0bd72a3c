// The harness itself: the real pi-daemon installs from its packed build, starts in a private run
// folder with the stub model as its only provider, answers, restarts on its state, and stops by PID.

import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectSocketLink } from '../../../src/node/socketLink.js';
import { DaemonClient } from '../../../src/pi/index.js';
import { startStubModel, type StubModel } from '../stubModel.js';
import { describeWithRealDaemon, startRealDaemon, type RealDaemon } from './realDaemon.js';

describeWithRealDaemon('the real pi-daemon 0.3.3 harness', () => {
  let stub: StubModel;
  let daemon: RealDaemon;
  beforeAll(async () => {
    stub = await startStubModel({ fallbackReply: 'hello from the stub' });
    daemon = await startRealDaemon({ modelBaseUrl: stub.baseUrl });
  }, 240_000);
  afterAll(async () => {
    await daemon?.dispose();
    await stub?.close();
  });

  it('serves protocol v2 on its socket, with the stub as its model, and stops by PID', async () => {
    const client = await DaemonClient.connect(await connectSocketLink(daemon.socket));
    try {
      expect(client.host.supportedProtocolVersions).toContain('2.0');
      const ref = { sessionId: 'harness', generation: 1 };
      await client.open(ref, { cwd: daemon.workDir, session: { mode: 'memory' } });
      const answer = await client.wake(ref, { prompt: 'hello?', idempotencyKey: 'harness-1' });
      expect(answer.terminal && answer.result.text).toBe('hello from the stub');
      expect(stub.requests).toHaveLength(1);
    } finally {
      client.disconnect('test over');
    }
    const pid = daemon.pid!;
    await daemon.restart();
    expect(daemon.pid).not.toBe(pid);
    expect(() => process.kill(pid, 0)).toThrow();
    await daemon.stop();
    expect(existsSync(daemon.runDir)).toBe(true);
  }, 60_000);
});
