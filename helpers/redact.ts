/** What the key is replaced with everywhere: the variable a reader would export to reproduce. */
export const KEY_PLACEHOLDER = '$PETSTORE_API_KEY';

const secrets = new Set<string>();

/** Registers a secret; every form a request could carry it in (plain, base64 for Basic, the near misses the auth checks send) is redacted. */
export function registerSecret(secret: string): void {
  if (secret.length === 0) return;
  for (const exposed of [secret, ...nearMisses(secret)]) registerForms(exposed);
}

function registerForms(secret: string): void {
  const forms = [
    secret,
    Buffer.from(secret).toString('base64'),
    Buffer.from(`${secret}:`).toString('base64'),
    encodeURIComponent(secret),
    // A server that echoes the key in JSON with escaped slashes (PHP's default) writes it so.
    secret.replaceAll('/', '\\/'),
  ];
  // Each also as it reads inside a JSON string of a report, where an echoed body is escaped once more.
  for (const form of forms) {
    secrets.add(form);
    secrets.add(JSON.stringify(form).slice(1, -1));
  }
}

// Below this length a near miss is too short to give the key away, and replacing it everywhere would garble reports.
const NEAR_MISS_MIN_LENGTH = 8;

/**
 * The key without its last character and with its letters in the other case: AUTH-03 sends both, and a
 * target that echoes them would otherwise print all but one character of the key. Registered after the
 * key itself, so that the whole key is replaced before its truncated form is looked for.
 */
function nearMisses(secret: string): string[] {
  return secret.length >= NEAR_MISS_MIN_LENGTH ? [secret.slice(0, -1), swapCase(secret)].filter((form) => form !== secret) : [];
}

/** The text with every ASCII letter in the other case: a key a case-insensitive comparison would still accept. */
export function swapCase(text: string): string {
  return text.replace(/[a-z]/gi, (letter) => (letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()));
}

/** The text with every registered secret replaced by the placeholder: the last line of defence before output. */
export function redact(text: string): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length > 0 && result.includes(secret)) result = result.split(secret).join(KEY_PLACEHOLDER);
  }
  return result;
}
