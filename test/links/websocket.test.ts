import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { AgentClient } from '../../src/agent/agentClient.js';
import { binaryCodec } from '../../src/protocol/binaryCodec.js';
import type { Codec, Frame } from '../../src/protocol/codec.js';
import type { Link } from '../../src/links/link.js';
import { connectWebSocket, webSocketLink, type ConnectWebSocketOptions, type WebSocketConstructor } from '../../src/links/websocket.js';
import { createCapsule, type Capsule } from '../../src/index.js';
import { CapsuleError } from '../../src/base/errors.js';

const WS = WebSocket as unknown as WebSocketConstructor;

/** A promise that rejects after `ms`, so no test here can hang. */
function within<T>(promise: Promise<T>, what: string, ms = 3000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Listens on a link; frames and the close reason can be awaited one by one. */
class Receiver {
  private readonly frames: Frame[] = [];
  private waiting: Array<(frame: Frame) => void> = [];
  readonly closed: Promise<string>;

  constructor(link: Link) {
    let onClose!: (reason: string) => void;
    this.closed = new Promise((resolve) => (onClose = resolve));
    link.listen({
      message: (frame) => {
        const waiter = this.waiting.shift();
        if (waiter) waiter(frame);
        else this.frames.push(frame);
      },
      close: (reason) => onClose(reason),
    });
  }

  next(): Promise<Frame> {
    const frame = this.frames.shift();
    if (frame !== undefined) return Promise.resolve(frame);
    return within(new Promise((resolve) => this.waiting.push(resolve)), 'a frame');
  }
}

let server: WebSocketServer;
let url: string;

beforeEach(async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await within(new Promise((resolve) => server.once('listening', resolve)), 'the server to listen');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  url = `ws://127.0.0.1:${address.port}`;
});

afterEach(async () => {
  for (const client of server.clients) client.terminate();
  await within(new Promise((resolve) => server.close(resolve)), 'the server to close');
});

/** Connects a client and returns both ends as links. */
async function pair(): Promise<{ client: Link; serverSide: Link; raw: WebSocket }> {
  const accepted = new Promise<{ link: Link; raw: WebSocket }>((resolve) =>
    server.once('connection', (socket) => resolve({ link: webSocketLink(socket), raw: socket })),
  );
  const client = await within(connectWebSocket(url, { WebSocket: WS }), 'connectWebSocket');
  const { link: serverSide, raw } = await within(accepted, 'the server connection');
  return { client, serverSide, raw };
}

