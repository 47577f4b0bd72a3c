// The JSON Schema keywords a walk over a schema must tell apart, shared by every walker (the
// validators' shape keys, the standalone compiler's annotation stripping): which keywords never
// change a verdict, which map names to schemas, and which hold schemas.

/** Never change a verdict (and may differ with options: descriptions name a radius, templates…). */
export const ANNOTATIONS: ReadonlySet<string> = new Set(['description', 'title', 'examples', '$comment']);

/** Keywords whose value maps names (data) to schemas. */
export const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** Keywords whose value is a schema or an array of schemas. */
export const SUBSCHEMAS: ReadonlySet<string> = new Set([
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contentSchema',
]);
