// OpenEnv's WebSocket protocol on `aicc serve`'s /ws, so OpenEnv's own client (GenericEnvClient, or
// any EnvClient) plays one character of the world: each socket is an episode session of its own.
//   → { "type": "reset", "data": { seed?, params?, face?, agent?, max_ticks? } }
//   → { "type": "step",  "data": { "tool": …, "input": … } }   (vectors face: { "move": n })
//   → { "type": "state" }          → { "type": "close" }
//   ← { "type": "observation", "data": { observation, reward, done, metadata } }
//   ← { "type": "state", "data": … }   ← { "type": "error", "data": { message, code } }
// The character is `agent` (default: the world's first); the world's own policy plays the others.
// Errors carry OpenEnv's codes; the session goes on after any of them but CAPACITY_REACHED.

import type { WebSocket } from 'ws';
import { ServeError, type ServedStep } from '../../research/servedEnv.js';
import type { EpisodeTable } from './episodeTable.js';
import { worldSchema } from './worldSchema.js';

type Reply = { type: 'observation' | 'state' | 'error'; data: Record<string, unknown> };

/** Serves one socket until it closes; the socket's episode goes with it. */
export async function serveOpenEnvSocket(socket: WebSocket, table: EpisodeTable): Promise<void> {
  const reply = (message: Reply): void => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  let id: string;
  try {
    id = await table.open();
  } catch (error) {
    reply(failure(error));
    socket.close(1013, 'capacity reached');
    return;
  }
  let agent = '';
  let face: 'tools' | 'vectors' = 'tools';
  // One message at a time, in the order they came: a client waits for each answer, but a socket may still carry several.
  let queue = Promise.resolve();
  socket.on('message', (raw, isBinary) => {
    queue = queue.then(async () => reply(await answer(isBinary ? undefined : raw.toString())));
  });
  socket.on('close', () => void queue.then(() => table.close(id)));

  async function answer(text: string | undefined): Promise<Reply> {
    let message: { type?: unknown; data?: unknown };
    try {
      message = JSON.parse(text ?? '');
      if (message === null || typeof message !== 'object' || Array.isArray(message)) throw new SyntaxError('not an object');
    } catch (error) {
      return { type: 'error', data: { message: `Invalid JSON: ${(error as Error).message.slice(0, 120)}`, code: 'INVALID_JSON' } };
    }
    const data = (message.data ?? {}) as Record<string, unknown>;
    try {
      switch (message.type) {
        case 'reset': {
          if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new ServeError('invalid_request', 'reset data must be an object');
          agent = typeof data['agent'] === 'string' ? data['agent'] : (await worldSchema(table.world)).agents[0]!;
          face = data['face'] === 'vectors' ? 'vectors' : data['face'] === undefined || data['face'] === 'tools' ? 'tools' : (data['face'] as never);
          const first = await table.use(id, (env) =>
            env.reset({
              seed: (data['seed'] ?? 0) as number,
              ...(data['params'] !== undefined && { params: data['params'] as Record<string, never> }),
              face,
              agents: [agent],
              ...(data['max_ticks'] !== undefined && { maxTicks: data['max_ticks'] as number }),
            }),
          );
          return observation(first);
        }
        case 'step': {
          const action = face === 'vectors' ? (data as { move?: unknown }).move : data;
          return observation(await table.use(id, (env) => env.step({ [agent]: action })));
        }
        case 'state':
          return { type: 'state', data: await table.use(id, (env) => env.state()) };
        case 'close':
          socket.close(1000, 'closed by the client');
          return { type: 'state', data: { closed: true } };
        default:
          return {
            type: 'error',
            data: { message: `Unknown message type ${JSON.stringify(message.type)?.slice(0, 40)}; send reset, step, state or close`, code: 'UNKNOWN_TYPE' },
          };
      }
    } catch (error) {
      return failure(error);
    }
  }

  function observation(step: ServedStep): Reply {
    const seen = step.observations[agent];
    return {
      type: 'observation',
      data: {
        observation: Array.isArray(seen) ? { vector: seen } : (seen ?? {}),
        reward: step.rewards[agent] ?? 0,
        done: step.terminated || step.truncated,
        metadata: {
          episode_id: id,
          agent,
          tick: step.tick,
          terminated: step.terminated,
          truncated: step.truncated,
          ...(step.stop !== undefined && { stop: step.stop }),
          ...(step.infos[agent] !== undefined && { info: step.infos[agent] }),
        },
      },
    };
  }
}

const CODES: Record<string, string> = {
  capacity_reached: 'CAPACITY_REACHED',
  no_episode: 'SESSION_ERROR',
  episode_done: 'SESSION_ERROR',
  busy: 'SESSION_ERROR',
};

function failure(error: unknown): Reply {
  if (!(error instanceof ServeError)) return { type: 'error', data: { message: 'the server failed to answer; reset to start again', code: 'EXECUTION_ERROR' } };
  return { type: 'error', data: { message: error.message, code: CODES[error.code] ?? 'VALIDATION_ERROR' } };
}
