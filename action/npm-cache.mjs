// The first step of action.yml: where npm keeps its cache on this runner, and a cache key that changes
// with the action's lockfile, as GITHUB_OUTPUT lines for actions/cache. hashFiles() cannot read the action's
// folder (it sees the workspace only), hence this step.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const actionPath = process.env.GITHUB_ACTION_PATH ?? process.cwd();
const lock = createHash('sha256').update(readFileSync(join(actionPath, 'package-lock.json'))).digest('hex').slice(0, 16);
const cache = execFileSync('npm', ['config', 'get', 'cache'], { cwd: actionPath, encoding: 'utf8', shell: process.platform === 'win32' }).trim();
process.stdout.write(`path=${cache}\nkey=petstore-conformance-npm-${process.env.RUNNER_OS ?? process.platform}-${lock}\n`);
