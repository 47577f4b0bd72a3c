import { describe, expect, it } from 'vitest';
import { objectCodec } from '../../src/protocol/objectCodec.js';
import { webSocketLink, type WebSocketLike } from '../../src/links/websocket.js';
import { connectAgent, echoTool, makeCapsule } from '../helpers.js';

const limits = { maxFrameBytes: 1024, maxDepth: 8 };

describe('objectCodec', () => {
  it('carries a call and its result between a capsule and an agent in one process', async () => {
    const { capsule, clock } = makeCapsule();
    capsule.registerTool(echoTool);
    const { agent } = await connectAgent(capsule, clock, { codec: objectCodec }, { codec: objectCodec });
    expect(await agent.call('echo', { text: 'no text in between' })).toMatchObject({ ok: true, output: { echo: { text: 'no text in between' } } });
  });

  it('passes the message itself, not a copy', () => {
    const message = { protocol: 'aicc/0.1', type: 'heartbeat', session_id: 'x', message_id: 'y' } as const;
    expect(objectCodec.encode(message)).toBe(message);
  });

  it('refuses text and bytes: both ends must use it', () => {
    expect(objectCodec.decode('{}', limits)).toMatchObject({ ok: false, kind: 'malformed_frame' });
    expect(objectCodec.decode(new Uint8Array([1]), limits)).toMatchObject({ ok: false, kind: 'malformed_frame' });
  });

  it('still bounds depth and refuses hostile keys', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 10; i++) deep = deep['a'] = {};
    expect(objectCodec.decode(root as never, limits)).toMatchObject({ ok: false, kind: 'too_deep' });
    expect(objectCodec.decode(JSON.parse('{"__proto__":{"x":1}}'), limits)).toMatchObject({ ok: false, kind: 'forbidden_key' });
  });

  it('cannot be sent over a WebSocket', () => {
    const socket = { readyState: 1, bufferedAmount: 0, binaryType: '', send: () => {}, close: () => {}, addEventListener: () => {} } satisfies WebSocketLike;
    const link = webSocketLink(socket);
    expect(() => link.send({ protocol: 'aicc/0.1', type: 'heartbeat', session_id: 'x', message_id: 'y' })).toThrow(/objectCodec is for in-process links/);
  });
});
