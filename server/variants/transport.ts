import type { VariantSpec } from './spec.js';

/** Conforming variants of the transport area. */
export const TRANSPORT_VARIANTS = [
  {
    id: 'gzip',
    area: 'transport',
    description: 'gzips every body the client accepts gzip for; a request without Accept-Encoding accepts any coding (RFC 9110 §12.5.3)',
  },
  {
    id: 'connection-close',
    area: 'transport',
    description: 'sends Connection: close on every response, so every request needs a new connection (HTTP/1.0-minded proxies do)',
  },
  {
    id: 'extra-headers',
    area: 'transport',
    description: 'adds X-Request-Id, CORS headers and a Server header to every response, as API gateways do',
  },
] as const satisfies readonly VariantSpec[];
