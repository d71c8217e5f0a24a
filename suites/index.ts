// Every area's suite, in the catalog's area order (spec/rules.yaml), which is the order a run takes them.
import { AREA_ORDER } from '../helpers/spec/facts.js';
import type { Suite } from '../helpers/judge/check.js';
import auth from './auth.js';
import consistency from './consistency.js';
import creating from './creating.js';
import errors from './errors.js';
import fetching from './fetching.js';
import fuzzing from './fuzzing.js';
import listing from './listing.js';
import ratelimit from './ratelimit.js';
import requests from './requests.js';
import store from './store.js';
import versioning from './versioning.js';

const BY_AREA: ReadonlyMap<string, Suite> = new Map([auth, consistency, creating, errors, fetching, fuzzing, listing, ratelimit, requests, store, versioning].map((each) => [each.area, each]));

/** The suites of every area, in the order a run takes them. */
export const SUITES: readonly Suite[] = AREA_ORDER.map((area) => {
  const found = BY_AREA.get(area);
  if (!found) throw new Error(`spec/rules.yaml names the area ${area}, and suites/ holds no suite for it`);
  return found;
});
