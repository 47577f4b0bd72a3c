// What a session is given when its agent declares nothing, and how its grants are copied: frozen
// objects shared by every such session, so thousands of sessions cost nothing for them.

import { TOPICS, type AgentModel, type Capabilities } from '../protocol/messages.js';

/** What a session's agent is taken to be when it declares nothing: one frozen object for all. */
export const DEFAULT_AGENT_MODEL: AgentModel = Object.freeze({ class: 'cloud_medium' });

/** Every topic, as a manifest lists a session subscribed to all of them. */
export const ALL_TOPICS_LIST = Object.freeze([...TOPICS]) as unknown as string[];

/** The grants of a session given none: one frozen object for them all. */
const NO_CAPABILITIES: Capabilities = Object.freeze({
  sensors: Object.freeze([]) as unknown as string[],
  actuators: Object.freeze([]) as unknown as string[],
  generators: Object.freeze([]) as unknown as string[],
});

/** A session's grants: copied, so the game's later edits do not change them; none given costs nothing. */
export function grants(given: Partial<Capabilities> | undefined): Capabilities {
  return given === undefined
    ? NO_CAPABILITIES
    : { sensors: [...(given.sensors ?? [])], actuators: [...(given.actuators ?? [])], generators: [...(given.generators ?? [])] };
}
