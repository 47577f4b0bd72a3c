// Tells what happens in the village as readable lines, from the world's own changes and from the
// calls the capsule refused. Only simulated time appears, so the same seed tells the same story.

import type { WorldChange } from '../../adapters/text/change.js';
import type { TextWorld } from '../../adapters/text/world.js';
import type { Capsule } from '../../runtime/capsule.js';

export class Narrator {
  readonly lines: string[] = [];
  private readonly offs: Array<() => void>;

  constructor(
    private readonly capsule: Capsule,
    private readonly world: TextWorld,
  ) {
    this.offs = [
      world.on((change) => this.tell(this.describe(change))),
      capsule.on('call', (record) => {
        const { error, output } = record.result;
        if (record.tool === 'compose' && output?.['kind'] === 'description') {
          const subject = output['subject'] as { name?: string } | undefined;
          this.tell(`${this.name(record.character)} jots down a description of the ${subject?.name ?? 'place'}.`);
        }
        if (error === undefined || record.result.meta.source === 'cache') return;
        this.tell(`(${this.name(record.character)} tries to ${record.tool}, but: ${error.message})`);
      }),
    ];
  }

  /** Adds a line of the narrator's own, at the current tick. */
  tell(text: string): void {
    this.lines.push(`[${String(this.capsule.tick).padStart(4, '0')}] ${text}`);
  }

  stop(): void {
    for (const off of this.offs.splice(0)) off();
  }

  private describe(change: WorldChange): string {
    switch (change.kind) {
      case 'moved':
        return `${this.name(change.character)} walks ${change.direction} from the ${this.place(change.from)} to the ${this.place(change.to)}.`;
      case 'item_moved': {
        const item = this.item(change.item);
        const by = this.name(change.by);
        if (this.world.character(change.to) !== undefined && this.world.character(change.from) !== undefined)
          return `${by} gives the ${item} to ${this.name(change.to)}.`;
        if (change.to === change.by) return `${by} picks up the ${item} in the ${this.place(change.from)}.`;
        return `${by} puts down the ${item} in the ${this.place(change.to)}.`;
      }
      case 'item_added':
        return `${this.name(change.location)} writes a ${this.item(change.item)}.`;
      case 'said':
        return change.to === undefined
          ? `${this.name(change.character)} says: "${change.text}"`
          : `${this.name(change.character)} says to ${this.name(change.to)}: "${change.text}"`;
    }
  }

  private name(id: string): string {
    return this.world.character(id)?.name ?? id;
  }

  private place(id: string): string {
    return this.world.room(id)?.name ?? id;
  }

  private item(id: string): string {
    return this.world.item(id)?.name ?? id;
  }
}
