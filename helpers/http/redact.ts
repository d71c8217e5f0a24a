/** What the key is replaced with everywhere: the variable a reader would export to reproduce. */
export const KEY_PLACEHOLDER = '$PETSTORE_API_KEY';

/**
 * From this length on, a key is replaced wherever its characters occur: no ordinary word contains a
 * 12-character key by accident. A shorter key (`test`, `k`) would turn "latest" into "la$PETSTORE_API_KEY",
 * so it is replaced only where it stands as a whole token (a header value, a JSON string, a query value).
 */
export const SUBSTRING_REDACTION_FROM = 12;

/**
 * A long key's start or end, at least this long, is replaced too where a mask stands beside it: a server that
 * echoes a key half-masked (`sk_live_4eC3…Zq81vX30wT`, `hostile-ke****X30wT`) must not show it whole across two
 * places. Beside anything else such a start is left alone: a key of `diagnosis-…` must not turn the word
 * "diagnosis" of every report into the placeholder (and tell its reader how the key begins).
 */
export const FRAGMENT_FROM = 8;

/**
 * What a server masks the rest of a key with: an ellipsis (also JSON-, HTML- and percent-encoded), two dots
 * or more, asterisks, bullets. A start is followed by one, an end preceded by one.
 */
const MASK = '(?:…|\\\\u2026|&hellip;|&#8230;|&#x2026;|%E2%80%A6|\\.{2,}|\\*|%2A|•|·)';
const FOLLOWED_BY_MASK = `(?=${MASK})`;
const PRECEDED_BY_MASK = new RegExp(`${MASK}$`, 'i');

// Characters that continue a token: a key preceded or followed by one is part of a longer word, not the
// key. A dot continues it only between two word characters ("e.g.", "v1.2"), so "token e." is still caught.
const WORD = 'A-Za-z0-9_~+/\\-';
// A short key stands alone after a non-word character, and after what encodes a separator: a JSON escape
// (`\n`), a percent-encoded byte (`%20`, `%22`), or Bearer and a space written as `+` (form encoding).
const BEFORE = `(?:(?<![${WORD}]|[A-Za-z0-9]\\.)|(?<=\\\\[nrt]|%[0-9A-Fa-f]{2}|bearer\\+))`;
const AFTER = `(?![${WORD}]|\\.[A-Za-z0-9])`;

// The AUTH-03 near misses of a key this long (the key without its last character) are worth redacting.
const NEAR_MISS_MIN_LENGTH = 8;

/**
 * How deep a report nests one JSON document in another (a body in an exchange in report.json, and that in
 * a page): a replacement keeps the backslashes before what follows it whole at this many levels.
 */
const NESTED_LEVELS = 3;

/**
 * The secrets of one run (its key, a proxy's password) and how to find them in text: the last line of
 * defence before output. Each secret is found in every form a server can echo it in: any letter case,
 * percent-encoded (any characters, hex in either case, even twice), JSON-escaped (`\"`, `\\`, `\/`,
 * `\u0041`, at any depth), HTML-escaped (named and numeric references), and base64 of the secret or of
 * whatever holds it (`Bearer <key>`, `<key>:` under Basic). A replacement never breaks the document it is
 * in: backslashes before the key go with it, and those after it keep their count's parity at every depth.
 * The run makes it and hands it to its client and its reports; nothing is shared between runs, so a run
 * redacts its own key and nothing of another run's, and its cost does not grow with the runs before it.
 */
