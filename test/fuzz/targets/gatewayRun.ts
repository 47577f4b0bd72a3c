// The run the gateway's three fuzz targets share (gatewayRelay.ts, gatewayHost.ts,
// gatewayDaemon.ts). Each target starts a gateway in its mode on 127.0.0.1 with a fake peer behind
// it and hands fuzzGateway() what is particular to that mode; fuzzGateway then sends batches of
// hostile frames over a few reused WebSocket connections (gatewayPage.ts), plus a small share of
// hostile handshakes on raw TCP (gatewayRawHandshake.ts), and after every batch checks that
// - every frame a page got, every close reason, every selected subprotocol, every HTTP answer and
//   every log line holds neither the gateway key nor the agent's token (context.seen);
// - every close code (the page's and the log's) and every error code is a documented one;
// - a page's requests were each answered once (where the mode promises it);
// - a fresh, well-formed connection is still served end to end, through the gateway to the peer
//   and back;
// - the gateway holds no connection but the live one, and the peer no more than that.

import WebSocket from 'ws';
import type fc from 'fast-check';
import type { FuzzContext } from '../harness/context.js';
import { KEY_PREFIX } from '../../../src/node/gateway/access.js';
import type { Gateway } from '../../../src/node/gateway/server.js';
import { BrowserClient, KEY, ORIGIN, type Record_ } from '../../node/gateway/helpers.js';
import { draw } from './agentFrames.js';
import { checkCloses, CLOSE_CODES } from './gatewayCloses.js';
import type { Handshake } from './gatewayHandshakes.js';
import { FuzzPage, type RecordCheck } from './gatewayPage.js';
import type { PageFrame } from './gatewayPageFrames.js';
import { rawHandshake } from './gatewayRawHandshake.js';
import { sleep, until } from './gatewayWaits.js';

/** A request of the mode's protocol and how to know its answer. */
export interface Exchange {
  record: Record_;
  answers(record: Record_): boolean;
  /** The answer says it was served (not refused). */
  served(record: Record_): boolean;
}

export interface ModeUnderFuzz {
  /** "relay", "host" or "daemon", in every problem's text. */
  name: string;
  gateway: Gateway;
  /** The path and subprotocol a well-formed page uses. */
  path: string;
  subprotocol: string;
  frames: fc.Arbitrary<PageFrame>;
  handshakes: fc.Arbitrary<Handshake>;
  inspect: RecordCheck;
  /** The first record of a connection (a hello, a handshake). */
  greeting(n: string): Exchange;
  /** A request that goes all the way to the peer and back. */
  request(n: string): Exchange;
  /** Frames sent before the event loop runs (default CHUNK): fewer where many frames end the connection. */
  chunk?: number;
  /** Every request gets exactly one answer while the connection stays open (else: at most one). */
  exactAnswers: boolean;
  /** Told of every text frame a page sends (a fake peer checks it got only what pages sent). */
  sending?: (text: string) => void;
  /** After each batch: the peer is still well and holds at most `open` connections. */
  checkPeer(open: number, batch: number): Promise<void>;
  /** Extra rounds of the mode's own (a peer that goes away, an agent id that is the key…). */
  extra?(batch: number): Promise<void>;
}

const BATCH = 150;
/** Frames sent before letting the event loop run, so that a close the gateway sent is seen. */
const CHUNK = 25;
const HANDSHAKES_PER_BATCH = 2;
/** A fresh fuzz connection every so many batches, so that no one connection's state decides the run. */
const ROTATE = 8;

