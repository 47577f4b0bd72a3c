// The schema pieces every adapter builds its tools from: an object schema whose literal type types
// the handler, an empty input, and points in 2D and 3D. One copy, so that the adapters' schemas
// (and the validators generated from them) agree on what an object, a point or "no input" is.

import type { SchemaLiteral } from '../../runtime/schemaType.js';

/** An object schema whose `required` properties (all, unless named) must be given; its literal type types the handler. */
export function objectOf<const P extends Properties>(properties: P): { type: 'object'; properties: P; required: Array<keyof P & string> };
export function objectOf<const P extends Properties, const R extends ReadonlyArray<keyof P & string>>(
  properties: P,
  required: R,
): { type: 'object'; properties: P; required: R };
export function objectOf(properties: Properties, required: readonly string[] = Object.keys(properties)) {
  return { type: 'object', properties, required };
}

type Properties = { readonly [name: string]: SchemaLiteral };

/** A tool that takes no input: `{}`. */
export const NO_INPUT = { type: 'object', properties: {} } as const;

/** A point on a 2D world's plane (Phaser: pixels, y down). */
export const POINT_2D_SCHEMA = objectOf({ x: { type: 'number' }, y: { type: 'number' } });

/** A point in a 3D world (Three: y up). */
export const POINT_3D_SCHEMA = objectOf({ x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } });
