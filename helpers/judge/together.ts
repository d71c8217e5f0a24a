import { findingsApart, type CheckContext } from './check.js';

/**
 * Starts `part` for every item at once, each with a context of its own whose findings are kept apart, then
 * puts them on the check's record in the items' order: a target far away costs a round trip for every
 * --concurrency of them, not one each, and the findings read as they would one after another. For parts that
 * send their own requests and read nothing the others send. Every part has ended before any finding is passed
 * on, so nothing a check started is still in flight when it ends; what a part throws is no finding (a dead
 * target, a spent budget) and stops the check at the first part, in order, that threw, after that part's findings.
 */
export async function together<T>(ctx: CheckContext, items: readonly T[], part: (item: T, ctx: CheckContext) => Promise<void>): Promise<void> {
  const parts = items.map(() => findingsApart(ctx));
  const ended = await Promise.all(items.map((item, index) => part(item, parts[index]!.ctx).then(() => undefined, (error: unknown) => ({ error }))));
  for (const [index, threw] of ended.entries()) {
    for (const facts of parts[index]!.findings) ctx.violation(facts);
    if (threw) throw threw.error;
  }
}

/** `together` for parts that each send their own request on the context they are given: started at once, judged in order. */
export function allTogether(ctx: CheckContext, parts: ReadonlyArray<(part: CheckContext) => Promise<void>>): Promise<void> {
  return together(ctx, parts, (run, part) => run(part));
}
