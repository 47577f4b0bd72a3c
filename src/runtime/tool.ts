// The tool catalog: what a game registers from its engine hooks, each tool with its schemas
// compiled once, and the handle that enables, disables, updates or removes it.

import { CapsuleError } from '../base/errors.js';
import type { JsonObject, Meta, Topic, ToolClass, ToolDescriptor } from '../protocol/messages.js';
import type { FromSchema, SchemaLiteral } from './schemaType.js';
import { isStandardSchema, jsonSchemaOf, standardValidator, type StandardInput, type StandardOutput, type StandardSchemaV1 } from './standardSchema.js';
import type { SchemaValidator, ValidatorFactory } from './validator.js';

/** What a handler is told about the call it serves. */
export interface ToolContext {
  readonly sessionId: string;
  readonly character: string;
  readonly callId: string;
  readonly tick: number;
  /** Aborted when the call times out or its session closes. */
  readonly signal: AbortSignal;
  /** Sends an event to the calling session alone, whatever its subscriptions (a direct response). */
  emit(topic: Topic, payload: JsonObject, meta?: Meta): void;
}

// biome-ignore lint/suspicious/noExplicitAny: a handler's input defaults to what its schema admits, unknown here.
export type ToolHandler<I = any, O = JsonObject> = (input: I, context: ToolContext) => O | Promise<O>;

/**
 * A tool as the game registers it: the manifest descriptor, its handler, and what checks its calls.
 * `I` and `O` type the handler; `capsule.registerTool` infers them from the schemas or validators.
 */
// biome-ignore lint/suspicious/noExplicitAny: as ToolHandler.
export interface ToolDefinition<I = any, O = JsonObject> extends ToolDescriptor {
  /**
   * A Standard Schema validator (zod, valibot…) that checks the input in place of `input_schema`; its
   * output is what the handler gets. It answers synchronously. `strict_input` is then its business.
   */
  input_validator?: StandardSchemaV1<unknown, I>;
  /** The same for the handler's output, checked before it goes to the agent. */
  output_validator?: StandardSchemaV1;
  /** How long the handler may take, on the capsule's clock. Default: the capsule's `toolTimeoutMs`. */
  timeout_ms?: number;
  handler: ToolHandler<I, O>;
}

/**
 * What `registerTool` takes: a ToolDefinition whose JSON Schemas may be left out where its
 * validators convert themselves to JSON Schema (zod 4 does; agents read the converted one).
 */
// biome-ignore lint/suspicious/noExplicitAny: as ToolHandler.
export type ToolSpec<I = any, O = JsonObject> = Omit<ToolDefinition<I, O>, 'input_schema' | 'output_schema'> & {
  input_schema?: JsonObject;
  output_schema?: JsonObject;
};

/**
 * The definition as `registerTool` types it: the handler's input from `input_validator`'s output
 * type or from the values `input_schema` admits (a literal; written inline it is read as const), its
 * output likewise; a schema or a validator for each, at least.
 */
export type TypedToolSpec<IS, OS, IV, OV, R = OutputOf<OS, OV>> = Omit<
  ToolSpec,
  'input_schema' | 'output_schema' | 'input_validator' | 'output_validator' | 'handler'
> &
  CheckedBy<'input', IS, IV> &
  CheckedBy<'output', OS, OV> & { handler: ToolHandler<InputOf<IS, IV>, R> };

/**
 * What a handler may return for an output type: the same with its arrays readonly. registerTool
 * reads a handler's return as const (so `{ kind: 'item' }` keeps its literal even from a handler
 * that takes no input, which TypeScript types before it knows the output schema), and a const
 * array is readonly.
 */
export type Returnable<T> = T extends ReadonlyArray<infer E> ? ReadonlyArray<Returnable<E>> : T extends object ? { [K in keyof T]: Returnable<T[K]> } : T;

/**
 * A tool definition made apart from `registerTool` (a factory, a module of tools), its handler typed
 * as registerTool types it: by the literal `input_schema` and `output_schema`, or by the validators.
 * Both JSON Schemas are given, for a ToolDefinition carries what agents read. Returns the definition
 * as it is; to name the output type, annotate the handler's return (it must fit the output schema).
 */
export function defineTool<
  const IS extends SchemaLiteral,
  const OS extends SchemaLiteral,
  IV extends StandardSchemaV1 | undefined = undefined,
  OV extends StandardSchemaV1 | undefined = undefined,
  const R extends Returnable<OutputOf<OS, OV>> = Returnable<OutputOf<OS, OV>>,
