// The ratelimit suite under vitest (tests/support/vitest-adapter.ts): npx vitest run --project conformance
import { describeSuite } from '../tests/support/vitest-adapter.js';
import ratelimit from './ratelimit.js';

describeSuite(ratelimit);
