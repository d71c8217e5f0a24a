// verify re-judges a run on the recording's clock; the process around it keeps its own.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../helpers/http/redact.js';
import { ReplaySource } from '../../helpers/http/replay.js';

const STARTED_AT_MS = Date.parse('2026-01-31T10:00:00.000Z');

function emptyRecording(): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-replay-'));
  const harPath = join(dir, 'exchanges.har');
  writeFileSync(harPath, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '0' }, entries: [] } }));
  return harPath;
}

describe('a replay', () => {
  it('keeps the recording\'s clock for the run, and leaves Date.now to the process', async () => {
    const dateNow = Date.now;
    const harPath = emptyRecording();
    const replay = new ReplaySource(harPath, STARTED_AT_MS, `${harPath}.unmatched.jsonl`, new Redactor());
    expect(Date.now).toBe(dateNow);
    expect(Date.now()).toBeGreaterThan(STARTED_AT_MS + 1);
    expect(replay.now()).toBe(STARTED_AT_MS);
    await replay.sleep(5_000);
    expect(replay.now()).toBe(STARTED_AT_MS + 5_000);
  });
});
