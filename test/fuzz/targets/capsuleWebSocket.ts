// The capsule behind a real WebSocket server on 127.0.0.1, as a game serves agents over the
// network: JSON and binary frames from raw `ws` clients into live sessions and accept()ed links.
// A close reason over 123 bytes once threw out of close() here and killed the process; now every
// session must still serve a well-formed call after each batch.

import WebSocket, { WebSocketServer } from 'ws';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import { binaryCodec } from '../../../src/protocol/binaryCodec.js';
import { jsonCodec, type Codec } from '../../../src/protocol/codec.js';
import { webSocketLink } from '../../../src/links/websocket.js';
import { ManualClock } from '../../../src/base/clock.js';
import { checkBridgeMessage } from '../../../src/protocol/messageCheck.js';
import { PROTOCOL, type AiccMessage } from '../../../src/protocol/messages.js';
import { binaryFrames, draw, jsonFrames } from './agentFrames.js';
import { fuzzCapsule, PEER_CODES } from './capsule.js';

const BATCH = 200;
const LIMITS = { maxFrameBytes: 1 << 24, maxDepth: 64 };

/** A raw client socket: sends anything, reads and checks what the capsule answers. */
class Client {
  readonly socket: WebSocket;
  sessionId = '';
  closed = false;
  private readonly waiters = new Map<string, () => void>();

  constructor(
    url: string,
    readonly codec: Codec,
    context: FuzzContext,
    where: string,
  ) {
    this.socket = new WebSocket(url, codec === binaryCodec ? ['aicc.binary'] : ['aicc.json']);
    this.socket.binaryType = 'nodebuffer';
    this.socket.on('message', (data: Buffer, isBinary: boolean) => {
      const decoded = this.codec.decode(isBinary ? new Uint8Array(data) : data.toString('utf8'), LIMITS);
      const checked = decoded.ok ? checkBridgeMessage(decoded.value) : decoded;
      if (!checked.ok) return context.problem(`${where}: the capsule sent an invalid message: ${checked.message}`);
      const message = checked.value as AiccMessage;
      context.tally(
        message.type === 'tool_result'
          ? `result ${message.ok ? 'ok' : message.error?.code}`
          : message.type === 'error'
            ? `error ${message.error.code}`
            : message.type,
      );
      if (message.type === 'session_init') this.sessionId = message.session_id;
      if (message.type === 'error') context.code(message.error.code, PEER_CODES, `${where} error`);
      if (message.type === 'tool_result' && !message.ok) context.code(message.error?.code, PEER_CODES, `${where} tool_result`);
      if (message.type === 'tool_result') this.waiters.get(message.call_id)?.();
    });
    this.socket.on('close', (_code, reason) => {
      this.closed = true;
      if (Buffer.byteLength(reason) > 123) context.problem(`${where}: a close reason of ${Buffer.byteLength(reason)} bytes`);
      for (const wake of this.waiters.values()) wake();
    });
    this.socket.on('error', () => {});
  }

  opened(): Promise<void> {
    return new Promise((resolve) => (this.socket.readyState === WebSocket.OPEN ? resolve() : this.socket.once('open', () => resolve())));
  }

  send(frame: string | Uint8Array): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(frame);
  }

  /** A well-formed call; resolves true once answered ok, false if the socket closes or 5 s pass. */
  probe(n: number): Promise<boolean> {
    const callId = `!probe-${n}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), 5000);
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.waiters.delete(callId);
        resolve(ok);
      };
      this.waiters.set(callId, () => done(!this.closed));
      this.send(
        this.codec.encode({
          protocol: PROTOCOL,
          type: 'tool_call',
          session_id: this.sessionId,
          message_id: '6f9619ff-8b86-4d11-b42d-00c04fc964ff',
          call_id: callId,
          tool: 'echo',
          input: { text: 'still up?' },
        }) as string | Uint8Array,
      );
    });
  }
}

export const target: FuzzTarget = async (context) => {
  const clock = new ManualClock();
  const capsule = fuzzCapsule(clock, context);
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (protocols) => [...protocols][0] ?? false });
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const url = `ws://127.0.0.1:${address.port}`;
  let accepting = false;
  server.on('connection', (socket) => {
    const codec = socket.protocol === 'aicc.binary' ? binaryCodec : jsonCodec;
    if (accepting) capsule.accept(webSocketLink(socket), { codec });
    else capsule.connect(webSocketLink(socket), { character: 'fuzzer', capabilities: { actuators: ['legs'] }, agentModel: { class: 'edge_small' }, codec });
  });

  const sessions = [jsonCodec, binaryCodec].map((codec) => ({ codec, client: undefined as Client | undefined }));
  const connect = async (codec: Codec): Promise<Client> => {
    accepting = false;
    const client = new Client(url, codec, context, `${codec.name} over ws`);
    await client.opened();
    for (let i = 0; i < 100 && client.sessionId === '' && !client.closed; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    return client;
  };
  let batch = 0;
  try {
    while (batch * BATCH < context.frames) {
      for (const slot of sessions) {
        if (slot.client === undefined || slot.client.closed) slot.client = await connect(slot.codec);
        const client = slot.client;
        const frames = (slot.codec === binaryCodec ? binaryFrames : jsonFrames)(() => [client.sessionId]);
        for (const frame of draw(frames, context.seed + (slot.codec === binaryCodec ? 1 : 0), batch, BATCH / 2)) {
          client.send(frame);
          context.sent();
        }
        // One link handed to accept(), given a hostile first frame.
        accepting = true;
        const stranger = new Client(url, slot.codec, context, `${slot.codec.name} accept over ws`);
        await stranger.opened();
        accepting = false;
        stranger.send(draw(frames, context.seed + 7, batch, 1)[0]!);
        context.sent();
        setTimeout(() => stranger.socket.terminate(), 200);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      capsule.step(100);
      clock.advance(60);
      for (const slot of sessions) {
        if (slot.client!.closed) slot.client = await connect(slot.codec);
        if (!(await slot.client!.probe(batch)) && !slot.client!.closed) {
          context.problem(`${slot.codec.name} over ws: a well-formed call after hostile frames was not served (batch ${batch})`);
          slot.client!.socket.terminate(); // carry on with a new session
        }
      }
      batch++;
    }
  } finally {
    for (const slot of sessions) slot.client?.socket.terminate();
    for (const socket of server.clients) socket.terminate();
    await new Promise((resolve) => server.close(resolve));
    capsule.dispose();
  }
};
