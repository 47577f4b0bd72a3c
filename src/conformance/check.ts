// One conformance check and what it is given: the bridge, a way to open sessions as a raw agent,
// and assertions that say what was expected and what came instead.

import type { ToolDefinition, ToolHandle } from '../runtime/tool.js';
import type { AiccMessage, ErrorCode, Manifest } from '../protocol/messages.js';
import { RawAgent, type Exchange } from './agent.js';
import type { BridgeFactory, ConformanceBridge, OpenOptions } from './bridge.js';

export type Level = 1 | 2 | 3;
/** What a check needs of the bridge beyond links; a bridge without it gets "n/a", not a pass. */
export type Need = 'advance' | 'registerTool' | 'emit' | 'reopen' | 'factory';

export interface Check {
  level: Level;
  /** Stable, short: `L2.rate_limit_edge`. */
  id: string;
  /** What it shows, as a sentence. */
  title: string;
  needs?: readonly Need[];
  run(context: CheckContext): Promise<void>;
}

/** Thrown by a failed expectation: what was expected, and what was seen. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

export class CheckContext {
  readonly agents: RawAgent[] = [];
  private toolCount = 0;

  constructor(
    readonly bridge: ConformanceBridge,
    readonly factory: BridgeFactory | undefined,
    /** Tool ids are made unique per check: one bridge serves every check. */
    readonly prefix: string,
    /** How long an expected answer may take (ConformanceOptions.waitMs). */
    readonly waitMs = 2000,
  ) {}

  /** Opens a session and waits for its session_init. */
  async open(options: Partial<OpenOptions> = {}): Promise<{ agent: RawAgent; manifest: Manifest & { session_id: string } }> {
    const link = await this.bridge.open({ character: options.character ?? `probe_${this.prefix}`, ...options });
    const agent = new RawAgent(link, this.bridge.codec, this.waitMs);
    this.agents.push(agent);
    const init = await agent.next(0, () => true);
    if (init === undefined) throw new CheckFailure(`no message within ${this.waitMs} ms of opening a session (session_init expected)`);
    if (init.type !== 'session_init') throw new CheckFailure(`the first message of a session is ${init.type}, not session_init`);
    const { protocol: _p, type: _t, message_id: _m, ...manifest } = init;
    return { agent, manifest };
  }

  /** A link for a session_resume (capsule.accept on the bridge's side). */
  async reopen(): Promise<RawAgent> {
    const link = await this.bridge.reopen!();
    const agent = new RawAgent(link, this.bridge.codec, this.waitMs);
    this.agents.push(agent);
    return agent;
  }

  /** Registers a tool under a name unique to this check. */
  tool(definition: Omit<ToolDefinition, 'id'> & { id?: string }): { id: string; handle: ToolHandle } {
    const id = `${definition.id ?? 'probe'}_${this.prefix}_${++this.toolCount}`;
    const handle = this.bridge.registerTool!({ ...definition, id } as ToolDefinition);
    return { id, handle };
  }

  /**
   * Moves the bridge's time in steps, letting its messages travel after each. The agents still
   * open send a heartbeat every 2 s of it, as live agents do, so long waits are not taken for death.
   */
  async advance(ms: number, stepMs = Math.min(ms, 1000)): Promise<void> {
    let sinceBeat = 0;
    for (let left = ms; left > 0; left -= stepMs) {
      const step = Math.min(stepMs, left);
      this.bridge.advance!(step);
      sinceBeat += step;
      if (sinceBeat >= 2000) {
        sinceBeat = 0;
        for (const agent of this.agents) if (agent.closedWith === undefined && agent.sessionId !== '') agent.send({ type: 'heartbeat' });
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  /** The result of a call sent now: waits for the tool_result with its call_id. */
  async call(
    agent: RawAgent,
    tool: string,
    input: unknown,
    callId = `c${Math.random().toString(36).slice(2, 10)}`,
    ms?: number,
  ): Promise<Extract<AiccMessage, { type: 'tool_result' }>> {
    const from = agent.received.length;
    agent.send({ type: 'tool_call', call_id: callId, tool, input });
    const result = await agent.next(from, (m) => m.type === 'tool_result' && m.call_id === callId, ms);
    if (result === undefined) throw new CheckFailure(`no tool_result for ${tool} (call_id ${callId}) within ${ms ?? this.waitMs} ms`);
    return result as Extract<AiccMessage, { type: 'tool_result' }>;
  }

  /** Fails unless `result` is a refusal with this code and retryable. */
  refused(result: Extract<AiccMessage, { type: 'tool_result' }>, code: ErrorCode, retryable: boolean, what: string): void {
    if (result.ok || result.error?.code !== code || result.error.retryable !== retryable) {
      throw new CheckFailure(
        `${what}: expected a refusal ${code} (retryable ${retryable}), got ${result.ok ? 'ok' : `${result.error?.code} (retryable ${result.error?.retryable})`}`,
      );
    }
  }

  /** Fails with `message` unless `condition` holds. */
  expect(condition: boolean, message: string): void {
    if (!condition) throw new CheckFailure(message);
  }

  /** The last exchanges of every agent this check used, for a failure's report. */
  transcript(): Exchange[] {
    return this.agents.flatMap((agent) => agent.transcript).slice(-12);
  }

  /** Every invalid frame the bridge sent during the check. */
  invalidFrames(): string[] {
    return this.agents.flatMap((agent) => agent.invalid);
  }

  dispose(): void {
    for (const agent of this.agents) agent.close();
  }
}