export class Redactor {
  /** One finder per secret, every form of it an alternative. */
  private readonly finders = new Map<string, SecretFinder | LiteralFinder>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const secret of secrets) if (secret) this.add(secret);
  }

  /**
   * Adds a secret, in every form a request could carry it in or a server echo it in. `placeholder` is what it
   * becomes: the key's variable by default; a header of --header its own (`$PETSTORE_HEADER_X_TENANT`), so that
   * an echo of it names the variable that reproduces it, not the key's.
   */
  add(secret: string, placeholder = KEY_PLACEHOLDER): void {
    if (secret.length === 0 || this.finders.has(secret)) return;
    this.finders.set(secret, new SecretFinder(secret, placeholder));
  }

  /**
   * Adds a text that is never sent, so no server can echo it in any encoding (the private key of --cert-key): it
   * is found only as written.
   */
  addLiteral(text: string, placeholder: string): void {
    if (text.length === 0 || this.finders.has(text)) return;
    this.finders.set(text, new LiteralFinder(text, placeholder));
  }

  /** How many forms it looks for: what redacting a text costs, in proportion. */
  get formCount(): number {
    let count = 0;
    for (const finder of this.finders.values()) count += finder.forms;
    return count;
  }

  /**
   * The length of the regular expressions it searches with: what building it costs and what the engine holds. It
   * does not grow with a secret's length (a key of 8,192 characters costs what one of 1,000 does), only with how
   * many distinct characters it is written with.
   */
  get patternLength(): number {
    let length = 0;
    for (const finder of this.finders.values()) length += finder.patternLength;
    return length;
  }

  /** The text with every form of every secret replaced by the placeholder. */
  redact(text: string): string {
    let result = text;
    for (const finder of this.finders.values()) result = finder.redact(result);
    return result;
  }

  /** Whether any form of a secret is in the text: where a redaction would change it. */
  finds(text: string): boolean {
    for (const finder of this.finders.values()) if (finder.ranges(text).length > 0) return true;
    return false;
  }
}

/** Where one secret stands in a text, in any of its forms. */
class SecretFinder {
  /** The key itself (a short key's every form, each a token). */
  private readonly plain: Search;
  /** A long key's base64, looked for only inside runs of what base64 is written with. */
  private readonly encoded: Search | undefined;
  /** Every four characters in a row of that base64, as one number: a run of plain base64 that holds none of them holds none of it. */
  private readonly anchors = new Set<number>();
  readonly forms: number;

  constructor(secret: string, private readonly placeholder: string) {
    if (isShortSecret(secret)) {
      this.plain = new FormSearch(shortForms(secret), [secret, ...shortBase64(secret)]);
      this.encoded = undefined;
    } else {
      // A long key and its base64 (each alignment, as sent and in the other case) are found whole, by a start or by an end.
      // The key's shorter starts and ends count only beside a mask, as a half-masked echo's stand (FRAGMENT_FROM).
      this.plain = new TextSearch([secret], characterForms, true);
      const base64 = [...new Set([secret, swapCase(secret)])].flatMap(base64Forms);
      this.encoded = new TextSearch(base64, base64Character);
      for (const text of base64) for (let i = 0; i + ANCHOR <= text.length; i++) this.anchors.add(anchorAt(text, i));
    }
    this.forms = this.plain.forms + (this.encoded?.forms ?? 0);
  }

  get patternLength(): number {
    return this.plain.patternLength + (this.encoded?.patternLength ?? 0);
  }

  redact(text: string): string {
    const ranges = this.ranges(text);
    if (ranges.length === 0) return text;
    let result = '';
    let from = 0;
    for (const [start, end] of ranges) {
      result += text.slice(from, start) + replacement(text.slice(start, end), this.placeholder);
      from = end;
    }
    return result + text.slice(from);
  }

  /** Where the secret stands in the text, as [start, end) in order, none overlapping. */
  ranges(text: string): Array<[number, number]> {
    const plain = this.plain.ranges(text, 0, text.length);
    if (!this.encoded) return plain;
    const encoded: Array<[number, number]> = [];
    BASE64_RUN.lastIndex = 0;
    for (let run = BASE64_RUN.exec(text); run; run = BASE64_RUN.exec(text)) {
      if (this.mayHold(run[0])) encoded.push(...this.encoded.ranges(text, run.index, run.index + run[0].length));
    }
    return merged([...plain, ...encoded]);
  }

