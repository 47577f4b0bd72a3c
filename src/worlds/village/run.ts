// One run of the village, headless: three villagers driven by scripted agents (or one of them by a
// person at the terminal), every action a real AICC tool call. Returns the story and the summary.

import { CapsuleError } from '../../base/errors.js';
import { runHeadless, type HeadlessResult } from '../../adapters/headless/runner.js';
import { RunSummary, type RunSummaryJSON } from '../../adapters/headless/summary.js';
import type { AgentClient } from '../../agent/agentClient.js';
import type { Capsule } from '../../runtime/capsule.js';
import { connectInProcess } from '../../agent/inProcess.js';
import { Recorder } from '../../recording/recorder.js';
import { RECORDING_FORMAT, type RecordingHeader } from '../../recording/recording.js';
import type { ChatBackend } from '../../agent/pilot/backend.js';
import { decisionCostLine } from '../../agent/pilot/costs.js';
import { Pilot } from '../../agent/pilot/pilot.js';
import type { PilotStats } from '../../agent/pilot/stats.js';
import { Player, type PlayerEnd, type PlayerIo } from './play.js';
import { Bard, Baker, Farmer } from './roles.js';
import { Narrator } from './story.js';
import type { Villager } from './villager.js';
import { buildVillage, VILLAGER_GOALS, VILLAGER_SESSION, VILLAGERS, type Village } from './world.js';
import type { ModelExchange } from '../../agent/model/cassette.js';
import type { JsonObject } from '../../protocol/messages.js';
import type { ManualClock } from '../../base/clock.js';
import { stateHash } from '../../research/stateHash.js';

export interface VillageOptions {
  /** Default 7. */
  seed?: number;
  /** Most ticks to run (10 a simulated second). Default 600; the run ends sooner once every goal is met. */
  ticks?: number;
  /** Receives the recording, line by line. */
  record?: (line: string) => void;
  /** A person plays this villager through `io`. */
  play?: { character: string; io: PlayerIo };
  /**
   * A chat agent drives this villager through the pilot; the day then runs in real time. `backend`
   * may be made from the villager's session (a model backend calls its tools through it).
   */
  pilot?: PilotSpec;
  /**
   * Several villagers driven by chat agents, a pilot each (a model-driven village): the first is
   * the one `handover` hands over. Give `pilot` or `pilots`, not both.
   */
  pilots?: readonly PilotSpec[];
  /**
   * At this tick the piloted villager is handed over (a fork): its pilot stops, and a new one on
   * `backend` — the villager's own scripted role, 'scripted' — or a program outside the village,
   * `{ guest }` (its session is closed and the guest joins as the villager), plays it from there.
   */
  handover?: { tick: number; backend: PilotBackend | 'scripted' | { guest: GuestJoin } };
  /** What the recording's header says besides world, seed and ticks (the agent that drove the pilot, for a replay). */
  recordOptions?: JsonObject;
  /** With a recording: a hash line (the world's state hash) every this many ticks, and one at the end; the header's options say so. Default: none. */
  hashEvery?: number;
  /**
   * Waits after each tick: by default, with a pilot or a guest, the tick's 100 ms of wall time (a
   * model thinks in real time); a cassette replay passes its own (release the answers due, settle).
   */
  pace?: (tick: number) => Promise<void>;
  /** Ends the day at this tick (a replay ends where the recording did). */
  stopAt?: number;
  /**
   * A program outside the village plays this villager (an MCP client, through serveMcp): `join`
   * opens its session on the capsule; the day then runs in real time and ends early when it leaves.
   */
  guest?: { character: string; join: GuestJoin };
  progress?: (done: number, total: number) => void;
  /** Ends the day early when aborted (Ctrl-C at the command line); the story and summary still come. */
  signal?: AbortSignal;
}

type VillagerId = (typeof VILLAGERS)[number];

/** A villager a chat agent drives, and its backend. */
export interface PilotSpec {
  character: string;
  backend: PilotBackend;
}

/** A pilot's backend, or how to make one from the villager's session and the run. */
export type PilotBackend = ChatBackend | ((client: AgentClient, context: PilotContext) => ChatBackend);

