// Requests inside one check go out together; what the check reports must not depend on the order answers come back in.
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../helpers/judge/check.js';
import { violationMessage, type ViolationFacts } from '../../helpers/judge/outcome.js';
import { together } from '../../helpers/judge/together.js';

/** The one part of a check context `together` uses: its findings, kept in the order they were recorded. */
function checkContext(): { ctx: CheckContext; violations: string[] } {
  const violations: string[] = [];
  const violation = (facts: ViolationFacts) => violations.push(violationMessage(facts));
  return { ctx: { violation } as unknown as CheckContext, violations };
}

/** A part answered after `ms`, as from a target far away: the later items answer first. */
const answeredAfter = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A violation of one item, and the message the check context keeps of it. */
const broken = (item: string): ViolationFacts => ({ what: item, expected: 'a conforming answer', seen: 'a broken one' });
const messageOf = (item: string) => violationMessage(broken(item));

describe('together', () => {
  it('starts every part before any has answered', async () => {
    const { ctx } = checkContext();
    let inFlight = 0;
    let most = 0;
    await together(ctx, [1, 2, 3, 4], async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await answeredAfter(5);
      inFlight -= 1;
    });
    expect(most).toBe(4);
  });

  it('reports the violations in the order of the items, whatever order the answers came in', async () => {
    const { ctx, violations } = checkContext();
    await together(ctx, [30, 20, 10, 0], async (ms, part) => {
      await answeredAfter(ms);
      if (ms !== 20) part.violation(broken(`item ${ms}`));
      // A part may record more than one finding: they stay together, in the order it recorded them.
      if (ms === 10) part.violation(broken('item 10, again'));
    });
    expect(violations).toEqual(['item 30', 'item 10', 'item 10, again', 'item 0'].map(messageOf));
  });

  it('stops with what the first part, in order, threw, once every part has ended, keeping every part\'s findings', async () => {
    const { ctx, violations } = checkContext();
    const ended: number[] = [];
    const run = together(ctx, [0, 1, 2], async (item, part) => {
      await answeredAfter(item === 2 ? 20 : 0);
      ended.push(item);
      part.violation(broken(`item ${item}`));
      if (item === 1) throw new Error('the target stopped answering');
    });
    await expect(run).rejects.toThrow('the target stopped answering');
    // A finding is evidence whatever stopped a part beside it (a --read-only run's createPet part, say).
    expect(violations).toEqual([messageOf('item 0'), messageOf('item 1'), messageOf('item 2')]);
    expect(ended).toEqual([0, 1, 2]);
  });
});
