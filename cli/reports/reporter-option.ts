import { InvalidArgumentError } from 'commander';
import { REPORTER_NAMES, type ReporterName } from './write.js';

/** Parses --reporter (comma-separated, repeatable); a name it does not know is a usage error that lists the known ones. */
export function reporterList(value: string, previous: ReporterName[] = []): ReporterName[] {
  const names = value.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(REPORTER_NAMES as string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(`--reporter takes ${REPORTER_NAMES.join(', ')} (comma-separated), not "${unknown.join(',') || value}".`);
  }
  return [...new Set([...previous, ...(names as ReporterName[])])];
}
