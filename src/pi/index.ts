// pi agents for the capsule: the pi-peers 1.0 client and what it speaks. Browser-safe (no Node
// built-ins, no DOM, no `ws`); Node-side pieces (discovery files, agent sockets) live elsewhere.

export { PeersClient } from './peersClient.js';
export { PeersError, PEERS_ERRORS } from './peersError.js';
export { DELIVERY_KINDS, PEERS_ERROR_CODES, PEERS_PROTOCOL, isPeersWireErrorCode, negotiateVersion } from './peersProtocol.js';
export { DEFAULT_PEERS_LIMITS } from './peersRecords.js';
export { RECONNECT_DEFAULTS, backoffDelay } from './peersReconnect.js';
export { WAIT_DEFAULTS } from './peersWait.js';

export type { DeliverOptions, PeersClientEvents, PeersClientOptions, PeersClientState } from './peersClient.js';
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
export type { RecordProblem, RecordProblemKind } from './peersRecords.js';
export type { PeersReconnectOptions } from './peersReconnect.js';
export type { WaitForReplyOptions } from './peersWait.js';
