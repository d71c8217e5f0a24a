// A defect is a bug real stacks ship, written as one entry in one file: `tests/defects/<area>.ts` holds the
// catalog entry (what the mutation harness expects of it) and the code that breaks the reference server,
// side by side. The reference server itself holds no defect: it calls every decision through a named seam
// (`server/seams.ts` lists them all, each with a line on what it decides), and a defect overrides seams.
//
// To add one:
//   1. Find the seam where the stack goes wrong, in server/seams.ts (a query parameter read, the page
//      selected, a NewPet member read, the id allocated, the pet stored or looked up, the key judged, the
//      rate-limit headers, the Error built, an operation's whole answer, the response on its way out).
//   2. Write the override as a wrapper around the reference: it gets the seam's own arguments, then
//      `reference` (the seam it wraps), then `server` (settings, store, and the composed `seams`). Change
//      only what the bug changes and hand everything else to `reference`:
//
//        {
//          id: 'list-limit-0-unlimited',
//          area: 'listing',
//          description: 'reads limit=0 as "no limit" (Python `if limit:` is false for 0) and answers every pet',
//          rules: ['LIST-06'],
//          overrides: {
//            parseLimit: (raw, reference) => (integerParameter(raw) === 0 ? { value: Number.POSITIVE_INFINITY } : reference(raw)),
//          },
//        },
//
//      An answer is a value (`Answer`: status, headers, contentType, json or text), so a wrapper can change
//      one part of it: `{ ...reference(status, code, message), contentType: 'text/plain' }`. The helpers that
//      build and reshape answers are in server/responses.ts (`json`, `text`, `withHeaders`, `withoutHeader`);
//      `onAnswer(operation, change)` and `insteadOf(operation, answer)` in server/seams.ts reshape or replace
//      one operation's whole answer. A bug that is the whole response on its way out (a proxy's page, a
//      header stripped) overrides `outgoing`. An unrescued exception is a `throw`: the server answers 500.
//   3. Name the rules a `--strict` run must fail (`rules`), the ones a fuzzed body may also hit (`byChance`),
//      and any settings (`options`) or CLI options (`cliArgs`) without which no check could see the bug. The
//      harness runs the areas of `area` and of the rules; name any other area whose requests meet the bug
//      (`alsoMetIn`).
//   4. Prove it: `npm run build && npx vitest run tests/mutation -t <id>`.
//
// Reuse the reference's own helpers (`integerParameter`, `readCredentials`, `firstOf`, …) rather than
// re-deriving what the spec says, and keep a bug's state (a cache, say) keyed by `server`, never module-wide.
import type { Area } from '../../helpers/spec/catalog.js';
import type { Overrides } from '../../server/seams.js';
import type { ServerSettings } from '../../server/settings.js';
import type { FrontKind } from '../support/fronts.js';

export type { Area } from '../../helpers/spec/catalog.js';

export interface DefectSpec {
  id: string;
  area: Area;
  /**
   * A front the server stands behind (tests/support/fronts.ts), for a defect below what the seams reach: HTTP/1.1
   * framing that the reference server's Node HTTP server gets right, and a hand-rolled server or gateway does not.
   */
  front?: FrontKind;
  /** What the server does wrong, and the framework habit or coding mistake that ships it. */
  description: string;
  /** Rule IDs of spec/rules.yaml a conformance run must report as failed under this defect. */
  rules: readonly string[];
  /**
   * Rules that may also fail, depending on the seed: a generated body (FUZZ-01, FUZZ-02) or a generated
   * sequence (FUZZ-03, and the whole-run rules that judge its answers too) can happen to hit the defect.
   * Never counted as a catch (that is `rules`, judged by deterministic cases), never a false alarm.
   */
  byChance?: readonly string[];
  /**
   * For a defect whose `rules` name FUZZ-01 or FUZZ-02: the kind of generated body it mishandles every one of, as
   * that rule judges, a mutation of FUZZ-01's (`mutation`, by name) or a valid shape of FUZZ-02's (`shape`). A run
   * sends at least one body of every kind, so the defect is caught whatever the seed; tests/e2e/fuzzing.test.ts
   * proves it over 300 seeds, and the mutation harness meets the defect with one body of each kind. Where no kind
   * makes the catch certain (a refused valid body, which FUZZ-02 excuses when the server may refuse it for a limit of
   * its own), leave it out: the harness then meets the defect at the defaults' random volume, as a user's run does.
   */
  mishandlesEvery?: { mutation?: string; shape?: string };
  /** Settings without which the defect would not show (they never override what the caller sets). */
  options?: Partial<ServerSettings>;
  /** CLI options without which no check can see the defect (a rule that runs only on request). */
  cliArgs?: readonly string[];
  /**
   * Areas whose requests meet the defect besides `area` and those of its `rules`: the mutation harness runs
   * only the areas that cover a defect (`--only`), and a rule of one area may judge what another sent (an
   * Error format judged on the answers of the operation that refuses, a page that needs the pets a list
   * fixture creates). Add one when the harness reports a named rule passed or skipped for want of evidence.
   */
  alsoMetIn?: readonly Area[];
  /** The defect itself: the seams it overrides. A defect made of settings alone has none. */
  overrides?: Overrides;
}
