// The conversation inside its budget: folds keep the briefing first and one summary line second,
// fold whole turns only, and the summary counts the calls of every fold so far.

import { describe, expect, it } from 'vitest';
import { Conversation } from '../../../src/agent/model/conversation.js';
import type { ModelMessage } from '../../../src/agent/model/modelPort.js';

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const user = (text: string): ModelMessage => ({ role: 'user', content: text, timestamp: 0 });
const call = (id: string, name: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'toolCall', id, name, arguments: {} }],
  usage,
  stopReason: 'toolUse',
  timestamp: 0,
});
const result = (id: string, name: string, isError = false): ModelMessage => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: name,
  content: [{ type: 'text', text: 'x'.repeat(400) }],
  isError,
  timestamp: 0,
});

describe('Conversation', () => {
  it('folds whole turns into one line after the briefing, again and again, counting every call folded', () => {
    const conversation = new Conversation({ budgetTokens: 400 });
    conversation.add(user('BRIEFING'));
    // The briefing's own turn: the model answered it with a call, before any news.
    conversation.add(call('c0', 'look'));
    conversation.add(result('c0', 'look'));
    let n = 0;
    for (let turn = 0; turn < 12; turn++) {
      conversation.add(user(`news ${turn}`));
      conversation.add(call(`c${++n}`, 'look'));
      conversation.add(result(`c${n}`, 'look', turn % 3 === 0));
      conversation.fold();
    }
    expect(conversation.folds).toBeGreaterThanOrEqual(2);
    const messages = conversation.messages;
    expect(messages[0]).toMatchObject({ role: 'user', content: 'BRIEFING' });
    expect(messages[1]).toMatchObject({ role: 'user', content: expect.stringMatching(/^Earlier, in brief: \d+ earlier turns were folded/) });
    expect(messages.filter((m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('Earlier'))).toHaveLength(1);
    // Every result kept still has its call right before it.
    messages.forEach((m, i) => {
      if (m.role === 'toolResult') expect(messages[i - 1]).toMatchObject({ role: 'assistant', content: [{ id: m.toolCallId }] });
    });
    const folded = Number(/look×(\d+)/.exec(messages[1]!.content as string)![1]);
    const kept = messages.filter((m) => m.role === 'assistant').length;
    expect(folded + kept).toBe(13);
    expect(conversation.tokens).toBeLessThanOrEqual(400 + 150);
  });

  it('refuses a budget too small to hold a briefing', () => {
    expect(() => new Conversation({ budgetTokens: 10 })).toThrow(/contextBudgetTokens must be a number >= 256/);
  });
});
