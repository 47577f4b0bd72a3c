// `--play`: a person plays one villager at the terminal among the agent-driven ones. Each command is
// a real AICC tool call through the same AgentClient an agent uses; then the world moves on for a
// simulated second and the player hears what happened around them.

import type { TextWorld } from '../../adapters/text/world.js';
import { runHeadless, type HeadlessResult } from '../../adapters/headless/runner.js';
import type { AgentClient, CallOutcome } from '../../agent/agentClient.js';
import type { Capsule } from '../../runtime/capsule.js';
import type { EventMessage, JsonObject } from '../../protocol/messages.js';

export interface PlayerIo {
  /** The player's lines, as typed. */
  lines: AsyncIterable<string>;
  write(text: string): void;
}

/** Ticks the world runs after each command: a simulated second at 10 Hz. */
const TURN_TICKS = 10;

const HELP = `Commands: look, go <direction> (or n/s/e/w), take <item>, drop <item>, give <item> to <someone>,
say <words>, say to <someone>: <words>, who, inspect <thing>, write note about <thing>,
describe <thing>, wait, help, quit.`;

const SHORT_DIRECTIONS: Record<string, string> = { n: 'north', s: 'south', e: 'east', w: 'west', u: 'up', d: 'down' };

/** Why the player's day ended before its ticks ran out or every goal was met. */
export type PlayerEnd = 'player_quit' | 'input_ended' | 'interrupted';

export class Player {
  done = false;
  /** Set when the player ended the day: quit, input closed, or Ctrl-C (the signal given to play). */
  end: PlayerEnd | undefined;
  private heard: EventMessage[] = [];
  private roomAtLastTurn: string;

  constructor(
    private readonly client: AgentClient,
    private readonly world: TextWorld,
    readonly id: string,
    private readonly io: PlayerIo,
  ) {
    this.roomAtLastTurn = world.character(id)!.room;
    client.on('event', (event) => {
      if (event.topic !== 'tick') this.heard.push(event);
    });
  }

  async play(capsule: Capsule, ticks: number, everyoneDone: () => boolean, signal?: AbortSignal): Promise<HeadlessResult> {
    const me = this.world.character(this.id)!;
    const total: HeadlessResult = { ticks: 0, wallMs: 0, ticksPerSecond: 0, stoppedBy: 'ticks' };
    const advance = async (n: number): Promise<void> => {
      const result = await runHeadless({ capsule, ticks: Math.min(n, ticks - total.ticks) });
      total.ticks += result.ticks;
      total.wallMs += result.wallMs;
    };
    const act = async (tool: string, input: JsonObject = {}): Promise<CallOutcome> => {
      const pending = this.client.call(tool, input);
      await advance(1); // the call runs at the next tick
      return pending;
    };
    this.io.write(`You are ${me.name}, the ${me.role ?? 'villager'}. ${HELP}\n`);
    this.show(await act('look'));
    this.io.write('> ');
    const lines = this.io.lines[Symbol.asyncIterator]();
    // Ctrl-C ends the day at once, even while the player's next line is awaited.
    const interrupted = new Promise<'interrupted'>((resolve) => {
      if (signal?.aborted === true) resolve('interrupted');
      signal?.addEventListener('abort', () => resolve('interrupted'), { once: true });
    });
    for (;;) {
      const next = await Promise.race([lines.next(), interrupted]);
      if (next === 'interrupted' || next.done === true) {
        this.end = next === 'interrupted' ? 'interrupted' : 'input_ended';
        break;
      }
      const line = next.value.trim();
      if (line === 'quit' || line === 'q') {
        this.end = 'player_quit';
        break;
      }
      const command = this.parse(line);
      if (typeof command === 'string') this.io.write(`${command}\n`);
      else if (command !== undefined) this.show(await act(command.tool, command.input), command.tool);
      await advance(TURN_TICKS);
      this.tellHeard();
      if (total.ticks >= ticks || everyoneDone()) break;
      this.io.write('> ');
    }
    // Not awaited: a line may still be awaited, and it may never come.
    void lines.return?.();
    this.io.write('\nThe day in Millbrook, as it happened:\n');
    this.done = true;
    total.ticksPerSecond = total.wallMs > 0 ? (total.ticks * 1000) / total.wallMs : 0;
    total.stoppedBy = total.ticks >= ticks ? 'ticks' : 'condition';
    return total;
  }

