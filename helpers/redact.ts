/** What the key is replaced with everywhere: the variable a reader would export to reproduce. */
export const KEY_PLACEHOLDER = '$PETSTORE_API_KEY';

const secrets = new Set<string>();

/** Registers a secret; every form a request could carry it in (plain, base64 for Basic) is redacted. */
export function registerSecret(secret: string): void {
  if (secret.length === 0) return;
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

/** The text with every registered secret replaced by the placeholder: the last line of defence before output. */
export function redact(text: string): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length > 0 && result.includes(secret)) result = result.split(secret).join(KEY_PLACEHOLDER);
  }
  return result;
}
