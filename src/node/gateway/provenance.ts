// The provenance header a hosted pi sees above a peer's message: who sent it (the hello's `from`),
// how deep in a chain of peer messages it is, and whether the sender waits for an answer. The
// fields come from a browser, so each is cut to one short printable line before the model sees it.

import type { Peer } from './records.js';

export interface Provenance {
  from?: Peer | undefined;
  hops?: number | undefined;
  awaitsReply?: boolean | undefined;
  hopLimit: number;
}

/** The message as the model gets it: unchanged when the sender gave no `from`. */
export function withProvenance(message: string, provenance: Provenance): string {
  const { from } = provenance;
  if (from === undefined) return message;
  const parts = [`[pi-peers message from ${field(from.label)} (id ${field(from.id)} on ${field(from.host)})`];
  if (provenance.hops !== undefined) parts.push(`, hop ${provenance.hops} of at most ${provenance.hopLimit}`);
  if (provenance.awaitsReply === true) parts.push('; the sender waits for your reply: answer in your final message');
  return `${parts.join('')}]\n\n${message}`;
}

function field(text: string): string {
  const clean = text
    .replace(/[^\x20-\x7e\u00a0-\u2027\u202a-\uffff]/g, ' ')
    .replace(/[[\]"]/g, "'")
    .trim();
  return `"${clean.length > 60 ? `${clean.slice(0, 60)}…` : clean}"`;
}
