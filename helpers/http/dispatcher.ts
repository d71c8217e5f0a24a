// undici's dispatchers for a run's requests, as the route (proxy.ts) says: loaded by the client alone, in the suite's thread.
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import type { ClientCertificate } from './extra-headers.js';
import type { ProxyRoute } from './proxy.js';

/** What the run's connections need, proxied or not. */
export interface ConnectionSettings {
  connections: number;
  timeoutMs: number;
  /** PEM of a CA to trust for the target's TLS (--ca-file). */
  ca?: Buffer;
  /** The client certificate of --cert and --cert-key, presented to a target that asks for one (mTLS). */
  clientCertificate?: ClientCertificate;
  /** Every connection carries one request and is closed: none is ever reused. */
  singleUse?: boolean;
}

/**
 * undici's own dispatcher for the route: a plain Agent, or a ProxyAgent. An https target is tunnelled
 * (CONNECT), its TLS still verified against --ca-file; an http one is forwarded in absolute form, as
 * proxies expect (many refuse CONNECT to anything but port 443).
 */
export function dispatcherFor(route: ProxyRoute | undefined, settings: ConnectionSettings): Dispatcher {
  const common = { connections: settings.connections, headersTimeout: settings.timeoutMs, bodyTimeout: settings.timeoutMs, ...(settings.singleUse ? { pipelining: 0 } : {}) };
  // The target's TLS, proxied or not: the certificate goes to the target, never to the proxy, which only carries the tunnel.
  const tls = settings.ca || settings.clientCertificate ? { ...(settings.ca ? { ca: settings.ca } : {}), ...settings.clientCertificate } : undefined;
  if (!route) return new Agent({ ...common, connect: tls });
  return new ProxyAgent({ ...common, uri: route.url, proxyTunnel: false, requestTls: tls });
}
