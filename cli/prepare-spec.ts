// A step of the build (`npm run build`, `npm test`): writes what the build derives from spec/ once, the parsed
// files and the schema validators' code, for every later process to read instead of deriving it again
// (helpers/spec/prepared.ts says when a process uses it, and when it parses the spec itself).
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { generateCode } from '../helpers/judge/schema-validators.js';
import { parseSpecFiles } from '../helpers/spec/documents.js';
import { openApiSchemas } from '../helpers/spec/facts.js';
import { ajvVersion, preparedSpecPath, specSources, type PreparedSpec } from '../helpers/spec/prepared.js';

/** The record of the spec files as they read now. */
export function derivePreparedSpec(): PreparedSpec {
  const documents = parseSpecFiles();
  return { sources: specSources(), ajv: ajvVersion(), ...documents, schemaValidatorsCode: generateCode(openApiSchemas(documents.openApi)) };
}

// Run as a script (`node dist/cli/prepare-spec.js`), it writes the record; imported, it only offers the function.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(preparedSpecPath(), JSON.stringify(derivePreparedSpec()));
}
