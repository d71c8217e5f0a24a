// Small misbehaving servers on 127.0.0.1, one job each, for the hostile-* tests. Every one binds an
// ephemeral port, counts the connections it accepts (so a test can prove that nothing was sent), and
// closes by destroying its sockets, so a handler that never answers cannot hold a test open.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { gzipSync } from 'node:zlib';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface LoopbackServer {
  port: number;
  /** http://127.0.0.1:<port>/v1: what a user would pass as --base-url. */
  baseUrl: string;
  /** TCP connections accepted: the preflight's included, so 0 means nothing at all was sent. */
  readonly connections: number;
  readonly requests: readonly SeenRequest[];
  close(): Promise<void>;
}

/** Answers one request; `index` counts from 0 across the server's life. */
export type Handler = (request: IncomingMessage, response: ServerResponse, index: number) => void;

/** An HTTP server whose every request goes to `handler`, recorded with its headers first. */
export async function startHttpServer(handler: Handler): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  const server = createHttpServer((request, response) => {
    requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    handler(request, response, requests.length - 1);
  });
  return listen(server, 'http', requests);
}

/**
 * A TLS front for a plain server on `upstreamPort`, so that any HTTP target can be reached over https. With
 * `clientCa`, it is a gateway that wants a client certificate (mTLS): one that CA signed, or no handshake.
 */
export async function startTlsFront(certificate: Certificate, upstreamPort: number, options: { clientCa?: string } = {}): Promise<LoopbackServer> {
  const mutual = options.clientCa ? { requestCert: true, rejectUnauthorized: true, ca: options.clientCa } : {};
  const server = createTlsServer({ cert: certificate.cert, key: certificate.key, ...mutual }, (secure) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    secure.pipe(upstream).pipe(secure);
    // A client that rejects the certificate hangs up mid-handshake; that is the point of some tests.
    secure.on('error', () => upstream.destroy());
    upstream.on('error', () => secure.destroy());
  });
  return listen(server, 'https', []);
}

/**
 * A front for a plain server on `upstreamPort` that answers one request per connection and closes it when the next
 * comes, without saying so (no `Connection: close`), as HTTP/1.0-minded stacks and proxies with a short idle timeout
 * do: a client that sends its next request on the kept-alive connection finds it closed, before any byte of an
 * answer. Closed when reused, not just after the answer: a client in the same process as this front reads an answer
 * and a close sent together as one, and would never meet the race a remote server makes it meet.
 */
export async function startClosingFront(upstreamPort: number): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  const answered = new WeakSet<Socket>();
  const server = createHttpServer((incoming, outgoing) => {
    requests.push({ method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers });
    if (answered.has(incoming.socket)) {
      incoming.socket.destroy();
      return;
    }
    answered.add(incoming.socket);
    const relay = httpRequest({ host: '127.0.0.1', port: upstreamPort, method: incoming.method, path: incoming.url, headers: incoming.headers, agent: false }, (answer) => {
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && name !== 'connection' && name !== 'keep-alive') outgoing.setHeader(name, value);
      }
      // No Connection header at all (removed before the head is written): HTTP/1.1 reads that as "kept alive".
      outgoing.removeHeader('connection');
      outgoing.writeHead(answer.statusCode ?? 502);
      answer.pipe(outgoing);
    });
    relay.on('error', () => outgoing.socket?.destroy());
    incoming.pipe(relay);
  });
  return listen(server, 'http', requests);
}

/**
 * A raw TCP server, below HTTP and TLS: `scheme` only shapes the base URL a test hands the CLI. `pauseOnConnect`:
 * not a byte of a connection is read, not even its end, as a target that takes connections and never reads them.
 */
export async function startTcpServer(scheme: 'http' | 'https', onConnection: (socket: Socket) => void, options: { pauseOnConnect?: boolean } = {}): Promise<LoopbackServer> {
  return listen(createNetServer({ pauseOnConnect: options.pauseOnConnect ?? false }, (socket) => {
    socket.on('error', () => undefined); // a client hanging up on garbage is expected here
    onConnection(socket);
  }), scheme, []);
}

/**
 * A loopback port that refuses connections, and goes on refusing them: one below the range the system hands out for
 * port 0 (Linux's ip_local_port_range), where no server the tests start can be given it. A port bound and released
 * (unusedPort) is soon given to another test's server: a run meant to be refused once reached one. Found by
 * connecting, not by binding, so that it never listens, even for a moment.
 */
export async function refusedPort(): Promise<number> {
  const firstEphemeral = firstEphemeralPort();
  for (let port = firstEphemeral - 1; port > 1024; port -= 1) {
    if (await refusesConnections(port)) return port;
  }
  throw new Error(`no port below ${firstEphemeral} refuses connections on 127.0.0.1`);
}

