// Types of the generated validators (see scripts/generate-validators.ts).
import type { AjvErrorLike } from '../../protocol/ajvError.js';

export interface GeneratedValidator {
  (data: unknown): boolean;
  errors?: AjvErrorLike[] | null;
}

export declare const validateSessionInit: GeneratedValidator;
export declare const validateSessionResume: GeneratedValidator;
export declare const validateSessionClose: GeneratedValidator;
export declare const validateManifestRequest: GeneratedValidator;
export declare const validateToolCall: GeneratedValidator;
export declare const validateToolResult: GeneratedValidator;
export declare const validateEvent: GeneratedValidator;
export declare const validateErrorMessage: GeneratedValidator;
export declare const validateHeartbeat: GeneratedValidator;
export declare const validateModelDecl: GeneratedValidator;
