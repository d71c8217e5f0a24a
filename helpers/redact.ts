/** What the key is replaced with everywhere: the variable a reader would export to reproduce. */
export const KEY_PLACEHOLDER = '$PETSTORE_API_KEY';

const secrets = new Set<string>();

/** Registers a secret; every form a request could carry it in (plain, base64 for Basic) is redacted. */
export function registerSecret(secret: string): void {
  if (secret.length === 0) return;
  secrets.add(secret);
  secrets.add(Buffer.from(secret).toString('base64'));
  secrets.add(Buffer.from(`${secret}:`).toString('base64'));
  secrets.add(encodeURIComponent(secret));
}

/** The text with every registered secret replaced by the placeholder: the last line of defence before output. */
export function redact(text: string): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length > 0 && result.includes(secret)) result = result.split(secret).join(KEY_PLACEHOLDER);
  }
  return result;
}
