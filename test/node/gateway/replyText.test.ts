import { describe, expect, it } from 'vitest';
import { replyTextOf } from '../../../src/node/gateway/replyText.js';

const assistant = (stopReason: string, ...texts: string[]) => ({ role: 'assistant', stopReason, content: texts.map((text) => ({ type: 'text', text })) });

describe('replyTextOf', () => {
  it("reads the text of a run's last assistant message when it stopped normally, as pi would give it", () => {
    expect(replyTextOf({ messages: [{ role: 'user', content: [] }, assistant('stop', ' Go ', 'north. ')] })).toBe('Go north.');
    expect(replyTextOf({ messages: [assistant('stop', 'first'), { role: 'toolResult' }, assistant('stop', 'second')] })).toBe('second');
    expect(
      replyTextOf({
        messages: [
          {
            role: 'assistant',
            stopReason: 'stop',
            content: [
              { type: 'thinking', thinking: 'hm' },
              { type: 'text', text: 'ok' },
            ],
          },
        ],
      }),
    ).toBe('ok');
  });

  it('gives null for a normal reply without text', () => {
    expect(replyTextOf({ messages: [assistant('stop', '   ')] })).toBeNull();
  });

  it('is unsure (undefined) where pi versions pick differently: aborted, failed, tool-only, or no reply at all', () => {
    expect(replyTextOf({ messages: [assistant('aborted')] })).toBeUndefined();
    expect(replyTextOf({ messages: [assistant('error', 'partial')] })).toBeUndefined();
    expect(replyTextOf({ messages: [assistant('toolUse', 'calling')] })).toBeUndefined();
    expect(replyTextOf({ messages: [{ role: 'user', content: [] }] })).toBeUndefined();
    expect(replyTextOf({})).toBeUndefined();
    expect(replyTextOf({ messages: [null, 'junk', assistant('stop', 'fine')] })).toBe('fine');
  });
});