/** A port that was free a moment ago and has no listener now. */
async function unusedPort(): Promise<number> {
  const probe = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => probe.once('listening', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return address.port;
}

describe('connectWebSocket and webSocketLink over ws', { timeout: 10_000 }, () => {
  it('resolves with an open link once the socket is open', async () => {
    const { client, serverSide } = await pair();
    expect(client.open).toBe(true);
    expect(serverSide.open).toBe(true);
    expect(client.bufferedAmount).toBe(0);
  });

  it('carries text frames from client to server and back', async () => {
    const { client, serverSide } = await pair();
    const atServer = new Receiver(serverSide);
    const atClient = new Receiver(client);
    client.send('{"hello":"server"}');
    expect(await atServer.next()).toBe('{"hello":"server"}');
    serverSide.send('héllo 😀 client');
    expect(await atClient.next()).toBe('héllo 😀 client');
  });

  it('carries binary frames as Uint8Array both ways', async () => {
    const { client, serverSide } = await pair();
    const atServer = new Receiver(serverSide);
    const atClient = new Receiver(client);
    client.send(new Uint8Array([0, 1, 2, 254, 255]));
    const up = await atServer.next();
    expect(up).toBeInstanceOf(Uint8Array);
    expect([...(up as Uint8Array)]).toEqual([0, 1, 2, 254, 255]);
    serverSide.send(new Uint8Array([9, 8, 7]));
    const down = await atClient.next();
    expect(down).toBeInstanceOf(Uint8Array);
    expect([...(down as Uint8Array)]).toEqual([9, 8, 7]);
  });

  it('sends a part of a larger buffer as exactly that part', async () => {
    const { client, serverSide } = await pair();
    const atServer = new Receiver(serverSide);
    const whole = new Uint8Array([1, 2, 3, 4, 5, 6]);
    client.send(whole.subarray(2, 4));
    expect([...((await atServer.next()) as Uint8Array)]).toEqual([3, 4]);
  });

  it('keeps frames in order', async () => {
    const { client, serverSide } = await pair();
    const atServer = new Receiver(serverSide);
    for (let i = 0; i < 20; i++) client.send(i % 2 === 0 ? String(i) : new Uint8Array([i]));
    const got: string[] = [];
    for (let i = 0; i < 20; i++) {
      const frame = await atServer.next();
      got.push(typeof frame === 'string' ? frame : `b${(frame as Uint8Array)[0]}`);
    }
    expect(got).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? String(i) : `b${i}`)));
  });

  it('holds frames that arrive before listen()', async () => {
    const { client, serverSide, raw } = await pair();
    // The server's socket itself counts what arrived: the link listens only afterwards.
    let arrived = 0;
    raw.on('message', () => void arrived++);
    client.send('one');
    client.send('two');
    await vi.waitFor(() => expect(arrived).toBe(2), { timeout: 5000 });
    const atServer = new Receiver(serverSide);
    expect(await atServer.next()).toBe('one');
    expect(await atServer.next()).toBe('two');
  });

  it('brings the close reason to the other end, and the plain reason to the closing end', async () => {
    const { client, serverSide } = await pair();
    const atServer = new Receiver(serverSide);
    const atClient = new Receiver(client);
    client.close('agent done');
    expect(client.open).toBe(false);
    expect(await within(atClient.closed, 'the client close')).toBe('agent done');
    expect(await within(atServer.closed, 'the server close')).toBe('agent done (code 1000)');
    expect(serverSide.open).toBe(false);
  });

  it('brings a close from the server side to the client', async () => {
    const { client, serverSide } = await pair();
    const atClient = new Receiver(client);
    new Receiver(serverSide);
    serverSide.close('world shut down');
    expect(await within(atClient.closed, 'the client close')).toBe('world shut down (code 1000)');
  });

  it('drops frames sent after close', async () => {
    const { client, serverSide } = await pair();
    const atServer: Frame[] = [];
    const closed = new Promise<string>((resolve) => serverSide.listen({ message: (frame) => atServer.push(frame), close: resolve }));
    client.send('before');
    client.close('bye');
    client.send('after');
    // The close is the last thing the server hears on the socket: a frame sent before it came first.
    await within(closed, 'the server close');
    expect(atServer).toEqual(['before']);
  });

  it('rejects with AICC_NOT_CONNECTED when nobody listens on the port', async () => {
    const port = await unusedPort();
    const attempt = connectWebSocket(`ws://127.0.0.1:${port}`, { WebSocket: WS });
    const error = await within(
      attempt.then(
        () => undefined,
        (e: unknown) => e,
      ),
      'the refusal',
    );
    expect(error).toBeInstanceOf(CapsuleError);
    expect((error as CapsuleError).code).toBe('AICC_NOT_CONNECTED');
    expect((error as CapsuleError).message).toContain(`could not connect to ws://127.0.0.1:${port}`);
  });

  it('throws AICC_INVALID_OPTION when no WebSocket class is given or global', () => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'WebSocket');
    if (descriptor) delete (globalThis as { WebSocket?: unknown }).WebSocket;
    try {
      expect((globalThis as { WebSocket?: unknown }).WebSocket).toBeUndefined();
      let thrown: unknown;
      try {
        void connectWebSocket(url, { WebSocket: undefined } as unknown as ConnectWebSocketOptions);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CapsuleError);
      expect((thrown as CapsuleError).code).toBe('AICC_INVALID_OPTION');
    } finally {
      if (descriptor) Object.defineProperty(globalThis, 'WebSocket', descriptor);
    }
  });

  it('uses globalThis.WebSocket when no class is passed', async () => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'WebSocket');
    Object.defineProperty(globalThis, 'WebSocket', { value: WebSocket, configurable: true, writable: true });
    try {
      const link = await within(connectWebSocket(url), 'connectWebSocket');
      expect(link.open).toBe(true);
      link.close('done');
    } finally {
      if (descriptor) Object.defineProperty(globalThis, 'WebSocket', descriptor);
      else delete (globalThis as { WebSocket?: unknown }).WebSocket;
    }
  });
});

