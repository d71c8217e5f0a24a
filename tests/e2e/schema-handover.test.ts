// Every run's suite worker judges bodies with validators evaluated from the code the CLI generated, so
// that it never loads ajv: it must judge exactly as the thread that generated the code does.
// By hand:  npm run build && npx vitest run tests/e2e/schema-handover.test.ts
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { schemaValidatorsCode } from '../../helpers/judge/schema-validators.js';
import { validateSchema, type SchemaName, type SchemaProblem } from '../../helpers/judge/schema.js';
import { packagePath } from '../../helpers/package-root.js';

const pet = { id: 1, name: 'Rex', categoryId: 2, status: 'available' };
const CASES: Array<[SchemaName, unknown]> = [
  ['Pet', pet],
  ['Pet', { ...pet, id: 9007199254740993n }],
  ['Pet', { ...pet, id: 9223372036854775808n }],
  ['Pet', { ...pet, id: 2 ** 60 }],
  ['Pet', { ...pet, status: 'Available' }],
  ['NewPet', { name: 7 }],
  ['PetList', [pet, { ...pet, categoryId: '2' }]],
];

// A thread set up as the suite worker is: it adopts the code, then judges with the built modules.
const WORKER_SOURCE = `
  const { parentPort, workerData } = require('node:worker_threads');
  (async () => {
    const { adoptSchemaValidatorsCode } = await import(workerData.validatorsModule);
    const { validateSchema } = await import(workerData.schemaModule);
    adoptSchemaValidatorsCode(workerData.code);
    const judged = workerData.cases.map(([name, value]) => validateSchema(name, value));
    parentPort.postMessage({ judged, loaded: Object.keys(require.cache) });
  })();
`;

interface WorkerJudgement {
  judged: SchemaProblem[][];
  /** The CommonJS modules the thread loaded. */
  loaded: string[];
}

function judgeInWorker(code: string): Promise<WorkerJudgement> {
  const builtModule = (...path: string[]) => pathToFileURL(packagePath('dist', 'helpers', 'judge', ...path)).href;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { code, cases: CASES, validatorsModule: builtModule('schema-validators.js'), schemaModule: builtModule('schema.js') },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (message: WorkerJudgement) => void worker.terminate().then(() => resolve(message)));
    worker.once('error', reject);
  });
}

describe('a thread handed the schema validators\' code', () => {
  it('judges as the thread that generated it, without loading ajv or ajv-formats', async () => {
    const here = CASES.map(([name, value]) => validateSchema(name, value));
    expect(here.map((problems) => problems.map((problem) => problem.path))).toEqual([
      [], [], ['/id'], ['/id'], ['/status'], ['/categoryId', '/name'], ['/1/categoryId'],
    ]);
    const there = await judgeInWorker(schemaValidatorsCode());
    expect(there.judged).toEqual(here);
    expect(there.loaded.filter((file) => /[/\\]node_modules[/\\]ajv(-formats)?[/\\]/.test(file))).toEqual([]);
  });
});