>(definition: TypedToolSpec<IS, OS, IV, OV, R> & { input_schema: IS; output_schema: OS }): ToolDefinition<InputOf<IS, IV>, OutputOf<OS, OV>> {
  return definition as unknown as ToolDefinition<InputOf<IS, IV>, OutputOf<OS, OV>>;
}

type CheckedBy<K extends 'input' | 'output', S, V> =
  | ({ [P in `${K}_schema`]: S } & { [P in `${K}_validator`]?: V })
  | ({ [P in `${K}_schema`]?: S } & { [P in `${K}_validator`]: V });
type InputOf<IS, IV> = [IV] extends [StandardSchemaV1] ? StandardOutput<IV> : FromSchema<IS>;
export type OutputOf<OS, OV> = [OV] extends [StandardSchemaV1] ? StandardInput<OV> : FromSchema<OS>;

export interface ToolHandle {
  readonly id: string;
  readonly enabled: boolean;
  enable(): void;
  disable(): void;
  /** Replaces any of the definition's fields but the id; schemas are compiled again. */
  update(changes: Partial<Omit<ToolDefinition, 'id'>>): void;
  /** Takes the tool out of the catalog. Safe to call twice; never touches a later tool of the same id. */
  remove(): void;
}

/** A registered tool, as the call pipeline reads it. */
export interface RegisteredTool {
  readonly definition: ToolDefinition;
  readonly descriptor: ToolDescriptor;
  readonly enabled: boolean;
  readonly validateInput: SchemaValidator;
  readonly validateOutput: SchemaValidator;
}

const TOOL_ID = /^[a-z][a-z0-9_]*$/;
const CLASSES: readonly ToolClass[] = ['sensor', 'actuator', 'generator'];

export class ToolRegistry {
  private readonly tools = new Map<string, MutableTool>();
  private descriptors: ToolDescriptor[] | undefined;
  /** Grows with every change to the catalog; a session remembers the version it last saw. */
  version = 0;

  constructor(
    private readonly validators: ValidatorFactory,
    private readonly onChange: () => void,
  ) {}

  get(id: string): RegisteredTool | undefined {
    return this.tools.get(id);
  }

  /** The manifest's `tools`: every enabled tool, in registration order. Cached until a change. */
  enabledDescriptors(): ToolDescriptor[] {
    this.descriptors ??= [...this.tools.values()].filter((tool) => tool.enabled).map((tool) => tool.descriptor);
    return this.descriptors;
  }

  register(spec: ToolSpec): ToolHandle {
    checkDefinition(spec);
    // The schemas agents read: those given, or those the validators convert themselves to.
    const definition = { ...spec, input_schema: schemaOf(spec, 'input'), output_schema: schemaOf(spec, 'output') } as ToolDefinition;
    if (this.tools.has(definition.id)) {
      throw new CapsuleError('AICC_DUPLICATE_TOOL', `registerTool: a tool "${definition.id}" is already registered; remove it first or pick another id`);
    }
    const tool = this.build(definition, true);
    this.tools.set(definition.id, tool);
    this.changed();
    return this.handleFor(definition.id);
  }

  private handleFor(id: string): ToolHandle {
    // A handle is its registration's: once that is removed, the handle neither reaches nor removes a
    // later tool registered under the same id (a game's own, after an adapter's was taken off).
    let mine = this.tools.get(id);
    const live = (method: string): MutableTool => {
      const tool = this.tools.get(id);
      if (tool === undefined || tool !== mine)
        throw new CapsuleError('AICC_TOOL_REMOVED', `ToolHandle.${method}: tool "${id}" was removed; register it again to use it`);
      return tool;
    };
    const setEnabled = (method: string, enabled: boolean): void => {
      const tool = live(method);
      if (tool.enabled === enabled) return;
      tool.enabled = enabled;
      this.changed();
    };
    return {
      id,
      get enabled() {
        return live('enabled').enabled;
      },
      enable: () => setEnabled('enable', true),
      disable: () => setEnabled('disable', false),
      update: (changes) => {
        const tool = live('update');
        if ('id' in changes && (changes as { id?: unknown }).id !== id) {
          throw new CapsuleError('AICC_INVALID_TOOL', `ToolHandle.update: the id of "${id}" cannot change; remove it and register a new tool`);
        }
        const spec: ToolSpec = { ...tool.definition, ...changes, id };
        checkDefinition(spec);
        mine = this.build({ ...spec, input_schema: schemaOf(spec, 'input'), output_schema: schemaOf(spec, 'output') } as ToolDefinition, tool.enabled);
        this.tools.set(id, mine);
        this.changed();
      },
      remove: () => {
        // Idempotent: a tool removed already (through this handle) has nothing left to undo.
        if (mine === undefined || this.tools.get(id) !== mine) return;
        mine = undefined;
        this.tools.delete(id);
        this.changed();
      },
    };
  }

