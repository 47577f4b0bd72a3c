// `aicc serve`'s HTTP API, in OpenEnv's shape with an episode id per session:
//   POST /reset  { seed?, params?, face?, agents?, max_ticks?, episode_id? } → a step's answer and its episode_id
//   POST /step   { episode_id, actions: { "<character>": <action> } }       → { tick, observations, rewards, terminated, truncated, stop?, infos }
//   GET  /state?episode_id=…                                                  → seed, params, tick, metrics, state_hash …
//   POST /close  { episode_id }                                               → { closed }
//   POST /live   { seed?, params?, agent? }  → { episode_id, agent }: a live character over aicc/0.1 on /aicc (liveEpisodes.ts)
//   GET  /health, GET /metadata (the world: params, faces), GET /schema (actions and observations)
// Every failure is JSON, `{ "error": { "code", "message" } }`, with the status its code maps to.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServeError, type ServeErrorCode } from '../../research/servedEnv.js';
import type { EpisodeTable } from './episodeTable.js';
import type { LiveEpisodes } from './liveEpisodes.js';
import { worldSchema } from './worldSchema.js';

/** Largest request body, unless told otherwise: 64 KiB holds any step of any world here with room to spare. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

const STATUS: Record<ServeErrorCode, number> = {
  invalid_request: 400,
  unknown_agent: 400,
  no_vector_face: 400,
  unauthorized: 401,
  no_episode: 404,
  not_found: 404,
  episode_done: 409,
  busy: 409,
  too_large: 413,
  capacity_reached: 503,
};

export interface HttpApi {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

export function httpApi(table: EpisodeTable, live: LiveEpisodes, maxBodyBytes = DEFAULT_MAX_BODY_BYTES): HttpApi {
  const routes: Record<string, (query: URLSearchParams, body: () => Promise<Record<string, unknown>>) => Promise<unknown>> = {
    'GET /health': async () => ({ status: 'healthy' }),
    'GET /metadata': async () => {
      const { name, description, params, maxTicks } = table.world;
      return { name, description: description ?? '', params, max_ticks: maxTicks, faces: (await worldSchema(table.world)).faces };
    },
    'GET /schema': async () => worldSchema(table.world),
    'POST /reset': async (_query, body) => {
      const request = await body();
      const reused = request['episode_id'];
      const id = reused === undefined ? await table.open() : String(reused);
      try {
        const first = await table.use(id, (env) =>
          env.reset({
            seed: (request['seed'] ?? 0) as number,
            ...(request['params'] !== undefined && { params: objectOf(request['params'], 'params') as Record<string, never> }),
            ...(request['face'] !== undefined && { face: request['face'] as never }),
            ...(request['agents'] !== undefined && { agents: listOf(request['agents'], 'agents') }),
            ...(request['max_ticks'] !== undefined && { maxTicks: count(request['max_ticks'], 'max_ticks') }),
          }),
        );
        return { episode_id: id, ...first };
      } catch (error) {
        // A new episode that could not start is not kept: its id was never the client's.
        if (reused === undefined) await table.close(id);
        throw error;
      }
    },
    'POST /step': async (_query, body) => {
      const request = await body();
      return table.use(request['episode_id'], (env) => env.step(request['actions']));
    },
    'GET /state': async (query) => table.use(query.get('episode_id') ?? undefined, (env) => env.state()),
    'POST /live': async (_query, body) => live.start(await body()),
    'POST /close': async (_query, body) => {
      const id = (await body())['episode_id'];
      if (typeof id !== 'string') throw new ServeError('invalid_request', 'episode_id must be the id /reset returned');
      return { closed: await table.close(id) };
    },
  };

  return {
    async handle(request, response) {
      const url = new URL(request.url ?? '/', 'http://serve');
      const route = routes[`${request.method} ${url.pathname}`];
      try {
        if (route === undefined) {
          const known = Object.keys(routes).filter((key) => key.endsWith(` ${url.pathname}`));
          throw new ServeError(
            'not_found',
            known.length > 0
              ? `${url.pathname} takes ${known.map((key) => key.split(' ')[0]).join(' or ')}`
              : `no ${url.pathname.slice(0, 80)} here; the API is /reset, /step, /state, /close, /live, /health, /metadata and /schema`,
          );
        }
        send(response, 200, await route(url.searchParams, () => readJson(request, maxBodyBytes)));
      } catch (error) {
        if (!(error instanceof ServeError)) {
          // Not the client's doing: said plainly, without the server's insides.
          send(response, 500, {
            error: { code: 'server_error', message: 'the server failed to answer this request; the episode may be lost — reset to start again' },
          });
          throw error;
        }
        send(response, STATUS[error.code], { error: { code: error.code, message: error.message } });
      }
    },
  };
}

/** The request's JSON object body, at most `limit` bytes. */
async function readJson(request: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) throw new ServeError('too_large', `the body is ${declared} bytes; at most ${limit} are taken`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ServeError('too_large', `the body is over ${limit} bytes, the most taken`);
    chunks.push(chunk);
  }
  if (size === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new ServeError('invalid_request', `the body is not JSON: ${(error as Error).message.slice(0, 120)}`);
  }
  return objectOf(value, 'the body');
}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ServeError('invalid_request', `${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

function listOf(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw new ServeError('invalid_request', `${what} must be a list of character names`);
  return value as string[];
}

function count(value: unknown, what: string): number {
  if (!(Number.isInteger(value) && (value as number) >= 1)) throw new ServeError('invalid_request', `${what} must be a whole number >= 1`);
  return value as number;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  response.end(text);
}
