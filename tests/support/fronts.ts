// Fronts: what stands between a client and a server at the HTTP/1.1 byte level, for the defects no seam of the
// reference server can make (its Node HTTP server frames every request right). A front parses requests itself, as a
// hand-rolled server or gateway does, and forwards each to the server behind it, one at a time per connection.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';

/**
 * The kinds of front a defect may stand behind: `unread-refused-body` answers a POST without a bearer key at once and
 * never reads its body; `post-crlf-skipped` drops the two bytes that follow every POST body, the CRLF old browsers sent
 * after one (RFC 7230 §3.5), whatever they are.
 */
export type FrontKind = 'unread-refused-body' | 'post-crlf-skipped';

export interface RunningFront {
  port: number;
  close(): Promise<void>;
}

/**
 * A hand-rolled HTTP/1.1 front (an auth proxy, a raw-socket server) that forwards each request to the server behind it
 * and frames the next one from what follows on the connection, wrongly in the way its kind says: what it takes for the
 * start of the next request gets a 400 page of its own when it is none.
 */
export async function startFront(kind: FrontKind, upstreamPort: number): Promise<RunningFront> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    serveConnection(kind, socket, upstreamPort);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

const HEAD_END = Buffer.from('\r\n\r\n');
const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/;
const BAD_REQUEST = '<html><head><title>400 Bad Request</title></head><body><h1>Bad Request</h1></body></html>\n';

/** Reads requests off one connection in turn, forwarding each; what is left of a refused body becomes the next "request". */
function serveConnection(kind: FrontKind, socket: Socket, upstreamPort: number): void {
  let buffered = Buffer.alloc(0);
  let busy = false;
  // Bytes after a POST body still to be dropped (post-crlf-skipped): the CRLF it expects, or the next request's start.
  let skipping = 0;
  const next = async (): Promise<void> => {
    if (busy) return;
    if (skipping > 0 && buffered.length > 0) {
      const dropped = Math.min(skipping, buffered.length);
      buffered = buffered.subarray(dropped);
      skipping -= dropped;
    }
    const end = buffered.indexOf(HEAD_END);
    if (end === -1) return;
    busy = true;
    const head = buffered.subarray(0, end).toString('latin1');
    const [line = '', ...fields] = head.split('\r\n');
    const headers: Record<string, string> = {};
    for (const field of fields) {
      const colon = field.indexOf(':');
      if (colon > 0) headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
    }
    const requestLine = REQUEST_LINE.exec(line);
    if (!requestLine) {
      buffered = buffered.subarray(end + HEAD_END.length);
      socket.write(`HTTP/1.1 400 Bad Request\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(BAD_REQUEST)}\r\n\r\n${BAD_REQUEST}`);
      busy = false;
      return next();
    }
    const length = Number(headers['content-length'] ?? 0);
    const refusedUnread = kind === 'unread-refused-body' && requestLine[1] === 'POST' && !/^bearer\s+\S/i.test(headers.authorization ?? '');
    const bodyLength = refusedUnread ? 0 : length;
    if (buffered.length < end + HEAD_END.length + bodyLength) {
      busy = false;
      return;
    }
    const body = buffered.subarray(end + HEAD_END.length, end + HEAD_END.length + bodyLength);
    buffered = buffered.subarray(end + HEAD_END.length + bodyLength);
    if (kind === 'post-crlf-skipped' && requestLine[1] === 'POST' && bodyLength > 0) skipping = 2;
    const answer = await forward(upstreamPort, requestLine[1]!, requestLine[2]!, { ...headers, 'content-length': String(bodyLength) }, body);
    if (!socket.destroyed) socket.write(answer);
    busy = false;
    return next();
  };
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    void next();
  });
}

/** One request to the server behind, its answer written back as HTTP/1.1 bytes with a Content-Length. */
function forward(port: number, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, headers: { ...headers, connection: 'close' }, agent: false }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const payload = Buffer.concat(chunks);
        const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}`, ...headerLines(answer.headers), `content-length: ${payload.length}`];
        resolve(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), method === 'HEAD' ? Buffer.alloc(0) : payload]));
      });
    });
    outgoing.on('error', () => resolve(Buffer.from('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n')));
    outgoing.end(body);
  });
}

/** The server's headers as the front passes them on: its own framing and connection headers left out. */
function headerLines(headers: IncomingHttpHeaders): string[] {
  const skipped = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);
  return Object.entries(headers).flatMap(([name, value]) => (skipped.has(name) || value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((item) => `${name}: ${item}`)));
}
