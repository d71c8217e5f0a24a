// The curl lines a run prints, run as a reader runs them: in a shell, with the key in $PETSTORE_API_KEY, against
// the server that answered the run. What each gets back is the status line curl prints (`curl -i`, `curl -I`).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Entry, Har } from 'har-format';
import type { Report } from '../../cli/reports/report.js';
import { isJsonObject, parseJson, parseOwnJson, type Json } from '../../helpers/json.js';
import type { RunningReferenceServer } from '../../server/reference-server.js';

/** A printed curl line, and the statuses the run recorded for it (several for requests sent together with `&`). */
export interface PrintedLine {
  line: string;
  /** Every status the run recorded for this line (one line may stand for identical requests answered alike or not). */
  recorded: ReadonlySet<number | 'none'>;
  /** How many answers the line brings back: one per curl of it. */
  curls: number;
}

/** Longest a printed line may take: a line that hangs (`curl -X HEAD` waiting for a body) is a line that does not run. */
const LINE_TIMEOUT_MS = 10_000;

/**
 * Every curl line a run printed: each `reproduce:` line of the summary, with the statuses report.json records for
 * that curl, and each line of a FUZZ-03 replay script, with the answers its comment line gives ("→ 201 id 57, 404").
 */
export function printedCurlLines(stdout: string, report: Report): PrintedLine[] {
  const statusesOf = new Map<string, Set<number | 'none'>>();
  for (const rule of report.rules) {
    for (const evidence of rule.evidence) {
      for (const { curl, exchange } of evidence.exchanges) {
        statusesOf.set(curl, (statusesOf.get(curl) ?? new Set()).add(exchange.response?.status ?? 'none'));
      }
    }
  }
  const lines: PrintedLine[] = [];
  const text = stdout.split('\n');
  for (const [index, raw] of text.entries()) {
    const reproduce = /^\s+reproduce: (.*)$/.exec(raw);
    if (reproduce) {
      lines.push({ line: reproduce[1]!, recorded: statusesOf.get(reproduce[1]!) ?? new Set(), curls: 1 });
      continue;
    }
    // A script line: a curl line right under the comment that says what it was answered.
    const answered = /^\s+# \d+\. .* → (.*)$/.exec(text[index - 1] ?? '');
    if (answered && /^\s+curl /.test(raw)) {
      const statuses = [...answered[1]!.matchAll(/(?:^|, )(\d{3})\b|no response/g)].map((match) => (match[1] ? Number(match[1]) : 'none' as const));
      lines.push({ line: raw.trim(), recorded: new Set(statuses), curls: statuses.length });
    }
  }
  return lines;
}

/**
 * Runs each line as printed, in a shell of its own, one after another, and gives each line's status lines: none
 * when curl got no answer, 'hang' when the line did not end within LINE_TIMEOUT_MS (curl -X HEAD waits for a body).
 */
export async function runLines(lines: readonly string[], apiKey: string): Promise<Array<Array<number | 'none' | 'hang'>>> {
  const results: Array<Array<number | 'none' | 'hang'>> = [];
  for (const line of lines) results.push(await runLine(line, apiKey));
  return results;
}

function runLine(line: string, apiKey: string): Promise<Array<number | 'none' | 'hang'>> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', line], { env: { PATH: process.env.PATH ?? '', PETSTORE_API_KEY: apiKey }, maxBuffer: 256 * 1024 * 1024, timeout: LINE_TIMEOUT_MS, killSignal: 'SIGKILL' }, (error, stdout) => {
      if (error?.killed) return resolve(['hang']);
      if (error && typeof error.code !== 'number') return reject(error);
      // Anywhere on a line: requests sent together (`&`) print one after another, the next status line right after a body.
      const statuses = [...stdout.matchAll(/HTTP\/[\d.]+ (\d{3})[ \r\n]/g)].map((match) => Number(match[1]));
      // A line that sends the request before it on one connection first (curl --next): the last answer is the line's.
      const own = / --next /.test(line) ? statuses.slice(-1) : statuses;
      resolve(own.length > 0 ? own : ['none']);
    });
  });
}

/**
 * Every printed line of a run that does not get its recorded status back from the server that answered the run.
 * A line recorded as a 429 is run with the key's window spent (as it was then), every other with a fresh one: the
 * run's probe leaves the window spent, and a reader reproduces a finding on a server whose window has moved on.
 */
