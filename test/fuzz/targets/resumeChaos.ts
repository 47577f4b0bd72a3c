// Resume under forced drops: an AgentClient drives a capsule through links that are cut at random
// moments — frames in flight are lost, as on a network — and resumes on a new link each time, the
// resume itself sometimes cut too. Calls that time out are retried with their call_id, as
// PROTOCOL.md says. In the end every call must have run exactly once and been answered, and every
// event must have arrived exactly once, in order: nothing lost, nothing twice.

import fc from 'fast-check';
import type { FuzzContext, FuzzTarget } from '../harness/context.js';
import { AgentClient } from '../../../src/agent/agentClient.js';
import type { Link } from '../../../src/links/link.js';
import { createMemoryLinkPair } from '../../../src/links/memory.js';
import { wrapLink } from '../../../src/links/wrapLink.js';
import { createCapsule, type Capsule } from '../../../src/runtime/capsule.js';
import { ManualClock } from '../../../src/base/clock.js';
import { ajvValidators } from '../../../src/validators/ajv.js';
import { draw } from './agentFrames.js';

/** A memory link pair whose cut loses every frame still in flight, both ways, then closes. */
function lossyPair(): { bridgeEnd: Link; agentEnd: Link; cut(): void } {
  const [a, b] = createMemoryLinkPair();
  let cut = false;
  const lossy = (link: Link) => wrapLink(link, { message: (frame, deliver) => (cut ? undefined : deliver(frame)) });
  return {
    bridgeEnd: lossy(a),
    agentEnd: lossy(b),
    cut() {
      cut = true;
      a.close('cable cut');
    },
  };
}

// Frames travel only when the run settles, so a cut between two settles loses what was sent since.
type Action = 'call' | 'tick' | 'cut' | 'resume' | 'wait' | 'settle';
const actions: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.constant('call' as const) },
  { weight: 5, arbitrary: fc.constant('tick' as const) },
  { weight: 2, arbitrary: fc.constant('cut' as const) },
  { weight: 3, arbitrary: fc.constant('resume' as const) },
  { weight: 2, arbitrary: fc.constant('wait' as const) },
  { weight: 4, arbitrary: fc.constant('settle' as const) },
);

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

class Run {
  readonly clock = new ManualClock();
  readonly capsule: Capsule;
  readonly executions = new Map<string, number>();
  readonly answered = new Map<string, number>();
  readonly heard: number[] = [];
  reportedDropped = 0;
  /** Set while draining: ticks go on (calls run at ticks), events stop, so the last ones can arrive. */
  quiet = false;
  emitted = 0;
  agent!: AgentClient;
  link!: ReturnType<typeof lossyPair>;
  calls = 0;
  drops = 0;
  resuming: Promise<void> | undefined;

  constructor(private readonly context: FuzzContext) {
    this.capsule = createCapsule({
      world: { name: 'Chaos', kind: 'abstract' },
      validators: ajvValidators(),
      tickMode: 'fixed',
      tickRateHz: 10,
      clock: this.clock,
      resumeGraceMs: 600_000,
    });
    this.capsule.registerTool({
      id: 'act',
      class: 'actuator',
      description: 'Counts its runs per call.',
      input_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      output_schema: { type: 'object' },
      handler: ({ id }: { id: string }) => {
        this.executions.set(id, (this.executions.get(id) ?? 0) + 1);
        return { id };
      },
    });
    this.capsule.on('tick', () => {
      if (!this.quiet) this.capsule.emit('agent_message', { from: 'world', text: String(++this.emitted) });
    });
  }

  async start(): Promise<void> {
    this.link = lossyPair();
    const connecting = AgentClient.connect(this.link.agentEnd, { clock: this.clock, callTimeoutMs: 1500, resumeTimeoutMs: 1000 });
    this.capsule.connect(this.link.bridgeEnd, { character: 'chaos', subscriptions: ['agent_message'], agentModel: { class: 'edge_small' } });
    this.agent = await connecting;
    this.agent.on('event', (event) => {
      this.reportedDropped += Number(event.meta?.['dropped_events'] ?? 0);
      this.heard.push(Number((event.payload as { text: string }).text));
    });
  }

  /** Calls to retry at the next tick: refused as retryable (queue_full). */
  retries: string[] = [];

