import { describe, expect, it } from 'vitest';
import { checkPolicy, gatewayError, hostInstanceIdOf, readFrame } from '../../../src/node/gateway/daemonRecords.js';
import { validateDaemonResponse } from '../../../src/pi/generated/daemon-validators.js';

describe('readFrame', () => {
  it('keeps a frame byte for byte, and says which request and version it names', () => {
    const frame = '{"protocolVersion":"2.3","requestId":"r-1","operation":"status","payload":{}}';
    expect(readFrame(frame, 1024)).toEqual({ ok: true, line: frame, record: JSON.parse(frame), ids: { requestId: 'r-1', protocolVersion: '2.3' } });
  });

  it('leaves out ids the schema would not accept, so a refusal stays a valid record', () => {
    const read = readFrame(JSON.stringify({ protocolVersion: '1.0', requestId: 'x'.repeat(513), operation: 'status', payload: {} }), 4096);
    expect(read.ok && read.ids).toEqual({});
    const empty = readFrame(JSON.stringify({ requestId: '', operation: 'status' }), 4096);
    expect(empty.ok && empty.ids).toEqual({});
  });

  it('turns raw CR and LF between tokens into spaces and leaves escaped ones alone', () => {
    const read = readFrame('{\r\n"a":"x\\ny"\n}', 100);
    expect(read.ok && read.line).toBe('{  "a":"x\\ny" }');
  });

  it('counts the limit in UTF-8 bytes, not characters', () => {
    const frame = JSON.stringify({ t: 'é'.repeat(10) }); // 18 characters, 28 bytes
    expect(readFrame(frame, 28).ok).toBe(true);
    // The daemon's details for such a line: its limit and the line's length.
    expect(readFrame(frame, 27)).toEqual({
      ok: false,
      code: 'line_too_large',
      message: "a record of 28 bytes is over the daemon's line limit of 27 bytes; send a shorter one",
      details: { maxLineBytes: 27, actualBytes: 28 },
      ends: true,
    });
  });

  it.each([
    ['a binary frame', Buffer.from('{}'), 'pi-daemon records are JSON text; send a text frame, not a binary one'],
    ['two records in one frame', '{}\n{}', 'not JSON; send one JSON object per text frame'],
    ['blank text', '  ', 'not JSON; send one JSON object per text frame'],
  ])('refuses %s as invalid_json, which ends the connection', (_what, frame, message) => {
    expect(readFrame(frame, 1024)).toEqual({ ok: false, code: 'invalid_json', message, ends: true });
  });

  it.each([
    ['an array', '[{"operation":"status"}]', 'an array'],
    ['a number', '42', 'a number'],
    ['a string', '"handshake"', 'a string'],
    ['null', 'null', 'null'],
  ])('answers %s as the daemon does, invalid_field on the command, and keeps the connection', (_what, frame, what) => {
    expect(readFrame(frame, 1024)).toEqual({
      ok: false,
      code: 'invalid_field',
      message: `command must be an object, not ${what}; send one command object per text frame`,
      details: { field: 'command' },
      ends: false,
    });
  });
});

describe('checkPolicy', () => {
  const open = (resources: unknown): Record<string, unknown> => ({
    protocolVersion: '2.0',
    requestId: 'o',
    operation: 'open',
    payload: { cwd: '/', session: { mode: 'memory' }, resources },
  });

  it('forwards an open without host tools, and any other operation', () => {
    expect(checkPolicy(open({ tools: 'none', systemPrompt: 'You play Cleo.' }))).toBeUndefined();
    expect(checkPolicy(open(undefined))).toBeUndefined();
    expect(checkPolicy({ operation: 'open', payload: 'not an object' })).toBeUndefined();
    expect(checkPolicy({ operation: 'wake', payload: { resources: { tools: { mode: 'host-adapter' } } } })).toBeUndefined();
  });

  it.each([[{ mode: 'host-adapter', descriptor: {} }], ['all'], [null]])('refuses an open whose tools are %j', (tools) => {
    expect(checkPolicy(open({ tools }))).toEqual({ rule: 'host_tools', message: expect.stringMatching(/^payload\.resources\.tools must be "none"/) });
  });

  const stored = (payload: Record<string, unknown>): Record<string, unknown> => ({
    operation: 'open',
    payload: { cwd: '/', resources: { tools: 'none' }, ...payload },
  });

  it.each([
    ['a new stored session', { session: { mode: 'new' } }, /^payload\.session\.mode "new": a page may open memory sessions only/],
    ['an existing session by path', { session: { mode: 'open', path: '/home/u/.pi/s.jsonl' } }, /^payload\.session\.path: /],
    ['the last session of a folder', { session: { mode: 'continue' } }, /^payload\.session\.mode "continue": /],
    ['a memory session with a sessionDir', { session: { mode: 'memory', sessionDir: '/tmp/s' } }, /^payload\.session\.sessionDir: /],
    ['another agent folder', { session: { mode: 'memory' }, agentDir: '/home/u/.pi/agent' }, /^payload\.agentDir: .*--daemon-stored-sessions/],
    ['no session at all', {}, /^payload\.session\.mode undefined: /],
  ])('refuses %s unless stored sessions are allowed', (_what, payload, message) => {
    expect(checkPolicy(stored(payload))).toEqual({ rule: 'stored_sessions', message: expect.stringMatching(message) });
    expect(checkPolicy(stored(payload), { storedSessions: true })).toBeUndefined();
  });
});

describe('gatewayError', () => {
  it('is a response the daemon schema accepts, with or without a request to answer', () => {
    const answered = gatewayError({ requestId: 'r9', protocolVersion: '2.1' }, 'host-7', 'denied_by_gateway', 'no');
    expect(answered).toEqual({
      protocolVersion: '2.1',
      kind: 'response',
      requestId: 'r9',
      hostInstanceId: 'host-7',
      ok: false,
      error: { code: 'denied_by_gateway', message: 'aicc gateway: no', retryable: false, details: { source: 'aicc-gateway' } },
    });
    expect(validateDaemonResponse(answered)).toBe(true);
    const unanswered = gatewayError({}, 'aicc-gateway', 'daemon_unavailable', 'gone', true);
    expect(unanswered).toMatchObject({ protocolVersion: '2.0', requestId: 'unknown', error: { retryable: true } });
    expect(validateDaemonResponse(unanswered)).toBe(true);
  });

  it('carries details beside its source, which no detail can overwrite', () => {
    const denied = gatewayError({ requestId: 'r1' }, 'h', 'denied_by_gateway', 'no', false, { rule: 'admin_only', source: 'the daemon' });
    expect(denied.error.details).toEqual({ rule: 'admin_only', source: 'aicc-gateway' });
    expect(validateDaemonResponse(denied)).toBe(true);
  });
});

describe('hostInstanceIdOf', () => {
  it('reads the host id of a daemon record, and nothing from anything else', () => {
    expect(hostInstanceIdOf('{"kind":"event","hostInstanceId":"h-1"}')).toBe('h-1');
    expect(hostInstanceIdOf('{"kind":"event"}')).toBeUndefined();
    expect(hostInstanceIdOf('{"hostInstanceId":""}')).toBeUndefined();
    expect(hostInstanceIdOf('{"hostInstanceId":42}')).toBeUndefined();
    expect(hostInstanceIdOf('null')).toBeUndefined();
    expect(hostInstanceIdOf('{oops')).toBeUndefined();
  });
});
