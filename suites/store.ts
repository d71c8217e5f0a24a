// GET /store/orders: the spec names the operation and nothing else, so only its existence is a rule.
import { check, suite, type CheckContext } from '../helpers/judge/check.js';
import { describeExchange, type Exchange } from '../helpers/http/exchange.js';
import { expectThat, preview, responseOf } from '../helpers/judge/expect.js';

/** The one GET /store/orders with the key a run needs: sent by STORE-01, read again by STORE-02. */
async function ordersExchange(ctx: CheckContext): Promise<Exchange> {
  const earlier = ctx.client.exchanges.find((exchange) => exchange.rule === 'STORE-01' && exchange.response);
  return earlier ?? ctx.client.send({ path: '/store/orders' });
}

// Answers a gateway gives before any routing: alone, they say nothing of whether the operation exists.
const BEFORE_ROUTING = [401, 403, 429];

/** A path beside the operation that names none: what a router answers for a route it does not have. */
const NO_SUCH_OPERATION = '/store/no-such-operation';

/**
 * Whether a 401 or 403 to GET /store/orders with the key is the operation's own answer (an OAuth scope the key
 * lacks, checked in the handler): the key works elsewhere (GET /pets answers 2xx), and the route beside it that names
 * no operation is answered 404. A gateway that refuses before routing refuses that route too. Both are asked by this
 * check itself, whatever else the run has sent, so a replay sends the same.
 */
async function refusedByTheOperation(ctx: CheckContext): Promise<{ own: boolean; listing: Exchange; beside: Exchange }> {
  const [listing, beside] = await Promise.all([ctx.client.send({ path: '/pets', query: { limit: '1' } }), ctx.client.send({ path: NO_SUCH_OPERATION })]);
  const status = (exchange: Exchange) => exchange.response?.status ?? 0;
  return { own: status(listing) >= 200 && status(listing) < 300 && status(beside) === 404, listing, beside };
}

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
      const compared = status === 429 ? undefined : await refusedByTheOperation(ctx);
      if (compared?.own) {
        ctx.observe(`GET /store/orders with the key was answered ${status} (${describeExchange(exchange)}), and the route beside it that names no operation 404 (${describeExchange(compared.beside)}), while the key lists pets: the ${status} is the operation's own answer, so the operation exists`);
        return;
      }
      const beside = compared ? `; with the key, GET /pets was answered ${compared.listing.response?.status ?? 'nothing'} and GET ${NO_SUCH_OPERATION} ${compared.beside.response?.status ?? 'nothing'}` : '';
      ctx.skip(`GET /store/orders with the key was answered ${status} (${describeExchange(exchange)}), which a gateway gives before routing, so it says nothing of whether the operation exists${beside} (AUTH-06 reports a key refused)`);
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