  /** Whether a run may hold the key's base64: it is written with escapes, or holds four characters of it in a row. */
  private mayHold(run: string): boolean {
    if (/[%\\&]/.test(run)) return true;
    for (let i = 0; i + ANCHOR <= run.length; i++) if (this.anchors.has(anchorAt(run, i))) return true;
    return false;
  }
}

/** A text found only as written, wherever it stands (Redactor.addLiteral). */
class LiteralFinder {
  readonly forms = 1;
  readonly patternLength = 0;

  constructor(private readonly text: string, private readonly placeholder: string) {}

  redact(text: string): string {
    return text.replaceAll(this.text, this.placeholder);
  }

  ranges(text: string): Array<[number, number]> {
    const ranges: Array<[number, number]> = [];
    for (let at = text.indexOf(this.text); at !== -1; at = text.indexOf(this.text, at + this.text.length)) ranges.push([at, at + this.text.length]);
    return ranges;
  }
}

/** The length of the runs of base64 a run is first looked for (SecretFinder.mayHold). */
const ANCHOR = 4;

/** The ANCHOR characters of `text` at `at` as one number (base64 is ASCII: a byte each), found in a set without making a string. */
function anchorAt(text: string, at: number): number {
  return ((text.charCodeAt(at) << 24) | (text.charCodeAt(at + 1) << 16) | (text.charCodeAt(at + 2) << 8) | text.charCodeAt(at + 3)) >>> 0;
}

/** What base64 is written with, percent-encoded, JSON-escaped and HTML-escaped too, in a run long enough to hold a key's. */
const BASE64_RUN = new RegExp(`[A-Za-z0-9+/_=%\\\\&#;-]{${FRAGMENT_FROM + 1},}`, 'g');

/** The ranges in order, those that overlap or touch made one. */
function merged(ranges: Array<[number, number]>): Array<[number, number]> {
  ranges.sort((a, b) => a[0] - b[0]);
  const result: Array<[number, number]> = [];
  for (const range of ranges) {
    const last = result.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else result.push([range[0], range[1]]);
  }
  return result;
}

/** Where a secret's forms stand in a text: what SecretFinder asks of the search for a short key and of that for a long one. */
interface Search {
  /** How many forms it looks for (Redactor.formCount). */
  readonly forms: number;
  /** The length of the regular expressions it compiled (Redactor.patternLength). */
  readonly patternLength: number;
  /** The ranges of the forms that begin in text[from, to) and end by `to`. */
  ranges(text: string, from: number, to: number): Array<[number, number]>;
}

/** One regular expression of forms, each found where it matches: a short key's, whose forms are tokens of a few characters. */
class FormSearch implements Search {
  private readonly pattern: RegExp;
  readonly forms: number;

  /** `forms`: the alternatives; `starters`: what they begin with. */
  constructor(forms: readonly string[], starters: readonly string[]) {
    this.forms = forms.length;
    // Backslashes before a form go with it: a replacement then never leaves one to escape what follows.
    this.pattern = new RegExp(`(?=[${firstCharacters(starters)}])\\\\*(?:${forms.join('|')})`, 'gi');
  }

  get patternLength(): number {
    return this.pattern.source.length;
  }

  ranges(text: string, from: number, to: number): Array<[number, number]> {
    const ranges: Array<[number, number]> = [];
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    this.pattern.lastIndex = 0;
    for (let match = this.pattern.exec(part); match; match = this.pattern.exec(part)) {
      ranges.push([from + match.index, from + match.index + match[0].length]);
      if (match[0].length === 0) this.pattern.lastIndex += 1;
    }
    return ranges;
  }
}

/** What any form of these texts can begin with, as a character class: most positions of a text are passed over by it alone. */
function firstCharacters(starters: readonly string[]): string {
  return [...new Set([...starters.flatMap((text) => [text[0]!, swapCase(text[0]!)]), '\\', '%', '&', '+'])].map((char) => escapeRegExp(char)).join('');
}