describe('a capsule and an AgentClient over a real WebSocket', { timeout: 10_000 }, () => {
  let capsule: Capsule | undefined;
  let agent: AgentClient | undefined;

  afterEach(async () => {
    if (agent) await within(agent.close('test over'), 'the agent to close').catch(() => {});
    capsule?.dispose();
    agent = undefined;
    capsule = undefined;
  });

  function greetingCapsule(): Capsule {
    const made = createCapsule({ world: { name: 'w', kind: 'abstract' }, tickMode: 'event' });
    made.registerTool({
      id: 'greet',
      class: 'sensor',
      description: 'Says hello to someone.',
      input_schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      output_schema: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
      handler: (input: { name: string }) => ({ greeting: `hello, ${input.name}` }),
    });
    return made;
  }

  const codecs = [
    ['the default JSON codec', undefined],
    ['the binary codec', binaryCodec],
  ] as Array<[string, Codec | undefined]>;

  async function callOnce(client: AgentClient, codec: Codec | undefined, frames: string[]): Promise<void> {
    expect(client.manifest.tools.map((tool) => tool.id)).toEqual(['greet']);
    expect(client.manifest.world).toEqual({ name: 'w', kind: 'abstract' });
    const outcome = await within(client.call('greet', { name: 'hero' }), 'the tool result');
    expect(outcome).toMatchObject({ ok: true, output: { greeting: 'hello, hero' }, callId: 'c1' });
    // The tool_call went over the wire in the codec's frame kind.
    expect(frames).toContain(codec === binaryCodec ? 'binary' : 'text');
    expect(frames).not.toContain(codec === binaryCodec ? 'text' : 'binary');
  }

  // The capsule sends session_init as soon as it connects, which here is before the client has
  // even been handed its link: the frame must be held for AgentClient.connect.
  it.each(codecs)('makes a successful call with %s', async (_name, codec) => {
    const live = (capsule = greetingCapsule());
    const frames: string[] = [];
    server.on('connection', (socket) => {
      socket.on('message', (_data, isBinary) => frames.push(isBinary ? 'binary' : 'text'));
      live.connect(webSocketLink(socket), codec ? { character: 'hero', codec } : { character: 'hero' });
    });
    const link = await within(connectWebSocket(url, { WebSocket: WS }), 'connectWebSocket');
    agent = await within(AgentClient.connect(link, codec ? { codec } : {}), 'session_init');
    await callOnce(agent, codec, frames);
  });

  // The same, with session_init sent only once the agent listens: the client sends one raw frame
  // after AgentClient.connect has taken the link, and the server connects the capsule on it.
  it.each(codecs)('makes a successful call with %s when session_init arrives after the agent listens', async (_name, codec) => {
    const live = (capsule = greetingCapsule());
    const frames: string[] = [];
    server.on('connection', (socket) => {
      socket.once('message', () => {
        socket.on('message', (_data, isBinary) => frames.push(isBinary ? 'binary' : 'text'));
        live.connect(webSocketLink(socket), codec ? { character: 'hero', codec } : { character: 'hero' });
      });
    });
    const link = await within(connectWebSocket(url, { WebSocket: WS }), 'connectWebSocket');
    const connecting = AgentClient.connect(link, codec ? { codec } : {});
    link.send('ready');
    agent = await within(connecting, 'session_init');
    await callOnce(agent, codec, frames);
  });
});

