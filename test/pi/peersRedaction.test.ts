// The token never comes back in a PeersError, whatever the agent quotes it in: leaks the fuzz
// target (test/fuzz/targets/peersClient.ts) found.
import { describe, expect, it } from 'vitest';
import { createMemoryLinkPair } from '../../src/links/memory.js';
import { ManualClock } from '../../src/base/clock.js';
import { PeersClient } from '../../src/pi/index.js';
import { settle } from '../helpers.js';
import { failure, setup } from './helpers.js';

/** Every string and key in `value`, as it is (a JSON text would show escaped ones escaped). */
function texts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...texts(inner)]);
}

describe('PeersClient redaction', () => {
  it('an answer that breaks the command names its command without the token (getState, getLastAssistantText, hello)', async () => {
    const token = 'c0ffee-5ecret-0123456789abcdef';
    const { sim, client } = await setup({ token }, { token });
    for (const [call, command] of [
      [() => client.getState(), 'get_state'],
      [() => client.getLastAssistantText(), 'get_last_assistant_text'],
    ] as const) {
      sim.holdNext(command);
      const pending = failure(call());
      await settle();
      const held = sim.held.shift()!;
      sim.sendRecord({ type: 'response', id: held.id, command: `${command} ${token}`, success: true, data: { broken: true } });
      const error = await pending;
      expect(error.code).toBe('invalid_response');
      expect(error.details?.command).toBe(`${command} [redacted]`);
      expect(texts(error.details).join('\n')).not.toContain(token);
    }
  });

  it('a hello answer that is unreadable, or names no common version, names its command without the token', async () => {
    const token = 'c0ffee-5ecret-0123456789abcdef';
    for (const protocol of [{ version: 'one' }, { version: '2.1', minVersion: '2.0' }]) {
      const [clientEnd, agentEnd] = createMemoryLinkPair();
      agentEnd.listen({
        message: (frame) => {
          const hello = JSON.parse(String(frame)) as { id: string };
          agentEnd.send(JSON.stringify({ type: 'response', id: hello.id, command: `hello ${token}`, success: true, data: { protocol } }));
        },
        close: () => {},
      });
      const error = await failure(PeersClient.connect(clientEnd, { clock: new ManualClock(), token }));
      expect(['invalid_response', 'incompatible_version']).toContain(error.code);
      expect(error.details?.command).toBe('hello [redacted]');
    }
  });

  it('keeps no data holding the token, even a token with characters JSON escapes', async () => {
    const token = 'tok"\\\n0123456789abcdef';
    const { sim, client } = await setup({ token }, { token });
    sim.failNext('get_state', { errorCode: 'denied', data: { echo: token } });
    const quoted = await failure(client.getState());
    expect(quoted.code).toBe('denied');
    expect(quoted.details).not.toHaveProperty('data');
    sim.failNext('get_state', { errorCode: 'denied', data: { [token]: 1 } });
    expect((await failure(client.getState())).details).not.toHaveProperty('data');
    // Data without the token is kept, as before.
    sim.failNext('get_state', { errorCode: 'denied', data: { echo: 'tok"\\\n' } });
    expect((await failure(client.getState())).details?.data).toEqual({ echo: 'tok"\\\n' });
  });
});
