// --list prints the rule catalog; with --json, as data a script reads.
import { expect, it } from 'vitest';
import { activeRules } from '../../helpers/spec/catalog.js';
import { parseJson } from '../../helpers/json.js';
import { runCli } from '../support/cli.js';

it('--list --json prints the active rules as JSON, each with its ID, level, area and summary, and nothing else', async () => {
  const run = await runCli(['--list', '--json']);
  expect(run.code).toBe(0);
  const listed = parseJson(run.stdout) as unknown as Array<{ id: string; level: string; area: string; summary: string }>;
  expect(listed.map((rule) => [rule.id, rule.level, rule.area, rule.summary])).toEqual(activeRules().map((rule) => [rule.id, rule.level, rule.area, rule.summary]));
});

it('--list prints one line per active rule', async () => {
  const run = await runCli(['--list']);
  expect(run.stdout.trimEnd().split('\n').map((line) => line.split(/ +/)[0])).toEqual(activeRules().map((rule) => rule.id));
});