/**
 * Texts found whole, by a start of at least FRAGMENT_FROM characters, or by an end as long; each character in
 * the forms `spelled` gives it (characterForms for the key, base64Character for its base64). `bounded`: a start
 * or an end shorter than the text (but the text without its last character) counts only beside a mask.
 *
 * One pattern of every character's forms in a row grows with the text, and stops compiling past a thousand or so
 * characters (a JWT is often longer). So the pattern holds only what every form begins with (each text's first
 * FRAGMENT_FROM characters, and its last as many for an end), and each place it matches is read on in code, one
 * character's forms at a time, trying them in the order that pattern would have: what is found is what it found.
 */
class TextSearch implements Search {
  private readonly pattern: RegExp;
  private readonly texts: readonly SpelledText[];
  /** Each distinct character's forms, compiled once: a text of kilobytes has a few dozen distinct characters. */
  private readonly spellings = new Map<string, CharacterForm>();
  readonly forms: number;

  constructor(texts: readonly string[], spelled: (character: string) => string = characterForms, private readonly bounded = false) {
    this.texts = texts.map((text) => {
      const chars = [...text].map((character) => this.formOf(character, spelled));
      return { chars, end: new RegExp(chars.slice(-FRAGMENT_FROM).map((char) => char.source).join(''), 'iy') };
    });
    this.forms = 2 * texts.length;
    // A start of each text, or its end: what the walk of matchAt begins with, wherever it can succeed.
    const heads = this.texts.flatMap(({ chars }) => [chars.slice(0, FRAGMENT_FROM), chars.slice(-FRAGMENT_FROM)].map((run) => run.map((char) => char.source).join('')));
    const starters = texts.flatMap((text) => [text, text.slice(-FRAGMENT_FROM)]);
    this.pattern = new RegExp(`(?=[${firstCharacters(starters)}])\\\\*(?:${heads.join('|')})`, 'gi');
  }

  private formOf(character: string, spelled: (character: string) => string): CharacterForm {
    let form = this.spellings.get(character);
    if (!form) this.spellings.set(character, (form = new CharacterForm(spelled(character))));
    return form;
  }

  get patternLength(): number {
    let length = this.pattern.source.length;
    for (const { end } of this.texts) length += end.source.length;
    for (const form of this.spellings.values()) length += form.patternLength;
    return length;
  }

  ranges(text: string, from: number, to: number): Array<[number, number]> {
    const ranges: Array<[number, number]> = [];
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    const walked = new Walked(part.length);
    this.pattern.lastIndex = 0;
    for (let candidate = this.pattern.exec(part); candidate; candidate = this.pattern.exec(part)) {
      const found = this.matchAt(part, candidate.index, walked);
      if (!found) {
        this.pattern.lastIndex = candidate.index + 1;
        continue;
      }
      this.pattern.lastIndex = found.end;
      const end = from + found.end;
      const floor = ranges.at(-1)?.[1] ?? 0;
      const start = found.ended ? endStart(text, found.ended.chars, end - found.tail, floor, this.bounded) : from + candidate.index;
      if (start !== undefined) ranges.push([start, end]);
    }
    return ranges;
  }

  /**
   * What the one pattern of every form (`\\*(?:start0|end0|start1|end1|…)`, case-insensitive) would match at
   * `at`: the backslashes there, as many as can go with it first, then each text's start and end in turn.
   */
  private matchAt(part: string, at: number, walked: Walked): { end: number; ended?: SpelledText; tail: number } | undefined {
    let backslashes = 0;
    while (part.charCodeAt(at + backslashes) === BACKSLASH) backslashes += 1;
    for (let taken = backslashes; taken >= 0; taken--) {
      const from = at + taken;
      for (const spelled of this.texts) {
        const end = this.startEnd(part, from, spelled, walked);
        if (end !== undefined) return { end, tail: 0 };
        spelled.end.lastIndex = from;
        const tail = spelled.end.exec(part);
        if (tail) return { end: from + tail[0].length, ended: spelled, tail: tail[0].length };
      }
    }
    return undefined;
  }