// A WebSocket close reason may hold 123 bytes: 60 Cyrillic letters are 120 UTF-16 units but 120
// bytes plus whatever precedes them, and `ws` throws a RangeError past 123.
describe('close reasons over a real WebSocket are bounded in bytes', { timeout: 10_000 }, () => {
  const cyrillic = 'ж'.repeat(60);
  const byteLength = (text: string) => Buffer.byteLength(text);

  it('closes with a long non-ASCII reason without throwing, and the peer gets at most 123 bytes of it', async () => {
    const { client, serverSide } = await pair();
    const atServer = new Receiver(serverSide);
    new Receiver(client);
    expect(() => client.close(`agent done: ${cyrillic}`)).not.toThrow();
    const reason = await within(atServer.closed, 'the server close');
    expect(reason.startsWith('agent done: жжж')).toBe(true);
    expect(byteLength(reason.replace(/ \(code 1000\)$/, ''))).toBeLessThanOrEqual(123);
  });

  it('refuses a bad first frame on capsule.accept() and closes: one frame cannot crash the game', async () => {
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, tickMode: 'event' });
    server.on('connection', (socket) => capsule.accept(webSocketLink(socket)));
    const raw = new WebSocket(url);
    const frames: string[] = [];
    raw.on('message', (data) => frames.push(String(data)));
    const closed = new Promise<[number, string]>((resolve) => raw.on('close', (code, reason) => resolve([code, reason.toString()])));
    await within(new Promise((resolve) => raw.on('open', resolve)), 'the raw socket to open');
    // The refusal names the undeclared field, and the close reason repeats the refusal.
    raw.send(
      JSON.stringify({
        protocol: 'aicc/0.1',
        type: 'session_resume',
        session_id: '00000000-0000-0000-0000-000000000000',
        message_id: '00000000-0000-0000-0000-000000000000',
        [cyrillic]: 1,
      }),
    );
    const [code, reason] = await within(closed, 'the close after the refusal');
    expect(code).toBe(1000);
    expect(byteLength(reason)).toBeLessThanOrEqual(123);
    expect(JSON.parse(frames[0]!)).toMatchObject({ type: 'error', error: { code: 'invalid_input' } });
    capsule.dispose();
  });

  it("closes a session for an agent's session_close with a long non-ASCII reason, and the agent's close() resolves", async () => {
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, tickMode: 'event' });
    const errors: unknown[] = [];
    capsule.on('error', (error) => errors.push(error));
    server.on('connection', (socket) => capsule.connect(webSocketLink(socket), { character: 'hero' }));
    const link = await within(connectWebSocket(url, { WebSocket: WS }), 'connectWebSocket');
    const client = await within(AgentClient.connect(link), 'session_init');
    await within(client.close(cyrillic), "the agent's close");
    expect(client.state).toBe('closed');
    await within(
      (async () => {
        while (capsule.sessions().length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
      'the session to close',
    );
    expect(errors).toEqual([]);
    capsule.dispose();
  });

  it('session.close(reason) and capsule.dispose(reason) take any text', async () => {
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, tickMode: 'event' });
    const sessions: Array<ReturnType<Capsule['connect']>> = [];
    server.on('connection', (socket) => sessions.push(capsule.connect(webSocketLink(socket), { character: `hero${sessions.length}` })));
    const clients = await Promise.all(
      [0, 1].map(async () => within(AgentClient.connect(await within(connectWebSocket(url, { WebSocket: WS }), 'connectWebSocket')), 'session_init')),
    );
    const closes = clients.map((client) => new Promise<string>((resolve) => client.on('close', ({ reason }) => resolve(reason))));
    expect(() => sessions[0]!.close(cyrillic)).not.toThrow();
    expect(() => capsule.dispose(`${cyrillic}😀`)).not.toThrow();
    // The full reason travels in session_close; the socket's own reason is only its clipped copy.
    expect(await within(closes[0]!, 'the first close')).toBe(cyrillic);
    expect(await within(closes[1]!, 'the second close')).toBe(`${cyrillic}😀`);
  });
});

