// The aicc/0.1 conformance suite: leveled checks any bridge can be run against (docs/CONFORMANCE.md).

export { runConformance, formatConformance, CHECKS } from './run.js';
export { capsuleBridge, webSocketBridge } from './bridge.js';
export type { ConformanceReport, CheckResult, ConformanceOptions } from './run.js';
export type { ConformanceBridge, BridgeFactory, OpenOptions, CapsuleBridgeOptions, WebSocketBridgeOptions } from './bridge.js';
export type { Check, Level, Need } from './check.js';
