// The consistency suite under vitest (tests/support/vitest-adapter.ts): npx vitest run --project conformance
import { describeSuite } from '../tests/support/vitest-adapter.js';
import consistency from './consistency.js';

describeSuite(consistency);
