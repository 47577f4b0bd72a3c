// What keeps an agent under test from starting, asked once before an eval hands out any episode: a
// missing key, program, socket or library is the user's to fix, not thirty crashed episodes.

import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { messageOf } from '../../base/errors.js';
import { piAiModel } from '../model/piAi.js';
import type { AgentSpec } from './agentSpec.js';
import type { PiEvalOptions } from './piEvalAgent.js';

/** Why the agent `spec` cannot start here, or undefined when nothing is known to stop it. */
export async function whyAgentCannotStart(spec: AgentSpec, pi: PiEvalOptions = {}): Promise<string | undefined> {
  switch (spec.kind) {
    case 'model':
      try {
        await piAiModel({ provider: spec.provider, model: spec.model, ...(spec.baseUrl !== undefined && { baseUrl: spec.baseUrl }) });
        return undefined;
      } catch (error) {
        return messageOf(error);
      }
    case 'mcp':
      try {
        await import('@modelcontextprotocol/sdk/server/stdio.js');
        return undefined;
      } catch (error) {
        return `mcp: agents need the optional dependency @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk): ${messageOf(error).split('\n', 1)[0]}`;
      }
    case 'pi': {
      const bin = pi.bin ?? 'pi';
      if (findProgram(bin) !== undefined) return undefined;
      return pi.bin === undefined ? 'no pi on PATH (npm install -g @mariozechner/pi-coding-agent), or name it with --pi-bin' : `no pi at ${bin} (--pi-bin)`;
    }
    case 'pi-daemon':
      return existsSync(spec.socket)
        ? undefined
        : `no socket at ${spec.socket}; start the daemon with \`pi-daemon serve --socket ${spec.socket}\`, or name its socket`;
    default:
      return undefined;
  }
}

/** A program's path: as given when it names a file, else the first executable of that name on PATH. */
function findProgram(name: string): string | undefined {
  if (isAbsolute(name) || name.includes('/')) return existsSync(resolve(name)) ? resolve(name) : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not here: the next folder of PATH.
    }
  }
  return undefined;
}
