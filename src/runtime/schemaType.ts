// The TypeScript type of the values a JSON Schema literal admits, so that a tool's handler is typed by
// the schema it registers (`input_schema: { … } as const`, or a literal inline: registerTool infers it
// as const). Written here rather than taken from json-schema-to-ts: the tool schemas agents read are
// small and plain, this covers them in a few lines, and the package keeps no dependency for types.
//
// Covered: type (one or a list), const, enum, properties + required, additionalProperties: false,
// items (one schema), anyOf / oneOf (each branch merged with the keywords beside it). A schema only
// known at run time (typed JsonObject) gives `any`, as before: its handler states its input type
// itself. Anything else gives `unknown`.

import type { JsonObject } from '../protocol/messages.js';

/** A JSON Schema as TypeScript infers a literal of it (readonly, `as const` or a const type parameter). */
export type SchemaLiteral = { readonly [keyword: string]: unknown };

/** The values `S` admits; `any` for a schema whose literal type is unknown (a plain JsonObject). */
// biome-ignore lint/suspicious/noExplicitAny: an unknown schema admits whatever the handler declares.
export type FromSchema<S> = JsonObject extends S ? any : ValueOf<S>;

type ValueOf<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: ReadonlyArray<infer E> }
    ? E
    : S extends { readonly anyOf: ReadonlyArray<infer A> }
      ? EachValue<A, Omit<S, 'anyOf'>>
      : S extends { readonly oneOf: ReadonlyArray<infer A> }
        ? EachValue<A, Omit<S, 'oneOf'>>
        : S extends { readonly type: ReadonlyArray<infer T> }
          ? EachType<T, S>
          : S extends { readonly type: infer T }
            ? OfType<T, S>
            : S extends { readonly properties: object }
              ? ObjectOf<S>
              : unknown;

/** Each branch with the keywords beside it: `{ type: 'object', properties, oneOf: [{ required: ['a'] }, …] }`. */
type EachValue<A, Beside> = A extends unknown ? ValueOf<Beside & A> : never;
type EachType<T, S> = T extends unknown ? OfType<T, S> : never;

type OfType<T, S> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? Array<ValueOf<I>>
            : unknown[]
          : T extends 'object'
            ? ObjectOf<S>
            : unknown;

type RequiredOf<S> = S extends { readonly required: ReadonlyArray<infer R> } ? R : never;

/** Declared properties, the required ones required; undeclared ones are not typed (read them as unknown). */
type ObjectOf<S> = S extends { readonly properties: infer P }
  ? Flat<
      { -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: ValueOf<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: ValueOf<P[K]>;
      }
    >
  : { [key: string]: unknown };

type Flat<T> = { [K in keyof T]: T[K] } & {};
