// The suite worker thread: vitest's own thread runtime (vitest/worker), kept listening after a run so the
// engine's next run finds vitest, undici and the rest of the runtime already loaded (cli/suite-threads.ts).
// That load is most of what starting a run costs, some 0.5 s of CPU. What a run leaves is dropped before the
// next begins: every module of this package that holds vitest's state of a run (the suites, and the check
// declarations whose worker-scoped fixture makes the run's context) is evaluated afresh, so they are the new
// run's alone. The rest of the package keeps no state of a run (tests/unit/module-state.test.ts) and stays
// loaded, as node_modules do: evaluating it again for each run took a full run from some 1.9 to 1.6 s of CPU.
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';
import type { ModuleRunner } from 'vite/module-runner';
import { init, runBaseTests, setupEnvironment } from 'vitest/worker';

if (!parentPort) throw new Error('the suite thread runs in a worker thread');
const port = parentPort;

/** vitest's first listener is the one that answers start, run and stop; every later one is a run's RPC. */
let controlListening = false;
const runListeners = new Set<(message: unknown) => void>();
/** The module runner's modules, once the first run made it: it outlives a run, and so do the modules it evaluated. */
let modules: ModuleRunner['evaluatedModules'] | undefined;
/** Set by each start: the run about to begin must not find the modules the last one evaluated. */
let startedSinceLastRun = false;
/** This package's built code (dist/), wherever the package is installed (node_modules included). */
const packageCode = dirname(dirname(fileURLToPath(import.meta.url))) + sep;

init({
  post: (message) => port.postMessage(message),
  on: (listener) => {
    if (controlListening) runListeners.add(listener);
    controlListening = true;
    port.on('message', listener);
  },
  off: (listener) => {
    runListeners.delete(listener);
    port.off('message', listener);
  },
  // After "stop": the run's RPC stops listening, and the thread keeps listening for the next "start".
  teardown: () => {
    for (const listener of runListeners) port.off('message', listener);
    runListeners.clear();
  },
  onModuleRunner: (runner: ModuleRunner) => {
    modules = runner.evaluatedModules;
  },
  runTests: (state, traces) => {
    forgetLastRunsModules();
    return runBaseTests('run', state, traces);
  },
  collectTests: (state, traces) => {
    forgetLastRunsModules();
    return runBaseTests('collect', state, traces);
  },
  setup: (context) => {
    startedSinceLastRun = true;
    return setupEnvironment(context);
  },
});

/** vitest's own modules, whose state (a test file's tests, a worker's fixtures) belongs to one run. */
const VITEST_CODE = /[\\/]node_modules[\\/](vitest|@vitest[\\/][^\\/]+)[\\/]/;

/**
 * On a run's first request: invalidates every module of this package that imports vitest, directly or through
 * another of ours (the suites, helpers/judge/check.js and what imports it), so this run evaluates them afresh
 * and declares its checks with a fixture of its own. Whatever else is loaded stays as it is.
 */
function forgetLastRunsModules(): void {
  if (!startedSinceLastRun || !modules) return;
  startedSinceLastRun = false;
  const evaluated = modules;
  const stale = new Set<string>();
  const importersOf = (id: string): void => {
    for (const importer of evaluated.getModuleById(id)?.importers ?? []) {
      if (stale.has(importer) || !evaluated.getModuleById(importer)?.file?.startsWith(packageCode)) continue;
      stale.add(importer);
      importersOf(importer);
    }
  };
  for (const [id, module] of evaluated.idToModuleMap) if (VITEST_CODE.test(module.file ?? id)) importersOf(id);
  for (const id of stale) evaluated.invalidateModule(evaluated.getModuleById(id)!);
}
