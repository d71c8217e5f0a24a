import type { CheckContext } from '../judge/check.js';
import { createdIdOf, type Exchange } from './exchange.js';

export type { ReadLag } from '../run-context.js';

// The first pause; each next one doubles, so a lag of a second or two costs a handful of reads.
const FIRST_PAUSE_MS = 150;

/**
 * Sends `read` until `shows` holds or --read-lag has passed since the write at `writtenAtMs`. The spec
 * promises no read-after-write consistency, and staging runs replicas and caches, so a read that does not
 * yet show what the run wrote is tried again, with exponential backoff and through the paced client,
 * before it is judged. The last answer is returned either way: the check judges it.
 */
export async function readAfterWrite(ctx: CheckContext, what: string, writtenAtMs: number | undefined, read: () => Promise<Exchange>, shows: (exchange: Exchange) => boolean): Promise<Exchange> {
  let exchange = await read();
  // Not the run's own write: nothing says it should show yet, so the first answer is the one judged.
  if (writtenAtMs === undefined) return exchange;
  let attempts = 1;
  for (let pause = FIRST_PAUSE_MS; !shows(exchange); pause *= 2) {
    const left = writtenAtMs + ctx.config.readLagMs - ctx.client.now();
    if (left <= 0) {
      ctx.run.readLags.push({ what, waitedMs: ctx.client.now() - writtenAtMs, attempts, shown: false });
      return exchange;
    }
    await ctx.client.pause(Math.min(pause, left));
    exchange = await read();
    attempts += 1;
  }
  if (attempts > 1) ctx.run.readLags.push({ what, waitedMs: ctx.client.now() - writtenAtMs, attempts, shown: true });
  return exchange;
}

/** When an exchange's answer arrived: the earliest a replica could have had the write. */
export function answeredAt(exchange: Exchange): number {
  return Date.parse(exchange.startedAt) + exchange.durationMs;
}

/** When the run created the pet with this id (its 2xx answer), or undefined when the run did not create it. */
export function createdAtOf(exchanges: readonly Exchange[], id: string): number | undefined {
  const creation = exchanges.find((exchange) => createdIdOf(exchange) === id);
  return creation && answeredAt(creation);
}
