#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { DEFAULT_RATE_LIMIT, type ReferenceServerOptions } from './options.js';
import { startReferenceServer } from './reference-server.js';

const USAGE = `usage: npm run serve -- [--port N] [--host H] [--key K]… [--rate-limit N] [--window-ms N]
                        [--preload N] [--first-id N] [--defect ID]… [--variant ID]…
       (node dist/server/main.js takes the same options)`;

/** The command line read: the server's settings, and the ids of the defects and variants to switch on. */
interface CommandLine {
  options: ReferenceServerOptions;
  defects: string[];
  variants: string[];
}

// The catalogs are the suite's own test fixtures: the source repository has them, the package does not.
const NO_CATALOGS = '--defect and --variant need the defect and variant catalogs, which ship only with the source repository (server/defects/, server/variants/), not with the package';

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

/**
 * The options with the named defects and variants switched on. The catalogs are imported only when asked
 * for, so the server the package ships starts without them.
 */
async function withCatalogs({ options, defects, variants }: CommandLine): Promise<ReferenceServerOptions> {
  if (defects.length === 0 && variants.length === 0) return options;
  let catalogs: typeof import('./switches.js');
  try {
    catalogs = await import('./switches.js');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') throw new Error(NO_CATALOGS);
    throw error;
  }
  const { isDefectId, isVariantId, withSwitches } = catalogs;
  const unknownDefect = defects.find((id) => !isDefectId(id));
  if (unknownDefect !== undefined) throw new Error(`unknown defect ${JSON.stringify(unknownDefect)} (see server/defects/)`);
  const unknownVariant = variants.find((id) => !isVariantId(id));
  if (unknownVariant !== undefined) throw new Error(`unknown variant ${JSON.stringify(unknownVariant)} (see server/variants/)`);
  return withSwitches({ ...options, defects: defects.filter(isDefectId), variants: variants.filter(isVariantId) });
}

async function main(): Promise<void> {
  let commandLine: CommandLine;
  try {
    commandLine = readCommandLine(process.argv.slice(2));
  } catch (error) {
    // Every error here is a bad command line (parseArgs or a value check): usage, exit code 2.
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  let options: ReferenceServerOptions;
  try {
    options = await withCatalogs(commandLine);
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

await main();
