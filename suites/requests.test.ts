// The requests suite under vitest (tests/support/vitest-adapter.ts): npx vitest run --project conformance
import { describeSuite } from '../tests/support/vitest-adapter.js';
import requests from './requests.js';

describeSuite(requests);
