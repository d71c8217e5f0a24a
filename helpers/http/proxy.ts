// Where a target's requests go, decided from the environment. The dispatchers that carry them are in
// dispatcher.ts: the CLI's own process decides the route and checks reachability without loading undici.
import { getProxyForUrl } from 'proxy-from-env';

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

/** The Proxy-Authorization a proxy URL's credentials make (Basic, as undici's ProxyAgent sends them). */
export function proxyAuthorizationOf(route: ProxyRoute): string | undefined {
  const url = new URL(route.url);
  if (!url.username && !url.password) return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
}

/** The variable that names the proxy for a target of this scheme (the lower-case one works as well). */
export function proxyVariableFor(targetScheme: string): string {
  return targetScheme === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
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
