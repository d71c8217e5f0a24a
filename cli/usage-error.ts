/** Bad usage or configuration: one clear line, exit code 2, nothing sent to the target. */
export class UsageError extends Error {
  override name = 'UsageError';
}
