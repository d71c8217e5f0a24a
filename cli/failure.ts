import type { Redactor } from '../helpers/http/redact.js';
import { UsageError } from './resolve-options.js';
import { EXIT } from './policy/verdict.js';
import { terminalText } from './reports/safe-text.js';

/** The target cannot be talked to at all: exit code 3. Here, not in preflight.ts, so that a usage error loads no HTTP client. */
export class TargetUnreachable extends Error {
  override name = 'TargetUnreachable';
}

/** How an invocation that threw instead of reaching a verdict ends: its exit code and what stderr says. */
export interface FailedInvocation {
  exitCode: number;
  stderr: string;
}

/**
 * Bad usage exits 2 and an unreachable target 3, each with its one-line reason; anything else is a bug of
 * petstore-conformance itself, which exits 4 and says so plainly, without a stack a user cannot act on
 * (DEBUG prints it). Every line passes through the invocation's redactor.
 */
export function failedInvocation(error: unknown, debug: boolean, redactor: Redactor): FailedInvocation {
  const line = (message: string) => `petstore-conformance: ${terminalText(redactor.redact(message))}\n`;
  if (error instanceof UsageError) return { exitCode: EXIT.usage, stderr: line(error.message) };
  if (error instanceof TargetUnreachable) return { exitCode: EXIT.notJudged, stderr: line(error.message) };
  const stderr = [
    line(`internal error: ${error instanceof Error ? error.message : String(error)}`),
    'This is a bug of petstore-conformance itself, not of the target: please report it to its maintainers with the command you ran and what DEBUG=1 prints.\n',
    debug ? `${terminalText(redactor.redact(String((error as Error).stack)))}\n` : '',
  ];
  return { exitCode: EXIT.suiteBroke, stderr: stderr.join('') };
}