  /**
   * Calls `act` for `id` until it is answered ok: a local timeout is retried at once with the same
   * call_id, a retryable refusal at the next tick, as PROTOCOL.md says.
   */
  call(id: string): void {
    void this.agent.call('act', { id }, { callId: id }).then((outcome) => {
      if (outcome.ok) this.answered.set(id, (this.answered.get(id) ?? 0) + 1);
      else if (outcome.error.code === 'timeout') this.call(id);
      else if (outcome.error.retryable) this.retries.push(id);
      else this.context.problem(`call ${id} failed: ${outcome.error.code} ${outcome.error.message}`);
    });
  }

  tick(): void {
    this.capsule.step(100);
    for (const id of this.retries.splice(0)) this.call(id);
  }

  resume(): void {
    if (this.resuming !== undefined || this.agent.state !== 'disconnected') return;
    this.link = lossyPair();
    this.capsule.accept(this.link.bridgeEnd);
    this.resuming = this.agent
      .resume(this.link.agentEnd)
      .then(
        () => this.context.tally('resumes'),
        (error: { code?: string; message: string }) => {
          this.context.tally('resumes cut short');
          // A resume whose own link was cut may fail: the agent then simply resumes again.
          if (error.code !== 'AICC_NOT_CONNECTED') this.context.problem(`resume failed: ${error.code} ${error.message}`);
        },
      )
      .finally(() => (this.resuming = undefined));
  }

  /** One action, synchronously: frames sent since the last settle are still in flight. */
  act(action: Exclude<Action, 'settle'>): void {
    if (action === 'call') this.call(`c${++this.calls}`);
    else if (action === 'tick') this.tick();
    else if (action === 'cut' && this.agent.state !== 'disconnected') {
      this.context.tally(`cuts while ${this.agent.state}`);
      this.link.cut();
      this.drops++;
      this.context.sent();
    } else if (action === 'resume') this.resume();
    else this.clock.advance(400); // time passes: timeouts fire, retries go out
  }

  /** No more cuts: resume, and let time pass until every call is answered and every event heard. */
  async drain(): Promise<void> {
    this.quiet = true;
    for (let round = 0; round < 400; round++) {
      this.resume();
      await settle();
      this.tick();
      this.clock.advance(400);
      await settle();
      const done = this.answered.size === this.calls && this.heard.at(-1) === this.emitted && this.agent.state === 'open';
      if (done) return;
    }
    this.context.problem(
      `did not settle: ${this.answered.size}/${this.calls} calls answered, ${this.heard.length}/${this.emitted} events heard, client ${this.agent.state}`,
    );
  }

  check(): void {
    for (let n = 1; n <= this.calls; n++) {
      const id = `c${n}`;
      const runs = this.executions.get(id) ?? 0;
      if (runs !== 1) this.context.problem(`call ${id} ran ${runs} times`);
      const answers = this.answered.get(id) ?? 0;
      if (answers !== 1) this.context.problem(`call ${id} was answered ${answers} times`);
    }
    const seen = new Set<number>();
    let last = 0;
    for (const n of this.heard) {
      if (seen.has(n)) this.context.problem(`event ${n} arrived twice`);
      if (n < last) this.context.problem(`event ${n} arrived after ${last}`);
      seen.add(n);
      last = n;
    }
    const lost = this.emitted - seen.size - this.reportedDropped;

    if (lost !== 0) this.context.problem(`${lost} events lost (${this.emitted} emitted, ${seen.size} heard, ${this.reportedDropped} reported dropped)`);
    for (let n = 0; n < this.calls; n++) this.context.tally('calls');
    for (let n = 0; n < this.emitted; n++) this.context.tally('events');
  }
}

export const target: FuzzTarget = async (context) => {
  // Episodes of 400 actions each (about 25 cuts), so that the check is made often and a failure
  // is short to replay; the budget counts cuts.
  let drops = 0;
  for (let episode = 0; drops < context.frames; episode++) {
    const run = new Run(context);
    await run.start();
    for (const action of draw(actions, context.seed, episode, 400)) {
      if (action === 'settle') await settle();
      else run.act(action);
    }
    await run.drain();
    run.check();
    drops += run.drops;
    run.capsule.dispose();
    await context.breathe();
  }
};
