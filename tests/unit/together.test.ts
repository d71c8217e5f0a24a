// Requests inside one check go out together; what the check reports must not depend on the order answers come back in.
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../helpers/judge/check.js';
import { RuleViolation } from '../../helpers/judge/outcome.js';
import { softlyTogether } from '../../helpers/judge/together.js';

/** The one part of a check context softlyTogether uses: softly, keeping every violation in the order it was met. */
function checkContext(): { ctx: CheckContext; violations: string[] } {
  const violations: string[] = [];
  const softly = async (part: () => Promise<void> | void) => {
    try {
      await part();
    } catch (error) {
      if (!(error instanceof RuleViolation)) throw error;
      violations.push(error.message);
    }
  };
  return { ctx: { softly } as unknown as CheckContext, violations };
}

/** A part answered after `ms`, as from a target far away: the later items answer first. */
const answeredAfter = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A violation of one item, and the message the check context keeps of it. */
const broken = (item: string) => RuleViolation.of({ what: item, expected: 'a conforming answer', seen: 'a broken one' });
const messageOf = (item: string) => broken(item).message;

describe('softlyTogether', () => {
  it('starts every part before any has answered', async () => {
    const { ctx } = checkContext();
    let inFlight = 0;
    let most = 0;
    await softlyTogether(ctx, [1, 2, 3, 4], async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await answeredAfter(5);
      inFlight -= 1;
    });
    expect(most).toBe(4);
  });

  it('reports the violations in the order of the items, whatever order the answers came in', async () => {
    const { ctx, violations } = checkContext();
    await softlyTogether(ctx, [30, 20, 10, 0], async (ms) => {
      await answeredAfter(ms);
      if (ms !== 20) throw broken(`item ${ms}`);
    });
    expect(violations).toEqual(['item 30', 'item 10', 'item 0'].map(messageOf));
  });

  it('stops at the first part, in order, that met something other than a violation, once every part has ended', async () => {
    const { ctx, violations } = checkContext();
    const ended: number[] = [];
    const run = softlyTogether(ctx, [0, 1, 2], async (item) => {
      await answeredAfter(item === 2 ? 20 : 0);
      ended.push(item);
      if (item === 0) throw broken('item 0');
      if (item === 1) throw new Error('the target stopped answering');
      throw broken('item 2');
    });
    await expect(run).rejects.toThrow('the target stopped answering');
    expect(violations).toEqual([messageOf('item 0')]);
    expect(ended).toEqual([0, 1, 2]);
  });
});