  /** A typed line as a tool call, text to show instead, or undefined for "wait". */
  private parse(line: string): { tool: string; input: JsonObject } | string | undefined {
    const [verb = '', ...rest] = line.split(/\s+/);
    const arg = rest.join(' ');
    const direction = SHORT_DIRECTIONS[verb] ?? (['north', 'south', 'east', 'west', 'up', 'down'].includes(verb) ? verb : undefined);
    if (direction !== undefined) return { tool: 'go', input: { direction } };
    switch (verb) {
      case '':
      case 'wait':
      case 'z':
        return undefined;
      case 'help':
      case '?':
        return HELP;
      case 'look':
      case 'l':
        return { tool: 'look', input: {} };
      case 'who':
        return { tool: 'who', input: {} };
      case 'go':
        return { tool: 'go', input: { direction: SHORT_DIRECTIONS[arg] ?? arg } };
      case 'take':
      case 'get':
        return { tool: 'take', input: { item: arg } };
      case 'drop':
        return { tool: 'drop', input: { item: arg } };
      case 'inspect':
      case 'x':
        return { tool: 'inspect', input: { target: arg } };
      case 'give': {
        const match = /^(.+?)\s+to\s+(.+)$/.exec(arg);
        return match ? { tool: 'give', input: { item: match[1]!, to: match[2]! } } : 'Give what to whom? (give apple to ada)';
      }
      case 'say': {
        const match = /^to\s+([^:]+):\s*(.+)$/.exec(arg);
        return match ? { tool: 'say', input: { text: match[2]!, to: match[1]!.trim() } } : { tool: 'say', input: { text: arg } };
      }
      case 'write':
        return { tool: 'compose', input: { kind: 'note', subject: arg.replace(/^note\s+(about\s+)?/, '') || 'here' } };
      case 'describe':
        return { tool: 'compose', input: { kind: 'description', subject: arg || 'here' } };
      default:
        return `I don't know how to "${verb}". Type help for the commands.`;
    }
  }

  private show(outcome: CallOutcome, tool = 'look'): void {
    if (!outcome.ok) {
      this.io.write(`You can't: ${outcome.error.message}\n`);
      return;
    }
    // biome-ignore lint/suspicious/noExplicitAny: each tool's output is read by the line that tells it.
    const out = outcome.output as Record<string, any>;
    const line: Record<string, () => string> = {
      go: () => `You walk ${out['direction']} to the ${out['to']?.name}.`,
      take: () => `You take the ${out['item']?.name}.`,
      drop: () => `You put down the ${out['item']?.name}.`,
      give: () => `You give the ${out['item']?.name} to ${out['to']?.name}.`,
      say: () => `You say: "${out['text']}"`,
      who: () =>
        `Here with you: ${(out['characters'] as Array<{ name: string; role?: string }>).map((p) => (p.role ? `${p.name} the ${p.role}` : p.name)).join(', ') || 'nobody'}.`,
    };
    this.io.write(`${line[tool]?.() ?? (typeof out['text'] === 'string' ? out['text'] : 'Done.')}\n`);
  }

  /** What the player's character perceived during the turn, as sentences, in the order it happened. */
  private tellHeard(): void {
    const name = (id: unknown) => this.world.character(String(id))?.name ?? this.world.item(String(id))?.name ?? String(id);
    const place = (id: unknown) => this.world.room(String(id))?.name ?? String(id);
    let here: unknown = this.roomAtLastTurn;
    for (const event of this.heard.splice(0)) {
      const p = event.payload;
      if (event.topic === 'state_change' && p['field'] === 'room' && p['entity'] === this.id) {
        here = p['value'];
        continue;
      }
      if (event.topic === 'agent_message') this.io.write(`${name(p['from'])} says${p['to'] === this.id ? ' to you' : ''}: "${String(p['text'])}"\n`);
      else if (event.topic === 'audio' && p['sound'] === 'voices') this.io.write(`You hear voices from the ${place(p['room'])}.\n`);
      else if (event.topic === 'audio') this.io.write(`Something lands with a ${String(p['sound'])}.\n`);
      else if (event.topic === 'state_change' && p['field'] === 'room') {
        if (p['value'] === here) this.io.write(`${name(p['entity'])} arrives from the ${place(p['previous'])}.\n`);
        else if (p['previous'] === here) this.io.write(`${name(p['entity'])} leaves for the ${place(p['value'])}.\n`);
      } else if (
        event.topic === 'state_change' &&
        p['field'] === 'location' &&
        p['entity'] !== undefined &&
        p['value'] !== this.id &&
        p['previous'] !== this.id
      ) {
        this.io.write(`The ${name(p['entity'])} is now with ${name(p['value'])}.\n`);
      } else if (
        event.topic === 'state_change' &&
        p['field'] === 'location' &&
        p['value'] === this.id &&
        p['previous'] !== undefined &&
        this.world.character(String(p['previous']))
      ) {
        this.io.write(`${name(p['previous'])} gives you the ${name(p['entity'])}.\n`);
      }
    }
    this.roomAtLastTurn = this.world.character(this.id)!.room;
  }
}
