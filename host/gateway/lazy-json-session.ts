/**
 * The `/json` sessions, loaded when the first `/json` socket opens: a session drives the Kafka
 * client library (Producer, Consumer, Admin and their codecs, about 45 modules), which a broker
 * that nobody reaches over `/json` never needs, so the gateway starts without it and the broker's
 * start-up does not pay for it. The first socket imports json-session.ts; each socket's messages
 * and drains that arrive while it loads are queued and replayed in order, so a session sees the
 * same calls either way. A failed import (a broken install) closes the waiting sockets with 1011.
 */
import type { JsonSessionFactory, JsonSessionHandlers, JsonSocket } from '../network/json-socket.js';
import type { JsonSessionOptions } from './json-session.js';

/** WebSocket close code for an unexpected server condition (RFC 6455 §7.4.1). */
const INTERNAL_ERROR_CLOSE_CODE = 1011;

type Loaded = (socket: JsonSocket) => JsonSessionHandlers;

/** The real module: json-session.ts's factory over `options`. */
function importJsonSessions(options: JsonSessionOptions): Promise<Loaded> {
  return import('./json-session.js').then(({ createJsonSessionFactory }) => createJsonSessionFactory(options));
}

/**
 * A factory whose sessions import json-session.ts on first use (see the file header); the import
 * runs once, for the first socket. `importSessions` replaces the import (tests).
 */
export function createLazyJsonSessionFactory(
  options: JsonSessionOptions,
  importSessions: (options: JsonSessionOptions) => Promise<Loaded> = importJsonSessions,
): JsonSessionFactory {
  let loading: Promise<Loaded> | null = null;
  const load = (): Promise<Loaded> => {
    loading ??= importSessions(options);
    return loading;
  };
  return (socket) => new LazyJsonSession(socket, load(), options.logger);
}

/** One socket's session while (and after) json-session.ts loads. */
class LazyJsonSession implements JsonSessionHandlers {
  private session: JsonSessionHandlers | null = null;
  /** Messages (strings) and drains (null) received before the session existed, in order. */
  private queued: (string | null)[] = [];
  private closed = false;
  private readonly ready: Promise<void>;

  constructor(socket: JsonSocket, factory: Promise<Loaded>, logger: JsonSessionOptions['logger']) {
    this.ready = factory.then((create) => {
      if (this.closed) return;
      const session = create(socket);
      this.session = session;
      const queued = this.queued;
      this.queued = [];
      for (const item of queued) {
        if (item === null) session.onDrain();
        else session.onMessage(item);
      }
    }, (error: unknown) => {
      logger.error({ event: 'json.session_load_failed', err: error }, 'the JSON session module could not be loaded');
      this.queued = [];
      if (!socket.closed) socket.end(INTERNAL_ERROR_CLOSE_CODE, 'JSON sessions unavailable');
    });
  }

  onMessage(text: string): void {
    if (this.session !== null) this.session.onMessage(text);
    else if (!this.closed) this.queued.push(text);
  }

  onDrain(): void {
    if (this.session !== null) this.session.onDrain();
    else if (!this.closed) this.queued.push(null);
  }

  onClose(): void {
    if (this.session !== null) this.session.onClose();
    this.closed = true;
    this.queued = [];
  }

  isBusy(): boolean {
    return this.session !== null ? this.session.isBusy() : this.queued.length > 0;
  }

  async stop(): Promise<void> {
    await this.ready;
    await this.session?.stop();
  }
}
