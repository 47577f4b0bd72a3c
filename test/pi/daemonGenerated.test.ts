import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { daemonOutFile, daemonTypesFile, daemonTypesSource, daemonValidatorsSource } from '../../scripts/generate-validators.js';
import { validateDaemonCommand, validateDaemonEvent, validateDaemonResponse } from '../../src/pi/generated/daemon-validators.js';

describe('src/pi/generated/daemon-validators.js', () => {
  it('is what the generator writes now (else run `npm run generate`)', () => {
    expect(readFileSync(daemonOutFile, 'utf8') === daemonValidatorsSource(), 'stale: run `npm run generate`').toBe(true);
    expect(readFileSync(daemonTypesFile, 'utf8') === daemonTypesSource(), 'stale: run `npm run generate`').toBe(true);
  });

  it('is CSP-safe and self-contained', () => {
    const source = readFileSync(daemonOutFile, 'utf8');
    expect(source).not.toMatch(/\brequire\(|new Function|^import |\bvalidate\d+\.evaluated\b/m);
  });

  it('checks commands by operation, including the tool-adapter reference of open', () => {
    const base = { protocolVersion: '2.0', requestId: 'r1', sessionId: 's', generation: 1 };
    expect(validateDaemonCommand({ ...base, operation: 'wake', idempotencyKey: 'k', payload: { prompt: 'hi' } })).toBe(true);
    expect(validateDaemonCommand({ ...base, operation: 'wake', payload: { prompt: 'hi' } })).toBe(false);
    expect(validateDaemonCommand({ ...base, operation: 'steer', idempotencyKey: 'k', payload: { message: '' } })).toBe(false);
    const resources = { extensions: 'none', skills: 'none', promptTemplates: 'none', themes: 'none', contextFiles: 'none', tools: 'none' };
    expect(validateDaemonCommand({ ...base, operation: 'open', payload: { cwd: '/', session: { mode: 'memory' }, resources } })).toBe(true);
    expect(
      validateDaemonCommand({
        ...base,
        operation: 'open',
        payload: { cwd: '/', session: { mode: 'memory' }, resources: { ...resources, tools: { mode: 'host-adapter', descriptor: {} } } },
      }),
    ).toBe(false);
    expect(validateDaemonCommand({ ...base, protocolVersion: '1.0', operation: 'status', payload: {} })).toBe(false);
  });

  it('lets unknown fields through in responses and events (a later 2.x adds them)', () => {
    expect(validateDaemonResponse({ protocolVersion: '2.1', kind: 'response', requestId: 'r', hostInstanceId: 'h', ok: true, later: 1 })).toBe(true);
    expect(
      validateDaemonEvent({ protocolVersion: '2.0', kind: 'event', event: 'x', hostInstanceId: 'h', sessionId: 's', generation: 0, sequence: 1, later: 1 }),
    ).toBe(true);
    expect(validateDaemonEvent({ protocolVersion: '2.0', kind: 'event', event: 'x', hostInstanceId: 'h', sessionId: 's', generation: 0 })).toBe(false);
  });
});