export async function unreproduced(stdout: string, report: Report, server: RunningReferenceServer, reportDir: string): Promise<string[]> {
  const changed = changedSince(reportDir, report);
  const lines = printedCurlLines(stdout, report).filter((line) => !changed(line.line));
  // Reads go first: a printed create run before a printed fetch would make the pet the fetch was answered 404 for
  // (the next id), and the fetch would no longer get its recorded answer back.
  const writes = (line: PrintedLine) => !/^curl (-I|-i -X (GET|HEAD|OPTIONS)) /.test(line.line);
  const readsFirst = [...lines.filter((line) => !writes(line)), ...lines.filter(writes)];
  const limited = readsFirst.filter((line) => line.recorded.has(429));
  const others = readsFirst.filter((line) => !line.recorded.has(429));
  const problems: string[] = [];
  const judge = (batch: readonly PrintedLine[], got: ReadonlyArray<ReadonlyArray<number | 'none' | 'hang'>>) => {
    for (const [index, line] of batch.entries()) {
      const statuses = got[index] ?? ['none'];
      const unmatched = statuses.filter((status) => status === 'hang' || !line.recorded.has(status));
      if (line.recorded.size === 0) problems.push(`no recorded answer for the printed line: ${line.line}`);
      else if (unmatched.length > 0 || statuses.length !== line.curls) problems.push(`got ${statuses.join(', ')}, the run recorded ${[...line.recorded].join(' or ')}: ${line.line}`);
    }
  };
  if (limited.length > 0) {
    server.resetRateLimits();
    await spendWindow(server);
    judge(limited, await runLines(limited.map((line) => line.line), server.apiKey));
  }
  server.resetRateLimits();
  judge(others, await runLines(others.map((line) => line.line), server.apiKey));
  return problems;
}

/**
 * Whether what a printed line asks for was changed by the run after it was answered, as the run's own HAR shows: a
 * line run after the run meets the store the run left, not the one it met. A fetch of a pet created, changed or
 * replaced later (a 404 then, a 200 now), and a create of a name the run created, on a server the run saw refuse a
 * name it holds (it answers 409 now), cannot get their recorded answer back from that server; every other line must.
 */
export function changedSince(reportDir: string, report: Report): (line: string) => boolean {
  const har = parseOwnJson(readFileSync(join(reportDir, 'exchanges.har'), 'utf8')) as unknown as Har;
  const base = new URL(report.target.baseUrl).pathname.replace(/\/+$/, '');
  const entries = har.log.entries.map((entry) => {
    const url = new URL(entry.request.url);
    let json: Json | undefined;
    try {
      json = entry.response.content.text ? parseJson(entry.response.content.text) : undefined;
    } catch {
      json = undefined;
    }
    return { seq: (entry as Entry & { _seq?: number })._seq ?? 0, method: entry.request.method, url: entry.request.url, path: url.pathname.slice(base.length), body: entry.request.postData?.text, status: entry.response.status, json };
  });
  const nameOf = (body: string | undefined) => {
    try {
      const sent = body === undefined ? undefined : parseJson(body);
      return isJsonObject(sent) && typeof sent.name === 'string' ? sent.name : undefined;
    } catch {
      return undefined;
    }
  };
  const writes = entries.filter((entry) => entry.status >= 200 && entry.status <= 299 && entry.method !== 'GET' && entry.method !== 'HEAD' && entry.method !== 'OPTIONS');
  const createdNames = new Map<string, number>();
  for (const write of writes.filter((entry) => entry.path === '/pets')) {
    const name = nameOf(write.body);
    if (name !== undefined) createdNames.set(name, Math.min(createdNames.get(name) ?? Infinity, write.seq));
  }
  // The server refuses a name it holds already: the run saw a create of such a name answered otherwise than 2xx.
  const refusesRepeats = entries.some((entry) => entry.method === 'POST' && entry.path === '/pets' && (entry.status < 200 || entry.status > 299)
    && (createdNames.get(nameOf(entry.body) ?? '') ?? Infinity) < entry.seq);
  return (line) => {
    const url = /(?:-I|-X [A-Z]+) (?:'([^']*)'|"([^"]*)")/.exec(line);
    const method = /-I /.test(line) ? 'HEAD' : /-X ([A-Z]+)/.exec(line)?.[1];
    const target = url?.[1] ?? url?.[2];
    if (!target || !method) return false;
    const path = (() => {
      try {
        return new URL(target.replace(/\$\{?PETSTORE_API_KEY\}?/g, 'k')).pathname.slice(base.length);
      } catch {
        return '';
      }
    })();
    const id = /^\/pets\/(-?\d+)$/.exec(path)?.[1];
    if ((method === 'GET' || method === 'HEAD') && id !== undefined) {
      const first = Math.min(...entries.filter((entry) => entry.method === method && entry.path === path).map((entry) => entry.seq));
      const names = new Set(entries.filter((entry) => entry.status === 200 && (entry.path === path || entry.path === '/pets')).flatMap((entry) => (Array.isArray(entry.json) ? entry.json : [entry.json]))
        .filter((item) => isJsonObject(item) && String(item.id) === id).map((item) => (item as Record<string, Json>).name));
      return writes.some((write) => write.seq > first && (write.path === path
        || (write.path === '/pets' && isJsonObject(write.json) && (String(write.json.id) === id || names.has(write.json.name as Json)))));
    }
    if (method === 'POST' && path === '/pets') {
      const name = nameOf(/--data-binary '((?:[^']|'\\'')*)'/.exec(line)?.[1]?.replace(/'\\''/g, "'"));
      return refusesRepeats && name !== undefined && createdNames.has(name);
    }
    return false;
  };
}

/** Spends the key's window, as the run's probe did, so that the next request with the key is over the limit. */
async function spendWindow(server: RunningReferenceServer): Promise<void> {
  for (let sent = 0; sent < 100_000; sent += 1) {
    const response = await fetch(`${server.url}/pets?limit=1`, { headers: { authorization: `Bearer ${server.apiKey}` } });
    await response.arrayBuffer();
    if (response.status === 429) return;
  }
}
