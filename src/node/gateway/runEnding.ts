// pi 0.73 looks at its steer and follow-up queues once after the model's last reply of a run, then
// ends the run: a message queued after that look waits, unseen, until some later prompt. (pi 1.x
// starts a fresh run for such a message by itself, before agent_settled.) RunEnding follows a run's
// end so the host can (1) hold a delivery that arrives once the final reply is out, and send it as
// a prompt when the run has settled, and (2) find queued messages the run never took in.

import type { PiEvent } from './piProcess.js';

export class RunEnding {
  /** The run's final reply is out: pi will not look at its queues again in this run. */
  finishing = false;
  /** Texts queued into the running pi that have not yet appeared in its conversation. */
  private queued: string[] = [];

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
    this.queued.push(text);
  }

  /** At a run's end: what was queued into it and never taken in (it sits in pi's queue). Clears the list. */
  stranded(): string[] {
    const left = this.queued;
    this.queued = [];
    return left;
  }

  private takenIn(text: string | undefined): void {
    const at = text === undefined ? -1 : this.queued.indexOf(text);
    if (at >= 0) this.queued.splice(at, 1);
  }
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return (content as Array<{ type?: unknown; text?: unknown }>).map((part) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

function callsTools(content: unknown): boolean {
  return Array.isArray(content) && (content as Array<{ type?: unknown }>).some((part) => part?.type === 'toolCall');
}
