/**
 * The report files a run can write, by the name --reporter knows them by, in the order they are written. Apart
 * from the reporters themselves (write.ts), so that parsing the command line loads none of them: a usage error,
 * --help or --version answers without the HTML, Markdown and HAR writers.
 */
export const REPORTER_NAMES = ['html', 'summary', 'har', 'junit', 'json', 'badge'] as const;

export type ReporterName = (typeof REPORTER_NAMES)[number];
