#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { isDefectId, type DefectId } from './defects.js';
import { DEFAULT_RATE_LIMIT, type ReferenceServerOptions } from './options.js';
import { startReferenceServer } from './reference-server.js';
import { isVariantId, type VariantId } from './variants.js';

const USAGE = `usage: npm run serve -- [--port N] [--host H] [--key K]… [--rate-limit N] [--window-ms N]
                        [--preload N] [--first-id N] [--defect ID]… [--variant ID]…
       (node dist/server/main.js takes the same options)`;

function readOptions(argv: string[]): ReferenceServerOptions {
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
  return {
    host: values.host,
    port: optionalInteger('--port', values.port),
    apiKeys: values.key,
    rateLimit:
      rateLimit === undefined
        ? undefined
        : { limit: integer('--rate-limit', values['rate-limit'] ?? String(DEFAULT_RATE_LIMIT.limit)), windowMs: integer('--window-ms', values['window-ms'] ?? String(DEFAULT_RATE_LIMIT.windowMs)) },
    preload: optionalInteger('--preload', values.preload),
    firstId: values['first-id'] === undefined ? undefined : bigInteger('--first-id', values['first-id']),
    defects: (values.defect ?? []).map(defectId),
    variants: (values.variant ?? []).map(variantId),
  };
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

function defectId(id: string): DefectId {
  if (!isDefectId(id)) throw new Error(`unknown defect ${JSON.stringify(id)} (see server/defects.ts)`);
  return id;
}

function variantId(id: string): VariantId {
  if (!isVariantId(id)) throw new Error(`unknown variant ${JSON.stringify(id)} (see server/variants.ts)`);
  return id;
}

async function main(): Promise<void> {
  let options: ReferenceServerOptions;
  try {
    options = readOptions(process.argv.slice(2));
  } catch (error) {
    // Every error here is a bad command line (parseArgs or a value check): usage, exit code 2.
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
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
