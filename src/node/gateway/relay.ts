// Relay mode: joins one browser connection to one pi agent's Unix socket. The browser's hello gets
// the agent's token added; every other record passes through unchanged in meaning, re-serialized so
// a browser cannot smuggle a second NDJSON line into one frame. The token never travels back: an
// agent record that quotes it has it replaced before the browser sees it.

import type { Link } from '../../links/link.js';
import { connectSocketLink } from '../socketLink.js';
import { clip, CLOSE } from './access.js';
import type { BrowserConnection } from './browser.js';
import { findAgent, type AgentEntry } from './discovery.js';
import type { HelloRecord } from '../../pi/peersProtocol.js';
import { checkHello, failure, isResponse, parseRecord, type BrowserRecord, type Response } from './records.js';

export interface RelayOptions {
  /** The folder holding `agents/<id>.json` ($PI_PEERS_HOME). */
  peersHome: string;
  /** The runtime whose entries count (default process.platform). */
  runtime?: string;
  /** How long a browser has to send its hello (default 10 s). */
  helloTimeoutMs?: number;
  /** How long to wait for the agent's socket (default 5 s). */
  connectTimeoutMs?: number;
  /** Longest record accepted from the agent, in bytes (default 1 MiB). */
  maxLineBytes?: number;
}

const REDACTED = '[redacted]';
/** Records a browser may send while the agent's socket is being opened. */
const MAX_BACKLOG = 256;

/** Serves one browser as a relay to the agent `agentId`; resolves nothing, closes both ends itself. */
export function relayBrowser(browser: BrowserConnection, agentId: string, options: RelayOptions): void {
  // The id comes from the URL, where anything can be typed (a key, by mistake): the log names an
  // agent only once it is found, and the page is never sent back what it asked for.
  browser.role = 'relay to an agent not yet found';
  let agent: Link | undefined;
  let token: string | undefined;
  /** Records from the browser that arrived before the agent's socket was open, in order. */
  let backlog: string[] | undefined;
  let stage: 'hello' | 'connecting' | 'open' | 'closed' = 'hello';

  const helloTimer = setTimeout(() => {
    if (stage === 'hello') refuse(failure(undefined, 'hello', 'hello_required', `no hello within ${options.helloTimeoutMs ?? 10_000} ms`), CLOSE.timeout);
  }, options.helloTimeoutMs ?? 10_000);

  const finish = (code: number, reason: string): void => {
    stage = 'closed';
    clearTimeout(helloTimer);
    agent?.close('the browser connection ended');
    browser.close(code, scrub(reason));
  };
  const refuse = (response: Response, code: number): void => {
    browser.send(response);
    finish(code, response.error ?? 'refused');
  };
  /** Replaces the token wherever it appears; a no-op before the agent is chosen. */
  const scrub = (text: string): string => (token === undefined || token === '' ? text : text.split(token).join(REDACTED));

  browser.listen({
    frame(data) {
      if (stage === 'closed') return;
      const parsed = parseRecord(data);
      if (!parsed.ok) {
        // Before the hello, anything unreadable ends the connection; after it, the browser is told.
        if (stage === 'hello') refuse({ ...parsed.refusal, errorCode: 'hello_required' }, CLOSE.badRequest);
        else browser.send(parsed.refusal);
        return;
      }
      // Anything else that is a record goes on: the relay stays transparent to later minor versions.
      const record = parsed.record;
      if (stage === 'hello') return start(record);
      if (record.type === 'hello') return browser.send(failure(record.id, 'hello', 'invalid_request', 'hello is sent once, first'));
      if ('token' in record) return browser.send(failure(record.id, record.type, 'auth_failed', 'a browser must not send a token'));
      const line = JSON.stringify(record);
      if (stage === 'open') agent?.send(line);
      else if (backlog !== undefined && backlog.length < MAX_BACKLOG) backlog.push(line);
      else finish(CLOSE.tryAgainLater, `more than ${MAX_BACKLOG} records before the agent answered; wait for the hello response`);
    },
    close(code, reason) {
      if (stage === 'closed') return;
      stage = 'closed';
      clearTimeout(helloTimer);
      agent?.close(`the browser left (${code}: ${reason})`);
    },
  });

  function start(record: BrowserRecord): void {
    const hello = checkHello(record);
    if (isResponse(hello)) return refuse(hello, hello.errorCode === 'auth_failed' ? CLOSE.badKey : CLOSE.badRequest);
    clearTimeout(helloTimer);
    let entry: AgentEntry | undefined;
    try {
      entry = findAgent(options.peersHome, agentId, options.runtime === undefined ? {} : { runtime: options.runtime });
    } catch (error) {
      return refuse(failure(hello.id, 'hello', 'internal_error', error instanceof Error ? error.message : String(error), true), CLOSE.agentGone);
    }
    if (entry === undefined) {
      browser.role = `relay to an unknown agent (an id of ${agentId.length} characters)`;
      return refuse(
        failure(hello.id, 'hello', 'agent_not_found', "no agent by that id in the gateway's PI_PEERS_HOME; list the agents with `pi-peers list`"),
        CLOSE.notFound,
      );
    }
    browser.role = `relay to agent ${clip(entry.id, 60)}`;
    token = entry.token;
    stage = 'connecting';
    backlog = [];
    // The browser's own record goes on, so optional fields of later minor versions survive.
    void connect(entry, hello, record);
  }

  async function connect(entry: AgentEntry, hello: HelloRecord, record: BrowserRecord): Promise<void> {
    let link: Link;
    try {
      link = await connectSocketLink(entry.endpoint, {
        ...(options.connectTimeoutMs === undefined ? {} : { timeoutMs: options.connectTimeoutMs }),
        ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      });
    } catch {
      // The error names the socket path; the browser needs only to know the agent is not there.
      if (stage === 'connecting')
        refuse(failure(hello.id, 'hello', 'agent_unavailable', `agent "${clip(entry.id, 60)}" is not reachable; it may have exited`, true), CLOSE.agentGone);
      return;
    }
    if (stage !== 'connecting') return link.close('the browser left before the agent answered');
    agent = link;
    link.listen({
      message(frame) {
        if (typeof frame === 'string') browser.send(scrub(frame));
      },
      close(reason) {
        if (stage !== 'closed') finish(CLOSE.agentGone, `the agent closed the connection: ${reason}`);
      },
    });
    link.send(JSON.stringify({ ...record, token: entry.token }));
    stage = 'open';
    for (const line of backlog ?? []) link.send(line);
    backlog = undefined;
  }
}
