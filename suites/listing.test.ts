// The listing suite under vitest (tests/support/vitest-adapter.ts): npx vitest run --project conformance
import { describeSuite } from '../tests/support/vitest-adapter.js';
import listing from './listing.js';

describeSuite(listing);
