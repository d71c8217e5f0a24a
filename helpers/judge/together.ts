import type { CheckContext } from './check.js';

/**
 * Starts `part` for every item at once, then judges each through ctx.softly in the items' order: a target
 * far away costs a round trip for every --concurrency of them, not one each, and the findings read as they
 * would one after another. For parts that send their own requests and read nothing the others send. Every
 * part has ended before any is judged, so nothing a check started is still in flight when it ends; what is
 * no violation (a dead target, a spent budget) stops the check at the first part, in order, that met it.
 */
export async function softlyTogether<T>(ctx: CheckContext, items: readonly T[], part: (item: T) => Promise<void>): Promise<void> {
  const outcomes = await Promise.all(items.map((item) => part(item).then(() => undefined, (error: unknown) => ({ error }))));
  for (const failed of outcomes) {
    await ctx.softly(() => {
      if (failed) throw failed.error;
    });
  }
}
