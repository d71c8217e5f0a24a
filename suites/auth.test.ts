// The auth suite under vitest (tests/support/vitest-adapter.ts): npx vitest run --project conformance
import { describeSuite } from '../tests/support/vitest-adapter.js';
import auth from './auth.js';

describeSuite(auth);
