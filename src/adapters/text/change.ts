// What a TextWorld tells its listeners after each change. Ids only, so a change is plain JSON that
// a binding can forward, a recorder can store and a test can compare.

/** A character went through an exit. */
export interface MovedChange {
  kind: 'moved';
  character: string;
  /** Room ids. */
  from: string;
  to: string;
  direction: string;
}

/** An item changed place: taken (room → character), dropped (character → room) or given. */
export interface ItemMovedChange {
  kind: 'item_moved';
  item: string;
  /** Room or character ids. */
  from: string;
  to: string;
  /** The character who moved it. */
  by: string;
}

/** A character spoke, to the room or to one character in it (who is still overheard). */
export interface SaidChange {
  kind: 'said';
  character: string;
  room: string;
  text: string;
  to?: string;
}

/** A new item came into the world (from a generator, or the game). */
export interface ItemAddedChange {
  kind: 'item_added';
  item: string;
  /** Room or character id. */
  location: string;
}

export type WorldChange = MovedChange | ItemMovedChange | SaidChange | ItemAddedChange;

export type WorldListener = (change: WorldChange) => void;
