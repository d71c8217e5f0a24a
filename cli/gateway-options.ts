// The options a gateway in front of staging needs: its own headers (--header) and a client certificate (--cert,
// --cert-key). Checked before anything is sent, each refusal one line that names the header but never its value.
import { createSecureContext } from 'node:tls';
import { MAX_CLIENT_CERTIFICATE_BYTES, readBoundedFile, UnreadableFile } from '../helpers/bounded-file.js';
import { headerPlaceholder, headerVariable, SUITE_OWNED_HEADERS } from '../helpers/http/extra-headers.js';
import { MAX_SECRET_LENGTH, vocabularyProblem } from './secret-check.js';
import { UsageError } from './usage-error.js';

/** RFC 9110 §5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The headers of --header (or the API's `headers`), by name as given: `Name: value` lines, or (the API) a record.
 * `name` is how the person gave them (--header, headers). Undefined when there are none.
 */
export function checkedHeaders(value: unknown, name: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const pairs = headerPairs(value, name);
  const checked: Record<string, string> = {};
  const byVariable = new Map<string, string>();
  for (const [header, headerValue] of pairs) {
    if (!TOKEN.test(header)) throw new UsageError(`${name} names the header ${JSON.stringify(header)}, which is not an HTTP header name (letters, digits and !#$%&'*+-.^_\`|~ only)`);
    const owned = SUITE_OWNED_HEADERS.get(header.toLowerCase());
    if (owned) throw new UsageError(`${name} ${header} is refused: the suite sets that header itself (${owned})`);
    const twin = byVariable.get(headerVariable(header));
    if (twin !== undefined) {
      throw new UsageError(twin.toLowerCase() === header.toLowerCase()
        ? `${name} gives ${header} twice: give each header once`
        : `${name} gives ${twin} and ${header}, which the reports would both name ${headerPlaceholder(header)}: give one of them`);
    }
    byVariable.set(headerVariable(header), header);
    const problem = headerValueProblem(headerValue, `${name} ${header}`, header);
    if (problem) throw new UsageError(problem);
    checked[header] = headerValue;
  }
  return pairs.length === 0 ? undefined : checked;
}

/** The name and value of each header given, a `Name: value` line's value without the spaces around it (HTTP drops them). */
function headerPairs(value: unknown, name: string): Array<[string, string]> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.every(([, each]) => typeof each === 'string')) return entries as Array<[string, string]>;
  } else if (Array.isArray(value) && value.every((each) => typeof each === 'string')) {
    return (value as string[]).map((line, index) => {
      const colon = line.indexOf(':');
      // The line is not shown: without its colon there is no telling its name from a value, which may be a secret.
      if (colon <= 0) throw new UsageError(`${name} (the ${ordinal(index + 1)}) is not "Name: value"; give each header as e.g. 'X-Gateway-Token: <token>'`);
      return [line.slice(0, colon), line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '')];
    });
  }
  throw new UsageError(`${name} takes ${name.startsWith('--') ? "'Name: value' (repeatable)" : 'a record of header names to values, or a list of "Name: value" strings'}, not ${Array.isArray(value) ? 'a list of other things' : typeof value}`);
}

/**
 * Why a header's value cannot be sent or kept out of the reports, or undefined. A line break would end the header
 * and start another of the person's choosing (header injection); HTTP carries Latin-1 and no control characters.
 */
function headerValueProblem(value: string, name: string, header: string): string | undefined {
  if (value.length > MAX_SECRET_LENGTH) return `${name}: its value is ${value.length} characters long, more than the ${MAX_SECRET_LENGTH} a header may hold here`;
  if (/[\r\n]/.test(value)) return `${name}: its value holds a line break (CR or LF), which no HTTP header can carry; give the value on one line`;
  if (value.includes('\u0000')) return `${name}: its value holds a NUL character, which no HTTP header can carry`;
  const control = /[\u0001-\u0008\u000b-\u001f\u007f]/.exec(value);
  if (control) return `${name}: its value holds a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}), which no HTTP header can carry`;
  if (/[^\u0000-\u00ff]/u.test(value)) return `${name}: its value holds a character outside Latin-1, which no HTTP header can carry`;
  if (/^[ \t]|[ \t]$/.test(value)) return `${name}: its value begins or ends with a space or tab, which HTTP drops; give it without`;
  // The value is a secret of the run, replaced wherever it stands: a common word would garble every report.
  return value === '' ? undefined : vocabularyProblem(value, `${name}'s value`, headerPlaceholder(header));
}

function ordinal(n: number): string {
  return `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;
}

/**
 * --cert and --cert-key, both or neither: a certificate that cannot be used would only fail mid-handshake, on every
 * request, so it is read and tried here. `names` are how the person gave them (--cert, cert). No passphrase is
 * taken: a CI secret file holds the key as it is, and an encrypted key is refused with how to decrypt it.
 */
export function checkClientCertificate(cert: string | undefined, certKey: string | undefined, names: { cert: string; certKey: string }, baseUrl: string | undefined): void {
  if (cert === undefined && certKey === undefined) return;
  if (cert === undefined || certKey === undefined) throw new UsageError(`${names.cert} and ${names.certKey} go together: give the certificate (PEM) and its private key (PEM)`);
  if (baseUrl === undefined || !baseUrl.startsWith('https:')) {
    throw new UsageError(`${names.cert} is presented on TLS connections only, and the target is ${baseUrl ?? 'the bundled reference server'} (http): give the https:// address`);
  }
  const files = { cert: pemFile(cert, `${names.cert} ${cert}`, 'a client certificate'), key: pemFile(certKey, `${names.certKey} ${certKey}`, 'a private key') };
  const certText = files.cert.toString('utf8');
  const keyText = files.key.toString('utf8');
  if (!certText.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`${names.cert} ${cert} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the client certificate in PEM form`);
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(keyText)) {
    throw new UsageError(`${names.certKey} ${certKey} is encrypted, and the suite takes no passphrase: keep the key unencrypted in a CI secret file (openssl pkey -in ${certKey} -out <file>)`);
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(keyText)) throw new UsageError(`${names.certKey} ${certKey} holds no PEM private key (-----BEGIN PRIVATE KEY-----): give the certificate's key in PEM form`);
  try {
    createSecureContext({ cert: files.cert, key: files.key });
  } catch (error) {
    // OpenSSL's reason ("key values mismatch"), which quotes neither file.
    const reason = (error as Error).message.split('::').at(-1) ?? 'unusable';
    throw new UsageError(`${names.cert} ${cert} and ${names.certKey} ${certKey} cannot be used together (${reason}): give the certificate and the private key it was issued for`);
  }
}

/** The file as the connections will read it (a FIFO or a huge file refused); `shown` names it in the refusal. */
function pemFile(path: string, shown: string, what: string): Buffer {
  try {
    return readBoundedFile(path, MAX_CLIENT_CERTIFICATE_BYTES, what);
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    throw new UsageError(`cannot read ${shown} (${error.reason}): give ${what} in PEM form`);
  }
}
