import { PetstoreClient } from './client.js';
import { runConfig } from '../run-config.js';
import { proxyPassword } from './proxy.js';
import { Redactor } from './redact.js';
import { ReplaySource, unmatchedPathFor } from './replay.js';

let client: PetstoreClient | undefined;

/**
 * The run's one client. The suites share a worker with isolation off, so this module, and the client,
 * the pacing state and the exchange record it holds, are shared by every suite file of the run.
 */
export function theClient(): PetstoreClient {
  if (!client) {
    const config = runConfig();
    // The run's secrets, as the CLI's side of the run redacts them: its key and its proxy's password.
    const redactor = new Redactor([config.apiKey, proxyPassword(config.proxy)]);
    client = new PetstoreClient({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      maxResponseBytes: config.maxResponseBytes,
      maxRequests: config.maxRequests,
      deadlineMs: config.maxDurationMs === null ? undefined : config.startedAtMs + config.maxDurationMs,
      concurrency: config.concurrency,
      rateLimitReserve: config.rateLimitReserve,
      exchangeLogPath: config.exchangeLogPath,
      caFile: config.caFile,
      proxy: config.proxy,
      cancelMarkerPath: config.cancelMarkerPath,
      redactor,
      ...(config.replayHarPath ? { replay: new ReplaySource(config.replayHarPath, config.startedAtMs, unmatchedPathFor(config.exchangeLogPath), redactor) } : {}),
    });
  }
  return client;
}
