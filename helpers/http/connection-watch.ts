import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/** What undici's request met on its connection when it failed, read from undici's own diagnostics channels. */
export interface ConnectionFailure {
  /** The connection had carried an earlier request: kept alive, and maybe already closed by the server. */
  reused: boolean;
  /** No byte of the answer to this request had arrived. */
  unanswered: boolean;
  /** Not a byte of this request had been handed to the connection: it provably never left. */
  neverSent: boolean;
  /**
   * The request never reached a connection: undici had queued it for one that failed first. undici waits a turn of
   * the event loop before it reuses a kept-alive connection, and a reset that comes in that turn fails every request
   * waiting for it (a server that answers, then resets without Connection: close, as Fastify does after a 431).
   */
  neverWritten: boolean;
}

interface Attempt {
  socket: Socket;
  reused: boolean;
  bytesRead: number;
  bytesWritten: number;
}

/**
 * Follows the requests of one client onto their connections, so that a failure can say whether it met a
 * kept-alive connection the server had closed in the meantime (RFC 9112 §9.3.1): undici publishes every
 * request it writes, with its socket, and every request that fails. Other clients' requests pass through
 * unremarked; everything is held weakly, by undici's own objects.
 */
export class ConnectionWatch {
  private readonly requestsOn = new WeakMap<Socket, number>();
  private readonly attempts = new WeakMap<object, Attempt>();
  private readonly failures = new WeakMap<object, ConnectionFailure>();

  private readonly onSend = (message: unknown): void => {
    const { request, socket } = message as { request: object; socket: Socket };
    const earlier = this.requestsOn.get(socket) ?? 0;
    this.requestsOn.set(socket, earlier + 1);
    // Published before the request is written: the counts so far are those of the earlier exchanges.
    this.attempts.set(request, { socket, reused: earlier > 0, bytesRead: socket.bytesRead, bytesWritten: socket.bytesWritten });
  };

  private readonly onError = (message: unknown): void => {
    const { request, error } = message as { request: object; error: unknown };
    if (typeof error !== 'object' || error === null) return;
    const attempt = this.attempts.get(request);
    if (!attempt) {
      this.failures.set(error, { reused: false, unanswered: true, neverSent: true, neverWritten: true });
      return;
    }
    this.failures.set(error, {
      neverWritten: false,
      reused: attempt.reused,
      unanswered: attempt.socket.bytesRead === attempt.bytesRead,
      neverSent: attempt.socket.bytesWritten === attempt.bytesWritten,
    });
  };

  constructor() {
    subscribe('undici:client:sendHeaders', this.onSend);
    subscribe('undici:request:error', this.onError);
  }

  /** What the failed request met on its connection, or that it never had one; undefined for another client's error. */
  failureOf(error: unknown): ConnectionFailure | undefined {
    return typeof error === 'object' && error !== null ? this.failures.get(error) : undefined;
  }

  stop(): void {
    unsubscribe('undici:client:sendHeaders', this.onSend);
    unsubscribe('undici:request:error', this.onError);
  }
}
