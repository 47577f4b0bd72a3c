// Character names of the swarm's foragers, shared by the tools, the agents and the bare loop.

/** The character name of forager `index`: `forager-007`. */
export function foragerName(index: number): string {
  return `forager-${String(index).padStart(3, '0')}`;
}
