// The suite worker thread: vitest's own thread runtime (vitest/worker), kept listening after a run so the
// engine's next run finds vitest, undici and the rest of the runtime already loaded (cli/suite-threads.ts).
// That load is most of what starting a run costs, some 0.5 s of CPU. What a run leaves is dropped before the
// next begins: every module of this package is evaluated afresh, so the suites, their fixtures and the run's
// context are the new run's alone; only node_modules, which hold nothing of a run, stay loaded.
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

/**
 * On a run's first request: invalidates every module the last run evaluated from this package (its suites,
 * helpers and spec facts), so this run evaluates them afresh; its dependencies stay as they are.
 */
function forgetLastRunsModules(): void {
  if (!startedSinceLastRun) return;
  startedSinceLastRun = false;
  for (const module of modules?.idToModuleMap.values() ?? []) {
    if (module.file?.startsWith(packageCode)) modules!.invalidateModule(module);
  }
}
