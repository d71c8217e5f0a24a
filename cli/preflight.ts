import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { readFileSync } from 'node:fs';
import { proxyAuthorizationOf, proxyVariableFor, type ProxyRoute } from '../helpers/http/proxy.js';
import type { Exchange, RecordedResponse } from '../helpers/http/exchange.js';

/** The target cannot be talked to at all: exit code 3. */
export class TargetUnreachable extends Error {
  override name = 'TargetUnreachable';
}

/**
 * Opens one TCP (and TLS) connection to the target and closes it: proves it can be reached without
 * spending a request of the key's rate limit. Through a proxy, the proxy is what must answer: the target
 * may be reachable only through it (its name may not even resolve here).
 */
export async function assertReachable(baseUrl: string, timeoutMs: number, caFile?: string, proxy?: ProxyRoute): Promise<void> {
  const target = new URL(baseUrl);
  if (!proxy) return assertConnects(target, timeoutMs, caFile, target.origin);
  await assertConnects(new URL(proxy.url), timeoutMs, undefined, `the proxy ${proxy.shown} (for ${target.origin})`);
  // An https target is reached through a tunnel the proxy must grant: asking costs no request of the target.
  // A plain http one is forwarded request by request; the client reads the proxy's refusal from the first answer.
  if (target.protocol === 'https:') await assertTunnels(target, proxy, timeoutMs, caFile);
}

/**
 * Asks the proxy for a tunnel to the target (CONNECT, with the proxy's credentials) and shakes hands with
 * the target's TLS through it, as every request will: a proxy that wants credentials (407) or refuses the
 * tunnel (403, say) ends the run here, named, instead of failing every rule.
 */
async function assertTunnels(target: URL, proxy: ProxyRoute, timeoutMs: number, caFile: string | undefined): Promise<void> {
  const proxyUrl = new URL(proxy.url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const authority = `${target.hostname}:${target.port || 443}`;
  const authorization = proxyAuthorizationOf(proxy);
  const tunnel = await new Promise<Socket>((resolve, reject) => {
    const fail = (message: string) => {
      clearTimeout(deadline);
      connectRequest.destroy();
      reject(new TargetUnreachable(message));
    };
    const connectRequest = (proxyUrl.protocol === 'https:' ? httpsRequest : httpRequest)({
      host: proxyUrl.hostname.replace(/^\[|\]$/g, ''),
      port: Number(proxyUrl.port || (proxyUrl.protocol === 'https:' ? 443 : 80)),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...(authorization ? { 'proxy-authorization': authorization } : {}) },
    });
    const deadline = setTimeout(() => fail(`the proxy ${proxy.shown} opened no tunnel to ${authority} within ${timeoutMs} ms (--timeout)`), timeoutMs);
    connectRequest.once('error', (error: NodeJS.ErrnoException) => fail(`cannot reach the proxy ${proxy.shown} (for ${target.origin}): ${reachabilityMessage(error)}`));
    connectRequest.once('connect', (answer, socket) => {
      if (answer.statusCode !== undefined && answer.statusCode >= 200 && answer.statusCode <= 299) {
        clearTimeout(deadline);
        resolve(socket);
        return;
      }
      socket.destroy();
      fail(proxyRefusal(proxy, `CONNECT ${authority}`, answer.statusCode ?? 0, answer.statusMessage, target.protocol, authorization !== undefined).line);
    });
    connectRequest.end();
  });
  await new Promise<void>((resolve, reject) => {
    const socket = connectTls({ socket: tunnel, servername: isIP(host) ? undefined : host, ca: caFile ? readFileSync(caFile) : undefined, ALPNProtocols: ['http/1.1'] });
    const deadline = setTimeout(() => fail(`no TLS handshake within ${timeoutMs} ms (--timeout)`), timeoutMs);
    const fail = (message: string) => {
      clearTimeout(deadline);
      socket.destroy();
      reject(new TargetUnreachable(`cannot reach ${target.origin} through the proxy ${proxy.shown}: ${message}`));
    };
    socket.once('error', (error: NodeJS.ErrnoException) => fail(reachabilityMessage(error)));
    socket.once('secureConnect', () => {
      clearTimeout(deadline);
      socket.end();
      resolve();
    });
  });
}

