// The mark of a progress line: the client writes such lines during a long phase, the CLI's terminal shows them
// in place. Apart from the client, so that the CLI's own thread reads the mark without loading the client and undici.

/** Marks a progress line of a long phase: the CLI shows it in place on a terminal, or every few seconds. */
export const PROGRESS_PREFIX = 'progress: ';
