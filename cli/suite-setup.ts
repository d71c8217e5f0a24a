// Runs in the suite worker before each area's file (vitest's setupFiles): the worker judges with the
// spec documents the CLI read and the schema validators it generated, rather than reading, parsing and
// compiling them again in every run's fresh worker.
import { inject } from 'vitest';
import { adoptSpecDocuments } from '../helpers/spec/documents.js';

adoptSpecDocuments(inject('specDocuments'));
// Imported only once the documents are adopted: it imports the spec facts, which read the documents as
// they load, and would find none handed over yet.
const { adoptSchemaValidatorsCode } = await import('../helpers/judge/schema-validators.js');
adoptSchemaValidatorsCode(inject('schemaValidators'));