  private changed(): void {
    this.descriptors = undefined;
    this.version++;
    this.onChange();
  }

  private build(definition: ToolDefinition, enabled: boolean): MutableTool {
    const { id, input_validator: inputValidator, output_validator: outputValidator } = definition;
    const strict = definition.strict_input ?? false;
    return {
      definition,
      descriptor: describe(definition),
      enabled,
      validateInput:
        inputValidator !== undefined
          ? standardValidator(inputValidator, id, 'input')
          : this.validators.compile(definition.input_schema, { tool: id, kind: 'input', strict }),
      validateOutput:
        outputValidator !== undefined
          ? standardValidator(outputValidator, id, 'output')
          : this.validators.compile(definition.output_schema, { tool: id, kind: 'output', strict: false }),
    };
  }
}

interface MutableTool extends RegisteredTool {
  enabled: boolean;
}

/** The JSON Schema agents read: the one given, or the one the validator converts itself to (checkDefinition saw one exists). */
function schemaOf(spec: ToolSpec, kind: 'input' | 'output'): JsonObject {
  return spec[`${kind}_schema`] ?? jsonSchemaOf(spec[`${kind}_validator`]!, kind)!;
}

function describe(definition: ToolDefinition): ToolDescriptor {
  const { id, class: toolClass, description, input_schema, output_schema } = definition;
  const descriptor: ToolDescriptor = { id, class: toolClass, description, input_schema, output_schema };
  if (definition.limits !== undefined) descriptor.limits = { ...definition.limits };
  if (definition.requires_capability !== undefined) descriptor.requires_capability = definition.requires_capability;
  if (definition.strict_input !== undefined) descriptor.strict_input = definition.strict_input;
  return descriptor;
}

function checkDefinition(definition: ToolSpec): void {
  const where = `registerTool(${JSON.stringify(definition?.id ?? null)})`;
  const fail = (what: string): never => {
    throw new CapsuleError('AICC_INVALID_TOOL', `${where}: ${what}`);
  };
  if (definition === null || typeof definition !== 'object') fail('expected a tool definition object');
  if (typeof definition.id !== 'string' || !TOOL_ID.test(definition.id)) fail('id must be lowercase snake_case (^[a-z][a-z0-9_]*$)');
  if (!CLASSES.includes(definition.class)) fail(`class must be one of ${CLASSES.join(', ')}, got ${JSON.stringify(definition.class)}`);
  if (typeof definition.description !== 'string' || definition.description.length === 0) fail('description must be a non-empty string the agent can read');
  for (const kind of ['input', 'output'] as const) {
    const schema = definition[`${kind}_schema`];
    const validator = definition[`${kind}_validator`];
    if (validator !== undefined && !isStandardSchema(validator))
      fail(`${kind}_validator must be a Standard Schema validator (zod, valibot…: an object with "~standard")`);
    if (schema === undefined && validator !== undefined && jsonSchemaOf(validator, kind) === undefined) {
      fail(
        `${kind}_validator (${validator['~standard'].vendor}) does not convert itself to JSON Schema; give ${kind}_schema too, the JSON Schema agents read (valibot: toJsonSchema from @valibot/to-json-schema)`,
      );
    }
    if (schema === undefined ? validator === undefined : !isObject(schema))
      fail(`${kind}_schema must be a JSON Schema object (or give ${kind}_validator, a Standard Schema such as zod's)`);
  }
  if (typeof definition.handler !== 'function') fail('handler must be a function (input, context) => output');
  const limits = definition.limits;
  if (limits !== undefined) {
    if (!isObject(limits)) fail('limits must be an object');
    for (const [key, value] of Object.entries(limits)) {
      if (key !== 'calls_per_minute' && key !== 'calls_per_session') fail(`limits.${key} is not a limit; use calls_per_minute or calls_per_session`);
      if (!Number.isInteger(value) || (value as number) < 1) fail(`limits.${key} must be an integer >= 1, got ${String(value)}`);
    }
  }
  if (definition.requires_capability !== undefined && typeof definition.requires_capability !== 'string') fail('requires_capability must be a string');
  if (definition.strict_input !== undefined && typeof definition.strict_input !== 'boolean') fail('strict_input must be a boolean');
  const timeout = definition.timeout_ms;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) fail(`timeout_ms must be a number > 0, got ${String(timeout)}`);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