/** What a pilot's backend may use of the run: the village's clock and tick, and the recording's cassette. */
export interface PilotContext {
  clock: ManualClock;
  tick(): number;
  /** Writes a model exchange into the recording; absent when the run is not recorded. */
  exchange?: (exchange: ModelExchange) => void;
}

/** The village's state hash now: the tick and where every character and item is. */
export function villageHash(village: Village): string {
  return stateHash({ tick: village.capsule.tick, ...village.world.snapshot() });
}

/** Opens an outside player's session as the villager on the capsule. */
export type GuestJoin = (capsule: Capsule) => Promise<Guest>;

/** A villager's outside player, once joined: `gone` turns true when it leaves. */
export interface Guest {
  readonly gone: boolean;
  close(reason: string): Promise<void>;
}

/** Why the day ended: every goal met, the ticks ran out, or the player, a guest or an interrupt ended it. */
export type VillageStop = 'goals_met' | 'tick_limit' | 'guest_left' | PlayerEnd;

/** Each VillageStop as the summary says it. */
const STOP_WORDS: Record<VillageStop, string> = {
  goals_met: 'every villager met its goal',
  tick_limit: 'out of ticks',
  guest_left: 'the guest left',
  player_quit: 'the player quit',
  input_ended: "the player's input ended",
  interrupted: 'interrupted',
};

/** The story's last line: evening only when the day ran its course; a day someone ended says who ended it, and when. */
function closingLine(stop: VillageStop, tick: number, done: boolean, aborted: boolean): string {
  if (stop === 'player_quit') return `The player quits at tick ${tick}; the day ends there.`;
  if (stop === 'input_ended') return `The player's input runs out at tick ${tick}; the day ends there.`;
  if (stop === 'guest_left') return `The guest leaves at tick ${tick}; the day ends there.`;
  // A replay's stopAt also reads as interrupted: it ends where the recorded day did, and says what that day said.
  if (stop === 'interrupted' && aborted) return `The day is interrupted at tick ${tick}.`;
  return done ? 'Evening falls; everyone has done what they set out to do.' : 'Evening falls before everyone is done.';
}

export interface VillageRun {
  seed: number;
  /** The most ticks the day was given; `result.ticks` is how many it ran. */
  maxTicks: number;
  stop: VillageStop;
  story: string[];
  summary: RunSummaryJSON;
  summaryLines: string[];
  result: HeadlessResult;
  /** Recording lines that failed their schema check (none, unless the bridge has a bug). */
  recordingProblems: string[];
  /** What the pilot did and what its decisions cost, when a chat agent drove a villager (the first, with several). */
  pilot?: PilotStats;
  /** With several pilots: each one's, by villager. */
  pilots?: Record<string, PilotStats>;
  /** The chat agent stopped before the day ended (its backend went away for good): when and why. */
  pilotLost?: { tick: number; reason: string };
}

const ROLES = { ada: Baker, bram: Farmer, cleo: Bard } as const;

export const DEFAULT_SEED = 7;
export const DEFAULT_TICKS = 600;

