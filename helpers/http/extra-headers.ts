// What a gateway in front of a staging server asks of every request besides the API's own key: headers of its own
// (--header: an access-service token, a tenant id) and a client certificate (--cert, --cert-key). The client sends
// them; this says which headers the suite keeps for itself, and how the reports name what they carry.
import { KEY_PLACES } from './exchange.js';
import type { Redactor } from './redact.js';

/**
 * The headers a person may not set, each with the reason: a value of theirs on every request would break what the
 * checks send or how the connection is framed, and the run would judge something other than what it claims.
 */
export const SUITE_OWNED_HEADERS: ReadonlyMap<string, string> = new Map([
  // The spec's credential: the auth checks send it missing, empty, wrong and in every broken form on purpose.
  ['authorization', 'the API key goes there, and the auth checks send it missing and in broken forms on purpose'],
  // AUTH-10 puts the key in these, one place at a time, to see that the server does not take it from there.
  ...[...KEY_PLACES.headers, 'cookie'].map((name) => [name, 'the auth checks (AUTH-10) put the key there, to see that the server does not take it from there'] as const),
  // Requests vary these and the checks judge the answer to each (406, 415, the body without a Content-Type).
  ['accept', 'the checks vary it and judge the answer to each'],
  ['content-type', 'the checks vary it (and leave it out) and judge the answer to each'],
  // The consistency checks ask for a compressed answer and compare it with the plain one.
  ['accept-encoding', 'the consistency checks ask for compressed answers and compare them with plain ones'],
  // Framing: the HTTP client writes these for the body it sends and the connection it uses; another value would
  // desynchronise the connection, or name another virtual host than --base-url does. undici refuses most of them.
  ...['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect']
    .map((name) => [name, 'the HTTP client frames every request and its connection with it'] as const),
  // A proxy's credentials come from the proxy's URL (HTTPS_PROXY), and undici sends them itself.
  ['proxy-authorization', 'the proxy\'s credentials come from the user and password of HTTP_PROXY or HTTPS_PROXY'],
]);

/**
 * The shell variable a header's value is recorded as, PETSTORE_HEADER_ and its name in upper snake case
 * (X-Gateway-Token: PETSTORE_HEADER_X_GATEWAY_TOKEN): the reports and curl lines name it, never the value, and a
 * reader who exports it reproduces the request.
 */
export function headerVariable(name: string): string {
  return `PETSTORE_HEADER_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export function headerPlaceholder(name: string): string {
  return `$${headerVariable(name)}`;
}

/** What the private key of --cert-key becomes in any text (it is never sent, so only our own lines could hold it). */
export const PRIVATE_KEY_PLACEHOLDER = '[private key of --cert-key]';

/** The PEM files of --cert and --cert-key, read: what the TLS connections present. */
export interface ClientCertificate {
  cert: Buffer;
  key: Buffer;
}

/**
 * Makes the run's redactor know what --header and --cert-key add to its secrets: each header's value (under its
 * own variable) and every line of the private key. A header's name is no secret: the reports show it.
 */
export function addGatewaySecrets(redactor: Redactor, headers: Readonly<Record<string, string>> | undefined, certificate: ClientCertificate | undefined): void {
  for (const [name, value] of Object.entries(headers ?? {})) {
    // In every encoding a server may echo it in, as the key: a gateway's token may be a JWT of kilobytes, which the
    // redactor finds at the cost of a short one.
    redactor.add(value, headerPlaceholder(name));
  }
  // Line by line: a PEM's base64 body is what holds the key, and a line of it is as telling as the whole.
  if (certificate) for (const line of privateKeyLines(certificate.key.toString('utf8'))) redactor.addLiteral(line, PRIVATE_KEY_PLACEHOLDER);
}

/** The lines of a PEM's base64 bodies (not its BEGIN and END lines, nor its headers such as Proc-Type). */
export function privateKeyLines(pem: string): string[] {
  return pem.split(/\r?\n/).map((line) => line.trim()).filter((line) => /^[A-Za-z0-9+/=]{16,}$/.test(line));
}
