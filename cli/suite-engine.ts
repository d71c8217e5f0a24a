import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { createVitest, type Reporter, type Vitest } from 'vitest/node';
import { schemaValidatorsCode } from '../helpers/judge/schema-validators.js';
import { specDocuments } from '../helpers/spec/documents.js';
import { escapeRegExp } from '../helpers/http/redact.js';
import { AREA_ORDER } from '../helpers/spec/facts.js';
import { packagePath } from '../helpers/package-root.js';
import type { RunConfig } from '../helpers/run-config.js';
import { AreaOrderSequencer } from './sequencer.js';
import { SuiteThreads } from './suite-threads.js';

/**
 * Runs the suites of one certification. Starting vitest (its config, its vite server, the suites' transforms)
 * costs some 0.15–0.2 s of CPU, and loading its runtime into a worker thread some 0.5 s more; a process that
 * certifies several targets pays both once per engine, which keeps its vitest and its thread between runs
 * (cli/suite-threads.ts). What a run learns lives in its own context (helpers/run-context.ts), made from the
 * config provided here and found by its channel's name, and the thread evaluates the suites and the check
 * declarations afresh for each run (the rest of the package keeps no state of a run), so a run cannot see what
 * the run before it left.
 */
export async function runSuites(config: RunConfig, collector: Reporter, areas: readonly string[]): Promise<void> {
  if (areas.length === 0) return;
  // vitest sets process.exitCode when a test fails; here a failed check is a verdict we report, and a
  // program calling runConformance must not find its own exit status changed.
  const exitCodeBefore = process.exitCode;
  const engine = idle.pop() ?? await SuiteEngine.start();
  engine.cancelIdleClose();
  try {
    await engine.run(config, collector, areas);
    idle.push(engine);
    engine.closeWhenIdle(() => {
      const index = idle.indexOf(engine);
      if (index !== -1) idle.splice(index, 1);
    });
  } catch (error) {
    // An engine that broke mid-run is not trusted with the next one.
    await engine.close();
    throw error;
  } finally {
    process.exitCode = exitCodeBefore;
  }
}

/**
 * The package's modules that hold vitest's state of a run: the check declarations, whose worker-scoped fixture makes
 * the run's context, and what imports them. With the suites (and the setup file, which vitest runs so anyway) they go
 * through vitest's module runner, where the suite thread evaluates them afresh for each run (cli/suite-thread.ts).
 * The rest of dist/ keeps no state of a run (tests/unit/module-state.test.ts) and is loaded by Node, as node_modules
 * are: no transform, no source map, no evaluation by the runner (measured: a run of one area in a child process,
 * 2.0 -> 1.4 s of CPU). A module left out of this list would be loaded twice, once each way, and keep its state from
 * run to run; tests/unit/import-graph.test.ts holds the list to every module whose imports reach vitest.
 *
 * Installed, the package is under node_modules, which vitest loads natively by default: there the second run of a
 * process found its suite files already evaluated ("No test suite found"). These patterns hold wherever it lives.
 */
export const RUN_STATE_MODULES: readonly string[] = ['helpers/judge/check.js', 'helpers/judge/together.js'];

/** A pattern for a module id (an absolute path, with forward slashes) that is `file`. */
function moduleAt(file: string): RegExp {
  return new RegExp(`^${literalPath(file)}$`);
}

/** A pattern for the module ids of every file under `dir`. */
function modulesUnder(dir: string): RegExp {
  return new RegExp(`^${literalPath(dir)}/`);
}

/** A path as vite writes a module id (forward slashes), escaped to match literally. */
function literalPath(path: string): string {
  return escapeRegExp(path.split(sep).join('/'));
}

/** Engines no run is using; two runs in flight at once each take their own, as vitest runs one test run at a time. */
const idle: SuiteEngine[] = [];

/** How long an unused engine is kept: a program certifying in a loop finds it, one that is done exits soon after. */
const IDLE_CLOSE_MS = 2_000;

