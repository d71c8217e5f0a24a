import type { Report, Verdict } from './report.js';

/** What the badge says for each verdict, and in which of shields.io's colours. */
const LOOK: Record<Verdict, { text: string; colour: string }> = {
  certified: { text: 'certified', colour: '#4c1' },
  'not-certified': { text: 'not certified', colour: '#e05d44' },
  incomplete: { text: 'incomplete', colour: '#dfb317' },
  'not-judged': { text: 'not judged', colour: '#9f9f9f' },
};

const LABEL = 'petstore conformance';

/**
 * A badge in the flat style of shields.io, for a vendor's README: the verdict, the suite version that
 * judged and the day of the run. The text is all the suite's own (no target text), so nothing needs escaping
 * beyond the XML specials a version could in theory carry.
 */
export function toBadge(report: Report): string {
  const look = LOOK[report.verdict];
  const message = `${look.text} · v${report.tool.version} · ${report.startedAt.slice(0, 10)}`;
  const labelWidth = textWidth(LABEL) + 10;
  const messageWidth = textWidth(message) + 10;
  const width = labelWidth + messageWidth;
  const title = `${LABEL}: ${message}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${xml(title)}">
  <title>${xml(title)}</title>
  <linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
  <clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>
  <g clip-path="url(#r)">
    <rect width="${labelWidth}" height="20" fill="#555"/>
    <rect x="${labelWidth}" width="${messageWidth}" height="20" fill="${look.colour}"/>
    <rect width="${width}" height="20" fill="url(#s)"/>
  </g>
  <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
    <text x="${labelWidth / 2}" y="15" fill="#010101" fill-opacity=".3">${xml(LABEL)}</text>
    <text x="${labelWidth / 2}" y="14">${xml(LABEL)}</text>
    <text x="${labelWidth + messageWidth / 2}" y="15" fill="#010101" fill-opacity=".3">${xml(message)}</text>
    <text x="${labelWidth + messageWidth / 2}" y="14">${xml(message)}</text>
  </g>
</svg>
`;
}

// Verdana at 11px averages about 6.5px a character; shields.io measures exactly, a badge only needs room.
function textWidth(text: string): number {
  return Math.round(text.length * 6.5);
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
