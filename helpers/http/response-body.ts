import { isUtf8 } from 'node:buffer';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { RecordedResponse } from './exchange.js';
import { isJsonObject, parseJson, type Json } from '../json.js';

/**
 * Bytes of a body kept as text in the record: any sane Pet Store answer whole (a page of 100 pets is
 * some 10 KB), yet a thousand answers of a megabyte each cannot fill the memory of a run or its reports.
 */
const KEPT_BODY_BYTES = 16 * 1024;

/**
 * Characters of one JSON string kept in the parsed body, the rest replaced by a note of how many there were:
 * ten times the longest name the suite sends, so that every string it compares is kept whole, and a field
 * of a megabyte (a freedom the spec leaves a server) costs a run a few kilobytes per answer, not a megabyte.
 */
export const KEPT_STRING_CHARS = 4096;

/**
 * Values (every string, number, array, object…) of one parsed body the record keeps: a page of 100 pets with
 * dozens of fields each. A body of more is no JSON the suite can use, and is judged as such, as one too deep is.
 */
export const KEPT_JSON_VALUES = 10_000;

/** What the record of a response holds of its body. */
export type BodyRecord = Pick<RecordedResponse, 'rawBody' | 'bodyBytes' | 'truncated' | 'json' | 'jsonError'>;

// The client sends no Accept-Encoding, which RFC 9110 §12.5.3 reads as "any coding is acceptable": a
// server may compress unasked. Such a body is judged on its content, decoded with the same cap as the
// wire, so a gzip bomb costs at most `cap` bytes of memory, never its inflated size.
const DECODERS: Record<string, (bytes: Buffer, options: { maxOutputLength: number }) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/**
 * Reads a body as evidence: at most `cap` bytes off the wire and at most `cap` once decoded, then
 * parsed as JSON, or with the reason it is not (cut at the cap, undecodable, not UTF-8, malformed).
 */
export async function readBody(stream: AsyncIterable<Buffer> & { destroy(): unknown }, contentEncoding: string | undefined, cap: number): Promise<BodyRecord> {
  const wire = await readCapped(stream, cap);
  const rawWire = keptText(wire.bytes);
  if (wire.bytes.length === 0) return { rawBody: '', truncated: wire.truncated };
  const coding = contentEncoding?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    if (wire.truncated) return { rawBody: rawWire, truncated: true, jsonError: `body cut at ${cap} bytes (--max-response-bytes) before it could be decoded (Content-Encoding: ${coding})` };
    const decoded = decode(wire.bytes, coding, cap);
    if ('problem' in decoded) return { rawBody: rawWire, truncated: decoded.overCap, jsonError: decoded.problem };
    return parsed(decoded.bytes, false, cap);
  }
  return parsed(wire.bytes, wire.truncated, cap);
}