/** What a proxy's refusal says, for the preflight's line and the client's diagnosis alike. */
export interface ProxyRefusal {
  /** One line: the proxy (without credentials), what was asked and what it answered, and what to change. */
  line: string;
  problem: string;
  hint: string;
}

/**
 * A proxy answered `status` to `asked` instead of carrying it to the target: the target was never judged.
 * 407 wants credentials (or refused those given), and so does 401 from proxies that answer wrong
 * credentials so (tinyproxy); anything else refused the request outright.
 */
export function proxyRefusal(proxy: ProxyRoute, asked: string, status: number, reason: string | undefined, targetScheme: string, withCredentials: boolean): ProxyRefusal {
  const variable = proxyVariableFor(targetScheme);
  const problem = `the proxy ${proxy.shown} answered ${status}${reason ? ` ${reason}` : ''} to ${asked}: the request never reached the target`;
  const hint = status === 407 || status === 401
    ? withCredentials
      ? `the proxy refused the user and password in ${variable}: check them`
      : `the proxy wants a user and password: give them in ${variable} (http://user:password@host:port)`
    : `the proxy refuses to carry this request: ask its administrators to allow ${asked.startsWith('CONNECT') ? `tunnels (CONNECT) to ${asked.slice('CONNECT '.length)}` : 'the target\'s address'}, or exempt the target with NO_PROXY`;
  return { line: `${problem}; ${hint}`, problem, hint };
}

async function assertConnects(url: URL, timeoutMs: number, caFile: string | undefined, what: string): Promise<void> {
  const secure = url.protocol === 'https:';
  const port = Number(url.port || (secure ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  await new Promise<void>((resolve, reject) => {
    const socket = secure
      // SNI carries host names only (RFC 6066): an IP address as servername earns a deprecation warning.
      ? connectTls({ host, port, servername: isIP(host) ? undefined : host, ca: caFile ? readFileSync(caFile) : undefined, ALPNProtocols: ['http/1.1'] })
      : connectTcp({ host, port });
    // A timer of its own, not socket.setTimeout: that one is idle-based and does not run while the
    // host name is still being looked up, so a stalled resolver would outlast --timeout.
    const deadline = setTimeout(() => fail(`no connection within ${timeoutMs} ms (--timeout)`), timeoutMs);
    const fail = (message: string) => {
      clearTimeout(deadline);
      socket.destroy();
      reject(new TargetUnreachable(`cannot reach ${what}: ${message}`));
    };
    socket.once('error', (error: NodeJS.ErrnoException) => fail(reachabilityMessage(error)));
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(deadline);
      socket.end();
      resolve();
    });
  });
}

