// Installing the package runs nothing: npm 11 warns of every install script in a tarball, and a build on install
// needs the dev dependencies the install leaves out. The build runs before packing instead, and `npm start` in a
// clone builds once when dist/ is missing.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';

const { scripts } = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('package.json', () => {
  it('has no script npm runs on install (preinstall, install, postinstall, prepare), and builds before packing', () => {
    expect(Object.keys(scripts).filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([]);
    expect(scripts.prepack).toBe('npm run build');
  });

  it('builds before `npm start` only when the build is missing', () => {
    expect(scripts.prestart).toMatch(/existsSync\('dist\/cli\/main\.js'\).*\|\| npm run build$/);
  });
});
