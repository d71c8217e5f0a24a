// One way to record a finding: a check, its tools and the fuzzing record what they find (ctx.violation, the
// expect helpers, a probe's returned finding, an exploration attempt's recorded failure), and the check decides
// whether to go on. A finding is never thrown to end a check early and caught again: only the engine
// (helpers/judge/check.ts) throws one, once, to tell vitest the rule failed. This reads every module of
// helpers/ and suites/ as the TypeScript compiler parses it, like module-state.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../helpers/package-root.js';

const ROOT = packagePath();
const FOLDERS = ['helpers', 'suites'];
/** The engine: the one module that names the error vitest is told a rule failed with, and throws it. */
const ENGINE = 'helpers/judge/check.ts';

/** What a thrown expression says of itself that makes it a finding: a violation, a counterexample, a finding. */
const THROWN_FINDING = /RuleViolation|[vV]iolation|[cC]ounterexample|[fF]inding/;

const PRINTER = ts.createPrinter({ removeComments: true });

/**
 * Whether a catch takes what it caught for a finding: it tests it against RuleViolation, or hands the caught
 * value (`caught`) to something named a violation or a finding (`violations.push(error)`, `{ violation: error }`).
 */
function catchesFinding(caught: string | undefined, handler: ts.Node, parsed: ts.SourceFile): boolean {
  const code = PRINTER.printNode(ts.EmitHint.Unspecified, handler, parsed);
  if (/instanceof\s+RuleViolation\b/.test(code)) return true;
  return caught !== undefined && new RegExp(`(?:[vV]iolat|[fF]inding|facts)\\w*(?:\\.\\w+)*\\s*(?::|=(?!=)|\\()[^;]*\\b${caught}\\b`).test(code);
}

/** Each place in `source` where a finding is thrown or caught, as "file:line what". */
function findingsAsExceptions(file: string, source: string): string[] {
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${file}:${parsed.getLineAndCharacterOfPosition(node.getStart(parsed)).line + 1} ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isThrowStatement(node) && node.expression && THROWN_FINDING.test(node.expression.getText(parsed)) && file !== ENGINE) {
      at(node, `throws a finding: ${node.expression.getText(parsed).slice(0, 60)}`);
    }
    if (ts.isCatchClause(node) && catchesFinding(node.variableDeclaration?.name.getText(parsed), node.block, parsed)) at(node, 'catches a finding');
    // The same in a promise's .catch(handler).
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'catch') {
      const [handler] = node.arguments;
      if (handler && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler)) && catchesFinding(handler.parameters[0]?.name.getText(parsed), handler.body, parsed)) {
        at(node, 'catches a finding');
      }
    }
    if (ts.isIdentifier(node) && node.text === 'RuleViolation' && file !== ENGINE) at(node, 'names RuleViolation, which only the engine throws');
    if (ts.isIdentifier(node) && node.text === 'softly') at(node, 'names softly: a part that catches what it throws');
    ts.forEachChild(node, visit);
  };
  visit(parsed);
  return [...new Set(found)];
}

function modules(): string[] {
  return FOLDERS.flatMap((folder) => readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(folder, file)))
    .sort();
}

describe('one way to record a finding', () => {
  it('helpers/ and suites/ throw no finding and catch none: only the engine throws one, to vitest', () => {
    const found = modules().flatMap((file) => findingsAsExceptions(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(modules(), 'the scan reads the suites and the fuzzing').toEqual(expect.arrayContaining(['suites/fuzzing.test.ts', 'helpers/fuzz/property.ts', 'helpers/explore/explore.ts', ENGINE]));
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
      'async function l() { try { await part(); } catch (error) { violations.push(error); } }',
      'async function m() { try { await body(); } catch (error) { if (findings.length === 0) classify(error); } }',
    ].join('\n');
    expect(findingsAsExceptions('suites/planted.test.ts', source)).toEqual([
      'suites/planted.test.ts:1 throws a finding: RuleViolation.of({ expected: "x", seen: "y" })',
      'suites/planted.test.ts:1 names RuleViolation, which only the engine throws',
      'suites/planted.test.ts:2 throws a finding: counterexample(property, failure)',
      'suites/planted.test.ts:3 throws a finding: sequenceViolation(ctx, failure)',
      'suites/planted.test.ts:4 catches a finding',
      'suites/planted.test.ts:4 names RuleViolation, which only the engine throws',
      'suites/planted.test.ts:5 catches a finding',
      'suites/planted.test.ts:6 names softly: a part that catches what it throws',
      'suites/planted.test.ts:10 catches a finding',
      'suites/planted.test.ts:12 catches a finding',
    ]);
  });

  it('lets the engine throw the failed rule to vitest, and nothing else', () => {
    const engine = findingsAsExceptions(ENGINE, readFileSync(join(ROOT, ENGINE), 'utf8'));
    expect(engine).toEqual([]);
    expect(findingsAsExceptions(ENGINE, 'function f() { throw new RuleViolation(message); }')).toEqual([]);
    expect(findingsAsExceptions(ENGINE, 'async function f() { try { await body(); } catch (error) { if (error instanceof RuleViolation) findings.push(error.facts); } }'))
      .toEqual([`${ENGINE}:1 catches a finding`]);
  });
});
