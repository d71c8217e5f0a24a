import { isUtf8 } from 'node:buffer';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { RecordedResponse } from './exchange.js';
import { parseJson } from '../json.js';

/**
 * Bytes of a body kept as text in the record: any sane Pet Store answer whole (a page of 100 pets is
 * some 10 KB), yet hundreds of hostile megabyte bodies cannot fill the memory of a run or its reports.
 * The check still judges the whole body up to the cap: this bounds only what is kept as evidence.
 */
const KEPT_BODY_BYTES = 64 * 1024;

/** What the record of a response holds of its body. */
export type BodyRecord = Pick<RecordedResponse, 'rawBody' | 'truncated' | 'json' | 'jsonError'>;

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
  if (truncated) return { rawBody, truncated, jsonError: `body cut at ${cap} bytes (--max-response-bytes)` };
  // toString('utf8') would quietly turn bad bytes into U+FFFD and let the text parse: JSON must be UTF-8.
  if (!isUtf8(bytes)) return { rawBody, truncated, jsonError: 'body is not valid UTF-8, which JSON text must be (RFC 8259 §8.1)' };
  try {
    return { rawBody, truncated, json: parseJson(bytes.toString('utf8')) };
  } catch (error) {
    return { rawBody, truncated, jsonError: (error as Error).message };
  }
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
