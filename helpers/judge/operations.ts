import type { Exchange } from '../http/exchange.js';

/** The four operations the spec names. */
export type OperationId = 'listPets' | 'createPet' | 'getPet' | 'getStoreOrders';

/** The pet operations: the ones whose bodies the spec defines. */
export const PET_OPERATIONS: readonly OperationId[] = ['listPets', 'createPet', 'getPet'];

/**
 * Which operation an exchange addressed, by method and path below the base URL; undefined for
 * anything else. The run-wide checks (errors, challenges, deprecation) judge exchanges by operation.
 */
export function operationOf(exchange: Exchange, baseUrl: string): OperationId | undefined {
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const path = new URL(exchange.request.url).pathname;
  if (!path.startsWith(basePath)) return undefined;
  const rest = path.slice(basePath.length);
  const method = exchange.request.method;
  if (rest === '/pets') return method === 'GET' ? 'listPets' : method === 'POST' ? 'createPet' : undefined;
  if (/^\/pets\/[^/]+$/.test(rest) && method === 'GET') return 'getPet';
  if (rest === '/store/orders' && method === 'GET') return 'getStoreOrders';
  return undefined;
}

/**
 * Exchanges grouped by what they addressed ("createPet 400", say): the run-wide checks report one
 * violation per group, so a broken answer repeated a hundred times reads as one finding.
 */
export function groupExchanges(exchanges: readonly Exchange[], baseUrl: string, withStatus: boolean): Map<string, Exchange[]> {
  const groups = new Map<string, Exchange[]>();
  for (const exchange of exchanges) {
    const target = operationOf(exchange, baseUrl) ?? `${exchange.request.method} ${pathTemplate(exchange, baseUrl)}`;
    const key = withStatus ? `${target} ${exchange.response?.status ?? 'no response'}` : target;
    groups.set(key, [...(groups.get(key) ?? []), exchange]);
  }
  return groups;
}

/**
 * The path of an exchange no operation names, as a template below the base URL ("/pets/{petId}",
 * "/pets/{n}/photos"), so that the answers to one unknown path or method group together whatever id they carry.
 */
export function pathTemplate(exchange: Exchange, baseUrl: string): string {
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const path = new URL(exchange.request.url).pathname;
  if (!path.startsWith(basePath)) return path;
  const rest = path.slice(basePath.length) || '/';
  if (/^\/pets\/[^/]+$/.test(rest)) return '/pets/{petId}';
  return rest.replace(/\/-?[0-9]+(?=\/|$)/g, '/{n}');
}