  /**
   * Where a start of the text found at `from` ends. Bounded: the whole text, else the text without its last
   * character, else a start of FRAGMENT_FROM characters or more (not that one) followed by a mask, the longest
   * first. Else any start of FRAGMENT_FROM characters or more, the longest.
   */
  private startEnd(part: string, from: number, spelled: SpelledText, walked: Walked): number | undefined {
    const { chars } = spelled;
    if (!this.bounded) return walk(part, from, chars, chars.length, FRAGMENT_FROM, () => true, walked.of(spelled, 0));
    return walk(part, from, chars, chars.length, chars.length, () => true, walked.of(spelled, 0))
      ?? walk(part, from, chars, chars.length - 1, chars.length - 1, () => true, walked.of(spelled, 1))
      ?? walk(part, from, chars, chars.length - 2, FRAGMENT_FROM, (at) => followedByMask(part, at), walked.of(spelled, 2));
  }
}

/** A text to find, each character as its forms, and its last FRAGMENT_FROM characters' forms as one sticky pattern. */
interface SpelledText {
  readonly chars: readonly CharacterForm[];
  readonly end: RegExp;
}

const BACKSLASH = 0x5c;

/** One character's forms, compiled to be read at a place, read back from one, and tried whole on a slice. */
class CharacterForm {
  private readonly at: RegExp;
  readonly before: RegExp;
  private readonly whole: RegExp;

  constructor(readonly source: string) {
    this.at = new RegExp(source, 'iy');
    this.before = new RegExp(`${source}$`, 'i');
    this.whole = new RegExp(`^(?:${source})$`, 'i');
  }

  get patternLength(): number {
    return this.at.source.length + this.before.source.length + this.whole.source.length;
  }

  /** The length of the form that the forms' pattern takes first at `at`, 0 where none matches. */
  firstAt(text: string, at: number): number {
    this.at.lastIndex = at;
    return this.at.exec(text)?.[0].length ?? 0;
  }

  /**
   * The lengths of the other forms that match at `at`, in the order the pattern tries them after the first. Every
   * form alternative is ordered to take more before less (the encoded forms before the character itself, greedy
   * repetitions), so that is the shorter ones, the longest first.
   */
  othersAt(text: string, at: number, first: number): number[] {
    const lengths: number[] = [];
    for (let length = first - 1; length > 0; length--) if (this.whole.test(text.slice(at, at + length))) lengths.push(length);
    return lengths;
  }
}

/** Where a mask begins at `at`. */
function followedByMask(text: string, at: number): boolean {
  MASK_AT.lastIndex = at;
  return MASK_AT.test(text);
}
const MASK_AT = new RegExp(MASK, 'iy');

/** The places a walk found no way on from, per text and kind of walk, in one search of one text: no walk tries them twice. */
class Walked {
  private readonly failed = new Map<SpelledText, DeadEnds[]>();

  constructor(private readonly length: number) {}

  of(spelled: SpelledText, kind: number): DeadEnds {
    let kinds = this.failed.get(spelled);
    if (!kinds) this.failed.set(spelled, (kinds = []));
    return (kinds[kind] ??= new DeadEnds(this.length));
  }
}

/** The characters of one walk that, read from a place, led nowhere. */
class DeadEnds {
  private readonly places = new Set<number>();

  constructor(private readonly length: number) {}

  has(char: number, at: number): boolean {
    return this.places.has(char * (this.length + 1) + at);
  }

  add(char: number, at: number): void {
    this.places.add(char * (this.length + 1) + at);
  }
}

