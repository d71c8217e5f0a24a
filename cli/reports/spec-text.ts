import { existsSync, readFileSync } from 'node:fs';
import { packagePath } from '../../helpers/package-root.js';

/** One heading of the specification and the text under it, up to the next heading. */
export interface SpecSection {
  /** The headings from the top level down, "#" titles left out: ["Endpoints", "GET /pets — list animals (…)"]. */
  path: string[];
  anchor: string;
  text: string;
}

/** The specification shipped in the package (spec/petstore-interface-spec.md), by section; none when absent. */
export function specSections(file = packagePath('spec', 'petstore-interface-spec.md')): SpecSection[] {
  if (!existsSync(file)) return [];
  const sections: SpecSection[] = [];
  const stack: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const heading = /^(#{2,6})\s+(.*)$/.exec(line);
    if (heading) {
      stack.length = heading[1]!.length - 2;
      stack.push(heading[2]!.trim());
      sections.push({ path: [...stack], anchor: `spec-${slug(stack.join(' '))}`, text: '' });
    } else if (sections.length > 0) {
      sections.at(-1)!.text += `${line}\n`;
    }
  }
  return sections;
}

/**
 * The anchor of a rule's section ("Endpoints › GET /pets", "Resources › NewPet"): each part names the start of
 * a heading, up to a space or the end, so "GET /pets" is not taken for "GET /pets/{petId}". Sections of other
 * documents (an RFC) have none.
 */
export function specAnchorFor(section: string, sections: readonly SpecSection[]): string | undefined {
  const parts = section.split('›').map((part) => part.trim());
  const names = (heading: string, part: string) => heading === part || heading.startsWith(`${part} `);
  return sections.find((candidate) => candidate.path.length === parts.length && parts.every((part, i) => names(candidate.path[i]!, part)))?.anchor;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
