// pi agents for the capsule: the pi-peers 1.0 and pi-daemon v2 clients and what they speak. Browser-safe (no Node
// built-ins, no DOM, no `ws`); Node-side pieces (discovery files, agent sockets) live elsewhere.

export { PeersClient } from './peersClient.js';
export { PeersError, PEERS_ERRORS } from './peersError.js';
export { PEERS_ERROR_CODES, PEERS_PROTOCOL } from './peersProtocol.js';
export { DEFAULT_PEERS_LIMITS } from './peersRecords.js';
export { RECONNECT_DEFAULTS } from './reconnect.js';
export { WAIT_DEFAULTS } from './peersWait.js';
export { DaemonClient } from './daemonClient.js';
export { DaemonError, DAEMON_ERRORS, DAEMON_WIRE_ERROR_CODES } from './daemonError.js';
export { DAEMON_DRAIN_TIMEOUT_MS, DAEMON_PROTOCOL_VERSION } from './daemonProtocol.js';
export { DEFAULT_DAEMON_LIMITS } from './daemonRecords.js';
export { STREAM_DEFAULTS } from './daemonStream.js';

export type { DeliverOptions, PeersClientEvents, PeersClientOptions } from './peersClient.js';
// The two clients' base: a value, as its declaration in the clients' types is.
export { RecordClient } from './recordClient.js';
export type { RecordClientEvents, RecordClientOptions, RecordClientState, RecordRead } from './recordClient.js';
export type { StateWait } from './peersProtocol.js';
export type { PeersErrorCode, PeersErrorDetails, PeersLocalErrorCode } from './peersError.js';
export type {
  AgentState,
  DeliveryKind,
  DeliveryRecord,
  GetLastAssistantTextRecord,
  GetStateRecord,
  HelloRecord,
  Peer,
  PeersRequest,
  PeersResponse,
  PeersVersion,
  PeersWireErrorCode,
  VersionRange,
} from './peersProtocol.js';
export type { RecordProblem, RecordProblemKind } from './jsonRecord.js';
export type { ReconnectOptions } from './reconnect.js';
export type { WaitForReplyOptions } from './peersWait.js';
export type { DaemonClientEvents, DaemonClientOptions, ReconnectReport, WakeAnswer, WakeOptions } from './daemonClient.js';
export type { DaemonErrorCode, DaemonErrorDetails, DaemonLocalErrorCode, DaemonWireErrorCode } from './daemonError.js';
export type {
  AttachResult,
  DaemonCommand,
  DaemonEvent,
  DaemonHostInfo,
  DaemonOperation,
  DaemonResponse,
  DaemonSessionSnapshot,
  DaemonWireError,
  ModelPolicy,
  OpenOptions,
  OpenResult,
  ResourcePolicy,
  SessionMode,
  SessionRef,
  WakeResult,
} from './daemonProtocol.js';
export type { StreamReport } from './daemonStream.js';
