import { parseArgs } from 'node:util';
import { DEFAULT_RATE_LIMIT, type ReferenceServerOptions } from './options.js';
import { startReferenceServer } from './reference-server.js';

// The reference server's command line: dist/server/main.js in the package, and `npm run serve` in the source
// repository, which adds the defect and variant catalogs the package does not ship (tests/support/serve.ts).
const USAGE = `usage: npm run serve -- [--port N] [--host H] [--key K]… [--rate-limit N] [--window-ms N]
                        [--preload N] [--first-id N] [--defect ID]… [--variant ID]…
       (node dist/server/main.js takes the same options but --defect and --variant)`;

/** The command line read: the server's settings, and the ids of the defects and variants to switch on. */
export interface CommandLine {
  options: ReferenceServerOptions;
  defects: string[];
  variants: string[];
}

// The catalogs are the suite's own test fixtures: the source repository has them, the package does not.
const NO_CATALOGS = '--defect and --variant need the defect and variant catalogs, which ship only with the source repository (tests/defects/, tests/variants/), not with the package: in a clone, npm run serve -- --defect <id>';

/** Switches on the defects and variants a command line names: the source repository's catalogs (tests/support/switches.ts). */
export type SwitchCatalogs = (commandLine: CommandLine) => ReferenceServerOptions;

function readCommandLine(argv: string[]): CommandLine {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      key: { type: 'string', multiple: true },
      'rate-limit': { type: 'string' },
      'window-ms': { type: 'string' },
      preload: { type: 'string' },
      'first-id': { type: 'string' },
      defect: { type: 'string', multiple: true },
      variant: { type: 'string', multiple: true },
    },
  });
  const rateLimit = values['rate-limit'] ?? values['window-ms'];
  const options: ReferenceServerOptions = {
    host: values.host,
    port: optionalInteger('--port', values.port),
    apiKeys: values.key,
    rateLimit:
      rateLimit === undefined
        ? undefined
        : { limit: integer('--rate-limit', values['rate-limit'] ?? String(DEFAULT_RATE_LIMIT.limit)), windowMs: integer('--window-ms', values['window-ms'] ?? String(DEFAULT_RATE_LIMIT.windowMs)) },
    preload: optionalInteger('--preload', values.preload),
    firstId: values['first-id'] === undefined ? undefined : bigInteger('--first-id', values['first-id']),
  };
  return { options, defects: values.defect ?? [], variants: values.variant ?? [] };
}

function integer(flag: string, text: string): number {
  if (!/^[0-9]+$/.test(text)) throw new Error(`${flag} needs a non-negative integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

function optionalInteger(flag: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : integer(flag, text);
}

function bigInteger(flag: string, text: string): bigint {
  if (!/^-?[0-9]+$/.test(text)) throw new Error(`${flag} needs an integer, got ${JSON.stringify(text)}`);
  return BigInt(text);
}

/** The options with the named defects and variants switched on, by the catalogs a clone has. */
function withCatalogs(commandLine: CommandLine, catalogs: SwitchCatalogs | undefined): ReferenceServerOptions {
  if (commandLine.defects.length === 0 && commandLine.variants.length === 0) return commandLine.options;
  if (!catalogs) throw new Error(NO_CATALOGS);
  return catalogs(commandLine);
}

/** Starts the reference server a command line asks for, prints how to reach and certify it, and stops it on SIGINT or SIGTERM. */
export async function serveCommandLine(argv: string[], catalogs?: SwitchCatalogs): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  let commandLine: CommandLine;
  try {
    commandLine = readCommandLine(argv);
  } catch (error) {
    // Every error here is a bad command line (parseArgs or a value check): usage, exit code 2.
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  let options: ReferenceServerOptions;
  try {
    options = withCatalogs(commandLine, catalogs);
  } catch (error) {
    // An unknown id, or a package without the catalogs: one line, exit code 2.
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  const server = await startReferenceServer(options);
  // The key is the server's own setting, not a secret of anyone's: whoever started it needs it to certify it.
  const keys = options.apiKeys ?? [server.apiKey];
  process.stdout.write([
    `Reference Pet Store listening on ${server.url}`,
    `API key: ${keys.join(', ')} (sent as "Authorization: Bearer ${keys[0]}")`,
    `Certify it: PETSTORE_API_KEY=${keys[0]} npx petstore-conformance --base-url ${server.url}`,
    // What is switched on, so that a person trying the suite on a broken server sees which breakage to expect.
    ...(commandLine.defects.length > 0 ? [`Defects switched on: ${commandLine.defects.join(', ')}`] : []),
    ...(commandLine.variants.length > 0 ? [`Variants switched on: ${commandLine.variants.join(', ')}`] : []),
    '',
  ].join('\n'));
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

