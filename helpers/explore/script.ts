// A failing sequence of the stateful exploration as a person replays it: the shrunk commands as lines, and a
// shell script of one curl line per command (requests in flight together sent with `&`), the key left as
// $PETSTORE_API_KEY, exactly the requests the shrunk attempt sent.
import { curlFor, type Exchange } from '../http/exchange.js';
import { createdId } from './judge.js';
import type { ExecutedCommand, SequenceFailure } from './explore.js';

/** How one answer came back, as a command line shows it: "201 id 57", "404". */
function answered(exchange: Exchange): string {
  if (!exchange.response) return `no response (${exchange.error ?? 'unknown'})`;
  const id = createdId(exchange);
  return id === undefined ? String(exchange.response.status) : `${exchange.response.status} id ${id}`;
}

/** The shrunk commands, numbered, each with what its answers were: "3. fetch pet a (id 57) → 404". */
export function commandLines(executed: readonly ExecutedCommand[]): string[] {
  return executed.map(({ command, exchanges }, index) => `${index + 1}. ${command} → ${exchanges.map(answered).join(', ') || 'not answered'}`);
}

/** One curl line for a command: its requests, sent together when there are several, as the run sent them. */
export function curlLine(exchanges: readonly Exchange[]): string {
  const curls = exchanges.map((exchange) => curlFor(exchange.request));
  return curls.length > 1 ? `${curls.join(' & ')} & wait` : curls[0] ?? '';
}

/**
 * The replay script of a failing sequence: what it is and how the run replays it, then each command as a
 * comment and its curl line. The ids are the ones this target gave; on another store a create gets another.
 */
export function replayScript(failure: SequenceFailure, runSeed: number, replay: string): string {
  const lines = [
    `# FUZZ-03, sequence ${failure.lane}: ${failure.about}`,
    `# seed ${runSeed} (the sequence's own: ${failure.seed}, fast-check path ${failure.path || 'none'}), ${failure.executed.length} command(s); the last one breaks ${failure.finding.rule}`,
    `# the run replays it with: ${replay}`,
    '# the key stays in $PETSTORE_API_KEY; ids are the ones this target gave',
  ];
  for (const [index, executed] of failure.executed.entries()) {
    lines.push(`# ${commandLines([executed])[0]!.replace(/^1\./, `${index + 1}.`)}`, curlLine(executed.exchanges));
  }
  return lines.join('\n');
}
