// Perception written once for every engine: who and what is near, nearest first and bounded, over a
// small port each adapter implements on its own world — Phaser's entity registry, a PixiJS binding,
// Three's registered objects, a text world's rooms. The port says what can be perceived and how far
// one body is from another in that engine's terms (centre to centre on a 2D plane, the gap between
// outlines in Three, rooms apart in text); sight is the engine's own when it has one (a segment past
// rectangles in 2D, a raycast in Three) and stays out of the port's required part.

/** What perception asks of an engine's world. `B` is its body: an entity, a registered object, a character. */
export interface PerceptionPort<B> {
  /** What can be perceived now: live characters and objects (scenery, which only blocks sight, stays out). */
  bodies(): Iterable<B>;
  idOf(body: B): string;
  kindOf(body: B): string;
  /** Distances from `from`, its position read once: the function is called for every other body. */
  distancesFrom(from: B): (to: B) => number;
}

/** A body perception found, with its distance from the one who looked. */
export interface Found<B> {
  body: B;
  distance: number;
}

/** The bodies a query found, nearest first, and how many more it admitted than it could return. */
export interface Survey<B> {
  found: Found<B>[];
  more: number;
}

/**
 * The bodies other than `from` (by id; only of `kind`, when given) that `measure` admits — it gives a body's
 * distance, or undefined to leave it out — nearest first (ties by id, so answers are stable), at most
 * `limit` of them, and how many more were admitted. Only the nearest `limit` are kept as it goes, so
 * a crowd costs no sort. A field of view is a `measure` that leaves out what lies outside it.
 */
export function survey<B>(port: PerceptionPort<B>, from: B, limit: number, kind: string | undefined, measure: (body: B) => number | undefined): Survey<B> {
  const found: Array<Found<B> & { id: string }> = [];
  // By id: a port may hand out fresh records (a text world's are copies), never the one it was given.
  const self = port.idOf(from);
  let admitted = 0;
  for (const body of port.bodies()) {
    const id = port.idOf(body);
    if (id === self || (kind !== undefined && port.kindOf(body) !== kind)) continue;
    const distance = measure(body);
    if (distance === undefined) continue;
    admitted++;
    if (limit < 1) continue;
    if (found.length === limit) {
      if (!before(distance, id, found[limit - 1]!)) continue;
      found.pop();
    }
    const candidate = { body, distance, id };
    let at = found.length;
    found.push(candidate);
    for (; at > 0 && before(distance, id, found[at - 1]!); at--) found[at] = found[at - 1]!;
    found[at] = candidate;
  }
  return { found: found.map(({ body, distance }) => ({ body, distance })), more: admitted - found.length };
}

/** The bodies within `radius` of `from` (by the port's distance), nearest first, at most `limit`: `survey` with a radius. */
export function within<B>(port: PerceptionPort<B>, from: B, radius: number, limit: number, kind?: string): Survey<B> {
  const distanceTo = port.distancesFrom(from);
  return survey(port, from, limit, kind, (body) => {
    const distance = distanceTo(body);
    return distance <= radius ? distance : undefined;
  });
}

/** Whether a candidate goes before `other`: nearer, or as near with a smaller id. */
function before(distance: number, id: string, other: { distance: number; id: string }): boolean {
  return distance < other.distance || (distance === other.distance && id < other.id);
}
