// One browser connection to the hosted pi: the hello first, then requests answered as they
// complete (matched by id, so a slow abort does not hold up a get_state).

import { CLOSE } from './access.js';
import type { BrowserConnection } from './browser.js';
import type { PiHost } from './piHost.js';
import type { Peer } from '../../pi/peersProtocol.js';
import { checkHello, failure, isResponse, parseRecord } from './records.js';

export interface HostSessionOptions {
  /** How long a browser has to send its hello (default 10 s). */
  helloTimeoutMs?: number;
  /** Most requests one browser may have waiting at once (default 32). */
  maxInFlight?: number;
}

export function serveHost(browser: BrowserConnection, host: PiHost, options: HostSessionOptions = {}): void {
  browser.role = 'pi host';
  const helloTimeoutMs = options.helloTimeoutMs ?? 10_000;
  const maxInFlight = options.maxInFlight ?? 32;
  let greeted = false;
  let from: Peer | undefined;
  let inFlight = 0;

  const helloTimer = setTimeout(() => {
    if (greeted) return;
    browser.send(failure(undefined, 'hello', 'hello_required', `no hello within ${helloTimeoutMs} ms`));
    browser.close(CLOSE.timeout, `no hello within ${helloTimeoutMs} ms`);
  }, helloTimeoutMs);
  const stopWatchingPi = host.onExit((description) => browser.close(CLOSE.agentGone, `the hosted pi is gone: ${description}`));

  browser.listen({
    frame(data) {
      const parsed = parseRecord(data);
      if (!greeted) {
        clearTimeout(helloTimer);
        const hello = parsed.ok ? checkHello(parsed.record) : { ...parsed.refusal, errorCode: 'hello_required' as const };
        const answer = isResponse(hello) ? hello : host.hello(hello);
        browser.send(answer);
        if (!answer.success) {
          browser.close(answer.errorCode === 'auth_failed' ? CLOSE.badKey : CLOSE.badRequest, answer.error ?? 'hello refused');
          return;
        }
        greeted = true;
        if (!isResponse(hello)) from = hello.from;
        return;
      }
      if (!parsed.ok) return browser.send(parsed.refusal);
      const record = parsed.record;
      if (inFlight >= maxInFlight) {
        return browser.send(failure(record.id, record.type, 'denied', `more than ${maxInFlight} requests waiting; wait for answers before sending more`, true));
      }
      inFlight++;
      void host
        .handle(record, from)
        .catch((error: unknown) => failure(record.id, record.type, 'internal_error', error instanceof Error ? error.message : String(error), true))
        .then((response) => {
          inFlight--;
          browser.send(response);
        });
    },
    close() {
      clearTimeout(helloTimer);
      stopWatchingPi();
    },
  });
}
