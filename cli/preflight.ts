import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { readCaFile } from '../helpers/bounded-file.js';
import type { ClientCertificate } from '../helpers/http/extra-headers.js';
import { proxyAuthorizationOf, proxyRefusal, type ProxyRoute } from '../helpers/http/proxy.js';
import { TargetUnreachable } from './failure.js';

/**
 * Opens one TCP (and TLS) connection to the target and closes it: proves it can be reached without
 * spending a request of the key's rate limit. Through a proxy, the proxy is what must answer: the target
 * may be reachable only through it (its name may not even resolve here).
 */
export async function assertReachable(baseUrl: string, timeoutMs: number, caFile?: string, proxy?: ProxyRoute, clientCertificate?: ClientCertificate): Promise<void> {
  const target = new URL(baseUrl);
  if (!proxy) return assertConnects(target, timeoutMs, caFile, target.origin, clientCertificate);
  await assertConnects(new URL(proxy.url), timeoutMs, undefined, `the proxy ${proxy.shown} (for ${target.origin})`);
  // An https target is reached through a tunnel the proxy must grant: asking costs no request of the target.
  // A plain http one is forwarded request by request; the client reads the proxy's refusal from the first answer.
  if (target.protocol === 'https:') await assertTunnels(target, proxy, timeoutMs, caFile, clientCertificate);
}

/**
 * Asks the proxy for a tunnel to the target (CONNECT, with the proxy's credentials) and shakes hands with
 * the target's TLS through it, as every request will: a proxy that wants credentials (407) or refuses the
 * tunnel (403, say) ends the run here, named, instead of failing every rule.
 */
async function assertTunnels(target: URL, proxy: ProxyRoute, timeoutMs: number, caFile: string | undefined, clientCertificate: ClientCertificate | undefined): Promise<void> {
  const tunnel = await openTunnel(target, proxy, timeoutMs);
  await shakeHandsThrough(tunnel, target, proxy, timeoutMs, caFile, clientCertificate);
}

/** The proxy's tunnel to the target: CONNECT host:port, answered 2xx; any other answer is its refusal. */
function openTunnel(target: URL, proxy: ProxyRoute, timeoutMs: number): Promise<Socket> {
  const proxyUrl = new URL(proxy.url);
  const authority = `${target.hostname}:${target.port || 443}`;
  const authorization = proxyAuthorizationOf(proxy);
  return new Promise<Socket>((resolve, reject) => {
    const connectRequest = (proxyUrl.protocol === 'https:' ? httpsRequest : httpRequest)({
      host: proxyUrl.hostname.replace(/^\[|\]$/g, ''),
      port: Number(proxyUrl.port || (proxyUrl.protocol === 'https:' ? 443 : 80)),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...(authorization ? { 'proxy-authorization': authorization } : {}) },
    });
    const deadline = setTimeout(() => fail(`the proxy ${proxy.shown} opened no tunnel to ${authority} within ${timeoutMs} ms (--timeout)`), timeoutMs);
    const fail = (message: string) => {
      clearTimeout(deadline);
      connectRequest.destroy();
      reject(new TargetUnreachable(message));
    };
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
}

/** The target's TLS handshake inside the tunnel, verified as every request's will be (--ca-file). */
function shakeHandsThrough(tunnel: Socket, target: URL, proxy: ProxyRoute, timeoutMs: number, caFile: string | undefined, clientCertificate: ClientCertificate | undefined): Promise<void> {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise<void>((resolve, reject) => {
    const socket = connectTls({ socket: tunnel, servername: isIP(host) ? undefined : host, ca: caFile ? readCaFile(caFile) : undefined, ...clientCertificate, ALPNProtocols: ['http/1.1'] });
    const deadline = setTimeout(() => fail(`no TLS handshake within ${timeoutMs} ms (--timeout)`), timeoutMs);
    const fail = (message: string) => {
      clearTimeout(deadline);
      socket.destroy();
      reject(new TargetUnreachable(`cannot reach ${target.origin} through the proxy ${proxy.shown}: ${message}`));
    };
    socket.once('error', (error: NodeJS.ErrnoException) => fail(reachabilityMessage(error)));
    socket.once('secureConnect', () => {
      void handshakeSettled(socket, timeoutMs).then(() => {
        clearTimeout(deadline);
        socket.destroy();
        resolve();
      });
    });
  });
}

/**
 * Under TLS 1.3 the client's handshake ends before the server has judged the client's certificate: a server that
 * wants one (mTLS) and got none, or one it does not trust, says so with an alert one round trip later. Waiting for
 * the server's first word after the handshake (its session ticket, which servers send once they accept the client)
 * or that alert, for a second at most, lets the preflight, not every request, meet that refusal. The alert comes
 * as the socket's 'error', which the caller listens for.
 */
function handshakeSettled(socket: TLSSocket, timeoutMs: number): Promise<void> {
  if (socket.getProtocol() !== 'TLSv1.3') return Promise.resolve();
  return new Promise<void>((settled) => {
    const grace = setTimeout(settled, Math.min(timeoutMs, 1000));
    const done = () => {
      clearTimeout(grace);
      settled();
    };
    socket.once('session', done);
    socket.once('close', done);
  });
}

async function assertConnects(url: URL, timeoutMs: number, caFile: string | undefined, what: string, clientCertificate?: ClientCertificate): Promise<void> {
  const secure = url.protocol === 'https:';
  const port = Number(url.port || (secure ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  await new Promise<void>((resolve, reject) => {
    const socket = secure
      // SNI carries host names only (RFC 6066): an IP address as servername earns a deprecation warning.
      ? connectTls({ host, port, servername: isIP(host) ? undefined : host, ca: caFile ? readCaFile(caFile) : undefined, ...clientCertificate, ALPNProtocols: ['http/1.1'] })
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
    // Destroyed, not ended: end() only half-closes, and waits for the target's end, which a target that
    // never reads never sends; the socket would then hold the process open after the run.
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      void (secure ? handshakeSettled(socket as TLSSocket, timeoutMs) : Promise.resolve()).then(() => {
        clearTimeout(deadline);
        socket.destroy();
        resolve();
      });
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
    case 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED':
      return 'the server asks for a client certificate (mTLS) and refused the handshake without one; give it with --cert <pem> and --cert-key <pem>';
    case 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE':
    case 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN':
    case 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA':
      return `the server refused the client certificate (${error.code}): is --cert signed by a CA the server trusts, and still valid?`;
    case 'ERR_SSL_WRONG_VERSION_NUMBER': return 'the TLS handshake failed: the target answers without TLS (is it plain http://?)';
    default: return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}
