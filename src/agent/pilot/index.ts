// The pilot: a chat model playing one character over aicc/0.1, through pi-peers, pi-daemon, or a model
// reached directly (ModelBackend: the model's turn handed in as a value). Exported by name; nothing runs on import.
// The pilot's parts (digest, cadence, guards, quotas, briefing) are its own business: only the pilot,
// its two backends, the reply parser and the cost figures are the entry's.

export { Pilot } from './pilot.js';
export { PeersBackend } from './peersBackend.js';
export { DaemonBackend, DAEMON_BACKEND_DEFAULTS } from './daemonBackend.js';
export { parseReply } from './replyParser.js';
export { DECISION_COSTS_KEPT, decisionCostLine } from './costs.js';
export { ModelBackend, MODEL_BACKEND_DEFAULTS, DEFAULT_MODEL_SYSTEM_PROMPT } from '../model/modelBackend.js';
export { ProviderGate, ModelFailure, PROVIDER_GATE_DEFAULTS } from '../model/providerGate.js';

export type { ChatBackend, ChatSignal, SendKind } from './backend.js';
export type { DecisionCost, DecisionCostTotals, DecisionEnd, CostFigure } from './costs.js';
export type { PilotOptions, PilotStatus, PilotEvents, PauseReason } from './pilot.js';
export type { PeersClientLike, PeersDeliveryOptions, PeersStateLike, PeersBackendOptions } from './peersBackend.js';
export type { DaemonClientLike, DaemonBackendOptions } from './daemonBackend.js';
export type { CharacterBrief, BriefingOptions } from './briefing.js';
export type { DigestOptions, AskedCall } from './digest.js';
export type { ParsedCall, ParsedReply, ParseOptions, Unreadable, Slip } from './replyParser.js';
export type { CadenceOptions } from './cadence.js';
export type { GuardOptions } from './guards.js';
export type { PilotStats } from './stats.js';
export type { QuotaLeft } from './quotas.js';
export type { ModelBackendOptions, ModelToolClient } from '../model/modelBackend.js';
export type { ProviderGateOptions, ModelFailureKind } from '../model/providerGate.js';
export type {
  ModelTurn,
  ModelTurnOptions,
  ModelRequest,
  ModelReply,
  ModelMessage,
  ModelTool,
  ModelToolCall,
  ModelToolResult,
  ModelUserMessage,
  ModelText,
  ModelThinking,
  ModelUsage,
  ModelStop,
} from '../model/modelPort.js';
export type { ConversationOptions } from '../model/conversation.js';
