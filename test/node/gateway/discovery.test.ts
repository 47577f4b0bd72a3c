import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverAgents, findAgent } from '../../../src/node/gateway/discovery.js';
import { agentEntry, tempDir, writeEntry } from './helpers.js';

const TOKEN = 'tok-secret-discovery-0001';
let home: ReturnType<typeof tempDir>;

beforeEach(() => {
  home = tempDir('aicc-discovery-');
});
afterEach(() => home.remove());

describe('discoverAgents', () => {
  it('reads every entry in agents/, sorted by file name', () => {
    writeEntry(home.path, agentEntry('b', '/tmp/b.sock', TOKEN));
    writeEntry(home.path, agentEntry('a', '/tmp/a.sock', TOKEN));
    const { agents, skipped } = discoverAgents(home.path);
    expect(agents.map((agent) => agent.id)).toEqual(['a', 'b']);
    expect(skipped).toEqual([]);
  });

  it('skips entries of another runtime, and leaves their files alone', () => {
    const other = process.platform === 'win32' ? 'linux' : 'win32';
    writeEntry(home.path, agentEntry('here', '/tmp/here.sock', TOKEN));
    writeEntry(home.path, agentEntry('there', '\\\\.\\pipe\\there', TOKEN, { runtime: other }));
    writeEntry(home.path, agentEntry('anywhere', '/tmp/any.sock', TOKEN, { runtime: undefined }));
    const { agents, skipped } = discoverAgents(home.path);
    expect(agents.map((agent) => agent.id).sort()).toEqual(['anywhere', 'here']);
    expect(skipped).toEqual([{ file: 'there.json', reason: `runtime ${other}, not ${process.platform}` }]);
    expect(existsSync(join(home.path, 'agents', 'there.json'))).toBe(true);
    expect(findAgent(home.path, 'there')).toBeUndefined();
  });

  it('skips files that are not entries, saying why without quoting them', () => {
    writeEntry(home.path, agentEntry('ok', '/tmp/ok.sock', TOKEN));
    writeFileSync(join(home.path, 'agents', 'broken.json'), `{"token":"${TOKEN}"`);
    writeEntry(home.path, { ...agentEntry('noendpoint', '', TOKEN), endpoint: undefined }, 'noendpoint');
    writeFileSync(join(home.path, 'agents', 'notes.txt'), 'not an entry');
    const { agents, skipped } = discoverAgents(home.path);
    expect(agents.map((agent) => agent.id)).toEqual(['ok']);
    expect(skipped).toEqual([
      { file: 'broken.json', reason: 'not JSON' },
      { file: 'noendpoint.json', reason: '"endpoint" is missing or not a string' },
    ]);
    expect(JSON.stringify(skipped)).not.toContain(TOKEN);
  });

  it('treats a missing agents folder as no agents', () => {
    expect(discoverAgents(join(home.path, 'nothing-here'))).toEqual({ agents: [], skipped: [] });
  });

  it('honours a runtime given explicitly', () => {
    writeEntry(home.path, agentEntry('mac', '/tmp/mac.sock', TOKEN, { runtime: 'darwin' }));
    expect(findAgent(home.path, 'mac', { runtime: 'darwin' })?.endpoint).toBe('/tmp/mac.sock');
  });
});
