// One way to record a finding: a check, its tools and the fuzzing record what they find (ctx.violation, the
// expect helpers, a probe's returned finding, an exploration attempt's recorded failure), and the check decides
// whether to go on. A finding is never thrown to end a check early and caught again: only the vitest adapter
// (tests/support/vitest-adapter.ts) throws one, once, to tell vitest the rule failed; the engine throws none.
// This reads every module of helpers/ and suites/ parsed as TypeScript, like module-state.test.ts.
import { readFileSync } from 'node:fs';
import { Visitor, type ParamPattern, type Span } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';
import { parseModule, projectModules, type ParsedModule } from '../support/source-scan.js';

const FOLDERS = ['helpers', 'suites'];
/** The vitest adapter: the one module that names the error vitest is told a rule failed with, and throws it. */
const ADAPTER = 'tests/support/vitest-adapter.ts';

/** What a thrown expression says of itself that makes it a finding: a violation, a counterexample, a finding. */
const THROWN_FINDING = /RuleViolation|[vV]iolation|[cC]ounterexample|[fF]inding/;

/**
 * Whether a catch takes what it caught for a finding: it tests it against RuleViolation, or hands the caught
 * value (`caught`) to something named a violation or a finding (`violations.push(error)`, `{ violation: error }`).
 */
function catchesFinding(caught: string | undefined, handler: Span, parsed: ParsedModule): boolean {
  const code = parsed.code(handler);
  if (/instanceof\s+RuleViolation\b/.test(code)) return true;
  return caught !== undefined && new RegExp(`(?:[vV]iolat|[fF]inding|facts)\\w*(?:\\.\\w+)*\\s*(?::|=(?!=)|\\()[^;]*\\b${caught}\\b`).test(code);
}

/** Each place in `source` where a finding is thrown or caught, as "file:line what". */
function findingsAsExceptions(file: string, source: string): string[] {
  const parsed = parseModule(file, source);
  const found: string[] = [];
  const at = (node: Span, what: string) => found.push(`${file}:${parsed.line(node)} ${what}`);
  // A binding's name, without the type annotation its span takes in (`catch (error: unknown)`).
  const nameOf = (caught: ParamPattern | null | undefined) => (caught?.type === 'Identifier' ? caught.name : caught ? parsed.text(caught) : undefined);
  new Visitor({
    ThrowStatement(node) {
      if (THROWN_FINDING.test(parsed.text(node.argument)) && file !== ADAPTER) at(node, `throws a finding: ${parsed.text(node.argument).slice(0, 60)}`);
    },
    CatchClause(node) {
      if (catchesFinding(nameOf(node.param), node.body, parsed)) at(node, 'catches a finding');
    },
    // The same in a promise's .catch(handler).
    CallExpression(node) {
      if (node.callee.type !== 'MemberExpression' || node.callee.computed || node.callee.property.name !== 'catch') return;
      const [handler] = node.arguments;
      if (handler && (handler.type === 'ArrowFunctionExpression' || handler.type === 'FunctionExpression') && catchesFinding(nameOf(handler.params[0]), handler.body!, parsed)) {
        at(node, 'catches a finding');
      }
    },
    Identifier(node) {
      if (node.name === 'RuleViolation' && file !== ADAPTER) at(node, 'names RuleViolation, which only the vitest adapter throws');
      if (node.name === 'softly') at(node, 'names softly: a part that catches what it throws');
    },
  }).visit(parsed.program);
  return [...new Set(found)];
}

const modules = () => projectModules(FOLDERS);

describe('one way to record a finding', () => {
  it('helpers/ and suites/ throw no finding and catch none, the engine included: only the vitest adapter throws one, to vitest', () => {
    const found = modules().flatMap((file) => findingsAsExceptions(file, readFileSync(packagePath(file), 'utf8')));
    expect(modules(), 'the scan reads the suites, the fuzzing and the engine').toEqual(expect.arrayContaining(['suites/fuzzing.ts', 'helpers/fuzz/property.ts', 'helpers/explore/explore.ts', 'helpers/judge/check.ts', 'helpers/engine/engine.ts']));
    expect(found).toEqual([]);
  });

  it('names a planted throw of a violation or a counterexample, a catch of one, and lets real errors be thrown and caught', () => {
    const source = [
      'function a() { throw RuleViolation.of({ expected: "x", seen: "y" }); }',
      'function b() { throw counterexample(property, failure); }',
      'function c() { throw sequenceViolation(ctx, failure); }',
      'async function d() { try { await part(); } catch (error) { if (!(error instanceof RuleViolation)) throw error; } }',
      'async function e() { try { await probe(value); } catch (error) { return { kind: "violated", violation: error }; } }',
      'async function f(ctx) { await ctx.softly(() => part()); }',
      'function g() { throw new SkipCheck("no pets"); }',
      'async function h() { try { await send(); } catch (error) { if (!(error instanceof TransportError)) throw error; } }',
      'function i(ctx) { ctx.violation({ expected: "x", seen: "y" }); }',
      'const j = () => probe(value).catch((error) => ({ kind: "violated", finding: error }));',
      'const k = () => probe(value).catch((error) => ({ error }));',
      'async function l() { try { await part(); } catch (error: unknown) { violations.push(error); } }',
      'async function m() { try { await body(); } catch (error) { if (findings.length === 0) classify(error); } }',
    ].join('\n');
    expect(findingsAsExceptions('suites/planted.test.ts', source)).toEqual([
      'suites/planted.test.ts:1 throws a finding: RuleViolation.of({ expected: "x", seen: "y" })',
      'suites/planted.test.ts:1 names RuleViolation, which only the vitest adapter throws',
      'suites/planted.test.ts:2 throws a finding: counterexample(property, failure)',
      'suites/planted.test.ts:3 throws a finding: sequenceViolation(ctx, failure)',
      'suites/planted.test.ts:4 catches a finding',
      'suites/planted.test.ts:4 names RuleViolation, which only the vitest adapter throws',
      'suites/planted.test.ts:5 catches a finding',
      'suites/planted.test.ts:6 names softly: a part that catches what it throws',
      'suites/planted.test.ts:10 catches a finding',
      'suites/planted.test.ts:12 catches a finding',
    ]);
  });

  it('lets the vitest adapter throw the failed rule to vitest, and nothing else', () => {
    const adapter = findingsAsExceptions(ADAPTER, readFileSync(packagePath(ADAPTER), 'utf8'));
    expect(adapter).toEqual([]);
    expect(findingsAsExceptions(ADAPTER, 'function f() { throw new RuleViolation(message); }')).toEqual([]);
    expect(findingsAsExceptions(ADAPTER, 'async function f() { try { await body(); } catch (error) { if (error instanceof RuleViolation) findings.push(error.facts); } }'))
      .toEqual([`${ADAPTER}:1 catches a finding`]);
  });
});