class SuiteEngine {
  private idleTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly vitest: Vitest, private readonly reporter: RunReporter, private readonly threads: SuiteThreads) {}

  static async start(): Promise<SuiteEngine> {
    const root = packagePath();
    const reporter = new RunReporter();
    const threads = new SuiteThreads();
    const signalListeners = listenersOf(SIGNALS);
    const vitest = await createVitest('test', {
      root,
      config: false,
      dir: join(root, 'dist', 'suites'),
      include: AREA_ORDER.map((area) => `${area}.test.js`),
      exclude: [],
      setupFiles: [join(root, 'dist', 'cli', 'suite-setup.js')],
      reporters: [reporter],
      // vitest's thread pool, except that the engine's next run takes the thread this one used.
      pool: threads.pool(),
      maxWorkers: 1,
      fileParallelism: false,
      isolate: false,
      watch: false,
      testTimeout: 0,
      hookTimeout: 0,
      sequence: { sequencer: AreaOrderSequencer },
      passWithNoTests: false,
      // Which of the package's modules go through vitest's module runner, wherever the package lives: see RUN_STATE_MODULES.
      server: { deps: { inline: [modulesUnder(join(root, 'dist', 'suites')), ...RUN_STATE_MODULES.map((module) => moduleAt(join(root, 'dist', module)))], external: [modulesUnder(join(root, 'dist'))] } },
      // Nothing may be written into the package: installed globally it is read-only. vitest's results
      // cache only feeds its own file ordering, which AreaOrderSequencer replaces; vite's cacheDir goes to tmp.
      cache: false,
    }, { cacheDir: join(tmpdir(), 'petstore-conformance-vite'), logLevel: 'silent' }).finally(() => {
      // vitest's logger ends the process on SIGINT and SIGTERM; a run answers them itself (it stops sending
      // and still writes its reports), and a program calling runConformance keeps its own handlers.
      removeListenersAddedSince(signalListeners);
    });
    return new SuiteEngine(vitest, reporter, threads);
  }

  /** One run: its config to the worker, vitest's events to its own collector, its areas' files in area order. */
  async run(config: RunConfig, collector: Reporter, areas: readonly string[]): Promise<void> {
    const project = this.vitest.getRootProject();
    const suites = join(packagePath(), 'dist', 'suites');
    this.vitest.provide('runConfig', config);
    this.vitest.provide('specDocuments', specDocuments());
    this.vitest.provide('schemaValidators', schemaValidatorsCode());
    this.reporter.target = collector;
    const signalListeners = listenersOf(SIGNALS);
    try {
      await this.vitest.runTestSpecifications(areas.map((area) => project.createSpecification(join(suites, `${area}.test.js`))));
    } finally {
      this.reporter.target = undefined;
      removeListenersAddedSince(signalListeners);
    }
  }

  closeWhenIdle(onClose: () => void): void {
    this.idleTimer = setTimeout(() => {
      onClose();
      void this.close();
    }, IDLE_CLOSE_MS);
    // The engine itself holds nothing that keeps a process alive; this timer must not either.
    this.idleTimer.unref();
  }

  cancelIdleClose(): void {
    clearTimeout(this.idleTimer);
  }

  async close(): Promise<void> {
    this.cancelIdleClose();
    const exitCodeBefore = process.exitCode;
    try {
      await this.vitest.close();
    } finally {
      await this.threads.close();
      process.exitCode = exitCodeBefore;
    }
  }
}

/** The engine's one reporter: passes the events a Collector listens to on to the collector of the run in progress. */
class RunReporter implements Reporter {
  target: Reporter | undefined;

  onTestCaseResult: Reporter['onTestCaseResult'] = (...args) => this.target?.onTestCaseResult?.(...args);
  onTestModuleEnd: Reporter['onTestModuleEnd'] = (...args) => this.target?.onTestModuleEnd?.(...args);
  onTestRunEnd: Reporter['onTestRunEnd'] = (...args) => this.target?.onTestRunEnd?.(...args);
  onUserConsoleLog: Reporter['onUserConsoleLog'] = (...args) => this.target?.onUserConsoleLog?.(...args);
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type Listener = (...args: unknown[]) => void;

function listenersOf(signals: readonly NodeJS.Signals[]): Map<NodeJS.Signals, Set<Listener>> {
  return new Map(signals.map((signal) => [signal, new Set(process.listeners(signal) as Listener[])]));
}

function removeListenersAddedSince(before: Map<NodeJS.Signals, Set<Listener>>): void {
  for (const [signal, kept] of before) {
    for (const listener of process.listeners(signal) as Listener[]) if (!kept.has(listener)) process.off(signal, listener);
  }
}
