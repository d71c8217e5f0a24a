// Looking for a secret in text the way a reader could recover it: every encoding a server may echo it in is
// decoded first (JSON escapes, percent-encoding, HTML references, any letter case, at any depth), and every
// run of base64 is decoded too. Independent of how the redactor finds the key, so that it can judge it.

/** Where in `text` the secret (or its first or last ten characters) can be read, by the decoding that shows it. */
export function secretAppearances(text: string, secret: string): string[] {
  const wanted = [secret, ...(secret.length >= 20 ? [secret.slice(0, 10), secret.slice(-10)] : [])].map((part) => part.toLowerCase());
  const found: string[] = [];
  const look = (how: string, decoded: string) => {
    const lower = decoded.toLowerCase();
    for (const part of wanted) if (lower.includes(part)) found.push(`${how}: ${part === wanted[0] ? 'the whole secret' : `"${part}"`}`);
  };
  const decoded = fullyDecoded(text);
  look('as written or once decoded', decoded);
  for (const run of decoded.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? []) {
    // Each of the four starting points a run of base64 may have been cut at, read as bytes.
    for (let skip = 0; skip < 4; skip++) look(`in base64 (${run.slice(0, 24)}…)`, Buffer.from(run.slice(skip).replaceAll('-', '+').replaceAll('_', '/'), 'base64').toString('latin1'));
  }
  return found;
}

/** The text with JSON escapes, percent-encoding and HTML references undone, again and again until nothing changes. */
function fullyDecoded(text: string): string {
  let current = text;
  for (let round = 0; round < 6; round++) {
    const next = htmlUnescaped(percentDecoded(jsonUnescaped(current)));
    if (next === current) break;
    current = next;
  }
  return current;
}

function jsonUnescaped(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\\(["\\/])/g, '$1');
}

function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return Buffer.from(run.replaceAll('%', ''), 'hex').toString('latin1');
    }
  });
}

function htmlUnescaped(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);?/g, (reference, body: string) => {
    if (body.startsWith('#x')) return String.fromCharCode(Number.parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCharCode(Number(body.slice(1)));
    return named[body] ?? reference;
  });
}

/** Every form a server that echoes a credential can echo it in, and which a report then carries, by name. */
export function echoesOf(secret: string): Record<string, string> {
  const percentAll = (text: string, hex: (byte: number) => string) => [...Buffer.from(text)].map((byte) => `%${hex(byte)}`).join('');
  return {
    'upper-cased': secret.toUpperCase(),
    'lower-cased': secret.toLowerCase(),
    'percent-encoded (encodeURIComponent)': encodeURIComponent(secret),
    'percent-encoded, lower-case hex': encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    'percent-encoded, every byte': percentAll(secret, (byte) => byte.toString(16).toUpperCase().padStart(2, '0')),
    'percent-encoded twice': encodeURIComponent(encodeURIComponent(secret)),
    'form-encoded (URLSearchParams)': new URLSearchParams({ k: secret }).toString().slice(2),
    'JSON-escaped': JSON.stringify(secret).slice(1, -1),
    'JSON-escaped twice': JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1),
    'JSON \\u escapes': [...secret].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    'slashes escaped (PHP)': secret.replaceAll('/', '\\/'),
    'HTML-escaped': secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'),
    'HTML numeric references': [...secret].map((char) => `&#${char.charCodeAt(0)};`).join(''),
    'HTML hex references, escaped again': [...secret].map((char) => `&amp;#x${char.charCodeAt(0).toString(16)};`).join(''),
  };
}

/** The base64 forms a server may echo a credential in: of itself, and as base64url. */
export function base64EchoesOf(secret: string): Record<string, string> {
  return { base64: Buffer.from(secret).toString('base64'), base64url: Buffer.from(secret).toString('base64url') };
}
