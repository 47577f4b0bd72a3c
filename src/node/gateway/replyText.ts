// The reply text of a run, read from pi's `agent_end` event, so a held get_state can carry it
// without asking pi for it (one pipe round trip less). pi's get_last_assistant_text picks the
// last assistant message by rules that differ between 0.73 and 1.x for aborted, failed or
// tool-only messages; where the run ended normally — its last assistant message stopped with
// "stop" — both pick that message, so only then is the text read here. Otherwise the caller asks pi.

/** The text pi's get_last_assistant_text would give for this run, or undefined when unsure. */
export function replyTextOf(agentEnd: Readonly<Record<string, unknown>>): string | null | undefined {
  const messages = Array.isArray(agentEnd['messages']) ? (agentEnd['messages'] as unknown[]) : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { role?: unknown; stopReason?: unknown; content?: unknown } | null;
    if (message?.role !== 'assistant') continue;
    if (message.stopReason !== 'stop' || !Array.isArray(message.content)) return undefined;
    let text = '';
    for (const part of message.content as Array<{ type?: unknown; text?: unknown }>) {
      if (part?.type === 'text' && typeof part.text === 'string') text += part.text;
    }
    return text.trim() || null;
  }
  return undefined;
}
