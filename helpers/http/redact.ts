/** What the key is replaced with everywhere: the variable a reader would export to reproduce. */
export const KEY_PLACEHOLDER = '$PETSTORE_API_KEY';

/**
 * From this length on, a key is replaced wherever its characters occur: no ordinary word contains a
 * 12-character key by accident. A shorter key (`test`, `k`) would turn "latest" into "la$PETSTORE_API_KEY",
 * so it is replaced only where it stands as a whole token (a header value, a JSON string, a query value).
 */
export const SUBSTRING_REDACTION_FROM = 12;

// Characters that continue a token: a key preceded or followed by one is part of a longer word, not the
// key. A dot continues it only between two word characters ("e.g.", "v1.2"), so "token e." is still caught.
const WORD = 'A-Za-z0-9_~+/\\-';
const BEFORE = `(?<![${WORD}]|[A-Za-z0-9]\\.)`;
const AFTER = `(?![${WORD}]|\\.[A-Za-z0-9])`;

// Below this length a near miss is too short to give the key away, and replacing it everywhere would garble reports.
const NEAR_MISS_MIN_LENGTH = 8;

/**
 * The secrets of one run (its key, a proxy's password) and how to find them in text: the last line of
 * defence before output. The run makes it and hands it to its client and its reports; nothing is shared
 * between runs, so a run redacts its own key and nothing of another run's, and its cost does not grow
 * with the runs a process made before it.
 */
export class Redactor {
  /** Each form of every secret, with how it is found: everywhere, or as a whole token only. */
  private readonly forms = new Map<string, RegExp | undefined>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const secret of secrets) if (secret) this.add(secret);
  }

  /** Adds a secret; every form a request could carry it in (plain, base64 for Basic, the near misses the auth checks send) is redacted. */
  add(secret: string): void {
    if (secret.length === 0) return;
    for (const exposed of [secret, ...nearMisses(secret)]) this.addForms(exposed);
  }

  /** How many forms it looks for: what redacting a text costs, in proportion. */
  get formCount(): number {
    return this.forms.size;
  }

  /** The text with every form of every secret replaced by the placeholder. */
  redact(text: string): string {
    let result = text;
    for (const [secret, token] of this.forms) {
      if (!result.includes(secret)) continue;
      result = token ? result.replace(token, KEY_PLACEHOLDER) : result.split(secret).join(KEY_PLACEHOLDER);
    }
    return result;
  }

  private addForms(secret: string): void {
    const forms = [
      secret,
      Buffer.from(secret).toString('base64'),
      Buffer.from(`${secret}:`).toString('base64'),
      encodeURIComponent(secret),
      // A server that echoes the key in JSON with escaped slashes (PHP's default) writes it so.
      secret.replaceAll('/', '\\/'),
    ];
    const wholeTokenOnly = isShortSecret(secret);
    // Each also as it reads inside a JSON string of a report, where an echoed body is escaped once more.
    for (const form of forms.flatMap((f) => [f, JSON.stringify(f).slice(1, -1)])) {
      if (this.forms.has(form) && this.forms.get(form) === undefined) continue;
      this.forms.set(form, wholeTokenOnly ? new RegExp(`${BEFORE}${escapeRegExp(form)}${AFTER}`, 'g') : undefined);
    }
  }
}

/**
 * The key without its last character and with its letters in the other case: AUTH-03 sends both, and a
 * target that echoes them would otherwise print all but one character of the key. Added after the key
 * itself, so that the whole key is replaced before its truncated form is looked for.
 */
function nearMisses(secret: string): string[] {
  return secret.length >= NEAR_MISS_MIN_LENGTH ? [secret.slice(0, -1), swapCase(secret)].filter((form) => form !== secret) : [];
}

/** The text with every ASCII letter in the other case: a key a case-insensitive comparison would still accept. */
export function swapCase(text: string): string {
  return text.replace(/[a-z]/gi, (letter) => (letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()));
}

/** A key this short is redacted only where it stands alone: the run says so once, at the start. */
export function isShortSecret(secret: string): boolean {
  return secret.length > 0 && secret.length < SUBSTRING_REDACTION_FROM;
}

/** `text` as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
