// The shapes of pi-daemon 0.3.3's answers and events, as the DaemonSimulator writes them: the
// handshake, the host status, a session snapshot, a wake ticket, and the events of one model turn.
// Each was read off the real daemon (test/e2e/daemon/simulator.test.ts compares them step by step);
// fields the simulator has no model of (memory, metrics, recovery) are left out, and pi's usage counts
// too unless a scripted turn gives them.

export const SIM_PACKAGE_VERSION = '0.3.3-sim';

/** The operations the handshake lists, in pi-daemon's order. */
const OPERATIONS = ['handshake', 'open', 'wake', 'steer', 'followUp', 'status', 'abort', 'attach', 'detach', 'close', 'drain'];

/** The version pi-daemon 0.3.3 writes on refusals made before it reads the command's own. */
export const HOST_DEFAULT_VERSION = '1.0';

/** A session as `status`, `open` and a wake's answer describe it. */
export interface SnapshotSource {
  sessionId: string;
  generation: number;
  state: 'idle' | 'running';
  sequence: number;
  /** Turns admitted and not yet answered, the running one included. */
  pendingTurns: number;
  lastUsedAt: number;
  activeRequestId: string | undefined;
  model: { provider: string; id: string };
}

export function snapshot(session: SnapshotSource, now: number): Record<string, unknown> {
  return {
    sessionId: session.sessionId,
    generation: session.generation,
    state: session.state,
    sequence: session.sequence,
    // Observed: the running turn is not counted; a wake's own answer still counts it (it is released after).
    queuedTurns: Math.max(0, session.pendingTurns - (session.state === 'running' ? 1 : 0)),
    lastUsedAt: new Date(session.lastUsedAt).toISOString(),
    idleForMs: session.state === 'idle' ? Math.max(0, now - session.lastUsedAt) : 0,
    ...(session.activeRequestId !== undefined && { activeRequestId: session.activeRequestId }),
    model: { ...session.model },
  };
}

export interface HostSource {
  hostInstanceId: string;
  ready: boolean;
  draining: boolean;
  startedAt: number;
  limits: { maxSessions: number; maxConcurrentTurns: number; maxSessionQueueDepth: number };
  sessions: SnapshotSource[];
  retainedSessions: number;
  dormantSessions: number;
}

/** `status` without a sessionId. `ready` is false while draining, as the real host says. */
export function hostStatus(host: HostSource, now: number): Record<string, unknown> {
  return {
    hostInstanceId: host.hostInstanceId,
    ready: host.ready && !host.draining,
    durable: true,
    draining: host.draining,
    limits: { ...host.limits },
    activeTurns: host.sessions.filter((s) => s.state === 'running').length,
    queuedTurns: host.sessions.reduce((sum, s) => sum + Math.max(0, s.pendingTurns - (s.state === 'running' ? 1 : 0)), 0),
    startedAt: new Date(host.startedAt).toISOString(),
    uptimeMs: Math.max(0, now - host.startedAt),
    retainedSessions: host.retainedSessions,
    dormantSessions: host.dormantSessions,
    sessions: [...host.sessions].sort((a, b) => a.sessionId.localeCompare(b.sessionId)).map((s) => snapshot(s, now)),
  };
}

export interface ConnectionLimits {
  maxInFlightRequestsPerConnection: number;
  maxLineBytes: number;
}

/**
 * `handshake` data. Observed: `protocolVersion` says "1.0" even to a v2 request, and only a v2
 * request is told `supportedProtocolVersions` (and the v2 capabilities). The simulator says it has
 * no host tool adapter: it has none (the real one has six file-system tools).
 */
export function handshakeData(host: HostSource, limits: ConnectionLimits, supported: string[], v2: boolean, now: number): Record<string, unknown> {
  return {
    protocolVersion: HOST_DEFAULT_VERSION,
    ...(v2 && { supportedProtocolVersions: [...supported] }),
    packageVersion: SIM_PACKAGE_VERSION,
    nodeVersion: 'simulated',
    capabilities: {
      operations: [...OPERATIONS],
      transport: 'unix-ndjson',
      durable: true,
      ...(v2 && { hostToolAdapter: false, configuredOpen: true, sessionDir: true }),
    },
    limits: {
      maxConnections: 64,
      maxInFlightRequestsPerConnection: limits.maxInFlightRequestsPerConnection,
      maxLineBytes: limits.maxLineBytes,
      maxEventBytes: limits.maxLineBytes,
      maxResponseBytes: limits.maxLineBytes,
      multiplexer: { ...host.limits },
    },
    host: hostStatus(host, now),
  };
}

/** A durable session's answer to a wake without waitForTerminal: the ticket it can be followed by. */
export function wakeTicket(
  ticket: { n: number; requestId: string; idempotencyKey: string; sessionId: string; generation: number },
  now: number,
): Record<string, unknown> {
  const at = new Date(now).toISOString();
  const ticketId = `ticket-sim-${ticket.n}`;
  return {
    ticket: {
      ticketId,
      requestId: ticket.requestId,
      idempotencyKey: ticket.idempotencyKey,
      operation: 'prompt',
      state: 'queued',
      submittedAt: at,
      updatedAt: at,
      sessionId: ticket.sessionId,
      generation: ticket.generation,
      links: { self: `/v1/ticket/${ticketId}`, session: `/v1/session/${ticket.sessionId}` },
    },
  };
}

/** An event of a turn: its name and data (undefined: none), in the order pi-daemon sends them. */
export type TurnEvent = [event: string, data: unknown];

export function userMessage(prompt: string, now: number): Record<string, unknown> {
  return { role: 'user', content: [{ type: 'text', text: prompt }], timestamp: now };
}

/** The events a turn begins with, as it starts (promptAccepted comes at admission, before it). */
export function turnStartEvents(prompt: string, now: number): TurnEvent[] {
  const message = userMessage(prompt, now);
  return [
    ['agentStart', {}],
    ['turnStart', undefined],
    ['messageStart', { message }],
    ['messageEnd', { message }],
  ];
}

/**
 * The events a turn ends with: the assistant's message streamed (a text_start, one text_delta —
 * the stub model sends a reply in one chunk unless told otherwise — and a text_end; none for an
 * empty text), then the turn's and the agent's ends.
 */
export function turnEndEvents(
  text: string,
  model: { provider: string; id: string },
  now: number,
  aborted: boolean,
  usage?: Record<string, unknown>,
): TurnEvent[] {
  const message = {
    role: 'assistant',
    content: text === '' ? [] : [{ type: 'text', text }],
    provider: model.provider,
    model: model.id,
    ...(usage !== undefined && { usage }),
    stopReason: aborted ? 'aborted' : 'stop',
    timestamp: now,
  };
  const updates: TurnEvent[] =
    text === ''
      ? []
      : [
          ['messageUpdate', { assistantMessageEvent: { type: 'text_start', contentIndex: 0, partial: message } }],
          ['messageUpdate', { assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: text, partial: message } }],
          ['messageUpdate', { assistantMessageEvent: { type: 'text_end', contentIndex: 0, content: text, partial: message } }],
        ];
  return [
    ['messageStart', { message }],
    ...updates,
    ['messageEnd', { message }],
    ['turnEnd', { message, toolResults: [] }],
    ['agentSettled', undefined],
    ['agentEnd', {}],
    ['sessionIdle', {}],
  ];
}