/** The decoded bytes, or why there are none (`overCap` when it is the cap that stopped decoding). */
function decode(bytes: Buffer, coding: string, cap: number): { bytes: Buffer } | { problem: string; overCap: boolean } {
  const decoder = DECODERS[coding];
  if (!decoder) return { problem: `body sent with Content-Encoding: ${coding}, which the suite cannot decode (the request sent no Accept-Encoding)`, overCap: false };
  try {
    return { bytes: decoder(bytes, { maxOutputLength: cap }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      return { problem: `body decodes (Content-Encoding: ${coding}) to more than ${cap} bytes (--max-response-bytes); decoding stopped there`, overCap: true };
    }
    return { problem: `body sent with Content-Encoding: ${coding} does not decode: ${(error as Error).message}`, overCap: false };
  }
}

function parsed(bytes: Buffer, truncated: boolean, cap: number): BodyRecord {
  const rawBody = keptText(bytes);
  const read = bytes.length > KEPT_BODY_BYTES ? { bodyBytes: bytes.length } : {};
  if (truncated) return { rawBody, ...read, truncated, jsonError: `body cut at ${cap} bytes (--max-response-bytes)` };
  // toString('utf8') would quietly turn bad bytes into U+FFFD and let the text parse: JSON must be UTF-8.
  if (!isUtf8(bytes)) return { rawBody, ...read, truncated, jsonError: 'body is not valid UTF-8, which JSON text must be (RFC 8259 §8.1)' };
  return { rawBody, ...read, truncated, ...keptBody(bytes.toString('utf8')) };
}

/**
 * A body's JSON as the record keeps it, which is what every check judges and every report shows: each string of
 * more than KEPT_STRING_CHARS (a member's name too) cut to them, with a note of what was left out (a comparison
 * with what the suite sent, or an enum, judges it as it would the whole string); or, past KEPT_JSON_VALUES values,
 * or malformed, why there is none. The strings are cut in the text, before it is parsed: the lossless parser reads
 * a string of a megabyte in a tenth of a second, a thousand of them in minutes.
 */
export function keptBody(text: string): Pick<RecordedResponse, 'json' | 'jsonError'> {
  let json: Json;
  try {
    json = parseJson(withLongStringsCut(text));
  } catch (error) {
    return { jsonError: (error as Error).message };
  }
  const values = countValues(json, KEPT_JSON_VALUES);
  if (values > KEPT_JSON_VALUES) return { jsonError: `JSON of more than ${KEPT_JSON_VALUES} values: the suite keeps no more of one body (a page of 100 pets holds some 600)` };
  return { json };
}

/** JSON text with every string literal longer than KEPT_STRING_CHARS (once decoded) written as it is kept. */
function withLongStringsCut(text: string): string {
  let result = '';
  let from = 0;
  // From quote to quote by indexOf, native and some thirty times faster than reading each character.
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) {
    // The string literal that opens here: to the first quote after it that no backslash escapes.
    let end = text.indexOf('"', i + 1);
    while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
    if (end === -1) return text; // unterminated: the parser says where
    if (end - i - 1 > KEPT_STRING_CHARS) {
      const literal = text.slice(i, end + 1);
      let value: string;
      try {
        value = JSON.parse(literal) as string;
      } catch {
        return text; // malformed: the parser says where
      }
      if (value.length > KEPT_STRING_CHARS) {
        result += text.slice(from, i) + JSON.stringify(`${wholeEscapes(value.slice(0, KEPT_STRING_CHARS))}… [${value.length - KEPT_STRING_CHARS} more characters, not kept]`);
        from = end + 1;
      }
    }
    i = end;
  }
  return from === 0 ? text : result + text.slice(from);
}

const BACKSLASH = 0x5c;

/**
 * The kept start of a string without the escape its cut split (`&amp;#x6`, `%2`, `\u00`): the cut is then a mask
 * right after the last whole character, where the redactor finds a start of the key, in whatever encoding a server
 * echoed it, as it finds any half-masked echo of it (helpers/http/redact.ts).
 */
function wholeEscapes(start: string): string {
  return start.replace(/(?:&(?:amp;)*#?[0-9A-Za-z]{0,8}|%(?:25)*[0-9A-Fa-f]?|\\+u?[0-9A-Fa-f]{0,3})$/, '');
}

/** Whether the character at `at` follows an odd run of backslashes, which escapes it. */
function isEscaped(text: string, at: number): boolean {
  let run = 0;
  while (at - run - 1 >= 0 && text.charCodeAt(at - run - 1) === BACKSLASH) run += 1;
  return run % 2 === 1;
}

/** How many values `json` holds, counted up to one past `most`. */
function countValues(json: Json, most: number): number {
  let count = 0;
  const stack: Json[] = [json];
  while (stack.length > 0 && count <= most) {
    const value = stack.pop()!;
    count += 1;
    if (Array.isArray(value)) for (const item of value) stack.push(item);
    else if (isJsonObject(value)) for (const member of Object.values(value)) stack.push(member);
  }
  return count;
}

function keptText(bytes: Buffer): string {
  if (bytes.length <= KEPT_BODY_BYTES) return bytes.toString('utf8');
  return `${bytes.subarray(0, KEPT_BODY_BYTES).toString('utf8')}… [${bytes.length - KEPT_BODY_BYTES} more bytes read, not kept]`;
}

/** At most `cap` bytes of the body; the rest is never read (the connection is dropped instead). */
async function readCapped(stream: AsyncIterable<Buffer> & { destroy(): unknown }, cap: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > cap) {
      stream.destroy();
      return { bytes: Buffer.concat(chunks).subarray(0, cap), truncated: true };
    }
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}
