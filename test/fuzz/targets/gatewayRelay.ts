// The gateway in relay mode under hostile pages (the run is in gatewayRun.ts): pi-peers records relayed
// to a fake agent on a Unix socket, found by its PI_PEERS_HOME entry, which holds its token. The
// agent checks every line it gets: one JSON object with no raw CR (a readline reader splits there
// too), first the gateway's hello carrying the token, then only records a page sent, as re-serialized,
// never a token nor a second hello. Now and then it quotes its token, as a careless agent would:
// the gateway must scrub it before any page sees it.

import { writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import { DAEMON_SUBPROTOCOL, SUBPROTOCOL } from '../../../src/node/gateway/access.js';
import { DEFAULT_MAX_PAYLOAD, startGateway } from '../../../src/node/gateway/server.js';
import { agentEntry, KEY, ORIGIN, tempDir, writeEntry, type Record_ } from '../../node/gateway/helpers.js';
import { checkedLog } from './gatewayCloses.js';
import { handshakes } from './gatewayHandshakes.js';
import { FuzzPage } from './gatewayPage.js';
import { inspectPeers, peersFrames, peersGreeting } from './gatewayPeersFrames.js';
import { fuzzGateway } from './gatewayRun.js';
import { sleep, until } from './gatewayWaits.js';

/** The fake agent's token: the gateway adds it to the hello; no page or log line may ever show it. */
const TOKEN = 'fuzz-agent-token-93d0b6e1a7c4f258';

const KNOWN = new Set(['get_state', 'get_last_assistant_text', 'prompt', 'steer', 'follow_up', 'abort']);

interface FuzzAgent {
  /** Connections open at the agent. */
  readonly open: number;
  close(): Promise<void>;
}

/** The fake agent; `expected` holds every record pages sent, as the gateway re-serializes it. */
async function startFuzzAgent(endpoint: string, context: FuzzContext, expected: ReadonlySet<string>): Promise<FuzzAgent> {
  const sockets = new Set<Socket>();
  let replies = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let greeted = false;
    let parts: Buffer[] = [];
    const reply = (record: Record_, fields: Record_): void => {
      const careless = ++replies % 29 === 0 ? { note: `my token is ${TOKEN}` } : {};
      let line: string;
      try {
        line = JSON.stringify({ type: 'response', id: record['id'], command: record['type'], ...fields, ...careless });
      } catch {
        line = JSON.stringify({ type: 'response', id: record['id'], command: record['type'], success: true, data: { echoed: 'too deep to echo' } });
      }
      socket.write(`${line}\n`);
    };
    const take = (line: string): void => {
      if (line.includes('\r')) context.problem('relay: the agent got a raw CR inside a line, which a readline reader reads as two');
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        return context.problem(`relay: the agent got a line that is not JSON: ${line.slice(0, 80)}`);
      }
      if (record === null || typeof record !== 'object' || Array.isArray(record))
        return context.problem(`relay: the agent got a line that is not a JSON object: ${line.slice(0, 80)}`);
      const r = record as Record_;
      if (!greeted) {
        if (r['type'] !== 'hello' || r['token'] !== TOKEN) {
          context.problem(`relay: the agent's first line is not the gateway's hello with the token: ${line.slice(0, 80).split(TOKEN).join('<token>')}`);
          reply(r, { success: false, errorCode: 'auth_failed', error: 'a hello with the token first' });
          return void socket.end();
        }
        const version = (r['protocol'] as { version?: unknown } | undefined)?.version;
        if (typeof version !== 'string' || !version.startsWith('1.')) {
          reply(r, { success: false, errorCode: 'incompatible_version', error: 'this agent speaks pi-peers 1.x' });
          return void socket.end();
        }
        greeted = true;
        return reply(r, { success: true, data: { version: '1.0', protocol: { version: '1.0', minVersion: '1.0' }, agent: { id: 'ada' } } });
      }
      context.tally(`agent got ${typeof r['type'] === 'string' && KNOWN.has(r['type']) ? r['type'] : 'another type'}`);
      if (Object.hasOwn(r, 'token')) context.problem('relay: a record with a token reached the agent');
      if (r['type'] === 'hello') context.problem('relay: a second hello reached the agent');
      if (!expected.has(line)) context.problem(`relay: the agent got a record no page sent: ${line.slice(0, 80)}`);
      if (r['type'] === 'get_state') reply(r, { success: true, data: { id: 'ada', label: 'Ada', idle: true, settled: 0 } });
      else reply(r, { success: true, data: { echoed: r } });
    };
    socket.on('data', (chunk: Buffer) => {
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
        parts.push(chunk.subarray(start, newline));
        start = newline + 1;
        const line = Buffer.concat(parts).toString('utf8');
        parts = [];
        take(line);
      }
      if (start < chunk.length) parts.push(chunk.subarray(start));
    });
  });
  await new Promise<void>((resolve) => server.listen(endpoint, resolve));
  return {
    get open() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export const target: FuzzTarget = async (context) => {
  context.secret(KEY);
  context.secret(TOKEN);
  const home = tempDir('aicc-fuzz-relay-');
  const endpoint = join(home.path, 'ada.sock');
  const expected = new Set<string>();
  const agent = await startFuzzAgent(endpoint, context, expected);
  writeEntry(home.path, agentEntry('ada', endpoint, TOKEN));
  // An agent that left its entry behind, and an entry that is not JSON (it holds the token too).
  writeEntry(home.path, agentEntry('gone', join(home.path, 'gone.sock'), TOKEN));
  writeFileSync(join(home.path, 'agents', 'broken.json'), `{"id":"broken","token":"${TOKEN}",`, { mode: 0o600 });
  const inspect = inspectPeers(context);
  const gateway = await startGateway({ target: { kind: 'relay', peersHome: home.path }, origins: [ORIGIN], key: KEY, log: checkedLog(context, 'relay') });

  /** A page that asks for an agent by an id that is no agent's (the key, pasted), or a gone one. */
  const wrongAgent = async (path: string, code: number, errorCode: string): Promise<void> => {
    const page = new FuzzPage(`${gateway.url}${path}`, [SUBPROTOCOL, `aicc-key.${KEY}`], ORIGIN, context, inspect, 'relay wrong-agent page');
    if (await page.opened) {
      const answer = page.next((r) => r['id'] === 'h', 5000);
      page.send(peersGreeting('h').record);
      const refused = await answer;
      await Promise.race([page.closed, sleep(3000)]);
      if (refused?.['errorCode'] !== errorCode || page.closeCode !== code)
        context.problem(
          `relay: ${path.slice(0, 30)}… was answered ${String(refused?.['errorCode'])} and closed ${page.closeCode}, not ${errorCode} and ${code}`,
        );
    }
    await page.close();
    context.sent();
  };

  try {
    await fuzzGateway(context, {
      name: 'relay',
      gateway,
      path: '/agents/ada',
      subprotocol: SUBPROTOCOL,
      frames: peersFrames(DEFAULT_MAX_PAYLOAD),
      handshakes: handshakes(SUBPROTOCOL, DAEMON_SUBPROTOCOL, '/agents/ada'),
      inspect,
      greeting: peersGreeting,
      request: (id) => ({
        record: { id, type: 'get_state' },
        answers: (r) => r['type'] === 'response' && r['id'] === id,
        served: (r) => r['success'] === true && (r['data'] as Record_ | undefined)?.['id'] === 'ada',
      }),
      exactAnswers: true,
      sending: (text) => {
        try {
          expected.add(JSON.stringify(JSON.parse(text)));
        } catch {
          // Not JSON, or too deep to serialize here: the gateway must not forward it either.
        }
      },
      async checkPeer(open, batch) {
        if (!(await until(() => agent.open <= open, 3000)))
          context.problem(`relay: the agent holds ${agent.open} connections after batch ${batch}; at most ${open} expected`);
        expected.clear();
      },
      async extra(batch) {
        if (batch % 10 === 5) await wrongAgent(batch % 20 === 5 ? `/agents/${KEY}` : `/?agent=${encodeURIComponent(KEY)}`, 4404, 'agent_not_found');
        if (batch % 10 === 8) await wrongAgent('/agents/gone', 4502, 'agent_unavailable');
      },
    });
  } finally {
    await gateway.close();
    await agent.close();
    home.remove();
  }
};