/**
 * Where the characters `chars[0, until)` read from `from` end, then `ends(at)` holding there, as the regular
 * expression `c0 c1 … c(optionalFrom−1) (?:c(optionalFrom) (?:… c(until−1))?)? (?=ends)` would end: each character's
 * forms in the pattern's order, trying the next character before stopping, and going back to a character's other
 * forms when what follows fails. Undefined where it does not match. A loop, not recursion: a text may be 11,000
 * characters (the base64 of a key of 8,192).
 */
function walk(text: string, from: number, chars: readonly CharacterForm[], until: number, optionalFrom: number, ends: (at: number) => boolean, walked: DeadEnds): number | undefined {
  // The characters being read: where each began, and the lengths of its forms left to try after the one taken.
  const begins: number[] = [];
  const untried: Array<number[] | undefined> = [];
  let at = from;
  for (;;) {
    const index = begins.length;
    // Read on from `at`: the next character's first form, or the end of the characters.
    let forward = false;
    if (index === until) {
      if (ends(at)) return at;
    } else if (!walked.has(index, at)) {
      const length = chars[index]!.firstAt(text, at);
      if (length > 0) {
        begins.push(at);
        untried.push(undefined);
        at += length;
        forward = true;
      } else if (index >= optionalFrom && ends(at)) return at;
      else walked.add(index, at);
    }
    if (forward) continue;
    // Nothing follows: back to the last character read, and its next form; once none is left, it may stop there.
    for (;;) {
      const last = begins.length - 1;
      if (last < 0) return undefined;
      const begin = begins[last]!;
      const others = (untried[last] ??= chars[last]!.othersAt(text, begin, at - begin));
      const next = others.shift();
      if (next !== undefined) {
        at = begin + next;
        break;
      }
      begins.pop();
      untried.pop();
      at = begin;
      if (last >= optionalFrom && ends(at)) return at;
      walked.add(last, at);
    }
  }
}

/**
 * Where an end of a text begins that stops with its last characters at `tailStart`: the characters before
 * them are read back, one form at a time, as far as they are the text's (never before `floor`, the last
 * range found), with the backslashes before them.
 */
function endStart(text: string, chars: readonly CharacterForm[], tailStart: number, floor: number, bounded: boolean): number | undefined {
  let start = tailStart;
  let whole = true;
  for (let i = chars.length - FRAGMENT_FROM - 1; i >= 0; i--) {
    const window = text.slice(Math.max(floor, start - LONGEST_CHARACTER_FORM), start);
    const found = chars[i]!.before.exec(window);
    if (!found) {
      whole = false;
      break;
    }
    start -= found[0].length;
  }
  while (start > floor && text[start - 1] === '\\') start -= 1;
  // Masked only: an end that is not the whole key counts only where a mask stands before it.
  if (bounded && !whole && !PRECEDED_BY_MASK.test(text.slice(Math.max(floor, start - LONGEST_CHARACTER_FORM), start))) return undefined;
  return start;
}

/** Longer than any one character's form that characterForms admits in practice (`&amp;amp;#x0041;`, `%252525…`). */
const LONGEST_CHARACTER_FORM = 48;

/**
 * The placeholder, followed by as many of the match's last backslashes as keep the run of backslashes after
 * it, taken at each of NESTED_LEVELS levels of JSON escaping, an escape or a literal as it was: the match took
 * every backslash before it, so what it began with is whole, and this keeps whole what comes after it.
 */
function replacement(match: string, placeholder: string): string {
  const trailing = match.length - match.replace(/\\+$/, '').length;
  return placeholder + '\\'.repeat(trailing % 2 ** NESTED_LEVELS);
}

/**
 * A short key is found only where it stands as a whole token (also followed by the one character AUTH-03's
 * near miss adds), and as the base64 of itself, of Basic's `<key>:` and of `Bearer <key>`, each a token too.
 */