describe('an agent that stops reading cannot make the game hold unbounded bytes', { timeout: 20_000 }, () => {
  it('closes the link once more than maxOutboundBytes wait unsent, whatever fills it (here: manifests)', async () => {
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, tickMode: 'event' });
    capsule.registerTool({
      id: 'look',
      class: 'sensor',
      description: 'x'.repeat(4000), // a 4 KB manifest per manifest_request
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
      handler: () => ({}),
    });
    const max = 256 * 1024;
    let highest = 0;
    const detached = new Promise<string>((resolve) => capsule.on('session', ({ change, reason }) => change === 'detached' && resolve(reason)));
    server.on('connection', (socket) => {
      const link = webSocketLink(socket, { maxOutboundBytes: max });
      const send = link.send.bind(link);
      link.send = (frame) => ((highest = Math.max(highest, socket.bufferedAmount)), send(frame));
      capsule.connect(link, { character: 'hero' });
    });
    const raw = new WebSocket(url);
    const first = new Promise<string>((resolve) => raw.once('message', (data) => resolve(String(data))));
    await within(new Promise((resolve) => raw.on('open', resolve)), 'the raw socket to open');
    const init = JSON.parse(await within(first, 'session_init'));
    (raw as unknown as { _socket: { pause(): void } })._socket.pause(); // reads nothing more
    const request = (n: number) =>
      JSON.stringify({
        protocol: 'aicc/0.1',
        type: 'manifest_request',
        session_id: init.session_id,
        message_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      });
    // Enough manifests to fill loopback's kernel buffers several times over (bounded: 8,000 frames).
    for (let n = 0; n < 8000 && raw.readyState === WebSocket.OPEN; n++) raw.send(request(n));
    expect(await within(detached, 'the session to detach', 15_000)).toBe(`link closed: webSocketLink: the peer left more than ${max} bytes unread; closed`);
    expect(highest).toBeLessThanOrEqual(max + 8 * 1024);
    raw.terminate();
    capsule.dispose();
  });
});

describe('batched framing over a real WebSocket (aicc.batched.v1)', { timeout: 10_000 }, () => {
  it('sends a delivery of k events as one frame where both ends agreed, and the agent hears every event in order', async () => {
    const { BATCHED_SUBPROTOCOL, batchedFraming } = await import('../../src/protocol/batchedFraming.js');
    const capsule = createCapsule({ world: { name: 'w', kind: 'abstract' }, tickMode: 'event' });
    const batching = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      handleProtocols: (offered) => (offered.has(BATCHED_SUBPROTOCOL) ? BATCHED_SUBPROTOCOL : false),
    });
    await within(new Promise((resolve) => batching.once('listening', resolve)), 'the server to listen');
    const frames: number[] = [];
    batching.on('connection', (socket) =>
      capsule.connect(webSocketLink(socket), {
        character: 'hero',
        agentModel: { class: 'cloud_large' },
        subscriptions: ['agent_message'],
        ...(socket.protocol === BATCHED_SUBPROTOCOL ? { framing: batchedFraming } : {}),
      }),
    );
    try {
      const port = (batching.address() as { port: number }).port;
      const socket = new WebSocket(`ws://127.0.0.1:${port}`, [BATCHED_SUBPROTOCOL]);
      socket.on('message', (data) => frames.push(String(data).startsWith('[') ? JSON.parse(String(data)).length : 1));
      const link = await within(
        new Promise<Link>((resolve) => socket.once('open', () => resolve(webSocketLink(socket as unknown as Parameters<typeof webSocketLink>[0])))),
        'the socket to open',
      );
      expect(socket.protocol).toBe(BATCHED_SUBPROTOCOL);
      const agent = await within(AgentClient.connect(link, { framing: batchedFraming }), 'session_init');
      const heard: string[] = [];
      agent.on('agent_message', (m) => heard.push(m.text));
      frames.length = 0;
      for (let i = 0; i < 20; i++) capsule.emit('agent_message', { from: 'world', text: String(i) });
      await within(
        (async () => {
          while (heard.length < 20) await new Promise((resolve) => setTimeout(resolve, 5));
        })(),
        'the events',
      );
      expect(heard).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
      expect(frames).toEqual([20]); // one frame, twenty messages
      // A call still works both ways under batched framing.
      expect((await within(agent.call('nothing_here', {}), 'a result')).ok).toBe(false);
      await within(agent.close(), 'the close');
    } finally {
      for (const client of batching.clients) client.terminate();
      await new Promise((resolve) => batching.close(resolve));
      capsule.dispose();
    }
  });
});
