// The Node gateway that joins browser pages to the pi coding agent: over pi-peers 1.0, relaying to
// pi agents found in $PI_PEERS_HOME or hosting `pi --mode rpc` itself; or over pi-daemon protocol
// v2, relaying to a pi daemon's Unix socket; or driving the characters pages lend with its own model.

export { startGateway, GATEWAY_HOST, DEFAULT_MAX_PAYLOAD } from './server.js';
export { PiHost, HOP_LIMIT } from './piHost.js';
export { PiProcess, PI_LOCKDOWN_FLAGS } from './piProcess.js';
export { discoverAgents, findAgent } from './discovery.js';
export { SUBPROTOCOL, DAEMON_SUBPROTOCOL, KEY_PREFIX, CLOSE, MIN_KEY_LENGTH } from './access.js';
export { DAEMON_HIGH_WATER_BYTES, DAEMON_MAX_IN_FLIGHT, DAEMON_MAX_BACKLOG, DAEMON_MAX_BACKLOG_BYTES } from './daemonRelay.js';
export { MAX_SESSIONS_PER_PAGE } from './sessionOwners.js';
export { GATEWAY_INSTANCE_ID, UNKNOWN_REQUEST_ID } from './daemonRecords.js';
export { PEERS_PROTOCOL, negotiateVersion } from '../../pi/peersProtocol.js';
export { DAEMON_PROTOCOL_VERSION } from '../../pi/daemonProtocol.js';
export { RunTracker } from './runTracker.js';
export { MODEL_GATEWAY_CONCURRENCY } from './modelDrivers.js';
export { DeliveryLedger, DEDUPE_TTL_MS } from './deliveryLedger.js';

export type { Gateway, GatewayOptions, GatewayTarget } from './server.js';
export type { ModelTarget } from './modelDrivers.js';
export type { PiHostOptions } from './piHost.js';
export type { PiProcessOptions, PiEvent, RpcResponse } from './piProcess.js';
export type { AgentEntry, Discovery, DiscoveryOptions } from './discovery.js';
export type { RelayOptions } from './relay.js';
export type { DaemonRelayOptions } from './daemonRelay.js';
export type { DaemonErrorResponse, DaemonRelayErrorCode, DenialRule } from './daemonRecords.js';
export type { HostSessionOptions } from './hostSession.js';
export type { Response } from './records.js';
export type { AgentState, HelloRecord, Peer, PeersWireErrorCode, VersionRange } from '../../pi/peersProtocol.js';
export type { Dialect, RunTrackerOptions } from './runTracker.js';
