// A message queued into a running pi can miss the run and wait, unseen, in pi's queue until some
// later prompt:
// - pi 0.73 looks at its steer and follow-up queues once after the model's last reply of a run, then
//   ends the run; a message queued after that look is left behind.
// - pi 1.x runs what was queued late in a fresh run before settling, but not what comes after its
//   last look, in the moment before `agent_settled`.
// RunEnding follows a run's end so the host can (1) hold a delivery that arrives once pi 0.73's final
// reply is out, and send it as a prompt when the run has settled, and (2) find queued messages the
// run never took in, in either dialect.

import type { PiEvent } from './piProcess.js';

/** How many taken-in user texts a run remembers while their queueing answer may be on its way. */
const MAX_TAKEN = 32;

export class RunEnding {
  /** The run's final reply is out: pi will not look at its queues again in this run. */
  finishing = false;
  /** Texts queued into the running pi that have not yet appeared in its conversation. */
  private queued: string[] = [];
  /**
   * User texts the run took in that were not (yet) known as queued: pi may take a message in before
   * its answer to the steer reaches the host. Cleared when the run settles; at most MAX_TAKEN kept.
   */
  private taken: string[] = [];

  event(event: PiEvent): void {
    switch (event.type) {
      case 'agent_start':
      case 'turn_start':
        this.finishing = false;
        break;
      case 'message_end': {
        const message = event.message as { role?: unknown; stopReason?: unknown; content?: unknown } | undefined;
        if (message?.role === 'user') this.takenIn(textOf(message.content));
        else if (message?.role === 'assistant') this.finishing = message.stopReason === 'stop' && !callsTools(message.content);
        break;
      }
      case 'agent_end':
        this.finishing = false;
        break;
      default:
    }
  }

  /** A steer or follow-up was queued into the running pi. */
  queuedInto(text: string): void {
    const at = this.taken.indexOf(text);
    if (at >= 0) this.taken.splice(at, 1);
    else this.queued.push(text);
  }

  /** Once the run has settled: what was queued into it and never taken in (it sits in pi's queue). Clears the list. */
  stranded(): string[] {
    const left = this.queued;
    this.queued = [];
    this.taken = [];
    return left;
  }

  private takenIn(text: string | undefined): void {
    if (text === undefined) return;
    const at = this.queued.indexOf(text);
    if (at >= 0) this.queued.splice(at, 1);
    else if (this.taken.push(text) > MAX_TAKEN) this.taken.shift();
  }
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return (content as Array<{ type?: unknown; text?: unknown }>)
    .map((part) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

function callsTools(content: unknown): boolean {
  return Array.isArray(content) && (content as Array<{ type?: unknown }>).some((part) => part?.type === 'toolCall');
}
