import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { peersOutFile, peersTypesFile, peersTypesSource, peersValidatorsSource, protocolValidatorsSource, outFile } from '../../scripts/generate-validators.js';
import { validateAgentState, validateRequest, validateResponse } from '../../src/pi/generated/peers-validators.js';

describe('src/pi/generated/peers-validators.js', () => {
  it('is what the generator writes now (else run `npm run generate`)', () => {
    expect(readFileSync(peersOutFile, 'utf8') === peersValidatorsSource(), 'stale: run `npm run generate`').toBe(true);
    expect(readFileSync(peersTypesFile, 'utf8') === peersTypesSource(), 'stale: run `npm run generate`').toBe(true);
  });

  it('leaves the aicc validators as they were', () => {
    expect(readFileSync(outFile, 'utf8') === protocolValidatorsSource()).toBe(true);
  });

  it('is CSP-safe and self-contained', () => {
    const source = readFileSync(peersOutFile, 'utf8');
    expect(source).not.toMatch(/\brequire\(|new Function|^import |\bvalidate\d+\.evaluated\b/m);
  });

  it('lets unknown fields through (the schema has no additionalProperties: false): minor versions add them', () => {
    expect(validateResponse({ type: 'response', id: '1', command: 'get_state', success: true, future: { x: 1 } })).toBe(true);
    expect(validateAgentState({ id: 'a', label: 'b', host: 'h', cwd: '/', mood: 'calm', protocol: { version: '1.2', minVersion: '1.0', extra: true } })).toBe(
      true,
    );
    expect(validateRequest({ id: '1', type: 'prompt', message: 'hi', hops: 1, note: 'later field' })).toBe(true);
  });

  it('refuses an unknown errorCode (an enum), which is why the client checks such a response without it', () => {
    expect(validateResponse({ type: 'response', id: '1', command: 'x', success: false, errorCode: 'from_the_future' })).toBe(false);
  });

  it('runs under plain Node: minLength uses the inlined ucs2length, and AgentState forbids a token', () => {
    expect(validateRequest({ id: '1', type: 'prompt', message: '' })).toBe(false);
    expect(validateRequest({ id: '1', type: 'prompt', message: '😀' })).toBe(true);
    expect(validateAgentState({ id: 'a', label: 'b', host: 'h', cwd: '/', token: 't' })).toBe(false);
  });
});
