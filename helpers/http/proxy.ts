import { getProxyForUrl } from 'proxy-from-env';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';

/** The proxy a target is reached through, as the environment says (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, either case). */
export interface ProxyRoute {
  /** The proxy URL as configured, credentials included: for the dispatcher only, never printed. */
  url: string;
  /** The same URL without credentials: what reports and messages show. */
  shown: string;
}

/**
 * Which proxy, if any, carries requests to `targetUrl`. Decided once, in one place, so that the
 * reachability check, every request and the report agree.
 */
export function proxyRouteFor(targetUrl: string): ProxyRoute | undefined {
  const url = getProxyForUrl(targetUrl);
  if (!url) return undefined;
  const parsed = new URL(url.includes('://') ? url : `http://${url}`);
  const shown = new URL(parsed.href);
  shown.username = '';
  shown.password = '';
  return { url: parsed.href, shown: shown.href.replace(/\/$/, '') };
}

/** The proxy's password, if its URL carries one: a secret of the run, redacted like the key. */
export function proxyPassword(route: ProxyRoute | undefined): string | undefined {
  const password = route && new URL(route.url).password;
  return password ? decodeURIComponent(password) : undefined;
}

/** What the run's connections need, proxied or not. */
export interface ConnectionSettings {
  connections: number;
  timeoutMs: number;
  /** PEM of a CA to trust for the target's TLS (--ca-file). */
  ca?: Buffer;
}

/**
 * undici's own dispatcher for the route: a plain Agent, or a ProxyAgent. An https target is tunnelled
 * (CONNECT), its TLS still verified against --ca-file; an http one is forwarded in absolute form, as
 * proxies expect (many refuse CONNECT to anything but port 443).
 */
export function dispatcherFor(route: ProxyRoute | undefined, settings: ConnectionSettings): Dispatcher {
  const common = { connections: settings.connections, headersTimeout: settings.timeoutMs, bodyTimeout: settings.timeoutMs };
  if (!route) return new Agent({ ...common, connect: settings.ca ? { ca: settings.ca } : undefined });
  return new ProxyAgent({ ...common, uri: route.url, proxyTunnel: false, requestTls: settings.ca ? { ca: settings.ca } : undefined });
}
