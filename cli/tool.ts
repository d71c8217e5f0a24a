import { readFileSync } from 'node:fs';
import { packagePath } from '../helpers/package-root.js';

/** This package's name and version: every report names the suite version that judged. */
export const TOOL = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { name: string; version: string };
