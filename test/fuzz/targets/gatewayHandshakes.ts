// Hostile WebSocket handshakes for the gateway targets, sent on raw TCP (gatewayRawHandshake.ts):
// any header, any path, any Origin, and the key offered right, wrong, cut, doubled or misplaced.

import fc from 'fast-check';
import { KEY_PREFIX } from '../../../src/node/gateway/access.js';
import { KEY, ORIGIN } from '../../node/gateway/helpers.js';

export interface Handshake {
  method: string;
  path: string;
  /** Header lines besides Host; an upgrade request has Upgrade, Connection and the WebSocket key. */
  headers: Array<[string, string]>;
}

/** Handshakes a page (or a program) could get wrong: key, subprotocol, Origin, path, version. */
export function handshakes(served: string, other: string, path: string): fc.Arbitrary<Handshake> {
  const key = `${KEY_PREFIX}${KEY}`;
  const offers = fc.oneof(
    { weight: 4, arbitrary: fc.constant(`${served}, ${key}`) },
    fc.constantFrom(
      '',
      served,
      key,
      `${key}, ${served}`,
      `${served}, ${KEY_PREFIX}wrong-key-0123456789abcdef`,
      `${served}, ${KEY_PREFIX}`,
      `${served}, ${key}x`,
      `${served}, ${key.slice(0, -1)}`,
      `${other}, ${key}`,
      `pi-peers.v2, ${key}`,
      `PI-PEERS.V1, ${key}`,
      `${served}, AICC-KEY.${KEY}`,
      `AICC-KEY.${KEY}`,
      KEY,
      `${KEY}, ${key}`,
      `${served}, ${KEY}`,
      `aicc-key-${KEY}`,
      `${key}, ${key}`,
      `${served}, ${served}, ${key}`,
      `${key}, ${KEY_PREFIX}another-key-0123456789`,
      `${served},,${key}`,
      ` ${served} , ${key} `,
      `${served};${key}`,
      `${served} ${key}`,
      `aicc-key:${KEY}`,
      ',',
    ),
    fc.array(fc.stringMatching(/^[!#$%&'*+\-.0-9A-Z^_`|a-z~]{1,20}$/), { maxLength: 4 }).map((list) => list.join(', ')),
  );
  const origin = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | undefined>(ORIGIN) },
    { weight: 2, arbitrary: fc.constant<string | undefined>(undefined) },
    fc.constantFrom(
      'http://evil.example',
      'null',
      'http://localhost:5173/',
      'http://localhost:5173/x',
      'HTTP://LOCALHOST:5173',
      'http://localhost:5174',
      'https://localhost:5173',
      '',
      ' ',
      'file://',
      'http://[::1',
      'x'.repeat(500),
      `http://${KEY}.example`,
    ),
    fc.string({ maxLength: 40 }),
  );
  const paths = fc.oneof(
    { weight: 6, arbitrary: fc.constant(path) },
    fc.constantFrom(
      '/',
      '/agents/ada',
      '/?agent=ada',
      `/agents/${KEY}`,
      `/?agent=${KEY}`,
      `/agents/${key}/`,
      '/agents/%ZZ',
      '/agents/%E0%A4%A',
      `/agents/${'a'.repeat(300)}`,
      '//',
      '/agents/ada/x',
      '/nope',
      '*',
      'http://127.0.0.1/agents/ada',
      '/%00',
      '/agents/..%2F..%2Fetc',
      '/?agent=&agent=ada',
      `/${'x'.repeat(8000)}`,
    ),
    fc.webPath(),
  );
  const upgrade = fc.oneof(
    {
      weight: 12,
      arbitrary: fc.constant<Array<[string, string]>>([
        ['Upgrade', 'websocket'],
        ['Connection', 'Upgrade'],
        ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
        ['Sec-WebSocket-Version', '13'],
      ]),
    },
    fc.constant<Array<[string, string]>>([
      ['Upgrade', 'websocket'],
      ['Connection', 'Upgrade'],
      ['Sec-WebSocket-Key', 'short'],
      ['Sec-WebSocket-Version', '8'],
    ]),
    fc.constant<Array<[string, string]>>([['Connection', 'close']]), // plain HTTP
  );
  return fc
    .record({
      method: fc.oneof({ weight: 12, arbitrary: fc.constant('GET') }, fc.constantFrom('POST', 'HEAD', 'OPTIONS')),
      path: paths,
      origin,
      offers,
      upgrade,
      twice: fc.nat(9),
    })
    .map(({ method, path: p, origin: o, offers: list, upgrade: base, twice }) => {
      const headers: Array<[string, string]> = [...base];
      if (o !== undefined) headers.push(['Origin', o]);
      if (list !== '') {
        // Sometimes split over two headers, which Node joins with ", ".
        const parts = list.split(',');
        if (twice === 0 && parts.length > 1) headers.push(['Sec-WebSocket-Protocol', parts[0]!], ['Sec-WebSocket-Protocol', parts.slice(1).join(',')]);
        else headers.push(['Sec-WebSocket-Protocol', list]);
      }
      return { method, path: p.replace(/[\s]/g, '%20'), headers: headers.map(([name, value]) => [name, value.replace(/[\r\n]/g, ' ')] as [string, string]) };
    });
}
