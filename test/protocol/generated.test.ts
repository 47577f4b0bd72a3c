import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { outFile, protocolTypesSource, protocolValidatorsSource, typesFile } from '../../scripts/generate-validators.js';
import { withoutSchemaPaths } from '../../src/node/standalone.js';
import * as generated from '../../src/protocol/generated/aicc-validators.js';
import { validateSessionInit } from '../../src/protocol/generated/aicc-validators.js';

describe('src/protocol/generated/aicc-validators.js', () => {
  it('is what the generator writes now (else run `npm run generate`)', () => {
    expect(readFileSync(outFile, 'utf8') === protocolValidatorsSource(), 'stale: run `npm run generate`').toBe(true);
    expect(readFileSync(typesFile, 'utf8') === protocolTypesSource(), 'stale: run `npm run generate`').toBe(true);
  });

  it('holds session_init alone: every other message is checked by hand (src/protocol/messageShapes.ts)', () => {
    expect(Object.keys(generated)).toEqual(['validateSessionInit']);
  });

  it('is CSP-safe and self-contained', () => {
    const source = readFileSync(outFile, 'utf8');
    expect(source).not.toMatch(/\brequire\(|new Function|^import /m);
  });

  it('runs under plain Node: minLength uses the inlined ucs2length', () => {
    const id = '123e4567-e89b-12d3-a456-426614174000';
    const init = {
      protocol: 'aicc/0.1',
      type: 'session_init',
      session_id: id,
      message_id: id,
      tick_rate_hz: 10,
      tick_mode: 'fixed',
      world: { name: '', kind: '2d' },
      capabilities: { sensors: [], actuators: [], generators: [] },
      tools: [],
      agent_model: { class: 'x' },
    };
    expect(validateSessionInit(init)).toBe(false);
    expect(validateSessionInit.errors?.[0]).toMatchObject({ instancePath: '/world/name', keyword: 'minLength' });
  });

  it('builds errors without schemaPath, and says the same of them otherwise', () => {
    const id = '123e4567-e89b-12d3-a456-426614174000';
    const init = {
      protocol: 'aicc/0.1',
      type: 'session_init',
      session_id: id,
      message_id: id,
      tick_rate_hz: 10,
      tick_mode: 'fixed',
      world: { name: 'w', kind: '2d' },
      capabilities: { sensors: [], actuators: [], generators: [] },
      tools: [{ id: 7 }],
      agent_model: { class: 'edge_small' },
    };
    expect(validateSessionInit(init)).toBe(false);
    const error = validateSessionInit.errors?.[0];
    expect(error).toMatchObject({ instancePath: '/tools/0', keyword: 'required', params: { missingProperty: 'class' } });
    expect(error).not.toHaveProperty('schemaPath');
  });
});

describe('withoutSchemaPaths', () => {
  it('drops each schemaPath, escaped quotes and all, and keeps the rest of the error', () => {
    const code = 'e = [{instancePath,schemaPath:"#/properties/a\\"b/type",keyword:"type"}];';
    expect(withoutSchemaPaths(code)).toBe('e = [{instancePath,keyword:"type"}];');
  });

  it('fails loudly on a schemaPath it does not recognise', () => {
    expect(() => withoutSchemaPaths('e = {schemaPath: path}')).toThrow(/schemaPath this generator does not recognise/);
  });
});