function reachabilityMessage(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED': return 'connection refused (is the server running, and on that port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return 'the host name does not resolve';
    case 'ECONNRESET': return 'the connection was reset';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return `the TLS certificate is not trusted (${error.code}); trust its CA with --ca-file <pem>`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return 'the TLS certificate does not name this host';
    case 'ERR_SSL_WRONG_VERSION_NUMBER': return 'the TLS handshake failed: the target answers without TLS (is it plain http://?)';
    default: return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}

/**
 * The first answers show the run is aimed at the wrong thing (a base URL without /v1, a website, a login
 * proxy, a key from another environment): judging rule by rule would print every rule failed for one
 * cause. The run stops instead, with this, and exit code 3.
 */
export interface Diagnosis {
  /** What was seen, in one sentence. */
  problem: string;
  /** What to change, naming the option. */
  hint: string;
  /** The exchange that showed it (the last of them, for "every request answered 401"). */
  seq: number;
}

/** Only the start of a run is read: later on a 404 or a 401 is something a check provoked, and judges. */
export const DIAGNOSED_WITHIN = 8;
/** Answers with the key, all 401, after which the key (not the server) is taken to be wrong. */
const REFUSED_KEY_ANSWERS = 3;
/** How the diagnosis of a refused key begins: the client names the proxy in it when a proxy may be the one refusing. */
export const EVERY_KEY_REFUSED = 'every request with the key was answered 401';
const LOGIN_PATH = /(log-?in|sign-?in|auth|sso|oauth|saml|session)/i;

/**
 * Reads the run's first exchanges for a target that cannot be judged. A conforming server answers GET /pets
 * with a valid key 200 with JSON, so a 404 there, an HTML page on a success, or a redirect to a login page
 * say the base URL is wrong; 401 to every request with the key says the key is. A 429 or a 5xx says neither.
 */
export function diagnoseEarlyAnswers(exchanges: readonly Exchange[], baseUrl: string): Diagnosis | undefined {
  const early = exchanges.filter((exchange) => exchange.seq <= DIAGNOSED_WITHIN && exchange.response);
  for (const exchange of early) {
    const response = exchange.response!;
    const url = new URL(exchange.request.url);
    const path = pathOf(exchange, baseUrl);
    const seen = `${exchange.request.method} ${url.pathname} answered ${response.status}`;
    if (exchange.request.method === 'GET' && path === '/pets' && withKey(exchange) && response.status === 404) {
      return { problem: `${seen} with the key: no Pet Store API at this address`, hint: baseUrlHint(baseUrl), seq: exchange.seq };
    }
    if (response.status >= 200 && response.status <= 299 && isHtml(response)) {
      return { problem: `${seen} with an HTML page where JSON is expected: this address serves a website, not the API`, hint: baseUrlHint(baseUrl), seq: exchange.seq };
    }
    const location = response.headers.location;
    if (response.status >= 300 && response.status <= 399 && location && LOGIN_PATH.test(location)) {
      return { problem: `${seen}, redirecting to a login page (${location}): a sign-in proxy stands in front of this address`, hint: baseUrlHint(baseUrl), seq: exchange.seq };
    }
  }
  // GET /pets among them: one operation refusing a good key (a defect of that operation) is judged by its rule.
  const withTheKey = early.filter((exchange) => withKey(exchange) && exchange.response!.status !== 429);
  const listed = withTheKey.some((exchange) => exchange.request.method === 'GET' && pathOf(exchange, baseUrl) === '/pets');
  if (listed && withTheKey.length >= REFUSED_KEY_ANSWERS && withTheKey.every((exchange) => exchange.response!.status === 401)) {
    return {
      problem: `${EVERY_KEY_REFUSED} (${withTheKey.length} of ${withTheKey.length})`,
      hint: 'is the key right, or is it for another environment? Set PETSTORE_API_KEY to a key of this server (and check --base-url names the environment the key is for)',
      seq: withTheKey.at(-1)!.seq,
    };
  }
  return undefined;
}

/** The path below the base URL: "/pets" for …/v1/pets?limit=1. */
function pathOf(exchange: Exchange, baseUrl: string): string {
  return new URL(exchange.request.url).pathname.slice(new URL(baseUrl).pathname.replace(/\/+$/, '').length);
}

function withKey(exchange: Exchange): boolean {
  return exchange.request.auth === 'key';
}

export function isHtml(response: RecordedResponse): boolean {
  return /^text\/html\b/i.test(response.headers['content-type'] ?? '') || /^\s*<(!doctype html|html)\b/i.test(response.rawBody);
}

function baseUrlHint(baseUrl: string): string {
  const withV1 = /\/v1$/.test(new URL(baseUrl).pathname) ? undefined : `${baseUrl.replace(/\/+$/, '')}/v1`;
  return withV1
    ? `check --base-url: it must be the API's base address, ending in /v1 (did you mean --base-url ${withV1}?)`
    : '--base-url must be the base address of the Pet Store API (where GET /pets lists the pets), ending in /v1';
}
