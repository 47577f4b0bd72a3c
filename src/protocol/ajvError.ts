// An ajv error as one readable line naming the failing field: how every schema refusal reads,
// whether the schema is a protocol message's or a tool's.

import { clip, MAX_QUOTED_NAME } from '../base/clip.js';

/** The part of an ajv error this project reads. */
export interface AjvErrorLike {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** One readable line naming the failing field, e.g. `input.target.x must be number`. */
export function describeAjvError(root: string, error: AjvErrorLike | undefined): string {
  if (error === undefined) return `${root} is invalid`;
  const path =
    root +
    error.instancePath.replace(/\/([^/]*)/g, (_m, part: string) => {
      const key = clip(part.replace(/~1/g, '/').replace(/~0/g, '~'), MAX_QUOTED_NAME);
      return /^\d+$/.test(key) ? `[${key}]` : `.${key}`;
    });
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return `${path}.${clip(String(p['missingProperty']), MAX_QUOTED_NAME)} is required`;
    case 'additionalProperties':
      return `${path}.${clip(String(p['additionalProperty']), MAX_QUOTED_NAME)} is not a declared field`;
    case 'unevaluatedProperties':
      return `${path}.${clip(String(p['unevaluatedProperty']), MAX_QUOTED_NAME)} is not a declared field`;
    case 'enum':
      return `${path} must be one of ${JSON.stringify(p['allowedValues'])}`;
    case 'const':
      return `${path} must be ${JSON.stringify(p['allowedValue'])}`;
    default:
      return `${path} ${error.message ?? `fails ${error.keyword}`}`;
  }
}