function shortForms(secret: string): string[] {
  const token = (text: string, extra = '') => `${BEFORE}${[...text].map(characterForms).join('')}${extra}${AFTER}`;
  const nearMiss = secret.length >= NEAR_MISS_MIN_LENGTH ? [token(secret.slice(0, -1))] : [];
  // AUTH-03's other near miss is the key and an x: `${key}x`, not a plural.
  return [token(secret, 'x?'), ...nearMiss, ...shortBase64(secret).map((form) => token(form))];
}

/** The base64 a short key is sent or echoed in (as sent, and in the other case), each a token, with its padding and without. */
function shortBase64(secret: string): string[] {
  const spellings = [...new Set([secret, swapCase(secret)])];
  const encoded = spellings.flatMap((spelling) => [spelling, `${spelling}:`, `Bearer ${spelling}`]).map((text) => Buffer.from(text).toString('base64'));
  return [...new Set(encoded.flatMap((form) => [form, form.replace(/=+$/, '')]))];
}

/**
 * The secret's base64 as it reads inside any longer base64 text: encoded after 0, 1 and 2 other bytes, only
 * the characters all of whose bits are the secret's; each also in base64url. `Bearer <key>` encoded whole is
 * among them, as is Basic's `<key>:`.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'latin1');
  const forms = [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Character i holds bits 6i..6i+5; the secret's are 8·offset..8·(offset + length) − 1.
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * (offset + bytes.length)) / 6) - 1;
    return encoded.slice(first, last + 1);
  });
  return [...new Set(forms.flatMap((form) => [form, form.replaceAll('+', '-').replaceAll('/', '_')]))].filter((form) => form.length > FRAGMENT_FROM);
}

/**
 * Every way one character of a secret can be written in text a server echoes and a report holds: itself (any
 * case), after any backslashes (a JSON escape, at any depth), as a JSON `\u` escape, percent-encoded (its UTF-8
 * bytes, hex in either case, `%` itself encoded again any number of times), as an HTML character reference
 * (numeric, or named for the five HTML escapes, `&` itself escaped again), and a space as form encoding's `+`.
 */
function characterForms(character: string): string {
  const cases = [...new Set([character, swapCase(character)])];
  if (cases.length > 1) return `(?:${cases.map(encodedForms).join('|')})`;
  return encodedForms(character);
}

/** The forms of one character in one letter case (its numeric and percent forms differ by case). */
function encodedForms(character: string): string {
  const code = character.charCodeAt(0);
  const hex = code.toString(16);
  const percent = [...Buffer.from(character, 'utf8')].map((byte) => `%(?:25)*${byte.toString(16).padStart(2, '0')}`).join('');
  const named = NAMED_REFERENCES[character];
  // The encoded forms first: the first alternative that lets a match go on is the one taken, and a character
  // that is itself the start of an encoding (`&`, `%`, `\\`) must not stop the key at its first byte.
  const forms = [
    `&(?:amp;)*#(?:0*${code}|x0*${hex});?`,
    ...(named ? [`&(?:amp;)*(?:${named});`] : []),
    `\\\\+u0*${hex}`,
    percent,
    ...(code > 0x7f ? [`%(?:25)*${hex}`] : []),
    ...(character === ' ' ? ['\\+'] : []),
    `\\\\*${escapeRegExp(character)}`,
  ];
  return `(?:${forms.join('|')})`;
}

/**
 * A character of base64 as a server writes base64 out: a letter or digit as it is; `+`, `/`, `=` (and base64url's
 * `-`, `_`) also percent-encoded, JSON-escaped (`\\/`) or as a numeric HTML reference.
 */
function base64Character(character: string): string {
  if (/[A-Za-z0-9]/.test(character)) return character;
  const code = character.charCodeAt(0);
  const hex = code.toString(16);
  return `(?:%(?:25)*${hex}|&(?:amp;)*#(?:0*${code}|x0*${hex});?|\\\\*${escapeRegExp(character)})`;
}

/** The named references HTML escapes these with. */
const NAMED_REFERENCES: Record<string, string> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' };

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
