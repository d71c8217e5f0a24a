import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'petstore-conformance';

// Walks up rather than using a fixed '..' so the same code works from helpers/*.ts, from
// dist/helpers/*.js and from a copy installed under node_modules.
function findPackageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && readName(manifest) === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json named ${PACKAGE_NAME} above ${start}`);
  }
}

/** Where this package is installed: found once, as the module loads (a few stat calls), and the same for every run. */
const PACKAGE_ROOT = findPackageRoot();

export function packageRoot(): string {
  return PACKAGE_ROOT;
}

/** A path inside the package, e.g. packagePath('spec', 'openapi.yaml'). */
export function packagePath(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}

function readName(manifest: string): unknown {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined; // an unreadable or foreign package.json is simply not ours
  }
}
