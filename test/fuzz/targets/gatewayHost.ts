// The gateway in host mode under hostile pages (the run is in gatewayRun.ts): the gateway hosts a fake
// `pi --mode rpc` (test/node/gateway/fakePi.mjs, pi 0.73's dialect, 2 ms runs) and serves it as a
// pi-peers agent, so hostile prompts, steers, aborts and held get_states reach a real child
// process's pipes. The child must live through the run with its memory bounded; at the end it is
// killed under an open page, which must then be closed with 4502, and a later request on a new
// page answered agent_unavailable.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import { DAEMON_SUBPROTOCOL, KEY_PREFIX, SUBPROTOCOL } from '../../../src/node/gateway/access.js';
import { PiHost } from '../../../src/node/gateway/piHost.js';
import { DEFAULT_MAX_PAYLOAD, startGateway, type Gateway } from '../../../src/node/gateway/server.js';
import { KEY, ORIGIN, tempDir, type Record_ } from '../../node/gateway/helpers.js';
import { checkedLog } from './gatewayCloses.js';
import { handshakes } from './gatewayHandshakes.js';
import { FuzzPage } from './gatewayPage.js';
import { inspectPeers, peersFrames, peersGreeting } from './gatewayPeersFrames.js';
import { fuzzGateway, type Exchange } from './gatewayRun.js';
import { sleep, until } from './gatewayWaits.js';

/** More resident memory than this in the fake pi is taken as a leak the gateway feeds. */
const MAX_PI_RSS_MIB = 256;

/** Reaches pi itself: the gateway asks it over RPC and shapes its answer. */
const lastText = (id: string): Exchange => ({
  record: { id, type: 'get_last_assistant_text' },
  answers: (r) => r['type'] === 'response' && r['id'] === id,
  served: (r) => r['success'] === true,
});

/** The project's root, found from this file whether it runs from source or from the fuzz bundle. */
function projectRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'aicc-capsule') return dir;
  }
  throw new Error('projectRoot: no aicc-capsule package.json above this file');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function rssMiB(pid: number): number {
  const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kib === undefined ? 0 : Number(kib) / 1024;
}

/** Kills pi under an open page: the page is closed with 4502; a new page's request is answered agent_unavailable. */
async function piGone(context: FuzzContext, gateway: Gateway, pid: number): Promise<void> {
  const protocols = [SUBPROTOCOL, `${KEY_PREFIX}${KEY}`];
  const inspect = inspectPeers(context);
  const open = async (where: string): Promise<FuzzPage> => {
    const page = new FuzzPage(`${gateway.url}/`, protocols, ORIGIN, context, inspect, where);
    await page.opened;
    const answer = page.next(peersGreeting('h').answers, 5000);
    page.send(peersGreeting('h').record);
    await answer;
    return page;
  };
  const before = await open('host page as pi dies');
  process.kill(pid, 'SIGKILL');
  await Promise.race([before.closed, sleep(5000)]);
  if (before.closeCode !== 4502) context.problem(`host: a page open as pi died was closed ${before.isClosed ? before.closeCode : 'not at all'}, not 4502`);
  await before.close();
  const after = await open('host page after pi died');
  const answer = after.next(lastText('t').answers, 5000);
  after.send(lastText('t').record);
  const refused: Record_ | undefined = await answer;
  if (refused?.['errorCode'] !== 'agent_unavailable')
    context.problem(`host: a request after pi died was answered ${JSON.stringify(refused)?.slice(0, 120)}, not agent_unavailable`);
  await after.close();
  context.sent(2);
}

export const target: FuzzTarget = async (context) => {
  context.secret(KEY);
  const home = tempDir('aicc-fuzz-host-');
  const host = await PiHost.start({
    piBin: join(projectRoot(), 'test/node/gateway/fakePi.mjs'),
    home: home.path,
    label: 'Ada',
    env: { FAKE_PI_DIALECT: '0.73', FAKE_PI_RUN_MS: '2' },
  });
  const pid = host.state().pid!;
  const gateway = await startGateway({ target: { kind: 'host', host }, origins: [ORIGIN], key: KEY, log: checkedLog(context, 'host') });
  try {
    await fuzzGateway(context, {
      name: 'host',
      gateway,
      path: '/',
      subprotocol: SUBPROTOCOL,
      frames: peersFrames(DEFAULT_MAX_PAYLOAD),
      handshakes: handshakes(SUBPROTOCOL, DAEMON_SUBPROTOCOL, '/'),
      inspect: inspectPeers(context),
      greeting: peersGreeting,
      request: lastText,
      // Held get_states are answered when a run settles, after later requests: counted, not matched.
      exactAnswers: false,
      async checkPeer(_open, batch) {
        if (host.exit !== undefined) {
          context.problem(`host: the hosted pi is gone after batch ${batch}: ${host.exit}`);
          return;
        }
        if (batch % 10 === 0 && rssMiB(pid) > MAX_PI_RSS_MIB) context.problem(`host: the fake pi holds ${rssMiB(pid).toFixed(0)} MiB after batch ${batch}`);
      },
    });
    await piGone(context, gateway, pid);
  } finally {
    await gateway.close();
    await host.close();
    if (!(await until(() => !alive(pid), 3000))) {
      context.problem('host: the fake pi outlived host.close()');
      process.kill(pid, 'SIGKILL');
    }
    home.remove();
  }
};