export async function runVillage(options: VillageOptions = {}): Promise<VillageRun> {
  const seed = options.seed ?? DEFAULT_SEED;
  const ticks = options.ticks ?? DEFAULT_TICKS;
  if (options.pilot !== undefined && options.pilots !== undefined)
    throw new CapsuleError('AICC_INVALID_OPTION', 'runVillage: give pilot or pilots, not both (pilots: [pilot, …] drives several)');
  const piloted = options.pilots ?? (options.pilot !== undefined ? [options.pilot] : []);
  for (const spec of piloted) {
    if (!(VILLAGERS as readonly string[]).includes(spec.character))
      throw new CapsuleError('AICC_INVALID_OPTION', `runVillage: no villager ${JSON.stringify(spec.character)} to pilot; choose ${VILLAGERS.join(', ')}`);
  }
  if (new Set(piloted.map((spec) => spec.character)).size < piloted.length)
    throw new CapsuleError('AICC_INVALID_OPTION', 'runVillage: a villager is piloted twice; give each one pilot');
  const village = buildVillage(seed);
  const { capsule, clock, world, random } = village;
  const header: RecordingHeader = {
    format: RECORDING_FORMAT,
    world: 'village',
    seed,
    ticks,
    // The header says how often hashes were written, so a replay writes them at the same ticks.
    ...((options.recordOptions !== undefined || options.hashEvery !== undefined) && {
      options: { ...options.recordOptions, ...(options.hashEvery !== undefined && { hashEvery: options.hashEvery }) },
    }),
  };
  const recorder = options.record && new Recorder(capsule, header, options.record);
  const hashEvery = options.hashEvery;
  const offHashes =
    recorder && hashEvery !== undefined ? capsule.on('tick', ({ tick }) => tick % hashEvery === 0 && recorder.hash(villageHash(village))) : undefined;
  const narrator = new Narrator(capsule, world);
  const summary = new RunSummary(capsule);

  const clients: AgentClient[] = [];
  const agents: Villager[] = [];
  let player: Player | undefined;
  let pilot: Pilot | undefined;
  let guest: Guest | undefined;
  let pilotLost: { tick: number; reason: string } | undefined;
  let dayOver = false;
  let pilotClient: AgentClient | undefined;
  /** The other piloted villagers' pilots, with several. */
  const copilots = new Map<string, Pilot>();
  /** Piloted villagers whose chat agent stopped before the day ended, besides the first (pilotLost). */
  const copilotsLost = new Map<string, { tick: number; reason: string }>();
  /** A pilot for `client`'s villager on `backend`, started; its costs recorded, its going away noted. */
  const startPilot = (client: AgentClient, id: VillagerId, backend: PilotBackend): Pilot => {
    const who = world.character(id)!;
    const context: PilotContext = {
      clock,
      tick: () => capsule.tick,
      ...(recorder && { exchange: ({ character, ...exchange }: ModelExchange) => recorder.exchange(character, exchange as never) }),
    };
    const started = new Pilot({
      client,
      backend: typeof backend === 'function' ? backend(client, context) : backend,
      character: { id, name: who.name, description: who.description, goal: VILLAGER_GOALS[id] },
      clock,
    });
    // Each decision's cost goes into the recording as a line of its own, as the decision ends.
    if (recorder) started.on('cost', (cost) => recorder.decision(id, cost));
    started.on('stop', ({ reason }) => {
      if (!dayOver && started === pilot) pilotLost = { tick: capsule.tick, reason };
      if (!dayOver && copilots.get(id) === started) copilotsLost.set(id, { tick: capsule.tick, reason });
    });
    started.start();
    return started;
  };
  for (const id of VILLAGERS) {
    if (options.guest?.character === id) {
      guest = await options.guest.join(capsule);
      continue;
    }
    // The capsule is in this process: message objects, one frame a delivery, no second check (connectInProcess).
    const client = await connectInProcess(capsule, { character: id, ...VILLAGER_SESSION, agent: { clock, randomBytes: random.fork(`agent:${id}`).bytes } });
    clients.push(client);
    if (options.play?.character === id) player = new Player(client, world, id, options.play.io);
    else if (piloted[0]?.character === id) {
      pilotClient = client;
      pilot = startPilot(client, id, piloted[0].backend);
    } else if (piloted.some((spec) => spec.character === id)) copilots.set(id, startPilot(client, id, piloted.find((spec) => spec.character === id)!.backend));
    else agents.push(new ROLES[id](client, id, random.fork(`mind:${id}`)));
  }
  narrator.tell(
    `Morning in ${capsule.world.name}. ${VILLAGERS.filter((id) => id !== player?.id)
      .map((id) => world.character(id)!.name)
      .join(', ')} set about their day.`,
  );

  for (const spec of piloted) narrator.tell(`${world.character(spec.character)!.name} is driven by a chat agent, through the pilot.`);
  if (guest !== undefined) narrator.tell(`${world.character(options.guest!.character)!.name} is played from outside the village.`);
  const everyoneDone = () => agents.every((agent) => agent.done) && (player === undefined || player.done);
  // A model thinks in real time: with a pilot or a guest, each tick waits for its 100 ms of wall time.
  const live = piloted.length > 0 || guest !== undefined;
  const handover = options.handover;
  const handOver = async (): Promise<void> => {
    if (handover === undefined || capsule.tick !== handover.tick || pilotClient === undefined) return;
    const id = piloted[0]!.character as VillagerId;
    const previous = pilot!;
    const to = handover.backend;
    const guestJoin = typeof to === 'object' && 'guest' in to ? to.guest : undefined;
    pilot = undefined;
    previous.stop(`handed over at tick ${handover.tick}`);
    if (to === 'scripted') agents.push(new ROLES[id](pilotClient, id, random.fork(`mind:${id}:fork`)));
    else if (guestJoin !== undefined) {
      // The villager's session is the guest's now: closed here first, as one character has one session.
      await pilotClient.close(`handed over at tick ${handover.tick}`);
      guest = await guestJoin(capsule);
    } else pilot = startPilot(pilotClient, id, to as PilotBackend);
    const whom = to === 'scripted' ? 'the scripted role' : guestJoin !== undefined ? 'a player outside the village' : 'another agent';
    narrator.tell(`${world.character(id)!.name} is handed over to ${whom}.`);
  };
  const realTime =
    options.pace !== undefined
      ? {
          onTick: async () => {
            await handOver();
            return options.pace!(capsule.tick);
          },
        }
      : live
        ? { onTick: () => new Promise<void>((resolve) => setTimeout(resolve, 1000 / capsule.tickRateHz)) }
        : {};
  const interrupted = (): boolean => options.signal?.aborted === true || (options.stopAt !== undefined && capsule.tick >= options.stopAt);
  const stopWhen = !live ? () => everyoneDone() || interrupted() : () => interrupted() || guest?.gone === true;
  const result =
    player === undefined
      ? await runHeadless({ capsule, ticks, stopWhen, ...realTime, ...(options.progress && { progress: options.progress }) })
      : await player.play(capsule, ticks, everyoneDone, options.signal);
  const stop: VillageStop =
    player?.end ?? (result.stoppedBy === 'ticks' ? 'tick_limit' : interrupted() ? 'interrupted' : guest?.gone === true ? 'guest_left' : 'goals_met');
  dayOver = true;
  pilot?.stop('the day is over');
  for (const copilot of copilots.values()) copilot.stop('the day is over');
  await guest?.close('the day is over');

  narrator.tell(closingLine(stop, capsule.tick, everyoneDone(), options.signal?.aborted === true));
  for (const client of clients) await client.close('the day is over');
  narrator.stop();
  summary.detach();
  offHashes?.();
  if (recorder && hashEvery !== undefined) recorder.hash(villageHash(village));
  recorder?.stop();
  capsule.dispose();
  const summaryLines = summary.format(result, STOP_WORDS[stop]);
  // The model's timings vary from run to run: the pilot's line goes last, under the wall-time heading.
  if (copilots.size === 0) {
    if (pilot !== undefined) summaryLines.push(decisionCostLine(pilot.stats.costs));
  } else {
    if (pilot !== undefined) summaryLines.push(`${piloted[0]!.character}: ${decisionCostLine(pilot.stats.costs)}`);
    for (const [id, copilot] of copilots) summaryLines.push(`${id}: ${decisionCostLine(copilot.stats.costs)}`);
  }
  if (pilotLost !== undefined)
    summaryLines.push(`chat agent: stopped at tick ${pilotLost.tick}, its villager idle for the rest of the day (${pilotLost.reason})`);
  for (const [id, lost] of copilotsLost) summaryLines.push(`chat agent of ${id}: stopped at tick ${lost.tick}, idle for the rest of the day (${lost.reason})`);
  return {
    seed,
    maxTicks: ticks,
    stop,
    story: narrator.lines,
    summary: summary.toJSON(),
    summaryLines,
    result,
    recordingProblems: recorder?.problems ?? [],
    ...(pilot !== undefined && { pilot: pilot.stats }),
    ...(copilots.size > 0 && {
      pilots: Object.fromEntries([
        ...(pilot !== undefined ? [[piloted[0]!.character, pilot.stats] as const] : []),
        ...[...copilots].map(([id, p]) => [id, p.stats] as const),
      ]),
    }),
    ...(pilotLost !== undefined && { pilotLost }),
  };
}
