// aicc-capsule/core: the runtime without the ajv compiler. Tool schemas are checked by the
// validators you pass: precompiledValidators(…) from aicc-capsule/precompiled keeps the compiler out
// of your bundle.
//
// This file is the public surface of the runtime, chosen name by name: the root entry (index.ts) is
// this list plus a createCapsule that compiles schemas with ajv. test/api/apiReport.test.ts pins
// every entry's names; a change here is a change to the package's API, reviewed as one.

// ── values ───────────────────────────────────────────────────────────────────────────────────
export { createCapsule } from './runtime/capsule.js';
export { ManualClock, realClock } from './base/clock.js';
export { startDriver } from './runtime/drivers.js';
export { CapsuleError, ToolError } from './base/errors.js';
export { defineTool } from './runtime/tool.js';
export { decisionBudgets } from './runtime/decisionBudget.js';
export { jsonCodec } from './protocol/codec.js';
export { binaryCodec } from './protocol/binaryCodec.js';
export { objectCodec } from './protocol/objectCodec.js';
export { batchedFraming } from './protocol/batchedFraming.js';
export { createMemoryLinkPair } from './links/memory.js';
export { connectWebSocket, webSocketLink } from './links/websocket.js';
export { AgentClient } from './agent/agentClient.js';
export { connectInProcess } from './agent/inProcess.js';
export { ScriptedAgent } from './agent/scripted.js';

// ── types ────────────────────────────────────────────────────────────────────────────────────
export type * from './coreTypes.js';
