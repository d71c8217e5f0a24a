// The client is reached by more than the CLI (the programmatic API, a replay, a test): it guards its
// own options, so that no caller can make it wait forever.
import { describe, expect, it } from 'vitest';
import { PetstoreClient, type ClientOptions } from '../../helpers/http/client.js';

const OPTIONS: ClientOptions = {
  baseUrl: 'http://127.0.0.1:1/v1',
  apiKey: 'client-options-key-5e6f',
  timeoutMs: 1_000,
  maxResponseBytes: 1_048_576,
  maxRequests: null,
  concurrency: 1,
  rateLimitReserve: 2,
};

describe('the HTTP client', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses a concurrency of %s: no request would ever get a slot', (concurrency) => {
    expect(() => new PetstoreClient({ ...OPTIONS, concurrency })).toThrow(`concurrency must be an integer of at least 1, not ${concurrency}`);
  });

  it('takes a concurrency of 1 and redacts its own key', async () => {
    const client = new PetstoreClient(OPTIONS);
    expect(client.redactor.redact(`Bearer ${OPTIONS.apiKey}`)).toBe('Bearer $PETSTORE_API_KEY');
    await client.close();
  });
});
