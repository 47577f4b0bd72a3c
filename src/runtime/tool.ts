// The tool catalog: what a game registers from its engine hooks, each tool with its schemas
// compiled once, and the handle that enables, disables, updates or removes it.

import { CapsuleError } from '../base/errors.js';
import type { JsonObject, Meta, Topic, ToolClass, ToolDescriptor } from '../protocol/messages.js';
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

export type ToolHandler<I = any, O extends JsonObject = JsonObject> = (input: I, context: ToolContext) => O | Promise<O>;

/** A tool as the game registers it: the manifest descriptor plus its handler. */
export interface ToolDefinition<I = any, O extends JsonObject = JsonObject> extends ToolDescriptor {
  /** How long the handler may take, on the capsule's clock. Default: the capsule's `toolTimeoutMs`. */
  timeout_ms?: number;
  handler: ToolHandler<I, O>;
}

export interface ToolHandle {
  readonly id: string;
  readonly enabled: boolean;
  enable(): void;
  disable(): void;
  /** Replaces any of the definition's fields but the id; schemas are compiled again. */
  update(changes: Partial<Omit<ToolDefinition, 'id'>>): void;
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

  register(definition: ToolDefinition): ToolHandle {
    if (this.tools.has(definition?.id)) {
      throw new CapsuleError('AICC_DUPLICATE_TOOL', `registerTool: a tool "${definition.id}" is already registered; remove it first or pick another id`);
    }
    const tool = this.build(definition, true);
    this.tools.set(definition.id, tool);
    this.changed();
    return this.handleFor(definition.id);
  }

  private handleFor(id: string): ToolHandle {
    const live = (method: string): MutableTool => {
      const tool = this.tools.get(id);
      if (tool === undefined) throw new CapsuleError('AICC_TOOL_REMOVED', `ToolHandle.${method}: tool "${id}" was removed; register it again to use it`);
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
        this.tools.set(id, this.build({ ...tool.definition, ...changes, id }, tool.enabled));
        this.changed();
      },
      remove: () => {
        live('remove');
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
    checkDefinition(definition);
    const descriptor = describe(definition);
    const strict = definition.strict_input ?? false;
    return {
      definition,
      descriptor,
      enabled,
      validateInput: this.validators.compile(definition.input_schema, { tool: definition.id, kind: 'input', strict }),
      validateOutput: this.validators.compile(definition.output_schema, { tool: definition.id, kind: 'output', strict: false }),
    };
  }
}

interface MutableTool extends RegisteredTool {
  enabled: boolean;
}

function describe(definition: ToolDefinition): ToolDescriptor {
  const descriptor: ToolDescriptor = {
    id: definition.id,
    class: definition.class,
    description: definition.description,
    input_schema: definition.input_schema,
    output_schema: definition.output_schema,
  };
  if (definition.limits !== undefined) descriptor.limits = { ...definition.limits };
  if (definition.requires_capability !== undefined) descriptor.requires_capability = definition.requires_capability;
  if (definition.strict_input !== undefined) descriptor.strict_input = definition.strict_input;
  return descriptor;
}

function checkDefinition(definition: ToolDefinition): void {
  const where = `registerTool(${JSON.stringify(definition?.id ?? null)})`;
  const fail = (what: string): never => {
    throw new CapsuleError('AICC_INVALID_TOOL', `${where}: ${what}`);
  };
  if (definition === null || typeof definition !== 'object') fail('expected a tool definition object');
  if (typeof definition.id !== 'string' || !TOOL_ID.test(definition.id)) fail('id must be lowercase snake_case (^[a-z][a-z0-9_]*$)');
  if (!CLASSES.includes(definition.class)) fail(`class must be one of ${CLASSES.join(', ')}, got ${JSON.stringify(definition.class)}`);
  if (typeof definition.description !== 'string' || definition.description.length === 0) fail('description must be a non-empty string the agent can read');
  if (!isObject(definition.input_schema)) fail('input_schema must be a JSON Schema object');
  if (!isObject(definition.output_schema)) fail('output_schema must be a JSON Schema object');
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