export async function fuzzGateway(context: FuzzContext, mode: ModeUnderFuzz): Promise<void> {
  const { name, gateway } = mode;
  const protocols = [mode.subprotocol, `${KEY_PREFIX}${KEY}`];
  const chunk = mode.chunk ?? CHUNK;
  let pages = 0;

  /**
   * A fuzz connection: well-formed handshake, then (usually) the greeting, waited for. One in five
   * does not wait, so that its first frames land while the gateway is still reaching the peer.
   */
  const open = async (): Promise<FuzzPage> => {
    const n = ++pages;
    const page = new FuzzPage(`${gateway.url}${mode.path}`, protocols, ORIGIN, context, mode.inspect, `${name} page`);
    page.onText = mode.sending;
    if (!(await page.opened)) {
      context.problem(`${name}: a well-formed handshake was refused (${page.closeCode}: ${page.closeReason})`);
      return page;
    }
    const greeting = mode.greeting(`hello-${n}`);
    const answer = page.next(greeting.answers, 5000);
    page.send(greeting.record);
    if (n % 5 !== 0 && (await answer) === undefined && !page.isClosed) context.problem(`${name}: a greeting on a fresh connection was not answered within 5 s`);
    return page;
  };

  /** A fresh, well-formed connection must be served end to end: greeting, one request, a clean close. */
  const probe = async (batch: number): Promise<void> => {
    const client = BrowserClient.connect(`${gateway.url}${mode.path}`, { protocols });
    const trouble = await (async (): Promise<string | undefined> => {
      try {
        await Promise.race([client.opened, sleep(5000).then(() => Promise.reject(new Error('no open within 5 s')))]);
        for (const exchange of [mode.greeting(`probe-hello-${batch}`), mode.request(`probe-${batch}`)]) {
          client.send(exchange.record);
          mode.sending?.(JSON.stringify(exchange.record));
          const answer = await client.waitFor(exchange.answers, `the answer to ${String(exchange.record['type'] ?? exchange.record['operation'])}`, 5000);
          if (!exchange.served(answer)) return `refused: ${JSON.stringify(answer).slice(0, 200)}`;
        }
        return undefined;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    })();
    client.close();
    const closed = await Promise.race([client.closed, sleep(3000).then(() => undefined)]);
    for (const frame of client.frames) context.seen(frame, `${name} probe: a frame`);
    if (closed !== undefined) {
      context.seen(closed.reason, `${name} probe: a close reason`);
      context.code(String(closed.code), CLOSE_CODES, `${name} probe: a close code`);
    }
    if (trouble !== undefined) context.problem(`${name}: a well-formed connection after batch ${batch} was not served: ${trouble}`);
    else if (closed === undefined) context.problem(`${name}: a well-formed connection after batch ${batch} did not close within 3 s`);
  };

  let page = await open();
  for (let batch = 0; batch * BATCH < context.frames; batch++) {
    if (page.isClosed || batch % ROTATE === 0) {
      await page.close();
      page = await open();
    }
    const frames = draw(mode.frames, context.seed, batch, BATCH);
    for (let i = 0; i < frames.length; i++) {
      // CLOSING already: the gateway's close is in, the connection takes no more.
      if (page.socket.readyState !== WebSocket.OPEN) page = await open();
      page.send(frames[i]!);
      context.sent();
      if (i % chunk === chunk - 1) await sleep(0);
    }
    for (const [i, shake] of draw(mode.handshakes, context.seed + 1, batch, HANDSHAKES_PER_BATCH).entries()) {
      await rawHandshake(gateway.port, shake, context, `${name} handshake`);
      context.sent();
      if (i === 0 && batch % 3 === 0) await hostileWsHandshake(context, mode, batch);
    }
    // Drain: a request after the batch is answered once everything before it has been.
    if (!page.isClosed) {
      const mark = mode.request(`mark-${batch}`);
      const answer = page.next(mark.answers, 10_000);
      page.send(mark.record);
      const answered = await answer;
      if (answered === undefined && !page.isClosed) context.problem(`${name}: the connection stopped answering during batch ${batch}`);
      if (answered !== undefined && !page.isClosed && (mode.exactAnswers ? page.answered !== page.asked : page.answered > page.asked)) {
        context.problem(`${name}: a connection got ${page.answered} answers to ${page.asked} requests (batch ${batch})`);
      }
    }
    await probe(batch);
    await mode.extra?.(batch);
    // No leaked connection: the gateway holds the live fuzz connection and nothing else.
    const expected = (): number => (page.isClosed ? 0 : 1);
    if (!(await until(() => gateway.connections === expected(), 3000)))
      context.problem(`${name}: the gateway holds ${gateway.connections} connections after batch ${batch}; ${expected()} expected`);
    await mode.checkPeer(expected(), batch);
    await context.breathe();
  }
  await page.close();
  if (!(await until(() => gateway.connections === 0, 3000)))
    context.problem(`${name}: the gateway holds ${gateway.connections} connections after every page closed`);
  await mode.checkPeer(0, -1);
  checkCloses(context, name);
}

/**
 * Handshakes through a real WebSocket client, which reads the close a refused connection gets:
 * a bad key, no key, the other protocol's subprotocol, a bad Origin, an odd path.
 */
async function hostileWsHandshake(context: FuzzContext, mode: ModeUnderFuzz, batch: number): Promise<void> {
  const key = `${KEY_PREFIX}${KEY}`;
  const other = mode.subprotocol === 'pi-daemon.v2' ? 'pi-peers.v1' : 'pi-daemon.v2';
  const cases: Array<{ path: string; protocols: string[]; origin: string | undefined }> = [
    { path: mode.path, protocols: [mode.subprotocol, `${KEY_PREFIX}not-the-key-0123456789`], origin: ORIGIN },
    { path: mode.path, protocols: [mode.subprotocol], origin: ORIGIN },
    { path: mode.path, protocols: [other, key], origin: ORIGIN },
    { path: mode.path, protocols: [key], origin: ORIGIN },
    { path: mode.path, protocols: [mode.subprotocol, key], origin: 'http://evil.example' },
    { path: mode.path, protocols: [mode.subprotocol, key], origin: undefined },
    { path: `/agents/${KEY}`, protocols: [mode.subprotocol, key], origin: ORIGIN },
    { path: '/nowhere', protocols: [mode.subprotocol, key], origin: ORIGIN },
  ];
  const shake = cases[(batch / 3) % cases.length]!;
  const page = new FuzzPage(`${mode.gateway.url}${shake.path}`, shake.protocols, shake.origin, context, mode.inspect, `${mode.name} ws handshake`);
  await page.opened;
  await page.close();
  context.sent();
}
