import { text, withHeaders } from '../../server/responses.js';
import { insteadOf, onAnswer } from '../../server/seams.js';
import { SPA_INDEX } from './pages.js';
import type { DefectSpec } from './spec.js';

/** Defects of the store area. */
export const STORE_DEFECTS = [
  {
    id: 'store-orders-missing',
    area: 'store',
    description: 'has no GET /store/orders (404)',
    rules: ['STORE-01'],
    overrides: {
      serves: (operation, reference) => operation !== 'getStoreOrders' && reference(operation),
    },
  },
  {
    id: 'store-orders-post-only',
    area: 'store',
    description: 'maps /store/orders for POST only (a Spring @PostMapping), so a GET answers 405 Method Not Allowed',
    rules: ['STORE-01'],
    overrides: {
      respond: insteadOf('getStoreOrders', (_request, server) => withHeaders(server.seams.error(405, 'method_not_allowed', 'GET is not supported here'), { allow: 'POST' })),
    },
  },
  {
    id: 'store-orders-unimplemented',
    area: 'store',
    description: 'answers GET /store/orders with 500: a generated server stub left unimplemented throws, and the framework answers 500',
    rules: ['ERR-04'],
    overrides: {
      respond: insteadOf('getStoreOrders', () => {
        throw new Error('not implemented');
      }),
    },
  },
  {
    id: 'store-orders-text-plain',
    area: 'store',
    description: 'answers GET /store/orders with its JSON as text/plain: an Express handler that sets the type by hand (res.type(\'text\')) before res.send',
    rules: ['ERR-05'],
    overrides: {
      respond: onAnswer('getStoreOrders', (answer) => ({ ...answer, contentType: 'text/plain; charset=utf-8' })),
    },
  },
  {
    id: 'store-orders-spa-fallback',
    area: 'store',
    description: 'answers GET /store/orders with a single-page app\'s index.html (200 text/html): the catch-all route of the front end serves every path the API never mapped',
    rules: ['ERR-05'],
    overrides: {
      respond: insteadOf('getStoreOrders', () => text(200, 'text/html; charset=utf-8', SPA_INDEX)),
    },
  },
  {
    id: 'store-orders-python-nan',
    area: 'store',
    description: 'answers GET /store/orders with a summary whose average over no orders is 0/0, which Python\'s json.dumps writes as NaN (allow_nan is on by default): the body is labelled application/json and is no JSON',
    rules: ['ERR-05'],
    overrides: {
      respond: insteadOf('getStoreOrders', () => text(200, 'application/json', '{"orders": [], "count": 0, "averageTotal": NaN}')),
    },
  },
  {
    id: 'store-orders-file-bom',
    area: 'store',
    description: 'serves GET /store/orders from a static orders.json fixture saved by a Windows editor with a UTF-8 byte order mark, which express.static sends as application/json: RFC 8259 forbids the BOM, and JSON parsers reject it',
    rules: ['ERR-05'],
    overrides: {
      respond: insteadOf('getStoreOrders', () => text(200, 'application/json; charset=UTF-8', '\ufeff[]\n')),
    },
  },
] as const satisfies readonly DefectSpec[];
