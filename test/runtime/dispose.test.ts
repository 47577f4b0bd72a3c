// capsule.dispose() tells the host: `disposed` turns true and a `dispose` event goes out, after the
// sessions closed, once. What the inspector follows to take itself off the page.

import { describe, expect, it } from 'vitest';
import { connectAgent, makeCapsule } from '../helpers.js';

describe('capsule.dispose', () => {
  it('emits dispose with the reason once, after every session closed, and sets disposed', async () => {
    const { capsule, clock } = makeCapsule();
    await connectAgent(capsule, clock, { character: 'wren' });
    const heard: string[] = [];
    capsule.on('session', ({ change }) => heard.push(`session ${change}`));
    capsule.on('dispose', ({ reason }) => heard.push(`dispose: ${reason} (disposed ${capsule.disposed})`));
    expect(capsule.disposed).toBe(false);
    capsule.dispose('level over');
    capsule.dispose('again');
    expect(heard).toEqual(['session closed', 'dispose: level over (disposed true)']);
    expect(capsule.disposed).toBe(true);
  });

  it('gives the default reason when none is given', () => {
    const { capsule } = makeCapsule();
    let reason: string | undefined;
    capsule.on('dispose', (event) => (reason = event.reason));
    capsule.dispose();
    expect(reason).toBe('capsule disposed');
  });
});