/** The first of the ports the system hands out for port 0; where it does not say, the first of IANA's dynamic range. */
function firstEphemeralPort(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first)) return first;
  } catch {
    // Not Linux.
  }
  return 49_152;
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** A port free to listen on: bound once, then released (for a server that must be told its port, as tinyproxy). */
export async function unusedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function listen(server: Server, scheme: 'http' | 'https', requests: SeenRequest[]): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    baseUrl: `${scheme}://127.0.0.1:${port}/v1`,
    get connections() {
      return connections;
    },
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ── Responses a hostile handler sends ─────────────────────────────────────────────────────────

/** A complete JSON answer. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Writes `chunk` for as long as the client reads, honouring backpressure so the server itself stays small. */
export function streamForever(response: ServerResponse, chunk: Buffer): void {
  const pump = () => {
    while (!response.destroyed && response.write(chunk));
  };
  response.on('drain', pump);
  pump();
}

/** One byte every `intervalMs` after the headers: each read makes progress, the body never ends. */
export function dribble(response: ServerResponse, intervalMs: number): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('[');
  const timer = setInterval(() => response.write(' '), intervalMs);
  response.on('close', () => clearInterval(timer));
}

/** Headers and the first bytes of a body, then a TCP reset: the connection breaks mid-response. */
export function resetMidResponse(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
  response.write('[{"id": 1, "na', () => response.socket?.resetAndDestroy());
}

/**
 * `inflatedBytes` of zeros, gzipped: a few kilobytes on the wire that decompress without bound. Sent
 * unasked (the client sends no Accept-Encoding), it must be judged as the bytes it is, never inflated.
 */
export function gzipBomb(inflatedBytes: number): Buffer {
  return gzipSync(Buffer.alloc(inflatedBytes), { level: 9 });
}

// ── A self-signed certificate for 127.0.0.1, made with node:crypto alone (no openssl needed) ──

export interface Certificate {
  /** PEM of the certificate, which is also its own CA: what --ca-file is given. */
  cert: string;
  /** PEM of the private key. */
  key: string;
}

/** A self-signed ECDSA P-256 certificate naming 127.0.0.1 and localhost, valid from an hour ago for a day. */
export function selfSignedCertificate(): Certificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = sequence(der(0x31, sequence(oid('2.5.4.3'), der(0x0c, Buffer.from('petstore-conformance hostile test')))));
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const now = Date.now();
  const serial = randomBytes(8);
  serial[0] = (serial[0]! & 0x7f) | 0x01; // positive and without a leading zero byte
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))), // version 3
    der(0x02, serial),
    ecdsaWithSha256,
    name,
    sequence(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, sequence(
      // basicConstraints CA:TRUE, critical: the certificate is its own trust anchor.
      sequence(oid('2.5.29.19'), der(0x01, Buffer.from([0xff])), der(0x04, sequence(der(0x01, Buffer.from([0xff]))))),
      // subjectAltName: IP 127.0.0.1 and DNS localhost, the names the tests connect by.
      sequence(oid('2.5.29.17'), der(0x04, sequence(der(0x87, Buffer.from([127, 0, 0, 1])), der(0x82, Buffer.from('localhost'))))),
    )),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, ecdsaWithSha256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return { cert: pem('CERTIFICATE', certificate), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length = body.length < 0x80 ? [body.length] : body.length < 0x100 ? [0x81, body.length] : [0x82, body.length >> 8, body.length & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}

function sequence(...parts: Buffer[]): Buffer {
  return der(0x30, ...parts);
}

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const base128: number[] = [];
    for (let value = arc; ; value = Math.floor(value / 128)) {
      base128.unshift(value % 128);
      if (value < 128) break;
    }
    bytes.push(...base128.map((byte, i) => (i < base128.length - 1 ? byte | 0x80 : byte)));
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  return der(0x17, Buffer.from(`${date.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`));
}

function pem(label: string, bytes: Buffer): string {
  const lines = bytes.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * A mock served from an OpenAPI description, as Stoplight Prism serves one: the documented statuses with
 * example bodies, every integer header it cannot find an example for set to 0. So every answer says
 * X-RateLimit-Limit 0, Remaining 0 and Reset 0: a window spent, that ended at the epoch.
 */
export function prismLikeHandler(): Handler {
  const pet = { id: 1, name: 'doggie', categoryId: 1, status: 'available' };
  return (request, response) => {
    const zeros = { 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' };
    for (const [name, value] of Object.entries(zeros)) response.setHeader(name, value);
    const path = new URL(request.url ?? '/', 'http://mock').pathname;
    if (!/^Bearer \S+$/.test(request.headers.authorization ?? '')) return sendJson(response, 401, { code: 'unauthorized', message: 'no bearer token', status: 401 });
    if (request.method === 'GET' && path === '/v1/pets') return sendJson(response, 200, [pet]);
    if (request.method === 'POST' && path === '/v1/pets') return sendJson(response, 201, pet);
    if (request.method === 'GET' && /^\/v1\/pets\/[^/]+$/.test(path)) return sendJson(response, 200, pet);
    if (request.method === 'GET' && path === '/v1/store/orders') return sendJson(response, 200, []);
    return sendJson(response, 404, { code: 'not_found', message: 'no route', status: 404 });
  };
}
