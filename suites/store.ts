// GET /store/orders: the spec names the operation and nothing else, so only its existence is a rule.
import { check, suite, type CheckContext } from '../helpers/judge/check.js';
import { describeExchange, type Exchange } from '../helpers/http/exchange.js';
import { expectThat, preview, responseOf } from '../helpers/judge/expect.js';

/** The one GET /store/orders with the key a run needs: sent by STORE-01, read again by STORE-02. */
async function ordersExchange(ctx: CheckContext): Promise<Exchange> {
  const earlier = ctx.client.exchanges.find((exchange) => exchange.rule === 'STORE-01' && exchange.response);
  return earlier ?? ctx.client.send({ path: '/store/orders' });
}

// Answers a gateway gives before any routing: they say nothing of whether the operation exists.
const BEFORE_ROUTING = [401, 403, 429];

/** A body described without judging it: the spec shows none. */
function shapeOf(exchange: Exchange): string {
  const { json, rawBody } = responseOf(exchange);
  if (rawBody.length === 0) return 'an empty body';
  if (json === undefined) return `text that is not JSON: ${preview(rawBody, 80)}`;
  if (Array.isArray(json)) return `a JSON array of ${json.length} item(s)`;
  if (typeof json === 'object' && json !== null) return `a JSON object with keys ${Object.keys(json).join(', ') || '(none)'}`;
  return `the JSON value ${preview(rawBody, 80)}`;
}

export default suite('store', [
  check('STORE-01', async (ctx) => {
    const exchange = await ordersExchange(ctx);
    const status = responseOf(exchange).status;
    if (BEFORE_ROUTING.includes(status)) {
      ctx.skip(`GET /store/orders with the key was answered ${status} (${describeExchange(exchange)}), which a gateway gives before routing, so it says nothing of whether the operation exists (AUTH-06 reports a key refused)`);
    }
    // Any other answer is allowed: its parameters and responses are not shown, so even a 400 may be right.
    expectThat(ctx, status !== 404 && status !== 405, {
      expected: 'GET /store/orders to exist (neither 404 nor 405)', seen: String(status), body: preview(responseOf(exchange).rawBody), exchanges: [exchange],
    });
  }),

  check('STORE-02', async (ctx) => {
    const exchange = await ordersExchange(ctx);
    const response = responseOf(exchange);
    ctx.observe(`GET /store/orders answers ${response.status}, ${response.headers['content-type'] ?? 'no content type'}, ${shapeOf(exchange)}`);
  }),
]);
