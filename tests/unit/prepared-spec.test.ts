// The build's record of the spec (helpers/spec/prepared.ts) stands in for parsing it only while it says what
// the spec files say: a record of other files, or of another ajv, is not used.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { derivePreparedSpec } from '../../cli/prepare-spec.js';
import { schemaValidatorsCode } from '../../helpers/judge/schema-validators.js';
import { parseSpecFiles, specDocuments } from '../../helpers/spec/documents.js';
import { preparedSpec, preparedValidatorsCode, SPEC_FILES } from '../../helpers/spec/prepared.js';
import { scratchDir } from '../support/scratch.js';

const scratch = scratchDir('petstore-prepared-');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function written(record: unknown): string {
  const path = join(scratch, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(record));
  return path;
}

describe('the build\'s record of the spec', () => {
  const record = derivePreparedSpec();

  it('is read back as written while it matches the spec files and ajv', () => {
    expect(record.openApi).toEqual(parseSpecFiles().openApi);
    expect(preparedSpec(written(record))).toEqual(record);
    expect(preparedValidatorsCode(written(record))).toBe(record.schemaValidatorsCode);
  });

  it('is not used when a spec file changed since the build, or when it is missing or unreadable; its validators not with another ajv', () => {
    for (const name of SPEC_FILES) {
      expect(preparedSpec(written({ ...record, sources: { ...record.sources, [name]: '0'.repeat(64) } })), name).toBeUndefined();
    }
    const otherAjv = written({ ...record, ajv: '0.0.1' });
    expect(preparedSpec(otherAjv)).toEqual({ ...record, ajv: '0.0.1' });
    expect(preparedValidatorsCode(otherAjv)).toBeUndefined();
    expect(preparedSpec(join(scratch, 'missing.json'))).toBeUndefined();
    const torn = join(scratch, 'torn.json');
    writeFileSync(torn, JSON.stringify(record).slice(0, 100));
    expect(preparedSpec(torn)).toBeUndefined();
  });

  it('gives every process the spec and validators the spec files give, whether the build\'s record is there or not', () => {
    expect(specDocuments()).toEqual(parseSpecFiles());
    expect(schemaValidatorsCode()).toBe(record.schemaValidatorsCode);
  });
});
