import { findingsApart, type CheckContext } from './check.js';

/**
 * Starts `part` for every item at once, each with a context of its own whose findings are kept apart, then
 * puts them on the check's record in the items' order: a target far away costs a round trip for every
 * --concurrency of them, not one each, and the findings read as they would one after another. For parts that
 * send their own requests and read nothing the others send. Every part has ended before any finding is passed
 * on, so nothing a check started is still in flight when it ends. What a part throws is no finding (a dead
 * target, a spent budget, a write --read-only does not send): every part's findings go on record, then the
 * check stops with what the first part, in order, that threw threw. A finding is evidence whatever stopped a
 * part beside it: a --read-only run that cannot send createPet's part still fails on a read that broke the rule.
 */
export async function together<T>(ctx: CheckContext, items: readonly T[], part: (item: T, ctx: CheckContext) => Promise<void>): Promise<void> {
  const parts = items.map(() => findingsApart(ctx));
  const ended = await Promise.all(items.map((item, index) => part(item, parts[index]!.ctx).then(() => undefined, (error: unknown) => ({ error }))));
  for (const { findings } of parts) for (const facts of findings) ctx.violation(facts);
  const threw = ended.find((outcome) => outcome !== undefined);
  if (threw) throw threw.error;
}

/** `together` for parts that each send their own request on the context they are given: started at once, judged in order. */
export function allTogether(ctx: CheckContext, parts: ReadonlyArray<(part: CheckContext) => Promise<void>>): Promise<void> {
  return together(ctx, parts, (run, part) => run(part));
}
