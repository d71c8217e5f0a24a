// Runs in the suite worker before each area's file (vitest's setupFiles): the worker judges with the
// spec documents the CLI read and the schema validators it generated, rather than reading, parsing and
// compiling them again in every run's fresh worker.
import { inject, type ProvidedContext } from 'vitest';
import { adoptSpecDocuments } from '../helpers/spec/documents.js';

adoptSpecDocuments(handedOver('specDocuments'));
// Imported only once the documents are adopted: it imports the spec facts, which read the documents as
// they load, and would find none handed over yet.
const { adoptSchemaValidatorsCode } = await import('../helpers/judge/schema-validators.js');
adoptSchemaValidatorsCode(handedOver('schemaValidators'));

/** What the engine provided; a worker without it would quietly read and compile the spec itself, so it stops instead. */
function handedOver<K extends keyof ProvidedContext>(key: K): ProvidedContext[K] {
  const value = inject(key);
  if (value === undefined) throw new Error(`the suite engine handed the worker no ${key}: a bug of the engine, not of the target`);
  return value;
}
