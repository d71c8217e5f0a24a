import { connect as connectTcp, isIP } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { readFileSync } from 'node:fs';
import type { ProxyRoute } from '../helpers/http/proxy.js';

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
  if (proxy) return assertConnects(new URL(proxy.url), timeoutMs, undefined, `the proxy ${proxy.shown} (for ${new URL(baseUrl).origin})`);
  return assertConnects(new URL(baseUrl), timeoutMs, caFile, new URL(baseUrl).origin);
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
