// A typed event emitter for the hot paths: mitt's shape (on, off, emit, all), but emit allocates
// nothing. mitt copies the handler list on every emit, so that a handler may unsubscribe while it
// runs; here the list is replaced on every on/off instead (rare), and emit walks the list it found.

export type Handler<T> = (event: T) => void;

export interface Emitter<Events extends Record<string, unknown>> {
  /** The handlers of each type that has some: `all.has(type)` says whether anyone listens. */
  readonly all: ReadonlyMap<keyof Events, readonly Handler<never>[]>;
  on<K extends keyof Events>(type: K, handler: Handler<Events[K]>): void;
  off<K extends keyof Events>(type: K, handler: Handler<Events[K]>): void;
  emit<K extends keyof Events>(type: K, event: Events[K]): void;
}

export function createEmitter<Events extends Record<string, unknown>>(): Emitter<Events> {
  const all = new Map<keyof Events, Array<Handler<never>>>();
  return {
    all,
    on(type, handler) {
      all.set(type, [...(all.get(type) ?? []), handler as Handler<never>]);
    },
    off(type, handler) {
      const handlers = all.get(type);
      if (handlers === undefined) return;
      const at = handlers.indexOf(handler as Handler<never>);
      if (at < 0) return;
      const rest = handlers.filter((_, i) => i !== at);
      if (rest.length === 0) all.delete(type);
      else all.set(type, rest);
    },
    emit(type, event) {
      const handlers = all.get(type) as Array<Handler<typeof event>> | undefined;
      if (handlers === undefined) return;
      for (let i = 0; i < handlers.length; i++) handlers[i]!(event);
    },
  };
}
