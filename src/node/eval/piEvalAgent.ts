// pi as the agent under test: `pi:PROVIDER/MODEL` starts pi for each seat behind a gateway on
// 127.0.0.1 (as a page reaches it), `pi-daemon:SOCKET` opens a session of its own on a running
// pi-daemon for each seat. Either way the pilot briefs pi from the world's brief and drives it by
// the text protocol (chatAgent): a fresh conversation for each character of each episode, closed
// with the episode. pi makes its model requests itself: its episodes keep no cassette.

import { randomBytes } from 'node:crypto';
import { chatAgent } from '../../research/evalAgents.js';
import type { EvalAgent } from '../../research/evalEpisode.js';
import { startDaemonAgent, startPiAgent } from '../pi/piAgent.js';
import type { AgentSpec } from './agentSpec.js';

/** Where pi is and what it reads, for pi: agents; the folder of pi-daemon: agents' sessions. */
export interface PiEvalOptions {
  /** The pi executable (default `pi` on PATH; a .js file runs with node). */
  bin?: string;
  /** The Node that runs a .js `bin` (default the eval's own). */
  node?: string;
  /** Where pi finds models.json and auth (default: the user's own, ~/.pi/agent). */
  agentDir?: string;
  /** A pi-daemon session's folder on the daemon's host, under its --allow-root (default: this process's). */
  cwd?: string;
}

const SYSTEM_PROMPT = 'You play one character in a small text game, one of several evaluated on it. Act only through the tool calls the game describes.';

/** The pi agent `spec` names, started as `options` say. */
export function piEvalAgent(spec: Extract<AgentSpec, { kind: 'pi' | 'pi-daemon' }>, options: PiEvalOptions): EvalAgent {
  const model = spec.provider === undefined ? {} : { provider: spec.provider, model: spec.model! };
  if (spec.kind === 'pi')
    return chatAgent({
      open: (seat) =>
        startPiAgent({
          ...model,
          ...(options.bin !== undefined && { piBin: options.bin }),
          ...(options.node !== undefined && { node: options.node }),
          ...(options.agentDir !== undefined && { agentDir: options.agentDir }),
          label: seat.character,
          systemPrompt: SYSTEM_PROMPT,
          from: { id: 'aicc-eval', label: 'aicc eval' },
        }),
    });
  return chatAgent({
    open: (seat) =>
      startDaemonAgent({
        socketPath: spec.socket,
        ...model,
        label: seat.character,
        // A session of its own for each seat of each episode, on however many threads or machines.
        sessionId: `aicc-eval-${seat.character}-${randomBytes(6).toString('hex')}`,
        ...(options.cwd !== undefined && { cwd: options.cwd }),
        systemPrompt: SYSTEM_PROMPT,
        // An eval does not wait 90 s for a daemon that went away: the episode records it and goes on.
        reconnect: { maxAttempts: 2 },
      }),
  });
}
